//! OSCAR's FCT evaluation (slides: "Simulation evaluation", 320-host fat tree,
//! Cache Follower at 0.8 load): runs a scenario with OSCAR and the baselines
//! and prints the FCT slowdown (avg and p99) over all flows, small flows
//! (<= 150 KB) and large flows (> 150 KB), and OSCAR's change against each
//! baseline beside the slides' numbers. The output names the scale run (the
//! scenario, its arrival window and flow count).
//!
//!   cargo run --release -p ccsim-cc --example oscar_fct -- SCENARIO [--schemes a,b,...] [--jobs N] [--stop DUR]
//!
//! `--stop DUR` (e.g. `20ms`) ends each run at that simulated time; flows
//! unfinished by then are counted in `finished` and left out of the slowdowns
//! (under spraying a scheme can crawl: HPCC's INT mixes paths even with the
//! reorder receiver the spraying scenarios use; with `receiver = "go-back-n"`
//! every reordered packet also costs a go-back-N retransmission).
//! Default schemes: oscar, hpcc, hpcc* (= hpcc with eta 1.5, OSCAR's
//! "same target" HPCC), dcqcn, and swift when registered. A scheme may carry
//! parameter overrides as `name:key=value,...` (e.g. `oscar:signal="owd"`).

#[path = "oscar_support/mod.rs"]
mod support;

use ccsim_core::time::US;
use ccsim_core::{RunResult, TraceConfig};
use std::sync::Mutex;
use support::{slowdown, Scn};

const SMALL: u64 = 150_000;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut path = None;
    let mut labels: Option<Vec<String>> = None;
    let mut jobs = 2usize;
    let mut stop = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--schemes" => {
                labels = Some(args.next().expect("--schemes a,b").split(';').flat_map(support::split_labels).collect())
            }
            "--jobs" => jobs = args.next().and_then(|v| v.parse().ok()).expect("--jobs N"),
            "--stop" => {
                let v = args.next().expect("--stop DUR");
                stop = Some(ccsim_core::units::parse_dur(&v).unwrap_or_else(|e| panic!("--stop {v}: {e}")));
            }
            _ => path = Some(std::path::PathBuf::from(a)),
        }
    }
    let path = path.unwrap_or_else(|| support::scenarios_dir().join("oscar-fat320-cachefollower-80-short.toml"));
    let mut scn = Scn::load(&path).unwrap_or_else(|e| panic!("{e}"));
    if stop.is_some() {
        scn.stop = stop;
    }
    let known = ccsim_cc::names();
    let labels: Vec<String> = labels.unwrap_or_else(|| {
        ["oscar", "hpcc", "hpcc:eta=1.5", "dcqcn", "swift"]
            .iter()
            .filter(|l| known.contains(&l.split(':').next().unwrap()))
            .map(|s| s.to_string())
            .collect()
    });
    let last_start = scn.flows.iter().map(|f| f.start).max().unwrap_or(0);
    let small = scn.flows.iter().filter(|f| f.size <= SMALL).count();
    println!(
        "scenario {} ({}): {} flows ({} small <= 150 KB) arriving over {:.2} ms, routing {:?}, receiver {:?}",
        scn.name,
        path.display(),
        scn.flows.len(),
        small,
        last_start as f64 / 1e9,
        scn.net.routing,
        scn.net.receiver
    );
    println!(
        "scale: {}{}",
        if scn.name.contains("short") {
            "SHORT (reduced arrival window; the slides' runs use 10 ms)"
        } else {
            "FULL (as the slides' runs)"
        },
        scn.stop.map(|t| format!("; runs stopped at {:.1} ms", t as f64 / 1e9)).unwrap_or_default()
    );
    // Run `jobs` at a time.
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<(RunResult, f64)>>> = Mutex::new(vec![None; labels.len()]);
    std::thread::scope(|sc| {
        for _ in 0..jobs.max(1) {
            sc.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    let i = *n;
                    *n += 1;
                    i
                };
                if i >= labels.len() {
                    break;
                }
                let wall = std::time::Instant::now();
                let (r, _) = scn
                    .run(&labels[i], &[], TraceConfig::default())
                    .unwrap_or_else(|e| panic!("{}: {e}", labels[i]));
                let secs = wall.elapsed().as_secs_f64();
                let (all, sm, lg) = (slowdown(&r, 0, u64::MAX), slowdown(&r, 0, SMALL), slowdown(&r, SMALL + 1, u64::MAX));
                eprintln!(
                    "  {} done: {:.0} s, sim end {:.2} ms, {} of {} finished; slowdown avg/p99 all {:.2}/{:.2} small {:.2}/{:.2} large {:.2}/{:.2}",
                    labels[i],
                    secs,
                    r.engine.sim_end as f64 / 1e9,
                    r.flows.iter().filter(|f| f.fct.is_some()).count(),
                    r.flows.len(),
                    all.avg,
                    all.p99,
                    sm.avg,
                    sm.p99,
                    lg.avg,
                    lg.p99
                );
                results.lock().unwrap()[i] = Some((r, secs));
            });
        }
    });
    let results: Vec<(RunResult, f64)> = results.into_inner().unwrap().into_iter().map(|x| x.unwrap()).collect();
    let name = |l: &str| {
        if l == "hpcc:eta=1.5" {
            "hpcc*".to_string()
        } else {
            l.to_string()
        }
    };
    println!(
        "\n{:<14} {:>9} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>7} {:>7} {:>8}",
        "FCT slowdown",
        "finished",
        "all avg",
        "all p99",
        "small avg",
        "small p99",
        "large avg",
        "large p99",
        "drops",
        "PAUSE",
        "retx"
    );
    let mut rows = Vec::new();
    for (l, (r, _)) in labels.iter().zip(&results) {
        let all = slowdown(r, 0, u64::MAX);
        let sm = slowdown(r, 0, SMALL);
        let lg = slowdown(r, SMALL + 1, u64::MAX);
        let fin = r.flows.iter().filter(|f| f.fct.is_some()).count();
        let retx: u64 = r.flows.iter().map(|f| f.retransmits).sum();
        println!(
            "{:<14} {:>9} {:>8.2} {:>8.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>7} {:>7} {:>8}",
            name(l),
            format!("{}/{}", fin, r.flows.len()),
            all.avg,
            all.p99,
            sm.avg,
            sm.p99,
            lg.avg,
            lg.p99,
            r.drops,
            r.pause_frames,
            retx
        );
        rows.push((name(l), all, sm, lg));
    }
    let pct = |a: f64, b: f64| format!("{:+.0}%", (a / b - 1.0) * 100.0);
    if let Some((_, oa, os, ol)) = rows.iter().find(|r| r.0 == "oscar") {
        println!("\nOSCAR vs        all avg  all p99  small avg  large avg");
        for (n, a, s, l) in rows.iter().filter(|r| r.0 != "oscar") {
            println!(
                "{:<14} {:>8} {:>8} {:>10} {:>10}",
                n,
                pct(oa.avg, a.avg),
                pct(oa.p99, a.p99),
                pct(os.avg, s.avg),
                pct(ol.avg, l.avg)
            );
        }
        println!(
            "slides (ECMP, 10 ms of arrivals): vs HPCC avg -48%, p99 -74%, small +7.6%, large -62%; vs HPCC* avg -19%, p99 -48%"
        );
        println!("slides (per-packet spraying): OSCAR vs others avg -17% to -76%");
    }
    let sims: Vec<String> = labels
        .iter()
        .zip(&results)
        .map(|(l, (r, s))| {
            format!("{} {:.0} s ({:.2} ms simulated)", name(l), s, r.engine.sim_end as f64 / US as f64 / 1000.0)
        })
        .collect();
    println!("wall time: {}", sims.join(", "));
}
