//! HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM'19):
//! window/rate control from in-band network telemetry.
//!
//! * Switch: each egress pushes an INT record (dequeue time, bytes sent so far,
//!   queue length, link rate) onto data packets; done by the core
//!   (`Requirements::int_on_data`). The receiver copies the records into the ACK.
//! * Sender, per ACK, as the HPCC simulator's `rdma-hw.cc` (HandleAckHp,
//!   UpdateRateHp; single rate, MULTI_RATE 0, SAMPLE_FEEDBACK 0): for each hop j,
//!   against the record of the same hop in the previous ACK,
//!   txRate = dBytes/dts and u_j = txRate/B + min(qlen, prev_qlen) x 8/(B x T);
//!   U' = max_j u_j, with tau = dts of that hop capped at T;
//!   U = ((T - tau) U + tau U')/T; k = U/eta. If k >= 1 or inc_stage >= max_stage:
//!   R = Rc/k + R_AI and inc_stage = 0, else R = Rc + R_AI and inc_stage + 1.
//!   R is clamped to [min_rate, line rate] and applied at once (fast react); Rc
//!   and inc_stage are committed only when the ACK acknowledges data beyond
//!   `last_update_seq`, which then becomes snd_nxt (once per RTT). The first ACK
//!   only stores the INT records.
//! * Window (HAS_WIN 1, VAR_WIN 1): W = R x T in bytes; the rate is R. HPCC's
//!   window W and additive step W_AI are carried here as the rate R = W/T and the
//!   rate step R_AI = W_AI/T, as the simulator does.
//!
//! HPCC* (OSCAR's "same target" comparison) is this scheme with `eta = 1.5`.
//! `probe()` returns U.

use crate::registry::SchemeConfig;
use ccsim_core::cc::{FlowView, Requirements, Scheme, SenderCc, SenderCx};
use ccsim_core::packet::{IntHop, Packet, MAX_INT_HOPS};
use ccsim_core::time::{Time, SEC};
use serde::{Deserialize, Serialize};

/// Which base RTT is HPCC's T.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BaseRtt {
    /// One T for every flow: the largest base RTT of the topology
    /// (`flow.max_base_rtt`), as the HPCC simulator (GLOBAL_T 1).
    Global,
    /// The flow's own path base RTT (`flow.base_rtt`).
    Path,
}

/// Declares a configuration struct whose first fields are HPCC's parameters
/// (`eta` .. `fast_react`, with HPCC's documentation and defaults), followed by
/// the fields given as `pub name: Type = default,`; implements `Default` for it,
/// `hpcc()` (the [`HpccConfig`] of those fields) and `check_hpcc()` (HPCC's
/// range checks). [`HpccConfig`] is declared with it, and so is FNCC's
/// configuration, which takes HPCC's keys at the top level of its
/// `[scheme.fncc]` table: serde's `flatten` cannot be combined with
/// `deny_unknown_fields`, so the keys are declared in each struct, from here.
macro_rules! hpcc_config {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty = $default:expr, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// Target utilization eta. Default 0.95 (HPCC paper; `rdma-hw.cc`
            /// TargetUtil default; `run.py` --utgt 95). HPCC* = 1.5.
            pub eta: f64,
            /// Additive-increase stages before a multiplicative update (maxStage).
            /// Default 5 (HPCC paper maxStage = 5; `rdma-hw.cc` MiThresh default 5).
            /// The HPCC simulator's reference runs use 0 (`run.py` --mi default 0,
            /// MI_THRESH 0 in bench/README.md): every update multiplicative.
            pub max_stage: u32,
            /// Additive increase W_AI, as a rate (W_AI / T). Default 50Mbps (the HPCC
            /// simulator's README example at 100 Gbps, `run.py --cc hp --bw 100 --hpai 50`,
            /// and the reference runs in bench/README.md; without --hpai, `run.py` uses
            /// 10 Mb/s x bw/25G = 40 Mb/s at 100G).
            /// W_AI is what pulls flows to equal shares. The HPCC paper sizes it by the
            /// expected number N of concurrent flows on a link, W_AI = W_init (1 - eta) / N,
            /// i.e. rate_ai = (1 - eta) x B / N: 1.25 Gbps for 4 flows at 100G; 50 Mbps is
            /// that rule for N of about 100, and leaves 4 long flows at 100G unequal
            /// (~28 vs ~20 Gbps for 100 ms): each flow reads the queue at its own packets,
            /// which only other flows' packets queue behind, so a flow with a larger share
            /// sees a smaller queue and a smaller U (tests/network.rs).
            pub rate_ai: ::ccsim_core::units::Rate,
            /// Lowest rate. Default 100Mbps (`rdma-hw.cc` MinRate attribute default).
            /// The HPCC simulator's reference runs set MIN_RATE 1000Mb/s (`run.py`).
            pub min_rate: ::ccsim_core::units::Rate,
            /// T: "global" (default; `flow.max_base_rtt`, the HPCC simulator's GLOBAL_T 1)
            /// or "path" (`flow.base_rtt`).
            pub base_rtt: $crate::hpcc::BaseRtt,
            /// Limit bytes in flight to W = R x T (default true: `run.py --cc hp`
            /// HAS_WIN 1, VAR_WIN 1); false = rate only, no window.
            pub window: bool,
            /// React to every ACK with the last committed Rc as the base (default true:
            /// `run.py --cc hp` FAST_REACT 1); false = update once per RTT only.
            pub fast_react: bool,
            $( $(#[$fmeta])* pub $field: $ty, )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name {
                    eta: 0.95,
                    max_stage: 5,
                    rate_ai: ::ccsim_core::units::Rate(50_000_000),
                    min_rate: ::ccsim_core::units::Rate(100_000_000),
                    base_rtt: $crate::hpcc::BaseRtt::Global,
                    window: true,
                    fast_react: true,
                    $( $field: $default, )*
                }
            }
        }

        impl $name {
            /// The HPCC configuration of HPCC's parameters here.
            pub fn hpcc(&self) -> $crate::hpcc::HpccConfig {
                $crate::hpcc::HpccConfig {
                    eta: self.eta,
                    max_stage: self.max_stage,
                    rate_ai: self.rate_ai,
                    min_rate: self.min_rate,
                    base_rtt: self.base_rtt,
                    window: self.window,
                    fast_react: self.fast_react,
                    ..Default::default()
                }
            }

            /// HPCC's range checks. Errors are `(key, message)`.
            pub(crate) fn check_hpcc(&self) -> Result<(), (&'static str, String)> {
                // above 1 is a target beyond the link (OSCAR's HPCC*: 1.5);
                // 1e308 used to be accepted and made every link look idle
                if !(self.eta.is_finite() && self.eta > 0.0 && self.eta <= $crate::hpcc::MAX_ETA) {
                    return Err(("eta", format!("must be a number in (0, {}]", $crate::hpcc::MAX_ETA)));
                }
                Ok(())
            }
        }
    };
}
pub(crate) use hpcc_config;

/// Highest target utilization `eta` accepted: 10 (1000% of the link).
pub const MAX_ETA: f64 = 10.0;

hpcc_config! {
    /// HPCC parameters.
    pub struct HpccConfig {
        /// Run under per-packet spraying anyway, pairing each ACK's INT
        /// records with the previous ACK's by position though they describe
        /// different paths (as the HPCC simulator does; OSCAR's fig10b
        /// studies how that breaks HPCC). Default false: spraying is refused.
        pub multipath_int: bool = false,
    }
}

impl SchemeConfig for HpccConfig {
    const NAME: &'static str = "hpcc";
    const SUMMARY: &'static str = "HPCC (Li et al. SIGCOMM'19): INT-based rate/window control, as the HPCC simulator";
    const PARAMS: &'static [(&'static str, &'static str)] = &[
        ("eta", "target utilization; 1.5 gives OSCAR's HPCC*"),
        ("max_stage", "additive stages before a multiplicative update (reference runs: 0)"),
        ("rate_ai", "additive increase W_AI as a rate (W_AI / T)"),
        ("min_rate", "lowest rate (reference runs: 1Gbps)"),
        ("base_rtt", "T: \"global\" (largest base RTT, as the HPCC simulator) or \"path\""),
        ("window", "limit bytes in flight to rate x T"),
        ("fast_react", "apply an update on every ACK, committing once per RTT"),
        ("multipath_int", "accept per-packet spraying, pairing INT records of different paths (default: refused)"),
    ];

    fn validate(&self) -> Result<(), (&'static str, String)> {
        self.check_hpcc()
    }

    fn into_scheme(self) -> Box<dyn Scheme> {
        Box::new(Hpcc { cfg: self })
    }
}

/// The HPCC scheme.
pub struct Hpcc {
    cfg: HpccConfig,
}

impl Scheme for Hpcc {
    fn name(&self) -> &str {
        HpccConfig::NAME
    }
    fn requirements(&self) -> Requirements {
        // each ACK's records are compared with the previous ACK's by hop position (§3.3)
        Requirements {
            int_on_data: true,
            int_by_position: true,
            int_spray_accepted: self.cfg.multipath_int,
            ..Default::default()
        }
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        Box::new(HpccSender::new(&self.cfg, flow))
    }
}

/// HPCC sender of one flow.
pub struct HpccSender {
    eta: f64,
    max_stage: u32,
    rate_ai: f64,
    min_rate: f64,
    line: f64,
    /// T in picoseconds (at least 1).
    t: Time,
    window: bool,
    fast_react: bool,
    /// Committed rate Rc (= Wc / T).
    cur_rate: f64,
    inc_stage: u32,
    /// Normalized inflight U (EWMA).
    u: f64,
    last_update_seq: u64,
    /// INT records of the previous ACK, by hop.
    hops: [IntHop; MAX_INT_HOPS],
}

impl HpccSender {
    pub fn new(cfg: &HpccConfig, flow: &FlowView) -> Self {
        let line = flow.line_rate as f64;
        let t = match cfg.base_rtt {
            BaseRtt::Global => flow.max_base_rtt.max(flow.base_rtt),
            BaseRtt::Path => flow.base_rtt,
        };
        HpccSender {
            eta: cfg.eta,
            max_stage: cfg.max_stage,
            rate_ai: cfg.rate_ai.0 as f64,
            min_rate: (cfg.min_rate.0 as f64).min(line),
            line,
            t: t.max(1),
            window: cfg.window,
            fast_react: cfg.fast_react,
            cur_rate: line,
            inc_stage: 0,
            // rdma-queue-pair.cc starts hp.u at 1.
            u: 1.0,
            last_update_seq: 0,
            hops: [IntHop::default(); MAX_INT_HOPS],
        }
    }

    /// Committed rate Rc (bits/s).
    pub fn committed_rate(&self) -> f64 {
        self.cur_rate
    }

    pub fn inc_stage(&self) -> u32 {
        self.inc_stage
    }

    /// Sets the committed rate (and the window W = R x T) to `rate` at once, as
    /// a notification from outside HPCC would (SRCC's CNM); the additive stage
    /// restarts. Later INT feedback updates from this rate.
    pub fn reset_rate(&mut self, cx: &mut SenderCx, rate: f64) {
        let rate = rate.clamp(self.min_rate, self.line);
        self.cur_rate = rate;
        self.inc_stage = 0;
        self.set_rate(cx, rate);
    }

    fn set_rate(&self, cx: &mut SenderCx, rate: f64) {
        cx.rate = rate;
        if self.window {
            // W = R x T, at least one byte (rdma-queue-pair.cc GetWin).
            let w = rate * self.t as f64 / (8.0 * SEC as f64);
            cx.window = (w as u64).max(1);
        }
    }

    fn feedback(&mut self, cx: &mut SenderCx, ack: &Packet) {
        self.feedback_with(cx, ack, &mut |_, _| {});
    }

    /// HPCC's reaction to one ACK (or NACK), with a hook for variants (FNCC):
    /// `hook` runs after the INT has been measured (U updated) and before the
    /// new rate is computed from the committed rate Rc; it gets each record's
    /// u_j in the ACK's record order (None where no time elapsed at that hop)
    /// and may replace Rc ([`HpccSender::set_committed_rate`]). With a hook
    /// that does nothing this is exactly HPCC.
    pub fn feedback_with(
        &mut self,
        cx: &mut SenderCx,
        ack: &Packet,
        hook: &mut dyn FnMut(&mut HpccSender, &[Option<f64>]),
    ) {
        if ack.seq > self.last_update_seq {
            self.update(cx, ack, false, hook);
        } else if self.fast_react {
            self.update(cx, ack, true, hook);
        }
    }

    /// T (HPCC's base RTT) in picoseconds.
    pub fn base_rtt(&self) -> Time {
        self.t
    }

    /// Replaces the committed rate Rc (= Wc / T), clamped to [min_rate, line rate].
    pub fn set_committed_rate(&mut self, rate: f64) {
        self.cur_rate = rate.clamp(self.min_rate, self.line);
    }

    /// UpdateRateHp: `fast` = fast react (apply without committing).
    fn update(
        &mut self,
        cx: &mut SenderCx,
        ack: &Packet,
        fast: bool,
        hook: &mut dyn FnMut(&mut HpccSender, &[Option<f64>]),
    ) {
        let next_seq = cx.snd_nxt;
        let int = ack.int_hops();
        if self.last_update_seq == 0 {
            // First RTT: only remember the INT records.
            self.last_update_seq = next_seq;
            self.hops[..int.len()].copy_from_slice(int);
            return;
        }
        let t = self.t as f64;
        let mut max_u = 0.0;
        let mut tau_of_max: Time = 0;
        let mut updated = false;
        let mut per_hop = [None; MAX_INT_HOPS];
        for (i, h) in int.iter().enumerate() {
            let prev = self.hops[i];
            if h.ts <= prev.ts || h.rate_bps == 0 {
                // No time elapsed at this hop since the stored record (or an
                // older record): no rate can be measured; keep the reference.
                continue;
            }
            let tau = h.ts - prev.ts;
            let b = h.rate_bps as f64;
            let tx_rate = h.tx_bytes.saturating_sub(prev.tx_bytes) as f64 * 8.0 * SEC as f64 / tau as f64;
            let queue = h.qlen.min(prev.qlen) as f64 * 8.0 * SEC as f64 / (b * t);
            let u = tx_rate / b + queue;
            per_hop[i] = Some(u);
            if u > max_u {
                max_u = u;
                tau_of_max = tau;
            }
            self.hops[i] = *h;
            updated = true;
        }
        if updated {
            let tau = tau_of_max.min(self.t) as f64;
            self.u = (self.u * (t - tau) + max_u * tau) / t;
            hook(self, &per_hop[..int.len()]);
            let k = self.u / self.eta;
            let (rate, stage) = if k >= 1.0 || self.inc_stage >= self.max_stage {
                let base = if k > 0.0 { self.cur_rate / k } else { f64::INFINITY };
                (base + self.rate_ai, 0)
            } else {
                (self.cur_rate + self.rate_ai, self.inc_stage + 1)
            };
            let rate = rate.clamp(self.min_rate, self.line);
            self.set_rate(cx, rate);
            if !fast {
                self.cur_rate = rate;
                self.inc_stage = stage;
            }
        }
        if !fast && next_seq > self.last_update_seq {
            self.last_update_seq = next_seq;
        }
    }
}

impl SenderCc for HpccSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        self.set_rate(cx, self.line);
        if !self.window {
            cx.window = u64::MAX;
        }
    }

    fn on_ack(&mut self, cx: &mut SenderCx, ack: &Packet) {
        self.feedback(cx, ack);
    }

    fn on_nack(&mut self, cx: &mut SenderCx, nack: &Packet) {
        // The HPCC simulator runs HandleAckHp on NACKs too (they carry INT).
        self.feedback(cx, nack);
    }

    fn probe(&self) -> f64 {
        self.u
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{ack_int, flow, Harness};
    use ccsim_core::time::US;

    const B: u64 = 100_000_000_000;
    const L: f64 = 100e9;
    /// Bytes a 100G port sends in `us` microseconds at fraction `f` of its rate.
    fn bytes(f: f64, us: f64) -> u64 {
        (f * L * us * 1e-6 / 8.0).round() as u64
    }

    fn hop(ts: Time, tx_bytes: u64, qlen: u64) -> IntHop {
        IntHop { ts, tx_bytes, qlen, rate_bps: B }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// W = R x T in bytes for T = 10 us.
    fn win(rate: f64) -> u64 {
        (rate * (10 * US) as f64 / 8e12) as u64
    }

    /// One switch hop; the sender has `snd_nxt` sent when each ACK arrives.
    struct Run {
        s: HpccSender,
        h: Harness,
        ts: Time,
        tx: u64,
    }

    impl Run {
        fn new(cfg: HpccConfig) -> Run {
            let f = flow();
            let mut s = HpccSender::new(&cfg, &f);
            let mut h = Harness::new(f);
            h.start(&mut s);
            Run { s, h, ts: 0, tx: 0 }
        }
        /// An ACK whose INT says: `dt_us` since the last record, the port sent at
        /// `util` of its rate meanwhile, and has `qlen` bytes queued.
        fn ack(&mut self, seq: u64, snd_nxt: u64, dt_us: f64, util: f64, qlen: u64) {
            self.ts += (dt_us * US as f64) as Time;
            self.tx += bytes(util, dt_us);
            self.h.snd_nxt = snd_nxt;
            self.h.now = self.ts;
            let p = ack_int(seq, &[hop(self.ts, self.tx, qlen)]);
            self.h.ack(&mut self.s, &p);
        }
    }

    /// First ACK (reference only), then one full-RTT update at txRate = B with
    /// one BDP queued at both records: U = 2.
    fn congested(cfg: HpccConfig) -> Run {
        let mut r = Run::new(cfg);
        assert_eq!((r.h.rate, r.h.window), (L, 125_000));
        r.ack(1000, 20_000, 1.0, 1.0, 125_000);
        assert_eq!(r.h.rate, L, "first ACK only stores INT");
        assert_eq!(r.s.last_update_seq, 20_000);
        r.ack(21_000, 150_000, 10.0, 1.0, 125_000);
        r
    }

    #[test]
    fn full_load_and_one_bdp_queue_gives_u_2_and_multiplicative_decrease() {
        let r = congested(HpccConfig::default());
        assert!(close(r.s.probe(), 2.0), "U = {}", r.s.probe());
        let expect = L / (2.0 / 0.95) + 50e6;
        assert!(close(r.h.rate, expect), "{}", r.h.rate);
        assert!(close(r.s.committed_rate(), expect));
        assert_eq!(r.s.inc_stage(), 0);
        assert_eq!(r.s.last_update_seq, 150_000);
        // W = R x T.
        assert_eq!(r.h.window, win(expect));
    }

    #[test]
    fn half_load_no_queue_gives_u_half_and_additive_increase() {
        let mut r = congested(HpccConfig::default());
        let rc = r.s.committed_rate();
        // A full RTT (tau >= T replaces the EWMA) at txRate = 0.5 B, no queue.
        r.ack(150_001, 300_000, 10.0, 0.5, 0);
        assert!(close(r.s.probe(), 0.5), "U = {}", r.s.probe());
        assert!(close(r.h.rate, rc + 50e6), "additive: {}", r.h.rate);
        assert_eq!(r.s.inc_stage(), 1);
    }

    #[test]
    fn fast_react_applies_per_ack_but_commits_once_per_rtt() {
        let mut r = congested(HpccConfig::default());
        let rc = r.s.committed_rate();
        // ACKs within the RTT (seq <= last_update_seq = 150_000).
        r.ack(30_000, 160_000, 1.0, 0.5, 0);
        let u1 = (2.0 * 9.0 + 0.5) / 10.0;
        assert!(close(r.s.probe(), u1));
        let r1 = rc / (u1 / 0.95) + 50e6;
        assert!(close(r.h.rate, r1), "{} vs {r1}", r.h.rate);
        assert_eq!(r.s.committed_rate(), rc, "not committed");
        r.ack(31_000, 170_000, 1.0, 0.5, 0);
        let u2 = (u1 * 9.0 + 0.5) / 10.0;
        let r2 = rc / (u2 / 0.95) + 50e6;
        assert!(close(r.h.rate, r2), "from Rc, not from the last per-ACK rate");
        assert_eq!(r.s.committed_rate(), rc);
        assert_eq!(r.s.last_update_seq, 150_000);
        // The first ACK beyond last_update_seq commits and moves it to snd_nxt.
        r.ack(150_001, 180_000, 1.0, 0.5, 0);
        let u3 = (u2 * 9.0 + 0.5) / 10.0;
        let r3 = rc / (u3 / 0.95) + 50e6;
        assert!(close(r.h.rate, r3));
        assert!(close(r.s.committed_rate(), r3));
        assert_eq!(r.s.last_update_seq, 180_000);
    }

    #[test]
    fn without_fast_react_acks_within_the_rtt_change_nothing() {
        let mut r = congested(HpccConfig { fast_react: false, ..Default::default() });
        let (rate, u) = (r.h.rate, r.s.probe());
        r.ack(30_000, 160_000, 1.0, 0.1, 0);
        assert_eq!((r.h.rate, r.s.probe()), (rate, u));
    }

    #[test]
    fn inc_stage_counts_additive_updates_up_to_max_stage() {
        let mut r = congested(HpccConfig::default());
        let mut rc = r.s.committed_rate();
        let mut seq = 150_000;
        for stage in 1..=5 {
            r.ack(seq + 1, seq + 100_000, 10.0, 0.5, 0);
            seq += 100_000;
            rc += 50e6;
            assert!(close(r.h.rate, rc), "stage {stage}");
            assert_eq!(r.s.inc_stage(), stage);
        }
        // inc_stage = max_stage: multiplicative even though k < 1.
        r.ack(seq + 1, seq + 100_000, 10.0, 0.5, 0);
        rc = rc / (0.5 / 0.95) + 50e6;
        assert!(close(r.h.rate, rc));
        assert_eq!(r.s.inc_stage(), 0);

        // max_stage = 0 (the reference runs' MI_THRESH 0): always multiplicative.
        let mut r = congested(HpccConfig { max_stage: 0, ..Default::default() });
        let mut rc = r.s.committed_rate();
        let mut seq = 150_000;
        for _ in 0..3 {
            r.ack(seq + 1, seq + 100_000, 10.0, 0.5, 0);
            seq += 100_000;
            rc = (rc / (0.5 / 0.95) + 50e6).min(L);
            assert!(close(r.h.rate, rc));
            assert_eq!(r.s.inc_stage(), 0);
        }
        assert_eq!(r.h.rate, L, "capped at line rate");
    }

    #[test]
    fn rate_bounded_by_min_rate_and_eta_is_configurable() {
        let mut r = congested(HpccConfig::default());
        // A huge standing queue: U >> 1, the rate falls to min_rate and stays.
        let mut seq = 150_000;
        for _ in 0..5 {
            r.ack(seq + 1, seq + 100_000, 10.0, 1.0, 100_000_000);
            seq += 100_000;
        }
        assert_eq!(r.h.rate, 100e6);
        assert_eq!(r.h.window, win(100e6));
        assert_eq!(r.h.window, 125);

        // HPCC* (eta 1.5): U = 1.2 is below target, so additive increase.
        let mut r = congested(HpccConfig { eta: 1.5, ..Default::default() });
        let rc = r.s.committed_rate();
        assert!(close(rc, L / (2.0 / 1.5) + 50e6));
        r.ack(150_001, 300_000, 10.0, 1.0, 25_000); // u = 1 + 0.2
        assert!(close(r.s.probe(), 1.2));
        assert!(close(r.h.rate, rc + 50e6));
    }

    #[test]
    fn base_rtt_modes_window_switch_and_requirements() {
        let mut f = flow();
        f.base_rtt = 5 * US;
        let mut h = Harness::new(f.clone());
        h.start(&mut HpccSender::new(&HpccConfig::default(), &f));
        assert_eq!(h.window, 125_000, "global T = max_base_rtt = 10 us");
        let mut h = Harness::new(f.clone());
        let path = HpccConfig { base_rtt: BaseRtt::Path, ..Default::default() };
        h.start(&mut HpccSender::new(&path, &f));
        assert_eq!(h.window, 62_500, "path T = 5 us");
        let mut h = Harness::new(f.clone());
        h.window = 1;
        let nowin = HpccConfig { window: false, ..Default::default() };
        h.start(&mut HpccSender::new(&nowin, &f));
        assert_eq!((h.rate, h.window), (L, u64::MAX));
        let scheme = HpccConfig::default().into_scheme();
        assert!(scheme.requirements().int_on_data);
        assert_eq!(scheme.name(), "hpcc");
    }

    #[test]
    fn max_over_hops_and_stale_records() {
        let f = flow();
        let mut s = HpccSender::new(&HpccConfig::default(), &f);
        let mut h = Harness::new(f);
        h.start(&mut s);
        h.snd_nxt = 10_000;
        h.ack(&mut s, &ack_int(1000, &[hop(US, 0, 0), hop(US, 0, 0)]));
        // Hop 0 at 0.3 B, hop 1 at 0.9 B over 10 us: U = 0.9 (from hop 1).
        h.snd_nxt = 20_000;
        let p = ack_int(11_000, &[hop(11 * US, bytes(0.3, 10.0), 0), hop(11 * US, bytes(0.9, 10.0), 0)]);
        h.ack(&mut s, &p);
        assert!(close(s.probe(), 0.9));
        // The same records again: no time elapsed, nothing measured, no change.
        let rate = h.rate;
        h.ack(&mut s, &ack_int(21_000, &p.int[..2]));
        assert_eq!(h.rate, rate);
        assert!(close(s.probe(), 0.9));
    }
}
