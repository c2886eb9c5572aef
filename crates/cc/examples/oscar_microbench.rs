//! OSCAR's convergence micro-benchmark (scenarios/oscar-microbench.toml): for
//! the long flow (flow 0), the number of control steps (changes of its sender's
//! rate or window) and the time until its rate first comes within 5% of the new
//! fair share ("reach") and until it stays there ("settle"), after the burst
//! starts (fair share C/10, until the first burst flow ends) and after it ends
//! (fair share C, from the last burst flow's end to the end of the run). Every
//! registered scheme among oscar, hpcc, dcqcn, swift and timely is run.
//!
//!   cargo run --release -p ccsim-cc --example oscar_microbench [-- SCENARIO [--tol 0.05] [--csv FILE] [--schemes a,b,...]]
//!
//! `--schemes` picks the schemes; each may carry overrides as
//! `name:key=value,...`, e.g. `--schemes oscar,oscar:linear_start=0.25,hpcc`.
//! `--csv FILE` writes flow 0's rate normalized to the line rate at every
//! change (scheme,t_us,rate_norm) for plotting.

#[path = "oscar_support/mod.rs"]
mod support;

use ccsim_core::time::US;
use ccsim_core::Time;
use ccsim_core::TraceConfig;
use std::io::Write;
use std::path::PathBuf;
use support::{converge, first_reach, Convergence, FlowLog, Scn};

const SCHEMES: [&str; 5] = ["oscar", "hpcc", "dcqcn", "swift", "timely"];

fn main() {
    let mut args = std::env::args().skip(1);
    let mut path = support::scenarios_dir().join("oscar-microbench.toml");
    let mut tol = 0.05;
    let mut csv: Option<PathBuf> = None;
    let mut chosen: Option<Vec<String>> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--schemes" => {
                chosen = Some(support::split_labels(&args.next().expect("--schemes a,b")))
            }
            "--tol" => {
                tol = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--tol NUMBER")
            }
            "--csv" => csv = Some(args.next().expect("--csv FILE").into()),
            _ => path = a.into(),
        }
    }
    let scn = Scn::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let known = ccsim_cc::names();
    let wanted: Vec<String> =
        chosen.unwrap_or_else(|| SCHEMES.iter().map(|s| s.to_string()).collect());
    let base = |l: &str| l.split(':').next().unwrap().to_string();
    let schemes: Vec<&str> = wanted
        .iter()
        .map(|s| s.as_str())
        .filter(|s| known.contains(&base(s).as_str()))
        .collect();
    let missing: Vec<&str> = wanted
        .iter()
        .map(|s| s.as_str())
        .filter(|s| !known.contains(&base(s).as_str()))
        .collect();
    let results: Vec<_> = std::thread::scope(|sc| {
        let hs: Vec<_> = schemes
            .iter()
            .map(|s| sc.spawn(|| scn.run(s, &[0], TraceConfig::default())))
            .collect();
        hs.into_iter()
            .map(|h| h.join().unwrap().unwrap_or_else(|e| panic!("{e}")))
            .collect()
    });
    println!(
        "{}: long flow 0, band = new fair share +-{:.0}%",
        scn.name,
        tol * 100.0
    );
    println!("steps = rate/window changes of the sender; time in us and in base RTTs; '-' = never");
    println!(
        "{:<24} | {:^34} | {:^34}",
        "", "burst starts: fair share 0.1 C", "burst ends: fair share 1.0 C"
    );
    println!(
        "{:<24} | {:>16} {:>17} | {:>16} {:>17}",
        "scheme", "reach", "settle", "reach", "settle"
    );
    let mut out = csv
        .as_ref()
        .map(|p| std::fs::File::create(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())));
    if let Some(f) = out.as_mut() {
        writeln!(f, "scheme,t_us,rate_norm").unwrap();
    }
    for (s, (r, logs)) in schemes.iter().zip(&results) {
        let log = &logs[&0];
        let c = log.line_rate;
        let burst: Vec<_> = r.flows.iter().filter(|f| f.id != 0).collect();
        let start = burst.iter().map(|f| f.start).min().unwrap();
        let ends: Vec<_> = burst
            .iter()
            .filter_map(|f| f.fct.map(|x| f.start + x))
            .collect();
        let first_end = ends.iter().copied().min().unwrap_or(r.engine.sim_end);
        let last_end = if ends.len() == burst.len() {
            ends.iter().copied().max()
        } else {
            None
        };
        let phase = |from: Time, until: Time, fair: f64| -> String {
            let fmt = |cv: Option<Convergence>| match cv {
                Some(cv) => format!(
                    "{}/{:.1}/{:.1}",
                    cv.steps,
                    cv.time as f64 / US as f64,
                    cv.time as f64 / log.base_rtt as f64
                ),
                None => "-".to_string(),
            };
            format!(
                "{:>16} {:>17}",
                fmt(first_reach(log, from, until, fair, tol)),
                fmt(converge(log, from, until, fair, tol))
            )
        };
        let a = phase(start, first_end, c / 10.0);
        let b = match last_end {
            Some(t) => phase(t, r.engine.sim_end, c),
            None => format!("{:>34}", "(burst did not end)"),
        };
        println!("{s:<24} | {a} | {b}");
        if let Some(f) = out.as_mut() {
            write_rates(f, s, log, c);
        }
    }
    println!("(cells: steps/us/RTTs)");
    println!(
        "burst flows end (last) at: {}",
        schemes
            .iter()
            .zip(&results)
            .map(|(s, (r, _))| {
                let e = r
                    .flows
                    .iter()
                    .filter(|f| f.id != 0)
                    .filter_map(|f| f.fct.map(|x| f.start + x))
                    .max();
                format!(
                    "{s} {}",
                    e.map(|t| format!("{:.0} us", t as f64 / US as f64))
                        .unwrap_or("-".into())
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !missing.is_empty() {
        println!(
            "not registered in this build (skipped): {}",
            missing.join(", ")
        );
    }
    println!("HPCC changes its rate on every ACK (fast react): its step count is per ACK, its RTT count is the fairer one.");
}

fn write_rates(f: &mut std::fs::File, scheme: &str, log: &FlowLog, c: f64) {
    for &(t, rate, _) in &log.rates {
        writeln!(f, "{scheme},{:.3},{:.5}", t as f64 / US as f64, rate / c).unwrap();
    }
}
