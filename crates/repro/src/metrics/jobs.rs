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
    /// From the first release to the last completion of its messages and
    /// compute tasks, us; None while any planned message or task is
    /// unreleased or any released message unfinished.
    pub time_us: Option<f64>,
    /// Data packets of its messages sent again, and trimmed (`network.trim`).
    pub retransmits: u64,
    pub trimmed: u64,
    /// Per collective (traces: each collective node instance; a
    /// `collective` workload: one per iteration), by iteration and then
    /// first release: its iteration, number within the iteration, first
    /// release (us) and time from then to its last message's completion
    /// (us; None while unfinished).
    pub collectives: Vec<Coll>,
    /// Its hosts in rank order, after placement (collectives and traces;
    /// empty for other jobs).
    pub hosts: Vec<u32>,
    /// Per iteration (collectives, traces), in order: first release to last
    /// completion of its messages, us; None for an iteration whose messages
    /// are not all complete.
    pub iterations_us: Vec<Option<f64>>,
}

/// One collective's run within a job (see [`Job::collectives`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Coll {
    pub iteration: u32,
    pub index: u32,
    pub start_us: f64,
    pub time_us: Option<f64>,
}

/// An iteration's first release, last completion and whether all its messages are done.
type Span = (u64, u64, bool);

/// A span nothing has widened yet.
const EMPTY: Span = (u64::MAX, 0, true);

/// The mean and the maximum of `v` (None when empty): iteration and
/// collective times as the result table, the page and the sweeps show them.
pub fn mean_max(v: &[f64]) -> Option<(f64, f64)> {
    (!v.is_empty()).then(|| (v.iter().sum::<f64>() / v.len() as f64, v.iter().copied().fold(f64::MIN, f64::max)))
}

/// Per workload entry: messages released, messages finished, tasks ended,
/// the span of its tasks (first start, last end) and per iteration the span
/// of its messages.
struct Acc {
    messages: usize,
    finished: usize,
    retransmits: u64,
    trimmed: u64,
    tasks: usize,
    task_span: (u64, u64),
    iterations: BTreeMap<u32, Span>,
    /// Per (iteration, collective): the span of its messages.
    colls: BTreeMap<(u32, u32), Span>,
}

impl Default for Acc {
    fn default() -> Acc {
        Acc {
            messages: 0,
            finished: 0,
            retransmits: 0,
            trimmed: 0,
            tasks: 0,
            task_span: (u64::MAX, 0),
            iterations: BTreeMap::new(),
            colls: BTreeMap::new(),
        }
    }
}

/// The jobs of a run, by workload entry (none for a flow-only scenario).
/// A job runs from its first release (of a message, or the start of a
/// compute task: its end less its duration) to the last completion of its
/// messages and compute tasks, so compute before its first message and
/// after its last counts. An iteration runs from the first release to the
/// last completion of its messages: its communication, whether the compute
/// between iterations is a task or a delay on the next messages.
pub fn jobs(scn: &Scenario, r: &RunResult) -> Vec<Job> {
    let g = &scn.messages;
    if !g.has_messages() {
        return Vec::new();
    }
    let n_flows = scn.flows.len() as u32;
    // workload -> (messages, compute tasks) planned
    let mut planned: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
    for m in &g.messages {
        let e = planned.entry(m.tag).or_default();
        if m.compute_on.is_none() {
            e.0 += 1;
        } else {
            e.1 += 1;
        }
    }
    let meta = |id: u32| g.meta.get((id - n_flows) as usize).copied().unwrap_or_default();
    let mut acc: BTreeMap<u32, Acc> = BTreeMap::new();
    for f in r.flows.iter().filter(|f| f.conn.is_some()) {
        let e = acc.entry(f.tag.unwrap_or(0)).or_default();
        e.messages += 1;
        e.finished += usize::from(f.fct.is_some());
        e.retransmits += f.retransmits;
        e.trimmed += f.trimmed;
        let m = meta(f.id);
        extend(e.iterations.entry(m.iteration).or_insert(EMPTY), f);
        if let Some(k) = m.collective {
            extend(e.colls.entry((m.iteration, k)).or_insert(EMPTY), f);
        }
    }
    for t in &r.tasks {
        let delay = g.messages.get((t.id - n_flows) as usize).map_or(0, |m| m.delay);
        let e = acc.entry(t.tag).or_default();
        e.tasks += 1;
        e.task_span.0 = e.task_span.0.min(t.done.saturating_sub(delay));
        e.task_span.1 = e.task_span.1.max(t.done);
    }
    let mut out = Vec::new();
    for (&w, &(plan, plan_tasks)) in &planned {
        if plan == 0 {
            continue; // compute only: not a job of the network
        }
        let hosts = g.ranks.get(&w).cloned().unwrap_or_default();
        let Some(a) = acc.get(&w).filter(|a| a.messages > 0) else {
            out.push(Job {
                workload: w,
                messages: 0,
                finished: 0,
                planned: plan,
                start_us: f64::NAN,
                time_us: None,
                retransmits: 0,
                trimmed: 0,
                collectives: vec![],
                hosts,
                iterations_us: vec![],
            });
            continue;
        };
        let its = &a.iterations;
        let start = its.values().map(|i| i.0).min().unwrap_or(0).min(a.task_span.0);
        let end = its.values().map(|i| i.1).max().unwrap_or(0).max(a.task_span.1);
        let complete = a.finished == a.messages && a.messages >= plan && a.tasks >= plan_tasks;
        out.push(Job {
            workload: w,
            messages: a.messages,
            finished: a.finished,
            planned: plan,
            start_us: to_us(start),
            time_us: complete.then(|| to_us(end - start)),
            retransmits: a.retransmits,
            trimmed: a.trimmed,
            collectives: collectives(&a.colls),
            hosts,
            iterations_us: its.values().map(|i| i.2.then(|| to_us(i.1 - i.0))).collect(),
        });
    }
    out
}

/// Widens span `s` by message row `f`.
fn extend(s: &mut Span, f: &ccsim_core::results::FlowResult) {
    s.0 = s.0.min(f.start);
    match f.fct {
        Some(t) => s.1 = s.1.max(f.start + t),
        None => s.2 = false,
    }
}

/// The collectives' times, by iteration then first release.
fn collectives(spans: &BTreeMap<(u32, u32), Span>) -> Vec<Coll> {
    let mut v: Vec<(u32, u64, u32, &Span)> = spans.iter().map(|(&(it, k), s)| (it, s.0, k, s)).collect();
    v.sort_unstable_by_key(|x| (x.0, x.1, x.2));
    v.into_iter()
        .map(|(iteration, _, index, s)| Coll {
            iteration,
            index,
            start_us: to_us(s.0),
            time_us: s.2.then(|| to_us(s.1 - s.0)),
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_core::time::US;
    use ccsim_scenario::testutil::TempDir;
    use ccsim_scenario::{load_text, Overrides};

    /// A trace of two ranks: 20 us of compute, a message each way, then 50 us
    /// of compute on rank 1 (the optimizer step), twice.
    fn run() -> (Scenario, RunResult) {
        let d = TempDir::new("jobs-compute");
        d.file(
            "t.json",
            r#"{"nodes": [
                {"id": 0, "rank": 0, "type": "compute", "duration": "20us"},
                {"id": 1, "rank": 0, "type": "send", "peer": 1, "size": "100KB", "deps": [0]},
                {"id": 2, "rank": 0, "type": "recv", "peer": 1, "size": "10KB"},
                {"id": 0, "rank": 1, "type": "recv", "peer": 0, "size": "100KB"},
                {"id": 1, "rank": 1, "type": "send", "peer": 0, "size": "10KB", "deps": [0]},
                {"id": 2, "rank": 1, "type": "compute", "duration": "50us", "deps": [1]}
            ]}"#,
        );
        let text = "name = \"t\"\nschemes = [\"hpcc\"]\n[topology]\nkind = \"star\"\nhosts = 2\nrate = \"100Gbps\"\n\
                    delay = \"1us\"\n[[workload]]\nkind = \"dag\"\npath = \"t.json\"\nhosts = [0, 1]\niterations = 2\n\
                    start = \"5us\"\n";
        let s = load_text("t.toml", text, d.path(), "t", &Overrides::default()).unwrap();
        let r = s.simulate("hpcc", None).unwrap();
        (s, r)
    }

    #[test]
    fn a_job_runs_from_its_first_compute_to_the_compute_after_its_last_message() {
        let (s, r) = run();
        let j = jobs(&s, &r);
        assert_eq!(j.len(), 1);
        let j = &j[0];
        assert_eq!((j.messages, j.finished, j.planned), (4, 4, 4));
        let last_msg = r.flows.iter().map(|f| f.start + f.fct.unwrap()).max().unwrap();
        let last_task = r.tasks.iter().map(|t| t.done).max().unwrap();
        assert_eq!(last_task, last_msg + 50 * US, "the optimizer step follows the last message");
        // from the start of the first compute (5 us) to the end of the last
        assert_eq!(j.start_us, 5.0);
        assert_eq!(j.time_us, Some(to_us(last_task - 5 * US)));
        // iterations: communication only (first release to last completion of messages)
        assert_eq!(j.iterations_us.len(), 2);
        let first_release = r.flows.iter().map(|f| f.start).min().unwrap();
        assert_eq!(first_release, 25 * US);
        assert!(j.iterations_us[0].unwrap() < j.time_us.unwrap() / 2.0);

        // a task that never ran leaves the job incomplete
        let mut cut = r.clone();
        cut.tasks.retain(|t| t.done != last_task);
        assert_eq!(jobs(&s, &cut)[0].time_us, None);
    }
}
