//! PCN on small networks: convergence on a 100G dumbbell (1 us links), the
//! queue after a line-rate start (drains at C x w_min, then sits just above
//! the NP-ECN threshold), NP-ECN in a fabric where PFC pauses a port, and PFC
//! PAUSE frames of PCN vs DCQCN (preset "hpcc") in an incast.

use crate::support::*;
use ccsim_cc::pcn::{Pcn, PcnConfig, PcnSwitch};
use ccsim_core::cc::{FlowView, PortStat, Scheme, SenderCc, SenderCx, SwitchCc, SwitchCx};
use ccsim_core::packet::{Packet, PktKind};
use ccsim_core::results::jain;
use ccsim_core::sim::{run, SimOptions};
use ccsim_core::time::{Time, MS, US};
use ccsim_core::units::Bytes;
use ccsim_core::{FlowSpec, LinkSpec, NetConfig, NodeKind, PortRef, RunResult, Topology};
use ccsim_scenario::topo::{star, Tier};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Goodput (bit/s) of traced flow `i` over [a, b], from its acked bytes (the
/// first samples at or after a and b, the last one past the trace's end).
fn tput(r: &RunResult, i: usize, a: Time, b: Time) -> f64 {
    goodput(&r.flow_traces[i], a, b, Sample::AtOrAfterOrLast)
}

/// `n` flows i -> n+i over a 100G dumbbell with 1 us links, flow i starting at
/// i x `stagger`; traces the bottleneck queue (10 us samples) and every flow.
fn dumbbell_run(n: u32, stagger: Time, size: u64) -> RunResult {
    let r = Dumbbell::new(G100, 10 * US).run(&Pcn::new(PcnConfig::default()), &staggered(n, size, stagger));
    check_clean(&r);
    r
}

/// First time from which every 1 ms window up to `end` has all flows within
/// `tol` of the fair share.
fn convergence_time(r: &RunResult, n: usize, from: Time, end: Time, tol: f64) -> Option<Time> {
    let fair = GOODPUT_100G / n as f64;
    settle_time(from, end, MS, |a, b| (0..n).all(|i| (tput(r, i, a, b) / fair - 1.0).abs() <= tol))
}

#[test]
fn two_flows_converge_and_the_start_queue_drains_at_c_times_w_min() {
    // Flow 1 joins 100 us after flow 0; both start at line rate.
    let r = dumbbell_run(2, 100 * US, 70_000_000);
    let fair = GOODPUT_100G / 2.0;
    let (a, b) = (8 * MS, 11 * MS);
    let rates: Vec<f64> = (0..2).map(|i| tput(&r, i, a, b)).collect();
    let j = jain(&rates);
    eprintln!(
        "2 flows, goodput over 8-11 ms (Gbps): {:.2?}, Jain {j:.5}",
        rates.iter().map(|x| x / 1e9).collect::<Vec<_>>()
    );
    for x in &rates {
        assert!((x / fair - 1.0).abs() < 0.05, "each within 5% of the fair share {fair:.3e}: {x:.3e}");
    }
    assert!(j >= 0.999);
    assert!(rates.iter().sum::<f64>() > 0.97 * GOODPUT_100G, "the bottleneck stays busy");

    // The joint line-rate start builds ~600 KB within the first NP interval.
    // Then each flow runs at R_recv (1 - w_min) and the rates sum to
    // C (1 - w_min): the queue drains at C x w_min = 97.7 KB/ms (wire bytes).
    let peak = max_queue(&r, 0..200 * US);
    assert!(peak > 400_000.0, "line-rate start builds a queue: {peak}");
    let d: Vec<(f64, f64)> =
        points_in(&r.queues[0], MS..4 * MS).into_iter().map(|(t, q)| (t as f64 / 1e12, q)).collect();
    let (mt, mq) = (mean(&d.iter().map(|s| s.0).collect::<Vec<_>>()), mean(&d.iter().map(|s| s.1).collect::<Vec<_>>()));
    let slope =
        d.iter().map(|(t, q)| (t - mt) * (q - mq)).sum::<f64>() / d.iter().map(|(t, _)| (t - mt).powi(2)).sum::<f64>();
    let expect = -100e9 / 128.0 / 8.0;
    eprintln!("peak queue {peak:.0} B, drain slope {:.1} KB/ms (C x w_min = {:.1} KB/ms)", slope / 1e6, expect / 1e6);
    assert!(slope < 0.8 * expect && slope > 1.25 * expect, "drain rate {slope:.3e} B/s vs {expect:.3e}");

    // Once drained the queue sits just above the 5 KB NP-ECN threshold.
    let q = queue_in(&r, a..b);
    let (avg, max) = (mean(&q), max_of(&q));
    eprintln!("queue over 8-11 ms: avg {avg:.0} B, max {max:.0} B");
    assert!((5_000.0..30_000.0).contains(&avg), "avg queue {avg}");
    assert!(max < 60_000.0, "max queue {max}");
    assert_eq!(r.pause_frames, 0);
}

#[test]
fn four_staggered_flows_converge_near_fair() {
    // Flows join every 100 us at line rate; each newcomer first takes a large
    // share (its receive rate), the increase law then evens the rates out.
    let r = dumbbell_run(4, 100 * US, 150_000_000);
    let fair = GOODPUT_100G / 4.0;
    let (a, b) = (30 * MS, 40 * MS);
    let rates: Vec<f64> = (0..4).map(|i| tput(&r, i, a, b)).collect();
    let j = jain(&rates);
    let conv = convergence_time(&r, 4, MS, 40 * MS, 0.10);
    let q = queue_in(&r, a..b);
    let (avg, max) = (mean(&q), max_of(&q));
    eprintln!(
        "4 flows, goodput over 30-40 ms (Gbps): {:.2?}, Jain {j:.5}; all within 10% of fair (1 ms windows) from {:?} us; queue avg {avg:.0} B max {max:.0} B",
        rates.iter().map(|x| x / 1e9).collect::<Vec<_>>(),
        conv.map(|t| t / US)
    );
    for x in &rates {
        assert!((x / fair - 1.0).abs() < 0.10, "each within 10% of the fair share {fair:.3e}: {x:.3e}");
    }
    assert!(j >= 0.995);
    assert!(conv.is_some_and(|t| t <= 35 * MS), "converged (10%) by 35 ms: {conv:?}");
    assert!(rates.iter().sum::<f64>() > 0.97 * GOODPUT_100G);
    assert!((5_000.0..60_000.0).contains(&avg), "avg queue {avg}");
    assert!(max < 150_000.0, "max queue {max}");
}

// ---- NP-ECN in a network ----

/// A sender at a fixed fraction of line rate (no reaction), to build queues at will.
struct FixedRate(f64);
impl SenderCc for FixedRate {
    fn on_start(&mut self, cx: &mut SenderCx) {
        cx.rate = self.0 * cx.flow.line_rate as f64;
    }
    fn on_ack(&mut self, _cx: &mut SenderCx, _ack: &Packet) {}
}

/// Per egress port (switch, port index), over data packets dequeued with the
/// queue above the threshold: [paused during their sojourn, of those marked,
/// not paused during their sojourn, of those marked].
type Tally = Arc<Mutex<BTreeMap<(u32, u16), [u64; 4]>>>;

/// PCN's switch part under fixed-rate senders, counting marks per port and
/// classifying each packet's sojourn by the port state the core reports.
struct NpEcnProbe {
    threshold: u64,
    /// Fraction of line rate of each flow, by flow id.
    rates: Vec<f64>,
    tally: Tally,
}
struct CountingSwitch {
    node: u32,
    inner: PcnSwitch,
    threshold: u64,
    tally: Tally,
    /// (flow, seq) -> (port's PAUSE count, class paused) at enqueue.
    at_enqueue: BTreeMap<(u32, u64), (u64, bool)>,
}
impl SwitchCc for CountingSwitch {
    fn on_enqueue(&mut self, cx: &mut SwitchCx, i: u16, o: u16, pkt: &mut Packet) {
        if pkt.kind == PktKind::Data {
            let st = &cx.ports[o as usize];
            self.at_enqueue.insert((pkt.flow, pkt.seq), (st.pauses, st.paused & (1 << pkt.class) != 0));
        }
        self.inner.on_enqueue(cx, i, o, pkt);
    }
    fn on_dequeue(&mut self, cx: &mut SwitchCx, i: u16, o: u16, pkt: &mut Packet) {
        let was = pkt.ce;
        self.inner.on_dequeue(cx, i, o, pkt);
        if pkt.kind != PktKind::Data {
            return;
        }
        let (pauses, paused) = self.at_enqueue.remove(&(pkt.flow, pkt.seq)).unwrap();
        let st = &cx.ports[o as usize];
        if st.qlen > self.threshold {
            let k = if paused || st.pauses != pauses { 0 } else { 2 };
            let mut t = self.tally.lock().unwrap();
            let e = t.entry((self.node, o)).or_default();
            e[k] += 1;
            if pkt.ce && !was {
                e[k + 1] += 1;
            }
        }
    }
}
impl Scheme for NpEcnProbe {
    fn name(&self) -> &str {
        "np-ecn-probe"
    }
    fn requirements(&self) -> ccsim_core::Requirements {
        Pcn::new(PcnConfig::default()).requirements()
    }
    fn sender(&self, f: &FlowView) -> Box<dyn SenderCc> {
        Box::new(FixedRate(self.rates[f.id as usize]))
    }
    fn switch(&self, node: u32, _ports: &[PortStat]) -> Option<Box<dyn SwitchCc>> {
        Some(Box::new(CountingSwitch {
            node,
            inner: PcnSwitch::new(self.threshold),
            threshold: self.threshold,
            tally: self.tally.clone(),
            at_enqueue: BTreeMap::new(),
        }))
    }
}

/// Hosts 0, 1 on switch S0 (node 8); hosts 2..=7 on switch S1 (node 9); S0-S1
/// one 100G link; 1 us links. Port indices follow link order: at S0, port 0 ->
/// host 0, 1 -> host 1, 2 -> S1; at S1, ports 0..=5 -> hosts 2..=7, 6 -> S0.
fn two_switches() -> Topology {
    let mut nodes = vec![NodeKind::Host; 8];
    nodes.extend([NodeKind::Switch, NodeKind::Switch]);
    let l = |a, b| LinkSpec { a, b, rate_bps: G100, delay: US, back: None };
    let mut links = vec![l(0, 8), l(1, 8)];
    links.extend((2..8).map(|h| l(h, 9)));
    links.push(l(8, 9));
    Topology { nodes, links, name: "two switches".into() }
}

fn np_ecn_run(flows: &[(u32, u32, f64)], bytes: u64) -> (RunResult, BTreeMap<(u32, u16), [u64; 4]>) {
    let probe = NpEcnProbe { threshold: 5_000, rates: flows.iter().map(|f| f.2).collect(), tally: Tally::default() };
    let specs: Vec<FlowSpec> = flows
        .iter()
        .enumerate()
        .map(|(i, &(src, dst, _))| FlowSpec { id: i as u32, src, dst, size: bytes, start: 0, prio: 0 })
        .collect();
    // A 4 MB shared buffer so that PFC acts within a few hundred microseconds.
    let net = NetConfig { buffer: Bytes(4_000_000), ..Default::default() };
    let r = run(&two_switches(), &net, &specs, &probe, &SimOptions::default(), None).unwrap();
    let t = probe.tally.lock().unwrap().clone();
    (r, t)
}

#[test]
fn np_ecn_leaves_a_pause_built_queue_unmarked_and_marks_a_congested_one() {
    const S0_TO_S1: (u32, u16) = (8, 2);
    const S1_TO_HOST2: (u32, u16) = (9, 0);
    // (a) Congestion at S1 -> host 2: host 0 sends 60G to host 2 through S0,
    // hosts 3..=6 send 100G each to host 2. S1 pauses its ingress from S0, so
    // S0 -> S1 (carrying only 60G + host 1's 30G to host 7, under its 100G)
    // builds a queue behind PAUSE: NP-ECN must not mark it.
    let (r, t) = np_ecn_run(&[(0, 2, 0.6), (1, 7, 0.3), (3, 2, 1.0), (4, 2, 1.0), (5, 2, 1.0), (6, 2, 1.0)], 3_000_000);
    let paused = r.ports.iter().find(|p| p.port == PortRef { node: 8, peer: 9 }).unwrap();
    let s0 = t.get(&S0_TO_S1).copied().unwrap_or_default();
    let s1 = t.get(&S1_TO_HOST2).copied().unwrap_or_default();
    eprintln!(
        "PAUSE-built: S0->S1 paused {:.0} us, max queue {} B; left above 5 KB: {} paused in their sojourn ({} marked), {} not ({} marked); S1->host2: {} above, {} marked",
        paused.paused_time as f64 / 1e6, paused.max_qlen, s0[0], s0[1], s0[2], s0[3], s1[0] + s1[2], s1[1] + s1[3]
    );
    assert!(paused.paused_time > 50 * US, "S1 paused S0's port");
    assert!(paused.max_qlen > 100_000, "the pause built a queue at S0");
    assert!(s0[0] > 500, "packets left S0 above the threshold after a pause: {}", s0[0]);
    assert_eq!(s0[1], 0, "a packet paused in its sojourn is never marked");
    assert_eq!(s0[3], s0[2], "a packet not paused in its sojourn is marked above the threshold");
    // What remains marked at the paused port (packets that arrived after a
    // RESUME while the PAUSE-built queue drained) is far below the NP's 95%.
    let frac = s0[3] as f64 / (s0[0] + s0[2]) as f64;
    assert!(frac < 0.10, "marked fraction at the paused port {frac}");
    assert_eq!(s1[0], 0, "S1 -> host 2 is never paused");
    assert!(s1[2] > 1000 && s1[3] == s1[2], "the congested port marks: {s1:?}");
    assert_eq!(r.drops, 0);

    // (b) The same S0 -> S1 queue built by congestion: hosts 0 and 1 send 100G
    // each to hosts 2 and 3 (S1's egresses are not overloaded, nothing pauses S0).
    let (r, t) = np_ecn_run(&[(0, 2, 1.0), (1, 3, 1.0)], 3_000_000);
    let port = r.ports.iter().find(|p| p.port == PortRef { node: 8, peer: 9 }).unwrap();
    let s0 = t.get(&S0_TO_S1).copied().unwrap_or_default();
    eprintln!(
        "congestion-built: S0->S1 paused {} us, max queue {} B, {} packets above 5 KB, {} marked",
        port.paused_time / US,
        port.max_qlen,
        s0[2],
        s0[3]
    );
    assert_eq!(port.paused_time, 0);
    assert!(port.max_qlen > 100_000);
    assert_eq!(s0[0], 0);
    assert!(s0[2] > 500);
    assert_eq!(s0[3], s0[2], "every packet dequeued above the threshold is marked");
    assert_eq!(r.drops, 0);
}

// ---- PAUSE frames: PCN vs DCQCN ----

/// `n` senders -> host `n` on one 100G switch (1 us links), `size` bytes each,
/// all starting at 0; 4 MB shared buffer.
fn incast(scheme: &dyn Scheme, n: u32, size: u64) -> RunResult {
    let topo = star(n + 1, Tier::new(G100, US)).unwrap();
    let flows = incast_flows(n, size);
    let net = NetConfig { buffer: Bytes(4_000_000), ..Default::default() };
    run(&topo, &net, &flows, scheme, &SimOptions::default(), None).unwrap()
}

#[test]
fn incast_pcn_sends_fewer_pause_frames_than_dcqcn() {
    let dcqcn = make_scheme("dcqcn", "preset = \"hpcc\"");
    let pcn = ccsim_cc::make("pcn", None).unwrap();
    let (n, size) = (16, 1_000_000);
    let p = incast(pcn.as_ref(), n, size);
    let d = incast(dcqcn.as_ref(), n, size);
    for r in [&p, &d] {
        let s = r.summary();
        eprintln!(
            "{n}-to-1 incast of {size} B flows, 4 MB buffer, {}: PAUSE frames {}, paused {:.0} us, max queue {} B, FCT avg {:.0} us max {:.0} us, drops {}",
            r.scheme, s.pause_frames, s.paused_time_us, s.max_queue_bytes, s.fct_us.avg, s.fct_us.max, s.drops
        );
        assert_eq!(r.drops, 0);
        assert_eq!(s.finished, n as usize);
    }
    // PCN's PAUSEs come from the line-rate start, before the first NP report
    // (at most two per sender here); afterwards its rates sum to C (1 - w_min)
    // and the queue does not build up again. DCQCN keeps triggering PFC.
    assert!(p.pause_frames <= 2 * n as u64, "PCN: {}", p.pause_frames);
    assert!(p.pause_frames < d.pause_frames, "PCN {} vs DCQCN {}", p.pause_frames, d.pause_frames);
}
