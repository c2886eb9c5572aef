//! Receiver credits (UET RCCC, UE spec 1.0 §3.6.14), on when the scheme asks
//! for them ([`crate::cc::Requirements::credit`]). The mechanism is the one
//! uet-htsim builds (EQDS-style pulls; uec.cpp `UecPullPacer`, `UecSink::pull`,
//! `UecSrc::computePullTarget`, `handlePull`):
//!
//! * A sender starts with `max_credit` of speculative credit and sends data
//!   only while its credit is positive (`Sender::credit`, checked with the
//!   window by the NIC); each data packet costs its wire bytes. Its first
//!   ACK, NACK or pull ends speculation: leftover credit is dropped.
//! * Every data packet carries the sender's pull target (`Packet::credit`, held in `rcvd`):
//!   the credit granted so far plus what its backlog (new bytes and bytes to
//!   resend, in wire bytes) still needs beyond the credit it holds, capped at
//!   `max_credit` and, with a window, at window + one packet; rounded up to
//!   `quantum`.
//! * Each receiving host has one pacer. Flows whose target is above their
//!   grant wait in its queue; in turn, round robin, each gets a pull of at
//!   most `per_pull` (never past its target), and the pacer waits the time
//!   that credit takes at `rate` x the host's line rate. A pull carries the
//!   cumulative grant; the sender adds the growth to its credit (capped at
//!   `max_credit`).
//! * A trimmed header raises its flow's target by the packet's wire bytes at
//!   once (the sender will resend them; uet-htsim's sink re-enters the pull
//!   queue on a trim). A sender that needs more credit than it has asked for
//!   and has nothing granted left to come (its target is all granted) sends
//!   a request to send (RTS) carrying its new target, as uet-htsim's source
//!   does after a timeout: after a go-back-N, or when a connection releases
//!   a message.
//!
//! Differences from uet-htsim, each a simplification: no "slow pull"
//! speculative credit for idle senders; the pull target is not divided
//! among the sender NIC's active flows; a connection is speculative only at
//! its start.

use crate::event::Ev;
use crate::node::Pacer;
use crate::packet::{Packet, PktKind, CREDIT_PULL, CREDIT_RTS};
use crate::state::Simulator;
use crate::time::Time;
use crate::transport::{CreditFlow, Flow};

impl Simulator {
    /// The run's credit settings: per-flow state, one pacer per host, and
    /// ECN off towards hosts unless asked for.
    pub(crate) fn credit_init(&mut self) {
        let Some(c) = self.credit.clone() else { return };
        self.credit_flows = vec![CreditFlow::default(); self.flows.len()];
        self.pacers = (0..self.hosts.len()).map(|_| Pacer::default()).collect();
        for (i, fl) in self.flows.iter_mut().enumerate() {
            let bdp = fl.view.line_rate as f64 / 8.0 * fl.view.max_base_rtt as f64 / 1e12;
            self.credit_flows[i].max = (c.max_credit * bdp).ceil() as i64;
        }
        if !c.last_hop_ecn {
            for p in self.ports.iter_mut().filter(|p| !p.is_host && !p.peer_is_switch) {
                p.kmin = u64::MAX;
                p.kmax = u64::MAX;
            }
        }
    }

    /// A flow starts: its speculative credit.
    pub(crate) fn credit_start(&mut self, f: u32) {
        let cf = &mut self.credit_flows[f as usize];
        cf.speculating = true;
        cf.asked_at = self.now;
        set_credit(&mut self.flows[f as usize], cf.max);
    }

    /// Wire bytes of `payload` bytes sent as full packets.
    fn wire(&self, payload: u64) -> u64 {
        payload + payload.div_ceil(self.net.mtu.0) * self.net.header.0
    }

    /// The sender's pull target now (uet-htsim `computePullTarget`).
    fn pull_target(&self, f: u32) -> u64 {
        let c = self.credit.as_ref().expect("credits are on");
        let fl = &self.flows[f as usize];
        let cf = &self.credit_flows[f as usize];
        let fresh = fl.snd.avail.saturating_sub(fl.snd.nxt);
        let resend: u64 = fl.snd.rtx.iter().map(|r| self.wire(r.1 - r.0)).sum();
        let mut want = self.wire(fresh) + resend;
        if fl.snd.window != u64::MAX {
            want = want.min(fl.snd.window.saturating_add(fl.view.packet_size as u64));
        }
        let mut need = (want.min(cf.max as u64) as i64 - fl.snd.credit).max(0) as u64;
        // a speculating sender with data asks for at least a packet
        if cf.speculating && need < fl.view.packet_size as u64 && fresh > 0 {
            need = fl.view.packet_size as u64;
        }
        (cf.pulled + need).div_ceil(c.quantum) * c.quantum
    }

    /// Data packet `h` of flow `f` is leaving: it costs its wire bytes of
    /// credit and carries the pull target.
    pub(crate) fn credit_sent(&mut self, f: u32, h: u32) {
        let fl = &mut self.flows[f as usize];
        set_credit(fl, fl.snd.credit - self.pool.get(h).size as i64);
        let t = self.pull_target(f);
        self.credit_flows[f as usize].advertised = t;
        self.pool.get_mut(h).rcvd = t;
    }

    /// The sender heard from its receiver (ACK, NACK or pull): speculation
    /// ends and unspent speculative credit is dropped (`stopSpeculating`).
    pub(crate) fn credit_heard(&mut self, f: u32) {
        let cf = &mut self.credit_flows[f as usize];
        if cf.speculating {
            cf.speculating = false;
            let fl = &mut self.flows[f as usize];
            set_credit(fl, fl.snd.credit.min(0));
        }
    }

    /// After anything that changed what flow `f` has to send: if it is held
    /// by credit alone, everything it asked for was granted, and it now needs
    /// more, it sends an RTS with its new target.
    pub(crate) fn credit_check_rts(&mut self, f: u32) {
        let fl = &self.flows[f as usize];
        let cf = &self.credit_flows[f as usize];
        if fl.snd.done || fl.snd.credit > 0 || !fl.has_data() || cf.advertised > cf.pulled {
            return;
        }
        let t = self.pull_target(f);
        if t <= cf.advertised {
            return;
        }
        let cf = &mut self.credit_flows[f as usize];
        cf.advertised = t;
        cf.asked_at = self.now;
        self.count.credit_counts[1] += 1;
        self.send_credit(f, CREDIT_RTS, t);
    }

    /// Queues a credit packet of flow `f` carrying `value`: an RTS from its
    /// sender (on the data's hash) or a pull from its receiver (on the ACKs').
    fn send_credit(&mut self, f: u32, sub: u8, value: u64) {
        let fl = &self.flows[f as usize];
        let rts = sub == CREDIT_RTS;
        let (src, dst) = if rts { (fl.view.src, fl.view.dst) } else { (fl.view.dst, fl.view.src) };
        let pkt = Packet {
            kind: PktKind::Credit,
            sub,
            class: 0,
            flow: f,
            src,
            dst,
            size: self.net.ack_size.0 as u32,
            hash: if rts { fl.hash } else { fl.hash.wrapping_add(1) },
            rcvd: value,
            ts: self.now,
            ..Default::default()
        };
        let port = self.hosts[self.node_index[src as usize] as usize].port;
        let h = self.pool.alloc(pkt);
        self.queue_ctrl(port, h);
    }

    /// A timeout: what the sender asked for may never have reached its
    /// receiver (a dropped packet, a lost pull), so it may ask again.
    pub(crate) fn credit_timeout(&mut self, f: u32) {
        let cf = &mut self.credit_flows[f as usize];
        cf.advertised = cf.advertised.min(cf.pulled);
    }

    /// The retransmission timer found flow `f` with nothing in flight: if it
    /// is held by credit and has heard no pull (nor sent an RTS) for `rto`,
    /// its RTS or the pulls answering it may have been lost (a failed link):
    /// it asks again.
    pub(crate) fn credit_idle(&mut self, f: u32, rto: Time) {
        let fl = &self.flows[f as usize];
        if fl.snd.credit <= 0 && fl.has_data() && self.now >= self.credit_flows[f as usize].asked_at + rto {
            self.credit_timeout(f);
            self.kick_sender(f);
        }
    }

    /// The receiver of flow `f` learnt a pull target (data or RTS), or that
    /// `extra` wire bytes were trimmed and will be resent.
    pub(crate) fn credit_target(&mut self, f: u32, target: u64, extra: u64) {
        let cf = &mut self.credit_flows[f as usize];
        cf.target = cf.target.max(target) + extra;
        if cf.target > cf.granted && !cf.queued {
            cf.queued = true;
            let hi = self.node_index[self.flows[f as usize].view.dst as usize] as usize;
            self.pacers[hi].queue.push_back(f);
            if !self.pacers[hi].armed {
                self.pacers[hi].armed = true;
                let at = self.pacers[hi].free_at.max(self.now);
                self.events.push(at, Ev::Pull { host: hi as u32 });
            }
        }
    }

    /// Host `hi`'s pacer: one pull to the next waiting flow, then wait the
    /// time its credit takes at the credit rate.
    pub(crate) fn credit_pull(&mut self, hi: u32) {
        let hi = hi as usize;
        let c = self.credit.as_ref().expect("credits are on");
        let (per_pull, rate) = (c.per_pull, c.rate);
        while let Some(f) = self.pacers[hi].queue.pop_front() {
            let cf = &mut self.credit_flows[f as usize];
            if self.flows[f as usize].snd.done || cf.granted >= cf.target {
                cf.queued = false;
                continue;
            }
            let grant = per_pull.min(cf.target - cf.granted);
            cf.granted += grant;
            if cf.granted < cf.target {
                self.pacers[hi].queue.push_back(f);
            } else {
                cf.queued = false;
            }
            let granted = cf.granted;
            let port = self.hosts[hi].port;
            let line = self.ports[port as usize].rate as f64 * rate;
            let next = pull_after(self.now, grant, line);
            self.count.credit_counts[0] += 1;
            self.count.credit_counts[2] += grant;
            self.send_credit(f, CREDIT_PULL, granted);
            self.pacers[hi].free_at = next;
            self.events.push(next, Ev::Pull { host: hi as u32 });
            return;
        }
        self.pacers[hi].armed = false;
    }

    /// A credit packet reached host port `port`'s host.
    pub(crate) fn credit_arrive(&mut self, h: u32) {
        let pkt = self.pool.get(h);
        let (f, sub, value) = (pkt.flow, pkt.sub, pkt.credit());
        self.pool.free(h);
        if self.flows[f as usize].snd.done {
            return;
        }
        if sub == CREDIT_RTS {
            // an RTS asking for no more than was granted means a pull was
            // lost: one more quantum makes the pacer send the cumulative grant
            let granted = self.credit_flows[f as usize].granted;
            let quantum = self.credit.as_ref().map_or(1, |c| c.quantum);
            self.credit_target(f, if value > granted { value } else { granted + quantum }, 0);
            return;
        }
        self.credit_heard(f);
        let cf = &mut self.credit_flows[f as usize];
        cf.asked_at = self.now;
        if value > cf.pulled {
            let fl = &mut self.flows[f as usize];
            set_credit(fl, (fl.snd.credit + (value - cf.pulled) as i64).min(cf.max));
            cf.pulled = value;
        }
        self.kick_sender(f);
    }
}

/// When a pacer that granted `grant` bytes at `now` may pull again: the
/// grant's time at `line` bits/s, rounded up. A rate so low (or not a
/// positive number) that the gap passes the end of simulated time (u64
/// picoseconds, ~213 days) gives the end of time: no pull comes within the
/// run, which then ends as stalled. (A gap computed in f64 and added to
/// `now` in u64 wrapped around `now` there: an event before the wheel's
/// current bucket.)
fn pull_after(now: Time, grant: u64, line: f64) -> Time {
    let gap = (grant as f64 * 8e12 / line).ceil();
    // (`as` saturates at u64::MAX; NaN, from a rate that is not a number, fails the test)
    if gap >= 0.0 {
        now.saturating_add(gap as Time)
    } else {
        Time::MAX
    }
}

/// Sets a sender's credit and whether it is spent (the NIC's gate).
fn set_credit(fl: &mut Flow, credit: i64) {
    fl.snd.credit = credit;
    fl.snd.credit_held = credit <= 0;
}
