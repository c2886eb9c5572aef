//! SQCC on the paper's setup (seed sqcc-paper.txt §IV: dumbbell, 10 Gbps,
//! 1 us links; alpha 0.875, beta 0.008, T_high 500 us, initial T_low 50 us,
//! delta 10 Mbps), N:1 incasts of long flows to host N (senders 0..N on the
//! left switch, bottleneck 2N -> 2N+1), 16 KiB updates, lossless.
//!
//! Expected steady state: every flow at C/N and the queueing delay at the
//! eq. 17 fixed point d* = T_high T_low (beta C + delta N) / (beta C T_high +
//! delta N T_low) (`SqccConfig::fixed_point_delay`) above the base RTT D the
//! sender assumes (`FlowView::base_rtt`, 8.5152 us here); the queue holds
//! C (d* + D - idle RTT sample) with the idle sample 7.8208 us.

mod sqcc_support;
mod timely_family;

use ccsim_cc::patched_timely::PatchedTimelyConfig;
use ccsim_cc::sqcc::SqccConfig;
use ccsim_cc::SchemeConfig;
use ccsim_core::results::jain;
use ccsim_core::time::{ser_time, Time, MS, US};
use ccsim_core::RunResult;
use sqcc_support::run_incast;
use timely_family::*;

/// The sender's base RTT D: 2 x 3 us + a full packet on each of 3 forward links.
fn base_rtt() -> Time {
    6 * US + 3 * ser_time(1048, C)
}

/// Expected bottleneck queue (bytes) at the eq. 17 fixed point for `n` flows.
fn expected_queue(cfg: &SqccConfig, n: u32) -> f64 {
    let d = cfg.fixed_point_delay(n, C as f64);
    (d + base_rtt() as f64 - idle_rtt() as f64) / 1e12 * C as f64 / 8.0
}

fn std_queue(r: &RunResult, t0: Time, t1: Time) -> f64 {
    let q = &r.queues[0];
    let v: Vec<f64> = q.t.iter().zip(&q.v).filter(|(t, _)| **t >= t0 && **t < t1).map(|(_, x)| *x).collect();
    let m = v.iter().sum::<f64>() / v.len() as f64;
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len() as f64).sqrt()
}

#[test]
fn expected_queue_formula() {
    // N = 4: E = 4 x 10M / 80M = 0.5, d* = 500 x 50 x 1.5 / 525 = 71.43 us;
    // + (8.5152 - 7.8208) us of base-RTT offset, x 1250 B/us.
    assert_eq!(base_rtt(), 8_515_200);
    let q = expected_queue(&SqccConfig::default(), 4);
    assert!((q - (37_500.0 / 525.0 + 0.6944) * 1250.0).abs() < 1e-6, "{q}");
    // N = 40: delta = 10G / 1600 = 6.25 Mbps, E = 3.125,
    // d* = 500 x 50 x 4.125 / (500 + 156.25) = 157.14 us.
    let q = expected_queue(&SqccConfig::default(), 40);
    assert!((q - (103_125.0 / 656.25 + 0.6944) * 1250.0).abs() < 1e-6, "{q}");
}

/// A synchronized 4:1 incast, every sender starting at line rate (N = 4 in
/// the ACKs): the first updates cut hard (w = 1, large error), the flows refill
/// the link by ~25 ms; over [40, 60) ms each flow within 5% of C/4, Jain >= 0.995, the mean
/// queue within 8% of the eq. 17 fixed point (std below 5% of it), utilization
/// >= 0.99; no drops.
#[test]
fn incast_4_to_1_settles_at_the_eq17_queue_with_fair_shares() {
    let cfg = SqccConfig::default();
    let scheme = cfg.clone().into_scheme();
    let starts: Vec<Time> = vec![0; 4];
    let r = run_incast(scheme.as_ref(), &starts, 1 << 40, 60 * MS);
    assert_eq!(r.drops, 0);
    let (w0, w1) = (40 * MS, 60 * MS);
    let fair = fair_goodput(4);
    let g = goodputs(&r, w0, w1);
    let j = jain(&g);
    let q = mean_queue(&r, w0, w1);
    let sd = std_queue(&r, w0, w1);
    let want = expected_queue(&cfg, 4);
    let util = mean_util(&r, w0, w1);
    println!(
        "sqcc 4:1: goodput {:?} Gbps (fair {:.3}), Jain {j:.5}, queue {q:.0} B (std {sd:.0}) \
         vs eq. 17 {want:.0} B, util {util:.4}",
        g.iter().map(|x| (x / 1e6).round() / 1e3).collect::<Vec<_>>(),
        fair / 1e9
    );
    for (i, x) in g.iter().enumerate() {
        assert!((x / fair - 1.0).abs() <= 0.05, "flow {i}: {x} vs {fair}");
    }
    assert!(j >= 0.995, "Jain {j}");
    assert!((q / want - 1.0).abs() <= 0.08, "queue {q} vs eq. 17 {want}");
    assert!(sd <= 0.05 * want, "queue std {sd}");
    assert!(util >= 0.99, "utilization {util}");

    // The thresholds read as raw RTTs (Algorithm 3 literally): the same fixed
    // point in RTT terms, so the queue is C (d* - idle RTT), 10.6 KB (8.5 us)
    // less than with queueing-delay thresholds.
    let raw = SqccConfig { queueing_thresholds: false, ..Default::default() };
    let r = run_incast(raw.clone().into_scheme().as_ref(), &starts, 1 << 40, 60 * MS);
    let qr = mean_queue(&r, w0, w1);
    let want_raw = (raw.fixed_point_delay(4, C as f64) - idle_rtt() as f64) / 1e12 * C as f64 / 8.0;
    println!("sqcc 4:1 raw-RTT thresholds: queue {qr:.0} B vs {want_raw:.0} B");
    assert!((qr / want_raw - 1.0).abs() <= 0.08, "raw: {qr} vs {want_raw}");
    assert!(q - qr > 8_000.0, "queueing thresholds hold ~10.6 KB more: {q} vs {qr}");
}

/// 40:1 incast from C/N: adaptive delta = 6.25 Mbps. The mean queue over
/// [60, 100) ms is within 10% of eq. 17 (196 KB), below 0.6 x patched TIMELY's
/// (its fixed point RTT_ref (1 + N/8) = 300 us, 365 KB), and oscillates less
/// (std at most half of patched TIMELY's); error-only SQCC (delta 10 Mbps)
/// sits at its own, higher fixed point (eq. 17 with delta 10M: 242 KB...
/// asserted within 15%).
#[test]
fn incast_40_to_1_adaptive_delta_matches_eq17_and_beats_patched_timely() {
    let n = 40u32;
    let starts = vec![0; n as usize];
    let (w0, w1) = (60 * MS, 100 * MS);
    let init = 1.0 / n as f64;
    let full = SqccConfig { init_rate_fraction: init, ..Default::default() };
    let r = run_incast(full.clone().into_scheme().as_ref(), &starts, 1 << 40, w1);
    assert_eq!(r.drops, 0);
    let q = mean_queue(&r, w0, w1);
    let sd = std_queue(&r, w0, w1);
    let want = expected_queue(&full, n);
    let util = mean_util(&r, w0, w1);
    let j = jain(&goodputs(&r, w0, w1));

    let e_only = SqccConfig { adaptive_delta: false, adaptive_t_low: false, ..full.clone() };
    let re = run_incast(e_only.clone().into_scheme().as_ref(), &starts, 1 << 40, w1);
    let qe = mean_queue(&re, w0, w1);
    let want_e = expected_queue(&e_only, n);

    let pt = PatchedTimelyConfig { init_rate_fraction: init, ..Default::default() };
    let rp = run_incast(pt.into_scheme().as_ref(), &starts, 1 << 40, w1);
    let qp = mean_queue(&rp, w0, w1);
    let sdp = std_queue(&rp, w0, w1);
    println!(
        "40:1 sqcc queue {q:.0} B (std {sd:.0}) vs eq. 17 {want:.0}, util {util:.4}, Jain {j:.4}; \
         error only {qe:.0} vs {want_e:.0}; patched TIMELY {qp:.0} (std {sdp:.0})"
    );
    assert!((q / want - 1.0).abs() <= 0.10, "queue {q} vs eq. 17 {want}");
    assert!(util >= 0.99, "utilization {util}");
    assert!(j >= 0.98, "Jain {j}");
    assert!(q < 0.6 * qp, "SQCC {q} vs patched TIMELY {qp}");
    assert!(sd <= 0.5 * sdp, "SQCC std {sd} vs patched TIMELY {sdp}");
    assert!((qe / want_e - 1.0).abs() <= 0.15, "error only {qe} vs {want_e}");
    assert!(qe > q, "adaptive delta lowers the queue");
}
