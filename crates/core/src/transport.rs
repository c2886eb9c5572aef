//! Per-flow transport state, by role: what the sender, the receiver, a
//! connection's messages and receiver credits keep for one flow. The code
//! that moves it is `host.rs` (sender and receiver), `msg.rs` (messages),
//! `nic.rs` (the NIC's choice) and `credit.rs` (credits).

use std::collections::VecDeque;

use crate::cc::{FlowView, ReceiverCc, Scheme, SenderCc, TIMER_SLOTS};
use crate::config::NetConfig;
use crate::recovery::{RecvPsns, SendRecords};
use crate::time::{ser_time, Time};

/// Which sender hook to call.
#[derive(Clone, Copy)]
pub(crate) enum CcOp {
    Start,
    Ack(u32),
    Nack(u32),
    Control(u32),
    Timer(usize),
    Timeout,
    HeldTimeout,
}

pub(crate) struct Flow {
    pub view: FlowView,
    /// Priority class (priority + 1).
    pub class: u8,
    /// ECMP hash (and UET entropy base).
    pub hash: u64,
    pub ideal_fct: Time,
    /// The scheme's sender and receiver parts.
    pub cc: Box<dyn SenderCc>,
    pub rx: Box<dyn ReceiverCc>,
    /// What the sender keeps.
    pub snd: Sender,
    /// What the receiver keeps.
    pub rcv: Receiver,
    /// A connection's message state (None for a flow).
    pub conn: Option<Box<ConnState>>,
    /// Symmetric routing: ingress port of the data at each switch on its
    /// path, written and read only by the switch at that hop (a reply
    /// carries the path's length, `Packet::path_hops`), so each part of a
    /// parallel run holds the entries of its own switches.
    pub path: [u32; 8],
    /// Index of this flow's `FlowTrace` when its changes or ACKs are recorded.
    pub log_slot: Option<u32>,
}

/// A flow's sender: its byte stream, its window and rate, its timers, its
/// credit balance, its completion and its losses.
pub(crate) struct Sender {
    /// End of the data released to the sender: the size of a flow; a
    /// connection's grows as its messages are released.
    pub avail: u64,
    /// Next new byte to send.
    pub nxt: u64,
    /// Lowest byte not cumulatively acknowledged.
    pub una: u64,
    pub max_sent: u64,
    pub rate: u64,
    pub window: u64,
    pub next_send: Time,
    pub last_send: Time,
    pub last_size: u32,
    pub timer_gen: [u32; TIMER_SLOTS],
    pub last_progress: Time,
    pub done: bool,
    /// Receiver credits: `credit` is spent (<= 0), so the NIC holds the
    /// flow (kept beside `done`, which the NIC reads with it).
    pub credit_held: bool,
    pub fct: Option<Time>,
    /// Data packets resent, timeouts, data packets trimmed and dropped
    /// (`Simulator::count_loss`).
    pub losses: Losses,
    /// Data packets head-of-line blocked by a PAUSE not caused by their own egress.
    pub hol_pkts: u64,
    /// Byte ranges [start, end) to resend first, in order: the bytes of
    /// trimmed packets a trim NACK named (`network.trim`, reorder receiver).
    pub rtx: Vec<(u64, u64)>,
    /// The receiver's distinct bytes as of the latest ACK/NACK.
    pub delivered: u64,
    /// The lower edge of the bytes in flight, `nxt - una_eff` of them:
    /// `una`, or with trimming and a reorder receiver the delivered bytes
    /// plus those waiting in `rtx` (UET counts in flight what was neither
    /// received nor NACKed, spec 1.0 §3.6.13).
    pub una_eff: u64,
    /// Credit left in wire bytes under receiver credits (`credit.rs`; it
    /// may go negative by one packet); `i64::MAX` without them. The pull
    /// state of both ends is `Simulator::credit_flows`.
    pub credit: i64,
    /// Per-packet recovery (`network.recovery = "packet"`): the packets out
    /// and their timer (`recovery.rs`); None under per-flow recovery.
    pub recs: Option<Box<SendRecords>>,
    /// SLEEK (`network.sleek`): its state (`sleek.rs`); None without.
    pub sleek: Option<Box<crate::recovery::Sleek>>,
    /// SLEEK's loss recovery: resends leave whatever the window says
    /// (uet-htsim `can_send_NSCC` in `_loss_recovery_mode`). A copy of
    /// `Sleek::recovery` that `sleek.rs` keeps, so the NIC's window check
    /// does not follow the box.
    pub rtx_free: bool,
}

/// A flow's receiver: its cumulative point, what it holds out of order and
/// its ACK and NACK pacing.
#[derive(Default)]
pub(crate) struct Receiver {
    /// Next byte expected in order.
    pub nxt: u64,
    /// The first packet arrived.
    pub started: bool,
    /// The last byte arrived.
    pub done: bool,
    pub ack_count: u32,
    pub last_nack_seq: u64,
    pub last_nack_time: Option<Time>,
    /// `Receiver::Reorder`: received byte ranges [start, end) above `nxt`,
    /// sorted and disjoint.
    pub ooo: Vec<(u64, u64)>,
    /// Distinct payload bytes received (in order or kept).
    pub bytes: u64,
    /// Per-packet recovery: the PSNs held and the ACK pacing by them
    /// (`recovery.rs`); None under per-flow recovery.
    pub psns: Option<Box<RecvPsns>>,
}

/// Ideal completion time of `size` payload bytes on `view`'s path (HPCC
/// convention): base RTT + wire bytes (payload + a header per packet) at the
/// slowest link. A flow's, and a message's on an idle connection.
pub(crate) fn ideal_fct(view: &FlowView, size: u64, net: &NetConfig) -> Time {
    let npkts = size.div_ceil(net.mtu.0);
    view.base_rtt + ser_time(size + npkts * net.header.0, view.bottleneck_rate)
}

impl Sender {
    /// Bytes wait to be sent: new data released, or a range to resend.
    #[inline]
    pub(crate) fn has_data(&self) -> bool {
        self.nxt < self.avail || !self.rtx.is_empty()
    }
}

impl Flow {
    /// Bytes wait to be sent: new data released, or a range to resend.
    #[inline]
    pub(crate) fn has_data(&self) -> bool {
        self.snd.has_data()
    }

    pub(crate) fn new(
        scheme: &dyn Scheme,
        view: FlowView,
        class: u8,
        hash: u64,
        ideal_fct: Time,
        conn: Option<Box<ConnState>>,
        per_packet: bool,
    ) -> Flow {
        let snd = Sender {
            avail: view.size,
            nxt: 0,
            una: 0,
            max_sent: 0,
            rate: view.line_rate,
            window: u64::MAX,
            next_send: 0,
            last_send: 0,
            last_size: 0,
            timer_gen: [0; TIMER_SLOTS],
            last_progress: 0,
            done: false,
            credit_held: false,
            fct: None,
            losses: Losses::default(),
            hol_pkts: 0,
            rtx: Vec::new(),
            delivered: 0,
            una_eff: 0,
            credit: i64::MAX,
            recs: per_packet.then(Box::default),
            sleek: None,
            rtx_free: false,
        };
        Flow {
            cc: scheme.sender(&view),
            rx: scheme.receiver(&view),
            view,
            class,
            hash,
            ideal_fct,
            snd,
            rcv: Receiver { psns: per_packet.then(Box::default), ..Default::default() },
            conn,
            path: [0; 8],
            log_slot: None,
        }
    }
}

/// The message part of a connection's state.
#[derive(Default, Debug)]
pub(crate) struct ConnState {
    /// Index among the traffic's connections.
    pub id: u32,
    /// Released messages not yet completed at the sender: (stream end, id),
    /// in stream order.
    pub tx: VecDeque<(u64, u32)>,
    /// Released messages not yet delivered to the receiver: (stream end, id).
    pub rx: VecDeque<(u64, u32)>,
    /// Stream offset of the last released message.
    pub msg_start: u64,
    /// Stream offset where the current busy period began.
    pub burst_start: u64,
    /// The connection has started at its NIC (its first message was released).
    pub started: bool,
    /// Messages released and completed on it.
    pub released: u32,
    pub completed: u32,
}

/// `Msg::flow` of a compute task.
pub(crate) const TASK: u32 = u32::MAX;

/// What happened to a sender's data packets (see [`Simulator::count_loss`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Loss {
    /// A data packet sent again (go-back-N, a trim NACK's range, after a timeout).
    Resend,
    /// The retransmission timeout fired with data in flight.
    Timeout,
    /// A data packet trimmed to its header at a switch.
    Trim,
    /// A data packet dropped (admission, a failed link, no route).
    Drop,
}

/// Per flow, connection or message: the counts of [`Loss`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Losses {
    pub retransmits: u64,
    pub timeouts: u64,
    pub trimmed: u64,
    pub drops: u64,
}

impl Losses {
    #[inline]
    pub(crate) fn add(&mut self, what: Loss) {
        match what {
            Loss::Resend => self.retransmits += 1,
            Loss::Timeout => self.timeouts += 1,
            Loss::Trim => self.trimmed += 1,
            Loss::Drop => self.drops += 1,
        }
    }
}

/// One message (or compute task) and where it stands.
#[derive(Clone, Debug)]
pub(crate) struct Msg {
    /// The connection's flow index ([`TASK`] for a compute task).
    pub flow: u32,
    /// A compute task's host.
    pub host: u32,
    pub size: u64,
    pub at: Time,
    pub delay: Time,
    pub tag: u32,
    /// Dependencies not yet done.
    pub deps_left: u32,
    /// Latest time a dependency was done.
    pub deps_done_at: Time,
    /// It waits for other messages (else it is released at `at`).
    pub waits: bool,
    /// Stream offset (valid once released).
    pub offset: u64,
    pub released: Option<Time>,
    pub delivered: Option<Time>,
    pub done: Option<Time>,
    /// The key of the event it was completed in (with `done`, its place
    /// among simultaneous events: a parallel run's losses are given to the
    /// messages outstanding when they happened, `parallel.rs`).
    pub done_key: crate::event::Key,
    /// Its bytes resent, trimmed and dropped, and the timeouts that fired
    /// while it was the oldest outstanding message ([`Simulator::count_loss`]).
    pub losses: Losses,
}

/// Credit state of one flow, sender and receiver side (the sender's credit
/// balance is `Flow::credit`, read by the NIC).
#[derive(Clone, Debug, Default)]
pub(crate) struct CreditFlow {
    /// Sender: the largest cumulative grant received.
    pub pulled: u64,
    /// Sender: the latest pull target sent (in data or an RTS).
    pub advertised: u64,
    /// Sender: still on its initial, unsolicited credit.
    pub speculating: bool,
    /// Sender: `CreditConfig::max_credit` in bytes for this flow.
    pub max: i64,
    /// Sender: when it last heard a pull or sent an RTS.
    pub asked_at: Time,
    /// Receiver: the highest pull target seen.
    pub target: u64,
    /// Receiver: the cumulative grant sent.
    pub granted: u64,
    /// Receiver: in its host pacer's queue.
    pub queued: bool,
}
