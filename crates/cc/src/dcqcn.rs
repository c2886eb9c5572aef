//! DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
//! SIGCOMM'15): ECN-based rate control for RoCE.
//!
//! * Switch (CP): RED-like ECN marking at egress, done by the core.
//! * Receiver (NP): on a CE-marked data packet, send a CNP unless one was sent
//!   for this flow less than `cnp_interval` ago. With `cnp_interval = 0` the NP
//!   sends no CNPs; the ECN echo carried by the ACK of every CE-marked packet is
//!   the congestion notification instead (the HPCC simulator's arrangement).
//! * Sender (RP): current rate Rc, target rate Rt and the rate-reduction factor
//!   alpha. A congestion notification cuts Rc by alpha/2 (at most once per
//!   `rate_decrease_interval`); without notifications alpha decays every
//!   `alpha_interval`; the rate recovers in stages driven by a timer and a byte
//!   counter: fast recovery (Rc halfway to Rt), additive increase (Rt + R_AI)
//!   and hyper increase (Rt + i x R_HAI).
//!
//! Two RP models exist, selected by `rp_model` (each preset picks one):
//!
//! * `"paper"`: the RP as the paper describes it (and as htsim `sim/dcqcn.cpp`
//!   reads it). On a notification: Rt = Rc (see `clamp_target_rate`),
//!   Rc = max(min_rate, Rc (1 - alpha/2)), then alpha = (1-g) alpha + g, the
//!   stage counters and byte counter are reset and the timers restart. A
//!   notification less than `rate_decrease_interval` after the last cut is held
//!   and applied when that interval ends. alpha = (1-g) alpha every
//!   `alpha_interval` without a cut. Each expiry of the rate-increase timer
//!   increments T, each `byte_counter` bytes sent increments BC; then, over the
//!   counters in use: max(T, BC) <= F: fast recovery; min(T, BC) > F: hyper
//!   increase with i = min(T, BC) - F; otherwise additive increase.
//! * `"mlx"`: the Mellanox (CX4 and newer) model implemented by the HPCC ns-3
//!   simulator (`rdma-hw.cc`: cnp_received_mlx, UpdateAlphaMlx,
//!   CheckRateDecreaseMlx, RateIncEventTimerMlx). The first notification sets
//!   alpha = 1 and Rt = Rc and starts a periodic alpha update
//!   (alpha = (1-g) alpha + g if a notification arrived in the period, else
//!   (1-g) alpha) and a rate-decrease check every `rate_decrease_interval`
//!   (first one 1 ns later than the interval): if a notification arrived since
//!   the last check, Rc is cut and the rate-increase timer restarts. Each timer
//!   expiry with stage s: s < F fast recovery, s = F additive increase, s > F
//!   hyper increase by R_HAI; then s += 1. No byte counter.
//!
//! Rates never go below `min_rate` nor above the NIC line rate. DCQCN keeps no
//! window. `probe()` returns alpha.
//!
//! Fairness (tests/network.rs, 4 long flows on a 100G bottleneck): with the
//! `hpcc` preset and its ECN marking (Kmin 400 KB, Kmax 1600 KB, Pmax 0.2 at
//! 100G) the shares reach 10% of fair 40-100 ms after the last flow joins. With
//! the `paper` preset, marks are rare (a CNP per flow every ~0.5 ms, also with
//! the paper's Kmin 5 KB / Kmax 200 KB / Pmax 1%): fast recovery restores the
//! pre-cut rate and R_AI keeps adding, so a rate only really drops when a second
//! CNP comes within fast recovery; shares stray up to 20-25% from fair over 5 ms
//! and 12-15% over 50 ms, and are fair only on average over ~100 ms or more.

use crate::registry::SchemeConfig;
use ccsim_core::cc::{FlowView, ReceiverCc, ReceiverCx, Requirements, Scheme, SenderCc, SenderCx};
use ccsim_core::packet::{Packet, PktKind};
use ccsim_core::time::{Time, NS, US};
use ccsim_core::units::{Bytes, Dur, Rate};
use serde::{Deserialize, Serialize};
use toml::Table;

/// Named parameter sets. Fields given next to `preset` override its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// The DCQCN paper's parameters and RP model.
    Paper,
    /// The HPCC simulator's DCQCN (`run.py --cc dcqcn`; bench/README.md).
    Hpcc,
}

/// Which reaction-point state machine runs (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RpModel {
    Paper,
    Mlx,
}

/// DCQCN parameters. Defaults are the `paper` preset; the `hpcc` preset's value
/// is given after each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DcqcnConfig {
    /// Parameter set the other fields default to: "paper" (default) or "hpcc".
    pub preset: Preset,
    /// RP state machine: "paper" (preset paper; Zhu et al. SIGCOMM'15 section 3)
    /// or "mlx" (preset hpcc; HPCC simulator `rdma-hw.cc`, "based on Mellanox's
    /// implementation on CX4 and newer", its simulation/README.md).
    pub rp_model: RpModel,
    /// EWMA gain g of alpha. paper: 1/256 (DCQCN paper; htsim `_g`);
    /// hpcc: 1/256 (`run.py` EWMA_GAIN 0.00390625).
    pub g: f64,
    /// Alpha update period (paper: K, decay after K without a CNP).
    /// paper: 55us (DCQCN paper K = 55 us; htsim `_cc_update_period`; ns3-rdma
    /// AlphaResumInterval default); hpcc: 1us (`run.py` ALPHA_RESUME_INTERVAL 1).
    pub alpha_interval: Dur,
    /// Rate cuts happen at most once per this interval (t_dec).
    /// paper: 50us (the NP's CNP interval N = 50 us, which bounds the paper's
    /// cuts to one per 50 us; `run.py` variant dcqcn_paper uses
    /// RATE_DECREASE_INTERVAL 50); hpcc: 4us (`run.py` RATE_DECREASE_INTERVAL 4).
    /// 0 = no hold-off (paper model only).
    pub rate_decrease_interval: Dur,
    /// Rate-increase timer period T.
    /// paper: 55us (DCQCN paper timer T = 55 us; `run.py` dcqcn_paper RP_TIMER 55);
    /// hpcc: 300us (`run.py` RP_TIMER 300). 0 = no timer (paper model only, then
    /// the byte counter alone drives increases).
    pub rate_increase_interval: Dur,
    /// Byte counter B: one increase event per this many bytes sent (wire bytes).
    /// paper: 10MB (DCQCN paper B = 10 MB; htsim `_B` = 10000000);
    /// hpcc: 0 = off (`rdma-hw.cc` has no byte counter). Paper model only.
    pub byte_counter: Bytes,
    /// Fast-recovery stages F. paper: 5 (DCQCN paper F = 5; htsim `_F`);
    /// hpcc: 1 (`run.py` FAST_RECOVERY_TIMES 1).
    pub fast_recovery_stages: u32,
    /// Additive-increase step R_AI of the target rate.
    /// paper: 40Mbps (DCQCN paper R_AI = 40 Mbps, per spec/ALGORITHMS.md B1);
    /// hpcc: 20Mbps (`run.py` RATE_AI = 5 Mb/s x bw/25G at 100G).
    pub rate_ai: Rate,
    /// Hyper-increase step R_HAI of the target rate.
    /// paper: 400Mbps [unverified: the paper's value could not be checked here;
    /// 10 x R_AI, the ratio of the ns-3 DCQCN defaults RateAI 5 Mb/s / RateHAI
    /// 50 Mb/s in ns3-rdma and `rdma-hw.cc`, and of `run.py`]; hpcc: 200Mbps
    /// (`run.py` RATE_HAI = 50 Mb/s x bw/25G at 100G).
    pub rate_hai: Rate,
    /// Lowest rate a cut can reach.
    /// paper: 100Mbps [unverified: the paper gives none; MinRate default of the
    /// DCQCN authors' ns3-rdma `qbb-net-device.cc` and of `rdma-hw.cc`];
    /// hpcc: 1Gbps (`run.py` MIN_RATE 1000Mb/s).
    pub min_rate: Rate,
    /// true: every cut sets Rt = Rc (paper: the DCQCN paper's rate-decrease rule);
    /// false: only if a rate increase happened since the last cut (hpcc:
    /// `run.py` CLAMP_TARGET_RATE 0, `rdma-hw.cc` CheckRateDecreaseMlx).
    pub clamp_target_rate: bool,
    /// NP: at most one CNP per flow per this interval when CE-marked packets
    /// arrive; 0 = send no CNPs and treat the ECN echo of each ACK as the
    /// notification. paper: 50us (DCQCN paper N = 50 us; htsim
    /// `DCQCNSink::_cnp_interval`; ns3-rdma CNPInterval default);
    /// hpcc: 0 (`rdma-hw.cc` sets the CNP flag on the ACK of every CE-marked packet).
    pub cnp_interval: Dur,
}

impl DcqcnConfig {
    /// The `paper` preset (the default).
    pub fn paper() -> Self {
        DcqcnConfig {
            preset: Preset::Paper,
            rp_model: RpModel::Paper,
            g: 1.0 / 256.0,
            alpha_interval: Dur(55 * US),
            rate_decrease_interval: Dur(50 * US),
            rate_increase_interval: Dur(55 * US),
            byte_counter: Bytes(10_000_000),
            fast_recovery_stages: 5,
            rate_ai: Rate(40_000_000),
            rate_hai: Rate(400_000_000),
            min_rate: Rate(100_000_000),
            clamp_target_rate: true,
            cnp_interval: Dur(50 * US),
        }
    }

    /// The `hpcc` preset: the HPCC simulator's reference DCQCN runs at 100 Gbps.
    pub fn hpcc() -> Self {
        DcqcnConfig {
            preset: Preset::Hpcc,
            rp_model: RpModel::Mlx,
            g: 1.0 / 256.0,
            alpha_interval: Dur(US),
            rate_decrease_interval: Dur(4 * US),
            rate_increase_interval: Dur(300 * US),
            byte_counter: Bytes(0),
            fast_recovery_stages: 1,
            rate_ai: Rate(20_000_000),
            rate_hai: Rate(200_000_000),
            min_rate: Rate(1_000_000_000),
            clamp_target_rate: false,
            cnp_interval: Dur(0),
        }
    }

    pub fn preset(p: Preset) -> Self {
        match p {
            Preset::Paper => Self::paper(),
            Preset::Hpcc => Self::hpcc(),
        }
    }
}

impl Default for DcqcnConfig {
    fn default() -> Self {
        Self::paper()
    }
}

impl SchemeConfig for DcqcnConfig {
    const NAME: &'static str = "dcqcn";
    const SUMMARY: &'static str = "DCQCN (Zhu et al. SIGCOMM'15): ECN/CNP rate control; presets paper | hpcc";
    const PARAMS: &'static [(&'static str, &'static str)] = &[
        ("preset", "parameter set: \"paper\" or \"hpcc\" (HPCC simulator); other keys override it"),
        ("rp_model", "RP state machine: \"paper\" (timer + byte counter) or \"mlx\" (rdma-hw.cc); hpcc: \"mlx\""),
        ("g", "EWMA gain of alpha; hpcc: 1/256"),
        ("alpha_interval", "alpha update period K; hpcc: 1us"),
        ("rate_decrease_interval", "at most one rate cut per interval; hpcc: 4us"),
        ("rate_increase_interval", "rate-increase timer T (0 = off, paper model); hpcc: 300us"),
        ("byte_counter", "rate-increase byte counter B (0 = off; paper model only); hpcc: 0"),
        ("fast_recovery_stages", "fast-recovery stages F; hpcc: 1"),
        ("rate_ai", "additive-increase step R_AI; hpcc: 20Mbps"),
        ("rate_hai", "hyper-increase step R_HAI (paper value unverified); hpcc: 200Mbps"),
        ("min_rate", "lowest rate after cuts; hpcc: 1Gbps"),
        ("clamp_target_rate", "every cut sets Rt = Rc (else only after an increase); hpcc: false"),
        ("cnp_interval", "NP: at most one CNP per interval; 0 = ECN echo on ACKs is the CNP; hpcc: 0"),
    ];

    fn base(table: &Table) -> Result<Self, (&'static str, String)> {
        let preset = match table.get("preset") {
            Some(v) => Preset::deserialize(v.clone()).map_err(|e| ("preset", e.message().trim().to_string()))?,
            None => Preset::Paper,
        };
        Ok(Self::preset(preset))
    }

    fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(("g", "must be in (0, 1]".into()));
        }
        if self.alpha_interval.0 == 0 {
            return Err(("alpha_interval", "must be > 0".into()));
        }
        match self.rp_model {
            RpModel::Mlx => {
                if self.rate_decrease_interval.0 == 0 {
                    return Err(("rate_decrease_interval", "must be > 0 with rp_model = \"mlx\"".into()));
                }
                if self.rate_increase_interval.0 == 0 {
                    return Err(("rate_increase_interval", "must be > 0 with rp_model = \"mlx\"".into()));
                }
                if self.byte_counter.0 != 0 {
                    return Err((
                        "byte_counter",
                        "rp_model = \"mlx\" has no byte counter: set 0 or use rp_model = \"paper\"".into(),
                    ));
                }
            }
            RpModel::Paper => {
                if self.rate_increase_interval.0 == 0 && self.byte_counter.0 == 0 {
                    return Err((
                        "rate_increase_interval",
                        "rate_increase_interval and byte_counter are both 0: the rate could never recover".into(),
                    ));
                }
            }
        }
        Ok(())
    }

    fn into_scheme(self) -> Box<dyn Scheme> {
        Box::new(Dcqcn { cfg: self })
    }
}

/// The DCQCN scheme.
pub struct Dcqcn {
    cfg: DcqcnConfig,
}

impl Scheme for Dcqcn {
    fn name(&self) -> &str {
        DcqcnConfig::NAME
    }
    fn requirements(&self) -> Requirements {
        // the reaction point slows down on CNPs, which ECN marks cause, and on nothing else
        Requirements { ecn_signal: true, ..Default::default() }
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        Box::new(DcqcnSender::new(&self.cfg, flow))
    }
    fn receiver(&self, _flow: &FlowView) -> Box<dyn ReceiverCc> {
        Box::new(DcqcnReceiver::new(&self.cfg))
    }
}

/// Timer slots of the RP.
const ALPHA_TIMER: usize = 0;
const DECREASE_TIMER: usize = 1;
const INCREASE_TIMER: usize = 2;

/// The reaction point (sender) of one flow.
pub struct DcqcnSender {
    cfg: DcqcnConfig,
    line: f64,
    min_rate: f64,
    /// Current rate Rc and target rate Rt (bits/s).
    rc: f64,
    rt: f64,
    alpha: f64,
    /// A congestion notification has arrived (the RP's timers run).
    active: bool,
    /// Rate-increase events since the last cut: timer (T; the mlx stage) and
    /// byte counter (BC).
    time_stage: u32,
    byte_stage: u32,
    /// Bytes sent since the byte counter last fired.
    bytes: u64,
    /// A notification waits for the next cut (paper: hold-off; mlx: next check).
    cut_pending: bool,
    /// paper: time of the last cut.
    last_cut: Option<Time>,
    /// mlx: a notification arrived in the current alpha period.
    alpha_cnp: bool,
    /// mlx: time of the first rate-decrease check; checks repeat every
    /// `rate_decrease_interval` from there.
    check_grid: Time,
    /// mlx: a rate-decrease check is armed.
    check_armed: bool,
}

impl DcqcnSender {
    pub fn new(cfg: &DcqcnConfig, flow: &FlowView) -> Self {
        let line = flow.line_rate as f64;
        DcqcnSender {
            cfg: cfg.clone(),
            line,
            min_rate: (cfg.min_rate.0 as f64).min(line),
            rc: line,
            rt: line,
            alpha: 1.0,
            active: false,
            time_stage: 0,
            byte_stage: 0,
            bytes: 0,
            cut_pending: false,
            last_cut: None,
            alpha_cnp: false,
            check_grid: 0,
            check_armed: false,
        }
    }

    /// Current rate Rc (bits/s).
    pub fn current_rate(&self) -> f64 {
        self.rc
    }

    /// Target rate Rt (bits/s).
    pub fn target_rate(&self) -> f64 {
        self.rt
    }

    /// Sets the current rate to `rate` at once, as a notification from outside
    /// DCQCN would (SRCC's CNM): if that lowers the rate, Rt = the pre-reset Rc
    /// (as a DCQCN cut does), then Rc = rate (within min_rate..line),
    /// the increase stages restart and the rate-increase timer is (re)armed so
    /// that DCQCN's recovery runs from the new rate.
    pub fn reset_rate(&mut self, cx: &mut SenderCx, rate: f64) {
        let rate = rate.clamp(self.min_rate, self.line);
        if self.rc > rate {
            self.rt = self.rc;
        }
        self.rc = rate;
        self.rt = self.rt.max(rate);
        self.time_stage = 0;
        self.byte_stage = 0;
        self.bytes = 0;
        if self.cfg.rp_model == RpModel::Paper {
            self.active = true;
        }
        if self.cfg.rate_increase_interval.0 > 0 {
            cx.set_timer(INCREASE_TIMER, self.cfg.rate_increase_interval.0);
        }
        cx.rate = self.rc;
    }

    fn notified(&mut self, cx: &mut SenderCx) {
        match self.cfg.rp_model {
            RpModel::Paper => self.paper_notified(cx),
            RpModel::Mlx => self.mlx_notified(cx),
        }
    }

    /// Cuts Rc by alpha/2 (not below min_rate), first clamping Rt to Rc.
    fn cut(&mut self) {
        let increased = self.time_stage != 0 || self.byte_stage != 0;
        if self.cfg.clamp_target_rate || increased {
            self.rt = self.rc;
        }
        self.rc = (self.rc * (1.0 - self.alpha / 2.0)).max(self.min_rate);
        self.time_stage = 0;
        self.byte_stage = 0;
        self.bytes = 0;
        self.cut_pending = false;
    }

    fn fast_recovery(&mut self) {
        self.rc = self.toward_line((self.rc + self.rt) / 2.0);
    }

    fn raise_target(&mut self, step: f64) {
        self.rt = (self.rt + step).min(self.line);
        self.rc = self.toward_line((self.rc + self.rt) / 2.0);
    }

    /// Caps a rate at line rate; within 1 bit/s of it counts as line rate, so
    /// halving the gap reaches it exactly (and the increase timer can stop).
    fn toward_line(&self, r: f64) -> f64 {
        if r > self.line - 1.0 {
            self.line
        } else {
            r
        }
    }

    fn at_line_rate(&self) -> bool {
        self.rc >= self.line && self.rt >= self.line
    }

    // ---- paper model ----

    fn paper_notified(&mut self, cx: &mut SenderCx) {
        self.active = true;
        let hold = self.cfg.rate_decrease_interval.0;
        match self.last_cut {
            Some(t) if cx.now < t + hold => {
                if !self.cut_pending {
                    self.cut_pending = true;
                    cx.set_timer(DECREASE_TIMER, t + hold - cx.now);
                }
            }
            _ => self.paper_cut(cx),
        }
    }

    fn paper_cut(&mut self, cx: &mut SenderCx) {
        self.cut();
        let g = self.cfg.g;
        self.alpha = (1.0 - g) * self.alpha + g;
        self.last_cut = Some(cx.now);
        cx.set_timer(ALPHA_TIMER, self.cfg.alpha_interval.0);
        if self.cfg.rate_increase_interval.0 > 0 {
            cx.set_timer(INCREASE_TIMER, self.cfg.rate_increase_interval.0);
        }
        cx.rate = self.rc;
    }

    /// One rate-increase event of the paper model, after T or BC was incremented.
    fn paper_increase(&mut self, cx: &mut SenderCx) {
        let f = self.cfg.fast_recovery_stages;
        let mut counters = [None, None];
        if self.cfg.rate_increase_interval.0 > 0 {
            counters[0] = Some(self.time_stage);
        }
        if self.cfg.byte_counter.0 > 0 {
            counters[1] = Some(self.byte_stage);
        }
        let hi = counters.iter().flatten().copied().max().unwrap_or(0);
        let lo = counters.iter().flatten().copied().min().unwrap_or(0);
        if hi <= f {
            self.fast_recovery();
        } else if lo > f {
            self.raise_target((lo - f) as f64 * self.cfg.rate_hai.0 as f64);
        } else {
            self.raise_target(self.cfg.rate_ai.0 as f64);
        }
        cx.rate = self.rc;
    }

    // ---- mlx model ----

    fn mlx_notified(&mut self, cx: &mut SenderCx) {
        self.alpha_cnp = true;
        self.cut_pending = true;
        let period = self.cfg.rate_decrease_interval.0;
        if !self.active {
            // cnp_received_mlx, first CNP: alpha = 1, Rt = Rc (RateOnFirstCnp 1.0),
            // alpha updates start now, rate-decrease checks 1 ns after one period.
            self.active = true;
            self.alpha = 1.0;
            self.alpha_cnp = false;
            self.rt = self.rc;
            cx.set_timer(ALPHA_TIMER, self.cfg.alpha_interval.0);
            self.check_grid = cx.now + period + NS;
            self.check_armed = true;
            cx.set_timer(DECREASE_TIMER, period + NS);
        } else if !self.check_armed {
            // The checks run every period from check_grid; one that finds no
            // notification does nothing, so only the next one is scheduled.
            let since = cx.now.saturating_sub(self.check_grid);
            let next = self.check_grid + (since / period + 1) * period;
            self.check_armed = true;
            cx.set_timer(DECREASE_TIMER, next - cx.now);
        }
    }

    fn mlx_increase(&mut self, cx: &mut SenderCx) {
        let f = self.cfg.fast_recovery_stages;
        if self.time_stage < f {
            self.fast_recovery();
        } else if self.time_stage == f {
            self.raise_target(self.cfg.rate_ai.0 as f64);
        } else {
            self.raise_target(self.cfg.rate_hai.0 as f64);
        }
        self.time_stage += 1;
        cx.rate = self.rc;
    }
}

impl SenderCc for DcqcnSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        cx.rate = self.rc;
    }

    fn on_ack(&mut self, cx: &mut SenderCx, ack: &Packet) {
        if self.cfg.cnp_interval.0 == 0 && ack.ecn_echo {
            self.notified(cx);
        }
        // Publish Rc on every ACK too, so an increase made in `on_send` (byte
        // counter) takes effect even where a core does not apply `on_send`'s rate.
        cx.rate = self.rc;
    }

    fn on_nack(&mut self, cx: &mut SenderCx, nack: &Packet) {
        // The HPCC simulator handles the CNP flag of NACKs like that of ACKs.
        self.on_ack(cx, nack);
    }

    fn on_control(&mut self, cx: &mut SenderCx, pkt: &Packet) {
        if pkt.kind == PktKind::Cnp {
            self.notified(cx);
        }
    }

    fn on_timer(&mut self, cx: &mut SenderCx, slot: usize) {
        let g = self.cfg.g;
        match (self.cfg.rp_model, slot) {
            (RpModel::Paper, ALPHA_TIMER) => {
                self.alpha *= 1.0 - g;
                cx.set_timer(ALPHA_TIMER, self.cfg.alpha_interval.0);
            }
            (RpModel::Paper, DECREASE_TIMER) if self.cut_pending => self.paper_cut(cx),
            (RpModel::Paper, INCREASE_TIMER) => {
                self.time_stage += 1;
                self.paper_increase(cx);
                if !self.at_line_rate() {
                    cx.set_timer(INCREASE_TIMER, self.cfg.rate_increase_interval.0);
                }
            }
            (RpModel::Mlx, ALPHA_TIMER) => {
                let hit = if self.alpha_cnp { g } else { 0.0 };
                self.alpha = (1.0 - g) * self.alpha + hit;
                self.alpha_cnp = false;
                cx.set_timer(ALPHA_TIMER, self.cfg.alpha_interval.0);
            }
            (RpModel::Mlx, DECREASE_TIMER) => {
                self.check_armed = false;
                if self.cut_pending {
                    self.cut();
                    cx.rate = self.rc;
                    cx.set_timer(INCREASE_TIMER, self.cfg.rate_increase_interval.0);
                }
            }
            (RpModel::Mlx, INCREASE_TIMER) => {
                self.mlx_increase(cx);
                if !self.at_line_rate() {
                    cx.set_timer(INCREASE_TIMER, self.cfg.rate_increase_interval.0);
                }
            }
            _ => {}
        }
    }

    fn on_send(&mut self, cx: &mut SenderCx, pkt: &mut Packet) {
        let bc = self.cfg.byte_counter.0;
        if self.cfg.rp_model != RpModel::Paper || bc == 0 || !self.active {
            return;
        }
        self.bytes += pkt.size as u64;
        if self.bytes >= bc {
            self.bytes = 0;
            self.byte_stage += 1;
            self.paper_increase(cx);
        }
    }

    fn probe(&self) -> f64 {
        self.alpha
    }
}

/// The notification point (receiver) of one flow.
pub struct DcqcnReceiver {
    interval: Time,
    last_cnp: Option<Time>,
}

impl DcqcnReceiver {
    pub fn new(cfg: &DcqcnConfig) -> Self {
        DcqcnReceiver { interval: cfg.cnp_interval.0, last_cnp: None }
    }
}

impl ReceiverCc for DcqcnReceiver {
    fn on_data(&mut self, cx: &mut ReceiverCx, data: &Packet) {
        if self.interval == 0 || !data.ce {
            return;
        }
        if self.last_cnp.is_none_or(|t| cx.now >= t + self.interval) {
            cx.send_cnp = true;
            self.last_cnp = Some(cx.now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{ack, ack_ecn, cnp, flow, Harness};

    const L: f64 = 100e9;
    const G: f64 = 1.0 / 256.0;

    fn started(cfg: &DcqcnConfig) -> (DcqcnSender, Harness) {
        let mut s = DcqcnSender::new(cfg, &flow());
        let mut h = Harness::new(flow());
        h.rate = 0.0;
        h.start(&mut s);
        assert_eq!(h.rate, L);
        (s, h)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn first_cnp_sets_alpha_one_and_halves_rate() {
        let (mut s, mut h) = started(&DcqcnConfig::paper());
        h.run_until(&mut s, 10 * US);
        h.control(&mut s, &cnp());
        assert_eq!(h.rate, L / 2.0);
        assert_eq!(s.target_rate(), L);
        assert_eq!(s.probe(), 1.0);
        assert_eq!(h.timers[ALPHA_TIMER], Some(65 * US));
        assert_eq!(h.timers[INCREASE_TIMER], Some(65 * US));
        // With a CNP interval configured, the ECN echo on ACKs is not a notification.
        h.run_until(&mut s, 200 * US);
        let r = h.rate;
        h.ack(&mut s, &ack_ecn(5000));
        assert_eq!(h.rate, r);
    }

    #[test]
    fn alpha_decays_by_one_minus_g_per_period_without_cnps() {
        let (mut s, mut h) = started(&DcqcnConfig::paper());
        h.run_until(&mut s, 10 * US);
        h.control(&mut s, &cnp());
        let mut expect = 1.0;
        for k in 1..=6u64 {
            h.run_until(&mut s, 10 * US + k * 55 * US - 1);
            assert!(close(s.probe(), expect), "k={k}");
            h.run_until(&mut s, 10 * US + k * 55 * US);
            expect *= 1.0 - G;
            assert!(close(s.probe(), expect), "k={k}");
        }
        // A cut raises alpha by g: alpha = (1-g) alpha + g.
        h.control(&mut s, &cnp());
        assert!(close(s.probe(), (1.0 - G) * expect + G));
    }

    #[test]
    fn fast_recovery_halves_the_gap_to_target_each_stage() {
        let (mut s, mut h) = started(&DcqcnConfig::paper());
        h.run_until(&mut s, 10 * US);
        h.control(&mut s, &cnp());
        let mut gap = L / 2.0;
        for k in 1..=5u64 {
            h.run_until(&mut s, 10 * US + k * 55 * US);
            gap /= 2.0;
            assert!(close(h.rate, L - gap), "stage {k}: {}", h.rate);
            assert_eq!(s.target_rate(), L);
        }
    }

    /// Two cuts 50 us apart (Rt = 50G, Rc = 25G), then the timer-driven stages.
    fn two_cuts(cfg: &DcqcnConfig) -> (DcqcnSender, Harness) {
        let (mut s, mut h) = started(cfg);
        h.run_until(&mut s, 10 * US);
        h.control(&mut s, &cnp());
        h.run_until(&mut s, 60 * US);
        h.control(&mut s, &cnp());
        assert_eq!(s.target_rate(), 50e9);
        assert_eq!(h.rate, 25e9);
        (s, h)
    }

    #[test]
    fn additive_increase_after_f_fast_recovery_stages() {
        let (mut s, mut h) = two_cuts(&DcqcnConfig::paper());
        let mut rc = 25e9;
        for k in 1..=5u64 {
            h.run_until(&mut s, 60 * US + k * 55 * US);
            rc = (rc + 50e9) / 2.0;
            assert!(close(h.rate, rc));
            assert_eq!(s.target_rate(), 50e9, "fast recovery keeps Rt");
        }
        // Stages 6 and 7: T > F but the byte counter has not passed F: additive.
        for (k, rt) in [(6u64, 50.04e9), (7, 50.08e9)] {
            h.run_until(&mut s, 60 * US + k * 55 * US);
            assert!(close(s.target_rate(), rt), "{}", s.target_rate());
            rc = (rc + rt) / 2.0;
            assert!(close(h.rate, rc));
        }
    }

    #[test]
    fn hyper_increase_once_timer_and_byte_counter_pass_f() {
        let cfg = DcqcnConfig { byte_counter: Bytes(10_000), ..DcqcnConfig::paper() };
        let (mut s, mut h) = two_cuts(&cfg);
        h.run_until(&mut s, 60 * US + 6 * 55 * US); // T = 6: 5 x FR, 1 x AI
        assert!(close(s.target_rate(), 50.04e9));
        let mut pkt = Packet { size: 10_000, ..Default::default() };
        let mut rt = 50.04e9;
        // BC = 1..5: max(T, BC) > F, min(T, BC) <= F: additive.
        for _ in 1..=5 {
            h.send(&mut s, &mut pkt);
            rt += 40e6;
            assert!(close(s.target_rate(), rt));
        }
        // BC = 6: min(T, BC) = 6 > F: hyper with i = 1.
        h.send(&mut s, &mut pkt);
        rt += 400e6;
        assert!(close(s.target_rate(), rt));
        // T = 7: min = 6, i = 1 again; then BC = 7: i = 2.
        h.run_until(&mut s, 60 * US + 7 * 55 * US);
        rt += 400e6;
        assert!(close(s.target_rate(), rt));
        h.send(&mut s, &mut pkt);
        rt += 800e6;
        assert!(close(s.target_rate(), rt));
        // Packets smaller than the counter accumulate; BC = 8 with T = 7: i = 2.
        let mut small = Packet { size: 4_000, ..Default::default() };
        h.send(&mut s, &mut small);
        h.send(&mut s, &mut small);
        assert!(close(s.target_rate(), rt));
        h.send(&mut s, &mut small);
        assert!(close(s.target_rate(), rt + 800e6));
    }

    #[test]
    fn byte_counter_increase_is_published_on_the_next_ack() {
        let cfg = DcqcnConfig { byte_counter: Bytes(10_000), ..DcqcnConfig::paper() };
        let (mut s, mut h) = started(&cfg);
        h.run_until(&mut s, 10 * US);
        h.control(&mut s, &cnp());
        assert_eq!(h.rate, 50e9);
        // A core that ignores what on_send sets: call it on a scratch context.
        let f = flow();
        let mut scratch = SenderCx::new(h.now, &f, 0, 0, 50e9, u64::MAX);
        let mut pkt = Packet { size: 10_000, ..Default::default() };
        s.on_send(&mut scratch, &mut pkt);
        assert_eq!(s.current_rate(), 75e9, "BC = 1: fast recovery");
        assert_eq!(h.rate, 50e9);
        h.ack(&mut s, &ack(1000));
        assert_eq!(h.rate, 75e9);
    }

    #[test]
    fn cnp_within_hold_off_waits_for_its_end() {
        let (mut s, mut h) = started(&DcqcnConfig::paper());
        h.run_until(&mut s, 10 * US);
        h.control(&mut s, &cnp());
        h.run_until(&mut s, 30 * US);
        h.control(&mut s, &cnp());
        h.control(&mut s, &cnp());
        assert_eq!(h.rate, 50e9, "no second cut within 50 us");
        assert_eq!(h.timers[DECREASE_TIMER], Some(60 * US));
        h.run_until(&mut s, 60 * US - 1);
        assert_eq!(h.rate, 50e9);
        h.run_until(&mut s, 60 * US);
        assert_eq!(h.rate, 25e9, "one cut for both held CNPs");
        h.run_until(&mut s, 200 * US);
        assert!(h.rate > 25e9);
    }

    #[test]
    fn rate_stays_between_min_rate_and_line_rate() {
        let cfg = DcqcnConfig::paper();
        let (mut s, mut h) = started(&cfg);
        let mut t = 0;
        for _ in 0..200 {
            t += 50 * US;
            h.run_until(&mut s, t);
            h.control(&mut s, &cnp());
            assert!(h.rate >= 100e6 && h.rate <= L, "{}", h.rate);
        }
        assert_eq!(h.rate, 100e6, "persistent congestion ends at min_rate");
        for _ in 0..4000 {
            t += 55 * US;
            h.run_until(&mut s, t);
            assert!(h.rate >= 100e6 && h.rate <= L, "{}", h.rate);
            assert!(s.target_rate() <= L);
        }
        assert_eq!(h.rate, L, "recovers to line rate and no further");
        assert_eq!(h.timers[INCREASE_TIMER], None, "increase timer stops at line rate");
    }

    #[test]
    fn hpcc_preset_values() {
        let c = DcqcnConfig::hpcc();
        assert_eq!(c.rp_model, RpModel::Mlx);
        assert_eq!(c.g, 0.00390625);
        assert_eq!(c.alpha_interval, Dur(US));
        assert_eq!(c.rate_decrease_interval, Dur(4 * US));
        assert_eq!(c.rate_increase_interval, Dur(300 * US));
        assert_eq!(c.byte_counter, Bytes(0));
        assert_eq!(c.fast_recovery_stages, 1);
        assert_eq!(c.rate_ai, Rate(20_000_000));
        assert_eq!(c.rate_hai, Rate(200_000_000));
        assert_eq!(c.min_rate, Rate(1_000_000_000));
        assert!(!c.clamp_target_rate);
        assert_eq!(c.cnp_interval, Dur(0));
        assert!(c.validate().is_ok());
        let p = DcqcnConfig::paper();
        assert_eq!((p.alpha_interval, p.rate_increase_interval), (Dur(55 * US), Dur(55 * US)));
        assert_eq!((p.byte_counter, p.fast_recovery_stages), (Bytes(10_000_000), 5));
        assert_eq!((p.rate_ai, p.cnp_interval), (Rate(40_000_000), Dur(50 * US)));
    }

    #[test]
    fn hpcc_preset_runs_the_mlx_state_machine() {
        let (mut s, mut h) = started(&DcqcnConfig::hpcc());
        let t0 = 100 * US;
        h.run_until(&mut s, t0);
        h.ack(&mut s, &ack(1000));
        assert_eq!(h.timers, [None; 4], "unmarked ACKs do nothing");
        // The first ECN echo: alpha = 1, no cut yet.
        h.ack(&mut s, &ack_ecn(2000));
        assert_eq!((h.rate, s.probe()), (L, 1.0));
        h.run_until(&mut s, t0 + US);
        assert!(close(s.probe(), 1.0 - G), "first CNP does not count in its own period");
        // The cut comes with the first check, 4 us + 1 ns after the first CNP.
        h.run_until(&mut s, t0 + 4 * US);
        assert_eq!(h.rate, L);
        h.run_until(&mut s, t0 + 4 * US + NS);
        let a = (1.0 - G).powi(4);
        let rc0 = L * (1.0 - a / 2.0);
        assert!(close(h.rate, rc0), "{}", h.rate);
        assert_eq!(s.target_rate(), L);
        // RP timer 300 us later: F = 1 stage of fast recovery, then additive
        // (Rt capped at line rate), then hyper.
        let t1 = t0 + 4 * US + NS;
        h.run_until(&mut s, t1 + 300 * US);
        let rc1 = (rc0 + L) / 2.0;
        assert!(close(h.rate, rc1));
        h.run_until(&mut s, t1 + 600 * US);
        assert!(close(h.rate, (rc1 + L) / 2.0));
        assert_eq!(s.target_rate(), L);
        // A later notification is applied at the next check of the 4 us grid,
        // and, a rate increase having happened, clamps Rt to Rc.
        let rc2 = h.rate;
        let t2 = t1 + 601 * US + 500 * NS;
        h.run_until(&mut s, t2);
        h.ack(&mut s, &ack_ecn(3000));
        let next_check = t1 + 604 * US;
        assert_eq!(h.timers[DECREASE_TIMER], Some(next_check));
        h.run_until(&mut s, next_check - 1);
        assert_eq!(h.rate, rc2);
        let alpha = s.probe();
        h.run_until(&mut s, next_check);
        assert!(close(h.rate, rc2 * (1.0 - alpha / 2.0)));
        assert_eq!(s.target_rate(), rc2);
        // No notification: the check does not re-arm itself and rate only grows.
        h.run_until(&mut s, next_check + 100 * US);
        assert_eq!(h.timers[DECREASE_TIMER], None);
        // CNP packets are notifications too; min rate 1 Gbps bounds the cuts.
        for k in 0..2000u64 {
            h.run_until(&mut s, next_check + 200 * US + k * 5 * US);
            h.control(&mut s, &cnp());
            assert!(h.rate >= 1e9);
        }
        assert_eq!(h.rate, 1e9);
    }

    #[test]
    fn np_sends_at_most_one_cnp_per_interval() {
        let mut np = DcqcnReceiver::new(&DcqcnConfig::paper());
        let f = flow();
        let ce = Packet { ce: true, ..Default::default() };
        let clean = Packet::default();
        let mut sent = vec![];
        let events = [
            (0, &ce),
            (10, &ce),
            (49, &ce),
            (50, &clean),
            (50, &ce),
            (60, &ce),
            (99, &clean),
            (120, &ce),
            (200, &clean),
        ];
        for (t_us, p) in events {
            let mut cx = ReceiverCx::new(t_us * US, &f, 1);
            np.on_data(&mut cx, p);
            if cx.send_cnp {
                sent.push(t_us);
            }
        }
        assert_eq!(sent, vec![0, 50, 120]);
        // Interval 0 (hpcc preset): the NP never sends CNPs.
        let mut np = DcqcnReceiver::new(&DcqcnConfig::hpcc());
        for t_us in 0..100 {
            let mut cx = ReceiverCx::new(t_us * US, &f, 1);
            np.on_data(&mut cx, &ce);
            assert!(!cx.send_cnp);
        }
    }

    #[test]
    fn validation() {
        let mlx_bc = DcqcnConfig { byte_counter: Bytes(1000), ..DcqcnConfig::hpcc() };
        assert_eq!(mlx_bc.validate().unwrap_err().0, "byte_counter");
        let no_increase =
            DcqcnConfig { rate_increase_interval: Dur(0), byte_counter: Bytes(0), ..DcqcnConfig::paper() };
        assert_eq!(no_increase.validate().unwrap_err().0, "rate_increase_interval");
        let g = DcqcnConfig { g: 1.5, ..DcqcnConfig::paper() };
        assert_eq!(g.validate().unwrap_err().0, "g");
    }
}
