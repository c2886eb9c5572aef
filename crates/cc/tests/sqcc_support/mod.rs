//! The SQCC paper's incast (seed sqcc-paper.txt §IV) for tests/sqcc.rs: a
//! dumbbell(N) at 10 Gbps with 1 us links, senders 0..N on the left switch
//! (node 2N), the receiver host N behind the right switch (2N+1); the
//! bottleneck is the egress 2N -> 2N+1. Lossless (the default network). The
//! paper's experiments themselves are experiments/sqcc/incast-n*.toml
//! (`ccsim reproduce sqcc`).

use ccsim_core::cc::Scheme;
use ccsim_core::time::{Time, US};
use ccsim_core::{run, FlowSpec, NetConfig, PortRef, RunResult, SimOptions, TraceConfig};
use ccsim_scenario::topo::{dumbbell, Tier};

/// Link rate everywhere (bits/s): the paper's C.
pub const C: u64 = 10_000_000_000;
/// Trace sampling interval.
pub const TICK: Time = 10 * US;

/// N:1 incast, N = `starts.len()`: sender i starts one flow of `size` bytes to
/// host N at `starts[i]`; the run stops at `stop`. Traces the bottleneck's
/// queue and utilization every [`TICK`], and every flow.
pub fn run_incast(scheme: &dyn Scheme, starts: &[Time], size: u64, stop: Time) -> RunResult {
    let n = starts.len() as u32;
    let topo = dumbbell(n, Tier::new(C, US), Tier::new(C, US), 2).unwrap();
    let flows: Vec<FlowSpec> =
        (0..n).map(|i| FlowSpec { id: i, src: i, dst: n, size, start: starts[i as usize], prio: 0 }).collect();
    let port = PortRef { node: 2 * n, peer: 2 * n + 1 };
    let opts = SimOptions {
        stop_at: Some(stop),
        trace: TraceConfig {
            interval: TICK,
            queue_ports: vec![port],
            util_ports: vec![port],
            flows: (0..n).collect(),
            ..Default::default()
        },
        ..Default::default()
    };
    run(&topo, &NetConfig::default(), &flows, scheme, &opts, None).unwrap()
}
