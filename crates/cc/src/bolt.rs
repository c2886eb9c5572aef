//! Bolt (Arslan et al., "Bolt: Sub-RTT Congestion Control for Ultra-Low
//! Latency", NSDI'23): window control from switch feedback, with three parts.
//!
//! * **SRC (sub-RTT control)**, switch (Algorithm 1): when a data packet arrives
//!   for an egress whose queue holds at least `CC_THRESH` bytes, the switch sends
//!   an SRC packet straight back to the sender (queue size, link rate, the data
//!   packet's reflected TX timestamp) in the control class (strict priority, never
//!   queued behind data), unless the packet already carries DEC; it then sets DEC
//!   and clears INC on the data packet, so one data packet triggers at most one SRC
//!   along its path.
//! * **PRU (proactive ramp-up)**: senders mark their last window (LAST) and first
//!   window (FIRST); an uncongested switch turns each LAST, non-FIRST packet into a
//!   PRU token of its egress and hands tokens to packets that ask (INC).
//! * **SM (supply matching)**, switch (Algorithm 3): per egress, a supply token
//!   accumulates `rate x inter-arrival - packet size` over data arrivals, capped at
//!   one MTU; a packet asking for INC that finds no PRU token takes one MTU of it.
//!   An INC that survives every switch comes back on the ACK: cwnd += 1 packet.
//! * Sender (Algorithm 2): per SRC, rtt_src = now - t_data_tx,
//!   reaction = flow rate / link rate, target_q = q_size (packets) x reaction;
//!   cwnd -= 1 packet if at least rtt_src / target_q passed since the last
//!   decrement. flow rate = cwnd / the last RTT sample (line rate before one),
//!   as `flow.rate` in Algorithm 2 and `curRate` in the authors' ns-3 HandleBts.
//!   Per ACK: +1 packet if INC; +1 packet once per RTT (additive increase
//!   fallback): on the first ACK that acknowledges a packet sent after the last
//!   increase (ACK seq above the `snd_nxt` recorded then), so a window-limited
//!   flow gets exactly one per round of ACKs. cwnd starts at one BDP (line-rate
//!   start) and is clamped.
//! * Sending: a window of at least one packet goes out at line rate (Swift's
//!   and the ns-3 code's behaviour), below one packet paced at cwnd / RTT;
//!   `pacing = true` paces every window at cwnd x packet size / RTT.
//!
//! The switch logic runs in [`SwitchCc::on_enqueue`], i.e. after routing, where
//! the egress queue is known: the ingress-pipeline position of the paper (§4.1).
//!
//! # Header on the wire
//!
//! The 9-byte Bolt header (listing 1) is carried in `Packet::aux[3]`, and its
//! byte cost is added to every data packet (`on_send`), ACK (`fill_ack`) and SRC
//! packet. Layout of `aux[3]`:
//!
//! | bits   | field                                                          |
//! |--------|----------------------------------------------------------------|
//! | 0..8   | flags: DATA 1, ACK 2, SRC 4, LAST 8, FIRST 16, INC 32, DEC 64    |
//! | 8..32  | q_size: queue bytes at the congested egress (24 bits, saturating)|
//! | 32..40 | link_rate: rate of that egress in units of 5 Gbps (8 bits)     |
//!
//! t_data_tx (32 bits on the wire) is the packet's `ts` (the core stamps the send
//! time on data packets; an SRC carries the reflected value in its own `ts`).
//! Bolt uses no other `aux` word, so a wrapped brownfield scheme may use
//! `aux[0..3]`.
//!
//! SRC packets are header-only: by default 79 bytes, an SRC sent as a RoCEv2
//! unreliable datagram as in the paper's prototype (§4.3): Ethernet 14 + IPv4 20
//! + UDP 8 + IB BTH 12 + DETH 8 + Bolt 9 + ICRC 4 + FCS 4.
//!
//! # Counters
//!
//! Each Bolt switch reports `bolt_src_packets` and `bolt_src_bytes` (SRC packets
//! it generated) through [`SwitchCc::counters`]; the run sums them into
//! `RunResult::scheme_counters`. SRC bandwidth as a share of a link of rate C
//! over a run of length T is `bolt_src_bytes x 8 / (C x T)` ([`src_overhead`]).
//!
//! Under a standing queue (an incast) nearly every data packet meets a
//! congested egress and triggers one SRC (Algorithm 1: one per data packet not
//! already DEC), so SRC bandwidth ~ C x p_src / p_data (Appendix A, eq. 3 with
//! the congested fraction ~1): 100G x 79 / 1057 = 7.5 Gbps with the defaults.
//! The paper's 0.77 Gbps (Table 2) comes from the ns-3 incast script
//! (`scratch/bolt-star-topo-incast.cc`): 5000 B MTU and SRC counted as IPv4 +
//! Bolt headers (45 B), i.e. ~5x fewer data packets per byte and 0.57x the SRC
//! size, which bounds the SRC bandwidth at ~0.9 Gbps. ccsim measures Table 2 with
//! those sizes (experiments/bolt/table2-incast.toml; claims table2-src-bw,
//! table2-src-per-data; results in docs/reproduction/bolt/report.md).
//!
//! # Brownfield (§6)
//!
//! `brownfield = "NAME"` runs the sender of another registered scheme (Swift in
//! the paper) beside Bolt's; the flow's window is the smaller of the two and its
//! pacing rate the lower. Switches listed in `non_bolt_switches` run no Bolt logic
//! (no SRC, tokens or flag changes), as legacy switches in the same network.
//!
//! `probe()` returns Bolt's cwnd in bytes.

use crate::registry::SchemeConfig;
use ccsim_core::cc::{
    FlowView, PortStat, ReceiverCc, ReceiverCx, Requirements, Scheme, SenderCc, SenderCx, SwitchCc, SwitchCx,
};
use ccsim_core::packet::{Packet, PktKind};
use ccsim_core::results::RunResult;
use ccsim_core::time::{Time, SEC};
use ccsim_core::units::Bytes;
use serde::{Deserialize, Serialize};

/// Flag bits of the Bolt header (in `aux[3]`).
pub mod flag {
    pub const DATA: u64 = 1;
    pub const ACK: u64 = 2;
    pub const SRC: u64 = 4;
    pub const LAST: u64 = 8;
    pub const FIRST: u64 = 16;
    pub const INC: u64 = 32;
    pub const DEC: u64 = 64;
}

/// `Packet::sub` of Bolt's SRC control packets.
pub const SRC_SUB: u8 = 0xB0;
/// Which `aux` word holds the Bolt header.
pub const AUX: usize = 3;
/// Unit of the 8-bit link-rate field (bits/s).
pub const RATE_UNIT: u64 = 5_000_000_000;
const Q_MAX: u64 = (1 << 24) - 1;

/// Encodes the header word: flags, queue bytes (saturating at 24 bits) and link
/// rate (rounded up to 5 Gbps units, 1..=255).
pub fn encode(flags: u64, q_size: u64, link_rate_bps: u64) -> u64 {
    let rate = link_rate_bps.div_ceil(RATE_UNIT).clamp(1, 255);
    (flags & 0xff) | (q_size.min(Q_MAX) << 8) | (rate << 32)
}

/// Flags of a header word.
pub fn flags(h: u64) -> u64 {
    h & 0xff
}

/// Queue size (bytes) of a header word.
pub fn q_size(h: u64) -> u64 {
    (h >> 8) & Q_MAX
}

/// Link rate (bits/s) of a header word; 0 if unset.
pub fn link_rate(h: u64) -> u64 {
    ((h >> 32) & 0xff) * RATE_UNIT
}

/// Bolt parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoltConfig {
    /// CC_THRESH in MTUs: a data packet arriving at an egress with at least this
    /// much queued (before it is added; the packet being transmitted not
    /// counted) triggers an SRC. The MTU is the wire size of the largest data
    /// packet the switch has seen (Bolt header included).
    ///
    /// Default 3.0: what the paper's simulations used, translated to ccsim's
    /// queue. The ns-3 scripts behind §5.1 (`scratch/bolt-pru-benchmarks.cc`,
    /// `bolt-link-utilization-experiment.cc`) set `ccThreshold("3KB") // 2
    /// packets` at a 1500 B MTU (the testbed script 10 KB at 5000 B: again 2
    /// packets), and `PfifoBoltQueueDisc::DoEnqueue` compares it with the
    /// queue disc's bytes before the arriving packet is enqueued. That queue
    /// disc sits above a 1-packet device queue (`SetQueue(... "MaxSize", "1p")`
    /// on the bottleneck), which holds the next packet while one is on the wire
    /// and is not counted; ccsim's egress queue counts it. So "2 packets in the
    /// queue disc" is 3 packets here. The paper's text (§3.1) says CC_THRESH is
    /// "trivially set to a single MTU": `cc_thresh_mtus = 1` reproduces that
    /// (it keeps the queue lower but leaves ~1 MTU standing from the per-RTT
    /// additive increase, so LAST packets meet a "congested" port and PRU earns
    /// few tokens: Fig. 11 refills more slowly; sensitivity sweep
    /// `scheme.bolt.cc_thresh_mtus` of claims fig10-bolt-drain, fig11-bolt-refill,
    /// table1-deltas and fig12-reroute, docs/reproduction/bolt/report.md). The ns-3
    /// class default is 62 KB; its fat-tree script uses 10 KB at a 5000 B MTU.
    pub cc_thresh_mtus: f64,
    /// MTUs subtracted from the egress queue before it is written into an SRC
    /// (q_size, floored at 0). Default 0.0: the whole queue, as Algorithm 1
    /// line 6 (switch.q_size). 1.0 reports what the ns-3 code reports:
    /// `PfifoBoltQueueDisc::DoEnqueue` puts the drain time of the queue
    /// disc's bytes (`GetNBytes()`) into the SRC, the same quantity it compares
    /// with CC_THRESH, and that excludes the packet held by the 1-packet device
    /// queue which ccsim's egress queue counts (see `cc_thresh_mtus`). 1.0
    /// lowers the decrement rate of Algorithm 2 at the small queues Bolt keeps:
    /// PRU then never earns a token (the queue stays at CC_THRESH when LAST
    /// packets arrive), and in Fig. 10 the queue no longer drains below 1 MTU;
    /// so the default stays with the paper (sensitivity sweep
    /// `scheme.bolt.src_q_offset_mtus` of claim table1-utilization-ns3,
    /// docs/reproduction/bolt/report.md).
    pub src_q_offset_mtus: f64,
    /// Proactive ramp-up on/off. Default true (§3.2; Table 1 toggles it).
    pub pru: bool,
    /// Supply matching on/off. Default true (§3.3; Table 1, Fig. 12b toggle it).
    pub sm: bool,
    /// Most PRU tokens an egress keeps. Default 256 (`pfifo-bolt-queue-disc.cc`
    /// MaxNumPruTokens).
    pub max_pru_tokens: u32,
    /// Cap of the supply token in MTUs. Default 1.0 (Algorithm 3 line 7, §3.3;
    /// `PfifoBoltQueueDisc` MaxInstAvailLoad, whose class default is 30000 B but
    /// which every ns-3 script behind the paper sets to the MTU, e.g.
    /// `bolt-pru-benchmarks.cc`, `bolt-star-topo.cc`). The cap limits SM when a
    /// lone window-limited flow sends line-rate trains: each idle gap, however
    /// long, earns one MTU (Fig. 12 with SM refills faster with a larger cap:
    /// sensitivity sweep `scheme.bolt.sm_cap_mtus` of claim fig12-reroute,
    /// docs/reproduction/bolt/report.md).
    pub sm_cap_mtus: f64,
    /// Bytes the Bolt header adds to each data packet and ACK. Default 9 (listing 1).
    pub header_bytes: u32,
    /// Wire size of an SRC packet. Default 79: a header-only RoCEv2 UD datagram as
    /// in §4.3 (Ethernet 14, IPv4 20, UDP 8, BTH 12, DETH 8, Bolt 9, ICRC 4, FCS 4).
    /// The ns-3 simulations count 45 B (IPv4 20 + their 25 B Bolt header).
    pub src_bytes: u32,
    /// Initial cwnd in flow BDPs (line-rate start). Default 1.0 (ALGORITHMS.md A3;
    /// `bolt-l4-protocol.cc` starts m_cwnd at the BDP).
    pub init_cwnd_bdps: f64,
    /// Largest cwnd in flow BDPs. Default 1.0 (ALGORITHMS.md A3; the ns-3 code's
    /// MaxCwnd 373760 B is about 1.2 of its 312500 B BDP).
    pub max_cwnd_bdps: f64,
    /// Smallest cwnd. Default 15B (`bolt-l4-protocol.cc` MinCwnd). Below one
    /// packet the sender paces one packet per cwnd-worth of RTT.
    pub min_cwnd: Bytes,
    /// Factor a cwnd of at most one packet is multiplied by per SRC. Default 0.5
    /// (`bolt-l4-protocol.cc` HandleBts: cwnd x (1 - MaxMd), MaxMd 0.5).
    pub small_cwnd_md: f64,
    /// Pace a window of at least one packet at the flow's rate, cwnd x wire
    /// packet size / RTT (the last RTT sample; the base RTT before one), instead
    /// of sending it at line rate. Default false: the paper says only that its
    /// prototype "added Bolt in 1340 LOC in addition to the existing Swift
    /// implementation" of Snap (§4), and Swift paces only a window below one
    /// packet; Algorithm 2 reads `flow.rate` without saying how the host sends.
    /// The authors' ns-3 code decides the same for the simulations:
    /// `BoltOutboundMsg::SendDown` (`bolt-l4-protocol.cc`) paces only when cwnd
    /// is below one packet and otherwise sends the window back to back at the
    /// NIC's rate. With false a
    /// window comes back as one burst of SRCs per RTT, and the decrement spacing
    /// (rtt_src / target_q) lets few of them count; sensitivity sweep
    /// `scheme.bolt.pacing` of the claims it moves.
    pub pacing: bool,
    /// Switch node ids that are not Bolt-capable (run no Bolt logic). Default [].
    pub non_bolt_switches: Vec<u32>,
    /// Brownfield (§6): name of a registered scheme whose sender runs beside
    /// Bolt's; the effective window is the min of both. Default "" (none).
    pub brownfield: String,
    /// Parameters of the brownfield scheme as TOML, e.g. "window_bdps = 0.5".
    /// Default "" (its defaults).
    pub brownfield_params: String,
}

impl Default for BoltConfig {
    fn default() -> Self {
        BoltConfig {
            cc_thresh_mtus: 3.0,
            src_q_offset_mtus: 0.0,
            pru: true,
            sm: true,
            max_pru_tokens: 256,
            sm_cap_mtus: 1.0,
            header_bytes: 9,
            src_bytes: 79,
            init_cwnd_bdps: 1.0,
            max_cwnd_bdps: 1.0,
            min_cwnd: Bytes(15),
            small_cwnd_md: 0.5,
            pacing: false,
            non_bolt_switches: Vec::new(),
            brownfield: String::new(),
            brownfield_params: String::new(),
        }
    }
}

impl BoltConfig {
    fn make_inner(&self) -> Result<Option<Box<dyn Scheme>>, (&'static str, String)> {
        if self.brownfield.is_empty() {
            if !self.brownfield_params.is_empty() {
                return Err(("brownfield_params", "given without a brownfield scheme".into()));
            }
            return Ok(None);
        }
        if self.brownfield == BoltConfig::NAME {
            return Err(("brownfield", "Bolt cannot wrap itself".into()));
        }
        let params = if self.brownfield_params.is_empty() {
            None
        } else {
            let t: toml::Table =
                self.brownfield_params.parse().map_err(|e| ("brownfield_params", format!("not a TOML table: {e}")))?;
            Some(toml::Value::Table(t))
        };
        crate::registry::make(&self.brownfield, params.as_ref()).map(Some).map_err(|e| ("brownfield", e))
    }
}

impl SchemeConfig for BoltConfig {
    const NAME: &'static str = "bolt";
    const SUMMARY: &'static str =
        "Bolt (Arslan et al. NSDI'23): sub-RTT switch feedback (SRC), proactive ramp-up, supply matching";
    const PARAMS: &'static [(&'static str, &'static str)] = &[
        ("cc_thresh_mtus", "CC_THRESH: queue (in MTUs) at which switches send SRC"),
        ("src_q_offset_mtus", "MTUs subtracted from the queue reported in an SRC (1 = ns-3's queue disc)"),
        ("pru", "proactive ramp-up (PRU tokens from LAST packets)"),
        ("sm", "supply matching (supply token per egress)"),
        ("max_pru_tokens", "most PRU tokens per egress"),
        ("sm_cap_mtus", "cap of the supply token, in MTUs"),
        ("header_bytes", "Bolt header bytes on each data packet and ACK"),
        ("src_bytes", "wire size of an SRC packet"),
        ("init_cwnd_bdps", "initial cwnd in BDPs (line-rate start)"),
        ("max_cwnd_bdps", "largest cwnd in BDPs"),
        ("min_cwnd", "smallest cwnd (below a packet the sender paces)"),
        ("small_cwnd_md", "cwnd factor per SRC when cwnd <= 1 packet"),
        (
            "pacing",
            "pace every window at cwnd x packet size / RTT (default false: line rate, paced only below a packet)",
        ),
        ("non_bolt_switches", "switch node ids without Bolt logic (brownfield)"),
        ("brownfield", "scheme whose sender runs beside Bolt's; window = min (e.g. \"swift\")"),
        ("brownfield_params", "that scheme's parameters as TOML, e.g. \"window_bdps = 0.5\""),
    ];

    fn validate(&self) -> Result<(), (&'static str, String)> {
        let pos = |x: f64| x.is_finite() && x > 0.0;
        if !(self.cc_thresh_mtus.is_finite() && self.cc_thresh_mtus >= 0.0) {
            return Err(("cc_thresh_mtus", "must be a number >= 0".into()));
        }
        if !(self.src_q_offset_mtus.is_finite() && self.src_q_offset_mtus >= 0.0) {
            return Err(("src_q_offset_mtus", "must be a number >= 0".into()));
        }
        if !pos(self.sm_cap_mtus) {
            return Err(("sm_cap_mtus", "must be a number > 0".into()));
        }
        if !pos(self.init_cwnd_bdps) {
            return Err(("init_cwnd_bdps", "must be a number > 0".into()));
        }
        if !pos(self.max_cwnd_bdps) {
            return Err(("max_cwnd_bdps", "must be a number > 0".into()));
        }
        if !(self.small_cwnd_md > 0.0 && self.small_cwnd_md <= 1.0) {
            return Err(("small_cwnd_md", "must be in (0, 1]".into()));
        }
        if self.src_bytes == 0 {
            return Err(("src_bytes", "must be positive".into()));
        }
        if self.min_cwnd.0 == 0 {
            return Err(("min_cwnd", "must be positive".into()));
        }
        self.make_inner().map(|_| ())
    }

    fn into_scheme(self) -> Box<dyn Scheme> {
        let inner = self.make_inner().unwrap_or_else(|(k, e)| panic!("scheme.bolt.{k}: {e}"));
        Box::new(Bolt { cfg: self, inner })
    }
}

/// The Bolt scheme.
pub struct Bolt {
    cfg: BoltConfig,
    inner: Option<Box<dyn Scheme>>,
}

impl Bolt {
    pub fn new(cfg: BoltConfig) -> Bolt {
        let inner = cfg.make_inner().unwrap_or_else(|(k, e)| panic!("scheme.bolt.{k}: {e}"));
        Bolt { cfg, inner }
    }
}

impl Scheme for Bolt {
    fn name(&self) -> &str {
        BoltConfig::NAME
    }
    fn requirements(&self) -> Requirements {
        self.inner.as_ref().map(|s| s.requirements()).unwrap_or_default()
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        let inner = self.inner.as_ref().map(|s| s.sender(flow));
        Box::new(BoltSender::new(&self.cfg, flow, inner))
    }
    fn receiver(&self, flow: &FlowView) -> Box<dyn ReceiverCc> {
        Box::new(BoltReceiver {
            header_bytes: self.cfg.header_bytes,
            inner: self.inner.as_ref().map(|s| s.receiver(flow)),
        })
    }
    fn switch(&self, node: u32, ports: &[PortStat]) -> Option<Box<dyn SwitchCc>> {
        if self.cfg.non_bolt_switches.contains(&node) {
            return None;
        }
        Some(Box::new(BoltSwitch::new(&self.cfg, ports.len())))
    }
}

/// SRC bandwidth of a run as a fraction of a link of `capacity_bps` over
/// `duration` (picoseconds): `bolt_src_bytes x 8 / (capacity x duration)`.
pub fn src_overhead(r: &RunResult, capacity_bps: f64, duration: Time) -> f64 {
    let bytes = r.scheme_counters.iter().find(|(k, _)| k == "bolt_src_bytes").map_or(0, |x| x.1);
    bytes as f64 * 8.0 / (capacity_bps * duration as f64 / SEC as f64)
}

/// Per-egress-port switch state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PortState {
    /// Supply token (bytes; negative = queuing).
    pub sm_token: f64,
    /// Time of the last data arrival for this egress (None before the first).
    pub last_sm_time: Option<Time>,
    pub pru_tokens: u32,
}

/// Bolt logic of one switch (Algorithms 1 and 3), state per egress port.
pub struct BoltSwitch {
    cc_thresh_mtus: f64,
    src_q_offset_mtus: f64,
    pru: bool,
    sm: bool,
    max_pru_tokens: u32,
    sm_cap_mtus: f64,
    src_bytes: u32,
    /// Wire size of the largest data packet seen (the MTU).
    mtu: u32,
    pub ports: Vec<PortState>,
    pub src_packets: u64,
    pub src_bytes_sent: u64,
}

impl BoltSwitch {
    pub fn new(cfg: &BoltConfig, n_ports: usize) -> BoltSwitch {
        BoltSwitch {
            cc_thresh_mtus: cfg.cc_thresh_mtus,
            src_q_offset_mtus: cfg.src_q_offset_mtus,
            pru: cfg.pru,
            sm: cfg.sm,
            max_pru_tokens: cfg.max_pru_tokens,
            sm_cap_mtus: cfg.sm_cap_mtus,
            src_bytes: cfg.src_bytes,
            mtu: 0,
            ports: vec![PortState::default(); n_ports],
            src_packets: 0,
            src_bytes_sent: 0,
        }
    }

    /// Algorithm 3: supply token update on a data arrival.
    fn supply_token(&mut self, now: Time, port: usize, rate_bps: u64, size: u32) {
        let cap = self.sm_cap_mtus * self.mtu as f64;
        let st = &mut self.ports[port];
        let tok = match st.last_sm_time {
            // the first arrival follows an idle link: the token fills to its cap
            None => cap,
            Some(last) => {
                let supply = rate_bps as f64 * (now - last) as f64 / (8.0 * SEC as f64);
                st.sm_token + supply - size as f64
            }
        };
        st.sm_token = tok.min(cap);
        st.last_sm_time = Some(now);
    }
}

impl SwitchCc for BoltSwitch {
    fn on_enqueue(&mut self, cx: &mut SwitchCx, _in_port: u16, out_port: u16, pkt: &mut Packet) {
        let h = pkt.aux[AUX];
        if pkt.kind != PktKind::Data || flags(h) & flag::DATA == 0 {
            return;
        }
        self.mtu = self.mtu.max(pkt.size);
        let port = out_port as usize;
        let stat = cx.ports[port];
        self.supply_token(cx.now, port, stat.rate_bps, pkt.size);
        let f = flags(h);
        let mut nf = f;
        if stat.qlen as f64 >= self.cc_thresh_mtus * self.mtu as f64 {
            // congested
            if f & flag::DEC == 0 {
                let mut src = Packet {
                    kind: PktKind::Ctrl,
                    sub: SRC_SUB,
                    class: 0,
                    flow: pkt.flow,
                    src: cx.node,
                    dst: pkt.src,
                    size: self.src_bytes,
                    seq: pkt.seq,
                    ts: pkt.ts,
                    hash: pkt.hash.wrapping_add(1),
                    ..Default::default()
                };
                let offset = (self.src_q_offset_mtus * self.mtu as f64) as u64;
                src.aux[AUX] = encode(flag::SRC | flag::DEC, stat.qlen.saturating_sub(offset), stat.rate_bps);
                cx.emit.push(src);
                self.src_packets += 1;
                self.src_bytes_sent += self.src_bytes as u64;
            }
            nf = (nf | flag::DEC) & !flag::INC;
        } else if f & flag::LAST != 0 {
            // near flow completion: its slot frees up next RTT
            if self.pru && f & flag::FIRST == 0 {
                let st = &mut self.ports[port];
                st.pru_tokens = (st.pru_tokens + 1).min(self.max_pru_tokens);
            }
        } else if f & flag::INC != 0 {
            let mtu = self.mtu as f64;
            let st = &mut self.ports[port];
            if self.pru && st.pru_tokens > 0 {
                st.pru_tokens -= 1;
            } else if self.sm && st.sm_token >= mtu {
                st.sm_token -= mtu;
            } else {
                nf &= !flag::INC;
            }
        }
        pkt.aux[AUX] = (h & !0xff) | nf;
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("bolt_src_packets", self.src_packets), ("bolt_src_bytes", self.src_bytes_sent)]
    }
}

/// Bolt receiver: reflects FIRST/LAST/INC/DEC into the ACK's header and adds the
/// header's bytes to the ACK.
pub struct BoltReceiver {
    header_bytes: u32,
    inner: Option<Box<dyn ReceiverCc>>,
}

impl ReceiverCc for BoltReceiver {
    fn on_data(&mut self, cx: &mut ReceiverCx, data: &Packet) {
        if let Some(i) = self.inner.as_mut() {
            i.on_data(cx, data);
        }
    }
    fn fill_ack(&mut self, cx: &ReceiverCx, data: &Packet, ack: &mut Packet) {
        if let Some(i) = self.inner.as_mut() {
            i.fill_ack(cx, data, ack);
        }
        let f = flags(data.aux[AUX]) & (flag::FIRST | flag::LAST | flag::INC | flag::DEC);
        ack.aux[AUX] = f | flag::ACK;
        ack.size += self.header_bytes;
    }
}

/// Bolt sender of one flow (Algorithm 2).
pub struct BoltSender {
    /// Congestion window (payload bytes).
    cwnd: f64,
    min_cwnd: f64,
    max_cwnd: f64,
    /// Payload bytes of a full packet (one cwnd step).
    mss: f64,
    /// Wire bytes of a full data packet with the Bolt header (queue -> packets).
    pkt_wire: f64,
    header_bytes: u32,
    small_cwnd_md: f64,
    pacing: bool,
    line: f64,
    /// Last RTT sample from an ACK (None before the first).
    rtt: Option<Time>,
    base_rtt: Time,
    last_dec: Option<Time>,
    seq_at_last_ai: u64,
    inner: Option<Box<dyn SenderCc>>,
    inner_rate: f64,
    inner_window: u64,
}

impl BoltSender {
    pub fn new(cfg: &BoltConfig, flow: &FlowView, inner: Option<Box<dyn SenderCc>>) -> BoltSender {
        let bdp = flow.bdp as f64;
        let max_cwnd = (cfg.max_cwnd_bdps * bdp).max(flow.mtu as f64);
        BoltSender {
            cwnd: (cfg.init_cwnd_bdps * bdp).min(max_cwnd),
            min_cwnd: (cfg.min_cwnd.0 as f64).min(max_cwnd),
            max_cwnd,
            mss: flow.mtu as f64,
            pkt_wire: (flow.packet_size + cfg.header_bytes) as f64,
            header_bytes: cfg.header_bytes,
            small_cwnd_md: cfg.small_cwnd_md,
            pacing: cfg.pacing,
            line: flow.line_rate as f64,
            rtt: None,
            base_rtt: flow.base_rtt.max(1),
            last_dec: None,
            seq_at_last_ai: 0,
            inner,
            inner_rate: flow.line_rate as f64,
            inner_window: u64::MAX,
        }
    }

    /// Bolt's own cwnd (payload bytes).
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }

    /// The flow's rate estimate: cwnd / last RTT sample (line rate before any).
    fn flow_rate(&self) -> f64 {
        match self.rtt {
            Some(rtt) if rtt > 0 => self.cwnd * 8.0 * SEC as f64 / rtt as f64,
            _ => self.line,
        }
    }

    /// Runs a hook of the brownfield sender with its own rate and window.
    fn inner_call(&mut self, cx: &mut SenderCx, f: impl FnOnce(&mut dyn SenderCc, &mut SenderCx)) {
        if let Some(inner) = self.inner.as_mut() {
            let (r, w) = (cx.rate, cx.window);
            cx.rate = self.inner_rate;
            cx.window = self.inner_window;
            f(inner.as_mut(), cx);
            self.inner_rate = cx.rate;
            self.inner_window = cx.window;
            cx.rate = r;
            cx.window = w;
        }
    }

    /// Clamps cwnd and sets the flow's window and pacing rate.
    fn apply(&mut self, cx: &mut SenderCx) {
        self.cwnd = self.cwnd.clamp(self.min_cwnd, self.max_cwnd);
        let mut rate = self.line;
        if self.pacing || self.cwnd < self.mss {
            // cwnd per RTT in wire bytes; below one packet that is one packet
            // per (mss / cwnd) RTTs (ns-3 pacing delay)
            let rtt = self.rtt.unwrap_or(self.base_rtt).max(1) as f64;
            rate = self.cwnd / self.mss * self.pkt_wire * 8.0 * SEC as f64 / rtt;
        }
        let mut window = (self.cwnd.ceil() as u64).max(1);
        if self.inner.is_some() {
            window = window.min(self.inner_window);
            rate = rate.min(self.inner_rate);
        }
        cx.window = window;
        cx.rate = rate;
    }

    fn handle_src(&mut self, now: Time, pkt: &Packet) {
        let h = pkt.aux[AUX];
        if self.cwnd <= self.mss {
            self.cwnd *= self.small_cwnd_md;
            return;
        }
        let rtt_src = now.saturating_sub(pkt.ts) as f64;
        let link = match link_rate(h) {
            0 => self.line,
            r => r as f64,
        };
        let reaction = self.flow_rate() / link;
        let target_q = q_size(h) as f64 / self.pkt_wire * reaction;
        if target_q <= 0.0 {
            return;
        }
        let interval = rtt_src / target_q;
        if self.last_dec.is_none_or(|t| (now - t) as f64 >= interval) {
            self.cwnd -= self.mss;
            self.last_dec = Some(now);
        }
    }
}

impl SenderCc for BoltSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        self.inner_call(cx, |s, cx| s.on_start(cx));
        self.apply(cx);
    }

    fn on_ack(&mut self, cx: &mut SenderCx, ack: &Packet) {
        self.inner_call(cx, |s, cx| s.on_ack(cx, ack));
        if ack.ts > 0 && cx.now > ack.ts {
            self.rtt = Some(cx.now - ack.ts);
        }
        let f = flags(ack.aux[AUX]);
        if f & flag::INC != 0 && f & flag::DEC == 0 {
            self.cwnd += self.mss;
        }
        if ack.seq > self.seq_at_last_ai {
            // once-per-RTT additive increase (Algorithm 2 lines 12-14): the
            // first ACK of a packet sent after the last increase. `ack.seq` is
            // the next byte expected, so it passes the mark only when the byte
            // at `snd_nxt` of the last increase has arrived; an ACK equal to
            // the mark is that of the last packet already in flight then.
            self.cwnd += self.mss;
            self.seq_at_last_ai = cx.snd_nxt;
        }
        self.apply(cx);
    }

    fn on_nack(&mut self, cx: &mut SenderCx, nack: &Packet) {
        self.inner_call(cx, |s, cx| s.on_nack(cx, nack));
        self.apply(cx);
    }

    fn on_control(&mut self, cx: &mut SenderCx, pkt: &Packet) {
        if pkt.kind == PktKind::Ctrl && pkt.sub == SRC_SUB {
            self.handle_src(cx.now, pkt);
        } else {
            self.inner_call(cx, |s, cx| s.on_control(cx, pkt));
        }
        self.apply(cx);
    }

    fn on_timer(&mut self, cx: &mut SenderCx, slot: usize) {
        self.inner_call(cx, |s, cx| s.on_timer(cx, slot));
        self.apply(cx);
    }

    fn on_timeout(&mut self, cx: &mut SenderCx) {
        self.inner_call(cx, |s, cx| s.on_timeout(cx));
        self.apply(cx);
    }

    fn on_send(&mut self, cx: &mut SenderCx, pkt: &mut Packet) {
        self.inner_call(cx, |s, cx| s.on_send(cx, pkt));
        let mut f = flag::DATA;
        // FIRST: the bytes sent since the connection left idle (a flow: since
        // its start) are within cwnd; LAST: a busy period larger than one BDP
        // has at most cwnd left to send (§3.3, §4.2's pending-bytes counter)
        let first = (pkt.seq.saturating_sub(cx.burst_start) as f64) < self.cwnd;
        let last = cx.avail - cx.burst_start > cx.flow.bdp && (cx.avail.saturating_sub(pkt.seq) as f64) <= self.cwnd;
        if first {
            f |= flag::FIRST;
        }
        if last {
            f |= flag::LAST;
        }
        if !first && !last {
            // ask the switches for a token (not in the first window, which is
            // extra load, nor in the last; bolt-l4-protocol.cc SendDownOnePacket)
            f |= flag::INC;
        }
        pkt.aux[AUX] = f;
        pkt.size += self.header_bytes;
        self.apply(cx);
    }

    fn probe(&self) -> f64 {
        self.cwnd
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{ack, flow, Harness};
    use ccsim_core::time::{NS, US};

    const G100: u64 = 100_000_000_000;
    /// Wire size of a full test packet: 1000 payload + 48 header + 9 Bolt.
    const PKT: u32 = 1057;

    fn port(qlen: u64) -> PortStat {
        PortStat { rate_bps: G100, qlen, ..Default::default() }
    }

    fn data(f: u64) -> Packet {
        let mut p =
            Packet { kind: PktKind::Data, src: 3, size: PKT, ts: 5 * US, seq: 42_000, hash: 9, ..Default::default() };
        p.aux[AUX] = f | flag::DATA;
        p
    }

    /// Runs one data packet through a switch at time `now` with egress queue `qlen`.
    fn enq(sw: &mut BoltSwitch, now: Time, qlen: u64, pkt: &mut Packet) -> Vec<Packet> {
        let ports = [port(qlen), port(0)];
        let mut emit = Vec::new();
        let mut cx = SwitchCx { now, node: 20, ports: &ports, emit: &mut emit };
        sw.on_enqueue(&mut cx, 1, 0, pkt);
        emit
    }

    #[test]
    fn header_word_round_trips() {
        let h = encode(flag::SRC | flag::DEC, 12_345, G100);
        assert_eq!(flags(h), flag::SRC | flag::DEC);
        assert_eq!(q_size(h), 12_345);
        assert_eq!(link_rate(h), G100);
        // 24-bit queue saturates; rates round up to 5G units
        let h = encode(0, 1 << 30, 25_000_000_000);
        assert_eq!(q_size(h), (1 << 24) - 1);
        assert_eq!(link_rate(h), 25_000_000_000);
        assert_eq!(link_rate(encode(0, 0, 1_000_000_000)), RATE_UNIT);
    }

    #[test]
    fn supply_token_accounting_by_hand() {
        let mut sw = BoltSwitch::new(&BoltConfig::default(), 2);
        // first arrival: idle link, token fills to its cap (1 MTU) and pays one INC
        let mut p = data(flag::INC);
        assert!(enq(&mut sw, 0, 0, &mut p).is_empty());
        assert_eq!(flags(p.aux[AUX]) & flag::INC, flag::INC);
        assert_eq!(sw.ports[0].sm_token, 0.0);
        // 50 ns later: supply 100G x 50 ns = 625 B, demand 1057 B -> -432; no token
        let mut p = data(flag::INC);
        enq(&mut sw, 50 * NS, 0, &mut p);
        assert_eq!(sw.ports[0].sm_token, -432.0);
        assert_eq!(flags(p.aux[AUX]) & flag::INC, 0);
        // 200 ns later: +2500 - 1057 -> 1011 < MTU: INC cleared
        let mut p = data(flag::INC);
        enq(&mut sw, 250 * NS, 0, &mut p);
        assert_eq!(sw.ports[0].sm_token, 1011.0);
        assert_eq!(flags(p.aux[AUX]) & flag::INC, 0);
        // 100 ns later: +1250 - 1057 -> 1204, capped at 1057 = MTU: INC kept, token 0
        let mut p = data(flag::INC);
        enq(&mut sw, 350 * NS, 0, &mut p);
        assert_eq!(flags(p.aux[AUX]) & flag::INC, flag::INC);
        assert_eq!(sw.ports[0].sm_token, 0.0);
        // a packet without INC only updates the token
        let mut p = data(0);
        enq(&mut sw, 1350 * NS, 0, &mut p);
        assert_eq!(sw.ports[0].sm_token, 1057.0);
        assert_eq!(flags(p.aux[AUX]), flag::DATA);
        // the other egress was never touched
        assert_eq!(sw.ports[1], PortState::default());
        // SM off: no INC from supply
        let mut sw = BoltSwitch::new(&BoltConfig { sm: false, ..Default::default() }, 2);
        let mut p = data(flag::INC);
        enq(&mut sw, 0, 0, &mut p);
        assert_eq!(flags(p.aux[AUX]) & flag::INC, 0);
    }

    #[test]
    fn pru_tokens_from_last_packets_past_the_first_window() {
        let mut sw = BoltSwitch::new(&BoltConfig { max_pru_tokens: 2, ..Default::default() }, 2);
        // drain the initial supply token so only PRU can grant INC
        let mut p = data(flag::INC);
        enq(&mut sw, 0, 0, &mut p);
        // LAST within the first window: no token; LAST after it: one token each
        enq(&mut sw, 10 * NS, 0, &mut data(flag::LAST | flag::FIRST));
        assert_eq!(sw.ports[0].pru_tokens, 0);
        for i in 0..3 {
            enq(&mut sw, (20 + i) * NS, 0, &mut data(flag::LAST));
        }
        assert_eq!(sw.ports[0].pru_tokens, 2, "capped at max_pru_tokens");
        // INC takes a PRU token before looking at the (negative) supply token
        let mut p = data(flag::INC);
        enq(&mut sw, 30 * NS, 0, &mut p);
        assert_eq!(flags(p.aux[AUX]) & flag::INC, flag::INC);
        assert_eq!(sw.ports[0].pru_tokens, 1);
        // a congested egress neither makes tokens nor grants them
        let mut p = data(flag::LAST);
        enq(&mut sw, 31 * NS, 5000, &mut p);
        assert_eq!(sw.ports[0].pru_tokens, 1);
        let mut p = data(flag::INC);
        enq(&mut sw, 32 * NS, 5000, &mut p);
        assert_eq!(sw.ports[0].pru_tokens, 1);
        assert_eq!(flags(p.aux[AUX]) & flag::INC, 0);
        // PRU off: LAST packets add nothing
        let mut sw = BoltSwitch::new(&BoltConfig { pru: false, ..Default::default() }, 2);
        enq(&mut sw, 0, 0, &mut data(flag::LAST));
        assert_eq!(sw.ports[0].pru_tokens, 0);
    }

    #[test]
    fn congestion_sends_one_src_per_packet_in_the_control_class() {
        // CC_THRESH = 1 MTU (the paper's text; the default is 3, see BoltConfig)
        let one = BoltConfig { cc_thresh_mtus: 1.0, ..Default::default() };
        let mut sw = BoltSwitch::new(&one, 2);
        // learn the MTU, queue empty: no SRC
        assert!(enq(&mut sw, 0, 0, &mut data(0)).is_empty());
        // queue just below one MTU: no SRC
        assert!(enq(&mut sw, 100 * NS, 1056, &mut data(flag::INC)).is_empty());
        // queue at one MTU: SRC back to the sender, data gets DEC and loses INC
        let mut p = data(flag::INC);
        let e = enq(&mut sw, 200 * NS, 1057, &mut p);
        assert_eq!(e.len(), 1);
        let s = &e[0];
        assert_eq!((s.kind, s.sub, s.class), (PktKind::Ctrl, SRC_SUB, 0));
        assert_eq!((s.src, s.dst, s.flow), (20, 3, p.flow));
        assert_eq!(s.size, 79);
        assert_eq!(s.ts, 5 * US, "reflected TX time");
        assert_eq!(q_size(s.aux[AUX]), 1057);
        assert_eq!(link_rate(s.aux[AUX]), G100);
        assert_eq!(flags(s.aux[AUX]) & flag::SRC, flag::SRC);
        assert_eq!(flags(p.aux[AUX]), flag::DATA | flag::DEC);
        // the same packet at the next congested hop: no second SRC
        let mut sw2 = BoltSwitch::new(&one, 2);
        enq(&mut sw2, 0, 0, &mut data(0));
        assert!(enq(&mut sw2, 300 * NS, 50_000, &mut p).is_empty());
        assert_eq!(flags(p.aux[AUX]), flag::DATA | flag::DEC);
        assert_eq!(sw.counters(), vec![("bolt_src_packets", 1), ("bolt_src_bytes", 79)]);
        assert_eq!(sw2.counters(), vec![("bolt_src_packets", 0), ("bolt_src_bytes", 0)]);
        // ns-3's reading: the SRC carries the queue minus the device queue's packet
        let ns3 = BoltConfig { cc_thresh_mtus: 1.0, src_q_offset_mtus: 1.0, ..Default::default() };
        let mut sw3 = BoltSwitch::new(&ns3, 2);
        enq(&mut sw3, 0, 0, &mut data(0));
        let e = enq(&mut sw3, 100 * NS, 5 * 1057, &mut data(0));
        assert_eq!(q_size(e[0].aux[AUX]), 4 * 1057);
        let e = enq(&mut sw3, 200 * NS, 1057, &mut data(0));
        assert_eq!(q_size(e[0].aux[AUX]), 0);
        assert_eq!(
            BoltConfig { src_q_offset_mtus: -1.0, ..Default::default() }.validate().unwrap_err().0,
            "src_q_offset_mtus"
        );
        // ACKs and other control packets pass untouched
        let mut a = ack(7);
        let e = enq(&mut sw, 400 * NS, 50_000, &mut a);
        assert!(e.is_empty());
        assert_eq!(a.aux[AUX], 0);
    }

    #[test]
    fn non_bolt_switches_have_no_switch_part() {
        let s = BoltConfig { non_bolt_switches: vec![4, 6], ..Default::default() }.into_scheme();
        assert!(s.switch(4, &[port(0)]).is_none());
        assert!(s.switch(5, &[port(0)]).is_some());
        assert!(s.switch(6, &[port(0)]).is_none());
    }

    fn sender(cfg: BoltConfig) -> (Box<dyn SenderCc>, Harness) {
        let s = cfg.into_scheme().sender(&flow());
        (s, Harness::new(flow()))
    }

    fn src(now: Time, rtt_src: Time, q: u64) -> Packet {
        let mut p = Packet { kind: PktKind::Ctrl, sub: SRC_SUB, ts: now - rtt_src, ..Default::default() };
        p.aux[AUX] = encode(flag::SRC | flag::DEC, q, G100);
        p
    }

    fn ack_at(seq: u64, sent: Time, f: u64) -> Packet {
        let mut a = ack(seq);
        a.ts = sent;
        a.aux[AUX] = f | flag::ACK;
        a
    }

    #[test]
    fn line_rate_start_and_flags_on_send() {
        let (mut s, mut h) = sender(BoltConfig::default());
        h.start(s.as_mut());
        assert_eq!(h.window, 125_000, "one BDP");
        assert_eq!(h.rate, 100e9);
        // first window: FIRST, no INC; header bytes added
        let mut p = Packet { kind: PktKind::Data, seq: 0, size: 1048, ..Default::default() };
        h.send(s.as_mut(), &mut p);
        assert_eq!(flags(p.aux[AUX]), flag::DATA | flag::FIRST);
        assert_eq!(p.size, 1057);
        // past the first window: INC
        let mut p = Packet { kind: PktKind::Data, seq: 200_000, size: 1048, ..Default::default() };
        h.send(s.as_mut(), &mut p);
        assert_eq!(flags(p.aux[AUX]), flag::DATA | flag::INC);
        // last cwnd of the flow (10 MB, > 1 BDP): LAST, no INC
        let mut p = Packet { kind: PktKind::Data, seq: 10_000_000 - 125_000, size: 1048, ..Default::default() };
        h.send(s.as_mut(), &mut p);
        assert_eq!(flags(p.aux[AUX]), flag::DATA | flag::LAST);
        let mut p = Packet { kind: PktKind::Data, seq: 10_000_000 - 126_000, size: 1048, ..Default::default() };
        h.send(s.as_mut(), &mut p);
        assert_eq!(flags(p.aux[AUX]), flag::DATA | flag::INC);
        // a flow of at most one BDP never marks LAST
        let mut f = flow();
        f.size = 100_000;
        let mut s2 = BoltConfig::default().into_scheme().sender(&f);
        let mut h2 = Harness::new(f);
        h2.start(s2.as_mut());
        let mut p = Packet { kind: PktKind::Data, seq: 99_000, size: 1048, ..Default::default() };
        h2.send(s2.as_mut(), &mut p);
        assert_eq!(flags(p.aux[AUX]), flag::DATA | flag::FIRST);
    }

    #[test]
    fn src_decrements_paced_by_rtt_src_over_target_queue() {
        let (mut s, mut h) = sender(BoltConfig::default());
        h.start(s.as_mut());
        h.snd_nxt = 125_000;
        // an ACK gives an RTT sample of 10 us; cwnd stays at the 1-BDP cap
        h.now = 20 * US;
        h.ack(s.as_mut(), &ack_at(1000, 10 * US, 0));
        assert_eq!(s.probe(), 125_000.0);
        // rate = 125000 B / 10 us = 100G = link rate: reaction 1; q = 10 packets;
        // rtt_src 4 us -> one decrement per 0.4 us
        h.now = 21 * US;
        h.control(s.as_mut(), &src(h.now, 4 * US, 10 * 1057));
        assert_eq!(s.probe(), 124_000.0, "first SRC decrements");
        assert_eq!(h.window, 124_000);
        h.now = 21 * US + 200 * NS;
        h.control(s.as_mut(), &src(h.now, 4 * US, 10 * 1057));
        assert_eq!(s.probe(), 124_000.0, "0.2 us < 0.4 us: no decrement");
        // reaction now 124000/125000: interval = 4 us / (10 x 0.992) = 403.2 ns
        h.now = 21 * US + 400 * NS;
        h.control(s.as_mut(), &src(h.now, 4 * US, 10 * 1057));
        assert_eq!(s.probe(), 124_000.0, "0.4 us < 403.2 ns");
        h.now = 21 * US + 410 * NS;
        h.control(s.as_mut(), &src(h.now, 4 * US, 10 * 1057));
        assert_eq!(s.probe(), 123_000.0);
        // reaction 0.984: interval = 406.5 ns
        h.now = 21 * US + 815 * NS;
        h.control(s.as_mut(), &src(h.now, 4 * US, 10 * 1057));
        assert_eq!(s.probe(), 123_000.0, "405 ns < 406.5 ns");
        h.now = 21 * US + 820 * NS;
        h.control(s.as_mut(), &src(h.now, 4 * US, 10 * 1057));
        assert_eq!(s.probe(), 122_000.0);
        // a larger queue allows more frequent decrements: 100 packets -> 41 ns
        h.now += 42 * NS;
        h.control(s.as_mut(), &src(h.now, 4 * US, 100 * 1057));
        assert_eq!(s.probe(), 121_000.0);
    }

    #[test]
    fn inc_and_once_per_rtt_additive_increase() {
        let (mut s, mut h) = sender(BoltConfig::default());
        h.start(s.as_mut());
        // bring cwnd down to 100000 with SRCs far apart
        for i in 0..25 {
            h.now = (i + 1) * 10 * US;
            h.control(s.as_mut(), &src(h.now, US, 100_000));
        }
        assert_eq!(s.probe(), 100_000.0);
        // first ACK: AI (seq >= 0) -> +1 packet; snd_nxt becomes the AI mark
        h.snd_nxt = 50_000;
        h.now = 300 * US;
        h.ack(s.as_mut(), &ack_at(1000, 290 * US, 0));
        assert_eq!(s.probe(), 101_000.0);
        // ACKs below the mark: only INC counts
        h.ack(s.as_mut(), &ack_at(2000, 290 * US, 0));
        assert_eq!(s.probe(), 101_000.0);
        h.ack(s.as_mut(), &ack_at(3000, 290 * US, flag::INC));
        assert_eq!(s.probe(), 102_000.0);
        // the ACK of the last packet in flight at the increase (seq = the mark):
        // no packet sent after the increase is acknowledged yet, so no AI
        h.snd_nxt = 80_000;
        h.ack(s.as_mut(), &ack_at(50_000, 290 * US, 0));
        assert_eq!(s.probe(), 102_000.0);
        // an ACK with INC that acknowledges the first packet sent after it: +2
        h.ack(s.as_mut(), &ack_at(51_000, 290 * US, flag::INC));
        assert_eq!(s.probe(), 104_000.0);
        assert_eq!(h.window, 104_000);
        // clamp at one BDP
        for i in 0..40 {
            h.ack(s.as_mut(), &ack_at(60_000 + i, 290 * US, flag::INC));
        }
        assert_eq!(s.probe(), 125_000.0);
    }

    /// Plays a window-limited flow with a fixed RTT: the window goes out back
    /// to back (one packet per 100 ns), each ACK (no INC) comes back one RTT
    /// after its packet and releases what the window allows. Returns, per
    /// round of ACKs (the ACKs arriving in one RTT), the indices within the
    /// round of the ACKs on which cwnd grew, and cwnd at the end.
    fn ai_per_round(cfg: BoltConfig, rounds: usize) -> (Vec<Vec<usize>>, f64) {
        let (mut s, mut h) = sender(cfg);
        h.start(s.as_mut());
        let (rtt, gap, mss) = (10 * US, 100 * NS, 1000);
        let mut flight = std::collections::VecDeque::new();
        let mut last_send = 0;
        let mut send = |h: &mut Harness, flight: &mut std::collections::VecDeque<(u64, Time)>| {
            while h.snd_nxt - h.snd_una < h.window {
                let t = if h.snd_nxt == 0 { 0 } else { h.now.max(last_send + gap) };
                h.snd_nxt += mss;
                flight.push_back((h.snd_nxt, t));
                last_send = t;
            }
        };
        send(&mut h, &mut flight);
        let mut out = vec![Vec::new(); rounds];
        let mut idx = 0;
        let mut round = 0;
        while let Some((end, sent)) = flight.pop_front() {
            h.now = sent + rtt;
            let r = (h.now / rtt) as usize - 1;
            if r >= rounds {
                break;
            }
            if r != round {
                round = r;
                idx = 0;
            }
            h.snd_una = end;
            let before = s.probe();
            h.ack(s.as_mut(), &ack_at(end, sent, 0));
            if s.probe() > before {
                out[r].push(idx);
            }
            idx += 1;
            send(&mut h, &mut flight);
        }
        (out, s.probe())
    }

    #[test]
    fn additive_increase_once_per_round_of_a_window_limited_flow() {
        // a 5-packet window (far below the 1-BDP cap): no INC, no SRC, so
        // cwnd moves only by the per-RTT additive increase
        let cfg = BoltConfig { init_cwnd_bdps: 0.04, ..Default::default() };
        let (rounds, cwnd) = ai_per_round(cfg, 8);
        for (r, ai) in rounds.iter().enumerate() {
            // exactly one increase per round, on its first ACK: the first that
            // acknowledges a packet sent after the previous increase
            assert_eq!(ai, &vec![0], "round {r}: {rounds:?}");
        }
        assert_eq!(cwnd, 13_000.0, "5 packets + 1 per RTT for 8 RTTs");
    }

    #[test]
    fn pacing_sends_at_cwnd_per_rtt_only_when_asked() {
        let cfg = BoltConfig { init_cwnd_bdps: 0.4, ..Default::default() };
        // default: a window of at least one packet goes out at line rate
        let (mut s, mut h) = sender(cfg.clone());
        h.start(s.as_mut());
        h.snd_nxt = 50_000;
        h.now = 30 * US;
        h.ack(s.as_mut(), &ack_at(1000, 10 * US, 0));
        assert_eq!(s.probe(), 51_000.0, "AI on the first ACK");
        assert_eq!(h.rate, 100e9);
        // pacing: 51 packets of 1057 wire bytes per 20 us (the last RTT sample)
        let (mut s, mut h) = sender(BoltConfig { pacing: true, ..cfg });
        h.start(s.as_mut());
        // no RTT sample yet: 50 packets per 10 us base RTT, above line rate
        assert!((h.rate - 50.0 * 1057.0 * 8.0 / 10e-6).abs() < 1.0, "{}", h.rate);
        h.snd_nxt = 50_000;
        h.now = 30 * US;
        h.ack(s.as_mut(), &ack_at(1000, 10 * US, 0));
        let expect = 51.0 * 1057.0 * 8.0 / 20e-6;
        assert!((h.rate - expect).abs() < 1.0, "{}", h.rate);
        assert_eq!(h.window, 51_000);
    }

    #[test]
    fn below_one_packet_halves_per_src_and_paces() {
        let cfg = BoltConfig { init_cwnd_bdps: 0.008, ..Default::default() };
        let (mut s, mut h) = sender(cfg);
        h.start(s.as_mut());
        assert_eq!(s.probe(), 1000.0);
        h.now = 10 * US;
        h.control(s.as_mut(), &src(h.now, US, 5000));
        assert_eq!(s.probe(), 500.0);
        assert_eq!(h.window, 500);
        // no RTT sample yet: paced over the base RTT, half a 1057 B packet per 10 us
        let expect = 0.5 * 1057.0 * 8.0 / 10e-6;
        assert!((h.rate - expect).abs() < 1.0, "{}", h.rate);
        for _ in 0..20 {
            h.control(s.as_mut(), &src(h.now, US, 5000));
        }
        assert_eq!(s.probe(), 15.0, "min cwnd");
    }

    #[test]
    fn brownfield_window_is_the_min_of_both() {
        let cfg = BoltConfig {
            brownfield: "none".into(),
            brownfield_params: "window_bdps = 0.5".into(),
            ..Default::default()
        };
        let (mut s, mut h) = sender(cfg);
        h.start(s.as_mut());
        assert_eq!(h.window, 62_500, "the inner scheme's window is smaller");
        // Bolt's own cwnd goes below the inner window: Bolt's wins
        for i in 0..70 {
            h.now = (i + 1) * 10 * US;
            h.control(s.as_mut(), &src(h.now, US, 100_000));
        }
        assert_eq!(s.probe(), 55_000.0);
        assert_eq!(h.window, 55_000);
        // inner params that don't parse, unknown schemes and self-wrapping are refused
        let bad = |b: &str, p: &str| {
            BoltConfig { brownfield: b.into(), brownfield_params: p.into(), ..Default::default() }.validate()
        };
        assert_eq!(bad("none", "window_bdps = ").unwrap_err().0, "brownfield_params");
        assert_eq!(bad("cubic", "").unwrap_err().0, "brownfield");
        assert_eq!(bad("bolt", "").unwrap_err().0, "brownfield");
        assert_eq!(bad("", "x = 1").unwrap_err().0, "brownfield_params");
        assert!(bad("none", "").is_ok());
    }

    #[test]
    fn receiver_reflects_flags_and_pays_the_header() {
        let scheme = BoltConfig::default().into_scheme();
        let mut r = scheme.receiver(&flow());
        let f = flow();
        let cx = ReceiverCx::new(0, &f, 1);
        let d = data(flag::INC | flag::LAST);
        let mut a = Packet { kind: PktKind::Ack, size: 60, aux: d.aux, ..Default::default() };
        r.fill_ack(&cx, &d, &mut a);
        assert_eq!(flags(a.aux[AUX]), flag::ACK | flag::INC | flag::LAST);
        assert_eq!(a.size, 69);
    }
}
