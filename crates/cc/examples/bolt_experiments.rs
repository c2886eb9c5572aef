//! Bolt's micro-benchmarks and incast (NSDI'23 §5.1, §5.4), measured from traces
//! and printed beside the paper's numbers.
//!
//!   cargo run --release -p ccsim-cc --example bolt_experiments
//!   cargo run --release -p ccsim-cc --example bolt_experiments -- --schemes bolt,hpcc,swift --full
//!
//! `--schemes` picks the schemes compared in Fig. 10/11 and Table 2 (any registered
//! names, each with its default parameters; default bolt,hpcc: Swift lives on
//! another branch); `--full` runs Table 2 at the paper's 5000 flows (default: 500,
//! 50 senders x 10 flows, a few seconds); `--only fig10,fig11,fig12,table1,table2`
//! runs a subset; `--bolt "k = v; ..."` adds Bolt parameters to every Bolt run.
//!
//! The same setups are in scenarios/bolt-*.toml for `ccsim compare`.
//!
//! 1. Fig. 10, flow arrival: 100G dumbbell, 8 us base RTT (1.3 us links), flow 1
//!    joins flow 0 at 100 us. Peak bottleneck queue, time from the join until the
//!    queue is back under 1 MTU, lowest 1-us utilization in [100, 400] us.
//!    Paper: Bolt drains in < 2 RTT (16 us) with no utilization dip; HPCC reaches
//!    ~1 BDP (100 KB) and dips to 75% utilization after draining.
//! 2. Fig. 11, flow completion: same dumbbell, both flows start at 0, flow 1
//!    (1.25 MB) completes at ~200 us. Under-utilization after the completion: time
//!    from the first to the last 0.5-us sample under 95% utilization in
//!    [t_c - 20 us, t_c + 500 us] ("time to full utilization") and the capacity
//!    lost in that window (in us at line rate). Paper: Bolt ~1 us, HPCC ~20 us,
//!    Swift > 370 us.
//! 3. Table 1: star, 100G, 5 us base RTT (1.2 us links; also with the ns-3 star
//!    script's 5000 B MTU and 1048 ns links), 5 senders x 500 KB to one
//!    receiver starting 15 us apart; mean bottleneck utilization between the first
//!    and the last completion (as seen at the bottleneck: the last byte of a flow
//!    leaving it) with PRU and SM on/off. Paper: PRU off/SM off 90.46,
//!    PRU off/SM on 92.41, PRU on/SM off 97.38, both on 98.54 %.
//! 4. Fig. 12, reroute: the two flows of (2), both long, on a fabric where
//!    flow 1 enters the bottleneck switch from another switch D
//!    (scenarios/topologies/bolt-reroute.txt); at 200 us D's link to the
//!    bottleneck switch fails and D's link to E, which reaches the receivers'
//!    switch without the bottleneck, comes up (core link events). Flow 1 leaves
//!    without LAST hints, so PRU cannot react; SM on vs off. Measured: the time
//!    after which every 4-us average utilization of the bottleneck is >= 95%,
//!    and the time until flow 0's cwnd reaches a lone flow's BDP (100G x 8.05 us,
//!    in payload bytes: 95 KB). Paper: cwnd back in 23 us with SM; > 33 RTTs
//!    (> 264 us) without.
//! 5. Table 2: star of 51 hosts, 50 senders x 100 flows (100 KB each, our choice:
//!    the paper gives no size) to host 50 at t = 0. p99 bottleneck queue over the
//!    incast (sampled every 1 us), p99 FCT slowdown, SRC bandwidth over the
//!    incast; 1 GB switch buffer so that PFC and the buffer do not cap the queue. Paper: p99 queue 13.72 (Bolt) / 23.54 (Swift) / 23.07 (HPCC) "msec",
//!    p99 slowdown 5000 / 7017 / 5037, SRC 0.77 Gbps.
//!
//! Measured on this branch (Bolt defaults, CC_THRESH 3 MTU as the ns-3 scripts
//! behind the paper; HPCC defaults). "lost" is the capacity lost at the
//! bottleneck in [t_c - 10 us, t_c + 500 us], net of packet quantization.
//!
//! | experiment | Bolt | HPCC | paper (Bolt / HPCC / Swift) |
//! |---|---|---|---|
//! | Fig. 10 peak queue | 65.5 KB | 105.7 KB | < 1 BDP / ~1 BDP (100 KB) |
//! | Fig. 10 time from the join to a queue < 1 MTU / <= 3 MTU (CC_THRESH) | 24 / 17.5 us | 26 / 25 us | < 16 us / ~2 RTT |
//! | Fig. 10 lowest 1-us utilization | 93.0% | 34.9% | no dip / ~75% |
//! | Fig. 11 time to full utilization (4-us avg) | 8 us | 50.5 us | ~1 us / ~20 us / > 370 us |
//! | Fig. 11 capacity lost | 1.2 us | 46.7 us | |
//! | Fig. 12 reroute, SM on / off: link full (4-us avg >= 95%) after | 40 us / 330 us | | |
//! | Fig. 12 reroute, SM on / off: capacity lost | 6.5 us / 77.7 us | | |
//! | Fig. 12 reroute, SM on / off: cwnd back to BDP after | 51.5 us / 344.5 us | | 23 us / > 264 us (33 RTTs) |
//! | Table 1 PRU off/SM off, SM on, PRU on, both (1000 B payload) | 83.9 / 90.0 / 90.5 / 92.0 % | | 90.46 / 92.41 / 97.38 / 98.54 % |
//! | Table 1, same, ns-3 star sizes (5000 B MTU, 1048 ns links) | 100 / 100 / 100 / 100 % | | 90.46 / 92.41 / 97.38 / 98.54 % |
//! | Table 2 p99 queue (--full) | 13.27 ms | 26.16 ms | 13.72 / 23.07 / 23.54 ms |
//! | Table 2 p99 FCT / line-rate time (--full) | 5000 | 5141 | 5000 / 5037 / 7017 |
//! | Table 2 SRC bandwidth (--full) | 7.47 Gbps | | 0.77 Gbps |
//! | Table 2 SRC per data packet; SRC bandwidth with the ns-3 script's 5000 B MTU and 45 B SRC | 1.00; 0.93 Gbps | | 0.77 Gbps (<= 0.9 by eq. 3) |
//!
//! With `--bolt "cc_thresh_mtus = 1"` (the paper's text) Fig. 11 takes 36.5 us,
//! Fig. 12 with SM 36 us (cwnd 42 us), Table 1 80.7 / 87.1 / 91.4 / 92.0 %.
//!
//! Why Fig. 12 (SM) takes 51.5 us, not 23: the switch rule is the ns-3 one
//! (Algorithm 3; `PfifoBoltQueueDisc::CalculateCurrentlyAvailableBw`, token
//! capped at `MaxInstAvailLoad`, which `bolt-pru-benchmarks.cc` sets to the
//! MTU). In the first RTT after the reroute flow 0's packets still arrive
//! spaced by flow 1's old slots (share 56%: a gap of 0.78 packet each), so every
//! second packet earns a token (the cap drops the rest): cwnd 54.6 -> 83.6 KB by
//! 216 us. After that the lone window-limited flow sends line-rate trains with
//! one idle gap per RTT (the 1-us utilization dips to 0.17-0.34 every 8 us under
//! `DUMP`), and a gap of any length earns one MTU: SM adds ~1-2 packets per
//! RTT, like AI, for the last 11 KB. Measured sensitivity: `sm_cap_mtus` 2 ->
//! 27 us, 8 -> 17.5 us; the paper's text and every ns-3 script cap at one MTU,
//! so the default stays. Neither ns-3 difference named in review changes this:
//! its token is also updated by ACKs, but per queue disc, i.e. per egress, and
//! no ACK leaves by the bottleneck egress here or at Table 1's receiver port;
//! its MaxCwnd of 3.7 BDP (`bolt-pru-benchmarks.cc`) gives the same 51.5 us,
//! since the flow's cwnd is below one BDP all through the ramp.
//!
//! Why Table 1 differs: no ns-3 script in the public repository runs 5 flows
//! starting 15 us apart; the closest, `bolt-star-topo-incast.cc` (500 KB
//! messages by default, `newMsgTime`, measurement window), uses a 5000 B MTU,
//! a 62420 B BDP, maxCwnd = BDP, CC_THRESH 10 KB and a one-MTU SM cap. With
//! those sizes a flow's share of the BDP (12.5 packets / 5 flows) is no larger
//! than the standing queue at CC_THRESH (2 + 1 packets), so a completion
//! never empties the link: 100% with or without PRU and SM. With 1000 B
//! payloads (62 packets per BDP) the loss comes from the last 25 us, when the
//! remaining flows (completion order 0, 4, 2, 3, 1: the later starters keep
//! larger windows) are in their last window, where they neither ask for nor
//! get tokens, and the last one runs alone at a 23-42 KB window (`DUMP1=100011`).
//! PRU + SM add 8.0 points over neither (paper: 8.1), but the baseline is 83.9%
//! (paper 90.46%). With MaxCwnd 3.7 BDP the 5000 B star gives 94.0 / 96.6 /
//! 96.4 / 97.0 %; with `src_q_offset_mtus = 1` (ns-3's queue in SRCs) 94.9 /
//! 96.8 / 94.9 / 96.8 % (5000 B) and 89.3 / 91.4 / 89.3 / 91.8 % (1000 B).

use ccsim_cc::bolt::src_overhead;
use ccsim_core::results::Stats;
use ccsim_core::sim::{run, SimOptions, TraceConfig};
use ccsim_core::{FlowSpec, NetConfig, PortRef, RunResult, Time};
use ccsim_scenario::topo::{dumbbell, star, Tier};

const G100: u64 = 100_000_000_000;
const NS: Time = 1_000;
const US: Time = 1_000_000;
/// Wire size of a full Bolt data packet (1000 + 48 + 9).
const MTU: f64 = 1057.0;

fn us(t: Time) -> f64 {
    t as f64 / US as f64
}

/// Extra Bolt parameters for every Bolt run (`--bolt "key = value; ..."`).
static BOLT_BASE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn make(name: &str, params: &str) -> Box<dyn ccsim_core::Scheme> {
    let mut text = params.to_string();
    if name == "bolt" {
        text = format!("{}\n{}", BOLT_BASE.get().map_or("", |s| s.as_str()), params);
    }
    let p: toml::Value = toml::from_str(&text).unwrap();
    ccsim_cc::make(name, Some(&p)).unwrap_or_else(|e| panic!("{e}"))
}

fn flow(id: u32, src: u32, dst: u32, size: u64, start: Time) -> FlowSpec {
    FlowSpec { id, src, dst, size, start, prio: 0 }
}

/// Dumbbell with 2 senders (0, 1), receivers 2, 3; bottleneck 4 -> 5; 1.3 us links.
fn two_flow_dumbbell(scheme: &dyn ccsim_core::Scheme, flows: &[FlowSpec], stop: Time, sample: Time) -> RunResult {
    let topo = dumbbell(2, Tier::new(G100, 1300 * NS), Tier::new(G100, 1300 * NS), 2).unwrap();
    let bott = PortRef { node: 4, peer: 5 };
    let opts = SimOptions {
        seed: 1,
        stop_at: Some(stop),
        trace: TraceConfig {
            interval: sample,
            queue_ports: vec![bott],
            util_ports: vec![bott],
            flows: vec![0, 1],
            ..Default::default()
        },
        ..Default::default()
    };
    run(&topo, &NetConfig::default(), flows, scheme, &opts, None).unwrap()
}

fn in_window(t: &[Time], v: &[f64], t0: Time, t1: Time) -> Vec<(Time, f64)> {
    t.iter().zip(v).filter(|(&x, _)| x >= t0 && x <= t1).map(|(&x, &y)| (x, y)).collect()
}

/// Fig. 10.
fn flow_arrival(schemes: &[String]) {
    println!("\n== Fig. 10: flow arrival (100G dumbbell, 8 us RTT, 2nd flow joins at 100 us)");
    println!(
        "{:<8} {:>14} {:>18} {:>18} {:>18} {:>10}",
        "scheme", "peak queue KB", "to < 1 MTU us", "to <= 3 MTU us", "min util % (1us)", "SRC %"
    );
    for s in schemes {
        let sch = make(s, "");
        let flows = [flow(0, 0, 2, 100_000_000, 0), flow(1, 1, 3, 100_000_000, 100 * US)];
        let r = two_flow_dumbbell(sch.as_ref(), &flows, 400 * US, US / 2);
        if std::env::var("DUMP").is_ok() {
            dump(&r, 95 * US, 140 * US);
        }
        let q = &r.queues[0];
        let w = in_window(&q.t, &q.v, 100 * US, 400 * US);
        let (tp, peak) = w.iter().cloned().fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
        let drained = w.iter().find(|(t, v)| *t > tp && *v < MTU).map(|(t, _)| *t);
        // back at CC_THRESH (3 MTU by default), the queue Bolt keeps in steady state
        let at_thresh = w.iter().find(|(t, v)| *t > tp && *v <= 3.0 * MTU).map(|(t, _)| *t);
        let u = &r.utilization[0];
        let uw: Vec<f64> = in_window(&u.t, &u.v, 101 * US, 400 * US).iter().map(|x| x.1).collect();
        // 1-us utilization from 0.5-us samples
        let min_u = uw.chunks(2).map(|c| c.iter().sum::<f64>() / c.len() as f64).fold(f64::INFINITY, f64::min);
        println!(
            "{:<8} {:>14.1} {:>18} {:>18} {:>18.1} {:>10.2}",
            s,
            peak / 1000.0,
            drained.map_or("never".into(), |t| format!("{:.1}", us(t - 100 * US))),
            at_thresh.map_or("never".into(), |t| format!("{:.1}", us(t - 100 * US))),
            100.0 * min_u,
            100.0 * src_overhead(&r, G100 as f64, 400 * US)
        );
    }
    println!("paper:   Bolt drains in < 2 RTT (< 16 us), no dip; HPCC peak ~1 BDP (100 KB), dip to ~75%");
}

/// Under-utilization around t_c from 4-us moving averages of the utilization:
/// (time from the first average under 95% in [t_c - 10 us, t_c + 500 us] to the
/// next average back at >= 95%, capacity lost in that window in us at line rate).
fn refill(r: &RunResult, tc: Time) -> (f64, f64) {
    let u = &r.utilization[0];
    let w = in_window(&u.t, &u.v, tc.saturating_sub(10 * US), tc + 500 * US);
    let dt = if u.t.len() > 1 { u.t[1] - u.t[0] } else { 1 };
    let k = ((4 * US) / dt).max(1) as usize;
    let avg: Vec<(Time, f64)> =
        w.windows(k).map(|c| (c[c.len() - 1].0, c.iter().map(|x| x.1).sum::<f64>() / k as f64)).collect();
    let span = match avg.iter().position(|x| x.1 < 0.95) {
        None => 0.0,
        Some(i) => match avg[i..].iter().find(|x| x.1 >= 0.95) {
            Some(b) => us(b.0 - avg[i].0),
            None => us(avg[avg.len() - 1].0 - avg[i].0),
        },
    };
    // net of the samples' packet quantization: a 0.5-us sample holds 5 or 6
    // packets (0.85 or 1.01), so clipping at 1 would count a full link as lossy
    let lost = w.iter().map(|x| (1.0 - x.1) * us(dt)).sum::<f64>().max(0.0);
    (span, lost)
}

/// Time from `tc` to the end of the last 4-us window (of 0.5-us samples) in
/// [tc, tc + 500 us] whose average utilization is under 95%: from then on the
/// link stays full.
fn settle(r: &RunResult, tc: Time) -> f64 {
    let u = &r.utilization[0];
    let w = in_window(&u.t, &u.v, tc, tc + 500 * US);
    let dt = if u.t.len() > 1 { u.t[1] - u.t[0] } else { 1 };
    let k = ((4 * US) / dt).max(1) as usize;
    w.windows(k)
        .filter(|c| c.iter().map(|x| x.1).sum::<f64>() / (k as f64) < 0.95)
        .map(|c| us(c[c.len() - 1].0 - tc))
        .fold(0.0, f64::max)
}

fn completion_run(scheme: &dyn ccsim_core::Scheme) -> (RunResult, Time) {
    let flows = [flow(0, 0, 2, 100_000_000, 0), flow(1, 1, 3, 1_250_000, 0)];
    let r = two_flow_dumbbell(scheme, &flows, 800 * US, US / 2);
    let f1 = &r.flows[1];
    let tc = f1.start + f1.fct.expect("flow 1 did not complete");
    (r, tc)
}

/// Fig. 11.
fn flow_completion(schemes: &[String]) {
    println!("\n== Fig. 11: flow completion (flow 1 of 1.25 MB ends at ~200 us; flow 0 stays)");
    println!(
        "{:<22} {:>8} {:>22} {:>14} {:>18}",
        "scheme", "t_c us", "time to full util us", "lost us@100G", "cwnd@t_c+10us KB"
    );
    let row = |label: &str, sch: &dyn ccsim_core::Scheme| {
        let (r, tc) = completion_run(sch);
        if std::env::var("DUMP").is_ok() {
            dump(&r, tc - 20 * US, tc + 60 * US);
        }
        let (span, lost) = refill(&r, tc);
        let tr = &r.flow_traces[0];
        let i = tr.t.partition_point(|&t| t < tc + 10 * US).min(tr.t.len() - 1);
        println!("{:<22} {:>8.1} {:>22.1} {:>14.2} {:>18.1}", label, us(tc), span, lost, tr.window[i] / 1000.0);
    };
    for s in schemes {
        row(s, make(s, "").as_ref());
    }
    println!("paper:   Bolt ~1 us, HPCC ~20 us, Swift > 370 us to full utilization");
}

/// The Fig. 12 fabric (also scenarios/topologies/bolt-reroute.txt): senders 0
/// (on switch A = 4) and 1 (on switch D = 6), receivers 2 and 3 on switch B = 5;
/// bottleneck A -> B. Flow 1 enters A from D; its alternative D - E (7) - B
/// starts down. One-way delay 3.9 us on every host-to-host path (8 us base RTT
/// as in the dumbbell): 1.3 us links, and 0.65 us for 1 - D, D - A and D - E.
fn reroute_topology() -> ccsim_core::Topology {
    use ccsim_core::{LinkSpec, NodeKind};
    let mut nodes = vec![NodeKind::Host; 4];
    nodes.extend([NodeKind::Switch; 4]);
    let l = |a, b, d| LinkSpec { a, b, rate_bps: G100, delay: d };
    let (long, short) = (1300 * NS, 650 * NS);
    let links = vec![
        l(0, 4, long),
        l(1, 6, short),
        l(2, 5, long),
        l(3, 5, long),
        l(4, 5, long),
        l(6, 4, short),
        l(6, 7, short),
        l(7, 5, long),
    ];
    ccsim_core::Topology { nodes, links, name: "bolt reroute".into() }
}

/// Fig. 12: flow 1 shares A -> B with flow 0 until 200 us, when D - A fails and
/// D - E comes up: flow 1 leaves the bottleneck without a LAST hint.
fn reroute() {
    use ccsim_core::config::{LinkAction, LinkEvent};
    use ccsim_core::units::Dur;
    println!("\n== Fig. 12: reroute (flow 1 leaves the bottleneck at 200 us: link D-A down, D-E up)");
    println!(
        "{:<16} {:>22} {:>14} {:>22} {:>14} {:>10}",
        "scheme", "util >= 95% from us", "lost us@100G", "cwnd back to BDP us", "cwnd@200us KB", "drops"
    );
    let topo = reroute_topology();
    let mut net = NetConfig::default();
    let e = |at: Time, a, b, action| LinkEvent { at: Dur(at), a, b, action };
    net.link_events =
        vec![e(0, 6, 7, LinkAction::Down), e(200 * US, 6, 4, LinkAction::Down), e(200 * US, 6, 7, LinkAction::Up)];
    let flows = [flow(0, 0, 2, 100_000_000, 0), flow(1, 1, 3, 100_000_000, 0)];
    let bott = PortRef { node: 4, peer: 5 };
    let tc = 200 * US;
    for (label, params) in [("bolt sm=on", "sm = true"), ("bolt sm=off", "sm = false")] {
        let sch = make("bolt", params);
        let opts = SimOptions {
            seed: 1,
            stop_at: Some(800 * US),
            trace: TraceConfig {
                interval: US / 2,
                queue_ports: vec![bott],
                util_ports: vec![bott],
                flows: vec![0, 1],
                ..Default::default()
            },
            ..Default::default()
        };
        let r = run(&topo, &net, &flows, sch.as_ref(), &opts, None).unwrap();
        if std::env::var("DUMP").is_ok() {
            dump(&r, std::env::var("T0").ok().and_then(|x| x.parse().ok()).unwrap_or(180) * US, 420 * US);
        }
        let (_, lost) = refill(&r, tc);
        let full = settle(&r, tc);
        let tr = &r.flow_traces[0];
        // the cwnd at which a lone flow fills the link: 100 Gbps x flow 0's base
        // RTT (2 x 3.9 us + one 1048-byte packet time per link, as FlowView::bdp)
        // in payload bytes (1000 of every 1057 wire bytes)
        let bdp = G100 as f64 / 8.0 * (2.0 * 3.9e-6 + 3.0 * 1048.0 * 8.0 / G100 as f64) * 1000.0 / MTU;
        let at = |t: Time| tr.window[tr.t.partition_point(|&x| x < t).min(tr.t.len() - 1)];
        let back = tr.t.iter().zip(&tr.window).find(|(&t, &w)| t >= tc && w >= bdp).map(|(&t, _)| us(t - tc));
        println!(
            "{:<16} {:>22.1} {:>14.2} {:>22} {:>14.1} {:>10}",
            label,
            full,
            lost,
            back.map_or("never".into(), |b| format!("{b:.1}")),
            at(tc) / 1000.0,
            r.drops
        );
    }
    println!("paper:   with SM cwnd back in 23 us; without SM > 33 RTTs (> 264 us)");
}

/// Table 1, on two versions of the star: the ns-3 star script's
/// (`scratch/bolt-star-topo.cc`: 5000 B MTU, 1048 ns links, BDP 62420 B for
/// its 5 us RTT; here 4952 B payload + 48 B header) and ccsim's default
/// 1000 B payload with 1.2 us links (also a 5 us RTT).
fn pru_sm() {
    println!("\n== Table 1: star 100G, 5 us RTT, 5 x 500 KB to one receiver, 15 us apart");
    println!(
        "{:<8} {:<8} {:>30} {:>30} {:>10}",
        "PRU", "SM", "util % (5000 B MTU, ns-3 star)", "util % (1000 B payload)", "paper %"
    );
    let bott = PortRef { node: 6, peer: 5 };
    let flows: Vec<FlowSpec> = (0..5).map(|i| flow(i, i, 5, 500_000, i as u64 * 15 * US)).collect();
    let util = |pru: bool, sm: bool, mtu: u64, delay: Time| {
        let topo = star(6, Tier::new(G100, delay)).unwrap();
        let net = NetConfig { mtu: ccsim_core::units::Bytes(mtu), ..Default::default() };
        let sch = make("bolt", &format!("pru = {pru}\nsm = {sm}"));
        let opts = SimOptions {
            seed: 1,
            stop_at: None,
            trace: TraceConfig {
                interval: 100 * NS,
                queue_ports: vec![bott],
                util_ports: vec![bott],
                flows: (0..5).collect(),
                ..Default::default()
            },
            ..Default::default()
        };
        let r = run(&topo, &net, &flows, sch.as_ref(), &opts, None).unwrap();
        // Completions as seen at the bottleneck: the sender learns of one when the
        // ACK of the last packet arrives, which is the last hop's propagation plus
        // the ACK's two hops (link delay + 69 B at 100G each) after the last byte
        // left the bottleneck.
        let back = delay + 2 * (delay + 5520);
        let done: Vec<Time> = r.flows.iter().map(|f| f.start + f.fct.unwrap() - back).collect();
        let (a, b) = (*done.iter().min().unwrap(), *done.iter().max().unwrap());
        let u = &r.utilization[0];
        let w: Vec<f64> = in_window(&u.t, &u.v, a, b).iter().map(|x| x.1).collect();
        if std::env::var("DUMP").is_ok() {
            eprintln!(
                "mtu {mtu} pru {pru} sm {sm}: completions at the bottleneck {:?} us",
                done.iter().map(|&t| us(t)).collect::<Vec<_>>()
            );
        }
        if std::env::var("DUMP1").is_ok_and(|v| v == format!("{mtu}{}{}", pru as u8, sm as u8)) {
            // 1-us rows: utilization, queue (KB) and the five cwnds (KB)
            let q = &r.queues[0];
            for k in 0..(u.t.len() / 10) {
                let i = k * 10;
                let uu: f64 = u.v[i..(i + 10).min(u.v.len())].iter().sum::<f64>() / 10.0;
                let c: Vec<String> = r
                    .flow_traces
                    .iter()
                    .map(|tr| {
                        let j = tr.t.partition_point(|&x| x < u.t[i]).min(tr.t.len() - 1);
                        format!("{:6.1}", tr.window[j].min(1e9) / 1000.0)
                    })
                    .collect();
                eprintln!(
                    "{:>7.1} util {:.2} q {:6.1} cwnd {}",
                    us(u.t[i]),
                    uu,
                    q.v[(i + 1).min(q.v.len() - 1)] / 1000.0,
                    c.join(" ")
                );
            }
        }
        100.0 * w.iter().sum::<f64>() / w.len() as f64
    };
    for (pru, sm, paper) in [(false, false, 90.46), (false, true, 92.41), (true, false, 97.38), (true, true, 98.54)] {
        let big = util(pru, sm, 4952, 1048 * NS);
        let small = util(pru, sm, 1000, 1200 * NS);
        println!("{:<8} {:<8} {:>30.2} {:>30.2} {:>10.2}", pru, sm, big, small, paper);
    }
}

/// Table 2.
fn incast(schemes: &[String], per_sender: u32) {
    let n = 50u32;
    let size = 100_000u64;
    println!(
        "\n== Table 2: {}-to-1 incast ({} senders x {} flows of {} KB) on a 100G star",
        n * per_sender,
        n,
        per_sender,
        size / 1000
    );
    println!(
        "{:<8} {:>14} {:>14} {:>14} {:>18} {:>10} {:>14}",
        "scheme", "p99 queue KB", "p99 queue us", "p99 slowdown", "p99 FCT/(size/C)", "SRC Gbps", "last done us"
    );
    let topo = star(n + 1, Tier::new(G100, 1200 * NS)).unwrap();
    let bott = PortRef { node: n + 1, peer: n };
    let mut flows = Vec::new();
    for k in 0..per_sender {
        for s in 0..n {
            flows.push(flow(k * n + s, s, n, size, 0));
        }
    }
    for s in schemes {
        let sch = make(s, "");
        let opts = SimOptions {
            seed: 1,
            stop_at: None,
            trace: TraceConfig {
                interval: US,
                queue_ports: vec![bott],
                util_ports: vec![],
                flows: vec![],
                ..Default::default()
            },
            ..Default::default()
        };
        // A 1 GB switch buffer: the incast's queue is not capped by the default
        // 32 MB buffer and PFC (the paper's queues reach 13-24 "msec", i.e.
        // up to ~300 MB at 100G).
        let net = NetConfig { buffer: ccsim_core::units::Bytes(1_000_000_000), ..Default::default() };
        let r = run(&topo, &net, &flows, sch.as_ref(), &opts, None).unwrap();
        let last = r.flows.iter().filter_map(|f| f.fct.map(|x| f.start + x)).max().unwrap_or(0);
        let q = &r.queues[0];
        let qv: Vec<f64> = in_window(&q.t, &q.v, 0, last).iter().map(|x| x.1).collect();
        let qs = Stats::of(&qv);
        let sd: Vec<f64> = r.flows.iter().filter_map(|f| f.slowdown).collect();
        let ss = Stats::of(&sd);
        // the paper's slowdown: FCT over the time to send the flow at line rate
        // (wire bytes: 100 packets of 1000 B payload + 48 B headers + 9 B Bolt)
        let line_time = (size / 1000) as f64 * MTU * 8.0 / G100 as f64 * 1e12;
        let fct: Vec<f64> = r.flows.iter().filter_map(|f| f.fct.map(|x| x as f64 / line_time)).collect();
        let fs = Stats::of(&fct);
        let src = src_overhead(&r, G100 as f64, last.max(1)) * 100.0;
        println!(
            "{:<8} {:>14.1} {:>14.2} {:>14.0} {:>18.0} {:>10.3} {:>14.0}",
            s,
            qs.p99 / 1000.0,
            qs.p99 * 8.0 / G100 as f64 * 1e6,
            ss.p99,
            fs.p99,
            src,
            us(last)
        );
    }
    println!("paper:   p99 queue 13.72 / 23.54 / 23.07 ms (Bolt / Swift / HPCC); p99 slowdown (FCT / line-rate time) 5000 / 7017 / 5037; SRC 0.77 Gbps");
    println!("         (p99 slowdown is ccsim's: ideal FCT includes the base RTT)");
    if schemes.iter().any(|s| s == "bolt") {
        src_sizes(n, per_sender, size);
    }
}

/// Table 2's SRC bandwidth, explained. Under a standing incast queue nearly
/// every data packet reaches the switch with the queue above CC_THRESH and
/// triggers one SRC, so SRC bandwidth ~ C x p_src / p_data (Appendix A, eq. 3,
/// with the congested fraction ~1). The ns-3 script behind Table 2
/// (`scratch/bolt-star-topo-incast.cc`) uses a 5000 B MTU and counts an SRC
/// as its IPv4 + Bolt headers (20 + 25 B, `BoltHeader::GetSerializedSize`),
/// over the time until the last SRC; ccsim's default data packet is 1057 B and
/// its SRC a 79 B RoCEv2 datagram. Same incast with the script's sizes:
/// 4952 B payload (5000 B with ccsim's 48 B header) and 45 B SRC packets.
fn src_sizes(n: u32, per_sender: u32, size: u64) {
    println!("\n   SRC per data packet, and with the ns-3 script's packet sizes (5000 B MTU, 45 B SRC):");
    println!("{:<34} {:>12} {:>14} {:>12} {:>12}", "variant", "SRC pkts", "data pkts", "SRC / data", "SRC Gbps");
    let topo = star(n + 1, Tier::new(G100, 1200 * NS)).unwrap();
    let mut flows = Vec::new();
    for k in 0..per_sender {
        for s in 0..n {
            flows.push(flow(k * n + s, s, n, size, 0));
        }
    }
    let base = NetConfig { buffer: ccsim_core::units::Bytes(1_000_000_000), ..Default::default() };
    let big = NetConfig { mtu: ccsim_core::units::Bytes(4952), ..base.clone() };
    for (label, net, params) in
        [("bolt (1000 B payload, 79 B SRC)", &base, ""), ("bolt (5000 B MTU, 45 B SRC)", &big, "src_bytes = 45")]
    {
        let sch = make("bolt", params);
        let opts = SimOptions { seed: 1, stop_at: None, trace: TraceConfig::default(), ..Default::default() };
        let r = run(&topo, net, &flows, sch.as_ref(), &opts, None).unwrap();
        let last = r.flows.iter().filter_map(|f| f.fct.map(|x| f.start + x)).max().unwrap_or(1);
        let src = r.scheme_counters.iter().find(|(k, _)| k == "bolt_src_packets").map_or(0, |x| x.1);
        println!(
            "{:<34} {:>12} {:>14} {:>12.3} {:>12.3}",
            label,
            src,
            r.engine.data_packets,
            src as f64 / r.engine.data_packets as f64,
            src_overhead(&r, G100 as f64, last) * 100.0
        );
    }
    println!("paper:   SRC 0.77 Gbps (ns-3: 5000 B MTU, 45 B SRC, 500 KB flows by default)");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut schemes: Vec<String> = vec!["bolt".into(), "hpcc".into()];
    let mut full = false;
    let mut incast_on = true;
    let mut bolt = String::new();
    let mut only: Option<Vec<String>> = None;
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--schemes" => {
                i += 1;
                schemes = args[i].split(',').map(String::from).collect();
            }
            "--full" => full = true,
            "--no-incast" => incast_on = false,
            "--only" => {
                i += 1;
                only = Some(args[i].split(',').map(String::from).collect::<Vec<_>>());
            }
            "--bolt" => {
                i += 1;
                bolt = args[i].replace(';', "\n");
            }
            other => panic!(
                "unknown argument {other}; use --schemes a,b, --full, --no-incast, --only fig10,fig11,fig12,table1,table2, --bolt \"k = v; ...\""
            ),
        }
        i += 1;
    }
    BOLT_BASE.set(bolt).unwrap();
    let on = |name: &str| only.as_ref().is_none_or(|o| o.iter().any(|x| x == name));
    if on("fig10") {
        flow_arrival(&schemes);
    }
    if on("fig11") {
        flow_completion(&schemes);
    }
    if on("fig12") {
        reroute();
    }
    if on("table1") {
        pru_sm();
    }
    if incast_on && on("table2") {
        incast(&schemes, if full { 100 } else { 10 });
    }
}

/// With `DUMP=1` in the environment, Fig. 12 prints its bottleneck
/// utilization, queue and both flows' cwnd every 2 us around the reroute.
fn dump(r: &RunResult, t0: Time, t1: Time) {
    let u = &r.utilization[0];
    let q = &r.queues[0];
    let tr = &r.flow_traces[0];
    for i in 0..u.t.len() {
        if u.t[i] >= t0 && u.t[i] <= t1 && i % std::env::var("DUMP").ok().and_then(|x| x.parse().ok()).unwrap_or(4) == 0
        {
            let j = tr.t.partition_point(|&x| x < u.t[i]).min(tr.t.len() - 1);
            eprintln!(
                "{:>7.1} util {:.2} q {:>7.0} cwnd0 {:>8.0} cwnd1 {:>8.0} acked1 {:>9.0}",
                us(u.t[i]),
                u.v[i],
                q.v[i + 1],
                tr.window[j],
                r.flow_traces[1].window[j],
                r.flow_traces[1].acked[j]
            );
        }
    }
}
