//! Sweeps: a scenario run at every point of a grid of values, the engine
//! behind `ccsim sweep` and the Python package's `ccsim.sweep`.
//!
//! A grid is a list of axes, each a key and its values: `scheme`, `seed`,
//! or any scenario key path `--set` accepts (`workload[0].load`,
//! `network.pfc.static_xoff`, `scheme.hpcc.eta`). The points are the
//! cartesian product, first axis slowest. Each point is a [`RunSpec`] (the
//! scenario file, its overrides, scheme and seed, and the run's key), so any
//! executor runs it: this machine's thread pool with the run cache
//! ([`crate::exec::run_all`]: a rerun or an interrupted sweep resumes with
//! what is cached), or a cluster (the Python package sends the specs to
//! Dask workers). Results are tidy: one row per point and metric
//! ([`metric_rows`]), grid values as columns.

use crate::plan::{estimate_events, run_key, RunSpec};
use ccsim_core::results::RunResult;
use ccsim_core::time::to_us;
use ccsim_scenario::{Overrides, Scenario};
use std::path::Path;

/// Most points a sweep may have (each is at least one simulation).
pub const MAX_POINTS: usize = 100_000;

/// One axis of a grid: a key and its values, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub key: String,
    pub values: Vec<toml::Value>,
}

/// Reads `key=v1,v2,...` (`--grid`). Values are TOML (`0.5`, `true`,
/// `"text"`) or else strings (`500KB`); `a..b` is every integer from a to
/// b. A list value is written in brackets: `key=[1,2],[3]`.
pub fn parse_axis(arg: &str) -> Result<Axis, String> {
    let (key, vals) = arg
        .split_once('=')
        .ok_or_else(|| format!("--grid {arg:?}: expected key=value1,value2,... (e.g. seed=1..5)"))?;
    let key = key.trim().to_string();
    if key.is_empty() {
        return Err(format!("--grid {arg:?}: the key is empty"));
    }
    let mut values = Vec::new();
    for part in split_top_level(vals) {
        let part = part.trim();
        if part.is_empty() {
            return Err(format!("--grid {arg:?}: an empty value"));
        }
        match part.split_once("..").map(|(a, b)| (a.trim().parse::<i64>(), b.trim().parse::<i64>())) {
            Some((Ok(a), Ok(b))) => {
                // (in i128: the width of an i64 range can overflow an i64)
                if b < a || b as i128 - a as i128 >= MAX_POINTS as i128 {
                    return Err(format!("--grid {arg:?}: range {part} must go up, by at most {MAX_POINTS} values"));
                }
                if values.len() + (b - a) as usize >= MAX_POINTS {
                    return Err(format!("--grid {arg:?}: more than {MAX_POINTS} values"));
                }
                values.extend((a..=b).map(toml::Value::Integer));
            }
            _ => values.push(ccsim_scenario::set::parse_value(part)),
        }
    }
    Ok(Axis { key, values })
}

/// Splits at commas outside brackets and quotes.
fn split_top_level(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut quoted, mut start) = (Vec::new(), 0i32, false, 0);
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '[' | '{' if !quoted => depth += 1,
            ']' | '}' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// A grid value as text, for columns and labels (strings unquoted).
pub fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One point of a sweep: its grid values (key, value) and its run.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub grid: Vec<(String, toml::Value)>,
    pub spec: RunSpec,
}

/// Every point of `axes` over the scenario file `file`, in order (first
/// axis slowest). Without a `scheme` axis every scheme of the scenario is
/// run (as `compare` does); without a `seed` axis, the scenario's seed.
/// Each point's scenario is read and checked as `run` would, so a bad
/// value fails here, naming the point.
pub fn plan(file: &Path, axes: &[Axis], version: &str) -> Result<Vec<Point>, String> {
    plan_with(file, &Overrides::default(), axes, version)
}

/// [`plan`] with values every point shares (`ccsim sweep --set/--seed/--stop`,
/// read as `ccsim run` reads them): `base.sets` are laid over the file
/// before each point's grid values, `base.seed` replaces the scenario's
/// seed where the grid has no `seed` axis, and `base.stop` is the point's
/// stop time (carried in its sets as `stop`, so any executor applies it);
/// `base.schemes` are the schemes run without a `scheme` axis.
pub fn plan_with(file: &Path, base: &Overrides, axes: &[Axis], version: &str) -> Result<Vec<Point>, String> {
    let mut shared = base.sets.clone();
    if let Some(stop) = base.stop {
        shared.push(("stop".to_string(), toml::Value::String(exact_duration(stop))));
    }
    let mut axes = axes.to_vec();
    for (i, a) in axes.iter().enumerate() {
        if a.values.is_empty() {
            return Err(format!("--grid {}: no values", a.key));
        }
        if axes[..i].iter().any(|b| b.key == a.key) {
            return Err(format!("--grid {}: the key is given twice", a.key));
        }
    }
    let base = ccsim_scenario::load(
        file,
        &Overrides { seed: base.seed, schemes: base.schemes.clone(), sets: shared.clone(), ..Default::default() },
    )?;
    if !axes.iter().any(|a| a.key == "scheme") {
        axes.push(Axis {
            key: "scheme".into(),
            values: base.schemes.iter().cloned().map(toml::Value::String).collect(),
        });
    }
    let total = axes.iter().try_fold(1usize, |n, a| n.checked_mul(a.values.len())).unwrap_or(usize::MAX);
    if total > MAX_POINTS {
        return Err(format!("the grid has {total} points; at most {MAX_POINTS} are supported"));
    }
    let mut points = Vec::with_capacity(total);
    for i in 0..total {
        // mixed-radix digits, last axis fastest
        let mut rest = i;
        let mut grid = vec![(String::new(), toml::Value::Integer(0)); axes.len()];
        for (k, a) in axes.iter().enumerate().rev() {
            grid[k] = (a.key.clone(), a.values[rest % a.values.len()].clone());
            rest /= a.values.len();
        }
        points.push(point(file, &base, &shared, grid, version)?);
    }
    Ok(points)
}

/// A duration in picoseconds as scenario text, exactly, in the largest unit
/// that divides it: "5ms", "1500ns", "7ps".
fn exact_duration(ps: u64) -> String {
    [(1_000_000_000_000, "s"), (1_000_000_000, "ms"), (1_000_000, "us"), (1_000, "ns")]
        .into_iter()
        .find(|&(unit, _)| ps > 0 && ps.is_multiple_of(unit))
        .map_or_else(|| format!("{ps}ps"), |(unit, name)| format!("{}{name}", ps / unit))
}

fn point(
    file: &Path,
    base: &Scenario,
    shared: &[(String, toml::Value)],
    grid: Vec<(String, toml::Value)>,
    version: &str,
) -> Result<Point, String> {
    let label = grid.iter().map(|(k, v)| format!("{k}={}", value_text(v))).collect::<Vec<_>>().join(" ");
    let mut scheme = base.schemes[0].clone();
    let mut seed = base.seed;
    let mut sets = shared.to_vec();
    for (k, v) in &grid {
        match (k.as_str(), v) {
            ("scheme", toml::Value::String(s)) => scheme = s.clone(),
            ("scheme", other) => return Err(format!("point [{label}]: scheme = {other}: expected a scheme name")),
            ("seed", toml::Value::Integer(s)) if *s >= 0 => seed = *s as u64,
            ("seed", other) => return Err(format!("point [{label}]: seed = {other}: expected a whole number >= 0")),
            _ => sets.push((k.clone(), v.clone())),
        }
    }
    let scn = ccsim_scenario::load(file, &Overrides { seed: Some(seed), sets: sets.clone(), ..Default::default() })
        .map_err(|e| format!("point [{label}]: {e}"))?;
    scn.make_scheme(&scheme).map_err(|e| format!("point [{label}]: {e}"))?;
    let spec = RunSpec {
        paper: "sweep".into(),
        scenario: file.to_path_buf(),
        sets,
        key: run_key(version, &scn, &scheme),
        est_events: estimate_events(&scn),
        scheme,
        seed,
    };
    Ok(Point { grid, spec })
}

/// The metrics of one run, by name: flow counts, slowdown (overall and by
/// size bucket: avg, p50, p95, p99), FCT, losses (drops, data packets
/// resent, retransmission timeouts, trimmed packets) and PAUSE, queues, the
/// traced queue and fairness when traced, engine counters. Names are
/// stable column names; NaN when a value does not exist (no finished flow).
pub fn metric_rows(r: &RunResult) -> Vec<(String, f64)> {
    let s = r.summary();
    let mut m: Vec<(String, f64)> = vec![
        ("flows".into(), s.flows as f64),
        ("finished".into(), s.finished as f64),
        ("slowdown_avg".into(), s.slowdown.avg),
        ("slowdown_p50".into(), s.slowdown.p50),
        ("slowdown_p95".into(), s.slowdown.p95),
        ("slowdown_p99".into(), s.slowdown.p99),
    ];
    for (label, st) in &s.by_size {
        let b = crate::output::bucket_key(label);
        m.push((format!("slowdown_{b}_count"), st.count as f64));
        for (q, v) in [("avg", st.avg), ("p50", st.p50), ("p95", st.p95), ("p99", st.p99)] {
            m.push((format!("slowdown_{b}_{q}"), v));
        }
    }
    m.extend([
        ("fct_avg_us".into(), s.fct_us.avg),
        ("fct_p99_us".into(), s.fct_us.p99),
        ("drops".into(), s.drops as f64),
        ("pause_frames".into(), s.pause_frames as f64),
        ("retransmits".into(), s.retransmits as f64),
        ("timeouts".into(), s.timeouts as f64),
        ("trimmed".into(), s.trimmed as f64),
        ("paused_time_us".into(), s.paused_time_us),
        ("max_queue_bytes".into(), s.max_queue_bytes as f64),
    ]);
    if let Some((mean, p99)) = crate::output::traced_queue(r) {
        m.push(("traced_queue_mean_bytes".into(), mean));
        m.push(("traced_queue_p99_bytes".into(), p99));
    }
    if let Some(f) = r.traced_fairness(crate::output::fairness_window(r)) {
        m.push(("traced_jain_mean".into(), f.mean_jain));
        m.push(("traced_jain_min".into(), f.min_jain));
    }
    m.extend([
        ("sim_end_us".into(), to_us(r.engine.sim_end)),
        ("events".into(), r.engine.events as f64),
        ("data_packets".into(), r.engine.data_packets as f64),
    ]);
    m
}

/// The metrics of one sweep point: [`metric_rows`], then for a run with
/// jobs (workload entries made of messages: collectives, traces, RPCs) per
/// job `job<w>_time_us`, `job<w>_iteration_mean_us`,
/// `job<w>_iteration_max_us`, `job<w>_retransmits` and `job<w>_trimmed`
/// (w = the `[[workload]]` index; a time is empty while unfinished). The
/// jobs need the point's scenario, read again from `spec` (its traffic is
/// generated again, as cheap as reading it: no simulation).
pub fn point_metrics(spec: &RunSpec, r: &RunResult) -> Vec<(String, f64)> {
    let mut m = metric_rows(r);
    if !r.conns.is_empty() {
        if let Ok(scn) = spec.load() {
            m.extend(job_metric_rows(&scn, r));
        }
    }
    m
}

/// Per job of `r` (see [`point_metrics`]): its time, iteration mean and
/// max, resent and trimmed data packets.
pub fn job_metric_rows(scn: &ccsim_scenario::Scenario, r: &RunResult) -> Vec<(String, f64)> {
    let mut m = Vec::new();
    for j in crate::metrics::jobs::jobs(scn, r) {
        let w = j.workload;
        let its: Vec<f64> = j.iterations_us.iter().flatten().copied().collect();
        // every iteration finished, else no mean or maximum
        let (mean, max) = crate::metrics::jobs::mean_max(&its)
            .filter(|_| its.len() == j.iterations_us.len())
            .unwrap_or((f64::NAN, f64::NAN));
        m.extend([
            (format!("job{w}_time_us"), j.time_us.unwrap_or(f64::NAN)),
            (format!("job{w}_iteration_mean_us"), mean),
            (format!("job{w}_iteration_max_us"), max),
            (format!("job{w}_retransmits"), j.retransmits as f64),
            (format!("job{w}_trimmed"), j.trimmed as f64),
        ]);
    }
    m
}

/// The tidy table's header: the grid's keys, then scheme and seed unless
/// already among them, then `status`, `metric`, `value`.
pub fn header(points: &[Point]) -> Vec<String> {
    let mut h: Vec<String> =
        points.first().map(|p| p.grid.iter().map(|(k, _)| k.clone()).collect()).unwrap_or_default();
    for k in ["scheme", "seed"] {
        if !h.iter().any(|x| x == k) {
            h.push(k.into());
        }
    }
    h.extend(["status", "metric", "value"].map(String::from));
    h
}

/// The rows of one point for the tidy table (see [`header`]), as text.
pub fn point_rows(points: &[Point], p: &Point, r: &RunResult) -> Vec<Vec<String>> {
    let h = header(points);
    let fixed: Vec<String> = h[..h.len() - 3]
        .iter()
        .map(|k| match p.grid.iter().find(|(g, _)| g == k) {
            Some((_, v)) => value_text(v),
            None if k == "scheme" => p.spec.scheme.clone(),
            None => p.spec.seed.to_string(),
        })
        .collect();
    point_metrics(&p.spec, r)
        .into_iter()
        .map(|(name, v)| {
            let mut row = fixed.clone();
            row.extend([r.status.name().to_string(), name, crate::output::num(v, 6)]);
            row
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(a: &Axis) -> Vec<String> {
        a.values.iter().map(value_text).collect()
    }

    #[test]
    fn axes_read_values_ranges_and_lists() {
        let a = parse_axis("workload[0].load=0.3,0.5,0.8").unwrap();
        assert_eq!(a.key, "workload[0].load");
        assert_eq!(a.values, vec![toml::Value::Float(0.3), toml::Value::Float(0.5), toml::Value::Float(0.8)]);
        assert_eq!(vals(&parse_axis("seed=1..4").unwrap()), ["1", "2", "3", "4"]);
        assert_eq!(vals(&parse_axis("network.pfc.static_xoff=200KB,1MB").unwrap()), ["200KB", "1MB"]);
        assert_eq!(parse_axis("trace.flows=[0,1],[2]").unwrap().values.len(), 2);
        assert!(parse_axis("seed").unwrap_err().contains("key=value1,value2"));
        assert!(parse_axis("seed=5..1").unwrap_err().contains("must go up"));
        // issue 25: the width of this range overflows an i64 (it panicked with a capacity overflow)
        let e = parse_axis("seed=-1..9223372036854775807").unwrap_err();
        assert!(e.contains("at most 100000 values"), "{e}");
        let e = parse_axis("seed=-9223372036854775808..9223372036854775807").unwrap_err();
        assert!(e.contains("at most 100000 values"), "{e}");
        let e = parse_axis("seed=0..60000,0..60000").unwrap_err();
        assert!(e.contains("more than 100000 values"), "{e}");
        assert!(parse_axis("seed=1,,2").unwrap_err().contains("empty value"));
    }

    #[test]
    fn a_grid_is_the_product_first_axis_slowest_with_schemes_added() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/dumbbell-2flows.toml");
        let axes = [parse_axis("seed=1,2").unwrap(), parse_axis("network.ecn.pmax=0.1,0.2,0.3").unwrap()];
        let pts = plan(&file, &axes, "test").unwrap();
        // the file lists dcqcn and hpcc: 2 x 3 x 2 points
        assert_eq!(pts.len(), 12);
        let row = |p: &Point| p.grid.iter().map(|(_, v)| value_text(v)).collect::<Vec<_>>().join(" ");
        assert_eq!(row(&pts[0]), "1 0.1 dcqcn");
        assert_eq!(row(&pts[1]), "1 0.1 hpcc");
        assert_eq!(row(&pts[2]), "1 0.2 dcqcn");
        assert_eq!(row(&pts[11]), "2 0.3 hpcc");
        assert_eq!((pts[11].spec.seed, pts[11].spec.scheme.as_str()), (2, "hpcc"));
        assert_eq!(pts[11].spec.sets, vec![("network.ecn.pmax".to_string(), toml::Value::Float(0.3))]);
        let mut keys: Vec<&str> = pts.iter().map(|p| p.spec.key.as_str()).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), 12, "every point is a different run");
        assert_eq!(header(&pts), ["seed", "network.ecn.pmax", "scheme", "status", "metric", "value"]);
    }

    #[test]
    fn a_bad_point_is_refused_naming_it() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/dumbbell-2flows.toml");
        let e = plan(&file, &[parse_axis("network.ecn.pmax=0.5,7").unwrap()], "t").unwrap_err();
        assert!(e.contains("point [network.ecn.pmax=7") && e.contains("pmax"), "{e}");
        let e = plan(&file, &[parse_axis("scheme=hpcc,cubic").unwrap()], "t").unwrap_err();
        assert!(e.contains("point [scheme=cubic]") && e.contains("cubic"), "{e}");
        let e = plan(&file, &[parse_axis("seed=1").unwrap(), parse_axis("seed=2").unwrap()], "t").unwrap_err();
        assert!(e.contains("given twice"), "{e}");
    }

    #[test]
    fn shared_overrides_apply_to_every_point_before_the_grid() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/dumbbell-2flows.toml");
        let ms = ccsim_core::time::MS;
        let base = Overrides {
            seed: Some(9),
            stop: Some(ms / 2),
            sets: vec![("schemes".to_string(), toml::Value::Array(vec![toml::Value::String("hpcc".into())]))],
            ..Default::default()
        };
        let pts = plan_with(&file, &base, &[parse_axis("network.ecn.pmax=0.1,0.2").unwrap()], "t").unwrap();
        // the schemes set for every point decide the scheme axis: hpcc only
        assert_eq!(pts.len(), 2);
        for p in &pts {
            assert_eq!((p.spec.scheme.as_str(), p.spec.seed), ("hpcc", 9));
            let scn = p.spec.load().unwrap();
            assert_eq!((scn.seed, scn.stop), (9, Some(ms / 2)));
        }
        assert_eq!(pts[1].spec.sets[0].0, "schemes");
        assert_eq!(pts[1].spec.sets[1], ("stop".to_string(), toml::Value::String("500us".into())));
        assert_eq!(pts[1].spec.sets[2], ("network.ecn.pmax".to_string(), toml::Value::Float(0.2)));
        // a different stop is a different run
        let plain = plan(&file, &[parse_axis("network.ecn.pmax=0.2").unwrap()], "t").unwrap();
        let hpcc = plain.iter().find(|p| p.spec.scheme == "hpcc").unwrap();
        assert_ne!(hpcc.spec.key, pts[1].spec.key);
        assert_eq!(exact_duration(7), "7ps");
        assert_eq!(exact_duration(1_500_000), "1500ns");
        assert_eq!(exact_duration(5 * ms), "5ms");
        assert_eq!(exact_duration(0), "0ps");
    }

    #[test]
    fn metric_rows_hold_the_summary() {
        let r = RunResult::default();
        let m = metric_rows(&r);
        assert_eq!(m[0], ("flows".to_string(), 0.0));
        assert!(m.iter().any(|(k, _)| k == "slowdown_ge1MB_p99"));
        for k in ["retransmits", "timeouts", "trimmed", "drops", "pause_frames"] {
            assert!(m.iter().any(|(n, _)| n == k), "no metric {k}");
        }
        let names: std::collections::HashSet<_> = m.iter().map(|(k, _)| k).collect();
        assert_eq!(names.len(), m.len(), "metric names are unique");
    }
}
