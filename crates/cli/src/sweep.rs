//! `ccsim sweep`: a scenario at every point of a grid of values, run in
//! parallel on this machine with the run cache (an interrupted or repeated
//! sweep runs only the points not cached yet), written as one tidy CSV.
//! The grid, the points and the metrics are `ccsim_repro::sweep`'s, the
//! same engine the Python package's `ccsim.sweep` runs on Dask.

use clap::Args;
use std::io::Write as _;
use std::path::PathBuf;

use ccsim_core::time::Time;
use ccsim_repro::cache::Cache;
use ccsim_repro::exec::{self, Outcome, Status};
use ccsim_repro::sweep::{self, Axis, Point};
use ccsim_scenario::Overrides;

use crate::progress::ProgressLine;
use crate::reproduce::{progress_text, version};
use crate::table::wall;
use crate::Fail;

#[derive(Args, Debug, Clone)]
pub struct SweepArgs {
    /// Scenario file (TOML).
    pub scenario: PathBuf,
    /// An axis of the grid: key=v1,v2,... (repeatable; `a..b` for integer
    /// ranges). Keys: scheme, seed, or any scenario key path (as --set):
    /// --grid workload[0].load=0.3,0.5,0.8 --grid seed=1..5. Without a
    /// scheme axis every scheme of the scenario runs.
    #[arg(long = "grid", value_name = "KEY=VALUES", required = true)]
    pub grid: Vec<String>,
    /// Override any scenario value at every point, as `run --set` does, e.g.
    /// --set network.pfc.static_xoff=500KB (repeatable; not a --grid key).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Seed of every point, instead of the scenario's (not with a seed axis).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Stop every point at this simulated time, e.g. 5ms (default: the scenario's `stop`).
    #[arg(long, value_parser = crate::parse_stop)]
    pub stop: Option<Time>,
    /// Simulations at once (default: the number of CPUs).
    #[arg(long, value_parser = crate::jobs_arg)]
    pub jobs: Option<usize>,
    /// Where sweep.csv goes: <out>/<scenario name>/sweep.csv (default results).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Where finished runs are cached (default results/cache).
    #[arg(long)]
    pub cache: Option<PathBuf>,
    /// Replace an existing sweep.csv instead of writing sweep-2.csv, sweep-3.csv, ...
    #[arg(long)]
    pub force: bool,
    /// No progress line.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `dir/sweep.csv`, or with one there already (and no `--force`) the first
/// free `sweep-N.csv`: a second sweep never replaces the first one's table.
fn target_file(dir: &std::path::Path, force: bool) -> PathBuf {
    let first = dir.join("sweep.csv");
    if force || !first.exists() {
        return first;
    }
    (2..).map(|n| dir.join(format!("sweep-{n}.csv"))).find(|p| !p.exists()).expect("a free name")
}

/// Whether `--set` key `set` and `--grid` key `axis` name the same value
/// or one inside the other (`workload[0]` and `workload[0].load`). The
/// `scheme` axis is the scheme's name, not a key path.
fn overlaps(set: &str, axis: &str) -> bool {
    let norm = |k: &str| k.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let (s, g) = (norm(set), norm(axis));
    let inside = |outer: &str, inner: &str| {
        inner.strip_prefix(outer).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
    };
    if g == "scheme" {
        return s == g;
    }
    inside(&s, &g) || inside(&g, &s)
}

/// The overrides every point shares, read as `run` reads them; refused
/// when a grid axis also sets the value.
fn shared_overrides(a: &SweepArgs, axes: &[Axis]) -> Result<Overrides, Fail> {
    let sets = crate::commands::parse_sets(&a.set)?;
    for (k, v) in &sets {
        if let Some(axis) = axes.iter().find(|x| overlaps(k, &x.key)) {
            return Err(Fail::Input(format!(
                "--set {k}={v}: {} is a --grid axis; a value is either fixed for every point (--set) or swept (--grid), not both",
                axis.key
            )));
        }
    }
    for (flag, given, key) in [("--seed", a.seed.is_some(), "seed"), ("--stop", a.stop.is_some(), "stop")] {
        if given && axes.iter().any(|x| x.key.trim() == key) {
            return Err(Fail::Input(format!(
                "{flag} and --grid {key}=... both set the {key} of every point: give one of them"
            )));
        }
    }
    Ok(Overrides { seed: a.seed, stop: a.stop, sets, ..Default::default() })
}

pub fn sweep(a: &SweepArgs) -> Result<(), Fail> {
    let axes = a.grid.iter().map(|g| sweep::parse_axis(g)).collect::<Result<Vec<_>, _>>().map_err(Fail::Input)?;
    let ov = shared_overrides(a, &axes)?;
    let version = version();
    let points = sweep::plan_with(&a.scenario, &ov, &axes, &version).map_err(Fail::Input)?;
    let name = ccsim_scenario::load(&a.scenario, &ov).map_err(Fail::Input)?.dir_name();
    let dir = a.out.clone().unwrap_or_else(|| PathBuf::from("results")).join(name);
    std::fs::create_dir_all(&dir)
        .map_err(|e| Fail::Runtime(format!("cannot write results to {}: {e}", dir.display())))?;
    let cache = Cache::new(&a.cache.clone().unwrap_or_else(|| PathBuf::from("results/cache")));
    let specs: Vec<_> = points.iter().map(|p| p.spec.clone()).collect();
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let jobs = a.jobs.unwrap_or(cpus).max(1);
    if !a.quiet {
        let todo: Vec<_> = specs.iter().filter(|s| !cache.contains(&s.key)).collect();
        let cached = specs.len() - todo.len();
        errln!("{}: {} points ({cached} cached), {jobs} at a time", a.scenario.display(), points.len());
        if !todo.is_empty() {
            errln!("{}", crate::progress::estimate_line(todo.iter().map(|s| s.est_events).sum(), todo.len(), jobs));
        }
    }
    let line = std::sync::Mutex::new(ProgressLine::new(a.quiet));
    let show = |s: &Status| line.lock().unwrap_or_else(|e| e.into_inner()).update(|| progress_text(s));
    let t0 = std::time::Instant::now();
    // Ctrl-C or SIGTERM: no point starts after it, running ones stop, and
    // the points finished so far are written (a second signal exits at once)
    let stop = ccsim_core::sim::Interrupt::default();
    crate::commands::on_signals(&stop);
    let outcomes = exec::run_all_until(&specs, &cache, jobs, &show, &stop);
    line.lock().unwrap_or_else(|e| e.into_inner()).finish();
    let target = target_file(&dir, a.force);
    let (failed, stopped): (Vec<_>, Vec<_>) = write_csv(&target, &points, &outcomes, &cache)
        .map_err(|e| Fail::Runtime(format!("cannot write {}: {e}", target.display())))?
        .into_iter()
        .partition(|(_, e)| e != exec::INTERRUPTED);
    let ran = outcomes.iter().filter(|o| matches!(o, Outcome::Ran(_))).count();
    outln!(
        "{} points: {ran} simulated, {} from the cache, {} failed{}, in {}",
        points.len(),
        outcomes.iter().filter(|o| matches!(o, Outcome::Cached)).count(),
        failed.len(),
        if stopped.is_empty() { String::new() } else { format!(", {} interrupted", stopped.len()) },
        wall(t0.elapsed().as_secs_f64())
    );
    outln!("results: {} (one row per point and metric)", target.display());
    for (p, e) in &failed {
        errln!("error: point [{}]: {e}", label(p));
    }
    if !stopped.is_empty() {
        return Err(Fail::Incomplete(format!(
            "interrupted: {} of {} points written; the same command runs the other {} (finished points are cached)",
            points.len() - failed.len() - stopped.len(),
            points.len(),
            stopped.len()
        )));
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Fail::Runtime(format!("{} of {} points failed", failed.len(), points.len())))
    }
}

fn label(p: &Point) -> String {
    p.grid.iter().map(|(k, v)| format!("{k}={}", sweep::value_text(v))).collect::<Vec<_>>().join(" ")
}

/// Writes the tidy table (via a temporary file, renamed into place) of the
/// points that finished and returns the others (failed, or not run: an
/// interrupted sweep, [`exec::INTERRUPTED`]), with their errors.
fn write_csv<'a>(
    target: &std::path::Path,
    points: &'a [Point],
    outcomes: &[Outcome],
    cache: &Cache,
) -> std::io::Result<Vec<(&'a Point, String)>> {
    let tmp = target.with_extension(format!("csv.tmp-{}", std::process::id()));
    let mut failed = Vec::new();
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        let header: Vec<String> = sweep::header(points).iter().map(|h| crate::output::csv_field(h)).collect();
        writeln!(w, "{}", header.join(","))?;
        for (p, o) in points.iter().zip(outcomes) {
            if let Outcome::Failed(e) = o {
                failed.push((p, e.clone()));
                continue;
            }
            let Some(stored) = cache.get(&p.spec.key) else {
                failed.push((p, "its result is missing from the cache".to_string()));
                continue;
            };
            for row in sweep::point_rows(points, p, &stored.result) {
                let row: Vec<String> = row.iter().map(|f| crate::output::csv_field(f)).collect();
                writeln!(w, "{}", row.join(","))?;
            }
        }
        w.flush()?;
    }
    std::fs::rename(&tmp, target)?;
    Ok(failed)
}

#[cfg(test)]
mod tests {
    use super::overlaps;

    #[test]
    fn a_set_overlaps_an_axis_of_the_same_value_or_inside_it() {
        assert!(overlaps("workload[0].load", "workload[0].load"));
        assert!(overlaps("workload[ 0 ].load", "workload[0].load"));
        assert!(overlaps("workload[0]", "workload[0].load"));
        assert!(overlaps("workload", "workload[1].load"));
        assert!(overlaps("network.pfc.static_xoff", "network.pfc"));
        assert!(overlaps("seed", "seed"));
        assert!(!overlaps("workload[0].load", "workload[1].load"));
        assert!(!overlaps("workload[0].load", "workload[0].load_x"));
        assert!(!overlaps("network.pfc", "network.pfc_x"));
        // the scheme axis is a name, not the [scheme] table
        assert!(!overlaps("scheme.hpcc.eta", "scheme"));
        assert!(overlaps("scheme", "scheme"));
    }
}
