//! Plain-text tables: the result table of `run` (one column) and `compare`
//! (one column per scheme), and the benchmark table.

use ccsim_core::results::RunResult;

/// A text table: the first column left-aligned, the others right-aligned.
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Columns of the terminal on standard output: `COLUMNS` when set (a shell
/// exports it to scripts only on request), else the terminal's own size,
/// else 100 (a pipe or a file).
pub fn term_width() -> usize {
    if let Some(n) = std::env::var("COLUMNS").ok().and_then(|v| v.trim().parse::<usize>().ok()) {
        return n.max(40);
    }
    tty_columns().unwrap_or(100).max(40)
}

#[cfg(unix)]
fn tty_columns() -> Option<usize> {
    // SAFETY: TIOCGWINSZ fills the winsize it is given and touches nothing
    // else; a descriptor that is not a terminal returns an error.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) } == 0;
    (ok && ws.ws_col > 0).then_some(ws.ws_col as usize)
}

#[cfg(not(unix))]
fn tty_columns() -> Option<usize> {
    None
}

/// Words of `text` in lines of at most `width` characters (a longer word
/// gets a line of its own).
pub fn wrap_lines(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for w in text.split_whitespace() {
        if !cur.is_empty() && cur.chars().count() + 1 + w.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(w);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table { header: header.iter().map(|s| s.to_string()).collect(), rows: Vec::new() }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Every column left-aligned (with no `wrap` columns and `usize::MAX`,
    /// a plain left-aligned table), in at most `width` characters: the
    /// columns in `wrap` (text) share what the others leave and wrap their
    /// words onto continuation lines. When they would get under 16
    /// characters each, every row becomes a block instead: the other cells
    /// on one line, each wrapped cell indented below it.
    pub fn render_fit(&self, width: usize, wrap: &[usize]) -> String {
        let ncol = self.header.len();
        let natural = |i: usize| {
            std::iter::once(&self.header).chain(&self.rows).map(|r| r.get(i).map_or(0, |c| c.chars().count())).max()
        };
        let mut w: Vec<usize> = (0..ncol).map(|i| natural(i).unwrap_or(0)).collect();
        let fixed: usize =
            (0..ncol).filter(|i| !wrap.contains(i)).map(|i| w[i]).sum::<usize>() + 2 * ncol.saturating_sub(1);
        let want: usize = wrap.iter().map(|&i| w[i]).sum();
        let room = width.saturating_sub(fixed);
        if want > room {
            if room < 16 * wrap.len() {
                return self.render_blocks(width, wrap);
            }
            // shrink the widest text columns first, down to an even share
            let mut left = room;
            let mut order: Vec<usize> = wrap.to_vec();
            order.sort_by_key(|&i| w[i]);
            for (k, &i) in order.iter().enumerate() {
                let share = left / (order.len() - k);
                w[i] = w[i].min(share);
                left -= w[i];
            }
        }
        let mut out = String::new();
        for r in std::iter::once(&self.header).chain(&self.rows) {
            let cells: Vec<Vec<String>> = (0..ncol)
                .map(|i| {
                    let c = r.get(i).map(String::as_str).unwrap_or("");
                    if wrap.contains(&i) {
                        wrap_lines(c, w[i].max(1))
                    } else {
                        vec![c.to_string()]
                    }
                })
                .collect();
            let height = cells.iter().map(Vec::len).max().unwrap_or(1).max(1);
            for l in 0..height {
                let mut line = String::new();
                for (i, c) in cells.iter().enumerate() {
                    let c = c.get(l).map(String::as_str).unwrap_or("");
                    line.push_str(c);
                    if i + 1 < ncol {
                        line.push_str(&" ".repeat(w[i].saturating_sub(c.chars().count()) + 2));
                    }
                }
                out.push_str(line.trim_end());
                out.push('\n');
            }
        }
        out
    }

    /// One block per row: the cells not in `wrap` on a line (the first as
    /// it is, the others after their header), then each
    /// cell in `wrap` as "header: text" wrapped and indented four spaces.
    fn render_blocks(&self, width: usize, wrap: &[usize]) -> String {
        let mut out = String::new();
        for r in &self.rows {
            // the first cell, then "header: cell" for the other unwrapped ones
            let head: Vec<String> = (0..self.header.len())
                .filter(|i| !wrap.contains(i))
                .filter_map(|i| {
                    let c = r.get(i)?;
                    Some(if i == 0 { c.clone() } else { format!("{}: {c}", self.header[i]) })
                })
                .collect();
            out.push_str(head.join("  ").trim_end());
            out.push('\n');
            for &i in wrap {
                let text = format!("{}: {}", self.header[i], r.get(i).map(String::as_str).unwrap_or(""));
                for l in wrap_lines(&text, width.saturating_sub(4).max(20)) {
                    out.push_str(&format!("    {l}\n"));
                }
            }
        }
        out
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

pub use ccsim_repro::result_rows::{si, wall};

/// The result table: one row per metric, one column per run
/// ([`ccsim_repro::result_rows::result_rows`]).
pub fn results_table(runs: &[(String, &RunResult)], scn: Option<&ccsim_scenario::Scenario>) -> Table {
    let mut header = vec!["".to_string()];
    header.extend(runs.iter().map(|(n, _)| n.clone()));
    Table { header, rows: ccsim_repro::result_rows::result_rows(runs, scn) }
}

#[cfg(test)]
mod tests {
    use super::Table;

    #[test]
    fn fitted_tables_wrap_text_columns_or_become_blocks() {
        let mut t = Table::new(&["key", "meaning"]);
        t.row(vec!["mtu".into(), "payload bytes per full data packet".into()]);
        // wide enough: one line per row
        assert_eq!(t.render_fit(80, &[1]), "key  meaning\nmtu  payload bytes per full data packet\n");
        // 25 columns: the meaning wraps under its own column
        assert_eq!(t.render_fit(25, &[1]), "key  meaning\nmtu  payload bytes per\n     full data packet\n");
        // too narrow for a 16-character text column: a block per row
        assert_eq!(t.render_fit(20, &[1]), "mtu\n    meaning: payload\n    bytes per full data\n    packet\n");
        let mut n = Table::new(&["key", "default", "meaning"]);
        n.row(vec!["mtu".into(), "1000".into(), "payload bytes per full data packet".into()]);
        assert_eq!(
            n.render_fit(20, &[2]),
            "mtu  default: 1000\n    meaning: payload\n    bytes per full data\n    packet\n"
        );
    }

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
    use ccsim_repro::result_rows::{events_per_cpu_sec, ratio, speed_rows};

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
