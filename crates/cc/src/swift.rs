//! Swift (Kumar et al., "Swift: Delay is Simple and Effective for Congestion
//! Control in the Datacenter", SIGCOMM'20): AIMD on a window, driven by the
//! measured delay against a target delay.
//!
//! * Delay: the RTT of each ACK, `now - ack.ts` (the core echoes the data
//!   packet's send time). The core models no host delay, so this is all fabric
//!   delay: propagation, serialization and queuing.
//! * Target (paper section 3.5):
//!   target = base_target + hops x h + clamp(fs_alpha / sqrt(cwnd) + fs_beta, 0, fs_range)
//!   with fs_alpha = fs_range / (1/sqrt(fs_min_cwnd) - 1/sqrt(fs_max_cwnd)) and
//!   fs_beta = -fs_alpha / sqrt(fs_max_cwnd), cwnd in packets: flow scaling adds
//!   up to fs_range for small windows, nothing at fs_max_cwnd and above. hops is
//!   the number of switches on the forward path (`flow.path_switches`).
//! * Per ACK (paper Algorithm 1), acked = newly acknowledged packets:
//!   delay < target: cwnd += ai x acked / cwnd if cwnd >= 1, else cwnd += ai x acked;
//!   otherwise, if the last decrease is at least one RTT ago:
//!   cwnd *= max(1 - beta (delay - target) / delay, 1 - max_mdf).
//!   cwnd is clamped to [min_cwnd, max_cwnd]; a decrease (cwnd below its value
//!   before the ACK) records the time of the last decrease. (Algorithm 1 as
//!   recalled here [unverified] writes "cwnd <= cwnd_prev"; with "<=" a window
//!   held at max_cwnd would re-arm the hold-off on every ACK and never decrease,
//!   so this module uses "<", as htsim `sim/swift.cpp` `applySwiftLimits` does.)
//!   The RTT of the hold-off is the latest measured delay (Bolt's ns-3 Swift
//!   uses the latest sample too; htsim a smoothed RTT).
//! * Sending: cwnd >= 1 packet: line rate, bytes in flight limited to cwnd
//!   packets (a full packet leaves only while bytes in flight + MSS <= cwnd x
//!   MSS). cwnd < 1: one packet in flight and pacing at one packet per RTT/cwnd
//!   (rate = cwnd x wire packet size / RTT), the paper's pacing for
//!   sub-packet windows.
//! * Loss (lossy fabrics; `loss_md`): a retransmission timeout counts towards
//!   `rtx_reset_threshold` (reached: cwnd = min_cwnd) and otherwise cuts cwnd by
//!   max_mdf if the last decrease is an RTT ago; a NACK (go-back-N, Swift's fast
//!   recovery) resets the count and cuts by max_mdf likewise. ACKs reset the count.
//! * Endpoint window (option `endpoint`, default off): a second window driven by
//!   the endpoint delay against `endpoint_target` with the same AIMD (no hop or
//!   flow scaling); the flow uses min(fabric cwnd, endpoint cwnd). The receiver
//!   reports the endpoint delay in `ack.aux[0]` (picoseconds between the data's
//!   arrival and the ACK's creation) and the fabric delay is the RTT minus it.
//!   The core creates each ACK when its data arrives, so the endpoint delay is 0
//!   in this simulator and the endpoint window only matters with a host model
//!   that delays ACKs.
//!
//! cwnd is in packets (of `flow.mtu` payload bytes, fractional). `probe()`
//! returns the effective cwnd in packets.

use crate::registry::SchemeConfig;
use ccsim_core::cc::{FlowView, ReceiverCc, ReceiverCx, Scheme, SenderCc, SenderCx};
use ccsim_core::packet::Packet;
use ccsim_core::time::{Time, SEC, US};
use ccsim_core::units::Dur;
use serde::{Deserialize, Serialize};

/// `ack.aux` index where the Swift receiver reports the endpoint delay (ps).
pub const AUX_ENDPOINT_DELAY: usize = 0;

/// Swift parameters. Values marked [unverified] could not be checked against the
/// Swift paper's text here; they follow the cited simulators.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwiftConfig {
    /// Base target delay (the target for one hop at a large window). Default 25us
    /// (spec/ALGORITHMS.md B5; Bolt's ns-3 Swift `BaseDelay` attribute default,
    /// `bolt-l4-protocol.cc`; Bolt's simulation scripts use 10us). Bolt's lab
    /// comparison used 50 us, "as specified in the paper" (Bolt footnote 5).
    pub base_target: Dur,
    /// Per-hop scaling h of the target. Default 1us (Bolt ns-3 `TopoScalingPerHop`
    /// 1000 ns) [unverified for the paper; htsim guesses base_target / 6.55].
    pub hop_scale: Dur,
    /// Flow-scaling range fs_range: the most flow scaling adds to the target.
    /// Default 125us = 5 x base_target (htsim `sim/swift.cpp`: `_fs_range =
    /// 5 * _base_delay`) [unverified]; Bolt's runs use 4 x base (ns-3 100 us at
    /// 25 us; lab 200 us at 50 us). 0 = no flow scaling.
    pub fs_range: Dur,
    /// cwnd (packets) at which flow scaling reaches fs_range. Default 0.1 (htsim;
    /// Bolt ns-3 `MinFlowScalingCwnd`).
    pub fs_min_cwnd: f64,
    /// cwnd (packets) at and above which flow scaling adds nothing. Default 100
    /// (htsim `_fs_max_cwnd`) [unverified]; Bolt ns-3 uses 256.
    pub fs_max_cwnd: f64,
    /// Additive increase ai in packets per RTT. Default 1.0 (htsim `_ai`; Bolt
    /// ns-3 `AiFactor`) [unverified].
    pub ai: f64,
    /// Multiplicative-decrease constant beta. Default 0.8 (htsim `_beta`; Bolt
    /// ns-3 `MdFactor`) [unverified].
    pub beta: f64,
    /// Largest multiplicative decrease per RTT. Default 0.5 (htsim `_max_mdf`;
    /// Bolt ns-3 `MaxMd`) [unverified].
    pub max_mdf: f64,
    /// Initial cwnd in packets; 0 = one BDP of the flow's path (line rate x base
    /// RTT, in packets). Default 0 (line-rate start, as Bolt's ns-3 Swift and the
    /// other RDMA schemes here).
    pub init_cwnd: f64,
    /// Lowest cwnd in packets. Default 0.001 (the paper lets cwnd fall to a
    /// thousandth of a packet under large incasts) [unverified].
    pub min_cwnd: f64,
    /// Highest cwnd in packets; 0 = the window that keeps the NIC's line rate
    /// busy for base_target + hops x h (the target without flow scaling), at
    /// least one BDP plus one packet. Default 0 (htsim caps at 1000 packets,
    /// noting "presumably something like B x target_delay"; Bolt ns-3 at 256).
    pub max_cwnd: f64,
    /// React to loss (NACK, timeout) with max_mdf decreases. Default true
    /// (paper Algorithm 1).
    pub loss_md: bool,
    /// Consecutive retransmission timeouts that reset cwnd to min_cwnd. Default 5
    /// (htsim `_rtx_reset_threshold`, "value is a guess") [unverified].
    pub rtx_reset_threshold: u32,
    /// Run the endpoint window as well (the flow uses the smaller window).
    /// Default false.
    pub endpoint: bool,
    /// Target of the endpoint delay. Default 100us [unverified: ccsim's choice].
    pub endpoint_target: Dur,
}

impl Default for SwiftConfig {
    fn default() -> Self {
        SwiftConfig {
            base_target: Dur(25 * US),
            hop_scale: Dur(US),
            fs_range: Dur(125 * US),
            fs_min_cwnd: 0.1,
            fs_max_cwnd: 100.0,
            ai: 1.0,
            beta: 0.8,
            max_mdf: 0.5,
            init_cwnd: 0.0,
            min_cwnd: 0.001,
            max_cwnd: 0.0,
            loss_md: true,
            rtx_reset_threshold: 5,
            endpoint: false,
            endpoint_target: Dur(100 * US),
        }
    }
}

impl SchemeConfig for SwiftConfig {
    const NAME: &'static str = "swift";
    const SUMMARY: &'static str = "Swift (Kumar et al. SIGCOMM'20): delay-target AIMD window, pacing below one packet";
    const PARAMS: &'static [(&'static str, &'static str)] = &[
        ("base_target", "base target delay (Bolt's ns-3 default; paper per Bolt: 50us)"),
        ("hop_scale", "target added per switch on the path (h)"),
        ("fs_range", "most flow scaling adds to the target; 0 = none"),
        ("fs_min_cwnd", "cwnd (packets) where flow scaling reaches fs_range"),
        ("fs_max_cwnd", "cwnd (packets) from which flow scaling adds nothing"),
        ("ai", "additive increase, packets per RTT"),
        ("beta", "multiplicative-decrease constant"),
        ("max_mdf", "largest multiplicative decrease per RTT"),
        ("init_cwnd", "initial cwnd in packets; 0 = one BDP"),
        ("min_cwnd", "lowest cwnd in packets (below 1: paced)"),
        ("max_cwnd", "highest cwnd in packets; 0 = line rate x (base_target + hops x h)"),
        ("loss_md", "decrease by max_mdf on NACK and timeout"),
        ("rtx_reset_threshold", "consecutive timeouts that reset cwnd to min_cwnd"),
        ("endpoint", "also run the endpoint-delay window (min of both applies)"),
        ("endpoint_target", "target of the endpoint delay"),
    ];

    fn validate(&self) -> Result<(), (&'static str, String)> {
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if self.base_target.0 == 0 {
            return Err(("base_target", "must be > 0".into()));
        }
        if !pos(self.fs_min_cwnd) {
            return Err(("fs_min_cwnd", "must be > 0".into()));
        }
        if !(pos(self.fs_max_cwnd) && self.fs_max_cwnd > self.fs_min_cwnd) {
            return Err(("fs_max_cwnd", format!("must be above fs_min_cwnd = {}", self.fs_min_cwnd)));
        }
        if !pos(self.ai) {
            return Err(("ai", "must be > 0".into()));
        }
        if !(self.beta.is_finite() && self.beta >= 0.0) {
            return Err(("beta", "must be >= 0".into()));
        }
        if !(self.max_mdf > 0.0 && self.max_mdf < 1.0) {
            return Err(("max_mdf", "must be in (0, 1)".into()));
        }
        if !(self.init_cwnd.is_finite() && self.init_cwnd >= 0.0) {
            return Err(("init_cwnd", "must be a finite number >= 0".into()));
        }
        if !pos(self.min_cwnd) {
            return Err(("min_cwnd", "must be > 0".into()));
        }
        if !(self.max_cwnd.is_finite() && self.max_cwnd >= 0.0) {
            return Err(("max_cwnd", "must be a finite number >= 0".into()));
        }
        if self.max_cwnd != 0.0 && self.max_cwnd < self.min_cwnd {
            return Err(("max_cwnd", format!("is below min_cwnd = {}", self.min_cwnd)));
        }
        if self.rtx_reset_threshold == 0 {
            return Err(("rtx_reset_threshold", "must be at least 1".into()));
        }
        if self.endpoint && self.endpoint_target.0 == 0 {
            return Err(("endpoint_target", "must be > 0 with endpoint = true".into()));
        }
        Ok(())
    }

    fn into_scheme(self) -> Box<dyn Scheme> {
        Box::new(Swift { cfg: self })
    }
}

/// The Swift scheme.
pub struct Swift {
    cfg: SwiftConfig,
}

impl Scheme for Swift {
    fn name(&self) -> &str {
        SwiftConfig::NAME
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        Box::new(SwiftSender::new(&self.cfg, flow))
    }
    fn receiver(&self, _flow: &FlowView) -> Box<dyn ReceiverCc> {
        if self.cfg.endpoint {
            Box::new(SwiftReceiver::default())
        } else {
            Box::new(ccsim_core::cc::PlainReceiver)
        }
    }
}

/// Reports the endpoint delay in each ACK (`aux[AUX_ENDPOINT_DELAY]`).
#[derive(Default)]
pub struct SwiftReceiver {
    /// Arrival time of the data packet being acknowledged.
    arrived: Time,
}

impl ReceiverCc for SwiftReceiver {
    fn on_data(&mut self, cx: &mut ReceiverCx, _data: &Packet) {
        self.arrived = cx.now;
    }
    fn fill_ack(&mut self, cx: &ReceiverCx, _data: &Packet, ack: &mut Packet) {
        ack.aux[AUX_ENDPOINT_DELAY] = cx.now.saturating_sub(self.arrived);
    }
}

/// One AIMD window (packets) with its own decrease hold-off.
#[derive(Clone, Debug)]
struct Window {
    cwnd: f64,
    last_decrease: Option<Time>,
}

/// Swift sender of one flow.
pub struct SwiftSender {
    ai: f64,
    beta: f64,
    max_mdf: f64,
    min_cwnd: f64,
    max_cwnd: f64,
    loss_md: bool,
    rtx_reset_threshold: u32,
    /// base_target + hops x h (ps).
    fixed_target: f64,
    fs_range: f64,
    fs_alpha: f64,
    fs_beta: f64,
    endpoint_target: Option<f64>,
    /// Payload and wire bytes per packet.
    mss: f64,
    packet_size: f64,
    fabric: Window,
    endpoint: Window,
    /// Latest RTT sample (ps); the path's base RTT until the first ACK.
    rtt: Time,
    una: u64,
    retransmits: u32,
}

impl SwiftSender {
    pub fn new(cfg: &SwiftConfig, flow: &FlowView) -> Self {
        let packet_size = flow.packet_size.max(1) as f64;
        let fixed_target = cfg.base_target.0 as f64 + flow.path_switches as f64 * cfg.hop_scale.0 as f64;
        let bdp_pkts = flow.bdp as f64 / packet_size;
        let max_cwnd = if cfg.max_cwnd > 0.0 {
            cfg.max_cwnd
        } else {
            let at_target = flow.line_rate as f64 * fixed_target / SEC as f64 / 8.0 / packet_size;
            at_target.max(bdp_pkts + 1.0)
        };
        let min_cwnd = cfg.min_cwnd.min(max_cwnd);
        let fs_range = cfg.fs_range.0 as f64;
        let fs_alpha = fs_range / (1.0 / cfg.fs_min_cwnd.sqrt() - 1.0 / cfg.fs_max_cwnd.sqrt());
        let init = if cfg.init_cwnd > 0.0 { cfg.init_cwnd } else { bdp_pkts };
        let cwnd = init.clamp(min_cwnd, max_cwnd);
        SwiftSender {
            ai: cfg.ai,
            beta: cfg.beta,
            max_mdf: cfg.max_mdf,
            min_cwnd,
            max_cwnd,
            loss_md: cfg.loss_md,
            rtx_reset_threshold: cfg.rtx_reset_threshold,
            fixed_target,
            fs_range,
            fs_alpha,
            fs_beta: -fs_alpha / cfg.fs_max_cwnd.sqrt(),
            endpoint_target: cfg.endpoint.then_some(cfg.endpoint_target.0 as f64),
            mss: flow.mtu.max(1) as f64,
            packet_size,
            fabric: Window { cwnd, last_decrease: None },
            endpoint: Window { cwnd, last_decrease: None },
            rtt: flow.base_rtt.max(1),
            una: 0,
            retransmits: 0,
        }
    }

    /// Fabric target delay (ps) at a window of `cwnd` packets.
    pub fn target(&self, cwnd: f64) -> f64 {
        let fs = if self.fs_range > 0.0 {
            (self.fs_alpha / cwnd.sqrt() + self.fs_beta).clamp(0.0, self.fs_range)
        } else {
            0.0
        };
        self.fixed_target + fs
    }

    /// Fabric window in packets.
    pub fn fabric_cwnd(&self) -> f64 {
        self.fabric.cwnd
    }

    /// Endpoint window in packets (meaningful with `endpoint` on).
    pub fn endpoint_cwnd(&self) -> f64 {
        self.endpoint.cwnd
    }

    /// The window the flow uses, in packets.
    pub fn cwnd(&self) -> f64 {
        match self.endpoint_target {
            Some(_) => self.fabric.cwnd.min(self.endpoint.cwnd),
            None => self.fabric.cwnd,
        }
    }

    pub fn max_cwnd(&self) -> f64 {
        self.max_cwnd
    }

    /// Latest RTT sample (ps).
    pub fn rtt(&self) -> Time {
        self.rtt
    }

    fn can_decrease(&self, w: &Window, now: Time) -> bool {
        w.last_decrease.is_none_or(|t| now.saturating_sub(t) >= self.rtt)
    }

    /// Algorithm 1 for one window: `delay` and `target` in ps, `acked` packets.
    fn aimd(&self, w: &mut Window, now: Time, delay: f64, target: f64, acked: f64) {
        let prev = w.cwnd;
        let mut cwnd = w.cwnd;
        if delay < target {
            if cwnd >= 1.0 {
                cwnd += self.ai * acked / cwnd;
            } else {
                cwnd += self.ai * acked;
            }
        } else if self.can_decrease(w, now) {
            let md = 1.0 - self.beta * (delay - target) / delay;
            cwnd *= md.max(1.0 - self.max_mdf);
        }
        self.settle(w, now, prev, cwnd);
    }

    /// Clamps a new window and records a decrease.
    fn settle(&self, w: &mut Window, now: Time, prev: f64, cwnd: f64) {
        w.cwnd = cwnd.clamp(self.min_cwnd, self.max_cwnd);
        if w.cwnd < prev {
            w.last_decrease = Some(now);
        }
    }

    /// Loss reaction on the fabric window: `reset` sets it to min_cwnd.
    fn loss(&mut self, now: Time, reset: bool) {
        let mut w = self.fabric.clone();
        let prev = w.cwnd;
        let cwnd = if reset {
            self.min_cwnd
        } else if self.can_decrease(&w, now) {
            prev * (1.0 - self.max_mdf)
        } else {
            prev
        };
        self.settle(&mut w, now, prev, cwnd);
        self.fabric = w;
    }

    fn apply(&self, cx: &mut SenderCx) {
        let cwnd = self.cwnd();
        if cwnd >= 1.0 {
            cx.rate = cx.flow.line_rate as f64;
            // A full packet may leave while bytes in flight + MSS <= cwnd x MSS.
            cx.window = (cwnd * self.mss - self.mss + 1.0).max(1.0) as u64;
        } else {
            // One packet per RTT / cwnd, never more than one in flight.
            cx.window = 1;
            cx.rate = cwnd * self.packet_size * 8.0 * SEC as f64 / self.rtt as f64;
        }
    }
}

impl SenderCc for SwiftSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        self.apply(cx);
    }

    fn on_ack(&mut self, cx: &mut SenderCx, ack: &Packet) {
        let now = cx.now;
        let acked = ack.seq.saturating_sub(self.una) as f64 / self.mss;
        self.una = self.una.max(ack.seq);
        self.retransmits = 0;
        if ack.ts < now {
            self.rtt = now - ack.ts;
        }
        let rtt = self.rtt as f64;
        let endpoint_delay = match self.endpoint_target {
            Some(_) => (ack.aux[AUX_ENDPOINT_DELAY] as f64).min(rtt),
            None => 0.0,
        };
        let mut fabric = self.fabric.clone();
        let target = self.target(fabric.cwnd);
        self.aimd(&mut fabric, now, rtt - endpoint_delay, target, acked);
        self.fabric = fabric;
        if let Some(t) = self.endpoint_target {
            let mut ep = self.endpoint.clone();
            self.aimd(&mut ep, now, endpoint_delay, t, acked);
            self.endpoint = ep;
        }
        self.apply(cx);
    }

    fn on_nack(&mut self, cx: &mut SenderCx, nack: &Packet) {
        self.una = self.una.max(nack.seq);
        self.retransmits = 0;
        if self.loss_md {
            self.loss(cx.now, false);
        }
        self.apply(cx);
    }

    fn on_timeout(&mut self, cx: &mut SenderCx) {
        self.retransmits += 1;
        if self.loss_md {
            self.loss(cx.now, self.retransmits >= self.rtx_reset_threshold);
        }
        self.apply(cx);
    }

    fn probe(&self) -> f64 {
        self.cwnd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{ack, flow, Harness};

    /// Test flow: 100 Gbps, base RTT 10 us, BDP 125 KB = 119.27 packets of
    /// 1048 B, one switch, MSS 1000 B.
    fn start(cfg: SwiftConfig) -> (SwiftSender, Harness) {
        let f = flow();
        let mut s = SwiftSender::new(&cfg, &f);
        let mut h = Harness::new(f);
        h.start(&mut s);
        (s, h)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// An ACK of `seq` for data sent at `sent`, arriving at `now` (us).
    fn feed(s: &mut SwiftSender, h: &mut Harness, seq: u64, sent_us: f64, now_us: f64) {
        h.now = (now_us * US as f64) as Time;
        h.snd_una = seq;
        let p = Packet { ts: (sent_us * US as f64) as Time, ..ack(seq) };
        h.ack(s, &p);
    }

    #[test]
    fn target_delay_with_hop_and_flow_scaling() {
        let (s, _) = start(SwiftConfig::default());
        let us = US as f64;
        // base 25 us + 1 hop x 1 us; flow scaling 0 at >= 100 packets.
        assert!(close(s.target(100.0), 26.0 * us));
        assert!(close(s.target(500.0), 26.0 * us));
        // fs_range 125 us reached at fs_min_cwnd = 0.1 and below.
        assert!(close(s.target(0.1), 151.0 * us));
        assert!(close(s.target(0.01), 151.0 * us));
        // In between: alpha / sqrt(cwnd) + beta.
        let alpha = 125.0 * us / (1.0 / 0.1f64.sqrt() - 0.1);
        let beta = -alpha / 10.0;
        assert!(close(s.target(4.0), 26.0 * us + alpha / 2.0 + beta));
        assert!(close(s.target(1.0), 26.0 * us + alpha + beta));
        // No flow scaling with fs_range 0.
        let (s, _) = start(SwiftConfig { fs_range: Dur(0), ..Default::default() });
        assert!(close(s.target(0.5), 26.0 * us));
    }

    #[test]
    fn starts_at_one_bdp_line_rate_and_caps_at_line_rate_times_target() {
        let (s, h) = start(SwiftConfig::default());
        let bdp = 125_000.0 / 1048.0;
        assert!(close(s.cwnd(), bdp));
        assert_eq!(h.rate, 100e9);
        assert_eq!(h.window, (bdp * 1000.0 - 999.0) as u64);
        // 100 Gbps x 26 us / 1048 B.
        assert!(close(s.max_cwnd(), 100e9 * 26e-6 / 8.0 / 1048.0));
        assert!(close(s.probe(), bdp));
    }

    #[test]
    fn additive_increase_below_target() {
        let (mut s, mut h) = start(SwiftConfig { init_cwnd: 10.0, ..Default::default() });
        // RTT 12 us < target: +ai x acked / cwnd per ACK.
        feed(&mut s, &mut h, 1000, 0.0, 12.0);
        assert!(close(s.cwnd(), 10.0 + 0.1));
        assert_eq!(s.rtt(), 12 * US);
        feed(&mut s, &mut h, 3000, 1.0, 13.0);
        let w = 10.1 + 2.0 / 10.1;
        assert!(close(s.cwnd(), w));
        // Below one packet: +ai x acked (not divided by cwnd).
        let (mut s, mut h) = start(SwiftConfig { init_cwnd: 0.5, ..Default::default() });
        feed(&mut s, &mut h, 1000, 0.0, 20.0);
        assert!(close(s.cwnd(), 1.5));
        // ai is configurable.
        let (mut s, mut h) = start(SwiftConfig { init_cwnd: 10.0, ai: 0.5, ..Default::default() });
        feed(&mut s, &mut h, 1000, 0.0, 12.0);
        assert!(close(s.cwnd(), 10.05));
    }

    #[test]
    fn multiplicative_decrease_once_per_rtt_bounded_by_max_mdf() {
        let (mut s, mut h) = start(SwiftConfig { init_cwnd: 200.0, ..Default::default() });
        // Target 26 us at 200 packets. Delay 40 us: factor 1 - 0.8 x 14/40 = 0.72.
        feed(&mut s, &mut h, 1000, 0.0, 40.0);
        assert!(close(s.cwnd(), 200.0 * 0.72), "{}", s.cwnd());
        // Within one RTT (40 us) of that decrease: no further decrease, no increase.
        feed(&mut s, &mut h, 2000, 30.0, 79.0);
        assert!(close(s.cwnd(), 144.0));
        // An RTT (the latest sample, 200 us) later: decrease again; a huge delay
        // is bounded by max_mdf.
        feed(&mut s, &mut h, 3000, 100.0, 300.0);
        assert!(close(s.cwnd(), 72.0), "{}", s.cwnd());
        // beta and max_mdf are configurable.
        let cfg = SwiftConfig { init_cwnd: 200.0, beta: 0.4, max_mdf: 0.1, ..Default::default() };
        let (mut s, mut h) = start(cfg);
        feed(&mut s, &mut h, 1000, 0.0, 40.0);
        assert!(close(s.cwnd(), 200.0 * 0.9), "0.4 x 14/40 = 0.14 > max_mdf");
    }

    #[test]
    fn window_held_at_max_can_still_decrease() {
        let (mut s, mut h) = start(SwiftConfig { init_cwnd: 1000.0, max_cwnd: 50.0, ..Default::default() });
        assert_eq!(s.cwnd(), 50.0);
        // ACKs below target at max: no change, and no decrease recorded.
        for i in 1..20u64 {
            feed(&mut s, &mut h, i * 1000, i as f64, i as f64 + 10.0);
            assert_eq!(s.cwnd(), 50.0);
        }
        // The next ACK above target decreases right away.
        feed(&mut s, &mut h, 20_000, 20.0, 80.0);
        assert!(s.cwnd() < 50.0);
    }

    #[test]
    fn sub_packet_window_paces_one_packet_per_rtt_over_cwnd() {
        let (mut s, mut h) = start(SwiftConfig { init_cwnd: 0.25, ..Default::default() });
        assert_eq!(h.window, 1, "one packet in flight");
        // Before any sample the RTT is the base RTT, 10 us: 1048 B every 40 us.
        assert!(close(h.rate, 0.25 * 1048.0 * 8.0 / 10e-6));
        // Delay 200 us > target (26 us + flow scaling at 0.25 packets).
        let t = s.target(0.25);
        assert!(t < 200.0 * US as f64);
        feed(&mut s, &mut h, 1000, 0.0, 200.0);
        let w = 0.25 * (1.0 - 0.8 * (200.0 * US as f64 - t) / (200.0 * US as f64));
        assert!(close(s.cwnd(), w));
        assert!(close(h.rate, w * 1048.0 * 8.0 / 200e-6), "rate {}", h.rate);
        // min_cwnd bounds it.
        let (mut s, mut h) = start(SwiftConfig { init_cwnd: 0.0015, ..Default::default() });
        feed(&mut s, &mut h, 1000, 0.0, 1000.0);
        assert_eq!(s.cwnd(), 0.001);
        // Back above one packet: line rate, window in bytes.
        let (mut s, mut h) = start(SwiftConfig { init_cwnd: 0.9, ..Default::default() });
        feed(&mut s, &mut h, 1000, 0.0, 12.0);
        assert!(close(s.cwnd(), 1.9));
        assert_eq!(h.rate, 100e9);
        assert_eq!(h.window, (s.cwnd() * 1000.0 - 999.0) as u64);
        assert!((900..=901).contains(&h.window));
    }

    #[test]
    fn loss_reactions() {
        let (mut s, mut h) = start(SwiftConfig { init_cwnd: 64.0, ..Default::default() });
        h.now = 100 * US;
        h.call(|cx| s.on_timeout(cx));
        assert_eq!(s.cwnd(), 32.0);
        // Within an RTT (base RTT 10 us): held.
        h.now = 105 * US;
        h.call(|cx| s.on_timeout(cx));
        assert_eq!(s.cwnd(), 32.0);
        h.now = 120 * US;
        h.call(|cx| s.on_nack(cx, &ack(0)));
        assert_eq!(s.cwnd(), 16.0);
        // The NACK reset the count: five more timeouts in a row reset to min_cwnd.
        for i in 0..4 {
            h.now = (200 + 100 * i) * US;
            h.call(|cx| s.on_timeout(cx));
        }
        assert_eq!(s.cwnd(), 1.0);
        h.now = 700 * US;
        h.call(|cx| s.on_timeout(cx));
        assert_eq!(s.cwnd(), 0.001);
        // loss_md = false: no reaction.
        let (mut s, mut h) = start(SwiftConfig { init_cwnd: 64.0, loss_md: false, ..Default::default() });
        h.call(|cx| s.on_timeout(cx));
        h.call(|cx| s.on_nack(cx, &ack(0)));
        assert_eq!(s.cwnd(), 64.0);
    }

    #[test]
    fn endpoint_window_takes_the_minimum() {
        let cfg = SwiftConfig { init_cwnd: 100.0, endpoint: true, endpoint_target: Dur(10 * US), ..Default::default() };
        let (mut s, mut h) = start(cfg.clone());
        // RTT 20 us of which 15 us at the endpoint: fabric delay 5 us < target
        // (grows), endpoint delay 15 us > 10 us target (decreases by 1 - 0.8 x 5/15).
        h.now = 20 * US;
        let p = Packet { ts: 0, aux: [15 * US, 0, 0, 0], ..ack(1000) };
        h.ack(&mut s, &p);
        assert!(close(s.fabric_cwnd(), 100.01));
        let e = 100.0 * (1.0 - 0.8 * 5.0 / 15.0);
        assert!(close(s.endpoint_cwnd(), e));
        assert!(close(s.cwnd(), e));
        assert_eq!(h.window, (e * 1000.0 - 999.0) as u64);
        // Without the option, aux is ignored and the whole RTT is fabric delay.
        let (mut s, mut h) = start(SwiftConfig { endpoint: false, ..cfg });
        h.now = 20 * US;
        h.ack(&mut s, &p);
        assert!(close(s.cwnd(), 100.01));
        // The receiver reports the time from the data's arrival to the ACK.
        let mut r = SwiftReceiver::default();
        let f = flow();
        let mut rcx = ReceiverCx::new(7 * US, &f, 1);
        r.on_data(&mut rcx, &Packet::default());
        let rcx = ReceiverCx { now: 9 * US, ..rcx };
        let mut a = ack(1000);
        r.fill_ack(&rcx, &Packet::default(), &mut a);
        assert_eq!(a.aux[AUX_ENDPOINT_DELAY], 2 * US);
    }
}
