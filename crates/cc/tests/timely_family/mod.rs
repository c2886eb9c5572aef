//! Shared by the TIMELY and patched TIMELY behaviour tests: the SQCC paper's
//! setup (dumbbell, 10 Gbps, 1 us per link; senders 0..n, receivers n..2n, the
//! bottleneck is switch 2n -> 2n+1) and measurements over time windows.
#![allow(dead_code)]

use ccsim_core::cc::Scheme;
use ccsim_core::results::FlowTrace;
use ccsim_core::time::{ser_time, Time, US};
use ccsim_core::{run, FlowSpec, NetConfig, PortRef, RunResult, SimOptions, TraceConfig};
use ccsim_workload::topo::{dumbbell, Tier};

/// Link rate everywhere (bits/s).
pub const C: u64 = 10_000_000_000;
/// Payload bytes per wire byte of a full data packet (1000 B + 48 B header).
pub const GOODPUT_SHARE: f64 = 1000.0 / 1048.0;
/// Trace sampling interval.
pub const TICK: Time = 10 * US;

/// The RTT sample an idle path gives (ps), serialization at the sender NIC
/// taken off as the schemes do: 3 links x 1 us each way, a full data packet
/// serialized on the two switch egresses, a 60 B ACK on all three links.
pub fn idle_rtt() -> Time {
    6 * US + 2 * ser_time(1048, C) + 3 * ser_time(60, C)
}

/// Bits/s of payload one of `n` flows gets at a fair share of the bottleneck.
pub fn fair_goodput(n: u32) -> f64 {
    C as f64 * GOODPUT_SHARE / n as f64
}

/// Runs flows i -> n+i of `size` bytes starting at `starts[i]` on the dumbbell,
/// tracing the bottleneck queue and utilization and every flow.
pub fn run_dumbbell(
    scheme: &dyn Scheme,
    starts: &[Time],
    size: u64,
    stop: Option<Time>,
) -> RunResult {
    let n = starts.len() as u32;
    let topo = dumbbell(n, Tier::new(C, US), Tier::new(C, US), 2).unwrap();
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
        stop_at: stop,
        trace: TraceConfig {
            interval: TICK,
            queue_ports: vec![bottleneck],
            util_ports: vec![bottleneck],
            flows: (0..n).collect(),
        },
        ..Default::default()
    };
    run(&topo, &NetConfig::default(), &flows, scheme, &opts, None).unwrap()
}

/// Indices of samples with t0 <= t < t1.
fn window(t: &[Time], t0: Time, t1: Time) -> impl Iterator<Item = usize> + '_ {
    t.iter()
        .enumerate()
        .filter(move |(_, &x)| x >= t0 && x < t1)
        .map(|(i, _)| i)
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, k) = v.fold((0.0, 0usize), |(s, k), x| (s + x, k + 1));
    assert!(k > 0, "empty window");
    s / k as f64
}

/// Payload bits/s a flow got over [t0, t1) (from its acked-bytes trace).
pub fn goodput(f: &FlowTrace, t0: Time, t1: Time) -> f64 {
    let at = |t: Time| {
        let i =
            f.t.iter()
                .position(|&x| x >= t)
                .expect("window beyond the trace");
        f.acked[i]
    };
    (at(t1) - at(t0)) * 8.0 / ((t1 - t0) as f64 / 1e12)
}

/// Goodput of every flow over [t0, t1).
pub fn goodputs(r: &RunResult, t0: Time, t1: Time) -> Vec<f64> {
    r.flow_traces.iter().map(|f| goodput(f, t0, t1)).collect()
}

/// Mean bottleneck queue (bytes) over [t0, t1).
pub fn mean_queue(r: &RunResult, t0: Time, t1: Time) -> f64 {
    let q = &r.queues[0];
    mean(window(&q.t, t0, t1).map(|i| q.v[i]))
}

/// Largest sampled bottleneck queue (bytes) over [t0, t1).
pub fn max_queue(r: &RunResult, t0: Time, t1: Time) -> f64 {
    let q = &r.queues[0];
    window(&q.t, t0, t1).map(|i| q.v[i]).fold(0.0, f64::max)
}

/// Mean bottleneck utilization over [t0, t1).
pub fn mean_util(r: &RunResult, t0: Time, t1: Time) -> f64 {
    let u = &r.utilization[0];
    mean(window(&u.t, t0, t1).map(|i| u.v[i]))
}

/// Mean of a flow's probe (the TIMELY family: last RTT sample in us) over [t0, t1).
pub fn mean_probe(f: &FlowTrace, t0: Time, t1: Time) -> f64 {
    mean(window(&f.t, t0, t1).map(|i| f.probe[i]))
}

/// Queueing delay (us) of `bytes` at the bottleneck.
pub fn queue_us(bytes: f64) -> f64 {
    bytes * 8.0 / C as f64 * 1e6
}

/// First time (a multiple of `step` from `from`) after which every `step`-long
/// window up to `until` satisfies `ok(t0, t1)`; None if the last one fails.
pub fn settle_time(
    from: Time,
    until: Time,
    step: Time,
    mut ok: impl FnMut(Time, Time) -> bool,
) -> Option<Time> {
    let mut settled = None;
    let mut t = from;
    while t + step <= until {
        if ok(t, t + step) {
            settled.get_or_insert(t);
        } else {
            settled = None;
        }
        t += step;
    }
    settled
}
