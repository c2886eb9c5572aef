//! DCTCP (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM'10; RFC 8257):
//! window-based congestion control from the extent of ECN marking.
//!
//! * Switch: step marking. Every data packet leaving an egress while the queue
//!   exceeds K is CE-marked. The scheme brings this marking itself
//!   ([`Requirements::ecn`]: mode step, K from [`DctcpConfig::k`]) and it replaces
//!   `network.ecn` for the run.
//! * Receiver: the core's ACK echoes the CE bit of the data packet it
//!   acknowledges (`ack.ecn_echo`). The core ACKs every data packet by default
//!   (`network.ack_every = 1`), so each ACK tells exactly whether the bytes it
//!   acknowledges were marked and DCTCP's delayed-ACK state machine (RFC 8257
//!   section 3.2) is not needed. With `ack_every > 1` the core still ACKs a
//!   CE-marked packet at once, and all bytes an ACK acknowledges count as marked
//!   when its echo is set (an approximation this module accepts).
//! * Sender (RFC 8257 section 3.3), per ACK with `acked` newly acknowledged bytes:
//!   bytes_acked += acked, and bytes_marked += acked if the echo is set. When the
//!   ACK reaches `window_end` (one window of data observed):
//!   alpha = (1 - g) alpha + g x bytes_marked / bytes_acked, window_end = snd_nxt,
//!   counters reset. Then, outside the reduction period that follows a cut: a
//!   marked ACK cuts cwnd = cwnd x (1 - alpha/2) and starts a reduction period
//!   lasting until everything sent before the cut is acknowledged (at most one
//!   cut per window, RFC 3168); an unmarked ACK grows the window, by `acked`
//!   below ssthresh (slow start) and by MSS x acked / cwnd above it (one MSS per
//!   RTT). As in Linux (`tcp_reno_cong_avoid`, which DCTCP uses) the window grows
//!   only while it limits the flow (the bytes in flight before the ACK left less
//!   than one MSS of window unused), so a flow limited by its NIC does not inflate
//!   cwnd without bound.
//! * Loss (lossy fabrics only): a NACK (go-back-N) halves cwnd at most once per
//!   window, a retransmission timeout sets ssthresh = max(cwnd/2, min_cwnd) and
//!   cwnd = min_cwnd, then slow start, as conventional TCP (RFC 5681), which
//!   RFC 8257 asks DCTCP to follow on loss.
//!
//! The flow sends at line rate; the window alone limits it. cwnd is kept in
//! payload bytes; a full packet leaves only when it fits in the window
//! (bytes in flight + MSS <= cwnd), so `cx.window` is set to cwnd - MSS + 1.
//! MSS is the flow's payload bytes per packet (`flow.mtu`). `probe()` returns alpha.

use crate::registry::SchemeConfig;
use ccsim_core::cc::{FlowView, Requirements, Scheme, SenderCc, SenderCx};
use ccsim_core::config::{EcnConfig, EcnMode};
use ccsim_core::packet::Packet;
use ccsim_core::units::{Bytes, Rate};
use serde::{Deserialize, Serialize};

/// DCTCP parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DctcpConfig {
    /// Marking threshold K at a port of rate `k_ref_rate` (scaled linearly with
    /// the port rate when `k_scale` is true). Default 100KB at 10 Gbps: the DCTCP
    /// paper's K = 65 packets at 10 Gbps ("65 packets (~100KB) at 10Gbps", Linux
    /// Documentation/networking/dctcp.rst; about 95 full packets with the default
    /// 1048-byte wire packets), i.e. 1MB at 100 Gbps. RFC 8257 leaves K to the
    /// operator. The HPCC simulator's DCTCP uses 30KB per 10 Gbps (`run.py --cc
    /// dctcp`: KMIN = KMAX = 30 KB x bw/10G, PMAX 1).
    pub k: Bytes,
    /// Port rate at which K = `k`. Default 10Gbps (the rate of the DCTCP paper's
    /// K = 65 packets).
    pub k_ref_rate: Rate,
    /// Scale K linearly with each port's rate (default true): the paper's bound
    /// K > C x RTT / 7 grows linearly with the link capacity C. False: K = `k` at
    /// every port.
    pub k_scale: bool,
    /// EWMA gain g of alpha. Default 1/16 (RFC 8257 section 4.2; DCTCP paper;
    /// Linux `dctcp_shift_g = 4`).
    pub g: f64,
    /// Initial alpha. Default 1.0 (Linux `dctcp_alpha_on_init` = DCTCP_MAX_ALPHA,
    /// i.e. 1; the conservative start RFC 8257 describes).
    pub alpha_init: f64,
    /// Initial cwnd in packets (MSS); 0 = one BDP of the flow's path (line rate x
    /// base RTT, in packets). Default 0: start at line rate like the other RDMA
    /// schemes here (HPCC, Bolt); TCP would start at 10 (RFC 6928) in slow start.
    pub init_cwnd: f64,
    /// Lowest cwnd in packets. Default 2 (Linux `dctcp_ssthresh` floor of 2 segments).
    pub min_cwnd: f64,
    /// Highest cwnd in packets; 0 = no limit (default: the cwnd-limited rule
    /// already stops growth when the window does not limit the flow).
    pub max_cwnd: f64,
    /// Grow by slow start (cwnd += acked) until the first cut (default false:
    /// the flow starts at `init_cwnd` in congestion avoidance). Slow start after a
    /// retransmission timeout happens regardless.
    pub slow_start: bool,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig {
            k: Bytes(100_000),
            k_ref_rate: Rate(10_000_000_000),
            k_scale: true,
            g: 1.0 / 16.0,
            alpha_init: 1.0,
            init_cwnd: 0.0,
            min_cwnd: 2.0,
            max_cwnd: 0.0,
            slow_start: false,
        }
    }
}

impl DctcpConfig {
    /// The step-marking configuration this scheme asks of the switches.
    pub fn ecn(&self) -> EcnConfig {
        let k = if self.k_scale {
            // The core scales kmin given per 25 Gbps linearly with the port rate.
            (self.k.0 as f64 * 25e9 / self.k_ref_rate.0 as f64).round() as u64
        } else {
            self.k.0
        };
        EcnConfig { mode: EcnMode::Step, kmin: Bytes(k), kmax: Bytes(k), pmax: 1.0, scale_per_25g: self.k_scale }
    }

    /// K in bytes at a port of `rate_bps`.
    pub fn k_at(&self, rate_bps: u64) -> u64 {
        if self.k_scale {
            (self.k.0 as f64 * rate_bps as f64 / self.k_ref_rate.0 as f64) as u64
        } else {
            self.k.0
        }
    }
}

impl SchemeConfig for DctcpConfig {
    const NAME: &'static str = "dctcp";
    const SUMMARY: &'static str = "DCTCP (Alizadeh et al. SIGCOMM'10, RFC 8257): step ECN at K, cwnd cut by alpha/2";
    const PARAMS: &'static [(&'static str, &'static str)] = &[
        ("k", "marking threshold K at a port of rate k_ref_rate (DCTCP paper: 65 packets at 10G)"),
        ("k_ref_rate", "port rate at which K = k"),
        ("k_scale", "scale K linearly with each port's rate; false = k at every port"),
        ("g", "EWMA gain of alpha"),
        ("alpha_init", "initial alpha"),
        ("init_cwnd", "initial cwnd in packets; 0 = one BDP (line-rate start)"),
        ("min_cwnd", "lowest cwnd in packets"),
        ("max_cwnd", "highest cwnd in packets; 0 = no limit"),
        ("slow_start", "slow start from init_cwnd until the first cut"),
    ];

    fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.k.0 == 0 {
            return Err(("k", "must be > 0".into()));
        }
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(("g", "must be in (0, 1]".into()));
        }
        if !(0.0..=1.0).contains(&self.alpha_init) {
            return Err(("alpha_init", "must be within 0..1".into()));
        }
        if !(self.init_cwnd.is_finite() && self.init_cwnd >= 0.0) {
            return Err(("init_cwnd", "must be a finite number >= 0".into()));
        }
        if !(self.min_cwnd.is_finite() && self.min_cwnd >= 1.0) {
            return Err(("min_cwnd", "must be at least 1 packet".into()));
        }
        if !(self.max_cwnd.is_finite() && self.max_cwnd >= 0.0) {
            return Err(("max_cwnd", "must be a finite number >= 0".into()));
        }
        if self.max_cwnd != 0.0 && self.max_cwnd < self.min_cwnd {
            return Err(("max_cwnd", format!("is below min_cwnd = {}", self.min_cwnd)));
        }
        Ok(())
    }

    fn into_scheme(self) -> Box<dyn Scheme> {
        Box::new(Dctcp { cfg: self })
    }
}

/// The DCTCP scheme.
pub struct Dctcp {
    cfg: DctcpConfig,
}

impl Scheme for Dctcp {
    fn name(&self) -> &str {
        DctcpConfig::NAME
    }
    fn requirements(&self) -> Requirements {
        Requirements { ecn: Some(self.cfg.ecn()), ..Default::default() }
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        Box::new(DctcpSender::new(&self.cfg, flow))
    }
}

/// DCTCP sender of one flow. Window quantities are payload bytes.
pub struct DctcpSender {
    mss: f64,
    g: f64,
    alpha: f64,
    cwnd: f64,
    ssthresh: f64,
    min_cwnd: f64,
    max_cwnd: f64,
    /// Highest cumulative ACK seen.
    una: u64,
    /// Highest snd_nxt seen (the core rewinds snd_nxt on go-back-N).
    high: u64,
    /// The alpha observation window ends when this byte is acknowledged.
    window_end: u64,
    bytes_acked: u64,
    bytes_marked: u64,
    /// After a cut, no further reaction until an ACK beyond this byte.
    recover: Option<u64>,
}

impl DctcpSender {
    pub fn new(cfg: &DctcpConfig, flow: &FlowView) -> Self {
        let mss = flow.mtu.max(1) as f64;
        let bdp_pkts = flow.bdp as f64 / flow.packet_size.max(1) as f64;
        let max_cwnd = if cfg.max_cwnd > 0.0 { cfg.max_cwnd * mss } else { f64::INFINITY };
        let min_cwnd = cfg.min_cwnd * mss;
        let init = if cfg.init_cwnd > 0.0 { cfg.init_cwnd } else { bdp_pkts };
        let cwnd = (init * mss).clamp(min_cwnd, max_cwnd);
        DctcpSender {
            mss,
            g: cfg.g,
            alpha: cfg.alpha_init,
            cwnd,
            ssthresh: if cfg.slow_start { f64::INFINITY } else { cwnd },
            min_cwnd,
            max_cwnd,
            una: 0,
            high: 0,
            window_end: 0,
            bytes_acked: 0,
            bytes_marked: 0,
            recover: None,
        }
    }

    /// Congestion window in payload bytes.
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    pub fn ssthresh(&self) -> f64 {
        self.ssthresh
    }

    fn apply(&self, cx: &mut SenderCx) {
        cx.rate = cx.flow.line_rate as f64;
        // A full packet may leave while bytes in flight + MSS <= cwnd.
        cx.window = (self.cwnd - self.mss + 1.0).max(1.0) as u64;
    }

    fn in_reduction(&self, ack_seq: u64) -> bool {
        self.recover.is_some_and(|r| ack_seq <= r)
    }

    fn enter_reduction(&mut self) {
        self.recover = Some(self.high);
    }
}

impl SenderCc for DctcpSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        self.high = cx.snd_nxt;
        self.window_end = cx.snd_nxt;
        self.apply(cx);
    }

    fn on_ack(&mut self, cx: &mut SenderCx, ack: &Packet) {
        let inflight_before = self.high.max(cx.snd_nxt).saturating_sub(self.una);
        self.high = self.high.max(cx.snd_nxt);
        let acked = ack.seq.saturating_sub(self.una);
        self.una = self.una.max(ack.seq);
        self.bytes_acked += acked;
        if ack.ecn_echo {
            self.bytes_marked += acked;
        }
        // Once per window of data: fold the marked fraction into alpha.
        if ack.seq >= self.window_end && self.bytes_acked > 0 {
            let f = self.bytes_marked as f64 / self.bytes_acked as f64;
            self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            self.window_end = self.high;
            self.bytes_acked = 0;
            self.bytes_marked = 0;
        }
        if !self.in_reduction(ack.seq) {
            if ack.ecn_echo {
                self.cwnd = (self.cwnd * (1.0 - self.alpha / 2.0)).clamp(self.min_cwnd, self.max_cwnd);
                self.ssthresh = self.cwnd;
                self.enter_reduction();
            } else if acked > 0 && inflight_before as f64 + self.mss > self.cwnd {
                let cwnd = if self.cwnd < self.ssthresh {
                    // Slow start, not beyond ssthresh (Linux tcp_slow_start).
                    (self.cwnd + acked as f64).min(self.ssthresh)
                } else {
                    self.cwnd + self.mss * acked as f64 / self.cwnd
                };
                self.cwnd = cwnd.clamp(self.min_cwnd, self.max_cwnd);
            }
        }
        self.apply(cx);
    }

    fn on_nack(&mut self, cx: &mut SenderCx, nack: &Packet) {
        self.high = self.high.max(cx.snd_nxt);
        self.una = self.una.max(nack.seq);
        if !self.in_reduction(nack.seq) {
            // Loss: halve once per window, as conventional TCP's fast retransmit.
            self.cwnd = (self.cwnd / 2.0).clamp(self.min_cwnd, self.max_cwnd);
            self.ssthresh = self.cwnd;
            self.enter_reduction();
        }
        self.apply(cx);
    }

    fn on_timeout(&mut self, cx: &mut SenderCx) {
        self.high = self.high.max(cx.snd_nxt);
        self.ssthresh = (self.cwnd / 2.0).max(self.min_cwnd);
        self.cwnd = self.min_cwnd;
        self.enter_reduction();
        self.apply(cx);
    }

    fn probe(&self) -> f64 {
        self.alpha
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{ack, ack_ecn, flow, Harness};

    const MSS: f64 = 1000.0;

    /// A sender started on the test flow (BDP 125 KB = 119.3 packets of 1048 B).
    fn start(cfg: DctcpConfig) -> (DctcpSender, Harness) {
        let f = flow();
        let mut s = DctcpSender::new(&cfg, &f);
        let mut h = Harness::new(f);
        h.start(&mut s);
        (s, h)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// Delivers an ACK for `seq` with `snd_nxt` bytes sent so far.
    fn feed(s: &mut DctcpSender, h: &mut Harness, seq: u64, snd_nxt: u64, marked: bool) {
        h.snd_nxt = snd_nxt;
        h.snd_una = seq;
        let p = if marked { ack_ecn(seq) } else { ack(seq) };
        h.ack(s, &p);
    }

    #[test]
    fn starts_at_one_bdp_at_line_rate_with_tcp_window_semantics() {
        let (s, h) = start(DctcpConfig::default());
        let bdp = 125_000.0 / 1048.0 * MSS;
        assert!(close(s.cwnd(), bdp), "{}", s.cwnd());
        assert_eq!(h.rate, 100e9);
        assert_eq!(h.window, (bdp - MSS + 1.0) as u64);
        assert_eq!(s.alpha(), 1.0);
        let (s, _) = start(DctcpConfig { init_cwnd: 10.0, ..Default::default() });
        assert_eq!(s.cwnd(), 10_000.0);
    }

    #[test]
    fn alpha_is_an_ewma_of_the_marked_fraction_once_per_window() {
        let (mut s, mut h) = start(DctcpConfig { alpha_init: 0.0, ..Default::default() });
        // First ACK ends the (empty) initial window: F = 0 for one packet.
        feed(&mut s, &mut h, 1000, 100_000, false);
        assert_eq!(s.alpha(), 0.0);
        assert_eq!(s.window_end, 100_000);
        // The next window: 100 packets of which 25 marked (marked ones after the
        // first cut fall in the reduction period: alpha still counts them).
        for i in 2..100u64 {
            let marked = i % 4 == 0;
            feed(&mut s, &mut h, i * 1000, 100_000 + i * 1000, marked);
            assert_eq!(s.alpha(), 0.0, "no update inside the window");
        }
        feed(&mut s, &mut h, 100_000, 200_000, true);
        // ACK 100_000 closes the window [1000, 100_000]: 99 packets, 25 marked.
        let f = 25.0 / 99.0;
        assert!(close(s.alpha(), f / 16.0), "{}", s.alpha());
        assert_eq!(s.window_end, 200_000);
        assert_eq!((s.bytes_acked, s.bytes_marked), (0, 0));
    }

    #[test]
    fn marked_ack_cuts_by_half_alpha_once_per_window() {
        let (mut s, mut h) = start(DctcpConfig { init_cwnd: 100.0, alpha_init: 0.5, ..Default::default() });
        // First ACK unmarked: closes the empty window, alpha = 15/16 x 0.5.
        feed(&mut s, &mut h, 1000, 100_000, false);
        let a = 0.5 * 15.0 / 16.0;
        assert!(close(s.alpha(), a));
        let w0 = s.cwnd();
        assert!(close(w0, 100_000.0 + MSS * 1000.0 / 100_000.0), "window full: grows");
        feed(&mut s, &mut h, 2000, 101_000, true);
        let w1 = w0 * (1.0 - a / 2.0);
        assert!(close(s.cwnd(), w1), "{} vs {w1}", s.cwnd());
        assert!(close(s.ssthresh(), w1));
        assert_eq!(h.window, (w1 - MSS + 1.0) as u64);
        // Further marks and clean ACKs up to byte 101_000 (sent before the cut):
        // no cut and no growth.
        for seq in (3000..=101_000).step_by(1000) {
            feed(&mut s, &mut h, seq, 101_000 + seq, seq % 2000 == 0);
            assert!(close(s.cwnd(), w1), "reduction period at {seq}");
        }
        // Beyond it: a mark cuts again, with the alpha of the window closed by the
        // ACK of 100_000 (>= window_end): ACKs 2000..=100_000, 99 packets, 50 marked.
        let a2 = a * 15.0 / 16.0 + (50.0 / 99.0) / 16.0;
        assert!(close(s.alpha(), a2), "{} vs {a2}", s.alpha());
        feed(&mut s, &mut h, 102_000, 210_000, true);
        assert!(close(s.cwnd(), w1 * (1.0 - a2 / 2.0)));
    }

    #[test]
    fn additive_increase_one_mss_per_window_only_when_window_limited() {
        let (mut s, mut h) = start(DctcpConfig { init_cwnd: 50.0, ..Default::default() });
        let mut w = s.cwnd();
        // A full window of clean ACKs, window always full: cwnd grows by ~1 MSS.
        let mut nxt = 50_000u64;
        for seq in (1000..=50_000).step_by(1000) {
            nxt += 1000;
            feed(&mut s, &mut h, seq, nxt, false);
            w += MSS * 1000.0 / w;
            assert!(close(s.cwnd(), w));
        }
        assert!((s.cwnd() - 51_000.0).abs() < 20.0, "{}", s.cwnd());
        // The sender stops at snd_nxt = 100_000: the first ACK still found the
        // window full, the next one only 9 packets in flight: no growth.
        feed(&mut s, &mut h, 51_000, 100_000, false);
        let before = s.cwnd();
        assert!(before > w);
        feed(&mut s, &mut h, 52_000, 100_000, false);
        assert_eq!(s.cwnd(), before);
    }

    #[test]
    fn slow_start_until_first_cut_and_bounds() {
        let cfg = DctcpConfig { init_cwnd: 10.0, slow_start: true, alpha_init: 1.0, ..Default::default() };
        let (mut s, mut h) = start(cfg);
        feed(&mut s, &mut h, 1000, 10_000, false);
        assert_eq!(s.cwnd(), 11_000.0);
        feed(&mut s, &mut h, 3000, 12_000, false);
        assert_eq!(s.cwnd(), 13_000.0);
        // The first ACK closed the initial window with F = 0: alpha = 15/16; the
        // next window ends at 10_000.
        let a = 15.0 / 16.0;
        assert!(close(s.alpha(), a));
        feed(&mut s, &mut h, 4000, 13_000, true);
        let w = 13_000.0 * (1.0 - a / 2.0);
        assert!(close(s.cwnd(), w));
        // Congestion avoidance from here (ssthresh = cwnd).
        feed(&mut s, &mut h, 14_000, 20_000, false);
        assert!(close(s.cwnd(), w + MSS * 10_000.0 / w));

        // min_cwnd holds against repeated cuts at alpha 1; max_cwnd caps growth.
        let cfg = DctcpConfig { init_cwnd: 4.0, max_cwnd: 4.5, ..Default::default() };
        let (mut s, mut h) = start(cfg);
        let mut seq = 0;
        for _ in 0..5 {
            seq += 5000;
            feed(&mut s, &mut h, seq, seq + 1, true);
        }
        assert_eq!(s.cwnd(), 2000.0);
        assert_eq!(h.window, 1001);
        for _ in 0..200 {
            seq += 1000;
            feed(&mut s, &mut h, seq, seq + 4500, false);
        }
        assert_eq!(s.cwnd(), 4500.0);
    }

    #[test]
    fn loss_reactions() {
        let (mut s, mut h) = start(DctcpConfig { init_cwnd: 40.0, ..Default::default() });
        h.snd_nxt = 40_000;
        h.call(|cx| s.on_nack(cx, &Packet { seq: 5000, ..ack(5000) }));
        assert_eq!(s.cwnd(), 20_000.0);
        // Another NACK in the same window: no second cut.
        h.call(|cx| s.on_nack(cx, &Packet { seq: 6000, ..ack(6000) }));
        assert_eq!(s.cwnd(), 20_000.0);
        h.call(|cx| s.on_timeout(cx));
        assert_eq!((s.cwnd(), s.ssthresh()), (2000.0, 10_000.0));
        // Slow start after the recovery point, not beyond ssthresh.
        feed(&mut s, &mut h, 41_000, 42_000, false);
        assert_eq!(s.cwnd(), 10_000.0);
        feed(&mut s, &mut h, 42_000, 52_000, false);
        assert_eq!(s.cwnd(), 10_000.0 + MSS * 1000.0 / 10_000.0);
    }

    #[test]
    fn step_ecn_requirement_scales_k() {
        let c = DctcpConfig::default();
        let e = c.ecn();
        assert_eq!(e.mode, EcnMode::Step);
        assert!(e.scale_per_25g);
        assert_eq!(e.kmin, Bytes(250_000), "100KB at 10G = 250KB per 25G");
        assert_eq!(c.k_at(100_000_000_000), 1_000_000);
        let fixed = DctcpConfig { k: Bytes(200_000), k_scale: false, ..Default::default() };
        let e = fixed.ecn();
        assert!(!e.scale_per_25g);
        assert_eq!((e.kmin, e.kmax), (Bytes(200_000), Bytes(200_000)));
        assert_eq!(fixed.k_at(400_000_000_000), 200_000);
        let scheme = c.into_scheme();
        assert_eq!(scheme.name(), "dctcp");
        assert_eq!(scheme.requirements().ecn.unwrap().kmin, Bytes(250_000));
    }
}
