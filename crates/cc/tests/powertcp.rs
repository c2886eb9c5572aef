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

use ccsim_cc::powertcp::{PowerTcpConfig, RefWindow, ThetaPowerTcpConfig};
use ccsim_cc::SchemeConfig;
use ccsim_core::results::FlowTrace;
use ccsim_core::sim::{run, SimOptions, TraceConfig};
use ccsim_core::time::{Time, US};
use ccsim_core::{FlowSpec, NetConfig, PortRef, RunResult, Scheme};
use ccsim_workload::topo::{dumbbell, Tier};

const G100: u64 = 100_000_000_000;
/// Base RTT of the dumbbell's host pairs, ps.
const T: Time = 6_251_520;
const BDP: f64 = 78_144.0;
const BETA: f64 = BDP / 10.0;
/// Goodput of a saturated 100 Gbps link with 1000 B payloads in 1048 B packets.
const GOODPUT: f64 = 100e9 * 1000.0 / 1048.0;

/// Runs `flows` = (size, start) from left host i to right host i on a dumbbell
/// with one left/right host per flow; traces every 1 us.
fn dumbbell_run(scheme: &dyn Scheme, flows: &[(u64, Time)]) -> RunResult {
    let n = flows.len() as u32;
    let topo = dumbbell(n, Tier::new(G100, US), Tier::new(G100, US), 2).unwrap();
    let specs: Vec<FlowSpec> = flows
        .iter()
        .enumerate()
        .map(|(i, &(size, start))| FlowSpec {
            id: i as u32,
            src: i as u32,
            dst: n + i as u32,
            size,
            start,
            prio: 0,
        })
        .collect();
    let bottleneck = PortRef {
        node: 2 * n,
        peer: 2 * n + 1,
    };
    let opts = SimOptions {
        trace: TraceConfig {
            interval: US,
            queue_ports: vec![bottleneck],
            util_ports: vec![bottleneck],
            flows: (0..n).collect(),
        },
        ..Default::default()
    };
    let r = run(&topo, &NetConfig::default(), &specs, scheme, &opts, None).unwrap();
    assert_eq!(r.drops, 0, "lossless: no drops");
    assert!(!r.truncated);
    for f in &r.flows {
        assert!(f.fct.is_some(), "flow {} unfinished", f.id);
        assert_eq!(f.retransmits, 0, "flow {}", f.id);
    }
    r
}

/// Acked bytes of `f` at time `t` (the last sample at or before t).
fn acked_at(f: &FlowTrace, t: Time) -> f64 {
    match f.t.iter().rposition(|&s| s <= t) {
        Some(i) => f.acked[i],
        None => 0.0,
    }
}

/// Goodput of `f` over [a, b] in bits/s.
fn goodput(f: &FlowTrace, a: Time, b: Time) -> f64 {
    (acked_at(f, b) - acked_at(f, a)) * 8.0 / ((b - a) as f64 / 1e12)
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

/// Mean, min, max and standard deviation of samples with t in [a, b].
struct Stat {
    mean: f64,
    min: f64,
    max: f64,
    std: f64,
}

fn stat(t: &[Time], v: &[f64], a: Time, b: Time) -> Stat {
    let xs: Vec<f64> = t
        .iter()
        .zip(v)
        .filter(|(&t, _)| t >= a && t <= b)
        .map(|(_, &v)| v)
        .collect();
    assert!(!xs.is_empty());
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    Stat {
        mean,
        min: xs.iter().cloned().fold(f64::MAX, f64::min),
        max: xs.iter().cloned().fold(0.0, f64::max),
        std: var.sqrt(),
    }
}

/// Steady-state window of the long-flow runs.
const FROM: Time = 150 * US;
const TO: Time = 450 * US;

/// `n` long flows started 10 us apart, each large enough to run past `TO`.
fn long_flows(n: u64) -> Vec<(u64, Time)> {
    (0..n).map(|i| (6_400_000 / n, i * 10 * US)).collect()
}

struct Steady {
    rates: Vec<f64>,
    jain: f64,
    util: f64,
    queue: Stat,
}

fn steady(r: &RunResult) -> Steady {
    let rates: Vec<f64> = r.flow_traces.iter().map(|f| goodput(f, FROM, TO)).collect();
    let q = &r.queues[0];
    let u = &r.utilization[0];
    Steady {
        jain: jain(&rates),
        util: stat(&u.t, &u.v, FROM, TO).mean,
        queue: stat(&q.t, &q.v, FROM, TO),
        rates,
    }
}

/// The checks every steady state must pass: each flow within 10% of the fair
/// share of the link's goodput, Jain >= 0.99, utilization >= 97%.
fn check_fair_and_full(name: &str, s: &Steady) {
    let n = s.rates.len() as f64;
    let total: f64 = s.rates.iter().sum();
    eprintln!(
        "{name}: rates {:?} Gbps, total {:.1} Gbps, Jain {:.4}, util {:.3}, queue mean {:.0} min {:.0} max {:.0} std {:.0} B",
        s.rates.iter().map(|r| (r / 1e8).round() / 10.0).collect::<Vec<_>>(),
        total / 1e9,
        s.jain,
        s.util,
        s.queue.mean,
        s.queue.min,
        s.queue.max,
        s.queue.std
    );
    for (i, r) in s.rates.iter().enumerate() {
        let fair = GOODPUT / n;
        assert!(
            (r / fair - 1.0).abs() <= 0.10,
            "{name}: flow {i} at {:.1} Gbps, fair share {:.1}",
            r / 1e9,
            fair / 1e9
        );
    }
    assert!(s.jain >= 0.99, "{name}: Jain {}", s.jain);
    assert!(total >= 0.97 * GOODPUT, "{name}: total {total}");
    assert!(s.util >= 0.97, "{name}: utilization {}", s.util);
}

#[test]
fn powertcp_converges_to_fair_share_with_a_standing_queue_of_n_beta() {
    for n in [2u64, 4] {
        let r = dumbbell_run(&*PowerTcpConfig::default().into_scheme(), &long_flows(n));
        let s = steady(&r);
        check_fair_and_full(&format!("powertcp n={n}"), &s);
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
        let theta = steady(&dumbbell_run(
            &*ThetaPowerTcpConfig::default().into_scheme(),
            &flows,
        ));
        check_fair_and_full(&format!("theta_powertcp n={n}"), &theta);
        // RTT settles at rtt_slack x T + N x beta / B.
        let expect = n as f64 * BETA + 0.05 * BDP;
        assert!(
            theta.queue.mean > 0.85 * expect && theta.queue.mean < 1.15 * expect,
            "mean queue {} vs N x beta + 0.05 BDP = {expect}",
            theta.queue.mean
        );
        assert!(theta.queue.max < BDP, "max queue {}", theta.queue.max);
        let power = steady(&dumbbell_run(
            &*PowerTcpConfig::default().into_scheme(),
            &flows,
        ));
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
    let per_rtt = steady(&dumbbell_run(
        &*PowerTcpConfig::default().into_scheme(),
        &flows,
    ));
    let cfg = PowerTcpConfig {
        reference_window: RefWindow::Packet,
        ..Default::default()
    };
    let per_packet = steady(&dumbbell_run(&*cfg.into_scheme(), &flows));
    check_fair_and_full("powertcp reference_window=packet", &per_packet);
    // Same equilibrium (N x beta), less swing around it.
    let expect = 2.0 * BETA;
    assert!(
        (per_packet.queue.mean / expect - 1.0).abs() < 0.15,
        "mean queue {}",
        per_packet.queue.mean
    );
    assert!(
        per_packet.queue.std < 0.6 * per_rtt.queue.std,
        "queue std: per packet {} vs per RTT {}",
        per_packet.queue.std,
        per_rtt.queue.std
    );
}

/// First time t >= `from` at which `ok(t)` holds for the 2 us window [t, t + 2 us].
fn first_time(from: Time, to: Time, ok: impl Fn(Time) -> bool) -> Option<Time> {
    (from..to).step_by(US as usize).find(|&t| ok(t))
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
    let fair = GOODPUT / 2.0;
    let converged = first_time(join, join + 100 * US, |t| {
        let (ra, rb) = (goodput(a, t, t + w), goodput(b, t, t + w));
        (ra / fair - 1.0).abs() <= 0.2 && (rb / fair - 1.0).abs() <= 0.2
    })
    .expect("never converged after the join");
    let leave = join + r.flows[1].fct.unwrap();
    let recovered = first_time(leave, leave + 100 * US, |t| {
        goodput(a, t, t + w) >= 0.9 * GOODPUT
    })
    .expect("never recovered after the leave");
    let q = &r.queues[0];
    let peak = stat(&q.t, &q.v, join, join + 50 * US).max;
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
    join_and_leave(
        "theta_powertcp",
        &*ThetaPowerTcpConfig::default().into_scheme(),
    );
}
