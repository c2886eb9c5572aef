//! Traces: queue length and utilization of chosen egress ports and the
//! rate, window, acknowledged bytes and probe of chosen flows, sampled every
//! `TraceConfig::interval`, plus optional logs of every rate/window change
//! and every ACK of the traced flows.
//!
//! Kept in memory by default (what library users and the reproduction
//! metrics read). With `TraceConfig::dir`, every sample is streamed as it is
//! taken to CSV files in that folder (`queues.csv`, `utilization.csv`,
//! `flow_traces.csv`, `changes.csv`, `acks.csv`) and memory holds only a
//! preview of at most [`PREVIEW_POINTS`] samples per series (every k-th
//! sample, k doubling as the run goes on) and no logs, so a long run's
//! traces cost disk, not memory.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::event::Key;
use crate::results::{FlowTrace, Series};
use crate::time::Time;

/// Samples kept in memory per series when streaming to disk.
pub const PREVIEW_POINTS: usize = 20_000;

/// A decimal with at most `prec` decimals, trailing zeros removed ("1.5", "3", "NaN" as empty).
pub fn num(x: f64, prec: usize) -> String {
    if !x.is_finite() {
        return String::new();
    }
    let s = format!("{x:.prec$}");
    if s.contains('.') {
        let t = s.trim_end_matches('0').trim_end_matches('.');
        if t == "-0" {
            "0".into()
        } else {
            t.to_string()
        }
    } else {
        s
    }
}

/// A time in us with up to 6 decimals, trailing zeros removed: the text
/// [`num`]`(t / 1e6, 6)` gives for every time below 10^9 us, written from
/// the integer (no float formatting, no allocation: the streamed traces
/// write one per row).
struct Us(Time);

impl std::fmt::Display for Us {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (whole, mut frac) = (self.0 / 1_000_000, self.0 % 1_000_000);
        if frac == 0 {
            return write!(f, "{whole}");
        }
        let mut digits = 6;
        while frac % 10 == 0 {
            frac /= 10;
            digits -= 1;
        }
        write!(f, "{whole}.{frac:0digits$}")
    }
}

fn us(t: Time) -> Us {
    Us(t)
}

/// The CSV files of a streamed trace.
struct Streams {
    queues: Option<BufWriter<File>>,
    utilization: Option<BufWriter<File>>,
    flows: Option<BufWriter<File>>,
    changes: Option<BufWriter<File>>,
    acks: Option<BufWriter<File>>,
}

fn open(dir: &Path, name: &str, header: &str) -> std::io::Result<BufWriter<File>> {
    let p = dir.join(name);
    let f =
        File::create(&p).map_err(|e| std::io::Error::new(e.kind(), format!("cannot write {}: {e}", p.display())))?;
    let mut w = BufWriter::with_capacity(1 << 16, f);
    writeln!(w, "{header}")?;
    Ok(w)
}

pub(crate) struct Tracer {
    pub interval: Time,
    pub queue_ports: Vec<u32>,
    pub util_ports: Vec<u32>,
    pub util_last: Vec<u64>,
    pub flows: Vec<u32>,
    pub queues: Vec<Series>,
    pub utilization: Vec<Series>,
    pub flow_traces: Vec<FlowTrace>,
    pub changes: bool,
    pub acks: bool,
    streams: Option<Streams>,
    /// Streaming was asked for (stays true after a write error stopped it).
    streamed: bool,
    /// Samples taken so far, and every how many the preview keeps.
    taken: u64,
    stride: u64,
    /// The first write error of the streams (streaming stops there).
    pub error: Option<String>,
    /// In a part of a parallel run: what the part traced, for the run's
    /// one tracer (part 0's) to take in order at the barriers; the part
    /// records nothing itself.
    pub part: Option<PartLog>,
}

/// What a part of a parallel run traced since the last barrier
/// (`parallel.rs` merges the parts' logs into the run's tracer).
#[derive(Default)]
pub(crate) struct PartLog {
    /// Its samples, every series sampled (the coordinator keeps each
    /// port's values from the part owning the port, each flow's from its
    /// sender's part).
    pub samples: Vec<PartSample>,
    /// The traced flows' changes and ACKs, each with the time and key of
    /// the event it happened in: in event order within the part.
    pub events: Vec<(Time, Key, TraceEvent)>,
}

/// One sampling instant in a part.
pub(crate) struct PartSample {
    pub time: Time,
    /// Flows finished in this part before the sample (the run samples on
    /// while the parts' sum is below the number of flows).
    pub finished: usize,
    pub qlen: Vec<f64>,
    pub util: Vec<f64>,
    pub flows: Vec<FlowSample>,
}

/// A traced flow's change of rate or window, or an ACK it received.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TraceEvent {
    Change { slot: u32, rate: f64, window: f64 },
    Ack { slot: u32, sent: Time },
}

/// One sample of a traced flow.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlowSample {
    pub rate: f64,
    pub window: f64,
    pub acked: f64,
    pub probe: f64,
}

impl Tracer {
    /// A tracer for the given series; opens the CSV files when `dir` is given.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        interval: Time,
        queue_ports: Vec<(u32, String)>,
        util_ports: Vec<(u32, String)>,
        flows: Vec<(u32, f64)>,
        changes: bool,
        acks: bool,
        dir: Option<&Path>,
    ) -> Result<Tracer, String> {
        let streams = match dir {
            None => None,
            Some(d) => {
                let fail = |e: std::io::Error| e.to_string();
                let some = |on: bool, name: &str, header: &str| -> Result<Option<BufWriter<File>>, String> {
                    if on {
                        open(d, name, header).map(Some).map_err(fail)
                    } else {
                        Ok(None)
                    }
                };
                Some(Streams {
                    queues: some(!queue_ports.is_empty(), "queues.csv", "port,t_us,queue_bytes")?,
                    utilization: some(!util_ports.is_empty(), "utilization.csv", "port,t_us,utilization_fraction")?,
                    flows: some(
                        !flows.is_empty(),
                        "flow_traces.csv",
                        "flow,t_us,rate_gbps,window_bytes,acked_bytes,probe",
                    )?,
                    changes: some(changes && !flows.is_empty(), "changes.csv", "flow,t_us,rate_gbps,window_bytes")?,
                    acks: some(acks && !flows.is_empty(), "acks.csv", "flow,sent_us,acked_us")?,
                })
            }
        };
        let series = |list: &[(u32, String)]| {
            list.iter().map(|(_, n)| Series { name: n.clone(), ..Default::default() }).collect()
        };
        Ok(Tracer {
            interval,
            util_last: vec![0; util_ports.len()],
            queues: series(&queue_ports),
            utilization: series(&util_ports),
            queue_ports: queue_ports.iter().map(|x| x.0).collect(),
            util_ports: util_ports.iter().map(|x| x.0).collect(),
            flow_traces: flows
                .iter()
                .map(|&(f, line)| FlowTrace { flow: f, line_rate_bps: line, ..Default::default() })
                .collect(),
            flows: flows.iter().map(|x| x.0).collect(),
            changes,
            acks,
            streamed: streams.is_some(),
            streams,
            taken: 0,
            stride: 1,
            error: None,
            part: None,
        })
    }

    fn streaming(&self) -> bool {
        self.streams.is_some()
    }

    /// Whether the samples went to CSV files (the series hold a preview),
    /// even if a write error stopped the streaming part way.
    pub fn streamed(&self) -> bool {
        self.streamed
    }

    /// Whether the preview keeps the current sample; halves the preview when full.
    fn keep(&mut self) -> bool {
        if !self.streamed {
            return true;
        }
        let n = self.queues.first().map(|s| s.t.len()).or_else(|| self.utilization.first().map(|s| s.t.len()));
        let n = n.or_else(|| self.flow_traces.first().map(|f| f.t.len())).unwrap_or(0);
        if n >= PREVIEW_POINTS {
            self.stride *= 2;
            let halve = |t: &mut Vec<Time>| *t = t.iter().step_by(2).copied().collect();
            let halve_v = |v: &mut Vec<f64>| *v = v.iter().step_by(2).copied().collect();
            for s in self.queues.iter_mut().chain(self.utilization.iter_mut()) {
                halve(&mut s.t);
                halve_v(&mut s.v);
            }
            for f in &mut self.flow_traces {
                halve(&mut f.t);
                halve_v(&mut f.rate_bps);
                halve_v(&mut f.window);
                halve_v(&mut f.acked);
                halve_v(&mut f.probe);
            }
        }
        self.taken.is_multiple_of(self.stride)
    }

    fn write(&mut self, pick: fn(&mut Streams) -> &mut Option<BufWriter<File>>, line: std::fmt::Arguments) {
        if self.error.is_some() {
            return;
        }
        if let Some(w) = self.streams.as_mut().and_then(|s| pick(s).as_mut()) {
            if let Err(e) = w.write_fmt(line).and_then(|_| w.write_all(b"\n")) {
                self.error = Some(format!("writing the traces stopped: {e}"));
                self.streams = None;
            }
        }
    }

    /// One sampling instant: queues, utilization (bytes sent per interval
    /// over capacity) and flows.
    pub fn sample(&mut self, now: Time, qlen: &[f64], util: &[f64], flows: &[FlowSample]) {
        let keep = self.keep();
        self.taken += 1;
        for (i, &q) in qlen.iter().enumerate() {
            let name = self.queues[i].name.clone();
            self.write(|s| &mut s.queues, format_args!("{name},{},{}", us(now), num(q, 6)));
            if keep {
                self.queues[i].t.push(now);
                self.queues[i].v.push(q);
            }
        }
        if now > 0 {
            for (i, &u) in util.iter().enumerate() {
                let name = self.utilization[i].name.clone();
                self.write(|s| &mut s.utilization, format_args!("{name},{},{}", us(now), num(u, 6)));
                if keep {
                    self.utilization[i].t.push(now);
                    self.utilization[i].v.push(u);
                }
            }
        }
        for (i, x) in flows.iter().enumerate() {
            let f = self.flows[i];
            // an unlimited window (u64::MAX) is written as an empty field
            let window = if x.window >= u64::MAX as f64 { String::new() } else { num(x.window, 0) };
            self.write(
                |s| &mut s.flows,
                format_args!(
                    "{f},{},{},{window},{},{}",
                    us(now),
                    num(x.rate / 1e9, 6),
                    num(x.acked, 0),
                    num(x.probe, 6)
                ),
            );
            if keep {
                let tr = &mut self.flow_traces[i];
                tr.t.push(now);
                tr.rate_bps.push(x.rate);
                tr.window.push(x.window);
                tr.acked.push(x.acked);
                tr.probe.push(x.probe);
            }
        }
    }

    /// A traced flow's change or ACK, in the event at `at` (time, key): a
    /// part logs it for the run's tracer, which takes it in [`Tracer::apply`].
    pub fn event(&mut self, at: (Time, Key), ev: TraceEvent) {
        match self.part.as_mut() {
            Some(log) => log.events.push((at.0, at.1, ev)),
            None => self.apply(at.0, ev),
        }
    }

    /// Records a traced flow's change or ACK at `now`.
    pub fn apply(&mut self, now: Time, ev: TraceEvent) {
        match ev {
            TraceEvent::Change { slot, rate, window } => self.change(slot, now, rate, window),
            TraceEvent::Ack { slot, sent } => self.ack(slot, sent, now),
        }
    }

    /// A traced flow changed its rate or window.
    fn change(&mut self, slot: u32, now: Time, rate: f64, window: f64) {
        if self.streaming() {
            let f = self.flows[slot as usize];
            let w = if window >= u64::MAX as f64 { String::new() } else { num(window, 0) };
            self.write(|s| &mut s.changes, format_args!("{f},{},{},{w}", us(now), num(rate / 1e9, 6)));
        } else {
            self.flow_traces[slot as usize].changes.push((now, rate, window));
        }
    }

    /// A traced flow received an ACK of data sent at `sent`.
    fn ack(&mut self, slot: u32, sent: Time, now: Time) {
        if self.streaming() {
            let f = self.flows[slot as usize];
            self.write(|s| &mut s.acks, format_args!("{f},{},{}", us(sent), us(now)));
        } else {
            self.flow_traces[slot as usize].acks.push((sent, now));
        }
    }

    /// Flushes the streams; returns the first write error, if any.
    pub fn finish(&mut self) -> Option<String> {
        if let Some(s) = self.streams.as_mut() {
            for w in
                [&mut s.queues, &mut s.utilization, &mut s.flows, &mut s.changes, &mut s.acks].into_iter().flatten()
            {
                if let Err(e) = w.flush() {
                    self.error.get_or_insert(format!("writing the traces stopped: {e}"));
                }
            }
        }
        self.error.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The integer formatter writes what the float one wrote, for times up
    /// to 1000 s (far past any run) and at the edges of the decimals.
    #[test]
    fn times_in_us_read_as_the_float_text_did() {
        let mut rng = crate::rng::Rng::new(7);
        let mut cases: Vec<Time> = vec![0, 1, 9, 10, 999_999, 1_000_000, 1_000_001, 1_500_000, 123_456_789_000];
        for _ in 0..200_000 {
            let scale = 10u64.pow(rng.below(16) as u32);
            cases.push(rng.below(scale.max(2)));
        }
        for t in cases {
            assert_eq!(us(t).to_string(), num(t as f64 / 1e6, 6), "t = {t} ps");
        }
    }
}
