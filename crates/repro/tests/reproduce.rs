//! The reproduction pipeline end to end on a tiny manifest (tests/tiny):
//! plan (runs shared between claims, sweeps and sensitivity planned once),
//! runs, the cache answering a second run, and a report with the verdicts
//! the fixture's claims are built to get.

use ccsim_repro::cache::Cache;
use ccsim_repro::exec::{self, Outcome};
use ccsim_repro::plan::{self, Options};
use ccsim_repro::report;
use ccsim_scenario::testutil::TempDir;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tiny")
}

fn opts(version: &str) -> Options {
    Options { version: version.into(), ..Default::default() }
}

#[test]
fn tiny_manifest_plans_runs_caches_and_reports() {
    let tmp = TempDir::new("repro");
    let papers = vec!["tiny".to_string()];
    let plan = plan::plan(&root(), &papers, &opts("test-1")).unwrap();
    assert!(plan.papers[0].claims.iter().all(|c| c.error.is_none()), "{:?}", plan.papers[0].claims);
    // none and half at seeds 1 and 2, half at the two sensitivity windows, none
    // at 100 KB (the 1 MB sweep point and the sensitivity's none runs are the
    // claims' own runs)
    let labels: Vec<String> = plan.runs.iter().map(|r| r.label()).collect();
    assert_eq!(plan.runs.len(), 7, "{labels:#?}");

    let cache = Cache::new(&tmp.path().join("cache"));
    let quiet = |_: &exec::Status| {};
    let first = exec::run_all(&plan.runs, &cache, 2, &quiet);
    assert!(first.iter().all(|o| matches!(o, Outcome::Ran(_))), "{first:?}");
    let again = exec::run_all(&plan.runs, &cache, 2, &quiet);
    assert!(again.iter().all(|o| *o == Outcome::Cached), "{again:?}");
    // another build does not reuse them
    let other = plan::plan(&root(), &papers, &opts("test-2")).unwrap();
    assert!(other.runs.iter().all(|r| !cache.contains(&r.key)));

    let out = tmp.path().join("report");
    let sums = report::write(&plan, &cache, &again, &out, "test-1").unwrap();
    let s = &sums[0];
    let t = &s.tally;
    assert_eq!(
        (t.results, t.reproduced, t.direction_only, t.not_reproduced, t.inconclusive, t.not_simulated),
        (5, 3, 1, 1, 0, 1),
        "{t:?}"
    );
    assert_eq!((t.headline, t.headline_reproduced, t.checks, t.checks_held), (2, 1, 1, 1), "{t:?}");
    let md = std::fs::read_to_string(out.join("tiny/report.md")).unwrap();
    for (claim, verdict) in [
        ("lone-slowdown", "reproduced"),
        ("half-window-slower", "reproduced"),
        ("wrong-order", "not reproduced"),
        ("too-small-change", "direction only"),
        ("size-sweep", "reproduced"),
    ] {
        // its row among the results (the headline table ends with the cause)
        let results = &md[md.find("## Results of the paper").unwrap()..];
        let row = results
            .lines()
            .find(|l| l.starts_with(&format!("| [{claim}]")))
            .unwrap_or_else(|| panic!("no row for {claim}"));
        assert!(row.ends_with(&format!("| {verdict} |")), "{claim}: {row}");
    }
    // the headline table opens the report, with the cause of the miss
    let head = &md[md.find("## Headline claims").unwrap()..md.find("## Results of the paper").unwrap()];
    assert!(head.contains("[lone-slowdown]") && head.contains("Half the window halves"), "{head}");
    assert!(!head.contains("half-window-slower"), "not a headline claim: {head}");
    // the check is apart, and claims.json is read back by the index
    assert!(md[md.find("## Set-up checks").unwrap()..].contains("[all-finished]"));
    let rec = report::record::read(&out.join("tiny")).unwrap();
    assert_eq!(rec.claims.iter().filter(|c| c.headline).count(), 2);
    let index = std::fs::read_to_string(out.join("index.md")).unwrap();
    assert!(index.contains("| tiny | [wrong-order](tiny/report.md#claim-wrong-order)"), "{index}");
    assert!(md.contains("Sensitivity to `variants.half.window_bdps`"));
    assert!(md.contains("testbed CPU use"));
    // every run used, with its losses (issue 32)
    let runs = &md[md.find("## Runs").expect("a runs section")..];
    assert!(
        runs.contains(
            "| run | status | finished | data packets | resent | timeouts | trimmed | drops | PAUSE frames |"
        ),
        "{runs}"
    );
    assert_eq!(runs.lines().filter(|l| l.starts_with("| `tiny/")).count(), s.runs, "{runs}");
    let html = std::fs::read_to_string(out.join("tiny/report.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("Pacing rate of the flow"));
    // the paper is cited by title and link, not by a text file (issue 34)
    assert!(html.contains("Paper: <a href=\"https://example.org/tiny\">A tiny paper (test fixture)</a>"), "{html}");
    for chart in ["claim-lone-slowdown.svg", "claim-size-sweep.svg", "sens-too-small-change-0.svg", "figure-fig1.svg"] {
        assert!(out.join("tiny/charts").join(chart).is_file(), "{chart}");
    }
}

#[test]
fn bad_manifests_are_refused_with_the_claim_named() {
    let tmp = TempDir::new("repro-bad");
    let dir = tmp.path().join("bad");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(root().join("tiny/star.toml"), dir.join("star.toml")).unwrap();
    let write = |claims: &str| {
        std::fs::write(dir.join("manifest.toml"), format!("paper = \"bad\"\ntitle = \"t\"\n{claims}")).unwrap();
        plan::plan(tmp.path(), &["bad".to_string()], &opts("t"))
    };
    let base = "[[claim]]\nid = \"c\"\nwhere = \"w\"\nscenario = \"star.toml\"\nschemes = [\"none\"]\n";
    let e = write(&format!("{base}metric = \"fct\"\nparams = {{ stat = \"p101\" }}\npaper = {{ none = 1 }}\n"))
        .unwrap_err();
    assert!(e.contains("claim 'c'") && e.contains("stat"), "{e}");
    let e = write(&format!("{base}metric = \"fcts\"\npaper = {{ none = 1 }}\n")).unwrap_err();
    assert!(e.contains("unknown metric 'fcts'"), "{e}");
    let e = write(&format!("{base}metric = \"fct\"\npaper = {{ hpcc = 1 }}\n")).unwrap_err();
    assert!(e.contains("'hpcc' is not among the claim's schemes"), "{e}");
    let e = write(&format!("{base}metric = \"fct\"\npaper = {{ none = 1 }}\nunit = \"KB\"\n")).unwrap_err();
    assert!(e.contains("unit"), "{e}");
    let e = write("[[claim]]\nid = \"c\"\nwhere = \"w\"\nstatus = \"not_simulable\"\n").unwrap_err();
    assert!(e.contains("reason"), "{e}");
    let e = write(&format!("{base}metric = \"fct\"\npaper = {{ none = 1 }}\nwhat = 1\n")).unwrap_err();
    assert!(e.contains("what"), "{e}");
    // issue 25: seeds = 0 was accepted, and any count was planned however large
    let e = write(&format!("{base}metric = \"fct\"\npaper = {{ none = 1 }}\nseeds = 0\n")).unwrap_err();
    assert!(e.contains("claim 'c': seeds: 0: must be in 1..=1000"), "{e}");
    let e =
        write(&format!("{base}metric = \"fct\"\npaper = {{ none = 1 }}\n[claim.full]\nseeds = 100000\n")).unwrap_err();
    assert!(e.contains("full.seeds: 100000"), "{e}");
    let e = write(&format!("[defaults]\nseeds = 0\n{base}metric = \"fct\"\npaper = {{ none = 1 }}\n")).unwrap_err();
    assert!(e.contains("defaults.seeds = 0"), "{e}");
    std::fs::write(
        dir.join("manifest.toml"),
        format!("paper = \"bad\"\ntitle = \"t\"\n{base}metric = \"fct\"\npaper = {{ none = 1 }}\n"),
    )
    .unwrap();
    for n in [0, 100_000] {
        let e =
            plan::plan(tmp.path(), &["bad".to_string()], &plan::Options { seeds: Some(n), ..opts("t") }).unwrap_err();
        assert!(e.contains(&format!("--seeds {n}: must be in 1..=1000")), "{e}");
    }
    // a scheme the scenario cannot make: the claim is planned with an error
    let plan = write("[[claim]]\nid = \"c\"\nwhere = \"w\"\nscenario = \"star.toml\"\nschemes = [\"reno\"]\nmetric = \"fct\"\ncompare = \"order\"\norder = [\"reno\"]\n").unwrap();
    assert!(plan.papers[0].claims[0].error.as_deref().unwrap_or("").contains("reno"));
    // a metric input the scenario does not record
    let plan =
        write(&format!("{base}metric = \"queue\"\nparams = {{ port = \"3:0\" }}\npaper = {{ none = 1 }}\n")).unwrap();
    assert!(plan.papers[0].claims[0].error.as_deref().unwrap_or("").contains("3:0"));
}

/// Every shipped paper: its manifest reads and checks, every claim plans at
/// the reduced scale (and, below, at full scale), and it names 4-8 headline
/// claims, all results that are run.
#[test]
fn shipped_manifests_plan_and_name_their_headline_claims() {
    plan_every_shipped_manifest(false);
}

/// The same at the papers' scale (a test of its own, so the two run side by side).
#[test]
fn shipped_manifests_plan_at_full_scale() {
    plan_every_shipped_manifest(true);
}

fn plan_every_shipped_manifest(full: bool) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let papers = ccsim_repro::manifest::papers(&root).unwrap();
    assert_eq!(papers, ["bolt", "fncc", "oscar", "sqcc", "srcc", "uet"]);
    for p in &papers {
        let m = ccsim_repro::manifest::read(&root.join(p)).unwrap();
        m.check().unwrap_or_else(|e| panic!("{e}"));
        let headline = m.claims.iter().filter(|c| c.headline).count();
        assert!((4..=8).contains(&headline), "{p}: {headline} headline claims (4-8 wanted)");
        let plan = plan::plan(&root, std::slice::from_ref(p), &Options { full, ..opts("test") }).unwrap();
        let errors: Vec<String> = plan.papers[0].claims.iter().filter_map(|c| c.error.clone()).collect();
        assert!(errors.is_empty(), "{p} (full: {full}): {errors:#?}");
    }
}

/// `reproduce --list`'s outline plans the runs a real plan does, told apart
/// without generating each point's traffic: on the fixture (a default swept,
/// a sensitivity value that is a claim's own point), on the shipped SQCC
/// manifest at both scales (whose seeded incasts cost the same at every
/// seed), and on Bolt's reduced scale, where settings written differently
/// (a topology or workload value set to what it already was) make the same
/// traffic and so the same runs.
#[test]
fn outline_plans_the_runs_of_a_real_plan() {
    let labels = |p: &plan::Plan| {
        let mut v: Vec<String> = p.runs.iter().map(|r| r.label()).collect();
        v.sort();
        v
    };
    let total = |p: &plan::Plan| p.runs.iter().map(|r| r.est_events).sum::<f64>();
    let tiny = vec!["tiny".to_string()];
    let real = plan::plan(&root(), &tiny, &opts("t")).unwrap();
    let outline = plan::plan(&root(), &tiny, &Options { outline: true, ..opts("t") }).unwrap();
    assert_eq!(labels(&real), labels(&outline));

    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let sqcc = vec!["sqcc".to_string()];
    // both scales' outlines share what they read (plan::outlines)
    let outlines = plan::outlines(&shipped, "sqcc", "t").unwrap();
    for (full, outline) in [false, true].into_iter().zip(&outlines) {
        let real = plan::plan(&shipped, &sqcc, &Options { full, ..opts("t") }).unwrap();
        assert_eq!(labels(&real), labels(outline), "full: {full}");
        assert_eq!(total(&real), total(outline), "full: {full}");
    }
    let bolt = vec!["bolt".to_string()];
    let real = plan::plan(&shipped, &bolt, &opts("t")).unwrap();
    let outline = plan::plan(&shipped, &bolt, &Options { outline: true, ..opts("t") }).unwrap();
    assert_eq!(real.runs.len(), outline.runs.len());
    assert_eq!(labels(&real), labels(&outline));
}
