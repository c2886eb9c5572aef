//! The metric vocabulary: every number a claim compares with a paper is one
//! of these, computed from a run's results (and the scenario it ran). No
//! metric knows a paper; a paper's claim names a metric and its parameters.
//! The table [`SPECS`] declares each metric's parameters and unit; the
//! families are computed in [`flows`] (per-flow results), [`ports`] (port
//! counters and traced queue/utilization series), [`traces`] (traced flows:
//! rates, goodput, fairness, control steps, RTT samples), [`special`]
//! (scheme counters and OSCAR's gradient estimate) and [`fair`] (the fluid
//! max-min-fair bound of the run's flows).
//!
//! A value of `None` means "undefined": never reached, no flows in range.
//! Time-like metrics treat it as "never" (it ranks last); the report shows it
//! as "never".

pub(crate) mod fair;
mod flows;
pub mod jobs;
mod params;
mod ports;
mod special;
mod traces;

pub use params::{Kind, Params, Stat};

use ccsim_core::results::RunResult;
use ccsim_core::time::Time;
use ccsim_scenario::Scenario;
use Kind::*;

/// The unit a metric's value is computed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Microseconds.
    Us,
    Bytes,
    Gbps,
    /// 0..1.
    Fraction,
    Count,
    /// Dimensionless (slowdown, Jain's index, a probe).
    Ratio,
    /// Control steps.
    Steps,
}

/// What a metric reads: the run's results and the scenario it ran.
pub struct Ctx<'a> {
    pub r: &'a RunResult,
    pub scn: &'a Scenario,
}

/// A metric: name, unit, parameters, one line of doc.
pub struct Spec {
    pub name: &'static str,
    pub unit: Unit,
    pub params: &'static [(&'static str, Kind)],
    pub doc: &'static str,
    compute: fn(&Params, &Ctx) -> Result<Option<f64>, String>,
}

const SIZES: [(&str, Kind); 4] = [("stat", Stat), ("min_size", Size), ("max_size", Size), ("workload", Int)];
const FAIR: [(&str, Kind); 7] =
    [SIZES[0], SIZES[1], SIZES[2], SIZES[3], ("finished_only", Bool), ("vs_run", Bool), ("fabric", Text)];
const WINDOW: [(&str, Kind); 3] = [("from", Time), ("to", Time), ("last", Number)];

macro_rules! spec {
    ($name:literal, $unit:ident, [$($p:expr),* $(,)?], $doc:literal, $f:path) => {
        Spec { name: $name, unit: Unit::$unit, params: &[$($p),*], doc: $doc, compute: $f }
    };
}

/// Every metric. `experiments/README.md` documents them for manifest writers.
pub const SPECS: &[Spec] = &[
    spec!(
        "slowdown",
        Ratio,
        [SIZES[0], SIZES[1], SIZES[2], SIZES[3]],
        "FCT slowdown statistic over finished flows (default avg)",
        flows::slowdown
    ),
    spec!("fct", Us, [SIZES[0], SIZES[1], SIZES[2], SIZES[3]], "FCT statistic over finished flows", flows::fct),
    spec!(
        "line_slowdown",
        Ratio,
        [SIZES[0], SIZES[1], SIZES[2], SIZES[3]],
        "FCT / (wire bytes / sender line rate), no base RTT",
        flows::line_slowdown
    ),
    spec!(
        "fair_fct",
        Us,
        [FAIR[0], FAIR[1], FAIR[2], FAIR[3], FAIR[4], FAIR[5], FAIR[6]],
        "FCT statistic of the run's flows under fluid max-min-fair sharing of their paths (the bound a fair scheme could reach); vs_run: its change against the run's own fct, as a fraction",
        fair::fair_fct
    ),
    spec!(
        "fair_slowdown",
        Ratio,
        [FAIR[0], FAIR[1], FAIR[2], FAIR[3], FAIR[4], FAIR[5], FAIR[6]],
        "as fair_fct, the slowdown max(1, fair FCT / ideal FCT); vs_run: its change against the run's own slowdown",
        fair::fair_slowdown
    ),
    spec!("finished", Fraction, [SIZES[1], SIZES[2], SIZES[3]], "fraction of flows finished", flows::finished),
    spec!("unfinished", Count, [SIZES[1], SIZES[2], SIZES[3]], "flows not finished", flows::unfinished),
    spec!(
        "flow_goodput",
        Gbps,
        [SIZES[0], SIZES[1], SIZES[2], SIZES[3]],
        "payload / FCT of each finished flow, statistic",
        flows::flow_goodput
    ),
    spec!(
        "incast_goodput",
        Gbps,
        [("flows", Flows), SIZES[3]],
        "total payload / (last completion - first start)",
        flows::incast_goodput
    ),
    spec!(
        "completion",
        Us,
        [("flows", Flows), SIZES[3]],
        "when the last of the flows completed (from time 0)",
        flows::completion
    ),
    spec!(
        "job_time",
        Us,
        [("workload", Int)],
        "completion time of a workload entry that makes messages (a job): first release (of a message, or the start of a compute task) to the last completion of its messages and compute tasks; none while any is unfinished or never ran",
        jobs::job_time
    ),
    spec!(
        "iteration_time",
        Us,
        [("workload", Int), ("stat", Stat)],
        "per iteration of a job's messages (collectives, traces): first release to last completion of its messages (compute not counted), statistic over the completed iterations (default mean)",
        jobs::iteration_time
    ),
    spec!(
        "offered_load",
        Fraction,
        [("workload", Int), ("from", Time), ("to", Time)],
        "payload of the flows starting in from..to x 8 / (all hosts' link rates x the window)",
        flows::offered_load
    ),
    spec!(
        "flow_size",
        Bytes,
        [("stat", Text), SIZES[1], SIZES[2], SIZES[3], ("finished_only", Bool)],
        "statistic of the sizes of flows in range, or stat = \"share\": the fraction of all flows in range",
        flows::flow_size
    ),
    spec!(
        "hol_share",
        Fraction,
        [SIZES[1], SIZES[2], SIZES[3]],
        "fraction of flows with a head-of-line-blocked packet",
        flows::hol_share
    ),
    spec!("retransmits", Count, [], "data packets resent", flows::retransmits),
    spec!("timeouts", Count, [], "retransmission timeouts fired with data in flight", flows::timeouts),
    spec!(
        "pause_frames",
        Count,
        [("ports", Ports), ("per_ms", Bool)],
        "PAUSE frames sent (all ports or `ports`)",
        ports::pause_frames
    ),
    spec!("paused_time", Us, [("ports", Ports)], "time ports spent paused, summed", ports::paused_time),
    spec!(
        "pause_duration",
        Us,
        [("ports", Ports), ("from", Time), ("to", Time)],
        "length of the union of the ports' paused intervals in from..to",
        ports::pause_duration
    ),
    spec!("drops", Count, [], "packets dropped", ports::drops),
    spec!("trimmed", Count, [], "data packets trimmed to their header (network.trim)", ports::trimmed),
    spec!("max_queue", Bytes, [("port", Port)], "largest egress queue, exact", ports::max_queue),
    spec!(
        "queue",
        Bytes,
        [("port", Port), ("stat", Stat), WINDOW[0], WINDOW[1], WINDOW[2]],
        "statistic of a traced queue (default mean)",
        ports::queue
    ),
    spec!(
        "queue_delay",
        Us,
        [("port", Port), ("stat", Stat), WINDOW[0], WINDOW[1], WINDOW[2]],
        "traced queue as queueing delay at the port's rate",
        ports::queue_delay
    ),
    spec!(
        "queue_above",
        Fraction,
        [("port", Port), ("threshold", Size), WINDOW[0], WINDOW[1], WINDOW[2]],
        "share of queue samples above threshold",
        ports::queue_above
    ),
    spec!(
        "queue_clear_time",
        Us,
        [("port", Port), ("from", Time), ("to", Time), ("below", Size)],
        "earliest time after which the queue stays at or below `below`",
        ports::queue_clear_time
    ),
    spec!(
        "drain_time",
        Us,
        [("port", Port), ("from", Time), ("to", Time), ("below", Size)],
        "from `from` to the first sample at or below `below` after the window's peak",
        ports::drain_time
    ),
    spec!(
        "queue_episode",
        Us,
        [("port", Port), ("ports", Ports), ("high", Size), ("stat", Stat), WINDOW[0], WINDOW[1], WINDOW[2]],
        "durations of episodes with a traced queue above `high`, pooled over ports, statistic (default mean)",
        ports::queue_episode
    ),
    spec!(
        "utilization",
        Fraction,
        [("port", Port), ("stat", Stat), WINDOW[0], WINDOW[1], WINDOW[2]],
        "statistic of a traced utilization (default mean)",
        ports::utilization
    ),
    spec!(
        "time_to_utilization",
        Us,
        [
            ("port", Port),
            ("from", Time),
            ("from_done", Flows),
            ("to", Time),
            ("threshold", Number),
            ("hold", Bool),
            ("window", Time)
        ],
        "from `from` until utilization reaches threshold (and holds)",
        ports::time_to_utilization
    ),
    spec!(
        "underutilization",
        Us,
        [("port", Port), ("from", Time), ("to", Time), ("threshold", Number)],
        "capacity lost below threshold, in us at line rate",
        ports::underutilization
    ),
    spec!(
        "refill_time",
        Us,
        [("port", Port), ("flow", Flow), ("threshold", Number), ("window", Time), ("horizon", Time), ("offset", Time)],
        "after `flow` completes (less `offset`): end of the last window under threshold",
        ports::refill_time
    ),
    spec!(
        "completion_utilization",
        Fraction,
        [("port", Port), ("flows", Flows), ("offset", Time)],
        "mean utilization between the first and last completion",
        ports::completion_utilization
    ),
    spec!(
        "utilization_episode",
        Us,
        [("port", Port), ("threshold", Number), ("window", Time), ("stat", Stat), WINDOW[0], WINDOW[1], WINDOW[2]],
        "durations of episodes with the trailing-window utilization under threshold, statistic (default max)",
        ports::utilization_episode
    ),
    spec!(
        "window",
        Bytes,
        [("flow", Flow), ("stat", Stat), WINDOW[0], WINDOW[1], WINDOW[2]],
        "statistic of a traced flow's window (default mean; unlimited windows left out)",
        traces::window_stat
    ),
    spec!(
        "rate",
        Gbps,
        [("flow", Flow), ("stat", Stat), WINDOW[0], WINDOW[1], WINDOW[2]],
        "statistic of a traced flow's pacing rate (default mean)",
        traces::rate
    ),
    spec!(
        "first_rate_drop",
        Us,
        [("flow", Flow), ("after", Time), ("below", Number), ("drop", Number)],
        "first trace time after `after` with the rate below below x line rate (or drop below its prior rate)",
        traces::first_rate_drop
    ),
    spec!(
        "reaction_delay",
        Us,
        [("flow", Flow), ("port", Port), ("after", Time), ("below", Number), ("drop", Number), ("queue_above", Size)],
        "first_rate_drop minus the congestion onset (queue above queue_above)",
        traces::reaction_delay
    ),
    spec!(
        "goodput",
        Gbps,
        [("flows", Flows), WINDOW[0], WINDOW[1], WINDOW[2]],
        "acknowledged payload rate of traced flows, summed",
        traces::goodput
    ),
    spec!(
        "jain",
        Ratio,
        [("flows", Flows), WINDOW[0], WINDOW[1], WINDOW[2]],
        "Jain's index of the traced flows' goodputs",
        traces::jain
    ),
    spec!(
        "jain_min",
        Ratio,
        [("flows", Flows), ("from", Time), ("to", Time), ("window", Time), ("step", Time)],
        "lowest Jain's index over windows",
        traces::jain_min
    ),
    spec!(
        "share",
        Ratio,
        [("flow", Flow), WINDOW[0], WINDOW[1], WINDOW[2], ("fair", Rate), ("fair_frac", Number)],
        "a flow's goodput over its fair share",
        traces::share
    ),
    spec!(
        "time_to_fair",
        Us,
        [("flows", Flows), ("from", Time), ("window", Time), ("step", Time), ("tol", Number)],
        "from `from` until every later window is fair",
        traces::time_to_fair
    ),
    spec!(
        "time_to_rate",
        Us,
        [
            ("flow", Flow),
            ("from", Time),
            ("from_done", Flows),
            ("to", Time),
            ("target", Rate),
            ("target_frac", Number),
            ("tol", Number),
            ("hold", Bool),
            ("signal", Text),
            ("window", Time)
        ],
        "from `from` (or when `from_done` flows completed) until the pacing rate (or `signal = \"throughput\"`) is within tol of target (and holds)",
        traces::time_to_rate
    ),
    spec!(
        "throughput",
        Gbps,
        [("flow", Flow), ("window", Time), ("stat", Stat), WINDOW[0], WINDOW[1], WINDOW[2]],
        "statistic of what a traced flow delivered: acknowledged payload over a trailing window (default 5 trace intervals) at each sample",
        traces::throughput
    ),
    spec!(
        "time_to_window",
        Us,
        [("flow", Flow), ("from", Time), ("from_done", Flows), ("target", Size), ("hold", Bool)],
        "from `from` (or when `from_done` flows completed) until the window reaches target (and holds)",
        traces::time_to_window
    ),
    spec!(
        "steps_to_rate",
        Steps,
        [
            ("flow", Flow),
            ("from", Time),
            ("from_done", Flows),
            ("to", Time),
            ("target", Rate),
            ("target_frac", Number),
            ("tol", Number),
            ("hold", Bool),
            ("min_change", Number)
        ],
        "control steps until the rate is within tol of target (needs trace.changes; changes under min_change x the rate do not count)",
        traces::steps_to_rate
    ),
    spec!(
        "rate_changes",
        Steps,
        [("flow", Flow), ("from", Time), ("to", Time)],
        "changes of a flow's rate or window (needs trace.changes)",
        traces::rate_changes
    ),
    spec!(
        "probe",
        Ratio,
        [("flow", Flow), ("stat", Stat), WINDOW[0], WINDOW[1], WINDOW[2]],
        "statistic of a flow's scheme probe",
        traces::probe
    ),
    spec!(
        "rtt",
        Us,
        [("flows", Flows), ("stat", Stat), ("from", Time), ("to", Time)],
        "RTT samples of traced flows (needs trace.acks)",
        traces::rtt
    ),
    spec!(
        "counter",
        Count,
        [("name", Text), ("per_second", Bool), ("gbps", Bool)],
        "a scheme counter summed over switches",
        special::counter
    ),
    spec!(
        "gradient_error",
        Ratio,
        [("flow", Flow), ("port", Port), ("from", Time), ("estimator", Text), ("tau", Time), ("weight", Number)],
        "OSCAR: MSE of a delay-gradient estimator against the queue's (needs trace.acks)",
        special::gradient_error
    ),
    spec!("events", Count, [], "simulator events", special::events),
    spec!("data_packets", Count, [], "data packets sent by hosts (retransmissions included)", special::data_packets),
];

/// The spec of a metric.
pub fn spec(name: &str) -> Result<&'static Spec, String> {
    SPECS.iter().find(|s| s.name == name).ok_or_else(|| {
        format!("unknown metric '{name}' (known: {})", SPECS.iter().map(|s| s.name).collect::<Vec<_>>().join(", "))
    })
}

/// Parameters every metric takes: `origin` (a time subtracted from a
/// time-valued metric, to compare delays rather than instants), `rtt` (the
/// base RTT for unit "rtts") and `packet` (bytes per packet for unit "pkts",
/// default 1048).
pub const GENERIC: &[(&str, Kind)] = &[("origin", Time), ("rtt", Time), ("packet", Size)];

/// Checks a parameter table against the metric's parameters.
pub fn check(name: &str, p: &toml::Table) -> Result<(), String> {
    let s = spec(name)?;
    for (k, v) in p {
        let Some((_, kind)) = s.params.iter().chain(GENERIC).find(|(n, _)| n == k) else {
            return Err(format!(
                "metric '{name}' has no parameter '{k}' (it takes: {})",
                s.params.iter().chain(GENERIC).map(|p| p.0).collect::<Vec<_>>().join(", ")
            ));
        };
        params::check_kind(k, *kind, v)?;
    }
    Ok(())
}

/// The unit a metric computes in (a counter with `gbps = true` is a rate).
pub fn unit_of(name: &str, p: &toml::Table) -> Unit {
    if name == "counter" && p.get("gbps").and_then(|v| v.as_bool()) == Some(true) {
        return Unit::Gbps;
    }
    if name == "flow_size" && p.get("stat").and_then(|v| v.as_str()) == Some("share") {
        return Unit::Fraction;
    }
    if matches!(name, "fair_fct" | "fair_slowdown") && p.get("vs_run").and_then(|v| v.as_bool()) == Some(true) {
        return Unit::Ratio;
    }
    spec(name).map(|s| s.unit).unwrap_or(Unit::Ratio)
}

/// Computes a metric on one run.
pub fn compute(name: &str, p: &toml::Table, cx: &Ctx) -> Result<Option<f64>, String> {
    let s = spec(name)?;
    check(name, p)?;
    let q = Params::new(p);
    let origin = match (q.time("origin"), unit_of(name, p)) {
        (Some(o), Unit::Us) => o as f64 / 1e6,
        (Some(_), _) => return Err(format!("metric '{name}' is not a time: `origin` does not apply")),
        (None, _) => 0.0,
    };
    (s.compute)(&q, cx).map(|v| v.filter(|x| x.is_finite()).map(|x| x - origin))
}

/// Checks, before anything runs, that the scenario records what the metric
/// reads: traced queues and utilization of its port, traced flows, and
/// `[trace] changes` / `acks` where the metric needs them.
pub fn needs(name: &str, p: &toml::Table, scn: &Scenario) -> Result<(), String> {
    let q = Params::new(p);
    let t = &scn.trace;
    let series = |what: &str, list: &[ccsim_core::results::PortRef]| -> Result<(), String> {
        if let Some(port) = q.port("port") {
            if !list.contains(&port) {
                return Err(format!(
                    "metric '{name}' reads the {what} of port {}:{}, which the scenario does not trace ([trace] {what})",
                    port.node, port.peer
                ));
            }
        }
        Ok(())
    };
    let queue = matches!(
        name,
        "queue"
            | "queue_delay"
            | "queue_above"
            | "queue_clear_time"
            | "drain_time"
            | "queue_episode"
            | "reaction_delay"
            | "gradient_error"
    );
    let util = matches!(
        name,
        "utilization"
            | "time_to_utilization"
            | "underutilization"
            | "refill_time"
            | "completion_utilization"
            | "utilization_episode"
    );
    let histogram = name == "rtt" && t.rtt && !(q.has("flows") || q.has("from") || q.has("to"));
    let traced = !histogram
        && matches!(
            name,
            "rate"
                | "first_rate_drop"
                | "reaction_delay"
                | "goodput"
                | "jain"
                | "jain_min"
                | "share"
                | "time_to_fair"
                | "time_to_rate"
                | "time_to_window"
                | "window"
                | "throughput"
                | "steps_to_rate"
                | "rate_changes"
                | "probe"
                | "rtt"
                | "gradient_error"
        );
    if queue {
        series("queues", &t.queue_ports)?;
    }
    if util {
        series("utilization", &t.util_ports)?;
    }
    let n = scn.flows.len() as u32;
    let mut ids: Vec<u32> = q.flow("flow").into_iter().collect();
    for k in ["flows", "from_done"] {
        ids.extend(q.flows(k).unwrap_or_default());
    }
    if let Some(&f) = ids.iter().find(|&&f| f >= n) {
        return Err(format!("metric '{name}': flow {f} does not exist (the scenario has {n} flows)"));
    }
    if traced {
        let want: Vec<u32> =
            [q.flow("flow").into_iter().collect::<Vec<_>>(), q.flows("flows").unwrap_or_default()].concat();
        if let Some(f) = want.iter().find(|f| !t.flows.contains(f)) {
            return Err(format!("metric '{name}' reads flow {f}, which the scenario does not trace ([trace] flows)"));
        }
        if want.is_empty() && t.flows.is_empty() {
            return Err(format!("metric '{name}' reads traced flows and the scenario traces none ([trace] flows)"));
        }
    }
    if matches!(name, "steps_to_rate" | "rate_changes") && !t.changes {
        return Err(format!("metric '{name}' counts control steps: set [trace] changes = true"));
    }
    if (name == "gradient_error" || name == "rtt" && !histogram) && !t.acks {
        return Err(format!(
            "metric '{name}' reads ACK samples: set [trace] acks = true{}",
            if name == "rtt" { " (or [trace] rtt = true for every flow's RTT)" } else { "" }
        ));
    }
    if matches!(name, "fair_fct" | "fair_slowdown") {
        fair::fabric_of(name, &q)?;
    }
    if name == "max_queue" {
        if let Some(port) = q.port("port") {
            let linked = scn
                .topo
                .links
                .iter()
                .any(|l| (l.a, l.b) == (port.node, port.peer) || (l.b, l.a) == (port.node, port.peer));
            if !linked {
                return Err(format!("metric '{name}': there is no link {}:{}", port.node, port.peer));
            }
        }
    }
    Ok(())
}

/// Converts a value from a metric's unit to a claim's unit.
pub fn convert(from: Unit, to: &str, v: f64, p: &toml::Table) -> Result<f64, String> {
    let packet = Params::new(p).size("packet").unwrap_or(1048) as f64;
    let rtt_us = Params::new(p).time("rtt").map(|t| t as f64 / 1e6);
    let bad = || Err(format!("a value in {from:?} cannot be given in '{to}'"));
    Ok(match (from, to) {
        (_, "") => v,
        (Unit::Us, "us") => v,
        (Unit::Us, "ns") => v * 1e3,
        (Unit::Us, "ms") => v / 1e3,
        (Unit::Us, "s") => v / 1e6,
        (Unit::Us, "rtts") => match rtt_us {
            Some(r) if r > 0.0 => v / r,
            _ => return Err("unit 'rtts' needs the base RTT as params.rtt".into()),
        },
        (Unit::Bytes, "B") => v,
        (Unit::Bytes, "KB") => v / 1e3,
        (Unit::Bytes, "MB") => v / 1e6,
        (Unit::Bytes, "GB") => v / 1e9,
        (Unit::Bytes, "pkts") => v / packet,
        (Unit::Gbps, "Gbps") => v,
        (Unit::Gbps, "Mbps") => v * 1e3,
        (Unit::Fraction | Unit::Ratio, "%") => v * 100.0,
        (Unit::Fraction | Unit::Ratio | Unit::Count, "x") => v,
        (Unit::Steps | Unit::Count, "steps") => v,
        _ => return bad(),
    })
}

// ---- helpers shared by the families ----

/// The [from, to] window of a metric: `from`/`to`, or the `last` fraction
/// of the run; defaults to the whole run.
pub(crate) fn window(p: &Params, r: &RunResult) -> (Time, Time) {
    let end = r.engine.sim_end;
    let to = p.time("to").unwrap_or(end);
    let from = match (p.time("from"), p.num("last")) {
        (Some(f), _) => f,
        (None, Some(l)) => end - (end as f64 * l.clamp(0.0, 1.0)) as Time,
        _ => 0,
    };
    (from, to)
}

/// Values of a series sampled in [from, to].
pub(crate) fn in_window(t: &[Time], v: &[f64], from: Time, to: Time) -> Vec<f64> {
    t.iter().zip(v).filter(|(x, _)| **x >= from && **x <= to).map(|(_, &y)| y).collect()
}

pub(crate) fn us(t: Time) -> f64 {
    t as f64 / 1e6
}

/// A required parameter, or an error naming it.
pub(crate) fn need<T>(v: Option<T>, name: &str) -> Result<T, String> {
    v.ok_or_else(|| format!("parameter '{name}' is required"))
}

#[cfg(test)]
mod tests;
