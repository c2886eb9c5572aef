//! The simulator: builds the network from a topology, runs the event loop and
//! collects results. The fabric (switch ports, shared buffer, PFC, ECN, INT)
//! lives in `fabric.rs`, the hosts (NIC, transport, scheme calls) in `host.rs`;
//! both are `impl Simulator` blocks over the state defined here.
//!
//! Events per packet: one `Arrive` per hop, plus a `TxDone` only when a port
//! has more to send after a transmission (an idle port starts the next packet
//! directly from the arrival), so a packet crossing idle ports costs one event
//! per hop. A host NIC looks again only when something may be sendable: a
//! `TxDone` when its transmission ends with a packet or flow waiting, or a
//! `HostWake` when the first paced flow's gap ends (`host.rs`, `nic.rs`).

use crate::cc::{FlowView, ReceiverCc, Scheme, SenderCc, TIMER_SLOTS};
use crate::config::{EcnMode, IntEncoding, NetConfig};
use crate::event::{Ev, EventQueue, Touch};
use crate::flow::{FlowSpec, MessageSource, Traffic};
use crate::msg::{ConnState, Msg};
use crate::nic::NicSlot;
pub(crate) use crate::node::{lossless_classes, Host, Switch};
use crate::packet::{Packet, PacketPool};
pub(crate) use crate::port::Port;
use crate::results::{EngineStats, EventCounts, FlowResult, PortRef, PortResult, RunResult, RunStatus};
use crate::rng::Rng;
use crate::routing::Routing;
use crate::time::{ser_time, Time};
use crate::topology::Topology;
use crate::trace::{FlowSample, Tracer};

pub use crate::cc::PortStat;

/// Most queue classes per port: class 0 control, 1..=7 data.
pub(crate) const NC: usize = 8;

/// What to record besides per-flow and per-port results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceConfig {
    /// Sampling interval for all series. 0 = no series recorded.
    pub interval: Time,
    /// Egress ports whose queue length is sampled.
    pub queue_ports: Vec<PortRef>,
    /// Egress ports whose utilization is sampled (bytes sent per interval / capacity).
    pub util_ports: Vec<PortRef>,
    /// Flows whose rate, window, acked bytes and scheme probe are sampled.
    pub flows: Vec<u32>,
    /// Also record every change of the traced flows' rate or window
    /// (`FlowTrace::changes`).
    pub changes: bool,
    /// Also record every ACK of the traced flows (`FlowTrace::acks`).
    pub acks: bool,
    /// Bin the RTT sample of every ACK of every flow (`RunResult::rtt`).
    pub rtt: bool,
    /// Stream every sample to CSV files in this folder as it is taken
    /// (see [`crate::trace`]); memory then keeps a bounded preview.
    pub dir: Option<std::path::PathBuf>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SimOptions {
    /// Seed of every random choice (ECN marking, spraying, ECMP salt).
    pub seed: u64,
    /// Stop at this simulated time even if flows are unfinished (None: run until all finish).
    pub stop_at: Option<Time>,
    pub trace: TraceConfig,
    /// End the run as stalled (or deadlocked, when paused ports form a
    /// cycle) when flows are active and no data is delivered for this long.
    /// Default 10 ms of simulated time.
    pub stall: Time,
    /// Set from another thread (e.g. a Ctrl-C handler) to stop the run at
    /// the next event boundary, with status interrupted.
    pub interrupt: Interrupt,
    /// Check the run's invariants at the end (see [`crate::check`]):
    /// conservation, no loss where lossless, buffer accounting, no packet
    /// leaked once the fabric drains. Default false (with
    /// [`crate::check::deep_checks`] every run checks the buffer accounting).
    pub check: bool,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            seed: 1,
            stop_at: None,
            trace: TraceConfig::default(),
            stall: DEFAULT_STALL,
            interrupt: Interrupt::default(),
            check: false,
        }
    }
}

/// Default [`SimOptions::stall`]: 10 ms of simulated time.
pub const DEFAULT_STALL: Time = 10 * crate::time::MS;

/// A flag that asks running simulations to stop (shared by clones).
#[derive(Clone, Debug, Default)]
pub struct Interrupt(pub std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Interrupt {
    pub fn set(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    pub fn is_set(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl PartialEq for Interrupt {
    fn eq(&self, o: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &o.0)
    }
}

/// Reported to a progress callback about every 2^20 events.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub now: Time,
    pub events: u64,
    pub flows_done: usize,
    pub flows_total: usize,
    pub wall_secs: f64,
}

pub(crate) struct Flow {
    pub view: FlowView,
    /// End of the data released to the sender: the size of a flow; a
    /// connection's grows as its messages are released.
    pub avail: u64,
    /// A connection's message state (None for a flow).
    pub conn: Option<Box<ConnState>>,
    pub class: u8,
    pub hash: u64,
    pub ideal_fct: Time,
    pub cc: Box<dyn SenderCc>,
    pub rx: Box<dyn ReceiverCc>,
    // sender
    pub snd_nxt: u64,
    pub snd_una: u64,
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
    pub losses: crate::msg::Losses,
    /// Data packets head-of-line blocked by a PAUSE not caused by their own egress.
    pub hol_pkts: u64,
    // receiver
    pub rcv_nxt: u64,
    pub rx_started: bool,
    pub rx_done: bool,
    pub ack_count: u32,
    pub last_nack_seq: u64,
    pub last_nack_time: Option<Time>,
    /// `Receiver::Reorder`: received byte ranges [start, end) above `rcv_nxt`,
    /// sorted and disjoint.
    pub ooo: Vec<(u64, u64)>,
    /// Byte ranges [start, end) to resend first, in order: the bytes of
    /// trimmed packets a trim NACK named (`network.trim`, reorder receiver).
    pub rtx: Vec<(u64, u64)>,
    /// Sender: the receiver's distinct bytes as of the latest ACK/NACK.
    pub delivered: u64,
    /// Sender: the lower edge of the bytes in flight, `snd_nxt - una_eff`
    /// of them: `snd_una`, or with trimming and a reorder receiver the
    /// delivered bytes plus those waiting in `rtx` (UET counts in flight
    /// what was neither received nor NACKed, spec 1.0 §3.6.13).
    pub una_eff: u64,
    /// Receiver: distinct payload bytes received (in order or kept).
    pub rcv_bytes: u64,
    /// Symmetric routing: ingress port of the data at each switch on its path.
    pub path: [u32; 8],
    pub path_len: u8,
    /// Index of this flow's `FlowTrace` when its changes or ACKs are recorded.
    pub log_slot: Option<u32>,
    /// Sender: credit left in wire bytes under receiver credits (`credit.rs`;
    /// it may go negative by one packet); `i64::MAX` without them.
    pub credit: i64,
}

/// Ideal completion time of `size` payload bytes on `view`'s path (HPCC
/// convention): base RTT + wire bytes (payload + a header per packet) at the
/// slowest link. A flow's, and a message's on an idle connection.
pub(crate) fn ideal_fct(view: &FlowView, size: u64, net: &NetConfig) -> Time {
    let npkts = size.div_ceil(net.mtu.0);
    view.base_rtt + ser_time(size + npkts * net.header.0, view.bottleneck_rate)
}

impl Flow {
    /// Bytes wait to be sent: new data released, or a range to resend.
    #[inline]
    pub(crate) fn has_data(&self) -> bool {
        self.snd_nxt < self.avail || !self.rtx.is_empty()
    }

    fn new(
        scheme: &dyn Scheme,
        view: FlowView,
        class: u8,
        hash: u64,
        ideal_fct: Time,
        conn: Option<Box<ConnState>>,
    ) -> Flow {
        Flow {
            cc: scheme.sender(&view),
            rx: scheme.receiver(&view),
            rate: view.line_rate,
            avail: view.size,
            view,
            conn,
            class,
            hash,
            ideal_fct,
            snd_nxt: 0,
            snd_una: 0,
            max_sent: 0,
            window: u64::MAX,
            next_send: 0,
            last_send: 0,
            last_size: 0,
            timer_gen: [0; TIMER_SLOTS],
            last_progress: 0,
            done: false,
            credit_held: false,
            fct: None,
            losses: Default::default(),
            hol_pkts: 0,
            rcv_nxt: 0,
            rx_started: false,
            rx_done: false,
            ack_count: 0,
            last_nack_seq: 0,
            last_nack_time: None,
            ooo: Vec::new(),
            rtx: Vec::new(),
            delivered: 0,
            una_eff: 0,
            rcv_bytes: 0,
            path: [0; 8],
            path_len: 0,
            log_slot: None,
            credit: i64::MAX,
        }
    }
}

/// A built network with its flows, ready to run.
pub struct Simulator {
    pub(crate) net: NetConfig,
    pub(crate) now: Time,
    pub(crate) events: EventQueue,
    pub(crate) pool: PacketPool,
    pub(crate) ports: Vec<Port>,
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
    /// Flows plus messages: the run completes when `finished` reaches it.
    pub(crate) total: usize,
    /// Each flow's place at its sender's NIC (see `nic.rs`).
    pub(crate) nic_slots: Vec<NicSlot>,
    pub(crate) routing: Routing,
    pub(crate) rng: Rng,
    pub(crate) int_on: bool,
    /// The scheme's switch part stamps INT onto ACKs (FNCC).
    pub(crate) int_on_acks: bool,
    /// Wire bytes of the INT header a packet carrying INT has from its origin
    /// (`IntEncoding::Fixed`; 0 otherwise).
    pub(crate) int_fixed: u32,
    /// Wire bytes each INT record adds (`IntEncoding::PerHop`; 0 otherwise).
    pub(crate) int_hop: u32,
    /// `network.time_quantum` in ps (0: exact).
    pub(crate) quantum: Time,
    pub(crate) rto: Option<Time>,
    pub(crate) emit_buf: Vec<Packet>,
    pub(crate) finished: usize,
    pub(crate) drops: u64,
    pub(crate) pause_frames: u64,
    pub(crate) data_packets: u64,
    pub(crate) link_packets: u64,
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
    pub(crate) data_bytes_delivered: u64,
    pub(crate) data_bytes_dropped: u64,
    /// Payload bytes cut from trimmed data packets (`network.trim`).
    pub(crate) data_bytes_trimmed: u64,
    /// Trimming with a reorder receiver: senders count what was received
    /// or NACKed out of flight (`Flow::una_eff`).
    pub(crate) trim_selective: bool,
    /// Classes PFC protects (bit c = class c): every data class with PFC
    /// on, but those of `pfc.lossy_prios`; none with PFC off.
    pub(crate) lossless: u8,
    /// Data packets trimmed.
    pub(crate) trimmed: u64,
    /// Data payload bytes hosts have put on the wire (retransmissions included).
    pub(crate) data_bytes_sent: u64,
    /// The scheme steers entropies: ACKs follow their data packet's `hash`.
    pub(crate) ack_entropy: bool,
    /// Receiver credits, when the scheme asks for them (`credit.rs`).
    pub(crate) credit: Option<crate::config::CreditConfig>,
    /// Per flow: its credit state (empty without credits).
    pub(crate) credit_flows: Vec<crate::credit::CreditFlow>,
    /// Per host: its credit pacer (empty without credits).
    pub(crate) pacers: Vec<crate::credit::Pacer>,
    /// Receiver credits: pulls sent, RTS sent, bytes of credit granted.
    pub(crate) credit_counts: [u64; 3],
    /// Playing out the packets in flight after a checked run: hosts send no new data.
    pub(crate) draining: bool,
    check: bool,
    /// [`crate::check::deep_checks`], read when the simulator is built.
    pub(crate) deep: bool,
    /// Flows started and messages released so far.
    pub(crate) started: usize,
    /// Last time data was delivered or a flow started (stall detection).
    pub(crate) last_progress: Time,
    stall: Time,
    /// When to look next for a lasting cycle of paused ports
    /// ([`Simulator::lasting_deadlock`]).
    cycle_check: Time,
    interrupt: Interrupt,
    stop_at: Option<Time>,
    scheme_name: String,
    /// What [`crate::compat::resolve`] chose or warned about for this run.
    notes: Vec<crate::compat::Note>,
    events_run: u64,
    events_by_kind: EventCounts,
}

/// The flows, then the connections (flow id = number of flows + connection
/// id), each with its path facts, its scheme's sender and receiver and its
/// ECMP hash. Errors name the flow or connection.
#[allow(clippy::too_many_arguments)]
fn make_flows(
    topo: &Topology,
    net: &NetConfig,
    scheme: &dyn Scheme,
    facts: &crate::build::PathFacts,
    flows: &[FlowSpec],
    conns: &[crate::flow::ConnSpec],
    seed: u64,
    max_base_rtt: Time,
) -> Result<Vec<Flow>, String> {
    let data_classes = net.data_classes as usize;
    let pkt_size = net.packet_size();
    // the facts of flow (or connection) `i` from src to dst; a connection
    // has no size of its own (`size` 0, its data arrives as messages)
    let view_of = |name: &str, i: usize, src: u32, dst: u32, prio: u8, size: Option<u64>, start: Time| {
        if !topo.is_host(src) || !topo.is_host(dst) {
            return Err(format!("{name}: source and destination must be hosts"));
        }
        if src == dst {
            return Err(format!("{name}: source and destination are the same host"));
        }
        if size == Some(0) {
            return Err(format!("{name}: size must be positive"));
        }
        if prio as usize >= data_classes {
            return Err(format!("{name}: prio {prio} needs network.data_classes > {prio} (it is {data_classes})"));
        }
        let (prop, ser, minr, sws) = facts.of(src, dst);
        let sws = u8::try_from(sws)
            .map_err(|_| format!("{name}: its path crosses {sws} switches; at most 255 are supported"))?;
        let line_rate = facts.ports[facts.node_ports[src as usize][0].0 as usize].rate;
        let base_rtt = 2 * prop + ser;
        Ok(FlowView {
            id: i as u32,
            src,
            dst,
            size: size.unwrap_or(0),
            start,
            line_rate,
            bottleneck_rate: minr,
            base_rtt,
            bdp: (line_rate as u128 * base_rtt as u128 / 8 / 1_000_000_000_000) as u64,
            max_base_rtt,
            path_switches: sws,
            mtu: net.mtu.0 as u32,
            packet_size: pkt_size as u32,
            trims: net.trim.enabled && lossless_classes(net) & (1 << (1 + prio)) == 0,
        })
    };
    let hash = |i: usize| crate::paths::flow_hash(seed, i as u64);
    let mut fl = Vec::with_capacity(flows.len() + conns.len());
    for (i, f) in flows.iter().enumerate() {
        let name = format!("flow {i} ({} -> {}, {} bytes)", f.src, f.dst, f.size);
        let view = view_of(&name, i, f.src, f.dst, f.prio, Some(f.size), f.start)?;
        let ideal = ideal_fct(&view, f.size, net);
        fl.push(Flow::new(scheme, view, 1 + f.prio, hash(i), ideal, None));
    }
    for (c, spec) in conns.iter().enumerate() {
        let i = flows.len() + c;
        let name = format!("connection {c} ({} -> {})", spec.src, spec.dst);
        let view = view_of(&name, i, spec.src, spec.dst, spec.prio, None, 0)?;
        let conn = Box::new(ConnState { id: c as u32, ..Default::default() });
        fl.push(Flow::new(scheme, view, 1 + spec.prio, hash(i), 0, Some(conn)));
    }
    Ok(fl)
}

/// The tracer of `t` (None without an interval): its ports found by name,
/// its flows checked, the first sample scheduled, the traced flows' log
/// slots set when their changes or ACKs are recorded.
fn make_tracer(
    t: &TraceConfig,
    node_ports: &[Vec<(u32, u32)>],
    fl: &mut [Flow],
    events: &mut EventQueue,
) -> Result<Option<Tracer>, String> {
    if t.interval == 0 {
        return Ok(None);
    }
    let named = |list: &[PortRef]| -> Result<Vec<(u32, String)>, String> {
        list.iter().map(|&r| Ok((find_port(node_ports, r)?, format!("{}:{}", r.node, r.peer)))).collect()
    };
    let (queue_ports, util_ports) = (named(&t.queue_ports)?, named(&t.util_ports)?);
    for &f in &t.flows {
        if f as usize >= fl.len() {
            return Err(format!(
                "trace flow {f}: there are only {} flows and connections (ids 0..{})",
                fl.len(),
                fl.len()
            ));
        }
    }
    events.push(0, Ev::Sample);
    if t.changes || t.acks {
        for (i, &f) in t.flows.iter().enumerate() {
            fl[f as usize].log_slot = Some(i as u32);
        }
    }
    let flows = t.flows.iter().map(|&f| (f, fl[f as usize].view.line_rate as f64)).collect();
    Ok(Some(Tracer::new(t.interval, queue_ports, util_ports, flows, t.changes, t.acks, t.dir.as_deref())?))
}

fn find_port(node_ports: &[Vec<(u32, u32)>], r: PortRef) -> Result<u32, String> {
    node_ports
        .get(r.node as usize)
        .and_then(|v| v.iter().find(|(_, peer)| *peer == r.peer))
        .map(|(p, _)| *p)
        .ok_or_else(|| {
            format!("trace port {}:{}: there is no link between node {} and node {}", r.node, r.peer, r.node, r.peer)
        })
}

impl Simulator {
    /// Builds the network. Errors (as text naming the problem) for a topology
    /// that fails validation, flows naming non-hosts, or a config the model cannot run.
    pub fn new(
        topo: &Topology,
        net: &NetConfig,
        flows: &[FlowSpec],
        scheme: &dyn Scheme,
        opts: &SimOptions,
    ) -> Result<Simulator, String> {
        Self::with_traffic(topo, net, Traffic::flows(flows.to_vec()), scheme, opts)
    }

    /// [`Simulator::new`] for any traffic: flows, connections with their
    /// messages, and a source of messages made during the run. Flow ids are
    /// 0.. in the order given, connections follow them (connection `c` is
    /// flow `flows.len() + c` for traces and PFC statistics).
    pub fn with_traffic(
        topo: &Topology,
        net: &NetConfig,
        traffic: Traffic,
        scheme: &dyn Scheme,
        opts: &SimOptions,
    ) -> Result<Simulator, String> {
        let Traffic { flows, conns, messages, source } = traffic;
        let flows = &flows[..];
        topo.validate()?;
        Routing::check_size(topo)?;
        net.validate()?;
        let link_events = topo.check_link_events(&net.link_events, opts.stop_at)?;
        let req = scheme.requirements();
        // what the scheme needs against what the network offers: refused,
        // or the network the run uses (the scheme's ECN, a chosen receiver)
        let crate::compat::Resolved { net, notes } = crate::compat::resolve(net, &req, scheme.name())?;
        let net = &net;
        let n = topo.nodes.len();
        let w = crate::build::wire(topo);
        let (mut ports, stats) = crate::build::make_ports(topo, net, &w);
        // links down from the start: events at time 0 apply before the run
        let n_initial = link_events.iter().take_while(|e| e.0 == 0).count();
        for &(_, li, up) in &link_events[..n_initial] {
            let (pa, pb) = w.link_ports[li];
            ports[pa as usize].down = !up;
            ports[pb as usize].down = !up;
        }
        let any_down = ports.iter().any(|p| p.down);
        let port_base = w.base[..n].to_vec();
        let routing = Routing::build(
            topo,
            &if any_down { up_ports(&w.node_ports, &ports) } else { w.node_ports.clone() },
            &port_base,
        );
        let full_routing = any_down.then(|| Routing::build(topo, &w.node_ports, &port_base));
        let mut rng = Rng::derive(opts.seed, 0xCC51);
        let (node_index, switches, hosts) = crate::build::make_nodes(topo, net, scheme, &w, &ports, &stats, &mut rng)?;
        let crate::build::Wiring { node_ports, link_ports, .. } = w;
        let facts = crate::build::PathFacts {
            net,
            ports: &ports,
            node_ports: &node_ports,
            routing: &routing,
            full_routing: full_routing.as_ref(),
        };
        let max_base_rtt = facts.max_base_rtt(&topo.hosts());
        let mut fl = make_flows(topo, net, scheme, &facts, flows, &conns, opts.seed, max_base_rtt)?;
        let pkt_size = net.packet_size();
        // the wheel covers the longest packet time + propagation of any link, with margin
        let horizon =
            ports.iter().map(|p| p.delay + ser_time(pkt_size, p.rate)).max().unwrap_or(0) * 5 / 4 + net.switch_delay.0;
        let mut events = EventQueue::with_horizon(horizon);
        for (i, f) in flows.iter().enumerate() {
            events.push(f.start, Ev::FlowStart { flow: i as u32 });
        }
        let link_events: Vec<(Time, usize, bool)> = link_events[n_initial..].to_vec();
        for (i, e) in link_events.iter().enumerate() {
            events.push(e.0, Ev::Link { idx: i as u32 });
        }
        let tracer = make_tracer(&opts.trace, &node_ports, &mut fl, &mut events)?;
        let int_on = net.int.unwrap_or(req.int_on_data);
        let rto = crate::build::choose_rto(net, &req, max_base_rtt)?;
        let n_plain = flows.len() as u32;
        let mut sim = Simulator {
            net: net.clone(),
            now: 0,
            events,
            pool: PacketPool::default(),
            ports,
            stats,
            node_index,
            switches,
            hosts,
            nic_slots: vec![NicSlot::default(); fl.len()],
            flows: fl,
            n_plain,
            msgs: Vec::with_capacity(messages.len()),
            dependents: Vec::with_capacity(messages.len()),
            source,
            total: flows.len(),
            routing,
            rng,
            int_on,
            int_on_acks: req.int_on_acks,
            int_fixed: if net.int_encoding == IntEncoding::Fixed { net.int_fixed_bytes.0 as u32 } else { 0 },
            int_hop: if net.int_encoding == IntEncoding::PerHop { net.int_hop_bytes.0 as u32 } else { 0 },
            quantum: net.time_quantum.map_or(0, |q| q.0),
            rto,
            emit_buf: Vec::new(),
            finished: 0,
            drops: 0,
            pause_frames: 0,
            data_packets: 0,
            link_packets: 0,
            tracer,
            rtt_hist: opts.trace.rtt.then(crate::results::RttHistogram::new),
            topo: topo.clone(),
            node_ports,
            port_base,
            link_ports,
            link_events,
            // those at time 0 were applied before the routes were built
            link_events_run: n_initial as u32,
            data_bytes_delivered: 0,
            data_bytes_dropped: 0,
            data_bytes_trimmed: 0,
            trim_selective: net.trim.enabled && net.receiver == crate::config::Receiver::Reorder,
            lossless: lossless_classes(net),
            trimmed: 0,
            data_bytes_sent: 0,
            ack_entropy: req.entropy,
            credit: req.credit.clone(),
            credit_flows: Vec::new(),
            pacers: Vec::new(),
            credit_counts: [0; 3],
            draining: false,
            check: opts.check,
            deep: crate::check::deep_checks(),
            started: 0,
            last_progress: 0,
            stall: opts.stall.max(1),
            cycle_check: opts.stall.max(1),
            interrupt: opts.interrupt.clone(),
            stop_at: opts.stop_at,
            scheme_name: scheme.name().to_string(),
            notes,
            events_run: 0,
            events_by_kind: EventCounts::default(),
        };
        sim.add_messages(messages)?;
        sim.credit_init();
        Ok(sim)
    }

    /// Runs until every flow has finished (or the stop time), then returns the results.
    pub fn run(mut self, mut progress: Option<&mut dyn FnMut(&Progress)>) -> RunResult {
        let wall = std::time::Instant::now();
        let cpu0 = thread_cpu_secs();
        let mut status = RunStatus::Completed;
        let mut next_report: u64 = 1 << 20;
        let mut events: u64 = 0;
        let mut by_kind = EventCounts::default();
        while self.finished < self.total {
            let Some((t, ev)) = self.events.pop() else {
                // nothing left to happen, yet flows remain
                status = self.stuck(self.now);
                break;
            };
            if let Some(s) = self.stop_at {
                if t > s {
                    status = RunStatus::Stopped;
                    self.now = s;
                    // kept for the checks, which play out what is in flight
                    self.events.push(t, ev);
                    break;
                }
            }
            if self.started > self.finished && t > self.last_progress + self.stall {
                self.now = self.last_progress + self.stall;
                status = self.stuck(self.now);
                self.events.push(t, ev);
                break;
            }
            if t >= self.cycle_check {
                if let Some(s) = self.lasting_deadlock() {
                    status = s;
                    self.events.push(t, ev);
                    break;
                }
            }
            debug_assert!(t >= self.now);
            self.now = t;
            self.prefetch(self.events.next_hint());
            if !self.dispatch(t, ev) {
                continue;
            }
            events += 1;
            *by_kind.count(&ev) += 1;
            if events & 4095 == 0 && self.interrupt.is_set() {
                status = RunStatus::Interrupted { at: self.now };
                break;
            }
            if events >= next_report {
                next_report += 1 << 20;
                if let Some(cb) = progress.as_mut() {
                    cb(&Progress {
                        now: self.now,
                        events,
                        flows_done: self.finished,
                        flows_total: self.total,
                        wall_secs: wall.elapsed().as_secs_f64(),
                    });
                }
            }
        }
        self.events_run = events;
        self.events_by_kind = by_kind;
        self.finish(status, wall, cpu0)
    }

    /// Handles event `ev` at `t`; false for an arrival that no longer
    /// happens (its link changed while the packet was on it), which is not
    /// counted.
    #[inline(always)]
    fn dispatch(&mut self, t: Time, ev: Ev) -> bool {
        match ev {
            Ev::Arrive { port, gen, .. } => return self.arrival(port, gen),
            Ev::TxDone { port } => {
                self.ports[port as usize].tx_pending = false;
                self.try_send(port);
            }
            Ev::HostWake { host } => {
                // (a wake superseded by an earlier one does nothing: that
                // one re-armed the NIC)
                let h = &mut self.hosts[host as usize];
                if h.wake_at == t {
                    h.wake_at = Time::MAX;
                    let p = h.port;
                    self.try_send(p);
                }
            }
            Ev::FlowStart { flow } => self.flow_start(flow),
            Ev::MsgRelease { msg } => self.msg_release(msg),
            Ev::Timer { flow, slot, gen } => {
                if self.flows[flow as usize].timer_gen[slot as usize] == gen && !self.flows[flow as usize].done {
                    self.cc_call(flow, CcOp::Timer(slot as usize));
                    self.kick_sender(flow);
                }
            }
            Ev::Rto { flow } => self.rto_check(flow),
            Ev::Sample => self.sample(),
            Ev::Pull { host } => self.credit_pull(host),
            Ev::Link { idx: crate::links::REROUTE } => self.reroute(),
            Ev::Link { idx } => {
                let (_, li, up) = self.link_events[idx as usize];
                self.link_event(li, up);
            }
        }
        true
    }

    /// After the loop: pauses still open are closed at the end, the checks
    /// run (deep buffer accounting; with `check`, the invariants and then
    /// the drain), and the results are collected.
    fn finish(mut self, status: RunStatus, wall: std::time::Instant, cpu0: Option<f64>) -> RunResult {
        let now = self.now;
        for p in self.ports.iter_mut() {
            for c in 0..NC {
                if p.paused & (1 << c) != 0 {
                    p.paused_time += now - p.cls[c].paused_since;
                    p.pause_log.push((p.cls[c].paused_since, now));
                }
            }
        }
        if self.deep {
            if let Err(e) = self.check_buffer_accounting() {
                panic!("buffer accounting broken at {} ps: {e}", self.now);
            }
        }
        let invariants = if self.check { self.check_invariants().err() } else { None };
        let wall_secs = wall.elapsed().as_secs_f64();
        let cpu_secs = match (cpu0, thread_cpu_secs()) {
            (Some(a), Some(b)) => b - a,
            _ => wall_secs,
        };
        let mut r = self.results(status, wall_secs);
        r.engine.cpu_secs = cpu_secs;
        if self.check {
            r.check = Some(match invariants {
                Some(e) => Err(e),
                // a deadlocked fabric cannot drain: its packets stay, rightly
                None if matches!(r.status, RunStatus::Deadlock { .. }) => Ok(()),
                None => self.drain_and_check(),
            });
            r.engine.packets_live = self.pool.live();
        }
        r
    }

    /// Flows remain and nothing moves: a PFC deadlock if paused ports form a
    /// cycle, else a stall.
    fn stuck(&self, at: Time) -> RunStatus {
        match self.pfc_cycle() {
            Some(cycle) => self.deadlock(at, cycle),
            None => RunStatus::Stalled { at, since: self.last_progress },
        }
    }

    /// A deadlock found at `at`: the cycle, closed by the last of its PAUSEs.
    fn deadlock(&self, at: Time, cycle: Vec<(u32, u8)>) -> RunStatus {
        let since = cycle.iter().map(|&(p, c)| self.ports[p as usize].cls[c as usize].paused_since).max();
        RunStatus::Deadlock {
            at,
            since: since.unwrap_or(self.last_progress),
            cycle: cycle
                .into_iter()
                // the flows' priority, as scenarios name it (class = prio + 1)
                .map(|(p, c)| (PortRef { node: self.ports[p as usize].node, peer: self.ports[p as usize].peer }, c - 1))
                .collect(),
        }
    }

    /// Every `stall / 2` of simulated time: a cycle of paused ports, each
    /// paused for `stall` without a break, is a deadlock even while other
    /// traffic (a lossy class, flows elsewhere) keeps delivering data and so
    /// keeps the stall check from firing. Ends the run at the check's time.
    fn lasting_deadlock(&mut self) -> Option<RunStatus> {
        let at = self.cycle_check.max(self.now);
        self.cycle_check = at.saturating_add((self.stall / 2).max(1));
        if self.lossless == 0 {
            return None;
        }
        // no port paused for `stall` yet: look again when the oldest pause is that old
        let oldest = self
            .ports
            .iter()
            .flat_map(|p| (1..NC).filter(move |&c| p.paused & (1 << c) != 0).map(move |c| p.cls[c].paused_since))
            .min()?;
        if at.saturating_sub(oldest) < self.stall {
            self.cycle_check = self.cycle_check.min(oldest + self.stall);
            return None;
        }
        let cycle = self.pfc_cycle()?;
        let closed = cycle.iter().map(|&(p, c)| self.ports[p as usize].cls[c as usize].paused_since).max()?;
        if at.saturating_sub(closed) < self.stall {
            // a younger cycle: look again when it is `stall` old
            self.cycle_check = self.cycle_check.min(closed + self.stall);
            return None;
        }
        self.now = at;
        Some(self.deadlock(at, cycle))
    }

    /// The run's results (the traces are moved out; the rest stays for the checks).
    fn results(&mut self, status: RunStatus, wall_secs: f64) -> RunResult {
        let truncated = status != RunStatus::Completed;
        let in_flight = self.data_in_flight();
        let mut counters: std::collections::BTreeMap<String, u64> = Default::default();
        for cc in self.switches.iter().filter_map(|s| s.cc.as_ref()) {
            for (name, v) in cc.counters() {
                *counters.entry(name.to_string()).or_default() += v;
            }
        }
        if self.credit.is_some() {
            for (name, v) in ["credit_pulls", "credit_rts", "credit_bytes"].iter().zip(self.credit_counts) {
                counters.insert(name.to_string(), v);
            }
        }
        let mut flows: Vec<FlowResult> = self.flows[..self.n_plain as usize]
            .iter()
            .map(|f| FlowResult {
                id: f.view.id,
                src: f.view.src,
                dst: f.view.dst,
                size: f.view.size,
                start: f.view.start,
                fct: f.fct,
                ideal_fct: f.ideal_fct,
                slowdown: f.fct.map(|x| (x as f64 / f.ideal_fct as f64).max(1.0)),
                retransmits: f.losses.retransmits,
                timeouts: f.losses.timeouts,
                trimmed: f.losses.trimmed,
                drops: f.losses.drops,
                conn: None,
                tag: None,
            })
            .collect();
        let (messages, conns, tasks, waiting) = self.message_results();
        flows.extend(messages);
        let ports = self
            .ports
            .iter()
            .zip(&self.stats)
            .map(|(p, s)| PortResult {
                port: PortRef { node: p.node, peer: p.peer },
                rate_bps: p.rate,
                tx_bytes: s.tx_bytes,
                tx_data_bytes: p.tx_data_bytes,
                pause_sent: p.pause_sent,
                paused_time: p.paused_time,
                paused_intervals: p.pause_log.clone(),
                drops: p.drops,
                ecn_marked: p.ecn_marked,
                trimmed: p.trimmed,
                max_qlen: p.max_qlen,
            })
            .collect();
        let (queues, utilization, flow_traces, traces_streamed, trace_error) = match self.tracer.take() {
            Some(mut t) => {
                let streamed = t.streamed();
                let e = t.finish();
                (t.queues, t.utilization, t.flow_traces, streamed, e)
            }
            None => (vec![], vec![], vec![], false, None),
        };
        RunResult {
            scheme: self.scheme_name.clone(),
            flows,
            conns,
            tasks,
            messages_waiting: waiting,
            ports,
            queues,
            utilization,
            flow_traces,
            engine: EngineStats {
                events: self.events_run,
                by_kind: self.events_by_kind,
                data_packets: self.data_packets,
                link_packets: self.link_packets,
                sim_end: self.now,
                wall_secs,
                cpu_secs: wall_secs,
                peak_packets_in_pool: self.pool.peak(),
                packets_live: self.pool.live(),
                data_bytes_delivered: self.data_bytes_delivered,
                data_bytes_dropped: self.data_bytes_dropped,
                data_bytes_trimmed: self.data_bytes_trimmed,
                data_bytes_in_flight: in_flight,
                link_events: self.link_events_run,
            },
            drops: self.drops,
            trimmed: self.trimmed,
            pause_frames: self.pause_frames,
            retransmits: self.flows.iter().map(|f| f.losses.retransmits).sum(),
            timeouts: self.flows.iter().map(|f| f.losses.timeouts).sum(),
            truncated,
            status,
            traces_streamed,
            trace_error,
            check: None,
            scheme_counters: counters.into_iter().collect(),
            hol_pkts: self.flows.iter().map(|f| f.hol_pkts).collect(),
            rtt: self.rtt_hist.take(),
            notes: std::mem::take(&mut self.notes),
        }
    }

    fn sample(&mut self) {
        let now = self.now;
        let Some(t) = self.tracer.as_mut() else { return };
        let qlen: Vec<f64> = t.queue_ports.iter().map(|&p| self.stats[p as usize].qlen as f64).collect();
        let mut util = Vec::with_capacity(t.util_ports.len());
        for (i, &p) in t.util_ports.iter().enumerate() {
            let tx = self.stats[p as usize].tx_bytes;
            let cap = self.ports[p as usize].rate as f64 / 8.0 * (t.interval as f64 / 1e12);
            util.push((tx - t.util_last[i]) as f64 / cap);
            t.util_last[i] = tx;
        }
        let flows: Vec<FlowSample> = t
            .flows
            .iter()
            .map(|&f| {
                let fl = &self.flows[f as usize];
                let active = now >= fl.view.start && !fl.done;
                FlowSample {
                    rate: if active { fl.rate as f64 } else { 0.0 },
                    window: fl.window as f64,
                    acked: fl.snd_una as f64,
                    probe: fl.cc.probe(),
                }
            })
            .collect();
        t.sample(now, &qlen, &util, &flows);
        let next = now + t.interval;
        if self.finished < self.total {
            self.events.push(next, Ev::Sample);
        }
    }

    /// The head of `port`'s wire arrives at the other end; false (and
    /// nothing happens) when the event is stale: the link failed after it
    /// was scheduled and its packets are gone.
    pub(crate) fn arrival(&mut self, port: u32, gen: u16) -> bool {
        let p = &mut self.ports[port as usize];
        if gen != p.wire_gen {
            return false;
        }
        let h = p.wire.pop(&self.pool).expect("an Arrive event of the current generation has its packet on the wire");
        let (next, to) = (p.wire.head, p.peer_port);
        if next != u32::MAX {
            self.events.push(self.pool.get(h).wire_next_at, Ev::Arrive { port, to, gen, pkt: next });
        }
        self.arrive(to, h);
        true
    }

    /// Asks the CPU to load what an event will touch first ([`Ev::touches`]):
    /// its ports' first two lines and its packet's first line (and the lines
    /// of INT records a switch appends to or a sender reads, with INT on), so
    /// that those loads overlap the current event: the loop's cost is memory
    /// latency, not instructions.
    #[inline(always)]
    fn prefetch(&self, Touch { port, to, pkt }: Touch) {
        for port in [port, to] {
            if port != u32::MAX {
                let p = self.ports.as_ptr().wrapping_add(port as usize);
                prefetch(p);
                prefetch(p.cast::<u8>().wrapping_add(64));
            }
        }
        if pkt != u32::MAX {
            let p = self.pool.slot_ptr(pkt).cast::<u8>();
            prefetch(p);
            if self.int_on || self.int_on_acks {
                for line in 1..4 {
                    prefetch(p.wrapping_add(64 * line));
                }
            }
        }
    }

    /// Dispatch of a packet arriving at the node owning `port`.
    fn arrive(&mut self, port: u32, h: u32) {
        if self.ports[port as usize].is_host {
            self.host_arrive(port, h);
        } else {
            self.switch_arrive(port, h);
        }
    }

    /// Starts transmitting on `port` if it is idle and has something to send,
    /// or makes sure a `TxDone` will look again when it becomes idle.
    pub(crate) fn try_send(&mut self, port: u32) {
        let p = &mut self.ports[port as usize];
        if p.down {
            return;
        }
        if p.busy_until > self.now {
            if p.is_host {
                let t = p.busy_until;
                self.host_arm(port, t);
            } else if !p.tx_pending {
                p.tx_pending = true;
                let t = p.busy_until;
                self.events.push(t, Ev::TxDone { port });
            }
            return;
        }
        // a packet sent now is linked behind the wire's last one: load that
        // while the packet is chosen
        prefetch(self.pool.slot_ptr(p.wire.tail));
        if p.is_host {
            self.host_send(port);
        } else {
            self.switch_send(port);
        }
    }

    /// Puts packet `h` on the wire of `port` now; `more` = the port has more
    /// queued, so a `TxDone` is scheduled for the end of this transmission.
    /// Returns that end.
    pub(crate) fn transmit(&mut self, port: u32, h: u32, more: bool) -> Time {
        let now = self.now;
        let pkt = self.pool.get(h);
        let size = pkt.size as u64;
        let payload = pkt.payload as u64;
        // PFC frames are consumed by the peer's MAC, not its forwarding pipeline
        let pipeline = if pkt.kind.is_pfc() { 0 } else { self.net.switch_delay.0 };
        let end = now + self.wire_time(size, self.ports[port as usize].rate);
        let p = &mut self.ports[port as usize];
        p.tx_data_bytes += payload;
        p.busy_until = end;
        let arrive = end + p.delay + if p.peer_is_switch { pipeline } else { 0 };
        // At most one TxDone per port is ever pending: if one is (due now, not yet
        // popped), it will find the port busy and re-arm itself for `end`.
        if more && !p.tx_pending {
            p.tx_pending = true;
            self.events.push(end, Ev::TxDone { port });
        }
        self.stats[port as usize].tx_bytes += size;
        self.link_packets += 1;
        let before = p.wire.push(h, &mut self.pool);
        if before == u32::MAX {
            let (gen, to) = (p.wire_gen, p.peer_port);
            self.events.push(arrive, Ev::Arrive { port, to, gen, pkt: h });
        } else {
            self.pool.get_mut(before).wire_next_at = arrive;
        }
        end
    }

    /// Time to serialize `bytes` at `rate_bps` (also a pacing gap):
    /// [`ser_time`], or truncated to `network.time_quantum` as ns-3 does.
    #[inline]
    pub(crate) fn wire_time(&self, bytes: u64, rate_bps: u64) -> Time {
        if self.quantum == 0 {
            ser_time(bytes, rate_bps)
        } else {
            let exact = crate::time::ser_time_floor(bytes, rate_bps);
            exact - exact % self.quantum
        }
    }

    /// Wire bytes of the INT an ACK (or NACK) of flow data `data` carries when it
    /// leaves the receiver: the echo of the data's records, or the empty
    /// header that switches fill on the way back (FNCC).
    #[inline]
    pub(crate) fn ack_int_bytes(&self, data: &Packet) -> u32 {
        if !(self.int_on || self.int_on_acks) {
            return 0;
        }
        self.int_fixed + self.int_hop * data.n_int as u32
    }

    pub(crate) fn ecn_enabled(&self) -> bool {
        self.net.ecn.mode != EcnMode::Off
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

/// CPU time used by this thread so far (user + system), from
/// /proc/thread-self/stat in clock ticks of 1/100 s (Linux); None elsewhere.
fn thread_cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // after the command name: state is field 3 of the file, utime 14, stime 15
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// `node_ports` without the ports of links that are down.
pub(crate) fn up_ports(node_ports: &[Vec<(u32, u32)>], ports: &[Port]) -> Vec<Vec<(u32, u32)>> {
    node_ports.iter().map(|v| v.iter().copied().filter(|&(p, _)| !ports[p as usize].down).collect()).collect()
}

/// Which sender hook to call.
#[derive(Clone, Copy)]
pub(crate) enum CcOp {
    Start,
    Ack(u32),
    Nack(u32),
    Control(u32),
    Timer(usize),
    Timeout,
}

/// Builds and runs in one call.
pub fn run(
    topo: &Topology,
    net: &NetConfig,
    flows: &[FlowSpec],
    scheme: &dyn Scheme,
    opts: &SimOptions,
    progress: Option<&mut dyn FnMut(&Progress)>,
) -> Result<RunResult, String> {
    Ok(Simulator::new(topo, net, flows, scheme, opts)?.run(progress))
}
