//! FNCC (Xu et al., "FNCC: Fast Notification Congestion Control in Data Center
//! Networks", arXiv 2024; `/work/shared/seeds/fncc-paper.txt`): HPCC whose INT
//! rides the ACKs instead of the data, plus a last-hop congestion speedup.
//!
//! * Switch (CP, Algorithm 1): every switch keeps an `All_INT_Table`, one HPCC
//!   INT record (ts, txBytes, qlen, B) per egress port. Data packets carry no INT
//!   (`Requirements::int_on_data = false`). When an ACK (or NACK) that entered
//!   the switch by port j leaves by port i, the switch pushes the table entry of
//!   port j onto it: port j is the egress the acknowledged flow's *data* leaves
//!   by (request path), so the sender learns the request path's state from the
//!   return path, up to an RTT sooner than HPCC. How the entry is kept current
//!   is [`IntTable`]: by default it is refreshed whenever a packet leaves the
//!   port (what HPCC would have stamped on that packet); `live` reads the port's
//!   state at the moment the ACK leaves. The paper's hardware refreshes the table
//!   "periodically" (§4.1) without a period, so both are offered.
//!   ACKs pay for the records on the wire (`Requirements::int_on_acks`: the
//!   fixed INT header from the receiver on, or 8 B per record pushed under
//!   `network.int_encoding = "per_hop"`); data packets carry none.
//! * Paths: the trick needs the ACK to cross the data's switches in reverse
//!   (Observation 2); the scheme requires `network.routing = "symmetric"`
//!   (`Requirements::symmetric_paths`; the core refuses anything else).
//! * Receiver (§3.2.3): every ACK carries N, the number of flows the receiving
//!   host is currently receiving (its concurrent QPs), in `aux[N_AUX]`, limited
//!   to 16 bits (1..=65535; the paper's field is 16 bits); the ACK that completes
//!   a flow still counts that flow. Cumulative ACKs
//!   (`network.ack_every > 1`) work unchanged: N and the INT are per ACK.
//! * Sender (RP, Algorithms 2-3): HPCC's per-ACK/per-RTT rule
//!   ([`crate::hpcc::HpccSender`], reused through its `feedback_with` hook) on the
//!   return-path INT. Hop detection: U_max = max_j u_j over the ACK's records;
//!   the ACK collects records from the receiver's side first, so record 0 is the
//!   request path's last hop (the egress towards the receiver), which is also
//!   where Algorithm 3 line 25 takes B (`ack.L[0].B`). LHCS: if the most
//!   congested hop is the last one and U_max > alpha, W_c = B x RTT x beta / N,
//!   i.e. (window carried as rate, W = R x T as in HPCC, RTT taken as T)
//!   R_c = beta x B / N; the window is then computed from the new W_c by
//!   Algorithm 3's ComputeWind (W = W_c / (U/eta) + W_AI, or W_c + W_AI).
//!
//! Deviations from the pseudo-code, documented: U_max and hop are recomputed on
//! every ACK (Algorithm 2 keeps U_max across ACKs and resets it only when LHCS
//! fires, which would let one old peak at another hop disable LHCS for good);
//! ties go to the last hop (record 0, the first scanned).
//!
//! Observed behaviour (crates/cc/tests/fncc.rs; the paper's experiments are
//! experiments/fncc/, run by `ccsim reproduce fncc`, results in
//! docs/reproduction/fncc/report.md):
//! * FNCC reacts before HPCC on the Fig. 9 dumbbell, with a lower queue peak
//!   (claims fig9-react-100g, fig9-peakq-100g).
//! * With two or more hops carrying the same load (3-switch dumbbell) the
//!   senders run below eta: the ACK samples each switch's table at a different
//!   moment, so the per-hop estimates have independent noise and HPCC's max
//!   over hops is biased upwards. HPCC's records of one data packet are
//!   correlated across hops and show no such bias; with one shared hop
//!   (2-switch dumbbell) FNCC runs at eta (claims fig9-util-*).
//! * `int_table = "live"` makes per-ACK rate estimates jumpy (tx_bytes advances a
//!   whole packet at each transmission start); an uncongested last hop then
//!   sometimes reads u > alpha and LHCS fires with that receiver's N (often 1),
//!   which can make two flows settle at very unequal rates on the Fig. 9
//!   dumbbell. The default `on_departure` table (u <= 1 + queue at an
//!   uncongested hop) does not mis-fire there (sensitivity sweep
//!   `scheme.fncc.int_table` of claim fig13a-first-queue).
//!
//! `probe()` returns HPCC's U.

use crate::hpcc::{hpcc_config, HpccSender};
use crate::registry::SchemeConfig;
use ccsim_core::cc::{
    FlowView, PortStat, ReceiverCc, ReceiverCx, Requirements, Scheme, SenderCc, SenderCx, SwitchCc, SwitchCx,
};
use ccsim_core::packet::{IntHop, Packet, PktKind};
use ccsim_core::time::Time;
use ccsim_core::units::Dur;
use serde::{Deserialize, Serialize};

/// The ACK's `aux` slot that carries N (concurrent flows at the receiver).
pub const N_AUX: usize = 0;

/// How a switch keeps its All_INT_Table current.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntTable {
    /// Entry of port p refreshed (ts, txBytes, qlen, B) every time a packet
    /// starts leaving p, as HPCC's egress INT would be stamped on it; an ACK gets
    /// the entry as last refreshed.
    OnDeparture,
    /// An ACK gets port j's live state at the moment it leaves (ts = now).
    Live,
}

hpcc_config! {
    /// FNCC parameters: HPCC's (`eta` .. `fast_react`, declared with
    /// [`HpccConfig`](crate::hpcc::HpccConfig), with HPCC's defaults; the sender
    /// runs [`FnccConfig::hpcc`])
    /// followed by FNCC's own. Sources of the HPCC part's defaults for FNCC: eta
    /// 0.95 (FNCC paper §3.2.2 "e.g., 0.95"); max_stage 5 (FNCC Algorithm 3 keeps
    /// maxStage, no value given); rate_ai 50Mbps and min_rate 100Mbps (the HPCC
    /// simulator's; the FNCC paper gives none); fast_react true (FNCC §3.2.2:
    /// "both HPCC and FNCC integrate the per-ACK and per-RTT strategies").
    pub struct FnccConfig {
        /// Last-hop congestion speedup on/off. Default true (FNCC §3.2.2; Fig. 13
        /// also runs it off).
        pub lhcs: bool = true,
        /// LHCS fires when the last hop's u exceeds alpha. Default 1.05 (FNCC §3.2.2).
        pub alpha: f64 = 1.05,
        /// LHCS sets W_c = B x RTT x beta / N. Default 0.9 (FNCC §3.2.2).
        pub beta: f64 = 0.9,
        /// How switches keep the All_INT_Table: "on_departure" (default) or "live";
        /// see [`IntTable`]. The paper says only "periodically" (§4.1).
        pub int_table: IntTable = IntTable::OnDeparture,
        /// With `int_table = "on_departure"`: refresh a port's entry at a departure
        /// only if the entry is at least this old (the paper's table is updated
        /// "periodically", §4.1, period not given). Default 0ns: every departure.
        /// A trade-off on the Fig. 9 dumbbell (3 switches, 100G): 0 gives lower
        /// utilization with a near-empty queue; 1us gives full utilization, equal
        /// shares and a standing queue (fewer, longer rate samples): sensitivity
        /// sweep `scheme.fncc.table_period` of claims fig9-fair-*, fig9-util-*
        /// (docs/reproduction/fncc/report.md).
        pub table_period: Dur = Dur(0),
    }
}

impl SchemeConfig for FnccConfig {
    const NAME: &'static str = "fncc";
    const SUMMARY: &'static str = "FNCC (Xu et al. 2024): HPCC with request-path INT stamped on ACKs, last-hop speedup";
    const PARAMS: &'static [(&'static str, &'static str)] = &[
        ("eta", "target utilization (HPCC)"),
        ("max_stage", "additive stages before a multiplicative update (HPCC)"),
        ("rate_ai", "additive increase W_AI as a rate (W_AI / T) (HPCC)"),
        ("min_rate", "lowest rate (HPCC)"),
        ("base_rtt", "T: \"global\" (largest base RTT) or \"path\" (HPCC)"),
        ("window", "limit bytes in flight to rate x T (HPCC)"),
        ("fast_react", "apply an update on every ACK, committing once per RTT (HPCC)"),
        ("lhcs", "last-hop congestion speedup: W_c = B x RTT x beta / N"),
        ("alpha", "LHCS threshold on the last hop's u"),
        ("beta", "LHCS share of the fair window"),
        ("int_table", "switch INT table: \"on_departure\" (refreshed as packets leave) or \"live\""),
        ("table_period", "on_departure: least age of an entry before a departure refreshes it"),
    ];

    fn validate(&self) -> Result<(), (&'static str, String)> {
        self.check_hpcc()?;
        if !(self.alpha.is_finite() && self.alpha > 0.0) {
            return Err(("alpha", "must be a number > 0".into()));
        }
        if !(self.beta.is_finite() && self.beta > 0.0 && self.beta <= 1.0) {
            return Err(("beta", "must be in (0, 1]".into()));
        }
        Ok(())
    }

    fn into_scheme(self) -> Box<dyn Scheme> {
        Box::new(Fncc { cfg: self })
    }
}

/// The FNCC scheme.
pub struct Fncc {
    cfg: FnccConfig,
}

impl Scheme for Fncc {
    fn name(&self) -> &str {
        FnccConfig::NAME
    }
    fn requirements(&self) -> Requirements {
        Requirements {
            int_on_data: false,
            int_on_acks: true,
            symmetric_paths: true,
            host_receive_count: true,
            ..Default::default()
        }
    }
    fn sender(&self, flow: &FlowView) -> Box<dyn SenderCc> {
        Box::new(FnccSender::new(&self.cfg, flow))
    }
    fn receiver(&self, _flow: &FlowView) -> Box<dyn ReceiverCc> {
        Box::new(FnccReceiver)
    }
    fn switch(&self, _node: u32, ports: &[PortStat]) -> Option<Box<dyn SwitchCc>> {
        Some(Box::new(FnccSwitch::new(self.cfg.int_table, self.cfg.table_period.0, ports)))
    }
}

/// The INT record of a port's current state.
fn record(cx_now: Time, p: &PortStat) -> IntHop {
    IntHop { ts: cx_now, tx_bytes: p.tx_bytes, qlen: p.qlen, rate_bps: p.rate_bps }
}

/// FNCC switch part (CP): the All_INT_Table and the stamping of ACKs.
pub struct FnccSwitch {
    mode: IntTable,
    period: Time,
    table: Vec<IntHop>,
    /// Whether an entry has been refreshed since the start.
    fresh: Vec<bool>,
}

impl FnccSwitch {
    /// `period`: least age of an entry before a departure refreshes it (0 = always).
    pub fn new(mode: IntTable, period: Time, ports: &[PortStat]) -> Self {
        FnccSwitch {
            mode,
            period,
            table: ports.iter().map(|p| record(0, p)).collect(),
            fresh: vec![false; ports.len()],
        }
    }

    /// The All_INT_Table entry of egress `port`.
    pub fn entry(&self, port: u16) -> IntHop {
        self.table[port as usize]
    }
}

impl SwitchCc for FnccSwitch {
    fn on_dequeue(&mut self, cx: &mut SwitchCx, in_port: u16, out_port: u16, pkt: &mut Packet) {
        let o = out_port as usize;
        if self.mode == IntTable::OnDeparture && (!self.fresh[o] || cx.now >= self.table[o].ts + self.period) {
            self.table[o] = record(cx.now, &cx.ports[o]);
            self.fresh[o] = true;
        }
        // The ACK came in by the port its flow's data leaves by: stamp that
        // port's INT (Algorithm 1 lines 7-9). u16::MAX = emitted by this switch.
        if matches!(pkt.kind, PktKind::Ack | PktKind::Nack) && (in_port as usize) < self.table.len() {
            let h = match self.mode {
                IntTable::OnDeparture => self.table[in_port as usize],
                IntTable::Live => record(cx.now, &cx.ports[in_port as usize]),
            };
            pkt.push_int(h);
        }
    }
}

/// FNCC receiver part: writes N into every ACK.
pub struct FnccReceiver;

impl ReceiverCc for FnccReceiver {
    fn fill_ack(&mut self, cx: &ReceiverCx, _data: &Packet, ack: &mut Packet) {
        // The core counts a flow out as its last byte arrives, before that ACK
        // is filled: once the ACK acknowledges all the data released (the whole
        // flow), count it back in
        // (every ACK reports the flows concurrent with its own, itself included).
        let own_done = ack.seq >= cx.avail;
        let n = cx.host_active_flows as u64 + own_done as u64;
        ack.aux[N_AUX] = n.clamp(1, u16::MAX as u64);
    }
}

/// FNCC sender of one flow: HPCC plus hop detection and LHCS.
pub struct FnccSender {
    hpcc: HpccSender,
    lhcs: bool,
    alpha: f64,
    beta: f64,
    /// Times LHCS has set W_c.
    lhcs_fired: u64,
}

impl FnccSender {
    pub fn new(cfg: &FnccConfig, flow: &FlowView) -> Self {
        FnccSender {
            hpcc: HpccSender::new(&cfg.hpcc(), flow),
            lhcs: cfg.lhcs,
            alpha: cfg.alpha,
            beta: cfg.beta,
            lhcs_fired: 0,
        }
    }

    /// The HPCC state underneath.
    pub fn hpcc(&self) -> &HpccSender {
        &self.hpcc
    }

    /// How many ACKs made LHCS set W_c so far.
    pub fn lhcs_fired(&self) -> u64 {
        self.lhcs_fired
    }

    fn feedback(&mut self, cx: &mut SenderCx, ack: &Packet) {
        let (lhcs, alpha, beta) = (self.lhcs, self.alpha, self.beta);
        let fired = &mut self.lhcs_fired;
        self.hpcc.feedback_with(cx, ack, &mut |s, u| {
            if !lhcs {
                return;
            }
            // Hop detection (Algorithm 2 lines 3-7) over this ACK's records.
            let Some((hop, u_max)) = FnccSender::most_congested(u) else {
                return;
            };
            if hop == 0 && u_max > alpha {
                let b = ack.int_hops()[0].rate_bps as f64;
                let n = ack.aux[N_AUX].max(1) as f64;
                s.set_committed_rate(beta * b / n);
                *fired += 1;
            }
        });
    }

    /// Hop detection: (index of the most congested record, U_max) from the
    /// per-record u values; ties go to the lower index.
    pub fn most_congested(u: &[Option<f64>]) -> Option<(usize, f64)> {
        let mut best: Option<(usize, f64)> = None;
        for (j, uj) in u.iter().enumerate() {
            if let Some(uj) = *uj {
                if best.is_none_or(|(_, m)| uj > m) {
                    best = Some((j, uj));
                }
            }
        }
        best
    }
}

impl SenderCc for FnccSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        self.hpcc.on_start(cx);
    }
    fn on_ack(&mut self, cx: &mut SenderCx, ack: &Packet) {
        self.feedback(cx, ack);
    }
    fn on_nack(&mut self, cx: &mut SenderCx, nack: &Packet) {
        self.feedback(cx, nack);
    }
    fn probe(&self) -> f64 {
        self.hpcc.probe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{ack_int, flow, Harness};
    use ccsim_core::time::{Time, US};

    const B: u64 = 100_000_000_000;
    const L: f64 = 100e9;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    fn port(qlen: u64, tx_bytes: u64) -> PortStat {
        PortStat { rate_bps: B, qlen, tx_bytes, ..Default::default() }
    }

    fn pkt(kind: PktKind) -> Packet {
        Packet { kind, ..Default::default() }
    }

    fn dequeue(sw: &mut FnccSwitch, now: Time, ports: &[PortStat], i: u16, o: u16, p: &mut Packet) {
        let mut emit = Vec::new();
        let mut cx = SwitchCx { now, node: 9, ports, emit: &mut emit };
        sw.on_dequeue(&mut cx, i, o, p);
        assert!(emit.is_empty());
    }

    /// Data of a flow enters by port 0 and leaves by port 2; its ACK enters by
    /// port 2 and leaves by port 0: the ACK must carry port 2's telemetry (the
    /// request path's egress), not port 0's.
    #[test]
    fn ack_gets_the_int_of_the_port_its_data_leaves_by() {
        for mode in [IntTable::OnDeparture, IntTable::Live] {
            let mut ports = vec![port(111, 1_000), port(222, 2_000), port(3_000, 9_000)];
            let mut sw = FnccSwitch::new(mode, 0, &ports);
            let mut data = pkt(PktKind::Data);
            dequeue(&mut sw, 5 * US, &ports, 0, 2, &mut data);
            assert_eq!(data.n_int, 0, "data packets carry no INT");
            if mode == IntTable::OnDeparture {
                assert_eq!(sw.entry(2), IntHop { ts: 5 * US, tx_bytes: 9_000, qlen: 3_000, rate_bps: B });
            }
            // Port 2 moves on before the ACK comes back.
            ports[2] = port(4_500, 10_048);
            let mut ack = pkt(PktKind::Ack);
            dequeue(&mut sw, 7 * US, &ports, 2, 0, &mut ack);
            assert_eq!(ack.n_int, 1);
            let want = match mode {
                // The table entry as the last departure from port 2 left it.
                IntTable::OnDeparture => IntHop { ts: 5 * US, tx_bytes: 9_000, qlen: 3_000, rate_bps: B },
                IntTable::Live => IntHop { ts: 7 * US, tx_bytes: 10_048, qlen: 4_500, rate_bps: B },
            };
            assert_eq!(ack.int[0], want, "{mode:?}");
            // The ACK's own departure refreshed port 0's entry (on_departure).
            if mode == IntTable::OnDeparture {
                assert_eq!(sw.entry(0).ts, 7 * US);
                assert_eq!(sw.entry(0).qlen, 111);
            }
            // NACKs are stamped too; CNPs and switch-emitted packets are not.
            let mut nack = pkt(PktKind::Nack);
            dequeue(&mut sw, 8 * US, &ports, 2, 1, &mut nack);
            assert_eq!(nack.n_int, 1);
            let mut cnp = pkt(PktKind::Cnp);
            dequeue(&mut sw, 8 * US, &ports, 2, 1, &mut cnp);
            assert_eq!(cnp.n_int, 0);
            let mut own = pkt(PktKind::Ack);
            dequeue(&mut sw, 8 * US, &ports, u16::MAX, 1, &mut own);
            assert_eq!(own.n_int, 0);
        }
    }

    /// With a table period, a departure refreshes an entry only once it is
    /// at least that old; ACKs get the entry as last refreshed.
    #[test]
    fn table_period_limits_refreshes() {
        let mut ports = vec![port(0, 0), port(1_000, 5_000)];
        let mut sw = FnccSwitch::new(IntTable::OnDeparture, US, &ports);
        let mut data = pkt(PktKind::Data);
        dequeue(&mut sw, 10 * US, &ports, 0, 1, &mut data);
        assert_eq!(sw.entry(1).ts, 10 * US, "first departure always refreshes");
        ports[1] = port(2_000, 6_518);
        dequeue(&mut sw, 10 * US + 500_000, &ports, 0, 1, &mut data);
        assert_eq!((sw.entry(1).ts, sw.entry(1).tx_bytes), (10 * US, 5_000), "too young");
        let mut ack = pkt(PktKind::Ack);
        dequeue(&mut sw, 10 * US + 600_000, &ports, 1, 0, &mut ack);
        assert_eq!(ack.int[0].tx_bytes, 5_000);
        dequeue(&mut sw, 11 * US, &ports, 0, 1, &mut data);
        assert_eq!((sw.entry(1).ts, sw.entry(1).qlen), (11 * US, 2_000));
    }

    #[test]
    fn receiver_writes_n_clamped_to_16_bits() {
        let f = flow();
        let mut r = FnccReceiver;
        let data = pkt(PktKind::Data);
        for (active, seq, want) in [
            (3u32, 0, 3u64),
            (1, 5_000, 1),
            (0, 5_000, 1),
            (70_000, 0, 65_535),
            // The ACK of a completed flow: the core no longer counts it.
            (2, f.size, 3),
            (0, f.size, 1),
        ] {
            let cx = ReceiverCx::new(0, &f, active);
            let mut ack = pkt(PktKind::Ack);
            ack.seq = seq;
            r.fill_ack(&cx, &data, &mut ack);
            assert_eq!(ack.aux[N_AUX], want, "{active} {seq}");
        }
    }

    #[test]
    fn hop_detection_picks_the_largest_u_ties_to_the_last_hop() {
        assert_eq!(FnccSender::most_congested(&[Some(0.5), Some(1.2), None]), Some((1, 1.2)));
        assert_eq!(FnccSender::most_congested(&[Some(1.1), Some(1.1)]), Some((0, 1.1)));
        assert_eq!(FnccSender::most_congested(&[None, Some(0.3)]), Some((1, 0.3)));
        assert_eq!(FnccSender::most_congested(&[None]), None);
    }

    /// Bytes a 100G port sends in `us` microseconds at fraction `f` of its rate.
    fn bytes(f: f64, us: f64) -> u64 {
        (f * L * us * 1e-6 / 8.0).round() as u64
    }

    /// Two hops as an FNCC ACK lists them: record 0 = last hop (towards the
    /// receiver), record 1 = first hop.
    struct Two {
        ts: Time,
        tx: [u64; 2],
    }

    impl Two {
        /// An ACK `dt_us` after the previous one; hop k ran at `util[k]` with
        /// `qlen[k]` queued; N = `n`.
        fn ack(&mut self, seq: u64, dt_us: f64, util: [f64; 2], qlen: [u64; 2], n: u64) -> Packet {
            self.ts += (dt_us * US as f64) as Time;
            let mut hops = [IntHop::default(); 2];
            for k in 0..2 {
                self.tx[k] += bytes(util[k], dt_us);
                hops[k] = IntHop { ts: self.ts, tx_bytes: self.tx[k], qlen: qlen[k], rate_bps: B };
            }
            let mut p = ack_int(seq, &hops);
            p.aux[N_AUX] = n;
            p
        }
    }

    fn start(cfg: &FnccConfig) -> (FnccSender, Harness, HpccSender, Harness) {
        let f = flow();
        let mut s = FnccSender::new(cfg, &f);
        let mut h = Harness::new(f.clone());
        h.start(&mut s);
        let mut hp = HpccSender::new(&cfg.hpcc(), &f);
        let mut hh = Harness::new(f);
        hh.start(&mut hp);
        (s, h, hp, hh)
    }

    /// Last-hop incast: the last hop runs at line rate with 25 KB queued
    /// (u = 1 + 25 KB / (B T) = 1.2 > alpha), the first hop at half load, N = 4.
    /// LHCS sets W_c to the fair share x beta: R_c = 0.9 x 100G / 4 = 22.5 Gbps,
    /// and the window follows from it: R = R_c / (U / eta) + R_AI, W = R x T.
    #[test]
    fn lhcs_sets_the_window_to_the_fair_share_on_a_last_hop_incast() {
        let cfg = FnccConfig::default();
        let (mut s, mut h, _, _) = start(&cfg);
        assert_eq!((h.rate, h.window), (L, 125_000));
        let mut a = Two { ts: 0, tx: [0, 0] };
        h.snd_nxt = 20_000;
        h.ack(&mut s, &a.ack(1000, 1.0, [1.0, 0.5], [25_000, 0], 4));
        assert_eq!(h.rate, L, "first ACK only stores INT");
        h.snd_nxt = 150_000;
        h.ack(&mut s, &a.ack(21_000, 10.0, [1.0, 0.5], [25_000, 0], 4));
        assert!(close(s.probe(), 1.2), "U = {}", s.probe());
        assert_eq!(s.lhcs_fired(), 1);
        let rc = 0.9 * L / 4.0;
        let want = rc / (1.2 / 0.95) + 50e6;
        assert!(close(h.rate, want), "{} vs {want}", h.rate);
        assert!(close(s.hpcc().committed_rate(), want));
        assert_eq!(h.window, (want * 10e-6 / 8.0) as u64);
        // The next RTT: the last hop at 0.8 with the queue still there (u = 1.0,
        // at most alpha): no LHCS, HPCC's multiplicative step from R_c.
        h.snd_nxt = 300_000;
        h.ack(&mut s, &a.ack(150_001, 10.0, [0.8, 0.5], [25_000, 0], 4));
        assert_eq!(s.lhcs_fired(), 1);
        assert!(close(h.rate, want / (1.0 / 0.95) + 50e6));
        // N = 1 (the other flows left) and the last hop congested again
        // (u = 1 + min(50 KB, 25 KB) / (B T) = 1.2): W_c = 0.9 B T.
        h.snd_nxt = 450_000;
        h.ack(&mut s, &a.ack(300_001, 10.0, [1.0, 0.2], [50_000, 0], 1));
        assert_eq!(s.lhcs_fired(), 2);
        let want = 0.9 * L / (1.2 / 0.95) + 50e6;
        assert!(close(h.rate, want), "{} vs {want}", h.rate);
    }

    /// Fast react: LHCS within an RTT replaces W_c at once (Algorithm 3 calls
    /// UpdateWc whatever updateWc is), and later per-ACK updates start from it.
    #[test]
    fn lhcs_within_the_rtt_replaces_the_reference_window() {
        let (mut s, mut h, _, _) = start(&FnccConfig::default());
        let mut a = Two { ts: 0, tx: [0, 0] };
        h.snd_nxt = 20_000;
        h.ack(&mut s, &a.ack(1000, 1.0, [1.0, 1.0], [37_500, 0], 2));
        // ACK within the first RTT (seq <= last_update_seq = 20_000).
        h.snd_nxt = 30_000;
        h.ack(&mut s, &a.ack(2000, 10.0, [1.0, 0.5], [37_500, 0], 2));
        assert_eq!(s.lhcs_fired(), 1);
        let rc = 0.9 * L / 2.0;
        assert!(close(s.hpcc().committed_rate(), rc));
        assert!(close(h.rate, rc / (1.3 / 0.95) + 50e6));
    }

    /// LHCS stays off when the most congested hop is not the last, when the
    /// last hop's u is at most alpha, and when switched off: the sender is then
    /// exactly HPCC on the same INT.
    #[test]
    fn without_last_hop_congestion_fncc_is_hpcc() {
        let cases: [(bool, [f64; 2], [u64; 2]); 3] = [
            (true, [1.0, 1.0], [10_000, 30_000]), // first hop worse (1.24 vs 1.08)
            (true, [1.0, 0.5], [5_000, 0]),       // last hop u = 1.04 <= alpha
            (false, [1.0, 0.5], [50_000, 0]),     // u = 1.4 but LHCS off
        ];
        for (lhcs, util, qlen) in cases {
            let cfg = FnccConfig { lhcs, ..Default::default() };
            let (mut s, mut h, mut hp, mut hh) = start(&cfg);
            let mut a = Two { ts: 0, tx: [0, 0] };
            let mut seq = 1000;
            for k in 0..6 {
                h.snd_nxt = 20_000 + k * 100_000;
                hh.snd_nxt = h.snd_nxt;
                let p = a.ack(seq, 10.0, util, qlen, 8);
                h.ack(&mut s, &p);
                hh.ack(&mut hp, &p);
                assert_eq!((h.rate, h.window), (hh.rate, hh.window), "{lhcs} {util:?} {qlen:?} {k}");
                seq = h.snd_nxt + 1;
            }
            assert_eq!(s.lhcs_fired(), 0);
            assert!(h.rate < L, "HPCC did react");
        }
    }

    #[test]
    fn requirements_and_validation() {
        let scheme = FnccConfig::default().into_scheme();
        let req = scheme.requirements();
        assert!(!req.int_on_data && req.int_on_acks && req.symmetric_paths);
        assert_eq!(scheme.name(), "fncc");
        assert!(scheme.switch(0, &[port(0, 0)]).is_some());
        let bad = FnccConfig { beta: 1.5, ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().0, "beta");
        assert!(FnccConfig::default().validate().is_ok());
    }
}
