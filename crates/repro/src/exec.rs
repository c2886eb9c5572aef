//! Running a plan's runs on this machine: a pool of threads takes runs in
//! plan order, skips those already in the cache, simulates the rest and
//! stores each as it finishes. A failed run is reported and the others go
//! on. Progress (runs done / total, ETA from the runs' estimated cost) goes
//! to a callback.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::cache::Cache;
use crate::plan::RunSpec;
use ccsim_core::sim::Interrupt;

/// How one run of the plan went.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Found in the cache.
    Cached,
    /// Simulated now (wall seconds).
    Ran(f64),
    /// Could not be simulated or stored.
    Failed(String),
}

/// Progress of a plan.
#[derive(Clone, Debug, Default)]
pub struct Status {
    pub total: usize,
    pub done: usize,
    pub cached: usize,
    pub failed: usize,
    /// Seconds since the start.
    pub elapsed: f64,
    /// Estimated seconds left (None until a run has been simulated).
    pub eta: Option<f64>,
    /// Labels of the runs in progress.
    pub running: Vec<String>,
}

/// The message of a caught panic ("unknown panic" when it carries none).
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

/// Simulates one run (no cache): what every executor calls. A panic in
/// the simulator fails this run alone (release builds unwind).
pub fn simulate(spec: &RunSpec) -> Result<ccsim_core::RunResult, String> {
    simulate_until(spec, &Interrupt::default())
}

/// The error of a run stopped by [`run_all_until`]'s flag, or never started
/// because of it (not cached: a rerun simulates it).
pub const INTERRUPTED: &str = "interrupted before it finished";

/// [`simulate`], stopped at the next event boundary once `stop` is set (an
/// interrupted run is an error, [`INTERRUPTED`], never a result).
pub fn simulate_until(spec: &RunSpec, stop: &Interrupt) -> Result<ccsim_core::RunResult, String> {
    let mut scn = spec.load()?;
    scn.interrupt = stop.clone();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| scn.simulate(&spec.scheme, None)))
        .unwrap_or_else(|p| Err(format!("the simulator panicked: {}", panic_message(p.as_ref()))))?;
    if matches!(r.status, ccsim_core::results::RunStatus::Interrupted { .. }) {
        return Err(INTERRUPTED.into());
    }
    Ok(r)
}

/// Runs `runs` with `jobs` threads; outcomes in plan order.
pub fn run_all(runs: &[RunSpec], cache: &Cache, jobs: usize, progress: &(dyn Fn(&Status) + Sync)) -> Vec<Outcome> {
    run_all_until(runs, cache, jobs, progress, &Interrupt::default())
}

/// [`run_all`] that stops once `stop` is set (e.g. by Ctrl-C): no run
/// starts after that, running ones stop at their next event boundary, and
/// those and the runs never started fail with [`INTERRUPTED`] (cached runs
/// are [`Outcome::Cached`]); what finished before is cached and reported.
pub fn run_all_until(
    runs: &[RunSpec],
    cache: &Cache,
    jobs: usize,
    progress: &(dyn Fn(&Status) + Sync),
    stop: &Interrupt,
) -> Vec<Outcome> {
    let n = runs.len();
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    let cached: Vec<bool> = runs.iter().map(|r| cache.contains(&r.key)).collect();
    let todo_events: f64 = runs.iter().zip(&cached).filter(|x| !x.1).map(|x| x.0.est_events).sum();
    struct Shared {
        status: Status,
        outcomes: Vec<Option<Outcome>>,
        /// Estimated events of the runs simulated so far, and their CPU seconds.
        est_done: f64,
        secs_done: f64,
        running: Vec<Option<String>>,
    }
    let workers = jobs.clamp(1, n.max(1));
    let shared = Mutex::new(Shared {
        status: Status { total: n, ..Default::default() },
        outcomes: vec![None; n],
        est_done: 0.0,
        secs_done: 0.0,
        running: vec![None; workers],
    });
    let report = |sh: &mut Shared| {
        sh.status.elapsed = start.elapsed().as_secs_f64();
        sh.status.running = sh.running.iter().flatten().cloned().collect();
        if sh.est_done > 0.0 && sh.secs_done > 0.0 {
            let per_event = sh.secs_done / sh.est_done;
            sh.status.eta = Some(((todo_events - sh.est_done).max(0.0) * per_event) / workers as f64);
        }
        progress(&sh.status);
    };
    let work = |w: usize| loop {
        if stop.is_set() {
            break;
        }
        let i = next.fetch_add(1, Ordering::SeqCst);
        if i >= n {
            break;
        }
        let spec = &runs[i];
        let outcome = if cached[i] {
            Outcome::Cached
        } else {
            {
                let mut sh = shared.lock().unwrap_or_else(|e| e.into_inner());
                sh.running[w] = Some(spec.label());
                report(&mut sh);
            }
            let t0 = Instant::now();
            let r = simulate_until(spec, stop).and_then(|r| cache.put(spec, &r));
            let secs = t0.elapsed().as_secs_f64();
            let mut sh = shared.lock().unwrap_or_else(|e| e.into_inner());
            sh.running[w] = None;
            sh.est_done += spec.est_events;
            sh.secs_done += secs;
            match r {
                Ok(()) => Outcome::Ran(secs),
                Err(e) => Outcome::Failed(e),
            }
        };
        let mut sh = shared.lock().unwrap_or_else(|e| e.into_inner());
        sh.status.done += 1;
        match &outcome {
            Outcome::Cached => sh.status.cached += 1,
            Outcome::Failed(_) => sh.status.failed += 1,
            Outcome::Ran(_) => {}
        }
        sh.outcomes[i] = Some(outcome);
        report(&mut sh);
    };
    std::thread::scope(|s| {
        let mut spawned = 0;
        for w in 0..workers {
            let b = std::thread::Builder::new().name(format!("run-{w}")).stack_size(64 << 20);
            if b.spawn_scoped(s, move || work(w)).is_ok() {
                spawned += 1;
            }
        }
        if spawned == 0 {
            work(0);
        }
    });
    let sh = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    let not_run = |i: usize| {
        if cached[i] {
            Outcome::Cached
        } else if stop.is_set() {
            Outcome::Failed(INTERRUPTED.into())
        } else {
            Outcome::Failed("not run".into())
        }
    };
    sh.outcomes.into_iter().enumerate().map(|(i, o)| o.unwrap_or_else(|| not_run(i))).collect()
}
