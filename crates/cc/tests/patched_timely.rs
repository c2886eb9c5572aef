//! Patched TIMELY on the SQCC paper's setup (dumbbell, 10 Gbps, 1 us links,
//! alpha 0.875, beta 0.008, T_low 50 us, T_high 500 us, delta 10 Mbps,
//! RTT_ref 50 us; 16 KiB segments, flows start at line rate, lossless).
//!
//! Expected steady state (module docs of `patched_timely`): every flow at C/N,
//! RTT* = RTT_ref (1 + N delta / (beta C)) = 62.5 us (N = 2) and 75 us (N = 4),
//! so the bottleneck holds C (RTT* - idle RTT) with the idle RTT sample
//! 7.82 us: 68.3 KB (N = 2) and 84.0 KB (N = 4).

use crate::timely_family::support::assert_near_fair;
use crate::timely_family::*;
use ccsim_cc::patched_timely::PatchedTimelyConfig;
use ccsim_cc::timely::UpdateInterval;
use ccsim_cc::SchemeConfig;
use ccsim_core::results::jain;
use ccsim_core::time::{Time, MS, US};
use ccsim_core::units::Bytes;

/// Expected bottleneck queue (bytes) with `n` flows at the fixed point.
fn expected_queue(n: u32) -> f64 {
    let rtt = PatchedTimelyConfig::default().fixed_point_rtt(n, C as f64);
    (rtt - idle_rtt() as f64) / 1e12 * C as f64 / 8.0
}

/// `n` flows joining `stagger` apart: over [w0, w1) each within 5% of its fair
/// share, Jain >= 0.995, the mean queue within 8% of the expected one (peak
/// within 20%), the RTT samples within 3% of RTT*, utilization >= 0.99; queue
/// and shares settled (every later 1 ms window within 10%) before w0; no drops;
/// every flow finishes, after w1.
fn converges(n: u32, stagger: Time, size: u64, w0: Time, w1: Time) {
    converges_with(&PatchedTimelyConfig::default(), n, stagger, size, w0, w1);
}

/// [`converges`] with configuration `cfg` (its RTT_ref, delta and beta as the
/// defaults').
fn converges_with(cfg: &PatchedTimelyConfig, n: u32, stagger: Time, size: u64, w0: Time, w1: Time) {
    let scheme = cfg.clone().into_scheme();
    let starts: Vec<Time> = (0..n as u64).map(|i| i * stagger).collect();
    let r = run_dumbbell(scheme.as_ref(), &starts, size, None);
    assert_eq!(r.drops, 0, "lossless: no drops");
    for f in &r.flows {
        let fct = f.fct.unwrap_or_else(|| panic!("flow {} did not finish", f.id));
        assert!(f.start + fct > w1, "flow {} finished inside the window", f.id);
    }

    let fair = fair_goodput(n);
    let g = goodputs(&r, w0, w1);
    let j = jain(&g);
    let q = mean_queue(&r, w0, w1);
    let qmax = max_queue(&r, w0, w1);
    let want_q = expected_queue(n);
    let rtt_star = PatchedTimelyConfig::default().fixed_point_rtt(n, C as f64) / US as f64;
    let rtts: Vec<f64> = r.flow_traces.iter().map(|f| mean_probe(f, w0, w1)).collect();
    let util = mean_util(&r, w0, w1);
    // Settling: from the last join, every 1 ms window has its mean queue within
    // 10% of the expected one and every flow within 10% of fair.
    let last_join = starts[starts.len() - 1];
    let settle = settle_time(last_join, w1, MS, |a, b| {
        (mean_queue(&r, a, b) / want_q - 1.0).abs() <= 0.10
            && goodputs(&r, a, b).iter().all(|x| (x / fair - 1.0).abs() <= 0.10)
    });
    println!(
        "patched_timely n={n} ({:?}): goodput {:?} Gbps (fair {:.3}), Jain {j:.5}, queue mean {q:.0} B \
         ({:.1} us) max {qmax:.0} B, expected {want_q:.0} B; RTT {rtts:.2?} us vs RTT* {rtt_star:.2}; \
         util {util:.4}; settled {:?} ms after the last join; pauses {}",
        cfg.update_interval,
        gbps_3dp(&g),
        fair / 1e9,
        queue_us(q),
        settle.map(|t| (t - last_join) as f64 / MS as f64),
        r.pause_frames,
    );
    assert_near_fair("patched_timely", &g, fair, 0.05);
    assert!(j >= 0.995, "Jain {j}");
    assert!((q / want_q - 1.0).abs() <= 0.08, "queue {q} vs expected {want_q}");
    assert!(qmax <= 1.2 * want_q, "queue peaks at {qmax} (expected {want_q})");
    for x in &rtts {
        assert!((x / rtt_star - 1.0).abs() <= 0.03, "RTT {x} us vs RTT* {rtt_star} us");
    }
    assert!(util >= 0.99, "utilization {util}");
    let settle = settle.expect("never settled");
    assert!(settle < w0, "settled at {settle}");
}

#[test]
fn two_flows_converge_to_fair_share_with_the_rtt_ref_queue() {
    // Flow 1 joins flow 0 (at line rate) after 2 ms; both finish after 65 ms.
    converges(2, 2 * MS, 45_000_000, 45 * MS, 65 * MS);
}

#[test]
fn four_flows_converge_to_fair_share_with_the_rtt_ref_queue() {
    // Joins 3 ms apart; the fixed-point queue grows with N (75 us RTT).
    converges(4, 3 * MS, 30_000_000, 60 * MS, 80 * MS);
}

#[test]
fn expected_queue_matches_the_fixed_point_formula() {
    // RTT* = 50 us x (1 + N/8): 62.5 us and 75 us; the idle RTT sample is
    // 6 us + 2 x 838.4 ns + 3 x 48 ns = 7.8208 us.
    assert_eq!(idle_rtt(), 7_820_800);
    assert!((expected_queue(2) - (62.5 - 7.8208) * 1250.0).abs() < 1e-6);
    assert!((expected_queue(4) - (75.0 - 7.8208) * 1250.0).abs() < 1e-6);
}

#[test]
fn time_based_update_gates_converge_to_the_same_fixed_point() {
    // One update per tau* = max{seg/R, D_minRTT} (SQCC paper eq. 3; 62.5 KB at
    // ~5 Gbps: ~100 us) or per round trip (~62.5 us at RTT*): the fixed point
    // is a property of the rule, not of the update timing, so the same queue,
    // shares and RTT. Both flows start together at C/2 (from line rate the
    // per-RTT gate, cutting at most beta (1 - T_high/rtt) per round trip above
    // T_high, still holds the queue above T_high, at PFC's threshold, 65 ms
    // later).
    for update_interval in [UpdateInterval::Tau, UpdateInterval::Rtt] {
        let cfg =
            PatchedTimelyConfig { update_interval, seg: Bytes(62_500), init_rate_fraction: 0.5, ..Default::default() };
        converges_with(&cfg, 2, 0, 45_000_000, 45 * MS, 65 * MS);
    }
}
