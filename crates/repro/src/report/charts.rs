//! Charts of a report: per claim (paper vs measured bars, or lines along a
//! sweep), per sensitivity sweep, and the paper's figures redrawn from the
//! runs (time series, slowdown by size, CDFs, bars of a metric).

use ccsim_core::results::RunResult;
use ccsim_core::time::Time;
use ccsim_scenario::Scenario;

use crate::manifest::{value_text, Figure};
use crate::metrics;
use crate::plots::{self, time_chart, NamedSeries};
use crate::svg::{BarChart, Bars, Chart, Dash, Scale, Series, PALETTE};
use crate::verdict::{fmt_num, ClaimEval, PaperValue, Row, SensitivityEval};

const PAPER_COLOR: &str = "#555555";
const MEASURED_COLOR: &str = "#1f77b4";

/// x positions of sweep values: the numbers themselves, else 0, 1, 2, ...
fn xs(values: &[Option<toml::Value>]) -> (Vec<f64>, bool) {
    let nums: Option<Vec<f64>> = values
        .iter()
        .map(|v| v.as_ref().and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64))))
        .collect();
    match nums {
        Some(n) => (n, true),
        None => ((0..values.len()).map(|i| i as f64).collect(), false),
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
        hatched: true,
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
        hatched: false,
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
        let rows: Vec<&Row> = e.points[0].rows.iter().collect();
        // a relative claim is judged on its changes: chart those
        let rows: Vec<&Row> = if rows.iter().any(|r| r.name.contains('/')) {
            rows.into_iter().filter(|r| r.name.contains('/')).collect()
        } else {
            rows
        };
        let unit = if e.points[0].rows.iter().any(|r| r.name.contains('/')) { "change (%)" } else { unit };
        return Some(bars_of(id, title, unit, &rows).render());
    }
    let (x, numeric) = xs(&e.points.iter().map(|p| p.x.clone()).collect::<Vec<_>>());
    let mut c = Chart::new(
        title,
        if numeric { sweep_label } else { "sweep point" },
        if unit.is_empty() { "value" } else { unit },
    );
    c.id = id.to_string();
    let names: Vec<String> = e.points[0].rows.iter().map(|r| r.name.clone()).collect();
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
    let (x, numeric) = xs(&s.values.iter().cloned().map(Some).collect::<Vec<_>>());
    let mut c = Chart::new(
        title,
        if numeric { &s.key } else { "setting (see table)" },
        if unit.is_empty() { "value" } else { unit },
    );
    c.id = id.to_string();
    let names: Vec<String> = s
        .rows
        .first()
        .and_then(|p| p.first())
        .map(|rows| rows.iter().map(|r| r.name.clone()).collect())
        .unwrap_or_default();
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
    if !numeric {
        c.title = format!(
            "{} ({})",
            c.title,
            s.values.iter().enumerate().map(|(i, v)| format!("{i}: {}", value_text(v))).collect::<Vec<_>>().join(", ")
        );
    }
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

/// One series per traced port (filtered) of a run.
fn port_series(list: &[ccsim_core::results::Series], ports: &Option<Vec<String>>) -> NamedSeries {
    list.iter()
        .filter(|s| ports.as_ref().is_none_or(|p| p.contains(&s.name)))
        .map(|s| (format!("port {}", s.name), s.t.clone(), s.v.clone()))
        .collect()
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
            points: crate::svg::decimate(&pts, 1200),
        });
    }
    c
}

/// Draws a figure from seed-1 runs of its schemes.
pub fn figure_chart(id: &str, f: &Figure, runs: &[FigRun]) -> Result<String, String> {
    let pairs: Vec<(String, &RunResult)> = runs.iter().map(|(n, r, _)| (n.clone(), *r)).collect();
    let ports = ports_param(f);
    let flows = flows_param(f);
    let keep_flow = |id: u32| flows.as_ref().is_none_or(|v| v.contains(&id));
    let mut chart = match f.kind.as_str() {
        "queue_series" => time_chart(&pairs, &f.title, "queue (KB)", |r| port_series(&r.queues, &ports), 1e-3),
        "utilization_series" => {
            time_chart(&pairs, &f.title, "utilization (%)", |r| port_series(&r.utilization, &ports), 100.0)
        }
        "rate_series" => time_chart(
            &pairs,
            &f.title,
            "pacing rate (Gbps)",
            |r| {
                r.flow_traces
                    .iter()
                    .filter(|t| keep_flow(t.flow))
                    .map(|t| (format!("flow {}", t.flow), t.t.clone(), t.rate_bps.clone()))
                    .collect()
            },
            1e-9,
        ),
        "window_series" => time_chart(
            &pairs,
            &f.title,
            "window (KB)",
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
            1e-3,
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
                "delivered throughput (Gbps)",
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
                1e-9,
            )
        }
        "slowdown_by_size" => {
            let mut c = plots::slowdown_chart(&pairs);
            c.title = f.title.clone();
            c
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
        Some(v) if m.n > 1 => format!("{} ± {} ({}–{})", fmt_num(v), fmt_num(m.std), fmt_num(m.min), fmt_num(m.max)),
        Some(v) => fmt_num(v),
    };
    if total > 1 && (m.undefined > 0 || !m.errors.is_empty()) {
        s.push_str(&format!(" [{} of {total} seeds defined]", m.n));
    } else if total > 1 {
        s.push_str(&format!(" [{total} seeds]"));
    }
    s
}
