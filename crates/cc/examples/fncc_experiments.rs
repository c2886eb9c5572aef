//! The FNCC paper's experiments, measured and printed beside the paper's numbers.
//!
//! Runs the shipped scenario files (scenarios/fncc-*.toml, read here directly so
//! the numbers are those of the files) through the library and computes from the
//! traces what `ccsim compare` does not print: when each scheme first slows
//! down, time to fair rates, utilization after the join, queue reductions vs HPCC.
//!
//!   cargo run --release -p ccsim-cc --example fncc_experiments            # fig9 fig13 fattree (short)
//!   cargo run --release -p ccsim-cc --example fncc_experiments -- fig9
//!   cargo run --release -p ccsim-cc --example fncc_experiments -- fig13
//!   cargo run --release -p ccsim-cc --example fncc_experiments -- fattree        # 2 ms of arrivals
//!   cargo run --release -p ccsim-cc --example fncc_experiments -- fattree --full # 10 ms (minutes)
//!
//! Definitions (all from 1 us traces):
//! * first slowdown: first sample at or after flow1's join (300 us) at which
//!   flow0's sending rate is 5% below its rate just before the join (slow-5%),
//!   or below 90% of line rate (slow<90%);
//! * peak queue: the congested egress's largest queue (`PortResult::max_qlen`);
//!   avg queue: mean of the queue trace from the join to the end;
//! * PAUSE: PAUSE frames sent anywhere in the network;
//! * fair: flow0's and flow1's throughput (acknowledged bytes) over 20 us windows,
//!   every 5 us, both within 10% of their mean; "fair after" = time from the join
//!   to the first window from which all later windows are fair ("-" if never);
//! * utilization: mean utilization of the congested egress from the join to the end.

use ccsim_core::results::RunResult;
use ccsim_core::sim::{run, SimOptions, TraceConfig};
use ccsim_core::units::Dur;
use ccsim_core::{FlowSpec, NetConfig, PortRef, Time, Topology};
use ccsim_scenario::spec::{generate_all, WorkloadSpec};
use ccsim_scenario::topo::TopoSpec;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const US: Time = 1_000_000;
const JOIN: Time = 300 * US;

/// The parts of a scenario file this program needs (other keys are ignored).
#[derive(Deserialize)]
struct File {
    #[serde(default = "one")]
    seed: u64,
    schemes: Vec<String>,
    stop: Option<Dur>,
    topology: TopoSpec,
    #[serde(default)]
    network: NetConfig,
    workload: Vec<WorkloadSpec>,
    #[serde(default)]
    scheme: BTreeMap<String, toml::Value>,
    trace: Option<Trace>,
}

#[derive(Deserialize)]
struct Trace {
    interval: Option<Dur>,
    #[serde(default)]
    queues: Vec<String>,
    #[serde(default)]
    utilization: Vec<String>,
    #[serde(default)]
    flows: Vec<u32>,
}

fn one() -> u64 {
    1
}

fn port(s: &str) -> PortRef {
    let (a, b) = s.split_once(':').expect("node:peer");
    PortRef { node: a.trim().parse().unwrap(), peer: b.trim().parse().unwrap() }
}

struct Scenario {
    file: File,
    topo: Topology,
    flows: Vec<FlowSpec>,
    opts: SimOptions,
}

fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

fn load(name: &str) -> Scenario {
    let path = scenarios_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file: File = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let base = path.parent().unwrap();
    let topo = file.topology.build(base).unwrap();
    let flows = generate_all(&file.workload, &topo, base, file.seed).unwrap();
    let trace = match &file.trace {
        Some(t) => TraceConfig {
            interval: t.interval.map_or(10 * US, |d| d.0),
            queue_ports: t.queues.iter().map(|s| port(s)).collect(),
            util_ports: t.utilization.iter().map(|s| port(s)).collect(),
            flows: t.flows.clone(),
            ..Default::default()
        },
        None => TraceConfig::default(),
    };
    let opts = SimOptions { seed: file.seed, stop_at: file.stop.map(|d| d.0), trace, ..Default::default() };
    Scenario { file, topo, flows, opts }
}

fn run_scheme(s: &Scenario, name: &str) -> RunResult {
    let scheme = ccsim_cc::make(name, s.file.scheme.get(name)).unwrap();
    run(&s.topo, &s.file.network, &s.flows, scheme.as_ref(), &s.opts, None).unwrap()
}

/// First sample at or after the join with flow0's rate below `frac` x `base`
/// (`base` None: flow0's rate at the last sample before the join).
fn first_slowdown(r: &RunResult, base: Option<f64>, frac: f64) -> Option<Time> {
    let tr = &r.flow_traces[0];
    let pre = tr.rate_bps[tr.t.partition_point(|&x| x < JOIN).saturating_sub(1)];
    let base = base.unwrap_or(pre);
    tr.t.iter().zip(&tr.rate_bps).find(|(&t, &v)| t >= JOIN && v < frac * base).map(|(&t, _)| t)
}

fn mean_after(t: &[Time], v: &[f64], from: Time) -> f64 {
    let x: Vec<f64> = t.iter().zip(v).filter(|(&t, _)| t >= from).map(|(_, &v)| v).collect();
    x.iter().sum::<f64>() / x.len().max(1) as f64
}

fn fair_after(r: &RunResult, end: Time) -> Option<Time> {
    let win = 20 * US;
    let thr = |f: usize, t0: Time, t1: Time| {
        let tr = &r.flow_traces[f];
        let at = |t: Time| tr.acked[tr.t.partition_point(|&x| x < t).min(tr.acked.len() - 1)];
        at(t1) - at(t0)
    };
    let fair = |t: Time| {
        let (a, b) = (thr(0, t, t + win), thr(1, t, t + win));
        let m = (a + b) / 2.0;
        m > 0.0 && (a - m).abs() <= 0.1 * m && (b - m).abs() <= 0.1 * m
    };
    let mut ok = None;
    let mut t = end - win;
    while t >= JOIN && fair(t) {
        ok = Some(t);
        t -= 5 * US;
    }
    ok.map(|t| t - JOIN)
}

fn congested(s: &Scenario) -> PortRef {
    s.opts.trace.queue_ports[0]
}

fn max_q(r: &RunResult, p: PortRef) -> u64 {
    r.ports.iter().find(|x| x.port == p).map_or(0, |x| x.max_qlen)
}

fn us(t: Option<Time>) -> String {
    t.map_or("-".into(), |t| format!("{:.0}", t as f64 / US as f64))
}

fn fig9() {
    println!("== Fig. 9: 3-switch dumbbell, flow1 joins flow0 at 300 us (scenarios/fncc-fig9-*.toml)");
    println!("paper (100G): first slowdown FNCC 300 us, HPCC 330 us, DCQCN 346 us (RoCC 370 us);");
    println!("paper (all rates): FNCC lowest queue, fewest PAUSE frames, highest utilization, fair first.");
    println!(
        "{:>5} {:>6} {:>10} {:>10} {:>12} {:>7} {:>16} {:>6}",
        "rate", "scheme", "slow-5%", "slow<90%", "peak q (KB)", "PAUSE", "fair after (us)", "util"
    );
    for g in [100u64, 200, 400] {
        let s = load(&format!("fncc-fig9-{g}g.toml"));
        let end = s.opts.stop_at.unwrap();
        for name in &s.file.schemes {
            let r = run_scheme(&s, name);
            let u = &r.utilization[0];
            println!(
                "{:>4}G {:>6} {:>10} {:>10} {:>12.1} {:>7} {:>16} {:>6.3}",
                g,
                name,
                us(first_slowdown(&r, None, 0.95)),
                us(first_slowdown(&r, Some(g as f64 * 1e9), 0.9)),
                max_q(&r, congested(&s)) as f64 / 1e3,
                r.pause_frames,
                us(fair_after(&r, end)),
                mean_after(&u.t, &u.v, JOIN)
            );
        }
    }
    println!();
}

fn fig13() {
    println!("== Fig. 13: congestion at the first / middle / last hop (scenarios/fncc-fig13-*.toml)");
    println!(
        "{:>12} {:>12} {:>12} {:>9} {:>9} {:>12} {:>12} {:>10}",
        "case", "FNCC pk KB", "HPCC pk KB", "pk diff", "avg diff", "FNCC avg KB", "HPCC avg KB", "paper"
    );
    for (case, paper) in [("first", "-37.5%"), ("middle", "-29.5%"), ("last-nolhcs", "-8.4%"), ("last", "-38.5%")] {
        let s = load(&format!("fncc-fig13-{case}.toml"));
        let p = congested(&s);
        let f = run_scheme(&s, "fncc");
        let h = run_scheme(&s, "hpcc");
        let avg = |r: &RunResult| mean_after(&r.queues[0].t, &r.queues[0].v, JOIN);
        let (pf, ph) = (max_q(&f, p) as f64, max_q(&h, p) as f64);
        let (af, ah) = (avg(&f), avg(&h));
        println!(
            "{:>12} {:>12.1} {:>12.1} {:>8.1}% {:>8.1}% {:>12.2} {:>12.2} {:>10}",
            case,
            pf / 1e3,
            ph / 1e3,
            (pf / ph - 1.0) * 100.0,
            (af / ah - 1.0) * 100.0,
            af / 1e3,
            ah / 1e3,
            paper
        );
    }
    println!();
}

fn fattree(full: bool) {
    let suffix = if full { "" } else { "-short" };
    for (cdf, paper) in [
        ("websearch", "paper (Fig. 14): flows >= 1MB median slowdown FNCC -12.4% vs HPCC, -42.8% vs DCQCN"),
        ("hadoop", "paper (Fig. 15): flows < 100KB p95 slowdown FNCC -27.4% vs HPCC, -88.9% vs DCQCN"),
    ] {
        let file = format!("fncc-fattree-{cdf}-50{suffix}.toml");
        let s = load(&file);
        println!("== k=8 fat tree, {cdf} at 50% load (scenarios/{file}, {} flows)", s.flows.len());
        println!("{paper}");
        println!("{:>6} {:>12} {:>28}", "scheme", "size", "avg / p50 / p95 / p99 slowdown");
        let mut rows: BTreeMap<(String, String), [f64; 4]> = BTreeMap::new();
        for name in &s.file.schemes {
            let r = run_scheme(&s, name);
            let sum = r.summary();
            println!(
                "{:>6} {:>12} {:>7.2} {:>6.2} {:>6.2} {:>6.2}   ({} of {} finished, {} PAUSE)",
                name,
                "all",
                sum.slowdown.avg,
                sum.slowdown.p50,
                sum.slowdown.p95,
                sum.slowdown.p99,
                sum.finished,
                sum.flows,
                sum.pause_frames
            );
            for (label, st) in &sum.by_size {
                println!("{:>6} {:>12} {:>7.2} {:>6.2} {:>6.2} {:>6.2}", name, label, st.avg, st.p50, st.p95, st.p99);
                rows.insert((name.clone(), label.clone()), [st.avg, st.p50, st.p95, st.p99]);
            }
        }
        // The paper's headline comparison for this workload.
        let (label, idx, what) = if cdf == "hadoop" { ("<100KB", 2, "p95") } else { (">=1MB", 1, "p50") };
        let get = |n: &str| rows.get(&(n.to_string(), label.to_string())).map(|v| v[idx]);
        if let (Some(f), Some(h), Some(d)) = (get("fncc"), get("hpcc"), get("dcqcn")) {
            println!(
                "measured: {label} {what} slowdown FNCC {:+.1}% vs HPCC, {:+.1}% vs DCQCN",
                (f / h - 1.0) * 100.0,
                (f / d - 1.0) * 100.0
            );
        }
        println!();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let full = args.iter().any(|a| a == "--full");
    let picked: Vec<&str> = args.iter().map(|s| s.as_str()).filter(|a| !a.starts_with("--")).collect();
    let all = picked.is_empty();
    if all || picked.contains(&"fig9") {
        fig9();
    }
    if all || picked.contains(&"fig13") {
        fig13();
    }
    if all || picked.contains(&"fattree") {
        fattree(full);
    }
}
