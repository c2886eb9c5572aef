//! The charts written with every result: slowdown by flow size, and when
//! traced, queue length, link utilization and flow rates over time. With
//! several schemes (compare) every chart overlays them, one colour per scheme.

use ccsim_core::results::RunResult;
use ccsim_core::time::{to_us, Time};
use std::io;
use std::path::Path;

use crate::svg::{decimate, Chart, Dash, Scale, Series, PALETTE};

/// Groups of equal flow count in the slowdown chart (HPCC-style).
pub const SLOWDOWN_GROUPS: usize = 20;
/// Most points drawn per time series.
const MAX_POINTS: usize = 800;

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
fn time_unit(max_t: Time) -> (f64, &'static str) {
    if to_us(max_t) >= 5_000.0 {
        (1_000.0, "ms")
    } else {
        (1.0, "us")
    }
}

/// p50/p95/p99 slowdown per group of flows of equal count, by the largest size in the group.
pub fn slowdown_chart(runs: &[(String, &RunResult)]) -> Chart {
    let mut c = Chart::new(
        &format!("FCT slowdown by flow size ({SLOWDOWN_GROUPS} groups of equal flow count)"),
        "flow size (bytes, largest in group)",
        "FCT slowdown",
    );
    c.x_scale = Scale::Log;
    c.y_scale = Scale::Log;
    c.y_from_zero = false;
    for (i, (scheme, r)) in runs.iter().enumerate() {
        let groups = r.count_buckets(SLOWDOWN_GROUPS);
        let color = PALETTE[i % PALETTE.len()].to_string();
        for (name, dash, pick) in [("p50", Dash::Solid, 0usize), ("p95", Dash::Dashed, 1), ("p99", Dash::Dotted, 2)] {
            let points = groups.iter().map(|(size, st)| (*size as f64, [st.p50, st.p95, st.p99][pick])).collect();
            let label = if runs.len() > 1 { format!("{scheme} {name}") } else { name.to_string() };
            c.series.push(Series { label, color: color.clone(), dash, markers: true, points });
        }
    }
    c
}

/// Named time series of one run: (name, sample times, values).
pub type NamedSeries = Vec<(String, Vec<Time>, Vec<f64>)>;

/// Generic over-time chart of named series drawn from every run (`scale`
/// multiplies the values); one run's chart names its scheme in the title.
pub fn time_chart(
    runs: &[(String, &RunResult)],
    title: &str,
    y_label: &str,
    series_of: impl Fn(&RunResult) -> NamedSeries,
    scale: f64,
) -> Chart {
    let all: Vec<NamedSeries> = runs.iter().map(|(_, r)| series_of(r)).collect();
    let max_t = all.iter().flatten().flat_map(|s| s.1.last().copied()).max().unwrap_or(0);
    let (div, unit) = time_unit(max_t);
    let title = match runs {
        [(scheme, _)] => format!("{scheme}: {title}"),
        _ => title.to_string(),
    };
    let mut c = Chart::new(&title, &format!("time ({unit})"), y_label);
    for (i, ((scheme, _), list)) in runs.iter().zip(&all).enumerate() {
        for (j, (name, t, v)) in list.iter().enumerate() {
            let pts: Vec<(f64, f64)> = t.iter().zip(v).map(|(&t, &v)| (to_us(t) / div, v * scale)).collect();
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

pub fn queue_chart(runs: &[(String, &RunResult)]) -> Chart {
    time_chart(
        runs,
        "Egress queue length",
        "queue (KB)",
        |r| r.queues.iter().map(|s| (format!("port {}", s.name), s.t.clone(), s.v.clone())).collect(),
        1e-3,
    )
}

pub fn utilization_chart(runs: &[(String, &RunResult)]) -> Chart {
    let mut c = time_chart(
        runs,
        "Link utilization",
        "utilization (%)",
        |r| r.utilization.iter().map(|s| (format!("port {}", s.name), s.t.clone(), s.v.clone())).collect(),
        100.0,
    );
    c.series.iter_mut().for_each(|s| s.points.iter_mut().for_each(|p| p.1 = p.1.min(100.0)));
    c
}

/// The pacing rate each scheme set (for window-based schemes it can stay at
/// line rate while the window limits what is sent: see [`throughput_chart`]).
pub fn rate_chart(runs: &[(String, &RunResult)]) -> Chart {
    time_chart(
        runs,
        "Pacing rate set by the scheme",
        "pacing rate (Gbps)",
        |r| r.flow_traces.iter().map(|f| (format!("flow {}", f.flow), f.t.clone(), f.rate_bps.clone())).collect(),
        1e-9,
    )
}

/// Sending rate as a fraction of each flow's NIC line rate (the OSCAR
/// slides' "rate normalized to link capacity").
pub fn rate_norm_chart(runs: &[(String, &RunResult)]) -> Chart {
    time_chart(
        runs,
        "Pacing rate / line rate",
        "pacing rate / line rate",
        |r| {
            r.flow_traces
                .iter()
                .map(|f| {
                    let c = if f.line_rate_bps > 0.0 { f.line_rate_bps } else { 1.0 };
                    (format!("flow {}", f.flow), f.t.clone(), f.rate_bps.iter().map(|v| v / c).collect())
                })
                .collect()
        },
        1.0,
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
pub fn throughput_chart(runs: &[(String, &RunResult)]) -> Chart {
    let w = runs.iter().map(|(_, r)| throughput_window(r)).max().unwrap_or(5_000_000);
    time_chart(
        runs,
        &format!("Delivered throughput (acked payload over {} us)", to_us(w)),
        "throughput (Gbps)",
        |r| {
            r.flow_traces
                .iter()
                .map(|f| {
                    let (t, v) = throughput(f, w);
                    (format!("flow {}", f.flow), t, v)
                })
                .collect()
        },
        1e-9,
    )
}

/// Writes slowdown.svg, and queues.svg / utilization.svg / rates.svg /
/// rates_norm.svg / throughput.svg when any run traced them.
pub fn write_all(dir: &Path, runs: &[(String, &RunResult)]) -> io::Result<()> {
    let titled = |mut c: Chart| {
        if let [(scheme, _)] = runs {
            if !c.title.starts_with(scheme.as_str()) {
                c.title = format!("{scheme}: {}", c.title);
            }
        }
        c
    };
    std::fs::write(dir.join("slowdown.svg"), titled(slowdown_chart(runs)).render())?;
    if runs.iter().any(|(_, r)| !r.queues.is_empty()) {
        std::fs::write(dir.join("queues.svg"), queue_chart(runs).render())?;
    }
    if runs.iter().any(|(_, r)| !r.utilization.is_empty()) {
        std::fs::write(dir.join("utilization.svg"), utilization_chart(runs).render())?;
    }
    if runs.iter().any(|(_, r)| !r.flow_traces.is_empty()) {
        std::fs::write(dir.join("rates.svg"), rate_chart(runs).render())?;
        std::fs::write(dir.join("rates_norm.svg"), rate_norm_chart(runs).render())?;
        std::fs::write(dir.join("throughput.svg"), throughput_chart(runs).render())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::svg::tests::check_well_formed;
    use crate::testing::sample_result;

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
    fn slowdown_chart_has_three_percentiles_per_scheme() {
        let a = sample_result(0.5);
        let b = sample_result(2.0);
        let c = slowdown_chart(&[("dcqcn".into(), &a), ("hpcc".into(), &b)]);
        assert_eq!(c.series.len(), 6);
        assert_eq!(c.series[0].label, "dcqcn p50");
        assert_eq!(c.series[3].label, "hpcc p50");
        assert_eq!(c.series[0].points.len(), SLOWDOWN_GROUPS);
        // One colour per scheme.
        assert_eq!(c.series[0].color, c.series[2].color);
        assert_ne!(c.series[0].color, c.series[3].color);
        // The last group holds the largest flows.
        assert_eq!(c.series[0].points.last().unwrap().0, 100_000.0);
        check_well_formed(&c.render()).unwrap();
    }

    #[test]
    fn normalized_rates_divide_by_the_line_rate() {
        let r = sample_result(0.0);
        let c = rate_norm_chart(&[("x".into(), &r)]);
        let ys: Vec<f64> = c.series[0].points.iter().map(|p| p.1).collect();
        assert_eq!(ys, vec![1.0, 0.5]);
    }

    #[test]
    fn time_charts_scale_values_and_write_files() {
        let a = sample_result(1.0);
        let q = queue_chart(&[("hpcc".into(), &a)]);
        assert_eq!(q.series[0].label, "port 2:3");
        assert_eq!(q.series[0].points[2], (20.0, 2.0)); // 20us, 2000 B = 2 KB
        let r = rate_chart(&[("hpcc".into(), &a)]);
        assert_eq!(r.series[0].points[1], (10.0, 50.0));
        let t = ccsim_scenario::testutil::TempDir::new("plots");
        write_all(t.path(), &[("hpcc".into(), &a)]).unwrap();
        for f in ["slowdown.svg", "queues.svg", "rates.svg", "rates_norm.svg", "throughput.svg"] {
            let text = std::fs::read_to_string(t.path().join(f)).unwrap();
            check_well_formed(&text).unwrap();
        }
        assert!(!t.path().join("utilization.svg").exists());
    }
}
