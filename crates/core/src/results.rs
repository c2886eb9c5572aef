//! What a run produces: per-flow records, per-port counters, optional time
//! series, engine statistics; and the summaries computed from them
//! (slowdown percentiles overall and by flow-size bucket, Jain's index).

use crate::time::Time;
use serde::{Deserialize, Serialize};

/// A port named by its node and the node at the other end of its link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PortRef {
    pub node: u32,
    pub peer: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlowResult {
    pub id: u32,
    pub src: u32,
    pub dst: u32,
    pub size: u64,
    pub start: Time,
    /// Completion time (last byte received minus start); None if unfinished.
    pub fct: Option<Time>,
    /// Ideal FCT (HPCC convention): base RTT + total wire bytes x 8 / slowest link.
    pub ideal_fct: Time,
    /// max(1, fct / ideal_fct); None if unfinished.
    pub slowdown: Option<f64>,
    /// Data packets sent again (go-back-N, a trim NACK's range, after a
    /// timeout). A message: the resent packets that carried its bytes (its
    /// connection's total is in [`ConnResult`]; the messages' counts sum to it).
    pub retransmits: u64,
    /// Retransmission timeouts (`network.rto`) that fired with data in
    /// flight. A message: those that fired while it was the oldest message
    /// outstanding on its connection.
    #[serde(default)]
    pub timeouts: u64,
    /// Data packets trimmed to their header at a switch (`network.trim`). A
    /// message: those that carried its bytes while it was outstanding.
    #[serde(default)]
    pub trimmed: u64,
    /// Data packets dropped (admission, a failed link, no route). A message:
    /// those that carried its bytes while it was outstanding (a stale
    /// duplicate of a completed message counts on the connection only).
    #[serde(default)]
    pub drops: u64,
    /// A message: the connection it travelled on (index into the traffic's
    /// connections); None for a flow. A message row's `start` is its release
    /// time, its `fct` the time from release to the acknowledgement of its
    /// last byte, its ideal that of the same bytes on an idle connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conn: Option<u32>,
    /// A message: its `MessageSpec::tag` (ccsim's scenarios: the workload entry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<u32>,
}

/// A compute task that ran (a message of size 0 on one host,
/// `MessageSpec::compute_on`): it ends when it is released.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskResult {
    /// Number of flows + message id, as the message rows of [`RunResult::flows`].
    pub id: u32,
    pub host: u32,
    /// When it ended (its release: dependencies done, then its delay).
    pub done: Time,
    /// The workload entry that made it (`MessageSpec::tag`).
    pub tag: u32,
}

/// One connection's totals.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConnResult {
    /// Index into the traffic's connections.
    pub id: u32,
    pub src: u32,
    pub dst: u32,
    /// Messages released on it, and completed.
    pub messages: u32,
    pub completed: u32,
    /// Payload bytes released to it, and acknowledged.
    pub bytes: u64,
    pub acked: u64,
    /// Data packets sent again (go-back-N, trim NACKs, timeouts).
    pub retransmits: u64,
    /// Retransmission timeouts that fired with data in flight.
    #[serde(default)]
    pub timeouts: u64,
    /// Its data packets trimmed and dropped.
    #[serde(default)]
    pub trimmed: u64,
    #[serde(default)]
    pub drops: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PortResult {
    pub port: PortRef,
    pub rate_bps: u64,
    /// Bytes transmitted (all packets).
    pub tx_bytes: u64,
    /// Data payload bytes transmitted.
    pub tx_data_bytes: u64,
    /// PAUSE frames this port's node sent on this port (pausing the peer).
    pub pause_sent: u64,
    /// Total time this egress was paused by the peer (any class).
    pub paused_time: Time,
    /// The intervals (start, end) during which a class of this egress was
    /// paused, one per PAUSE .. RESUME (intervals of different classes may overlap).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paused_intervals: Vec<(Time, Time)>,
    /// Packets dropped at admission into this egress, or dropped from its queue
    /// and wire when its link went down.
    pub drops: u64,
    pub ecn_marked: u64,
    /// Data packets trimmed to their header at admission into this egress
    /// (`network.trim`): forwarded, not dropped.
    #[serde(default)]
    pub trimmed: u64,
    /// Largest egress queue seen, bytes.
    pub max_qlen: u64,
}

/// A sampled time series; `t` in picoseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub name: String,
    pub t: Vec<Time>,
    pub v: Vec<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlowTrace {
    pub flow: u32,
    /// The sender NIC's line rate (bits/s), to normalize `rate_bps`.
    pub line_rate_bps: f64,
    pub t: Vec<Time>,
    pub rate_bps: Vec<f64>,
    /// Window in bytes (u64::MAX as f64 when unlimited).
    pub window: Vec<f64>,
    /// Bytes acked so far (throughput = slope).
    pub acked: Vec<f64>,
    /// The scheme's probe value.
    pub probe: Vec<f64>,
    /// With `TraceConfig::changes`: every change of the rate or window the
    /// scheme set, as (time, rate bits/s, window bytes), in order (a control
    /// step each).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<(Time, f64, f64)>,
    /// With `TraceConfig::acks`: every ACK the sender received, as (send
    /// time of the data it acknowledges, arrival time).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub acks: Vec<(Time, Time)>,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineStats {
    pub events: u64,
    /// Data packets put on the wire by hosts (retransmissions included).
    pub data_packets: u64,
    /// Packets of any kind transmitted on any link.
    pub link_packets: u64,
    pub sim_end: Time,
    pub wall_secs: f64,
    /// CPU time of the simulating thread (Linux; the wall time elsewhere),
    /// which unlike the wall time does not grow when the machine is shared.
    #[serde(default)]
    pub cpu_secs: f64,
    pub peak_packets_in_pool: u32,
    /// Packets still allocated when the run ended (queued, on a wire); with
    /// `SimOptions::check`, after the fabric drained: 0 unless a packet leaked.
    #[serde(default)]
    pub packets_live: u32,
    /// Data payload bytes that reached their receiver host (duplicates included).
    pub data_bytes_delivered: u64,
    /// Data payload bytes dropped (admission, failed links, no route).
    pub data_bytes_dropped: u64,
    /// Data payload bytes cut from trimmed packets (`network.trim`); the
    /// sender resends them.
    #[serde(default)]
    pub data_bytes_trimmed: u64,
    /// Data payload bytes still queued or on a wire when the run ended.
    pub data_bytes_in_flight: u64,
    /// Link events (`network.link_events`) applied, those at time 0 (links
    /// that start down or up) included.
    pub link_events: u32,
    /// The events run, by kind (they sum to `events`).
    #[serde(default)]
    pub by_kind: EventCounts,
}

/// Events run, by kind. A `HostWake` superseded by an earlier one is counted
/// although it does nothing; an arrival from a failed link's wire is not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EventCounts {
    /// A packet's last bit reached the next node (one per packet and hop).
    pub arrive: u64,
    /// A port finished a transmission with more to send.
    pub tx_done: u64,
    /// A host NIC's first paced flow may send.
    pub host_wake: u64,
    /// Flows started and messages released.
    pub flow_start: u64,
    /// Scheme timers (stale ones included).
    pub timer: u64,
    /// Retransmission-timeout checks.
    pub rto: u64,
    /// Trace samples.
    pub sample: u64,
    /// Link failures and repairs.
    pub link: u64,
}

impl EventCounts {
    /// Adds `o`'s counts (the parts of a parallel run).
    pub fn add(&mut self, o: &EventCounts) {
        self.arrive += o.arrive;
        self.tx_done += o.tx_done;
        self.host_wake += o.host_wake;
        self.flow_start += o.flow_start;
        self.timer += o.timer;
        self.rto += o.rto;
        self.sample += o.sample;
        self.link += o.link;
    }

    /// The kinds' names, in the order of [`EventCounts::named`].
    pub const NAMES: [&'static str; 8] =
        ["arrive", "tx_done", "host_wake", "flow_start", "timer", "rto", "sample", "link"];

    /// Names and counts, in a fixed order.
    pub fn named(&self) -> [(&'static str, u64); 8] {
        let n =
            [self.arrive, self.tx_done, self.host_wake, self.flow_start, self.timer, self.rto, self.sample, self.link];
        std::array::from_fn(|i| (Self::NAMES[i], n[i]))
    }
}

/// How a run ended.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum RunStatus {
    /// Every flow finished.
    #[default]
    Completed,
    /// The stop time came with flows unfinished.
    Stopped,
    /// A PFC deadlock: a cycle of egress ports, each paused for the flows of
    /// priority `.1` (the flows' `prio`, as `network.pfc.lossy_prios` names
    /// them; the port's class is prio + 1) by a neighbour whose paused
    /// ingress can only drain through the next port of the cycle; closed by
    /// the last of its PAUSEs at `since`, found at `at` (once nothing was
    /// delivered for `SimOptions::stall`, or once every port of the cycle
    /// had been paused that long while other traffic still moved).
    Deadlock { at: Time, since: Time, cycle: Vec<(PortRef, u8)> },
    /// Flows remained and no data was delivered from `since` to `at`
    /// (`SimOptions::stall`), without a PFC cycle.
    Stalled { at: Time, since: Time },
    /// Stopped on request (`SimOptions::interrupt`, e.g. Ctrl-C) at `at`.
    Interrupted { at: Time },
}

impl RunStatus {
    /// "completed", "stopped", "deadlock", "stalled", "interrupted".
    pub fn name(&self) -> &'static str {
        match self {
            RunStatus::Completed => "completed",
            RunStatus::Stopped => "stopped",
            RunStatus::Deadlock { .. } => "deadlock",
            RunStatus::Stalled { .. } => "stalled",
            RunStatus::Interrupted { .. } => "interrupted",
        }
    }

    /// A sentence for people, e.g. "PFC deadlock: since 6.1us the paused
    /// egress ports form a cycle 5:6 -> 6:7 -> 7:5 -> (back to the first)
    /// (priority 0), found at 10006.1us".
    pub fn describe(&self) -> String {
        let us = |t: &Time| format!("{:.3}us", *t as f64 / 1e6);
        match self {
            RunStatus::Completed => "every flow finished".into(),
            RunStatus::Stopped => "stopped at the stop time with flows unfinished".into(),
            RunStatus::Deadlock { at, since, cycle } => format!(
                "PFC deadlock: since {} the paused egress ports form a cycle {} -> (back to the first){}, found at {}",
                us(since),
                cycle.iter().map(|(p, _)| format!("{}:{}", p.node, p.peer)).collect::<Vec<_>>().join(" -> "),
                cycle.first().map(|c| format!(" (priority {})", c.1)).unwrap_or_default(),
                us(at),
            ),
            RunStatus::Stalled { at, since } => {
                format!("stalled: flows remain but no data was delivered from {} to {}", us(since), us(at))
            }
            RunStatus::Interrupted { at } => format!("interrupted at {} of simulated time", us(at)),
        }
    }
}

/// A sequential run's events counted as a conservative parallel run of
/// `threads` threads would see them ([`crate::partition::plan`] cuts the
/// network; time is cut into windows as long as the smallest delay of a
/// link between parts, and every window ends at a barrier). A projection:
/// no thread ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ParallelProjection {
    pub threads: usize,
    /// What a unit kept whole is ([`crate::partition::Plan::unit`]).
    pub unit: String,
    /// The window, in ps.
    pub window: Time,
    pub cut_links: usize,
    /// Per part: its hosts.
    pub hosts: Vec<u32>,
    /// Windows with at least one event: the barriers a run that skips empty
    /// windows crosses.
    pub barriers: u64,
    /// Per part: the events it runs.
    pub part_events: Vec<u64>,
    /// Events every part must wait for (samples, link changes), run alone.
    pub serial_events: u64,
    /// Sum over windows of the busiest part's events: the run's length in
    /// events when every part runs at once.
    pub critical_events: u64,
    /// Mean events per window per part (over the windows with events).
    pub mean_window_events: f64,
    /// Most events one part ran in one window.
    pub max_window_events: u64,
    /// Per part: the share of the critical path it waits.
    pub idle: Vec<f64>,
}

impl ParallelProjection {
    /// All events over the events on the critical path plus the serial
    /// ones and `barrier_events` per barrier: the speedup over one thread
    /// when a barrier costs as long as `barrier_events` events.
    pub fn speedup(&self, barrier_events: f64) -> f64 {
        let total = self.part_events.iter().sum::<u64>() + self.serial_events;
        let path = self.critical_events as f64 + self.serial_events as f64 + self.barriers as f64 * barrier_events;
        if path > 0.0 {
            total as f64 / path
        } else {
            1.0
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub scheme: String,
    /// The flows (ids 0.. in the order given), then the messages that were
    /// released (id = number of flows + message id).
    pub flows: Vec<FlowResult>,
    /// The connections, by id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conns: Vec<ConnResult>,
    /// The compute tasks that ran, by id (a job ends with its last one when
    /// compute follows its last message).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<TaskResult>,
    /// Messages and compute tasks never released (waiting for a time, a
    /// dependency or a delay when the run ended).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub messages_waiting: u64,
    pub ports: Vec<PortResult>,
    /// Queue length (bytes) of the traced ports.
    pub queues: Vec<Series>,
    /// Utilization (0..1) of the traced ports per sampling interval.
    pub utilization: Vec<Series>,
    pub flow_traces: Vec<FlowTrace>,
    pub engine: EngineStats,
    /// Total packets dropped anywhere.
    pub drops: u64,
    /// Total data packets trimmed anywhere (`network.trim`).
    #[serde(default)]
    pub trimmed: u64,
    pub pause_frames: u64,
    /// Data packets sent again, all flows and connections (the sum of the
    /// flows' and connections' `retransmits`; also that of the flow and
    /// message rows of `flows`).
    #[serde(default)]
    pub retransmits: u64,
    /// Retransmission timeouts fired, all flows and connections.
    #[serde(default)]
    pub timeouts: u64,
    /// True when the run ended with flows unfinished (any status but completed).
    pub truncated: bool,
    /// How the run ended.
    #[serde(default)]
    pub status: RunStatus,
    /// With `SimOptions::check`: Ok when every invariant held, else what broke.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Result<(), String>>,
    /// True when the traces were streamed to CSV files in `TraceConfig::dir`
    /// (`queues`, `utilization`, `flow_traces` then hold only a preview).
    #[serde(default)]
    pub traces_streamed: bool,
    /// Why the traces streamed to disk (`TraceConfig::dir`) are incomplete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_error: Option<String>,
    /// The scheme's switch counters (`SwitchCc::counters`), each name summed
    /// over all switches, and under receiver credits the core's
    /// `credit_pulls`, `credit_rts` and `credit_bytes` (granted); sorted by
    /// name; empty when nothing is counted.
    pub scheme_counters: Vec<(String, u64)>,
    /// Per flow (index = flow id): data packets that were head-of-line blocked
    /// by a PAUSE caused by traffic that is not their own. A packet counts when
    /// it waited in a switch egress queue paused by PFC (it was queued while the
    /// class was paused, or when the PAUSE arrived) and, at the next switch (the
    /// one that sent the PAUSE), its own egress queue is shorter than the PFC
    /// headroom of the ingress it arrived on (3 x rate x delay + 2 packets by
    /// default): the paused ingress was filled by traffic to other egresses.
    /// Approximation: waits at a host NIC paused by its ToR are not counted.
    pub hol_pkts: Vec<u64>,
    /// What the network was given for this scheme and what to keep in mind
    /// reading its numbers ([`crate::compat::resolve`]): a receiver chosen
    /// for it, a combination that runs as asked but is easy to misread.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<crate::compat::Note>,
    /// With `TraceConfig::rtt`: every RTT sample of the run, binned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt: Option<RttHistogram>,
    /// With [`crate::options::SimOptions::project_threads`]: what a
    /// conservative parallel run of this run would do, per thread count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parallel: Vec<ParallelProjection>,
}

/// Every RTT sample of a run (ACK arrival minus the send time of the data it
/// acknowledges, all flows), binned on a log scale: bin i holds samples in
/// [base x 1.01^i, base x 1.01^(i+1)) with base 100 ns; the first bin also
/// holds shorter samples, the last longer ones. Percentiles read from it are
/// within 1%.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RttHistogram {
    pub counts: Vec<u64>,
}

impl RttHistogram {
    /// Lower edge of bin 0 (ps).
    pub const BASE: f64 = 100_000.0;
    /// Ratio of successive bin edges.
    pub const GROWTH: f64 = 1.01;
    /// Bins: 100 ns to about 1 s.
    pub const BINS: usize = 1_620;

    pub fn new() -> RttHistogram {
        RttHistogram { counts: vec![0; Self::BINS] }
    }

    #[inline]
    pub fn add(&mut self, rtt: Time) {
        let x = rtt as f64 / Self::BASE;
        let i = if x <= 1.0 { 0 } else { ((x.ln() / Self::GROWTH.ln()) as usize).min(Self::BINS - 1) };
        self.counts[i] += 1;
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The geometric middle of bin i (ps).
    pub fn value_of(i: usize) -> f64 {
        Self::BASE * Self::GROWTH.powf(i as f64 + 0.5)
    }

    /// The p-th percentile (0..=100, nearest rank) in ps; None when empty.
    pub fn percentile(&self, p: f64) -> Option<f64> {
        let n = self.total();
        if n == 0 {
            return None;
        }
        let rank = ((p / 100.0) * n as f64).ceil().clamp(1.0, n as f64) as u64;
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(Self::value_of(i));
            }
        }
        None
    }

    /// The mean in ps (bin middles); None when empty.
    pub fn mean(&self) -> Option<f64> {
        let n = self.total();
        (n > 0)
            .then(|| self.counts.iter().enumerate().map(|(i, &c)| c as f64 * Self::value_of(i)).sum::<f64>() / n as f64)
    }
}

/// avg / percentiles of a set of values.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    pub count: usize,
    pub avg: f64,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// Percentile by nearest rank on sorted data (p in 0..=100).
pub fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl Stats {
    pub fn of(values: &[f64]) -> Stats {
        if values.is_empty() {
            return Stats { count: 0, avg: f64::NAN, p50: f64::NAN, p95: f64::NAN, p99: f64::NAN, max: f64::NAN };
        }
        let mut v = values.to_vec();
        v.sort_by(|a, b| a.total_cmp(b));
        Stats {
            count: v.len(),
            avg: v.iter().sum::<f64>() / v.len() as f64,
            p50: percentile_sorted(&v, 50.0),
            p95: percentile_sorted(&v, 95.0),
            p99: percentile_sorted(&v, 99.0),
            max: *v.last().unwrap(),
        }
    }
}

/// Fixed flow-size buckets used in reports: (label, lower bound inclusive, upper exclusive).
pub const SIZE_BUCKETS: [(&str, u64, u64); 3] =
    [("<100KB", 0, 100_000), ("100KB-1MB", 100_000, 1_000_000), (">=1MB", 1_000_000, u64::MAX)];

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub flows: usize,
    pub finished: usize,
    pub slowdown: Stats,
    /// (bucket label, stats) for SIZE_BUCKETS.
    pub by_size: Vec<(String, Stats)>,
    pub fct_us: Stats,
    pub drops: u64,
    pub pause_frames: u64,
    /// Data packets sent again ([`RunResult::retransmits`]).
    pub retransmits: u64,
    /// Retransmission timeouts fired ([`RunResult::timeouts`]).
    pub timeouts: u64,
    /// Data packets trimmed ([`RunResult::trimmed`]).
    pub trimmed: u64,
    /// Data packets sent by hosts, resends included ([`EngineStats::data_packets`]).
    pub data_packets: u64,
    /// Sum over ports of paused time, microseconds.
    pub paused_time_us: f64,
    pub max_queue_bytes: u64,
}

impl RunResult {
    /// Share of flows with at least one head-of-line-blocked packet (see
    /// [`RunResult::hol_pkts`]); 0 for a run without flows.
    pub fn hol_blocked_share(&self) -> f64 {
        if self.hol_pkts.is_empty() {
            return 0.0;
        }
        self.hol_pkts.iter().filter(|&&n| n > 0).count() as f64 / self.hol_pkts.len() as f64
    }

    pub fn summary(&self) -> Summary {
        let done: Vec<&FlowResult> = self.flows.iter().filter(|f| f.slowdown.is_some()).collect();
        let sd: Vec<f64> = done.iter().map(|f| f.slowdown.unwrap()).collect();
        let fct: Vec<f64> = done.iter().map(|f| crate::time::to_us(f.fct.unwrap())).collect();
        let by_size = SIZE_BUCKETS
            .iter()
            .map(|(l, lo, hi)| {
                let v: Vec<f64> =
                    done.iter().filter(|f| f.size >= *lo && f.size < *hi).map(|f| f.slowdown.unwrap()).collect();
                (l.to_string(), Stats::of(&v))
            })
            .collect();
        Summary {
            flows: self.flows.len(),
            finished: done.len(),
            slowdown: Stats::of(&sd),
            by_size,
            fct_us: Stats::of(&fct),
            drops: self.drops,
            pause_frames: self.pause_frames,
            retransmits: self.retransmits,
            timeouts: self.timeouts,
            trimmed: self.trimmed,
            data_packets: self.engine.data_packets,
            paused_time_us: self.ports.iter().map(|p| crate::time::to_us(p.paused_time)).sum(),
            max_queue_bytes: self.ports.iter().map(|p| p.max_qlen).max().unwrap_or(0),
        }
    }

    /// HPCC-style buckets: flows sorted by size and cut into `n` groups of equal
    /// count; returns (largest size in group, stats of slowdown).
    pub fn count_buckets(&self, n: usize) -> Vec<(u64, Stats)> {
        let mut done: Vec<&FlowResult> = self.flows.iter().filter(|f| f.slowdown.is_some()).collect();
        done.sort_by_key(|f| (f.size, f.id));
        if done.is_empty() || n == 0 {
            return vec![];
        }
        let mut out = Vec::new();
        for i in 0..n {
            let a = i * done.len() / n;
            let b = (i + 1) * done.len() / n;
            if a == b {
                continue;
            }
            let v: Vec<f64> = done[a..b].iter().map(|f| f.slowdown.unwrap()).collect();
            out.push((done[b - 1].size, Stats::of(&v)));
        }
        out
    }
}

/// Fairness of the traced flows over time (see [`RunResult::traced_fairness`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fairness {
    /// Windows in which at least two traced flows were active throughout.
    pub windows: usize,
    pub mean_jain: f64,
    pub min_jain: f64,
}

impl RunResult {
    /// Jain's index of the goodput (acknowledged bytes) of the traced flows, per
    /// window of `window` (rounded to whole trace samples), over the windows in
    /// which at least two traced flows were active from its start to its end.
    /// None without flow traces or such windows.
    pub fn traced_fairness(&self, window: Time) -> Option<Fairness> {
        let tr = &self.flow_traces;
        let t = &tr.first()?.t;
        if t.len() < 2 {
            return None;
        }
        let step = (window / (t[1] - t[0]).max(1)).max(1) as usize;
        let span = |f: u32| {
            let r = &self.flows[f as usize];
            (r.start, r.fct.map(|x| r.start + x).unwrap_or(Time::MAX))
        };
        let mut js = Vec::new();
        let mut i = 0;
        while i + step < t.len() {
            let (a, b) = (t[i], t[i + step]);
            let x: Vec<f64> = tr
                .iter()
                .filter(|f| {
                    let (s, e) = span(f.flow);
                    s <= a && e >= b
                })
                .map(|f| f.acked[i + step] - f.acked[i])
                .collect();
            if x.len() >= 2 {
                js.push(jain(&x));
            }
            i += step;
        }
        if js.is_empty() {
            return None;
        }
        Some(Fairness {
            windows: js.len(),
            mean_jain: js.iter().sum::<f64>() / js.len() as f64,
            min_jain: js.iter().cloned().fold(f64::INFINITY, f64::min),
        })
    }
}

/// Jain's fairness index (sum x)^2 / (n sum x^2); 1 = perfectly fair.
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if s2 == 0.0 {
        return 1.0;
    }
    s * s / (x.len() as f64 * s2)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn traced_fairness_counts_only_windows_with_two_active_flows() {
        let f = |id: u32, start: Time, fct: Time| FlowResult {
            id,
            src: 0,
            dst: 1,
            size: 1,
            start,
            fct: Some(fct),
            ideal_fct: 1,
            slowdown: Some(1.0),
            retransmits: 0,
            conn: None,
            tag: None,
            ..Default::default()
        };
        let tr =
            |flow: u32, acked: Vec<f64>| FlowTrace { flow, t: vec![0, 10, 20, 30, 40], acked, ..Default::default() };
        let r = RunResult {
            flows: vec![f(0, 0, 40), f(1, 10, 25)],
            // flow 0 gets 3x flow 1's goodput while both run (10..40)
            flow_traces: vec![tr(0, vec![0.0, 10.0, 13.0, 16.0, 19.0]), tr(1, vec![0.0, 0.0, 1.0, 2.0, 2.0])],
            ..Default::default()
        };
        let fair = r.traced_fairness(10).unwrap();
        // windows 10-20 and 20-30 have both flows active; 0-10 and 30-40 do not
        assert_eq!(fair.windows, 2);
        assert!((fair.mean_jain - 0.8).abs() < 1e-12, "{fair:?}");
        assert_eq!(r.traced_fairness(0).unwrap().windows, 2);
        assert!(RunResult::default().traced_fairness(10).is_none());
    }

    #[test]
    fn stats_and_jain() {
        let v: Vec<f64> = (1..=100).map(|x| x as f64).collect();
        let s = Stats::of(&v);
        assert_eq!(s.p50, 50.0);
        assert_eq!(s.p95, 95.0);
        assert_eq!(s.p99, 99.0);
        assert_eq!(s.avg, 50.5);
        assert!((jain(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
    }
}
