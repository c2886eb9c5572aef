//! The `run`, `compare`, `validate` and `list` commands.

use ccsim_core::results::{RunResult, RunStatus};
use ccsim_core::sim::Progress;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::output::{self, PendingDir};
use crate::progress::{self, ProgressLine};
use crate::table::{self, Table};
use crate::{CompareArgs, Fail, ListArgs, ListWhat, RunArgs, ValidateArgs};
use ccsim_scenario::{self as scenario, registry, safe_component, Overrides, Scenario};

/// Runs scheme (or variant) `name` on the scenario with a progress line.
pub fn simulate(scn: &Scenario, name: &str, quiet: bool) -> Result<RunResult, Fail> {
    let mut line = ProgressLine::new(quiet);
    let res = {
        let mut cb = |p: &Progress| line.update(|| progress::describe(p));
        scn.simulate(name, Some(&mut cb))
    };
    line.finish();
    let res = res.map_err(Fail::Input)?;
    // how the run used its threads (`--threads`), or why it used one
    if scn.threads > 1 && !quiet {
        for n in res.notes.iter().filter(|n| n.text.starts_with("ran on")) {
            errln!("{name}: {}", n.text);
        }
    }
    Ok(res)
}

/// Parses `--set KEY=VALUE` arguments.
pub fn parse_sets(args: &[String]) -> Result<Vec<(String, toml::Value)>, Fail> {
    args.iter().map(|a| ccsim_scenario::set::parse_assignment(a).map_err(Fail::Input)).collect()
}

/// What to know before reading a run's table (unfinished flows, resends or
/// timeouts past their thresholds: `ccsim_repro::output::loss_warnings`,
/// also in `summary.json`'s `warnings` after the network's, which the run
/// printed when it started), printed before it.
fn print_warnings(scn: &Scenario, runs: &[(String, &RunResult)]) {
    for (name, r) in runs {
        for w in ccsim_repro::output::loss_warnings(scn, name, r) {
            outln!("warning: {w}");
        }
    }
}

/// The line `--check` adds to the report.
fn check_note(scheme: &str, r: &RunResult) -> Option<String> {
    match &r.check {
        None => None,
        Some(Ok(_)) => {
            let drained = if matches!(r.status, ccsim_core::results::RunStatus::Deadlock { .. }) {
                "a deadlocked fabric cannot drain, so packets left in it are not counted"
            } else {
                "fabric drained with no packet left"
            };
            Some(format!(
                "check: {scheme}: passed (bytes conserved, no loss where lossless, buffer accounts exact, {drained})"
            ))
        }
        Some(Err(e)) => Some(format!("check: {scheme}: FAILED: {e}")),
    }
}

/// What a finished run says beyond the table: how it ended, and the
/// outcome of `--check`. Errors for runs that did not complete (exit 3)
/// or failed a check (exit 1); the results are written either way.
fn verdict_of(scheme: &str, r: &RunResult) -> Result<(), Fail> {
    if let Some(Err(e)) = &r.check {
        return Err(Fail::Runtime(format!("{scheme}: --check failed: {e}")));
    }
    match r.status {
        RunStatus::Completed | RunStatus::Stopped => Ok(()),
        _ => Err(Fail::Incomplete(format!("{scheme}: {}", r.status.describe()))),
    }
}

/// Ctrl-C and SIGTERM set `flag`: running simulations stop at the next
/// event boundary and their partial results are written. A second signal
/// ends the process at once.
pub fn on_signals(flag: &ccsim_core::sim::Interrupt) {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for sig in [SIGINT, SIGTERM] {
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, flag.0.clone());
        let _ = signal_hook::flag::register(sig, flag.0.clone());
    }
}

/// Opens the result folder before anything is simulated (so an unwritable
/// `--out` or a name too long fails at once) and points streamed traces at it.
fn prepare(target: &Path, force: bool) -> Result<PendingDir, Fail> {
    PendingDir::begin(target, force)
        .map_err(|e| Fail::Runtime(format!("cannot write results to {}: {e}", target.display())))
}

/// `--format parquet`: the tables of a result folder as Parquet instead of CSV.
fn to_parquet(dir: &Path, r: &RunResult, scn: &Scenario) -> std::io::Result<()> {
    ccsim_repro::parquet_out::write_run_parquet(dir, r, scn)?;
    std::fs::remove_file(dir.join("flows.csv"))?;
    if !r.conns.is_empty() {
        std::fs::remove_file(dir.join("conns.csv"))?;
    }
    std::fs::remove_file(dir.join("ports.csv"))
}

/// Each scheme's network notes (a receiver chosen for it, a combination
/// easy to misread) as the lines a run starts with; a refused combination
/// is bad input, found before anything runs.
fn network_notes(scn: &Scenario, names: &[String]) -> Result<Vec<String>, Fail> {
    // the traffic's first (a trace's dropped dependencies, nodes that move no data)
    let mut lines: Vec<String> = scn.messages.notes.iter().map(|t| format!("warning: {t}")).collect();
    for name in names {
        for n in scn.network_notes(name).map_err(Fail::Input)? {
            let kind = match n.kind {
                ccsim_core::compat::NoteKind::Chosen => "note",
                ccsim_core::compat::NoteKind::Warning => "warning",
            };
            lines.push(format!("{kind}: {name}: {}", n.text));
        }
    }
    Ok(lines)
}

/// The chart options of `--window` and `--figures`.
fn plot_options(scn: &ccsim_scenario::Scenario, c: &crate::ChartArgs) -> ccsim_repro::plots::PlotOptions {
    let formats = c.figures.as_ref().map(|f| f.0.clone()).unwrap_or_default();
    output::plot_options(scn, c.window, &formats)
}

pub fn run(a: &RunArgs) -> Result<(), Fail> {
    let ov = Overrides {
        seed: a.seed,
        stop: a.stop,
        schemes: a.scheme.clone().map(|s| vec![s]),
        out_dir: a.out.clone(),
        sets: parse_sets(&a.set)?,
        ..Default::default()
    };
    let mut scn = scenario::load(&a.scenario, &ov).map_err(Fail::Input)?;
    scn.check = a.check;
    if let Some(n) = a.threads {
        scn.threads = n as usize;
    }
    let name = scn.schemes[0].clone();
    let notes = network_notes(&scn, std::slice::from_ref(&name))?;
    let target = scn.out_dir.join(scn.dir_name()).join(safe_component(&name));
    let pending = prepare(&target, a.force)?;
    if scn.trace.interval > 0 {
        scn.trace.dir = Some(pending.path().to_path_buf());
    }
    on_signals(&scn.interrupt);
    if !a.quiet {
        errln!(
            "{}: '{}' with {name}: {} on {} hosts, seed {}",
            scn.label,
            scn.name,
            scn.traffic_brief(),
            scn.topo.hosts().len(),
            scn.seed
        );
        errln!("{}", progress::estimate_line(ccsim_repro::plan::estimate_events(&scn), 1, 1));
    }
    for n in &notes {
        errln!("{n}");
    }
    let r = simulate(&scn, &name, a.quiet)?;
    // the results first, then the table: stdout may be closed or full
    let fail = |e: std::io::Error| Fail::Runtime(format!("cannot write results to {}: {e}", target.display()));
    let opts = plot_options(&scn, &a.charts);
    if let Some(w) = ccsim_repro::plots::window_after_run(opts.window, &[(name.clone(), &r)]) {
        errln!("warning: {w}");
    }
    output::write_run_files_with(pending.path(), &scn, &name, &r, &opts).map_err(fail)?;
    if a.format == crate::Format::Parquet {
        to_parquet(pending.path(), &r, &scn).map_err(fail)?;
    }
    let dir = pending.commit().map_err(fail)?;
    print_warnings(&scn, &[(name.clone(), &r)]);
    outln!("scenario {} ({}), scheme {name}, seed {}", scn.name, scn.label, scn.seed);
    out!("{}", table::results_table(&[(name.clone(), &r)], Some(&scn)).render());
    if let Some(n) = check_note(&name, &r) {
        outln!("{n}");
    }
    if let Some(e) = &r.trace_error {
        errln!("warning: {name}: {e}");
    }
    outln!("results: {}", dir.display());
    verdict_of(&name, &r)
}

/// Runs every scheme (or variant) on the same scenario, at most `jobs` at once; results in scheme order.
/// A simulation error (from `sim::run`) is bad input; a panic is a runtime failure.
pub fn run_all(
    scn: &Scenario,
    schemes: &[String],
    dirs: &[PathBuf],
    jobs: usize,
    quiet: bool,
) -> Vec<Result<RunResult, Fail>> {
    let n = schemes.len();
    let workers = jobs.clamp(1, n.max(1));
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<RunResult, Fail>>>> = (0..n).map(|_| Mutex::new(None)).collect();
    struct Shared {
        line: ProgressLine,
        latest: Vec<Option<Progress>>,
        done: Vec<bool>,
    }
    let shared = Mutex::new(Shared { line: ProgressLine::new(quiet), latest: vec![None; n], done: vec![false; n] });
    let start = Instant::now();
    let names: Vec<&str> = schemes.iter().map(|s| s.as_str()).collect();
    let show = |sh: &mut Shared| {
        let Shared { line, latest, done } = sh;
        line.update(|| {
            let parts: Vec<String> =
                (0..n).map(|i| progress::describe_short(names[i], latest[i].as_ref(), done[i])).collect();
            format!("{} | wall {}", parts.join(" | "), table::wall(start.elapsed().as_secs_f64()))
        });
    };
    let work = || loop {
        let i = next.fetch_add(1, Ordering::SeqCst);
        if i >= n {
            break;
        }
        let mut cb = |p: &Progress| {
            let mut sh = shared.lock().unwrap_or_else(|e| e.into_inner());
            sh.latest[i] = Some(*p);
            show(&mut sh);
        };
        // A panic in one simulation (possible only in builds that unwind) fails that
        // scheme alone; the others still finish and are written.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut mine = scn.clone();
            if mine.trace.interval > 0 {
                mine.trace.dir = dirs.get(i).cloned();
            }
            mine.simulate(&schemes[i], Some(&mut cb)).map_err(Fail::Input)
        }))
        .unwrap_or_else(|p| {
            Err(Fail::Runtime(format!("the simulator panicked: {}", ccsim_repro::exec::panic_message(p.as_ref()))))
        });
        {
            let mut sh = shared.lock().unwrap_or_else(|e| e.into_inner());
            sh.done[i] = true;
            show(&mut sh);
        }
        *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    };
    std::thread::scope(|s| {
        let mut spawned = 0;
        for w in 0..workers {
            let b = std::thread::Builder::new().name(format!("sim-{w}")).stack_size(64 << 20);
            if b.spawn_scoped(s, work).is_ok() {
                spawned += 1;
            }
        }
        if spawned == 0 {
            // No thread could be started: run them here, one after another.
            work();
        }
    });
    shared.lock().unwrap_or_else(|e| e.into_inner()).line.finish();
    slots
        .into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or_else(|| Err(Fail::Runtime("the simulation did not run".to_string())))
        })
        .collect()
}

pub fn compare(a: &CompareArgs) -> Result<(), Fail> {
    let ov = Overrides {
        seed: a.seed,
        stop: a.stop,
        schemes: a.schemes.clone(),
        out_dir: a.out.clone(),
        sets: parse_sets(&a.set)?,
        ..Default::default()
    };
    let mut scn = scenario::load(&a.scenario, &ov).map_err(Fail::Input)?;
    scn.check = a.check;
    if let Some(n) = a.threads {
        scn.threads = n as usize;
    }
    let made = scn.schemes.clone();
    let notes = network_notes(&scn, &made)?;
    let list: Vec<String> = made.iter().map(|s| safe_component(s)).collect();
    let target = scn.out_dir.join(scn.dir_name()).join(format!("compare-{}", list.join("-")));
    let pending = prepare(&target, a.force)?;
    let fail = |e: std::io::Error| Fail::Runtime(format!("cannot write results to {}: {e}", target.display()));
    // each scheme streams its traces into its own folder of the result
    let mut dirs = Vec::new();
    for name in &list {
        let d = pending.path().join(name);
        std::fs::create_dir(&d).map_err(fail)?;
        dirs.push(d);
    }
    on_signals(&scn.interrupt);
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let jobs = a.jobs.unwrap_or(cpus).max(1);
    if !a.quiet {
        errln!(
            "{}: '{}': {} on {} hosts, seed {}, schemes {} ({} at a time)",
            scn.label,
            scn.name,
            scn.traffic_brief(),
            scn.topo.hosts().len(),
            scn.seed,
            scn.schemes.join(", "),
            jobs.min(made.len())
        );
        let events = ccsim_repro::plan::estimate_events(&scn);
        errln!("{}", progress::estimate_line(events * made.len() as f64, made.len(), jobs));
    }
    for n in &notes {
        errln!("{n}");
    }
    let results = run_all(&scn, &made, &dirs, jobs, a.quiet);
    let mut ok: Vec<(String, &RunResult)> = Vec::new();
    let mut failed = Vec::new();
    let mut runtime = false;
    for ((name, r), dir) in made.iter().zip(&results).zip(&dirs) {
        match r {
            Ok(r) => ok.push((name.clone(), r)),
            Err(e) => {
                // one failed scheme does not take the others with it
                let _ = std::fs::remove_dir_all(dir);
                let e = match e {
                    Fail::Input(e) => e,
                    Fail::Runtime(e) | Fail::Incomplete(e) => {
                        runtime = true;
                        e
                    }
                };
                failed.push(format!("{name}: {e}"));
            }
        }
    }
    for f in &failed {
        errln!("error: {}: cannot simulate {f}", scn.label);
    }
    let failure = |msg: String| if runtime { Fail::Runtime(msg) } else { Fail::Input(msg) };
    if ok.is_empty() {
        return Err(failure(format!("{}: no scheme could be simulated", scn.label)));
    }
    // the results first, then the table: stdout may be closed or full
    let opts = plot_options(&scn, &a.charts);
    if let Some(w) = ccsim_repro::plots::window_after_run(opts.window, &ok) {
        errln!("warning: {w}");
    }
    output::write_compare_files(pending.path(), &scn, &ok, &opts).map_err(fail)?;
    if a.format == crate::Format::Parquet {
        for (name, r) in &ok {
            to_parquet(&pending.path().join(safe_component(name)), r, &scn).map_err(fail)?;
        }
    }
    let dir = pending.commit().map_err(fail)?;
    print_warnings(&scn, &ok);
    outln!("scenario {} ({}), seed {}", scn.name, scn.label, scn.seed);
    out!("{}", table::results_table(&ok, Some(&scn)).render());
    for (name, r) in &ok {
        if let Some(n) = check_note(name, r) {
            outln!("{n}");
        }
        if let Some(e) = &r.trace_error {
            errln!("warning: {name}: {e}");
        }
    }
    outln!("results: {}", dir.display());
    if !failed.is_empty() {
        return Err(failure(format!("{} of {} schemes failed", failed.len(), made.len())));
    }
    let mut incomplete = Vec::new();
    for (name, r) in &ok {
        match verdict_of(name, r) {
            Ok(()) => {}
            Err(Fail::Incomplete(m)) => incomplete.push(m),
            Err(other) => return Err(other),
        }
    }
    if !incomplete.is_empty() {
        return Err(Fail::Incomplete(incomplete.join("; ")));
    }
    Ok(())
}

pub fn validate(a: &ValidateArgs) -> Result<(), Fail> {
    let mut bad = 0;
    let ov = Overrides { sets: parse_sets(&a.set)?, ..Default::default() };
    for f in &a.files {
        match scenario::load(f, &ov).and_then(|s| s.check_schemes().map(|_| s)) {
            Ok(s) => {
                let est = progress::estimate_line(ccsim_repro::plan::estimate_events(&s), 1, 1);
                let notes = network_notes(&s, &s.schemes)?;
                let notes: String = notes.iter().map(|n| format!("{n}\n")).collect();
                outln!("ok: {}\n{notes}{est}, per scheme\n", s.summary())
            }
            Err(e) => {
                errln!("error: {e}\n");
                bad += 1;
            }
        }
    }
    if bad > 0 {
        Err(Fail::Input(format!("{bad} of {} scenario files are invalid", a.files.len())))
    } else {
        Ok(())
    }
}

/// Wraps text at word boundaries to lines of at most `width` characters
/// (longer words stay whole).
pub fn wrap(text: &str, width: usize) -> String {
    table::wrap_lines(text, width).join("\n")
}

/// Indents every line of a (possibly multi-line) text.
fn indent(text: &str, by: &str) -> String {
    text.lines().map(|l| format!("{by}{l}")).collect::<Vec<_>>().join("\n")
}

/// The `ccsim list` text, wrapped to `width` columns (at least 40).
pub fn list_text(what: Option<ListWhat>, width: usize) -> String {
    let width = width.max(40);
    let all = what.is_none();
    let mut out = String::new();
    // a heading or a one-line entry, wrapped with its continuation indented
    let para = |text: &str, by: &str| {
        let mut lines = table::wrap_lines(text, width - by.len()).into_iter();
        let first = lines.next().unwrap_or_default();
        let rest: Vec<String> = lines.map(|l| format!("{by}    {l}")).collect();
        if rest.is_empty() {
            format!("{by}{first}\n")
        } else {
            format!("{by}{first}\n{}\n", rest.join("\n"))
        }
    };
    if all || what == Some(ListWhat::Schemes) {
        out.push_str(&para("Schemes (name; parameters go in the scenario's [scheme.NAME] table):", ""));
        for s in registry::schemes() {
            out.push('\n');
            out.push_str(&para(&format!("{} - {}", s.name, s.summary), "  "));
            if s.params.is_empty() {
                out.push_str("      (no parameters)\n");
                continue;
            }
            let mut t = Table::new(&["parameter", "default", "meaning"]);
            for p in &s.params {
                t.row(vec![p.name.clone(), p.default.clone(), p.doc.clone()]);
            }
            // left-aligned, the meaning wrapped to the terminal, then indented
            out.push_str(&indent(&t.render_fit(width - 6, &[2]), "      "));
            out.push('\n');
        }
        out.push('\n');
    }
    if all || what == Some(ListWhat::Topologies) {
        out.push_str("Topologies ([topology] kind = ...):\n");
        for (k, d) in registry::topologies() {
            out.push_str(&format!("\n  {k}\n{}\n", indent(&wrap(&d, (width - 6).min(88)), "      ")));
        }
        out.push('\n');
    }
    if all || what == Some(ListWhat::Workloads) {
        out.push_str("Workloads ([[workload]] kind = ...):\n");
        for (k, d) in registry::workloads() {
            out.push_str(&format!("\n  {k}\n{}\n", indent(&wrap(&d, (width - 6).min(88)), "      ")));
        }
        out.push('\n');
    }
    if all || what == Some(ListWhat::Network) {
        out.push_str(&para(
            "Network settings ([network] table; a dotted key is a key of its sub-table, e.g. [network.pfc]):",
            "",
        ));
        out.push('\n');
        let mut t = Table::new(&["key", "value", "default", "meaning", "source"]);
        for k in ccsim_core::config::NETWORK_KEYS {
            t.row(vec![k.key.into(), k.unit.into(), k.default.into(), k.doc.into(), k.source.into()]);
        }
        out.push_str(&indent(&t.render_fit(width - 2, &[3, 4]), "  "));
        out.push('\n');
        out.push_str(&para(
            "[[network.link_events]] (any number): at (duration), a, b (the link's two node ids), action (\"down\" | \"up\")",
            "  ",
        ));
        out.push('\n');
    }
    if what == Some(ListWhat::Combinations) {
        out.push_str(&para(
            "Combinations refused at validation (load balancer / receiver / fabric; every other runs and holds \
             the invariants of docs/COMBINATIONS.md):",
            "",
        ));
        for (scheme, refused) in ccsim_repro::combos::refusals(std::path::Path::new(".")) {
            out.push_str(&format!("\n  {scheme}: {} refused\n", refused.len()));
            let mut by_reason: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
            for (cell, reason) in &refused {
                by_reason.entry(reason.as_str()).or_default().push(cell.as_str());
            }
            for (reason, cells) in by_reason {
                let text = format!("{}: {reason}", cells.join(", "));
                out.push_str(&format!("{}\n", indent(&wrap(&text, width - 6), "      ")));
            }
        }
        out.push('\n');
    }
    if all || what == Some(ListWhat::Cdfs) {
        out.push_str(&para(
            "Built-in flow-size distributions (poisson workload `cdf = NAME`; a file path also works):",
            "",
        ));
        out.push('\n');
        let mut t = Table::new(&["name", "points", "mean size"]);
        for (n, pts, mean) in registry::cdfs() {
            t.row(vec![n, pts.to_string(), format!("{} ({:.0} B)", scenario::human_bytes(mean), mean)]);
        }
        out.push_str(&indent(&t.render(), "  "));
        out.push('\n');
    }
    out
}

/// docs/NETWORK.md: the `[network]` reference as Markdown, generated from
/// `ccsim_core::config::NETWORK_KEYS` (a test keeps the file equal to it).
#[cfg(test)]
pub fn network_reference_md() -> String {
    let mut s = String::from(
        "# The `[network]` table\n\nGenerated from `ccsim_core::config::NETWORK_KEYS` (`ccsim list network` prints the same); a test \
         keeps this file, the table and the parser in step. A dotted key is a key of a sub-table: `pfc.static_xoff` is \
         `static_xoff` in `[network.pfc]`. Sizes are bytes (`\"32MB\"`, `\"4KiB\"` or an integer), durations take a \
         unit (`\"500us\"`).\n\n| key | value | default | meaning | source |\n| --- | --- | --- | --- | --- |\n",
    );
    for k in ccsim_core::config::NETWORK_KEYS {
        let cell = |x: &str| x.replace('|', "\\|");
        s.push_str(&format!(
            "| `{}` | {} | `{}` | {} | {} |\n",
            k.key,
            cell(k.unit),
            k.default,
            cell(k.doc),
            cell(k.source)
        ));
    }
    s.push_str(
        "\n`[[network.link_events]]` (any number): `at` (duration; `\"0us\"` = before the run), `a`, `b` (the two node \
         ids of the link, either order), `action` (`\"down\"` or `\"up\"`).\n",
    );
    s
}

pub fn list(a: &ListArgs) -> Result<(), Fail> {
    out!("{}", list_text(a.what, table::term_width()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn left_aligned_table_and_indent() {
        let mut t = Table::new(&["a", "bb"]);
        t.row(vec!["long".into(), "x".into()]);
        assert_eq!(t.render_fit(usize::MAX, &[]), "a     bb\nlong  x\n");
        assert_eq!(indent("x\ny", "  "), "  x\n  y");
        assert_eq!(wrap("aa bb cc dd", 5), "aa bb\ncc dd");
        assert_eq!(wrap("a verylongword b", 4), "a\nverylongword\nb");
        assert_eq!(wrap("  ", 4), "");
    }

    #[test]
    fn lists_fit_the_terminal_width() {
        for width in [80, 120] {
            for what in [ListWhat::Network, ListWhat::Schemes, ListWhat::Topologies, ListWhat::Workloads] {
                let text = list_text(Some(what), width);
                // a line may pass the width only by one word too long to break
                for l in text.lines().filter(|l| l.chars().count() > width) {
                    let longest = l.split_whitespace().map(|w| w.chars().count()).max().unwrap_or(0);
                    assert!(longest + 8 > width, "{what:?} at {width} columns: {l:?}");
                }
            }
        }
        // every network key is still there, with its source
        let net = list_text(Some(ListWhat::Network), 80);
        for k in ccsim_core::config::NETWORK_KEYS {
            assert!(net.contains(k.key), "{}", k.key);
        }
        assert!(net.contains("mix/config.txt"));
    }

    #[test]
    fn list_mentions_every_registry_entry() {
        let text = list_text(None, 100);
        for s in registry::scheme_names() {
            assert!(text.contains(&format!("\n  {s} - ")), "scheme {s} missing");
        }
        for (k, _) in registry::topologies() {
            assert!(text.contains(&format!("\n  {k}\n")), "topology {k} missing");
        }
        for (k, _) in registry::workloads() {
            assert!(text.contains(&format!("\n  {k}\n")), "workload {k} missing");
        }
        let cdfs = list_text(Some(ListWhat::Cdfs), 100);
        assert!(cdfs.contains("websearch"));
        assert!(!cdfs.contains("Schemes"));
        // websearch: 12 points, mean about 1.6 MB
        let line = cdfs.lines().find(|l| l.trim_start().starts_with("websearch")).unwrap();
        assert!(line.contains(" 12 "), "{line}");
        assert!(line.contains("MB"), "{line}");
    }
}

#[cfg(test)]
mod network_reference {
    /// docs/NETWORK.md is the generated reference (`CCSIM_BLESS=1 cargo test
    /// -p ccsim network_reference` rewrites it after a change of NETWORK_KEYS).
    #[test]
    fn docs_network_md_is_generated_from_the_keys() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/NETWORK.md");
        let want = super::network_reference_md();
        if std::env::var_os("CCSIM_BLESS").is_some() {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(have == want, "docs/NETWORK.md is out of date: rerun with CCSIM_BLESS=1");
    }
}
