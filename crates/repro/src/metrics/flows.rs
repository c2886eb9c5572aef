//! Metrics of per-flow results: slowdowns, FCTs, completion, goodput.

use ccsim_core::results::FlowResult;

use super::{need, us, Ctx, Params, Stat};

/// The flows a metric covers: size in [min_size, max_size), from workload entry `workload`.
fn selected<'a>(p: &Params, cx: &'a Ctx) -> impl Iterator<Item = &'a FlowResult> + 'a {
    let lo = p.size("min_size").unwrap_or(0);
    let hi = p.size("max_size").unwrap_or(u64::MAX);
    let w = p.int("workload").map(|w| w as u32);
    cx.r.flows.iter().filter(move |f| f.size >= lo && f.size < hi && w.is_none_or(|w| cx.scn.workload_of(f) == Some(w)))
}

fn stat_of(p: &Params, v: &[f64]) -> Option<f64> {
    p.stat("stat").unwrap_or(Stat::Mean).of(v)
}

pub fn slowdown(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let v: Vec<f64> = selected(p, cx).filter_map(|f| f.slowdown).collect();
    Ok(stat_of(p, &v))
}

pub fn fct(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let v: Vec<f64> = selected(p, cx).filter_map(|f| f.fct.map(us)).collect();
    Ok(stat_of(p, &v))
}

/// FCT over the time the flow's wire bytes take at its sender's line rate.
pub fn line_slowdown(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let net = &cx.scn.net;
    let line = |src: u32| {
        cx.scn.topo.links.iter().find(|l| l.a == src || l.b == src).map(|l| l.rate_from(src) as f64).unwrap_or(f64::NAN)
    };
    let v: Vec<f64> = selected(p, cx)
        .filter_map(|f| {
            let wire = f.size + f.size.div_ceil(net.mtu.0) * net.header.0;
            let ideal_us = wire as f64 * 8.0 / line(f.src) * 1e6;
            f.fct.map(|t| us(t) / ideal_us)
        })
        .collect();
    Ok(stat_of(p, &v))
}

pub fn finished(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let (mut n, mut done) = (0usize, 0usize);
    for f in selected(p, cx) {
        n += 1;
        done += f.fct.is_some() as usize;
    }
    Ok((n > 0).then(|| done as f64 / n as f64))
}

pub fn unfinished(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    Ok(Some(selected(p, cx).filter(|f| f.fct.is_none()).count() as f64))
}

/// Payload / FCT of each finished flow (Gbps).
pub fn flow_goodput(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let v: Vec<f64> = selected(p, cx).filter_map(|f| f.fct.map(|t| f.size as f64 * 8.0 / t as f64 * 1e3)).collect();
    Ok(stat_of(p, &v))
}

/// The flows named by `flows` (default: all, or those of `workload`).
fn named<'a>(p: &Params, cx: &'a Ctx) -> Result<Vec<&'a FlowResult>, String> {
    match p.flows("flows") {
        Some(ids) => ids
            .iter()
            .map(|&i| {
                cx.r.flows
                    .get(i as usize)
                    .ok_or_else(|| format!("flows: no flow {i} (the run has {})", cx.r.flows.len()))
            })
            .collect(),
        None => Ok(selected(p, cx).collect()),
    }
}

/// Total payload of the flows over (last completion - first start), Gbps;
/// undefined unless all finished.
pub fn incast_goodput(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let fs = named(p, cx)?;
    if fs.is_empty() || fs.iter().any(|f| f.fct.is_none()) {
        return Ok(None);
    }
    let start = fs.iter().map(|f| f.start).min().unwrap();
    let end = fs.iter().map(|f| f.start + f.fct.unwrap()).max().unwrap();
    let bytes: u64 = fs.iter().map(|f| f.size).sum();
    Ok((end > start).then(|| bytes as f64 * 8.0 / (end - start) as f64 * 1e3))
}

/// When the last of the flows completed (us from time 0); undefined unless all finished.
pub fn completion(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let fs = named(p, cx)?;
    if fs.is_empty() || fs.iter().any(|f| f.fct.is_none()) {
        return Ok(None);
    }
    Ok(fs.iter().map(|f| us(f.start + f.fct.unwrap())).reduce(f64::max))
}

/// Offered load: the payload of the flows (of `workload`, if given) that
/// start in [from, to) x 8, over the capacity of every host link x the
/// window (default: from the first to the last start).
pub fn offered_load(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let w = p.int("workload").map(|w| w as u32);
    let flows: Vec<&FlowResult> =
        cx.r.flows.iter().filter(|f| w.is_none_or(|w| cx.scn.workload_of(f) == Some(w))).collect();
    let first = flows.iter().map(|f| f.start).min().unwrap_or(0);
    let last = flows.iter().map(|f| f.start).max().unwrap_or(0);
    let from = p.time("from").unwrap_or(first);
    let to = p.time("to").unwrap_or(last);
    if to <= from {
        return Ok(None);
    }
    let bytes: f64 = flows.iter().filter(|f| f.start >= from && f.start < to).map(|f| f.size as f64).sum();
    let topo = &cx.scn.topo;
    let capacity: f64 = topo.links.iter().filter_map(|l| host_end(topo, l)).map(|(l, h)| l.rate_from(h) as f64).sum();
    Ok(Some(bytes * 8.0 / (capacity * (to - from) as f64 / 1e12)))
}

/// Sizes of the flows in range, statistic; `stat = "share"`: the fraction
/// of all flows (of `workload`, if given) whose size is in range.
pub fn flow_size(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let only_done = p.bool("finished_only").unwrap_or(false);
    let keep = |f: &&FlowResult| !only_done || f.fct.is_some();
    if p.text("stat") == Some("share") {
        let w = p.int("workload").map(|w| w as u32);
        let all = cx.r.flows.iter().filter(|f| w.is_none_or(|w| cx.scn.workload_of(f) == Some(w))).filter(keep).count();
        let inside = selected(p, cx).filter(keep).count();
        return Ok((all > 0).then(|| inside as f64 / all as f64));
    }
    let stat = match p.text("stat") {
        Some(s) => Stat::parse(s)?,
        None => Stat::Mean,
    };
    let v: Vec<f64> = selected(p, cx).filter(keep).map(|f| f.size as f64).collect();
    Ok(stat.of(&v))
}

pub fn hol_share(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let (mut n, mut hol) = (0usize, 0usize);
    for f in selected(p, cx) {
        n += 1;
        hol += (cx.r.hol_pkts.get(f.id as usize).copied().unwrap_or(0) > 0) as usize;
    }
    Ok((n > 0).then(|| hol as f64 / n as f64))
}

/// Data packets resent: the flow and message rows' sum (the run's total).
pub fn retransmits(_p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    Ok(Some(cx.r.flows.iter().map(|f| f.retransmits).sum::<u64>() as f64))
}

/// Retransmission timeouts fired, all flows and connections.
pub fn timeouts(_p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    Ok(Some(cx.r.timeouts as f64))
}

/// The completion time (start + FCT) of the last of `ids` to finish; an
/// error names an unknown flow, None if one did not finish.
pub(crate) fn done_at(cx: &Ctx, ids: &[u32]) -> Result<Option<u64>, String> {
    let mut last = 0;
    for &i in ids {
        let f = need(cx.r.flows.get(i as usize), &format!("flow {i}"))?;
        match f.fct {
            Some(t) => last = last.max(f.start + t),
            None => return Ok(None),
        }
    }
    Ok(Some(last))
}

/// A host link and its host (what the host sends at is its rate).
fn host_end<'a>(topo: &ccsim_core::Topology, l: &'a ccsim_core::LinkSpec) -> Option<(&'a ccsim_core::LinkSpec, u32)> {
    [l.a, l.b].into_iter().find(|&x| topo.is_host(x)).map(|h| (l, h))
}
