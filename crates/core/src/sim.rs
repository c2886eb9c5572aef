//! The simulator: builds the network from a topology, runs the event loop and
//! collects results.

use crate::cc::Scheme;
use crate::config::NetConfig;
use crate::flow::FlowSpec;
use crate::results::{PortRef, RunResult};
use crate::time::Time;
use crate::topology::Topology;

/// What to record besides per-flow and per-port results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceConfig {
    /// Sampling interval for all series. 0 = no series recorded.
    pub interval: Time,
    /// Egress ports whose queue length is sampled.
    pub queue_ports: Vec<PortRef>,
    /// Egress ports whose utilization is sampled (bytes sent per interval / capacity).
    pub util_ports: Vec<PortRef>,
    /// Flows whose rate, window, acked bytes and scheme probe are sampled.
    pub flows: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SimOptions {
    /// Seed of every random choice (ECN marking, spraying, ECMP salt).
    pub seed: u64,
    /// Stop at this simulated time even if flows are unfinished (None: run until all finish).
    pub stop_at: Option<Time>,
    pub trace: TraceConfig,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions { seed: 1, stop_at: None, trace: TraceConfig::default() }
    }
}

/// Reported to a progress callback about every 2^20 events.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub now: Time,
    pub events: u64,
    pub flows_done: usize,
    pub flows_total: usize,
    pub wall_secs: f64,
}

pub struct Simulator {
    _private: (),
}

impl Simulator {
    /// Builds the network. Errors (as text naming the problem) for a topology
    /// that fails validation, flows naming non-hosts, or a config the model cannot run.
    pub fn new(
        _topo: &Topology,
        _net: &NetConfig,
        _flows: &[FlowSpec],
        _scheme: &dyn Scheme,
        _opts: &SimOptions,
    ) -> Result<Simulator, String> {
        todo!("core engine in progress")
    }

    pub fn run(self, _progress: Option<&mut dyn FnMut(&Progress)>) -> RunResult {
        todo!("core engine in progress")
    }
}

/// Builds and runs in one call.
pub fn run(
    topo: &Topology,
    net: &NetConfig,
    flows: &[FlowSpec],
    scheme: &dyn Scheme,
    opts: &SimOptions,
    progress: Option<&mut dyn FnMut(&Progress)>,
) -> Result<RunResult, String> {
    Ok(Simulator::new(topo, net, flows, scheme, opts)?.run(progress))
}
