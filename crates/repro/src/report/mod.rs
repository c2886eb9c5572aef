//! Reports: per paper `report.md` and a self-contained `report.html` (charts
//! inline; the Markdown links them from `charts/`), and an index of papers.
//! Per claim: the paper's words, paper beside measured (mean ± spread over
//! seeds), direction right?, within 2x?, what the paper leaves unstated and
//! what ccsim chose, a chart, and the sensitivity sweeps; then the paper's
//! figures redrawn from the runs, and what was not simulated and why.

mod charts;
pub mod doc;
mod index;
pub mod record;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use ccsim_core::results::RunResult;
use ccsim_scenario::Scenario;

use crate::cache::Cache;
use crate::exec::Outcome;
use crate::manifest::{value_text, Claim, Compare, Kind, Status};
use crate::metrics;
use crate::plan::{PaperPlan, Plan};
use crate::verdict::{self, fmt_num, ClaimEval, Verdict};
use doc::{Block, Doc};

/// What one paper's report found (for the index and the command's summary).
#[derive(Clone, Debug, Default)]
pub struct PaperSummary {
    pub paper: String,
    pub title: String,
    /// Claims by kind and verdict (checks apart from results).
    pub tally: record::Tally,
    pub runs: usize,
    pub failed_runs: usize,
    /// The report's folder.
    pub dir: PathBuf,
}

/// Column names of [`PaperSummary::cells`].
pub const TALLY_COLUMNS: [&str; 10] = [
    "headline reproduced",
    "results",
    "reproduced",
    "direction only",
    "not reproduced",
    "inconclusive",
    "fragile",
    "error",
    "not simulated",
    "checks held",
];

impl PaperSummary {
    /// The cells of `TALLY_COLUMNS`: headline claims reproduced of all, then
    /// the paper's results (checks apart) per verdict, then checks held of all.
    pub fn cells(&self) -> Vec<String> {
        let t = &self.tally;
        vec![
            format!("{}/{}", t.headline_reproduced, t.headline),
            t.results.to_string(),
            t.reproduced.to_string(),
            t.direction_only.to_string(),
            t.not_reproduced.to_string(),
            t.inconclusive.to_string(),
            t.fragile.to_string(),
            t.error.to_string(),
            t.not_simulated.to_string(),
            format!("{}/{}", t.checks_held, t.checks),
        ]
    }
}

/// A run's result with the scenario it ran.
type Loaded = Rc<(RunResult, Scenario)>;

/// Results of the plan's runs, loaded from the cache on demand (one paper at a time).
struct Runs<'a> {
    plan: &'a Plan,
    cache: &'a Cache,
    memo: RefCell<HashMap<usize, Loaded>>,
}

impl Runs<'_> {
    fn get(&self, i: usize) -> Result<Loaded, String> {
        if let Some(x) = self.memo.borrow().get(&i) {
            return Ok(x.clone());
        }
        let spec = &self.plan.runs[i];
        let stored = self.cache.get(&spec.key).ok_or_else(|| format!("run {} has no result", spec.label()))?;
        let scn = spec.load()?;
        let x = Rc::new((stored.result, scn));
        self.memo.borrow_mut().insert(i, x.clone());
        Ok(x)
    }

    fn value(&self, i: usize, metric: &str, params: &toml::Table) -> Result<Option<f64>, String> {
        let x = self.get(i)?;
        metrics::compute(metric, params, &metrics::Ctx { r: &x.0, scn: &x.1 })
    }
}

/// Writes every paper's report and the index under `out`; returns the summaries.
pub fn write(
    plan: &Plan,
    cache: &Cache,
    outcomes: &[Outcome],
    out: &Path,
    version: &str,
) -> Result<Vec<PaperSummary>, String> {
    let mut sums = Vec::new();
    for pp in &plan.papers {
        let runs = Runs { plan, cache, memo: RefCell::new(HashMap::new()) };
        sums.push(write_paper(out, pp, &runs, outcomes, version)?);
    }
    index::write(out)?;
    Ok(sums)
}

fn write_files(dir: &Path, d: &Doc) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write the report in {}: {e}", dir.display());
    let charts = dir.join("charts");
    std::fs::create_dir_all(&charts).map_err(fail)?;
    for (name, svg) in d.charts() {
        std::fs::write(charts.join(name), svg).map_err(fail)?;
    }
    std::fs::write(dir.join("report.md"), d.markdown()).map_err(fail)?;
    std::fs::write(dir.join("report.html"), d.html()).map_err(fail)
}

fn anchor(id: &str) -> String {
    format!("claim-{id}")
}

fn params_text(t: &toml::Table) -> String {
    t.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ")
}

fn unit_label(c: &Claim) -> String {
    match c.unit.as_deref() {
        Some(u) if !u.is_empty() => u.to_string(),
        _ => String::new(),
    }
}

/// The unit of the summary cells: relative claims show changes, in percent.
pub(crate) fn summary_unit(c: &Claim) -> String {
    if matches!(c.compare, Compare::Relative | Compare::SweepRelative) {
        "%".into()
    } else {
        unit_label(c)
    }
}

/// The one-line paper and measured cells of a claim for the summary table.
fn summary_cells(c: &Claim, e: &ClaimEval) -> (String, String) {
    let cells: Vec<(String, String)> = e.points.iter().map(|p| point_cells(c, &p.rows)).collect();
    let [(paper, measured)] = cells.as_slice() else {
        // a sweep: each point's values when they fit on a line
        let at = |i: usize, text: &str| match &e.points[i].x {
            Some(x) => format!("{}: {text}", value_text(x)),
            None => text.to_string(),
        };
        let joined = |f: &dyn Fn(&(String, String)) -> &String| {
            // a sweep_relative claim's first point has no change to show
            let shown = cells.iter().enumerate().filter(|(_, c)| !(c.0.is_empty() && c.1.is_empty()));
            shown.map(|(i, c)| at(i, f(c))).collect::<Vec<_>>().join(" / ")
        };
        let (paper, measured) = (joined(&|c| &c.0), joined(&|c| &c.1));
        if paper.len() + measured.len() > 400 {
            return (format!("{} points", e.points.len()), format!("{} points", e.points.len()));
        }
        return (paper, measured);
    };
    (paper.clone(), measured.clone())
}

/// The paper and measured cells of one point.
fn point_cells(c: &Claim, rows: &[verdict::Row]) -> (String, String) {
    // relative claims show their changes; sweep_relative claims the changes
    // along the sweep (the schemes' own values are in another unit)
    let shown: Vec<&verdict::Row> = match c.compare {
        Compare::Relative => rows.iter().filter(|r| r.name.contains('/')).collect(),
        Compare::SweepRelative => rows.iter().filter(|r| r.name.ends_with(" change")).collect(),
        _ => rows.iter().collect(),
    };
    let bound = match c.compare {
        Compare::AtMost => "≤ ",
        Compare::AtLeast => "≥ ",
        _ => "",
    };
    let paper: Vec<String> =
        shown.iter().filter_map(|r| r.paper.as_ref().map(|p| format!("{} {bound}{}", r.name, p.text()))).collect();
    let measured: Vec<String> = shown
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r.name,
                r.measured
                    .mean
                    .map_or_else(|| if r.measured.undefined > 0 { "never".into() } else { "-".into() }, fmt_num)
            )
        })
        .collect();
    let subject = c.subject.as_deref().unwrap_or("-");
    let paper = match c.compare {
        _ if !paper.is_empty() => paper.join("; "),
        Compare::Order | Compare::SweepOrder => {
            format!("order: {}", c.order.iter().map(|r| r.names().join(" = ")).collect::<Vec<_>>().join(" < "))
        }
        Compare::Lowest => format!("{subject} lowest"),
        Compare::Highest => format!("{subject} highest"),
        _ => String::new(),
    };
    (paper, measured.join("; "))
}

/// The claims of a report as records, in manifest order.
fn records(m: &crate::manifest::Manifest, evals: &[ClaimEval]) -> Vec<record::ClaimRecord> {
    m.claims
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            if c.status != Status::Run {
                return Some(record::skipped(c));
            }
            let e = evals.iter().find(|e| e.claim == i)?;
            let (paper, measured) = summary_cells(c, e);
            Some(record::judged(c, e, paper, measured))
        })
        .collect()
}

/// The headline table: the paper's number, ccsim at both scales (the other
/// scale from its report's `claims.json`, when there is one), the verdicts
/// and, for a miss, its measured cause.
pub(crate) fn headline_table(
    here: &[record::ClaimRecord],
    other: Option<&record::PaperRecord>,
    full: bool,
    link: &dyn Fn(&record::ClaimRecord) -> String,
) -> Block {
    let find = |id: &str| other.and_then(|o| o.claims.iter().find(|c| c.id == id));
    let rows = here
        .iter()
        .filter(|c| c.headline)
        .map(|c| {
            let o = find(&c.id);
            let (reduced, full_) = if full { (o, Some(c)) } else { (Some(c), o) };
            let cell =
                |r: Option<&record::ClaimRecord>| r.map_or_else(|| "not run".to_string(), |r| r.measured.clone());
            let verdict = |r: Option<&record::ClaimRecord>| r.map_or_else(|| "-".to_string(), |r| r.verdict.clone());
            let missed = [reduced, full_].iter().flatten().any(|r| !r.reproduced());
            vec![
                link(c),
                c.where_.clone(),
                with_unit(&c.paper, &c.unit),
                with_unit(&cell(reduced), &c.unit),
                verdict(reduced),
                with_unit(&cell(full_), &c.unit),
                verdict(full_),
                if missed { c.cause.clone().unwrap_or_else(|| "(no cause written yet)".into()) } else { String::new() },
            ]
        })
        .collect();
    Block::Table(
        ["claim", "where", "paper", "ccsim reduced", "verdict", "ccsim full", "verdict", "cause of a miss"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        rows,
    )
}

/// A summary cell with its unit, when it has one and a value.
fn with_unit(cell: &str, unit: &str) -> String {
    if unit.is_empty() || cell.is_empty() || cell == "-" || cell == "not run" || cell.ends_with("points") {
        cell.to_string()
    } else {
        format!("{cell} ({unit})")
    }
}

fn write_paper(
    out: &Path,
    pp: &PaperPlan,
    runs: &Runs,
    outcomes: &[Outcome],
    version: &str,
) -> Result<PaperSummary, String> {
    let m = &pp.manifest;
    let full = runs.plan.full;
    let dir = record::paper_dir(out, full, &m.paper);
    let evals = verdict::evaluate(m, &pp.claims, full, &|i, metric, p| runs.value(i, metric, p));
    let skipped: Vec<&Claim> = m.claims.iter().filter(|c| c.status != Status::Run).collect();
    let recs = records(m, &evals);
    let tally = record::Tally::of(&recs);
    let other = record::read(&record::paper_dir(out, !full, &m.paper));
    let mut used: Vec<usize> = pp.claims.iter().flat_map(|c| c.run_indices()).collect();
    used.extend(pp.figures.iter().flat_map(|f| f.runs.values().copied()));
    used.sort_unstable();
    used.dedup();
    let failed: Vec<(String, String)> = used
        .iter()
        .filter_map(|&i| match outcomes.get(i) {
            Some(Outcome::Failed(e)) => Some((runs.plan.runs[i].label(), e.clone())),
            _ => None,
        })
        .collect();
    let cpu: f64 = used.iter().filter_map(|&i| runs.get(i).ok().map(|x| x.0.engine.cpu_secs)).sum();

    let mut d = Doc { title: format!("{} — ccsim reproduction", m.title), blocks: vec![] };
    d.push(Block::Heading(1, m.title.clone(), "top".into()));
    d.push(Block::Para(format!(
        "Generated by `ccsim reproduce {}{}` (ccsim {version}): **{}** scale, {} runs ({} failed), {:.0} s of simulation CPU time. Paper: {}. Claims and scenarios: `experiments/{}/`. {}",
        m.paper,
        if full { " --full" } else { "" },
        if full { "full (the paper's)" } else { "reduced" },
        used.len(),
        failed.len(),
        cpu,
        match &m.cite {
            Some(url) => format!("[{}]({url})", m.title),
            None => format!("{} (no public DOI or URL known)", m.title),
        },
        m.paper,
        match (&other, full) {
            (Some(_), true) => format!("The reduced scale's values are from its report (`../../{}/claims.json`).", m.paper),
            (Some(_), false) => format!("The full scale's values are from its report (`../full/{}/claims.json`).", m.paper),
            (None, _) => String::new(),
        }
    )));
    let t = &tally;
    d.push(Block::Para(format!(
        "**{} headline claims**: {} reproduced, {} in direction only, {} inconclusive, {} fragile, {} missed. **{} results of the paper** run: {} reproduced, {} direction only, {} not reproduced, {} inconclusive, {} fragile, {} errors; {} not simulated. **{} set-up checks** (not paper results): {} held.",
        t.headline,
        t.headline_reproduced,
        t.headline_direction,
        t.headline_inconclusive,
        t.headline_fragile,
        t.headline_missed(),
        t.results,
        t.reproduced,
        t.direction_only,
        t.not_reproduced,
        t.inconclusive,
        t.fragile,
        t.error,
        t.not_simulated,
        t.checks,
        t.checks_held
    )));
    d.push(Block::Toc);
    let runs_table = runs_table(runs, &used);
    if !runs_table.warned.is_empty() {
        d.push(Block::Heading(2, "Warnings".into(), "warnings".into()));
        d.push(Block::Para(format!(
            "{} of {} runs have warnings: their numbers include many resends, retransmission timeouts or unfinished flows (every run's losses: [Runs](#runs)).",
            runs_table.warned_runs,
            runs_table.rows.len()
        )));
        let mut items: Vec<String> = runs_table.warned.iter().take(MAX_WARNINGS_LISTED).cloned().collect();
        if runs_table.warned.len() > MAX_WARNINGS_LISTED {
            items.push(format!(
                "and {} more warnings (the runs' losses: [Runs](#runs))",
                runs_table.warned.len() - MAX_WARNINGS_LISTED
            ));
        }
        d.push(Block::List(items));
    }
    d.push(Block::Heading(2, "Headline claims".into(), "headline".into()));
    d.push(headline_table(&recs, other.as_ref(), full, &|c| format!("[{}](#{})", c.id, anchor(&c.id))));
    d.push(Block::Para(
        "How to read: *direction* is right when every scheme sits on the same side of the baseline (or in the same order) as in the paper, or a bound/range holds; *within 2x* when every measured value is within a factor 2 of the paper's (for changes: same sign and within a factor 2; changes under 5 points: within 5 points; shares of a whole, in %: within 5 points or within 2x of the distance to 0% or 100%, whichever is nearer; a relative claim with the paper's absolute values: both). A comparison whose seeds disagree and whose 95% interval crosses the limit with the mean on the wrong side, or that differs by under 1% (changes: under 1 point), is a **tie**: the claim is **inconclusive** at that many seeds (`--seeds N` asks for more), never passed or failed on it. A claim is **reproduced** when both hold over the seeds: every seed holds, or the 95% interval of the seed mean (Student's t) lies inside the limit; one that holds on the mean only is **fragile**, never counted as reproduced. **Direction only** when only the first holds. Measured values are the mean over seeds ± the standard deviation (min to max; 95% CI of the mean). \"never\" = the metric's event did not happen in the run.".into(),
    ));
    for (kind, title, anchor_id) in
        [(Kind::Result, "Results of the paper", "claims"), (Kind::Check, "Set-up checks", "checks")]
    {
        let is_check = kind == Kind::Check;
        let rows: Vec<Vec<String>> = recs
            .iter()
            .filter(|r| r.is_check() == is_check && !r.skipped())
            .map(|r| {
                vec![
                    format!("[{}](#{}){}", r.id, anchor(&r.id), if r.headline { " **(headline)**" } else { "" }),
                    r.where_.clone(),
                    with_unit(&r.paper, &r.unit),
                    with_unit(&r.measured, &r.unit),
                    r.direction.clone(),
                    r.within2x.clone(),
                    r.verdict.clone(),
                ]
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        d.push(Block::Heading(2, title.into(), anchor_id.into()));
        if kind == Kind::Check {
            d.push(Block::Para("What ccsim's set-up must match for the results to mean anything (workload shares, offered load, flows finished, no loss): not results of the paper, and not counted as reproduced ones.".into()));
        }
        d.push(Block::Table(
            ["claim", "where", "paper", "measured", "direction", "within 2x", "verdict"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            rows,
        ));
    }
    d.push(Block::Heading(2, "Claim by claim".into(), "details".into()));
    for e in &evals {
        claim_section(&mut d, m, e, full);
    }
    figures_section(&mut d, pp, runs);
    if !skipped.is_empty() {
        d.push(Block::Heading(2, "Not simulated".into(), "not-simulated".into()));
        d.push(Block::Table(
            vec!["claim".into(), "where".into(), "says".into(), "status".into(), "why".into()],
            skipped
                .iter()
                .map(|c| {
                    vec![
                        c.id.clone(),
                        c.where_.clone(),
                        c.says.clone(),
                        if c.status == Status::NotSimulable { "not simulable" } else { "not attempted" }.into(),
                        c.reason.clone().unwrap_or_default(),
                    ]
                })
                .collect(),
        ));
    }
    if !runs_table.rows.is_empty() {
        d.push(Block::Heading(2, "Runs".into(), "runs".into()));
        d.push(Block::Para("Every run the claims and figures used, with what it lost: data packets sent (resends included), resent, retransmission timeouts, data packets trimmed, packets dropped, PAUSE frames sent.".into()));
        d.push(Block::Table(
            ["run", "status", "finished", "data packets", "resent", "timeouts", "trimmed", "drops", "PAUSE frames"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            runs_table.rows,
        ));
    }
    if !failed.is_empty() {
        d.push(Block::Heading(2, "Failed runs".into(), "failed".into()));
        d.push(Block::List(failed.iter().map(|(l, e)| format!("`{l}`: {e}")).collect()));
    }
    write_files(&dir, &d)?;
    let rec = record::PaperRecord {
        paper: m.paper.clone(),
        title: m.title.clone(),
        scale: record::scale_name(full).into(),
        runs: used.len(),
        failed_runs: failed.len(),
        cpu_secs: cpu,
        version: version.into(),
        claims: recs,
    };
    record::write(&dir, &rec)?;
    Ok(PaperSummary {
        paper: m.paper.clone(),
        title: m.title.clone(),
        tally,
        runs: used.len(),
        failed_runs: failed.len(),
        dir,
    })
}

/// Warnings listed at the top of a report; the rest are counted.
const MAX_WARNINGS_LISTED: usize = 20;

/// The runs section of a report: a row per run that has a result, and the
/// warnings of those runs (`output::warnings`) as list items naming the run.
struct RunsTable {
    rows: Vec<Vec<String>>,
    warned: Vec<String>,
    /// Runs with at least one warning.
    warned_runs: usize,
}

fn runs_table(runs: &Runs, used: &[usize]) -> RunsTable {
    let mut t = RunsTable { rows: Vec::new(), warned: Vec::new(), warned_runs: 0 };
    for &i in used {
        let Ok(x) = runs.get(i) else { continue };
        let (r, scn) = (&x.0, &x.1);
        let spec = &runs.plan.runs[i];
        let label = spec.label();
        let s = r.summary();
        let n = crate::output::thousands;
        t.rows.push(vec![
            format!("`{label}`"),
            r.status.name().to_string(),
            format!("{}/{}", n(s.finished as u64), n(s.flows as u64)),
            n(s.data_packets),
            n(s.retransmits),
            n(s.timeouts),
            n(s.trimmed),
            n(s.drops),
            n(s.pause_frames),
        ]);
        let ws = crate::output::warnings(scn, &spec.scheme, r);
        t.warned_runs += usize::from(!ws.is_empty());
        t.warned.extend(ws.iter().map(|w| format!("`{label}`: {w}")));
    }
    t
}

fn claim_section(d: &mut Doc, m: &crate::manifest::Manifest, e: &ClaimEval, full: bool) {
    let c = &m.claims[e.claim];
    let tag = match (c.headline, c.kind) {
        (true, _) => " (headline)",
        (_, Kind::Check) => " (set-up check)",
        _ => "",
    };
    d.push(Block::Heading(3, format!("{} — {}{tag}", c.id, c.where_), anchor(&c.id)));
    if !c.says.is_empty() {
        d.push(Block::Quote(c.says.clone()));
    }
    if let Some(err) = &e.error {
        d.push(Block::Para(format!("**Error:** {err}")));
    }
    let sweep_label = c
        .sweep
        .as_ref()
        .map(|s| s.label.clone().or_else(|| s.key.clone()).unwrap_or_else(|| "point".into()))
        .unwrap_or_default();
    for p in &e.points {
        let mut rows = Vec::new();
        for r in &p.rows {
            rows.push(vec![
                r.name.clone(),
                r.paper.as_ref().map_or_else(|| "-".into(), |x| x.text()),
                charts::measured_text(r),
            ]);
        }
        let head = match &p.x {
            Some(x) => format!("{sweep_label} = {}", value_text(x)),
            None => "scheme".into(),
        };
        if p.x.is_some() {
            d.push(Block::Para(format!(
                "At {head}: direction {}, within 2x {}.",
                p.direction.mark(),
                p.within2x.mark()
            )));
        }
        let (paper, ccsim) = if matches!(c.compare, Compare::Relative | Compare::SweepRelative) {
            ("paper (change, %)".to_string(), "ccsim (schemes in the metric's unit; changes in %)".to_string())
        } else {
            (format!("paper {}", unit_label(c)), format!("ccsim {}", unit_label(c)))
        };
        d.push(Block::Table(vec![head, paper, ccsim], rows));
    }
    if c.compare == Compare::Order || c.compare == Compare::SweepOrder {
        d.push(Block::Para(format!(
            "Paper's order (lowest first): {}.",
            c.order.iter().map(|r| r.names().join(" = ")).collect::<Vec<_>>().join(" < ")
        )));
    }
    d.push(Block::Para(format!(
        "Direction right: **{}**; within 2x: **{}** → **{}**.",
        e.direction.mark(),
        e.within2x.mark(),
        record::verdict_text(e)
    )));
    if let Some(cause) = c.cause.as_ref().filter(|_| e.verdict != Verdict::Reproduced) {
        d.push(Block::Para(format!("**Cause of the miss (measured):** {cause}")));
    }
    let more = claim_details(c, e, full, &sweep_label);
    let sweeps = match e.sensitivity.len() {
        0 => String::new(),
        1 => ", 1 sensitivity sweep".into(),
        n => format!(", {n} sensitivity sweeps"),
    };
    d.push(Block::Details(format!("Set-up, readings and chart{sweeps}"), more));
}

/// A claim's folded part: scenario and settings, the paper's silences and
/// ccsim's readings, the claim's chart and its sensitivity sweeps.
fn claim_details(c: &Claim, e: &ClaimEval, full: bool, sweep_label: &str) -> Vec<Block> {
    let scale = c.scale(full);
    let scenario = scale.and_then(|s| s.scenario.clone()).or_else(|| c.scenario.clone()).unwrap_or_default();
    let sets =
        scale.map(|s| params_text(&s.set)).filter(|s| !s.is_empty()).map(|s| format!(" with {s}")).unwrap_or_default();
    let mut more = vec![Block::Para(format!(
        "Scenario `{scenario}`{sets}; schemes {}; metric `{}` ({}){}; compare: {}{}.",
        c.schemes.join(", "),
        c.metric.as_deref().unwrap_or("-"),
        params_text(&c.params_at(full, 0)),
        if unit_label(c).is_empty() { String::new() } else { format!(", in {}", unit_label(c)) },
        c.compare.name(),
        c.baseline.as_ref().map(|b| format!(", baseline {b}")).unwrap_or_default()
    ))];
    if let Some(u) = &c.unstated {
        more.push(Block::Para(format!("*Left unstated by the paper:* {u}")));
    }
    if let Some(ch) = &c.chose {
        more.push(Block::Para(format!("*ccsim chose:* {ch}")));
    }
    if let Some(svg) =
        charts::claim_chart(&format!("c-{}", c.id), &format!("{}: {}", c.id, c.where_), &unit_label(c), sweep_label, e)
    {
        more.push(Block::Chart(format!("claim-{}.svg", c.id), svg));
    }
    for (k, s) in e.sensitivity.iter().enumerate() {
        let why = c.sensitivity.get(k).and_then(|x| x.why.clone()).map(|w| format!(" ({w})")).unwrap_or_default();
        more.push(Block::Para(format!("Sensitivity to `{}`{why}:", s.key)));
        let names: Vec<String> = s
            .rows
            .first()
            .and_then(|p| p.first())
            .map(|r| r.iter().map(|x| x.name.clone()).collect())
            .unwrap_or_default();
        let mut head = vec![s.key.clone()];
        head.extend(names.iter().cloned());
        let mut rows = Vec::new();
        for (i, v) in s.values.iter().enumerate() {
            for (j, pts) in s.rows[i].iter().enumerate() {
                let mut row =
                    vec![if s.rows[i].len() > 1 { format!("{} (point {j})", value_text(v)) } else { value_text(v) }];
                for n in &names {
                    row.push(pts.iter().find(|r| &r.name == n).map(charts::measured_text).unwrap_or_default());
                }
                rows.push(row);
            }
        }
        more.push(Block::Table(head, rows));
        more.push(Block::Chart(
            format!("sens-{}-{k}.svg", c.id),
            charts::sensitivity_chart(
                &format!("s-{}-{k}", c.id),
                &format!("{}: sensitivity to {}", c.id, s.key),
                &unit_label(c),
                s,
            ),
        ));
    }
    more
}

fn figures_section(d: &mut Doc, pp: &PaperPlan, runs: &Runs) {
    if pp.figures.is_empty() {
        return;
    }
    d.push(Block::Heading(2, "Figures".into(), "figures".into()));
    for fp in &pp.figures {
        let f = &pp.manifest.figures[fp.figure];
        d.push(Block::Heading(3, format!("{} — {}", f.where_, f.title), format!("figure-{}", f.id)));
        if let Some(e) = &fp.error {
            d.push(Block::Para(format!("**Error:** {e}")));
            continue;
        }
        let loaded: Result<Vec<(String, Loaded)>, String> =
            f.schemes.iter().map(|s| runs.get(fp.runs[s]).map(|x| (s.clone(), x))).collect();
        let drawn = loaded.and_then(|l| {
            let refs: Vec<charts::FigRun> = l.iter().map(|(n, x)| (n.clone(), &x.0, &x.1)).collect();
            charts::figure_chart(&format!("f-{}", f.id), f, &refs)
        });
        match drawn {
            Ok(svg) => {
                d.push(Block::Para(format!("Scenario `{}`, seed 1; schemes {}.", f.scenario, f.schemes.join(", "))));
                d.push(Block::Chart(format!("figure-{}.svg", f.id), svg));
            }
            Err(e) => d.push(Block::Para(format!("**Error:** {e}"))),
        }
    }
}
