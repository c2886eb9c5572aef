//! Bolt in a small network: a 100 Gbps dumbbell (two switches, 1 us links,
//! base RTT 6.25 us, BDP 78 KB), senders 0..n, receivers n..2n, the bottleneck
//! is the first switch's egress to the second.
//!
//! Bolt's design point (§3): packet conservation with per-packet decisions keeps
//! the bottleneck queue near zero (SRC below CC_THRESH = 1 MTU) while SM/PRU and
//! the per-RTT additive increase keep the link full.

use crate::support::*;
use ccsim_cc::bolt::src_overhead;
use ccsim_core::results::jain;
use ccsim_core::sim::{run, SimOptions};
use ccsim_core::time::{NS, US};
use ccsim_core::{FlowSpec, NetConfig, PortRef, RunResult, Time};
use ccsim_scenario::topo::Tier;

/// Wire bytes of a full data packet: 1000 payload + 48 header + 9 Bolt header.
const MTU: f64 = 1057.0;

struct Setup<'a> {
    params: &'a str,
    n: u32,
    gap: Time,
    size: u64,
    end: Option<Time>,
}

fn go(s: &Setup) -> RunResult {
    let d = Dumbbell { seed: 1, stop_at: s.end, ..Dumbbell::new(G100, US / 10) };
    d.run(make_scheme("bolt", s.params).as_ref(), &staggered(s.n, s.size, s.gap))
}

/// Per-flow goodput (bits/s) between t0 and t1 (the first samples at or after
/// t0 and t1, the last one past the end of the trace).
fn shares(r: &RunResult, t0: Time, t1: Time) -> Vec<f64> {
    goodputs(r, t0, t1, Sample::AtOrAfterOrLast)
}

fn counter(r: &RunResult, name: &str) -> u64 {
    r.scheme_counters.iter().find(|(k, _)| k == name).map_or(0, |x| x.1)
}

#[test]
fn two_flows_keep_the_queue_below_a_few_mtu_at_full_utilization() {
    let end = 1000 * US;
    let r = go(&Setup { params: "", n: 2, gap: 100 * US, size: 100_000_000, end: Some(end) });
    assert_eq!(r.drops, 0);
    let (t0, t1) = (300 * US, end);
    let qw = queue_in(&r, t0..t1);
    let uw = util_in(&r, t0..t1);
    let sh = shares(&r, t0, t1);
    let fair = G100 as f64 * 0.96 / 2.0;
    let src_pct = 100.0 * src_overhead(&r, G100 as f64, end);
    println!(
        "queue avg {:.0} B p99 {:.0} B max {:.0} B; util {:.4}; shares {:?} Gbps; jain {:.4}; SRC {} pkts = {:.3}% of 100G",
        mean(&qw),
        percentile_nearest_rank(&qw, 99.0),
        percentile_nearest_rank(&qw, 100.0),
        mean(&uw),
        sh.iter().map(|x| x / 1e9).collect::<Vec<_>>(),
        jain(&sh),
        counter(&r, "bolt_src_packets"),
        src_pct
    );
    // convergence: the earliest t from which every 20-us window (10-us grid, to the
    // end of the run) has both shares within 15% of their mean
    let ok = |t: Time| {
        let x = shares(&r, t, t + 20 * US);
        let m = (x[0] + x[1]) / 2.0;
        x.iter().all(|v| (v - m).abs() / m < 0.15)
    };
    let conv = converged_at(100 * US, end, 20 * US, 10 * US, |t, _| ok(t)).expect("the last 20-us window converged");
    println!("converged {} us after the join", (conv - 100 * US) / US);
    assert!(conv <= 300 * US, "converged at {} us", conv / US);
    assert!(mean(&uw) > 0.95, "utilization {}", mean(&uw));
    // the queue hovers at CC_THRESH (3 MTU by default: BoltConfig::cc_thresh_mtus)
    assert!(mean(&qw) < 4.0 * MTU, "average queue {}", mean(&qw));
    assert!(percentile_nearest_rank(&qw, 99.0) < 7.0 * MTU, "p99 queue {}", percentile_nearest_rank(&qw, 99.0));
    assert!(jain(&sh) >= 0.98, "jain {}", jain(&sh));
    for x in &sh {
        assert!((x - fair).abs() / fair < 0.15, "share {x} vs fair {fair}");
    }
    // Appendix A, eq. 3: SRC bandwidth ~ C x p_src / p_data x rtt_src / rtt =
    // 100G x 79/1057 x ~0.35 (SRC from the first switch, 1 hop of 3) ~ 2.6% in
    // steady state, here with a queue at CC_THRESH about half of the time; plus
    // the burst when the second flow joins at line rate.
    assert!(counter(&r, "bolt_src_packets") > 0);
    assert!((1.0..6.0).contains(&src_pct), "SRC bandwidth {src_pct}%");
}

#[test]
fn finite_flows_all_finish_without_drops() {
    let r = go(&Setup { params: "", n: 4, gap: 20 * US, size: 1_000_000, end: None });
    check_clean(&r);
    // 4 MB through one 100G link: 320 us at line rate; Bolt loses little
    let last = r.flows.iter().map(|f| f.start + f.fct.unwrap()).max().unwrap();
    println!("last completion {} us", last / US);
    assert!(last < 380 * US, "last completion at {} us", last / US);
}

#[test]
fn non_bolt_switches_send_no_src_and_brownfield_controls_their_queue() {
    // n = 2: the two switches are nodes 4 and 5
    let run_with = |params: &str| {
        let r = go(&Setup { params, n: 2, gap: 100 * US, size: 100_000_000, end: Some(600 * US) });
        let qw = mean_queue(&r, 300 * US..600 * US);
        let uw = mean_util(&r, 300 * US..600 * US);
        println!("{params}: queue {qw:.0} B util {uw:.3} SRC {}", counter(&r, "bolt_src_packets"));
        (counter(&r, "bolt_src_packets"), qw, uw)
    };
    let (src, q_bolt, _) = run_with("");
    assert!(src > 0);
    assert!(q_bolt < 4.0 * MTU, "queue {q_bolt} (CC_THRESH 3 MTU)");
    // legacy switches: no SRC, the additive increase pushes both windows to
    // their 1-BDP cap and a BDP (~78 KB) stands in the bottleneck queue
    let (src, q_legacy, u) = run_with("non_bolt_switches = [4, 5]");
    assert_eq!(src, 0);
    assert!(q_legacy > 50.0 * MTU, "queue {q_legacy}");
    assert!(u > 0.99);
    // brownfield: an end-to-end scheme (here a fixed window of half a BDP per
    // flow) beside Bolt bounds the window, so the legacy queue goes away
    let (src, q_brown, u) =
        run_with("non_bolt_switches = [4, 5]\nbrownfield = \"none\"\nbrownfield_params = \"window_bdps = 0.5\"");
    assert_eq!(src, 0);
    assert!(q_brown < 0.2 * q_legacy, "queue {q_brown} vs {q_legacy}");
    assert!(u > 0.9);
}

/// The paper's micro-benchmark dumbbell (8 us base RTT: 1.3 us links), two
/// flows: `flows` = (size, start), flow i from host i to host 2 + i.
fn paper_dumbbell(scheme: &str, params: &str, flows: &[(u64, Time)], stop: Time) -> RunResult {
    let d = Dumbbell { link: Tier::new(G100, 1300 * NS), seed: 1, stop_at: Some(stop), ..Dumbbell::new(G100, US / 2) };
    d.run(make_scheme(scheme, params).as_ref(), flows)
}

/// 100G x 8 us.
const BDP: f64 = 100_000.0;

#[test]
fn sub_rtt_reaction_to_a_flow_arrival_bounds_the_queue_below_a_bdp() {
    // Fig. 10: flow 1 joins flow 0 at line rate at 100 us. An RTT-based scheme
    // sees its first feedback after an RTT, by which time a BDP is queued; Bolt's
    // SRC comes from the switch and cuts the windows earlier.
    let flows = [(100_000_000, 0), (100_000_000, 100 * US)];
    let peak_and_drain = |r: &RunResult| {
        let w = points_in(&r.queues[0], 100 * US..);
        let (tp, peak) = w.iter().cloned().fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
        let drained = w.iter().find(|(t, v)| *t > tp && *v < MTU).map(|x| x.0 - 100 * US);
        (peak, drained)
    };
    let r = paper_dumbbell("bolt", "", &flows, 300 * US);
    let (peak, drained) = peak_and_drain(&r);
    let h = paper_dumbbell("hpcc", "", &flows, 300 * US);
    let (hpeak, _) = peak_and_drain(&h);
    println!("bolt peak {peak} B drained after {drained:?} ps; hpcc peak {hpeak} B");
    // the paper's values: claims fig10-bolt-drain, fig10-hpcc-peak-bdp, fig10-peak-order
    // (experiments/bolt/fig6-arrival.toml; results in docs/reproduction/bolt/report.md)
    assert!(peak < 0.8 * BDP, "Bolt peak queue {peak}");
    assert!(hpeak > 0.9 * BDP, "HPCC peak queue {hpeak} (the contrast)");
    let d = drained.expect("queue never drained");
    assert!(d < 4 * 8 * US, "drained after {} us", d / US);
    assert_eq!(r.drops, 0);
}

#[test]
fn pru_and_sm_refill_the_link_after_a_flow_completes() {
    // Fig. 11/12: flow 1 (1.25 MB) ends at ~200 us; capacity lost (in us at line
    // rate) at the bottleneck from 150 us to 600 us.
    let flows = [(100_000_000, 0), (1_250_000, 0)];
    let lost = |scheme: &str, params: &str| {
        let r = paper_dumbbell(scheme, params, &flows, 600 * US);
        assert!(r.flows[1].fct.is_some());
        // net of packet quantization (a full link's 0.5-us samples read 0.85 or 1.01)
        let l: f64 = util_in(&r, 150 * US..).iter().map(|&v| (1.0 - v) * 0.5).sum();
        println!("{scheme} {params:?}: lost {l:.1} us");
        l
    };
    let bolt = lost("bolt", "");
    let sm_only = lost("bolt", "pru = false");
    let ai_only = lost("bolt", "pru = false\nsm = false");
    let hpcc = lost("hpcc", "");
    // paper: Bolt refills in ~1 us, HPCC ~20 us: claims fig11-bolt-refill, fig11-hpcc-refill,
    // fig11-lost (experiments/bolt/fig11-completion.toml; docs/reproduction/bolt/report.md)
    assert!(bolt < 3.0, "bolt lost {bolt} us");
    assert!(bolt < 0.2 * hpcc, "bolt {bolt} vs hpcc {hpcc}");
    assert!(sm_only < 0.3 * ai_only, "SM {sm_only} vs AI only {ai_only}");
    assert!(bolt <= sm_only * 1.1, "PRU does not hurt: {bolt} vs {sm_only}");
}

#[test]
fn two_congested_hops_parking_lot() {
    // Hosts A=0, B=1, C=2, sinks X=3, Y=4; switches s0=5, s1=6, s2=7.
    // A -> X crosses s0 -> s1 -> s2; C -> Y shares s0 -> s1; B -> X shares s1 -> s2.
    // Each of A's packets may find both hops congested; DEC lets only the first
    // send an SRC, and A's cuts still relieve both (§3.1). Max-min fair would be
    // 50/50/50 Gbps; Bolt does not claim it: A is cut at both hops and gets less
    // than even the proportionally fair third (run with --nocapture for the
    // shares), so only the queues, the utilization of both hops, no starvation and
    // the SRC bound are asserted.
    use ccsim_core::{LinkSpec, NodeKind, Topology};
    let mut nodes = vec![NodeKind::Host; 5];
    nodes.extend([NodeKind::Switch; 3]);
    let l = |a, b| LinkSpec { a, b, rate_bps: G100, delay: US, back: None };
    let topo = Topology {
        nodes,
        links: vec![l(0, 5), l(2, 5), l(5, 6), l(1, 6), l(4, 6), l(6, 7), l(7, 3)],
        name: "parking-lot".into(),
    };
    let flows: Vec<FlowSpec> = [(0, 3), (1, 3), (2, 4)]
        .iter()
        .enumerate()
        .map(|(i, &(s, d))| FlowSpec { id: i as u32, src: s, dst: d, size: 100_000_000, start: 0, prio: 0 })
        .collect();
    let hops = [PortRef { node: 5, peer: 6 }, PortRef { node: 6, peer: 7 }];
    let end = 1000 * US;
    let opts = SimOptions { seed: 1, stop_at: Some(end), ..traced(US / 10, &hops, 3) };
    let scheme = ccsim_cc::make("bolt", None).unwrap();
    let r = run(&topo, &NetConfig::default(), &flows, scheme.as_ref(), &opts, None).unwrap();
    assert_eq!(r.drops, 0);
    let (t0, t1) = (300 * US, end);
    let sh = shares(&r, t0, t1);
    for i in 0..2 {
        let q = mean(&values_in(&r.queues[i].t, &r.queues[i].v, t0..t1));
        let u = mean(&values_in(&r.utilization[i].t, &r.utilization[i].v, t0..t1));
        println!("hop {i}: queue {q:.0} B util {u:.3}");
        assert!(q < 3.0 * MTU, "hop {i} queue {q}");
        assert!(u > 0.9, "hop {i} utilization {u}");
    }
    println!(
        "shares {:?} Gbps, SRC {} for {} data packets",
        sh.iter().map(|x| x / 1e9).collect::<Vec<_>>(),
        counter(&r, "bolt_src_packets"),
        r.engine.data_packets
    );
    assert!(sh[0] > 0.15 * G100 as f64, "the 2-hop flow starves: {}", sh[0]);
    assert!((sh[1] - sh[2]).abs() / sh[1] < 0.1, "the 1-hop flows differ: {sh:?}");
    assert!(counter(&r, "bolt_src_packets") <= r.engine.data_packets);
}

#[test]
fn supply_matching_refills_the_link_after_a_reroute() {
    // Fig. 12 (experiments/bolt/fig12-reroute.toml): flow 1 shares the bottleneck
    // A (4) -> B (5) with flow 0 until 200 us, when its link D (6) - A fails and
    // D - E (7), which avoids the bottleneck, comes up. No LAST hint: only SM (or
    // the per-RTT additive increase) refills the link for flow 0.
    use ccsim_core::config::{LinkAction, LinkEvent};
    use ccsim_core::sim::TraceConfig;
    use ccsim_core::units::Dur;
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/bolt/topologies/bolt-reroute.txt");
    let topo = ccsim_scenario::hpcc::read_topology(&path).unwrap();
    let mut net = NetConfig::default();
    let e = |at: Time, a, b, action| LinkEvent { at: Dur(at), a, b, action };
    net.link_events =
        vec![e(0, 6, 7, LinkAction::Down), e(200 * US, 6, 4, LinkAction::Down), e(200 * US, 6, 7, LinkAction::Up)];
    let flows = [
        FlowSpec { id: 0, src: 0, dst: 2, size: 100_000_000, start: 0, prio: 0 },
        FlowSpec { id: 1, src: 1, dst: 3, size: 100_000_000, start: 0, prio: 0 },
    ];
    let bott = PortRef { node: 4, peer: 5 };
    let run_with = |params: &str| {
        let opts = SimOptions {
            seed: 1,
            stop_at: Some(500 * US),
            trace: TraceConfig { interval: US / 2, util_ports: vec![bott], flows: vec![0, 1], ..Default::default() },
            ..Default::default()
        };
        run(&topo, &net, &flows, make_scheme("bolt", params).as_ref(), &opts, None).unwrap()
    };
    // capacity lost on the bottleneck after the reroute, in us at line rate (net:
    // a 0.5-us sample of a full link holds 5 or 6 packets, 0.85 or 1.01)
    let lost = |r: &RunResult| -> f64 { util_in(r, 200 * US..).iter().map(|&v| (1.0 - v) * 0.5).sum() };
    let sm = run_with("");
    let ai = run_with("sm = false");
    // before the reroute both flows crossed the bottleneck, after it only flow 0
    let sent_through =
        |r: &RunResult| r.ports.iter().find(|p| p.port == PortRef { node: 6, peer: 7 }).unwrap().tx_data_bytes;
    assert!(sent_through(&sm) > 0, "flow 1 moved to D - E");
    assert!(sm.drops > 0, "packets on the failed link are lost");
    let (l_sm, l_ai) = (lost(&sm), lost(&ai));
    println!("lost after the reroute: SM {l_sm:.1} us, AI only {l_ai:.1} us");
    // the paper's values: claims fig12-reroute, fig12-link-full, fig12-lost
    // (experiments/bolt/fig12-reroute.toml; results in docs/reproduction/bolt/report.md)
    assert!(l_sm < 15.0, "SM lost {l_sm} us");
    assert!(l_ai > 3.0 * l_sm, "without SM {l_ai} us vs {l_sm} us");
    // flow 0's cwnd reaches a lone flow's BDP (95 KB of payload) within ~8 RTTs with SM, not without
    let cwnd_at = |r: &RunResult, t: Time| {
        let tr = &r.flow_traces[0];
        tr.window[tr.t.partition_point(|&x| x < t)]
    };
    assert!(cwnd_at(&sm, 270 * US) > 95_000.0, "{}", cwnd_at(&sm, 270 * US));
    assert!(cwnd_at(&ai, 270 * US) < 70_000.0, "{}", cwnd_at(&ai, 270 * US));
}

#[test]
fn an_incast_sends_at_most_one_src_per_data_packet_and_src_bandwidth_scales_with_packet_sizes() {
    // Table 2's SRC bandwidth: under a standing incast queue almost every data
    // packet meets a congested egress and triggers exactly one SRC, so SRC
    // bandwidth ~ C x p_src / p_data (Appendix A, eq. 3, congested fraction ~1):
    // 100G x 79 / 1057 = 7.5 Gbps with ccsim's defaults, 100G x 45 / 5000 =
    // 0.9 Gbps with the ns-3 incast script's sizes (paper: 0.77 Gbps).
    let n = 20;
    let topo = ccsim_scenario::topo::star(n + 1, Tier::new(G100, 1200 * NS)).unwrap();
    let flows: Vec<FlowSpec> =
        (0..3 * n).map(|i| FlowSpec { id: i, src: i % n, dst: n, size: 50_000, start: 0, prio: 0 }).collect();
    let base = NetConfig { buffer: ccsim_core::units::Bytes(100_000_000), ..Default::default() };
    let big = NetConfig { mtu: ccsim_core::units::Bytes(4952), ..base.clone() };
    let measure = |net: &NetConfig, params: &str| {
        let r = run(&topo, net, &flows, make_scheme("bolt", params).as_ref(), &SimOptions::default(), None).unwrap();
        assert!(r.flows.iter().all(|f| f.fct.is_some()));
        let last = r.flows.iter().map(|f| f.start + f.fct.unwrap()).max().unwrap();
        let src = counter(&r, "bolt_src_packets");
        let ratio = src as f64 / r.engine.data_packets as f64;
        let gbps = src_overhead(&r, G100 as f64, last) * 100.0;
        println!("{params:?} mtu {}: {src} SRC / {} data = {ratio:.3}; {gbps:.2} Gbps", net.mtu, r.engine.data_packets);
        (ratio, gbps)
    };
    let (ratio, gbps) = measure(&base, "");
    assert!(ratio <= 1.0 && ratio > 0.9, "SRC per data packet {ratio}");
    let eq3 = 100.0 * 79.0 / 1057.0;
    assert!((gbps - eq3 * ratio).abs() < 0.1 * eq3, "{gbps} Gbps vs eq. 3 {eq3}");
    let (ratio, gbps) = measure(&big, "src_bytes = 45");
    assert!(ratio <= 1.0 && ratio > 0.8, "SRC per data packet {ratio}");
    assert!(gbps < 1.0 && gbps > 0.6, "{gbps} Gbps with 5000 B packets and 45 B SRC");
}
