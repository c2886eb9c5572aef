//! The charts written with every result: slowdown by flow size (average and
//! p99 panels), and when traced, queue length, link utilization and flow
//! rates over time. With several schemes (compare) every chart overlays them,
//! one colour per scheme. [`PlotOptions`] picks a time window, the file
//! formats (SVG, PNG, PDF) and names ports by the topology's nodes.

use ccsim_core::results::RunResult;
use ccsim_core::time::{to_us, Time};
use ccsim_core::topology::NodeKind;
use std::io;
use std::path::Path;

use crate::chart::export::{self, Format};
use crate::chart::{decimate, Chart, Dash, Figure, Scale, Series, TickFormat, PALETTE};

/// Groups of equal flow count in the slowdown chart (HPCC-style).
pub const SLOWDOWN_GROUPS: usize = 20;
/// Most points drawn per time series.
const MAX_POINTS: usize = 800;

/// How the charts of a run are drawn and written.
#[derive(Clone, Debug)]
pub struct PlotOptions {
    /// Only this span of simulated time on time axes (from, to).
    pub window: Option<(Time, Time)>,
    /// Files written per chart. Default SVG only.
    pub formats: Vec<Format>,
    /// Node kinds by id, to name ports "s32→h5" (switch 32 towards host 5);
    /// empty: "32→5".
    pub nodes: Vec<NodeKind>,
}

impl PlotOptions {
    /// The chart files to write: `formats`, SVG first (always written: the HTML page shows it).
    fn with_svg(&self) -> Vec<Format> {
        let mut f = self.formats.clone();
        if !f.contains(&Format::Svg) {
            f.insert(0, Format::Svg);
        }
        f
    }
}

impl Default for PlotOptions {
    fn default() -> Self {
        PlotOptions { window: None, formats: vec![Format::Svg], nodes: vec![] }
    }
}

impl PlotOptions {
    /// A port series name "node:peer" as "s32→h5".
    pub fn port_name(&self, name: &str) -> String {
        let node = |s: &str| match s.parse::<usize>().ok().and_then(|i| self.nodes.get(i)) {
            Some(NodeKind::Host) => format!("h{s}"),
            Some(NodeKind::Switch) => format!("s{s}"),
            None => s.to_string(),
        };
        match name.split_once(':') {
            Some((a, b)) => format!("{}→{}", node(a), node(b)),
            None => name.to_string(),
        }
    }
}

/// How a series is drawn: by scheme when several runs are overlaid, else by series.
fn style(run: usize, runs: usize, idx: usize) -> (String, Dash) {
    if runs > 1 {
        (PALETTE[run % PALETTE.len()].to_string(), Dash::nth(idx))
    } else {
        (PALETTE[idx % PALETTE.len()].to_string(), Dash::nth(idx / PALETTE.len()))
    }
}

fn label(scheme: &str, runs: usize, name: &str) -> String {
    if runs > 1 {
        format!("{scheme} {name}")
    } else {
        name.to_string()
    }
}

/// Time unit for the x axis: ms for long spans, else us. Returns (divisor of us, unit name).
fn time_unit(span: Time) -> (f64, &'static str) {
    if to_us(span) >= 5_000.0 {
        (1_000.0, "ms")
    } else {
        (1.0, "us")
    }
}

/// Average and p99 slowdown per group of flows of equal count (by the
/// largest size in the group), as two panels with one line per scheme.
pub fn slowdown_figure(runs: &[(String, &RunResult)]) -> Figure {
    let per_group =
        runs.iter().map(|(_, r)| r.flows.iter().filter(|f| f.slowdown.is_some()).count()).max().unwrap_or(0)
            / SLOWDOWN_GROUPS.max(1);
    let panel = |title: &str, pick: fn(&ccsim_core::results::Stats) -> f64| {
        let mut c = Chart::new(title, "flow size (largest in group)", "FCT slowdown");
        c.x_scale = Scale::Log;
        c.x_format = TickFormat::Bytes;
        c.y_scale = Scale::Log;
        c.y_from_zero = false;
        for (i, (scheme, r)) in runs.iter().enumerate() {
            let points = r.count_buckets(SLOWDOWN_GROUPS).iter().map(|(size, st)| (*size as f64, pick(st))).collect();
            c.series.push(Series {
                label: scheme.clone(),
                color: PALETTE[i % PALETTE.len()].to_string(),
                dash: Dash::nth(i),
                markers: true,
                points,
            });
        }
        c
    };
    let p99 = if per_group < 100 {
        format!("99th percentile (~{per_group} flows per group: near the maximum)")
    } else {
        "99th percentile".to_string()
    };
    Figure {
        id: "slowdown".into(),
        title: format!("FCT slowdown by flow size ({SLOWDOWN_GROUPS} groups of equal flow count)"),
        panels: vec![panel("average", |s| s.avg), panel(&p99, |s| s.p99)],
        width: 1100,
        height: 500,
    }
}

/// Named time series of one run: (name, sample times, values).
pub type NamedSeries = Vec<(String, Vec<Time>, Vec<f64>)>;

/// What a time chart shows on its y axis.
#[derive(Clone, Copy, Debug)]
pub struct YAxis<'a> {
    pub label: &'a str,
    /// Multiplies the values.
    pub scale: f64,
    pub format: TickFormat,
}

impl<'a> YAxis<'a> {
    pub fn number(label: &'a str, scale: f64) -> YAxis<'a> {
        YAxis { label, scale, format: TickFormat::Number }
    }
    pub fn bytes(label: &'a str) -> YAxis<'a> {
        YAxis { label, scale: 1.0, format: TickFormat::Bytes }
    }
}

/// Generic over-time chart of named series drawn from every run; one run's
/// chart names its scheme in the title; `opts.window` limits the time axis.
pub fn time_chart(
    runs: &[(String, &RunResult)],
    title: &str,
    y: YAxis,
    series_of: impl Fn(&RunResult) -> NamedSeries,
    opts: &PlotOptions,
) -> Chart {
    let all: Vec<NamedSeries> = runs.iter().map(|(_, r)| series_of(r)).collect();
    let max_t = all.iter().flatten().flat_map(|s| s.1.last().copied()).max().unwrap_or(0);
    let (div, unit) = time_unit(opts.window.map_or(max_t, |(a, b)| b.saturating_sub(a)));
    let title = match runs {
        [(scheme, _)] => format!("{scheme}: {title}"),
        _ => title.to_string(),
    };
    let mut c = Chart::new(&title, &format!("time ({unit})"), y.label);
    c.y_format = y.format;
    c.x_range = opts.window.map(|(a, b)| (to_us(a) / div, to_us(b) / div));
    for (i, ((scheme, _), list)) in runs.iter().zip(&all).enumerate() {
        for (j, (name, t, v)) in list.iter().enumerate() {
            let in_window = |t: Time| opts.window.is_none_or(|(a, b)| t >= a && t <= b);
            let pts: Vec<(f64, f64)> =
                t.iter().zip(v).filter(|(t, _)| in_window(**t)).map(|(&t, &v)| (to_us(t) / div, v * y.scale)).collect();
            let (color, dash) = style(i, runs.len(), j);
            c.series.push(Series {
                label: label(scheme, runs.len(), name),
                color,
                dash,
                markers: false,
                points: decimate(&pts, MAX_POINTS),
            });
        }
    }
    c
}

/// One series per traced port of a run (all, or those named in `only`).
pub fn port_series(list: &[ccsim_core::results::Series], only: Option<&[String]>, opts: &PlotOptions) -> NamedSeries {
    list.iter()
        .filter(|s| only.is_none_or(|p| p.contains(&s.name)))
        .map(|s| (opts.port_name(&s.name), s.t.clone(), s.v.clone()))
        .collect()
}

pub fn queue_chart(runs: &[(String, &RunResult)], opts: &PlotOptions) -> Chart {
    time_chart(runs, "Egress queue length", YAxis::bytes("queue"), |r| port_series(&r.queues, None, opts), opts)
}

pub fn utilization_chart(runs: &[(String, &RunResult)], opts: &PlotOptions) -> Chart {
    let mut c = time_chart(
        runs,
        "Link utilization",
        YAxis::number("utilization (%)", 100.0),
        |r| port_series(&r.utilization, None, opts),
        opts,
    );
    c.series.iter_mut().for_each(|s| s.points.iter_mut().for_each(|p| p.1 = p.1.min(100.0)));
    c
}

/// The pacing rate each scheme set (for window-based schemes it can stay at
/// line rate while the window limits what is sent: see [`throughput_chart`]).
pub fn rate_chart(runs: &[(String, &RunResult)], opts: &PlotOptions) -> Chart {
    time_chart(
        runs,
        "Pacing rate set by the scheme",
        YAxis::number("pacing rate (Gbps)", 1e-9),
        |r| r.flow_traces.iter().map(|f| (format!("flow {}", f.flow), f.t.clone(), f.rate_bps.clone())).collect(),
        opts,
    )
}

/// Sending rate as a fraction of each flow's NIC line rate (the OSCAR
/// slides' "rate normalized to link capacity").
pub fn rate_norm_chart(runs: &[(String, &RunResult)], opts: &PlotOptions) -> Chart {
    time_chart(
        runs,
        "Pacing rate / line rate",
        YAxis::number("pacing rate / line rate", 1.0),
        |r| {
            r.flow_traces
                .iter()
                .map(|f| {
                    let c = if f.line_rate_bps > 0.0 { f.line_rate_bps } else { 1.0 };
                    (format!("flow {}", f.flow), f.t.clone(), f.rate_bps.iter().map(|v| v / c).collect())
                })
                .collect()
        },
        opts,
    )
}

/// Per-flow throughput: acknowledged payload over a trailing `window`
/// (at least one sampling interval), what a flow actually delivered.
pub fn throughput(tr: &ccsim_core::results::FlowTrace, window: Time) -> (Vec<Time>, Vec<f64>) {
    let mut t = Vec::new();
    let mut v = Vec::new();
    let mut j = 0;
    for i in 1..tr.t.len() {
        while j + 1 < i && tr.t[i] - tr.t[j + 1] >= window {
            j += 1;
        }
        let dt = tr.t[i] - tr.t[j];
        if dt > 0 {
            t.push(tr.t[i]);
            v.push((tr.acked[i] - tr.acked[j]) * 8.0 / (dt as f64 / 1e12));
        }
    }
    (t, v)
}

/// The averaging window of throughput charts: 5 sampling intervals, at least 5 us.
pub fn throughput_window(r: &RunResult) -> Time {
    let step = r.flow_traces.first().and_then(|f| (f.t.len() > 1).then(|| f.t[1] - f.t[0])).unwrap_or(0);
    (5 * step).max(5_000_000)
}

/// What each flow delivered (acknowledged payload over [`throughput_window`]).
pub fn throughput_chart(runs: &[(String, &RunResult)], opts: &PlotOptions) -> Chart {
    let w = runs.iter().map(|(_, r)| throughput_window(r)).max().unwrap_or(5_000_000);
    time_chart(
        runs,
        &format!("Delivered throughput (acked payload over {} us)", to_us(w)),
        YAxis::number("throughput (Gbps)", 1e-9),
        |r| {
            r.flow_traces
                .iter()
                .map(|f| {
                    let (t, v) = throughput(f, w);
                    (format!("flow {}", f.flow), t, v)
                })
                .collect()
        },
        opts,
    )
}

/// Writes slowdown, and queues / utilization / rates / rates_norm /
/// throughput when any run traced them: SVG always (the HTML page shows
/// it), and the other formats of `opts`.
/// When the runs ended: the latest end of simulated time (`engine.sim_end`)
/// or traced sample.
fn runs_end(runs: &[(String, &RunResult)]) -> Time {
    let traced = |r: &RunResult| {
        let ports = r.queues.iter().chain(&r.utilization).filter_map(|s| s.t.last().copied());
        ports.chain(r.flow_traces.iter().filter_map(|f| f.t.last().copied())).max().unwrap_or(0)
    };
    runs.iter().map(|(_, r)| r.engine.sim_end.max(traced(r))).max().unwrap_or(0)
}

/// A time window (`--window`) that starts at or after the end of every run
/// would draw empty time charts: the warning naming the window and the
/// run's end. [`write_all`] then draws the whole run.
pub fn window_after_run(window: Option<(Time, Time)>, runs: &[(String, &RunResult)]) -> Option<String> {
    let (from, to) = window?;
    let end = runs_end(runs);
    if runs.is_empty() || from < end {
        return None;
    }
    let fmt = ccsim_scenario::fmt_time;
    let to = if to == Time::MAX { String::new() } else { fmt(to) };
    Some(format!(
        "the chart window {}..{to} starts after the run ended at {}: the charts show the whole run",
        fmt(from),
        fmt(end)
    ))
}

pub fn write_all(dir: &Path, runs: &[(String, &RunResult)], opts: &PlotOptions) -> io::Result<()> {
    // a window wholly after the run would leave every time chart empty
    let whole;
    let opts = if window_after_run(opts.window, runs).is_some() {
        whole = PlotOptions { window: None, ..opts.clone() };
        &whole
    } else {
        opts
    };
    let formats = opts.with_svg();
    let write = |stem: &str, svg: String| export::write(dir, stem, &svg, &formats);
    let mut slow = slowdown_figure(runs);
    if let [(scheme, _)] = runs {
        slow.title = format!("{scheme}: {}", slow.title);
    }
    write("slowdown", slow.render())?;
    if runs.iter().any(|(_, r)| !r.queues.is_empty()) {
        write("queues", queue_chart(runs, opts).render())?;
    }
    if runs.iter().any(|(_, r)| !r.utilization.is_empty()) {
        write("utilization", utilization_chart(runs, opts).render())?;
    }
    if runs.iter().any(|(_, r)| !r.flow_traces.is_empty()) {
        write("rates", rate_chart(runs, opts).render())?;
        write("rates_norm", rate_norm_chart(runs, opts).render())?;
        write("throughput", throughput_chart(runs, opts).render())?;
    }
    Ok(())
}

/// Most jobs drawn in `jobs.svg` (the first ones by workload entry): each
/// takes one or two panels side by side.
pub const MAX_JOB_PANELS: usize = 4;

/// Iteration and collective times per job (`jobs[run]` = that run's jobs,
/// [`crate::metrics::jobs::jobs`]): per job a panel of its iterations' times
/// (x = iteration, one line per scheme) and, when an iteration holds several
/// collectives, a panel of each collective's time in the order they ran.
/// None without a job of several iterations or collectives.
pub fn jobs_figure(runs: &[(String, &RunResult)], jobs: &[Vec<crate::metrics::jobs::Job>]) -> Option<Figure> {
    let first = jobs.iter().find(|j| !j.is_empty())?;
    let mut panels = Vec::new();
    for (k, job) in first.iter().enumerate() {
        // one iteration and no collectives (an RPC workload): nothing to draw
        if job.iterations_us.len() < 2 && job.collectives.len() < 2 {
            continue;
        }
        let series = |pick: &dyn Fn(&crate::metrics::jobs::Job) -> Vec<(f64, f64)>| -> Vec<Series> {
            runs.iter()
                .enumerate()
                .filter_map(|(i, (scheme, _))| {
                    let j = jobs.get(i)?.get(k)?;
                    Some(Series {
                        label: scheme.clone(),
                        color: PALETTE[i % PALETTE.len()].to_string(),
                        dash: Dash::nth(i),
                        markers: true,
                        points: pick(j),
                    })
                })
                .collect()
        };
        let w = job.workload;
        let mut c = Chart::new(&format!("workload[{w}]: iterations"), "iteration", "time (us)");
        c.series =
            series(&|j| j.iterations_us.iter().enumerate().map(|(i, t)| (i as f64, t.unwrap_or(f64::NAN))).collect());
        c.x_categories = numbered(job.iterations_us.len());
        panels.push(c);
        let per_iteration = job.collectives.len() as f64 / job.iterations_us.len().max(1) as f64;
        if per_iteration > 1.0 {
            let mut c =
                Chart::new(&format!("workload[{w}]: collectives"), "collective (in the order they ran)", "time (us)");
            c.series = series(&|j| {
                j.collectives.iter().enumerate().map(|(i, x)| (i as f64, x.time_us.unwrap_or(f64::NAN))).collect()
            });
            c.x_categories = numbered(job.collectives.len());
            panels.push(c);
        }
        if panels.len() >= MAX_JOB_PANELS {
            break;
        }
    }
    if panels.is_empty() {
        return None;
    }
    let n = panels.len() as u32;
    Some(Figure {
        id: "jobs".into(),
        title: "Job times: each iteration's communication (first release to last completion), each collective's".into(),
        panels,
        width: 550 * n.max(2),
        height: 460,
    })
}

/// Names 1..=n for a categorical x axis (x = 0..n-1), or None past 24
/// (then x is left as a number: the position from 0).
fn numbered(n: usize) -> Option<Vec<String>> {
    (n <= 24).then(|| (1..=n).map(|i| i.to_string()).collect())
}

/// Writes `jobs.svg` (and the other `opts.formats`) when `scn` has jobs.
pub fn write_jobs(
    dir: &Path,
    scn: &ccsim_scenario::Scenario,
    runs: &[(String, &RunResult)],
    opts: &PlotOptions,
) -> io::Result<()> {
    let jobs: Vec<_> = runs.iter().map(|(_, r)| crate::metrics::jobs::jobs(scn, r)).collect();
    let Some(fig) = jobs_figure(runs, &jobs) else { return Ok(()) };
    let formats = opts.with_svg();
    export::write(dir, "jobs", &fig.render(), &formats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::sample_result;
    use crate::testing::valid_svg as parse;

    #[test]
    fn throughput_is_the_slope_of_acked_bytes() {
        let tr = ccsim_core::results::FlowTrace {
            flow: 0,
            t: vec![0, 10_000_000, 20_000_000, 30_000_000],
            acked: vec![0.0, 125_000.0, 187_500.0, 187_500.0],
            ..Default::default()
        };
        // one interval: the slope between samples
        let (t, v) = throughput(&tr, 10_000_000);
        assert_eq!(t, vec![10_000_000, 20_000_000, 30_000_000]);
        for (got, want) in v.iter().zip([100e9, 50e9, 0.0]) {
            assert!((got - want).abs() < 1.0, "{got} vs {want}");
        }
        // two intervals: averaged over the trailing 20 us once there are two
        let (_, v) = throughput(&tr, 20_000_000);
        for (got, want) in v.iter().zip([100e9, 75e9, 25e9]) {
            assert!((got - want).abs() < 1.0, "{got} vs {want}");
        }
    }

    #[test]
    fn slowdown_has_an_average_and_a_p99_panel_with_a_line_per_scheme() {
        let a = sample_result(0.5);
        let b = sample_result(2.0);
        let f = slowdown_figure(&[("dcqcn".into(), &a), ("hpcc".into(), &b)]);
        assert_eq!(f.panels.len(), 2);
        assert!(f.panels[0].title.contains("average") && f.panels[1].title.starts_with("99th"));
        // 100 flows in 20 groups: the p99 panel says it is near the maximum
        assert!(f.panels[1].title.contains("~5 flows per group"), "{}", f.panels[1].title);
        for p in &f.panels {
            assert_eq!(p.series.len(), 2);
            assert_eq!(p.series[0].label, "dcqcn");
            assert_ne!(p.series[0].color, p.series[1].color);
            assert_eq!(p.series[0].points.len(), SLOWDOWN_GROUPS);
            // the last group holds the largest flows
            assert_eq!(p.series[0].points.last().unwrap().0, 100_000.0);
        }
        // p99 >= average in every group
        for (avg, p99) in f.panels[0].series[1].points.iter().zip(&f.panels[1].series[1].points) {
            assert!(p99.1 >= avg.1);
        }
        parse(&f.render()).unwrap();
    }

    #[test]
    fn normalized_rates_divide_by_the_line_rate() {
        let r = sample_result(0.0);
        let c = rate_norm_chart(&[("x".into(), &r)], &PlotOptions::default());
        let ys: Vec<f64> = c.series[0].points.iter().map(|p| p.1).collect();
        assert_eq!(ys, vec![1.0, 0.5]);
    }

    #[test]
    fn ports_are_named_by_node_kind() {
        let opts = PlotOptions { nodes: vec![NodeKind::Host, NodeKind::Host, NodeKind::Switch], ..Default::default() };
        assert_eq!(opts.port_name("2:0"), "s2→h0");
        assert_eq!(opts.port_name("7:1"), "7→h1");
        assert_eq!(PlotOptions::default().port_name("2:3"), "2→3");
    }

    #[test]
    fn a_window_keeps_only_its_samples() {
        let a = sample_result(1.0);
        let opts = PlotOptions {
            window: Some((100 * ccsim_core::time::US, 200 * ccsim_core::time::US)),
            ..Default::default()
        };
        let q = queue_chart(&[("hpcc".into(), &a)], &opts);
        let xs: Vec<f64> = q.series[0].points.iter().map(|p| p.0).collect();
        assert_eq!(xs.first(), Some(&100.0));
        assert_eq!(xs.last(), Some(&200.0));
        assert_eq!(q.x_range, Some((100.0, 200.0)));
    }

    /// A window wholly after the run (issue 32: empty charts) is named with
    /// the run's end, and the charts show the whole run instead.
    #[test]
    fn a_window_after_the_run_draws_the_whole_run_and_says_so() {
        use ccsim_core::time::{MS, US};
        let mut a = sample_result(1.0);
        a.engine.sim_end = 500 * US;
        let runs = [("hpcc".to_string(), &a)];
        let note = window_after_run(Some((50 * MS, 60 * MS)), &runs).unwrap();
        assert!(note.contains("50ms..60ms") && note.contains("500us"), "{note}");
        let note = window_after_run(Some((50 * MS, Time::MAX)), &runs).unwrap();
        assert!(note.contains("50ms..") && note.contains("500us"), "{note}");
        assert_eq!(window_after_run(Some((100 * US, 60 * MS)), &runs), None);
        assert_eq!(window_after_run(None, &runs), None);
        let opts = PlotOptions { window: Some((50 * MS, 60 * MS)), ..Default::default() };
        let t = ccsim_scenario::testutil::TempDir::new("plots-window");
        write_all(t.path(), &runs, &opts).unwrap();
        let text = std::fs::read_to_string(t.path().join("queues.svg")).unwrap();
        let whole = queue_chart(&runs, &PlotOptions::default());
        assert!(!whole.series[0].points.is_empty());
        assert_eq!(text, whole.render(), "the whole run is drawn");
    }

    #[test]
    fn time_charts_scale_values_and_write_every_format() {
        let a = sample_result(1.0);
        let opts = PlotOptions { formats: Format::available_all(), ..Default::default() };
        let q = queue_chart(&[("hpcc".into(), &a)], &opts);
        assert_eq!(q.series[0].label, "2→3");
        assert_eq!(q.series[0].points[2], (20.0, 2000.0)); // 20 us, 2000 B
        assert_eq!(q.y_format, TickFormat::Bytes);
        let r = rate_chart(&[("hpcc".into(), &a)], &opts);
        assert_eq!(r.series[0].points[1], (10.0, 50.0));
        let t = ccsim_scenario::testutil::TempDir::new("plots");
        write_all(t.path(), &[("hpcc".into(), &a)], &opts).unwrap();
        for f in ["slowdown", "queues", "rates", "rates_norm", "throughput"] {
            let text = std::fs::read_to_string(t.path().join(format!("{f}.svg"))).unwrap();
            parse(&text).unwrap();
            for fmt in [Format::Png, Format::Pdf] {
                let path = t.path().join(format!("{f}.{}", fmt.ext()));
                assert_eq!(path.exists(), fmt.available(), "{}", path.display());
            }
        }
        assert!(!t.path().join("utilization.svg").exists());
    }
}
