//! Patched TIMELY (Zhu et al., "ECN or Delay: Lessons Learnt from Analysis of
//! DCQCN and TIMELY", CoNEXT'16), as the SQCC paper (seed sqcc-paper.txt,
//! Algorithm 2) states it: TIMELY with a unique, fair fixed point.
//!
//! RTT sampling, update granularity and the gradient EWMA are TIMELY's (see
//! [`crate::timely`], which this module reuses), the time-based update gate
//! `update_interval = "tau"` with this paper's `seg` (the SQCC paper's flow
//! model, eq. 3) instead of `segment`. Per completion event with RTT
//! sample `rtt` and normalized gradient `g`:
//!
//! * rtt < T_low: R += delta;
//! * rtt > T_high: R *= 1 - beta (1 - T_high / rtt);
//! * otherwise: w = [`weight`]`(g)` (0 if g <= -1/4, 1 if g >= 1/4, else 2g + 1/2),
//!   error = [`error`]`(rtt, RTT_ref)` = (rtt - RTT_ref) / RTT_ref,
//!   R = delta (1 - w) + R (1 - beta error w).
//!
//! R is clamped to [min_rate, line rate]. The decrease is driven by each flow's
//! distance from the common RTT_ref rather than by the shared gradient, which
//! makes the fixed point unique and fair: with a steady queue g = 0, w = 1/2 and
//! the update is stationary when error = delta / (beta R). With N flows sharing
//! capacity C at R = C/N:
//!
//!   RTT* = RTT_ref (1 + N delta / (beta C)),
//!
//! e.g. 62.5 us for 2 flows and 75 us for 4 at 10 Gbps with the defaults
//! (delta / (beta C) = 10 Mbps / (0.008 x 10 Gbps) = 1/8); the bottleneck queue
//! holds C x (RTT* - base RTT), RTT measured as [`crate::timely::rtt_sample`] does.
//!
//! Observed in ccsim (tests/patched_timely.rs, 10 Gbps dumbbell, 1 us links,
//! idle RTT sample 7.82 us): 2 flows settle at RTT 62.5 us with a 68.3 KB queue
//! (formula: 68.35 KB), 4 flows at 75.0 us and 83.9 KB (84.0 KB), each flow
//! within 2% of C/N; from an 80/20 start the split closes to within 3% of fair
//! in ~80 ms (the gap decays by about beta x error x w per update).
//!
//! For schemes built on patched TIMELY (SQCC): [`PatchedCore`] is the per-flow
//! machinery (sampling, gradient, clamped rate) and [`patched_step`] the rule with
//! the band's error function and parameters supplied by the caller per update.
//! `probe()` returns the last RTT sample in microseconds.

use crate::registry::SchemeConfig;
use crate::timely::{
    high_decrease, region, rows, rtt_sample, timely_common, Common, Region, RttGradient, UpdateGate, UpdateInterval,
};
use ccsim_core::cc::{FlowView, Scheme, SenderCc, SenderCx};
use ccsim_core::packet::Packet;
use ccsim_core::time::{Time, US};
use ccsim_core::units::{Bytes, Dur, Rate};
use serde::{Deserialize, Serialize};

/// Patched TIMELY parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatchedTimelyConfig {
    /// EWMA weight of the newest RTT difference (as TIMELY). Default 0.875
    /// (SQCC paper §V setup: "consistent with the patched TIMELY, alpha ... 0.875").
    pub alpha: f64,
    /// Decrease factor beta, in the band and above T_high. Default 0.008 (SQCC
    /// paper §V setup and §II-B; spec/ALGORITHMS.md B3).
    pub beta: f64,
    /// Below this RTT: R += delta. Default 50us (SQCC paper §V: initial T_low;
    /// TIMELY §6).
    pub t_low: Dur,
    /// Above this RTT: R *= 1 - beta (1 - T_high / rtt). Default 500us (SQCC
    /// paper §V; TIMELY §6).
    pub t_high: Dur,
    /// D_minRTT, the gradient's normalizer. Default 20us (spec/ALGORITHMS.md B2,
    /// as TIMELY).
    pub min_rtt: Dur,
    /// Additive increment delta. Default 10Mbps (SQCC paper §V: "delta ... 10M";
    /// TIMELY §6).
    pub delta: Rate,
    /// Target RTT of the error term, error = (rtt - RTT_ref) / RTT_ref.
    /// Default 50us (SQCC paper §II-A: "a common target RTT_ref of 50us").
    pub rtt_ref: Dur,
    /// Update granularity: one update per `segment` bytes acknowledged; 0 = per
    /// ACK. Default 16KiB (TIMELY §6's segment; the CoNEXT'16 value could not be
    /// checked here [unverified]). On the 10 Gbps dumbbell 16 KiB settles at the
    /// fixed point; per ACK (delta per packet) ends in a limit cycle with the
    /// queue swinging 0-160 KB; 64 KiB reacts so slowly that a line-rate start
    /// sits at the PFC threshold for ~20 ms.
    pub segment: Bytes,
    /// When the rate is updated (see [`crate::timely::UpdateInterval`]):
    /// "segment" = one update per `segment` bytes acknowledged, as above;
    /// "tau" = one per tau* = max{seg/R_i, D_minRTT} with seg = `seg` and
    /// D_minRTT = `min_rtt` (SQCC paper eq. 3, its flow model of patched TIMELY:
    /// "tau* Rate Update Interval", Table I); "rtt" = one per round trip (the
    /// first ACK of a packet sent after the last update; §II-B: "the RTT
    /// measured in each round"). Default "segment" (TIMELY §6's completion
    /// events, as `segment`).
    pub update_interval: UpdateInterval,
    /// seg of tau* = max{seg/R_i, D_minRTT} (SQCC paper eq. 3, Table I "seg
    /// Segment Size"), used only by `update_interval = "tau"`. Default 16KiB
    /// (= `segment`, TIMELY §6; the SQCC paper gives no value, its T_low =
    /// seg/C = 50 us at 10 Gbps implies 62.5 KB [derived]).
    pub seg: Bytes,
    /// Lowest rate. Default 1Mbps [unverified: ccsim's choice, as TIMELY here].
    pub min_rate: Rate,
    /// Starting rate as a fraction of line rate, in (0, 1]. Default 1.0
    /// [unverified: the papers do not say].
    pub init_rate_fraction: f64,
    /// Take the data packet's NIC serialization off each RTT sample (TIMELY §3.1).
    /// Default true.
    pub subtract_serialization: bool,
}

impl Default for PatchedTimelyConfig {
    fn default() -> Self {
        PatchedTimelyConfig {
            alpha: 0.875,
            beta: 0.008,
            t_low: Dur(50 * US),
            t_high: Dur(500 * US),
            min_rtt: Dur(20 * US),
            delta: Rate(10_000_000),
            rtt_ref: Dur(50 * US),
            segment: Bytes(16 * 1024),
            update_interval: UpdateInterval::Segment,
            seg: Bytes(16 * 1024),
            min_rate: Rate(1_000_000),
            init_rate_fraction: 1.0,
            subtract_serialization: true,
        }
    }
}

timely_common!(PatchedTimelyConfig, seg);

impl PatchedTimelyConfig {
    /// The rule's parameters as [`patched_step`] takes them.
    pub fn step_params(&self) -> StepParams {
        StepParams { t_low: self.t_low.0, t_high: self.t_high.0, delta: self.delta.0 as f64, beta: self.beta }
    }

    /// RTT* = RTT_ref (1 + n delta / (beta C)): the fixed-point RTT of `n` flows
    /// sharing capacity `c` bits/s (ps). Valid while it stays within
    /// [T_low, T_high].
    pub fn fixed_point_rtt(&self, n: u32, c: f64) -> f64 {
        self.rtt_ref.0 as f64 * (1.0 + n as f64 * self.delta.0 as f64 / (self.beta * c))
    }
}

impl SchemeConfig for PatchedTimelyConfig {
    const NAME: &'static str = "patched_timely";
    const SUMMARY: &'static str =
        "patched TIMELY (Zhu et al. CoNEXT'16; SQCC paper Alg. 2): TIMELY with a fair fixed point at RTT_ref";
    const PARAMS: &'static [(&'static str, &'static str)] = &[
        rows::ALPHA,
        ("beta", "decrease factor (band and above t_high)"),
        ("t_low", "RTT below which the rate increases by delta"),
        ("t_high", "RTT above which the rate decreases by beta (1 - t_high/rtt)"),
        rows::MIN_RTT,
        ("delta", "additive increment"),
        ("rtt_ref", "target RTT: error = (rtt - rtt_ref) / rtt_ref"),
        rows::SEGMENT,
        rows::UPDATE_INTERVAL_SEG,
        ("seg", "seg of update_interval = \"tau\": max(seg/rate, min_rtt)"),
        rows::MIN_RATE,
        rows::INIT_RATE_FRACTION,
        rows::SUBTRACT_SERIALIZATION,
    ];

    fn validate(&self) -> Result<(), (&'static str, String)> {
        self.common().check()?;
        if self.rtt_ref.0 == 0 {
            return Err(("rtt_ref", "must be > 0".into()));
        }
        Ok(())
    }

    fn into_scheme(self) -> Box<dyn Scheme> {
        Box::new(PatchedTimely { cfg: self })
    }
}

/// The patched TIMELY scheme.
pub struct PatchedTimely {
    cfg: PatchedTimelyConfig,
}

impl Scheme for PatchedTimely {
    fn name(&self) -> &str {
        PatchedTimelyConfig::NAME
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        Box::new(PatchedTimelySender::new(&self.cfg, flow))
    }
}

/// Weight of the decrease term for normalized gradient `g`: 0 if g <= -1/4,
/// 1 if g >= 1/4, else 2g + 1/2 (SQCC paper Algorithm 2 lines 10-15 and eq. 5).
pub fn weight(g: f64) -> f64 {
    if g <= -0.25 {
        0.0
    } else if g >= 0.25 {
        1.0
    } else {
        2.0 * g + 0.5
    }
}

/// Patched TIMELY's error term (rtt - RTT_ref) / RTT_ref (Algorithm 2 line 17).
pub fn error(rtt: Time, rtt_ref: Time) -> f64 {
    (rtt as f64 - rtt_ref as f64) / rtt_ref as f64
}

/// The band update R' = delta (1 - w) + R (1 - beta error w) (Algorithm 2 line 18).
pub fn band_update(rate: f64, delta: f64, beta: f64, w: f64, err: f64) -> f64 {
    delta * (1.0 - w) + rate * (1.0 - beta * err * w)
}

/// Parameters of one patched-TIMELY update (SQCC varies T_low and delta per ACK).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepParams {
    /// T_low and T_high (ps).
    pub t_low: Time,
    pub t_high: Time,
    /// delta (bits/s).
    pub delta: f64,
    pub beta: f64,
}

/// One patched-TIMELY update of `rate` for RTT sample `rtt` (ps) and normalized
/// gradient `g`; `error` gives the band's error term for `rtt` (patched TIMELY:
/// [`error`] against RTT_ref; SQCC supplies its own). Returns the new rate (not
/// clamped) and the region taken.
pub fn patched_step(p: &StepParams, rate: f64, rtt: Time, g: f64, error: impl FnOnce(Time) -> f64) -> (f64, Region) {
    let reg = region(rtt, p.t_low, p.t_high);
    let r = match reg {
        Region::Low => rate + p.delta,
        Region::High => high_decrease(rate, rtt, p.t_high, p.beta),
        Region::Band => band_update(rate, p.delta, p.beta, weight(g), error(rtt)),
    };
    (r, reg)
}

/// Per-flow state of patched TIMELY and the schemes built on it: which ACKs
/// are completion events, their RTT samples, the gradient EWMA and the rate.
#[derive(Clone, Debug)]
pub struct PatchedCore {
    line: f64,
    min_rate: f64,
    rate: f64,
    subtract_serialization: bool,
    grad: RttGradient,
    gate: UpdateGate,
    last_rtt: Time,
    last_region: Option<Region>,
}

impl PatchedCore {
    /// From `c`: `alpha`, `min_rtt` (the gradient EWMA), `segment`,
    /// `update_interval` and `tau_seg` (the update gate, [`UpdateGate::of`]),
    /// `min_rate` (capped at line rate), `init_rate_fraction` and
    /// `subtract_serialization`.
    pub fn new(flow: &FlowView, c: &Common) -> Self {
        let line = flow.line_rate as f64;
        PatchedCore {
            line,
            min_rate: (c.min_rate.0 as f64).min(line),
            rate: line * c.init_rate_fraction,
            subtract_serialization: c.subtract_serialization,
            grad: RttGradient::new(c.alpha, c.min_rtt.0),
            gate: UpdateGate::of(c),
            last_rtt: 0,
            last_region: None,
        }
    }

    /// The flow starts at `now` (the time-based update gates count from here).
    pub fn start(&mut self, now: Time) {
        self.gate.start(now);
    }

    /// The RTT sample of `ack` (ps) if it is an update event, else None.
    pub fn sample(&mut self, cx: &SenderCx, ack: &Packet) -> Option<Time> {
        if !self.gate.is_update(cx.now, ack, cx.avail, self.rate) {
            return None;
        }
        Some(rtt_sample(cx, ack, self.subtract_serialization))
    }

    /// Feeds RTT sample `rtt` to the gradient and applies [`patched_step`] with
    /// `p` and `error`; returns the new rate, clamped to [min_rate, line rate].
    pub fn update(&mut self, rtt: Time, p: &StepParams, error: impl FnOnce(Time) -> f64) -> f64 {
        self.last_rtt = rtt;
        let g = self.grad.sample(rtt);
        let (r, reg) = patched_step(p, self.rate, rtt, g, error);
        self.last_region = Some(reg);
        // A NaN (never expected) keeps the old rate rather than poisoning it.
        if !r.is_nan() {
            self.rate = r.clamp(self.min_rate, self.line);
        }
        self.rate
    }

    /// Current rate (bits/s).
    pub fn rate(&self) -> f64 {
        self.rate
    }

    pub fn gradient(&self) -> &RttGradient {
        &self.grad
    }

    /// Last RTT sample (ps); 0 before the first.
    pub fn last_rtt(&self) -> Time {
        self.last_rtt
    }

    /// Region of the last update.
    pub fn last_region(&self) -> Option<Region> {
        self.last_region
    }
}

/// Patched TIMELY sender of one flow.
pub struct PatchedTimelySender {
    core: PatchedCore,
    step: StepParams,
    rtt_ref: Time,
}

impl PatchedTimelySender {
    pub fn new(cfg: &PatchedTimelyConfig, flow: &FlowView) -> Self {
        PatchedTimelySender {
            core: PatchedCore::new(flow, &cfg.common()),
            step: cfg.step_params(),
            rtt_ref: cfg.rtt_ref.0,
        }
    }

    pub fn core(&self) -> &PatchedCore {
        &self.core
    }

    /// One completion event with RTT sample `rtt` (ps); returns the new rate.
    pub fn update(&mut self, rtt: Time) -> f64 {
        let rtt_ref = self.rtt_ref;
        self.core.update(rtt, &self.step, |r| error(r, rtt_ref))
    }
}

impl SenderCc for PatchedTimelySender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        self.core.start(cx.now);
        cx.rate = self.core.rate();
        cx.window = u64::MAX;
    }

    fn on_ack(&mut self, cx: &mut SenderCx, ack: &Packet) {
        if let Some(rtt) = self.core.sample(cx, ack) {
            cx.rate = self.update(rtt);
        }
    }

    fn probe(&self) -> f64 {
        self.core.last_rtt() as f64 / US as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{ack, flow, Harness};

    const L: f64 = 100e9;
    /// NIC serialization of a full test packet: 1048 B at 100 Gbps.
    const SER: Time = 83_840;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    fn per_ack() -> PatchedTimelyConfig {
        PatchedTimelyConfig { segment: Bytes(0), ..Default::default() }
    }

    fn ack_rtt(h: &mut Harness, s: &mut PatchedTimelySender, seq: u64, now_us: u64, rtt_us: u64) {
        h.now = (now_us + 10_000) * US;
        let mut p = ack(seq);
        p.ts = h.now - rtt_us * US - SER;
        h.ack(s, &p);
    }

    #[test]
    fn weight_is_piecewise_linear_between_minus_and_plus_a_quarter() {
        assert_eq!(weight(-1.0), 0.0);
        assert_eq!(weight(-0.25), 0.0);
        assert_eq!(weight(-0.125), 0.25);
        assert_eq!(weight(0.0), 0.5);
        assert_eq!(weight(0.125), 0.75);
        assert_eq!(weight(0.25), 1.0);
        assert_eq!(weight(3.0), 1.0);
    }

    #[test]
    fn error_and_band_update_by_hand() {
        assert_eq!(error(50 * US, 50 * US), 0.0);
        assert_eq!(error(75 * US, 50 * US), 0.5);
        assert_eq!(error(25 * US, 50 * US), -0.5);
        // w = 1/2 and error = delta / (beta R) is stationary.
        let (r, d, b) = (5e9, 10e6, 0.008);
        let e = d / (b * r);
        assert!(close(band_update(r, d, b, 0.5, e), r));
        // w = 1, error 1: R (1 - beta); w = 0: R + delta.
        assert!(close(band_update(r, d, b, 1.0, 1.0), r * 0.992));
        assert!(close(band_update(r, d, b, 0.0, 7.0), r + d));
        // w = 0.75, error 0.5: 0.25 delta + R (1 - 0.008 x 0.5 x 0.75)
        assert!(close(band_update(r, d, b, 0.75, 0.5), 0.25 * d + r * 0.997));
    }

    #[test]
    fn regions_of_patched_step() {
        let p = PatchedTimelyConfig::default().step_params();
        let err = |r: Time| error(r, 50 * US);
        let r = 4e9;
        let (x, reg) = patched_step(&p, r, 40 * US, 1.0, err);
        assert_eq!(reg, Region::Low);
        assert!(close(x, r + 10e6));
        let (x, reg) = patched_step(&p, r, 1000 * US, -1.0, err);
        assert_eq!(reg, Region::High);
        assert!(close(x, r * (1.0 - 0.008 * 0.5)));
        // Band, g = 0: w = 1/2, error (100 - 50)/50 = 1.
        let (x, reg) = patched_step(&p, r, 100 * US, 0.0, err);
        assert_eq!(reg, Region::Band);
        assert!(close(x, 0.5 * 10e6 + r * (1.0 - 0.008 * 0.5)));
        // The caller's error function is what the band uses (SQCC's hook).
        let (x, _) = patched_step(&p, r, 100 * US, 1.0, |_| 2.0);
        assert!(close(x, r * (1.0 - 0.016)));
    }

    #[test]
    fn sender_per_ack_by_hand() {
        let f = flow();
        let mut s = PatchedTimelySender::new(&per_ack(), &f);
        let mut h = Harness::new(f);
        h.start(&mut s);
        assert_eq!((h.rate, h.window), (L, u64::MAX));
        // First sample, in the band, g = 0: w = 1/2, error 0.5.
        ack_rtt(&mut h, &mut s, 1000, 100, 75);
        let mut r = 0.5 * 10e6 + L * (1.0 - 0.008 * 0.5 * 0.5);
        assert!(close(h.rate, r), "{} vs {r}", h.rate);
        // +2 us: rtt_diff = 0.875 x 2 = 1.75 us, g = 0.0875, w = 0.675, error 0.54.
        ack_rtt(&mut h, &mut s, 2000, 101, 77);
        let w = 2.0 * 0.0875 + 0.5;
        r = (1.0 - w) * 10e6 + r * (1.0 - 0.008 * 0.54 * w);
        assert!(close(h.rate, r), "{} vs {r}", h.rate);
        assert_eq!(s.core().last_region(), Some(Region::Band));
        assert_eq!(s.probe(), 77.0);
        // A sharp fall (g <= -1/4): w = 0, pure + delta.
        ack_rtt(&mut h, &mut s, 3000, 102, 60);
        assert!(s.core().gradient().gradient() <= -0.25);
        r += 10e6;
        assert!(close(h.rate, r));
        // Above T_high: tiny beta, tiny cut.
        ack_rtt(&mut h, &mut s, 4000, 103, 1000);
        r *= 1.0 - 0.008 * 0.5;
        assert!(close(h.rate, r));
        assert_eq!(s.core().last_region(), Some(Region::High));
    }

    #[test]
    fn fixed_point_is_stationary_under_the_rule() {
        // A flow at its fair share sees RTT*: with g = 0 the rate must not move.
        let c = PatchedTimelyConfig::default();
        let cap = 10e9;
        for n in [2u32, 4, 10] {
            let rtt = c.fixed_point_rtt(n, cap);
            let expect = 50.0 * (1.0 + n as f64 / 8.0);
            assert!((rtt / US as f64 - expect).abs() < 1e-9, "n = {n}: {rtt}");
            let r = cap / n as f64;
            let x = band_update(r, 10e6, 0.008, weight(0.0), error(rtt as Time, 50 * US));
            assert!((x - r).abs() / r < 1e-6, "n = {n}: {x} vs {r}");
        }
    }

    #[test]
    fn clamps_and_segments() {
        let f = flow();
        let mut s = PatchedTimelySender::new(&per_ack(), &f);
        let mut h = Harness::new(f.clone());
        h.start(&mut s);
        ack_rtt(&mut h, &mut s, 1000, 10, 10);
        assert_eq!(h.rate, L, "capped at line rate");
        let c = PatchedTimelyConfig { beta: 1.0, init_rate_fraction: 0.01, ..Default::default() };
        let mut s = PatchedTimelySender::new(&c, &f);
        let mut h = Harness::new(f.clone());
        h.start(&mut s);
        assert_eq!(h.rate, 1e9);
        // Default segment 16 KiB: nothing until 16384 B are acked.
        ack_rtt(&mut h, &mut s, 16_000, 10, 400);
        assert_eq!(h.rate, 1e9);
        // g = 0 (first sample), w = 1/2, error 7 with beta 1: 1 - 3.5 < 0 -> min_rate.
        ack_rtt(&mut h, &mut s, 17_000, 11, 400);
        assert_eq!(h.rate, 1e6);
    }

    #[test]
    fn tau_gate_uses_seg_and_min_rtt_not_segment() {
        // 10 Gbps start, seg 62.5 KB: tau* = max(50 us, 20 us) = 50 us; the
        // byte gate's `segment` (0 = per ACK) is not used.
        let c = PatchedTimelyConfig {
            update_interval: UpdateInterval::Tau,
            seg: Bytes(62_500),
            segment: Bytes(0),
            init_rate_fraction: 0.1,
            ..Default::default()
        };
        let f = flow();
        let mut s = PatchedTimelySender::new(&c, &f);
        let mut h = Harness::new(f);
        h.now = 10_000 * US;
        h.start(&mut s);
        for i in 1..50 {
            ack_rtt(&mut h, &mut s, 1000 * i, i, 75);
            assert_eq!(h.rate, 10e9, "no update {i} us after the start");
        }
        ack_rtt(&mut h, &mut s, 50_000, 50, 75);
        let r = 0.5 * 10e6 + 10e9 * (1.0 - 0.008 * 0.5 * 0.5);
        assert!(close(h.rate, r), "{} vs {r}", h.rate);
        // Next: seg / R = 62.5 KB / 9.985 Gbps = 50.08 us later.
        ack_rtt(&mut h, &mut s, 51_000, 100, 75);
        assert!(close(h.rate, r));
        ack_rtt(&mut h, &mut s, 52_000, 101, 75);
        assert!(h.rate < r);
        // The default seg is TIMELY's 16 KiB: tau* = max(13.1 us, D_minRTT 20 us).
        let d =
            PatchedTimelyConfig { update_interval: UpdateInterval::Tau, init_rate_fraction: 0.1, ..Default::default() };
        assert_eq!(UpdateGate::of(&d.common()).tau(10e9), 20 * US);
    }

    #[test]
    fn rtt_gate_waits_for_a_packet_sent_after_the_last_update() {
        let c = PatchedTimelyConfig { update_interval: UpdateInterval::Rtt, ..Default::default() };
        let f = flow();
        let mut s = PatchedTimelySender::new(&c, &f);
        let mut h = Harness::new(f);
        h.now = 10_000 * US;
        h.start(&mut s);
        // ack_rtt(.., now_us, rtt_us): the packet left at 10_000 + now_us - rtt_us us.
        // Sent 25 us after the start, acked at 100 us: the first update.
        ack_rtt(&mut h, &mut s, 1000, 100, 75);
        let r = h.rate;
        assert!(r < L);
        // Sent before that update (at 26-100 us less the NIC serialization
        // ack_rtt takes off): ignored.
        for now in [101, 150, 175] {
            ack_rtt(&mut h, &mut s, 1000 + now, now, 75);
            assert_eq!(h.rate, r, "ACK at {now} us");
        }
        // Sent at 101 us: the next update, one round trip later.
        ack_rtt(&mut h, &mut s, 2000, 176, 75);
        assert!(h.rate < r);
    }

    #[test]
    fn validation() {
        assert!(PatchedTimelyConfig::default().validate().is_ok());
        let c = PatchedTimelyConfig { rtt_ref: Dur(0), ..Default::default() };
        assert_eq!(c.validate().unwrap_err().0, "rtt_ref");
        let c = PatchedTimelyConfig { alpha: 2.0, ..Default::default() };
        assert_eq!(c.validate().unwrap_err().0, "alpha");
        assert_eq!(PatchedTimelyConfig::default().into_scheme().name(), "patched_timely");
    }
}
