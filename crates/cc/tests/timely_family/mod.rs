//! Shared by the TIMELY-family behaviour tests (TIMELY, patched TIMELY, SQCC):
//! the SQCC paper's setup (dumbbell, 10 Gbps, 1 us per link; senders 0..n,
//! receivers n..2n, the bottleneck is switch 2n -> 2n+1) and measurements over
//! time windows.
#![allow(dead_code)]

// The generic helpers, also reachable as `timely_family::support`.
pub(crate) use crate::support;

use ccsim_core::cc::Scheme;
use ccsim_core::results::FlowTrace;
use ccsim_core::time::{ser_time, Time, US};
use ccsim_core::RunResult;
// For the tests that include this module (not all use it).
#[allow(unused_imports)]
pub use support::settle_time;
use support::{same_size, Dumbbell, Sample};

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
pub fn run_dumbbell(scheme: &dyn Scheme, starts: &[Time], size: u64, stop: Option<Time>) -> RunResult {
    let d = Dumbbell { stop_at: stop, ..Dumbbell::new(C, TICK) };
    d.run(scheme, &same_size(size, starts))
}

/// Payload bits/s a flow got over [t0, t1) (from its acked-bytes trace: the
/// first samples at or after t0 and t1).
pub fn goodput(f: &FlowTrace, t0: Time, t1: Time) -> f64 {
    support::goodput(f, t0, t1, Sample::AtOrAfter)
}

/// Goodput of every flow over [t0, t1).
pub fn goodputs(r: &RunResult, t0: Time, t1: Time) -> Vec<f64> {
    support::goodputs(r, t0, t1, Sample::AtOrAfter)
}

/// Mean bottleneck queue (bytes) over [t0, t1).
pub fn mean_queue(r: &RunResult, t0: Time, t1: Time) -> f64 {
    support::mean_queue(r, t0..t1)
}

/// Largest sampled bottleneck queue (bytes) over [t0, t1).
pub fn max_queue(r: &RunResult, t0: Time, t1: Time) -> f64 {
    support::max_queue(r, t0..t1)
}

/// Mean bottleneck utilization over [t0, t1).
pub fn mean_util(r: &RunResult, t0: Time, t1: Time) -> f64 {
    support::mean_util(r, t0..t1)
}

/// Mean of a flow's probe (the TIMELY family: last RTT sample in us) over [t0, t1).
pub fn mean_probe(f: &FlowTrace, t0: Time, t1: Time) -> f64 {
    support::mean(&support::values_in(&f.t, &f.probe, t0..t1))
}

/// Rates in Gbps rounded to 1 Mbps, for printing.
pub fn gbps_3dp(x: &[f64]) -> Vec<f64> {
    x.iter().map(|x| (x / 1e6).round() / 1e3).collect()
}

/// Queueing delay (us) of `bytes` at the bottleneck.
pub fn queue_us(bytes: f64) -> f64 {
    bytes * 8.0 / C as f64 * 1e6
}
