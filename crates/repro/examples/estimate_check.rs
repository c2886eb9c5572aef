//! Checks the run cost model (`plan::estimate_events`) against finished
//! runs: for every run in a cache folder, the estimated events beside the
//! events the run took and its CPU time, grouped by scenario file, with the
//! ratio of the estimated CPU time (at `--rate` events per second) to the
//! measured one.
//!
//!     cargo run --release -p ccsim-repro --example estimate_check -- results/cache [--rate 3e6]
//!
//! docs/PERFORMANCE.md keeps the last table it printed.

use ccsim_repro::cache::Cache;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Default)]
struct Group {
    runs: usize,
    est: f64,
    events: f64,
    cpu: f64,
    ratios: Vec<f64>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args.first().map(String::as_str).unwrap_or("results/cache");
    let rate = args
        .iter()
        .position(|a| a == "--rate")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.parse::<f64>().expect("--rate: a number of events per second"))
        .unwrap_or(ccsim_repro::plan::EVENTS_PER_SEC);
    let cache = Cache::new(Path::new(dir));
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{dir}: {e}"));
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(key) = name.strip_suffix(".run") else { continue };
        let Some(stored) = cache.get(key) else { continue };
        let Ok(scn) = stored.spec.load() else { continue };
        let eng = &stored.result.engine;
        if eng.cpu_secs <= 0.05 {
            continue; // too short to time
        }
        let est = ccsim_repro::plan::estimate_events(&scn);
        let file = stored.spec.scenario.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        let g = groups.entry(format!("{}/{}", stored.spec.paper, file)).or_default();
        g.runs += 1;
        g.est += est;
        g.events += eng.events as f64;
        g.cpu += eng.cpu_secs;
        g.ratios.push(est / rate / eng.cpu_secs);
    }
    println!("estimated CPU at {:.1}M events/s over measured CPU, per scenario (runs over 0.05 s)", rate / 1e6);
    println!(
        "{:<44} {:>5} {:>10} {:>10} {:>9} {:>9} {:>7} {:>7} {:>7}",
        "scenario", "runs", "est. Mev", "meas. Mev", "est. s", "meas. s", "median", "min", "max"
    );
    let (mut est_all, mut cpu_all) = (0.0, 0.0);
    for (name, mut g) in groups {
        g.ratios.sort_by(f64::total_cmp);
        let med = g.ratios[g.ratios.len() / 2];
        println!(
            "{:<44} {:>5} {:>10.1} {:>10.1} {:>9.1} {:>9.1} {:>7.2} {:>7.2} {:>7.2}",
            name,
            g.runs,
            g.est / 1e6,
            g.events / 1e6,
            g.est / rate,
            g.cpu,
            med,
            g.ratios[0],
            g.ratios[g.ratios.len() - 1]
        );
        est_all += g.est / rate;
        cpu_all += g.cpu;
    }
    println!("all: estimated {:.0} s, measured {:.0} s, ratio {:.2}", est_all, cpu_all, est_all / cpu_all);
}
