//! FNCC in small networks.
//!
//! Network as the FNCC paper's evaluation (§5): 1.5 us per link, MTU 1518 B on
//! the wire (1470 B payload + 48 B headers), PFC with a static 500 KB threshold,
//! symmetric routing (ACKs retrace their data's switches).

use crate::support::*;
use ccsim_cc::fncc::{FnccConfig, FnccReceiver, N_AUX};
use ccsim_cc::SchemeConfig;
use ccsim_core::cc::PortStat;
use ccsim_core::cc::{FlowView, ReceiverCc, ReceiverCx, Scheme, SenderCc, SwitchCc};
use ccsim_core::config::Routing;
use ccsim_core::packet::Packet;
use ccsim_core::results::jain;
use ccsim_core::sim::{run, SimOptions};
use ccsim_core::time::US;
use ccsim_core::units::Bytes;
use ccsim_core::{FlowSpec, NetConfig, RunResult, Time};
use ccsim_scenario::topo::{leaf_spine, star, Tier};
use std::sync::{Arc, Mutex};

fn fncc_net() -> NetConfig {
    let mut net = NetConfig { mtu: Bytes(1470), header: Bytes(48), routing: Routing::Symmetric, ..Default::default() };
    net.pfc.static_xoff = Some(Bytes(500_000));
    net
}

/// Fig. 9 setup: dumbbell of 3 switches at `rate`, 1.5 us links; flow 0
/// (host 0 -> 2) at t = 0, flow 1 (host 1 -> 3) at 300 us; both long. Traces the
/// congested port (first switch towards the second) and both flows every 1 us.
fn fig9(s: &dyn Scheme, rate: u64, end: Time) -> RunResult {
    let size = rate / 8 / 1_000_000 * (end / US) + 1_000_000; // more than a flow sends before `end`
    let d = Dumbbell {
        link: Tier::new(rate, 1500 * 1000),
        switches: 3,
        net: fncc_net(),
        seed: 1,
        stop_at: Some(end),
        ..Dumbbell::new(rate, US)
    };
    d.run(s, &same_size(size, &[0, 300 * US]))
}

/// First trace time at or after `from` when flow `f`'s rate is below `frac` of `line`.
fn first_slowdown(r: &RunResult, f: usize, from: Time, frac: f64, line: f64) -> Option<Time> {
    let tr = &r.flow_traces[f];
    tr.t.iter().zip(&tr.rate_bps).find(|(&t, &v)| t >= from && v < frac * line).map(|(&t, _)| t)
}

/// Fig. 9: FNCC sees the congestion on flow 0's ACKs as they cross the
/// congested switch on their way back, HPCC only once data that queued there has
/// reached the receiver and its ACK has come back. So FNCC's flow 0 slows down
/// first (paper: FNCC at 300 us, HPCC at 330 us) and its queue peaks lower.
/// Slowdown = first 1 us sample after the join with flow 0's rate below 90% of
/// line rate. The paper's Fig. 9 is measured by claims fig9-react-100g and
/// fig9-peakq-100g (experiments/fncc/fig9-100g.toml; results in
/// docs/reproduction/fncc/report.md).
#[test]
fn fncc_slows_down_before_hpcc_on_the_fig9_dumbbell() {
    let end = 700 * US;
    let f = fig9(make_scheme("fncc", "").as_ref(), G100, end);
    let h = fig9(make_scheme("hpcc", "").as_ref(), G100, end);
    let line = G100 as f64;
    let tf = first_slowdown(&f, 0, 300 * US, 0.9, line).expect("FNCC slows down");
    let th = first_slowdown(&h, 0, 300 * US, 0.9, line).expect("HPCC slows down");
    let peak = |r: &RunResult| max_queue(r, 0..end);
    eprintln!("first slowdown: FNCC {} us, HPCC {} us", tf / US, th / US);
    eprintln!("peak queue: FNCC {:.0} B, HPCC {:.0} B", peak(&f), peak(&h));
    assert!(tf < th, "FNCC {tf} vs HPCC {th}");
    // Within a few link delays of the join (the ACKs only have to come back
    // from the first switch): before 310 us.
    assert!(tf < 310 * US, "FNCC reacted at {} us", tf / US);
    assert!(peak(&f) < peak(&h), "FNCC peak {} vs HPCC {}", peak(&f), peak(&h));
    assert_eq!(f.drops + h.drops, 0);
}

/// Two flows on the Fig. 9 dumbbell converge to fair shares and FNCC keeps the
/// congested queue near zero (HPCC's design: eta = 0.95 leaves 5% headroom).
/// W_AI as in the HPCC paper's rule for N = 2 flows: rate_ai = (1 - eta) B / N
/// = 2.5 Gbps (see tests/network.rs on why the 50 Mbps default converges
/// slowly). Fair: Jain >= 0.99 and each share within 10% of the mean over every
/// 100 us window from convergence to the end; converged within 300 us of the join.
/// Steady state (last 500 us): queue mean < 10 KB, p99 < 30 KB, utilization > 90%.
/// The paper's claims on this setup are fig9-fair-100g and fig9-util-100g
/// (experiments/fncc/fig9-100g.toml; results in docs/reproduction/fncc/report.md).
#[test]
fn fncc_two_flows_converge_fair_with_a_short_queue() {
    let end = 1500 * US;
    let r = fig9(make_scheme("fncc", "rate_ai = \"2500Mbps\"").as_ref(), G100, end);
    let win = 100 * US;
    // Earliest t on a 10 us grid from which every window is fair.
    let conv = converged_at(300 * US, end, win, 10 * US, |a, b| fair(&goodputs(&r, a, b, Sample::AtOrAfter)))
        .expect("fair at the end");
    let q = queue_in(&r, end - 500 * US..end);
    let mean = mean(&q);
    let p99 = percentile_floor(&q, 99);
    let util = mean_util(&r, end - 500 * US..);
    let sh = goodputs(&r, end - 500 * US, end, Sample::AtOrAfter);
    eprintln!(
        "converged {} us after the join; shares {:.1?} Gbps, Jain {:.4}; queue mean {mean:.0} B p99 {p99:.0} B; util {util:.3}",
        (conv - 300 * US) / US,
        sh.iter().map(|v| v / 1e9).collect::<Vec<_>>(),
        jain(&sh)
    );
    assert!(conv <= 600 * US, "converged at {} us", conv / US);
    assert!(mean < 10_000.0 && p99 < 30_000.0, "queue mean {mean} p99 {p99}");
    assert!(util > 0.9, "utilization {util}");
    assert_eq!(r.drops, 0);
    assert_eq!(r.pause_frames, 0);
}

/// FNCC with plain ECMP on a multipath fabric is refused with a message that
/// names the fix; with symmetric routing the same run works (ACKs retrace the
/// data's spine) and every flow finishes.
#[test]
fn fncc_needs_symmetric_routing_on_multipath_topologies() {
    let topo = leaf_spine(2, 4, 4, Tier::new(G100, US), Tier::new(G100, US)).unwrap();
    let flows = paired_flows(&staggered(4, 200_000, US));
    let s = make_scheme("fncc", "");
    let mut net = fncc_net();
    net.routing = Routing::Ecmp;
    let e = run(&topo, &net, &flows, s.as_ref(), &SimOptions::default(), None).map(|_| ()).expect_err("refused");
    assert!(e.contains("fncc") && e.contains("routing = \"symmetric\""), "{e}");
    let r = run(&topo, &fncc_net(), &flows, s.as_ref(), &SimOptions::default(), None).unwrap();
    assert!(all_finished(&r));
    assert_eq!(r.drops, 0);
}

/// What the FNCC receivers saw and wrote, per flow.
#[derive(Default)]
struct Log {
    /// (flow, first data arrival, last data arrival)
    rx: Vec<(u32, Time, Time)>,
    /// (flow, time, N written into the ACK)
    acks: Vec<(u32, Time, u64)>,
}

/// FNCC with a receiver that records N; everything else delegated.
struct Recording {
    inner: Box<dyn Scheme>,
    log: Arc<Mutex<Log>>,
}

struct RecRx {
    inner: FnccReceiver,
    flow: u32,
    log: Arc<Mutex<Log>>,
}

impl ReceiverCc for RecRx {
    fn on_data(&mut self, cx: &mut ReceiverCx, data: &Packet) {
        self.inner.on_data(cx, data);
        let mut l = self.log.lock().unwrap();
        match l.rx.iter_mut().find(|e| e.0 == self.flow) {
            Some(e) => e.2 = cx.now,
            None => l.rx.push((self.flow, cx.now, cx.now)),
        }
    }
    fn fill_ack(&mut self, cx: &ReceiverCx, data: &Packet, ack: &mut Packet) {
        self.inner.fill_ack(cx, data, ack);
        self.log.lock().unwrap().acks.push((self.flow, cx.now, ack.aux[N_AUX]));
    }
}

impl Scheme for Recording {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn requirements(&self) -> ccsim_core::Requirements {
        self.inner.requirements()
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        self.inner.sender(flow)
    }
    fn receiver(&self, flow: &FlowView) -> Box<dyn ReceiverCc> {
        Box::new(RecRx { inner: FnccReceiver, flow: flow.id, log: self.log.clone() })
    }
    fn switch(&self, node: u32, ports: &[PortStat]) -> Option<Box<dyn SwitchCc>> {
        self.inner.switch(node, ports)
    }
}

/// N in every ACK = flows the receiving host is receiving at that moment
/// (first byte arrived, last byte not yet; the ACK's own flow always counted),
/// as flows come and go: three flows into host 3 of a star, starting at 0, 20
/// and 40 us (0.6, 1.2, 2.4 MB), all three receiving at once for a while; N
/// runs 1, 2, 3, 2, 1. The same with cumulative ACKs (one per 4 data packets;
/// there flows 1 and 2 end within a few us of each other, in either order).
#[test]
fn n_in_acks_counts_the_receivers_concurrent_flows() {
    for every in [1, 4] {
        n_check(every);
    }
}

fn n_check(ack_every: u32) {
    let topo = star(4, Tier::new(G100, US)).unwrap();
    let flows = vec![
        FlowSpec { id: 0, src: 0, dst: 3, size: 600_000, start: 0, prio: 0 },
        FlowSpec { id: 1, src: 1, dst: 3, size: 1_200_000, start: 20 * US, prio: 0 },
        FlowSpec { id: 2, src: 2, dst: 3, size: 2_400_000, start: 40 * US, prio: 0 },
    ];
    let log = Arc::new(Mutex::new(Log::default()));
    let s = Recording { inner: FnccConfig::default().into_scheme(), log: log.clone() };
    let mut net = fncc_net();
    net.ack_every = ack_every;
    let r = run(&topo, &net, &flows, &s, &SimOptions::default(), None).unwrap();
    assert!(all_finished(&r));
    assert_eq!(r.drops, 0);
    let l = log.lock().unwrap();
    // One ACK per data packet, or about one per `ack_every`.
    let pkts: u64 = flows.iter().map(|f| f.size.div_ceil(1470)).sum();
    assert!(l.acks.len() as u64 <= pkts / ack_every as u64 + 3, "{} ACKs", l.acks.len());
    assert_eq!(l.rx.len(), 3);
    let span = |f: u32| l.rx.iter().find(|e| e.0 == f).map(|e| (e.1, e.2)).unwrap();
    // Flows start in order of id, and the last starts before the first ends.
    assert!(span(0).0 < span(1).0 && span(1).0 < span(2).0 && span(2).0 < span(0).1, "{:?}", l.rx);
    let mut seen = Vec::new();
    for &(f, t, n) in &l.acks {
        let want = (0..3u32)
            .filter(|&g| {
                let (a, b) = span(g);
                g == f || (a <= t && t < b)
            })
            .count() as u64;
        assert_eq!(n, want, "flow {f} at {t}: N = {n}, want {want}");
        if seen.last() != Some(&n) {
            seen.push(n);
        }
    }
    assert_eq!(seen, vec![1, 2, 3, 2, 1]);
}

/// Last-hop incast (4 senders -> 1 receiver through one switch, all starting
/// at t = 0, 1.5 us links; every record is the last hop): LHCS sets each
/// sender's W_c to beta x B x T / N (fair share x beta = 22.5 Gbps) instead of
/// HPCC's step-by-step descent, so the flows settle at the fair share sooner and
/// the incast queue drains sooner. The peak is the same: it is built in the
/// first RTT, before any feedback. Run with `--nocapture` for the rates and
/// drain times; the paper's LHCS claims are fig13d-lhcs-rate, fig13d-lhcs-speed
/// and fig13d-lhcs-release (experiments/fncc/fig13-last.toml; results in
/// docs/reproduction/fncc/report.md).
#[test]
fn lhcs_brings_a_last_hop_incast_to_the_fair_share() {
    let topo = star(5, Tier::new(G100, 1500 * 1000)).unwrap();
    let flows = incast_flows(4, 2_000_000);
    let opts = SimOptions { seed: 1, stop_at: None, ..traced(US, &[incast_port(4)], 4) };
    let on = run(&topo, &fncc_net(), &flows, make_scheme("fncc", "").as_ref(), &opts, None).unwrap();
    let off = run(&topo, &fncc_net(), &flows, make_scheme("fncc", "lhcs = false").as_ref(), &opts, None).unwrap();
    for r in [&on, &off] {
        assert!(all_finished(r), "all flows finish");
        assert_eq!(r.drops, 0);
    }
    let peak = |r: &RunResult| max_of(&r.queues[0].v);
    // First sample after the peak with less than 10 KB queued.
    let drained = |r: &RunResult| {
        let q = &r.queues[0];
        let ip = q.v.iter().enumerate().fold(0, |b, (i, &v)| if v > q.v[b] { i } else { b });
        q.t[ip..].iter().zip(&q.v[ip..]).find(|(_, &v)| v < 10_000.0).map(|(&t, _)| t).unwrap()
    };
    let rates_at = |r: &RunResult, t: Time| -> Vec<f64> {
        r.flow_traces.iter().map(|tr| tr.rate_bps[tr.t.partition_point(|&x| x < t)] / 1e9).collect()
    };
    eprintln!("peak queue: LHCS {:.0} B, without {:.0} B", peak(&on), peak(&off));
    eprintln!("queue < 10 KB at: LHCS {} us, without {} us", drained(&on) / US, drained(&off) / US);
    for t in [10, 20, 40, 80] {
        eprintln!("t = {t} us: LHCS {:.1?}, without {:.1?}", rates_at(&on, t * US), rates_at(&off, t * US));
    }
    let fair_beta = 0.9 * 100.0 / 4.0;
    // While the queue drains LHCS holds every flow at or below fair x beta;
    // HPCC alone is still above the fair share.
    assert!(rates_at(&on, 20 * US).iter().all(|&v| v <= fair_beta), "{:?}", rates_at(&on, 20 * US));
    assert!(rates_at(&off, 20 * US).iter().all(|&v| v > 25.0), "{:?}", rates_at(&off, 20 * US));
    // By 40 us every LHCS flow is within 5% of fair x beta, all equal.
    let r40 = rates_at(&on, 40 * US);
    assert!(r40.iter().all(|&v| (v / fair_beta - 1.0).abs() < 0.05), "{r40:?}");
    assert!(jain(&r40) > 0.999, "{r40:?}");
    assert!(drained(&on) < drained(&off));
}

/// FNCC's INT rides the ACKs only, and they pay for it on the wire: the fixed
/// 42 B header from the receiver on, or 8 B per record as each switch on the
/// way back stamps its table entry (3-switch chain: 0, 1, 2, 3 records on the
/// four links back). Data packets carry no INT bytes.
#[test]
fn fncc_acks_carry_the_int_bytes() {
    use ccsim_core::config::IntEncoding;
    use ccsim_core::PortRef;
    let topo = ccsim_scenario::topo::dumbbell(1, Tier::new(G100, US), Tier::new(G100, US), 3).unwrap();
    // host 0 -> switches 2, 3, 4 -> host 1; 20 full packets, one ACK each
    let path = [0u32, 2, 3, 4, 1];
    let flows = vec![FlowSpec { id: 0, src: 0, dst: 1, size: 20 * 1470, start: 0, prio: 0 }];
    for enc in [IntEncoding::Fixed, IntEncoding::PerHop] {
        let mut net = fncc_net();
        net.int_encoding = enc;
        let r = run(&topo, &net, &flows, make_scheme("fncc", "").as_ref(), &SimOptions::default(), None).unwrap();
        check_clean(&r);
        let tx = |node, peer| r.ports.iter().find(|p| p.port == PortRef { node, peer }).unwrap().tx_bytes;
        for (i, w) in path.windows(2).enumerate() {
            assert_eq!(tx(w[0], w[1]), 20 * 1518, "{enc:?}: data on {} -> {}", w[0], w[1]);
            // records the ACK holds on the link back from w[1]: one per switch behind it
            let records = 3 - i as u64;
            let ack = match enc {
                IntEncoding::Fixed => 60 + 42,
                _ => 60 + 8 * records,
            };
            assert_eq!(tx(w[1], w[0]), 20 * ack, "{enc:?}: ACKs on {} -> {}", w[1], w[0]);
        }
    }
}
