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

/// `--list`: each paper's claims (id, headline or not, status, runs and
/// estimated CPU time at both scales), then a total per paper. Papers are
/// outlined in parallel (see [`plan::outlines`]); a named paper also shows
/// where in the paper each claim is.
fn list(a: &ReproduceArgs, root: &Path) -> Result<(), Fail> {
    let papers = papers_of(a, root)?;
    let version = version();
    let outlined: Vec<Result<(manifest::Manifest, [Plan; 2]), String>> = std::thread::scope(|s| {
        let handles: Vec<_> = papers
            .iter()
            .map(|p| {
                let version = &version;
                s.spawn(move || -> Result<_, String> {
                    let m = manifest::read(&root.join(p))?;
                    Ok((m, plan::outlines(root, p, version)?))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("outline failed".into()))).collect()
    });
    let width = crate::table::term_width();
    let mut totals = Table::new(&[
        "paper",
        "claims",
        "run",
        "not simulated",
        "reduced runs",
        "reduced est.",
        "full runs",
        "full est.",
    ]);
    outln!("Estimated CPU time on one core (~{:.0}M events/s); divide by --jobs.", EVENTS_PER_SEC / 1e6);
    outln!("A claim's runs include those it shares with other claims; * marks a headline claim.");
    for (p, o) in papers.iter().zip(outlined) {
        let (m, plans) = o.map_err(Fail::Input)?;
        let cost: Vec<(usize, f64)> = plans
            .iter()
            .map(|plan| (plan.runs.len(), plan.runs.iter().map(|r| r.est_events).sum::<f64>() / EVENTS_PER_SEC))
            .collect();
        let run = m.claims.iter().filter(|c| c.status == ClaimStatus::Run).count();
        totals.row(vec![
            p.clone(),
            m.claims.len().to_string(),
            run.to_string(),
            (m.claims.len() - run).to_string(),
            cost[0].0.to_string(),
            wall(cost[0].1),
            cost[1].0.to_string(),
            wall(cost[1].1),
        ]);
        outln!("\n{} — {}", m.paper, m.title);
        out!("{}", claims_table(&m, &plans, a.paper.is_some()).render_fit(width, &[1]));
        for (plan, scale) in plans.iter().zip(["reduced", "full"]) {
            for e in plan.papers.iter().flat_map(|pp| pp.claims.iter()).filter_map(|c| c.error.as_ref()) {
                outln!("cannot plan ({scale} scale): {e}");
            }
        }
    }
    outln!();
    out!("{}", totals.render());
    Ok(())
}

/// One row per claim of `m`: id, kind (headline, result or set-up check),
/// status, and per scale its runs and their estimated CPU time; with
/// `place`, also the metric and where in the paper.
fn claims_table(m: &manifest::Manifest, plans: &[Plan; 2], place: bool) -> Table {
    let mut head = vec!["claim", "kind", "status", "reduced", "full"];
    if place {
        head.splice(1..1, ["where", "metric"]);
    }
    let mut t = Table::new(&head);
    let per_claim: Vec<_> = plans.iter().map(claim_costs).collect();
    for (i, cl) in m.claims.iter().enumerate() {
        let failed = plans
            .iter()
            .flat_map(|p| p.papers.iter().flat_map(|pp| pp.claims.iter()))
            .any(|c| c.claim == i && c.error.is_some());
        let status = match cl.status {
            ClaimStatus::Run if failed => "cannot plan",
            ClaimStatus::Run => "run",
            ClaimStatus::NotSimulable => "not simulable",
            ClaimStatus::NotAttempted => "not attempted",
        };
        let kind = match (cl.headline, cl.kind) {
            (true, _) => "headline",
            (_, manifest::Kind::Check) => "check",
            _ => "result",
        };
        let cost = |k: usize| {
            per_claim[k].get(&i).map_or_else(
                || "-".to_string(),
                |&(n, secs)| format!("{n} run{} {}", if n == 1 { "" } else { "s" }, wall(secs)),
            )
        };
        let id = if cl.headline { format!("* {}", cl.id) } else { format!("  {}", cl.id) };
        let mut row = vec![id, kind.into(), status.into(), cost(0), cost(1)];
        if place {
            row.splice(1..1, [cl.where_.clone(), cl.metric.clone().unwrap_or_default()]);
        }
        t.row(row);
    }
    t
}

/// The runs of each planned claim (points, seeds and sensitivity sweeps)
/// and their estimated CPU seconds, by claim index.
fn claim_costs(plan: &Plan) -> std::collections::BTreeMap<usize, (usize, f64)> {
    let Some(pp) = plan.papers.first() else { return Default::default() };
    pp.claims
        .iter()
        .filter(|c| c.error.is_none())
        .map(|c| {
            let mut runs: Vec<usize> = c.run_indices().collect();
            runs.sort_unstable();
            runs.dedup();
            (c.claim, (runs.len(), runs.iter().map(|&r| plan.runs[r].est_events).sum::<f64>() / EVENTS_PER_SEC))
        })
        .collect()
}
