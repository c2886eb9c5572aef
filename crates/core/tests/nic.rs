//! The host NIC's flow choice (`nic.rs`): round robin among many flows of
//! one host, pacing without idle wake-ups, and flows (and ACKs) held by
//! PFC. Debug
//! builds (as tests run) also check every choice against a scan of the
//! host's flows.
#![allow(clippy::field_reassign_with_default)]

use crate::common::*;
use ccsim_core::config::NetConfig;
use ccsim_core::sim::{run, SimOptions};
use ccsim_core::time::ser_time;
use ccsim_core::units::Bytes;
use ccsim_core::{LinkSpec, NodeKind, PortRef, Topology};

/// Wire time of one full data packet at 100G.
fn pkt_time() -> u64 {
    ser_time(NetConfig::default().packet_size(), G100)
}

#[test]
fn many_flows_of_one_host_share_its_nic_packet_by_packet() {
    // 200 flows of 20 packets each start on one host at the same instant.
    // Round robin sends one packet of each in turn, in start order, so the
    // flows finish one packet time apart, in start order. (Flow 0 is a
    // packet ahead: it was alone when the NIC chose its first packet, and
    // the turn after the last started flow goes back to the first.)
    let topo = star(2, G100, US);
    let n = 200u32;
    let flows: Vec<_> = (0..n).map(|i| flow(i, 0, 1, 20_000, 0)).collect();
    let opts = SimOptions { check: true, ..Default::default() };
    let r = run(&topo, &NetConfig::default(), &flows, &line_rate(), &opts, None).unwrap();
    assert_eq!(r.check, Some(Ok(())));
    let fcts: Vec<u64> = r.flows.iter().map(|f| f.fct.expect("finished")).collect();
    for i in 1..n as usize - 1 {
        assert_eq!(fcts[i + 1] - fcts[i], pkt_time(), "flows {i} and {} finish a packet apart", i + 1);
    }
    assert!(fcts[0] < fcts[1] && fcts[1] - fcts[0] <= n as u64 * pkt_time(), "flow 0 is at most a round ahead");
    // the NIC never idles: the last flow finishes when 4,000 packets have crossed
    let (last, busy) = (fcts[n as usize - 1], 20 * n as u64 * pkt_time());
    assert!(last >= busy && last < busy + 6 * US, "last FCT {last} ps, link busy for {busy} ps");
    assert_eq!(r.engine.data_packets, 20 * n as u64);
}

#[test]
fn paced_flows_wake_the_nic_once_per_packet() {
    // Two flows of one host, each paced at 30% of line rate: the NIC looks
    // for a packet once per packet (a pacing wake-up, or the end of the
    // other flow's packet), never at the end of a packet when both flows
    // are still in their gaps.
    let topo = star(2, G100, US);
    let flows = vec![flow(0, 0, 1, 2_000_000, 0), flow(1, 0, 1, 2_000_000, 0)];
    let scheme = Fixed { rate_frac: 0.3, window_bdps: 0.0 };
    let r = run(&topo, &NetConfig::default(), &flows, &scheme, &SimOptions::default(), None).unwrap();
    let pkts = r.engine.data_packets;
    assert_eq!(pkts, 2 * 2_000);
    let k = r.engine.by_kind;
    assert_eq!(k.arrive, 4 * pkts, "two hops each for data and ACK, nothing queues at 60% load");
    let looks = k.tx_done + k.host_wake;
    assert!(looks <= pkts + 2, "{looks} NIC wake-ups for {pkts} data packets");
    assert_eq!(r.engine.events, k.arrive + looks + k.flow_start);
    // and each flow got its pace: 2,000 packets at 30% of 100G
    for f in &r.flows {
        let fct = f.fct.unwrap();
        let paced = 2_000 * pkt_time() * 10 / 3;
        assert!(fct.abs_diff(paced) < 10 * US, "flow {}: fct {fct} ps, paced {paced} ps", f.id);
    }
}

#[test]
fn flows_held_by_pfc_resume_in_turn() {
    // 8 hosts with 8 line-rate flows each into one receiver through a small
    // buffer: the switch pauses the senders again and again. Every flow of a
    // paused host is held and comes back on RESUME; nothing is lost and
    // each host's flows still finish together.
    let topo = star(9, G100, US);
    let mut net = NetConfig::default();
    net.buffer = Bytes(1_000_000);
    let flows: Vec<_> = (0..64).map(|i| flow(i, i / 8, 8, 200_000, 0)).collect();
    let opts = SimOptions { check: true, ..Default::default() };
    let r = run(&topo, &net, &flows, &line_rate(), &opts, None).unwrap();
    assert_eq!(r.check, Some(Ok(())));
    assert_eq!(r.drops, 0);
    assert!(r.pause_frames > 0, "an 8:1 incast into 1 MB must pause the senders");
    let paused_hosts = r.ports.iter().filter(|p| p.port.node < 8 && p.paused_time > 0).count();
    assert!(paused_hosts >= 4, "{paused_hosts} sender NICs were paused");
    // the receiver's link drains 12.8 MB at line rate
    let last = r.flows.iter().map(|f| f.fct.unwrap()).max().unwrap();
    let drain = ser_time(64 * (200_000 + 200 * 48), G100);
    assert!(last < drain + drain / 20, "incast took {last} ps, line-rate drain {drain}");
    for h in 0..8 {
        let f: Vec<u64> = r.flows.iter().filter(|f| f.src == h).map(|f| f.fct.unwrap()).collect();
        let spread = f.iter().max().unwrap() - f.iter().min().unwrap();
        assert!(spread <= drain / 10, "host {h}: its flows finish {spread} ps apart");
    }
}

#[test]
fn flows_finishing_out_of_order_leave_the_round_robin_intact() {
    // 300 flows of one host with sizes cycling 1..=7 packets, started together:
    // round robin sends one packet of each per turn, so flows of k packets
    // finish in turn k, in start order, while longer ones started before
    // them are still sending (finished flows leave the NIC's list out of
    // order). Every choice is checked against a scan (debug build).
    let topo = star(2, G100, US);
    let n = 300u32;
    let size = |i: u32| 1_000 * (1 + i as u64 % 7);
    let flows: Vec<_> = (0..n).map(|i| flow(i, 0, 1, size(i), 0)).collect();
    let opts = SimOptions { check: true, ..Default::default() };
    let r = run(&topo, &NetConfig::default(), &flows, &line_rate(), &opts, None).unwrap();
    assert_eq!(r.check, Some(Ok(())));
    let fct = |i: u32| r.flows[i as usize].fct.expect("finished");
    // within a size class, start order; a smaller class finishes first
    for i in 1..n - 7 {
        let j = i + 7;
        assert!(fct(i) < fct(j), "flows {i} and {j} ({} B) finish in start order", size(i));
        if size(i) < 7_000 {
            assert!(fct(i) < fct(i + 1) || size(i + 1) < size(i), "flow {i} before the longer flow {}", i + 1);
        }
    }
    let total: u64 = (0..n).map(size).sum::<u64>() / 1_000;
    assert_eq!(r.engine.data_packets, total);
    // the NIC never idles: the last flow finishes when every packet has crossed
    let last = (0..n).map(fct).max().unwrap();
    let busy = total * pkt_time();
    assert!(last >= busy && last < busy + 6 * US, "last FCT {last} ps, link busy for {busy} ps");
}

#[test]
fn acks_in_a_paused_class_wait_on_the_nic() {
    // With ACKs in their flow's data class (ack_high_priority = false), a
    // host paused by its switch must hold its ACKs too. Host 0 receives two
    // line-rate flows from hosts 3 and 4 on the other switch and sends, with
    // host 1, to host 2 behind a 10G link: switch 6 pauses switch 5, whose
    // egress to 6 (where host 0's data and ACKs wait) then drains slowly, so
    // switch 5 pauses host 0. ACKs sent into that pause would fill the
    // ingress headroom and be dropped.
    let mut nodes = vec![NodeKind::Host; 5];
    nodes.extend([NodeKind::Switch, NodeKind::Switch]);
    let link = |a, b, rate_bps| LinkSpec { a, b, rate_bps, delay: US, back: None };
    let links = vec![
        link(0, 5, G100),
        link(1, 5, G100),
        link(2, 6, G100 / 10),
        link(3, 6, G100),
        link(4, 6, G100),
        link(5, 6, G100),
    ];
    let topo = Topology { nodes, links, name: "paused receiver".into() };
    let flows = vec![
        flow(0, 3, 0, 10_000_000, 0),
        flow(1, 4, 0, 10_000_000, 0),
        flow(2, 0, 2, 1_000_000, 0),
        flow(3, 1, 2, 1_000_000, 0),
    ];
    for ack_high_priority in [false, true] {
        let mut net = NetConfig::default();
        net.ack_high_priority = ack_high_priority;
        net.pfc.static_xoff = Some(Bytes(50_000));
        let opts = SimOptions { check: true, ..Default::default() };
        let r = run(&topo, &net, &flows, &line_rate(), &opts, None).unwrap();
        assert_eq!(r.check, Some(Ok(())), "ack_high_priority = {ack_high_priority}");
        assert_eq!(r.drops, 0);
        assert!(r.flows.iter().all(|f| f.fct.is_some()));
        let receiver = r.ports.iter().find(|p| p.port == PortRef { node: 0, peer: 5 }).unwrap();
        assert!(receiver.paused_time > 0, "switch 5 must pause host 0");
        // a held control queue does not make the NIC look again and again
        // (about 10 events per data packet here, ACK and PFC included)
        let per_packet = r.engine.events as f64 / r.engine.data_packets as f64;
        assert!(per_packet < 12.0, "{per_packet:.1} events per data packet");
    }
}
