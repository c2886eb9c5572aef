//! DCTCP on a small network: flows sharing a dumbbell bottleneck converge to
//! fair shares, the scheme's step marking holds the bottleneck queue at the
//! marking threshold K (DCTCP's design: the queue oscillates just around K, by
//! a few packets at these flow counts), the link stays busy, nothing is
//! dropped or paused (PFC on) and every flow finishes.
//!
//! Run with `--nocapture` to see the measured numbers.

use crate::support::*;
use ccsim_cc::dctcp::DctcpConfig;
use ccsim_cc::SchemeConfig;
use ccsim_core::results::jain;
use ccsim_core::time::{Time, MS, US};
use ccsim_core::units::Bytes;
use ccsim_core::RunResult;

/// Flow i from host i to host n + i on a dumbbell of `rate` links with 1 us
/// delay (base RTT about 6.25 us at 100 Gbps), starting at `starts[i]`, traced
/// every 10 us.
fn dumbbell_run(cfg: DctcpConfig, rate: u64, starts: &[Time], size: u64) -> RunResult {
    let scheme = cfg.into_scheme();
    Dumbbell::new(rate, 10 * US).run(scheme.as_ref(), &same_size(size, starts))
}

/// First time from `from` on (100 us steps) at which the Jain index over the
/// next 500 us reaches `level`, the window ending by `until`.
fn first_jain_window(res: &RunResult, from: Time, until: Time, level: f64) -> Option<Time> {
    let win = 500 * US;
    // Windows with t + win <= until, i.e. t < until + 1 - win.
    first_time(from, (until + 1).saturating_sub(win), 100 * US, |t| {
        jain(&goodputs(res, t, t + win, Sample::AtOrBefore)) >= level
    })
}

/// The checks every run makes: finished, lossless, no PFC needed.
fn check_clean_no_pause(res: &RunResult) {
    check_clean(res);
    assert_eq!(res.pause_frames, 0, "DCTCP keeps the queue far below the PFC threshold");
}

/// Steady state over [t0, t1]: per-flow goodputs, Jain index, queue and
/// utilization; asserts the queue band around K and fairness within `tol` of
/// the fair share.
fn check_steady(res: &RunResult, k: f64, t0: Time, t1: Time, tol: f64) {
    let s = Steady::measure(res, t0, t1, t0 + 1);
    let g = &s.goodputs;
    let fair = mean(g);
    let j = s.jain;
    let (q_mean, q_max) = (s.queue.mean, s.queue.max);
    let util = s.util.mean;
    // The mean of the flows' probe (alpha) samples.
    let alpha = mean(&probes_in(res, t0..=t1));
    println!(
        "steady [{:.1}, {:.1}] ms: goodput {:?} Gbps, Jain {j:.4}; queue mean {q_mean:.0} B = {:.3} K, max {q_max:.0} B = {:.3} K; utilization {util:.4}; mean alpha {alpha:.3}",
        t0 as f64 / 1e9,
        t1 as f64 / 1e9,
        gbps(g),
        q_mean / k,
        q_max / k
    );
    assert_near_fair("steady", g, fair, tol);
    assert!(j >= 0.98, "Jain {j}");
    // DCTCP holds the queue at K: marking starts above K and each cut is small.
    assert!(q_mean >= 0.8 * k && q_mean <= 1.2 * k, "mean queue {q_mean} vs K {k}");
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
    let cfg = DctcpConfig { k: Bytes(20_000), ..Default::default() };
    let k = cfg.k_at(G100) as f64;
    assert_eq!(k, 200_000.0);
    let starts = [0, MS, 2 * MS, 3 * MS];
    let res = dumbbell_run(cfg, G100, &starts, 60_000_000);
    check_clean_no_pause(&res);
    let first_done = first_done(&res);
    assert!(first_done > 13 * MS, "flows overlap through the window");
    let conv = first_jain_window(&res, 3 * MS, first_done, 0.95).expect("converges");
    println!("4 flows: Jain >= 0.95 (500 us windows) {:.2} ms after the last start", (conv - 3 * MS) as f64 / 1e9);
    assert!(conv <= 6 * MS, "converged {} ms after the last start", (conv - 3 * MS) as f64 / 1e9);
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
    let res = dumbbell_run(cfg, g25, &[0, 2 * MS], 26_000_000);
    check_clean_no_pause(&res);
    let first_done = first_done(&res);
    assert!(first_done > 15 * MS, "flows overlap through the window");
    check_steady(&res, k, 9 * MS, 15 * MS, 0.15);
}
