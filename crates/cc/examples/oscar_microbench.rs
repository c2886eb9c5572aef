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
//! Two signals are analysed: the pacing rate the controller sets (the slides'
//! y-axis for rate-based schemes) and the flow's throughput over the last 4
//! base RTTs (acked bytes, headers included), which is what window-based
//! schemes such as Swift deliver (their pacing rate stays at line rate). A
//! last table gives the long flow's throughput during the burst against its
//! fair share 0.1 C. The throughput "reach" in the burst phase is mostly the
//! averaging window sliding down through the band; its "settle" column and the
//! last table are the informative ones.
//!
//! `--schemes` picks the schemes; each may carry overrides as
//! `name:key=value,...`, e.g. `--schemes oscar,oscar:linear_start=0.25,hpcc`.
//! `--csv FILE` writes flow 0's rate and throughput normalized to the line
//! rate at every change (scheme,signal,t_us,rate_norm) for plotting.

#[path = "oscar_support/mod.rs"]
mod support;

use ccsim_core::time::US;
use ccsim_core::Time;
use ccsim_core::TraceConfig;
use std::io::Write;
use std::path::PathBuf;
use support::{converge_on, first_reach_on, Convergence, FlowLog, Scn, Signal};

const SCHEMES: [&str; 5] = ["oscar", "hpcc", "dcqcn", "swift", "timely"];

fn main() {
    let mut args = std::env::args().skip(1);
    let mut path = support::scenarios_dir().join("oscar-microbench.toml");
    let mut tol = 0.05;
    let mut csv: Option<PathBuf> = None;
    let mut chosen: Option<Vec<String>> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--schemes" => chosen = Some(support::split_labels(&args.next().expect("--schemes a,b"))),
            "--tol" => tol = args.next().and_then(|v| v.parse().ok()).expect("--tol NUMBER"),
            "--csv" => csv = Some(args.next().expect("--csv FILE").into()),
            _ => path = a.into(),
        }
    }
    let scn = Scn::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let known = ccsim_cc::names();
    let wanted: Vec<String> = chosen.unwrap_or_else(|| SCHEMES.iter().map(|s| s.to_string()).collect());
    let base = |l: &str| l.split(':').next().unwrap().to_string();
    let schemes: Vec<&str> = wanted.iter().map(|s| s.as_str()).filter(|s| known.contains(&base(s).as_str())).collect();
    let missing: Vec<&str> = wanted.iter().map(|s| s.as_str()).filter(|s| !known.contains(&base(s).as_str())).collect();
    let results: Vec<_> = std::thread::scope(|sc| {
        let hs: Vec<_> = schemes.iter().map(|s| sc.spawn(|| scn.run(s, &[0], TraceConfig::default()))).collect();
        hs.into_iter().map(|h| h.join().unwrap().unwrap_or_else(|e| panic!("{e}"))).collect()
    });
    // each long flow's signals, computed once: [rate, throughput]
    let sigs = [Signal::Rate, Signal::Throughput];
    let series: Vec<Vec<Vec<(Time, f64)>>> =
        results.iter().map(|(_, logs)| sigs.iter().map(|&g| logs[&0].series(g)).collect()).collect();
    let mut out = csv.as_ref().map(|p| std::fs::File::create(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())));
    if let Some(f) = out.as_mut() {
        writeln!(f, "scheme,signal,t_us,rate_norm").unwrap();
    }
    for (k, &sig) in sigs.iter().enumerate() {
        println!(
            "\n{}: long flow 0, band = new fair share +-{:.0}%, signal: {}",
            scn.name,
            tol * 100.0,
            match sig {
                Signal::Rate => "pacing rate set by the controller",
                Signal::Throughput =>
                    "throughput (acked bytes incl. headers) over the last 4 base RTTs; what window-based schemes get",
            }
        );
        println!("steps = rate/window changes of the sender; time in us and in base RTTs; '-' = never");
        println!("{:<24} | {:^34} | {:^34}", "", "burst starts: fair share 0.1 C", "burst ends: fair share 1.0 C");
        println!("{:<24} | {:>16} {:>17} | {:>16} {:>17}", "scheme", "reach", "settle", "reach", "settle");
        for ((s, (r, logs)), ser) in schemes.iter().zip(&results).zip(&series) {
            let log = &logs[&0];
            println!("{s:<24} | {}", phases(r, log, &ser[k], tol));
            if let Some(f) = out.as_mut() {
                write_rates(f, s, log, sig, &ser[k]);
            }
        }
    }
    println!("(cells: steps/us/RTTs)");
    println!(
        "\nlong flow's throughput (4-RTT windows) from 0.5 ms after the burst starts to the first burst flow's end, / C (fair 0.100):"
    );
    println!("{:<24} | {:>7} {:>7} {:>7}", "scheme", "mean", "min", "max");
    for ((s, (r, logs)), ser) in schemes.iter().zip(&results).zip(&series) {
        let log = &logs[&0];
        let (start, first_end, _) = burst_window(r);
        let from = start + 500 * US;
        let v: Vec<f64> =
            ser[1].iter().filter(|p| p.0 >= from && p.0 < first_end).map(|p| p.1 / log.line_rate).collect();
        if v.is_empty() {
            println!("{s:<24} | {:>7}", "-");
            continue;
        }
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = v.iter().copied().fold(0.0, f64::max);
        println!("{s:<24} | {mean:>7.3} {min:>7.3} {max:>7.3}");
    }
    println!(
        "burst flows end (last) at: {}",
        schemes
            .iter()
            .zip(&results)
            .map(|(s, (r, _))| {
                let e = r.flows.iter().filter(|f| f.id != 0).filter_map(|f| f.fct.map(|x| f.start + x)).max();
                format!("{s} {}", e.map(|t| format!("{:.0} us", t as f64 / US as f64)).unwrap_or("-".into()))
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !missing.is_empty() {
        println!("not registered in this build (skipped): {}", missing.join(", "));
    }
    println!(
        "HPCC changes its rate on every ACK (fast react): its step count is per ACK, its RTT count is the fairer one."
    );
}

/// The burst flows' first start, first end (the run's end if none ended)
/// and last end (None unless every burst flow ended).
fn burst_window(r: &ccsim_core::results::RunResult) -> (Time, Time, Option<Time>) {
    let burst: Vec<_> = r.flows.iter().filter(|f| f.id != 0).collect();
    let start = burst.iter().map(|f| f.start).min().unwrap();
    let ends: Vec<_> = burst.iter().filter_map(|f| f.fct.map(|x| f.start + x)).collect();
    let first_end = ends.iter().copied().min().unwrap_or(r.engine.sim_end);
    let last_end = if ends.len() == burst.len() { ends.iter().copied().max() } else { None };
    (start, first_end, last_end)
}

/// The long flow's reach/settle cells for both phases of the burst, on the
/// signal `s` (steps are the controller's changes in `log`).
fn phases(r: &ccsim_core::results::RunResult, log: &FlowLog, s: &[(Time, f64)], tol: f64) -> String {
    let c = log.line_rate;
    let (start, first_end, last_end) = burst_window(r);
    let phase = |from: Time, until: Time, fair: f64| -> String {
        let fmt = |cv: Option<Convergence>| match cv {
            Some(cv) => {
                format!("{}/{:.1}/{:.1}", cv.steps, cv.time as f64 / US as f64, cv.time as f64 / log.base_rtt as f64)
            }
            None => "-".to_string(),
        };
        format!(
            "{:>16} {:>17}",
            fmt(first_reach_on(log, s, from, until, fair, tol)),
            fmt(converge_on(log, s, from, until, fair, tol))
        )
    };
    let a = phase(start, first_end, c / 10.0);
    let b = match last_end {
        Some(t) => phase(t, r.engine.sim_end, c),
        None => format!("{:>34}", "(burst did not end)"),
    };
    format!("{a} | {b}")
}

fn write_rates(f: &mut std::fs::File, scheme: &str, log: &FlowLog, sig: Signal, s: &[(Time, f64)]) {
    let name = match sig {
        Signal::Rate => "rate",
        Signal::Throughput => "throughput",
    };
    for &(t, rate) in s {
        writeln!(f, "{scheme},{name},{:.3},{:.5}", t as f64 / US as f64, rate / log.line_rate).unwrap();
    }
}
