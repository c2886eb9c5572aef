//! Helpers of the OSCAR network tests (`tests/oscar.rs`):
//!
//! * [`Scn`]: a scenario file read with the same `[topology]`, `[network]`,
//!   `[[workload]]` and `[scheme.NAME]` tables as `ccsim` (other keys ignored);
//! * [`Recorder`]: wraps any scheme and logs, for chosen flows, every change of
//!   the sender's rate or window (one "control step" each) and every ACK's
//!   (send time, arrival time) pair, exactly rather than sampled;
//! * convergence analysis of such a log (steps and time until the rate enters,
//!   or stays within, a band around a fair share) and the gradient estimators'
//!   errors against the true queue gradient.

use ccsim_core::cc::{FlowView, PortStat, ReceiverCc, Requirements, Scheme, SenderCc, SenderCx, SwitchCc};
use ccsim_core::packet::Packet;
use ccsim_core::results::{RunResult, Series};
use ccsim_core::sim::{run, SimOptions, TraceConfig};
use ccsim_core::time::Time;
use ccsim_core::units::Dur;
use ccsim_core::{FlowSpec, NetConfig, PortRef, Topology};
use ccsim_scenario::spec::{generate_all, WorkloadSpec};
use ccsim_scenario::topo::TopoSpec;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// OSCAR's experiments folder, `experiments/oscar/` (scenario files of
/// `ccsim reproduce oscar`).
pub fn experiments_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/oscar")
}

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    seed: Option<u64>,
    stop: Option<Dur>,
    topology: TopoSpec,
    #[serde(default)]
    network: NetConfig,
    workload: Vec<WorkloadSpec>,
    #[serde(default)]
    scheme: BTreeMap<String, toml::Value>,
    trace: Option<TraceSec>,
}

#[derive(Deserialize)]
struct TraceSec {
    interval: Option<Dur>,
    #[serde(default)]
    queues: Vec<String>,
}

/// A scenario ready to run.
pub struct Scn {
    pub seed: u64,
    pub stop: Option<Time>,
    pub topo: Topology,
    pub net: NetConfig,
    pub flows: Vec<FlowSpec>,
    pub params: BTreeMap<String, toml::Value>,
    /// `[trace] queues` ports and interval (0 if none).
    pub trace_queues: Vec<PortRef>,
    pub trace_interval: Time,
}

impl Scn {
    pub fn load(path: &Path) -> Result<Scn, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let f: File = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        let topo = f.topology.build(base)?;
        let seed = f.seed.unwrap_or(1);
        let flows = generate_all(&f.workload, &topo, base, seed)?;
        let mut trace_queues = Vec::new();
        for q in f.trace.as_ref().map(|t| t.queues.as_slice()).unwrap_or(&[]) {
            let (a, b) = q.split_once(':').ok_or_else(|| format!("trace queue {q}: expected node:peer"))?;
            let p = |x: &str| x.trim().parse::<u32>().map_err(|e| format!("trace queue {q}: {e}"));
            trace_queues.push(PortRef { node: p(a)?, peer: p(b)? });
        }
        let trace_interval = f.trace.as_ref().and_then(|t| t.interval).map(|d| d.0).unwrap_or(0);
        Ok(Scn {
            seed,
            stop: f.stop.map(|d| d.0),
            topo,
            net: f.network,
            flows,
            params: f.scheme,
            trace_queues,
            trace_interval,
        })
    }

    /// Scheme `name` with the scenario's `[scheme.name]` table.
    pub fn make(&self, name: &str) -> Result<Box<dyn Scheme>, String> {
        ccsim_cc::make(name, self.params.get(name))
    }

    /// Runs scheme `name` (see [`Scn::make`]), recording `watch` flows.
    pub fn run(&self, name: &str, watch: &[u32], trace: TraceConfig) -> Result<(RunResult, Logs), String> {
        let rec = Recorder::new(self.make(name)?, watch);
        let opts = SimOptions { seed: self.seed, stop_at: self.stop, trace, ..Default::default() };
        let r = run(&self.topo, &self.net, &self.flows, &rec, &opts, None)?;
        Ok((r, rec.logs()))
    }
}

/// What [`Recorder`] logged for one flow.
#[derive(Clone, Debug, Default)]
pub struct FlowLog {
    /// (time, rate bits/s, window bytes) at start and after every change.
    pub rates: Vec<(Time, f64, u64)>,
    /// (send time echoed by the ACK, ACK arrival time) of every ACK.
    pub acks: Vec<(Time, Time)>,
    /// Line rate of the flow (bits/s).
    pub line_rate: f64,
}

pub type Logs = HashMap<u32, FlowLog>;

/// A scheme wrapper that logs the senders of chosen flows.
pub struct Recorder {
    inner: Box<dyn Scheme>,
    watch: Vec<u32>,
    logs: Arc<Mutex<Logs>>,
}

impl Recorder {
    pub fn new(inner: Box<dyn Scheme>, watch: &[u32]) -> Recorder {
        Recorder { inner, watch: watch.to_vec(), logs: Arc::default() }
    }
    /// The logs (complete once the run has returned).
    pub fn logs(&self) -> Logs {
        self.logs.lock().unwrap().clone()
    }
}

impl Scheme for Recorder {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn requirements(&self) -> Requirements {
        self.inner.requirements()
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        let inner = self.inner.sender(flow);
        if !self.watch.contains(&flow.id) {
            return inner;
        }
        Box::new(RecSender {
            inner,
            id: flow.id,
            log: FlowLog { line_rate: flow.line_rate as f64, ..Default::default() },
            sink: self.logs.clone(),
        })
    }
    fn receiver(&self, flow: &FlowView) -> Box<dyn ReceiverCc> {
        self.inner.receiver(flow)
    }
    fn switch(&self, node: u32, ports: &[PortStat]) -> Option<Box<dyn SwitchCc>> {
        self.inner.switch(node, ports)
    }
}

struct RecSender {
    inner: Box<dyn SenderCc>,
    id: u32,
    log: FlowLog,
    sink: Arc<Mutex<Logs>>,
}

impl RecSender {
    /// Logs a change. The core keeps whole bits/s, so a rate that differs
    /// from the last by less than 1 bit/s is the same rate read back.
    fn note(&mut self, cx: &SenderCx) {
        let now = (cx.now, cx.rate, cx.window);
        match self.log.rates.last() {
            Some(&(_, r, w)) if (r - now.1).abs() < 1.0 && w == now.2 => {}
            _ => self.log.rates.push(now),
        }
    }
}

impl Drop for RecSender {
    fn drop(&mut self) {
        self.sink.lock().unwrap().insert(self.id, std::mem::take(&mut self.log));
    }
}

impl SenderCc for RecSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        self.inner.on_start(cx);
        self.note(cx);
    }
    fn on_ack(&mut self, cx: &mut SenderCx, ack: &Packet) {
        self.log.acks.push((ack.ts, cx.now));
        self.inner.on_ack(cx, ack);
        self.note(cx);
    }
    fn on_nack(&mut self, cx: &mut SenderCx, nack: &Packet) {
        self.inner.on_nack(cx, nack);
        self.note(cx);
    }
    fn on_control(&mut self, cx: &mut SenderCx, pkt: &Packet) {
        self.inner.on_control(cx, pkt);
        self.note(cx);
    }
    fn on_timer(&mut self, cx: &mut SenderCx, slot: usize) {
        self.inner.on_timer(cx, slot);
        self.note(cx);
    }
    fn on_send(&mut self, cx: &mut SenderCx, pkt: &mut Packet) {
        self.inner.on_send(cx, pkt);
        self.note(cx);
    }
    fn on_timeout(&mut self, cx: &mut SenderCx) {
        self.inner.on_timeout(cx);
        self.note(cx);
    }
    fn probe(&self) -> f64 {
        self.inner.probe()
    }
}

/// How a flow's rate reached a new fair share after an event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Convergence {
    /// Rate changes from the event until the rate entered the band (for good,
    /// in [`converge`]; the first time, in [`first_reach`]).
    pub steps: usize,
    /// Time from the event until then.
    pub time: Time,
}

/// The log's rate (bits/s) at time `t` (0 before its start).
fn rate_at(log: &FlowLog, t: Time) -> f64 {
    match log.rates.partition_point(|r| r.0 <= t) {
        0 => 0.0,
        i => log.rates[i - 1].1,
    }
}

/// Control steps (rate or window changes) in (from, to].
fn steps_between(log: &FlowLog, from: Time, to: Time) -> usize {
    log.rates.iter().filter(|r| r.0 > from && r.0 <= to).count()
}

/// Earliest time in [from, until) from which the rate stays within
/// `fair` x (1 +- tol) until `until`, with the number of rate changes in
/// (from, that time]; None if the rate is outside the band at `until`.
pub fn converge(log: &FlowLog, from: Time, until: Time, fair: f64, tol: f64) -> Option<Convergence> {
    let inside = |r: f64| (r - fair).abs() <= tol * fair;
    let mut entered = from;
    let mut ok = inside(rate_at(log, from));
    for c in log.rates.iter().filter(|r| r.0 > from && r.0 < until) {
        let now_in = inside(c.1);
        if now_in && !ok {
            entered = c.0;
        }
        ok = now_in;
    }
    if !ok {
        return None;
    }
    Some(Convergence { steps: steps_between(log, from, entered), time: entered - from })
}

/// First time in [from, until) the rate is within `fair` x (1 +- tol), with
/// the number of rate changes in (from, that time]; None if it never is.
pub fn first_reach(log: &FlowLog, from: Time, until: Time, fair: f64, tol: f64) -> Option<Convergence> {
    let inside = |r: f64| (r - fair).abs() <= tol * fair;
    if inside(rate_at(log, from)) {
        return Some(Convergence { steps: 0, time: 0 });
    }
    log.rates
        .iter()
        .filter(|r| r.0 > from && r.0 < until)
        .find(|c| inside(c.1))
        .map(|c| Convergence { steps: steps_between(log, from, c.0), time: c.0 - from })
}

/// Linear interpolation of a sampled series at `t`.
fn series_at(s: &Series, t: Time) -> f64 {
    let i = s.t.partition_point(|&x| x <= t);
    if i == 0 {
        return s.v.first().copied().unwrap_or(0.0);
    }
    if i == s.t.len() {
        return *s.v.last().unwrap();
    }
    let (t0, t1) = (s.t[i - 1] as f64, s.t[i] as f64);
    let (v0, v1) = (s.v[i - 1], s.v[i]);
    v0 + (v1 - v0) * (t as f64 - t0) / (t1 - t0)
}

/// Gradient estimates of one flow's ACK samples against the true queue gradient.
#[derive(Clone, Debug, Default)]
pub struct GradientErrors {
    /// Batches compared (non-idle BLS batches).
    pub batches: usize,
    pub mse_bls: f64,
    pub mse_ewma: f64,
    /// Mean absolute true gradient over the compared batches.
    pub mean_abs_true: f64,
}

/// Replays `acks` (send time, ACK arrival) through BLS (period `tau`) and
/// divide+EWMA (old-value weight `w`); at each BLS batch close compares both
/// estimates with the true gradient of the bottleneck queue `q` (bytes,
/// sampled finely) at a port of rate `c` bits/s over the batch's send span,
/// shifted by `offset` (send -> arrival at that queue):
/// g_true = (q(last + offset) - q(first + offset)) x 8 / (c x (last - first)).
pub fn gradient_errors(
    acks: &[(Time, Time)],
    q: &Series,
    c: f64,
    offset: Time,
    tau: Time,
    w: f64,
    from: Time,
) -> GradientErrors {
    use ccsim_cc::oscar::{Bls, DivideEwma};
    let mut bls = Bls::new(tau, 3, 3.0);
    let mut ewma = DivideEwma::new(w);
    let mut e = GradientErrors::default();
    for &(send, at) in acks {
        let delay = at - send;
        let ge = ewma.push(send, delay);
        if let Some(b) = bls.push(send, delay, 0.0) {
            if b.idle || b.first_send < from {
                continue;
            }
            let span = (b.last_send - b.first_send) as f64;
            let dq = series_at(q, b.last_send + offset) - series_at(q, b.first_send + offset);
            let g_true = dq * 8.0 / c / (span / 1e12);
            e.batches += 1;
            e.mse_bls += (b.gradient - g_true).powi(2);
            e.mse_ewma += (ge - g_true).powi(2);
            e.mean_abs_true += g_true.abs();
        }
    }
    let n = e.batches.max(1) as f64;
    e.mse_bls /= n;
    e.mse_ewma /= n;
    e.mean_abs_true /= n;
    e
}
