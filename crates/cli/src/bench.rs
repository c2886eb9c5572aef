//! `ccsim bench`: how fast is the simulator, measured on fixed reference
//! scenarios. Every (scenario, scheme) runs in a child process of this same
//! executable (`ccsim bench --child NAME --scheme S`), so the peak memory
//! (VmHWM) reported is that of one simulation alone. The child prints one
//! JSON line of measurements; the parent collects them into a table.
//!
//! Reference scenarios:
//! - `hpcc-ref-10ms`: the HPCC-simulator inputs (320-host fat tree, WebSearch
//!   at 30% load over 10 ms, 6,878 flows) read from the shared bench folder,
//!   with the reference run's settings (see `shared/bench/README.md`);
//!   skipped with a note when the files are absent.
//! - `fat320-websearch-30`: the same fabric and load from the built-in generators.
//! - `small-incast`: 16 x 1 MB to one host on a star, a quick number.
//! - `fat-k32-websearch-30`: a large fabric, a k = 32 fat tree (8,192 hosts,
//!   1,280 switches) with WebSearch at 30% arriving over 50 us (about 900
//!   flows): build time, events/s and memory at scale.
//!
//! The reference inputs ship in the repository's `bench/` folder (a copy of
//! the HPCC simulator's topology and flow files).

use clap::Args;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::table::{self, Table};
use crate::Fail;
use ccsim_scenario::{self as scenario, Overrides, Scenario};

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Run only this reference scenario (hpcc-ref-10ms, fat320-websearch-30, small-incast,
    /// fat-k32-websearch-30).
    #[arg(long)]
    pub only: Option<String>,
    /// Folder with the HPCC-simulator reference inputs (default: ./bench, then ../shared/bench,
    /// then the repository's bench/).
    #[arg(long)]
    pub shared: Option<PathBuf>,
    /// Benchmark this scenario file (each of its schemes) instead of the reference set; repeatable.
    #[arg(long)]
    pub scenario: Vec<PathBuf>,
    /// Also count each run's events as a conservative parallel run of these
    /// thread counts would see them (comma-separated, e.g. 2,8,16,32) and
    /// print the projected speedups: a projection, no thread runs.
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u16).range(1..))]
    pub project_threads: Vec<u16>,
    /// Threads each run uses (the network cut into as many parts; results identical to one
    /// thread's). Default 1.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub threads: u16,
    /// Print the measurements as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// No progress lines from the runs.
    #[arg(long, short)]
    pub quiet: bool,
    /// Internal: run one benchmark in this process and print its measurements as one JSON line.
    #[arg(long, hide = true)]
    pub child: Option<String>,
    /// Internal: the scheme for --child.
    #[arg(long, hide = true)]
    pub scheme: Option<String>,
}

pub const HPCC_TOPOLOGY: &str = "fat320.topology.txt";
pub const HPCC_FLOWS: &str = "websearch-load30-10ms.flows.txt";

/// Network and HPCC settings of the reference runs (shared/bench/README.md):
/// 1000 B payload + 48 B headers, ACK per packet, 32 MB buffer, dynamic PFC,
/// ECN RED 100 KB / 400 KB per 25G with pmax 0.2; ACKs share the data queue in
/// switches; HPCC eta 0.95, every update multiplicative (max_stage 0),
/// additive step 50 Mbps, one global base RTT.
const REFERENCE_SETTINGS: &str = r#"
[network]
mtu = 1000
header = 48
ack_every = 1
buffer = "32MB"
ack_high_priority = false

[network.ecn]
mode = "red"
kmin = "100KB"
kmax = "400KB"
pmax = 0.2
scale_per_25g = true

[scheme.hpcc]
eta = 0.95
max_stage = 0
rate_ai = "50Mbps"
min_rate = "1Gbps"
base_rtt = "global"
window = true
fast_react = true
"#;

const FAT320_GENERATED: &str = r#"
name = "fat320-websearch-30"
[topology]
kind = "fat_tree3"
pods = 5
tors_per_pod = 4
aggs_per_pod = 4
hosts_per_tor = 16
cores = 16
host_rate = "100Gbps"
fabric_rate = "400Gbps"
delay = "1us"

[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.3
duration = "10ms"
"#;

const SMALL_INCAST: &str = r#"
name = "small-incast"
[topology]
kind = "star"
hosts = 17
rate = "100Gbps"
delay = "1us"

[[workload]]
kind = "incast"
fan_in = 16
receiver = 16
size = "1MB"
"#;

const FAT_K32: &str = r#"
name = "fat-k32-websearch-30"
[topology]
kind = "fat_tree"
k = 32
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"

[[workload]]
kind = "poisson"
cdf = "websearch"
load = 0.3
duration = "50us"
"#;

/// The reference benchmarks and the schemes each runs.
pub const BENCHMARKS: [(&str, &[&str]); 4] = [
    ("hpcc-ref-10ms", &["hpcc"]),
    ("fat320-websearch-30", &["hpcc"]),
    ("small-incast", &["hpcc", "dcqcn"]),
    ("fat-k32-websearch-30", &["hpcc"]),
];

/// The reference inputs folder: --shared, else ./bench, else ../shared/bench,
/// else the repository's bench/.
pub fn find_shared(arg: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = arg {
        return Some(p.to_path_buf());
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench");
    [PathBuf::from("bench"), PathBuf::from("../shared/bench"), repo]
        .into_iter()
        .find(|p| p.join(HPCC_TOPOLOGY).is_file())
}

/// The scenario text of a reference benchmark; Err(note) when it cannot run here.
pub fn reference_text(name: &str, shared: Option<&Path>) -> Result<String, String> {
    match name {
        "hpcc-ref-10ms" => {
            let dir = shared.ok_or_else(|| {
                "skipped: the HPCC reference inputs were not found (looked in ./bench, ../shared/bench and the repository's bench/; use --shared DIR)".to_string()
            })?;
            let topo = dir.join(HPCC_TOPOLOGY);
            let flows = dir.join(HPCC_FLOWS);
            for f in [&topo, &flows] {
                if !f.is_file() {
                    return Err(format!("skipped: {} not found", f.display()));
                }
            }
            let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
            let q = |p: &Path| toml::Value::String(abs(p).display().to_string()).to_string();
            Ok(format!(
                "name = \"hpcc-ref-10ms\"\n[topology]\nkind = \"hpcc_file\"\npath = {}\n\n[[workload]]\nkind = \"hpcc_flows\"\npath = {}\nrebase = true\n{REFERENCE_SETTINGS}",
                q(&topo),
                q(&flows)
            ))
        }
        "fat320-websearch-30" => Ok(format!("{FAT320_GENERATED}{REFERENCE_SETTINGS}")),
        "small-incast" => Ok(format!("{SMALL_INCAST}{REFERENCE_SETTINGS}")),
        "fat-k32-websearch-30" => Ok(format!("{FAT_K32}{REFERENCE_SETTINGS}")),
        _ => Err(format!(
            "unknown benchmark '{name}' (known: {})",
            BENCHMARKS.iter().map(|b| b.0).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// Peak resident memory of this process in MiB (VmHWM), on Linux.
pub fn peak_mib() -> Option<f64> {
    parse_vmhwm(&std::fs::read_to_string("/proc/self/status").ok()?)
}

pub fn parse_vmhwm(status: &str) -> Option<f64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Loads a benchmark: a reference name or a scenario file path.
fn load_bench(name: &str, scheme: Option<&str>, shared: Option<&Path>) -> Result<Scenario, String> {
    let ov = Overrides { schemes: scheme.map(|s| vec![s.to_string()]), ..Default::default() };
    if BENCHMARKS.iter().any(|b| b.0 == name) {
        let text = reference_text(name, shared)?;
        scenario::load_text(&format!("<bench {name}>"), &text, Path::new("."), name, &ov)
    } else {
        scenario::load(Path::new(name), &ov)
    }
}

/// Child: run one benchmark and print its measurements.
fn child(a: &BenchArgs, name: &str) -> Result<(), Fail> {
    let shared = find_shared(a.shared.as_deref());
    let t0 = std::time::Instant::now();
    let mut scn = load_bench(name, a.scheme.as_deref(), shared.as_deref()).map_err(Fail::Input)?;
    // Measure the engine alone: no traces.
    scn.trace = ccsim_core::sim::TraceConfig::default();
    scn.project_threads = a.project_threads.iter().map(|&n| n as usize).collect();
    scn.threads = a.threads as usize;
    let scheme_name = scn.schemes[0].clone();
    let r = crate::commands::simulate(&scn, &scheme_name, a.quiet)?;
    // reading the scenario, generating flows, building the simulator
    let build_secs = (t0.elapsed().as_secs_f64() - r.engine.wall_secs).max(0.0);
    let s = r.summary();
    let m = json!({
        "scenario": scn.name,
        "scheme": scheme_name,
        "flows": s.flows,
        "finished": s.finished,
        "events": r.engine.events,
        "events_by_kind": r.engine.by_kind.named().iter().map(|&(k, n)| (k.to_string(), json!(n))).collect::<serde_json::Map<_, _>>(),
        "data_packets": r.engine.data_packets,
        "link_packets": r.engine.link_packets,
        "wall_secs": r.engine.wall_secs,
        "build_secs": build_secs,
        "sim_secs": ccsim_core::time::to_secs(r.engine.sim_end),
        "peak_mib": peak_mib(),
        "truncated": r.truncated,
        "slowdown_p99": if s.slowdown.p99.is_finite() { json!(s.slowdown.p99) } else { Value::Null },
        "parallel": r.parallel,
        "threads": scn.threads,
        "notes": r.notes.iter().map(|n| n.text.clone()).collect::<Vec<_>>(),
    });
    outln!("{m}");
    Ok(())
}

/// One benchmark to run: what the child is told, and the scheme.
struct Job {
    label: String,
    child_arg: String,
    scheme: String,
}

/// Adds the derived rates to a child's measurements.
pub fn with_rates(mut m: Value) -> Value {
    let wall = m["wall_secs"].as_f64().unwrap_or(0.0);
    let sim = m["sim_secs"].as_f64().unwrap_or(0.0);
    let per = |x: f64, d: f64| if d > 0.0 && x.is_finite() { json!(x / d) } else { Value::Null };
    m["events_per_sec"] = per(m["events"].as_f64().unwrap_or(f64::NAN), wall);
    m["data_packets_per_sec"] = per(m["data_packets"].as_f64().unwrap_or(f64::NAN), wall);
    m["sim_per_wall"] = per(sim, wall);
    m["events_per_data_packet"] =
        per(m["events"].as_f64().unwrap_or(f64::NAN), m["data_packets"].as_f64().unwrap_or(f64::NAN));
    m["wall_per_sim"] = per(wall, sim);
    m["status"] = json!("ok");
    m
}

/// The benchmark table from measurement objects (as printed by children, with rates added).
pub fn bench_table(rows: &[Value]) -> Table {
    let mut t = Table::new(&[
        "scenario",
        "scheme",
        "flows",
        "events",
        "Mevents/s",
        "data pkts/s",
        "ev/pkt",
        "build",
        "wall",
        "sim time",
        "sim s/wall s",
        "wall s/sim s",
        "peak MiB",
    ]);
    for m in rows {
        let s = |k: &str| m[k].as_str().unwrap_or("-").to_string();
        if m["status"] != "ok" {
            let mut row = vec![s("scenario"), s("scheme"), s("status")];
            row.resize(13, String::new());
            t.row(row);
            continue;
        }
        let f = |k: &str| m[k].as_f64().unwrap_or(f64::NAN);
        let u = |k: &str| m[k].as_u64().unwrap_or(0);
        let mut flows = table::thousands(u("flows"));
        if u("finished") != u("flows") {
            flows = format!("{}/{}", table::thousands(u("finished")), flows);
        }
        let sim_secs = f("sim_secs");
        t.row(vec![
            s("scenario"),
            s("scheme"),
            flows,
            table::thousands(u("events")),
            format!("{:.2}", f("events_per_sec") / 1e6),
            table::si(f("data_packets_per_sec")),
            if f("events_per_data_packet").is_finite() {
                format!("{:.1}", f("events_per_data_packet"))
            } else {
                "-".into()
            },
            if f("build_secs").is_finite() { table::wall(f("build_secs")) } else { "-".into() },
            table::wall(f("wall_secs")),
            if sim_secs.is_finite() { scenario::fmt_time((sim_secs * 1e12).round() as u64) } else { "-".into() },
            if f("sim_per_wall").is_finite() { format!("{:.3e}", f("sim_per_wall")) } else { "-".into() },
            if f("wall_per_sim").is_finite() { format!("{:.0}x", f("wall_per_sim")) } else { "-".into() },
            if f("peak_mib").is_finite() { format!("{:.1}", f("peak_mib")) } else { "-".into() },
        ]);
    }
    t
}

/// What the projection table assumes.
pub const PROJECTION_NOTE: &str = "Projected from the sequential run's events (no thread ran): each event \
belongs to the part owning its node; per window (the smallest delay of a link between parts) the busiest \
part sets the pace. speedup = all events / (the busiest part's events summed over windows + serial events \
+ a barrier cost per window with events); 'free' counts barriers as free, 'barrier 1us' as 1 us each at \
the run's measured events/s.";

/// The projected parallel runs of each measurement (`--project-threads`).
pub fn projection_table(rows: &[Value]) -> Table {
    let mut t = Table::new(&[
        "scenario",
        "scheme",
        "threads",
        "unit",
        "hosts/part",
        "window",
        "barriers",
        "ev/window/part",
        "max idle",
        "speedup free",
        "speedup barrier 1us",
    ]);
    for m in rows.iter().filter(|m| m["status"] == "ok") {
        let eps = m["events_per_sec"].as_f64().unwrap_or(0.0);
        let runs: Vec<ccsim_core::results::ParallelProjection> =
            serde_json::from_value(m["parallel"].clone()).unwrap_or_default();
        for p in runs {
            let hosts = match (p.hosts.iter().min(), p.hosts.iter().max()) {
                (Some(a), Some(b)) if a != b => format!("{a}-{b}"),
                (Some(a), _) => a.to_string(),
                _ => "-".into(),
            };
            let idle = p.idle.iter().copied().fold(0.0f64, f64::max);
            t.row(vec![
                m["scenario"].as_str().unwrap_or("-").to_string(),
                m["scheme"].as_str().unwrap_or("-").to_string(),
                p.threads.to_string(),
                p.unit.clone(),
                hosts,
                if p.window == ccsim_core::Time::MAX { "-".into() } else { scenario::fmt_time(p.window) },
                table::thousands(p.barriers),
                format!("{:.1}", p.mean_window_events),
                format!("{:.0}%", 100.0 * idle),
                format!("{:.2}x", p.speedup(0.0)),
                format!("{:.2}x", p.speedup(1e-6 * eps)),
            ]);
        }
    }
    t
}

/// "scenario/scheme events per data packet: arrive 11.0, tx_done 2.8, ..."
/// (kinds that ran), or None without the counts or data packets.
pub fn kinds_line(m: &Value) -> Option<String> {
    let pkts = m["data_packets"].as_f64().filter(|&p| p > 0.0)?;
    let kinds = m["events_by_kind"].as_object()?;
    let parts: Vec<String> = (ccsim_core::results::EventCounts::NAMES.iter())
        .filter_map(|k| kinds.get(*k)?.as_f64().filter(|&n| n > 0.0).map(|n| format!("{k} {:.2}", n / pkts)))
        .collect();
    let name = format!("{}/{}", m["scenario"].as_str().unwrap_or("?"), m["scheme"].as_str().unwrap_or("?"));
    Some(format!("{name} events per data packet: {}", parts.join(", ")))
}

pub fn bench(a: &BenchArgs) -> Result<(), Fail> {
    if let Some(name) = &a.child {
        return child(a, name);
    }
    let shared = find_shared(a.shared.as_deref());
    let mut jobs = Vec::new();
    let mut rows: Vec<Value> = Vec::new();
    if !a.scenario.is_empty() {
        if a.only.is_some() {
            return Err(Fail::Input(
                "--only selects a reference benchmark; it cannot be combined with --scenario".into(),
            ));
        }
        for f in &a.scenario {
            let scn = scenario::load(f, &Overrides::default()).map_err(Fail::Input)?;
            for s in &scn.schemes {
                jobs.push(Job { label: scn.name.clone(), child_arg: f.display().to_string(), scheme: s.clone() });
            }
        }
    } else {
        if let Some(o) = &a.only {
            if !BENCHMARKS.iter().any(|b| b.0 == o) {
                return Err(Fail::Input(format!(
                    "--only {o}: unknown benchmark (known: {})",
                    BENCHMARKS.iter().map(|b| b.0).collect::<Vec<_>>().join(", ")
                )));
            }
        }
        for (name, schemes) in BENCHMARKS {
            if a.only.as_deref().is_some_and(|o| o != name) {
                continue;
            }
            // Check here so a missing input is a note, not a failure.
            if let Err(note) = reference_text(name, shared.as_deref()) {
                rows.push(json!({"scenario": name, "scheme": "-", "status": note}));
                continue;
            }
            for s in schemes {
                jobs.push(Job { label: name.to_string(), child_arg: name.to_string(), scheme: s.to_string() });
            }
        }
    }
    let exe = std::env::current_exe().map_err(|e| Fail::Runtime(format!("cannot find the ccsim executable: {e}")))?;
    for j in &jobs {
        if !a.quiet {
            errln!("bench: {} with {} ...", j.label, j.scheme);
        }
        let mut cmd = Command::new(&exe);
        cmd.args(["bench", "--child", &j.child_arg, "--scheme", &j.scheme]);
        cmd.arg("--threads").arg(a.threads.to_string());
        if let Some(s) = &shared {
            cmd.arg("--shared").arg(s);
        }
        if a.quiet {
            cmd.arg("--quiet");
        }
        if !a.project_threads.is_empty() {
            let list: Vec<String> = a.project_threads.iter().map(|n| n.to_string()).collect();
            cmd.arg("--project-threads").arg(list.join(","));
        }
        cmd.stdout(Stdio::piped()).stderr(Stdio::inherit()).stdin(Stdio::null());
        let out = cmd.output().map_err(|e| Fail::Runtime(format!("cannot start {}: {e}", exe.display())))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let parsed = stdout.lines().rev().find_map(|l| serde_json::from_str::<Value>(l.trim()).ok());
        match (out.status.success(), parsed) {
            (true, Some(m)) => rows.push(with_rates(m)),
            (ok, _) => {
                let why = if ok {
                    "failed: no measurements printed".to_string()
                } else {
                    match out.status.code() {
                        Some(c) => format!("failed (exit {c})"),
                        None => "failed (killed by a signal)".to_string(),
                    }
                };
                rows.push(json!({"scenario": j.label, "scheme": j.scheme, "status": why}));
            }
        }
    }
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&Value::Array(rows.clone())).unwrap_or_default());
    } else {
        out!("{}", bench_table(&rows).render());
        if !a.project_threads.is_empty() {
            outln!();
            out!("{}", projection_table(&rows).render());
            outln!("{PROJECTION_NOTE}");
        }
        for r in &rows {
            if r["status"] != "ok" {
                outln!("{}: {}", r["scenario"].as_str().unwrap_or("?"), r["status"].as_str().unwrap_or("?"));
            } else if let Some(line) = kinds_line(r) {
                outln!("{line}");
            }
        }
    }
    if rows.iter().any(|r| r["status"].as_str().is_some_and(|s| s.starts_with("failed"))) {
        return Err(Fail::Runtime("some benchmarks failed".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_vmhwm() {
        let status = "Name:\tccsim\nVmPeak:\t  300000 kB\nVmHWM:\t   20480 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(parse_vmhwm(status), Some(20.0));
        assert_eq!(parse_vmhwm("Name: x\n"), None);
        // This process has a peak on Linux.
        if cfg!(target_os = "linux") {
            assert!(peak_mib().unwrap() > 0.0);
        }
    }

    #[test]
    fn reference_scenarios_resolve() {
        for name in ["fat320-websearch-30", "small-incast"] {
            let scn = load_bench(name, None, None).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(scn.name, name);
            assert!(!scn.flows.is_empty());
            assert!(!scn.net.ack_high_priority);
            assert_eq!(scn.net.buffer.0, 32_000_000);
        }
        let fat = load_bench("fat320-websearch-30", None, None).unwrap();
        assert_eq!(fat.topo.hosts().len(), 320);
        assert_eq!(fat.topo.switches().len(), 56);
        let inc = load_bench("small-incast", Some("dcqcn"), None).unwrap();
        assert_eq!(inc.flows.len(), 16);
        assert!(inc.flows.iter().all(|f| f.dst == 16 && f.size == 1_000_000));
        assert_eq!(inc.schemes, vec!["dcqcn"]);
    }

    #[test]
    fn the_reference_inputs_ship_with_the_repository() {
        let dir = find_shared(None).expect("bench/ holds the HPCC reference inputs");
        let scn = load_bench("hpcc-ref-10ms", None, Some(&dir)).unwrap();
        assert_eq!(scn.flows.len(), 6_878);
        assert_eq!(scn.topo.hosts().len(), 320);
        let big = load_bench("fat-k32-websearch-30", None, None).unwrap();
        assert_eq!((big.topo.hosts().len(), big.topo.switches().len()), (8_192, 1_280));
        assert!((800..1_000).contains(&big.flows.len()), "{}", big.flows.len());
        // the k = 48 scenario of docs/PERFORMANCE.md
        let k48 = scenario::load(&dir.join("fat-k48-websearch-30.toml"), &Overrides::default()).unwrap();
        assert_eq!((k48.topo.hosts().len(), k48.topo.switches().len()), (27_648, 2_880));
        assert!((1_000..1_400).contains(&k48.flows.len()), "{}", k48.flows.len());
    }

    #[test]
    fn hpcc_reference_is_skipped_without_inputs_and_read_by_path_with_them() {
        let t = ccsim_scenario::testutil::TempDir::new("bench");
        let note = reference_text("hpcc-ref-10ms", Some(t.path())).unwrap_err();
        assert!(note.starts_with("skipped"), "{note}");
        assert!(note.contains(HPCC_TOPOLOGY));
        assert!(reference_text("hpcc-ref-10ms", None).unwrap_err().starts_with("skipped"));
        assert!(reference_text("nope", None).unwrap_err().contains("small-incast"));
        // With the files present, the scenario names them by absolute path.
        std::fs::write(t.path().join(HPCC_TOPOLOGY), "x").unwrap();
        std::fs::write(t.path().join(HPCC_FLOWS), "x").unwrap();
        let text = reference_text("hpcc-ref-10ms", Some(t.path())).unwrap();
        let v: toml::Table = toml::from_str(&text).unwrap();
        let p = v["topology"]["path"].as_str().unwrap();
        assert!(Path::new(p).is_absolute() && p.ends_with(HPCC_TOPOLOGY));
        assert_eq!(v["workload"][0]["rebase"].as_bool(), Some(true));
        assert_eq!(v["scheme"]["hpcc"]["eta"].as_float(), Some(0.95));
    }

    #[test]
    fn table_shows_rates_and_notes() {
        let m = with_rates(json!({
            "scenario": "small-incast", "scheme": "hpcc", "flows": 16, "finished": 16,
            "events": 4_000_000u64, "data_packets": 16_000u64, "link_packets": 40_000u64,
            "wall_secs": 2.0, "sim_secs": 0.002, "peak_mib": 12.5, "truncated": false
        }));
        assert_eq!(m["events_per_sec"].as_f64(), Some(2e6));
        assert_eq!(m["wall_per_sim"].as_f64(), Some(1000.0));
        let skipped = json!({"scenario": "hpcc-ref-10ms", "scheme": "-", "status": "skipped: not found"});
        assert_eq!(kinds_line(&m), None, "no counts");
        let t = bench_table(&[m, skipped]);
        assert_eq!(t.rows[0][0], "small-incast");
        assert_eq!(t.rows[0][3], "4,000,000");
        assert_eq!(t.rows[0][4], "2.00");
        assert_eq!(t.rows[0][5], "8.0K");
        assert_eq!(t.rows[0][6], "250.0", "events per data packet");
        assert_eq!(t.rows[0][7], "-", "no build time measured");
        assert_eq!(t.rows[0][9], "2ms");
        assert_eq!(t.rows[0][11], "1000x");
        assert_eq!(t.rows[0][12], "12.5");
        assert_eq!(t.rows[1][2], "skipped: not found");
        assert!(t.render().contains("small-incast"));
    }

    #[test]
    fn projection_rows_show_the_speedup_with_and_without_barrier_cost() {
        // two parts of 3 and 1 events in each of 2 windows (+ 2 serial
        // events): critical path 3 + 3 + 2 = 8 of 10 events
        let p = ccsim_core::results::ParallelProjection {
            threads: 2,
            unit: "pod".into(),
            window: 1_000_000,
            cut_links: 4,
            hosts: vec![8, 8],
            barriers: 2,
            part_events: vec![6, 2],
            serial_events: 2,
            critical_events: 6,
            mean_window_events: 2.0,
            max_window_events: 3,
            idle: vec![0.0, 2.0 / 3.0],
        };
        assert_eq!(p.speedup(0.0), 10.0 / 8.0);
        assert_eq!(p.speedup(1.0), 10.0 / 10.0);
        // 1 us barriers at 1 M events/s cost 1 event each
        let m = with_rates(json!({
            "scenario": "x", "scheme": "hpcc", "flows": 1, "finished": 1, "events": 10u64,
            "data_packets": 1u64, "wall_secs": 1e-5, "sim_secs": 0.001, "parallel": [p]
        }));
        let t = projection_table(&[m]);
        assert_eq!(t.rows.len(), 1);
        assert_eq!(t.rows[0][2], "2");
        assert_eq!(t.rows[0][4], "8");
        assert_eq!(t.rows[0][5], "1us");
        assert_eq!(t.rows[0][8], "67%");
        assert_eq!(t.rows[0][9], "1.25x");
        assert_eq!(t.rows[0][10], "1.00x");
    }

    #[test]
    fn event_kinds_are_shown_per_data_packet_in_engine_order() {
        let m = json!({
            "scenario": "s", "scheme": "hpcc", "data_packets": 1000u64,
            "events_by_kind": {"arrive": 11_000u64, "flow_start": 10u64, "host_wake": 500u64, "link": 0u64, "tx_done": 2_500u64}
        });
        let line = kinds_line(&m).unwrap();
        assert_eq!(line, "s/hpcc events per data packet: arrive 11.00, tx_done 2.50, host_wake 0.50, flow_start 0.01");
        assert_eq!(kinds_line(&json!({"data_packets": 0, "events_by_kind": {"arrive": 1}})), None);
    }
}
