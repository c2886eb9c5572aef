//! `ccsim reproduce`: the seed papers' experiments, from their manifests
//! (`experiments/<paper>/manifest.toml`) to a report per paper. The work is
//! done by `ccsim-repro` in four steps (plan, runs, results, report); this
//! module parses the command line, shows progress and prints the outcome.

use clap::Args;
use std::path::{Path, PathBuf};

use ccsim_repro::cache::{self, Cache};
use ccsim_repro::exec::{self, Outcome, Status};
use ccsim_repro::manifest::{self, Status as ClaimStatus};
use ccsim_repro::plan::{self, Options, Plan};
use ccsim_repro::report;

use crate::progress::ProgressLine;
use crate::table::{wall, Table};
use crate::Fail;

#[derive(Args, Debug, Clone)]
pub struct ReproduceArgs {
    /// A paper (oscar, bolt, fncc, sqcc, srcc, uet) or `all`.
    pub paper: Option<String>,
    /// Only these claims (by id; repeatable). Figures are drawn for whole papers only.
    #[arg(long = "claim", value_name = "ID")]
    pub claims: Vec<String>,
    /// The paper's scale instead of the reduced one.
    #[arg(long)]
    pub full: bool,
    /// Seeds for the claims that average several runs (default: each claim's; 1 to 1000).
    #[arg(long, value_parser = crate::seeds_arg)]
    pub seeds: Option<u32>,
    /// Simulations at once (default: the number of CPUs).
    #[arg(long, value_parser = crate::jobs_arg)]
    pub jobs: Option<usize>,
    /// Where the reports go (default results/reproduce).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Where finished runs are cached (default results/cache).
    #[arg(long)]
    pub cache: Option<PathBuf>,
    /// The folder of paper manifests (default: ./experiments, else the repository's).
    #[arg(long)]
    pub experiments: Option<PathBuf>,
    /// List the papers and claims with the estimated run time per scale; run nothing.
    #[arg(long)]
    pub list: bool,
    /// Check the manifests and plan every run (scenarios, schemes, metric inputs); run nothing.
    #[arg(long)]
    pub check: bool,
    /// No progress line.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Simulator events per second assumed for estimates.
pub(crate) const EVENTS_PER_SEC: f64 = ccsim_repro::plan::EVENTS_PER_SEC;

/// The experiments folder: --experiments, else ./experiments, else the repository's.
fn experiments_dir(a: &ReproduceArgs) -> Result<PathBuf, Fail> {
    if let Some(p) = &a.experiments {
        return Ok(p.clone());
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    [PathBuf::from("experiments"), repo]
        .into_iter()
        .find(|p| p.join("README.md").is_file() || manifest::papers(p).is_ok_and(|v| !v.is_empty()))
        .ok_or_else(|| {
            Fail::Input(
                "no experiments folder found (looked in ./experiments and the repository's; use --experiments DIR)"
                    .into(),
            )
        })
}

fn papers_of(a: &ReproduceArgs, root: &Path) -> Result<Vec<String>, Fail> {
    let all = manifest::papers(root).map_err(Fail::Input)?;
    match a.paper.as_deref() {
        None | Some("all") => Ok(all),
        Some(p) if all.iter().any(|x| x == p) => Ok(vec![p.to_string()]),
        Some(p) => Err(Fail::Input(format!("unknown paper '{p}' (known: {}, all)", all.join(", ")))),
    }
}

pub(crate) fn version() -> String {
    std::env::current_exe().map(|p| cache::version_of(&p)).unwrap_or_else(|_| "unknown".into())
}

pub fn reproduce(a: &ReproduceArgs) -> Result<(), Fail> {
    let root = experiments_dir(a)?;
    if a.list {
        return list(a, &root);
    }
    if a.paper.is_none() && a.claims.is_empty() {
        return Err(Fail::Input("name a paper or `all` (ccsim reproduce --list shows them)".into()));
    }
    let papers = papers_of(a, &root)?;
    let version = version();
    let opts = Options {
        full: a.full,
        seeds: a.seeds,
        claims: (!a.claims.is_empty()).then(|| a.claims.clone()),
        version: version.clone(),
        outline: false,
    };
    let plan = plan::plan(&root, &papers, &opts).map_err(Fail::Input)?;
    let errors: Vec<String> = plan
        .papers
        .iter()
        .flat_map(|p| {
            p.claims.iter().filter_map(|c| c.error.clone()).chain(p.figures.iter().filter_map(|f| f.error.clone()))
        })
        .collect();
    let cache = Cache::new(&a.cache.clone().unwrap_or_else(|| PathBuf::from("results/cache")));
    let est: f64 = plan.runs.iter().map(|r| r.est_events).sum();
    if a.check {
        for e in &errors {
            errln!("error: {e}");
        }
        let mut big: Vec<&plan::RunSpec> = plan.runs.iter().collect();
        big.sort_by(|a, b| b.est_events.total_cmp(&a.est_events));
        if !a.quiet {
            outln!("largest runs (estimated):");
            for r in big.iter().take(8) {
                outln!("  {:>9}  {}", wall(r.est_events / EVENTS_PER_SEC), r.label());
            }
        }
        let claims: usize = plan.papers.iter().map(|p| p.claims.len()).sum();
        outln!(
            "{} paper(s), {claims} claims to run, {} distinct runs (estimated {} on one core); {} problem(s)",
            plan.papers.len(),
            plan.runs.len(),
            wall(est / EVENTS_PER_SEC),
            errors.len()
        );
        return if errors.is_empty() {
            Ok(())
        } else {
            Err(Fail::Input(format!("{} claims or figures cannot be planned", errors.len())))
        };
    }
    for e in &errors {
        errln!("warning: {e}");
    }
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let jobs = a.jobs.unwrap_or(cpus).max(1);
    let todo: Vec<&plan::RunSpec> = plan.runs.iter().filter(|r| !cache.contains(&r.key)).collect();
    if !a.quiet {
        // (an empty f64 sum is -0.0: say "nothing" rather than "-0.00s")
        let cost = if todo.is_empty() {
            "nothing to simulate".to_string()
        } else {
            let secs = todo.iter().map(|r| r.est_events).sum::<f64>() / EVENTS_PER_SEC / jobs as f64;
            format!("estimated {} of simulation", wall(secs))
        };
        errln!(
            "{}: {} runs ({} cached), {} at a time; {cost}",
            papers.join(", "),
            plan.runs.len(),
            plan.runs.len() - todo.len(),
            jobs,
        );
    }
    let line = std::sync::Mutex::new(ProgressLine::new(a.quiet));
    let show = |s: &Status| {
        let mut l = line.lock().unwrap_or_else(|e| e.into_inner());
        l.update(|| progress_text(s));
    };
    let outcomes = exec::run_all(&plan.runs, &cache, jobs, &show);
    line.lock().unwrap_or_else(|e| e.into_inner()).finish();
    let out = a.out.clone().unwrap_or_else(|| PathBuf::from("results/reproduce"));
    let sums = report::write(&plan, &cache, &outcomes, &out, &version).map_err(Fail::Runtime)?;
    print_summary(&plan, &outcomes, &sums, &out);
    let failed = outcomes.iter().filter(|o| matches!(o, Outcome::Failed(_))).count();
    if failed > 0 {
        return Err(Fail::Runtime(format!("{failed} of {} runs failed (see the reports)", plan.runs.len())));
    }
    Ok(())
}

/// "[=======>      ] 12/40 runs (3 cached) | ETA 3m20s | fncc/fig9-100g.toml hpcc seed 1"
pub(crate) fn progress_text(s: &Status) -> String {
    let width = 20;
    let filled = (s.done * width).checked_div(s.total).unwrap_or(width);
    let bar = format!("[{}{}]", "=".repeat(filled), " ".repeat(width - filled));
    let eta = s.eta.map(|e| format!(" | ETA {}", wall(e))).unwrap_or_default();
    let failed = if s.failed > 0 { format!(", {} failed", s.failed) } else { String::new() };
    let running = s.running.first().map(|r| format!(" | {r}")).unwrap_or_default();
    format!("{bar} {}/{} runs ({} cached{failed}) | {}{eta}{running}", s.done, s.total, s.cached, wall(s.elapsed))
}

fn print_summary(plan: &Plan, outcomes: &[Outcome], sums: &[report::PaperSummary], out: &Path) {
    let ran = outcomes.iter().filter(|o| matches!(o, Outcome::Ran(_))).count();
    let cached = outcomes.iter().filter(|o| matches!(o, Outcome::Cached)).count();
    let failed = outcomes.len() - ran - cached;
    outln!(
        "{} runs: {ran} simulated, {cached} from the cache, {failed} failed ({} scale)",
        plan.runs.len(),
        if plan.full { "full" } else { "reduced" }
    );
    let columns: Vec<&str> = std::iter::once("paper").chain(ccsim_repro::report::TALLY_COLUMNS).collect();
    let mut t = Table::new(&columns);
    for s in sums {
        let mut row = vec![s.paper.clone()];
        row.extend(s.cells());
        t.row(row);
    }
    out!("{}", t.render());
    for s in sums {
        outln!("report: {}", s.dir.join("report.md").display());
    }
    outln!("index: {}", out.join("index.md").display());
}

/// `--list`: papers and their claims, with estimated run times per scale.
fn list(a: &ReproduceArgs, root: &Path) -> Result<(), Fail> {
    let papers = papers_of(a, root)?;
    let version = version();
    let mut t = Table::new(&[
        "paper",
        "claims",
        "run",
        "not simulated",
        "reduced runs",
        "reduced est.",
        "full runs",
        "full est.",
    ]);
    let mut details = Vec::new();
    for p in &papers {
        let m = manifest::read(&root.join(p)).map_err(Fail::Input)?;
        let mut cost = Vec::new();
        let mut per_claim = Vec::new();
        for full in [false, true] {
            let opts = Options { full, version: version.clone(), outline: true, ..Default::default() };
            let plan = plan::plan(root, std::slice::from_ref(p), &opts).map_err(Fail::Input)?;
            let ev: f64 = plan.runs.iter().map(|r| r.est_events).sum();
            cost.push((plan.runs.len(), ev / EVENTS_PER_SEC));
            per_claim.push(claim_costs(&plan));
        }
        let run = m.claims.iter().filter(|c| c.status == ClaimStatus::Run).count();
        t.row(vec![
            p.clone(),
            m.claims.len().to_string(),
            run.to_string(),
            (m.claims.len() - run).to_string(),
            cost[0].0.to_string(),
            wall(cost[0].1),
            cost[1].0.to_string(),
            wall(cost[1].1),
        ]);
        if a.paper.is_some() {
            details.push((m, per_claim));
        }
    }
    outln!("Estimated CPU time on one core (~{:.0}M events/s); divide by --jobs.", EVENTS_PER_SEC / 1e6);
    out!("{}", t.render());
    for (m, per_claim) in details {
        outln!("\n{} — {}", m.paper, m.title);
        outln!("(est.: CPU time of the claim's runs on one core, runs shared with other claims included)");
        let mut c = Table::new(&["claim", "where", "kind", "metric", "status", "reduced est.", "full est."]);
        for (i, cl) in m.claims.iter().enumerate() {
            let status = match cl.status {
                ClaimStatus::Run => "run",
                ClaimStatus::NotSimulable => "not simulable",
                ClaimStatus::NotAttempted => "not attempted",
            };
            let kind = match (cl.headline, cl.kind) {
                (true, _) => "headline",
                (_, manifest::Kind::Check) => "check",
                _ => "result",
            };
            let est = |k: usize| per_claim[k].get(&i).map(|s| wall(*s)).unwrap_or_default();
            c.row(vec![
                cl.id.clone(),
                cl.where_.clone(),
                kind.into(),
                cl.metric.clone().unwrap_or_default(),
                status.into(),
                est(0),
                est(1),
            ]);
        }
        out!("{}", c.render_fit(usize::MAX, &[]));
    }
    Ok(())
}

/// Estimated CPU seconds of each planned claim's runs (points, seeds and
/// sensitivity sweeps), by claim index.
fn claim_costs(plan: &Plan) -> std::collections::BTreeMap<usize, f64> {
    let Some(pp) = plan.papers.first() else { return Default::default() };
    pp.claims
        .iter()
        .map(|c| {
            let mut runs: Vec<usize> = c.run_indices().collect();
            runs.sort_unstable();
            runs.dedup();
            (c.claim, runs.iter().map(|&r| plan.runs[r].est_events).sum::<f64>() / EVENTS_PER_SEC)
        })
        .collect()
}
