//! Helpers shared by the behaviour tests in this directory (each test file
//! includes them with `mod support;`): building and running the usual traced
//! experiments, and measuring a run's traces over time windows.
//!
//! Where the tests differ in what a window means, the helpers take it as a
//! parameter rather than picking one meaning:
//! * time windows are `RangeBounds<Time>`: `t0..=t1` includes a sample at t1,
//!   `t0..t1` does not, `t0..` has no end;
//! * the acked bytes "at" a time come from the sample chosen by [`Sample`].
//!
//! Each test binary uses a subset of the helpers, hence `allow(dead_code)`.
#![allow(dead_code)]

use ccsim_core::results::{jain, FlowTrace, Series};
use ccsim_core::time::{Time, US};
use ccsim_core::{run, FlowSpec, NetConfig, PortRef, RunResult, Scheme, SimOptions, TraceConfig};
use ccsim_scenario::topo::{dumbbell, Tier};
use std::ops::RangeBounds;

pub const G10: u64 = 10_000_000_000;
pub const G100: u64 = 100_000_000_000;
/// Largest goodput (bits/s) of a 100 Gbps path: 1000 B of payload per 1048 B
/// data packet on the wire (NetConfig defaults).
pub const GOODPUT_100G: f64 = 100e9 * 1000.0 / 1048.0;
/// The same for packets that carry INT (HPCC, PowerTCP): the fixed 42 B INT
/// header on top (`network.int_encoding` default).
pub const GOODPUT_100G_INT: f64 = 100e9 * 1000.0 / 1090.0;

// ---- schemes, flows and runs ----

/// Scheme `name` from the registry, with its parameter table given as TOML
/// text ("" for the defaults).
pub fn make_scheme(name: &str, params: &str) -> Box<dyn Scheme> {
    let p: toml::Value = toml::from_str(params).unwrap();
    ccsim_cc::make(name, Some(&p)).unwrap()
}

/// Flow i from host i to host n + i (n = `flows.len()`), of `flows[i]` =
/// (size in bytes, start time): the senders 0..n and receivers n..2n of a
/// dumbbell (or of any topology numbered that way).
pub fn paired_flows(flows: &[(u64, Time)]) -> Vec<FlowSpec> {
    let n = flows.len() as u32;
    flows
        .iter()
        .zip(0..)
        .map(|(&(size, start), i)| FlowSpec { id: i, src: i, dst: n + i, size, start, prio: 0 })
        .collect()
}

/// (size, start) of flows of `size` bytes each, flow i starting at `starts[i]`.
pub fn same_size(size: u64, starts: &[Time]) -> Vec<(u64, Time)> {
    starts.iter().map(|&start| (size, start)).collect()
}

/// (size, start) of `n` flows of `size` bytes each, flow i starting at i x `gap`.
pub fn staggered(n: u32, size: u64, gap: Time) -> Vec<(u64, Time)> {
    (0..n as u64).map(|i| (size, i * gap)).collect()
}

/// `n` flows of `size` bytes from hosts 0..n to host n, all starting at 0: an
/// incast on a star of n + 1 hosts.
pub fn incast_flows(n: u32, size: u64) -> Vec<FlowSpec> {
    (0..n).map(|i| FlowSpec { id: i, src: i, dst: n, size, start: 0, prio: 0 }).collect()
}

/// The incast's bottleneck on a star of n + 1 hosts: the switch (node n + 1)
/// towards the receiver, host n.
pub fn incast_port(n: u32) -> PortRef {
    PortRef { node: n + 1, peer: n }
}

/// A dumbbell's bottleneck with `n` hosts a side: its first switch (node 2n)
/// towards the second.
pub fn dumbbell_bottleneck(n: u32) -> PortRef {
    PortRef { node: 2 * n, peer: 2 * n + 1 }
}

/// Default options (seed, no stop) that sample every `interval` the queue and
/// the utilization of `ports` (in that order: `queues[i]`, `utilization[i]`)
/// and flows 0..`flows`.
pub fn traced(interval: Time, ports: &[PortRef], flows: u32) -> SimOptions {
    SimOptions {
        trace: TraceConfig {
            interval,
            queue_ports: ports.to_vec(),
            util_ports: ports.to_vec(),
            flows: (0..flows).collect(),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// A dumbbell experiment: n senders (hosts 0..n) and n receivers (n..2n)
/// across a chain of switches, every link alike; [`Dumbbell::run`] runs flow i
/// from host i to host n + i and traces the bottleneck
/// ([`dumbbell_bottleneck`]: `queues[0]`, `utilization[0]`) and every flow.
#[derive(Clone, Debug)]
pub struct Dumbbell {
    /// Rate and one-way delay of every link.
    pub link: Tier,
    /// Switches in the chain (at least 2).
    pub switches: u32,
    /// Trace sampling interval.
    pub trace_every: Time,
    pub net: NetConfig,
    pub seed: u64,
    /// Stop here even if flows are unfinished (None: run until all finish).
    pub stop_at: Option<Time>,
}

impl Dumbbell {
    /// Two switches, links of `rate` with 1 us delay, the default network and
    /// simulation options, traced every `trace_every`.
    pub fn new(rate: u64, trace_every: Time) -> Dumbbell {
        let defaults = SimOptions::default();
        Dumbbell {
            link: Tier::new(rate, US),
            switches: 2,
            trace_every,
            net: NetConfig::default(),
            seed: defaults.seed,
            stop_at: defaults.stop_at,
        }
    }

    /// Runs `flows` = (size, start) per flow with one host pair per flow.
    pub fn run(&self, scheme: &dyn Scheme, flows: &[(u64, Time)]) -> RunResult {
        let n = flows.len() as u32;
        let topo = dumbbell(n, self.link, self.link, self.switches).unwrap();
        let opts = SimOptions {
            seed: self.seed,
            stop_at: self.stop_at,
            ..traced(self.trace_every, &[dumbbell_bottleneck(n)], n)
        };
        run(&topo, &self.net, &paired_flows(flows), scheme, &opts, None).unwrap()
    }
}

// ---- checks on a finished run ----

/// Whether every flow finished.
pub fn all_finished(r: &RunResult) -> bool {
    r.flows.iter().all(|f| f.fct.is_some())
}

/// The run ended on its own (not truncated), every flow finished, nothing was
/// dropped.
pub fn check_clean(r: &RunResult) {
    assert!(!r.truncated, "the run was truncated");
    assert!(all_finished(r), "every flow finishes");
    assert_eq!(r.drops, 0, "lossless fabric");
}

/// When the first flow finished (all must have).
pub fn first_done(r: &RunResult) -> Time {
    r.flows.iter().map(|f| f.start + f.fct.unwrap()).min().unwrap()
}

// ---- goodput from the acked-bytes traces ----

/// Which trace sample gives a flow's acked bytes at a time t.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// The names say which sample; the shared prefix is the point.
#[allow(clippy::enum_variant_names)]
pub enum Sample {
    /// The last sample at or before t (traces start with a sample at 0, so
    /// there always is one).
    AtOrBefore,
    /// The first sample at or after t; the trace must reach t.
    AtOrAfter,
    /// The first sample at or after t, or the last sample if the trace ends
    /// before t.
    AtOrAfterOrLast,
}

/// Bytes of flow `tr` acknowledged at time `t`, read from the sample `s` picks.
pub fn acked_at(tr: &FlowTrace, t: Time, s: Sample) -> f64 {
    let i = match s {
        Sample::AtOrBefore => {
            let i = tr.t.partition_point(|&x| x <= t);
            assert!(i > 0, "no sample at {t}");
            i - 1
        }
        Sample::AtOrAfter => {
            let i = tr.t.partition_point(|&x| x < t);
            assert!(i < tr.t.len(), "window beyond the trace: {t}");
            i
        }
        Sample::AtOrAfterOrLast => tr.t.partition_point(|&x| x < t).min(tr.t.len() - 1),
    };
    tr.acked[i]
}

/// Goodput (bits/s of acknowledged payload) of flow `tr` from `t0` to `t1`,
/// the acked bytes at each end read from the sample `s` picks.
pub fn goodput(tr: &FlowTrace, t0: Time, t1: Time, s: Sample) -> f64 {
    (acked_at(tr, t1, s) - acked_at(tr, t0, s)) * 8.0 / ((t1 - t0) as f64 / 1e12)
}

/// [`goodput`] of every traced flow.
pub fn goodputs(r: &RunResult, t0: Time, t1: Time, s: Sample) -> Vec<f64> {
    r.flow_traces.iter().map(|tr| goodput(tr, t0, t1, s)).collect()
}

/// Rates in Gbps rounded to 0.1, for printing.
pub fn gbps(x: &[f64]) -> Vec<f64> {
    x.iter().map(|v| (v / 1e8).round() / 10.0).collect()
}

// ---- sampled series over time windows ----

/// Values `v` of a sampled series whose sample time (`t`) lies in `window`.
pub fn values_in(t: &[Time], v: &[f64], window: impl RangeBounds<Time>) -> Vec<f64> {
    t.iter().zip(v).filter(|(t, _)| window.contains(*t)).map(|(_, &v)| v).collect()
}

/// (time, value) samples of `s` with the time in `window`.
pub fn points_in(s: &Series, window: impl RangeBounds<Time>) -> Vec<(Time, f64)> {
    s.t.iter().zip(&s.v).filter(|(t, _)| window.contains(*t)).map(|(&t, &v)| (t, v)).collect()
}

/// Samples of the first traced queue (bytes) in `window`.
pub fn queue_in(r: &RunResult, window: impl RangeBounds<Time>) -> Vec<f64> {
    values_in(&r.queues[0].t, &r.queues[0].v, window)
}

/// Samples of the first traced utilization in `window`.
pub fn util_in(r: &RunResult, window: impl RangeBounds<Time>) -> Vec<f64> {
    values_in(&r.utilization[0].t, &r.utilization[0].v, window)
}

/// Mean of the first traced queue (bytes) over `window`.
pub fn mean_queue(r: &RunResult, window: impl RangeBounds<Time>) -> f64 {
    mean(&queue_in(r, window))
}

/// Largest sample of the first traced queue (bytes) in `window` (0 if none).
pub fn max_queue(r: &RunResult, window: impl RangeBounds<Time>) -> f64 {
    max_of(&queue_in(r, window))
}

/// Mean of the first traced utilization over `window`.
pub fn mean_util(r: &RunResult, window: impl RangeBounds<Time>) -> f64 {
    mean(&util_in(r, window))
}

/// The probe samples of every traced flow in `window`, flow by flow.
pub fn probes_in(r: &RunResult, window: impl RangeBounds<Time>) -> Vec<f64> {
    r.flow_traces
        .iter()
        .flat_map(|tr| tr.t.iter().zip(&tr.probe))
        .filter(|(t, _)| window.contains(*t))
        .map(|(_, &p)| p)
        .collect()
}

// ---- statistics ----

/// Mean of a non-empty sample.
pub fn mean(v: &[f64]) -> f64 {
    assert!(!v.is_empty(), "no samples in the window");
    v.iter().sum::<f64>() / v.len() as f64
}

/// Largest of non-negative values (0 if there are none).
pub fn max_of(v: &[f64]) -> f64 {
    v.iter().cloned().fold(0.0, f64::max)
}

/// Mean, min, max and (population) standard deviation of a sample.
#[derive(Clone, Copy, Debug)]
pub struct Stat {
    pub mean: f64,
    pub min: f64,
    /// Largest value, at least 0.
    pub max: f64,
    pub std: f64,
}

impl Stat {
    /// Of the values `xs`, which must not be empty.
    pub fn of(xs: &[f64]) -> Stat {
        assert!(!xs.is_empty(), "no samples in the window");
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
        Stat { mean, min: xs.iter().cloned().fold(f64::MAX, f64::min), max: max_of(xs), std: var.sqrt() }
    }

    /// Of the samples of `s` in `window`.
    pub fn in_window(s: &Series, window: impl RangeBounds<Time>) -> Stat {
        Stat::of(&values_in(&s.t, &s.v, window))
    }
}

/// The flows and the bottleneck (`queues[0]`, `utilization[0]`) over a
/// steady-state window [t0, t1], both ends included.
#[derive(Clone, Debug)]
pub struct Steady {
    /// Goodput of every flow, from the samples at or before t0 and t1.
    pub goodputs: Vec<f64>,
    /// Jain's index of the goodputs.
    pub jain: f64,
    /// Queue samples (bytes) in [t0, t1].
    pub queue: Stat,
    /// Utilization samples in [util_from, t1].
    pub util: Stat,
}

impl Steady {
    /// A utilization sample covers the interval before it: `util_from` = t0 + 1
    /// leaves out the one ending at t0.
    pub fn measure(r: &RunResult, t0: Time, t1: Time, util_from: Time) -> Steady {
        let goodputs = goodputs(r, t0, t1, Sample::AtOrBefore);
        Steady {
            jain: jain(&goodputs),
            queue: Stat::in_window(&r.queues[0], t0..=t1),
            util: Stat::in_window(&r.utilization[0], util_from..=t1),
            goodputs,
        }
    }
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    s
}

/// The `q`-quantile (0..=1) of a non-empty sample: the sorted value at rank
/// (n - 1) q rounded to the nearest (q = 1 is the max).
pub fn quantile(v: &[f64], q: f64) -> f64 {
    let s = sorted(v);
    s[((s.len() - 1) as f64 * q).round() as usize]
}

/// The `p`-th percentile (0..=100) of a non-empty sample: the sorted value at
/// rank (n - 1) p / 100 rounded down (in integers).
pub fn percentile_floor(v: &[f64], p: usize) -> f64 {
    let s = sorted(v);
    s[(s.len() - 1) * p / 100]
}

/// The `p`-th percentile (0..=100) of a non-empty sample by the nearest-rank
/// method: the sorted value at 1-based rank ceil(p / 100 x n), at least 1.
pub fn percentile_nearest_rank(v: &[f64], p: f64) -> f64 {
    let s = sorted(v);
    s[((p / 100.0 * s.len() as f64).ceil() as usize).clamp(1, s.len()) - 1]
}

// ---- fairness and convergence ----

/// Largest |share - mean| / mean of the shares `x`.
pub fn deviation(x: &[f64]) -> f64 {
    let m = mean(x);
    x.iter().map(|v| (v - m).abs() / m).fold(0.0, f64::max)
}

/// Fair shares: Jain's index at least 0.99 and every share within 10% of the
/// mean.
pub fn fair(x: &[f64]) -> bool {
    jain(x) >= 0.99 && deviation(x) <= 0.1
}

/// Asserts every rate in `g` within `tol` (relative, inclusive) of `fair`.
pub fn assert_near_fair(what: &str, g: &[f64], fair: f64, tol: f64) {
    for (i, x) in g.iter().enumerate() {
        assert!((x / fair - 1.0).abs() <= tol, "{what}: flow {i} at {x:.4e} b/s vs fair {fair:.4e} (tolerance {tol})");
    }
}

/// The first of the times `from`, `from + step`, ... before `to` at which
/// `ok` holds.
pub fn first_time(from: Time, to: Time, step: Time, mut ok: impl FnMut(Time) -> bool) -> Option<Time> {
    (from..to).step_by(step as usize).find(|&t| ok(t))
}

/// Consecutive windows `step` long from `from` ([t, t + step] for t = from,
/// from + step, ... while t + step <= `until`): the first t from which
/// `ok(t, t + step)` holds for every later window too; None if the last fails.
/// Every window is evaluated.
pub fn settle_time(from: Time, until: Time, step: Time, mut ok: impl FnMut(Time, Time) -> bool) -> Option<Time> {
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

/// Sliding windows `win` long on a grid of `step` laid back from the end: the
/// earliest t >= `from` on the grid end - win, end - win - step, ... such that
/// `ok(t', t' + win)` holds for every grid point t' from t to end - win; None
/// if the last window (which is evaluated even if it starts before `from`)
/// fails. Scans back from the end and stops at the first window that fails.
pub fn converged_at(
    from: Time,
    end: Time,
    win: Time,
    step: Time,
    mut ok: impl FnMut(Time, Time) -> bool,
) -> Option<Time> {
    let mut t = end - win;
    let mut since = None;
    while ok(t, t + win) {
        since = Some(t);
        if t < from + step {
            break;
        }
        t -= step;
    }
    since
}
