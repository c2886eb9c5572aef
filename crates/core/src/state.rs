//! The state of a built network: one [`Simulator`] owning the ports, the
//! switches and hosts, the flows by role, the messages, the event queue and
//! the packet pool. The code over it is split by part: `setup.rs` (assembling
//! a run from `build.rs`'s parts), `sim.rs` (the event loop, results),
//! `fabric.rs` (switches), `host.rs` (hosts), `nic.rs`, `msg.rs`, `credit.rs`,
//! `links.rs` and `check.rs`.

use crate::cc::PortStat;
use crate::config::NetConfig;
use crate::event::EventQueue;
use crate::flow::MessageSource;
use crate::nic_queue::NicSlot;
use crate::node::{Host, Pacer, Switch};
use crate::options::Interrupt;
use crate::packet::{Packet, PacketPool};
use crate::port::Port;
use crate::results::EventCounts;
use crate::routing::Routing;
use crate::table::ZeroTable;
use crate::time::Time;
use crate::topology::Topology;
use crate::trace::Tracer;
use crate::transport::{CreditFlow, Flow, Msg};

/// A built network with its flows, ready to run.
pub struct Simulator {
    pub(crate) net: NetConfig,
    pub(crate) now: Time,
    pub(crate) events: EventQueue,
    pub(crate) pool: PacketPool,
    pub(crate) ports: ZeroTable<Port>,
    pub(crate) stats: Vec<PortStat>,
    /// Node id -> index into `switches` or `hosts`.
    pub(crate) node_index: Vec<u32>,
    pub(crate) switches: Vec<Switch>,
    pub(crate) hosts: Vec<Host>,
    /// The flows, then the connections (from index `n_plain` on).
    pub(crate) flows: Vec<Flow>,
    /// Number of flows before the connections.
    pub(crate) n_plain: u32,
    /// Messages on the connections, by id.
    pub(crate) msgs: Vec<Msg>,
    /// Per message: the messages waiting for it.
    pub(crate) dependents: Vec<Vec<u32>>,
    /// Messages made during the run.
    pub(crate) source: Option<Box<dyn MessageSource>>,
    /// Each flow's place at its sender's NIC (see `nic.rs`).
    pub(crate) nic_slots: Vec<NicSlot>,
    pub(crate) routing: Routing,
    pub(crate) emit_buf: Vec<Packet>,
    /// What the network and the scheme decided for this run.
    pub(crate) mode: Mode,
    /// The run's counters.
    pub(crate) count: Counters,
    /// Progress, stop and stall rules, checks.
    pub(crate) ctl: RunControl,
    pub(crate) tracer: Option<Tracer>,
    /// `TraceConfig::rtt`: every flow's RTT samples.
    pub(crate) rtt_hist: Option<crate::results::RttHistogram>,
    /// Node kinds and links, kept to recompute routes when a link changes.
    pub(crate) topo: Topology,
    /// Per node: (global port id, peer node), sorted by port id.
    pub(crate) node_ports: Vec<Vec<(u32, u32)>>,
    /// Per node: the global id of its first port (its ports are numbered on from there).
    pub(crate) port_base: Vec<u32>,
    /// Per link: (port at `a`, port at `b`).
    pub(crate) link_ports: Vec<(u32, u32)>,
    /// Link events after time 0, in time order: (time, link, up?).
    pub(crate) link_events: Vec<(Time, usize, bool)>,
    pub(crate) link_events_run: u32,
    /// Closed paused intervals of any class: (global port id, start, end),
    /// in order of ending (one log for all ports keeps `Port` plain data).
    pub(crate) pause_log: Vec<(u32, Time, Time)>,
    /// Receiver credits, when the scheme asks for them (`credit.rs`).
    pub(crate) credit: Option<crate::config::CreditConfig>,
    /// Per flow: its credit state (empty without credits).
    pub(crate) credit_flows: Vec<CreditFlow>,
    /// Per host: its credit pacer (empty without credits).
    pub(crate) pacers: Vec<Pacer>,
    /// `SimOptions::project_threads`: the counts per thread count (empty: off).
    pub(crate) projection: Vec<crate::projection::Counting>,
    /// A parallel run's part (`parallel.rs`; empty otherwise): per part,
    /// the packets sent to it over cut links during the step, and their
    /// earliest arrival; per part, the packets it sent here in the last step.
    pub(crate) outbox: Vec<crate::mailbox::Mailbox>,
    pub(crate) outbox_min: Option<Time>,
    pub(crate) inbox: Vec<crate::mailbox::Mailbox>,
    /// A parallel run's part: message releases and losses for other parts.
    pub(crate) msg_mail: crate::mailbox::MsgMail,
    pub(crate) scheme_name: String,
    /// What [`crate::compat::resolve`] chose or warned about for this run.
    pub(crate) notes: Vec<crate::compat::Note>,
}

/// What the network and the scheme decided for a run, read on the packet
/// paths.
pub(crate) struct Mode {
    /// Data packets collect INT (`network.int`, else the scheme's need).
    pub int_on: bool,
    /// The scheme's switch part stamps INT onto ACKs (FNCC).
    pub int_on_acks: bool,
    /// Wire bytes of the INT header a packet carrying INT has from its origin
    /// (`IntEncoding::Fixed`; 0 otherwise).
    pub int_fixed: u32,
    /// Wire bytes each INT record adds (`IntEncoding::PerHop`; 0 otherwise).
    pub int_hop: u32,
    /// `network.time_quantum` in ps (0: exact).
    pub quantum: Time,
    /// The retransmission timeout (None: none).
    pub rto: Option<Time>,
    /// Trimming with a reorder receiver, or per-packet recovery: senders
    /// count what was received or queued for a resend out of flight
    /// (`Sender::una_eff`).
    pub trim_selective: bool,
    /// `network.recovery = "packet"`: PSNs, SACK bitmaps, a timer per
    /// packet and the ACK-request flag (`recovery.rs`).
    pub per_packet: bool,
    /// `network.queue_limit` is set (`Port::limit_at`).
    pub queue_limit: bool,
    /// Classes PFC protects (bit c = class c): every data class with PFC
    /// on, but those of `pfc.lossy_prios`; none with PFC off.
    pub lossless: u8,
    /// The scheme steers entropies: ACKs follow their data packet's `hash`.
    pub ack_entropy: bool,
    /// This simulator is a part of a parallel run, so some of its links
    /// are cut (`Port::cut`, on a line a transmission otherwise leaves
    /// alone: a whole run does not read it).
    pub cut: bool,
    /// Which part this simulator is (0 in a whole run).
    pub part: u16,
}

/// A run's counters (the per-port and per-flow ones live with their part).
#[derive(Default)]
pub(crate) struct Counters {
    /// Packets dropped (admission, failed links, no route).
    pub drops: u64,
    pub pause_frames: u64,
    /// Data packets sent by hosts.
    pub data_packets: u64,
    /// Packets put on any link.
    pub link_packets: u64,
    pub data_bytes_delivered: u64,
    pub data_bytes_dropped: u64,
    /// Payload bytes cut from trimmed data packets (`network.trim`).
    pub data_bytes_trimmed: u64,
    /// Data packets trimmed.
    pub trimmed: u64,
    /// Data payload bytes hosts have put on the wire (retransmissions included).
    pub data_bytes_sent: u64,
    /// Receiver credits: pulls sent, RTS sent, bytes of credit granted.
    pub credit_counts: [u64; 3],
    pub events_run: u64,
    pub events_by_kind: EventCounts,
}

impl Counters {
    /// Adds `o`'s counts (the parts of a parallel run; the events are
    /// counted by the run).
    pub fn add(&mut self, o: &Counters) {
        self.drops += o.drops;
        self.pause_frames += o.pause_frames;
        self.data_packets += o.data_packets;
        self.link_packets += o.link_packets;
        self.data_bytes_delivered += o.data_bytes_delivered;
        self.data_bytes_dropped += o.data_bytes_dropped;
        self.data_bytes_trimmed += o.data_bytes_trimmed;
        self.trimmed += o.trimmed;
        self.data_bytes_sent += o.data_bytes_sent;
        for (a, b) in self.credit_counts.iter_mut().zip(o.credit_counts) {
            *a += b;
        }
    }
}

/// How far a run is, when it stops, and what it checks.
pub(crate) struct RunControl {
    /// Flows plus messages: the run completes when `finished` reaches it.
    pub total: usize,
    pub finished: usize,
    /// Flows started and messages released so far.
    pub started: usize,
    /// Last time data was delivered or a flow started (stall detection).
    pub last_progress: Time,
    pub stall: Time,
    /// When to look next for a lasting cycle of paused ports
    /// ([`Simulator::lasting_deadlock`]).
    pub cycle_check: Time,
    pub interrupt: Interrupt,
    pub stop_at: Option<Time>,
    pub check: bool,
    /// [`crate::check::deep_checks`], read when the simulator is built.
    pub deep: bool,
    /// Playing out the packets in flight after a checked run: hosts send no new data.
    pub draining: bool,
    /// [`crate::partition::grid`]: the run's end and its stall and deadlock
    /// checks keep to multiples of it.
    pub grid: Time,
    /// The grid step after the latest event's (where the checks run next).
    pub next_grid: Time,
    /// In a part of a parallel run: the time of its latest event other than
    /// a trace sample (the run ends there or at the last sample it keeps;
    /// the parts sample past the run's last sample: `parallel.rs`).
    pub last_event: Time,
    /// Events at or after this time do not run: once every flow has
    /// finished, the end of the grid step in which the last one did.
    pub end: Time,
}

impl RunControl {
    /// A flow or message finished at `now`. When it is the last, the run
    /// ends at the end of `now`'s grid step: the events of that step still
    /// run, so that a run cut into parts, which learns that every flow has
    /// finished only at the end of a step, stops after the same events.
    #[inline]
    pub fn finish_one(&mut self, now: Time) {
        self.finished += 1;
        if self.finished == self.total {
            self.end = (now - now % self.grid).saturating_add(self.grid);
        }
    }
}

/// A hint to load the cache line at `p` (no effect where there is no such instruction).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and has no effect on the program's
    // state, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
