//! The plug-in boundary between the simulator core and congestion-control
//! schemes. A scheme may act in three places, each behind a small trait:
//!
//! * the sender ([`SenderCc`]): per ACK, NACK, control packet, timer, timeout and
//!   per data packet sent; it sets the flow's pacing rate and window;
//! * the receiver ([`ReceiverCc`]): per data packet; it may ask for a CNP and
//!   writes its own fields into the ACK;
//! * the switch ([`SwitchCc`]): per packet entering and leaving an egress queue;
//!   it may mark or stamp the packet, keep per-port state and emit packets
//!   (routed from that switch like any other, e.g. straight back to a sender).
//!
//! The core calls these hooks; they never call the core. A [`Scheme`] is the
//! factory that creates the three parts and states what the network must provide.

use crate::packet::Packet;
use crate::time::Time;

/// Facts about a flow that do not change while it runs.
#[derive(Clone, Debug)]
pub struct FlowView {
    pub id: u32,
    pub src: u32,
    pub dst: u32,
    /// Payload bytes.
    pub size: u64,
    pub start: Time,
    /// The sender NIC's line rate (bits/s).
    pub line_rate: u64,
    /// Slowest link on the flow's path (bits/s).
    pub bottleneck_rate: u64,
    /// Base RTT of the flow's path (HPCC simulator convention): twice the
    /// one-way latency (propagation plus `network.switch_delay` per switch)
    /// plus the serialization of one full data packet (`packet_size`, no INT)
    /// on every forward link.
    pub base_rtt: Time,
    /// line_rate x base_rtt in bytes.
    pub bdp: u64,
    /// Largest base RTT over all host pairs of the topology (HPCC uses one
    /// global T for every flow).
    pub max_base_rtt: Time,
    /// Switches on the forward path.
    pub path_switches: u8,
    /// Payload bytes per full data packet.
    pub mtu: u32,
    /// Wire bytes of a full data packet: payload + headers, not counting INT.
    pub packet_size: u32,
    /// The fabric trims this flow's data class (`network.trim` on a class
    /// PFC leaves lossy): a scheme reads the network here rather than
    /// keeping a flag of its own in step with it.
    pub trims: bool,
}

/// Timer slots a sender may use (each slot holds at most one pending timer).
pub const TIMER_SLOTS: usize = 4;

/// What a sender-side controller sees and sets. `rate` and `window` persist
/// between calls; the core applies them to the next packet it sends.
pub struct SenderCx<'a> {
    pub now: Time,
    pub flow: &'a FlowView,
    /// Next new byte to send (highest sent + 1).
    pub snd_nxt: u64,
    /// Lowest unacknowledged byte.
    pub snd_una: u64,
    /// Lower edge of the bytes in flight as the window counts them:
    /// `snd_una`, or with trimming on a reorder receiver `snd_una` plus the
    /// bytes received above it and those waiting to be resent (the core's
    /// `una_eff`), so `snd_nxt - una_eff` are the bytes on the wire.
    pub una_eff: u64,
    /// Payload bytes the receiver holds as of the latest ACK or NACK, the
    /// reordered ones above `snd_una` included (UET's Rcvd_Bytes): its
    /// growth is what was delivered. `snd_una` for an in-order receiver.
    pub delivered: u64,
    /// End of the data the application has handed to the transport so far:
    /// the flow's size, or on a connection the end of its last released
    /// message (it grows as messages arrive). `avail - snd_nxt` is the data
    /// waiting to be sent (Bolt's "pending bytes counter", §4.2).
    pub avail: u64,
    /// Start of the last released message (0 for a flow): the last packet
    /// before `avail` carries `(avail - msg_start - 1) % mtu + 1` bytes.
    pub msg_start: u64,
    /// Where the connection's current busy period began: the stream offset
    /// of the first message released while it had nothing unacknowledged
    /// (0 for a flow). Bolt's prototype resets its bytes-sent counter there
    /// (§4.2), so `seq - burst_start` is that counter.
    pub burst_start: u64,
    /// Pacing rate in bits/s (clamped by the core to 1 Kbps..line rate).
    pub rate: f64,
    /// Limit on the bytes in flight ([`SenderCx::inflight`]: the core sends
    /// while they are under it); `u64::MAX` for none.
    pub window: u64,
    /// Timer requests: Some(Some(t)) = (re)arm slot for absolute time t,
    /// Some(None) = cancel; None = leave as is.
    pub timers: [Option<Option<Time>>; TIMER_SLOTS],
}

impl<'a> SenderCx<'a> {
    /// A context with no timer requests, for a flow (all of `flow.size`
    /// available from the start; a connection's core sets `avail`,
    /// `msg_start` and `burst_start` afterwards).
    pub fn new(now: Time, flow: &'a FlowView, snd_nxt: u64, snd_una: u64, rate: f64, window: u64) -> Self {
        SenderCx {
            now,
            flow,
            snd_nxt,
            snd_una,
            una_eff: snd_una,
            delivered: snd_una,
            avail: flow.size,
            msg_start: 0,
            burst_start: 0,
            rate,
            window,
            timers: [None; TIMER_SLOTS],
        }
    }

    /// Arm timer `slot` to fire `delay` from now, replacing any pending one
    /// (a delay past the end of simulated time fires at its end: never).
    pub fn set_timer(&mut self, slot: usize, delay: Time) {
        self.timers[slot] = Some(Some(self.now.saturating_add(delay)));
    }
    pub fn cancel_timer(&mut self, slot: usize) {
        self.timers[slot] = Some(None);
    }
    /// Bytes in flight as the window counts them (`snd_nxt - una_eff`):
    /// sent, and neither acknowledged, received out of order, nor waiting to
    /// be resent.
    pub fn inflight(&self) -> u64 {
        self.snd_nxt.saturating_sub(self.una_eff)
    }
}

/// Sender half of a scheme, one instance per flow.
pub trait SenderCc: Send {
    /// The flow starts: set the initial rate and window (default: line rate, no window).
    fn on_start(&mut self, cx: &mut SenderCx);
    /// An ACK arrived (`ack.seq` = next byte the receiver expects; INT, ECN echo,
    /// timestamp echo and the receiver's fields are in the packet).
    fn on_ack(&mut self, cx: &mut SenderCx, ack: &Packet);
    /// A NACK arrived; the core has already gone back to `nack.seq`. A
    /// trim NACK (`nack.trim` = [`crate::packet::TRIMMED`] or
    /// [`crate::packet::TRIMMED_LAST_HOP`]) names one trimmed packet
    /// (`trim_seq`, `trim_len`); with a reorder receiver the core resends
    /// just those bytes, ahead of new data and outside the window.
    fn on_nack(&mut self, _cx: &mut SenderCx, _nack: &Packet) {}
    /// A CNP or scheme control packet (`Ctrl`) for this flow arrived.
    fn on_control(&mut self, _cx: &mut SenderCx, _pkt: &Packet) {}
    /// Timer `slot` fired.
    fn on_timer(&mut self, _cx: &mut SenderCx, _slot: usize) {}
    /// A data packet is about to leave the NIC: stamp header fields here.
    fn on_send(&mut self, _cx: &mut SenderCx, _pkt: &mut Packet) {}
    /// The retransmission timer expired; the core goes back to `snd_una`.
    fn on_timeout(&mut self, _cx: &mut SenderCx) {}
    /// A packet's timer expired while SLEEK recovers (`network.sleek`):
    /// SLEEK, not the timer, resends it, so the core resends nothing; a
    /// multipath balancer may still count the timeout (uet-htsim
    /// `rtxTimerExpired` tells its balancer before it hands the packet
    /// to SLEEK).
    fn on_held_timeout(&mut self, _cx: &mut SenderCx) {}
    /// For traces: a scheme-specific scalar worth plotting (e.g. DCQCN alpha, HPCC U).
    fn probe(&self) -> f64 {
        0.0
    }
    /// What SLEEK loss recovery (`network.sleek`, `crate::sleek`) reads
    /// from the sender's state; None (the default) for a scheme without a
    /// window and a delay target, which [`Requirements::sleek`] then says.
    fn sleek_state(&self) -> Option<SleekState> {
        None
    }
}

/// The window scheme's state SLEEK reads on every ACK (uet-htsim reads
/// these members of `UecSrc` directly: `_cwnd`, `_maxwnd`, `_base_rtt`,
/// `_target_Qdelay`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SleekState {
    /// Congestion window, bytes.
    pub cwnd: f64,
    /// Largest window, bytes.
    pub max_wnd: f64,
    /// The sender's base RTT (its smallest sample).
    pub base_rtt: Time,
    /// Target queueing delay.
    pub target: Time,
    /// Average queueing delay (what uet-htsim reads for an ACK of an
    /// older probe, `get_avg_delay`).
    pub avg_delay: Time,
}

/// What a receiver-side controller sees and asks for.
pub struct ReceiverCx<'a> {
    pub now: Time,
    pub flow: &'a FlowView,
    /// Flows currently being received by this host (started, not complete),
    /// this one included; a connection counts while it has released data
    /// not yet received.
    pub host_active_flows: u32,
    /// End of the data released to the sender so far (see [`SenderCx::avail`]).
    pub avail: u64,
    /// Set to true to send a CNP to the sender now.
    pub send_cnp: bool,
}

impl<'a> ReceiverCx<'a> {
    /// A context for a flow (all of `flow.size` released), asking for nothing.
    pub fn new(now: Time, flow: &'a FlowView, host_active_flows: u32) -> Self {
        ReceiverCx { now, flow, host_active_flows, avail: flow.size, send_cnp: false }
    }
}

/// Receiver half of a scheme, one instance per flow.
pub trait ReceiverCc: Send {
    /// A data packet of this flow arrived (in order or not).
    fn on_data(&mut self, _cx: &mut ReceiverCx, _data: &Packet) {}
    /// Fill scheme fields of an ACK/NACK being sent for `data`. The core has
    /// already set seq, ECN echo, the echoed timestamp and copied `data`'s INT.
    fn fill_ack(&mut self, _cx: &ReceiverCx, _data: &Packet, _ack: &mut Packet) {}
}

/// A receiver that does nothing beyond the core's ACKs.
pub struct PlainReceiver;
impl ReceiverCc for PlainReceiver {}

/// Egress-port state a switch hook may read.
#[derive(Clone, Copy, Debug, Default)]
pub struct PortStat {
    /// Node at the other end of the link.
    pub peer: u32,
    pub rate_bps: u64,
    /// Propagation delay of the link.
    pub delay: Time,
    /// Bytes queued at this egress, all classes (not counting the packet on the wire).
    pub qlen: u64,
    /// Bytes ever transmitted on this egress.
    pub tx_bytes: u64,
    /// Classes of this egress currently paused by the peer's PFC (bit c = class c).
    pub paused: u8,
    /// PAUSE frames received on this port so far (a change means "paused since").
    pub pauses: u64,
}

/// What a switch hook sees and can do.
pub struct SwitchCx<'a> {
    pub now: Time,
    /// This switch's node id.
    pub node: u32,
    /// All egress ports of the switch, by port index.
    pub ports: &'a [PortStat],
    /// Packets to inject at this switch; they are routed to their `dst` like any
    /// other packet (set `class` 0 for the control class).
    pub emit: &'a mut Vec<Packet>,
}

/// Switch half of a scheme, one instance per switch.
pub trait SwitchCc: Send {
    /// `pkt` arrived on `in_port` and was admitted to egress `out_port`
    /// (the egress qlen does not yet include it). INT records are pushed in
    /// [`SwitchCc::on_dequeue`], not here: the packet is already counted in
    /// the buffer at its size, and records cost wire bytes.
    fn on_enqueue(&mut self, _cx: &mut SwitchCx, _in_port: u16, _out_port: u16, _pkt: &mut Packet) {}
    /// `pkt` starts transmission on `out_port` (after the core's ECN and INT).
    /// `in_port` is the port it arrived on. Records pushed here with
    /// [`Packet::push_int`] are charged on the wire under
    /// `network.int_encoding = "per_hop"` like the core's.
    fn on_dequeue(&mut self, _cx: &mut SwitchCx, _in_port: u16, _out_port: u16, _pkt: &mut Packet) {}
    /// Named event counters of this switch part (e.g. Bolt's SRC packets and
    /// bytes), read once at the end of the run. The core sums each name over
    /// all switches into `RunResult::scheme_counters`.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// What a scheme needs from the network.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Requirements {
    /// Switches push INT records onto data packets at egress (HPCC, PowerTCP).
    pub int_on_data: bool,
    /// The scheme's switch part pushes INT records onto ACKs and NACKs on
    /// their way back (FNCC's return-path INT): the core charges those ACKs
    /// the INT header's bytes (`network.int_encoding`).
    pub int_on_acks: bool,
    /// ACK/CNP/control traffic must retrace the data path (FNCC).
    pub symmetric_paths: bool,
    /// ECN marking that is part of the scheme itself (DCTCP's step marking at K;
    /// `mode = off` for a scheme that marks in its switch hook, e.g. PCN's NP-ECN).
    /// When set it replaces `network.ecn` for the run.
    pub ecn: Option<crate::config::EcnConfig>,
    /// The scheme sets each data packet's `hash` itself (an entropy value:
    /// REPS, oblivious spraying): a flow's packets take many paths, so ACKs
    /// and NACKs follow the entropy of the packet they answer (UET echoes it
    /// and routes the ACK by it) and the RTO is on by default, as under
    /// `network.routing = "spray"`.
    pub entropy: bool,
    /// Receivers pace credits to their senders, and senders send only on
    /// credit (UET RCCC; see [`crate::config::CreditConfig`]).
    pub credit: Option<crate::config::CreditConfig>,
    /// The sender compares each ACK's INT records with the previous ACK's
    /// hop by hop, by position, with no switch identity (HPCC §3.3,
    /// PowerTCP): a flow's packets must keep one path, so per-packet
    /// spraying is refused ([`crate::compat`]).
    pub int_by_position: bool,
    /// The scenario accepts `int_by_position` under spraying anyway (a
    /// scheme parameter, e.g. HPCC's `multipath_int`, to study how the
    /// scheme breaks): a warning instead of a refusal.
    pub int_spray_accepted: bool,
    /// The scheme reacts to ECN marks and to nothing else that would slow it
    /// (DCQCN's CNPs): `network.ecn.mode = "off"` is refused.
    pub ecn_signal: bool,
    /// The scheme's transport is Ultra Ethernet's packet delivery, whose
    /// receiver accepts any order and whose sender resends only what was
    /// lost (UE spec 1.0 §3.5, RUD): `network.receiver` unset means
    /// "reorder" for it, and "go-back-n" is refused when its packets are
    /// sprayed (every reordered packet would be resent).
    pub reorder_receiver: bool,
    /// The sender keeps a window and a delay target that SLEEK loss
    /// recovery reads ([`SenderCc::sleek_state`]); `network.sleek` is
    /// refused for a scheme without (uet-htsim runs SLEEK only with its
    /// sender-based NSCC, `_sender_based_cc`).
    pub sleek: bool,
    /// The receiver reads how many flows its host is receiving
    /// ([`ReceiverCx::host_active_flows`]) or the bytes the sender has
    /// released ([`ReceiverCx::avail`]): FNCC, SQCC. On a connection these
    /// follow its sender's message releases at once, which a part of a
    /// parallel run holding only the receiver cannot know, so such runs
    /// with connections run on one thread.
    pub host_receive_count: bool,
}

/// A congestion-control scheme: a factory for its three parts.
pub trait Scheme: Send + Sync {
    /// Registry name, e.g. "dcqcn".
    fn name(&self) -> &str;
    fn requirements(&self) -> Requirements {
        Requirements::default()
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc>;
    fn receiver(&self, _flow: &FlowView) -> Box<dyn ReceiverCc> {
        Box::new(PlainReceiver)
    }
    /// Switch part for switch `node` with `ports` egress ports; None if the scheme
    /// needs nothing beyond the core's switch.
    fn switch(&self, _node: u32, _ports: &[PortStat]) -> Option<Box<dyn SwitchCc>> {
        None
    }
}
