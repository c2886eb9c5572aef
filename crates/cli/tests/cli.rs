//! End-to-end tests of the `ccsim` binary: every command on the shipped
//! scenarios, the result directories it writes, and its exit status and
//! messages on bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn ccsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ccsim")).args(args).current_dir(repo()).output().expect("cannot start ccsim")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Asserts success and returns stdout.
fn ok(args: &[&str]) -> String {
    let o = ccsim(args);
    assert!(
        o.status.success(),
        "ccsim {args:?} failed with {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stdout)
}

struct Tmp(PathBuf);
static N: AtomicU64 = AtomicU64::new(0);
impl Tmp {
    fn new(tag: &str) -> Tmp {
        let p = std::env::temp_dir().join(format!(
            "ccsim-e2e-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Tmp(p)
    }
    fn s(&self) -> &str {
        self.0.to_str().unwrap()
    }
}
impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn json(path: &Path) -> serde_json::Value {
    let t = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&t).unwrap()
}

fn csv_rows(path: &Path) -> Vec<Vec<String>> {
    let t = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    t.lines().map(|l| l.split(',').map(String::from).collect()).collect()
}

#[test]
fn validate_every_shipped_scenario() {
    let out = ok(&[
        "validate",
        "scenarios/dumbbell-2flows.toml",
        "scenarios/incast-16to1.toml",
        "scenarios/fat320-websearch-30.toml",
        "scenarios/quickstart.toml",
    ]);
    assert_eq!(out.matches("ok: ").count(), 4, "{out}");
    assert!(out.contains("320 hosts, 56 switches, 480 links"), "{out}");
    assert!(out.contains("16 flows"), "{out}");

    // --set is checked and applied as `run` would: the summary shows the new load
    let out = ok(&["validate", "scenarios/quickstart.toml", "--set", "workload[0].load=0.9"]);
    assert!(out.contains("with --set workload[0].load=0.9") && out.contains("offered load 91.7%"), "{out}");
    let o = ccsim(&["validate", "scenarios/quickstart.toml", "--set", "workload[0].lode=0.9"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("lode"), "{}", text(&o.stderr));
}

#[test]
fn bad_input_exits_2_with_the_file_and_key() {
    let t = Tmp::new("bad");
    let f = t.0.join("typo.toml");
    std::fs::write(
        &f,
        "[topology]\nkind = \"star\"\nhosts = 4\nrate = \"100Gbps\"\ndelai = \"1us\"\n[[workload]]\nkind = \"flows\"\nflows = [{ src = 0, dst = 1, size = 1000 }]\n",
    )
    .unwrap();
    let o = ccsim(&["validate", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("typo.toml") && err.contains("topology.delai") && err.contains("line 5"), "{err}");

    let o = ccsim(&["run", "scenarios/dumbbell-2flows.toml", "--scheme", "cubic", "--out", t.s()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("unknown scheme 'cubic'"), "{}", text(&o.stderr));

    let o = ccsim(&["run", "scenarios/no-such-file.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no-such-file.toml"), "{}", text(&o.stderr));

    let o = ccsim(&["run", "scenarios/quickstart.toml", "--stop", "12"]);
    assert_eq!(o.status.code(), Some(2));
    // Nothing was written for failed input.
    assert_eq!(std::fs::read_dir(&t.0).unwrap().count(), 1);
}

#[test]
fn list_shows_registries() {
    let out = ok(&["list"]);
    for w in ["dcqcn", "hpcc", "none", "rate_ai", "fat_tree3", "leaf_spine", "poisson", "incast", "websearch", "hadoop"]
    {
        assert!(out.contains(w), "missing {w}:\n{out}");
    }
    let cdfs = ok(&["list", "cdfs"]);
    assert!(cdfs.contains("websearch") && !cdfs.contains("Schemes"), "{cdfs}");
}

#[test]
fn messages_on_connections_are_rows_with_their_connection_and_workload() {
    let t = Tmp::new("msgs");
    let out = ok(&["compare", "scenarios/rpc-closed-loop.toml", "--schemes", "bolt,hpcc", "--out", t.s(), "--quiet"]);
    assert!(out.contains("  connections"), "{out}");
    // the comparison's page: one column per scheme, the job's time
    let page = std::fs::read_to_string(t.0.join("rpc-closed-loop/compare-bolt-hpcc/report.html")).unwrap();
    assert!(page.contains("<th>bolt</th><th>hpcc</th>") && page.contains("job time, workload[0]"), "{page}");
    let dir = t.0.join("rpc-closed-loop/compare-bolt-hpcc/bolt");
    let flows = csv_rows(&dir.join("flows.csv"));
    assert_eq!(flows[0][9..].join(","), "workload,conn,timeouts,trimmed,drops");
    assert!(flows.len() > 100, "{} messages", flows.len() - 1);
    let conns = csv_rows(&dir.join("conns.csv"));
    assert_eq!(conns[0].join(","), "id,src,dst,messages,completed,bytes,acked,retransmits,timeouts,trimmed,drops");
    // 2 clients x 2 servers, each pair with a connection each way
    assert_eq!(conns.len(), 1 + 8);
    // every message row names a connection whose totals count it
    let mut per_conn = std::collections::BTreeMap::<String, u64>::new();
    for r in &flows[1..] {
        assert_eq!(r[9], "0");
        *per_conn.entry(r[10].clone()).or_default() += 1;
    }
    for c in &conns[1..] {
        assert_eq!(per_conn.get(&c[0]).copied().unwrap_or(0), c[3].parse::<u64>().unwrap(), "connection {}", c[0]);
    }
}

/// A job's outputs: its table on the page (with its hosts in rank order
/// after placement), `jobs.svg` with a panel per iteration and per
/// collective, the `jobs` section of summary.json, and the node table.
#[test]
fn a_jobs_results_show_its_iterations_collectives_and_placement() {
    let t = Tmp::new("jobs");
    let mut nodes = Vec::new();
    for r in 0..4 {
        let g = if r < 2 { 1 } else { 2 };
        nodes.push(format!(
            r#"{{"id": 1, "rank": {r}, "type": "collective", "op": "ring_allreduce", "size": "200KB", "group": {g}}}"#
        ));
        nodes.push(format!(
            r#"{{"id": 2, "rank": {r}, "type": "collective", "op": "allgather", "size": "400KB", "deps": [1]}}"#
        ));
    }
    std::fs::write(
        t.0.join("t.json"),
        format!(r#"{{"groups": {{"1": [0, 1], "2": [2, 3]}}, "nodes": [{}]}}"#, nodes.join(",")),
    )
    .unwrap();
    std::fs::write(
        t.0.join("s.toml"),
        "name = \"jobs\"\nschemes = [\"hpcc\"]\n[topology]\nkind = \"fat_tree\"\nk = 4\nhost_rate = \"100Gbps\"\n\
         [[workload]]\nkind = \"dag\"\npath = \"t.json\"\nhosts = [12, 0, 5, 1]\nplacement = \"leaf_local\"\niterations = 2\n",
    )
    .unwrap();
    let file = t.0.join("s.toml");
    ok(&["run", file.to_str().unwrap(), "--out", t.s(), "--quiet"]);
    let dir = t.0.join("jobs/hpcc");
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(page.contains("id=\"jobs\"") && page.contains("collectives: n, mean / max"), "no job table");
    // leaf-local: hosts 0 and 1 share a ToR, then 5, then 12
    assert!(page.contains("workload[0]: ranks 0..3 on hosts 0, 1, 5, 12"), "placement not shown");
    let svg = std::fs::read_to_string(dir.join("jobs.svg")).unwrap();
    assert!(svg.contains("workload[0]: iterations") && svg.contains("workload[0]: collectives"));
    let s = json(&dir.join("summary.json"));
    let j = &s["jobs"][0];
    assert_eq!(j["hosts"], serde_json::json!([0, 1, 5, 12]));
    let colls = j["collectives"].as_array().unwrap();
    // per iteration: two all-reduces (one per group), then one all-gather over all
    assert_eq!(colls.len(), 2 * 3);
    assert!(colls.iter().all(|c| c["time_us"].as_f64().unwrap() > 0.0));
    assert_eq!(colls.iter().filter(|c| c["iteration"] == 1).count(), 3);
    let iters = j["iteration_us"].as_array().unwrap();
    assert_eq!(iters.len(), 2);
    // an iteration holds its collectives, one after the other
    let (a, b) = (colls[0]["time_us"].as_f64().unwrap(), colls[2]["time_us"].as_f64().unwrap());
    assert!(iters[0].as_f64().unwrap() >= a + b * 0.99, "{iters:?} {colls:?}");
    let nodes = csv_rows(&dir.join("nodes.csv"));
    assert_eq!(nodes[0].join(","), "node,role,tier,pod,index,edge");
    assert_eq!(nodes.len(), 1 + 36);
    assert_eq!(nodes[1 + 5].join(","), "5,host,0,1,1,18");
    assert_eq!(nodes[1 + 35].join(","), "35,core,3,,3,");
}

#[test]
fn run_writes_a_complete_result_and_never_overwrites() {
    let t = Tmp::new("run");
    let out = ok(&["run", "scenarios/dumbbell-2flows.toml", "--out", t.s(), "--quiet"]);
    assert!(out.contains("slowdown p99"), "{out}");
    assert!(out.contains("dcqcn"), "{out}");
    let dir = t.0.join("dumbbell-2flows/dcqcn");
    for f in [
        "flows.csv",
        "ports.csv",
        "nodes.csv",
        "queues.csv",
        "utilization.csv",
        "flow_traces.csv",
        "summary.json",
        "scenario.toml",
        "slowdown.svg",
        "queues.svg",
        "rates.svg",
        "report.html",
    ] {
        assert!(dir.join(f).is_file(), "missing {f}");
    }
    // issue 25: a page to look at the run again, charts inline
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(page.contains("<table>") && page.contains("slowdown p99") && page.contains("<svg"), "{page}");
    // issue 34: the terminal's rows, per-size ones too, and values with their units
    assert!(page.contains("&gt;=1MB avg/p50/p95/p99") && page.contains("\u{a0}&lt;100KB finished"), "{page}");
    let table = &page[page.find("<table>").unwrap()..page.find("</table>").unwrap()];
    let cell = |row: &str| {
        let at = table.find(row).unwrap_or_else(|| panic!("no row {row}: {table}"));
        let rest = &table[at..];
        let td = rest.find("<td").unwrap();
        let td = td + rest[td..].find('>').unwrap() + 1;
        rest[td..td + rest[td..].find("</td>").unwrap()].to_string()
    };
    assert!(cell("max queue").ends_with("B"), "{}", cell("max queue"));
    assert!(cell("FCT avg / p99").contains("s / "), "{}", cell("FCT avg / p99"));
    let flows = csv_rows(&dir.join("flows.csv"));
    assert_eq!(
        flows[0].join(","),
        "id,src,dst,size,start_us,fct_us,ideal_fct_us,slowdown,retransmits,workload,conn,timeouts,trimmed,drops"
    );
    assert_eq!(flows.len(), 3);
    assert!(flows[1..].iter().all(|r| r[9] == "0" && r[10].is_empty()), "flows of workload 0, no connection");
    assert!(!dir.join("conns.csv").exists(), "no connections, no conns.csv");
    assert_eq!(flows[1][3], "10000000");
    assert_eq!(flows[2][4], "100");
    for row in &flows[1..] {
        let sd: f64 = row[7].parse().unwrap();
        assert!(sd >= 1.0, "slowdown {sd}");
    }
    let s = json(&dir.join("summary.json"));
    assert_eq!(s["scenario"], "dumbbell-2flows");
    assert_eq!(s["scheme"], "dcqcn");
    assert_eq!(s["seed"], 1);
    assert_eq!(s["finished"], 2);
    assert!(s["engine"]["events"].as_u64().unwrap() > 0);
    assert_eq!(s["network"]["mtu"], "1KB");
    let queue = csv_rows(&dir.join("queues.csv"));
    assert_eq!(queue[0].join(","), "port,t_us,queue_bytes");
    assert!(queue.len() > 10);
    assert_eq!(
        std::fs::read_to_string(dir.join("scenario.toml")).unwrap(),
        std::fs::read_to_string(repo().join("scenarios/dumbbell-2flows.toml")).unwrap()
    );

    // A second run goes next to the first; --force replaces the first.
    ok(&["run", "scenarios/dumbbell-2flows.toml", "--out", t.s(), "-q"]);
    assert!(t.0.join("dumbbell-2flows/dcqcn-2/summary.json").is_file());
    std::fs::write(dir.join("marker"), "old").unwrap();
    ok(&["run", "scenarios/dumbbell-2flows.toml", "--out", t.s(), "-q", "--force"]);
    assert!(!dir.join("marker").exists());
    assert!(dir.join("summary.json").is_file());
    assert!(!t.0.join("dumbbell-2flows/dcqcn-3").exists());
    let left: Vec<String> = std::fs::read_dir(t.0.join("dumbbell-2flows"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left.len(), 2, "temporary directories left behind: {left:?}");

    // Another scheme and seed.
    ok(&["run", "scenarios/dumbbell-2flows.toml", "--out", t.s(), "-q", "--scheme", "hpcc", "--seed", "5"]);
    let s = json(&t.0.join("dumbbell-2flows/hpcc/summary.json"));
    assert_eq!(s["scheme"], "hpcc");
    assert_eq!(s["seed"], 5);
}

/// Issue 32: losses in every output. A lossy incast (PFC off, 1 MB of
/// buffer): flows.csv's per-flow losses sum to summary.json's totals, the
/// table has a row each, and DCQCN's resends (far past 10% of its data)
/// are warned about before the table and kept in summary.json; the same
/// incast on the lossless default loses nothing and warns about nothing.
#[test]
fn losses_show_in_flows_csv_summary_and_table_and_heavy_resends_warn_first() {
    let t = Tmp::new("loss");
    let lossy = ["--set", "network.pfc.enabled=false", "--set", "network.buffer=\"1MB\""];
    let mut args = vec!["compare", "scenarios/incast-16to1.toml", "--schemes", "dcqcn,hpcc", "--out", t.s(), "-q"];
    args.extend(lossy);
    let out = ok(&args);
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("warning: dcqcn sent ") && first.contains("resends of 16,000 distinct data packets"),
        "{out}"
    );
    let table_at = out.find("data packets resent").unwrap_or_else(|| panic!("{out}"));
    assert!(out.find("warning: dcqcn").unwrap() < table_at, "the warning comes first: {out}");
    for row in ["retransmission timeouts", "trimmed packets", "drops", "PAUSE frames"] {
        assert!(out.lines().any(|l| l.starts_with(row)), "no row {row}: {out}");
    }
    let dir = t.0.join("incast-16to1/compare-dcqcn-hpcc");
    for scheme in ["dcqcn", "hpcc"] {
        let flows = csv_rows(&dir.join(scheme).join("flows.csv"));
        let col = |name: &str| {
            let i = flows[0].iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"));
            flows[1..].iter().map(|r| r[i].parse::<u64>().unwrap()).sum::<u64>()
        };
        let s = json(&dir.join(scheme).join("summary.json"));
        let total = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("{scheme}: no {k} in summary.json"));
        assert!(total("retransmits") > 0 && total("drops") > 0, "{scheme}: a lossy incast resends");
        assert_eq!(col("retransmits"), total("retransmits"), "{scheme}");
        assert_eq!(col("drops"), total("drops"), "{scheme}: only data packets are dropped");
        assert_eq!(col("timeouts"), total("timeouts"), "{scheme}");
        assert_eq!(col("trimmed"), s["trimmed"]["packets"].as_u64().unwrap(), "{scheme}");
        assert_eq!(total("pause_frames"), 0, "{scheme}: PFC is off");
        let warned = s["warnings"].as_array().unwrap();
        if scheme == "dcqcn" {
            assert!(warned.len() == 1 && warned[0].as_str().unwrap().starts_with("dcqcn sent "), "{warned:?}");
        }
    }
    let cmp = csv_rows(&dir.join("compare.csv"));
    for k in ["retransmits", "timeouts", "trimmed", "drops", "pause_frames"] {
        assert!(cmp[0].iter().any(|h| h == k), "compare.csv has no {k}: {:?}", cmp[0]);
    }
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(page.contains("<strong>Warning:</strong> dcqcn sent ") && page.contains("data packets resent"), "{page}");

    let out = ok(&["run", "scenarios/incast-16to1.toml", "--scheme", "hpcc", "--out", t.s(), "-q"]);
    assert!(!out.contains("warning:"), "{out}");
    let s = json(&t.0.join("incast-16to1/hpcc/summary.json"));
    for k in ["retransmits", "timeouts", "drops"] {
        assert_eq!(s[k], 0, "lossless: {k}");
    }
    assert_eq!(s["warnings"], serde_json::json!([]));
}

#[test]
fn stop_limits_simulated_time() {
    let t = Tmp::new("stop");
    // Each 10 MB flow needs at least 800 us at 100 Gbps; flow 1 starts at 100 us.
    let out =
        ok(&["run", "scenarios/dumbbell-2flows.toml", "--scheme", "hpcc", "--stop", "500us", "--out", t.s(), "-q"]);
    assert!(out.contains("(stopped)"), "{out}");
    let s = json(&t.0.join("dumbbell-2flows/hpcc/summary.json"));
    assert_eq!(s["truncated"], true);
    assert_eq!(s["stop_us"], 500.0);
    assert_eq!(s["finished"], 0);
    assert!(s["engine"]["sim_end_us"].as_f64().unwrap() <= 500.0);
    // unfinished flows are warned about, first and in summary.json
    assert!(out.starts_with("warning: hpcc: 2 of 2 flows did not finish by 500us"), "{out}");
    assert!(s["warnings"][0].as_str().unwrap().contains("did not finish"), "{s}");
    // Unfinished flows have empty FCT and slowdown fields.
    let flows = csv_rows(&t.0.join("dumbbell-2flows/hpcc/flows.csv"));
    assert_eq!(flows.len(), 3);
    assert!(flows[1..].iter().all(|r| r[5].is_empty() && r[7].is_empty()));
}

/// A result folder says which --set overrides made it: run.json lists them,
/// the page names them (issue 34); without any, the list is empty.
#[test]
fn the_set_overrides_are_kept_with_the_results() {
    let t = Tmp::new("sets");
    let set = "workload[0].flows[1].size=2000000";
    ok(&["run", "scenarios/dumbbell-2flows.toml", "--scheme", "hpcc", "--set", set, "--out", t.s(), "-q"]);
    let dir = t.0.join("dumbbell-2flows/hpcc");
    let run = json(&dir.join("run.json"));
    assert_eq!(run["overrides"], serde_json::json!([set]), "{run}");
    assert_eq!(run["scenario"].as_str().unwrap().split(" (with").next(), Some("scenarios/dumbbell-2flows.toml"));
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(page.contains(&format!("Made with <code>--set {set}</code>")), "{page}");
    // and they took effect
    let flows = csv_rows(&dir.join("flows.csv"));
    assert_eq!(flows[2][3], "2000000");

    ok(&["run", "scenarios/dumbbell-2flows.toml", "--scheme", "hpcc", "--out", t.s(), "-q", "--force"]);
    assert_eq!(json(&dir.join("run.json"))["overrides"], serde_json::json!([]));
    assert!(!std::fs::read_to_string(dir.join("report.html")).unwrap().contains("Made with"));
}

/// The README's quick start: every scheme of quickstart.toml finishes every flow.
#[test]
fn quickstart_compare_finishes() {
    let t = Tmp::new("quick");
    let out = ok(&["compare", "scenarios/quickstart.toml", "--out", t.s(), "-q"]);
    let dir = t.0.join("quickstart/compare-dcqcn-hpcc-none");
    let rows = csv_rows(&dir.join("compare.csv"));
    assert_eq!(rows.iter().skip(1).map(|r| r[0].as_str()).collect::<Vec<_>>(), vec!["dcqcn", "hpcc", "none"]);
    for r in &rows[1..] {
        assert_eq!(r[1], r[2], "{}: every flow finishes: {out}", r[0]);
    }
    assert!(dir.join("utilization.svg").is_file());
}

#[test]
fn compare_runs_every_scheme_side_by_side() {
    let t = Tmp::new("cmp");
    let out = ok(&["compare", "scenarios/incast-16to1.toml", "--schemes", "dcqcn,hpcc", "--out", t.s(), "-q"]);
    let header = out.lines().find(|l| l.contains("dcqcn") && l.contains("hpcc")).unwrap_or_else(|| panic!("{out}"));
    assert!(header.find("dcqcn") < header.find("hpcc"));
    let dir = t.0.join("incast-16to1/compare-dcqcn-hpcc");
    let rows = csv_rows(&dir.join("compare.csv"));
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[1][0], "dcqcn");
    assert_eq!(rows[2][0], "hpcc");
    assert_eq!(rows[1][2], "16");
    let j = json(&dir.join("compare.json"));
    assert_eq!(j["results"].as_array().unwrap().len(), 2);
    for s in ["dcqcn", "hpcc"] {
        let sum = json(&dir.join(s).join("summary.json"));
        assert_eq!(sum["scheme"], s);
        assert_eq!(sum["finished"], 16);
        assert!(dir.join(s).join("queues.csv").is_file());
    }
    let svg = std::fs::read_to_string(dir.join("queues.svg")).unwrap();
    // ports are named by node kind: switch 17's port towards host 16
    assert!(svg.contains("dcqcn s17→h16") && svg.contains("hpcc s17→h16"), "legend lists both schemes");
    assert!(dir.join("slowdown.svg").is_file());
    assert!(!dir.join("slowdown.png").exists(), "PNG only with --figures");
}

/// `--figures png,pdf` in a build with the `export` feature (CI's export
/// step); without it, the same command is refused with the way to build it.
#[test]
fn charts_take_a_time_window_and_more_formats() {
    let t = Tmp::new("figs");
    let args = [
        "compare",
        "scenarios/incast-16to1.toml",
        "--schemes",
        "dcqcn,hpcc",
        "--out",
        t.s(),
        "-q",
        "--figures",
        "png,pdf",
        "--window",
        "10us..60us",
    ];
    let dir = t.0.join("incast-16to1/compare-dcqcn-hpcc");
    if cfg!(feature = "export") {
        ok(&args);
    } else {
        let o = ccsim(&args);
        assert_eq!(o.status.code(), Some(2));
        let e = text(&o.stderr);
        assert!(e.contains("SVG only") && e.contains("--features export"), "{e}");
        assert!(!dir.exists(), "nothing is run");
        let mut svg_only = args.to_vec();
        svg_only[8] = "svg";
        ok(&svg_only);
    }
    for stem in ["slowdown", "queues"] {
        assert!(dir.join(format!("{stem}.svg")).is_file(), "SVG is always written");
        if !cfg!(feature = "export") {
            assert!(!dir.join(format!("{stem}.png")).exists());
            continue;
        }
        let png = std::fs::read(dir.join(format!("{stem}.png"))).unwrap();
        assert_eq!(&png[..4], b"\x89PNG");
        let pdf = std::fs::read(dir.join(format!("{stem}.pdf"))).unwrap();
        assert!(pdf.starts_with(b"%PDF-"));
    }
    // the time axis spans the window: 10 us to 60 us, not the whole run
    let svg = std::fs::read_to_string(dir.join("queues.svg")).unwrap();
    assert!(svg.contains(">\n10\n<") && svg.contains(">\n60\n<"), "x ticks");
    assert!(!svg.contains(">\n80\n<") && !svg.contains(">\n100\n<"), "ticks past the window");
    for (arg, val, msg) in [("--figures", "svg,jpg", "'jpg'"), ("--window", "60us..10us", "before it starts")] {
        let o = ccsim(&["run", "scenarios/incast-16to1.toml", "--out", t.s(), arg, val]);
        assert_eq!(o.status.code(), Some(2), "{arg} {val}");
        assert!(text(&o.stderr).contains(msg), "{}", text(&o.stderr));
    }
}

/// A `--window` wholly after the run (issue 32: empty charts) is named in a
/// warning with the run's end, and the charts show the whole run.
#[test]
fn a_window_after_the_run_is_named_and_the_whole_run_drawn() {
    let t = Tmp::new("late-window");
    let o = ccsim(&["run", "scenarios/quickstart.toml", "--out", t.s(), "-q", "--window", "50ms..60ms"]);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("warning: the chart window 50ms..60ms starts after the run ended at"), "{err}");
    let dir = std::fs::read_dir(t.0.join("quickstart")).unwrap().next().unwrap().unwrap().path();
    let svg = std::fs::read_to_string(dir.join("queues.svg")).unwrap();
    assert!(svg.contains("<polyline") || svg.contains("<path"), "the queues are drawn");
    assert!(!svg.contains(">\n50\n<"), "not over the window");
}

#[test]
fn bench_reports_measurements() {
    let out = ok(&["bench", "--only", "small-incast", "--json", "-q", "--project-threads", "1,2"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for r in rows {
        // projected parallel runs: every event counted once per thread count
        let p = r["parallel"].as_array().unwrap_or_else(|| panic!("no projection: {r}"));
        assert_eq!(p.len(), 2);
        for (q, threads) in p.iter().zip([1, 2]) {
            assert_eq!(q["threads"], threads);
            let counted: u64 = q["part_events"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).sum::<u64>()
                + q["serial_events"].as_u64().unwrap();
            assert_eq!(counted, r["events"].as_u64().unwrap(), "{q}");
        }
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["scenario"], "small-incast");
        assert_eq!(r["flows"], 16);
        assert_eq!(r["finished"], 16);
        assert!(r["events"].as_u64().unwrap() > 0);
        assert!(r["events_per_sec"].as_f64().unwrap() > 0.0);
        if cfg!(target_os = "linux") {
            assert!(r["peak_mib"].as_f64().unwrap() > 0.0);
        }
    }
    // The text table.
    let t = Tmp::new("bench");
    let table = ok(&["bench", "--only", "hpcc-ref-10ms", "--shared", t.s(), "-q"]);
    assert!(table.contains("hpcc-ref-10ms") && table.contains("skipped"), "{table}");
    let table = ok(&["bench", "--scenario", "scenarios/dumbbell-2flows.toml", "-q"]);
    assert!(table.contains("Mevents/s") && table.contains("dumbbell-2flows"), "{table}");
    assert_eq!(table.lines().filter(|l| l.starts_with("dumbbell-2flows ")).count(), 2, "one row per scheme: {table}");
    let table = ok(&["bench", "--scenario", "scenarios/dumbbell-2flows.toml", "-q", "--project-threads", "2"]);
    assert!(table.contains("speedup free") && table.contains("Projected from the sequential run"), "{table}");
    // and per scheme, the events per data packet by kind
    for s in ["dcqcn", "hpcc"] {
        assert!(
            table.contains(&format!("dumbbell-2flows/{s} events per data packet: arrive 6.00, tx_done")),
            "{table}"
        );
    }
}

#[test]
fn validate_the_sqcc_paper_scenarios() {
    // experiments/sqcc/: one scenario per incast degree N (incast-n<N>.toml)
    // beside the manifest.
    let mut files: Vec<String> = std::fs::read_dir(repo().join("experiments/sqcc"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".toml") && f != "manifest.toml")
        .map(|f| format!("experiments/sqcc/{f}"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 7, "{files:?}");
    let mut args = vec!["validate"];
    args.extend(files.iter().map(|s| s.as_str()));
    let out = ok(&args);
    assert_eq!(out.matches("ok: ").count(), 7, "{out}");
    for f in &files {
        // the paper's N:1 incast (§IV): N flows into a 10 Gbps bottleneck
        let n = f.trim_start_matches("experiments/sqcc/incast-n").trim_end_matches(".toml");
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("ok: {f}:")))
            .unwrap_or_else(|| panic!("{f} not validated: {out}"));
        assert!(line.contains(&format!("({n}:1 incast")), "{f}: {line}");
        assert!(line.contains(&format!("Workload: {n} flows,")), "{f}: {line}");
        assert!(line.contains("bottleneck 10Gbps"), "{f}: {line}");
    }
}

#[test]
fn reproduce_runs_a_manifest_then_answers_from_the_cache() {
    let t = Tmp::new("repro");
    let exp = repo().join("crates/repro/tests/tiny");
    let (out, cache) = (t.0.join("out"), t.0.join("cache"));
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> =
            ["reproduce", "tiny", "--experiments", exp.to_str().unwrap()].iter().map(|s| s.to_string()).collect();
        a.extend(
            ["--out", out.to_str().unwrap(), "--cache", cache.to_str().unwrap(), "-q"].iter().map(|s| s.to_string()),
        );
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        ok(&a.iter().map(|s| s.as_str()).collect::<Vec<_>>())
    };
    let first = run(&[]);
    assert!(first.contains("7 runs: 7 simulated, 0 from the cache, 0 failed"), "{first}");
    // headline reproduced, results, reproduced, direction only, not reproduced,
    // inconclusive, fragile, error, not simulated, checks held
    let row = first.lines().find(|l| l.starts_with("tiny")).unwrap_or_else(|| panic!("{first}"));
    assert_eq!(
        row.split_whitespace().collect::<Vec<_>>(),
        ["tiny", "1/2", "5", "3", "1", "1", "0", "0", "0", "1", "1/1"],
        "{first}"
    );
    assert!(out.join("tiny/report.md").is_file() && out.join("tiny/report.html").is_file());
    let second = run(&[]);
    assert!(second.contains("7 runs: 0 simulated, 7 from the cache, 0 failed"), "{second}");
    // one claim: only its runs
    let one = run(&["--claim", "lone-slowdown"]);
    assert!(one.contains("1 runs: 0 simulated, 1 from the cache"), "{one}");
    let list = ok(&["reproduce", "--list", "--experiments", exp.to_str().unwrap()]);
    assert!(list.contains("tiny") && list.contains("reduced est."), "{list}");
    // every claim on a row of its own: headline mark, kind, status, runs and
    // estimated CPU at both scales (issue 34)
    let row = |id: &str| {
        let l = list.lines().find(|l| l.split_whitespace().any(|w| w == id)).unwrap_or_else(|| panic!("{id}: {list}"));
        l.split_whitespace().map(str::to_string).collect::<Vec<_>>()
    };
    let lone = row("lone-slowdown");
    assert_eq!(lone[..5], ["*", "lone-slowdown", "headline", "run", "1"], "{lone:?}");
    assert!(lone[5] == "run" && lone[6].ends_with('s'), "{lone:?}");
    let check = row("all-finished");
    assert_eq!(check[..3], ["all-finished", "check", "run"], "{check:?}");
    assert_eq!(row("testbed-cpu")[1..], ["result", "not", "simulable", "-", "-"]);
    let bad = ccsim(&["reproduce", "nope", "--experiments", exp.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("unknown paper 'nope' (known: tiny, all)"), "{}", text(&bad.stderr));
}

#[test]
fn every_paper_manifest_plans_without_problems() {
    let out = ok(&["reproduce", "all", "--check", "-q"]);
    assert!(out.contains("6 paper(s)") && out.contains("0 problem(s)"), "{out}");
}

/// The shipped PFC-deadlock example: the run ends by itself, names the
/// cycle of paused ports, writes its results and exits 3.
#[test]
fn a_pfc_deadlock_is_named_and_its_results_kept() {
    let t = Tmp::new("deadlock");
    let o = ccsim(&["run", "scenarios/pfc-deadlock-ring.toml", "--out", t.s(), "-q", "--check"]);
    assert_eq!(o.status.code(), Some(3), "stderr:\n{}", text(&o.stderr));
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(out.contains("(deadlock)"), "{out}");
    assert!(err.contains("PFC deadlock") && err.contains("5:6 -> 6:7 -> 7:8 -> 8:9 -> 9:5"), "{err}");
    assert!(out.contains("check: none: passed"), "{out}");
    let dir = t.0.join("pfc-deadlock-ring/none");
    let s = json(&dir.join("summary.json"));
    assert_eq!(s["status"], "deadlock");
    assert_eq!(s["unfinished_flows"], 5);
    assert_eq!(s["run_status"]["cycle"].as_array().unwrap().len(), 5);
    assert_eq!(csv_rows(&dir.join("flows.csv")).len(), 6);
}

/// `--check` runs the invariant checks in this build and reports them; the
/// results do not change (the check drains the fabric after the results
/// are taken).
#[test]
fn check_passes_and_leaves_the_results_unchanged() {
    let t = Tmp::new("check");
    let a = t.0.join("a");
    let b = t.0.join("b");
    let out =
        ok(&["compare", "scenarios/incast-16to1.toml", "--schemes", "dcqcn,hpcc", "--out", a.to_str().unwrap(), "-q"]);
    assert!(!out.contains("check:"), "{out}");
    let out = ok(&[
        "compare",
        "scenarios/incast-16to1.toml",
        "--schemes",
        "dcqcn,hpcc",
        "--out",
        b.to_str().unwrap(),
        "-q",
        "--check",
    ]);
    assert!(out.contains("check: dcqcn: passed") && out.contains("check: hpcc: passed"), "{out}");
    for s in ["dcqcn", "hpcc"] {
        let d = |root: &Path| root.join("incast-16to1/compare-dcqcn-hpcc").join(s);
        for f in ["flows.csv", "ports.csv", "queues.csv"] {
            let x = std::fs::read(d(&a).join(f)).unwrap();
            assert_eq!(x, std::fs::read(d(&b).join(f)).unwrap(), "{s}/{f} changed under --check");
        }
        let sum = json(&d(&b).join("summary.json"));
        assert_eq!(sum["check"], "passed");
        assert_eq!(sum["engine"]["packets_live"], 0, "every packet freed");
    }
}

/// Results are written before the table: a reader that closes stdout at
/// once (`ccsim run X | head -0`) costs nothing.
#[test]
fn a_closed_stdout_loses_nothing() {
    use std::process::Stdio;
    let t = Tmp::new("pipe");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ccsim"))
        .args(["run", "scenarios/dumbbell-2flows.toml", "--out", t.s(), "-q"])
        .current_dir(repo())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "stderr:\n{}", text(&o.stderr));
    assert!(!text(&o.stderr).contains("panicked"), "{}", text(&o.stderr));
    let s = json(&t.0.join("dumbbell-2flows/dcqcn/summary.json"));
    assert_eq!(s["finished"], 2);
}

/// SIGINT stops a long run at the next event boundary: partial results,
/// marked interrupted, and no temporary directory left behind.
#[test]
fn an_interrupted_run_keeps_partial_results() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let t = Tmp::new("sigint");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ccsim"))
        .args(["run", "scenarios/fat320-websearch-30.toml", "--scheme", "hpcc", "--out", t.s()])
        .current_dir(repo())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // the header line is printed once the scenario is read and the output
    // directory prepared, just before simulating
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut header = String::new();
    err.read_line(&mut header).unwrap();
    assert!(header.contains("with hpcc"), "{header}");
    std::thread::sleep(std::time::Duration::from_millis(500));
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let rest = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut err, &mut s).unwrap();
        s
    });
    let o = child.wait_with_output().unwrap();
    let err = rest.join().unwrap();
    assert_eq!(o.status.code(), Some(3), "stderr:\n{err}");
    assert!(err.contains("interrupted"), "{err}");
    let dir = t.0.join("fat320-websearch-30");
    let s = json(&dir.join("hpcc/summary.json"));
    assert_eq!(s["status"], "interrupted");
    assert!(s["unfinished_flows"].as_u64().unwrap() > 0);
    let left: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(left, vec!["hpcc".to_string()], "temporary directories left behind");
}

/// `ccsim sweep`: every point of the grid, one tidy CSV, and a rerun that
/// takes every point from the cache.
#[test]
fn sweep_runs_the_grid_then_resumes_from_the_cache() {
    let t = Tmp::new("sweep");
    let cache = t.0.join("cache");
    let args = [
        "sweep",
        "scenarios/incast-16to1.toml",
        "--grid",
        "workload[0].fan_in=2,4",
        "--grid",
        "scheme=dcqcn,hpcc",
        "--grid",
        "trace.flows=[0]",
        "--out",
        t.s(),
        "--cache",
        cache.to_str().unwrap(),
        "-q",
    ];
    let out = ok(&args);
    assert!(out.contains("4 points: 4 simulated, 0 from the cache, 0 failed"), "{out}");
    let rows = csv_rows(&t.0.join("incast-16to1/sweep.csv"));
    assert_eq!(rows[0].join(","), "workload[0].fan_in,scheme,trace.flows,seed,status,metric,value");
    let get = |fan: &str, scheme: &str, metric: &str| -> f64 {
        let r = rows[1..]
            .iter()
            .find(|r| r[0] == fan && r[1] == scheme && r[5] == metric)
            .unwrap_or_else(|| panic!("no row {fan} {scheme} {metric}"));
        r[6].parse().unwrap()
    };
    for scheme in ["dcqcn", "hpcc"] {
        assert_eq!(get("2", scheme, "finished"), 2.0);
        assert_eq!(get("4", scheme, "finished"), 4.0);
        // a 4:1 incast queues more than a 2:1 incast
        assert!(get("4", scheme, "max_queue_bytes") > get("2", scheme, "max_queue_bytes"));
    }
    let out = ok(&args);
    assert!(out.contains("4 points: 0 simulated, 4 from the cache"), "{out}");
    assert_eq!(csv_rows(&t.0.join("incast-16to1/sweep.csv")), rows, "the same table from the cache");

    let o = ccsim(&["sweep", "scenarios/incast-16to1.toml", "--grid", "network.ecn.pmax=2", "--out", t.s()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("point [network.ecn.pmax=2"), "{}", text(&o.stderr));
}

#[test]
fn a_full_stderr_is_not_a_crash() {
    // issue 25: `ccsim run X 2>/dev/full` panicked ("failed printing to stderr")
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else { return };
    let t = Tmp::new("devfull");
    let o = Command::new(env!("CARGO_BIN_EXE_ccsim"))
        .args(["run", "scenarios/dumbbell-2flows.toml", "--out", t.s()])
        .current_dir(repo())
        .stderr(full)
        .output()
        .unwrap();
    assert!(o.status.success(), "status {:?}, stdout {}", o.status, text(&o.stdout));
    assert!(text(&o.stdout).contains("slowdown p99"));
    // and an error still exits with its status when it cannot be printed
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_ccsim"))
        .args(["run", "scenarios/no-such-file.toml"])
        .current_dir(repo())
        .stderr(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "input error status");
}

#[test]
fn zero_jobs_and_seeds_are_refused_and_a_second_sweep_keeps_the_first() {
    // issue 25: --jobs 0 and --seeds 0 were accepted (as 1 / as 0 runs)
    for args in [
        vec!["compare", "scenarios/dumbbell-2flows.toml", "--jobs", "0"],
        vec!["sweep", "scenarios/dumbbell-2flows.toml", "--grid", "seed=1", "--jobs", "0"],
        vec!["reproduce", "sqcc", "--list", "--jobs", "0"],
    ] {
        let o = ccsim(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(text(&o.stderr).contains("--jobs") && text(&o.stderr).contains("at least 1"), "{}", text(&o.stderr));
    }
    for n in ["0", "100000"] {
        let o = ccsim(&["reproduce", "sqcc", "--list", "--seeds", n]);
        assert_eq!(o.status.code(), Some(2));
        assert!(text(&o.stderr).contains("must be in 1..=1000"), "{}", text(&o.stderr));
    }
    // issue 25: a second sweep into the same --out replaced sweep.csv without a word
    let t = Tmp::new("sweep2");
    let args = ["sweep", "scenarios/dumbbell-2flows.toml", "--grid", "scheme=hpcc", "--out", t.s(), "--cache"];
    let cache = t.0.join("cache");
    let cache = cache.to_str().unwrap();
    let first = ok(&[&args[..], &[cache, "-q"]].concat());
    assert!(first.contains("sweep.csv"), "{first}");
    let second = ok(&[&args[..], &[cache, "-q"]].concat());
    assert!(second.contains("sweep-2.csv"), "{second}");
    let dir = t.0.join("dumbbell-2flows");
    assert!(dir.join("sweep.csv").is_file() && dir.join("sweep-2.csv").is_file());
    let forced = ok(&[&args[..], &[cache, "-q", "--force"]].concat());
    assert!(forced.contains("sweep.csv") && !dir.join("sweep-3.csv").exists(), "{forced}");
}

#[test]
fn the_uet_htsim_side_by_side_scenarios_stay_valid() {
    // scripts/uet_htsim_live.py writes ccsim scenarios for its runs beside
    // uet-htsim (docs/validation/uet-htsim/); --check writes them all with
    // uet-htsim's settings and has this binary validate them, so a renamed
    // key or a new refusal shows here, not on the next side-by-side run.
    let o = Command::new("python3")
        .args(["scripts/uet_htsim_live.py", "--check", "--ccsim", env!("CARGO_BIN_EXE_ccsim")])
        .current_dir(repo())
        .output()
        .expect("cannot start python3");
    assert!(o.status.success(), "stdout:\n{}\nstderr:\n{}", text(&o.stdout), text(&o.stderr));
    let out = text(&o.stdout);
    let n: usize = out.lines().find_map(|l| l.strip_suffix(" scenarios valid")?.parse().ok()).unwrap_or(0);
    // the 16 cases of issue 37's table and the SLEEK ones, at least
    assert!(n >= 25, "{out}");
}
