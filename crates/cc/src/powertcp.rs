//! PowerTCP and θ-PowerTCP (Addanki, Michel, Schmid, "PowerTCP: Pushing the
//! Performance Limits of Datacenter Networks", NSDI'22): window control driven
//! by the bottleneck's *power* = current x voltage, normalized by its value at
//! the ideal operating point (full link, empty queue).
//!
//! Two schemes share one sender and differ only in how they measure power:
//!
//! * `powertcp` (switch INT, `Requirements::int_on_data`): per ACK, for each
//!   hop j against the record of the same hop in the previous ACK (dt = time
//!   between the two records):
//!   current lambda = max(0, dqlen + dtxBytes) / dt (bytes/s: queue growth plus
//!   the port's transmit rate), voltage = qlen + B x T (bytes),
//!   power_j = lambda x voltage / (B^2 x T), B = the port's rate in bytes/s.
//!   The sample is the largest power_j (the bottleneck) and dt that hop's dt.
//!   The first ACK only stores the records.
//! * `theta_powertcp` (no switch support): per ACK, RTT = now - the echoed
//!   send time; current = max(min_current, dRTT/dt + 1) with dRTT and dt the
//!   RTT change and the time since the previous ACK; power = current x RTT /
//!   (rtt_slack x T). With `learn_base_rtt`, T = min(T, smallest RTT seen).
//!
//! Shared, per ACK with a power sample (dt capped at T):
//!
//! ```text
//! P   = (P x (T - dt) + sample x dt) / T          EWMA over one base RTT
//! W   = gamma x (W_old / (P / eta) + beta) + (1 - gamma) x W
//! W   = clamp(W, min_rate x T, line_rate x T)
//! rate = W / T (paced), window = W (bytes in flight)
//! ```
//!
//! W_old is the paper's window "at the time the acknowledged packet was sent".
//! `reference_window = "rtt"` (default) keeps it as a once-per-RTT reference:
//! when an ACK acknowledges data beyond `last_update_seq`, the window just
//! computed becomes W_old and `last_update_seq` becomes snd_nxt; ACKs in
//! between update W from the same W_old. This is what both reference
//! implementations do: the authors' ns-3 code (inet-tub/ns3-datacenter
//! `rdma-hw.cc` UpdateRatePower: per-ACK "fast react" from the committed rate
//! `hp.m_curRate`, committed when `ack_seq > m_lastUpdateSeq`) and their Linux
//! module (inet-tub/powertcp-linux `powertcp_impl.c` get_cwnd/update_old:
//! `old_cwnd` replaced once snd_una passes the snd_nxt stored with it). The
//! first ACK commits the initial window. `reference_window = "packet"` takes
//! the definition literally: each packet in flight remembers the window in
//! force when it was sent, and an ACK uses that of the last packet it
//! acknowledges (in our runs this damps the queue oscillation noticeably; see
//! tests/powertcp.rs).
//!
//! Equilibrium (INT form, eta = 1, N flows on one bottleneck of capacity B,
//! the queue steady so lambda = B): every window satisfies W = W/P + beta with
//! P = 1 + q/(B T) and the windows sum to B T + q, which gives a standing queue
//! q = N x beta (one beta per flow). θ-PowerTCP settles where
//! RTT = rtt_slack x T + N x beta / B, i.e. with (rtt_slack - 1) x B x T more
//! queue than PowerTCP.
//!
//! Deviations and choices (each configurable where it is a number):
//! * The smoothed power starts at 1 (the equilibrium), as the ns-3 code
//!   (`rdma-queue-pair.cc` hp.u = 1); the Linux module instead starts from
//!   the first sample.
//! * (1 - gamma) x W uses the current (last per-ACK) window, as
//!   ALGORITHMS.md B7 and the Linux module; the ns-3 code uses the committed one.
//! * θ-PowerTCP reacts per ACK like PowerTCP (ns-3); the Linux module updates
//!   it once per RTT only.
//!
//! `probe()` returns the smoothed normalized power P.

use crate::hpcc::BaseRtt;
use crate::registry::SchemeConfig;
use ccsim_core::cc::{FlowView, Requirements, Scheme, SenderCc, SenderCx};
use ccsim_core::packet::{IntHop, Packet, MAX_INT_HOPS};
use ccsim_core::time::{Time, SEC};
use ccsim_core::units::{Bytes, Rate};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Which window is W_old in the update.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RefWindow {
    /// Once per RTT: the window computed on the first ACK beyond
    /// `last_update_seq` (then `last_update_seq` = snd_nxt), as the ns-3
    /// code's committed rate and powertcp-linux `old_cwnd`.
    Rtt,
    /// The window in force when the acknowledged packet was sent (kept per
    /// packet in flight): "the window at the time the acknowledged packet was
    /// sent" taken literally.
    Packet,
}

/// PowerTCP (INT) parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerTcpConfig {
    /// EWMA weight gamma of the window update. Default 0.9 (PowerTCP paper;
    /// powertcp-linux `default_gamma` 921/1024; ns-3 `rdma-hw.cc` 0.9).
    pub gamma: f64,
    /// Expected number of flows N sharing a bottleneck; beta = line rate x T / N.
    /// Default 10 (powertcp-linux `default_expected_flows`, beta =
    /// host_bw x base_rtt / expected_flows). Used when `beta` = 0.
    pub expected_flows: u32,
    /// Additive increase beta in bytes; 0 (default) = line rate x T /
    /// `expected_flows`. The ns-3 code uses a fixed 150 Mbps x T instead
    /// (`DataRate("150Mbps")` in UpdateRatePower; 117 B at T = 6.25 us).
    pub beta: Bytes,
    /// Target: the power is divided by eta before the update. Default 1.0
    /// (paper, powertcp-linux); the ns-3 code divides by TargetUtil 0.95
    /// (`U_TARGET 0.95` in examples/PowerTCP/config-*.txt).
    pub eta: f64,
    /// The current lambda includes the queue's growth dqlen/dt (default true:
    /// paper; powertcp-linux ptcp_norm_power; ns-3.35 `rdma-hw.cc`); false =
    /// transmit rate only (ns-3.39 `rdma-hw.cc` has the dqlen term commented out).
    pub queue_gradient: bool,
    /// Lowest rate; the window never goes below min_rate x T. Default 100Mbps
    /// (ns-3 `rdma-hw.cc` MinRate default; `MIN_RATE 100Mb/s` in
    /// examples/PowerTCP/config-fairness.txt).
    pub min_rate: Rate,
    /// T: "global" (default; `flow.max_base_rtt`, as the ns-3 examples'
    /// GLOBAL_T 1) or "path" (`flow.base_rtt`).
    pub base_rtt: BaseRtt,
    /// Limit bytes in flight to W (default true: ns-3 examples HAS_WIN 1,
    /// VAR_WIN 1, `rdma-queue-pair.cc` GetWin = rate x T); false = rate only.
    pub window: bool,
    /// W_old: "rtt" (default; once per RTT, as the ns-3 code and
    /// powertcp-linux) or "packet" (the window when the acknowledged packet
    /// was sent).
    pub reference_window: RefWindow,
    /// Run under per-packet spraying anyway, pairing each ACK's INT records
    /// with the previous ACK's by position though they describe different
    /// paths (OSCAR's fig10b studies how that breaks PowerTCP). Default
    /// false: spraying is refused.
    pub multipath_int: bool,
}

impl Default for PowerTcpConfig {
    fn default() -> Self {
        PowerTcpConfig {
            gamma: 0.9,
            expected_flows: 10,
            beta: Bytes(0),
            eta: 1.0,
            queue_gradient: true,
            min_rate: Rate(100_000_000),
            base_rtt: BaseRtt::Global,
            window: true,
            reference_window: RefWindow::Rtt,
            multipath_int: false,
        }
    }
}

/// θ-PowerTCP (RTT-gradient) parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThetaPowerTcpConfig {
    /// EWMA weight gamma of the window update. Default 0.9 (PowerTCP paper;
    /// powertcp-linux `default_gamma`, used by its RTT variant too). The ns-3
    /// code uses 0.7 for θ-PowerTCP (UpdateRatePower, PowerTCPdelay).
    pub gamma: f64,
    /// Expected number of flows N; beta = line rate x T / N. Default 10
    /// (powertcp-linux `default_expected_flows`). Used when `beta` = 0.
    pub expected_flows: u32,
    /// Additive increase beta in bytes; 0 (default) = line rate x T /
    /// `expected_flows`. ns-3 code: 150 Mbps x T.
    pub beta: Bytes,
    /// The power is RTT x current / (rtt_slack x T). Default 1.05 (ns-3
    /// UpdateRatePower: `power / (1.05 * m_baseRtt)`); powertcp-linux
    /// (rttptcp_norm_power) and the formula of ALGORITHMS.md B7 use 1.
    pub rtt_slack: f64,
    /// Lower bound of the normalized current dRTT/dt + 1. Default 0.5 (ns-3
    /// UpdateRatePower: `if (A < 0.5) A = 0.5`); powertcp-linux uses 0.
    pub min_current: f64,
    /// T = min(T, smallest RTT measured) (default true: ns-3 sets
    /// `m_baseRtt = min(rtt, m_baseRtt)` in delay mode; powertcp-linux takes
    /// tcp_min_rtt).
    pub learn_base_rtt: bool,
    /// Lowest rate; the window never goes below min_rate x T. Default 100Mbps
    /// (ns-3 `rdma-hw.cc` MinRate default).
    pub min_rate: Rate,
    /// Initial T: "global" (default; `flow.max_base_rtt`, ns-3 GLOBAL_T 1) or
    /// "path" (`flow.base_rtt`).
    pub base_rtt: BaseRtt,
    /// Limit bytes in flight to W (default true, ns-3 HAS_WIN 1 VAR_WIN 1).
    pub window: bool,
    /// W_old: "rtt" (default; once per RTT, as the ns-3 code and
    /// powertcp-linux) or "packet" (the window when the acknowledged packet
    /// was sent).
    pub reference_window: RefWindow,
}

impl Default for ThetaPowerTcpConfig {
    fn default() -> Self {
        ThetaPowerTcpConfig {
            gamma: 0.9,
            expected_flows: 10,
            beta: Bytes(0),
            rtt_slack: 1.05,
            min_current: 0.5,
            learn_base_rtt: true,
            min_rate: Rate(100_000_000),
            base_rtt: BaseRtt::Global,
            window: true,
            reference_window: RefWindow::Rtt,
        }
    }
}

fn check_common(gamma: f64, expected_flows: u32) -> Result<(), (&'static str, String)> {
    if !(gamma.is_finite() && gamma > 0.0 && gamma <= 1.0) {
        return Err(("gamma", "must be in (0, 1]".into()));
    }
    if expected_flows == 0 {
        return Err(("expected_flows", "must be at least 1".into()));
    }
    Ok(())
}

impl SchemeConfig for PowerTcpConfig {
    const NAME: &'static str = "powertcp";
    const SUMMARY: &'static str = "PowerTCP (Addanki et al. NSDI'22): INT power (current x voltage) window control";
    const PARAMS: &'static [(&'static str, &'static str)] = &[
        ("gamma", "EWMA weight of the window update"),
        ("expected_flows", "N in beta = line rate x T / N (when beta = 0)"),
        ("beta", "additive increase in bytes; 0 = line rate x T / expected_flows"),
        ("eta", "power is divided by eta (ns-3 code: 0.95)"),
        ("queue_gradient", "current includes dqlen/dt (false: transmit rate only, as ns-3.39)"),
        ("min_rate", "lowest rate (window >= min_rate x T)"),
        ("base_rtt", "T: \"global\" (largest base RTT) or \"path\""),
        ("window", "limit bytes in flight to the window W (rate = W / T)"),
        ("reference_window", "W_old: \"rtt\" (once per RTT) or \"packet\" (window when the ACKed packet was sent)"),
        ("multipath_int", "accept per-packet spraying, pairing INT records of different paths (default: refused)"),
    ];

    fn validate(&self) -> Result<(), (&'static str, String)> {
        check_common(self.gamma, self.expected_flows)?;
        if !(self.eta.is_finite() && self.eta > 0.0) {
            return Err(("eta", "must be a number > 0".into()));
        }
        Ok(())
    }

    fn into_scheme(self) -> Box<dyn Scheme> {
        Box::new(PowerTcp { cfg: self })
    }
}

impl SchemeConfig for ThetaPowerTcpConfig {
    const NAME: &'static str = "theta_powertcp";
    const SUMMARY: &'static str =
        "θ-PowerTCP (Addanki et al. NSDI'22): PowerTCP from RTT and its gradient, no switch support";
    const PARAMS: &'static [(&'static str, &'static str)] = &[
        ("gamma", "EWMA weight of the window update (ns-3 code: 0.7)"),
        ("expected_flows", "N in beta = line rate x T / N (when beta = 0)"),
        ("beta", "additive increase in bytes; 0 = line rate x T / expected_flows"),
        ("rtt_slack", "power = current x RTT / (rtt_slack x T) (powertcp-linux: 1)"),
        ("min_current", "lower bound of dRTT/dt + 1 (powertcp-linux: 0)"),
        ("learn_base_rtt", "T = min(T, smallest RTT measured)"),
        ("min_rate", "lowest rate (window >= min_rate x T)"),
        ("base_rtt", "initial T: \"global\" (largest base RTT) or \"path\""),
        ("window", "limit bytes in flight to the window W (rate = W / T)"),
        ("reference_window", "W_old: \"rtt\" (once per RTT) or \"packet\" (window when the ACKed packet was sent)"),
    ];

    fn validate(&self) -> Result<(), (&'static str, String)> {
        check_common(self.gamma, self.expected_flows)?;
        if !(self.rtt_slack.is_finite() && self.rtt_slack > 0.0) {
            return Err(("rtt_slack", "must be a number > 0".into()));
        }
        if !(self.min_current.is_finite() && self.min_current >= 0.0) {
            return Err(("min_current", "must be a number >= 0".into()));
        }
        Ok(())
    }

    fn into_scheme(self) -> Box<dyn Scheme> {
        Box::new(ThetaPowerTcp { cfg: self })
    }
}

/// The PowerTCP scheme (INT).
pub struct PowerTcp {
    cfg: PowerTcpConfig,
}

impl Scheme for PowerTcp {
    fn name(&self) -> &str {
        PowerTcpConfig::NAME
    }
    fn requirements(&self) -> Requirements {
        // per-hop power from consecutive ACKs' records, by hop position (as HPCC)
        Requirements {
            int_on_data: true,
            int_by_position: true,
            int_spray_accepted: self.cfg.multipath_int,
            ..Default::default()
        }
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        Box::new(PowerSender::int(&self.cfg, flow))
    }
}

/// The θ-PowerTCP scheme (RTT only).
pub struct ThetaPowerTcp {
    cfg: ThetaPowerTcpConfig,
}

impl Scheme for ThetaPowerTcp {
    fn name(&self) -> &str {
        ThetaPowerTcpConfig::NAME
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        Box::new(PowerSender::theta(&self.cfg, flow))
    }
}

fn base_rtt_of(mode: BaseRtt, flow: &FlowView) -> Time {
    match mode {
        BaseRtt::Global => flow.max_base_rtt.max(flow.base_rtt),
        BaseRtt::Path => flow.base_rtt,
    }
    .max(1)
}

fn secs(t: Time) -> f64 {
    t as f64 / SEC as f64
}

/// INT power: the previous ACK's records, by hop.
struct IntSignal {
    hops: [IntHop; MAX_INT_HOPS],
    /// Hops with a stored record.
    n: usize,
    queue_gradient: bool,
}

impl IntSignal {
    /// (normalized power of the bottleneck hop, that hop's dt), or None when no
    /// hop has a newer record than the stored one.
    fn sample(&mut self, ack: &Packet, t: Time) -> Option<(f64, Time)> {
        let int = ack.int_hops();
        let t_s = secs(t);
        let mut best: Option<(f64, Time)> = None;
        for (i, h) in int.iter().enumerate() {
            if i >= self.n {
                self.hops[i] = *h;
                continue;
            }
            let prev = self.hops[i];
            if h.ts <= prev.ts || h.rate_bps == 0 {
                // Not newer than the stored record: nothing to measure.
                continue;
            }
            let dt = h.ts - prev.ts;
            let dt_s = secs(dt);
            let b = h.rate_bps as f64 / 8.0;
            let dtx = h.tx_bytes.saturating_sub(prev.tx_bytes) as f64;
            let arrived = if self.queue_gradient { (dtx + h.qlen as f64 - prev.qlen as f64).max(0.0) } else { dtx };
            let lambda = arrived / dt_s;
            let voltage = h.qlen as f64 + b * t_s;
            let power = lambda * voltage / (b * b * t_s);
            if best.is_none_or(|(p, _)| power > p) {
                best = Some((power, dt));
            }
            self.hops[i] = *h;
        }
        self.n = self.n.max(int.len());
        best
    }
}

/// RTT-gradient power (θ-PowerTCP).
struct RttSignal {
    /// RTT and arrival time of the previous ACK (None before the first).
    prev: Option<(Time, Time)>,
    rtt_slack: f64,
    min_current: f64,
    learn_base_rtt: bool,
}

impl RttSignal {
    /// (normalized power, time since the previous ACK); may lower `t`.
    fn sample(&mut self, now: Time, ack: &Packet, t: &mut Time) -> Option<(f64, Time)> {
        if ack.ts > now {
            return None;
        }
        let rtt = now - ack.ts;
        if self.learn_base_rtt && rtt > 0 && rtt < *t {
            *t = rtt;
        }
        let prev = self.prev.replace((rtt, now));
        let (prev_rtt, prev_at) = prev?;
        if now <= prev_at {
            return None;
        }
        let dt = now - prev_at;
        let gradient = (rtt as f64 - prev_rtt as f64) / dt as f64;
        let current = (gradient + 1.0).max(self.min_current);
        let power = current * rtt as f64 / (self.rtt_slack * *t as f64);
        Some((power, dt))
    }
}

enum Signal {
    Int(Box<IntSignal>),
    Rtt(RttSignal),
}

/// PowerTCP / θ-PowerTCP sender of one flow.
pub struct PowerSender {
    signal: Signal,
    gamma: f64,
    /// Fixed beta in bytes, or None for line rate x T / expected_flows.
    beta_fixed: Option<f64>,
    expected_flows: f64,
    eta: f64,
    /// Line rate and min rate in bytes/s.
    line: f64,
    min_rate: f64,
    /// T in picoseconds (at least 1).
    t: Time,
    window_on: bool,
    /// Current window W (bytes).
    w: f64,
    /// Reference window W_old, committed once per RTT.
    w_old: f64,
    last_update_seq: u64,
    /// Smoothed normalized power.
    power: f64,
    reference: RefWindow,
    /// RefWindow::Packet: (end sequence, window when sent) of each packet in
    /// flight, in sequence order.
    sent: VecDeque<(u64, f64)>,
}

/// The parameters both schemes share.
struct Shared {
    gamma: f64,
    expected_flows: u32,
    beta: Bytes,
    eta: f64,
    min_rate: Rate,
    base_rtt: BaseRtt,
    window: bool,
    reference_window: RefWindow,
}

impl PowerSender {
    fn new(signal: Signal, flow: &FlowView, c: Shared) -> Self {
        let line = flow.line_rate as f64 / 8.0;
        let t = base_rtt_of(c.base_rtt, flow);
        let w = line * secs(t);
        PowerSender {
            signal,
            gamma: c.gamma,
            beta_fixed: (c.beta.0 > 0).then_some(c.beta.0 as f64),
            expected_flows: c.expected_flows.max(1) as f64,
            eta: c.eta,
            line,
            min_rate: (c.min_rate.0 as f64 / 8.0).min(line),
            t,
            window_on: c.window,
            w,
            w_old: w,
            last_update_seq: 0,
            power: 1.0,
            reference: c.reference_window,
            sent: VecDeque::new(),
        }
    }

    /// PowerTCP (INT) sender.
    pub fn int(cfg: &PowerTcpConfig, flow: &FlowView) -> Self {
        let signal = Signal::Int(Box::new(IntSignal {
            hops: [IntHop::default(); MAX_INT_HOPS],
            n: 0,
            queue_gradient: cfg.queue_gradient,
        }));
        let shared = Shared {
            gamma: cfg.gamma,
            expected_flows: cfg.expected_flows,
            beta: cfg.beta,
            eta: cfg.eta,
            min_rate: cfg.min_rate,
            base_rtt: cfg.base_rtt,
            window: cfg.window,
            reference_window: cfg.reference_window,
        };
        Self::new(signal, flow, shared)
    }

    /// θ-PowerTCP sender.
    pub fn theta(cfg: &ThetaPowerTcpConfig, flow: &FlowView) -> Self {
        let signal = Signal::Rtt(RttSignal {
            prev: None,
            rtt_slack: cfg.rtt_slack,
            min_current: cfg.min_current,
            learn_base_rtt: cfg.learn_base_rtt,
        });
        let shared = Shared {
            gamma: cfg.gamma,
            expected_flows: cfg.expected_flows,
            beta: cfg.beta,
            eta: 1.0,
            min_rate: cfg.min_rate,
            base_rtt: cfg.base_rtt,
            window: cfg.window,
            reference_window: cfg.reference_window,
        };
        Self::new(signal, flow, shared)
    }

    /// Current window W in bytes.
    pub fn window_bytes(&self) -> f64 {
        self.w
    }

    /// Reference window W_old (committed once per RTT), bytes.
    pub fn reference_window(&self) -> f64 {
        self.w_old
    }

    /// T in picoseconds.
    pub fn base_rtt(&self) -> Time {
        self.t
    }

    /// Additive increase beta in bytes.
    pub fn beta(&self) -> f64 {
        self.beta_fixed.unwrap_or(self.line * secs(self.t) / self.expected_flows)
    }

    /// Highest sequence number whose acknowledgement commits the next W_old.
    pub fn last_update_seq(&self) -> u64 {
        self.last_update_seq
    }

    fn apply(&self, cx: &mut SenderCx) {
        let t_s = secs(self.t);
        cx.rate = self.w * 8.0 / t_s;
        cx.window = if self.window_on { (self.w as u64).max(1) } else { u64::MAX };
    }

    fn feedback(&mut self, cx: &mut SenderCx, ack: &Packet) {
        let sample = match &mut self.signal {
            Signal::Int(s) => s.sample(ack, self.t),
            Signal::Rtt(s) => s.sample(cx.now, ack, &mut self.t),
        };
        if self.reference == RefWindow::Packet {
            while let Some(&(end, w)) = self.sent.front() {
                if end > ack.seq {
                    break;
                }
                self.w_old = w;
                self.sent.pop_front();
            }
        }
        if let Some((p, dt)) = sample {
            // EWMA over one T, weight dt / T.
            let t = self.t as f64;
            let dt = dt.min(self.t) as f64;
            self.power = (self.power * (t - dt) + p * dt) / t;
            // Window update from the reference window.
            let p = (self.power / self.eta).max(1e-9);
            let w = self.gamma * (self.w_old / p + self.beta()) + (1.0 - self.gamma) * self.w;
            let t_s = secs(self.t);
            let (lo, hi) = (self.min_rate * t_s, self.line * t_s);
            self.w = w.clamp(lo.min(hi), hi);
            self.apply(cx);
        }
        if self.reference == RefWindow::Rtt && ack.seq > self.last_update_seq {
            self.w_old = self.w;
            self.last_update_seq = cx.snd_nxt;
        }
    }
}

impl SenderCc for PowerSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        self.apply(cx);
    }

    fn on_send(&mut self, _cx: &mut SenderCx, pkt: &mut Packet) {
        if self.reference == RefWindow::Packet {
            let end = pkt.seq + pkt.payload as u64;
            // A go-back-N resend replaces the records of the bytes it resends.
            while self.sent.back().is_some_and(|&(e, _)| e >= end) {
                self.sent.pop_back();
            }
            self.sent.push_back((end, self.w));
        }
    }

    fn on_ack(&mut self, cx: &mut SenderCx, ack: &Packet) {
        self.feedback(cx, ack);
    }

    fn on_nack(&mut self, cx: &mut SenderCx, nack: &Packet) {
        // NACKs carry INT and the echoed timestamp too (the ns-3 code runs
        // the same handler for ACKs and NACKs).
        self.feedback(cx, nack);
    }

    fn probe(&self) -> f64 {
        self.power
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{ack, ack_int, flow, Harness};
    use ccsim_core::time::US;

    const B: u64 = 100_000_000_000;
    /// BDP of the test flow (100 Gbps x 10 us) and beta = BDP / 10.
    const BDP: f64 = 125_000.0;
    const BETA: f64 = 12_500.0;

    fn hop(ts: Time, tx_bytes: u64, qlen: u64) -> IntHop {
        IntHop { ts, tx_bytes, qlen, rate_bps: B }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// Rate in bits/s of window `w` bytes over T = 10 us.
    fn rate_of(w: f64) -> f64 {
        w * 8.0 / 10e-6
    }

    /// One switch hop: each ACK says `dt_us` passed since the last record, the
    /// port sent `tx` bytes meanwhile and now has `qlen` queued.
    struct Int {
        s: PowerSender,
        h: Harness,
        ts: Time,
        tx: u64,
    }

    impl Int {
        fn new(cfg: PowerTcpConfig) -> Int {
            let f = flow();
            let mut s = PowerSender::int(&cfg, &f);
            let mut h = Harness::new(f);
            h.start(&mut s);
            Int { s, h, ts: 0, tx: 0 }
        }
        fn ack(&mut self, seq: u64, snd_nxt: u64, dt_us: f64, tx: u64, qlen: u64) {
            self.ts += (dt_us * US as f64) as Time;
            self.tx += tx;
            self.h.snd_nxt = snd_nxt;
            self.h.now = self.ts;
            let p = ack_int(seq, &[hop(self.ts, self.tx, qlen)]);
            self.h.ack(&mut self.s, &p);
        }
    }

    /// First ACK (reference only), then a full-T sample: the port sent one BDP
    /// in T (txRate = B) and the queue grew from 0 to 0.1 BDP:
    /// lambda = 1.1 B, voltage = 1.1 BDP, power = 1.21.
    fn loaded(cfg: PowerTcpConfig) -> (Int, f64) {
        let mut r = Int::new(cfg);
        assert_eq!(r.h.rate, 1e11, "starts at line rate");
        if r.s.window_on {
            assert_eq!(r.h.window, 125_000, "W = BDP");
        }
        r.ack(1000, 20_000, 1.0, 0, 0);
        assert_eq!(r.h.rate, 1e11, "first ACK only stores INT");
        assert_eq!(r.s.last_update_seq(), 20_000);
        assert_eq!(r.s.probe(), 1.0, "smoothed power starts at 1");
        r.ack(21_000, 150_000, 10.0, 125_000, 12_500);
        let w = 0.9 * (BDP / 1.21 + BETA) + 0.1 * BDP;
        (r, w)
    }

    #[test]
    fn int_power_is_current_times_voltage_normalized() {
        let (r, w) = loaded(PowerTcpConfig::default());
        assert!(close(r.s.probe(), 1.21), "power {}", r.s.probe());
        assert!(close(r.s.beta(), BETA));
        assert!(close(r.s.window_bytes(), w), "{} vs {w}", r.s.window_bytes());
        assert!(close(r.h.rate, rate_of(w)));
        assert_eq!(r.h.window, w as u64);
        // seq 21000 > 20000: W became the reference, next commit at snd_nxt.
        assert!(close(r.s.reference_window(), w));
        assert_eq!(r.s.last_update_seq(), 150_000);
    }

    #[test]
    fn ewma_over_t_and_acks_within_an_rtt_use_the_reference_window() {
        let (mut r, w2) = loaded(PowerTcpConfig::default());
        // 1 us later: txRate = B, queue steady at 0.1 BDP: sample 1.1, weight 1/10.
        r.ack(30_000, 160_000, 1.0, 12_500, 12_500);
        let p3 = (1.21 * 9.0 + 1.1) / 10.0;
        assert!(close(r.s.probe(), p3), "{}", r.s.probe());
        let w3 = 0.9 * (w2 / p3 + BETA) + 0.1 * w2;
        assert!(close(r.s.window_bytes(), w3));
        assert!(close(r.s.reference_window(), w2), "not committed within the RTT");
        r.ack(31_000, 170_000, 1.0, 12_500, 12_500);
        let p4 = (p3 * 9.0 + 1.1) / 10.0;
        // W_old is still w2; the (1 - gamma) term takes the current window w3.
        let w4 = 0.9 * (w2 / p4 + BETA) + 0.1 * w3;
        assert!(close(r.s.window_bytes(), w4));
        assert_eq!(r.s.last_update_seq(), 150_000);
        // The first ACK beyond 150_000 commits its result and moves the mark.
        r.ack(150_001, 180_000, 1.0, 12_500, 12_500);
        let p5 = (p4 * 9.0 + 1.1) / 10.0;
        let w5 = 0.9 * (w2 / p5 + BETA) + 0.1 * w4;
        assert!(close(r.s.window_bytes(), w5));
        assert!(close(r.s.reference_window(), w5));
        assert_eq!(r.s.last_update_seq(), 180_000);
    }

    /// Sends the data packet [seq, seq + 1000).
    fn send(r: &mut Int, seq: u64) {
        let mut p = Packet { seq, payload: 1000, ..Default::default() };
        r.h.send(&mut r.s, &mut p);
    }

    #[test]
    fn packet_reference_is_the_window_when_the_acked_packet_was_sent() {
        let mut r = Int::new(PowerTcpConfig { reference_window: RefWindow::Packet, ..Default::default() });
        send(&mut r, 0);
        r.ack(1000, 1000, 1.0, 0, 0);
        send(&mut r, 1000);
        r.ack(2000, 2000, 10.0, 125_000, 12_500);
        let w1 = 0.9 * (BDP / 1.21 + BETA) + 0.1 * BDP;
        assert!(close(r.s.window_bytes(), w1));
        send(&mut r, 2000);
        send(&mut r, 3000);
        // The ACK of [2000, 3000), sent at w1: W_old = w1.
        r.ack(3000, 4000, 1.0, 12_500, 12_500);
        assert!(close(r.s.reference_window(), w1));
        let p3 = (1.21 * 9.0 + 1.1) / 10.0;
        let w2 = 0.9 * (w1 / p3 + BETA) + 0.1 * w1;
        assert!(close(r.s.window_bytes(), w2));
        send(&mut r, 4000);
        // [3000, 4000) was sent at w1 too, [4000, 5000) at w2.
        r.ack(4000, 5000, 1.0, 12_500, 12_500);
        assert!(close(r.s.reference_window(), w1));
        let p4 = (p3 * 9.0 + 1.1) / 10.0;
        let w3 = 0.9 * (w1 / p4 + BETA) + 0.1 * w2;
        assert!(close(r.s.window_bytes(), w3));
        // A go-back-N resend of [4000, 5000) replaces its record (now at w3).
        send(&mut r, 4000);
        assert_eq!(r.s.sent.len(), 1);
        r.ack(5000, 5000, 1.0, 12_500, 12_500);
        assert!(close(r.s.reference_window(), w3));
        assert!(r.s.sent.is_empty());
    }

    #[test]
    fn window_converges_to_the_fixed_point_w_over_p_plus_beta() {
        // Two flows, queue N x beta = 25 KB, link full: P = 1 + q / BDP = 1.2.
        // Fixed point W = W / 1.2 + beta = 6 beta = 75 KB = (BDP + q) / 2.
        let mut r = Int::new(PowerTcpConfig::default());
        r.ack(1000, 10_000, 1.0, 0, 25_000);
        let mut seq = 10_000;
        for _ in 0..400 {
            // One ACK per 1 us, queue steady: lambda = B, voltage = 1.2 BDP.
            seq += 10_000;
            r.ack(seq + 1, seq + 10_000, 1.0, 12_500, 25_000);
        }
        assert!(close(r.s.probe(), 1.2), "{}", r.s.probe());
        let w = r.s.window_bytes();
        assert!((w - 75_000.0).abs() < 1.0, "W = {w}");
    }

    #[test]
    fn bottleneck_is_the_hop_with_the_largest_power_and_stale_records_are_skipped() {
        let f = flow();
        let mut s = PowerSender::int(&PowerTcpConfig::default(), &f);
        let mut h = Harness::new(f);
        h.start(&mut s);
        h.snd_nxt = 10_000;
        h.ack(&mut s, &ack_int(1000, &[hop(US, 0, 0), hop(US, 0, 0)]));
        // Over 10 us: hop 0 at 0.3 B with no queue (power 0.3); hop 1 at B with
        // its queue grown to 0.2 BDP (lambda 1.2 B, voltage 1.2 BDP: 1.44).
        h.snd_nxt = 20_000;
        let p = ack_int(11_000, &[hop(11 * US, 37_500, 0), hop(11 * US, 125_000, 25_000)]);
        h.ack(&mut s, &p);
        assert!(close(s.probe(), 1.44), "{}", s.probe());
        // The same records again: no time elapsed, no sample, nothing changes.
        let (rate, w) = (h.rate, s.window_bytes());
        h.ack(&mut s, &ack_int(21_000, &p.int[..2]));
        assert_eq!((h.rate, s.window_bytes()), (rate, w));
        assert!(close(s.probe(), 1.44));
    }

    #[test]
    fn draining_queue_gives_no_current_and_queue_gradient_can_be_off() {
        // Queue drains faster than the port sends (dq + dtx < 0): lambda = 0,
        // power 0, the window jumps to its cap (one BDP).
        let mut r = Int::new(PowerTcpConfig::default());
        r.ack(1000, 20_000, 1.0, 0, 100_000);
        r.ack(21_000, 150_000, 10.0, 12_500, 50_000);
        assert_eq!(r.s.probe(), 0.0);
        assert_eq!(r.h.window, 125_000);
        assert_eq!(r.h.rate, 1e11);

        // Without the gradient term: lambda = txRate only. Sent 0.5 BDP in T
        // with 0.5 BDP queued: power = 0.5 x 1.5 = 0.75.
        let mut r = Int::new(PowerTcpConfig { queue_gradient: false, ..Default::default() });
        r.ack(1000, 20_000, 1.0, 0, 0);
        r.ack(21_000, 150_000, 10.0, 62_500, 62_500);
        assert!(close(r.s.probe(), 0.75), "{}", r.s.probe());
    }

    #[test]
    fn window_is_bounded_by_min_rate_and_one_bdp() {
        // beta >= the floor keeps W above min_rate x T; with a 1-byte beta a
        // huge standing queue (power ~ 800) takes W to the floor in a few RTTs.
        let mut r = Int::new(PowerTcpConfig { beta: Bytes(1), ..Default::default() });
        r.ack(1000, 20_000, 1.0, 0, 100_000_000);
        let mut seq = 20_000;
        for _ in 0..4 {
            r.ack(seq + 1, seq + 10_000, 10.0, 125_000, 100_000_000);
            seq += 10_000;
            assert!(r.s.probe() > 500.0);
        }
        assert_eq!(r.h.window, 125, "min_rate x T");
        assert!(close(r.h.rate, 1e8));
        // Power 0 (an idle link): at most one BDP.
        let mut r = Int::new(PowerTcpConfig::default());
        r.ack(1000, 20_000, 1.0, 0, 0);
        r.ack(21_000, 150_000, 10.0, 0, 0);
        assert_eq!(r.s.probe(), 0.0);
        assert_eq!((r.h.window, r.h.rate), (125_000, 1e11));
    }

    #[test]
    fn eta_fixed_beta_and_rate_only_mode() {
        let cfg = PowerTcpConfig { eta: 0.95, beta: Bytes(1000), window: false, ..Default::default() };
        let (r, _) = loaded(cfg);
        let w = 0.9 * (BDP / (1.21 / 0.95) + 1000.0) + 0.1 * BDP;
        assert!(close(r.s.window_bytes(), w));
        assert!(close(r.h.rate, rate_of(w)));
        assert_eq!(r.h.window, u64::MAX, "window off: rate only");
    }

    #[test]
    fn base_rtt_modes() {
        let mut f = flow();
        f.base_rtt = 5 * US;
        let s = PowerSender::int(&PowerTcpConfig::default(), &f);
        assert_eq!(s.base_rtt(), 10 * US, "global T = max_base_rtt");
        assert!(close(s.window_bytes(), 125_000.0));
        let path = PowerTcpConfig { base_rtt: BaseRtt::Path, ..Default::default() };
        let s = PowerSender::int(&path, &f);
        assert_eq!(s.base_rtt(), 5 * US);
        assert!(close(s.window_bytes(), 62_500.0));
        assert!(close(s.beta(), 6_250.0), "beta follows T");
    }

    /// θ-PowerTCP: an ACK at `now_us` for data sent at `sent_us`.
    fn theta_ack(h: &mut Harness, s: &mut PowerSender, seq: u64, now_us: f64, sent_us: f64) {
        // Times are offset by 10 us so that send times may be "negative".
        h.now = ((now_us + 10.0) * US as f64) as Time;
        let mut p = ack(seq);
        p.ts = ((sent_us + 10.0) * US as f64) as Time;
        h.ack(s, &p);
    }

    fn theta(cfg: ThetaPowerTcpConfig) -> (PowerSender, Harness) {
        let f = flow();
        let mut s = PowerSender::theta(&cfg, &f);
        let mut h = Harness::new(f);
        h.start(&mut s);
        (s, h)
    }

    #[test]
    fn theta_power_from_rtt_and_its_gradient() {
        let (mut s, mut h) = theta(ThetaPowerTcpConfig::default());
        assert_eq!((h.rate, h.window), (1e11, 125_000));
        h.snd_nxt = 20_000;
        theta_ack(&mut h, &mut s, 1000, 10.0, 0.0);
        assert_eq!(h.window, 125_000, "first ACK only stores the RTT");
        assert_eq!(s.last_update_seq(), 20_000);
        // 1 us later the RTT is 13 us: gradient 3, current 4,
        // power = 4 x 13 / (1.05 x 10) = 4.95; EWMA weight 1/10.
        h.snd_nxt = 30_000;
        theta_ack(&mut h, &mut s, 2000, 11.0, -2.0);
        let p = (9.0 + 4.0 * 13.0 / 10.5) / 10.0;
        assert!(close(s.probe(), p), "{} vs {p}", s.probe());
        let w = 0.9 * (BDP / p + BETA) + 0.1 * BDP;
        assert!(close(s.window_bytes(), w), "{} vs {w}", s.window_bytes());
        assert!(close(h.rate, rate_of(w)));
        assert_eq!(h.window, w as u64);
        assert!(close(s.reference_window(), BDP), "seq 2000 <= 20000: no commit");

        // The RTT falls by 3 us within 1 us: dRTT/dt + 1 = -2, floored at 0.5.
        theta_ack(&mut h, &mut s, 3000, 12.0, 2.0);
        let p2 = (p * 9.0 + 0.5 * 10.0 / 10.5) / 10.0;
        assert!(close(s.probe(), p2), "{} vs {p2}", s.probe());
    }

    #[test]
    fn theta_learns_the_smallest_rtt_as_t() {
        let (mut s, mut h) = theta(ThetaPowerTcpConfig { rtt_slack: 1.0, min_current: 0.0, ..Default::default() });
        h.snd_nxt = 20_000;
        theta_ack(&mut h, &mut s, 1000, 8.0, 0.0);
        assert_eq!(s.base_rtt(), 8 * US);
        assert!(close(s.beta(), 10_000.0), "beta = line rate x 8 us / 10");
        // Steady RTT of 8 us = T: power 1, W = W_old + 0.9 beta, capped at the
        // new BDP (100 KB).
        theta_ack(&mut h, &mut s, 21_000, 9.0, 1.0);
        assert!(close(s.probe(), 1.0));
        assert!(close(s.window_bytes(), 100_000.0));
        assert_eq!(h.window, 100_000);

        // Without learning, T stays at the flow's base RTT.
        let (mut s, mut h) = theta(ThetaPowerTcpConfig { learn_base_rtt: false, ..Default::default() });
        theta_ack(&mut h, &mut s, 1000, 8.0, 0.0);
        assert_eq!(s.base_rtt(), 10 * US);
    }

    #[test]
    fn configs_registry_and_requirements() {
        let p = PowerTcpConfig::default().into_scheme();
        assert_eq!(p.name(), "powertcp");
        assert!(p.requirements().int_on_data);
        let t = ThetaPowerTcpConfig::default().into_scheme();
        assert_eq!(t.name(), "theta_powertcp");
        assert_eq!(t.requirements(), Requirements::default(), "no switch support");
        for n in ["powertcp", "theta_powertcp"] {
            assert_eq!(crate::make(n, None).unwrap().name(), n);
        }
        let table = |s: &str| toml::Value::Table(s.parse::<toml::Table>().unwrap());
        let e = crate::make("powertcp", Some(&table("gamma = 1.5"))).err().unwrap();
        assert!(e.starts_with("scheme.powertcp.gamma = 1.5"), "{e}");
        let e = crate::make("theta_powertcp", Some(&table("expected_flows = 0"))).err().unwrap();
        assert!(e.contains("expected_flows"), "{e}");
        let e = crate::make("theta_powertcp", Some(&table("eta = 1.0"))).err().unwrap();
        assert!(e.contains("unknown parameter"), "{e}");
        let c: ThetaPowerTcpConfig = crate::config(Some(&table("gamma = 0.7\nbeta = \"2KB\""))).unwrap();
        assert_eq!((c.gamma, c.beta), (0.7, Bytes(2000)));
    }
}
