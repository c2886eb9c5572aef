//! Jobs made of messages (collectives, traces, RPC workloads): each workload
//! entry that makes messages is a job, with its completion time and its
//! iterations'. Shared by the metrics `job_time` / `iteration_time`, the
//! `jobs` section of `summary.json` and the result table.

use std::collections::BTreeMap;

use ccsim_core::results::RunResult;
use ccsim_core::time::to_us;
use ccsim_scenario::Scenario;

use super::{Ctx, Params, Stat};

/// One job (a workload entry that makes messages) in one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// The `[[workload]]` entry.
    pub workload: u32,
    /// Messages released (closed loops: made during the run).
    pub messages: usize,
    /// Messages completed.
    pub finished: usize,
    /// The job's messages known before the run (closed loops: the first ones).
    pub planned: usize,
    /// First release, us.
    pub start_us: f64,
    /// From the first release to the last completion of its messages, us
    /// (compute tasks after the last message are not counted); None while
    /// any planned message is unreleased or any released one unfinished.
    pub time_us: Option<f64>,
    /// Per iteration (collectives, traces), in order: first release to last
    /// completion, us; None for an iteration not complete.
    pub iterations_us: Vec<Option<f64>>,
}

/// An iteration's first release, last completion and whether all its messages are done.
type Span = (u64, u64, bool);

/// The jobs of a run, by workload entry (none for a flow-only scenario).
pub fn jobs(scn: &Scenario, r: &RunResult) -> Vec<Job> {
    let g = &scn.messages;
    if !g.has_messages() {
        return Vec::new();
    }
    let n_flows = scn.flows.len() as u32;
    let mut planned: BTreeMap<u32, usize> = BTreeMap::new();
    for m in g.messages.iter().filter(|m| m.compute_on.is_none()) {
        *planned.entry(m.tag).or_default() += 1;
    }
    // workload -> (messages, finished, iteration -> span)
    let mut acc: BTreeMap<u32, (usize, usize, BTreeMap<u32, Span>)> = BTreeMap::new();
    for f in r.flows.iter().filter(|f| f.conn.is_some()) {
        let w = f.tag.unwrap_or(0);
        let it = g.meta.get((f.id - n_flows) as usize).map_or(0, |m| m.iteration);
        let e = acc.entry(w).or_default();
        e.0 += 1;
        let i = e.2.entry(it).or_insert((u64::MAX, 0, true));
        i.0 = i.0.min(f.start);
        match f.fct {
            Some(t) => {
                e.1 += 1;
                i.1 = i.1.max(f.start + t);
            }
            None => i.2 = false,
        }
    }
    let mut out = Vec::new();
    for (&w, &plan) in &planned {
        let Some((messages, finished, its)) = acc.get(&w) else {
            out.push(Job {
                workload: w,
                messages: 0,
                finished: 0,
                planned: plan,
                start_us: f64::NAN,
                time_us: None,
                iterations_us: vec![],
            });
            continue;
        };
        let start = its.values().map(|i| i.0).min().unwrap_or(0);
        let end = its.values().map(|i| i.1).max().unwrap_or(0);
        let complete = finished == messages && *messages >= plan;
        out.push(Job {
            workload: w,
            messages: *messages,
            finished: *finished,
            planned: plan,
            start_us: to_us(start),
            time_us: complete.then(|| to_us(end - start)),
            iterations_us: its.values().map(|i| i.2.then(|| to_us(i.1 - i.0))).collect(),
        });
    }
    out
}

fn job_of(p: &Params, cx: &Ctx) -> Result<Option<Job>, String> {
    let w = p.int("workload").ok_or("needs workload (the [[workload]] index of the job)")? as u32;
    Ok(jobs(cx.scn, cx.r).into_iter().find(|j| j.workload == w))
}

/// Job completion time: first release to last completion of the entry's
/// messages; none while any is unfinished or never released.
pub fn job_time(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    Ok(job_of(p, cx)?.and_then(|j| j.time_us))
}

/// The statistic (default mean) of the entry's completed iterations' times.
pub fn iteration_time(p: &Params, cx: &Ctx) -> Result<Option<f64>, String> {
    let Some(j) = job_of(p, cx)? else { return Ok(None) };
    let v: Vec<f64> = j.iterations_us.iter().flatten().copied().collect();
    Ok(p.stat("stat").unwrap_or(Stat::Mean).of(&v))
}
