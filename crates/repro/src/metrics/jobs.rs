//! Metrics of jobs made of messages (collectives, traces, any workload entry):
//! the job's completion time and its iterations'.

use std::collections::BTreeMap;

use ccsim_core::results::FlowResult;

use super::{us, Ctx, Params, Stat};

/// The rows (flows and messages) of workload entry `workload` (required).
fn rows_of<'a>(p: &Params, cx: &'a Ctx) -> Result<Vec<&'a FlowResult>, String> {
    let w = p.int("workload").ok_or("needs workload (the [[workload]] index of the job)")? as u32;
    Ok(cx.r.flows.iter().filter(|f| cx.scn.workload_of(f) == Some(w)).collect())
}

/// Job completion time: from the first release (or flow start) of the
/// entry's transfers to the last completion; none while any is unfinished or
/// never released.
pub fn job_time(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let rows = rows_of(p, cx)?;
    if rows.is_empty() || rows.iter().any(|f| f.fct.is_none()) || cx.r.messages_waiting > 0 {
        return Ok(None);
    }
    let first = rows.iter().map(|f| f.start).min().unwrap_or(0);
    let last = rows.iter().map(|f| f.start + f.fct.unwrap_or(0)).max().unwrap_or(0);
    Ok(Some(us(last - first)))
}

/// Per iteration of the entry's messages: last completion - first release;
/// the statistic over the iterations that completed (default mean).
pub fn iteration_time(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let rows = rows_of(p, cx)?;
    let n_flows = cx.scn.flows.len() as u32;
    let meta = &cx.scn.messages.meta;
    // iteration -> (first release, last completion, all done)
    let mut by_it: BTreeMap<u32, (u64, u64, bool)> = BTreeMap::new();
    for f in rows.iter().filter(|f| f.conn.is_some()) {
        let it = meta.get((f.id - n_flows) as usize).map_or(0, |m| m.iteration);
        let e = by_it.entry(it).or_insert((u64::MAX, 0, true));
        e.0 = e.0.min(f.start);
        match f.fct {
            Some(t) => e.1 = e.1.max(f.start + t),
            None => e.2 = false,
        }
    }
    let v: Vec<f64> = by_it.values().filter(|e| e.2).map(|e| us(e.1 - e.0)).collect();
    Ok(p.stat("stat").unwrap_or(Stat::Mean).of(&v))
}
