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

/// What a run's result files hold: flows.csv (flows and messages),
/// ports.csv and conns.csv come from these rows, the tasks and messages
/// never released too, the traces' files from the series (when kept in
/// memory), and the status, end time and event count from the engine.
fn rows(r: &RunResult) -> String {
    format!(
        "{:?}\n{:?}\n{:?}\n{:?} {}\n{:?} {} {}\n{:?}\n{:?}\n{:?}\n{:?}",
        r.flows,
        r.ports,
        r.conns,
        r.tasks,
        r.messages_waiting,
        r.status,
        r.engine.sim_end,
        r.engine.events,
        r.queues,
        r.utilization,
        r.flow_traces,
        r.rtt
    )
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
        cut += same_on_threads(&mut scn, &f.display().to_string());
    }
    // most of them are cut, traced ones too (those with messages, credits
    // or link failures run on one thread)
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

/// A k = 4 fat tree of 100G links under WebSearch traffic at `load` for
/// 150 us, with `network` (the body of its `[network]` table) and `schemes`
/// (quoted, comma-separated).
fn fat_tree_k4(schemes: &str, load: f64, network: &str) -> String {
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
load = {load}
duration = "150us"
[network]
{network}
"#
    )
}

/// A k = 4 fat tree (three tiers, so that a flow's switches lie in several
/// parts) with drops and trimming, to completion: per-flow losses counted
/// at switches of other parts than the sender's add up.
#[test]
fn losses_and_trims_across_parts_give_the_same_results() {
    let text = |network: &str, schemes: &str| fat_tree_k4(schemes, 0.7, network);
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

/// Traces sampled by the parts (queues and utilization of ports on both
/// sides of the cut, flows sent from every part with their changes and
/// ACKs, the RTT histogram), in memory and streamed to CSV files, are one
/// thread's on 2 and 4 threads, to completion: every sample up to the
/// one that sees the last flow done, and none after it.
#[test]
fn traces_across_parts_give_the_same_results() {
    let quick = std::fs::read_to_string(repo().join("scenarios/quickstart.toml")).unwrap();
    let head = &quick[..quick.find("[trace]").expect("the quick start traces")];
    let text = format!(
        "{head}[trace]\ninterval = \"100ns\"\nqueues = [\"32:0\", \"33:36\", \"35:37\", \"36:34\", \"37:32\"]\n\
         utilization = [\"34:36\", \"37:35\"]\nflows = [0, 1, 2, 3, 4, 5, 6, 7]\nchanges = true\nacks = true\nrtt = true\n"
    )
    .replace("duration = \"2ms\"", "duration = \"200us\"");
    let mut scn = load_text("t.toml", &text, &repo(), "t", &Overrides::default()).unwrap();
    let tmp = ccsim_scenario::testutil::TempDir::new("threads-traces");
    for name in ["hpcc", "dcqcn"] {
        let mut files: Vec<Vec<(String, Vec<u8>)>> = Vec::new();
        let mut one = String::new();
        for n in [1, 2, 4] {
            for streamed in [false, true] {
                scn.threads = n;
                let dir = tmp.path().join(format!("{name}-{n}"));
                scn.trace.dir = streamed.then(|| {
                    std::fs::create_dir_all(&dir).unwrap();
                    dir.clone()
                });
                let r = scn.simulate(name, None).unwrap();
                assert_eq!(r.status, ccsim_core::results::RunStatus::Completed);
                if n > 1 {
                    assert!(
                        r.notes.iter().any(|x| x.text.starts_with(&format!("ran on {n} threads"))),
                        "{:?}",
                        r.notes
                    );
                }
                if !streamed {
                    let t = rows(&r);
                    if n == 1 {
                        // (DCQCN keeps line rate here: no change to log)
                        let logged = r
                            .flow_traces
                            .iter()
                            .filter(|f| !f.acks.is_empty() && (name == "dcqcn" || !f.changes.is_empty()));
                        assert!(logged.count() >= 6, "{name}: few traced flows were logged");
                        let busy = r.queues.iter().filter(|q| q.v.iter().any(|&v| v > 0.0)).count();
                        assert!(busy >= 2, "{busy} traced queues ever held a packet");
                        one = t;
                    } else {
                        assert!(t == one, "{name}: traces on {n} threads differ from one");
                    }
                    continue;
                }
                let mut got: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
                    .unwrap()
                    .map(|e| {
                        let p = e.unwrap().path();
                        (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap())
                    })
                    .collect();
                got.sort();
                assert_eq!(got.len(), 5, "{name}: the five trace files");
                if let Some(first) = files.first() {
                    assert!(&got == first, "{name}: trace files on {n} threads differ from one");
                }
                files.push(got);
            }
        }
    }
}

/// Link failures and repairs of links between the parts (a k = 4 fat
/// tree's aggregation-core links) while traffic crosses them, lossless and
/// lossy, rerouting at once or later, one link failing and coming back
/// within a grid step, all in the middle of a step (so that packets sent
/// before a failure reach the other part after it): every part applies
/// every link event, what was on a failing cut link is lost whichever part
/// holds it, and the results are one thread's on 2 and 4 threads. One
/// link is down from the start: the routes every part computes after a
/// later event leave it out too.
#[test]
fn link_failures_across_parts_give_the_same_results() {
    let events = [
        ("0us", 27, 34, "down"),
        ("40.3us", 24, 32, "down"),
        ("40.8us", 24, 32, "up"),
        ("60.5us", 26, 33, "down"),
        ("61.5us", 29, 34, "down"),
        ("90.5us", 29, 34, "up"),
    ];
    let list: Vec<String> = events
        .iter()
        .map(|(at, a, b, action)| format!("{{ at = \"{at}\", a = {a}, b = {b}, action = \"{action}\" }}"))
        .collect();
    let text = |network: &str| {
        fat_tree_k4("\"dcqcn\", \"hpcc\"", 0.8, &format!("{network}\nlink_events = [{}]", list.join(", ")))
    };
    let mut cut = 0;
    for network in ["", "reroute_delay = \"3us\"\nbuffer = \"300KB\"\npfc.enabled = false"] {
        let mut scn = load_text("t.toml", &text(network), &repo(), "t", &Overrides::default()).unwrap();
        cut += same_on_threads(&mut scn, network);
        scn.threads = 1;
        for name in scn.schemes.clone() {
            let r = scn.simulate(&name, None).unwrap();
            assert_eq!(r.status, ccsim_core::results::RunStatus::Completed, "{network} {name}");
            // packets were on the failing links (either direction)
            let lost: u64 = r
                .ports
                .iter()
                .filter(|p| {
                    [(24, 32), (26, 33), (29, 34)]
                        .iter()
                        .any(|&(a, b)| (p.port.node, p.port.peer) == (a, b) || (p.port.node, p.port.peer) == (b, a))
                })
                .map(|p| p.drops)
                .sum();
            assert!(lost > 0, "{network} {name}: nothing lost on the failing links");
        }
    }
    assert_eq!(cut, 8, "every run is cut on 2 and 4 threads");
}

/// Collectives (a ring all-reduce over every host, an all-to-all over half
/// of them, compute between iterations) on a k = 4 fat tree, to
/// completion, lossless and lossy: a connection's sender and receiver lie
/// in different parts, the receiver's part learns the releases at the
/// barriers, and the drops at other parts' switches are given to the
/// messages outstanding then. Message rows, tasks and connections are one
/// thread's on 2 and 4 threads.
#[test]
fn collectives_across_parts_give_the_same_results() {
    let collectives = r#"
[[workload]]
kind = "collective"
op = "ring_allreduce"
hosts = [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15]
size = "2MB"
iterations = 2
compute = "10us"
[[workload]]
kind = "collective"
op = "alltoall"
hosts = [0, 1, 2, 3, 8, 9, 10, 11]
size = "1MB"
iterations = 2
compute = "5us"
start = "20us"
"#;
    let mut cut = 0;
    for network in ["", "buffer = \"200KB\"\npfc.enabled = false"] {
        let text =
            fat_tree_k4("\"dcqcn\", \"hpcc\"", 0.1, network).replace("duration = \"150us\"", "duration = \"20us\"");
        let mut scn =
            load_text("t.toml", &format!("{text}{collectives}"), &repo(), "t", &Overrides::default()).unwrap();
        cut += same_on_threads(&mut scn, network);
        scn.threads = 1;
        for name in scn.schemes.clone() {
            let r = scn.simulate(&name, None).unwrap();
            assert_eq!(r.status, ccsim_core::results::RunStatus::Completed, "{network} {name}");
            let messages = r.flows.iter().filter(|f| f.conn.is_some()).count();
            assert!(messages > 500 && r.messages_waiting == 0, "{network} {name}: the jobs did not run through");
            let message_drops: u64 = r.flows.iter().filter(|f| f.conn.is_some()).map(|f| f.drops).sum();
            if network.contains("200KB") {
                assert!(message_drops > 0, "{name}: no message lost data");
            }
        }
    }
    assert_eq!(cut, 8, "every run is cut on 2 and 4 threads");
}
