//! What a run is asked for besides its network and traffic: the seed, the
//! stop time, the traces, the stall limit, an interrupt flag and the end
//! checks; and what a progress callback is told.

use crate::results::PortRef;
use crate::time::Time;

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
    /// Also record every change of the traced flows' rate or window
    /// (`FlowTrace::changes`).
    pub changes: bool,
    /// Also record every ACK of the traced flows (`FlowTrace::acks`).
    pub acks: bool,
    /// Bin the RTT sample of every ACK of every flow (`RunResult::rtt`).
    pub rtt: bool,
    /// Stream every sample to CSV files in this folder as it is taken
    /// (see [`crate::trace`]); memory then keeps a bounded preview.
    pub dir: Option<std::path::PathBuf>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SimOptions {
    /// Seed of every random choice (ECN marking, spraying, ECMP salt).
    pub seed: u64,
    /// Stop at this simulated time even if flows are unfinished (None: run until all finish).
    pub stop_at: Option<Time>,
    pub trace: TraceConfig,
    /// End the run as stalled (or deadlocked, when paused ports form a
    /// cycle) when flows are active and no data is delivered for this long.
    /// Default 10 ms of simulated time.
    pub stall: Time,
    /// Set from another thread (e.g. a Ctrl-C handler) to stop the run at
    /// the next event boundary, with status interrupted.
    pub interrupt: Interrupt,
    /// Check the run's invariants at the end (see [`crate::check`]):
    /// conservation, no loss where lossless, buffer accounting, no packet
    /// leaked once the fabric drains. Default false (with
    /// [`crate::check::deep_checks`] every run checks the buffer accounting).
    pub check: bool,
    /// Count the run's events as a conservative parallel run of each of
    /// these thread counts would see them (`RunResult::parallel`; see
    /// [`crate::partition`]). Default none.
    pub project_threads: Vec<usize>,
    /// Threads one run uses ([`crate::parallel::simulate`]): the network is
    /// cut into as many parts, with results identical to one thread's.
    /// Default 1.
    pub threads: usize,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            seed: 1,
            stop_at: None,
            trace: TraceConfig::default(),
            stall: DEFAULT_STALL,
            interrupt: Interrupt::default(),
            check: false,
            project_threads: Vec::new(),
            threads: 1,
        }
    }
}

/// Default [`SimOptions::stall`]: 10 ms of simulated time.
pub const DEFAULT_STALL: Time = 10 * crate::time::MS;

/// A flag that asks running simulations to stop (shared by clones).
#[derive(Clone, Debug, Default)]
pub struct Interrupt(pub std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Interrupt {
    pub fn set(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    pub fn is_set(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl PartialEq for Interrupt {
    fn eq(&self, o: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &o.0)
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
