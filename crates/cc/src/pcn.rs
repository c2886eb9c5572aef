//! PCN, "Photonic Congestion Notification" (Cheng et al., "Re-architecting
//! Congestion Management in Lossless Ethernet", NSDI'20): congestion detection
//! that ignores queues built by PFC PAUSE, and a receiver-driven rate law.
//!
//! * Switch, NP-ECN ("non-PAUSE ECN", [`PcnSwitch`]): a data packet is CE-marked
//!   as it is dequeued when the egress queue is above `mark_threshold` and the
//!   port has not been paused while the packet waited: no PFC PAUSE frame
//!   arrived on the port between the packet's enqueue and its dequeue, and the
//!   packet's class was not paused when it was enqueued. A queue that grows
//!   because the downstream paused the port says nothing about this port being
//!   a congestion point, so its packets are left unmarked. The core's own ECN
//!   is switched off for the run (`Requirements::ecn` with `mode = off`).
//!   - Enqueue tag: at enqueue the switch writes into the data packet's
//!     `aux[TAG_FIELD]` (= `aux[3]`) the tag `pauses << 1 | paused`, where
//!     `pauses` is the port's count of PAUSE frames received ([`PortStat::pauses`])
//!     and `paused` is 1 if the packet's class is paused at that moment. At
//!     dequeue the packet is unpaused-since-enqueue exactly when its tag equals
//!     `pauses << 1` with the port's count at that time. Every PCN switch
//!     rewrites the tag, so multi-hop paths need no more than this one field.
//!   - Queue length: [`PortStat::qlen`] at dequeue, all classes, the departing
//!     packet excluded (the same convention as the core's ECN).
//! * Receiver (NP, [`PcnReceiver`]): per flow, time is cut into intervals of
//!   `interval` (default 50 us) starting at the flow's first data packet. At
//!   the end of an interval in which packets arrived, the NP reports: if more
//!   than `congested_fraction` (default 95%) of the interval's data packets
//!   were CE-marked, a *congested* notification carrying the receive rate
//!   R_recv = wire bytes received in the interval x 8 / `interval`; otherwise a
//!   *non-congested* notification.
//!   - Carrier: the core's CNP has no fields a receiver can fill, and a
//!     receiver has no timers. So the NP closes an interval when the first data
//!     packet of a later interval arrives (intervals without packets produce no
//!     report, as a periodic NP would send none for an idle flow), and the
//!     report rides on the next ACK/NACK the receiver sends (with ACK coalescing
//!     it waits for the next one): `aux[FB_FIELD]` (= `aux[0]`) is
//!     [`FB_NONE`], [`FB_UNCONGESTED`] or [`FB_CONGESTED`], `aux[RATE_FIELD]`
//!     (= `aux[1]`) the receive rate in bit/s and `aux[MARKED_FIELD]` (= `aux[2]`)
//!     the interval's marked fraction in parts per million (diagnostic).
//!     No CNP packets are sent.
//! * Sender (RP, [`PcnSender`]): starts at line rate with w = w_min. On a
//!   congested notification: R = max(min_rate, min(R, R_recv (1 - w_min))) and
//!   w = w_min. On a non-congested one: R = (1 - w) R + w C (C = NIC line rate),
//!   then w = (1 - w) w + w w_max, which grows w from w_min towards w_max
//!   (w_min = 1/128, w_max = 0.5; spec/ALGORITHMS.md B8). No window.
//!   [unverified: the paper's text could not be read here. The update order
//!   (rate with the old w, then w) and the reset of w to w_min on a congested
//!   notification are this module's reading of the paper's RP algorithm; without
//!   the reset w would stay at w_max after the first few increases.]
//!
//! Consequences of this law, checked in `tests/pcn.rs`: flows start at line
//! rate and get no report during their first interval, so a joint start builds
//! a queue of about (N - 1) x C x 50 us; after the first congested report the
//! rates sum to C (1 - w_min) and that queue drains at C x w_min (~98 KB/ms at
//! 100G), after which it hovers just above `mark_threshold`. A congested report
//! keeps the ratio of the rates (each flow gets its own receive rate), so
//! fairness comes from the non-congested increases towards C.
//!
//! `probe()` returns w.

use crate::registry::SchemeConfig;
use ccsim_core::cc::{
    FlowView, PortStat, ReceiverCc, ReceiverCx, Requirements, Scheme, SenderCc, SenderCx, SwitchCc, SwitchCx,
};
use ccsim_core::config::{EcnConfig, EcnMode};
use ccsim_core::packet::{Packet, PktKind};
use ccsim_core::time::{Time, SEC, US};
use ccsim_core::units::{Bytes, Dur, Rate};
use serde::{Deserialize, Serialize};

/// Data packets: `aux` index of the NP-ECN enqueue tag (written and read by
/// PCN switches only).
pub const TAG_FIELD: usize = 3;
/// ACK/NACK: `aux` index of the NP's notification ([`FB_NONE`], ...).
pub const FB_FIELD: usize = 0;
/// ACK/NACK: `aux` index of the receive rate (bit/s) of a notification.
pub const RATE_FIELD: usize = 1;
/// ACK/NACK: `aux` index of the marked fraction (ppm) of a notification.
pub const MARKED_FIELD: usize = 2;
/// No notification on this ACK.
pub const FB_NONE: u64 = 0;
/// Non-congested notification.
pub const FB_UNCONGESTED: u64 = 1;
/// Congested notification (receive rate in `aux[RATE_FIELD]`).
pub const FB_CONGESTED: u64 = 2;

/// PCN parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcnConfig {
    /// NP-ECN: mark a data packet at dequeue when the egress queue (bytes, all
    /// classes, the departing packet excluded) is above this and the port was
    /// not paused while the packet waited; the same value at every port.
    /// Default 5KB [unverified: the paper's threshold could not be read here;
    /// 5 KB is Kmin of the DCQCN paper's (Zhu et al. SIGCOMM'15) ECN settings,
    /// a few packets, so that only a standing queue at an unpaused port counts
    /// as congestion].
    pub mark_threshold: Bytes,
    /// NP: notification interval per flow. Default 50us (PCN paper, spec
    /// ALGORITHMS.md B8; the DCQCN NP's CNP interval).
    pub interval: Dur,
    /// NP: an interval is congested when more than this fraction of its data
    /// packets were marked. Default 0.95 (PCN paper, spec ALGORITHMS.md B8).
    pub congested_fraction: f64,
    /// RP: decrease margin and initial/reset increase weight w_min.
    /// Default 1/128 = 0.0078125 (PCN paper, spec ALGORITHMS.md B8).
    pub w_min: f64,
    /// RP: the increase weight w converges to w_max. Default 0.5 (PCN paper,
    /// spec ALGORITHMS.md B8).
    pub w_max: f64,
    /// RP: lowest rate. Default 100Mbps [not from the paper, which states no
    /// floor: the MinRate default of the DCQCN authors' ns3-rdma simulator, as
    /// this crate's dcqcn `paper` preset].
    pub min_rate: Rate,
}

impl Default for PcnConfig {
    fn default() -> Self {
        PcnConfig {
            mark_threshold: Bytes(5_000),
            interval: Dur(50 * US),
            congested_fraction: 0.95,
            w_min: 1.0 / 128.0,
            w_max: 0.5,
            min_rate: Rate(100_000_000),
        }
    }
}

impl SchemeConfig for PcnConfig {
    const NAME: &'static str = "pcn";
    const SUMMARY: &'static str =
        "PCN (Cheng et al. NSDI'20): non-PAUSE ECN at switches, receiver-rate feedback every 50 us";
    const PARAMS: &'static [(&'static str, &'static str)] = &[
        (
            "mark_threshold",
            "NP-ECN: mark at dequeue above this egress queue if the port was not paused (value unverified)",
        ),
        ("interval", "NP: per-flow notification interval"),
        ("congested_fraction", "NP: congested when more than this fraction of the interval's packets were marked"),
        ("w_min", "RP: congested R = min(R, R_recv (1 - w_min)); w restarts at w_min"),
        ("w_max", "RP: non-congested R = (1-w) R + w C; w = (1-w) w + w w_max"),
        ("min_rate", "RP: lowest rate (not from the paper)"),
    ];

    fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.interval.0 == 0 {
            return Err(("interval", "must be > 0".into()));
        }
        if !(0.0..1.0).contains(&self.congested_fraction) {
            return Err(("congested_fraction", "must be in [0, 1)".into()));
        }
        if !(self.w_min > 0.0 && self.w_min < 1.0) {
            return Err(("w_min", "must be in (0, 1)".into()));
        }
        if !(self.w_max >= self.w_min && self.w_max < 1.0) {
            return Err(("w_max", "must be in [w_min, 1)".into()));
        }
        if self.min_rate.0 == 0 {
            return Err(("min_rate", "must be > 0".into()));
        }
        Ok(())
    }

    fn into_scheme(self) -> Box<dyn Scheme> {
        Box::new(Pcn { cfg: self })
    }
}

/// The PCN scheme.
pub struct Pcn {
    cfg: PcnConfig,
}

impl Pcn {
    pub fn new(cfg: PcnConfig) -> Self {
        Pcn { cfg }
    }
}

impl Scheme for Pcn {
    fn name(&self) -> &str {
        PcnConfig::NAME
    }
    fn requirements(&self) -> Requirements {
        Requirements { ecn: Some(EcnConfig { mode: EcnMode::Off, ..Default::default() }), ..Default::default() }
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        Box::new(PcnSender::new(&self.cfg, flow))
    }
    fn receiver(&self, _flow: &FlowView) -> Box<dyn ReceiverCc> {
        Box::new(PcnReceiver::new(&self.cfg))
    }
    fn switch(&self, _node: u32, _ports: &[PortStat]) -> Option<Box<dyn SwitchCc>> {
        Some(Box::new(PcnSwitch::new(self.cfg.mark_threshold.0)))
    }
}

// ---------------------------------------------------------------- switch

/// NP-ECN at one switch (see the module docs).
pub struct PcnSwitch {
    threshold: u64,
    marked: u64,
}

impl PcnSwitch {
    pub fn new(threshold: u64) -> Self {
        PcnSwitch { threshold, marked: 0 }
    }

    /// Data packets this switch has marked.
    pub fn marked(&self) -> u64 {
        self.marked
    }

    /// The enqueue tag of a packet of `class` entering a port in state `st`.
    pub fn tag(st: &PortStat, class: u8) -> u64 {
        let paused = (st.paused >> (class & 7)) & 1;
        (st.pauses << 1) | paused as u64
    }

    /// The NP-ECN rule: queue above the threshold at dequeue, and the port
    /// unpaused since the packet was tagged.
    pub fn should_mark(&self, st: &PortStat, tag: u64) -> bool {
        st.qlen > self.threshold && tag == st.pauses << 1
    }
}

impl SwitchCc for PcnSwitch {
    fn on_enqueue(&mut self, cx: &mut SwitchCx, _in_port: u16, out_port: u16, pkt: &mut Packet) {
        if pkt.kind == PktKind::Data {
            pkt.aux[TAG_FIELD] = Self::tag(&cx.ports[out_port as usize], pkt.class);
        }
    }

    fn on_dequeue(&mut self, cx: &mut SwitchCx, _in_port: u16, out_port: u16, pkt: &mut Packet) {
        if pkt.kind == PktKind::Data && self.should_mark(&cx.ports[out_port as usize], pkt.aux[TAG_FIELD]) {
            pkt.ce = true;
            self.marked += 1;
        }
    }
}

// ---------------------------------------------------------------- receiver

/// One interval's report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Notification {
    pub congested: bool,
    /// Wire bytes received in the interval x 8 / interval (bit/s).
    pub rate_bps: u64,
    /// Marked data packets / data packets, parts per million.
    pub marked_ppm: u64,
}

/// The notification point of one flow (see the module docs).
pub struct PcnReceiver {
    interval: Time,
    congested_fraction: f64,
    /// Start of the current interval (None before the first packet).
    start: Option<Time>,
    bytes: u64,
    packets: u64,
    marked: u64,
    /// Report waiting for the next ACK.
    pending: Option<Notification>,
}

impl PcnReceiver {
    pub fn new(cfg: &PcnConfig) -> Self {
        PcnReceiver {
            interval: cfg.interval.0,
            congested_fraction: cfg.congested_fraction,
            start: None,
            bytes: 0,
            packets: 0,
            marked: 0,
            pending: None,
        }
    }

    /// The report not yet put on an ACK, if any.
    pub fn pending(&self) -> Option<Notification> {
        self.pending
    }

    fn close_interval(&self) -> Notification {
        let congested = self.marked as f64 > self.congested_fraction * self.packets as f64;
        let rate = self.bytes as u128 * 8 * SEC as u128 / self.interval as u128;
        Notification { congested, rate_bps: rate as u64, marked_ppm: self.marked * 1_000_000 / self.packets.max(1) }
    }
}

impl ReceiverCc for PcnReceiver {
    fn on_data(&mut self, cx: &mut ReceiverCx, data: &Packet) {
        let now = cx.now;
        match self.start {
            None => self.start = Some(now),
            Some(t0) if now >= t0 + self.interval => {
                self.pending = Some(self.close_interval());
                let skipped = (now - t0) / self.interval;
                self.start = Some(t0 + skipped * self.interval);
                self.bytes = 0;
                self.packets = 0;
                self.marked = 0;
            }
            Some(_) => {}
        }
        self.bytes += data.size as u64;
        self.packets += 1;
        if data.ce {
            self.marked += 1;
        }
    }

    fn fill_ack(&mut self, _cx: &ReceiverCx, _data: &Packet, ack: &mut Packet) {
        match self.pending.take() {
            Some(n) => {
                ack.aux[FB_FIELD] = if n.congested { FB_CONGESTED } else { FB_UNCONGESTED };
                ack.aux[RATE_FIELD] = n.rate_bps;
                ack.aux[MARKED_FIELD] = n.marked_ppm;
            }
            None => {
                ack.aux[FB_FIELD] = FB_NONE;
                ack.aux[RATE_FIELD] = 0;
                ack.aux[MARKED_FIELD] = 0;
            }
        }
    }
}

// ---------------------------------------------------------------- sender

/// The reaction point of one flow (see the module docs).
pub struct PcnSender {
    line: f64,
    min_rate: f64,
    w_min: f64,
    w_max: f64,
    /// Current rate (bit/s).
    rc: f64,
    /// Increase weight.
    w: f64,
}

impl PcnSender {
    pub fn new(cfg: &PcnConfig, flow: &FlowView) -> Self {
        let line = flow.line_rate as f64;
        PcnSender {
            line,
            min_rate: (cfg.min_rate.0 as f64).min(line),
            w_min: cfg.w_min,
            w_max: cfg.w_max,
            rc: line,
            w: cfg.w_min,
        }
    }

    /// Current rate (bit/s).
    pub fn rate(&self) -> f64 {
        self.rc
    }

    /// Current increase weight w.
    pub fn weight(&self) -> f64 {
        self.w
    }

    /// Applies one notification from the NP.
    pub fn notify(&mut self, congested: bool, recv_rate: f64) {
        if congested {
            self.rc = self.rc.min(recv_rate * (1.0 - self.w_min)).max(self.min_rate);
            self.w = self.w_min;
        } else {
            self.rc = ((1.0 - self.w) * self.rc + self.w * self.line).min(self.line);
            self.w = (1.0 - self.w) * self.w + self.w * self.w_max;
        }
    }

    fn feedback(&mut self, cx: &mut SenderCx, pkt: &Packet) {
        match pkt.aux[FB_FIELD] {
            FB_CONGESTED => self.notify(true, pkt.aux[RATE_FIELD] as f64),
            FB_UNCONGESTED => self.notify(false, 0.0),
            _ => return,
        }
        cx.rate = self.rc;
    }
}

impl SenderCc for PcnSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        cx.rate = self.rc;
        cx.window = u64::MAX;
    }
    fn on_ack(&mut self, cx: &mut SenderCx, ack: &Packet) {
        self.feedback(cx, ack);
    }
    fn on_nack(&mut self, cx: &mut SenderCx, nack: &Packet) {
        self.feedback(cx, nack);
    }
    fn probe(&self) -> f64 {
        self.w
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{ack, flow, Harness};

    const L: f64 = 100e9;
    const WMIN: f64 = 1.0 / 128.0;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    // ---- switch ----

    fn data(class: u8) -> Packet {
        Packet { kind: PktKind::Data, class, size: 1048, ..Default::default() }
    }

    /// Runs one packet through a switch: enqueue at port 1 in state `at_enq`,
    /// dequeue in state `at_deq`; returns whether it left marked.
    fn through(sw: &mut PcnSwitch, pkt: &mut Packet, at_enq: PortStat, at_deq: PortStat) -> bool {
        let mut emit = Vec::new();
        let mut ports = [PortStat::default(), at_enq];
        let mut cx = SwitchCx { now: 0, node: 9, ports: &ports, emit: &mut emit };
        sw.on_enqueue(&mut cx, 0, 1, pkt);
        ports[1] = at_deq;
        let mut cx = SwitchCx { now: 5 * US, node: 9, ports: &ports, emit: &mut emit };
        sw.on_dequeue(&mut cx, 0, 1, pkt);
        assert!(emit.is_empty(), "NP-ECN emits nothing");
        pkt.ce
    }

    fn port(qlen: u64, paused: u8, pauses: u64) -> PortStat {
        PortStat { rate_bps: 100_000_000_000, qlen, paused, pauses, ..Default::default() }
    }

    #[test]
    fn np_ecn_marks_a_queue_built_by_congestion() {
        let mut sw = PcnSwitch::new(5_000);
        // The same 200 KB queue, no PAUSE while the packet waited: marked.
        assert!(through(&mut sw, &mut data(1), port(150_000, 0, 3), port(200_000, 0, 3)));
        assert_eq!(sw.marked(), 1);
        // Queue at or below the threshold at dequeue: not marked.
        assert!(!through(&mut sw, &mut data(1), port(150_000, 0, 3), port(5_000, 0, 3)));
        assert!(through(&mut sw, &mut data(1), port(150_000, 0, 3), port(5_001, 0, 3)));
        assert_eq!(sw.marked(), 2);
    }

    #[test]
    fn np_ecn_leaves_a_queue_built_by_pause_unmarked() {
        let mut sw = PcnSwitch::new(5_000);
        // A PAUSE arrived while the packet waited (count 3 -> 4; resumed since):
        // the 200 KB queue is PFC's doing, not this port's congestion.
        assert!(!through(&mut sw, &mut data(1), port(150_000, 0, 3), port(200_000, 0, 4)));
        // Paused and resumed several times.
        assert!(!through(&mut sw, &mut data(1), port(150_000, 0, 3), port(200_000, 0, 9)));
        // The port was already paused (class 1) when the packet arrived, and
        // resumed without a new PAUSE frame: still unmarked.
        assert!(!through(&mut sw, &mut data(1), port(150_000, 0b10, 4), port(200_000, 0, 4)));
        assert_eq!(sw.marked(), 0);
        // A pause of another class at enqueue does not delay class 1.
        assert!(through(&mut sw, &mut data(1), port(150_000, 0b100, 4), port(200_000, 0b100, 4)));
        // A mark from an upstream switch is kept.
        let mut p = data(1);
        p.ce = true;
        assert!(through(&mut sw, &mut p, port(150_000, 0, 3), port(200_000, 0, 4)));
    }

    #[test]
    fn np_ecn_ignores_control_packets_and_uses_the_egress_port() {
        let mut sw = PcnSwitch::new(5_000);
        let mut a = Packet { kind: PktKind::Ack, ..Default::default() };
        a.aux = [1, 2, 3, 4];
        assert!(!through(&mut sw, &mut a, port(150_000, 0, 3), port(200_000, 0, 3)));
        assert_eq!(a.aux, [1, 2, 3, 4], "ACK fields untouched");
        // Port 0 (not the egress) is congested and port 1 is not: no mark.
        let mut emit = Vec::new();
        let ports = [port(900_000, 0, 0), port(0, 0, 0)];
        let mut cx = SwitchCx { now: 0, node: 9, ports: &ports, emit: &mut emit };
        let mut p = data(1);
        sw.on_enqueue(&mut cx, 0, 1, &mut p);
        sw.on_dequeue(&mut cx, 0, 1, &mut p);
        assert!(!p.ce);
        // Tags: the count shifted left, paused bit of the packet's class.
        assert_eq!(PcnSwitch::tag(&port(0, 0b10, 7), 1), 15);
        assert_eq!(PcnSwitch::tag(&port(0, 0b10, 7), 2), 14);
    }

    // ---- receiver ----

    /// Feeds `n` data packets of 1048 B, `m` of them marked (the first ones),
    /// evenly spaced over [t, t + span); returns the ACK fields of the last one.
    fn feed(rx: &mut PcnReceiver, t: Time, span: Time, n: u64, m: u64) -> [u64; 4] {
        let f = flow();
        let mut last = [0; 4];
        for i in 0..n {
            let now = t + i * span / n;
            let mut cx = ReceiverCx::new(now, &f, 1);
            let mut d = data(1);
            d.ce = i < m;
            rx.on_data(&mut cx, &d);
            assert!(!cx.send_cnp, "PCN sends no CNP packets");
            let mut a = ack(0);
            a.aux = d.aux;
            a.aux[FB_FIELD] = 77; // whatever the data packet carried
            rx.fill_ack(&cx, &d, &mut a);
            last = a.aux;
            if a.aux[FB_FIELD] != FB_NONE {
                return a.aux;
            }
        }
        last
    }

    #[test]
    fn np_reports_congestion_above_95_percent_marked_with_the_receive_rate() {
        let mut rx = PcnReceiver::new(&PcnConfig::default());
        // Interval [0, 50 us): 200 packets, 191 marked (95.5%).
        let a = feed(&mut rx, 0, 50 * US, 200, 191);
        assert_eq!(a[FB_FIELD], FB_NONE, "no report inside the first interval");
        // The first packet of the next interval closes it.
        let a = feed(&mut rx, 50 * US, 50 * US, 1, 0);
        assert_eq!(a[FB_FIELD], FB_CONGESTED);
        // 200 x 1048 B in 50 us = 33.536 Gbps
        assert_eq!(a[RATE_FIELD], 33_536_000_000);
        assert_eq!(a[MARKED_FIELD], 955_000);
        assert!(rx.pending().is_none(), "sent once");
        // Interval [50, 100 us): the packet above + 199, 190 marked of 200 (95%
        // exactly is not more than 95%): non-congested.
        let a = feed(&mut rx, 50 * US + 1, 49 * US, 199, 190);
        assert_eq!(a[FB_FIELD], FB_NONE);
        let a = feed(&mut rx, 100 * US, 1, 1, 1);
        assert_eq!(a[FB_FIELD], FB_UNCONGESTED);
        assert_eq!(a[MARKED_FIELD], 950_000);
    }

    #[test]
    fn np_intervals_stay_on_their_grid_and_idle_intervals_send_nothing() {
        let mut rx = PcnReceiver::new(&PcnConfig::default());
        feed(&mut rx, 10 * US, 40 * US, 10, 10); // interval [10, 60 us)
                                                 // Next packet at 237 us: reports [10, 60) (10 packets over 50 us) and
                                                 // opens [210, 260); the idle intervals between produce no report.
        let a = feed(&mut rx, 237 * US, 1, 1, 1);
        assert_eq!(a[FB_FIELD], FB_CONGESTED);
        assert_eq!(a[RATE_FIELD], 10 * 1048 * 8 * 20_000);
        let a = feed(&mut rx, 259 * US, 1, 1, 1);
        assert_eq!(a[FB_FIELD], FB_NONE, "259 us is still in [210, 260)");
        let a = feed(&mut rx, 260 * US, 1, 1, 0);
        assert_eq!(a[FB_FIELD], FB_CONGESTED, "2 of 2 marked");
        assert_eq!(a[RATE_FIELD], 2 * 1048 * 8 * 20_000);
    }

    #[test]
    fn np_report_waits_for_the_next_ack_when_acks_are_coalesced() {
        let f = flow();
        let mut rx = PcnReceiver::new(&PcnConfig::default());
        feed(&mut rx, 0, 50 * US, 5, 0);
        // A packet closes the interval but the core sends no ACK for it.
        let mut cx = ReceiverCx::new(51 * US, &f, 1);
        rx.on_data(&mut cx, &data(1));
        assert!(rx.pending().is_some_and(|n| !n.congested));
        cx.now = 52 * US;
        rx.on_data(&mut cx, &data(1));
        let mut a = ack(0);
        rx.fill_ack(&cx, &data(1), &mut a);
        assert_eq!(a.aux[FB_FIELD], FB_UNCONGESTED);
        assert_eq!(a.aux[RATE_FIELD], 5 * 1048 * 8 * 20_000);
    }

    // ---- sender ----

    fn started() -> (PcnSender, Harness) {
        let mut s = PcnSender::new(&PcnConfig::default(), &flow());
        let mut h = Harness::new(flow());
        h.rate = 0.0;
        h.start(&mut s);
        assert_eq!(h.rate, L);
        assert_eq!(h.window, u64::MAX);
        assert_eq!(s.probe(), WMIN);
        (s, h)
    }

    fn fb(kind: u64, rate: u64) -> Packet {
        let mut a = ack(1000);
        a.aux[FB_FIELD] = kind;
        a.aux[RATE_FIELD] = rate;
        a
    }

    #[test]
    fn congested_sets_rate_just_below_the_receive_rate() {
        let (mut s, mut h) = started();
        h.ack(&mut s, &fb(FB_CONGESTED, 30_000_000_000));
        assert!(close(h.rate, 30e9 * (1.0 - WMIN)), "{}", h.rate);
        // A higher receive rate never raises the rate: R = min(R, ...).
        h.ack(&mut s, &fb(FB_CONGESTED, 60_000_000_000));
        assert!(close(h.rate, 30e9 * (1.0 - WMIN)));
        h.ack(&mut s, &fb(FB_CONGESTED, 20_000_000_000));
        assert!(close(h.rate, 20e9 * (1.0 - WMIN)));
        // ACKs without a report change nothing; nor does a NACK without one.
        h.ack(&mut s, &ack(5000));
        assert!(close(h.rate, 20e9 * (1.0 - WMIN)));
        // Never below min_rate (100 Mbps).
        h.ack(&mut s, &fb(FB_CONGESTED, 50_000_000));
        assert_eq!(h.rate, 100e6);
    }

    #[test]
    fn non_congested_moves_toward_line_rate_with_a_growing_weight() {
        let (mut s, mut h) = started();
        h.ack(&mut s, &fb(FB_CONGESTED, 40_000_000_000));
        let mut r = 40e9 * (1.0 - WMIN);
        let mut w = WMIN;
        for k in 0..6 {
            h.ack(&mut s, &fb(FB_UNCONGESTED, 0));
            r = (1.0 - w) * r + w * L;
            w = (1.0 - w) * w + w * 0.5;
            assert!(close(h.rate, r), "step {k}: {} vs {r}", h.rate);
            assert!(close(s.probe(), w));
        }
        // Hand-computed first steps: w 1/128 -> 0.011657..., R 39.6875G -> 40.161...G
        let mut t = PcnSender::new(&PcnConfig::default(), &flow());
        t.notify(true, 40e9);
        t.notify(false, 0.0);
        assert!(close(t.rate(), 39.6875e9 * 127.0 / 128.0 + 100e9 / 128.0));
        assert!(close(t.weight(), WMIN * (1.0 - WMIN + 0.5)));
        // w approaches w_max and never exceeds it; the rate approaches line rate.
        for _ in 0..60 {
            t.notify(false, 0.0);
            assert!(t.weight() <= 0.5 && t.rate() <= L);
        }
        assert!((t.weight() - 0.5).abs() < 1e-6);
        assert!(t.rate() > 0.999 * L);
        // A congested report restarts w at w_min.
        h.ack(&mut s, &fb(FB_CONGESTED, 10_000_000_000));
        assert_eq!(s.probe(), WMIN);
        assert!(close(h.rate, 10e9 * (1.0 - WMIN)));
    }

    #[test]
    fn nack_carries_reports_too() {
        let (mut s, mut h) = started();
        let mut n = fb(FB_CONGESTED, 50_000_000_000);
        n.kind = PktKind::Nack;
        h.call(|cx| s.on_nack(cx, &n));
        assert!(close(h.rate, 50e9 * (1.0 - WMIN)));
    }

    #[test]
    fn validation_and_requirements() {
        let ok = PcnConfig::default();
        assert!(ok.validate().is_ok());
        let bad = |c: PcnConfig| c.validate().unwrap_err().0;
        assert_eq!(bad(PcnConfig { interval: Dur(0), ..ok.clone() }), "interval");
        assert_eq!(bad(PcnConfig { congested_fraction: 1.0, ..ok.clone() }), "congested_fraction");
        assert_eq!(bad(PcnConfig { w_min: 0.0, ..ok.clone() }), "w_min");
        assert_eq!(bad(PcnConfig { w_max: 0.001, ..ok.clone() }), "w_max");
        assert_eq!(bad(PcnConfig { min_rate: Rate(0), ..ok.clone() }), "min_rate");
        let req = Pcn::new(ok).requirements();
        assert_eq!(req.ecn.map(|e| e.mode), Some(EcnMode::Off), "the core must not mark");
        assert!(!req.int_on_data);
    }
}
