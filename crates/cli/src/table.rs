//! Plain-text tables: the result table of `run` (one column) and `compare`
//! (one column per scheme), and the benchmark table.

use ccsim_core::results::{RunResult, Stats};
use ccsim_core::time::to_us;

use ccsim_scenario::{fmt_time, human_bytes};

/// A text table: the first column left-aligned, the others right-aligned.
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table { header: header.iter().map(|s| s.to_string()).collect(), rows: Vec::new() }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let ncol = self.rows.iter().map(|r| r.len()).chain([self.header.len()]).max().unwrap_or(0);
        let mut width = vec![0usize; ncol];
        for r in std::iter::once(&self.header).chain(&self.rows) {
            for (i, c) in r.iter().enumerate() {
                width[i] = width[i].max(c.chars().count());
            }
        }
        let line = |r: &[String]| -> String {
            let mut s = String::new();
            for (i, w) in width.iter().enumerate() {
                let c = r.get(i).map(|s| s.as_str()).unwrap_or("");
                let pad = w - c.chars().count();
                if i > 0 {
                    s.push_str("  ");
                }
                if i == 0 {
                    s.push_str(c);
                    s.push_str(&" ".repeat(pad));
                } else {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                }
            }
            s.trim_end().to_string()
        };
        let mut out = line(&self.header);
        out.push('\n');
        let total: usize = width.iter().sum::<usize>() + 2 * ncol.saturating_sub(1);
        out.push_str(&"-".repeat(total));
        out.push('\n');
        for r in &self.rows {
            out.push_str(&line(r));
            out.push('\n');
        }
        out
    }
}

/// 1234567 -> "1,234,567" (the result files' formatting).
pub use ccsim_repro::output::thousands;

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

/// The result table: one row per metric, one column per run.
pub fn results_table(runs: &[(String, &RunResult)], scn: Option<&ccsim_scenario::Scenario>) -> Table {
    let mut header = vec!["".to_string()];
    header.extend(runs.iter().map(|(n, _)| n.clone()));
    let mut t = Table { header, rows: Vec::new() };
    let sums: Vec<_> = runs.iter().map(|(_, r)| r.summary()).collect();
    let mut add = |name: &str, f: &dyn Fn(usize) -> String| {
        let mut row = vec![name.to_string()];
        row.extend((0..runs.len()).map(f));
        t.rows.push(row);
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
        let jobs: Vec<Vec<ccsim_repro::metrics::jobs::Job>> =
            runs.iter().map(|(_, r)| ccsim_repro::metrics::jobs::jobs(scn, r)).collect();
        let time = |x: Option<f64>| x.map_or_else(|| "unfinished".to_string(), |us| fmt_time((us * 1e6) as u64));
        for (k, j) in jobs.first().cloned().unwrap_or_default().iter().enumerate() {
            add(&format!("job time, workload[{}]", j.workload), &|i| {
                jobs[i].get(k).map_or_else(|| "-".into(), |j| time(j.time_us))
            });
            if j.iterations_us.len() > 1 {
                add(&format!("  iteration mean / max, workload[{}]", j.workload), &|i| {
                    let v: Vec<f64> =
                        jobs[i].get(k).map_or(vec![], |j| j.iterations_us.iter().flatten().copied().collect());
                    if v.is_empty() {
                        "-".into()
                    } else {
                        let mean = v.iter().sum::<f64>() / v.len() as f64;
                        let max = v.iter().cloned().fold(f64::MIN, f64::max);
                        format!("{} / {}", time(Some(mean)), time(Some(max)))
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
    t
}

#[cfg(test)]
mod tests {
    #[test]
    fn traced_runs_get_queue_and_fairness_rows() {
        let r = ccsim_repro::testing::sample_result(2.0);
        let t = results_table(&[("x".to_string(), &r)], None);
        let row = |name: &str| t.rows.iter().find(|row| row[0] == name).map(|row| row[1].clone());
        assert!(row("traced queue mean / p99").is_some());
        assert!(row("Jain, traced flows (mean/min)").is_some());
        let plain = RunResult::default();
        let t = results_table(&[("y".to_string(), &plain)], None);
        assert!(!t.rows.iter().any(|row| row[0].starts_with("Jain")));
    }

    use super::*;
    use ccsim_core::results::{EngineStats, FlowResult, PortRef, PortResult};
    use ccsim_core::time::{MS, US};

    #[test]
    fn renders_aligned_columns() {
        let mut t = Table::new(&["scenario", "events", "wall s"]);
        t.row(vec!["small".into(), "12".into(), "0.5".into()]);
        t.row(vec!["a-much-longer-name".into(), "1,234,567".into(), "10.25".into()]);
        let s = t.render();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0], "scenario               events  wall s");
        assert_eq!(lines[1], "-".repeat(18 + 2 + 9 + 2 + 6));
        assert_eq!(lines[2], "small                      12     0.5");
        assert_eq!(lines[3], "a-much-longer-name  1,234,567   10.25");
    }

    #[test]
    fn number_formats() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(ratio(1.234), "1.23");
        assert_eq!(ratio(123.45), "123.5");
        assert_eq!(ratio(f64::NAN), "-");
        assert_eq!(si(12_300_000.0), "12.30M");
        assert_eq!(si(950.0), "950");
        assert_eq!(wall(0.421), "0.42s");
        assert_eq!(wall(185.0), "185.0s");
        assert_eq!(wall(725.0), "12m05s");
    }

    #[test]
    fn speed_rows_are_per_cpu_second() {
        let mut r = RunResult::default();
        r.engine.events = 3_000_000;
        r.engine.sim_end = MS;
        r.engine.wall_secs = 2.0;
        r.engine.cpu_secs = 1.0;
        assert_eq!(events_per_cpu_sec(&r), 3e6);
        let rows = speed_rows(&r);
        let labels: Vec<&str> = rows.iter().map(|(l, _)| *l).collect();
        assert_eq!(labels, ["wall time", "CPU time", "events/s (CPU)", "sim time / wall time"]);
        assert_eq!(rows[0].1, "2.00s");
        assert_eq!(rows[1].1, "1.00s");
        assert_eq!(rows[2].1, "3.00M");
        assert_eq!(rows[3].1, "5.00e-4 (2000x slower)");
        // no CPU time measured (results from before it was): "-", not infinity
        r.engine.cpu_secs = 0.0;
        assert!(events_per_cpu_sec(&r).is_nan());
        assert_eq!(speed_rows(&r)[1].1, "-");
        assert_eq!(speed_rows(&r)[2].1, "-");
    }

    fn result(sd: &[f64], sizes: &[u64]) -> RunResult {
        RunResult {
            scheme: "x".into(),
            flows: sd
                .iter()
                .zip(sizes)
                .enumerate()
                .map(|(i, (&s, &size))| FlowResult {
                    id: i as u32,
                    src: 0,
                    dst: 1,
                    size,
                    start: 0,
                    fct: if s.is_nan() { None } else { Some(10 * US) },
                    ideal_fct: 5 * US,
                    slowdown: if s.is_nan() { None } else { Some(s) },
                    retransmits: 0,
                    conn: None,
                    tag: None,
                    ..Default::default()
                })
                .collect(),
            ports: vec![PortResult { port: PortRef { node: 2, peer: 3 }, max_qlen: 150_000, ..Default::default() }],
            engine: EngineStats {
                events: 2_000_000,
                sim_end: 2 * MS,
                wall_secs: 0.5,
                cpu_secs: 0.25,
                ..Default::default()
            },
            pause_frames: 7,
            ..Default::default()
        }
    }

    #[test]
    fn results_table_one_column_per_scheme() {
        let a = result(&[1.0, 2.0, 3.0, f64::NAN], &[1_000, 200_000, 5_000_000, 10]);
        let mut b = result(&[1.5, 1.5, 1.5, 1.5], &[1_000, 200_000, 5_000_000, 10]);
        (b.retransmits, b.timeouts, b.trimmed, b.engine.data_packets) = (50, 2, 3, 1_050);
        let t = results_table(&[("dcqcn".into(), &a), ("hpcc".into(), &b)], None);
        assert_eq!(t.header, vec!["", "dcqcn", "hpcc"]);
        let get = |name: &str| t.rows.iter().find(|r| r[0] == name).unwrap_or_else(|| panic!("no row {name}")).clone();
        assert_eq!(get("flows"), vec!["flows", "4", "4"]);
        assert_eq!(get("finished"), vec!["finished", "3 (75.0%)", "4 (100.0%)"]);
        assert_eq!(get("slowdown avg")[1], "2.00");
        assert_eq!(get("slowdown p99")[1], "3.00");
        assert_eq!(get("  >=1MB avg/p50/p95/p99")[1], "3.00/3.00/3.00/3.00");
        assert_eq!(get("  >=1MB finished")[1], "1");
        assert_eq!(get("  <100KB avg/p50/p95/p99")[2], "1.50/1.50/1.50/1.50");
        assert_eq!(get("  <100KB finished"), vec!["  <100KB finished", "1", "2"]);
        assert_eq!(get("  100KB-1MB avg/p50/p95/p99")[1], "2.00/2.00/2.00/2.00");
        assert_eq!(get("sim time / wall time")[1], "4.00e-3 (250x slower)");
        assert_eq!(get("PAUSE frames")[1], "7");
        assert_eq!(get("data packets resent")[1], "0");
        assert_eq!(get("retransmission timeouts")[1], "0");
        assert_eq!(get("trimmed packets")[1], "0");
        // resends with their share of the distinct data packets (1,000 here)
        assert_eq!(get("data packets resent")[2], "50 (5.0%)");
        assert_eq!(get("retransmission timeouts")[2], "2");
        assert_eq!(get("trimmed packets")[2], "3");
        assert_eq!(get("max queue")[1], "150.0 KB");
        assert_eq!(get("events")[1], "2,000,000");
        // per CPU-second (0.25 s of CPU in 0.5 s of wall time: a shared machine)
        assert_eq!(get("events/s (CPU)")[1], "8.00M");
        assert_eq!(get("CPU time")[1], "0.25s");
        assert_eq!(get("wall time")[1], "0.50s");
        assert!(!t.rows.iter().any(|r| r[0] == "events/s"), "no wall-clock events/s row");
        assert_eq!(get("simulated time")[1], "2ms");
        let text = t.render();
        assert!(text.lines().all(|l| !l.ends_with(' ')));
        assert_eq!(
            text.lines().nth(1).unwrap().chars().filter(|&c| c == '-').count(),
            text.lines().nth(1).unwrap().len()
        );
    }
}
