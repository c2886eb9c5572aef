//! The progress line on stderr: rewritten in place a few times a second on a
//! terminal, a plain line every few seconds otherwise (logs, CI), nothing
//! with `--quiet`.

use ccsim_core::sim::Progress;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use crate::table::{si, wall};
use ccsim_scenario::fmt_time;

pub struct ProgressLine {
    tty: bool,
    quiet: bool,
    every: Duration,
    last: Option<Instant>,
    shown: bool,
}

impl ProgressLine {
    pub fn new(quiet: bool) -> ProgressLine {
        let tty = std::io::stderr().is_terminal();
        ProgressLine {
            tty,
            quiet,
            every: if tty { Duration::from_millis(200) } else { Duration::from_secs(5) },
            last: None,
            shown: false,
        }
    }

    /// Shows `text()` if enough time has passed since the last line.
    pub fn update(&mut self, text: impl FnOnce() -> String) {
        if self.quiet {
            return;
        }
        let now = Instant::now();
        if let Some(last) = self.last {
            if now.duration_since(last) < self.every {
                return;
            }
        }
        self.last = Some(now);
        let line = text();
        let mut err = std::io::stderr().lock();
        if self.tty {
            let _ = write!(err, "\r\x1b[K{line}");
        } else {
            let _ = writeln!(err, "{line}");
        }
        let _ = err.flush();
        self.shown = true;
    }

    /// Clears the line on a terminal.
    pub fn finish(&mut self) {
        if self.tty && self.shown && !self.quiet {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        }
        self.shown = false;
    }
}

/// "sim 1.25ms | flows 120/6878 (1.7%) | 3.10M events/s | wall 4.1s"
pub fn describe(p: &Progress) -> String {
    let pct = if p.flows_total > 0 { 100.0 * p.flows_done as f64 / p.flows_total as f64 } else { 0.0 };
    let eps = if p.wall_secs > 0.0 { p.events as f64 / p.wall_secs } else { f64::NAN };
    format!(
        "sim {} | flows {}/{} ({pct:.1}%) | {} events/s | wall {}",
        fmt_time(p.now),
        p.flows_done,
        p.flows_total,
        si(eps),
        wall(p.wall_secs)
    )
}

/// What a run will cost, before it starts, from `ccsim reproduce`'s
/// estimator (`ccsim_repro::plan::estimate_events` at
/// `reproduce::EVENTS_PER_SEC` on one core): `events` in total over `runs`
/// runs, `jobs` at a time. "estimate: ~1.20s of CPU time (4.80M events at
/// ~4M events/s on one core)"; for several runs also the time with `jobs`
/// at a time.
pub fn estimate_line(events: f64, runs: usize, jobs: usize) -> String {
    let rate = crate::reproduce::EVENTS_PER_SEC;
    let time = |secs: f64| if secs < 0.01 { "<0.01s".to_string() } else { format!("~{}", wall(secs)) };
    let cpu = events / rate;
    let mut s = format!("estimate: {} of CPU time", time(cpu));
    if runs > 1 {
        s.push_str(&format!(" for {runs} runs"));
    }
    s.push_str(&format!(" ({} events at ~{:.0}M events/s on one core)", si(events), rate / 1e6));
    let at_once = jobs.clamp(1, runs.max(1));
    if at_once > 1 {
        s.push_str(&format!(", {} with {at_once} at a time", time(cpu / at_once as f64)));
    }
    s
}

/// Short form for one of several parallel runs: "hpcc 1.25ms 17%".
pub fn describe_short(name: &str, p: Option<&Progress>, done: bool) -> String {
    match (p, done) {
        (_, true) => format!("{name} done"),
        (None, false) => format!("{name} starting"),
        (Some(p), false) => {
            let pct = if p.flows_total > 0 { 100.0 * p.flows_done as f64 / p.flows_total as f64 } else { 0.0 };
            format!("{name} {} {pct:.0}%", fmt_time(p.now))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_core::time::US;

    #[test]
    fn progress_text() {
        let p = Progress { now: 1250 * US, events: 3_100_000, flows_done: 120, flows_total: 6878, wall_secs: 1.0 };
        assert_eq!(describe(&p), "sim 1.25ms | flows 120/6878 (1.7%) | 3.10M events/s | wall 1.00s");
        assert_eq!(describe_short("hpcc", Some(&p), false), "hpcc 1.25ms 2%");
        assert_eq!(describe_short("hpcc", None, false), "hpcc starting");
        assert_eq!(describe_short("hpcc", Some(&p), true), "hpcc done");
    }

    #[test]
    fn estimate_text() {
        assert_eq!(
            estimate_line(4.8e6, 1, 4),
            "estimate: ~1.20s of CPU time (4.80M events at ~4M events/s on one core)"
        );
        assert_eq!(
            estimate_line(14.4e6, 3, 2),
            "estimate: ~3.60s of CPU time for 3 runs (14.40M events at ~4M events/s on one core), ~1.80s with 2 at a time"
        );
        assert_eq!(
            estimate_line(12e6, 2, 8),
            "estimate: ~3.00s of CPU time for 2 runs (12.00M events at ~4M events/s on one core), ~1.50s with 2 at a time"
        );
        assert_eq!(
            estimate_line(1000.0, 1, 1),
            "estimate: <0.01s of CPU time (1.0K events at ~4M events/s on one core)"
        );
    }

    #[test]
    fn quiet_line_prints_nothing_and_does_not_panic() {
        let mut l = ProgressLine::new(true);
        l.update(|| panic!("text must not be built when quiet"));
        l.finish();
    }
}
