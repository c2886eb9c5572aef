//! Building a network: numbering the ports, making them with their
//! buffers' thresholds, making the switches and hosts, the routes, the path
//! facts a flow needs (latency, serialization, bottleneck), the
//! retransmission timeout and the run's modes.
//! [`crate::sim::Simulator::with_traffic`] (`setup.rs`) calls these in order.

use crate::cc::{PortStat, Requirements, Scheme};
use crate::config::{IntEncoding, NetConfig, Receiver, Recovery, Routing as RoutingMode};
use crate::event::EventQueue;
use crate::nic_queue::NicFlows;
use crate::node::{lossless_classes, Host, Switch};
use crate::options::SimOptions;
use crate::port::Port;
use crate::rng::Rng;
use crate::routing::Routing;
use crate::state::{Mode, RunControl};
use crate::table::ZeroTable;
use crate::time::{ser_time, Time, US};
use crate::topology::{NodeKind, Topology};
use crate::wiring::{up_ports, wire, Wiring};

/// A built network: its ports and nodes, wired and routed.
pub(crate) struct Network {
    pub ports: ZeroTable<Port>,
    pub stats: Vec<PortStat>,
    pub node_index: Vec<u32>,
    pub switches: Vec<Switch>,
    pub hosts: Vec<Host>,
    /// Over the links up at time 0.
    pub routing: Routing,
    /// Over all links, when some are down at time 0 (path facts use it).
    pub full_routing: Option<Routing>,
    pub node_ports: Vec<Vec<(u32, u32)>>,
    pub link_ports: Vec<(u32, u32)>,
    /// Per node: its first port id.
    pub port_base: Vec<u32>,
    /// The link events at time 0, applied before the routes were built.
    pub links_applied: usize,
}

/// Builds the network of `topo` under `net`: ports, the link events at time
/// 0 (`link_events` is in time order), routes, switches and hosts.
pub(crate) fn network(
    topo: &Topology,
    net: &NetConfig,
    scheme: &dyn Scheme,
    link_events: &[(Time, usize, bool)],
    seed: u64,
) -> Result<Network, String> {
    let w = wire(topo);
    let (mut ports, stats) = make_ports(topo, net, &w);
    let links_applied = link_events.iter().take_while(|e| e.0 == 0).count();
    for &(_, li, up) in &link_events[..links_applied] {
        let (pa, pb) = w.link_ports[li];
        ports[pa as usize].down = !up;
        ports[pb as usize].down = !up;
    }
    let any_down = ports.iter().any(|p| p.down);
    let port_base = w.base[..topo.nodes.len()].to_vec();
    let live = if any_down { up_ports(&w.node_ports, &ports) } else { w.node_ports.clone() };
    let routing = Routing::build(topo, &live, &port_base);
    let full_routing = any_down.then(|| Routing::build(topo, &w.node_ports, &port_base));
    let (node_index, switches, hosts) = make_nodes(topo, net, scheme, &w, &ports, &stats, seed)?;
    let Wiring { node_ports, link_ports, .. } = w;
    Ok(Network {
        ports,
        stats,
        node_index,
        switches,
        hosts,
        routing,
        full_routing,
        node_ports,
        link_ports,
        port_base,
        links_applied,
    })
}

impl Network {
    /// The path facts of its host pairs.
    pub fn facts<'a>(&'a self, net: &'a NetConfig) -> PathFacts<'a> {
        PathFacts {
            net,
            ports: &self.ports,
            node_ports: &self.node_ports,
            routing: &self.routing,
            full_routing: self.full_routing.as_ref(),
        }
    }
}

/// An event queue whose wheel covers the longest packet time plus
/// propagation of any link, with margin.
pub(crate) fn event_queue(ports: &[Port], net: &NetConfig) -> EventQueue {
    let pkt = net.packet_size();
    let longest = ports.iter().map(|p| p.delay + ser_time(pkt, p.rate)).max().unwrap_or(0);
    EventQueue::with_horizon(longest * 5 / 4 + net.switch_delay.0)
}

/// What `net` and the scheme's `req` decide for a run with timeout `rto`.
pub(crate) fn mode(net: &NetConfig, req: &Requirements, rto: Option<Time>) -> Mode {
    Mode {
        int_on: net.int.unwrap_or(req.int_on_data),
        int_on_acks: req.int_on_acks,
        int_fixed: if net.int_encoding == IntEncoding::Fixed { net.int_fixed_bytes.0 as u32 } else { 0 },
        int_hop: if net.int_encoding == IntEncoding::PerHop { net.int_hop_bytes.0 as u32 } else { 0 },
        quantum: net.time_quantum.map_or(0, |q| q.0),
        rto,
        trim_selective: (net.trim.enabled && net.receiver == Receiver::Reorder) || net.recovery == Recovery::Packet,
        per_packet: net.recovery == Recovery::Packet,
        queue_limit: net.queue_limit.is_some(),
        lossless: lossless_classes(net),
        ack_entropy: req.entropy,
        cut: false,
        part: 0,
    }
}

/// The stop, stall and check rules of `opts` for a run of `total` flows on
/// a grid of `grid` ps ([`crate::partition::grid`]).
pub(crate) fn run_control(opts: &SimOptions, total: usize, grid: Time) -> RunControl {
    RunControl {
        total,
        finished: 0,
        started: 0,
        last_progress: 0,
        stall: opts.stall.max(1),
        cycle_check: opts.stall.max(1),
        interrupt: opts.interrupt.clone(),
        stop_at: opts.stop_at,
        check: opts.check,
        deep: crate::check::deep_checks(),
        draining: false,
        grid,
        next_grid: 0,
        last_event: 0,
        // a run without flows runs nothing
        end: if total == 0 { 0 } else { Time::MAX },
    }
}

/// The ports by global id, each with its link's rate and delay, its PFC
/// headroom, its share of the buffer (alpha) and its ECN thresholds; and
/// their statistics.
pub(crate) fn make_ports(topo: &Topology, net: &NetConfig, w: &Wiring) -> (ZeroTable<Port>, Vec<PortStat>) {
    let total_ports = w.node_ports.iter().map(|v| v.len()).sum::<usize>();
    let pkt_size = net.packet_size();
    let mut ports: ZeroTable<Port> = ZeroTable::zeroed(total_ports);
    let mut stats = vec![PortStat::default(); total_ports];
    // (port, node, peer, link), in global-id order
    let mut order: Vec<(u32, u32, u32, usize)> = Vec::with_capacity(total_ports);
    for (li, l) in topo.links.iter().enumerate() {
        let (pa, pb) = w.link_ports[li];
        order.push((pa, l.a, l.b, li));
        order.push((pb, l.b, l.a, li));
    }
    order.sort_unstable();
    for &(p, node, peer, li) in &order {
        debug_assert!(!ports[p as usize].built, "port {p} made twice");
        let l = &topo.links[li];
        // the direction this port sends on, and the one its ingress receives from
        let (out, inn) = (l.from(node), l.from(peer));
        // below MAX_PORTS_PER_NODE (Topology::validate)
        let local = (p - w.base[node as usize]) as u16;
        let peer_port = if l.a == node { w.link_ports[li].1 } else { w.link_ports[li].0 };
        let extra = net.pfc.headroom_extra.map(|b| b.0).unwrap_or(2 * pkt_size);
        // a PAUSE goes out and what was sent before it comes in: the mean of
        // the two delays (the link's delay when both directions have it);
        // a switch also holds what arrives during its processing delay
        let lag = ((out.delay + inn.delay) / 2) as f64 * net.pfc.headroom_factor
            + if topo.nodes[node as usize] == NodeKind::Switch { net.switch_delay.0 as f64 } else { 0.0 };
        // the ingress fills at the rate it receives
        let headroom = ((inn.rate_bps as f64 / 8.0) * (lag / 1e12)).ceil() as u64 + extra;
        let alpha = (net.pfc.alpha_per_100g * inn.rate_bps as f64 / 100e9).min(1.0);
        // the egress drains at the rate it sends
        let (kmin, kmax) = if net.ecn.scale_per_25g {
            let f = out.rate_bps as f64 / 25e9;
            ((net.ecn.kmin.0 as f64 * f) as u64, (net.ecn.kmax.0 as f64 * f) as u64)
        } else {
            (net.ecn.kmin.0, net.ecn.kmax.0)
        };
        let trim_at = match net.trim.threshold {
            Some(t) if net.trim.scale_per_100g => (t.0 as f64 * out.rate_bps as f64 / 100e9) as u64,
            Some(t) => t.0,
            None => u64::MAX,
        };
        let mut port = Port::new(
            node,
            local,
            peer,
            peer_port,
            topo.nodes[node as usize] == NodeKind::Host,
            topo.nodes[peer as usize] == NodeKind::Switch,
        );
        port.rate = out.rate_bps;
        port.delay = out.delay;
        port.headroom = headroom;
        port.alpha_1024 = ((alpha * 1024.0).round() as u64).max(1);
        port.kmin = kmin;
        port.kmax = kmax;
        port.trim_at = trim_at;
        port.limit_at = net.queue_limit.map_or(u64::MAX, |b| b.0);
        ports[p as usize] = port;
        stats[p as usize] = PortStat { peer, rate_bps: out.rate_bps, delay: out.delay, ..Default::default() };
    }
    (ports, stats)
}

/// Labels of a switch's and a host's random streams ([`Rng::derive`] with
/// the run's seed and the label xor the node id): each node draws from its
/// own stream, so its draws do not depend on what other nodes do or in what
/// order their events run (issue 36).
const SWITCH_RNG: u64 = 0x5317_C400_0000_0000;
const HOST_RNG: u64 = 0x4057_0000_0000_0000;

/// Per node its index among the switches or the hosts; the switches; the hosts.
pub(crate) type Nodes = (Vec<u32>, Vec<Switch>, Vec<Host>);

/// The switches and hosts, and per node its index among them. Each switch
/// takes its ECMP salt from the run's stream ([`crate::paths::draw_salts`]),
/// and each node its own random stream. Errors when a switch's
/// PFC headroom and reserve leave no shared buffer.
pub(crate) fn make_nodes(
    topo: &Topology,
    net: &NetConfig,
    scheme: &dyn Scheme,
    w: &Wiring,
    ports: &[Port],
    stats: &[PortStat],
    seed: u64,
) -> Result<Nodes, String> {
    let mut rng = Rng::derive(seed, 0xCC51);
    let n = topo.nodes.len();
    let data_classes = net.data_classes as u64;
    let salts = crate::paths::draw_salts(topo, &mut rng);
    let mut node_index = vec![u32::MAX; n];
    let mut switches = Vec::new();
    let mut hosts = Vec::new();
    for node in 0..n as u32 {
        let ps = &w.node_ports[node as usize];
        let start = ps.first().map(|x| x.0).unwrap_or(0);
        let end = ps.last().map(|x| x.0 + 1).unwrap_or(0);
        match topo.nodes[node as usize] {
            NodeKind::Switch => {
                node_index[node as usize] = switches.len() as u32;
                let mut sw = Switch {
                    node,
                    port_start: start,
                    port_end: end,
                    shared_used: 0,
                    total_hdrm: 0,
                    total_rsrv: 0,
                    salt: salts[node as usize],
                    rng: Rng::derive(seed, SWITCH_RNG ^ node as u64),
                    cc: None,
                };
                // headroom only for the classes PFC keeps lossless: a
                // lossy class drops (or trims) instead of pausing
                let lossless = lossless_classes(net).count_ones() as u64;
                for p in start..end {
                    sw.total_hdrm += ports[p as usize].headroom * lossless;
                    sw.total_rsrv += net.reserve.0 * data_classes;
                }
                if sw.total_hdrm + sw.total_rsrv >= net.buffer.0 {
                    return Err(format!(
                        "network.buffer = {} is too small for switch {}: its PFC headroom ({} B) and reserve ({} B) alone exceed it",
                        net.buffer, node, sw.total_hdrm, sw.total_rsrv
                    ));
                }
                sw.cc = scheme.switch(node, &stats[start as usize..end as usize]);
                switches.push(sw);
            }
            NodeKind::Host => {
                node_index[node as usize] = hosts.len() as u32;
                hosts.push(Host {
                    port: start,
                    nic: NicFlows::default(),
                    wake_at: Time::MAX,
                    rx_active: 0,
                    rng: Rng::derive(seed, HOST_RNG ^ node as u64),
                });
            }
        }
    }
    Ok((node_index, switches, hosts))
}

/// The facts of a host pair's path that a flow is built with: one-way
/// latency (propagation and switch delays), serialization of one full
/// packet per hop, the slowest link and the switches crossed, along the
/// first port of every ECMP group (the routes at time 0; all links for a
/// pair unreachable then).
pub(crate) struct PathFacts<'a> {
    pub net: &'a NetConfig,
    pub ports: &'a [Port],
    pub node_ports: &'a [Vec<(u32, u32)>],
    pub routing: &'a Routing,
    /// The routes over every link, when some are down at time 0.
    pub full_routing: Option<&'a Routing>,
}

impl PathFacts<'_> {
    /// (one-way latency, serialization sum, slowest rate, switches) from `src` to `dst`.
    pub fn of(&self, src: u32, dst: u32) -> (Time, Time, u64, u32) {
        let routing = if self.reachable(src, dst) { self.routing } else { self.full_routing.unwrap_or(self.routing) };
        let pkt_size = self.net.packet_size();
        let mut p = self.node_ports[src as usize][0].0;
        let (mut prop, mut ser, mut minr, mut sws) = (0, 0, u64::MAX, 0u32);
        loop {
            let port = &self.ports[p as usize];
            prop += port.delay;
            ser += ser_time(pkt_size, port.rate);
            minr = minr.min(port.rate);
            if port.peer == dst {
                break;
            }
            sws += 1;
            prop += self.net.switch_delay.0;
            p = routing.group(port.peer, dst).get(0);
        }
        (prop, ser, minr, sws)
    }

    /// Whether the routes at time 0 reach `dst` from `src`.
    fn reachable(&self, src: u32, dst: u32) -> bool {
        let mut p = self.node_ports[src as usize][0].0;
        let mut hops = 0;
        loop {
            let port = &self.ports[p as usize];
            if port.down || hops > 64 {
                return false;
            }
            if port.peer == dst {
                return true;
            }
            match self.routing.group(port.peer, dst).first() {
                Some(q) => p = q,
                None => return false,
            }
            hops += 1;
        }
    }

    /// The largest base RTT (2 x latency + serialization) over all host
    /// pairs. Hosts attached to the same switch through identical links
    /// share path facts towards any destination, so one representative per
    /// (switch, link rate, delay) class is enough on each side.
    pub fn max_base_rtt(&self, host_ids: &[u32]) -> Time {
        let mut max_base_rtt = 0;
        let mut reps: Vec<u32> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let first_port = |h: u32| &self.ports[self.node_ports[h as usize][0].0 as usize];
        for &h in host_ids {
            let p = first_port(h);
            if seen.insert((p.peer, p.rate, p.delay)) {
                reps.push(h);
            }
        }
        for &a in &reps {
            for &b in &reps {
                if a != b {
                    let (prop, ser, _, _) = self.of(a, b);
                    max_base_rtt = max_base_rtt.max(2 * prop + ser);
                }
            }
        }
        // two hosts under the same switch with the same link are represented
        // by one host: cover that pair shape too
        for &h in host_ids {
            let p = first_port(h);
            if let Some(&o) = host_ids.iter().find(|&&o| o != h && first_port(o).peer == p.peer) {
                let (prop, ser, _, _) = self.of(h, o);
                max_base_rtt = max_base_rtt.max(2 * prop + ser);
                break;
            }
        }
        max_base_rtt
    }
}

/// The retransmission timeout: `network.rto` (0: none), else none on a
/// lossless, in-order fabric (nothing is ever lost) and 1 ms otherwise.
/// Errors when it is shorter than the fabric's largest base RTT.
pub(crate) fn choose_rto(net: &NetConfig, req: &Requirements, max_base_rtt: Time) -> Result<Option<Time>, String> {
    if let Some(r) = net.rto.filter(|r| r.0 > 0 && r.0 < max_base_rtt) {
        return Err(format!(
            "network.rto = {r}: shorter than the fabric's largest base RTT ({:.3}us): every packet would time out before its ACK could arrive",
            max_base_rtt as f64 / 1e6
        ));
    }
    Ok(match net.rto {
        Some(d) if d.0 > 0 => Some(d.0),
        Some(_) => None,
        // lossless and in order: nothing is ever lost, so no timer is needed
        None if net.pfc.enabled
            && net.pfc.lossy_prios.is_empty()
            && net.routing != RoutingMode::Spray
            && !req.entropy
            && net.link_events.is_empty() =>
        {
            None
        }
        // lossy, sprayed by the network or the scheme (reordering + go-back-N + NACK suppression can
        // leave a flow's tail waiting for a NACK that no arrival triggers),
        // or with failing links (a flow's tail can be lost on a dead link)
        None => Some(1000 * US),
    })
}
