//! Link failures and repairs (`network.link_events`): rerouting, drop
//! accounting, PFC clean-up, symmetric-path fallback, validation.
#![allow(clippy::field_reassign_with_default)]

use crate::common::*;
use ccsim_core::config::{LinkAction, LinkEvent, NetConfig, Routing};
use ccsim_core::sim::{run, SimOptions, TraceConfig};
use ccsim_core::time::ser_time;
use ccsim_core::units::{Bytes, Dur};
use ccsim_core::{LinkSpec, NodeKind, PortRef, RunResult, Topology};

fn ev(at_us: u64, a: u32, b: u32, action: LinkAction) -> LinkEvent {
    LinkEvent { at: Dur(at_us * US), a, b, action }
}

fn port(r: &RunResult, node: u32, peer: u32) -> &ccsim_core::results::PortResult {
    r.ports.iter().find(|p| p.port == PortRef { node, peer }).unwrap()
}

/// Every data byte a host put on the wire was delivered, dropped (counted) or is still in flight.
fn assert_conserved(r: &RunResult) {
    let sent: u64 = r.ports.iter().filter(|p| p.port.node < 2).map(|p| p.tx_data_bytes).sum();
    let e = &r.engine;
    assert_eq!(sent, e.data_bytes_delivered + e.data_bytes_dropped + e.data_bytes_in_flight, "{e:?}");
}

/// Hosts 0 and 1, leaves 2 and 3, spines 4 and 5 (two equal paths).
fn two_paths() -> Topology {
    leaf_spine(1, 2, G100, US)
}

#[test]
fn a_flow_whose_path_fails_is_rerouted_and_completes() {
    for mode in [Routing::Ecmp, Routing::Symmetric] {
        let topo = two_paths();
        let mut net = NetConfig::default();
        net.routing = mode;
        let flows = vec![flow(0, 0, 1, 3_000_000, 0)];
        let base = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
        // the spine ECMP picked, and the other one
        let used = if port(&base, 2, 4).tx_data_bytes > 0 { 4 } else { 5 };
        let other = 9 - used;
        assert_eq!(port(&base, 2, other).tx_data_bytes, 0);
        net.link_events = vec![ev(100, used, 3, LinkAction::Down)];
        let r = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
        let f = &r.flows[0];
        assert!(f.fct.is_some(), "{mode:?}: the flow must complete over the other spine");
        assert!(r.drops > 0 && r.engine.data_bytes_dropped > 0, "{mode:?}: packets on the failed link are lost");
        assert!(f.retransmits > 0);
        assert!(port(&r, 2, other).tx_data_bytes > 0, "{mode:?}: traffic moved to spine {other}");
        // nothing crossed the dead link after the failure: the used spine's downlink
        // carried at most what 100 us at line rate allows
        assert!(port(&r, used, 3).tx_data_bytes <= 100 * US * 100 / 8 / 1000 / 1000 * 1000);
        assert_eq!(r.engine.link_events, 1);
        assert_conserved(&r);
        // go-back-N resends: the FCT grows by at most a few RTTs plus the NACK path, not an RTO
        assert!(
            f.fct.unwrap() < base.flows[0].fct.unwrap() + 100 * US,
            "{mode:?}: {:?} vs {:?}",
            f.fct,
            base.flows[0].fct
        );
    }
}

/// Hosts 0 (on switch 2) and 1 (on switch 3); 2 - 3 direct, or 2 - 4 - 3.
fn short_and_long() -> Topology {
    let mut nodes = vec![NodeKind::Host; 2];
    nodes.extend([NodeKind::Switch; 3]);
    let l = |a, b| LinkSpec { a, b, rate_bps: G100, delay: US, back: None };
    Topology { nodes, links: vec![l(0, 2), l(1, 3), l(2, 3), l(2, 4), l(4, 3)], name: "triangle".into() }
}

#[test]
fn a_link_that_starts_down_is_used_once_it_comes_up() {
    let topo = short_and_long();
    let mut net = NetConfig::default();
    net.link_events = vec![ev(0, 2, 3, LinkAction::Down), ev(100, 3, 2, LinkAction::Up)];
    let flows = vec![flow(0, 0, 1, 3_000_000, 0)];
    let mut opts = SimOptions::default();
    let util = vec![PortRef { node: 2, peer: 4 }, PortRef { node: 2, peer: 3 }];
    opts.trace = TraceConfig { interval: 10 * US, util_ports: util, ..Default::default() };
    let r = run(&topo, &net, &flows, &line_rate(), &opts, None).unwrap();
    assert!(r.flows[0].fct.is_some());
    // the initial event (applied before routes are built) and the repair both count
    assert_eq!(r.engine.link_events, 2);
    let (long, short) = (&r.utilization[0], &r.utilization[1]);
    for (i, &t) in long.t.iter().enumerate() {
        if t <= 100 * US {
            assert_eq!(short.v[i], 0.0, "the direct link is down until 100us (t = {t})");
            if t >= 20 * US {
                assert!(long.v[i] > 0.9, "the long path carries the flow at t = {t}: {}", long.v[i]);
            }
        }
        if t >= 130 * US {
            assert_eq!(long.v[i], 0.0, "back on the short path after the repair (t = {t})");
        }
    }
    assert!(short.v.iter().any(|&v| v > 0.9));
    // a repair loses nothing
    assert_eq!(r.drops, 0);
    assert_conserved(&r);
}

/// A link down from 0 us is a link event like any other (issue 32: it was
/// applied before the routes were built and not counted).
#[test]
fn a_link_down_from_the_start_is_counted() {
    let topo = short_and_long();
    let mut net = NetConfig::default();
    net.link_events = vec![ev(0, 2, 3, LinkAction::Down)];
    let flows = vec![flow(0, 0, 1, 100_000, 0)];
    let r = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    assert!(r.flows[0].fct.is_some());
    assert_eq!(r.engine.link_events, 1);
    assert_eq!(port(&r, 2, 3).tx_data_bytes, 0, "the direct link is down throughout");
}

#[test]
fn failure_then_repair_moves_traffic_away_and_back() {
    let topo = short_and_long();
    let mut net = NetConfig::default();
    net.link_events = vec![ev(50, 2, 3, LinkAction::Down), ev(150, 2, 3, LinkAction::Up)];
    let flows = vec![flow(0, 0, 1, 4_000_000, 0)];
    let r = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    assert!(r.flows[0].fct.is_some());
    assert_eq!(r.engine.link_events, 2);
    assert!(r.drops > 0);
    let long = port(&r, 2, 4).tx_data_bytes;
    // roughly 100 us at 100 Gbps went the long way (a little less: the loss is recovered first)
    assert!(long > 900_000 && long < 1_300_000, "{long}");
    assert_conserved(&r);
}

/// Hosts 0, 1, 2 on leaf 4, host 3 on leaf 5, spines 6 and 7.
fn incast_fabric() -> Topology {
    let mut nodes = vec![NodeKind::Host; 4];
    nodes.extend([NodeKind::Switch; 4]);
    let l = |a, b| LinkSpec { a, b, rate_bps: G100, delay: US, back: None };
    // the receiver's link is the slow bottleneck: backpressure is permanent
    let slow = LinkSpec { a: 3, b: 5, rate_bps: G100 / 4, delay: US, back: None };
    let links = vec![l(0, 4), l(1, 4), l(2, 4), slow, l(4, 6), l(4, 7), l(6, 5), l(7, 5)];
    Topology { nodes, links, name: "incast".into() }
}

#[test]
fn pfc_is_never_left_stuck_by_a_dead_link() {
    // 3:1 incast into a 25G host 3 with a small buffer: leaf 5 pauses the spines,
    // the spines pause leaf 4. Then the most paused spine's link to leaf 5 fails.
    let topo = incast_fabric();
    let mut net = NetConfig::default();
    net.buffer = Bytes(600_000);
    let flows: Vec<_> = (0..3).map(|i| flow(i, i, 3, 2_000_000, 0)).collect();
    let base = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    assert!(base.pause_frames > 0);
    let spines: Vec<u32> = [6, 7].into_iter().filter(|&s| port(&base, s, 5).tx_data_bytes > 0).collect();
    let up_paused = |r: &RunResult, s: u32| port(r, 4, s).paused_time;
    assert!(spines.iter().any(|&s| up_paused(&base, s) > 0), "the setup must pause leaf 4 towards a spine");
    // fail one spine's downlink while its queue is paused
    let s = *spines.iter().max_by_key(|&&s| up_paused(&base, s)).unwrap();
    net.link_events = vec![ev(100, s, 5, LinkAction::Down)];
    let mut opts = SimOptions::default();
    opts.stop_at = Some(20_000 * US);
    let r = run(&topo, &net, &flows, &line_rate(), &opts, None).unwrap();
    assert!(!r.truncated && r.flows.iter().all(|f| f.fct.is_some()), "every flow completes");
    // leaf 4's egress to the failed spine is resumed soon after the failure (the
    // spine's buffer held for the dead link is released); packets queued there
    // still reach host 3 through the spine and back down, pausing briefly
    assert!(up_paused(&r, s) <= 200 * US, "leaf 4 -> spine {s} paused {} ps", up_paused(&r, s));
    let end = r.engine.sim_end;
    for p in &r.ports {
        assert!(p.paused_time < end, "port {:?} paused the whole run", p.port);
    }
    assert_conserved_hosts(&r, 3);
}

fn assert_conserved_hosts(r: &RunResult, hosts: u32) {
    let sent: u64 = r.ports.iter().filter(|p| p.port.node < hosts).map(|p| p.tx_data_bytes).sum();
    let e = &r.engine;
    assert_eq!(sent, e.data_bytes_delivered + e.data_bytes_dropped + e.data_bytes_in_flight, "{e:?}");
}

#[test]
fn a_host_link_failure_stalls_its_flow_until_repair() {
    let topo = two_paths();
    let mut net = NetConfig::default();
    net.link_events = vec![ev(20, 0, 2, LinkAction::Down), ev(300, 0, 2, LinkAction::Up)];
    let flows = vec![flow(0, 0, 1, 1_000_000, 0)];
    let r = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    let fct = r.flows[0].fct.expect("completes after the repair");
    assert!(fct > 300 * US, "{fct}");
    assert_conserved(&r);
}

#[test]
fn link_events_are_deterministic() {
    let topo = leaf_spine(4, 2, G100, US);
    let mut net = NetConfig::default();
    net.routing = Routing::Symmetric;
    net.link_events =
        vec![ev(30, 8, 10, LinkAction::Down), ev(60, 9, 11, LinkAction::Down), ev(90, 8, 10, LinkAction::Up)];
    let flows: Vec<_> = (0..4).map(|i| flow(i, i, 4 + i, 1_500_000, i as u64 * 1000)).collect();
    let a = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    let mut b = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    b.engine.wall_secs = a.engine.wall_secs;
    b.engine.cpu_secs = a.engine.cpu_secs;
    assert_eq!(a, b);
    assert!(a.flows.iter().all(|f| f.fct.is_some()));
    assert_conserved_hosts(&a, 8);
}

#[test]
fn bad_link_events_are_refused_with_clear_errors() {
    let topo = two_paths();
    let flows = vec![flow(0, 0, 1, 10_000, 0)];
    let err = |evs: Vec<LinkEvent>, stop: Option<u64>| {
        let mut net = NetConfig::default();
        net.link_events = evs;
        let mut opts = SimOptions::default();
        opts.stop_at = stop.map(|s| s * US);
        run(&topo, &net, &flows, &line_rate(), &opts, None).unwrap_err()
    };
    let e = err(vec![ev(1, 2, 9, LinkAction::Down)], None);
    assert!(e.contains("network.link_events[0]") && e.contains("node 9 does not exist"), "{e}");
    let e = err(vec![ev(1, 4, 4, LinkAction::Down), ev(1, 2, 3, LinkAction::Down)], None);
    assert!(e.contains("network.link_events[0]") && e.contains("no link between node 4 and node 4"), "{e}");
    let e = err(vec![ev(1, 2, 4, LinkAction::Down), ev(1, 2, 3, LinkAction::Down)], None);
    assert!(e.contains("network.link_events[1]") && e.contains("no link between node 2 and node 3"), "{e}");
    let e = err(vec![ev(5, 2, 4, LinkAction::Up)], None);
    assert!(e.contains("network.link_events[0]") && e.contains("not down"), "{e}");
    let e = err(vec![ev(9, 2, 4, LinkAction::Down), ev(5, 4, 2, LinkAction::Down)], None);
    assert!(e.contains("network.link_events[0]") && e.contains("already down"), "{e}");
    let e = err(vec![ev(900, 2, 4, LinkAction::Down)], Some(500));
    assert!(e.contains("network.link_events[0]") && e.contains("after the run's stop time"), "{e}");
}

#[test]
fn an_unreachable_destination_loses_packets_until_a_repair() {
    // both spines' links to leaf 3 fail: no route; the flow finishes after the repair
    let topo = two_paths();
    let mut net = NetConfig::default();
    net.link_events =
        vec![ev(20, 4, 3, LinkAction::Down), ev(20, 5, 3, LinkAction::Down), ev(200, 5, 3, LinkAction::Up)];
    let flows = vec![flow(0, 0, 1, 2_000_000, 0)];
    let r = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    assert!(r.flows[0].fct.unwrap() > 200 * US);
    assert!(r.drops > 0);
    assert_conserved(&r);
}

#[test]
fn a_host_cut_off_from_the_start_loses_data_without_failing_the_check() {
    // issue 25: with a link down at time 0 the check took the fabric for
    // lossless (the event is applied before the run, so none ran) and failed
    // on the drops the dead link causes; from 1 ns on it passed
    let topo = two_paths();
    for at_ps in [0, 1_000] {
        let mut net = NetConfig::default();
        net.link_events = vec![LinkEvent { at: Dur(at_ps), a: 1, b: 3, action: LinkAction::Down }];
        let flows = vec![flow(0, 0, 1, 200_000, 0)];
        let opts = SimOptions { check: true, stop_at: Some(2_000 * US), ..Default::default() };
        let r = run(&topo, &net, &flows, &line_rate(), &opts, None).unwrap();
        assert!(r.drops > 0, "at {at_ps} ps: host 1 is unreachable, its packets are dropped");
        assert_eq!(r.check, Some(Ok(())), "at {at_ps} ps");
    }
}

#[test]
fn until_routes_change_a_failed_link_blackholes_what_is_sent_to_it() {
    // `network.reroute_delay`: the leaf keeps hashing the flow onto the
    // failed spine link for 500 us, losing every packet there; then routes
    // change and the flow finishes over the other spine (RTO 100 us).
    let topo = two_paths();
    let mut net = NetConfig::default();
    let flows = vec![flow(0, 0, 1, 10_000_000, 0)];
    let base = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    let used = if port(&base, 2, 4).tx_data_bytes > 0 { 4 } else { 5 };
    let other = 9 - used;
    net.link_events = vec![ev(100, 2, used, LinkAction::Down)];
    net.rto = Some(Dur(100 * US));
    let at_once = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    net.reroute_delay = Dur(500 * US);
    let opts = SimOptions { check: true, ..SimOptions::default() };
    let r = run(&topo, &net, &flows, &line_rate(), &opts, None).unwrap();
    assert_eq!(r.check.as_ref().map(|c| c.is_ok()), Some(true), "{:?}", r.check);
    assert!(r.flows[0].fct.is_some(), "the flow finishes once routes change");
    // the leaf's egress to the dead link counts the blackholed packets...
    let lost = port(&r, 2, used).drops;
    assert!(lost > port(&at_once, 2, used).drops + 100, "blackholed {lost}");
    // ... and the flow pays the 500 us before the routes moved it
    let (slow, fast) = (r.flows[0].fct.unwrap(), at_once.flows[0].fct.unwrap());
    assert!(slow > fast + 400 * US, "reroute after 500 us: {slow} vs at once {fast}");
    assert!(port(&r, 2, other).tx_data_bytes > 0);
}

/// A star of 3 hosts whose switch sends to host 2 at a quarter of the rate
/// host 2 sends at (one direction degraded, as uet-htsim's `-failed`).
fn slow_down_to_host_2() -> Topology {
    let mut t = star(3, G100, US);
    t.links[2].set_from(3, ccsim_core::topology::Direction { rate_bps: G100 / 4, delay: 2 * US });
    t
}

#[test]
fn each_direction_of_a_link_has_its_own_rate_and_delay() {
    let topo = slow_down_to_host_2();
    assert_eq!((topo.links[2].rate_from(2), topo.links[2].rate_from(3)), (G100, G100 / 4));
    topo.validate().unwrap();
    let net = NetConfig::default();
    let size = 1_000_000;
    // into host 2: the slow direction is the bottleneck; out of it: line rate
    let into = run(&topo, &net, &[flow(0, 0, 2, size, 0)], &line_rate(), &SimOptions::default(), None).unwrap();
    let out = run(&topo, &net, &[flow(0, 2, 0, size, 0)], &line_rate(), &SimOptions::default(), None).unwrap();
    let wire = size + size.div_ceil(1000) * 48;
    let (fin, fout) = (into.flows[0].fct.unwrap(), out.flows[0].fct.unwrap());
    assert!(fin >= ser_time(wire, G100 / 4), "into host 2: {fin} ps");
    assert!(fout < ser_time(wire, G100) + 20 * US, "out of host 2: {fout} ps");
    // the ports report their own direction; ideal FCTs and base RTTs follow the path taken
    let rate = |r: &ccsim_core::RunResult, node, peer| {
        r.ports.iter().find(|p| p.port == PortRef { node, peer }).map(|p| p.rate_bps).unwrap()
    };
    assert_eq!((rate(&into, 3, 2), rate(&into, 2, 3)), (G100 / 4, G100));
    assert!(into.flows[0].ideal_fct >= ser_time(wire, G100 / 4));
    assert!(out.flows[0].ideal_fct < ser_time(wire, G100) + 10 * US);
    // the ACKs of the flow out of host 2 come back on the slow, longer direction
    let sym = star(3, G100, US);
    let sym = run(&sym, &net, &[flow(0, 2, 0, size, 0)], &line_rate(), &SimOptions::default(), None).unwrap();
    let fsym = sym.flows[0].fct.unwrap();
    assert!(fout > fsym, "the slow back direction delays the last ACK: {fout} vs {fsym} ps");
}

#[test]
fn a_slow_direction_below_the_minimum_rate_is_refused() {
    let mut topo = star(3, G100, US);
    topo.links[1].set_from(3, ccsim_core::topology::Direction { rate_bps: 10, delay: US });
    let e = topo.validate().unwrap_err();
    assert!(e.contains("link 1 (3 -> 1)") && e.contains("10 bps"), "{e}");
    // setting a direction back to the other's makes the link symmetric again
    topo.links[1].set_from(3, ccsim_core::topology::Direction { rate_bps: G100, delay: US });
    assert_eq!(topo.links[1].back, None);
}
