//! PowerTCP and θ-PowerTCP on a 100 Gbps dumbbell (2 switches, 1 us links,
//! lossless, default network): convergence to the fair share, the standing
//! queue each design predicts, no drops, high utilization, and the reaction to
//! a flow joining and leaving.
//!
//! Numbers of this topology: base RTT T = 2 x 3 us + 3 x 83.84 ns (one
//! 1048-byte packet per forward link) = 6.2515 us; BDP = 100 Gbps x T =
//! 78,144 B; beta = BDP / 10 = 7,814 B. The predicted standing queues (see
//! src/powertcp.rs) are N x beta for PowerTCP and N x beta + 0.05 x BDP
//! (rtt_slack 1.05) for θ-PowerTCP.

use crate::support::*;
use ccsim_cc::powertcp::{PowerTcpConfig, RefWindow, ThetaPowerTcpConfig};
use ccsim_cc::SchemeConfig;
use ccsim_core::time::{Time, US};
use ccsim_core::{RunResult, Scheme};

/// Base RTT of the dumbbell's host pairs, ps.
const T: Time = 6_251_520;
const BDP: f64 = 78_144.0;
const BETA: f64 = BDP / 10.0;

/// Runs `flows` = (size, start) from left host i to right host i on a dumbbell
/// with one left/right host per flow; traces every 1 us.
fn dumbbell_run(scheme: &dyn Scheme, flows: &[(u64, Time)]) -> RunResult {
    let r = Dumbbell::new(G100, US).run(scheme, flows);
    check_clean(&r);
    for f in &r.flows {
        assert_eq!(f.retransmits, 0, "flow {}", f.id);
    }
    r
}

/// Steady-state window of the long-flow runs.
const FROM: Time = 150 * US;
const TO: Time = 450 * US;

/// `n` long flows started 10 us apart, each large enough to run past `TO`.
fn long_flows(n: u64) -> Vec<(u64, Time)> {
    staggered(n as u32, 6_400_000 / n, 10 * US)
}

fn steady(r: &RunResult) -> Steady {
    Steady::measure(r, FROM, TO, FROM)
}

/// The checks every steady state must pass: each flow within 10% of the fair
/// share of the link's goodput, Jain >= 0.99, utilization >= 97%. The
/// goodput of a full link, `goodput`, is less for PowerTCP, whose packets
/// carry INT (`GOODPUT_100G_INT`), than for θ-PowerTCP (`GOODPUT_100G`).
fn check_fair_and_full(name: &str, s: &Steady, goodput: f64) {
    let n = s.goodputs.len() as f64;
    let total: f64 = s.goodputs.iter().sum();
    eprintln!(
        "{name}: rates {:?} Gbps, total {:.1} Gbps, Jain {:.4}, util {:.3}, queue mean {:.0} min {:.0} max {:.0} std {:.0} B",
        gbps(&s.goodputs),
        total / 1e9,
        s.jain,
        s.util.mean,
        s.queue.mean,
        s.queue.min,
        s.queue.max,
        s.queue.std
    );
    assert_near_fair(name, &s.goodputs, goodput / n, 0.10);
    assert!(s.jain >= 0.99, "{name}: Jain {}", s.jain);
    assert!(total >= 0.97 * goodput, "{name}: total {total}");
    assert!(s.util.mean >= 0.97, "{name}: utilization {}", s.util.mean);
}

#[test]
fn powertcp_converges_to_fair_share_with_a_standing_queue_of_n_beta() {
    for n in [2u64, 4] {
        let r = dumbbell_run(&*PowerTcpConfig::default().into_scheme(), &long_flows(n));
        let s = steady(&r);
        check_fair_and_full(&format!("powertcp n={n}"), &s, GOODPUT_100G_INT);
        let expect = n as f64 * BETA;
        assert!(
            s.queue.mean > 0.75 * expect && s.queue.mean < 1.25 * expect,
            "mean queue {} vs N x beta = {expect}",
            s.queue.mean
        );
        assert!(s.queue.max < BDP, "max queue {}", s.queue.max);
    }
}

#[test]
fn theta_powertcp_converges_with_a_larger_queue_than_powertcp() {
    for n in [2u64, 4] {
        let flows = long_flows(n);
        let theta = steady(&dumbbell_run(&*ThetaPowerTcpConfig::default().into_scheme(), &flows));
        check_fair_and_full(&format!("theta_powertcp n={n}"), &theta, GOODPUT_100G);
        // RTT settles at rtt_slack x T + N x beta / B.
        let expect = n as f64 * BETA + 0.05 * BDP;
        assert!(
            theta.queue.mean > 0.85 * expect && theta.queue.mean < 1.15 * expect,
            "mean queue {} vs N x beta + 0.05 BDP = {expect}",
            theta.queue.mean
        );
        assert!(theta.queue.max < BDP, "max queue {}", theta.queue.max);
        let power = steady(&dumbbell_run(&*PowerTcpConfig::default().into_scheme(), &flows));
        assert!(
            theta.queue.mean > power.queue.mean,
            "n={n}: θ-PowerTCP queue {} <= PowerTCP queue {}",
            theta.queue.mean,
            power.queue.mean
        );
    }
}

#[test]
fn packet_reference_window_damps_the_queue_oscillation() {
    let flows = long_flows(2);
    let per_rtt = steady(&dumbbell_run(&*PowerTcpConfig::default().into_scheme(), &flows));
    let cfg = PowerTcpConfig { reference_window: RefWindow::Packet, ..Default::default() };
    let per_packet = steady(&dumbbell_run(&*cfg.into_scheme(), &flows));
    check_fair_and_full("powertcp reference_window=packet", &per_packet, GOODPUT_100G_INT);
    // Same equilibrium (N x beta), less swing around it.
    let expect = 2.0 * BETA;
    assert!((per_packet.queue.mean / expect - 1.0).abs() < 0.15, "mean queue {}", per_packet.queue.mean);
    assert!(
        per_packet.queue.std < 0.6 * per_rtt.queue.std,
        "queue std: per packet {} vs per RTT {}",
        per_packet.queue.std,
        per_rtt.queue.std
    );
}

/// A long flow alone, a second flow (1 MB) joins at 100 us and leaves when done.
/// Measures how long after the join both flows are within 20% of the fair
/// share, and how long after the leave the remaining flow is back above 90%
/// of the link; both must take at most 5 base RTTs.
fn join_and_leave(name: &str, scheme: &dyn Scheme) {
    let join = 100 * US;
    let r = dumbbell_run(scheme, &[(6_000_000, 0), (1_000_000, join)]);
    let (a, b) = (&r.flow_traces[0], &r.flow_traces[1]);
    let w = 2 * US;
    let fair = GOODPUT_100G / 2.0;
    // Goodput over the window [t, t + 2 us]; first times on a 1 us grid.
    let rate = |f, t| goodput(f, t, t + w, Sample::AtOrBefore);
    let converged = first_time(join, join + 100 * US, US, |t| {
        let (ra, rb) = (rate(a, t), rate(b, t));
        (ra / fair - 1.0).abs() <= 0.2 && (rb / fair - 1.0).abs() <= 0.2
    })
    .expect("never converged after the join");
    let leave = join + r.flows[1].fct.unwrap();
    let recovered = first_time(leave, leave + 100 * US, US, |t| rate(a, t) >= 0.9 * GOODPUT_100G)
        .expect("never recovered after the leave");
    let peak = Stat::in_window(&r.queues[0], join..=join + 50 * US).max;
    let (tj, tl) = (converged - join, recovered - leave);
    eprintln!(
        "{name}: join -> fair in {:.1} us ({:.1} RTT), peak queue {peak:.0} B; leave -> 90% in {:.1} us ({:.1} RTT)",
        tj as f64 / 1e6,
        tj as f64 / T as f64,
        tl as f64 / 1e6,
        tl as f64 / T as f64
    );
    assert!(tj <= 5 * T, "{name}: join took {tj} ps");
    assert!(tl <= 5 * T, "{name}: leave took {tl} ps");
    // The newcomer's first RTT at line rate adds about one BDP to the queue.
    assert!(peak < 1.5 * BDP, "{name}: peak queue {peak}");
}

#[test]
fn powertcp_reacts_to_a_flow_joining_and_leaving_within_a_few_rtts() {
    join_and_leave("powertcp", &*PowerTcpConfig::default().into_scheme());
}

#[test]
fn theta_powertcp_reacts_to_a_flow_joining_and_leaving_within_a_few_rtts() {
    join_and_leave("theta_powertcp", &*ThetaPowerTcpConfig::default().into_scheme());
}
