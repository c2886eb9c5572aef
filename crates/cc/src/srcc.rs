//! SRCC (Hu et al., "SRCC: Sub-RTT Congestion Control for Lossless Datacenter
//! Networks", IEEE TII 2024; seed `srcc-paper.txt`, spec ALGORITHMS.md A5):
//! switches notify the senders of congested flows directly, within a sub-RTT
//! loop, on top of an end-to-end scheme (DCQCN by default, HPCC selectable).
//!
//! * Switch (§III-B, C, D), per data packet entering egress `e` through ingress `i`:
//!   - Q_cth (eq. 6) = Q_PFC/M - N_TTL x d x C x (m - 1), at least `q_floor`;
//!     Q_PFC is the ingress's PFC threshold (`q_pfc`), M the number of egress
//!     ports ingress `i` fed within the last T, N_TTL the links back to the
//!     sender (`pkt.hops`: the switches crossed so far, this one included, equals
//!     the links between the sender and here), d the per-hop delay (`hop_delay`,
//!     default the ingress link's propagation delay), C the rate of `e` and m the
//!     flows that sent to `e` within the last T (a one-RTT window misses flows
//!     slowed below a packet per RTT or paused, and so overestimates the fair
//!     share). `fixed_qcth_frac` > 0 uses
//!     Q_cth = frac x Q_PFC instead (the paper's sensitivity study).
//!   - The packet belongs to a congested flow when the queue of `e` (before it)
//!     exceeds Q_cth; otherwise it is an uncongested flow's packet and ingress
//!     `i` records its arrival time t_uf for egress `e`.
//!   - A congested flow is a culprit when an uncongested flow's packet (one to
//!     another egress) entered through the same ingress less than T =
//!     `window_rtts` x `rtt` ago. The paper's text states the comparison both
//!     ways ("if t_cur - t_uf < T ... not share ingress ... otherwise shares");
//!     this is the reading that protects victims, as its Fig. 4 and the rest of
//!     §III-B describe: recent uncongested traffic on the ingress = a flow that a
//!     PAUSE of that ingress would block. A congested flow alone on its ingress
//!     is left to the end-to-end scheme (Fig. 4(a)).
//!     In a pure incast no ingress carries uncongested traffic, so this reading
//!     sends no CNM there and SRCC is its base scheme. That is what §III-B
//!     says outright: "although PFC is triggered at the ingress port that only
//!     holds the congested flows, there are no victim flows blocked ... In this
//!     case, there is no need to quickly reduce the sending rate of the
//!     congested flow", and §III-A(4) adjusts only "congested flows sharing the
//!     ingress port with uncongested flows". §V-C2 nevertheless explains its
//!     ~100 Gbps incast goodput by CNMs ("SRCC directly feedbacks congestion
//!     messages ... and reset[s] the target sending rate for congested flows");
//!     that matches only the comparison as printed (`literal_window = true`),
//!     which notifies every congested flow where no uncongested packet came
//!     within T. Both are measured: `literal_window` is a sensitivity sweep of
//!     the incast claims fig11-* (experiments/srcc/manifest.toml).
//!   - For a culprit, at most once per `cnm_interval` per flow, the switch emits a
//!     CNM: a control packet (`Ctrl`, `sub` = [`CNM_SUB`], control class) to the
//!     flow's sender, routed from the switch like any packet, carrying the flow id
//!     (`flow`) and the target rate in bit/s (`aux[0]`), the switch id (`aux[1]`)
//!     and the Q_cth used (`aux[2]`). Target = `target_scale` x C / m: the
//!     average rate of the congested flows at `e` normalized to the bottleneck
//!     capacity (their rates scaled so that they sum to C), times a margin.
//! * Sender: on a CNM the rate is set to the target at once, up or down
//!   (§III-E: "SRCC resets the target sending rate once receiving CNM at the
//!   sender to control congestion timely instead of the slow evolution-based
//!   rate adjustment"), through the base scheme's own rate state (DCQCN: Rc =
//!   target, Rt = the previous Rc if that was higher else the target, recovery
//!   restarts; HPCC: Rc = W/T = target) so the base scheme runs on from there.
//!   `cnm_raises = false` lets a CNM only lower the rate (a sensitivity). CNMs
//!   from several switches within `sender_window`: the minimum target wins
//!   (§III-E: "the sending rate is set to the minimal bottleneck target rate";
//!   a higher target inside the window is ignored). Everything else (ACKs,
//!   CNPs, timers) goes to the base.
//! * Receiver and network requirements are the base scheme's (DCQCN's CNPs,
//!   HPCC's INT).
//!
//! Base parameters: `base_params` is the base scheme's own parameter table, as
//! `[scheme.<base>]` would be (e.g. `base_params = { preset = "hpcc" }`); the
//! `[scheme.<base>]` table of the scenario is NOT read, so that SRCC's base can
//! differ from the plain baseline run beside it.
//!
//! Experiments: tests/srcc.rs checks the mechanism in small networks; the
//! paper's experiments are experiments/srcc/ (run by `ccsim reproduce srcc`,
//! results in docs/reproduction/srcc/report.md):
//! * CNMs reach the culprit's sender within the links back from the switch
//!   (2 links of 1 us in tests/srcc.rs, against a 6.2 us base RTT); victims
//!   never get one.
//! * Two culprits + one victim through one 400G ingress, 1.4 MB buffers: the
//!   culprits' queue stays around Q_cth, the culprits share equally, the
//!   victim finishes at ideal speed and is never HoL-blocked.
//! * A single synchronized wave of 100 KB flows cannot be slowed: each flow is
//!   sent (8 us at 100G) before a CNM can reach it (>= 12 us back on the
//!   paper's 4 us links).
//! * Incast (leaf-spine 8x16, 24 hosts/leaf, 22 MB; 50 MB from N servers):
//!   claims fig11-* (incast-n*.toml). With few senders DCQCN (paper
//!   parameters) itself can leave the bottleneck idle: the first line-rate RTT
//!   builds MBs of queue held upstream by PFC, the marks cut every flow to
//!   `min_rate`, and once the queue empties recovery is additive only (40 Mbps
//!   per 55 us per flow: hyper increase needs the 10 MB byte counter past F,
//!   which a 2.5 MB flow never reaches); SRCC over DCQCN sends no CNM there.
//!   With many senders the whole 50 MB can leave the senders at line rate
//!   within the first RTT and be held by PFC in the fabric's buffers, so no
//!   scheme acts and the bottleneck never idles: the paper's loss for the
//!   baselines at 160 servers needs some mechanism that idles the bottleneck
//!   (smaller buffers holding data at the senders, or PAUSE bubbles) that the
//!   paper does not describe.
//! * Workloads on the same fabric (websearch.toml, hadoop.toml) and the
//!   testbed (testbed-webserver.toml, testbed-cachefollower.toml): claims
//!   fig5-*, fig6-*, fig9-*, fig10-*. A flow cut by a CNM recovers at its
//!   base scheme's (DCQCN's) speed unless a later CNM resets it higher.
//! * Fig. 2 (fig2-motivation.toml): claims fig2*.
//!
//! Not modelled: the per-switch MAC flow table of §III-D (the core routes the
//! CNM to the sender host by shortest path from the switch, ECMP-hashed on the
//! flow's hash); the "derivative of the egress queue length" named in §III-A's
//! overview, which eq. (6) does not use.

use crate::dcqcn::{DcqcnConfig, DcqcnSender};
use crate::hpcc::{HpccConfig, HpccSender};
use crate::registry::{self, SchemeConfig};
use ccsim_core::cc::{FlowView, PortStat, ReceiverCc, Requirements, Scheme, SenderCc, SenderCx, SwitchCc, SwitchCx};
use ccsim_core::packet::{Packet, PktKind};
use ccsim_core::time::{Time, SEC, US};
use ccsim_core::units::{Bytes, Dur};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use toml::{Table, Value};

/// `Packet::sub` of an SRCC congestion notification message.
pub const CNM_SUB: u8 = 0x5C;

/// SRCC parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SrccConfig {
    /// End-to-end scheme underneath: "dcqcn" (default; the paper's default
    /// pairing, ALGORITHMS.md A5) or "hpcc".
    pub base: String,
    /// The base scheme's parameter table (as its own `[scheme.<base>]` table).
    /// Default {} (the base's defaults).
    pub base_params: Table,
    /// Base RTT of the fabric, the unit of T (also the activity window for M and m).
    /// Default 35us: the paper's leaf-spine (4 links of 4 us each way = 32 us,
    /// plus serialization of a 1 KB packet on 4 links at 100G, 0.33 us, and ACK
    /// serialization) rounded up [derived, the paper states no RTT].
    pub rtt: Dur,
    /// T, in RTTs: a congested flow is a culprit if an uncongested flow's packet
    /// used its ingress less than T ago. Default 3 (paper §V-B3: "reasonable
    /// empirical value of 3RTT").
    pub window_rtts: f64,
    /// Q_PFC, the PFC threshold of an ingress in eq. (6). Default 0 = what the
    /// core's dynamic threshold is for an empty buffer, per switch and ingress:
    /// alpha x (`buffer` - all headroom - all reserve) with alpha 1/8 per 100G
    /// of the ingress rate, headroom 3 x rate x delay + 2 packets of 1048 B per
    /// port, reserve 4 KB per port, one data class (the `ccsim_core::config`
    /// defaults, from the HPCC simulator). Set it explicitly when the network's
    /// PFC settings differ from those defaults.
    pub q_pfc: Bytes,
    /// Switch buffer assumed when Q_PFC is derived (`q_pfc = 0`); set it to the
    /// scenario's `network.buffer`. Default 32MB (the network default).
    pub buffer: Bytes,
    /// Lower bound of the dynamic Q_cth (eq. (6) goes negative for many flows
    /// or long paths). Default 100KB [unverified: the paper gives none; about
    /// 8 us of a 100G port, below DCQCN's default Kmin 400 KB at 100G].
    pub q_floor: Bytes,
    /// Above 0: fixed Q_cth = this fraction of Q_PFC instead of eq. (6) (the
    /// paper's Fig. 8(a) "40% / 60% fixed buffer size", read as fractions of the
    /// PFC threshold). Default 0 (dynamic).
    pub fixed_qcth_frac: f64,
    /// d of eq. (6), per hop. Default 0us = the propagation delay of the link
    /// the packet arrived on (the paper: "base delay d").
    pub hop_delay: Dur,
    /// At most one CNM per flow per this interval at a switch. Default 0us =
    /// one `rtt` [unverified: the paper gives no value].
    pub cnm_interval: Dur,
    /// Sender: CNMs within this window are combined by their minimum target.
    /// Default 0us = one `rtt` [unverified].
    pub sender_window: Dur,
    /// Target = this x C / m. Default 0.9 [unverified]: the paper's target is
    /// the average rate normalized to the bottleneck bandwidth (scale 1), with
    /// which the notified flows together send exactly C and a queue above
    /// Q_cth never drains, so each recovery step of the base scheme ratchets it
    /// up towards PFC; 0.9 drains it at 10% of C (HPCC's eta = 0.95 leaves a
    /// similar margin).
    pub target_scale: f64,
    /// false (default): a congested flow is a culprit when uncongested traffic
    /// used its ingress within T (the reading that protects victims). true: the
    /// comparison exactly as §III-B prints it: a culprit when NO uncongested
    /// packet used its ingress within T (so every congested flow is notified in
    /// a pure incast, and none where victims are active).
    pub literal_window: bool,
    /// Wire size of a CNM. Default 64B (a QCN CNM is a minimum Ethernet frame;
    /// the paper's fields: 2 MACs, 8-bit flow id, 32-bit rate).
    pub cnm_size: Bytes,
    /// true (default): a CNM sets the rate to its target, up or down, the
    /// paper's rule (§III-E: "SRCC resets the target sending rate once
    /// receiving CNM at the sender"; §V-C2 credits this reset with keeping the
    /// incast link busy). false: a CNM only lowers the rate, and a cut flow
    /// climbs back at its base scheme's pace. Sensitivity sweep
    /// `scheme.srcc.cnm_raises` (experiments/srcc/manifest.toml).
    pub cnm_raises: bool,
    /// The target's flow count n (target = `target_scale` x C / n) counts the
    /// flows that sent to the egress within this many RTTs; 0 = T, the window
    /// of eq. (6)'s m. Default 1: the paper's n is "the congested flows at the
    /// congested egress port" (§III-C), i.e. those still sending, and one RTT
    /// is the shortest window in which every flow still sending at least a
    /// packet per RTT is seen. Counting over T = 3 RTT also counts short flows
    /// that have ended and lowers the target below the share the remaining
    /// flows can use, which raises the web server FCTs (avg and p99) and leaves
    /// Fig. 2's PAUSE frames unchanged.
    pub target_window_rtts: f64,
}

impl Default for SrccConfig {
    fn default() -> Self {
        SrccConfig {
            base: "dcqcn".into(),
            base_params: Table::new(),
            rtt: Dur(35 * US),
            window_rtts: 3.0,
            q_pfc: Bytes(0),
            buffer: Bytes(32_000_000),
            q_floor: Bytes(100_000),
            fixed_qcth_frac: 0.0,
            hop_delay: Dur(0),
            cnm_interval: Dur(0),
            sender_window: Dur(0),
            target_scale: 0.9,
            literal_window: false,
            cnm_size: Bytes(64),
            cnm_raises: true,
            target_window_rtts: 1.0,
        }
    }
}

/// Base schemes SRCC can wrap.
const BASES: &[&str] = &["dcqcn", "hpcc"];

impl SchemeConfig for SrccConfig {
    const NAME: &'static str = "srcc";
    const SUMMARY: &'static str =
        "SRCC (Hu et al. TII'24): switch CNMs to culprits of PFC-prone queues, over dcqcn | hpcc";
    const PARAMS: &'static [(&'static str, &'static str)] = &[
        ("base", "end-to-end scheme underneath: \"dcqcn\" or \"hpcc\""),
        ("base_params", "the base scheme's parameter table, e.g. { preset = \"hpcc\" }"),
        ("rtt", "fabric base RTT (unit of T and of activity windows)"),
        ("window_rtts", "T in RTTs: uncongested traffic on the ingress within T makes a congested flow a culprit"),
        ("q_pfc", "Q_PFC of eq. (6); 0 = the core's empty-buffer PFC threshold with `buffer`"),
        ("buffer", "switch buffer assumed when deriving Q_PFC (set to network.buffer)"),
        ("q_floor", "lower bound of the dynamic Q_cth"),
        ("fixed_qcth_frac", "> 0: fixed Q_cth = frac x Q_PFC instead of eq. (6)"),
        ("hop_delay", "d of eq. (6); 0 = the ingress link's propagation delay"),
        ("cnm_interval", "at most one CNM per flow per interval; 0 = one rtt"),
        ("sender_window", "CNMs within this window combine by minimum target; 0 = one rtt"),
        ("target_scale", "target rate = target_scale x C / (flows at the egress)"),
        (
            "literal_window",
            "true: culprit when NO uncongested traffic used the ingress within T (the text's literal comparison)",
        ),
        ("cnm_size", "wire size of a CNM"),
        (
            "cnm_raises",
            "true (default, §III-E): a CNM sets the rate to its target, up or down; false: it only lowers the rate",
        ),
        (
            "target_window_rtts",
            "flows counted in the target C/n: those seen at the egress within this many RTTs (0 = T)",
        ),
    ];

    fn validate(&self) -> Result<(), (&'static str, String)> {
        if !BASES.contains(&self.base.as_str()) {
            return Err(("base", format!("must be one of {}", BASES.join(", "))));
        }
        let params = Value::Table(self.base_params.clone());
        let check = match self.base.as_str() {
            "dcqcn" => registry::config::<DcqcnConfig>(Some(&params)).map(|_| ()),
            _ => registry::config::<HpccConfig>(Some(&params)).map(|_| ()),
        };
        check.map_err(|e| ("base_params", e))?;
        if self.rtt.0 == 0 {
            return Err(("rtt", "must be > 0".into()));
        }
        if !(self.window_rtts > 0.0 && self.window_rtts.is_finite()) {
            return Err(("window_rtts", "must be > 0".into()));
        }
        if !(0.0..=1.0).contains(&self.fixed_qcth_frac) {
            return Err(("fixed_qcth_frac", "must be within 0..1".into()));
        }
        if !(self.target_scale > 0.0 && self.target_scale <= 1.0) {
            return Err(("target_scale", "must be in (0, 1]".into()));
        }
        if !(self.target_window_rtts >= 0.0 && self.target_window_rtts.is_finite()) {
            return Err(("target_window_rtts", "must be >= 0".into()));
        }
        if self.cnm_size.0 == 0 {
            return Err(("cnm_size", "must be > 0".into()));
        }
        Ok(())
    }

    fn into_scheme(self) -> Box<dyn Scheme> {
        let params = Value::Table(self.base_params.clone());
        let base = match self.base.as_str() {
            "dcqcn" => BaseCfg::Dcqcn(registry::config::<DcqcnConfig>(Some(&params)).expect("validated")),
            _ => BaseCfg::Hpcc(registry::config::<HpccConfig>(Some(&params)).expect("validated")),
        };
        let base_scheme = match &base {
            BaseCfg::Dcqcn(c) => c.clone().into_scheme(),
            BaseCfg::Hpcc(c) => c.clone().into_scheme(),
        };
        Box::new(Srcc { cfg: self, base, base_scheme })
    }
}

impl SrccConfig {
    fn rtt_or(&self, d: Dur) -> Time {
        if d.0 == 0 {
            self.rtt.0
        } else {
            d.0
        }
    }
    /// T of §III-B.
    pub fn window(&self) -> Time {
        (self.rtt.0 as f64 * self.window_rtts) as Time
    }
}

enum BaseCfg {
    Dcqcn(DcqcnConfig),
    Hpcc(HpccConfig),
}

/// The SRCC scheme: SRCC's switch and sender parts over a base scheme.
pub struct Srcc {
    cfg: SrccConfig,
    base: BaseCfg,
    base_scheme: Box<dyn Scheme>,
}

impl Scheme for Srcc {
    fn name(&self) -> &str {
        SrccConfig::NAME
    }
    fn requirements(&self) -> Requirements {
        self.base_scheme.requirements()
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        let base = match &self.base {
            BaseCfg::Dcqcn(c) => BaseSender::Dcqcn(DcqcnSender::new(c, flow)),
            BaseCfg::Hpcc(c) => BaseSender::Hpcc(HpccSender::new(c, flow)),
        };
        Box::new(SrccSender::new(base, self.cfg.rtt_or(self.cfg.sender_window), self.cfg.cnm_raises))
    }
    fn receiver(&self, flow: &FlowView) -> Box<dyn ReceiverCc> {
        self.base_scheme.receiver(flow)
    }
    fn switch(&self, node: u32, ports: &[PortStat]) -> Option<Box<dyn SwitchCc>> {
        let base = self.base_scheme.switch(node, ports);
        Some(Box::new(SrccSwitch::new(&self.cfg, ports, base)))
    }
}

/// The base scheme's sender, kept concrete so that a CNM can set its rate state.
pub enum BaseSender {
    Dcqcn(DcqcnSender),
    Hpcc(HpccSender),
}

impl BaseSender {
    fn cc(&mut self) -> &mut dyn SenderCc {
        match self {
            BaseSender::Dcqcn(s) => s,
            BaseSender::Hpcc(s) => s,
        }
    }
    fn reset_rate(&mut self, cx: &mut SenderCx, rate: f64) {
        match self {
            BaseSender::Dcqcn(s) => s.reset_rate(cx, rate),
            BaseSender::Hpcc(s) => s.reset_rate(cx, rate),
        }
    }
}

/// SRCC's reaction point around the base scheme's sender.
pub struct SrccSender {
    base: BaseSender,
    window: Time,
    /// A CNM may raise the rate ([`SrccConfig::cnm_raises`]).
    raises: bool,
    /// Target of the last CNM applied and when.
    last: Option<(Time, f64)>,
    cnms: u64,
}

impl SrccSender {
    pub fn new(base: BaseSender, window: Time, raises: bool) -> Self {
        SrccSender { base, window, raises, last: None, cnms: 0 }
    }
    /// CNMs applied so far.
    pub fn cnms_applied(&self) -> u64 {
        self.cnms
    }

    fn on_cnm(&mut self, cx: &mut SenderCx, target: f64) {
        if let Some((t, r)) = self.last {
            if cx.now < t + self.window && target >= r {
                // another switch asked for a higher rate within the window: the
                // minimum bottleneck target stands
                return;
            }
        }
        self.last = Some((cx.now, target));
        if target == cx.rate || (!self.raises && target > cx.rate) {
            return;
        }
        self.cnms += 1;
        self.base.reset_rate(cx, target);
    }
}

impl SenderCc for SrccSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        self.base.cc().on_start(cx)
    }
    fn on_ack(&mut self, cx: &mut SenderCx, ack: &Packet) {
        self.base.cc().on_ack(cx, ack)
    }
    fn on_nack(&mut self, cx: &mut SenderCx, nack: &Packet) {
        self.base.cc().on_nack(cx, nack)
    }
    fn on_control(&mut self, cx: &mut SenderCx, pkt: &Packet) {
        if pkt.kind == PktKind::Ctrl && pkt.sub == CNM_SUB {
            self.on_cnm(cx, pkt.aux[0] as f64);
        } else {
            self.base.cc().on_control(cx, pkt)
        }
    }
    fn on_timer(&mut self, cx: &mut SenderCx, slot: usize) {
        self.base.cc().on_timer(cx, slot)
    }
    fn on_send(&mut self, cx: &mut SenderCx, pkt: &mut Packet) {
        self.base.cc().on_send(cx, pkt)
    }
    fn on_timeout(&mut self, cx: &mut SenderCx) {
        self.base.cc().on_timeout(cx)
    }
    fn probe(&self) -> f64 {
        match &self.base {
            BaseSender::Dcqcn(s) => s.probe(),
            BaseSender::Hpcc(s) => s.probe(),
        }
    }
}

/// Q_PFC the core would use for an ingress of rate `rate_bps` at a switch with
/// `ports` and a `buffer`-byte shared buffer, when the buffer is empty, under
/// the default PFC settings (see [`SrccConfig::q_pfc`]).
pub fn default_q_pfc(ports: &[PortStat], rate_bps: u64, buffer: u64) -> u64 {
    let net = ccsim_core::NetConfig::default();
    let pkt = net.packet_size();
    let mut hdrm = 0u64;
    for p in ports {
        let h = (net.pfc.headroom_factor * (p.rate_bps as f64 / 8.0) * (p.delay as f64 / SEC as f64)).ceil() as u64
            + 2 * pkt;
        hdrm += h;
    }
    let rsrv = net.reserve.0 * ports.len() as u64;
    let free = buffer.saturating_sub(hdrm + rsrv);
    let alpha = (net.pfc.alpha_per_100g * rate_bps as f64 / 100e9).min(1.0);
    let alpha_1024 = ((alpha * 1024.0).round() as u64).max(1);
    (free as u128 * alpha_1024 as u128 / 1024) as u64
}

/// Eq. (6): Q_cth = Q_PFC/M - N_TTL x d x C x (m - 1), at least `floor` (bytes;
/// d in ps, C in bit/s).
pub fn q_cth(q_pfc: u64, m_ports: u32, n_ttl: u32, d: Time, c_bps: u64, m_flows: u32, floor: u64) -> u64 {
    let share = q_pfc as f64 / m_ports.max(1) as f64;
    let per_flow = n_ttl as f64 * (d as f64 / SEC as f64) * c_bps as f64 / 8.0;
    let q = share - per_flow * (m_flows.max(1) - 1) as f64;
    if q <= floor as f64 {
        floor
    } else {
        q as u64
    }
}

/// Per-egress state of a switch.
#[derive(Default)]
struct Egress {
    /// Flow -> last arrival at this egress.
    flows: HashMap<u32, Time>,
    last_prune: Time,
}

/// SRCC's congestion and notification point in one switch.
pub struct SrccSwitch {
    cfg: SrccConfig,
    n: usize,
    window: Time,
    cnm_interval: Time,
    /// Q_PFC per ingress port.
    q_pfc: Vec<u64>,
    /// last[i * n + e]: last arrival through ingress i to egress e (any packet).
    last: Vec<Time>,
    /// t_uf[i * n + e]: last arrival through ingress i of a packet that found
    /// egress e uncongested.
    t_uf: Vec<Time>,
    egress: Vec<Egress>,
    /// Flow -> last CNM sent.
    cnm_sent: HashMap<u32, Time>,
    base: Option<Box<dyn SwitchCc>>,
    /// CNMs emitted.
    pub cnms: u64,
}

const NEVER: Time = Time::MAX;

impl SrccSwitch {
    pub fn new(cfg: &SrccConfig, ports: &[PortStat], base: Option<Box<dyn SwitchCc>>) -> Self {
        let n = ports.len();
        let q_pfc = ports
            .iter()
            .map(|p| if cfg.q_pfc.0 > 0 { cfg.q_pfc.0 } else { default_q_pfc(ports, p.rate_bps, cfg.buffer.0) })
            .collect();
        SrccSwitch {
            cfg: cfg.clone(),
            n,
            window: cfg.window(),
            cnm_interval: cfg.rtt_or(cfg.cnm_interval),
            q_pfc,
            last: vec![NEVER; n * n],
            t_uf: vec![NEVER; n * n],
            egress: (0..n).map(|_| Egress::default()).collect(),
            cnm_sent: HashMap::new(),
            base,
            cnms: 0,
        }
    }

    fn recent(t: Time, now: Time, w: Time) -> bool {
        t != NEVER && now.saturating_sub(t) < w
    }

    /// Flows that sent to egress `e` within the last T.
    fn active_flows(&mut self, e: usize, now: Time) -> u32 {
        let rtt = self.window;
        let eg = &mut self.egress[e];
        if now.saturating_sub(eg.last_prune) >= rtt / 4 {
            eg.flows.retain(|_, t| now.saturating_sub(*t) < rtt);
            eg.last_prune = now;
        }
        eg.flows.len().max(1) as u32
    }

    /// Q_cth for a packet from ingress `i` to egress `e` (see the module docs).
    pub fn threshold(&mut self, cx: &SwitchCx, i: usize, e: usize, hops: u8, m: u32) -> u64 {
        let q_pfc = self.q_pfc[i];
        if self.cfg.fixed_qcth_frac > 0.0 {
            return (self.cfg.fixed_qcth_frac * q_pfc as f64) as u64;
        }
        let now = cx.now;
        let w = self.window;
        let m_ports = (0..self.n).filter(|&o| Self::recent(self.last[i * self.n + o], now, w)).count() as u32;
        let d = if self.cfg.hop_delay.0 > 0 { self.cfg.hop_delay.0 } else { cx.ports[i].delay };
        q_cth(q_pfc, m_ports, hops as u32, d, cx.ports[e].rate_bps, m, self.cfg.q_floor.0)
    }
}

impl SwitchCc for SrccSwitch {
    fn on_enqueue(&mut self, cx: &mut SwitchCx, in_port: u16, out_port: u16, pkt: &mut Packet) {
        if let Some(b) = self.base.as_mut() {
            b.on_enqueue(cx, in_port, out_port, pkt);
        }
        if pkt.kind != PktKind::Data || pkt.class == 0 {
            return;
        }
        let (i, e) = (in_port as usize, out_port as usize);
        if i >= self.n || e >= self.n {
            return;
        }
        let now = cx.now;
        self.last[i * self.n + e] = now;
        self.egress[e].flows.insert(pkt.flow, now);
        let m = self.active_flows(e, now);
        let qth = self.threshold(cx, i, e, pkt.hops, m);
        if cx.ports[e].qlen <= qth {
            self.t_uf[i * self.n + e] = now;
            return;
        }
        // congested flow: a culprit if uncongested traffic (to another egress)
        // used this ingress within T
        let w = self.window;
        let shares = (0..self.n).any(|o| o != e && Self::recent(self.t_uf[i * self.n + o], now, w));
        if shares == self.cfg.literal_window {
            return;
        }
        if let Some(&t) = self.cnm_sent.get(&pkt.flow) {
            if now.saturating_sub(t) < self.cnm_interval {
                return;
            }
        }
        self.cnm_sent.insert(pkt.flow, now);
        if self.cnm_sent.len() > 4096 {
            let keep = self.cnm_interval;
            self.cnm_sent.retain(|_, t| now.saturating_sub(*t) < keep);
        }
        let n = if self.cfg.target_window_rtts > 0.0 {
            let w = (self.cfg.rtt.0 as f64 * self.cfg.target_window_rtts) as Time;
            self.egress[e].flows.values().filter(|&&t| now.saturating_sub(t) < w).count().max(1) as u32
        } else {
            m
        };
        let target = self.cfg.target_scale * cx.ports[e].rate_bps as f64 / n as f64;
        let mut cnm = Packet {
            kind: PktKind::Ctrl,
            sub: CNM_SUB,
            class: 0,
            flow: pkt.flow,
            src: cx.node,
            dst: pkt.src,
            size: self.cfg.cnm_size.0 as u32,
            hash: pkt.hash.wrapping_add(2),
            ts: now,
            ..Default::default()
        };
        cnm.aux[0] = target as u64;
        cnm.aux[1] = cx.node as u64;
        cnm.aux[2] = qth;
        cx.emit.push(cnm);
        self.cnms += 1;
    }

    fn on_dequeue(&mut self, cx: &mut SwitchCx, in_port: u16, out_port: u16, pkt: &mut Packet) {
        if let Some(b) = self.base.as_mut() {
            b.on_dequeue(cx, in_port, out_port, pkt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{self, Harness};

    const G100: u64 = 100_000_000_000;

    fn ports(n: usize, delay: Time) -> Vec<PortStat> {
        (0..n).map(|i| PortStat { peer: 100 + i as u32, rate_bps: G100, delay, ..Default::default() }).collect()
    }

    fn data(flow: u32, src: u32, hops: u8) -> Packet {
        Packet { kind: PktKind::Data, class: 1, flow, src, dst: 50, size: 1048, hops, ..Default::default() }
    }

    /// Feeds one packet from ingress `i` to egress `e` at `now` with the egress
    /// queue at `qlen`; returns the packets emitted.
    fn feed(sw: &mut SrccSwitch, ps: &mut [PortStat], now: Time, i: u16, e: u16, qlen: u64, p: Packet) -> Vec<Packet> {
        ps[e as usize].qlen = qlen;
        let mut emit = Vec::new();
        let mut cx = SwitchCx { now, node: 9, ports: ps, emit: &mut emit };
        let mut p = p;
        sw.on_enqueue(&mut cx, i, e, &mut p);
        emit
    }

    #[test]
    fn eq6_by_hand_and_floor() {
        // Q_PFC/M = 4 MB / 2 = 2 MB; N_TTL d C = 3 x 4 us x 12.5 GB/s = 150 KB; (m-1) = 2
        assert_eq!(q_cth(4_000_000, 2, 3, 4 * US, G100, 3, 100_000), 1_700_000);
        // one flow: no reduction
        assert_eq!(q_cth(4_000_000, 4, 3, 4 * US, G100, 1, 100_000), 1_000_000);
        // 48 flows: 1 MB - 47 x 150 KB < 0 -> floor
        assert_eq!(q_cth(4_000_000, 4, 3, 4 * US, G100, 48, 100_000), 100_000);
        assert_eq!(q_cth(4_000_000, 0, 1, US, G100, 0, 0), 4_000_000, "M and m at least 1");
    }

    #[test]
    fn default_q_pfc_is_core_empty_buffer_threshold() {
        // 3 ports at 100G, 1 us: headroom 3 x 12.5 KB + 2 x 1048 = 39,596 B each;
        // reserve 4 KB each; free = 32 MB - 3 x 43,596 = 31,869,212; x 128/1024.
        assert_eq!(default_q_pfc(&ports(3, US), G100, 32_000_000), 31_869_212 / 8);
        // a 25G ingress has alpha 1/32
        assert_eq!(default_q_pfc(&ports(3, US), 25_000_000_000, 32_000_000), 31_869_212 / 32);
        // a 6 MB buffer: (6,000,000 - 130,788) / 8
        assert_eq!(default_q_pfc(&ports(3, US), G100, 6_000_000), 5_869_212 / 8);
    }

    #[test]
    fn threshold_uses_ports_fed_by_ingress_hops_and_flows() {
        let cfg = SrccConfig { q_pfc: Bytes(4_000_000), ..Default::default() };
        let mut ps = ports(4, 4 * US);
        let mut sw = SrccSwitch::new(&cfg, &ps, None);
        // ingress 0 feeds egress 1 (flows 1, 2) and egress 2 (flow 3)
        feed(&mut sw, &mut ps, 10 * US, 0, 1, 0, data(1, 1, 3));
        feed(&mut sw, &mut ps, 11 * US, 0, 1, 0, data(2, 2, 3));
        feed(&mut sw, &mut ps, 12 * US, 0, 2, 0, data(3, 3, 3));
        let cx = SwitchCx { now: 13 * US, node: 9, ports: &ps, emit: &mut Vec::new() };
        // M = 2, m = 2 at egress 1, 3 hops of 4 us: 2 MB - 150 KB
        assert_eq!(sw.threshold(&cx, 0, 1, 3, 2), 1_850_000);
        // after T without traffic to egress 2, M = 1
        let cx = SwitchCx { now: 12 * US + cfg.window(), node: 9, ports: &ps, emit: &mut Vec::new() };
        assert_eq!(sw.threshold(&cx, 0, 1, 3, 2), 4_000_000 - 150_000);
        // fixed option
        let cfg = SrccConfig { q_pfc: Bytes(4_000_000), fixed_qcth_frac: 0.4, ..Default::default() };
        let mut sw = SrccSwitch::new(&cfg, &ps, None);
        let cx = SwitchCx { now: 13 * US, node: 9, ports: &ps, emit: &mut Vec::new() };
        assert_eq!(sw.threshold(&cx, 0, 1, 3, 2), 1_600_000);
    }

    /// Victim detection: a congested flow (to egress 1) sharing ingress 0 with
    /// an uncongested flow (to egress 2) gets a CNM; the same congested flow
    /// alone on its ingress does not.
    #[test]
    fn cnm_only_for_congested_flow_sharing_ingress_with_victim() {
        let cfg = SrccConfig { q_pfc: Bytes(1_000_000), q_floor: Bytes(50_000), ..Default::default() };
        let big = 2_000_000; // above any Q_cth here
                             // shared ingress: victim flow 2 (src 22) to egress 2, culprit flow 1 (src 11) to egress 1
        let mut ps = ports(4, US);
        let mut sw = SrccSwitch::new(&cfg, &ps, None);
        assert!(feed(&mut sw, &mut ps, 100 * US, 0, 2, 0, data(2, 22, 2)).is_empty());
        let out = feed(&mut sw, &mut ps, 101 * US, 0, 1, big, data(1, 11, 2));
        assert_eq!(out.len(), 1, "culprit notified");
        let c = &out[0];
        assert_eq!((c.kind, c.sub, c.class, c.flow, c.src, c.dst), (PktKind::Ctrl, CNM_SUB, 0, 1, 9, 11));
        // one flow at egress 1: target = 0.9 x C / 1
        assert_eq!(c.aux[0], 90_000_000_000);
        assert_eq!(sw.cnms, 1);
        // at most one per flow per interval
        assert!(feed(&mut sw, &mut ps, 102 * US, 0, 1, big, data(1, 11, 2)).is_empty());
        let later = 101 * US + cfg.rtt.0;
        assert!(feed(&mut sw, &mut ps, later - US, 0, 2, 0, data(2, 22, 2)).is_empty());
        let out = feed(&mut sw, &mut ps, later, 0, 1, big, data(1, 11, 2));
        assert_eq!(out.len(), 1, "again after the interval");
        // a second congested flow at egress 1: target halves
        let out = feed(&mut sw, &mut ps, later + US, 0, 1, big, data(4, 44, 2));
        assert_eq!(out[0].aux[0], 45_000_000_000);
        assert_eq!(out[0].dst, 44);

        // congested flow alone on ingress 3; the victim uses ingress 0
        let mut ps = ports(4, US);
        let mut sw = SrccSwitch::new(&cfg, &ps, None);
        feed(&mut sw, &mut ps, 100 * US, 0, 2, 0, data(2, 22, 2));
        for k in 0..10 {
            // its own earlier uncongested packets do not make it a victim
            assert!(
                feed(&mut sw, &mut ps, (101 + k) * US, 3, 1, if k < 3 { 0 } else { big }, data(1, 11, 2)).is_empty()
            );
        }
        assert_eq!(sw.cnms, 0);
    }

    /// The reading of §III-B that protects victims: uncongested traffic on the
    /// ingress within T -> notify; last seen longer than T ago -> do not. The
    /// literal option is the reverse.
    #[test]
    fn window_t_decides_sharing() {
        let cfg = SrccConfig { q_pfc: Bytes(1_000_000), q_floor: Bytes(50_000), ..Default::default() };
        let lit = SrccConfig { literal_window: true, ..cfg.clone() };
        let t = cfg.window();
        assert_eq!(t, 105 * US);
        for (cfg, gap, expect) in [(&cfg, t - US, 1), (&cfg, t + US, 0), (&lit, t - US, 0), (&lit, t + US, 1)] {
            let mut ps = ports(3, US);
            let mut sw = SrccSwitch::new(cfg, &ps, None);
            feed(&mut sw, &mut ps, 10 * US, 0, 2, 0, data(2, 22, 1));
            let out = feed(&mut sw, &mut ps, 10 * US + gap, 0, 1, 2_000_000, data(1, 11, 1));
            assert_eq!(out.len(), expect, "gap {gap}, literal {}", cfg.literal_window);
        }
    }

    /// The target's n: flows seen at the egress within T (default) or within
    /// `target_window_rtts`.
    #[test]
    fn target_counts_flows_within_its_window() {
        let big = 2_000_000;
        for (tw, expect) in [(0.0, 30_000_000_000u64), (1.0, 45_000_000_000)] {
            let cfg = SrccConfig {
                q_pfc: Bytes(1_000_000),
                q_floor: Bytes(50_000),
                target_window_rtts: tw,
                ..Default::default()
            };
            let mut ps = ports(4, US);
            let mut sw = SrccSwitch::new(&cfg, &ps, None);
            // flow 3 sent to egress 1 two RTTs ago (within T = 3 RTT, not within 1 RTT)
            feed(&mut sw, &mut ps, 10 * US, 3, 1, 0, data(3, 33, 2));
            let now = 10 * US + 2 * cfg.rtt.0;
            feed(&mut sw, &mut ps, now, 0, 2, 0, data(2, 22, 2));
            feed(&mut sw, &mut ps, now, 3, 1, 0, data(4, 44, 2));
            let out = feed(&mut sw, &mut ps, now + US, 0, 1, big, data(1, 11, 2));
            assert_eq!(out[0].aux[0], expect, "target_window_rtts {tw}");
        }
    }

    fn cnm(target: u64) -> Packet {
        let mut p = Packet { kind: PktKind::Ctrl, sub: CNM_SUB, ..Default::default() };
        p.aux[0] = target;
        p
    }

    #[test]
    fn sender_sets_target_at_once_min_within_window_then_base_runs() {
        let flow = testutil::flow();
        let mut s =
            SrccSender::new(BaseSender::Dcqcn(DcqcnSender::new(&DcqcnConfig::default(), &flow)), 35 * US, false);
        let mut h = Harness::new(flow);
        h.start(&mut s);
        assert_eq!(h.rate, G100 as f64);
        h.now = 10 * US;
        h.control(&mut s, &cnm(20_000_000_000));
        assert_eq!(h.rate, 20e9, "rate = target immediately");
        // a higher target from another switch within the window is ignored
        h.now = 20 * US;
        h.control(&mut s, &cnm(40_000_000_000));
        assert_eq!(h.rate, 20e9);
        // a lower one applies
        h.control(&mut s, &cnm(10_000_000_000));
        assert_eq!(h.rate, 10e9);
        assert_eq!(s.cnms_applied(), 2);
        // DCQCN recovers from there: Rt = the rate before the CNM (20G, as a
        // DCQCN cut sets Rt = Rc), one fast-recovery step halves the gap
        assert!(h.timers.iter().any(|t| t.is_some()), "increase timer armed");
        h.run_until(&mut s, 20 * US + 56 * US);
        assert_eq!(h.rate, 15e9);
        // after the window: a target above the current rate changes nothing
        // (cnm_raises = false),
        h.now = 200 * US;
        h.control(&mut s, &cnm(30_000_000_000));
        assert_eq!(h.rate, 15e9);
        assert_eq!(s.cnms_applied(), 2);
        // a lower one applies (the window restarted at 200 us)
        h.now = 240 * US;
        h.control(&mut s, &cnm(12_000_000_000));
        assert_eq!(h.rate, 12e9);
        // a CNP still reaches DCQCN: it cuts the rate
        h.control(&mut s, &testutil::cnp());
        assert!(h.rate < 12e9);
    }

    /// cnm_raises: the rate is set to the target also upwards, and
    /// DCQCN's recovery then aims at no less than the target.
    #[test]
    fn cnm_sets_rate_up_when_raising() {
        let flow = testutil::flow();
        let mut s = SrccSender::new(BaseSender::Dcqcn(DcqcnSender::new(&DcqcnConfig::default(), &flow)), 35 * US, true);
        let mut h = Harness::new(flow);
        h.start(&mut s);
        h.now = 10 * US;
        h.control(&mut s, &cnm(5_000_000_000));
        assert_eq!(h.rate, 5e9);
        // DCQCN cuts it further
        h.now = 100 * US;
        h.control(&mut s, &testutil::cnp());
        let cut = h.rate;
        assert!(cut < 5e9);
        // a later CNM (outside the window) with the fair share raises it back
        h.now = 200 * US;
        h.control(&mut s, &cnm(8_000_000_000));
        assert_eq!(h.rate, 8e9);
        assert_eq!(s.cnms_applied(), 2);
        // and the next recovery step does not pull it down
        h.run_until(&mut s, 200 * US + 56 * US);
        assert!(h.rate >= 8e9, "{}", h.rate);
    }

    /// §III-E: "SRCC resets the target sending rate once receiving CNM at the
    /// sender ... instead of the slow evolution-based rate adjustment": with
    /// the default configuration a CNM sets the rate to its target whether
    /// the target is below or above the current rate; `cnm_raises = false`
    /// keeps the rate when the target is above it.
    #[test]
    fn default_sender_resets_rate_to_cnm_target_up_or_down() {
        let t = |src: &str| Value::Table(src.parse::<Table>().unwrap());
        for (params, raises) in [(None, true), (Some(t("cnm_raises = false")), false)] {
            let scheme = registry::make("srcc", params.as_ref()).unwrap();
            let flow = testutil::flow();
            let mut s = scheme.sender(&flow);
            let mut h = Harness::new(flow);
            h.start(s.as_mut());
            h.now = 10 * US;
            h.control(s.as_mut(), &cnm(20_000_000_000));
            assert_eq!(h.rate, 20e9, "a lower target is the new rate");
            // a CNM after the sender's window, with a target above the rate
            h.now = 200 * US;
            let before = h.rate;
            assert!(before < 30e9);
            h.control(s.as_mut(), &cnm(30_000_000_000));
            if raises {
                assert_eq!(h.rate, 30e9, "default: the rate is reset to the higher target");
            } else {
                assert_eq!(h.rate, before, "cnm_raises = false: a higher target is ignored");
            }
        }
    }

    #[test]
    fn hpcc_base_gets_rate_and_window() {
        let flow = testutil::flow();
        let cfg = HpccConfig::default();
        let mut s = SrccSender::new(BaseSender::Hpcc(HpccSender::new(&cfg, &flow)), 35 * US, true);
        let mut h = Harness::new(flow.clone());
        h.start(&mut s);
        h.control(&mut s, &cnm(25_000_000_000));
        assert_eq!(h.rate, 25e9);
        // W = R x T with T = 10 us: 31,250 B
        assert_eq!(h.window, 31_250);
        match &s.base {
            BaseSender::Hpcc(b) => assert_eq!(b.committed_rate(), 25e9),
            _ => unreachable!(),
        }
    }

    #[test]
    fn config_base_and_requirements() {
        let t = |src: &str| Value::Table(src.parse::<Table>().unwrap());
        let c: SrccConfig = registry::config(None).unwrap();
        assert_eq!(c, SrccConfig::default());
        let s = registry::make("srcc", Some(&t("base = \"hpcc\"\nbase_params = { eta = 0.9 }"))).unwrap();
        assert!(s.requirements().int_on_data, "HPCC's INT kept");
        let s = registry::make("srcc", None).unwrap();
        assert!(!s.requirements().int_on_data);
        let e = registry::make("srcc", Some(&t("base = \"cubic\""))).err().unwrap();
        assert!(e.starts_with("scheme.srcc.base = \"cubic\""), "{e}");
        let e = registry::make("srcc", Some(&t("base_params = { nope = 1 }"))).err().unwrap();
        assert!(e.contains("scheme.srcc.base_params") && e.contains("nope"), "{e}");
        let e = registry::make("srcc", Some(&t("fixed_qcth_frac = 1.5"))).err().unwrap();
        assert!(e.starts_with("scheme.srcc.fixed_qcth_frac"), "{e}");
    }
}
