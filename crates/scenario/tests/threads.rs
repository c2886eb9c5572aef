//! A run cut into parts on several threads (`threads`, issue 36) gives the
//! results of one thread byte for byte: every shipped scenario and scheme
//! for its first 300 us, and the quick start's fabric run to completion,
//! on 1, 2 and 4 threads.

use ccsim_core::results::RunResult;
use ccsim_core::sim::TraceConfig;
use ccsim_core::time::US;
use ccsim_scenario::{load, load_text, Overrides, Scenario};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What a run's result files hold: flows.csv, ports.csv and conns.csv
/// come from these rows, and the status and end time from the engine.
fn rows(r: &RunResult) -> String {
    format!("{:?}\n{:?}\n{:?}\n{:?} {}", r.flows, r.ports, r.conns, r.status, r.engine.sim_end)
}

/// Runs every scheme of `scn` on 1, 2 and 4 threads; panics on a
/// difference. Returns how many runs were cut into parts.
fn same_on_threads(scn: &mut Scenario, label: &str) -> usize {
    let mut cut = 0;
    for name in scn.schemes.clone() {
        scn.threads = 1;
        let one = scn.simulate(&name, None).unwrap();
        for n in [2, 4] {
            scn.threads = n;
            let r = scn.simulate(&name, None).unwrap();
            assert!(rows(&r) == rows(&one), "{label}, {name}: {n} threads differ from one");
            cut += r.notes.iter().any(|x| x.text.starts_with(&format!("ran on {n} threads"))) as usize;
        }
    }
    cut
}

#[test]
fn shipped_scenarios_give_the_same_results_on_1_2_and_4_threads() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut cut = 0;
    for f in &files {
        let ov = Overrides { stop: Some(300 * US), ..Default::default() };
        let mut scn = load(f, &ov).unwrap();
        // traces sample the whole network at once: without them more runs are cut
        scn.trace = TraceConfig::default();
        cut += same_on_threads(&mut scn, &f.display().to_string());
    }
    // most of them are cut (those with messages or link failures run on one thread)
    eprintln!("CUT {cut}");
    assert!(cut >= 20, "only {cut} runs were cut into parts");
}

#[test]
fn runs_to_completion_give_the_same_results_on_1_2_and_4_threads() {
    let sets = vec![("workload[0].duration".to_string(), toml::Value::String("300us".into()))];
    let ov = Overrides {
        sets,
        schemes: Some(vec!["dcqcn".into(), "hpcc".into(), "dctcp".into(), "swift".into(), "bolt".into()]),
        ..Default::default()
    };
    let mut scn = load(&repo().join("scenarios/quickstart.toml"), &ov).unwrap();
    scn.trace = TraceConfig::default();
    assert_eq!(same_on_threads(&mut scn, "quickstart"), 10);
    let one = {
        scn.threads = 1;
        scn.simulate("hpcc", None).unwrap()
    };
    assert_eq!(one.status, ccsim_core::results::RunStatus::Completed);
    // more threads than units (4 leaves with their hosts, 2 spines): as
    // many parts as units
    scn.threads = 64;
    let r = scn.simulate("hpcc", None).unwrap();
    assert!(rows(&r) == rows(&one), "64 threads differ from one");
    assert!(r.notes.iter().any(|n| n.text.starts_with("ran on 6 threads")), "{:?}", r.notes);
}

/// A k = 4 fat tree (three tiers, so that a flow's switches lie in several
/// parts) with drops and trimming, to completion: per-flow losses counted
/// at switches of other parts than the sender's add up.
#[test]
fn losses_and_trims_across_parts_give_the_same_results() {
    let text = |network: &str, schemes: &str| {
        format!(
            r#"
schemes = [{schemes}]
[topology]
kind = "fat_tree"
k = 4
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"
[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.7
duration = "150us"
[network]
{network}
"#
        )
    };
    let dir = repo();
    let cases = [
        ("buffer = \"300KB\"\npfc.enabled = false", "\"dctcp\", \"hpcc\""),
        ("buffer = \"1MB\"\npfc.enabled = false\ntrim.enabled = true\ntrim.threshold = \"30KB\"\nreceiver = \"reorder\"", "\"nscc\""),
        ("buffer = \"1MB\"\nrouting = \"symmetric\"", "\"fncc\""),
    ];
    let mut cut = 0;
    for (network, schemes) in cases {
        let mut scn = load_text("t.toml", &text(network, schemes), &dir, "t", &Overrides::default()).unwrap();
        cut += same_on_threads(&mut scn, network);
        scn.threads = 1;
        let r = scn.simulate(&scn.schemes[0].clone(), None).unwrap();
        assert_eq!(r.status, ccsim_core::results::RunStatus::Completed, "{network}");
        if network.contains("trim") {
            assert!(r.flows.iter().any(|f| f.trimmed > 0), "{network}: nothing trimmed");
        } else if network.contains("300KB") {
            assert!(r.flows.iter().any(|f| f.drops > 0), "{network}: nothing dropped");
        }
    }
    // every scheme of every case is cut on 2 and 4 threads, symmetric
    // routing's retracing included
    assert_eq!(cut, 8);
}
