//! OSCAR (Zhang et al., "OSCAR: O(1)-Step Convergence And Readily-deployable
//! congestion control", NSDI'26; seed `oscar-slides.txt`, public ns-3 code
//! NASA-NJU/OSCAR `src/dcb/model/rocev2-oscar.{h,cc}`): MIMD on precise delay
//! signals, at the sender only. No switch support and no INT: that is its point.
//!
//! Control law (slides): w <- D_target / d x w (delay loop, precise for
//! window-bound flows) and r <- r / (1 + g) (gradient loop, precise for
//! rate-bound flows), both expressed as one ratio u of the line rate.
//!
//! * Every data packet carries its send time (the core's `ts`, echoed on the
//!   ACK) and every packet is ACKed (the core's default `ack_every = 1`).
//!   The data packet's own sequence number travels in `aux[AUX_PSN]` (the core
//!   copies `aux` into the ACK; the ACK's `seq` is cumulative, so it cannot name
//!   the packet). With the one-way-delay signal the receiver writes the arrival
//!   time into `aux[AUX_RECV_TS]`.
//! * Per packet sent, the sender records <send time, window ratio at send>
//!   under the packet's PSN (= seq / MTU) in [`SendRecords`], a hash ring keyed
//!   by PSN (the reference's `RttRecordStructure = Map`): ACKs may come back in
//!   any order (per-packet spraying) and each finds its own record.
//! * Signal: RTT = now - send time (default), or one-way delay = receive time -
//!   send time made RTT-equivalent by adding the reverse-path base delay (the
//!   reference's `m_rttCorrection = base RTT - base OWD`), learned here as the
//!   smallest ACK return time seen (now - receive time).
//! * Batched least squares ([`Bls`]) over a batch period tau: constant state
//!   (n, Sx, Sy, Sxx, Sxy plus the batch origin and the sum of window ratios)
//!   with x = send time and y = delay, both relative to the batch's first sample
//!   (so the sums stay small and timestamp wrap-around cannot matter). A batch
//!   opens at its first sample and closes on the first sample sent more than tau
//!   after it, if it then holds at least `min_samples` (that sample included).
//!   g = (n Sxy - Sx Sy) / (n Sxx - Sx^2) (dimensionless), mean delay = Sy / n.
//!   A batch spanning more than `idle_factor` x tau (an idle gap) gives g = 0 and
//!   no reference rate. The naive estimator of the slides ([`DivideEwma`]:
//!   g_i = (d_i - d_(i-1)) / (s_i - s_(i-1)), g = w g + (1 - w) g_i) is an
//!   option (`estimator = "ewma"`), for comparison; it replaces only g, the
//!   batches and control stay the same.
//! * Synchronized reference state: ref_w = mean window ratio recorded at send
//!   time by the batch's packets, ref_r = the batch's measured send rate
//!   n x packet bits / (last send - first send) / line rate; not the current
//!   state. (The reference hard-codes 100 Gbps in ref_r; the NIC rate is used.)
//! * Targets: D_target = T_base + target_queue / C; window ratio
//!   u_w = inflight wire bytes / (D_target x C) = inflight / (BDP + target_queue).
//! * At each batch close (one control step), with d = the batch's mean delay:
//!   - d < T_base + `empty_margin` (queue empty): u = min(1, u + linear_start);
//!   - else g = max(g, gradient_floor); rw = ref_w x D_target / d;
//!     rr = ref_r / (1 + g) (rr = rw when ref_r = 0 and g = 0);
//!     u = max(rr, rw) if d < D_target - `accel_margin` (accelerating), else
//!     min(rr, rw) (decelerating); then the fairness AI term u = min(1, u + ai).
//! * Enforcement: u is clamped to [min_ratio, 1]; rate = u x C (paced);
//!   window = min(u x (BDP + target_queue), BDP) in wire bytes (when `window`).
//!
//! `probe()` returns the last gradient estimate g used by a control step.
//!
//! Experiments: `experiments/oscar/` (scenario files and manifest.toml, run by
//! `ccsim reproduce oscar`; results in docs/reproduction/oscar/report.md):
//!
//! * micro-benchmark of the slides, `fig1-microbench.toml`: steps and time to
//!   the new fair share (claims fig1-decel-*, fig1-accel-*, fig1-burst-*,
//!   o1-gap-sweep);
//! * gradient precision, `gradient.toml`: BLS vs divide+EWMA against the
//!   traced queue (claims tb-gradient-mse-bls, -ewma, -ratio);
//! * 320-host fat tree, Cache Follower at 0.8 load, ECMP and spraying, and
//!   Hadoop + incast: `fig10a-cachefollower.toml`, `fig10b-cachefollower-spray.toml`,
//!   `fig10c-hadoop-incast.toml` (claims fig10a-*, fig10b-*, fig10c-*, with
//!   HPCC* and the <= 150 KiB / larger split).
//!
//! Known behaviour of this design (also in the reference's rules): (1) at the
//! target queue flows are window-bound and the window ratio moves in whole
//! packets, so with the AI term below one packet a range of unequal windows is
//! self-consistent and shares can stay unequal (claims tb-fair-jain,
//! design4-ai-fairness);
//! (2) once the queue is empty, increase is linear start (`linear_start` per
//! step), so after a burst leaves the last part of the climb back to line rate
//! is linear unless a batch caught the queue draining (g near -0.9).

use crate::registry::SchemeConfig;
use ccsim_core::cc::{FlowView, ReceiverCc, ReceiverCx, Scheme, SenderCc, SenderCx};
use ccsim_core::packet::Packet;
use ccsim_core::time::{Time, SEC, US};
use ccsim_core::units::{Bytes, Dur};
use serde::{Deserialize, Serialize};

/// `aux` slot carrying the data packet's `seq` (byte offset; PSN = seq / MTU)
/// from the data packet to its ACK.
pub const AUX_PSN: usize = 0;
/// `aux` slot where the receiver writes the data packet's arrival time (ps)
/// into the ACK (one-way-delay signal only).
pub const AUX_RECV_TS: usize = 1;

/// Which delay OSCAR measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Signal {
    /// Round-trip time: ACK arrival - send time.
    Rtt,
    /// One-way delay: receiver arrival time - send time (needs synchronized
    /// clocks; the simulator's are).
    Owd,
}

/// How the delay gradient g is estimated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Estimator {
    /// Batched least squares over each batch.
    Bls,
    /// Per-packet divide and EWMA (the slides' naive estimator).
    Ewma,
}

/// OSCAR parameters. Defaults are those of the reference experiments
/// (NASA-NJU/OSCAR `config/oscar-nsdi26/experiments/fig10a/oscar.json`,
/// `congestionConfig` and `RoCEv2SocketState.MinRateRatio`) unless stated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OscarConfig {
    /// Target queue; D_target = T_base + target_queue / C. Default 75KB
    /// (fig10a `TargetQueueLength`; also the ns-3 attribute default).
    pub target_queue: Bytes,
    /// BLS batch period tau. Default 5us (fig10a `BlsDuration`, ns-3 attribute
    /// default; the slides suggest half the base RTT).
    pub bls_period: Dur,
    /// Fewest samples a batch needs to close. Default 3 (`OscarBatchedEstimator::
    /// m_nMinWindowSize`).
    pub min_samples: u32,
    /// A batch spanning more than this many tau is an idle gap: g = 0 and no
    /// reference rate. Default 3 (`OscarBatchedEstimator::Calculate`).
    pub idle_factor: f64,
    /// Fairness additive increase, as a ratio of the line rate, after every MIMD
    /// step. Default 0.001 (fig10a `RateAIRatio`; the ns-3 attribute default is 0.005).
    pub ai: f64,
    /// Linear start: ratio added per step while the queue is empty. Default 0.01
    /// (fig10a `RateLinearStart`; the ns-3 attribute default is 0.25).
    pub linear_start: f64,
    /// Lowest rate ratio. Default 0.001 (fig10a `RoCEv2SocketState.MinRateRatio`).
    pub min_ratio: f64,
    /// Rate ratio at flow start. Default 1 (fig10a `StartRateRatio`).
    pub start_ratio: f64,
    /// The gradient is clamped from below to this (keeps 1 + g away from 0).
    /// Default -0.9 (`RoCEv2Oscar::DoRateUpdate`).
    pub gradient_floor: f64,
    /// "Queue empty" when the batch's mean delay is below T_base + this: linear
    /// start instead of MIMD. Default 1us (`UpdateStateWithRcvACK`).
    pub empty_margin: Dur,
    /// Accelerate (max of the loops) when the mean delay is below D_target -
    /// this, else decelerate (min). Default 0.5us (`DoRateUpdate` delta).
    pub accel_margin: Dur,
    /// "rtt" (default; fig10a `SignalType = RTT`, the paper's signal; the ns-3
    /// attribute default is OWD) or "owd".
    pub signal: Signal,
    /// Gradient estimator: "bls" (default, the paper's) or "ewma" (divide + EWMA,
    /// for comparison).
    pub estimator: Estimator,
    /// Weight of the old value in the divide+EWMA estimator,
    /// g = w g + (1 - w) g_i. Default 0.875 [unverified: the slides give the
    /// form, not the weight; 0.875 is TIMELY's EWMA weight].
    pub ewma_weight: f64,
    /// Enforce the window min(u (BDP + target_queue), BDP) besides the rate.
    /// Default true (`RoCEv2Oscar::SetRateRatio`).
    pub window: bool,
}

impl Default for OscarConfig {
    fn default() -> Self {
        OscarConfig {
            target_queue: Bytes(75_000),
            bls_period: Dur(5 * US),
            min_samples: 3,
            idle_factor: 3.0,
            ai: 0.001,
            linear_start: 0.01,
            min_ratio: 0.001,
            start_ratio: 1.0,
            gradient_floor: -0.9,
            empty_margin: Dur(US),
            accel_margin: Dur(US / 2),
            signal: Signal::Rtt,
            estimator: Estimator::Bls,
            ewma_weight: 0.875,
            window: true,
        }
    }
}

impl SchemeConfig for OscarConfig {
    const NAME: &'static str = "oscar";
    const SUMMARY: &'static str =
        "OSCAR (NSDI'26): sender-only MIMD on delay and BLS delay gradient, O(1)-step convergence";
    const PARAMS: &'static [(&'static str, &'static str)] = &[
        ("target_queue", "target queue; D_target = base RTT + target_queue / C"),
        ("bls_period", "batched-least-squares period tau"),
        ("min_samples", "fewest samples for a batch to close"),
        ("idle_factor", "batch longer than this x tau = idle gap (g = 0, no ref rate)"),
        ("ai", "fairness additive increase (ratio of line rate) per step"),
        ("linear_start", "ratio added per step while the queue is empty"),
        ("min_ratio", "lowest rate ratio"),
        ("start_ratio", "rate ratio at flow start"),
        ("gradient_floor", "lower clamp of the delay gradient"),
        ("empty_margin", "queue empty when mean delay < base + this"),
        ("accel_margin", "accelerate (max) when mean delay < D_target - this, else min"),
        ("signal", "\"rtt\" or \"owd\" (one-way delay, receiver timestamp)"),
        ("estimator", "gradient estimator: \"bls\" or \"ewma\" (divide + EWMA)"),
        ("ewma_weight", "divide+EWMA: weight of the old value"),
        ("window", "enforce window min(u (BDP + target_queue), BDP) besides the rate"),
    ];

    fn validate(&self) -> Result<(), (&'static str, String)> {
        let unit = |x: f64| x.is_finite() && (0.0..=1.0).contains(&x);
        if self.bls_period.0 == 0 {
            return Err(("bls_period", "must be greater than zero".into()));
        }
        if self.min_samples < 2 {
            return Err(("min_samples", "a regression needs at least 2 samples".into()));
        }
        if !(self.idle_factor.is_finite() && self.idle_factor >= 1.0) {
            return Err(("idle_factor", "must be a number >= 1".into()));
        }
        if !unit(self.ai) || self.ai >= 1.0 {
            return Err(("ai", "must be in [0, 1)".into()));
        }
        if !unit(self.linear_start) {
            return Err(("linear_start", "must be in [0, 1]".into()));
        }
        if !unit(self.min_ratio) || self.min_ratio == 0.0 {
            return Err(("min_ratio", "must be in (0, 1]".into()));
        }
        if !unit(self.start_ratio) || self.start_ratio < self.min_ratio {
            return Err(("start_ratio", "must be in [min_ratio, 1]".into()));
        }
        if !(self.gradient_floor.is_finite() && self.gradient_floor > -1.0 && self.gradient_floor <= 0.0) {
            return Err(("gradient_floor", "must be in (-1, 0]".into()));
        }
        if !unit(self.ewma_weight) || self.ewma_weight >= 1.0 {
            return Err(("ewma_weight", "must be in [0, 1)".into()));
        }
        Ok(())
    }

    fn into_scheme(self) -> Box<dyn Scheme> {
        Box::new(Oscar { cfg: self })
    }
}

/// The OSCAR scheme.
pub struct Oscar {
    cfg: OscarConfig,
}

impl Scheme for Oscar {
    fn name(&self) -> &str {
        OscarConfig::NAME
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        Box::new(OscarSender::new(&self.cfg, flow))
    }
    fn receiver(&self, _flow: &FlowView) -> Box<dyn ReceiverCc> {
        Box::new(OscarReceiver { owd: self.cfg.signal == Signal::Owd })
    }
}

/// Receiver: with the one-way-delay signal, stamps the arrival time into the ACK.
pub struct OscarReceiver {
    owd: bool,
}

impl ReceiverCc for OscarReceiver {
    fn fill_ack(&mut self, cx: &ReceiverCx, _data: &Packet, ack: &mut Packet) {
        if self.owd {
            ack.aux[AUX_RECV_TS] = cx.now;
        }
    }
}

/// One closed BLS batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Batch {
    /// Samples in the batch.
    pub n: u32,
    /// Earliest and latest send time of the batch's samples.
    pub first_send: Time,
    pub last_send: Time,
    /// Least-squares slope of delay over send time (dimensionless); 0 when the
    /// batch is an idle gap or its send times do not vary.
    pub gradient: f64,
    /// Mean delay of the batch (ps).
    pub mean_delay: f64,
    /// Mean of the window ratios recorded at send time.
    pub mean_ratio: f64,
    /// The batch spans more than idle_factor x tau.
    pub idle: bool,
}

/// Batched least squares of delay over send time, in constant space.
#[derive(Clone, Debug)]
pub struct Bls {
    tau: Time,
    min_samples: u32,
    idle_factor: f64,
    n: u32,
    /// Origin of x and y for this batch: the first sample's send time and delay.
    x0: Time,
    y0: Time,
    x_min: Time,
    x_max: Time,
    sx: f64,
    sy: f64,
    sxx: f64,
    sxy: f64,
    s_ratio: f64,
}

impl Bls {
    pub fn new(tau: Time, min_samples: u32, idle_factor: f64) -> Bls {
        Bls {
            tau,
            min_samples,
            idle_factor,
            n: 0,
            x0: 0,
            y0: 0,
            x_min: 0,
            x_max: 0,
            sx: 0.0,
            sy: 0.0,
            sxx: 0.0,
            sxy: 0.0,
            s_ratio: 0.0,
        }
    }

    /// Samples in the open batch.
    pub fn len(&self) -> u32 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Adds the sample of a packet sent at `send` that saw `delay` (ps), with
    /// the window ratio recorded when it was sent. Returns the batch when this
    /// sample closes it (the next sample opens a new one).
    pub fn push(&mut self, send: Time, delay: Time, ratio: f64) -> Option<Batch> {
        if self.n == 0 {
            self.x0 = send;
            self.y0 = delay;
            self.x_min = send;
            self.x_max = send;
        }
        // Signed offsets: under reordering a later sample may have been sent earlier.
        let x = send as f64 - self.x0 as f64;
        let y = delay as f64 - self.y0 as f64;
        self.n += 1;
        self.sx += x;
        self.sy += y;
        self.sxx += x * x;
        self.sxy += x * y;
        self.s_ratio += ratio;
        self.x_min = self.x_min.min(send);
        self.x_max = self.x_max.max(send);
        if send > self.x0.saturating_add(self.tau) && self.n >= self.min_samples {
            let b = self.batch();
            self.n = 0;
            self.sx = 0.0;
            self.sy = 0.0;
            self.sxx = 0.0;
            self.sxy = 0.0;
            self.s_ratio = 0.0;
            Some(b)
        } else {
            None
        }
    }

    fn batch(&self) -> Batch {
        let n = self.n as f64;
        let den = n * self.sxx - self.sx * self.sx;
        let span = self.x_max - self.x_min;
        let idle = span as f64 > self.idle_factor * self.tau as f64;
        let gradient = if den > 0.0 && !idle { (n * self.sxy - self.sx * self.sy) / den } else { 0.0 };
        Batch {
            n: self.n,
            first_send: self.x_min,
            last_send: self.x_max,
            gradient,
            mean_delay: self.y0 as f64 + self.sy / n,
            mean_ratio: self.s_ratio / n,
            idle,
        }
    }
}

/// The naive gradient estimator of the slides: per-packet divide, then EWMA.
#[derive(Clone, Debug)]
pub struct DivideEwma {
    weight: f64,
    prev: Option<(Time, Time)>,
    g: f64,
}

impl DivideEwma {
    /// `weight`: of the old value, g = weight x g + (1 - weight) x g_i.
    pub fn new(weight: f64) -> DivideEwma {
        DivideEwma { weight, prev: None, g: 0.0 }
    }

    /// Adds a sample (send time, delay in ps) and returns the estimate.
    /// A sample sent at the same time as the previous one is only remembered.
    pub fn push(&mut self, send: Time, delay: Time) -> f64 {
        if let Some((ps, pd)) = self.prev {
            if send != ps {
                let gi = (delay as f64 - pd as f64) / (send as f64 - ps as f64);
                self.g = self.weight * self.g + (1.0 - self.weight) * gi;
            }
        }
        self.prev = Some((send, delay));
        self.g
    }

    pub fn gradient(&self) -> f64 {
        self.g
    }
}

/// What the sender remembers of a packet until its ACK.
#[derive(Clone, Copy, Debug)]
struct Rec {
    psn: u64,
    sent: Time,
    ratio: f64,
}

const EMPTY: u64 = u64::MAX;

/// Per-packet send records keyed by PSN, tolerant to reordering: a ring of
/// 2^k slots indexed by PSN mod 2^k, each holding its PSN. A slot may be
/// reused once its PSN is below the lowest unacknowledged one; a clash with a
/// record still outstanding doubles the ring. The ring is allocated when the
/// first record is inserted, so flows that have not started hold no memory
/// (a scenario of millions of flows builds without gigabytes of rings).
#[derive(Clone, Debug)]
pub struct SendRecords {
    slots: Vec<Rec>,
    /// Slots the ring gets at its first insert.
    initial: usize,
    misses: u64,
}

/// Most slots a ring starts with: beyond it, it grows only if the flow really
/// has that many packets outstanding (a slow link can make the BDP huge).
const MAX_INITIAL_SLOTS: usize = 1 << 12;

impl SendRecords {
    pub fn new(capacity: usize) -> SendRecords {
        let cap = capacity.clamp(16, MAX_INITIAL_SLOTS).next_power_of_two();
        SendRecords { slots: Vec::new(), initial: cap, misses: 0 }
    }

    pub fn capacity(&self) -> usize {
        self.slots.len().max(self.initial)
    }

    /// Records still held (for tests).
    pub fn len(&self) -> usize {
        self.slots.iter().filter(|r| r.psn != EMPTY).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// ACKs that found no record (duplicate, or of an older transmission).
    pub fn misses(&self) -> u64 {
        self.misses
    }

    /// Records packet `psn`, sent at `sent` with window ratio `ratio`; records
    /// with a PSN below `live_from` (cumulatively acknowledged) may be dropped.
    pub fn insert(&mut self, psn: u64, sent: Time, ratio: f64, live_from: u64) {
        if self.slots.is_empty() {
            self.slots = vec![Rec { psn: EMPTY, sent: 0, ratio: 0.0 }; self.initial];
        }
        loop {
            let mask = self.slots.len() - 1;
            let s = &mut self.slots[psn as usize & mask];
            if s.psn == EMPTY || s.psn == psn || s.psn < live_from {
                *s = Rec { psn, sent, ratio };
                return;
            }
            self.grow(live_from);
        }
    }

    fn grow(&mut self, live_from: u64) {
        let old = std::mem::replace(&mut self.slots, vec![Rec { psn: EMPTY, sent: 0, ratio: 0.0 }; 0]);
        self.slots = vec![Rec { psn: EMPTY, sent: 0, ratio: 0.0 }; old.len() * 2];
        for r in old.into_iter().filter(|r| r.psn != EMPTY && r.psn >= live_from) {
            self.insert(r.psn, r.sent, r.ratio, live_from);
        }
    }

    /// The window ratio of packet `psn` if its record is of the transmission
    /// sent at `sent`; the record is removed.
    pub fn take(&mut self, psn: u64, sent: Time) -> Option<f64> {
        if self.slots.is_empty() {
            self.misses += 1;
            return None;
        }
        let mask = self.slots.len() - 1;
        let s = &mut self.slots[psn as usize & mask];
        if s.psn == psn && s.sent == sent {
            s.psn = EMPTY;
            Some(s.ratio)
        } else {
            self.misses += 1;
            None
        }
    }
}

/// OSCAR sender of one flow.
pub struct OscarSender {
    ai: f64,
    linear_start: f64,
    min_ratio: f64,
    gradient_floor: f64,
    window: bool,
    signal: Signal,
    estimator: Estimator,
    /// Line rate C (bits/s).
    line: f64,
    /// Base RTT (ps).
    base: f64,
    /// D_target = base + target_queue / C (ps).
    d_target: f64,
    empty_margin: f64,
    accel_margin: f64,
    /// BDP (wire bytes) and D_target x C = BDP + target_queue (wire bytes).
    bdp: f64,
    target_bytes: f64,
    mtu: u64,
    /// Wire bytes per payload byte of a full packet.
    wire_per_payload: f64,
    /// Bits of a full data packet on the wire.
    pkt_bits: f64,
    /// Current rate ratio u (clamped).
    u: f64,
    bls: Bls,
    ewma: DivideEwma,
    records: SendRecords,
    /// Smallest ACK return time seen (OWD signal's RTT correction).
    rev_min: Time,
    steps: u64,
    gradient: f64,
    last: Option<Batch>,
}

impl OscarSender {
    pub fn new(cfg: &OscarConfig, flow: &FlowView) -> Self {
        let line = flow.line_rate as f64;
        let base = flow.base_rtt as f64;
        let tq = cfg.target_queue.0 as f64;
        let bdp = line * base / (8.0 * SEC as f64);
        let mtu = flow.mtu.max(1) as u64;
        OscarSender {
            ai: cfg.ai,
            linear_start: cfg.linear_start,
            min_ratio: cfg.min_ratio,
            gradient_floor: cfg.gradient_floor,
            window: cfg.window,
            signal: cfg.signal,
            estimator: cfg.estimator,
            line,
            base,
            d_target: base + tq * 8.0 * SEC as f64 / line,
            empty_margin: cfg.empty_margin.0 as f64,
            accel_margin: cfg.accel_margin.0 as f64,
            bdp,
            target_bytes: bdp + tq,
            mtu,
            wire_per_payload: flow.packet_size as f64 / mtu as f64,
            pkt_bits: flow.packet_size as f64 * 8.0,
            u: cfg.start_ratio,
            bls: Bls::new(cfg.bls_period.0, cfg.min_samples, cfg.idle_factor),
            ewma: DivideEwma::new(cfg.ewma_weight),
            records: SendRecords::new((2.0 * (bdp + tq) / flow.packet_size.max(1) as f64) as usize),
            rev_min: Time::MAX,
            steps: 0,
            gradient: 0.0,
            last: None,
        }
    }

    /// Current rate ratio u.
    pub fn ratio(&self) -> f64 {
        self.u
    }

    /// Control steps taken (closed batches).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The last closed batch.
    pub fn last_batch(&self) -> Option<Batch> {
        self.last
    }

    /// D_target (ps).
    pub fn target_delay(&self) -> f64 {
        self.d_target
    }

    pub fn records(&self) -> &SendRecords {
        &self.records
    }

    /// Sets u (clamped to [min_ratio, 1]) and applies rate and window.
    fn apply(&mut self, cx: &mut SenderCx, u: f64) {
        let u = u.clamp(self.min_ratio, 1.0);
        self.u = u;
        cx.rate = u * self.line;
        cx.window = if self.window {
            let wire = (u * self.target_bytes).min(self.bdp);
            ((wire / self.wire_per_payload) as u64).max(1)
        } else {
            u64::MAX
        };
    }

    /// The new ratio after batch `b` (before clamping).
    pub fn next_ratio(&self, b: &Batch, ewma_gradient: f64) -> f64 {
        let d = b.mean_delay;
        if d < self.base + self.empty_margin {
            return (self.u + self.linear_start).min(1.0);
        }
        let g = match self.estimator {
            Estimator::Bls => b.gradient,
            Estimator::Ewma if b.idle => 0.0,
            Estimator::Ewma => ewma_gradient,
        }
        .max(self.gradient_floor);
        let rw = b.mean_ratio * self.d_target / d;
        let span = b.last_send.saturating_sub(b.first_send);
        let ref_r =
            if b.idle || span == 0 { 0.0 } else { b.n as f64 * self.pkt_bits / (span as f64 / SEC as f64) / self.line };
        let rr = if ref_r == 0.0 && g == 0.0 { rw } else { ref_r / (1.0 + g) };
        let u = if d < self.d_target - self.accel_margin { rr.max(rw) } else { rr.min(rw) };
        (u + self.ai).min(1.0)
    }

    fn control(&mut self, cx: &mut SenderCx, b: Batch) {
        let u = self.next_ratio(&b, self.ewma.gradient());
        self.gradient = match self.estimator {
            Estimator::Bls => b.gradient,
            Estimator::Ewma if b.idle => 0.0,
            Estimator::Ewma => self.ewma.gradient(),
        };
        self.steps += 1;
        self.last = Some(b);
        self.apply(cx, u);
    }
}

impl SenderCc for OscarSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        self.apply(cx, self.u);
    }

    fn on_send(&mut self, cx: &mut SenderCx, pkt: &mut Packet) {
        pkt.aux[AUX_PSN] = pkt.seq;
        let inflight = cx.snd_nxt - cx.snd_una + pkt.payload as u64;
        let ratio = inflight as f64 * self.wire_per_payload / self.target_bytes;
        self.records.insert(pkt.seq / self.mtu, pkt.ts, ratio, cx.snd_una / self.mtu);
    }

    fn on_ack(&mut self, cx: &mut SenderCx, ack: &Packet) {
        let Some(ratio) = self.records.take(ack.aux[AUX_PSN] / self.mtu, ack.ts) else {
            return;
        };
        let delay = match self.signal {
            Signal::Rtt => cx.now.saturating_sub(ack.ts),
            Signal::Owd => {
                let recv = ack.aux[AUX_RECV_TS];
                if recv < ack.ts || recv > cx.now {
                    // No receiver timestamp: fall back to the RTT.
                    cx.now.saturating_sub(ack.ts)
                } else {
                    self.rev_min = self.rev_min.min(cx.now - recv);
                    recv - ack.ts + self.rev_min
                }
            }
        };
        if self.estimator == Estimator::Ewma {
            self.ewma.push(ack.ts, delay);
        }
        if let Some(b) = self.bls.push(ack.ts, delay, ratio) {
            self.control(cx, b);
        }
    }

    fn probe(&self) -> f64 {
        self.gradient
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{ack, flow, Harness};
    use ccsim_core::packet::PktKind;
    use ccsim_core::time::NS;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// Least squares slope of (x, y) by the textbook formula, for cross-checks.
    fn slope(p: &[(f64, f64)]) -> f64 {
        let n = p.len() as f64;
        let mx = p.iter().map(|q| q.0).sum::<f64>() / n;
        let my = p.iter().map(|q| q.1).sum::<f64>() / n;
        let cov: f64 = p.iter().map(|q| (q.0 - mx) * (q.1 - my)).sum();
        let var: f64 = p.iter().map(|q| (q.0 - mx) * (q.0 - mx)).sum();
        cov / var
    }

    #[test]
    fn bls_matches_hand_computed_regression() {
        // Send times 0, 1, 2, 6 us after t0, delays 10, 12, 11, 20 us; tau 5 us.
        // n = 4, Sx = 9, Sy = 53, Sxx = 41, Sxy = 154 (us):
        // g = (4 x 154 - 9 x 53) / (4 x 41 - 81) = 139 / 83, mean delay 13.25 us.
        let t0 = 7 * US;
        let mut b = Bls::new(5 * US, 3, 3.0);
        assert_eq!(b.push(t0, 10 * US, 0.5), None);
        assert_eq!(b.push(t0 + US, 12 * US, 0.7), None);
        assert_eq!(b.push(t0 + 2 * US, 11 * US, 0.6), None);
        assert_eq!(b.len(), 3);
        let batch = b.push(t0 + 6 * US, 20 * US, 0.2).expect("sent > t0 + tau with n >= 3 closes");
        assert!(close(batch.gradient, 139.0 / 83.0), "{}", batch.gradient);
        assert!(close(batch.mean_delay, 13.25e6));
        assert!(close(batch.mean_ratio, 0.5));
        assert_eq!((batch.n, batch.first_send, batch.last_send, batch.idle), (4, t0, t0 + 6 * US, false));
        assert!(b.is_empty(), "the closing sample is not carried into the next batch");
        // The next sample opens a new batch.
        assert_eq!(b.push(t0 + 7 * US, 20 * US, 0.2), None);
        assert_eq!(b.len(), 1);
    }

    #[test]
    fn bls_needs_min_samples_and_tau_and_zeroes_idle_batches() {
        let mut b = Bls::new(5 * US, 3, 3.0);
        assert_eq!(b.push(0, 10 * US, 1.0), None);
        // Beyond tau but only 2 samples: stays open.
        assert_eq!(b.push(6 * US, 11 * US, 1.0), None);
        // Third sample closes; span 14 us <= 3 tau: a real gradient.
        let x = b.push(14 * US, 13 * US, 1.0).unwrap();
        let want = slope(&[(0.0, 10.0), (6.0, 11.0), (14.0, 13.0)]);
        assert!(close(x.gradient, want), "{} vs {want}", x.gradient);
        assert!(!x.idle);
        // Within tau nothing closes however many samples arrive.
        let mut b = Bls::new(5 * US, 3, 3.0);
        for i in 0..=50 {
            assert_eq!(b.push(i * 100 * NS, 10 * US + i * NS, 1.0), None);
        }
        // Span over 3 tau (idle gap): g = 0, flagged.
        let mut b = Bls::new(5 * US, 3, 3.0);
        b.push(0, 10 * US, 1.0);
        b.push(US, 20 * US, 1.0);
        let x = b.push(16 * US, 30 * US, 1.0).unwrap();
        assert!(x.idle);
        assert_eq!(x.gradient, 0.0);
        assert!(close(x.mean_delay, 20e6));
        // min_samples = 5.
        let mut b = Bls::new(5 * US, 5, 3.0);
        for i in 0..4 {
            assert_eq!(b.push(i * 2 * US, 10 * US, 1.0), None);
        }
        assert!(b.push(8 * US, 10 * US, 1.0).is_some());
    }

    #[test]
    fn bls_is_shift_invariant_and_tolerates_unordered_samples() {
        // A queue growing at 0.4 (delay 0.4 ns per ns) with +-20 ns of jitter.
        let pts: Vec<(Time, Time)> = (0..80u64)
            .map(|i| (i * 84 * NS, 12 * US + (i * 84 * NS * 2) / 5 + [0, 20, 7, 13][i as usize % 4] * NS))
            .collect();
        let run = |offset: Time, order: &[usize]| {
            let mut b = Bls::new(5 * US, 3, 3.0);
            let mut out = None;
            for &i in order {
                let (x, y) = pts[i];
                if let Some(r) = b.push(x + offset, y, 1.0) {
                    out = Some(r);
                }
            }
            out.unwrap()
        };
        let order: Vec<usize> = (0..80).collect();
        let a = run(0, &order);
        // One second later (x about 1e12 ps): same slope; relative x keeps precision.
        let b = run(SEC, &order);
        assert!((a.gradient - b.gradient).abs() < 1e-9, "{} vs {}", a.gradient, b.gradient);
        assert!((a.gradient - 0.4).abs() < 0.02, "{}", a.gradient);
        let want = slope(&pts[..a.n as usize].iter().map(|&(x, y)| (x as f64, y as f64)).collect::<Vec<_>>());
        assert!(close(a.gradient, want));
        // Swapping neighbours inside the batch changes nothing but the origin.
        let mut sw = order.clone();
        for k in (1..40).step_by(2) {
            sw.swap(k, k + 1);
        }
        let c = run(0, &sw);
        assert_eq!(c.n, a.n);
        assert!(close(c.gradient, a.gradient), "{} vs {}", c.gradient, a.gradient);
        assert_eq!((c.first_send, c.last_send), (a.first_send, a.last_send));
    }

    #[test]
    fn divide_ewma_by_hand() {
        let mut e = DivideEwma::new(0.875);
        assert_eq!(e.push(0, 10 * US), 0.0);
        // g_1 = (10.1 - 10) us / 100 ns = 1: g = 0.125.
        assert!(close(e.push(100 * NS, 10 * US + 100 * NS), 0.125));
        // g_2 = -50 ns / 50 ns = -1: g = 0.875 x 0.125 - 0.125.
        assert!(close(e.push(150 * NS, 10 * US + 50 * NS), 0.875 * 0.125 - 0.125));
        // Same send time: remembered, no division.
        let g = e.gradient();
        assert_eq!(e.push(150 * NS, 20 * US), g);
    }

    /// The test flow: 100G, base RTT 10 us (BDP 125 KB), 1000 B payload in 1048 B.
    /// D_target = 10 us + 75 KB / 100G = 16 us; BDP + target = 200 KB.
    fn sender(cfg: &OscarConfig) -> (OscarSender, Harness) {
        let f = flow();
        let s = OscarSender::new(cfg, &f);
        let h = Harness::new(f);
        (s, h)
    }

    fn batch(mean_delay_us: f64, gradient: f64, mean_ratio: f64, n: u32, span_us: f64) -> Batch {
        Batch {
            n,
            first_send: 0,
            last_send: (span_us * US as f64) as Time,
            gradient,
            mean_delay: mean_delay_us * US as f64,
            mean_ratio,
            idle: false,
        }
    }

    /// n packets of 1048 B over span us, as a ratio of 100 Gbps.
    fn rate_of(n: u32, span_us: f64) -> f64 {
        n as f64 * 1048.0 * 8.0 / (span_us * 1e-6) / 100e9
    }

    #[test]
    fn targets_and_start_state() {
        let (mut s, mut h) = sender(&OscarConfig::default());
        assert!(close(s.target_delay(), 16e6));
        h.start(&mut s);
        assert_eq!(h.rate, 100e9);
        // Window = min(1 x 200 KB, BDP 125 KB) wire bytes, in payload bytes.
        assert_eq!(h.window, (125_000.0 / 1.048) as u64);
        let (mut s, mut h) = sender(&OscarConfig { start_ratio: 0.25, window: false, ..Default::default() });
        h.start(&mut s);
        assert_eq!((h.rate, h.window), (25e9, u64::MAX));
    }

    #[test]
    fn u_selection_rule() {
        let (s, _) = sender(&OscarConfig::default());
        // s.u = 1 (start). Accelerating (d = 12 us < 16 - 0.5): max(rr, rw).
        // rw = 0.3 x 16 / 12 = 0.4; rr = ref_r / (1 + g).
        let n = 20;
        let r = rate_of(n, 5.0);
        let b = batch(12.0, 0.5, 0.3, n, 5.0);
        let rr = r / 1.5;
        assert!(rr < 0.4);
        assert!(close(s.next_ratio(&b, 0.0), 0.4 + 0.001), "max picks rw");
        let b = batch(12.0, -0.5, 0.3, n, 5.0);
        assert!(close(s.next_ratio(&b, 0.0), r / 0.5 + 0.001), "max picks rr = {}", r / 0.5);
        // Decelerating (d = 20 us >= 15.5): min(rr, rw); rw = 0.3 x 16 / 20 = 0.24.
        let b = batch(20.0, 0.5, 0.3, n, 5.0);
        assert!(close(s.next_ratio(&b, 0.0), (r / 1.5).min(0.24) + 0.001));
        let b = batch(20.0, 2.0, 0.3, n, 5.0);
        assert!(close(s.next_ratio(&b, 0.0), r / 3.0 + 0.001), "min picks rr");
        // Between D_target - 0.5 us and D_target: already decelerating.
        let b = batch(15.7, -0.5, 0.3, n, 5.0);
        assert!(close(s.next_ratio(&b, 0.0), (r / 0.5).min(0.3 * 16.0 / 15.7) + 0.001));
        // Gradient floor -0.9: g = -0.99 acts as -0.9.
        let b = batch(12.0, -0.99, 0.01, n, 5.0);
        assert!(close(s.next_ratio(&b, 0.0), (r / 0.1).min(1.0)));
        let b = batch(12.0, -0.99, 0.01, 3, 5.0);
        assert!(close(s.next_ratio(&b, 0.0), rate_of(3, 5.0) / 0.1 + 0.001));
        // No reference rate (idle) and g = 0: rr = rw.
        let mut b = batch(20.0, 0.0, 0.3, n, 20.0);
        b.idle = true;
        assert!(close(s.next_ratio(&b, 0.0), 0.24 + 0.001));
        // Result capped at 1.
        let b = batch(12.0, -0.5, 0.9, n, 5.0);
        assert_eq!(s.next_ratio(&b, 0.0), 1.0);
        // Queue empty (d < base + 1 us = 11 us): linear start from the current u.
        let (mut s, mut h) = sender(&OscarConfig { start_ratio: 0.5, ..Default::default() });
        h.start(&mut s);
        let b = batch(10.9, 3.0, 0.01, n, 5.0);
        assert!(close(s.next_ratio(&b, 0.0), 0.51));
        // The EWMA estimator replaces g only.
        let (s, _) = sender(&OscarConfig { estimator: Estimator::Ewma, ..Default::default() });
        let b = batch(20.0, 0.0, 0.3, n, 5.0);
        assert!(close(s.next_ratio(&b, 2.0), (r / 3.0).min(0.24) + 0.001));
        let mut b = batch(20.0, 0.0, 0.3, n, 20.0);
        b.idle = true;
        assert!(close(s.next_ratio(&b, 2.0), 0.24 + 0.001), "idle batch: g = 0 for EWMA too");
    }

    /// Sends `n` packets of 1000 B, one every `gap`, from `h.now`; returns them.
    fn send_burst(s: &mut OscarSender, h: &mut Harness, n: usize, gap: Time) -> Vec<Packet> {
        let mut out = Vec::new();
        for _ in 0..n {
            let mut p = Packet {
                kind: PktKind::Data,
                seq: h.snd_nxt,
                ts: h.now,
                payload: 1000,
                size: 1048,
                ..Default::default()
            };
            h.send(s, &mut p);
            h.snd_nxt += 1000;
            h.now += gap;
            out.push(p);
        }
        out
    }

    /// The ACK the core makes for data packet `p`: cumulative seq, echoed ts and aux.
    fn ack_for(p: &Packet, cum: u64) -> Packet {
        Packet { ts: p.ts, aux: p.aux, ..ack(cum) }
    }

    #[test]
    fn reference_state_is_the_one_recorded_at_send_time() {
        let (mut s, mut h) = sender(&OscarConfig::default());
        h.start(&mut s);
        // 20 packets, 0.5 us apart, with 50 KB already in flight: each records
        // window ratio (50 KB + 1000 B x (k + 1)) x 1.048 / 200 KB.
        h.snd_una = 0;
        h.snd_nxt = 50_000;
        h.now = 100 * US;
        let pkts = send_burst(&mut s, &mut h, 20, 500 * NS);
        assert_eq!(pkts[3].aux[AUX_PSN], 53_000);
        // The state changes before the ACKs come back: most is acked, so the
        // current inflight is tiny; OSCAR must use the recorded ratios.
        h.snd_una = 69_000;
        let mut closed = None;
        for (k, p) in pkts.iter().enumerate() {
            // Delay grows 0.25 ns per ns of send time: g = 0.25, mean ~ 19.4 us.
            h.now = p.ts + 17 * US + (p.ts - 100 * US) / 4;
            h.snd_una = p.seq + 1000;
            h.ack(&mut s, &ack_for(p, p.seq + 1000));
            if s.steps() == 1 && closed.is_none() {
                closed = Some(k);
            }
        }
        // tau 5 us: the 12th packet (sent 5.5 us after the first) closes the batch.
        assert_eq!(closed, Some(11));
        let b = s.last_batch().unwrap();
        assert_eq!(b.n, 12);
        assert!(close(b.gradient, 0.25), "{}", b.gradient);
        let ratios: Vec<f64> = (0..12).map(|k| (51_000.0 + 1000.0 * k as f64) * 1.048 / 200_000.0).collect();
        let ref_w = ratios.iter().sum::<f64>() / 12.0;
        assert!(close(b.mean_ratio, ref_w), "{} vs {ref_w}", b.mean_ratio);
        // Decelerating (mean delay 17 + 5.5/8 us > 15.5 us): u = min(rr, rw) + ai.
        let d = 17e6 + 5.5e6 / 8.0;
        assert!(close(b.mean_delay, d));
        let rw = ref_w * 16e6 / d;
        let rr = rate_of(12, 5.5) / 1.25;
        let u = rr.min(rw) + 0.001;
        assert!(close(s.ratio(), u), "{} vs {u}", s.ratio());
        assert!(close(h.rate, u * 100e9));
        assert_eq!(h.window, (((u * 200_000.0).min(125_000.0)) / 1.048) as u64);
        assert_eq!(s.probe(), b.gradient);
    }

    #[test]
    fn records_survive_reordered_acks_and_drop_unknown_ones() {
        let (mut s, mut h) = sender(&OscarConfig::default());
        h.start(&mut s);
        let cap0 = s.records().capacity();
        assert_eq!(cap0, 512, "2 x (BDP + target) / packet = 381 records, rounded up");
        let pkts = send_burst(&mut s, &mut h, 1000, 100 * NS);
        assert_eq!(s.records().capacity(), 1024, "the ring grew for 1000 outstanding packets");
        assert_eq!(s.records().len(), 1000);
        // ACKs in a scrambled order (as per-packet spraying delivers them):
        // every one finds its record.
        let mut order: Vec<usize> = (0..1000).collect();
        for i in 0..1000 {
            order.swap(i, (i * 7919 + 13) % 1000);
        }
        h.now = 200 * US;
        for &i in &order {
            h.ack(&mut s, &ack_for(&pkts[i], 0));
            h.now += 10 * NS;
        }
        assert_eq!(s.records().len(), 0);
        assert_eq!(s.records().misses(), 0);
        assert!(s.steps() > 0, "batches closed on reordered samples");
        // An ACK whose record is gone (duplicate) or whose ts is of another
        // transmission is ignored.
        h.ack(&mut s, &ack_for(&pkts[5], 0));
        let mut other = pkts[6].clone();
        other.ts += 1;
        h.ack(&mut s, &ack_for(&other, 0));
        assert_eq!(s.records().misses(), 2);
    }

    #[test]
    fn go_back_n_resend_replaces_the_record() {
        let (mut s, mut h) = sender(&OscarConfig::default());
        h.start(&mut s);
        let first = send_burst(&mut s, &mut h, 4, 100 * NS);
        // Go back to 1000 and resend packets 1..3.
        h.snd_nxt = 1000;
        h.now += US;
        let again = send_burst(&mut s, &mut h, 3, 100 * NS);
        assert_eq!(s.records().len(), 4);
        h.ack(&mut s, &ack_for(&first[2], 0));
        assert_eq!(s.records().misses(), 1, "old transmission");
        h.ack(&mut s, &ack_for(&again[1], 0));
        assert_eq!(s.records().misses(), 1);
        assert_eq!(s.records().len(), 3);
    }

    #[test]
    fn owd_signal_uses_receiver_timestamp_and_learns_reverse_delay() {
        let cfg = OscarConfig { signal: Signal::Owd, ..Default::default() };
        // Receiver stamps arrival time.
        let f = flow();
        let scheme = cfg.clone().into_scheme();
        let mut rx = scheme.receiver(&f);
        let data = Packet::default();
        let mut a = ack(0);
        rx.fill_ack(&ReceiverCx::new(77 * US, &f, 1), &data, &mut a);
        assert_eq!(a.aux[AUX_RECV_TS], 77 * US);
        let mut rx = OscarConfig::default().into_scheme().receiver(&f);
        let mut a = ack(0);
        rx.fill_ack(&ReceiverCx::new(77 * US, &f, 1), &data, &mut a);
        assert_eq!(a.aux[AUX_RECV_TS], 0, "RTT mode leaves aux alone");

        // Sender: forward delay rises 0.5 ns/ns; the reverse path (5 us base)
        // queues 4 us more from the 16th ACK on. OWD sees the forward slope
        // only; RTT sees the reverse queue too.
        let run = |cfg: &OscarConfig| {
            let (mut s, mut h) = sender(cfg);
            h.start(&mut s);
            let pkts = send_burst(&mut s, &mut h, 30, 200 * NS);
            for (k, p) in pkts.iter().enumerate() {
                let fwd = 5 * US + (p.ts / 2);
                let recv = p.ts + fwd;
                // A reverse-path queue appears half way through.
                let back = 5 * US + if k >= 15 { 4 * US } else { 0 };
                h.now = recv + back;
                let mut a = ack_for(p, 0);
                a.aux[AUX_RECV_TS] = recv;
                h.ack(&mut s, &a);
            }
            s.last_batch().unwrap()
        };
        let owd = run(&cfg);
        assert!(close(owd.gradient, 0.5), "{}", owd.gradient);
        // RTT-equivalent: OWD + the smallest reverse delay (5 us).
        let n = owd.n as u64;
        let mean_send = (0..n).map(|k| (k * 200 * NS) as f64).sum::<f64>() / n as f64;
        assert!(close(owd.mean_delay, 10e6 + mean_send / 2.0), "{}", owd.mean_delay);
        let rtt = run(&OscarConfig::default());
        assert!((rtt.gradient - 0.5).abs() > 0.05, "RTT carries the reverse-path noise: {}", rtt.gradient);
    }

    #[test]
    fn rate_and_window_enforced_with_min_ratio() {
        // ai = 0, else the AI term alone keeps u above min_ratio = ai.
        let (mut s, mut h) = sender(&OscarConfig { ai: 0.0, ..Default::default() });
        h.start(&mut s);
        // A huge delay with tiny reference state drives u below min_ratio.
        h.snd_nxt = 0;
        let pkts = send_burst(&mut s, &mut h, 12, 500 * NS);
        for p in &pkts {
            h.now = p.ts + 10 * SEC / 1000;
            h.ack(&mut s, &ack_for(p, 0));
        }
        assert_eq!(s.steps(), 1);
        assert_eq!(s.ratio(), 0.001);
        assert!(close(h.rate, 0.1e9));
        assert_eq!(h.window, (0.001 * 200_000.0 / 1.048) as u64);
        // An empty queue then adds linear_start per step.
        let pkts = send_burst(&mut s, &mut h, 12, 500 * NS);
        for p in &pkts {
            h.now = p.ts + 10 * US;
            h.ack(&mut s, &ack_for(p, 0));
        }
        assert!(close(s.ratio(), 0.011));
        // Without the window: rate only.
        let (mut s, mut h) = sender(&OscarConfig { window: false, ..Default::default() });
        h.start(&mut s);
        assert_eq!(h.window, u64::MAX);
    }

    #[test]
    fn config_checks_and_scheme() {
        assert!(OscarConfig::default().validate().is_ok());
        let bad = |c: OscarConfig| c.validate().unwrap_err().0;
        assert_eq!(bad(OscarConfig { bls_period: Dur(0), ..Default::default() }), "bls_period");
        assert_eq!(bad(OscarConfig { min_samples: 1, ..Default::default() }), "min_samples");
        assert_eq!(bad(OscarConfig { min_ratio: 0.0, ..Default::default() }), "min_ratio");
        assert_eq!(bad(OscarConfig { start_ratio: 0.0001, ..Default::default() }), "start_ratio");
        assert_eq!(bad(OscarConfig { gradient_floor: -1.0, ..Default::default() }), "gradient_floor");
        assert_eq!(bad(OscarConfig { ewma_weight: 1.0, ..Default::default() }), "ewma_weight");
        assert_eq!(bad(OscarConfig { ai: 1.0, ..Default::default() }), "ai");
        let sc = OscarConfig::default().into_scheme();
        assert_eq!(sc.name(), "oscar");
        let r = sc.requirements();
        assert!(!r.int_on_data && r.ecn.is_none(), "sender-only: no switch support");
    }
}
