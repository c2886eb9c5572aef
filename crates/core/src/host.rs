//! Hosts: the NIC (control packets first, then active flows round-robin, each
//! paced at its scheme's rate and limited by its window; stops data on PFC
//! PAUSE, and ACKs too when they travel in data classes) and an RDMA RC-like
//! reliable transport: MTU-sized packets with headers on the wire, cumulative
//! ACKs (coalescing configurable), NACK on out-of-order, go-back-N
//! retransmission and an optional retransmission timeout. Scheme hooks are
//! called here.

use crate::cc::{ReceiverCx, SenderCx, TIMER_SLOTS};
use crate::config::{Receiver, Routing as RoutingMode};
use crate::event::Ev;
use crate::packet::{Packet, PktKind, PROBE};
use crate::recovery::SendRecords;
use crate::state::Simulator;
use crate::time::Time;
use crate::trace::TraceEvent;
use crate::transport::Loss;
use crate::transport::{CcOp, Flow};

/// Lowest pacing rate the core accepts from a scheme (bits/s).
const MIN_RATE: u64 = crate::topology::MIN_LINK_RATE;

impl Simulator {
    pub(crate) fn flow_start(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        fl.snd.last_progress = now;
        let hi = self.node_index[fl.view.src as usize] as usize;
        self.ctl.started += 1;
        self.ctl.last_progress = now;
        self.cc_call(f, CcOp::Start);
        if self.credit.is_some() {
            self.credit_start(f);
        }
        self.nic_start(hi, f);
        if let Some(rto) = self.mode.rto {
            self.events.push(now + rto, Ev::Rto { flow: f });
        }
        let p = self.hosts[hi].port;
        self.try_send(p);
    }

    /// Calls a sender hook with a fresh context and applies what it set. The
    /// caller kicks the NIC afterwards (after freeing the packet that caused
    /// the call, so the next data packet reuses its warm pool slot).
    pub(crate) fn cc_call(&mut self, f: u32, op: CcOp) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        let mut cx = SenderCx::new(now, &fl.view, fl.snd.nxt, fl.snd.una, fl.snd.rate as f64, fl.snd.window);
        Self::conn_cx(fl, &mut cx);
        match op {
            CcOp::Start => fl.cc.on_start(&mut cx),
            CcOp::Ack(h) => fl.cc.on_ack(&mut cx, self.pool.get(h)),
            CcOp::Nack(h) => fl.cc.on_nack(&mut cx, self.pool.get(h)),
            CcOp::Control(h) => fl.cc.on_control(&mut cx, self.pool.get(h)),
            CcOp::Timer(s) => fl.cc.on_timer(&mut cx, s),
            CcOp::Timeout => fl.cc.on_timeout(&mut cx),
            CcOp::HeldTimeout => fl.cc.on_held_timeout(&mut cx),
        }
        let (rate, window, timers) = (cx.rate, cx.window, cx.timers);
        self.apply_sender(f, rate, window, timers);
    }

    /// Lets the sender NIC of flow `f` look for something to send.
    pub(crate) fn kick_sender(&mut self, f: u32) {
        if self.credit.is_some() {
            self.credit_check_rts(f);
        }
        let hi = self.node_index[self.flows[f as usize].view.src as usize] as usize;
        self.nic_place(hi, f);
        let p = self.hosts[hi].port;
        self.try_send(p);
    }

    /// Applies what a sender hook set: rate (clamped, re-pacing the current
    /// gap), window and timer requests.
    fn apply_sender(&mut self, f: u32, rate: f64, window: u64, timers: [Option<Option<Time>>; TIMER_SLOTS]) {
        let now = self.now;
        let fl = &self.flows[f as usize];
        let new_rate =
            if rate.is_finite() { (rate as u64).clamp(MIN_RATE, fl.view.line_rate) } else { fl.view.line_rate };
        let gap = if new_rate != fl.snd.rate && fl.snd.last_size > 0 {
            self.wire_time(fl.snd.last_size as u64, new_rate)
        } else {
            0
        };
        let fl = &mut self.flows[f as usize];
        let window = window.max(1);
        if let Some(slot) = fl.log_slot {
            if new_rate != fl.snd.rate || window != fl.snd.window {
                if let Some(t) = self.tracer.as_mut().filter(|t| t.changes) {
                    let ev = TraceEvent::Change { slot, rate: new_rate as f64, window: window as f64 };
                    t.event((now, self.events.current().1), ev);
                }
            }
        }
        fl.snd.window = window;
        if new_rate != fl.snd.rate {
            fl.snd.rate = new_rate;
            // re-pace the gap after the last packet at the new rate
            if fl.snd.last_size > 0 {
                fl.snd.next_send = fl.snd.last_send + gap;
            }
        }
        for (slot, t) in timers.iter().enumerate() {
            match t {
                Some(Some(at)) => {
                    fl.snd.timer_gen[slot] = fl.snd.timer_gen[slot].wrapping_add(1);
                    let gen = fl.snd.timer_gen[slot];
                    self.events.push((*at).max(now), Ev::Timer { flow: f, slot: slot as u8, gen });
                }
                Some(None) => fl.snd.timer_gen[slot] = fl.snd.timer_gen[slot].wrapping_add(1),
                None => {}
            }
        }
    }

    /// The control queue of host port `port` may send its head now: it has
    /// one, and (with ACKs in their flow's data class) the peer has not
    /// paused that packet's class. A held head holds the FIFO behind it, as
    /// the HPCC simulator's NIC holds its ACK queue; RESUME kicks the NIC.
    #[inline]
    fn ctrl_sendable(&self, port: u32) -> bool {
        let p = &self.ports[port as usize];
        if !p.has(0) {
            return false;
        }
        // (the port's own line first: a port seldom paused costs no other load)
        if p.paused == 0 || self.net.ack_high_priority {
            return true;
        }
        let h = p.head(0).expect("class 0 is not empty");
        p.paused & (1 << self.pool.get(h).class) == 0
    }

    /// Idle host NIC: a control packet if any (and its class not paused),
    /// else the next eligible flow.
    pub(crate) fn host_send(&mut self, port: u32) {
        let now = self.now;
        if self.ctrl_sendable(port) {
            let h = self.ports[port as usize].pop(0, &self.pool).expect("class 0 is not empty");
            let size = self.pool.get(h).size as u64;
            self.ports[port as usize].cls[0].bytes -= size;
            self.stats[port as usize].qlen -= size;
            let end = self.transmit(port, h, false);
            self.host_arm(port, end);
            return;
        }
        if self.ctl.draining {
            // a checked run playing out what is in flight: no new data
            return;
        }
        let node = self.ports[port as usize].node;
        let hi = self.node_index[node as usize] as usize;
        let Some(f) = self.nic_pick(hi) else {
            self.host_arm(port, now);
            return;
        };
        let h = self.make_data(f);
        if self.credit.is_some() {
            self.credit_sent(f, h);
            // UET asks for an ACK at once on the packet that spends the
            // credit (uet-htsim `sendNewPacket`: `_credit <= 0`)
            if self.mode.per_packet && self.flows[f as usize].snd.credit <= 0 {
                self.pool.get_mut(h).ack_req = true;
            }
        }
        let end = self.transmit(port, h, false);
        self.nic_place(hi, f);
        self.host_arm(port, end);
    }

    /// Makes sure the NIC of host port `port`, free at `at`, looks again when
    /// it may send: a `TxDone` at `at` if a control packet or a flow may go
    /// then, else a `HostWake` when the first paced flow's gap ends. Nothing
    /// when every flow waits for an ACK (which kicks the NIC itself) or for a
    /// RESUME (as does a control queue held by PFC).
    pub(crate) fn host_arm(&mut self, port: u32, at: Time) {
        let hi = self.node_index[self.ports[port as usize].node as usize] as usize;
        let next = if self.ctrl_sendable(port) || self.hosts[hi].nic.any_ready() {
            at
        } else if self.ctl.draining {
            return;
        } else {
            self.nic_earliest(hi).max(at)
        };
        if next == Time::MAX {
            return;
        }
        let p = &mut self.ports[port as usize];
        if next == at && at > self.now {
            if !p.tx_pending {
                p.tx_pending = true;
                self.events.push(at, Ev::TxDone { port });
            }
        } else {
            let host = &mut self.hosts[hi];
            if next < host.wake_at {
                host.wake_at = next;
                self.events.push(next, Ev::HostWake { host: hi as u32 });
            }
        }
    }

    /// The next range a trim NACK asked for, above the cumulative ACK
    /// (ranges it has passed are dropped): (first byte, end of the range).
    fn next_rtx(&mut self, f: u32) -> Option<(u64, u64)> {
        let fl = &mut self.flows[f as usize];
        while let Some(&(a, b)) = fl.snd.rtx.first() {
            if b > fl.snd.una {
                return Some((a.max(fl.snd.una), b));
            }
            fl.snd.rtx.remove(0);
        }
        None
    }

    /// Builds the next data packet of flow `f`: bytes a trim NACK asked
    /// for first, else new data (or a go-back-N resend from `snd_nxt`).
    fn make_data(&mut self, f: u32) -> u32 {
        if !self.flows[f as usize].snd.rtx.is_empty() {
            if let Some(r) = self.next_rtx(f) {
                return self.make_rtx(f, r);
            }
        }
        let seq = self.flows[f as usize].snd.nxt;
        // a connection packetizes each message on its own
        let end =
            if self.flows[f as usize].conn.is_some() { self.msg_end(f, seq) } else { self.flows[f as usize].view.size };
        let (h, payload) = self.build_data(f, seq, end);
        let fl = &mut self.flows[f as usize];
        fl.snd.nxt += payload;
        fl.snd.max_sent = fl.snd.max_sent.max(fl.snd.nxt);
        h
    }

    /// Resends the first packet of the trimmed range [a, b).
    fn make_rtx(&mut self, f: u32, (a, b): (u64, u64)) -> u32 {
        let end = if self.flows[f as usize].conn.is_some() { self.msg_end(f, a).min(b) } else { b };
        let (h, payload) = self.build_data(f, a, end);
        let fl = &mut self.flows[f as usize];
        if a + payload >= b {
            fl.snd.rtx.remove(0);
        } else {
            fl.snd.rtx[0].0 = a + payload;
        }
        // the resent bytes are in flight again
        Self::count_out_of_flight(fl);
        h
    }

    /// With trimming and a reorder receiver, the bytes in flight are those
    /// neither received nor waiting to be resent: `una_eff` = delivered +
    /// the bytes in `rtx` (at least `snd_una`, at most `snd_nxt`).
    pub(crate) fn count_out_of_flight(fl: &mut Flow) {
        let waiting: u64 = fl.snd.rtx.iter().map(|r| r.1 - r.0).sum();
        fl.snd.una_eff = (fl.snd.delivered + waiting).max(fl.snd.una).min(fl.snd.nxt.max(fl.snd.una));
    }

    /// A data packet of flow `f` from byte `seq` (at most an MTU, not past
    /// `end`), through the scheme's `on_send`, paced; returns it and its payload.
    fn build_data(&mut self, f: u32, seq: u64, end: u64) -> (u32, u64) {
        let now = self.now;
        let mtu = self.net.mtu.0;
        // the fixed INT header rides from the sender on (per-hop records are added by switches)
        let header = self.net.header.0 + if self.mode.int_on { self.mode.int_fixed as u64 } else { 0 };
        let spray = self.net.routing == RoutingMode::Spray;
        let hash = if spray {
            let h = self.node_index[self.flows[f as usize].view.src as usize] as usize;
            self.hosts[h].rng.next_u64()
        } else {
            self.flows[f as usize].hash
        };
        let fl = &mut self.flows[f as usize];
        let payload = mtu.min(end - seq);
        let mut pkt = Packet {
            kind: PktKind::Data,
            class: fl.class,
            flow: f,
            src: fl.view.src,
            dst: fl.view.dst,
            size: (payload + header) as u32,
            payload: payload as u32,
            seq,
            ts: now,
            hash,
            ..Default::default()
        };
        let resend = seq < fl.snd.max_sent;
        if let Some(recs) = fl.snd.recs.as_deref_mut() {
            pkt.psn = Self::psn_for(recs, seq, payload, resend, now);
            // UET asks for an ACK at once on a resend, on the last packet of
            // the data released, and on the packet after which the next
            // would not fit the window (uet-htsim `sendNewPacket`: `_backlog
            // == 0`, `_in_flight + size >= _cwnd` with `_in_flight` counting
            // this packet; `sendRtxPacket`). The core sends while the bytes
            // in flight are under `window`, so the next would not fit once
            // those out, this packet's included, reach it.
            let out = (seq + payload).saturating_sub(fl.snd.una_eff);
            pkt.ack_req = resend || seq + payload >= fl.snd.avail || out >= fl.snd.window;
        } else {
            // New data (or go-back-N's resend of it) that fills a window
            // smaller than `ack_every` packets asks for an ACK at once: the
            // receiver would otherwise wait for packets the window does not
            // let come. A larger window always leaves room for the packets
            // the receiver counts, so coalescing is left as configured.
            pkt.ack_req = seq == fl.snd.nxt
                && fl.snd.window < self.net.ack_every as u64 * mtu
                && (seq + payload).saturating_sub(fl.snd.una_eff) >= fl.snd.window;
        }
        let mut cx = SenderCx::new(now, &fl.view, fl.snd.nxt, fl.snd.una, fl.snd.rate as f64, fl.snd.window);
        Self::conn_cx(fl, &mut cx);
        fl.cc.on_send(&mut cx, &mut pkt);
        let (rate, window, timers) = (cx.rate, cx.window, cx.timers);
        self.apply_sender(f, rate, window, timers);
        let fl = &mut self.flows[f as usize];
        fl.snd.last_send = now;
        fl.snd.last_size = pkt.size;
        let rate = fl.snd.rate;
        let gap = self.wire_time(pkt.size as u64, rate);
        self.flows[f as usize].snd.next_send = now + gap;
        self.count.data_packets += 1;
        self.count.data_bytes_sent += payload;
        if resend {
            self.count_loss(f, seq, Loss::Resend);
        }
        (self.pool.alloc(pkt), payload)
    }

    /// Per-packet recovery: the PSN of the packet of `payload` bytes from
    /// `seq` leaving at `now`, recorded (a new one) or its timer restarted
    /// (a resend: every resend is of a packet waiting in the records).
    fn psn_for(recs: &mut SendRecords, seq: u64, payload: u64, resend: bool, now: Time) -> u32 {
        // (new data, the common case, needs no search of the records)
        if resend {
            if let Some(psn) = recs.psn_of(seq) {
                recs.resent(psn, now);
                return psn;
            }
            debug_assert!(false, "a resend of byte {seq} that no record holds");
        }
        recs.sent_new(seq, payload as u32, now)
    }

    /// A packet arrived at a host.
    pub(crate) fn host_arrive(&mut self, port: u32, h: u32) {
        let kind = self.pool.get(h).kind;
        match kind {
            PktKind::Pause | PktKind::Resume => self.pfc_frame_arrived(port, h),
            PktKind::Data => self.receive_data(port, h),
            PktKind::Ack | PktKind::Nack => {
                let f = self.pool.get(h).flow;
                let complete = self.receive_ack(h);
                self.pool.free(h);
                if complete {
                    self.complete(f);
                } else {
                    self.kick_sender(f);
                }
            }
            PktKind::Credit => self.credit_arrive(h),
            PktKind::Cnp | PktKind::Ctrl => {
                let f = self.pool.get(h).flow;
                let live = (f as usize) < self.flows.len() && !self.flows[f as usize].snd.done;
                if live {
                    self.cc_call(f, CcOp::Control(h));
                }
                self.pool.free(h);
                if live {
                    self.kick_sender(f);
                }
            }
        }
    }

    /// A trimmed data packet (its header) reached its receiver: answer with a
    /// trim NACK naming its bytes, at once and for every such header (UE spec
    /// 1.0 §3.6.12 `OnRX`: `sendNACK(psn, ...)` with UET_TRIMMED or
    /// UET_TRIMMED_LASTHOP). The NACK takes over the header's slot, so the
    /// scheme's fields (`aux`: an entropy value) come back to the sender.
    fn receive_trimmed(&mut self, port: u32, h: u32) {
        let f = self.pool.get(h).flow as usize;
        if self.credit.is_some() {
            // the sender resends the trimmed packet: credit for it at once
            let pkt = self.pool.get(h);
            let (target, lost) = (pkt.credit(), pkt.trim_len as u64 + self.net.header.0);
            self.credit_target(f as u32, target, lost);
        }
        let data = self.reply_in_place(f, h, PktKind::Nack);
        self.pool.get_mut(h).trim_seq = data.seq;
        self.queue_ctrl(port, h);
    }

    /// Turns data packet `h` of flow `f` into the receiver's ACK or NACK in
    /// the same pool slot (warm in cache): its INT records, timestamp, trim
    /// fields and scheme fields stay in place; returns the data packet as it
    /// arrived.
    fn reply_in_place(&mut self, f: usize, h: u32, kind: PktKind) -> Packet {
        let data = self.pool.get(h).snapshot();
        let int_bytes = self.ack_int_bytes(&data);
        let fl = &self.flows[f];
        let ack = self.pool.get_mut(h);
        ack.kind = kind;
        ack.class = if self.net.ack_high_priority { 0 } else { fl.class };
        ack.src = fl.view.dst;
        ack.dst = fl.view.src;
        ack.size = self.net.ack_size.0 as u32 + int_bytes;
        ack.payload = 0;
        ack.seq = fl.rcv.nxt;
        ack.rcvd = fl.rcv.bytes;
        ack.ecn_echo = data.ce;
        ack.ce = false;
        ack.hops = 0;
        ack.path_hops = data.hops;
        // (the reverse path differs from the data's: ECMP hashes the salted value)
        ack.hash = if self.mode.ack_entropy { data.hash } else { fl.hash }.wrapping_add(1);
        data
    }

    fn receive_data(&mut self, port: u32, h: u32) {
        let now = self.now;
        let pkt = self.pool.get(h);
        if pkt.sub == PROBE {
            self.answer_probe(port, h);
            return;
        }
        if pkt.trim != 0 {
            self.receive_trimmed(port, h);
            return;
        }
        let f = pkt.flow as usize;
        if self.credit.is_some() {
            self.credit_target(f as u32, pkt.credit(), 0);
        }
        let pkt = self.pool.get(h);
        let hi = self.node_index[self.ports[port as usize].node as usize] as usize;
        let fl = &mut self.flows[f];
        // a connection is received while it has released data not yet received
        if !fl.rcv.started && (fl.conn.is_none() || fl.rcv.nxt < fl.snd.avail) {
            fl.rcv.started = true;
            self.hosts[hi].rx_active += 1;
        }
        self.count.data_bytes_delivered += pkt.payload as u64;
        self.ctl.last_progress = now;
        let mut rcx = ReceiverCx {
            now,
            flow: &fl.view,
            host_active_flows: self.hosts[hi].rx_active,
            avail: fl.snd.avail,
            send_cnp: false,
        };
        fl.rx.on_data(&mut rcx, pkt);
        let cnp = rcx.send_cnp;
        let (seq, payload, hops) = (pkt.seq, pkt.payload as u64, pkt.hops);
        // an ACK now: a CE mark, or the sender asks for one
        let now_ack = pkt.ce || pkt.ack_req;
        let reply = if self.mode.per_packet {
            self.rx_verdict_psn(f, hi, h)
        } else {
            self.rx_verdict(f, hi, seq, payload, now_ack)
        };
        if cnp {
            self.send_cnp(port, f, hops);
        }
        match reply {
            None => self.pool.free(h),
            Some(kind) => self.reply_with(port, f, hi, h, kind),
        }
    }

    /// A SLEEK probe (trimmed or not) reached its receiver: an ACK at once,
    /// with the cumulative point and the SACK bitmap above it, and nothing
    /// else (uet-htsim `UecSink::processData`, `DATA_PROBE`: the sink
    /// answers before it looks at anything; the bitmap's base,
    /// `sackBitmapBase` of the probe's own small number, is the PSN above
    /// the cumulative point).
    fn answer_probe(&mut self, port: u32, h: u32) {
        let f = self.pool.get(h).flow as usize;
        let hi = self.node_index[self.ports[port as usize].node as usize] as usize;
        let nxt = self.flows[f].rcv.psns.as_deref().map_or(0, |p| p.nxt);
        let pkt = self.pool.get_mut(h);
        (pkt.psn, pkt.ack_req) = (nxt, false);
        self.reply_with(port, f, hi, h, PktKind::Ack);
    }

    /// What receiver `f` (on host index `hi`) answers a data packet of
    /// `payload` bytes at `seq` with, having taken it: an ACK (every
    /// `ack_every` packets, at the end of a flow or message, on `now_ack`,
    /// for a duplicate), a NACK for a gap (at most one per `nack_interval`
    /// for the same point), or nothing. Reorder receivers keep data above
    /// the next expected byte; go-back-N receivers drop it.
    #[inline(always)]
    fn rx_verdict(&mut self, f: usize, hi: usize, seq: u64, payload: u64, now_ack: bool) -> Option<PktKind> {
        let now = self.now;
        let fl = &mut self.flows[f];
        if self.net.receiver == Receiver::Reorder && seq > fl.rcv.nxt {
            // Reorder mode: a new packet above the next expected byte is kept
            // and ACKed like an in-order one; a duplicate of kept data is re-ACKed.
            if keep_range(&mut fl.rcv.ooo, seq, seq + payload) {
                fl.rcv.bytes += payload;
                fl.rcv.ack_count += 1;
                if fl.rcv.ack_count.is_multiple_of(self.net.ack_every) || now_ack {
                    return Some(PktKind::Ack);
                }
                return None;
            }
            return Some(PktKind::Ack);
        }
        if seq == fl.rcv.nxt {
            let last = self.take_in_order(f, hi, payload);
            let fl = &self.flows[f];
            if fl.rcv.ack_count.is_multiple_of(self.net.ack_every) || last || now_ack {
                return Some(PktKind::Ack);
            }
            return None;
        }
        if seq > fl.rcv.nxt {
            let recent = fl.rcv.last_nack_seq == fl.rcv.nxt
                && fl.rcv.last_nack_time.is_some_and(|t| now < t + self.net.nack_interval.0);
            if !recent {
                fl.rcv.last_nack_seq = fl.rcv.nxt;
                fl.rcv.last_nack_time = Some(now);
                return Some(PktKind::Nack);
            }
            return None;
        }
        Some(PktKind::Ack)
    }

    /// Per-packet recovery: what receiver `f` (on host index `hi`) answers
    /// data packet `h` with, having taken it: an ACK for a duplicate, for
    /// its first packet, for a CE mark or an ACK request, when a gap an ACK
    /// request waited on closes, at the end of a flow or message, or
    /// `ack_every` packets after its last ACK; else nothing (uet-htsim
    /// `UecSink::processData`).
    fn rx_verdict_psn(&mut self, f: usize, hi: usize, h: u32) -> Option<PktKind> {
        let pkt = self.pool.get(h);
        let (seq, payload, psn, ar, now_ack) =
            (pkt.seq, pkt.payload as u64, pkt.psn, pkt.ack_req, pkt.ce || pkt.ack_req);
        let fl = &mut self.flows[f];
        let first = fl.rcv.bytes == 0;
        let psns = fl.rcv.psns.as_deref_mut().expect("per-packet recovery keeps the receiver's PSNs");
        let arrival = psns.arrive(psn, ar);
        if arrival.duplicate {
            return Some(PktKind::Ack);
        }
        let last = if seq == fl.rcv.nxt {
            self.take_in_order(f, hi, payload)
        } else {
            // a resend reuses its PSN, so a new PSN brings new bytes
            if keep_range(&mut fl.rcv.ooo, seq, seq + payload) {
                fl.rcv.bytes += payload;
            }
            false
        };
        let psns = self.flows[f].rcv.psns.as_deref_mut().expect("per-packet recovery keeps the receiver's PSNs");
        psns.since_ack += 1;
        if first || now_ack || arrival.gap_closed || last || psns.since_ack >= self.net.ack_every {
            psns.since_ack = 0;
            return Some(PktKind::Ack);
        }
        None
    }

    /// Receiver `f` takes `payload` in-order bytes: the cumulative point
    /// moves (joining the first kept range it reaches), a flow's or a
    /// message's end is delivered. Returns whether an end was reached (it
    /// is ACKed at once).
    #[inline(always)]
    fn take_in_order(&mut self, f: usize, hi: usize, payload: u64) -> bool {
        let fl = &mut self.flows[f];
        fl.rcv.nxt += payload;
        fl.rcv.bytes += payload;
        // Kept ranges are disjoint and never touch (touching ones merge),
        // so only the first can now join the cumulative point.
        if fl.rcv.ooo.first().is_some_and(|r| r.0 <= fl.rcv.nxt) {
            fl.rcv.nxt = fl.rcv.nxt.max(fl.rcv.ooo.remove(0).1);
        }
        fl.rcv.ack_count += 1;
        if fl.conn.is_none() {
            let last = fl.rcv.nxt >= fl.view.size;
            if last && !fl.rcv.done {
                fl.rcv.done = true;
                self.hosts[hi].rx_active -= 1;
            }
            last
        } else {
            let rcv_nxt = fl.rcv.nxt;
            if rcv_nxt >= fl.snd.avail && fl.rcv.started {
                fl.rcv.started = false;
                self.hosts[hi].rx_active -= 1;
            }
            // a message's last byte is acknowledged at once
            self.deliver(f as u32, rcv_nxt)
        }
    }

    /// A CNP from receiver `f` to its sender, queued at host port `port`,
    /// answering a data packet that crossed `hops` switches.
    fn send_cnp(&mut self, port: u32, f: usize, hops: u8) {
        let fl = &self.flows[f];
        let c = Packet {
            kind: PktKind::Cnp,
            class: 0,
            flow: f as u32,
            src: fl.view.dst,
            dst: fl.view.src,
            size: self.net.ack_size.0 as u32,
            hash: fl.hash.wrapping_add(1),
            path_hops: hops,
            ..Default::default()
        };
        let ch = self.pool.alloc(c);
        self.queue_ctrl(port, ch);
    }

    /// Data packet `h` of flow `f` becomes its `kind` reply in place, the
    /// receiver's scheme fills it, and it is queued at host port `port`.
    #[inline(always)]
    fn reply_with(&mut self, port: u32, f: usize, hi: usize, h: u32, kind: PktKind) {
        let data = self.reply_in_place(f, h, kind);
        let fl = &mut self.flows[f];
        let ack = self.pool.get_mut(h);
        if let Some(psns) = fl.rcv.psns.as_deref().filter(|_| kind == PktKind::Ack) {
            let (base, bitmap) = psns.sack(data.psn, data.ce || data.ack_req);
            ack.psn = base;
            ack.set_sack(bitmap);
        }
        let rcx = ReceiverCx {
            now: self.now,
            flow: &fl.view,
            host_active_flows: self.hosts[hi].rx_active,
            avail: fl.snd.avail,
            send_cnp: false,
        };
        fl.rx.fill_ack(&rcx, &data, ack);
        self.queue_ctrl(port, h);
    }
}

/// Adds [a, b) to the sorted, disjoint ranges `r` (merging neighbours);
/// false if every byte of it was already there.
fn keep_range(r: &mut Vec<(u64, u64)>, a: u64, b: u64) -> bool {
    let i = r.partition_point(|x| x.1 < a);
    if i < r.len() && r[i].0 <= a && b <= r[i].1 {
        return false;
    }
    // ranges i.. that touch or overlap [a, b) merge into one
    let mut j = i;
    let (mut lo, mut hi) = (a, b);
    while j < r.len() && r[j].0 <= hi {
        lo = lo.min(r[j].0);
        hi = hi.max(r[j].1);
        j += 1;
    }
    r.splice(i..j, std::iter::once((lo, hi)));
    true
}

impl Simulator {
    pub(crate) fn queue_ctrl(&mut self, port: u32, h: u32) {
        let size = self.pool.get(h).size as u64;
        let p = &mut self.ports[port as usize];
        p.push(0, h, size, &mut self.pool);
        self.stats[port as usize].qlen += size;
        self.try_send(port);
    }

    /// Handles an ACK/NACK; true when it completes the flow.
    fn receive_ack(&mut self, h: u32) -> bool {
        let now = self.now;
        if self.credit.is_some() {
            self.credit_heard(self.pool.get(h).flow);
        }
        let f = self.pool.get(h).flow;
        let fl = &self.flows[f as usize];
        if fl.snd.done {
            return false;
        }
        let sleek = fl.snd.sleek.is_some();
        if sleek {
            self.sleek_mark_stale(f, h);
        }
        let pkt = self.pool.get(h);
        let fl = &mut self.flows[f as usize];
        let (seq, psn, sack, sub, ts) = (pkt.seq, pkt.psn, pkt.sack(), pkt.sub, pkt.ts);
        let nack = pkt.kind == PktKind::Nack;
        let trimmed = (pkt.trim != 0).then_some((pkt.trim_seq, pkt.trim_seq + pkt.trim_len as u64));
        let rcvd = pkt.rcvd;
        if let Some(slot) = fl.log_slot {
            if let Some(t) = self.tracer.as_mut().filter(|t| t.acks) {
                t.event((now, self.events.current().1), TraceEvent::Ack { slot, sent: pkt.ts });
            }
        }
        if let Some(h) = self.rtt_hist.as_mut() {
            h.add(now - pkt.ts);
        }

        if seq > fl.snd.una {
            fl.snd.una = seq;
            fl.snd.last_progress = now;
            if !fl.snd.rtx.is_empty() {
                // ranges the cumulative ACK passed need no resend (the NIC
                // counts a flow with ranges left as having something to send)
                let una = fl.snd.una;
                fl.snd.rtx.retain(|r| r.1 > una);
            }
        }
        let selective = trimmed.filter(|_| self.net.receiver == Receiver::Reorder);
        let mut queue = selective;
        if let Some(recs) = fl.snd.recs.as_deref_mut() {
            // per-packet recovery: what the cumulative point passed and the
            // SACK bitmap names is in; a trim NACK queues its packet if it
            // is still out
            recs.cumulative(fl.snd.una);
            if nack {
                queue = queue.and_then(|_| recs.nacked(psn));
            } else {
                recs.sacked(psn, sack, &mut fl.snd.rtx);
            }
        }
        if let Some((a, b)) = queue {
            // a receiver that keeps reordered data lost only the trimmed
            // bytes: resend them at once, ahead of new data
            if b > fl.snd.una && !fl.snd.rtx.iter().any(|r| r.0 <= a && b <= r.1) {
                Self::queue_rtx(&mut fl.snd.rtx, (a.max(fl.snd.una), b), self.mode.per_packet);
            }
        }
        if selective.is_none() && nack {
            // go-back-N from the receiver's next expected byte
            fl.snd.nxt = seq.max(fl.snd.una);
        }
        if fl.snd.nxt < fl.snd.una {
            fl.snd.nxt = fl.snd.una;
        }
        fl.snd.delivered = fl.snd.delivered.max(rcvd).max(fl.snd.una);
        if self.mode.trim_selective {
            Self::count_out_of_flight(fl);
        } else {
            fl.snd.una_eff = fl.snd.una;
        }
        let conn = fl.conn.is_some();
        let complete = !conn && fl.snd.una >= fl.view.size;
        let snd_una = fl.snd.una;
        self.cc_call(f, if nack { CcOp::Nack(h) } else { CcOp::Ack(h) });
        if sleek && !nack {
            self.sleek_ack(f, sub, ts, seq, rcvd);
        }
        if conn {
            self.complete_msgs(f, snd_una);
        }
        complete
    }

    fn complete(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        fl.snd.done = true;
        fl.snd.fct = Some(now - fl.view.start);
        let hi = self.node_index[fl.view.src as usize] as usize;
        self.nic_finish(hi, f);
        self.ctl.finish_one(self.now);
    }

    /// Queues byte range `r` in a flow's resend queue `rtx`: after those queued
    /// before it, or under per-packet recovery in byte (and so PSN) order,
    /// as uet-htsim's `_rtx_queue`.
    pub(crate) fn queue_rtx(rtx: &mut Vec<(u64, u64)>, r: (u64, u64), in_order: bool) {
        let at = if in_order { rtx.partition_point(|q| q.0 < r.0) } else { rtx.len() };
        rtx.insert(at, r);
    }

    pub(crate) fn rto_check(&mut self, f: u32) {
        let Some(rto) = self.mode.rto else { return };
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        if fl.snd.done {
            return;
        }
        if self.mode.per_packet {
            self.packet_timers(f, rto);
            return;
        }
        if now >= fl.snd.last_progress + rto {
            if fl.snd.nxt > fl.snd.una {
                let una = fl.snd.una;
                self.count_loss(f, una, Loss::Timeout);
                let fl = &mut self.flows[f as usize];
                fl.snd.nxt = fl.snd.una;
                fl.snd.rtx.clear();
                fl.snd.una_eff = fl.snd.una;
                fl.snd.last_progress = now;
                if self.credit.is_some() {
                    self.credit_timeout(f);
                }
                self.cc_call(f, CcOp::Timeout);
                self.kick_sender(f);
            } else {
                self.flows[f as usize].snd.last_progress = now;
                if self.credit.is_some() {
                    self.credit_idle(f, rto);
                }
            }
        }
        let next = self.flows[f as usize].snd.last_progress + rto;
        self.events.push(next.max(now + 1), Ev::Rto { flow: f });
    }
}

impl Simulator {
    /// Per-packet recovery: flow `f`'s timer fired. Every packet out for
    /// `rto` or longer, earliest first, is queued for a resend, counted as a
    /// timeout and told to the scheme (`on_timeout`: UET's NSCC takes one
    /// packet off its window, uet-htsim `mark_packet_for_retransmission`);
    /// the timer then waits for the earliest packet still out, or `rto`
    /// when none is (so credits that went missing are asked for again).
    fn packet_timers(&mut self, f: u32, rto: Time) {
        let now = self.now;
        let mut expired = false;
        loop {
            let fl = &mut self.flows[f as usize];
            let recs = fl.snd.recs.as_deref_mut().expect("per-packet recovery keeps the sender's records");
            if recs.earliest().is_none_or(|t| t + rto > now) {
                break;
            }
            if fl.snd.sleek.is_some() && self.sleek_expire(f) {
                continue;
            }
            let fl = &mut self.flows[f as usize];
            let recs = fl.snd.recs.as_deref_mut().expect("per-packet recovery keeps the sender's records");
            let Some((_, a, b)) = recs.expire() else { break };
            Self::queue_rtx(&mut fl.snd.rtx, (a, b), true);
            self.count_loss(f, a, Loss::Timeout);
            if self.credit.is_some() {
                self.credit_timeout(f);
            }
            self.cc_call(f, CcOp::Timeout);
            expired = true;
        }
        let fl = &mut self.flows[f as usize];
        let earliest = fl.snd.recs.as_deref().and_then(|r| r.earliest());
        if expired {
            Self::count_out_of_flight(fl);
            self.kick_sender(f);
        } else if earliest.is_none() && self.credit.is_some() {
            self.credit_idle(f, rto);
        }
        let next = earliest.map_or(now + rto, |t| (t + rto).max(now + 1));
        self.events.push(next, Ev::Rto { flow: f });
    }
}

#[cfg(test)]
mod tests {
    use super::keep_range;

    #[test]
    fn kept_ranges_merge_and_detect_duplicates() {
        let mut r = Vec::new();
        assert!(keep_range(&mut r, 3000, 4000));
        assert!(keep_range(&mut r, 5000, 6000));
        assert_eq!(r, vec![(3000, 4000), (5000, 6000)]);
        assert!(!keep_range(&mut r, 3000, 4000), "duplicate");
        assert!(keep_range(&mut r, 4000, 5000), "fills the gap");
        assert_eq!(r, vec![(3000, 6000)]);
        assert!(keep_range(&mut r, 1000, 2000));
        assert!(keep_range(&mut r, 8000, 9000));
        assert_eq!(r, vec![(1000, 2000), (3000, 6000), (8000, 9000)]);
        assert!(!keep_range(&mut r, 5000, 6000));
        assert!(keep_range(&mut r, 2000, 3000));
        assert_eq!(r, vec![(1000, 6000), (8000, 9000)]);
    }
}
