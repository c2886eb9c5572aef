//! Metrics of ports: PFC counters, drops, and the traced queue and
//! utilization series of an egress.

use ccsim_core::results::{PortRef, PortResult, Series};
use ccsim_core::time::Time;

use super::flows::done_at;
use super::{in_window, need, us, window, Ctx, Params, Stat};

fn port_result<'a>(cx: &'a Ctx, p: PortRef) -> Result<&'a PortResult, String> {
    cx.r.ports.iter().find(|x| x.port == p).ok_or_else(|| format!("port {}:{}: no such egress", p.node, p.peer))
}

/// The traced series of `port` in `list` (queues or utilization).
fn traced<'a>(list: &'a [Series], what: &str, p: PortRef) -> Result<&'a Series, String> {
    let name = format!("{}:{}", p.node, p.peer);
    list.iter().find(|s| s.name == name).ok_or_else(|| {
        format!("port {name}: its {what} is not traced (add \"{name}\" to [trace] {what} in the scenario)")
    })
}

fn queue_series<'a>(p: &Params, cx: &'a Ctx) -> Result<(&'a Series, PortRef), String> {
    let port = need(p.port("port"), "port")?;
    Ok((traced(&cx.r.queues, "queues", port)?, port))
}

fn util_series<'a>(p: &Params, cx: &'a Ctx) -> Result<&'a Series, String> {
    let port = need(p.port("port"), "port")?;
    traced(&cx.r.utilization, "utilization", port)
}

fn selected_ports<'a>(p: &Params, cx: &'a Ctx) -> Result<Vec<&'a PortResult>, String> {
    match p.ports("ports") {
        Some(list) => list.into_iter().map(|q| port_result(cx, q)).collect(),
        None => Ok(cx.r.ports.iter().collect()),
    }
}

pub fn pause_frames(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let n: u64 = selected_ports(p, cx)?.iter().map(|x| x.pause_sent).sum();
    let n = n as f64;
    Ok(Some(if p.bool("per_ms").unwrap_or(false) { n / (us(cx.r.engine.sim_end) / 1e3).max(1e-9) } else { n }))
}

pub fn paused_time(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    Ok(Some(selected_ports(p, cx)?.iter().map(|x| us(x.paused_time)).sum()))
}

/// How long any of the ports was paused: the length of the union of their
/// paused intervals, clipped to [from, to] (us).
pub fn pause_duration(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let (from, to) = window(p, cx.r);
    let mut iv: Vec<(Time, Time)> = selected_ports(p, cx)?
        .iter()
        .flat_map(|x| x.paused_intervals.iter().map(|&(a, b)| (a.max(from), b.min(to))))
        .filter(|(a, b)| a < b)
        .collect();
    iv.sort_unstable();
    let (mut total, mut end) = (0, 0);
    for (a, b) in iv {
        let a = a.max(end);
        if b > a {
            total += b - a;
            end = b;
        }
    }
    Ok(Some(us(total)))
}

pub fn drops(_p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    Ok(Some(cx.r.drops as f64))
}

pub fn trimmed(_p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    Ok(Some(cx.r.trimmed as f64))
}

pub fn max_queue(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    Ok(Some(port_result(cx, need(p.port("port"), "port")?)?.max_qlen as f64))
}

pub fn queue(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let (s, _) = queue_series(p, cx)?;
    let (from, to) = window(p, cx.r);
    Ok(p.stat("stat").unwrap_or(Stat::Mean).of(&in_window(&s.t, &s.v, from, to)))
}

/// The queue as the time it takes to drain at the port's rate (us).
pub fn queue_delay(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let (_, port) = queue_series(p, cx)?;
    let rate = port_result(cx, port)?.rate_bps as f64;
    Ok(queue(p, cx)?.map(|b| b * 8.0 / rate * 1e6))
}

pub fn queue_above(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let (s, _) = queue_series(p, cx)?;
    let (from, to) = window(p, cx.r);
    let th = need(p.size("threshold"), "threshold")? as f64;
    let v = in_window(&s.t, &s.v, from, to);
    Ok((!v.is_empty()).then(|| v.iter().filter(|&&x| x > th).count() as f64 / v.len() as f64))
}

/// Samples (t, v) of `s` in [from, to].
fn points(s: &Series, from: Time, to: Time) -> Vec<(Time, f64)> {
    s.t.iter().zip(&s.v).filter(|(t, _)| **t >= from && **t <= to).map(|(&t, &v)| (t, v)).collect()
}

/// The earliest sample time from which every sample up to `to` is at most
/// `below` (absolute, us); undefined if the last sample is above.
pub fn queue_clear_time(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let (s, _) = queue_series(p, cx)?;
    let (from, to) = window(p, cx.r);
    let below = p.size("below").unwrap_or(0) as f64;
    let pts = points(s, from, to);
    let mut at = None;
    for &(t, v) in pts.iter().rev() {
        if v > below {
            break;
        }
        at = Some(t);
    }
    Ok(at.map(us))
}

/// From `from` to the first sample at or below `below` after the window's
/// largest sample (us).
pub fn drain_time(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let (s, _) = queue_series(p, cx)?;
    let (from, to) = window(p, cx.r);
    let below = p.size("below").unwrap_or(0) as f64;
    let pts = points(s, from, to);
    let Some(peak) = pts.iter().enumerate().max_by(|a, b| a.1 .1.total_cmp(&b.1 .1).then(b.0.cmp(&a.0))).map(|x| x.0)
    else {
        return Ok(None);
    };
    Ok(s.t.iter().zip(&s.v).filter(|(t, _)| **t >= pts[peak].0).find(|(_, v)| **v <= below).map(|(&t, _)| us(t - from)))
}

/// Congestion episodes: runs of samples of a traced queue above `high`,
/// from the first such sample to the first later one at or below it (or
/// the window's last sample); pooled over `port` / `ports` (default every
/// traced queue), those starting in [from, to]; statistic of their
/// durations (default mean, us; 0 without episodes).
pub fn queue_episode(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let (from, to) = window(p, cx.r);
    let high = need(p.size("high"), "high")? as f64;
    let list: Vec<&Series> = match (p.port("port"), p.ports("ports")) {
        (Some(one), _) => vec![traced(&cx.r.queues, "queues", one)?],
        (None, Some(many)) => many.into_iter().map(|q| traced(&cx.r.queues, "queues", q)).collect::<Result<_, _>>()?,
        (None, None) => cx.r.queues.iter().collect(),
    };
    let mut episodes = Vec::new();
    for s in list {
        let mut start: Option<Time> = None;
        let mut last = from;
        for (t, v) in points(s, from, Time::MAX) {
            match (start, v > high) {
                (None, true) if t <= to => start = Some(t),
                (Some(a), false) => {
                    episodes.push(us(t - a));
                    start = None;
                }
                _ => {}
            }
            last = t;
            if start.is_none() && t > to {
                break;
            }
        }
        if let Some(a) = start {
            episodes.push(us(last - a));
        }
    }
    Ok(p.stat("stat").unwrap_or(Stat::Mean).of(&episodes).or(Some(0.0)))
}

pub fn utilization(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let s = util_series(p, cx)?;
    let (from, to) = window(p, cx.r);
    Ok(p.stat("stat").unwrap_or(Stat::Mean).of(&in_window(&s.t, &s.v, from, to)))
}

/// Trailing means of a series over `w` (each sample's mean of the samples in (t - w, t]).
fn trailing(s: &[(Time, f64)], w: Time) -> Vec<(Time, f64)> {
    if w == 0 {
        return s.to_vec();
    }
    let mut out = Vec::with_capacity(s.len());
    let (mut lo, mut sum) = (0usize, 0.0);
    for (i, &(t, v)) in s.iter().enumerate() {
        sum += v;
        while s[lo].0 + w <= t && lo < i {
            sum -= s[lo].1;
            lo += 1;
        }
        out.push((t, sum / (i + 1 - lo) as f64));
    }
    out
}

/// The start of a metric's window: `from`, or when the `from_done` flows have all completed.
pub(crate) fn start_of(p: &Params, cx: &Ctx) -> Result<Option<Time>, String> {
    match p.flows("from_done") {
        Some(ids) => done_at(cx, &ids),
        None => Ok(Some(p.time("from").unwrap_or(0))),
    }
}

pub fn time_to_utilization(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let s = util_series(p, cx)?;
    let Some(from) = start_of(p, cx)? else { return Ok(None) };
    let to = p.time("to").unwrap_or(cx.r.engine.sim_end);
    let th = p.num("threshold").unwrap_or(0.95);
    let pts = trailing(&points(s, from, to), p.time("window").unwrap_or(0));
    let ok = |v: f64| v >= th;
    let at = if p.bool("hold").unwrap_or(true) {
        let mut at = None;
        for &(t, v) in pts.iter().rev() {
            if !ok(v) {
                break;
            }
            at = Some(t);
        }
        at
    } else {
        pts.iter().find(|x| ok(x.1)).map(|x| x.0)
    };
    Ok(at.map(|t| us(t - from)))
}

/// Capacity lost under `threshold` in [from, to], in us at line rate.
pub fn underutilization(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let s = util_series(p, cx)?;
    let (from, to) = window(p, cx.r);
    let th = p.num("threshold").unwrap_or(1.0);
    let pts = points(s, from, to);
    let step = if s.t.len() > 1 { s.t[1] - s.t[0] } else { 0 };
    Ok(Some(pts.iter().map(|&(_, u)| (th - u).max(0.0) * us(step)).sum()))
}

/// After `flow` completes at t_c: the end of the last trailing `window` in
/// [t_c, t_c + horizon] whose mean utilization is under `threshold`, minus
/// t_c (0 if none).
pub fn refill_time(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let s = util_series(p, cx)?;
    let f = need(p.flow("flow"), "flow")?;
    let Some(done) = done_at(cx, &[f])? else { return Ok(None) };
    let tc = done.saturating_sub(p.time("offset").unwrap_or(0));
    let th = p.num("threshold").unwrap_or(0.95);
    let horizon = p.time("horizon").unwrap_or(500_000_000);
    let w = p.time("window").unwrap_or(4_000_000);
    // the trailing means reach back before t_c, so a dip ending just after it counts
    let pts = trailing(&points(s, tc.saturating_sub(w), tc + horizon), w);
    Ok(Some(pts.iter().filter(|x| x.0 >= tc).rev().find(|x| x.1 < th).map_or(0.0, |x| us(x.0 - tc))))
}

/// Episodes of under-utilization: runs of samples whose trailing `window`
/// mean utilization is under `threshold` (default 0.95), from the first such
/// sample to the first one back at or above it; statistic of their durations
/// (default max, us; 0 without episodes).
pub fn utilization_episode(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let s = util_series(p, cx)?;
    let (from, to) = window(p, cx.r);
    let th = p.num("threshold").unwrap_or(0.95);
    let pts = trailing(&points(s, from, to), p.time("window").unwrap_or(0));
    let mut episodes = Vec::new();
    let mut start: Option<Time> = None;
    let mut last = from;
    for &(t, u) in &pts {
        match (start, u < th) {
            (None, true) => start = Some(t),
            (Some(a), false) => {
                episodes.push(us(t - a));
                start = None;
            }
            _ => {}
        }
        last = t;
    }
    if let Some(a) = start {
        episodes.push(us(last - a));
    }
    Ok(p.stat("stat").unwrap_or(Stat::Max).of(&episodes).or(Some(0.0)))
}

/// Mean utilization between the first and the last completion of `flows`
/// (each completion shifted back by `offset`).
pub fn completion_utilization(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let s = util_series(p, cx)?;
    let ids: Vec<u32> = p.flows("flows").unwrap_or_else(|| (0..cx.r.flows.len() as u32).collect());
    let mut ends = Vec::new();
    for i in ids {
        let f = need(cx.r.flows.get(i as usize), &format!("flow {i}"))?;
        match f.fct {
            Some(t) => ends.push(f.start + t),
            None => return Ok(None),
        }
    }
    let off = p.time("offset").unwrap_or(0);
    let (Some(&a), Some(&b)) = (ends.iter().min(), ends.iter().max()) else { return Ok(None) };
    Ok(Stat::Mean.of(&in_window(&s.t, &s.v, a.saturating_sub(off), b.saturating_sub(off))))
}
