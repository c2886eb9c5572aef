//! Metrics of traced flows (`[trace] flows`): pacing rates, delivered
//! goodput, fairness and convergence, control steps (`[trace] changes`) and
//! RTT samples (`[trace] acks`).

use ccsim_core::results::{jain as jain_index, FlowTrace};
use ccsim_core::time::Time;

use super::ports::start_of;
use super::{in_window, need, us, window, Ctx, Params, Stat};

fn trace<'a>(cx: &'a Ctx, f: u32) -> Result<&'a FlowTrace, String> {
    cx.r.flow_traces
        .iter()
        .find(|t| t.flow == f)
        .ok_or_else(|| format!("flow {f} is not traced (add it to [trace] flows)"))
}

/// The traced flows a metric covers: `flows`, default every traced flow.
fn traces<'a>(p: &Params, cx: &'a Ctx) -> Result<Vec<&'a FlowTrace>, String> {
    match p.flows("flows") {
        Some(ids) => ids.iter().map(|&f| trace(cx, f)).collect(),
        None if cx.r.flow_traces.is_empty() => Err("no flow is traced (list flows in [trace] flows)".into()),
        None => Ok(cx.r.flow_traces.iter().collect()),
    }
}

/// Acknowledged bytes at t: the last sample at or before t.
fn acked_at(tr: &FlowTrace, t: Time) -> f64 {
    let i = tr.t.partition_point(|&x| x <= t);
    if i == 0 {
        0.0
    } else {
        tr.acked[i - 1]
    }
}

/// Goodput (Gbps) of a traced flow over [t0, t1].
fn goodput_of(tr: &FlowTrace, t0: Time, t1: Time) -> f64 {
    if t1 <= t0 {
        return 0.0;
    }
    (acked_at(tr, t1) - acked_at(tr, t0)) * 8.0 / (t1 - t0) as f64 * 1e3
}

fn gbps(v: &[f64]) -> Vec<f64> {
    v.iter().map(|x| x / 1e9).collect()
}

pub fn rate(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let tr = trace(cx, need(p.flow("flow"), "flow")?)?;
    let (from, to) = window(p, cx.r);
    Ok(p.stat("stat").unwrap_or(Stat::Mean).of(&gbps(&in_window(&tr.t, &tr.rate_bps, from, to))))
}

/// The `window` metric: a statistic of a traced flow's window.
pub fn window_stat(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let tr = trace(cx, need(p.flow("flow"), "flow")?)?;
    let (from, to) = window(p, cx.r);
    let v: Vec<f64> = in_window(&tr.t, &tr.window, from, to).into_iter().filter(|&w| w < u64::MAX as f64).collect();
    Ok(p.stat("stat").unwrap_or(Stat::Mean).of(&v))
}

pub fn probe(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let tr = trace(cx, need(p.flow("flow"), "flow")?)?;
    let (from, to) = window(p, cx.r);
    Ok(p.stat("stat").unwrap_or(Stat::Mean).of(&in_window(&tr.t, &tr.probe, from, to)))
}

/// First sample time (us, from 0) at or after `after` with the flow's rate
/// under `below` x line rate, or `drop` below its rate just before `after`.
fn drop_time(p: &Params, tr: &FlowTrace) -> Result<Option<Time>, String> {
    let after = p.time("after").unwrap_or(0);
    let limit = match (p.num("below"), p.num("drop")) {
        (Some(b), _) => b * tr.line_rate_bps,
        (None, Some(d)) => {
            let i = tr.t.partition_point(|&x| x < after);
            let before = if i == 0 { tr.line_rate_bps } else { tr.rate_bps[i - 1] };
            (1.0 - d) * before
        }
        (None, None) => {
            return Err("give `below` (fraction of line rate) or `drop` (fraction of the prior rate)".into())
        }
    };
    Ok(tr.t.iter().zip(&tr.rate_bps).find(|(t, r)| **t >= after && **r < limit).map(|(&t, _)| t))
}

pub fn first_rate_drop(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let tr = trace(cx, need(p.flow("flow"), "flow")?)?;
    Ok(drop_time(p, tr)?.map(us))
}

/// [`first_rate_drop`] minus the congestion onset: the first queue sample
/// of `port` at or after `after` above `queue_above` bytes (default 0).
pub fn reaction_delay(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let tr = trace(cx, need(p.flow("flow"), "flow")?)?;
    let port = need(p.port("port"), "port")?;
    let name = format!("{}:{}", port.node, port.peer);
    let q =
        cx.r.queues.iter().find(|s| s.name == name).ok_or_else(|| format!("port {name}: its queue is not traced"))?;
    let after = p.time("after").unwrap_or(0);
    let above = p.size("queue_above").unwrap_or(0) as f64;
    let Some(onset) = q.t.iter().zip(&q.v).find(|(t, v)| **t >= after && **v > above).map(|(&t, _)| t) else {
        return Ok(None);
    };
    Ok(drop_time(p, tr)?.map(|t| us(t) - us(onset)))
}

pub fn goodput(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let (from, to) = window(p, cx.r);
    Ok(Some(traces(p, cx)?.iter().map(|tr| goodput_of(tr, from, to)).sum()))
}

pub fn jain(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let (from, to) = window(p, cx.r);
    let g: Vec<f64> = traces(p, cx)?.iter().map(|tr| goodput_of(tr, from, to)).collect();
    Ok((g.iter().sum::<f64>() > 0.0).then(|| jain_index(&g)))
}

/// Windows [t, t + w) from `from`, every `step`, while they end by `to`.
fn windows(from: Time, to: Time, w: Time, step: Time) -> impl Iterator<Item = Time> {
    let step = step.max(1);
    (0..).map(move |i| from + i * step).take_while(move |t| t + w <= to)
}

pub fn jain_min(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let trs = traces(p, cx)?;
    let from = p.time("from").unwrap_or(0);
    let to = p.time("to").unwrap_or(cx.r.engine.sim_end);
    let w = p.time("window").unwrap_or(1_000_000_000);
    let step = p.time("step").unwrap_or(w);
    let mut worst: Option<f64> = None;
    for t in windows(from, to, w, step) {
        let g: Vec<f64> = trs.iter().map(|tr| goodput_of(tr, t, t + w)).collect();
        if g.iter().sum::<f64>() > 0.0 {
            let j = jain_index(&g);
            worst = Some(worst.map_or(j, |x: f64| x.min(j)));
        }
    }
    Ok(worst)
}

pub fn share(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let tr = trace(cx, need(p.flow("flow"), "flow")?)?;
    let (from, to) = window(p, cx.r);
    let fair = match (p.gbps("fair"), p.num("fair_frac")) {
        (Some(g), _) => g,
        (None, Some(f)) => f * tr.line_rate_bps / 1e9,
        _ => return Err("give `fair` (a rate) or `fair_frac` (of the line rate)".into()),
    };
    Ok(Some(goodput_of(tr, from, to) / fair))
}

/// From `from` until every later window of the flows' goodputs is fair
/// (each within `tol` of the mean).
pub fn time_to_fair(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let trs = traces(p, cx)?;
    let from = p.time("from").unwrap_or(0);
    let w = p.time("window").unwrap_or(20_000_000);
    let step = p.time("step").unwrap_or(5_000_000);
    let tol = p.num("tol").unwrap_or(0.1);
    let fair = |t: Time| {
        let g: Vec<f64> = trs.iter().map(|tr| goodput_of(tr, t, t + w)).collect();
        let mean = g.iter().sum::<f64>() / g.len() as f64;
        mean > 0.0 && g.iter().all(|x| (x - mean).abs() <= tol * mean)
    };
    let all: Vec<(Time, bool)> = windows(from, cx.r.engine.sim_end, w, step).map(|t| (t, fair(t))).collect();
    let mut at = None;
    for &(t, ok) in all.iter().rev() {
        if !ok {
            break;
        }
        at = Some(t);
    }
    Ok(at.map(|t| us(t - from)))
}

/// The band of a rate target: (lo, hi) in bits/s.
fn band(p: &Params, tr: &FlowTrace) -> Result<(f64, f64), String> {
    let target = match (p.gbps("target"), p.num("target_frac")) {
        (Some(g), _) => g * 1e9,
        (None, Some(f)) => f * tr.line_rate_bps,
        _ => return Err("give `target` (a rate) or `target_frac` (of the line rate)".into()),
    };
    let tol = p.num("tol").unwrap_or(0.05);
    Ok((target * (1.0 - tol), target * (1.0 + tol)))
}

/// The earliest time in `pts` (sorted) from which the predicate holds to the
/// end (`hold`), or the first time it holds.
fn reach(pts: &[(Time, bool)], hold: bool) -> Option<Time> {
    if !hold {
        return pts.iter().find(|x| x.1).map(|x| x.0);
    }
    let mut at = None;
    for &(t, ok) in pts.iter().rev() {
        if !ok {
            break;
        }
        at = Some(t);
    }
    at
}

/// The trailing-window throughput of a traced flow at each sample (t, bits/s),
/// `window` defaulting to 5 sampling intervals.
fn throughput_of(tr: &FlowTrace, window: Option<Time>) -> Vec<(Time, f64)> {
    let step = if tr.t.len() > 1 { tr.t[1] - tr.t[0] } else { 1 };
    let (t, v) = crate::plots::throughput(tr, window.unwrap_or(5 * step));
    t.into_iter().zip(v).collect()
}

pub fn throughput(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let tr = trace(cx, need(p.flow("flow"), "flow")?)?;
    let (from, to) = window(p, cx.r);
    let v: Vec<f64> = throughput_of(tr, p.time("window"))
        .into_iter()
        .filter(|(t, _)| *t >= from && *t <= to)
        .map(|x| x.1 / 1e9)
        .collect();
    Ok(p.stat("stat").unwrap_or(Stat::Mean).of(&v))
}

pub fn time_to_rate(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let tr = trace(cx, need(p.flow("flow"), "flow")?)?;
    let Some(from) = start_of(p, cx)? else { return Ok(None) };
    let to = p.time("to").unwrap_or(cx.r.engine.sim_end);
    let (lo, hi) = band(p, tr)?;
    let signal: Vec<(Time, f64)> = match p.text("signal").unwrap_or("rate") {
        "rate" => tr.t.iter().copied().zip(tr.rate_bps.iter().copied()).collect(),
        "throughput" => throughput_of(tr, p.time("window")),
        s => return Err(format!("signal = \"{s}\": expected \"rate\" or \"throughput\"")),
    };
    let pts: Vec<(Time, bool)> =
        signal.iter().filter(|(t, _)| *t >= from && *t <= to).map(|&(t, r)| (t, r >= lo && r <= hi)).collect();
    Ok(reach(&pts, p.bool("hold").unwrap_or(true)).map(|t| us(t - from)))
}

pub fn time_to_window(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let tr = trace(cx, need(p.flow("flow"), "flow")?)?;
    let Some(from) = start_of(p, cx)? else { return Ok(None) };
    let target = need(p.size("target"), "target")? as f64;
    let pts: Vec<(Time, bool)> =
        tr.t.iter().zip(&tr.window).filter(|(t, _)| **t >= from).map(|(&t, &w)| (t, w >= target)).collect();
    Ok(reach(&pts, p.bool("hold").unwrap_or(false)).map(|t| us(t - from)))
}

/// The flow's change log, which needs `[trace] changes = true`.
fn changes<'a>(cx: &'a Ctx, f: u32) -> Result<&'a [(Time, f64, f64)], String> {
    if !cx.scn.trace.changes {
        return Err("counting control steps needs [trace] changes = true in the scenario".into());
    }
    Ok(&trace(cx, f)?.changes)
}

/// Control steps from the start (`from`, or when `from_done` flows completed)
/// until the rate is within `tol` of the target (first reach, or for good
/// with `hold`), counting the changes in (start, reached].
pub fn steps_to_rate(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let f = need(p.flow("flow"), "flow")?;
    let tr = trace(cx, f)?;
    let log = changes(cx, f)?;
    let Some(t0) = start_of(p, cx)? else { return Ok(None) };
    let to = p.time("to").unwrap_or(cx.r.engine.sim_end);
    let (lo, hi) = band(p, tr)?;
    let inside = |r: f64| r >= lo && r <= hi;
    // the steps: changes of at least `min_change` x the previous rate (or of the window)
    let min = p.num("min_change").unwrap_or(0.0);
    let mut steps: Vec<(Time, f64)> = Vec::new();
    let mut prev: Option<(f64, f64)> = None;
    for &(t, r, w) in log {
        let counts = match prev {
            None => true,
            Some((pr, pw)) => (r != pr && (r - pr).abs() >= min * pr.abs()) || w != pw,
        };
        if counts {
            steps.push((t, r));
        }
        prev = Some((r, w));
    }
    let rate_at_t0 = log.iter().rev().find(|c| c.0 <= t0).map_or(tr.line_rate_bps, |c| c.1);
    let mut pts = vec![(t0, inside(rate_at_t0))];
    pts.extend(steps.iter().filter(|c| c.0 > t0 && c.0 <= to).map(|c| (c.0, inside(c.1))));
    Ok(reach(&pts, p.bool("hold").unwrap_or(false))
        .map(|at| steps.iter().filter(|c| c.0 > t0 && c.0 <= at).count() as f64))
}

pub fn rate_changes(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let f = need(p.flow("flow"), "flow")?;
    let log = changes(cx, f)?;
    let from = p.time("from").unwrap_or(0);
    let to = p.time("to").unwrap_or(cx.r.engine.sim_end);
    Ok(Some(log.iter().filter(|c| c.0 >= from && c.0 <= to).count() as f64))
}

/// RTT samples (ACK arrival - send time of the data it acknowledges, us),
/// statistic (default mean): of every flow from the run's RTT histogram
/// (`[trace] rtt = true`; percentiles within 1%, no time window), or of the
/// traced flows' ACKs arriving in [from, to] (`[trace] acks = true`, or
/// when `flows`, `from` or `to` is given).
pub fn rtt(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let windowed = p.has("flows") || p.has("from") || p.has("to");
    if let (Some(h), false) = (&cx.r.rtt, windowed) {
        let v = match p.stat("stat").unwrap_or(Stat::Mean) {
            Stat::Mean => h.mean(),
            Stat::Percentile(q) => h.percentile(q),
            Stat::Max => h.percentile(100.0),
            Stat::Min => h.percentile(0.0),
            Stat::Count => return Ok(Some(h.total() as f64)),
            s => return Err(format!("stat {s:?} is not available from the RTT histogram")),
        };
        return Ok(v.map(|ps| ps / 1e6));
    }
    if !cx.scn.trace.acks {
        return Err("RTT samples need [trace] rtt = true (all flows) or [trace] acks = true (traced flows)".into());
    }
    let from = p.time("from").unwrap_or(0);
    let to = p.time("to").unwrap_or(Time::MAX);
    let v: Vec<f64> = traces(p, cx)?
        .iter()
        .flat_map(|tr| tr.acks.iter())
        .filter(|(_, at)| *at >= from && *at <= to)
        .map(|&(sent, at)| us(at - sent))
        .collect();
    Ok(p.stat("stat").unwrap_or(Stat::Mean).of(&v))
}

/// ACK samples of a traced flow (for [`super::special::gradient_error`]).
pub(crate) fn ack_samples<'a>(cx: &'a Ctx, f: u32) -> Result<&'a [(Time, Time)], String> {
    if !cx.scn.trace.acks {
        return Err("the gradient error needs [trace] acks = true in the scenario".into());
    }
    Ok(&trace(cx, f)?.acks)
}
