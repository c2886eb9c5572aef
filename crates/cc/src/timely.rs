//! TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the
//! Datacenter", SIGCOMM'15): rate control from the RTT gradient.
//!
//! * No switch or receiver support: the core's ACK echoes the data packet's send
//!   time (`ack.ts`), which is all TIMELY needs.
//! * RTT sample. `rtt = now - ack.ts`, where `ack.ts` is the time the data packet
//!   started serializing at the sender NIC. With `subtract_serialization = true`
//!   (the default) the NIC serialization of that data packet at line rate is taken
//!   off, as TIMELY §3.1 does for a segment ("RTT = completion time - send time -
//!   seg. size / NIC line rate"): the sample then runs from the packet's last bit
//!   leaving the NIC to the ACK's arrival, i.e. propagation, switch serialization,
//!   queueing and the ACK's return. It still includes the ACK's own serialization.
//!   With `false` the sample is the raw `now - ack.ts`.
//! * Update granularity. TIMELY updates once per *completion event*, the ACK of a
//!   whole segment of 16-64 KB (§6 uses 16 KB). Here a completion event is the
//!   first ACK whose cumulative sequence reaches the next multiple of `segment`
//!   bytes (and the ACK that completes the flow); its RTT is that ACK's sample.
//!   `segment = 0` makes every ACK an event (one update per ACK). ACKs between
//!   events are ignored, the gradient EWMA included. The core paces packets
//!   individually at the rate, not segments in line-rate bursts.
//! * Time-based update gates (`update_interval`, default `"segment"`: the byte
//!   gate above). `"tau"`: one update per tau* = max{seg/R, D_minRTT} (SQCC
//!   paper eq. 3, its flow model of patched TIMELY "based on paper [23]", Zhu
//!   et al. CoNEXT'16; Table I: "tau* Rate Update Interval"), with seg = `segment`
//!   here, R the current rate and D_minRTT = `min_rtt` (the same symbol as the
//!   gradient's normalizer): the first ACK at least tau* after the last update
//!   (or the flow's start) is the next event. `"rtt"`: one update per round
//!   trip, the first ACK of a packet sent at or after the last update (or the
//!   start), so that every update sees an RTT sample taken after the previous
//!   rate change. Neither time gate has a flow-end event: it counts time, not
//!   data. See [`UpdateGate`].
//! * Per event (TIMELY Algorithm 1; also SQCC paper Algorithm 1):
//!   new_rtt_diff = rtt - prev_rtt; prev_rtt = rtt;
//!   rtt_diff = (1 - alpha) rtt_diff + alpha new_rtt_diff  (alpha weighs the NEW
//!   difference; the first sample has no predecessor and gives 0);
//!   g = rtt_diff / min_rtt;
//!   rtt < T_low: R += delta;
//!   rtt > T_high: R *= 1 - beta (1 - T_high / rtt);
//!   else g <= 0: R += N delta, N = `hai_factor` in HAI mode, else N = 1;
//!   else R *= 1 - beta g.
//!   HAI mode: the last `hai_thresh` events (this one included) each had a
//!   negative new_rtt_diff (Algorithm 1: "N = 5 if gradient < 0 for five
//!   completion events"; the TIMELY authors' code snippet counts consecutive
//!   negative raw RTT differences, which is what is done here).
//!   One update never cuts R below `decrease_floor` x R (authors' code snippet:
//!   "decrease in rate capped by 0.5 times the old rate"); then R is clamped to
//!   [min_rate, line rate].
//!
//! TIMELY has no unique fixed point (Zhu et al., "ECN or Delay", CoNEXT'16): any
//! split of the link whose RTT sits in [T_low, T_high] with a zero gradient is
//! stable, so fairness is not guaranteed; see `patched_timely` for the fix.
//!
//! Observed in ccsim (tests/timely.rs: 10 Gbps dumbbell, 1 us links, defaults,
//! flows starting at line rate): the first segments see g > 1 and each update
//! halves the rate, so the flows collapse to a few hundred Mbps and take ~40 ms
//! (2 flows) to ~65 ms (4 flows) to refill the link at delta per segment. Then
//! the gradient rule keeps the queue between empty and ~60 KB (mean RTT below
//! T_low, never near T_high) at ~0.94-0.96 utilization. Two symmetric flows stay
//! near-equal (Jain 0.99); four drift apart (Jain 0.83 over 90-130 ms); an
//! 80/20 start widens to ~98/2. With `segment = 0` (per-ACK updates) the same
//! 2 flows hold the RTT at ~53 us, just above T_low, at full utilization.
//!
//! Shared with `patched_timely` and `sqcc`: [`Common`] (the parameters all three
//! have under the same keys, their range checks and `PARAMS` rows), [`RttGradient`]
//! (the gradient EWMA), [`UpdateGate`] (update granularity and timing,
//! [`UpdateInterval`]), [`rtt_sample`] and
//! [`high_decrease`]. `probe()` returns the last RTT sample in microseconds.

use crate::registry::SchemeConfig;
use ccsim_core::cc::{FlowView, Scheme, SenderCc, SenderCx};
use ccsim_core::packet::Packet;
use ccsim_core::time::{ser_time, Time, US};
use ccsim_core::units::{Bytes, Dur, Rate};
use serde::{Deserialize, Serialize};

/// TIMELY parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimelyConfig {
    /// EWMA weight of the newest RTT difference, as in
    /// rtt_diff = (1 - alpha) rtt_diff + alpha (new_rtt - prev_rtt).
    /// Default 0.875 (TIMELY Algorithm 1 puts alpha on the new sample; 0.875 is
    /// the value the SQCC paper's setup gives the TIMELY family and
    /// spec/ALGORITHMS.md B2; the TIMELY paper's §6 names none, and the authors'
    /// code snippet recommends 0.02, i.e. much heavier smoothing).
    pub alpha: f64,
    /// Multiplicative decrease factor beta. Default 0.8 (TIMELY §6).
    pub beta: f64,
    /// Below this RTT: additive increase whatever the gradient. Default 50us
    /// (TIMELY §6).
    pub t_low: Dur,
    /// Above this RTT: decrease by beta (1 - T_high / rtt). Default 500us
    /// (TIMELY §6).
    pub t_high: Dur,
    /// D_minRTT, the gradient's normalizer: g = rtt_diff / min_rtt. Default 20us
    /// (spec/ALGORITHMS.md B2; TIMELY's minimum RTT of its testbed).
    pub min_rtt: Dur,
    /// Additive increment delta. Default 10Mbps (TIMELY §6).
    pub delta: Rate,
    /// Consecutive completion events with a falling RTT (negative new RTT
    /// difference) after which an increase in the gradient region uses
    /// `hai_factor` x delta (hyperactive increase). Default 5 (TIMELY Algorithm 1:
    /// "N = 5 if gradient < 0 for five completion events"; authors' code snippet
    /// HAI_Thresh = 5).
    pub hai_thresh: u32,
    /// N of HAI mode. Default 5 (TIMELY Algorithm 1).
    pub hai_factor: u32,
    /// Update granularity: one update per `segment` bytes acknowledged (a
    /// completion event); 0 = one update per ACK. Default 16KiB (TIMELY §6:
    /// "segment size of 16 KB"; KB there is 1024 B, cf. its 64 KB = 51 us at 10G).
    pub segment: Bytes,
    /// When the rate is updated (see [`UpdateInterval`]): "segment" = one
    /// update per `segment` bytes acknowledged, as above; "tau" = one per
    /// tau* = max{segment/R, D_minRTT} (SQCC paper eq. 3, its flow model after
    /// Zhu et al. CoNEXT'16: "tau* Rate Update Interval", Table I), D_minRTT =
    /// `min_rtt`; "rtt" = one per round trip (the first ACK of a packet sent
    /// after the last update; SQCC paper §II-B: "the RTT measured in each
    /// round"). Default "segment" (TIMELY §6: one update per completion event).
    pub update_interval: UpdateInterval,
    /// Lowest rate. Default 1Mbps [unverified: the papers give none; ccsim's
    /// choice, below the 10 Mbps fair share of a 1000:1 incast at 10 Gbps].
    pub min_rate: Rate,
    /// One update never cuts the rate below this fraction of its old value; 0 =
    /// no floor (Algorithm 1 as printed, where 1 - beta g can go below 0).
    /// Default 0.5 (the TIMELY authors' code snippet, timely-code-snippet.cc:
    /// "decrease in rate capped by 0.5 times the old rate").
    pub decrease_floor: f64,
    /// Starting rate as a fraction of the NIC line rate, in (0, 1]. Default 1.0
    /// [unverified: the papers do not say; a RoCE NIC starts at line rate].
    pub init_rate_fraction: f64,
    /// Take the data packet's NIC serialization (its wire size at line rate) off
    /// each RTT sample, as TIMELY §3.1 does per segment. Default true.
    pub subtract_serialization: bool,
}

impl Default for TimelyConfig {
    fn default() -> Self {
        TimelyConfig {
            alpha: 0.875,
            beta: 0.8,
            t_low: Dur(50 * US),
            t_high: Dur(500 * US),
            min_rtt: Dur(20 * US),
            delta: Rate(10_000_000),
            hai_thresh: 5,
            hai_factor: 5,
            segment: Bytes(16 * 1024),
            update_interval: UpdateInterval::Segment,
            min_rate: Rate(1_000_000),
            decrease_floor: 0.5,
            init_rate_fraction: 1.0,
            subtract_serialization: true,
        }
    }
}

impl SchemeConfig for TimelyConfig {
    const NAME: &'static str = "timely";
    const SUMMARY: &'static str =
        "TIMELY (Mittal et al. SIGCOMM'15): rate control from the RTT gradient (no unique fixed point)";
    const PARAMS: &'static [(&'static str, &'static str)] = &[
        rows::ALPHA,
        ("beta", "multiplicative decrease factor"),
        ("t_low", "RTT below which the rate always increases by delta"),
        ("t_high", "RTT above which the rate decreases by beta (1 - t_high/rtt)"),
        rows::MIN_RTT,
        ("delta", "additive increment"),
        ("hai_thresh", "consecutive falling-RTT events before hyperactive increase"),
        ("hai_factor", "N: increase by N x delta in HAI mode"),
        rows::SEGMENT,
        rows::UPDATE_INTERVAL_SEGMENT,
        rows::MIN_RATE,
        ("decrease_floor", "one update keeps at least this fraction of the rate (0 = no floor)"),
        rows::INIT_RATE_FRACTION,
        rows::SUBTRACT_SERIALIZATION,
    ];

    fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(0.0..1.0).contains(&self.decrease_floor) {
            return Err(("decrease_floor", "must be in [0, 1)".into()));
        }
        self.common().check()?;
        if self.hai_thresh == 0 {
            return Err(("hai_thresh", "must be >= 1".into()));
        }
        Ok(())
    }

    fn into_scheme(self) -> Box<dyn Scheme> {
        Box::new(Timely { cfg: self })
    }
}

/// The parameters TIMELY, patched TIMELY and SQCC share under the same keys
/// and types (each configuration documents its own defaults and sources);
/// `common()` of each configuration gives them (see [`timely_common`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Common {
    pub alpha: f64,
    pub beta: f64,
    pub t_low: Dur,
    pub t_high: Dur,
    pub min_rtt: Dur,
    pub segment: Bytes,
    pub update_interval: UpdateInterval,
    /// seg of tau* = max{seg/R, D_minRTT} (`update_interval = "tau"`): TIMELY's
    /// `segment`; patched TIMELY's and SQCC's `seg` (the SQCC paper's one
    /// "Segment Size", Table I).
    pub tau_seg: Bytes,
    pub min_rate: Rate,
    pub init_rate_fraction: f64,
    pub subtract_serialization: bool,
}

impl Common {
    /// Range checks shared by the family. Errors are `(key, message)`.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            return Err(("alpha", "must be in (0, 1]".into()));
        }
        if !(self.beta > 0.0 && self.beta <= 1.0) {
            return Err(("beta", "must be in (0, 1]".into()));
        }
        if self.t_high.0 == 0 {
            return Err(("t_high", "must be > 0".into()));
        }
        if self.t_low.0 > self.t_high.0 {
            return Err(("t_low", "must not exceed t_high".into()));
        }
        if self.min_rtt.0 == 0 {
            return Err(("min_rtt", "must be > 0".into()));
        }
        if !(self.init_rate_fraction > 0.0 && self.init_rate_fraction <= 1.0) {
            return Err(("init_rate_fraction", "must be in (0, 1]".into()));
        }
        Ok(())
    }
}

/// Implements `common()` (the [`Common`] parameters) for a TIMELY-family
/// configuration type, whose fields carry the same names as [`Common`]'s;
/// `$tau_seg` names the field that is tau*'s seg.
macro_rules! timely_common {
    ($cfg:ty, $tau_seg:ident) => {
        impl $cfg {
            /// The parameters shared by the TIMELY family.
            pub fn common(&self) -> $crate::timely::Common {
                $crate::timely::Common {
                    alpha: self.alpha,
                    beta: self.beta,
                    t_low: self.t_low,
                    t_high: self.t_high,
                    min_rtt: self.min_rtt,
                    segment: self.segment,
                    update_interval: self.update_interval,
                    tau_seg: self.$tau_seg,
                    min_rate: self.min_rate,
                    init_rate_fraction: self.init_rate_fraction,
                    subtract_serialization: self.subtract_serialization,
                }
            }
        }
    };
}
pub(crate) use timely_common;

timely_common!(TimelyConfig, segment);

/// `PARAMS` rows that read the same for every TIMELY-family scheme.
pub(crate) mod rows {
    pub type Row = (&'static str, &'static str);
    pub const ALPHA: Row = ("alpha", "EWMA weight of the newest RTT difference");
    pub const MIN_RTT: Row = ("min_rtt", "D_minRTT: gradient = rtt_diff / min_rtt");
    pub const SEGMENT: Row = ("segment", "one update per this many bytes acked (completion event); 0 = per ACK");
    /// TIMELY: tau*'s seg is `segment`.
    pub const UPDATE_INTERVAL_SEGMENT: Row = (
        "update_interval",
        "\"segment\" (per segment bytes acked), \"tau\" (one per max(segment/rate, min_rtt), SQCC eq. 3) or \"rtt\" (one per round trip)",
    );
    /// Patched TIMELY and SQCC: tau*'s seg is `seg`.
    pub const UPDATE_INTERVAL_SEG: Row = (
        "update_interval",
        "\"segment\" (per segment bytes acked), \"tau\" (one per max(seg/rate, min_rtt), SQCC eq. 3) or \"rtt\" (one per round trip)",
    );
    pub const MIN_RATE: Row = ("min_rate", "lowest rate");
    pub const INIT_RATE_FRACTION: Row = ("init_rate_fraction", "starting rate as a fraction of line rate");
    pub const SUBTRACT_SERIALIZATION: Row =
        ("subtract_serialization", "take the data packet's NIC serialization off each RTT sample");
}

/// The TIMELY scheme.
pub struct Timely {
    cfg: TimelyConfig,
}

impl Scheme for Timely {
    fn name(&self) -> &str {
        TimelyConfig::NAME
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        Box::new(TimelySender::new(&self.cfg, flow))
    }
}

// ---------------------------------------------------------------------------
// Pieces shared by the TIMELY family.

/// The RTT-gradient EWMA of TIMELY Algorithm 1 (lines 1-4), shared by TIMELY,
/// patched TIMELY and SQCC.
#[derive(Clone, Debug, PartialEq)]
pub struct RttGradient {
    alpha: f64,
    /// D_minRTT in picoseconds.
    min_rtt: f64,
    /// Previous RTT sample (ps); None before the first.
    prev_rtt: Option<Time>,
    /// Smoothed RTT difference (ps).
    rtt_diff: f64,
    /// The last raw difference new_rtt - prev_rtt (ps).
    last_diff: f64,
}

impl RttGradient {
    /// `alpha` weighs the newest difference; `min_rtt` normalizes the gradient.
    pub fn new(alpha: f64, min_rtt: Time) -> Self {
        RttGradient { alpha, min_rtt: min_rtt.max(1) as f64, prev_rtt: None, rtt_diff: 0.0, last_diff: 0.0 }
    }

    /// Feeds one RTT sample (ps) and returns the normalized gradient
    /// rtt_diff / min_rtt. The first sample's difference counts as 0.
    pub fn sample(&mut self, rtt: Time) -> f64 {
        let new_diff = match self.prev_rtt {
            Some(p) => rtt as f64 - p as f64,
            None => 0.0,
        };
        self.prev_rtt = Some(rtt);
        self.last_diff = new_diff;
        self.rtt_diff = (1.0 - self.alpha) * self.rtt_diff + self.alpha * new_diff;
        self.gradient()
    }

    /// Normalized gradient of the last sample.
    pub fn gradient(&self) -> f64 {
        self.rtt_diff / self.min_rtt
    }

    /// Smoothed RTT difference in picoseconds.
    pub fn rtt_diff(&self) -> f64 {
        self.rtt_diff
    }

    /// The last raw RTT difference new_rtt - prev_rtt (ps); 0 for the first sample.
    pub fn last_diff(&self) -> f64 {
        self.last_diff
    }

    /// The last RTT sample (ps), if any.
    pub fn prev_rtt(&self) -> Option<Time> {
        self.prev_rtt
    }
}

/// When a TIMELY-family sender updates its rate (key `update_interval`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UpdateInterval {
    /// One update per `segment` bytes acknowledged (TIMELY's completion
    /// events, §6), and when all the data released so far is acknowledged;
    /// every ACK when `segment` is 0.
    #[default]
    Segment,
    /// One update per tau* = max{seg/R, D_minRTT} (SQCC paper eq. 3; Table I:
    /// "tau* Rate Update Interval", "seg Segment Size"), R the current rate,
    /// D_minRTT = `min_rtt`: the first ACK at least tau* after the last update.
    Tau,
    /// One update per round trip: the first ACK of a packet sent at or after the
    /// last update (SQCC paper §II-B: "the RTT measured in each round").
    Rtt,
}

/// Decides which ACKs are update events. `"segment"` ([`UpdateGate::new`]):
/// every ACK when `segment` is 0, else the first ACK reaching each multiple of
/// `segment` bytes and the ACK that acknowledges all the data released so far
/// (the flow's end; on a connection, the end of its current messages, once
/// per end). `"tau"` and `"rtt"` ([`UpdateGate::of`]): by time, see
/// [`UpdateInterval`]; both count from the last update, or from the start
/// ([`UpdateGate::start`]) before the first.
#[derive(Clone, Debug, PartialEq)]
pub struct UpdateGate {
    interval: UpdateInterval,
    segment: u64,
    /// Cumulative acked bytes at which the next event happens.
    next: u64,
    /// The data end whose completion was last an event (`u64::MAX`: none).
    ended: u64,
    /// seg of tau* (bytes).
    tau_seg: u64,
    /// D_minRTT of tau* (ps).
    min_rtt: Time,
    /// Time of the last update, or of the start (ps).
    last: Time,
}

impl UpdateGate {
    /// The byte gate (`"segment"`): one event per `segment` bytes; 0 = every ACK.
    pub fn new(segment: u64) -> Self {
        UpdateGate {
            interval: UpdateInterval::Segment,
            segment,
            next: segment,
            ended: u64::MAX,
            tau_seg: 0,
            min_rtt: 0,
            last: 0,
        }
    }

    /// The gate `c.update_interval` selects, with `c.segment`, `c.tau_seg` and
    /// `c.min_rtt`.
    pub fn of(c: &Common) -> Self {
        UpdateGate { interval: c.update_interval, tau_seg: c.tau_seg.0, min_rtt: c.min_rtt.0, ..Self::new(c.segment.0) }
    }

    /// The flow starts at `now`: the time gates count from here.
    pub fn start(&mut self, now: Time) {
        self.last = now;
    }

    /// tau* = max{seg/R, D_minRTT} (ps) at rate `rate` (bits/s).
    pub fn tau(&self, rate: f64) -> Time {
        let seg = if self.tau_seg == 0 { 0 } else { ser_time(self.tau_seg, rate.max(1.0) as u64) };
        seg.max(self.min_rtt)
    }

    /// Whether `ack`, arriving at `now` with `avail` the end of the data
    /// released so far, is an update event for a sender at rate `rate`
    /// (bits/s, the rate since the last update).
    pub fn is_update(&mut self, now: Time, ack: &Packet, avail: u64, rate: f64) -> bool {
        let due = match self.interval {
            UpdateInterval::Segment => return self.is_event(ack.seq, avail),
            UpdateInterval::Tau => now >= self.last.saturating_add(self.tau(rate)),
            UpdateInterval::Rtt => ack.ts >= self.last,
        };
        if due {
            self.last = now;
        }
        due
    }

    /// The byte gate: whether an ACK with cumulative sequence `acked` is a
    /// completion event, `avail` being the end of the data released so far (a
    /// flow's size).
    pub fn is_event(&mut self, acked: u64, avail: u64) -> bool {
        if self.segment == 0 {
            return true;
        }
        let end = acked >= avail && self.ended != avail;
        if acked >= self.next || end {
            if acked >= avail {
                self.ended = avail;
            }
            self.next = (acked / self.segment + 1) * self.segment;
            return true;
        }
        false
    }
}

/// The RTT sample an ACK gives (ps): `now - ack.ts`, minus the acknowledged data
/// packet's serialization at the sender NIC when `subtract_serialization`. The
/// data packet is taken to be full-sized unless the ACK acknowledges all the
/// data released (the flow's end), when it is the last message's last
/// (possibly shorter) packet. Never below 1 ps.
pub fn rtt_sample(cx: &SenderCx, ack: &Packet, subtract_serialization: bool) -> Time {
    let raw = cx.now.saturating_sub(ack.ts);
    if !subtract_serialization {
        return raw.max(1);
    }
    let flow = cx.flow;
    let mtu = flow.mtu.max(1) as u64;
    let header = (flow.packet_size as u64).saturating_sub(mtu);
    let wire = if ack.seq >= cx.avail && cx.avail > cx.msg_start {
        (cx.avail - cx.msg_start - 1) % mtu + 1 + header
    } else {
        flow.packet_size as u64
    };
    raw.saturating_sub(ser_time(wire, flow.line_rate.max(1))).max(1)
}

/// TIMELY's (and patched TIMELY's) decrease above T_high:
/// R (1 - beta (1 - T_high / rtt)).
pub fn high_decrease(rate: f64, rtt: Time, t_high: Time, beta: f64) -> f64 {
    rate * (1.0 - beta * (1.0 - t_high as f64 / rtt as f64))
}

/// Which branch of the rule an update took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// rtt < T_low: additive increase.
    Low,
    /// rtt > T_high: decrease by beta (1 - T_high / rtt).
    High,
    /// T_low <= rtt <= T_high: the gradient (TIMELY) or weight/error (patched) rule.
    Band,
}

/// The region of an RTT sample: Low below `t_low`, High above `t_high`.
pub fn region(rtt: Time, t_low: Time, t_high: Time) -> Region {
    if rtt < t_low {
        Region::Low
    } else if rtt > t_high {
        Region::High
    } else {
        Region::Band
    }
}

// ---------------------------------------------------------------------------
// TIMELY proper.

/// One TIMELY update (Algorithm 1, lines 5-13) of `rate` (bits/s) for an RTT
/// sample `rtt` (ps) with normalized gradient `g`. `hai` selects N =
/// `hai_factor` for an increase in the gradient region. Not clamped.
pub fn timely_step(cfg: &TimelyConfig, rate: f64, rtt: Time, g: f64, hai: bool) -> f64 {
    let delta = cfg.delta.0 as f64;
    match region(rtt, cfg.t_low.0, cfg.t_high.0) {
        Region::Low => rate + delta,
        Region::High => high_decrease(rate, rtt, cfg.t_high.0, cfg.beta),
        Region::Band if g <= 0.0 => {
            let n = if hai { cfg.hai_factor as f64 } else { 1.0 };
            rate + n * delta
        }
        Region::Band => rate * (1.0 - cfg.beta * g),
    }
}

/// TIMELY sender of one flow.
pub struct TimelySender {
    cfg: TimelyConfig,
    line: f64,
    min_rate: f64,
    rate: f64,
    grad: RttGradient,
    gate: UpdateGate,
    /// Consecutive completion events with a negative raw RTT difference (HAI).
    falling: u32,
    last_rtt: Time,
}

impl TimelySender {
    pub fn new(cfg: &TimelyConfig, flow: &FlowView) -> Self {
        let line = flow.line_rate as f64;
        TimelySender {
            cfg: cfg.clone(),
            line,
            min_rate: (cfg.min_rate.0 as f64).min(line),
            rate: line * cfg.init_rate_fraction,
            grad: RttGradient::new(cfg.alpha, cfg.min_rtt.0),
            gate: UpdateGate::of(&cfg.common()),
            falling: 0,
            last_rtt: 0,
        }
    }

    /// Current rate (bits/s).
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Consecutive completion events with a falling RTT (HAI counter).
    pub fn falling(&self) -> u32 {
        self.falling
    }

    pub fn gradient(&self) -> &RttGradient {
        &self.grad
    }

    /// One completion event with RTT sample `rtt` (ps); returns the new rate.
    pub fn update(&mut self, rtt: Time) -> f64 {
        self.last_rtt = rtt;
        let g = self.grad.sample(rtt);
        self.falling = if self.grad.last_diff() < 0.0 { self.falling + 1 } else { 0 };
        let hai = self.falling >= self.cfg.hai_thresh;
        let r = timely_step(&self.cfg, self.rate, rtt, g, hai).max(self.rate * self.cfg.decrease_floor);
        self.rate = r.clamp(self.min_rate, self.line);
        self.rate
    }
}

impl SenderCc for TimelySender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        self.gate.start(cx.now);
        cx.rate = self.rate;
        cx.window = u64::MAX;
    }

    fn on_ack(&mut self, cx: &mut SenderCx, ack: &Packet) {
        if !self.gate.is_update(cx.now, ack, cx.avail, self.rate) {
            return;
        }
        let rtt = rtt_sample(cx, ack, self.cfg.subtract_serialization);
        cx.rate = self.update(rtt);
    }

    fn probe(&self) -> f64 {
        self.last_rtt as f64 / US as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{ack, flow, Harness};

    const L: f64 = 100e9;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    fn per_ack() -> TimelyConfig {
        TimelyConfig { segment: Bytes(0), ..Default::default() }
    }

    /// NIC serialization of a full test packet: 1048 B at 100 Gbps.
    const SER: Time = 83_840;

    /// An ACK for `seq` at `now_us` whose RTT sample (serialization taken off)
    /// is `rtt_us`.
    fn ack_rtt(h: &mut Harness, s: &mut TimelySender, seq: u64, now_us: u64, rtt_us: u64) {
        h.now = (now_us + 10_000) * US;
        let mut p = ack(seq);
        p.ts = h.now - rtt_us * US - SER;
        h.ack(s, &p);
    }

    #[test]
    fn gradient_ewma_weighs_the_new_difference_by_alpha() {
        let mut g = RttGradient::new(0.875, 20 * US);
        assert_eq!(g.sample(60 * US), 0.0, "first sample: no difference");
        // diff +10 us: rtt_diff = 0.875 x 10 = 8.75 us, g = 8.75 / 20
        assert!(close(g.sample(70 * US), 8.75 / 20.0));
        // diff -4 us: rtt_diff = 0.125 x 8.75 + 0.875 x (-4) = -2.40625 us
        let expect = (0.125 * 8.75 - 0.875 * 4.0) / 20.0;
        assert!(close(g.sample(66 * US), expect));
        assert!(close(g.rtt_diff(), expect * 20.0 * US as f64));
        assert_eq!(g.prev_rtt(), Some(66 * US));
    }

    #[test]
    fn rule_in_each_region() {
        let c = TimelyConfig::default();
        let r = 5e9;
        // below T_low: + delta whatever the gradient
        assert!(close(timely_step(&c, r, 49 * US, 3.0, false), r + 10e6));
        // above T_high: R (1 - 0.8 (1 - 500/1000))
        assert!(close(timely_step(&c, r, 1000 * US, -3.0, true), r * 0.6));
        // band, g <= 0: + delta, or + 5 delta in HAI mode
        assert!(close(timely_step(&c, r, 100 * US, 0.0, false), r + 10e6));
        assert!(close(timely_step(&c, r, 100 * US, -0.1, true), r + 50e6));
        // band, g > 0: R (1 - 0.8 g)
        assert!(close(timely_step(&c, r, 100 * US, 0.25, true), r * 0.8));
        // the thresholds themselves belong to the band
        assert!(close(timely_step(&c, r, 50 * US, 0.5, false), r * 0.6));
        assert!(close(timely_step(&c, r, 500 * US, 0.5, false), r * 0.6));
    }

    #[test]
    fn sender_follows_the_rule_per_ack_and_enters_hai_after_five_falling_rtts() {
        let f = flow();
        let mut s = TimelySender::new(&per_ack(), &f);
        let mut h = Harness::new(f);
        h.start(&mut s);
        assert_eq!((h.rate, h.window), (L, u64::MAX));
        // Above T_high: 0.8 (1 - 500/1000) cut.
        ack_rtt(&mut h, &mut s, 1000, 1000, 1000);
        assert!(close(h.rate, L * 0.6), "{}", h.rate);
        assert_eq!(s.falling(), 0);
        // Falling RTTs in the band: g < 0, + delta each; the 5th in a row is HAI.
        let mut expect = L * 0.6;
        for (i, rtt) in [400, 300, 200, 150, 120, 110].into_iter().enumerate() {
            ack_rtt(&mut h, &mut s, 2000 + i as u64 * 1000, 1001 + i as u64, rtt);
            assert!(s.gradient().gradient() < 0.0);
            expect += if i + 1 >= 5 { 50e6 } else { 10e6 };
            assert!(close(h.rate, expect), "step {i}: {} vs {expect}", h.rate);
            assert_eq!(s.falling(), i as u32 + 1);
        }
        // A rising RTT: g > 0 cuts by beta g and ends HAI. Here g = 0.794, so
        // 1 - 0.8 g = 0.365 and the decrease floor keeps half the rate.
        let before = h.rate;
        ack_rtt(&mut h, &mut s, 9000, 1010, 130);
        let g = s.gradient().gradient();
        assert!((g - 0.7942).abs() < 1e-3, "g = {g}");
        assert!(close(h.rate, before * 0.5));
        assert_eq!(s.falling(), 0);
        // Falling again, but the smoothed gradient is still > 0: a cut, HAI count 1.
        ack_rtt(&mut h, &mut s, 10_000, 1011, 128);
        assert!(s.gradient().gradient() > 0.0 && h.rate < before);
        assert_eq!(s.falling(), 1);
        // Falling RTTs (g < 0): + delta, HAI again at the 5th falling sample in a
        // row (k = 3); a flat one (k = 4, g still < 0) increases by delta only.
        for (k, rtt) in [100, 90, 80, 70, 70].into_iter().enumerate() {
            let r0 = h.rate;
            ack_rtt(&mut h, &mut s, 11_000 + k as u64, 1012 + k as u64, rtt);
            let n = if k == 3 { 5.0 } else { 1.0 };
            assert!(close(h.rate, r0 + n * 10e6), "k = {k}");
        }
        assert_eq!(s.falling(), 0);
        assert_eq!(s.probe(), 70.0, "probe = last RTT sample in us");
    }

    #[test]
    fn rate_is_clamped_to_min_rate_and_line_rate() {
        let f = flow();
        let mut s = TimelySender::new(&per_ack(), &f);
        let mut h = Harness::new(f);
        h.start(&mut s);
        // Below T_low at line rate: stays at line rate.
        ack_rtt(&mut h, &mut s, 1000, 10, 10);
        assert_eq!(h.rate, L);
        // A huge gradient (+400 us in one step, g = 17.5): 1 - 0.8 g < 0, the
        // decrease floor keeps half the rate.
        ack_rtt(&mut h, &mut s, 2000, 420, 410);
        assert_eq!(h.rate, L * 0.5);
        // Without the floor (Algorithm 1 as printed) the rate falls to min_rate.
        let c = TimelyConfig { decrease_floor: 0.0, ..per_ack() };
        let f = flow();
        let mut s = TimelySender::new(&c, &f);
        let mut h = Harness::new(f);
        h.start(&mut s);
        ack_rtt(&mut h, &mut s, 1000, 10, 10);
        ack_rtt(&mut h, &mut s, 2000, 420, 410);
        assert_eq!(h.rate, 1e6);
    }

    #[test]
    fn segment_gate_updates_once_per_segment_and_at_flow_end() {
        let mut g = UpdateGate::new(16384);
        let size = 40_000;
        assert!(!g.is_event(1000, size));
        assert!(!g.is_event(16000, size));
        assert!(g.is_event(17000, size), "crossed 16384");
        assert!(!g.is_event(18000, size));
        assert!(!g.is_event(32000, size));
        assert!(g.is_event(34000, size), "crossed 32768 (skipping no boundary)");
        assert!(!g.is_event(39000, size));
        assert!(g.is_event(40_000, size), "flow end is a completion");
        assert!(!g.is_event(40_000, size), "only once");
        // a connection: more data released later, and its end is an event again
        assert!(!g.is_event(41_000, 45_000));
        assert!(g.is_event(45_000, 45_000), "the new end is a completion");
        assert!(!g.is_event(45_000, 45_000));
        // A jump over several boundaries is one event; the next is the boundary after.
        let mut g = UpdateGate::new(10_000);
        assert!(g.is_event(35_000, 1_000_000));
        assert!(!g.is_event(39_999, 1_000_000));
        assert!(g.is_event(40_000, 1_000_000));
        let mut every = UpdateGate::new(0);
        assert!(every.is_event(1, 10) && every.is_event(1, 10));
    }

    /// The gate of a family configuration with `update_interval` = `ui`,
    /// tau*'s seg = `tau_seg` bytes and D_minRTT = 20 us.
    fn gate(ui: UpdateInterval, tau_seg: u64) -> UpdateGate {
        let c = TimelyConfig { update_interval: ui, segment: Bytes(tau_seg), ..Default::default() };
        UpdateGate::of(&c.common())
    }

    /// An ACK of `seq` for a packet sent at `ts_us`.
    fn ack_sent(seq: u64, ts_us: u64) -> Packet {
        Packet { ts: ts_us * US, ..ack(seq) }
    }

    #[test]
    fn default_gate_is_the_byte_gate() {
        // The default configuration builds the byte gate it always had (tau*'s
        // seg and D_minRTT are carried, unused).
        let byte_gate = UpdateGate { tau_seg: 16 * 1024, min_rtt: 20 * US, ..UpdateGate::new(16 * 1024) };
        assert_eq!(UpdateGate::of(&TimelyConfig::default().common()), byte_gate);
        assert_eq!(TimelyConfig::default().update_interval, UpdateInterval::Segment);
        // ... and "segment" ignores time and send times.
        let mut g = gate(UpdateInterval::Segment, 16_384);
        g.start(1000 * US);
        assert!(!g.is_update(9000 * US, &ack_sent(1000, 8000), 40_000, 1e9));
        assert!(g.is_update(1001 * US, &ack_sent(17_000, 0), 40_000, 1e9), "crossed 16384");
        assert!(g.is_update(1001 * US, &ack_sent(40_000, 0), 40_000, 1e9), "data end");
    }

    #[test]
    fn tau_is_the_larger_of_seg_over_rate_and_min_rtt() {
        let g = gate(UpdateInterval::Tau, 62_500);
        // 62500 B at 10 Gbps = 50 us; at 1 Gbps 500 us; at 100 Gbps 5 us < 20 us.
        assert_eq!(g.tau(10e9), 50 * US);
        assert_eq!(g.tau(1e9), 500 * US);
        assert_eq!(g.tau(100e9), 20 * US);
        // No seg: D_minRTT alone.
        assert_eq!(gate(UpdateInterval::Tau, 0).tau(1e6), 20 * US);
        let c = TimelyConfig { update_interval: UpdateInterval::Tau, min_rtt: Dur(7 * US), ..Default::default() };
        assert_eq!(UpdateGate::of(&c.common()).tau(100e9), 7 * US, "D_minRTT is min_rtt");
    }

    #[test]
    fn tau_gate_updates_once_per_tau_from_the_start_and_the_last_update() {
        let mut g = gate(UpdateInterval::Tau, 62_500);
        g.start(100 * US);
        let a = ack_sent(1000, 0);
        // At 10 Gbps tau* = 50 us: nothing before 150 us, then one event.
        assert!(!g.is_update(149 * US, &a, 1 << 40, 10e9));
        assert!(g.is_update(150 * US, &a, 1 << 40, 10e9));
        assert!(!g.is_update(150 * US, &a, 1 << 40, 10e9), "once");
        // The next counts from the update, with the rate held since (1 Gbps: 500 us).
        assert!(!g.is_update(649 * US, &a, 1 << 40, 1e9));
        assert!(g.is_update(651 * US, &a, 1 << 40, 1e9));
        // A late ACK is one event, and the next is tau* after it.
        assert!(g.is_update(5000 * US, &a, 1 << 40, 10e9));
        assert!(!g.is_update(5049 * US, &a, 1 << 40, 10e9));
        // Bytes do not matter: no segment boundary and no data-end event.
        assert!(!g.is_update(5010 * US, &ack_sent(40_000, 0), 40_000, 10e9));
        assert!(g.is_update(5050 * US, &ack_sent(40_000, 0), 40_000, 10e9));
    }

    #[test]
    fn rtt_gate_updates_on_the_first_ack_of_a_packet_sent_after_the_last_update() {
        let mut g = gate(UpdateInterval::Rtt, 16_384);
        g.start(100 * US);
        // A packet sent at the start: the first ACK is an event.
        assert!(g.is_update(110 * US, &ack_sent(1000, 100), 1 << 40, 1e9));
        // Packets sent before that update (at 100-109 us) are not.
        assert!(!g.is_update(112 * US, &ack_sent(2000, 105), 1 << 40, 1e9));
        assert!(!g.is_update(119 * US, &ack_sent(3000, 109), 1 << 40, 1e9));
        // The first sent at or after it (110 us) is, whatever the rate or bytes.
        assert!(g.is_update(121 * US, &ack_sent(4000, 110), 1 << 40, 1e3));
        assert!(!g.is_update(125 * US, &ack_sent(40_000, 115), 40_000, 1e9), "no data-end event");
        assert!(g.is_update(140 * US, &ack_sent(41_000, 121), 1 << 40, 1e9));
    }

    #[test]
    fn timely_sender_with_the_tau_gate() {
        // 100 Gbps, segment 16 KiB: tau* = max(1.3 us, 20 us) = 20 us.
        let c = TimelyConfig { update_interval: UpdateInterval::Tau, ..Default::default() };
        let f = flow();
        let mut s = TimelySender::new(&c, &f);
        let mut h = Harness::new(f);
        h.now = 10_000 * US;
        h.start(&mut s);
        // ack_rtt puts ACK i at (10_000 + i) us: ACKs 1..19 us after the start
        // are ignored, whatever their bytes (17_000 crosses a segment).
        for i in 1..20 {
            ack_rtt(&mut h, &mut s, 1000 * i + 16_000, i, 1000);
            assert_eq!(h.rate, L, "no update {i} us after the start");
        }
        assert_eq!(s.gradient().prev_rtt(), None);
        ack_rtt(&mut h, &mut s, 40_000, 20, 1000);
        assert!(close(h.rate, L * 0.6), "above T_high at 20 us");
        // The next update: 20 us later (seg / 60 Gbps = 2.2 us < D_minRTT).
        ack_rtt(&mut h, &mut s, 41_000, 39, 1000);
        assert!(close(h.rate, L * 0.6));
        ack_rtt(&mut h, &mut s, 42_000, 40, 1000);
        assert!(close(h.rate, L * 0.36));
    }

    #[test]
    fn sender_with_segments_ignores_acks_between_completions() {
        let f = flow();
        let mut s = TimelySender::new(&TimelyConfig::default(), &f);
        let mut h = Harness::new(f);
        h.start(&mut s);
        for (i, seq) in (1000..16384).step_by(1000).enumerate() {
            ack_rtt(&mut h, &mut s, seq, 1 + i as u64, 1000);
            assert_eq!(h.rate, L, "no completion yet at {seq}");
        }
        assert_eq!(s.gradient().prev_rtt(), None, "no sample taken");
        ack_rtt(&mut h, &mut s, 17_000, 20, 1000);
        assert!(close(h.rate, L * 0.6));
    }

    #[test]
    fn rtt_sample_subtracts_the_data_packets_serialization() {
        let f = flow(); // 100 Gbps, 1000 B payload + 48 B header, 10 MB
        let mut p = ack(5000);
        p.ts = 3 * US;
        let now = 13 * US;
        let cx = SenderCx::new(now, &f, 0, 0, 1e9, u64::MAX);
        assert_eq!(rtt_sample(&cx, &p, false), 10 * US);
        // 1048 B at 100 Gbps = 83.84 ns
        assert_eq!(rtt_sample(&cx, &p, true), 10 * US - 83_840);
        // The last packet of a 10_000_500 B flow carries 500 B: 548 B = 43.84 ns.
        let mut f2 = f.clone();
        f2.size = 10_000_500;
        p.seq = f2.size;
        let cx2 = SenderCx::new(now, &f2, 0, 0, 1e9, u64::MAX);
        assert_eq!(rtt_sample(&cx2, &p, true), 10 * US - 43_840);
        // On a connection, the last message's last packet: a 2500 B message at 10_000 carries 500 B last.
        let mut cx3 = SenderCx::new(now, &f, 0, 0, 1e9, u64::MAX);
        (cx3.avail, cx3.msg_start) = (12_500, 10_000);
        p.seq = 12_500;
        assert_eq!(rtt_sample(&cx3, &p, true), 10 * US - 43_840);
        // Never zero or negative.
        p.ts = now;
        assert_eq!(rtt_sample(&cx2, &p, true), 1);
    }

    #[test]
    fn init_rate_and_validation() {
        let f = flow();
        let c = TimelyConfig { init_rate_fraction: 0.25, ..Default::default() };
        let mut h = Harness::new(f.clone());
        h.start(&mut TimelySender::new(&c, &f));
        assert_eq!(h.rate, 25e9);
        assert!(TimelyConfig::default().validate().is_ok());
        let bad = |c: TimelyConfig| c.validate().unwrap_err().0;
        assert_eq!(bad(TimelyConfig { alpha: 0.0, ..Default::default() }), "alpha");
        assert_eq!(bad(TimelyConfig { beta: 1.5, ..Default::default() }), "beta");
        assert_eq!(bad(TimelyConfig { t_low: Dur(600 * US), ..Default::default() }), "t_low");
        assert_eq!(bad(TimelyConfig { min_rtt: Dur(0), ..Default::default() }), "min_rtt");
        assert_eq!(bad(TimelyConfig { hai_thresh: 0, ..Default::default() }), "hai_thresh");
        assert_eq!(bad(TimelyConfig { decrease_floor: 1.0, ..Default::default() }), "decrease_floor");
        assert_eq!(bad(TimelyConfig { init_rate_fraction: 0.0, ..Default::default() }), "init_rate_fraction");
        assert_eq!(TimelyConfig::default().into_scheme().name(), "timely");
    }
}
