//! SQCC (Tang et al., "SQCC: Stable Queue Congestion Control", seed
//! sqcc-paper.txt §III, Algorithm 3; spec/ALGORITHMS.md A2): patched TIMELY
//! with a new error function and incast-size-adaptive T_low and delta.
//!
//! Built on [`crate::patched_timely`]: the RTT sampling, update granularity,
//! gradient EWMA, weight function, band update and rate clamping are
//! [`PatchedCore`] / [`patched_step`]; SQCC only supplies, per update, the
//! thresholds, delta and the band's error function.
//!
//! Update timing (`update_interval`): per `segment` bytes acked ("segment",
//! the default; `segment = 0` is the per-ACK update of §III), or by time:
//! "tau", one update per tau* = max{seg/R_i, D_minRTT} (eq. 3, Table I "tau*
//! Rate Update Interval") with the paper's one seg (`seg`, also eq. 23's) and
//! D_minRTT = `min_rtt`, or "rtt", one update per round trip
//! ([`crate::timely::UpdateInterval`]).
//!
//! * Receiver: every ACK carries N, the number of flows the receiving host is
//!   currently receiving (started, not complete; `ReceiverCx::host_active_flows`),
//!   in `aux[AUX_N]` = `aux[1]` (patched TIMELY uses no aux field; `aux[0]` is
//!   left alone because the core uses it on PAUSE frames). §III: "The receiver in
//!   SQCC writes the number of flows received on the current node N into the ACK
//!   each time it sends an ACK".
//! * Sender, per completion event with RTT sample `rtt` (Algorithm 3):
//!   - k = max(k_min, floor(log10 N)) (eq. 25; `lg` is the decimal logarithm:
//!     Table II's T_low = 100 us at N = 500 is floor(log10 500) = 2 units of
//!     50 us, while log2 would give 8);
//!   - `adaptive_t_low`: T_low = k seg / C (eq. 23/25), else the configured
//!     `t_low` (50 us);
//!   - `adaptive_delta`: delta = min(delta_0, (C / N)(k / N)) (eq. 25; with
//!     `adaptive_t_low` off k = 1, eq. 22, as Table II's "W/O T_low" row:
//!     delta = 10G/500^2 = 0.04 Mbps), else delta_0 = `delta` (10 Mbps);
//!   - C is the flow's bottleneck link rate (`FlowView::bottleneck_rate`);
//!   - the patched-TIMELY rule with, in the band, [`sqcc_error`] when
//!     `new_error` (eq. 16) else patched TIMELY's (rtt - RTT_ref)/RTT_ref.
//!
//! Interpretation of the thresholds (`queueing_thresholds`, default true).
//! §III-B derives eq. 16 from RTT = D + q/C (eq. 10), and the flow model (eq. 1,
//! 17, 18) compares the queue q with q_low = C T_low and q_high = C T_high; eq.
//! 23 sizes T_low as k segment serialization times, i.e. k segments *queued*.
//! So T_low and T_high are taken as queueing-delay thresholds on top of the
//! path's base RTT D: with d = rtt - D the rule uses d < T_low, d > T_high and
//! error = T_high (d - T_low) / (T_low (T_high - d)), exactly the flow model's
//! q_high (q - q_low) / (q_low (q_high - q)). Internally this shifts the
//! thresholds to D + T_low and D + T_high for [`patched_step`] (the decrease
//! above T_high is then R (1 - beta (1 - (D + T_high)/rtt)), TIMELY's form on
//! the raw RTT). D is `base_rtt`, or the core's `FlowView::base_rtt` when 0 (on
//! the 10 Gbps 1 us dumbbell 8.5 us; the idle RTT sample is 7.8 us). With
//! `queueing_thresholds = false` the thresholds apply to the raw RTT, as
//! Algorithm 3's "newRTT < T_low" literally reads (D = 0 above).
//!
//! Guard near T_high: eq. 16 tends to infinity as d -> T_high. The error is
//! capped at `max_decrease / beta`, so one band update at w = 1 never cuts the
//! rate by more than `max_decrease` (default 1/2, as TIMELY's authors' code
//! caps one decrease at half the rate); d >= T_high never reaches the band.
//!
//! Fixed point (eq. 17): with w = 1/2 and R = C/N the band is stationary at
//! error E = delta N / (beta C), i.e. queueing delay
//! d* = T_high T_low (beta C + delta N) / (beta C T_high + delta N T_low)
//! ([`SqccConfig::fixed_point_delay`]).
//!
//! Experiments: tests/sqcc.rs checks the eq. 17 fixed point on small incasts;
//! the paper's experiments (10 Gbps dumbbell, 1 us links, N:1 incasts of long
//! flows, queue in 1048 B packets over the second half of the run) are
//! experiments/sqcc/incast-n*.toml, run by `ccsim reproduce sqcc`, with results
//! in docs/reproduction/sqcc/report.md:
//! * the steady queue against eq. 17 and patched TIMELY: claims
//!   sec3c-eq17-vs-n, fig1-queue-vs-n, fig1d-n60-queue;
//! * Fig. 2 (error only -> + adaptive delta): fig2-queue-vs-n, fig2-range-vs-n;
//! * Table II (500:1): table2-*; with the error function only, delta = 10 Mbps
//!   x 500 flows can push the queue past T_high, where a decrease is at most
//!   beta = 0.8% per update, and into PFC (table2-err-queue, pfc-vs-n);
//! * Fig. 4 (full SQCC, N = 60 / 100 / 500 / 1000): fig4-*; at N = 100 eq. 17
//!   itself lies above the paper's 100-200 pkt band (278 pkt with k = 2,
//!   T_low = 100 us, delta = 2 Mbps).
//!
//! `probe()` returns the last RTT sample in microseconds.

use crate::patched_timely::{self, PatchedCore, StepParams};
use crate::registry::SchemeConfig;
use crate::timely::{rows, timely_common, UpdateInterval};
use ccsim_core::cc::{FlowView, ReceiverCc, ReceiverCx, Requirements, Scheme, SenderCc, SenderCx};
use ccsim_core::packet::Packet;
use ccsim_core::time::{Time, US};
use ccsim_core::units::{Bytes, Dur, Rate};
use serde::{Deserialize, Serialize};

/// The ACK field carrying N (number of concurrent flows at the receiver).
pub const AUX_N: usize = 1;

/// SQCC parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqccConfig {
    /// EWMA weight of the newest RTT difference. Default 0.875 (SQCC paper §IV:
    /// "alpha, beta and T_high is set to 0.875, 0.008 and 500us").
    pub alpha: f64,
    /// Decrease factor beta. Default 0.008 (SQCC paper §IV).
    pub beta: f64,
    /// T_low when `adaptive_t_low` is off (and the floor of its unit count, see
    /// `k_min`). Default 50us (SQCC paper §IV: "The initialized value of T_low
    /// ... is 50us").
    pub t_low: Dur,
    /// T_high. Default 500us (SQCC paper §IV).
    pub t_high: Dur,
    /// D_minRTT, the gradient's normalizer. Default 20us (as TIMELY /
    /// patched TIMELY here; spec/ALGORITHMS.md B2).
    pub min_rtt: Dur,
    /// delta_0: the increment when `adaptive_delta` is off, and the cap of the
    /// adaptive one. Default 10Mbps (SQCC paper §IV: "initialized value of ...
    /// delta is ... 10M"; §IV-B: adapting delta matters from N >= 40, where
    /// eq. 22 falls below 10M).
    pub delta: Rate,
    /// RTT_ref of patched TIMELY's error, used when `new_error` is off.
    /// Default 50us (SQCC paper §II-A).
    pub rtt_ref: Dur,
    /// Use eq. 16's error T_high (d - T_low) / (T_low (T_high - d)) in the band;
    /// false = patched TIMELY's (rtt - RTT_ref) / RTT_ref. Default true.
    pub new_error: bool,
    /// delta = min(delta_0, (C/N)(k/N)) (eq. 22/25). Default true.
    pub adaptive_delta: bool,
    /// T_low = k seg / C with k = floor(log10 N) (eq. 23/25). Default true.
    pub adaptive_t_low: bool,
    /// Segment of eq. 23 (T_low = k seg / C), and of eq. 3's update interval
    /// when `update_interval = "tau"`. Default 62500B: 50 us at 10 Gbps,
    /// the unit Table II implies (T_low = 100 us at N = 500, k = 2; initial
    /// 50 us) [derived, the paper names no segment size].
    pub seg: Bytes,
    /// Smallest k of eq. 25. floor(log10 N) is 0 for N < 10, which would make
    /// T_low 0 and delta 0; default 1 keeps T_low = seg/C and delta = C/N^2
    /// there [ccsim's guard; the paper does not treat N < 10].
    pub k_min: u32,
    /// k = floor(ln N / ln 10) in floating point, as `floor(log(N)/log(10))`
    /// would compute it in C++ (2 at N = 1000, 3 would be exact), instead of
    /// the exact integer floor(log10 N). Default false [the paper's
    /// simulator code is not public; for sensitivity studies].
    pub k_float: bool,
    /// Thresholds are queueing delay above the base RTT D (see module docs).
    /// Default true (SQCC paper eq. 10 and the flow model eq. 17).
    pub queueing_thresholds: bool,
    /// D when `queueing_thresholds`; 0 = the core's path base RTT
    /// (`FlowView::base_rtt`). Default 0.
    pub base_rtt: Dur,
    /// Largest fractional cut of one band update: the error is capped at
    /// max_decrease / beta. Default 0.5 (the guard near T_high; TIMELY authors'
    /// code: "decrease in rate capped by 0.5 times the old rate").
    pub max_decrease: f64,
    /// Update granularity: one update per `segment` bytes acked; 0 = per ACK.
    /// Default 16KiB (as patched TIMELY here, so the two compare at the same
    /// granularity; TIMELY §6; the paper's eq. 3 has one update per segment,
    /// at least D_minRTT apart: `update_interval = "tau"`). Used only by
    /// `update_interval = "segment"`. spec/ALGORITHMS.md A2 writes "per ACK": that
    /// is `segment = 0`; the paper's claims are measured per ACK with 16 KiB
    /// (and 64 KiB) as the sensitivity sweep `scheme.sqcc.segment`
    /// (experiments/sqcc/manifest.toml, docs/reproduction/sqcc/report.md).
    pub segment: Bytes,
    /// When the rate is updated (see [`crate::timely::UpdateInterval`]):
    /// "segment" = one update per `segment` bytes acked, as above; "tau" = one
    /// per tau* = max{seg/R_i, D_minRTT} (eq. 3: "tau* Rate Update Interval",
    /// Table I) with seg = `seg`, the paper's one "Segment Size" (Table I; eq.
    /// 21 writes tau = max(seg/(C/N), minRTT) beside low = seg/C), and D_minRTT
    /// = `min_rtt` (Algorithm 3's gradient normalizer, the same symbol); "rtt" =
    /// one per round trip (the first ACK of a packet sent after the last update;
    /// §II-B: "the RTT measured in each round"). Default "segment" (as patched
    /// TIMELY here; the paper's §III reads per ACK, which is `segment = 0`).
    pub update_interval: UpdateInterval,
    /// Lowest rate. Default 100Kbps [ccsim's choice: below the 0.04-10 Mbps
    /// fair shares of the paper's 500-1000:1 incasts at 10 Gbps].
    pub min_rate: Rate,
    /// Starting rate as a fraction of line rate, in (0, 1]. Default 1.0
    /// [unverified: the paper does not say].
    pub init_rate_fraction: f64,
    /// Take the data packet's NIC serialization off each RTT sample (TIMELY
    /// §3.1). Default true.
    pub subtract_serialization: bool,
}

impl Default for SqccConfig {
    fn default() -> Self {
        SqccConfig {
            alpha: 0.875,
            beta: 0.008,
            t_low: Dur(50 * US),
            t_high: Dur(500 * US),
            min_rtt: Dur(20 * US),
            delta: Rate(10_000_000),
            rtt_ref: Dur(50 * US),
            new_error: true,
            adaptive_delta: true,
            adaptive_t_low: true,
            seg: Bytes(62_500),
            k_min: 1,
            k_float: false,
            queueing_thresholds: true,
            base_rtt: Dur(0),
            max_decrease: 0.5,
            segment: Bytes(16 * 1024),
            update_interval: UpdateInterval::Segment,
            min_rate: Rate(100_000),
            init_rate_fraction: 1.0,
            subtract_serialization: true,
        }
    }
}

/// Eq. 16: T_high (d - T_low) / (T_low (T_high - d)) for queueing delay (or
/// RTT) `d`, all in the same unit; infinite at d >= T_high.
pub fn sqcc_error(d: f64, t_low: f64, t_high: f64) -> f64 {
    if d >= t_high {
        return f64::INFINITY;
    }
    t_high * (d - t_low) / (t_low * (t_high - d))
}

/// k = max(k_min, floor(log10 n)) (eq. 25).
pub fn k_of(n: u32, k_min: u32) -> u32 {
    let n = n.max(1);
    // integer floor(log10 n), exact at powers of ten
    let mut k = 0;
    let mut x = n;
    while x >= 10 {
        x /= 10;
        k += 1;
    }
    k.max(k_min)
}

/// k of eq. 25 computed as floor(ln n / ln 10) in f64 (off by one below
/// some powers of ten: 1000 gives 2).
pub fn k_of_float(n: u32, k_min: u32) -> u32 {
    (((n.max(1) as f64).ln() / 10f64.ln()).floor().max(0.0) as u32).max(k_min)
}

/// delta = (C/N)(k/N) (eq. 25; k = 1 gives eq. 22).
pub fn adaptive_delta(c: f64, n: u32, k: u32) -> f64 {
    let n = n.max(1) as f64;
    c / n * (k as f64 / n)
}

/// T_low = k seg / C (ps) (eq. 23/25); `seg` in bytes, `c` in bits/s.
pub fn adaptive_t_low(k: u32, seg: u64, c: f64) -> Time {
    (k as f64 * seg as f64 * 8.0 / c * 1e12).round() as Time
}

/// Per-N parameters of one update.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Adapted {
    /// T_low as a queueing delay (or raw RTT), ps.
    pub t_low: Time,
    /// delta, bits/s.
    pub delta: f64,
    pub k: u32,
}

timely_common!(SqccConfig, seg);

impl SqccConfig {
    /// T_low and delta for N = `n` flows at capacity `c` bits/s, with the
    /// switches as configured.
    pub fn adapted(&self, n: u32, c: f64) -> Adapted {
        let k = match (self.adaptive_t_low, self.k_float) {
            (false, _) => 1,
            (true, false) => k_of(n, self.k_min),
            (true, true) => k_of_float(n, self.k_min),
        };
        let t_low = if self.adaptive_t_low { adaptive_t_low(k, self.seg.0, c) } else { self.t_low.0 };
        let d0 = self.delta.0 as f64;
        let delta = if self.adaptive_delta { adaptive_delta(c, n, k).min(d0) } else { d0 };
        Adapted { t_low, delta, k }
    }

    /// Eq. 17: the fixed-point queueing delay (ps) of `n` flows sharing `c`
    /// bits/s with the new error function and this configuration's T_low and
    /// delta for `n`: T_high T_low (beta C + delta N) / (beta C T_high + delta N T_low).
    pub fn fixed_point_delay(&self, n: u32, c: f64) -> f64 {
        let a = self.adapted(n, c);
        let (tl, th) = (a.t_low as f64, self.t_high.0 as f64);
        let bc = self.beta * c;
        let dn = a.delta * n as f64;
        th * tl * (bc + dn) / (bc * th + dn * tl)
    }

    /// Eq. 18 form of the same: q_high - beta C q_high (q_high - q_low) /
    /// (delta N q_low + beta C q_high), in bytes for capacity `c`.
    pub fn fixed_point_queue(&self, n: u32, c: f64) -> f64 {
        let a = self.adapted(n, c);
        let bytes = |t: f64| t / 1e12 * c / 8.0;
        let (ql, qh) = (bytes(a.t_low as f64), bytes(self.t_high.0 as f64));
        let bc = self.beta * c;
        qh - bc * qh * (qh - ql) / (a.delta * n as f64 * ql + bc * qh)
    }
}

impl SchemeConfig for SqccConfig {
    const NAME: &'static str = "sqcc";
    const SUMMARY: &'static str = "SQCC (Tang et al.): patched TIMELY with eq. 16's error and T_low, delta adapted to the incast size N from ACKs";
    const PARAMS: &'static [(&'static str, &'static str)] = &[
        rows::ALPHA,
        ("beta", "decrease factor (band and above t_high)"),
        ("t_low", "T_low when adaptive_t_low is off"),
        ("t_high", "T_high"),
        rows::MIN_RTT,
        ("delta", "increment when adaptive_delta is off; cap of the adaptive one"),
        ("rtt_ref", "patched TIMELY's RTT_ref, used when new_error is off"),
        ("new_error", "eq. 16 error T_high(d-T_low)/(T_low(T_high-d)) in the band"),
        ("adaptive_delta", "delta = min(delta, (C/N)(k/N))"),
        ("adaptive_t_low", "T_low = floor(log10 N) seg / C"),
        ("seg", "segment of T_low = k seg / C (and of update_interval = \"tau\")"),
        ("k_min", "smallest k = floor(log10 N)"),
        ("k_float", "k = floor(ln N / ln 10) in floating point (2 at N = 1000)"),
        ("queueing_thresholds", "thresholds are queueing delay above base_rtt (else raw RTT)"),
        ("base_rtt", "D for queueing_thresholds; 0 = the path's base RTT"),
        ("max_decrease", "largest cut of one band update (error cap = this / beta)"),
        rows::SEGMENT,
        rows::UPDATE_INTERVAL_SEG,
        rows::MIN_RATE,
        rows::INIT_RATE_FRACTION,
        rows::SUBTRACT_SERIALIZATION,
    ];

    fn validate(&self) -> Result<(), (&'static str, String)> {
        self.common().check()?;
        if self.t_low.0 == 0 {
            return Err(("t_low", "must be > 0".into()));
        }
        if self.rtt_ref.0 == 0 {
            return Err(("rtt_ref", "must be > 0".into()));
        }
        if self.seg.0 == 0 {
            return Err(("seg", "must be > 0".into()));
        }
        if self.k_min == 0 {
            return Err(("k_min", "must be >= 1 (k = 0 gives T_low = 0)".into()));
        }
        if !(self.max_decrease > 0.0 && self.max_decrease <= 1.0) {
            return Err(("max_decrease", "must be in (0, 1]".into()));
        }
        Ok(())
    }

    fn into_scheme(self) -> Box<dyn Scheme> {
        Box::new(Sqcc { cfg: self })
    }
}

/// The SQCC scheme.
pub struct Sqcc {
    cfg: SqccConfig,
}

impl Scheme for Sqcc {
    fn name(&self) -> &str {
        SqccConfig::NAME
    }
    fn requirements(&self) -> Requirements {
        // its receiver counts the host's active flows (N)
        Requirements { host_receive_count: true, ..Default::default() }
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        Box::new(SqccSender::new(&self.cfg, flow))
    }
    fn receiver(&self, _flow: &FlowView) -> Box<dyn ReceiverCc> {
        Box::new(SqccReceiver)
    }
}

/// SQCC receiver: writes N into every ACK.
pub struct SqccReceiver;

impl ReceiverCc for SqccReceiver {
    fn fill_ack(&mut self, cx: &ReceiverCx, _data: &Packet, ack: &mut Packet) {
        ack.aux[AUX_N] = cx.host_active_flows.max(1) as u64;
    }
}

/// SQCC sender of one flow.
pub struct SqccSender {
    cfg: SqccConfig,
    core: PatchedCore,
    /// C of the formulas (bits/s).
    cap: f64,
    /// D added to the thresholds (ps); 0 for raw-RTT thresholds.
    base: Time,
    /// Last N read from an ACK (1 before any).
    n: u32,
    /// Parameters of the last update.
    last: Adapted,
}

impl SqccSender {
    pub fn new(cfg: &SqccConfig, flow: &FlowView) -> Self {
        // C of eq. 22-25: the slowest link on the flow's path.
        let cap = flow.bottleneck_rate.max(1) as f64;
        let base = if !cfg.queueing_thresholds {
            0
        } else if cfg.base_rtt.0 > 0 {
            cfg.base_rtt.0
        } else {
            flow.base_rtt
        };
        SqccSender {
            core: PatchedCore::new(flow, &cfg.common()),
            cap,
            base,
            n: 1,
            last: cfg.adapted(1, cap),
            cfg: cfg.clone(),
        }
    }

    pub fn core(&self) -> &PatchedCore {
        &self.core
    }

    /// N last read from an ACK.
    pub fn n(&self) -> u32 {
        self.n
    }

    /// T_low, delta and k of the last update.
    pub fn adapted(&self) -> Adapted {
        self.last
    }

    /// Records N from an ACK (ignored when 0, i.e. no SQCC receiver).
    pub fn set_n(&mut self, n: u64) {
        if n > 0 {
            self.n = n.min(u32::MAX as u64) as u32;
        }
    }

    /// One completion event with RTT sample `rtt` (ps); returns the new rate.
    pub fn update(&mut self, rtt: Time) -> f64 {
        let a = self.cfg.adapted(self.n, self.cap);
        self.last = a;
        let base = self.base;
        let t_high = self.cfg.t_high.0;
        let p = StepParams { t_low: base + a.t_low, t_high: base + t_high, delta: a.delta, beta: self.cfg.beta };
        let cap = self.cfg.max_decrease / self.cfg.beta;
        if self.cfg.new_error {
            let (tl, th) = (a.t_low as f64, t_high as f64);
            self.core.update(rtt, &p, |r| {
                let d = r.saturating_sub(base) as f64;
                sqcc_error(d, tl, th).min(cap)
            })
        } else {
            let rtt_ref = self.cfg.rtt_ref.0;
            self.core.update(rtt, &p, |r| patched_timely::error(r, rtt_ref).min(cap))
        }
    }
}

impl SenderCc for SqccSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        self.core.start(cx.now);
        cx.rate = self.core.rate();
        cx.window = u64::MAX;
    }

    fn on_ack(&mut self, cx: &mut SenderCx, ack: &Packet) {
        self.set_n(ack.aux[AUX_N]);
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
    use crate::patched_timely::{band_update, weight};
    use crate::testutil::{ack, flow, Harness};
    use crate::timely::Region;
    use ccsim_core::cc::FlowView;

    /// NIC serialization of a full test packet: 1048 B at 100 Gbps.
    const SER: Time = 83_840;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// The test flow at 10 Gbps (the paper's C), base RTT 10 us.
    fn flow10() -> FlowView {
        FlowView { line_rate: 10_000_000_000, bottleneck_rate: 10_000_000_000, ..flow() }
    }

    /// NIC serialization of a full test packet at 10 Gbps.
    const SER10: Time = 838_400;

    fn ack_n(h: &mut Harness, s: &mut SqccSender, seq: u64, now_us: u64, rtt_us: u64, n: u64) {
        h.now = (now_us + 10_000) * US;
        let mut p = ack(seq);
        p.ts = h.now - rtt_us * US - SER10;
        p.aux[AUX_N] = n;
        h.ack(s, &p);
    }

    #[test]
    fn error_function_by_hand() {
        // T_low 50, T_high 500: error = 500 (d - 50) / (50 (500 - d)).
        assert_eq!(sqcc_error(50.0, 50.0, 500.0), 0.0);
        // d = 100: 500 x 50 / (50 x 400) = 1.25
        assert!(close(sqcc_error(100.0, 50.0, 500.0), 1.25));
        // d = 275 (midpoint): 500 x 225 / (50 x 225) = 10
        assert!(close(sqcc_error(275.0, 50.0, 500.0), 10.0));
        // d = 450: 500 x 400 / (50 x 50) = 80
        assert!(close(sqcc_error(450.0, 50.0, 500.0), 80.0));
        assert_eq!(sqcc_error(500.0, 50.0, 500.0), f64::INFINITY);
        // T_low 100 (N = 500): d = 200: 500 x 100 / (100 x 300) = 5/3
        assert!(close(sqcc_error(200.0, 100.0, 500.0), 5.0 / 3.0));
        // Grows faster than patched TIMELY's (d - 50)/50 near T_high.
        assert!(sqcc_error(400.0, 50.0, 500.0) > (400.0 - 50.0) / 50.0);
    }

    #[test]
    fn parameter_formulas_by_hand() {
        // k = floor(log10 N), at least 1.
        assert_eq!(k_of(1, 1), 1);
        assert_eq!(k_of(9, 1), 1);
        assert_eq!(k_of(9, 0), 0);
        assert_eq!(k_of(10, 1), 1);
        assert_eq!(k_of(99, 1), 1);
        assert_eq!(k_of(100, 1), 2);
        assert_eq!(k_of(500, 1), 2);
        assert_eq!(k_of(999, 1), 2);
        assert_eq!(k_of(1000, 1), 3);
        // the floating-point reading loses a unit at 1000 (ln 1000 / ln 10 < 3)
        assert_eq!(k_of_float(1000, 1), 2);
        assert_eq!(k_of_float(500, 1), 2);
        assert_eq!(k_of_float(5, 1), 1);
        let c = 10e9;
        // §IV-B: N = 40 -> 6.25 Mbps, N = 60 -> 2.78 Mbps (k = 1).
        assert!(close(adaptive_delta(c, 40, 1), 6.25e6));
        assert!(close(adaptive_delta(c, 60, 1), 10e9 / 3600.0));
        // Table II: N = 500, W/O T_low: 0.04 Mbps; SQCC (k = 2): 0.08 Mbps.
        assert!(close(adaptive_delta(c, 500, 1), 0.04e6));
        assert!(close(adaptive_delta(c, 500, 2), 0.08e6));
        // T_low = k x 62500 B / 10 Gbps = k x 50 us (Table II: 100 us at N = 500).
        assert_eq!(adaptive_t_low(1, 62_500, c), 50 * US);
        assert_eq!(adaptive_t_low(2, 62_500, c), 100 * US);
        assert_eq!(adaptive_t_low(3, 62_500, c), 150 * US);

        let full = SqccConfig::default();
        let a = full.adapted(500, c);
        assert_eq!((a.k, a.t_low), (2, 100 * US));
        assert!(close(a.delta, 0.08e6));
        let a = full.adapted(1000, c);
        assert_eq!((a.k, a.t_low), (3, 150 * US));
        assert!(close(a.delta, 0.03e6));
        // Small N: k = 1, T_low 50 us, delta capped at delta_0 = 10 Mbps.
        let a = full.adapted(4, c);
        assert_eq!((a.k, a.t_low), (1, 50 * US));
        assert_eq!(a.delta, 10e6);
        // Ablations: delta only (k = 1 at every N); error only.
        let d_only = SqccConfig { adaptive_t_low: false, ..Default::default() };
        let a = d_only.adapted(500, c);
        assert_eq!(a.t_low, 50 * US);
        assert!(close(a.delta, 0.04e6));
        let e_only = SqccConfig { adaptive_t_low: false, adaptive_delta: false, ..Default::default() };
        let a = e_only.adapted(500, c);
        assert_eq!((a.t_low, a.delta), (50 * US, 10e6));
    }

    #[test]
    fn fixed_point_by_hand_and_stationary() {
        let c = 10e9;
        let e_only = SqccConfig { adaptive_t_low: false, adaptive_delta: false, ..Default::default() };
        // N = 4: E = 4 x 10M / (0.008 x 10G) = 0.5;
        // d* = 500 x 50 x 1.5 / (500 + 0.5 x 50) = 71.43 us.
        let d = e_only.fixed_point_delay(4, c);
        assert!((d / US as f64 - 37_500.0 / 525.0).abs() < 1e-9);
        // eq. 18 gives the same queue (bytes).
        let q = e_only.fixed_point_queue(4, c);
        assert!((q - d / 1e12 * c / 8.0).abs() < 1e-6, "{q}");
        // Full SQCC at N = 500: k = 2, T_low 100, delta 0.08M, E = 0.5:
        // d* = 500 x 100 x 1.5 / 550 = 136.36 us.
        let d = SqccConfig::default().fixed_point_delay(500, c);
        assert!((d / US as f64 - 75_000.0 / 550.0).abs() < 1e-9);
        // Limits: q* -> q_low as N -> 0 and q* < q_high.
        assert!(e_only.fixed_point_delay(0, c) == 50.0 * US as f64);
        assert!(e_only.fixed_point_delay(100_000, c) < 500.0 * US as f64);
        // At d*, w = 1/2 and R = C/N, the band update leaves the rate unchanged.
        for n in [2u32, 4, 40, 60] {
            let d = e_only.fixed_point_delay(n, c);
            let r = c / n as f64;
            let e = sqcc_error(d, 50.0 * US as f64, 500.0 * US as f64);
            let x = band_update(r, 10e6, 0.008, weight(0.0), e);
            assert!((x - r).abs() / r < 1e-9, "n = {n}: {x} vs {r}");
        }
        // Below patched TIMELY's fixed point, by O(N) (§III-C).
        let pt = crate::patched_timely::PatchedTimelyConfig::default();
        assert!(e_only.fixed_point_delay(40, c) < pt.fixed_point_rtt(40, c));
    }

    #[test]
    fn receiver_writes_n_into_every_ack() {
        let f = flow10();
        let mut r = SqccReceiver;
        for n in [1u32, 7, 500] {
            let cx = ReceiverCx::new(0, &f, n);
            let mut a = ack(1000);
            r.fill_ack(&cx, &Packet::default(), &mut a);
            assert_eq!(a.aux[AUX_N], n as u64);
            assert_eq!(a.aux[0], 0, "aux[0] untouched");
        }
    }

    fn per_ack(c: SqccConfig) -> SqccConfig {
        SqccConfig { segment: Bytes(0), ..c }
    }

    #[test]
    fn sender_by_hand_queueing_thresholds() {
        // base RTT 10 us: thresholds at 60 us and 510 us of RTT.
        let f = flow10();
        let cfg = per_ack(SqccConfig::default());
        let mut s = SqccSender::new(&cfg, &f);
        let mut h = Harness::new(f);
        h.start(&mut s);
        assert_eq!(h.rate, 10e9);
        // N = 4, RTT 110 us: d = 100 us, in the band; first sample g = 0, w = 1/2;
        // error 1.25; delta 10 Mbps (capped).
        ack_n(&mut h, &mut s, 1000, 100, 110, 4);
        let mut r = 0.5 * 10e6 + 10e9 * (1.0 - 0.008 * 1.25 * 0.5);
        assert!(close(h.rate, r), "{} vs {r}", h.rate);
        assert_eq!(s.n(), 4);
        assert_eq!(s.core().last_region(), Some(Region::Band));
        // RTT 55 us: d = 45 < 50: increase by delta.
        ack_n(&mut h, &mut s, 2000, 101, 55, 4);
        r += 10e6;
        assert!(close(h.rate, r));
        assert_eq!(s.core().last_region(), Some(Region::Low));
        // N = 500 now: T_low 100 us, delta 0.08 Mbps; RTT 105 us: d = 95 < 100.
        ack_n(&mut h, &mut s, 3000, 102, 105, 500);
        r += 0.08e6;
        assert!(close(h.rate, r), "{} vs {r}", h.rate);
        assert_eq!(s.adapted().t_low, 100 * US);
        // RTT 600 us: d = 590 > 500: TIMELY's high decrease on the raw RTT,
        // R (1 - beta (1 - 510/600)).
        ack_n(&mut h, &mut s, 4000, 103, 600, 500);
        r *= 1.0 - 0.008 * (1.0 - 510.0 / 600.0);
        assert!(close(h.rate, r));
        assert_eq!(s.core().last_region(), Some(Region::High));
        // An ACK without N (0) keeps the last N.
        ack_n(&mut h, &mut s, 5000, 104, 600, 0);
        assert_eq!(s.n(), 500);
    }

    #[test]
    fn queueing_vs_raw_thresholds() {
        // Base RTT 10 us. RTT 55 us: queueing delay 45 us < T_low = 50 us ->
        // increase; read as a raw RTT it is in the band.
        let f = flow10();
        let mut q = SqccSender::new(&per_ack(SqccConfig::default()), &f);
        let mut h = Harness::new(f.clone());
        h.start(&mut q);
        ack_n(&mut h, &mut q, 1000, 100, 55, 4);
        assert_eq!(q.core().last_region(), Some(Region::Low));
        let raw = per_ack(SqccConfig { queueing_thresholds: false, init_rate_fraction: 0.5, ..Default::default() });
        let mut r = SqccSender::new(&raw, &f);
        let mut h = Harness::new(f.clone());
        h.start(&mut r);
        ack_n(&mut h, &mut r, 1000, 100, 55, 4);
        assert_eq!(r.core().last_region(), Some(Region::Band));
        // error (55 - 50) x 500 / (50 x 445) = 0.11236 at w = 1/2.
        let e = 5.0 * 500.0 / (50.0 * 445.0);
        assert!(close(h.rate, 0.5 * 10e6 + 5e9 * (1.0 - 0.008 * e * 0.5)));
        // A configured base RTT replaces the path's: D = 20 us puts 65 us at
        // d = 45 (Low) and 75 us at d = 55 (band, error (5 x 500)/(50 x 445)).
        let fixed = per_ack(SqccConfig { base_rtt: Dur(20 * US), ..Default::default() });
        let mut s = SqccSender::new(&fixed, &f);
        let mut h = Harness::new(f);
        h.start(&mut s);
        ack_n(&mut h, &mut s, 1000, 100, 65, 4);
        assert_eq!(s.core().last_region(), Some(Region::Low));
        let r0 = h.rate;
        ack_n(&mut h, &mut s, 2000, 101, 75, 4);
        assert_eq!(s.core().last_region(), Some(Region::Band));
        // g = 0.875 x 10 / 20 = 0.4375 -> w = 1.
        assert!(close(h.rate, r0 * (1.0 - 0.008 * e)), "{} vs {}", h.rate, r0 * (1.0 - 0.008 * e));
    }

    #[test]
    fn guard_near_t_high_caps_one_cut_at_half() {
        let f = flow10();
        let cfg = per_ack(SqccConfig { queueing_thresholds: false, ..Default::default() });
        let mut s = SqccSender::new(&cfg, &f);
        let mut h = Harness::new(f);
        h.start(&mut s);
        // Raw RTT 100 us, then 499.9 us: g >= 1/4 -> w = 1; eq. 16 gives
        // 500 x 449.9 / (50 x 0.1) ~ 45000 but the cut is capped at 1/2.
        ack_n(&mut h, &mut s, 1000, 100, 100, 2);
        let r0 = h.rate;
        assert!(close(r0, 0.5 * 10e6 + 10e9 * (1.0 - 0.008 * 1.25 * 0.5)));
        h.now = 10_101 * US;
        let mut p = ack(2000);
        p.ts = h.now - 499_900_000 - SER10;
        p.aux[AUX_N] = 2;
        h.ack(&mut s, &p);
        assert!(close(h.rate, r0 * 0.5), "{} vs {}", h.rate, r0 * 0.5);
        assert!(s.probe() > 499.0);
    }

    #[test]
    fn ablation_switches_change_the_rule() {
        let f = flow10();
        // new_error off: patched TIMELY's (rtt - 50)/50 on the raw RTT.
        let cfg = per_ack(SqccConfig {
            new_error: false,
            adaptive_delta: false,
            adaptive_t_low: false,
            queueing_thresholds: false,
            ..Default::default()
        });
        let mut s = SqccSender::new(&cfg, &f);
        let mut h = Harness::new(f.clone());
        h.start(&mut s);
        ack_n(&mut h, &mut s, 1000, 100, 100, 500);
        let r = 0.5 * 10e6 + 10e9 * (1.0 - 0.008 * 1.0 * 0.5);
        assert!(close(h.rate, r), "{} vs {r}", h.rate);
        // Same input, new error: 1.25 instead of 1.
        let cfg = per_ack(SqccConfig {
            adaptive_delta: false,
            adaptive_t_low: false,
            queueing_thresholds: false,
            ..Default::default()
        });
        let mut s = SqccSender::new(&cfg, &f);
        let mut h = Harness::new(f);
        h.start(&mut s);
        ack_n(&mut h, &mut s, 1000, 100, 100, 500);
        let r = 0.5 * 10e6 + 10e9 * (1.0 - 0.008 * 1.25 * 0.5);
        assert!(close(h.rate, r), "{} vs {r}", h.rate);
        let _ = SER;
    }

    #[test]
    fn tau_gate_is_eq3_with_the_papers_seg() {
        // 10 Gbps, starting at C/2 = 5 Gbps: tau* = max{seg/R, D_minRTT} =
        // 62.5 KB / 5 Gbps = 100 us (eq. 3), whatever `segment` says.
        let f = flow10();
        let cfg = SqccConfig {
            update_interval: UpdateInterval::Tau,
            segment: Bytes(0),
            init_rate_fraction: 0.5,
            ..Default::default()
        };
        let mut s = SqccSender::new(&cfg, &f);
        let mut h = Harness::new(f.clone());
        h.now = 10_000 * US;
        h.start(&mut s);
        // ack_n puts the ACK at 10_000 + now_us us: 1..99 us after the start.
        for i in 1..100 {
            ack_n(&mut h, &mut s, 1000 * i, i, 110, 2);
            assert_eq!(h.rate, 5e9, "no update {i} us after the start");
        }
        assert_eq!(s.n(), 2, "N is read from every ACK, update or not");
        ack_n(&mut h, &mut s, 100_000, 100, 110, 2);
        // d = 100 us in the band, g = 0, w = 1/2, error 1.25, delta 10 Mbps.
        let r = 0.5 * 10e6 + 5e9 * (1.0 - 0.008 * 1.25 * 0.5);
        assert!(close(h.rate, r), "{} vs {r}", h.rate);
        assert_eq!(s.core().last_region(), Some(Region::Band));
        // seg = 125 KB (T_low 100 us as well) doubles tau*: 200 us.
        let cfg2 = SqccConfig { seg: Bytes(125_000), ..cfg.clone() };
        let mut s2 = SqccSender::new(&cfg2, &f);
        let mut h2 = Harness::new(f);
        h2.now = 10_000 * US;
        h2.start(&mut s2);
        ack_n(&mut h2, &mut s2, 1000, 199, 110, 2);
        assert_eq!(h2.rate, 5e9);
        ack_n(&mut h2, &mut s2, 2000, 200, 110, 2);
        assert_ne!(h2.rate, 5e9);
    }

    #[test]
    fn update_interval_is_read_from_the_scenario_table() {
        let parse = |src: &str| crate::registry::config::<SqccConfig>(Some(&toml::from_str(src).unwrap()));
        assert_eq!(SqccConfig::default().update_interval, UpdateInterval::Segment);
        assert_eq!(parse("update_interval = \"tau\"").unwrap().update_interval, UpdateInterval::Tau);
        assert_eq!(parse("update_interval = \"rtt\"").unwrap().update_interval, UpdateInterval::Rtt);
        assert_eq!(parse("update_interval = \"segment\"").unwrap().update_interval, UpdateInterval::Segment);
        let e = parse("update_interval = \"ack\"").unwrap_err();
        assert!(e.contains("update_interval"), "{e}");
    }

    #[test]
    fn validation_and_registry_name() {
        assert!(SqccConfig::default().validate().is_ok());
        for (c, key) in [
            (SqccConfig { k_min: 0, ..Default::default() }, "k_min"),
            (SqccConfig { max_decrease: 0.0, ..Default::default() }, "max_decrease"),
            (SqccConfig { seg: Bytes(0), ..Default::default() }, "seg"),
            (SqccConfig { beta: 0.0, ..Default::default() }, "beta"),
        ] {
            assert_eq!(c.validate().unwrap_err().0, key);
        }
        assert_eq!(SqccConfig::default().into_scheme().name(), "sqcc");
    }
}
