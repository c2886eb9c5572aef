//! SRCC experiments (Hu et al., IEEE TII 2024): runs the `scenarios/srcc-*.toml`
//! scenarios through the library and prints the paper's metrics next to the
//! paper's numbers.
//!
//!   cargo run --release -p ccsim-cc --example srcc_experiments -- [fig2|workloads|incast|sensitivity|all] [--full]
//!
//! Default (no argument): all, in a reduced form (workloads: the four
//! workloads at 0.5 and 0.8 load for 1 ms of arrivals, about 30 minutes on one
//! core; incast: 20, 80, 160 senders). `--full` runs every load 0.5..0.8 with
//! 2 ms of arrivals (several hours) and every incast degree 20..160 by 20.
//! Every run compares SRCC with DCQCN, Swift, HPCC and PCN.
//!
//! Metrics:
//! * PAUSE rate (Fig. 2): PAUSE frames sent per millisecond of simulated time
//!   (all ports; the run has a fixed length). Workloads: PAUSE frames of the
//!   whole run (the arrival window is the same for every scheme).
//! * paused time: sum over ports of time paused.
//! * HoL share: flows with at least one head-of-line-blocked packet
//!   (`RunResult::hol_pkts`: a packet that waited behind a PAUSE and whose own
//!   egress at the pausing switch was short) over all flows.
//! * victim goodput (Fig. 2): payload bytes delivered to the victim receivers
//!   H48-H55 per second, summed.
//! * incast goodput: 50 MB / (last flow's completion - incast start).

use ccsim_core::config::NetConfig;
use ccsim_core::results::RunResult;
use ccsim_core::sim::{run, SimOptions};
use ccsim_core::time::{Time, MS};
use ccsim_core::units::Dur;
use ccsim_core::{FlowSpec, Topology};
use ccsim_scenario::spec::{generate_all, WorkloadSpec};
use ccsim_scenario::topo::TopoSpec;
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// A scenario file, loaded as the CLI does (topology, network, workloads,
/// stop, per-scheme tables).
struct Scenario {
    topo: Topology,
    net: NetConfig,
    flows: Vec<FlowSpec>,
    stop: Option<Time>,
    seed: u64,
    schemes: Table,
}

fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

fn raw(name: &str) -> Table {
    let p = scenarios_dir().join(name);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.parse::<Table>().unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn build(t: &Table) -> Scenario {
    let topo: TopoSpec = t["topology"].clone().try_into().expect("topology");
    let topo = topo.build(&scenarios_dir()).expect("topology");
    let net: NetConfig = match t.get("network") {
        Some(v) => v.clone().try_into().expect("network"),
        None => NetConfig::default(),
    };
    let ws: Vec<WorkloadSpec> = t["workload"].clone().try_into().expect("workload");
    let seed = t.get("seed").and_then(|v| v.as_integer()).unwrap_or(1) as u64;
    let flows = generate_all(&ws, &topo, &scenarios_dir(), seed).expect("flows");
    let stop = t.get("stop").map(|v| {
        let d: Dur = v.clone().try_into().expect("stop");
        d.0
    });
    let schemes = t.get("scheme").and_then(|v| v.as_table()).cloned().unwrap_or_default();
    Scenario { topo, net, flows, stop, seed, schemes }
}

/// Runs `scheme` with the scenario's table for it, `extra` keys laid over.
fn go(sc: &Scenario, scheme: &str, extra: &[(&str, Value)]) -> RunResult {
    let mut params = sc.schemes.get(scheme).and_then(|v| v.as_table()).cloned().unwrap_or_default();
    for (k, v) in extra {
        params.insert(k.to_string(), v.clone());
    }
    let s = ccsim_cc::make(scheme, Some(&Value::Table(params))).expect("scheme");
    let opts = SimOptions { seed: sc.seed, stop_at: sc.stop, ..Default::default() };
    run(&sc.topo, &sc.net, &sc.flows, s.as_ref(), &opts, None).expect("run")
}

fn ms(t: Time) -> f64 {
    t as f64 / MS as f64
}

fn pause_rate(r: &RunResult) -> f64 {
    r.pause_frames as f64 / ms(r.engine.sim_end).max(1e-9)
}

fn paused_ms(r: &RunResult) -> f64 {
    r.ports.iter().map(|p| ms(p.paused_time)).sum()
}

const BASELINES: &[&str] = &["dcqcn", "swift", "hpcc", "pcn"];

fn fig2() {
    let sc = build(&raw("srcc-fig2-motivation.toml"));
    println!("== Fig. 2 motivation (leaf-spine 4x8, 16 hosts/leaf, 100G 4us; 12 ms) ==");
    println!("paper: DCQCN/Swift/HPCC/PCN pause for 4-5 ms (PCN 3.5 ms) and victims drop to ~0; SRCC avoids PAUSE");
    println!(
        "{:<8} {:>8} {:>11} {:>12} {:>9} {:>14} {:>12}",
        "scheme", "PAUSEs", "PAUSE/ms", "paused ms", "HoL %", "victim Gbps", "max q 67:63"
    );
    for scheme in ["srcc"].iter().chain(BASELINES) {
        let r = go(&sc, scheme, &[]);
        // victims: delivered to hosts 48..55 (leaf 67's ports towards them)
        let end = r.engine.sim_end as f64 / 1e12;
        let vict: u64 = r
            .ports
            .iter()
            .filter(|p| p.port.node == 67 && (48..56).contains(&p.port.peer))
            .map(|p| p.tx_data_bytes)
            .sum();
        let q = r.ports.iter().find(|p| p.port.node == 67 && p.port.peer == 63).map(|p| p.max_qlen).unwrap_or(0);
        println!(
            "{:<8} {:>8} {:>11.1} {:>12.3} {:>9.1} {:>14.1} {:>12}",
            scheme,
            r.pause_frames,
            pause_rate(&r),
            paused_ms(&r),
            100.0 * r.hol_blocked_share(),
            vict as f64 * 8.0 / end / 1e9,
            q
        );
    }
}

fn workload_row(sc: &Scenario, label: &str, scheme: &str, extra: &[(&str, Value)]) -> (f64, f64, f64) {
    let r = go(sc, scheme, extra);
    let s = r.summary();
    println!(
        "{:<22} {:<8} {:>7} {:>9.2} {:>9.1} {:>10.1} {:>10.1} {:>8}",
        label,
        scheme,
        r.pause_frames,
        paused_ms(&r),
        100.0 * r.hol_blocked_share(),
        s.fct_us.avg,
        s.fct_us.p99,
        format!("{}/{}", s.finished, s.flows)
    );
    (s.fct_us.avg, s.fct_us.p99, r.pause_frames as f64)
}

fn workload_header() {
    println!(
        "{:<22} {:<8} {:>7} {:>9} {:>9} {:>10} {:>10} {:>8}",
        "workload", "scheme", "PAUSEs", "paused ms", "HoL %", "avg FCT us", "p99 FCT us", "done"
    );
}

fn with_workload(cdf: &str, load: f64, duration: &str) -> Scenario {
    let mut t = raw("srcc-workloads.toml");
    if let Some(Value::Array(ws)) = t.get_mut("workload") {
        let w = ws[0].as_table_mut().unwrap();
        w.insert("cdf".into(), Value::String(cdf.into()));
        w.insert("load".into(), Value::Float(load));
        w.insert("duration".into(), Value::String(duration.into()));
    }
    build(&t)
}

/// The paper's claims at 0.8 load, SRCC vs DCQCN / Swift / HPCC / PCN (%):
/// (workload, metric, values).
const PAPER: &[(&str, &str, [f64; 4])] = &[
    ("webserver", "avg FCT", [-61.0, -52.0, -40.0, -24.0]),
    ("cachefollower", "p99 FCT", [-72.0, -58.0, -42.0, -37.0]),
    ("websearch", "PAUSEs", [-91.0, -90.0, -88.0, -84.0]),
    ("websearch", "p99 FCT", [-55.0, -42.0, -34.0, -22.0]),
    ("hadoop", "avg FCT", [-66.5, -59.0, -50.5, -41.5]),
    ("hadoop", "p99 FCT", [-53.0, -42.0, -36.0, -28.0]),
];

fn pct(a: f64, b: f64) -> String {
    if b > 0.0 {
        format!("{:+.0}%", 100.0 * (a / b - 1.0))
    } else if a > 0.0 {
        "+inf".into()
    } else {
        "0%".into()
    }
}

fn workloads(full: bool) {
    println!("== Realistic workloads (paper's large-scale fabric: leaf-spine 8x16, 24 hosts/leaf, 100G 4us, 22 MB) ==");
    let (cdfs, loads, dur): (&[&str], &[f64], &str) = if full {
        (&["webserver", "cachefollower", "websearch", "hadoop"], &[0.5, 0.6, 0.7, 0.8], "2ms")
    } else {
        (&["webserver", "cachefollower", "websearch", "hadoop"], &[0.5, 0.8], "1ms")
    };
    println!("arrivals for {dur} per run");
    workload_header();
    for cdf in cdfs {
        for &load in loads {
            let sc = with_workload(cdf, load, dur);
            let label = format!("{cdf} {load}");
            let (sa, sp, spause) = workload_row(&sc, &label, "srcc", &[]);
            let mut rows = Vec::new();
            for b in BASELINES {
                let (a, p, pause) = workload_row(&sc, &label, b, &[]);
                rows.push(format!("{b}: avg {} p99 {} PAUSEs {}", pct(sa, a), pct(sp, p), pct(spause, pause)));
            }
            println!("{:<22} srcc vs {}", "", rows.join(" | "));
            if load == 0.8 {
                for (w, metric, v) in PAPER.iter().filter(|(w, _, _)| w == cdf) {
                    println!(
                        "{:<22} paper ({w} 0.8, {metric}) vs dcqcn/swift/hpcc/pcn: {:+.0}/{:+.0}/{:+.0}/{:+.0}%",
                        "", v[0], v[1], v[2], v[3]
                    );
                }
            }
        }
    }
}

fn incast(full: bool) {
    println!("== Incast: N senders -> 1 client, 50 MB total, 100G bottleneck (leaf-spine 8x16, 24 hosts/leaf, 4us) ==");
    println!("paper: SRCC ~100 Gbps at every N; at N=160 +42/34/25/20% vs DCQCN/Swift/HPCC/PCN");
    println!("srcc = victim-protecting reading (default); srcc-lit = literal_window + cnm_raises (the §III-B comparison as printed, rates reset as §V-C2 says)");
    let ns: Vec<u32> = if full { (1..=8).map(|i| 20 * i).collect() } else { vec![20, 80, 160] };
    println!("{:<6} {:<10} {:>14} {:>8} {:>9}", "N", "scheme", "goodput Gbps", "PAUSEs", "HoL %");
    for n in ns {
        let mut t = raw("srcc-incast.toml");
        if let Some(Value::Array(ws)) = t.get_mut("workload") {
            let w = ws[0].as_table_mut().unwrap();
            w.insert("fan_in".into(), Value::Integer(n as i64));
            w.insert("size".into(), Value::String(format!("{}B", 50_000_000 / n as u64)));
        }
        let sc = build(&t);
        let total: u64 = sc.flows.iter().map(|f| f.size).sum();
        let start = sc.flows.iter().map(|f| f.start).min().unwrap_or(0);
        let mut srcc_g = [0.0; 2];
        let hpcc_preset = vec![("preset", Value::String("hpcc".into()))];
        for (label, scheme, extra) in [
            ("srcc", "srcc", vec![]),
            // the reading §V-C2 describes: every congested flow notified, its rate reset
            ("srcc-lit", "srcc", vec![("literal_window", Value::Boolean(true)), ("cnm_raises", Value::Boolean(true))]),
            ("dcqcn", "dcqcn", vec![]),
            ("dcqcn-mlx", "dcqcn", hpcc_preset),
            ("swift", "swift", vec![]),
            ("hpcc", "hpcc", vec![]),
            ("pcn", "pcn", vec![]),
        ] {
            let r = go(&sc, scheme, &extra);
            let end = r.flows.iter().filter_map(|f| f.fct.map(|x| f.start + x)).max().unwrap_or(0);
            let g = if r.flows.iter().all(|f| f.fct.is_some()) {
                total as f64 * 8.0 / ((end - start) as f64 / 1e12) / 1e9
            } else {
                f64::NAN
            };
            match label {
                "srcc" => srcc_g[0] = g,
                "srcc-lit" => srcc_g[1] = g,
                _ => {}
            }
            let vs = if scheme == "srcc" {
                String::new()
            } else {
                format!("  srcc {} srcc-lit {}", pct(srcc_g[0], g), pct(srcc_g[1], g))
            };
            println!(
                "{:<6} {:<10} {:>14.1} {:>8} {:>9.1}{vs}",
                n,
                label,
                g,
                r.pause_frames,
                100.0 * r.hol_blocked_share()
            );
        }
    }
}

fn sensitivity() {
    println!("== Sensitivity (web server 0.8, 1 ms of arrivals, large-scale fabric): dynamic vs fixed Q_cth, T = 2/3/4 RTT ==");
    println!("paper Fig. 8: dynamic Q_cth gives the lowest FCT; T = 3 RTT is best");
    let sc = with_workload("webserver", 0.8, "1ms");
    workload_header();
    workload_row(&sc, "dynamic Q_cth, T=3", "srcc", &[]);
    workload_row(&sc, "fixed 40%", "srcc", &[("fixed_qcth_frac", Value::Float(0.4))]);
    workload_row(&sc, "fixed 60%", "srcc", &[("fixed_qcth_frac", Value::Float(0.6))]);
    workload_row(&sc, "T=2 RTT", "srcc", &[("window_rtts", Value::Float(2.0))]);
    workload_row(&sc, "T=4 RTT", "srcc", &[("window_rtts", Value::Float(4.0))]);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let full = args.iter().any(|a| a == "--full");
    let what = args.iter().find(|a| !a.starts_with("--")).map(|s| s.as_str()).unwrap_or("all");
    let all = what == "all";
    if all || what == "fig2" {
        fig2();
    }
    if all || what == "workloads" {
        workloads(full);
    }
    if all || what == "incast" {
        incast(full);
    }
    if all || what == "sensitivity" {
        sensitivity();
    }
}
