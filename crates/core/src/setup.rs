//! Assembling a run: the network from [`crate::build`], the flows and
//! connections with their path facts, the tracer, the first events, and
//! the [`Simulator`] that owns them all.

use crate::build;
use crate::cc::{FlowView, Scheme};
use crate::config::NetConfig;
use crate::event::{Ev, EventQueue};
use crate::flow::{ConnSpec, FlowSpec, Traffic};
use crate::nic_queue::NicSlot;
use crate::node::lossless_classes;
use crate::options::{SimOptions, TraceConfig};
use crate::packet::PacketPool;
use crate::projection::Counting;
use crate::results::PortRef;
use crate::routing::Routing;
use crate::state::{Counters, Simulator};
use crate::time::Time;
use crate::topology::Topology;
use crate::trace::Tracer;
use crate::transport::{ideal_fct, ConnState, Flow};

/// The flows, then the connections (flow id = number of flows + connection
/// id), each with its path facts, its scheme's sender and receiver and its
/// ECMP hash. Errors name the flow or connection.
#[allow(clippy::too_many_arguments)]
fn make_flows(
    topo: &Topology,
    net: &NetConfig,
    scheme: &dyn Scheme,
    facts: &build::PathFacts,
    flows: &[FlowSpec],
    conns: &[ConnSpec],
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
    let per_packet = net.recovery == crate::config::Recovery::Packet;
    let sleek = per_packet && net.sleek.enabled;
    let mut fl = Vec::with_capacity(flows.len() + conns.len());
    for (i, f) in flows.iter().enumerate() {
        let name = format!("flow {i} ({} -> {}, {} bytes)", f.src, f.dst, f.size);
        let view = view_of(&name, i, f.src, f.dst, f.prio, Some(f.size), f.start)?;
        let ideal = ideal_fct(&view, f.size, net);
        fl.push(Flow::new(scheme, view, 1 + f.prio, hash(i), ideal, None, per_packet));
    }
    for (c, spec) in conns.iter().enumerate() {
        let i = flows.len() + c;
        let name = format!("connection {c} ({} -> {})", spec.src, spec.dst);
        let view = view_of(&name, i, spec.src, spec.dst, spec.prio, None, 0)?;
        let conn = Box::new(ConnState { id: c as u32, ..Default::default() });
        fl.push(Flow::new(scheme, view, 1 + spec.prio, hash(i), 0, Some(conn), per_packet));
    }
    if sleek {
        for f in &mut fl {
            f.snd.sleek = Some(Box::default());
        }
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

/// The counts of a projected parallel run per thread count in `threads`
/// (`SimOptions::project_threads`), each over a plan balancing the bytes
/// every host sends and receives.
fn projections(
    threads: &[usize],
    topo: &Topology,
    nw: &build::Network,
    fl: &[Flow],
    flows: &[FlowSpec],
    conns: &[ConnSpec],
    messages: &[crate::flow::MessageSpec],
) -> Result<Vec<Counting>, String> {
    if threads.is_empty() {
        return Ok(Vec::new());
    }
    let ends = flows.iter().map(|f| (f.src, f.dst, f.size)).chain(
        messages.iter().filter(|m| m.compute_on.is_none()).filter_map(|m| {
            let c = conns.get(m.conn as usize)?;
            Some((c.src, c.dst, m.size))
        }),
    );
    let bytes = crate::partition::host_bytes(topo.nodes.len(), ends);
    let port_node: Vec<u32> = nw.ports.iter().map(|p| p.node).collect();
    let flow_src: Vec<u32> = fl.iter().map(|f| f.view.src).collect();
    let host_node: Vec<u32> = nw.hosts.iter().map(|h| nw.ports[h.port as usize].node).collect();
    threads
        .iter()
        .map(|&n| {
            if !(1..=u16::MAX as usize).contains(&n) {
                return Err(format!("project_threads: {n} threads; give 1 to 65535"));
            }
            let plan = crate::partition::plan(topo, n, &bytes);
            Ok(Counting::new(plan, &port_node, &flow_src, &host_node))
        })
        .collect()
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
        topo.validate()?;
        Routing::check_size(topo)?;
        net.validate()?;
        let link_events = topo.check_link_events(&net.link_events, opts.stop_at)?;
        let req = scheme.requirements();
        // what the scheme needs against what the network offers: refused,
        // or the network the run uses (the scheme's ECN, a chosen receiver)
        let crate::compat::Resolved { net, notes } = crate::compat::resolve(net, &req, scheme.name())?;
        let net = &net;
        let nw = build::network(topo, net, scheme, &link_events, opts.seed)?;
        let facts = nw.facts(net);
        let max_base_rtt = facts.max_base_rtt(&topo.hosts());
        let mut fl = make_flows(topo, net, scheme, &facts, &flows, &conns, opts.seed, max_base_rtt)?;
        let mut events = build::event_queue(&nw.ports, net);
        for (i, f) in flows.iter().enumerate() {
            events.push(f.start, Ev::FlowStart { flow: i as u32 });
        }
        // those at time 0 were applied before the routes were built
        let link_events: Vec<(Time, usize, bool)> = link_events[nw.links_applied..].to_vec();
        for (i, e) in link_events.iter().enumerate() {
            events.push(e.0, Ev::Link { idx: i as u32 });
        }
        let tracer = make_tracer(&opts.trace, &nw.node_ports, &mut fl, &mut events)?;
        let projection = projections(&opts.project_threads, topo, &nw, &fl, &flows, &conns, &messages)?;
        let rto = build::choose_rto(net, &req, max_base_rtt)?;
        let mut sim = Simulator {
            now: 0,
            events,
            pool: PacketPool::default(),
            ports: nw.ports,
            stats: nw.stats,
            node_index: nw.node_index,
            switches: nw.switches,
            hosts: nw.hosts,
            nic_slots: vec![NicSlot::default(); fl.len()],
            flows: fl,
            n_plain: flows.len() as u32,
            msgs: Vec::with_capacity(messages.len()),
            dependents: Vec::with_capacity(messages.len()),
            source,
            routing: nw.routing,
            emit_buf: Vec::new(),
            mode: build::mode(net, &req, rto),
            count: Counters::default(),
            ctl: build::run_control(opts, flows.len(), crate::partition::grid(topo)),
            tracer,
            rtt_hist: opts.trace.rtt.then(crate::results::RttHistogram::new),
            topo: topo.clone(),
            node_ports: nw.node_ports,
            port_base: nw.port_base,
            link_ports: nw.link_ports,
            link_events,
            link_events_run: nw.links_applied as u32,
            pause_log: Vec::new(),
            credit: req.credit.clone(),
            credit_flows: Vec::new(),
            pacers: Vec::new(),
            projection,
            outbox: Vec::new(),
            outbox_min: None,
            inbox: Vec::new(),
            msg_mail: Default::default(),
            scheme_name: scheme.name().to_string(),
            notes,
            net: net.clone(),
        };
        sim.add_messages(messages)?;
        sim.credit_init();
        Ok(sim)
    }
}
