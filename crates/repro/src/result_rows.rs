//! The result table of a run or a comparison, as rows of text: `ccsim run`
//! and `compare` print it, a results folder's `report.html` shows it, so the
//! page and the terminal give the same numbers with the same units.

use ccsim_core::results::{RunResult, Stats};
use ccsim_core::time::to_us;
use ccsim_scenario::{fmt_time, human_bytes};

use crate::metrics::jobs::mean_max;
use crate::output::thousands;

/// A job's time as the tables show it, with its unit ("unfinished" for none).
fn time(x: Option<f64>) -> String {
    x.map_or_else(|| "unfinished".to_string(), |us| fmt_time((us * 1e6) as u64))
}

/// A slowdown or other ratio: 2 decimals, 1 from 100 on, "-" if undefined.
pub fn ratio(x: f64) -> String {
    if !x.is_finite() {
        "-".into()
    } else if x >= 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// 12.3M, 950K, 12: a rate or count for people.
pub fn si(x: f64) -> String {
    if !x.is_finite() {
        "-".into()
    } else if x >= 1e9 {
        format!("{:.2}G", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1}K", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// Wall-clock seconds: "0.42s", "12.3s", "3m05s".
pub fn wall(secs: f64) -> String {
    if !secs.is_finite() {
        "-".into()
    } else if secs < 10.0 {
        format!("{secs:.2}s")
    } else if secs < 600.0 {
        format!("{secs:.1}s")
    } else {
        let m = (secs / 60.0).floor();
        format!("{}m{:02.0}s", m as u64, secs - m * 60.0)
    }
}

/// Simulated seconds per wall-clock second, and how much slower than real time: "2.50e-3 (400x slower)".
pub fn sim_per_wall(sim_secs: f64, wall_secs: f64) -> String {
    if !(wall_secs > 0.0 && sim_secs > 0.0) {
        return "-".into();
    }
    let r = sim_secs / wall_secs;
    if r >= 1.0 {
        format!("{r:.3} ({r:.1}x faster)")
    } else {
        format!("{r:.2e} ({:.0}x slower)", 1.0 / r)
    }
}

/// Events per second of CPU time of the simulating thread: unlike events
/// per wall-clock second, it does not fall when the machine is shared.
/// NaN without a CPU time (results written before it was measured).
pub fn events_per_cpu_sec(r: &RunResult) -> f64 {
    if r.engine.cpu_secs > 0.0 {
        r.engine.events as f64 / r.engine.cpu_secs
    } else {
        f64::NAN
    }
}

/// The speed rows of the result table, (label, value): wall and CPU time,
/// events per CPU-second, simulated time per wall-clock second.
pub fn speed_rows(r: &RunResult) -> Vec<(&'static str, String)> {
    let e = &r.engine;
    let positive = |x: f64| if x > 0.0 { x } else { f64::NAN };
    vec![
        ("wall time", wall(e.wall_secs)),
        ("CPU time", wall(positive(e.cpu_secs))),
        ("events/s (CPU)", si(events_per_cpu_sec(r))),
        (
            "sim time / wall time",
            if e.wall_secs > 0.0 { sim_per_wall(to_us(e.sim_end) / 1e6, e.wall_secs) } else { "-".into() },
        ),
    ]
}

fn stats4(s: &Stats) -> String {
    if s.count == 0 {
        "-".into()
    } else {
        format!("{}/{}/{}/{}", ratio(s.avg), ratio(s.p50), ratio(s.p95), ratio(s.p99))
    }
}

/// Data packets resent, with their share of the distinct data packets
/// (those sent for the first time): "1,234 (5.6%)", "0".
fn resent(s: &ccsim_core::results::Summary) -> String {
    let distinct = s.data_packets.saturating_sub(s.retransmits);
    if s.retransmits == 0 || distinct == 0 {
        thousands(s.retransmits)
    } else {
        format!("{} ({:.1}%)", thousands(s.retransmits), 100.0 * s.retransmits as f64 / distinct as f64)
    }
}

/// The result table of `ccsim run` and `compare` and of a results folder's
/// page: one row per metric (its label first, units in the values), one
/// column per run.
pub fn result_rows(runs: &[(String, &RunResult)], scn: Option<&ccsim_scenario::Scenario>) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = Vec::new();
    let sums: Vec<_> = runs.iter().map(|(_, r)| r.summary()).collect();
    let mut add = |name: &str, f: &dyn Fn(usize) -> String| {
        let mut row = vec![name.to_string()];
        row.extend((0..runs.len()).map(f));
        rows.push(row);
    };
    if runs.iter().any(|(_, r)| !r.conns.is_empty()) {
        // messages are rows of the flow list (after the flows)
        add("flows + messages", &|i| thousands(sums[i].flows as u64));
        add("  messages", &|i| thousands(runs[i].1.flows.iter().filter(|f| f.conn.is_some()).count() as u64));
        add("  connections", &|i| thousands(runs[i].1.conns.len() as u64));
        add("  messages not released", &|i| thousands(runs[i].1.messages_waiting));
    } else {
        add("flows", &|i| thousands(sums[i].flows as u64));
    }
    // jobs (workload entries made of messages): completion time, iterations
    if let Some(scn) = scn {
        let jobs: Vec<Vec<crate::metrics::jobs::Job>> =
            runs.iter().map(|(_, r)| crate::metrics::jobs::jobs(scn, r)).collect();
        for (k, j) in jobs.first().cloned().unwrap_or_default().iter().enumerate() {
            add(&format!("job time, workload[{}]", j.workload), &|i| {
                jobs[i].get(k).map_or_else(|| "-".into(), |j| time(j.time_us))
            });
            if j.iterations_us.len() > 1 {
                add(&format!("  iteration mean / max, workload[{}]", j.workload), &|i| {
                    let v: Vec<f64> =
                        jobs[i].get(k).map_or(vec![], |j| j.iterations_us.iter().flatten().copied().collect());
                    match mean_max(&v) {
                        None => "-".into(),
                        Some((mean, max)) => format!("{} / {}", time(Some(mean)), time(Some(max))),
                    }
                });
            }
        }
    }
    add("finished", &|i| {
        let s = &sums[i];
        let pct = if s.flows > 0 { 100.0 * s.finished as f64 / s.flows as f64 } else { 0.0 };
        format!("{} ({pct:.1}%)", thousands(s.finished as u64))
    });
    add("slowdown avg", &|i| ratio(sums[i].slowdown.avg));
    add("slowdown p50", &|i| ratio(sums[i].slowdown.p50));
    add("slowdown p95", &|i| ratio(sums[i].slowdown.p95));
    add("slowdown p99", &|i| ratio(sums[i].slowdown.p99));
    let nb = sums.first().map(|s| s.by_size.len()).unwrap_or(0);
    for b in 0..nb {
        let name = &sums[0].by_size[b].0;
        add(&format!("  {name} finished"), &|i| {
            sums[i].by_size.get(b).map(|x| thousands(x.1.count as u64)).unwrap_or_else(|| "-".into())
        });
        add(&format!("  {name} avg/p50/p95/p99"), &|i| {
            sums[i].by_size.get(b).map(|x| stats4(&x.1)).unwrap_or_else(|| "-".into())
        });
    }
    add("FCT avg / p99", &|i| {
        let f = &sums[i].fct_us;
        if f.count == 0 {
            "-".into()
        } else {
            format!("{} / {}", fmt_time((f.avg * 1e6) as u64), fmt_time((f.p99 * 1e6) as u64))
        }
    });
    // losses, always shown (a 0 says something too)
    add("data packets resent", &|i| resent(&sums[i]));
    add("retransmission timeouts", &|i| thousands(sums[i].timeouts));
    add("trimmed packets", &|i| thousands(sums[i].trimmed));
    add("drops", &|i| thousands(sums[i].drops));
    add("PAUSE frames", &|i| thousands(sums[i].pause_frames));
    add("paused time (all ports)", &|i| fmt_time((sums[i].paused_time_us * 1e6) as u64));
    add("max queue", &|i| human_bytes(sums[i].max_queue_bytes as f64));
    if runs.iter().any(|(_, r)| !r.queues.is_empty()) {
        add("traced queue mean / p99", &|i| {
            crate::output::traced_queue(runs[i].1)
                .map(|(m, p)| format!("{} / {}", human_bytes(m), human_bytes(p)))
                .unwrap_or_else(|| "-".into())
        });
    }
    if runs.iter().any(|(_, r)| !r.flow_traces.is_empty()) {
        add("Jain, traced flows (mean/min)", &|i| {
            let r = runs[i].1;
            r.traced_fairness(crate::output::fairness_window(r))
                .map(|f| format!("{:.3} / {:.3}", f.mean_jain, f.min_jain))
                .unwrap_or_else(|| "-".into())
        });
    }
    add("simulated time", &|i| {
        let r = runs[i].1;
        let t = fmt_time(r.engine.sim_end);
        if r.truncated {
            format!("{t} ({})", r.status.name())
        } else {
            t
        }
    });
    add("events", &|i| thousands(runs[i].1.engine.events));
    add("data packets", &|i| thousands(runs[i].1.engine.data_packets));
    let speed: Vec<_> = runs.iter().map(|(_, r)| speed_rows(r)).collect();
    for (k, (label, _)) in speed_rows(&RunResult::default()).iter().enumerate() {
        add(label, &|i| speed[i][k].1.clone());
    }
    rows
}

/// A results page's job table: its header, its rows, and a line per job
/// naming its hosts in rank order.
pub struct JobTable {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub placed: Vec<String>,
}

/// The per-job table of a results page: one row per job and run (a job =
/// a workload entry made of messages), with its ranks, messages, time,
/// iterations, collectives, resends and trims; and one line per job naming
/// its hosts in rank order. None without jobs.
pub fn job_rows(runs: &[(String, &RunResult)], scn: &ccsim_scenario::Scenario) -> Option<JobTable> {
    let jobs: Vec<Vec<crate::metrics::jobs::Job>> =
        runs.iter().map(|(_, r)| crate::metrics::jobs::jobs(scn, r)).collect();
    let first = jobs.iter().find(|j| !j.is_empty())?.clone();
    let header = [
        "job",
        "scheme",
        "ranks",
        "messages finished",
        "job time",
        "iterations: n, mean / max",
        "collectives: n, mean / max",
        "data packets resent",
        "trimmed",
    ]
    .map(String::from)
    .to_vec();
    let count_mean_max = |v: &[Option<f64>]| {
        let done: Vec<f64> = v.iter().flatten().copied().collect();
        if v.is_empty() {
            return "-".to_string();
        }
        if done.len() < v.len() {
            return format!("{}, {} unfinished", v.len(), v.len() - done.len());
        }
        match mean_max(&done) {
            Some((mean, max)) => format!("{}, {} / {}", v.len(), time(Some(mean)), time(Some(max))),
            None => "-".to_string(),
        }
    };
    let mut rows = Vec::new();
    for (k, j0) in first.iter().enumerate() {
        for (i, (scheme, _)) in runs.iter().enumerate() {
            let Some(j) = jobs[i].get(k) else { continue };
            let colls: Vec<Option<f64>> = j.collectives.iter().map(|c| c.time_us).collect();
            rows.push(vec![
                format!("workload[{}]", j0.workload),
                scheme.clone(),
                if j.hosts.is_empty() { "-".into() } else { j.hosts.len().to_string() },
                format!("{} of {}", thousands(j.finished as u64), thousands(j.planned as u64)),
                time(j.time_us),
                count_mean_max(&j.iterations_us),
                count_mean_max(&colls),
                thousands(j.retransmits),
                thousands(j.trimmed),
            ]);
        }
    }
    let placed = first
        .iter()
        .filter(|j| !j.hosts.is_empty())
        .map(|j| {
            let hosts: Vec<String> = j.hosts.iter().map(|h| h.to_string()).collect();
            format!("workload[{}]: ranks 0..{} on hosts {}", j.workload, j.hosts.len() - 1, hosts.join(", "))
        })
        .collect();
    Some(JobTable { header, rows, placed })
}
