//! `ccsim sweep`: a scenario at every point of a grid of values, run in
//! parallel on this machine with the run cache (an interrupted or repeated
//! sweep runs only the points not cached yet), written as one tidy CSV.
//! The grid, the points and the metrics are `ccsim_repro::sweep`'s, the
//! same engine the Python package's `ccsim.sweep` runs on Dask.

use clap::Args;
use std::io::Write as _;
use std::path::PathBuf;

use ccsim_repro::cache::Cache;
use ccsim_repro::exec::{self, Outcome, Status};
use ccsim_repro::sweep::{self, Point};

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

pub fn sweep(a: &SweepArgs) -> Result<(), Fail> {
    let axes = a.grid.iter().map(|g| sweep::parse_axis(g)).collect::<Result<Vec<_>, _>>().map_err(Fail::Input)?;
    let version = version();
    let points = sweep::plan(&a.scenario, &axes, &version).map_err(Fail::Input)?;
    let name = ccsim_scenario::load(&a.scenario, &Default::default()).map_err(Fail::Input)?.dir_name();
    let dir = a.out.clone().unwrap_or_else(|| PathBuf::from("results")).join(name);
    std::fs::create_dir_all(&dir)
        .map_err(|e| Fail::Runtime(format!("cannot write results to {}: {e}", dir.display())))?;
    let cache = Cache::new(&a.cache.clone().unwrap_or_else(|| PathBuf::from("results/cache")));
    let specs: Vec<_> = points.iter().map(|p| p.spec.clone()).collect();
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let jobs = a.jobs.unwrap_or(cpus).max(1);
    if !a.quiet {
        let cached = specs.iter().filter(|s| cache.contains(&s.key)).count();
        errln!("{}: {} points ({cached} cached), {jobs} at a time", a.scenario.display(), points.len());
    }
    let line = std::sync::Mutex::new(ProgressLine::new(a.quiet));
    let show = |s: &Status| line.lock().unwrap_or_else(|e| e.into_inner()).update(|| progress_text(s));
    let t0 = std::time::Instant::now();
    let outcomes = exec::run_all(&specs, &cache, jobs, &show);
    line.lock().unwrap_or_else(|e| e.into_inner()).finish();
    let target = target_file(&dir, a.force);
    let failed = write_csv(&target, &points, &outcomes, &cache)
        .map_err(|e| Fail::Runtime(format!("cannot write {}: {e}", target.display())))?;
    let ran = outcomes.iter().filter(|o| matches!(o, Outcome::Ran(_))).count();
    outln!(
        "{} points: {ran} simulated, {} from the cache, {} failed, in {}",
        points.len(),
        outcomes.iter().filter(|o| matches!(o, Outcome::Cached)).count(),
        failed.len(),
        wall(t0.elapsed().as_secs_f64())
    );
    outln!("results: {} (one row per point and metric)", target.display());
    for (p, e) in &failed {
        errln!("error: point [{}]: {e}", label(p));
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

/// Writes the tidy table (via a temporary file, renamed into place) and
/// returns the points that failed, with their errors.
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
