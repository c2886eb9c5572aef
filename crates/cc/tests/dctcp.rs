//! DCTCP on a small network: flows sharing a dumbbell bottleneck converge to
//! fair shares, the scheme's step marking holds the bottleneck queue at the
//! marking threshold K (DCTCP's design: the queue oscillates just around K, by
//! a few packets at these flow counts), the link stays busy, nothing is
//! dropped or paused (PFC on) and every flow finishes.
//!
//! Run with `--nocapture` to see the measured numbers.

use ccsim_cc::dctcp::DctcpConfig;
use ccsim_cc::SchemeConfig;
use ccsim_core::results::{jain, FlowTrace, Series};
use ccsim_core::sim::{run, SimOptions, TraceConfig};
use ccsim_core::time::{Time, MS, US};
use ccsim_core::units::Bytes;
use ccsim_core::{FlowSpec, NetConfig, PortRef, RunResult};
use ccsim_workload::topo::{dumbbell, Tier};

const G100: u64 = 100_000_000_000;

/// Flow i from host i to host n + i on a dumbbell of `rate` links with 1 us
/// delay (base RTT about 6.25 us at 100 Gbps), starting at `starts[i]`, traced
/// every 10 us. Returns the result and the bottleneck port.
fn dumbbell_run(cfg: DctcpConfig, rate: u64, starts: &[Time], size: u64) -> (RunResult, PortRef) {
    let n = starts.len() as u32;
    let tier = Tier::new(rate, US);
    let topo = dumbbell(n, tier, tier, 2).unwrap();
    let flows: Vec<FlowSpec> = (0..n)
        .map(|i| FlowSpec {
            id: i,
            src: i,
            dst: n + i,
            size,
            start: starts[i as usize],
            prio: 0,
        })
        .collect();
    let bottleneck = PortRef {
        node: 2 * n,
        peer: 2 * n + 1,
    };
    let opts = SimOptions {
        trace: TraceConfig {
            interval: 10 * US,
            queue_ports: vec![bottleneck],
            util_ports: vec![bottleneck],
            flows: (0..n).collect(),
        },
        ..Default::default()
    };
    let scheme = cfg.into_scheme();
    let res = run(
        &topo,
        &NetConfig::default(),
        &flows,
        scheme.as_ref(),
        &opts,
        None,
    )
    .unwrap();
    (res, bottleneck)
}

/// Goodput (bits/s of acknowledged payload) of a traced flow over [t0, t1].
fn goodput(tr: &FlowTrace, t0: Time, t1: Time) -> f64 {
    let at = |t: Time| {
        let i = tr.t.partition_point(|&x| x <= t);
        assert!(i > 0, "no sample at {t}");
        tr.acked[i - 1]
    };
    (at(t1) - at(t0)) * 8.0 / ((t1 - t0) as f64 / 1e12)
}

/// Mean and max of the samples of `s` within [t0, t1].
fn window_stats(s: &Series, t0: Time, t1: Time) -> (f64, f64) {
    let v: Vec<f64> =
        s.t.iter()
            .zip(&s.v)
            .filter(|(t, _)| **t >= t0 && **t <= t1)
            .map(|(_, v)| *v)
            .collect();
    assert!(!v.is_empty(), "no samples in the window");
    (
        v.iter().sum::<f64>() / v.len() as f64,
        v.iter().cloned().fold(0.0, f64::max),
    )
}

/// Mean of the flows' probe (alpha) samples within [t0, t1].
fn mean_probe(res: &RunResult, t0: Time, t1: Time) -> f64 {
    let v: Vec<f64> = res
        .flow_traces
        .iter()
        .flat_map(|tr| {
            tr.t.iter()
                .zip(&tr.probe)
                .filter(|(t, _)| **t >= t0 && **t <= t1)
                .map(|(_, p)| *p)
        })
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// First time from `from` on at which the Jain index over the next 500 us
/// reaches `level` (None if never before `until`).
fn converged_at(res: &RunResult, from: Time, until: Time, level: f64) -> Option<Time> {
    let mut t = from;
    while t + 500 * US <= until {
        let g: Vec<f64> = res
            .flow_traces
            .iter()
            .map(|tr| goodput(tr, t, t + 500 * US))
            .collect();
        if jain(&g) >= level {
            return Some(t);
        }
        t += 100 * US;
    }
    None
}

/// The checks every run makes: finished, lossless, no PFC needed.
fn check_clean(res: &RunResult) {
    assert!(!res.truncated);
    assert!(
        res.flows.iter().all(|f| f.fct.is_some()),
        "every flow finishes"
    );
    assert_eq!(res.drops, 0, "lossless fabric");
    assert_eq!(
        res.pause_frames, 0,
        "DCTCP keeps the queue far below the PFC threshold"
    );
}

/// Steady state over [t0, t1]: per-flow goodputs, Jain index, queue and
/// utilization; asserts the queue band around K and fairness within `tol` of
/// the fair share.
fn check_steady(res: &RunResult, k: f64, t0: Time, t1: Time, tol: f64) {
    let g: Vec<f64> = res
        .flow_traces
        .iter()
        .map(|tr| goodput(tr, t0, t1))
        .collect();
    let fair = g.iter().sum::<f64>() / g.len() as f64;
    let j = jain(&g);
    let (q_mean, q_max) = window_stats(&res.queues[0], t0, t1);
    let (util, _) = window_stats(&res.utilization[0], t0 + 1, t1);
    let alpha = mean_probe(res, t0, t1);
    println!(
        "steady [{:.1}, {:.1}] ms: goodput {:?} Gbps, Jain {j:.4}; queue mean {q_mean:.0} B = {:.3} K, max {q_max:.0} B = {:.3} K; utilization {util:.4}; mean alpha {alpha:.3}",
        t0 as f64 / 1e9,
        t1 as f64 / 1e9,
        g.iter().map(|x| (x / 1e8).round() / 10.0).collect::<Vec<_>>(),
        q_mean / k,
        q_max / k
    );
    for (i, x) in g.iter().enumerate() {
        assert!(
            (x / fair - 1.0).abs() <= tol,
            "flow {i}: {x:.3e} vs fair {fair:.3e}"
        );
    }
    assert!(j >= 0.98, "Jain {j}");
    // DCTCP holds the queue at K: marking starts above K and each cut is small.
    assert!(
        q_mean >= 0.8 * k && q_mean <= 1.2 * k,
        "mean queue {q_mean} vs K {k}"
    );
    assert!(q_max <= 1.25 * k, "max queue {q_max} vs K {k}");
    // The queue never drains: the link stays busy (wire bytes).
    assert!(util >= 0.99, "utilization {util}");
    // Marking is active but moderate (alpha well below 1).
    assert!(alpha > 0.0 && alpha < 0.5, "alpha {alpha}");
}

/// Four flows join one by one (every 1 ms) on a 100 Gbps dumbbell with
/// K = 200 KB (k = 20KB per 10 Gbps, scaled): each newcomer starts at one BDP
/// while the others hold larger windows. Expected: fair shares within 15% and
/// Jain >= 0.98 over [5, 13] ms, queue mean within 0.8..1.2 K.
#[test]
fn four_flows_converge_and_hold_the_queue_at_k() {
    let cfg = DctcpConfig {
        k: Bytes(20_000),
        ..Default::default()
    };
    let k = cfg.k_at(G100) as f64;
    assert_eq!(k, 200_000.0);
    let starts = [0, MS, 2 * MS, 3 * MS];
    let (res, _) = dumbbell_run(cfg, G100, &starts, 60_000_000);
    check_clean(&res);
    let first_done = res
        .flows
        .iter()
        .map(|f| f.start + f.fct.unwrap())
        .min()
        .unwrap();
    assert!(first_done > 13 * MS, "flows overlap through the window");
    let conv = converged_at(&res, 3 * MS, first_done, 0.95).expect("converges");
    println!(
        "4 flows: Jain >= 0.95 (500 us windows) {:.2} ms after the last start",
        (conv - 3 * MS) as f64 / 1e9
    );
    assert!(
        conv <= 6 * MS,
        "converged {} ms after the last start",
        (conv - 3 * MS) as f64 / 1e9
    );
    check_steady(&res, k, 5 * MS, 13 * MS, 0.15);
}

/// Two flows on a 25 Gbps dumbbell with the default K (100 KB per 10 Gbps =
/// 250 KB at 25 Gbps): the queue settles at the default K, and the flows share
/// fairly (within 15%, Jain >= 0.98 over [9, 15] ms).
#[test]
fn default_k_at_25g_two_flows() {
    let g25 = 25_000_000_000;
    let cfg = DctcpConfig::default();
    let k = cfg.k_at(g25) as f64;
    assert_eq!(k, 250_000.0);
    let (res, _) = dumbbell_run(cfg, g25, &[0, 2 * MS], 26_000_000);
    check_clean(&res);
    let first_done = res
        .flows
        .iter()
        .map(|f| f.start + f.fct.unwrap())
        .min()
        .unwrap();
    assert!(first_done > 15 * MS, "flows overlap through the window");
    check_steady(&res, k, 9 * MS, 15 * MS, 0.15);
}
