//! SLEEK loss recovery (`[network.sleek]`): uet-htsim's sender-side
//! heuristic that finds losses on a fabric that drops (no trimming) before
//! their timers fire. Every rule here is read from uet-htsim (htsim/sim/
//! uec.cpp at 40ccb05; the UE specification 1.0 does not describe SLEEK):
//!
//! - Each ACK carries how many packets the receiver holds out of order
//!   (`UecSink::_out_of_order_count`). Once that count reaches
//!   `retx_factor` windows (at most `max_wnd`, at least `min_retx`
//!   packets), the sender enters loss recovery until the cumulative point
//!   passes the highest PSN sent so far, and resends every packet still out
//!   from the cumulative point on, at most a window of them per ACK
//!   (`runSleek`). In recovery, resends leave whatever the window says
//!   (`can_send_NSCC`).
//! - A probe timer restarts on every ACK while packets are out or data
//!   waits: `probe_first` base RTTs while data waits, base RTT + target
//!   delay once everything is sent. When it fires the sender sends a probe,
//!   a header the receiver answers at once, and arms it again for
//!   `probe_retry` base RTTs (`sendProbe`). A probe's ACK with a delay
//!   under the target means the queues are short, so what is missing is
//!   lost: loss recovery starts (`processAck`).
//! - In recovery an expired packet timer resends nothing itself: a packet
//!   never resent is left for SLEEK, one resent before is named to SLEEK
//!   again (`rtxTimerExpired`).
//!
//! ccsim's receiver sends its held count as bytes: an ACK's `rcvd - seq`
//! (distinct bytes received beyond the cumulative point), which the sender
//! rounds up to packets of `network.mtu`; it is the packet count whenever
//! the held packets are full ones (a message's short last packet counts
//! as one whole).

use crate::cc::SleekState;
use crate::event::Ev;
use crate::packet::{Packet, PktKind, PROBE, PROBE_STALE};
use crate::state::Simulator;
use crate::time::Time;
use crate::transport::CcOp;

impl Simulator {
    /// Before the scheme sees ACK `h` of flow `f`: a probe ACK that
    /// answers an older probe than the latest is marked [`PROBE_STALE`].
    pub(crate) fn sleek_mark_stale(&mut self, f: u32, h: u32) {
        let fl = &self.flows[f as usize];
        let (Some(sl), pkt) = (fl.snd.sleek.as_deref(), self.pool.get(h)) else { return };
        if pkt.sub == PROBE && pkt.ts != sl.probe_sent {
            self.pool.get_mut(h).sub = PROBE_STALE;
        }
    }

    /// SLEEK's part of an ACK of flow `f`, after the scheme's (uet-htsim
    /// `processAck`, from "probe packets" on): `sub`, `ts`, `seq` and
    /// `rcvd` are the ACK's.
    pub(crate) fn sleek_ack(&mut self, f: u32, sub: u8, ts: Time, seq: u64, rcvd: u64) {
        let now = self.now;
        let (mss, cfg) = (self.net.mtu.0, self.net.sleek.clone());
        let fl = &mut self.flows[f as usize];
        let Some(st) = fl.cc.sleek_state() else { return };
        let recs = fl.snd.recs.as_deref().expect("SLEEK runs on per-packet recovery");
        let (cum, next) = (recs.first_psn(), recs.next_psn());
        // data never sent waits (`_backlog > 0`)
        let backlog = fl.snd.max_sent < fl.snd.avail;
        let sl = fl.snd.sleek.as_deref_mut().expect("SLEEK state");
        sl.probe_at = if cum < next || backlog {
            let wait = if backlog { (cfg.probe_first * st.base_rtt as f64) as Time } else { st.base_rtt + st.target };
            now + wait.max(1)
        } else {
            0
        };
        let delay = match sub {
            PROBE => (now - ts).saturating_sub(st.base_rtt),
            _ => st.avg_delay,
        };
        if sub != 0 && delay < st.target {
            // a probe came back over short queues: what is missing is lost
            (sl.recovery, sl.recovery_psn, sl.highest_rtx) = (true, next, cum);
        }
        let ooo = (rcvd.saturating_sub(seq)).div_ceil(mss);
        self.run_sleek(f, &st, ooo, mss);
        self.sleek_arm(f);
    }

    /// uet-htsim `runSleek`: leaves recovery once the cumulative point
    /// passes its end; enters it when `ooo` held packets reach the
    /// threshold; in recovery queues for a resend every packet still out
    /// from the cumulative point on, up to a window's worth of PSNs.
    fn run_sleek(&mut self, f: u32, st: &SleekState, ooo: u64, mss: u64) {
        let cfg = &self.net.sleek;
        let threshold = (cfg.retx_factor * st.cwnd).min(st.max_wnd).max((cfg.min_retx as u64 * mss) as f64);
        let threshold_pkts = threshold as u64 / mss;
        let fl = &mut self.flows[f as usize];
        let recs = fl.snd.recs.as_deref_mut().expect("SLEEK runs on per-packet recovery");
        let (cum, next) = (recs.first_psn(), recs.next_psn());
        let sl = fl.snd.sleek.as_deref_mut().expect("SLEEK state");
        if sl.recovery && cum >= sl.recovery_psn {
            sl.recovery = false;
        }
        if ooo >= threshold_pkts || sl.recovery {
            if !sl.recovery && fl.snd.rtx.is_empty() {
                (sl.recovery, sl.recovery_psn) = (true, next);
            }
            let end = sl.recovery_psn.min(cum.saturating_add((st.cwnd / mss as f64) as u32));
            let mut queued = false;
            for psn in cum.max(sl.highest_rtx)..end {
                if let Some((a, b)) = recs.nacked(psn) {
                    sl.highest_rtx = psn + 1;
                    Self::queue_rtx(&mut fl.snd.rtx, (a, b), true);
                    queued = true;
                }
            }
            if queued {
                Self::count_out_of_flight(fl);
            }
        }
        let sl = fl.snd.sleek.as_deref().expect("SLEEK state");
        fl.snd.rtx_free = sl.recovery;
    }

    /// In loss recovery, packet timers leave resends to SLEEK: flow `f`'s
    /// earliest packet out is taken off its timer; if it was resent before,
    /// SLEEK may resend it again (uet-htsim `rtxTimerExpired`). The scheme
    /// hears of the expiry without a window change (its balancer still
    /// learns of the timeout). False when `f` is not in recovery.
    pub(crate) fn sleek_expire(&mut self, f: u32) -> bool {
        let fl = &mut self.flows[f as usize];
        if !fl.snd.sleek.as_deref().is_some_and(|s| s.recovery) {
            return false;
        }
        let recs = fl.snd.recs.as_deref_mut().expect("SLEEK runs on per-packet recovery");
        if let Some((psn, true)) = recs.untime_earliest() {
            fl.snd.sleek.as_deref_mut().expect("SLEEK state").highest_rtx = psn;
        }
        self.cc_call(f, CcOp::HeldTimeout);
        true
    }

    /// Makes sure an `Ev::Probe` is pending at or before flow `f`'s probe time.
    fn sleek_arm(&mut self, f: u32) {
        let sl = self.flows[f as usize].snd.sleek.as_deref_mut().expect("SLEEK state");
        if sl.probe_at != 0 && sl.probe_at < sl.armed {
            sl.armed = sl.probe_at;
            self.events.push(sl.probe_at, Ev::Probe { flow: f });
        }
    }

    /// `Ev::Probe` for flow `f` at `t`: sends a probe if its timer is due
    /// now, else re-arms for a later probe time.
    pub(crate) fn sleek_timer(&mut self, f: u32, t: Time) {
        let fl = &mut self.flows[f as usize];
        let Some(sl) = fl.snd.sleek.as_deref_mut() else { return };
        if sl.armed != t || fl.snd.done {
            return;
        }
        sl.armed = Time::MAX;
        if sl.probe_at == t {
            self.send_probe(f);
        }
        self.sleek_arm(f);
    }

    /// Sends flow `f`'s probe: a header of the flow's class, first in its
    /// NIC's control queue, on an entropy from the scheme's balancer
    /// (uet-htsim `sendProbe`, `sendControlPacket`); the probe timer is
    /// armed again for `probe_retry` base RTTs.
    fn send_probe(&mut self, f: u32) {
        let now = self.now;
        let header = self.net.header.0 + if self.mode.int_on { self.mode.int_fixed as u64 } else { 0 };
        let retry = self.net.sleek.probe_retry;
        let fl = &mut self.flows[f as usize];
        let base_rtt = fl.cc.sleek_state().map_or(fl.view.base_rtt, |s| s.base_rtt);
        let mut pkt = Packet {
            kind: PktKind::Data,
            sub: PROBE,
            class: fl.class,
            flow: f,
            src: fl.view.src,
            dst: fl.view.dst,
            size: header as u32,
            seq: fl.snd.una,
            ts: now,
            hash: fl.hash,
            ..Default::default()
        };
        let mut cx = crate::cc::SenderCx::new(now, &fl.view, fl.snd.nxt, fl.snd.una, fl.snd.rate as f64, fl.snd.window);
        Self::conn_cx(fl, &mut cx);
        fl.cc.on_send(&mut cx, &mut pkt);
        let sl = fl.snd.sleek.as_deref_mut().expect("SLEEK state");
        sl.probe_sent = now;
        sl.probe_at = now + ((retry * base_rtt as f64) as Time).max(1);
        let hi = self.node_index[fl.view.src as usize] as usize;
        let port = self.hosts[hi].port;
        let h = self.pool.alloc(pkt);
        self.queue_ctrl(port, h);
    }
}
