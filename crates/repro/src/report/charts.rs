//! Charts of a report: per claim (paper vs measured bars, or lines along a
//! sweep), per sensitivity sweep, and the paper's figures redrawn from the
//! runs (time series, slowdown by size, CDFs, bars of a metric).

use ccsim_core::results::RunResult;
use ccsim_core::time::Time;
use ccsim_scenario::Scenario;

use crate::chart::{decimate, BarChart, Bars, Chart, Dash, Scale, Series, PALETTE};
use crate::manifest::{value_text, Figure};
use crate::metrics;
use crate::plots::{self, port_series, time_chart, PlotOptions, YAxis};
use crate::verdict::{fmt_num, ClaimEval, PaperValue, Row, SensitivityEval};

const PAPER_COLOR: &str = "#555555";
const MEASURED_COLOR: &str = "#1f77b4";

/// x positions of sweep values: the numbers themselves, or 0, 1, 2, ...
/// with the values' names for a categorical axis (booleans, strings,
/// sizes such as "16KiB", tables).
fn xs(values: &[Option<toml::Value>]) -> (Vec<f64>, Option<Vec<String>>) {
    let nums: Option<Vec<f64>> = values
        .iter()
        .map(|v| v.as_ref().and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64))))
        .collect();
    match nums {
        Some(n) => (n, None),
        None => (
            (0..values.len()).map(|i| i as f64).collect(),
            Some(values.iter().map(|v| v.as_ref().map_or("-".to_string(), value_text)).collect()),
        ),
    }
}

/// A relative claim is judged on its changes ("a/b" rows, in %): chart
/// those alone, so that one axis never holds both a quantity and a change.
fn judged_rows<'a>(rows: &'a [Row], unit: &str) -> (Vec<&'a Row>, String) {
    let unit = if unit.is_empty() { "value" } else { unit };
    if rows.iter().any(|r| r.name.contains('/')) {
        (rows.iter().filter(|r| r.name.contains('/')).collect(), "change (%)".into())
    } else {
        (rows.iter().collect(), unit.to_string())
    }
}

fn paper_mid(p: &Option<PaperValue>) -> Option<f64> {
    match p {
        Some(PaperValue::Number(x)) => Some(*x),
        Some(PaperValue::Range(a, b)) => Some((a + b) / 2.0),
        None => None,
    }
}

/// Log y when the positive values span more than two decades.
fn y_scale(values: impl Iterator<Item = f64>) -> Scale {
    let v: Vec<f64> = values.filter(|x| x.is_finite()).collect();
    if v.is_empty() || v.iter().any(|&x| x <= 0.0) {
        return Scale::Linear;
    }
    let (lo, hi) = v.iter().fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    if hi / lo > 100.0 {
        Scale::Log
    } else {
        Scale::Linear
    }
}

/// The bars of one point's rows: paper (hatched, with the range as
/// whiskers) and measured (mean, with min..max over seeds as whiskers).
fn bars_of(id: &str, title: &str, unit: &str, rows: &[&Row]) -> BarChart {
    let groups = rows.iter().map(|r| r.name.clone()).collect();
    let mut c = BarChart::new(id, title, if unit.is_empty() { "value" } else { unit }, groups);
    let paper = Bars {
        label: "paper".into(),
        color: PAPER_COLOR.into(),
        outlined: true,
        values: rows.iter().map(|r| paper_mid(&r.paper)).collect(),
        ranges: rows
            .iter()
            .map(|r| match r.paper {
                Some(PaperValue::Range(a, b)) => Some((a, b)),
                _ => None,
            })
            .collect(),
    };
    let measured = Bars {
        label: "ccsim".into(),
        color: MEASURED_COLOR.into(),
        outlined: false,
        values: rows.iter().map(|r| r.measured.mean).collect(),
        ranges: rows.iter().map(|r| (r.measured.n > 1).then_some((r.measured.min, r.measured.max))).collect(),
    };
    c.y_scale = y_scale(paper.values.iter().chain(&measured.values).flatten().copied());
    if paper.values.iter().any(|v| v.is_some()) {
        c.series.push(paper);
    }
    c.series.push(measured);
    c
}

/// The chart of a claim: bars for one point, lines along a sweep.
pub fn claim_chart(id: &str, title: &str, unit: &str, sweep_label: &str, e: &ClaimEval) -> Option<String> {
    if e.points.is_empty() {
        return None;
    }
    if e.points.len() == 1 {
        let (rows, unit) = judged_rows(&e.points[0].rows, unit);
        return Some(bars_of(id, title, &unit, &rows).render());
    }
    let (x, cats) = xs(&e.points.iter().map(|p| p.x.clone()).collect::<Vec<_>>());
    let (rows, unit) = judged_rows(&e.points[0].rows, unit);
    let mut c = Chart::new(title, sweep_label, &unit);
    c.id = id.to_string();
    c.x_categories = cats;
    let names: Vec<String> = rows.iter().map(|r| r.name.clone()).collect();
    for (k, name) in names.iter().enumerate() {
        let color = PALETTE[k % PALETTE.len()].to_string();
        let row_at = |i: usize| e.points[i].rows.iter().find(|r| &r.name == name);
        let measured: Vec<(f64, f64)> =
            (0..e.points.len()).filter_map(|i| row_at(i).and_then(|r| r.measured.mean).map(|v| (x[i], v))).collect();
        let paper: Vec<(f64, f64)> = (0..e.points.len())
            .filter_map(|i| row_at(i).and_then(|r| paper_mid(&r.paper)).map(|v| (x[i], v)))
            .collect();
        c.series.push(Series {
            label: format!("{name} ccsim"),
            color: color.clone(),
            dash: Dash::Solid,
            markers: true,
            points: measured,
        });
        if !paper.is_empty() {
            c.series.push(Series {
                label: format!("{name} paper"),
                color,
                dash: Dash::Dashed,
                markers: true,
                points: paper,
            });
        }
    }
    c.y_scale = y_scale(c.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)));
    c.y_from_zero = c.y_scale == Scale::Linear;
    Some(c.render())
}

/// A sensitivity sweep: the claim's (first point) value per setting value, per scheme.
pub fn sensitivity_chart(id: &str, title: &str, unit: &str, s: &SensitivityEval) -> String {
    let (x, cats) = xs(&s.values.iter().cloned().map(Some).collect::<Vec<_>>());
    let first: &[Row] = s.rows.first().and_then(|p| p.first()).map(|r| r.as_slice()).unwrap_or(&[]);
    let (rows, unit) = judged_rows(first, unit);
    let mut c = Chart::new(title, &s.key, &unit);
    c.id = id.to_string();
    c.x_categories = cats;
    let names: Vec<String> = rows.iter().map(|r| r.name.clone()).collect();
    for (k, name) in names.iter().enumerate() {
        let points: Vec<(f64, f64)> = s
            .rows
            .iter()
            .enumerate()
            .filter_map(|(i, pts)| pts.first()?.iter().find(|r| &r.name == name)?.measured.mean.map(|v| (x[i], v)))
            .collect();
        c.series.push(Series {
            label: name.clone(),
            color: PALETTE[k % PALETTE.len()].into(),
            dash: Dash::Solid,
            markers: true,
            points,
        });
    }
    c.y_scale = y_scale(c.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)));
    c.y_from_zero = c.y_scale == Scale::Linear;
    c.render()
}

/// A run of a figure: scheme name, its result and scenario.
pub type FigRun<'a> = (String, &'a RunResult, &'a Scenario);

fn ports_param(f: &Figure) -> Option<Vec<String>> {
    if let Some(p) = f.params.get("port").and_then(|v| v.as_str()) {
        return Some(vec![p.to_string()]);
    }
    f.params
        .get("ports")
        .and_then(|v| v.as_array())
        .map(|a| a.iter().filter_map(|x| x.as_str().map(String::from)).collect())
}

fn flows_param(f: &Figure) -> Option<Vec<u32>> {
    f.params
        .get("flows")
        .and_then(|v| v.as_array())
        .map(|a| a.iter().filter_map(|x| x.as_integer().map(|i| i as u32)).collect())
}

fn cdf_chart(id: &str, title: &str, x_label: &str, runs: &[FigRun], values: impl Fn(&RunResult) -> Vec<f64>) -> Chart {
    let mut c = Chart::new(title, x_label, "fraction of samples (CDF)");
    c.id = id.into();
    c.x_scale = Scale::Log;
    for (i, (name, r, _)) in runs.iter().enumerate() {
        let mut v = values(r);
        v.sort_by(|a, b| a.total_cmp(b));
        let n = v.len() as f64;
        let pts: Vec<(f64, f64)> = v.iter().enumerate().map(|(k, &x)| (x, (k + 1) as f64 / n)).collect();
        c.series.push(Series {
            label: name.clone(),
            color: PALETTE[i % PALETTE.len()].into(),
            dash: Dash::Solid,
            markers: false,
            points: decimate(&pts, 1200),
        });
    }
    c
}

/// A figure's time window: `from` and `to` durations (either may be left out).
fn figure_window(f: &Figure) -> Result<Option<(Time, Time)>, String> {
    let get = |k: &str| -> Result<Option<Time>, String> {
        match f.params.get(k) {
            None => Ok(None),
            Some(v) => v
                .as_str()
                .and_then(|s| ccsim_core::units::parse_dur(s).ok())
                .map(Some)
                .ok_or_else(|| format!("figure '{}': {k} = {v}: expected a duration such as \"500us\"", f.id)),
        }
    };
    match (get("from")?, get("to")?) {
        (None, None) => Ok(None),
        (a, b) => {
            let (a, b) = (a.unwrap_or(0), b.unwrap_or(Time::MAX));
            if b <= a {
                return Err(format!("figure '{}': from must come before to", f.id));
            }
            Ok(Some((a, b)))
        }
    }
}

/// Draws a figure from seed-1 runs of its schemes.
pub fn figure_chart(id: &str, f: &Figure, runs: &[FigRun]) -> Result<String, String> {
    let pairs: Vec<(String, &RunResult)> = runs.iter().map(|(n, r, _)| (n.clone(), *r)).collect();
    let ports = ports_param(f);
    let only = ports.as_deref();
    let flows = flows_param(f);
    let opts = PlotOptions {
        nodes: runs.first().map(|r| r.2.topo.nodes.clone()).unwrap_or_default(),
        window: figure_window(f)?,
        ..Default::default()
    };
    let opts = &opts;
    let keep_flow = |id: u32| flows.as_ref().is_none_or(|v| v.contains(&id));
    let mut chart = match f.kind.as_str() {
        "queue_series" => {
            time_chart(&pairs, &f.title, YAxis::bytes("queue"), |r| port_series(&r.queues, only, opts), opts)
        }
        "utilization_series" => time_chart(
            &pairs,
            &f.title,
            YAxis::number("utilization (%)", 100.0),
            |r| port_series(&r.utilization, only, opts),
            opts,
        ),
        "rate_series" => time_chart(
            &pairs,
            &f.title,
            YAxis::number("pacing rate (Gbps)", 1e-9),
            |r| {
                r.flow_traces
                    .iter()
                    .filter(|t| keep_flow(t.flow))
                    .map(|t| (format!("flow {}", t.flow), t.t.clone(), t.rate_bps.clone()))
                    .collect()
            },
            opts,
        ),
        "window_series" => time_chart(
            &pairs,
            &f.title,
            YAxis::bytes("window"),
            |r| {
                r.flow_traces
                    .iter()
                    .filter(|t| keep_flow(t.flow))
                    .map(|t| {
                        (
                            format!("flow {}", t.flow),
                            t.t.clone(),
                            t.window.iter().map(|&w| if w > 1e15 { f64::NAN } else { w }).collect(),
                        )
                    })
                    .collect()
            },
            opts,
        ),
        "throughput_series" => {
            let w: Time = f
                .params
                .get("window")
                .and_then(|v| v.as_str())
                .and_then(|s| ccsim_core::units::parse_dur(s).ok())
                .unwrap_or_else(|| pairs.iter().map(|(_, r)| plots::throughput_window(r)).max().unwrap_or(5_000_000));
            time_chart(
                &pairs,
                &f.title,
                YAxis::number("delivered throughput (Gbps)", 1e-9),
                |r| {
                    r.flow_traces
                        .iter()
                        .filter(|t| keep_flow(t.flow))
                        .map(|t| {
                            let (ts, v) = plots::throughput(t, w);
                            (format!("flow {}", t.flow), ts, v)
                        })
                        .collect()
                },
                opts,
            )
        }
        "slowdown_by_size" => {
            let mut fig = plots::slowdown_figure(&pairs);
            fig.title = f.title.clone();
            fig.id = id.to_string();
            return Ok(fig.render());
        }
        "slowdown_cdf" => {
            cdf_chart(id, &f.title, "FCT slowdown", runs, |r| r.flows.iter().filter_map(|x| x.slowdown).collect())
        }
        "fct_cdf" => cdf_chart(id, &f.title, "FCT (us)", runs, |r| {
            r.flows.iter().filter_map(|x| x.fct.map(|t| t as f64 / 1e6)).collect()
        }),
        "rtt_cdf" if runs.iter().all(|x| x.1.rtt.is_some()) => {
            let mut c = Chart::new(&f.title, "RTT (us)", "fraction of RTT samples (CDF)");
            c.x_scale = Scale::Log;
            for (i, (name, r, _)) in runs.iter().enumerate() {
                let h = r.rtt.as_ref().expect("checked");
                let n = h.total().max(1) as f64;
                let mut seen = 0u64;
                let mut pts = Vec::new();
                for (k, &cnt) in h.counts.iter().enumerate().filter(|x| *x.1 > 0) {
                    seen += cnt;
                    pts.push((ccsim_core::results::RttHistogram::value_of(k) / 1e6, seen as f64 / n));
                }
                c.series.push(Series {
                    label: name.clone(),
                    color: PALETTE[i % PALETTE.len()].into(),
                    dash: Dash::Solid,
                    markers: false,
                    points: pts,
                });
            }
            c
        }
        "rtt_cdf" => cdf_chart(id, &f.title, "RTT (us)", runs, |r| {
            r.flow_traces
                .iter()
                .filter(|t| keep_flow(t.flow))
                .flat_map(|t| t.acks.iter().map(|&(s, a)| (a - s) as f64 / 1e6))
                .collect()
        }),
        "bars" => {
            let (metric, params) = f.bars_metric().ok_or("a bars figure names a metric")?;
            let unit = f.params.get("unit").and_then(|u| u.as_str()).unwrap_or("");
            let from = metrics::unit_of(&metric, &params);
            let mut rows = Vec::new();
            for (name, r, scn) in runs {
                let v = metrics::compute(&metric, &params, &metrics::Ctx { r, scn })?;
                let v = v.map(|x| metrics::convert(from, unit, x, &params)).transpose()?;
                rows.push(Row {
                    name: name.clone(),
                    paper: None,
                    measured: crate::verdict::Measured { mean: v, n: 1, ..Default::default() },
                });
            }
            let refs: Vec<&Row> = rows.iter().collect();
            let label = if unit.is_empty() { metric.clone() } else { format!("{metric} ({unit})") };
            return Ok(bars_of(id, &f.title, &label, &refs).render());
        }
        k => return Err(format!("figure kind '{k}' cannot be drawn")),
    };
    chart.id = id.to_string();
    if chart.series.iter().all(|s| s.points.is_empty()) {
        return Err(format!(
            "figure '{}': the runs recorded nothing to draw (trace the ports/flows it shows in {})",
            f.id, f.scenario
        ));
    }
    Ok(chart.render())
}

/// A table cell for a measured value: "mean ± std (min-max) [k of n]".
pub fn measured_text(r: &Row) -> String {
    let m = &r.measured;
    let total = m.n + m.undefined + m.errors.len();
    let mut s = match m.mean {
        None if m.undefined > 0 => "never".to_string(),
        None if !m.errors.is_empty() => "error".to_string(),
        None => "-".to_string(),
        Some(v) if m.n > 1 => {
            let ci =
                m.interval().map(|(a, b)| format!("; 95% CI {} to {}", fmt_num(a), fmt_num(b))).unwrap_or_default();
            format!("{} ± {} ({} to {}{ci})", fmt_num(v), fmt_num(m.std), fmt_num(m.min), fmt_num(m.max))
        }
        Some(v) => fmt_num(v),
    };
    if total > 1 && (m.undefined > 0 || !m.errors.is_empty()) {
        s.push_str(&format!(" [{} of {total} seeds defined]", m.n));
    } else if total > 1 {
        s.push_str(&format!(" [{total} seeds]"));
    }
    s
}
