//! Switches: routing (ECMP / symmetric / spraying), shared-buffer admission
//! with per-(port, class) reserve and dynamic thresholds, PFC PAUSE/RESUME with
//! headroom, strict-priority egress queues, ECN marking and INT stamping at
//! egress dequeue, and the calls into a scheme's switch part.
//!
//! The buffer model follows the HPCC simulator's switch MMU: admission is
//! accounted at the ingress (port, class); the PFC threshold of a port is
//! alpha x (buffer - all headroom - all reserve - shared bytes in use); an
//! ingress pauses its upstream when it uses headroom or its shared use reaches
//! the threshold, and resumes when headroom is empty and shared use plus the
//! resume offset is back under the threshold. Without PFC the same threshold
//! is a tail-drop limit. Control-class packets (ACK, NACK, CNP, scheme control
//! packets) are not counted against the buffer and are never paused.

use crate::cc::SwitchCx;
use crate::config::{EcnMode, Routing as RoutingMode, XoffAt};
use crate::event::Ev;
use crate::packet::{IntHop, Packet, PktKind};
use crate::port::NC;
use crate::state::{prefetch, Simulator};
use crate::transport::Loss;

impl Simulator {
    /// A packet arrived at a switch through global port `in_port`: the
    /// switch's pipeline. PFC frames act on the port; anything else is
    /// routed ([`Simulator::route`]), lost without a live route, counted if
    /// it was held by a PAUSE upstream ([`Simulator::note_hol`]), trimmed or
    /// dropped past the trim threshold or the MMU's admission, seen by the
    /// scheme's switch hook ([`Simulator::hook_enqueue`]), queued at its
    /// egress (pausing its ingress when lossless and over threshold), and
    /// the egress started.
    pub(crate) fn switch_arrive(&mut self, in_port: u32, h: u32) {
        let kind = self.pool.get(h).kind;
        if matches!(kind, PktKind::Pause | PktKind::Resume) {
            self.pfc_frame_arrived(in_port, h);
            return;
        }
        let node = self.ports[in_port as usize].node;
        let si = self.node_index[node as usize] as usize;
        let out = self.route(node, si, in_port, h);
        // routes that still name a failed link (`network.reroute_delay`): lost there
        if out != u32::MAX && self.ports[out as usize].down {
            self.drop_packet(out, h);
            return;
        }
        if out == u32::MAX {
            self.lose_unrouted(h);
            return;
        }
        self.note_hol(in_port, out, h);
        let class = self.pool.get(h).class as usize;
        let size = self.pool.get(h).size as u64;
        if class != 0 && self.over_trim_threshold(out, class, size, h) {
            self.trim_packet(out, h);
            return;
        }
        if class != 0 && (self.over_queue_limit(out, class, size) || !self.admit(si, in_port, class, size)) {
            if self.net.trim.enabled && self.pool.get(h).kind == PktKind::Data {
                self.trim_packet(out, h);
            } else {
                self.drop_packet(out, h);
            }
            return;
        }
        self.hook_enqueue(si, node, in_port, out, h);
        if class != 0 && self.ports[out as usize].paused & (1 << class) != 0 {
            self.pool.get_mut(h).paused = true;
        }
        self.enqueue(out, class, h, size);
        if class != 0 && self.mode.lossless & (1 << class) != 0 {
            self.check_pause(si, in_port, class, out);
        }
        self.flush_emitted(si);
        self.try_send(out);
    }

    /// The egress of packet `h` at switch `node` (index `si`), arrived on
    /// `in_port` (u32::MAX: no route). Under symmetric routing a data packet
    /// records its ingress in its flow's path and an ACK, NACK or CNP
    /// retraces it (while that port is a live port of this switch); else the
    /// ECMP group's port [`crate::paths::pick`]s for the packet's hash.
    #[inline(always)]
    fn route(&mut self, node: u32, si: usize, in_port: u32, h: u32) -> u32 {
        let pkt = self.pool.get_mut(h);
        pkt.hops = pkt.hops.saturating_add(1);
        pkt.ingress = in_port;
        let sym = self.net.routing == RoutingMode::Symmetric;
        let f = pkt.flow as usize;
        if sym && pkt.kind == PktKind::Data {
            let fl = &mut self.flows[f];
            let i = pkt.hops as usize - 1;
            if i < fl.path.len() {
                fl.path[i] = in_port;
            }
        }
        let reverse = sym
            && matches!(pkt.kind, PktKind::Ack | PktKind::Nack | PktKind::Cnp)
            && pkt.path_hops >= pkt.hops
            && pkt.path_hops as usize <= self.flows[f].path.len()
            && pkt.dst == self.flows[f].view.src;
        // the recorded ingress, if it is a live port of this switch (after a
        // reroute the record can be half old path, half new, or on a dead link)
        let retrace = if reverse {
            let fl = &self.flows[f];
            let p = fl.path[(pkt.path_hops - pkt.hops) as usize];
            let port = &self.ports[p as usize];
            (port.node == node && !port.down).then_some(p)
        } else {
            None
        };
        match retrace {
            Some(p) => p,
            None => {
                let group = self.routing.group(node, pkt.dst);
                match group.len() {
                    // no route (links down): the packet is lost
                    0 => u32::MAX,
                    1 => group.get(0),
                    n => group.get(crate::paths::pick(n, pkt.hash, self.switches[si].salt)),
                }
            }
        }
    }

    /// Packet `h` has no route (links down): lost, and counted.
    #[cold]
    fn lose_unrouted(&mut self, h: u32) {
        let pkt = self.pool.get(h);
        if pkt.kind == PktKind::Data && pkt.trim == 0 {
            self.count.data_bytes_dropped += pkt.payload as u64;
            let (f, seq) = (pkt.flow, pkt.seq);
            self.count_loss(f, seq, Loss::Drop);
        }
        self.count.drops += 1;
        self.pool.free(h);
    }

    /// Head-of-line accounting (`RunResult::hol_pkts`): a packet that waited
    /// behind a PAUSE upstream was a victim if its own egress here is short.
    #[inline(always)]
    fn note_hol(&mut self, in_port: u32, out: u32, h: u32) {
        if self.pool.get(h).paused {
            let pkt = self.pool.get_mut(h);
            pkt.paused = false;
            if pkt.kind == PktKind::Data && self.stats[out as usize].qlen < self.ports[in_port as usize].headroom {
                self.flows[pkt.flow as usize].snd.hol_pkts += 1;
            }
        }
    }

    /// The scheme's switch hook sees packet `h` enter egress `out`'s queue
    /// (at its arrival size: INT records go on at dequeue).
    #[inline(always)]
    fn hook_enqueue(&mut self, si: usize, node: u32, in_port: u32, out: u32, h: u32) {
        let sw = &mut self.switches[si];
        let (a, b) = (sw.port_start as usize, sw.port_end as usize);
        if let Some(cc) = sw.cc.as_mut() {
            let mut cx = SwitchCx { now: self.now, node, ports: &self.stats[a..b], emit: &mut self.emit_buf };
            let in_local = self.ports[in_port as usize].local;
            let out_local = self.ports[out as usize].local;
            let pkt = self.pool.get_mut(h);
            let n_int = pkt.n_int;
            cc.on_enqueue(&mut cx, in_local, out_local, pkt);
            if self.ctl.deep {
                assert_eq!(pkt.n_int, n_int, "a switch hook pushed INT in on_enqueue");
            }
        }
    }

    /// Whether a data packet of `size` would take egress `out`'s class queue
    /// past its trim threshold (`network.trim.threshold`, [`Port::trim_at`]).
    #[inline]
    fn over_trim_threshold(&self, out: u32, class: usize, size: u64, h: u32) -> bool {
        // lossy classes only: PFC, not trimming, holds a lossless queue
        if !self.net.trim.enabled || self.mode.lossless & (1 << class) != 0 {
            return false;
        }
        let p = &self.ports[out as usize];
        p.cls[class].bytes + size > p.trim_at && self.pool.get(h).kind == PktKind::Data
    }

    /// Whether a packet of `size` would take egress `out`'s lossy class
    /// queue past `network.queue_limit` ([`Port::limit_at`]).
    #[inline]
    fn over_queue_limit(&self, out: u32, class: usize, size: u64) -> bool {
        if !self.mode.queue_limit {
            return false;
        }
        let p = &self.ports[out as usize];
        p.cls[class].bytes + size > p.limit_at && self.mode.lossless & (1 << class) == 0
    }

    /// Cuts a data packet that egress `out` cannot admit to its header and
    /// queues it in the control class (UE spec 1.0 §4.1: trimmed packets
    /// go in a class above data; uet-htsim serves them first). It is marked
    /// as trimmed at the last hop when `out` leads to a host.
    fn trim_packet(&mut self, out: u32, h: u32) {
        let last_hop = !self.ports[out as usize].peer_is_switch;
        let size = self.net.trim.size.0;
        let pkt = self.pool.get_mut(h);
        pkt.trim = if last_hop { crate::packet::TRIMMED_LAST_HOP } else { crate::packet::TRIMMED };
        pkt.size = size as u32;
        pkt.class = 0;
        pkt.paused = false;
        pkt.trim_len = pkt.payload;
        pkt.payload = 0;
        self.count.data_bytes_trimmed += pkt.trim_len as u64;
        self.count.trimmed += 1;
        self.ports[out as usize].trimmed += 1;
        let (f, seq) = (pkt.flow, pkt.seq);
        self.count_loss(f, seq, Loss::Trim);
        self.enqueue(out, 0, h, size);
        self.try_send(out);
    }

    #[inline(always)]
    fn enqueue(&mut self, out: u32, class: usize, h: u32, size: u64) {
        let p = &mut self.ports[out as usize];
        // routes and path retracing never pick a port whose link is down
        if self.ctl.deep {
            assert!(!p.down, "packet queued at egress {}:{} whose link is down", p.node, p.peer);
        }
        p.push(class, h, size, &mut self.pool);
        let s = &mut self.stats[out as usize];
        s.qlen += size;
        if s.qlen > p.max_qlen {
            p.max_qlen = s.qlen;
        }
    }

    /// Routes packets a switch hook emitted, from that switch.
    fn flush_emitted(&mut self, si: usize) {
        if self.emit_buf.is_empty() {
            return;
        }
        let node = self.switches[si].node;
        let mut buf = std::mem::take(&mut self.emit_buf);
        for mut pkt in buf.drain(..) {
            pkt.ingress = u32::MAX;
            let group = self.routing.group(node, pkt.dst);
            if group.len() == 0 {
                continue;
            }
            let out = group.get(crate::paths::pick(group.len(), pkt.hash, self.switches[si].salt));
            if self.ports[out as usize].down {
                continue;
            }
            let class = (pkt.class as usize).min(NC - 1);
            let size = pkt.size as u64;
            let h = self.pool.alloc(pkt);
            self.enqueue(out, class, h, size);
            self.try_send(out);
        }
        self.emit_buf = buf;
    }

    /// Shared-buffer threshold for ingress port `p` of switch `si`.
    #[inline(always)]
    fn threshold(&self, si: usize, p: u32) -> u64 {
        if let Some(x) = self.net.pfc.static_xoff {
            return x.0;
        }
        let sw = &self.switches[si];
        let free = self.net.buffer.0.saturating_sub(sw.total_hdrm + sw.total_rsrv + sw.shared_used);
        (free as u128 * self.ports[p as usize].alpha_1024 as u128 / 1024) as u64
    }

    #[inline(always)]
    fn shared_of(&self, p: u32, c: usize) -> u64 {
        self.ports[p as usize].cls[c].ing_bytes.saturating_sub(self.net.reserve.0)
    }

    /// Ingress admission and accounting; false = drop.
    fn admit(&mut self, si: usize, p: u32, c: usize, size: u64) -> bool {
        let reserve = self.net.reserve.0;
        let thresh = self.threshold(si, p);
        let shared = self.shared_of(p, c);
        let lossless = self.mode.lossless & (1 << c) != 0;
        let port = &self.ports[p as usize];
        let new_bytes = port.cls[c].ing_bytes + size;
        if lossless {
            if port.cls[c].hdrm_bytes + size > port.headroom && shared + size > thresh {
                return false;
            }
        } else if new_bytes > reserve && new_bytes - reserve > thresh {
            return false;
        }
        let port = &mut self.ports[p as usize].cls[c];
        if new_bytes <= reserve {
            port.ing_bytes = new_bytes;
        } else if new_bytes - reserve > thresh {
            port.hdrm_bytes += size;
        } else {
            port.ing_bytes = new_bytes;
            self.switches[si].shared_used += size.min(new_bytes - reserve);
        }
        true
    }

    pub(crate) fn release(&mut self, si: usize, p: u32, c: usize, size: u64) {
        let reserve = self.net.reserve.0;
        let port = &mut self.ports[p as usize].cls[c];
        let from_hdrm = port.hdrm_bytes.min(size);
        let from_shared = (size - from_hdrm).min(port.ing_bytes.saturating_sub(reserve));
        port.hdrm_bytes -= from_hdrm;
        port.ing_bytes -= size - from_hdrm;
        self.switches[si].shared_used -= from_shared;
    }

    /// After a packet of class `c` from ingress `p` joined egress `out`
    /// (inline: called once, for every packet of a lossless class).
    #[inline(always)]
    fn check_pause(&mut self, si: usize, p: u32, c: usize, out: u32) {
        let port = &self.ports[p as usize];
        if port.pause_out & (1 << c) != 0 {
            return;
        }
        if port.cls[c].hdrm_bytes > 0 {
            self.ports[p as usize].pause_out |= 1 << c;
            self.send_pfc(p, c, PktKind::Pause);
            return;
        }
        let over = match self.net.pfc.xoff_at {
            XoffAt::Ingress => self.shared_of(p, c) >= self.threshold(si, p),
            XoffAt::Egress => self.ports[out as usize].cls[c].bytes >= self.threshold(si, p),
        };
        if over {
            if self.net.pfc.xoff_at == XoffAt::Egress {
                self.ports[p as usize].cls[c].xoff_egress = out;
                self.ports[out as usize].xoff_fed |= 1 << c;
            }
            self.ports[p as usize].pause_out |= 1 << c;
            self.send_pfc(p, c, PktKind::Pause);
        }
    }

    pub(crate) fn check_resume(&mut self, si: usize, p: u32, c: usize) {
        let port = &self.ports[p as usize];
        if port.pause_out & (1 << c) == 0 || port.cls[c].hdrm_bytes > 0 {
            return;
        }
        let offset = self.net.pfc.resume_offset.0;
        let below = match self.net.pfc.xoff_at {
            XoffAt::Ingress => {
                let shared = self.shared_of(p, c);
                shared == 0 || shared + offset <= self.threshold(si, p)
            }
            XoffAt::Egress => match port.cls[c].xoff_egress {
                u32::MAX => true,
                e => {
                    let q = self.ports[e as usize].cls[c].bytes;
                    q == 0 || q + offset <= self.threshold(si, p)
                }
            },
        };
        if below {
            self.ports[p as usize].cls[c].xoff_egress = u32::MAX;
            self.ports[p as usize].pause_out &= !(1 << c);
            self.send_pfc(p, c, PktKind::Resume);
        }
    }

    /// Under `xoff_at = "egress"`, after egress `e` of switch `si` sent a packet
    /// of class `c`: the ingresses it made pause may resume. (Inline: most
    /// egresses paused none, and the call then costs a bit test.)
    #[inline(always)]
    pub(crate) fn resume_fed_by(&mut self, si: usize, e: u32, c: usize) {
        if self.ports[e as usize].xoff_fed & (1 << c) != 0 {
            self.resume_paused_by(si, e, c);
        }
    }

    /// [`Simulator::resume_fed_by`] when egress `e` did pause some ingress.
    #[cold]
    fn resume_paused_by(&mut self, si: usize, e: u32, c: usize) {
        let (a, b) = (self.switches[si].port_start, self.switches[si].port_end);
        let mut left = false;
        for p in a..b {
            if self.ports[p as usize].cls[c].xoff_egress == e {
                self.check_resume(si, p, c);
                left |= self.ports[p as usize].cls[c].xoff_egress == e;
            }
        }
        if !left {
            self.ports[e as usize].xoff_fed &= !(1 << c);
        }
    }

    /// Queues a PAUSE/RESUME frame for class `c` at the head of port `p`'s
    /// control queue (it goes out as soon as the current packet ends).
    fn send_pfc(&mut self, p: u32, c: usize, kind: PktKind) {
        if self.ports[p as usize].down {
            return;
        }
        let node = self.ports[p as usize].node;
        let peer = self.ports[p as usize].peer;
        let size = self.net.pause_size.0;
        let mut pkt = Packet { kind, class: 0, src: node, dst: peer, size: size as u32, ..Default::default() };
        pkt.aux[0] = c as u64;
        let h = self.pool.alloc(pkt);
        let port = &mut self.ports[p as usize];
        // PFC frames go out before any other packet, in the order they were
        // decided: a RESUME must never overtake the PAUSE before it (or the
        // upstream would end paused when we think it runs, or the reverse)
        port.pfc.push(h, &mut self.pool);
        self.stats[p as usize].qlen += size;
        if kind == PktKind::Pause {
            port.pause_sent += 1;
            self.count.pause_frames += 1;
        }
        self.try_send(p);
    }

    /// A PAUSE/RESUME frame arrived on `port`: it controls this node's egress on the same link.
    pub(crate) fn pfc_frame_arrived(&mut self, port: u32, h: u32) {
        let pkt = self.pool.get(h);
        let c = pkt.aux[0] as usize;
        let kind = pkt.kind;
        self.pool.free(h);
        let now = self.now;
        let p = &mut self.ports[port as usize];
        let st = &mut self.stats[port as usize];
        match kind {
            PktKind::Pause => {
                st.pauses += 1;
                if p.paused & (1 << c) == 0 {
                    p.paused |= 1 << c;
                    p.cls[c].paused_since = now;
                }
                st.paused = p.paused;
                if !p.is_host && c < NC {
                    // every packet queued behind this PAUSE waits (RunResult::hol_pkts)
                    let mut q = p.cls[c].q.head;
                    while q != u32::MAX {
                        let pkt = self.pool.get_mut(q);
                        pkt.paused = true;
                        q = pkt.next;
                    }
                }
            }
            _ => {
                if p.paused & (1 << c) != 0 {
                    p.paused &= !(1 << c);
                    p.paused_time += now - p.cls[c].paused_since;
                    self.pause_log.push((port, p.cls[c].paused_since, now));
                    st.paused = p.paused;
                    if p.is_host {
                        let hi = self.node_index[p.node as usize] as usize;
                        self.nic_resume(hi);
                    }
                    self.try_send(port);
                }
            }
        }
    }

    /// Highest-priority class of `port` with a packet and not paused.
    #[inline]
    fn pick_class(&self, port: u32) -> Option<usize> {
        self.ports[port as usize].sendable()
    }

    /// Egress `port` of a switch sends its next packet: a PFC frame first,
    /// else the head of the class [`Simulator::pick_class`] chooses, which
    /// leaves the buffer (the MMU releases its ingress, PFC may resume),
    /// is marked ([`Simulator::mark_ecn`]) and stamped ([`Simulator::stamp_int`])
    /// if it is data, and is seen by the scheme's hook before it goes.
    pub(crate) fn switch_send(&mut self, port: u32) {
        if let Some(h) = self.ports[port as usize].pfc.pop(&self.pool) {
            let size = self.pool.get(h).size as u64;
            self.stats[port as usize].qlen -= size;
            let more = !self.ports[port as usize].pfc.is_empty() || self.pick_class(port).is_some();
            self.transmit(port, h, more);
            return;
        }
        let Some(c) = self.pick_class(port) else { return };
        let h = self.ports[port as usize].pop(c, &self.pool).unwrap();
        // the packet after it is likely the next to go: load it while this
        // one is serialized (its handle came with the packet just taken)
        if let Some(n) = self.ports[port as usize].head(c) {
            prefetch(self.pool.slot_ptr(n));
        }
        let size = self.pool.get(h).size as u64;
        {
            let p = &mut self.ports[port as usize];
            p.cls[c].bytes -= size;
            self.stats[port as usize].qlen -= size;
        }
        let node = self.ports[port as usize].node;
        let si = self.node_index[node as usize] as usize;
        let in_port = self.pool.get(h).ingress;
        self.leave_buffer(si, port, in_port, c, size);
        let kind = self.pool.get(h).kind;
        // records added from here on cost wire bytes under per-hop encoding
        let n_int = self.pool.get(h).n_int;
        // (a data packet in the control class is a trimmed header: not marked)
        if kind == PktKind::Data && c != 0 {
            if self.ecn_enabled() {
                self.mark_ecn(port, c, h);
            }
            if self.mode.int_on {
                self.stamp_int(port, h);
            }
        }
        self.hook_dequeue(si, node, in_port, port, h);
        if self.mode.int_hop > 0 {
            let pkt = self.pool.get_mut(h);
            pkt.size += self.mode.int_hop * (pkt.n_int - n_int) as u32;
        }
        let more = !self.ports[port as usize].pfc.is_empty() || self.pick_class(port).is_some();
        self.transmit(port, h, more);
        self.flush_emitted(si);
    }

    /// A packet of `size` in class `c` leaves egress `port` of switch `si`:
    /// the MMU releases it from ingress `in_port` (u32::MAX: made at the
    /// switch), and in a lossless class PFC may resume that ingress and the
    /// ingresses this egress held back.
    #[inline(always)]
    fn leave_buffer(&mut self, si: usize, port: u32, in_port: u32, c: usize, size: u64) {
        if c != 0 && in_port != u32::MAX {
            self.release(si, in_port, c, size);
            if self.mode.lossless & (1 << c) != 0 {
                self.check_resume(si, in_port, c);
            }
        }
        if c != 0 && self.mode.lossless & (1 << c) != 0 {
            self.resume_fed_by(si, port, c);
        }
    }

    /// ECN on egress `port`'s class `c` queue, without the departing data
    /// packet `h`: step at `kmin`, or RED between `kmin` and `kmax`.
    #[inline(always)]
    fn mark_ecn(&mut self, port: u32, c: usize, h: u32) {
        let p = &self.ports[port as usize];
        let q = p.cls[c].bytes;
        let mark = match self.net.ecn.mode {
            EcnMode::Step => q > p.kmin,
            EcnMode::Red => {
                if q <= p.kmin {
                    false
                } else if q > p.kmax {
                    true
                } else {
                    let prob = self.net.ecn.pmax * (q - p.kmin) as f64 / (p.kmax - p.kmin).max(1) as f64;
                    let sw = self.node_index[p.node as usize] as usize;
                    self.switches[sw].rng.next_f64() < prob
                }
            }
            EcnMode::Off => false,
        };
        if mark {
            self.pool.get_mut(h).ce = true;
            self.ports[port as usize].ecn_marked += 1;
        }
    }

    /// An INT record of egress `port` (time, bytes sent, queue, rate) onto data packet `h`.
    #[inline(always)]
    fn stamp_int(&mut self, port: u32, h: u32) {
        let s = self.stats[port as usize];
        self.pool.get_mut(h).push_int(IntHop {
            ts: self.now,
            tx_bytes: s.tx_bytes,
            qlen: s.qlen,
            rate_bps: s.rate_bps,
        });
    }

    /// The scheme's switch hook sees packet `h` leave egress `out` (a mark
    /// it sets on data counts like the core's).
    #[inline(always)]
    fn hook_dequeue(&mut self, si: usize, node: u32, in_port: u32, out: u32, h: u32) {
        let sw = &mut self.switches[si];
        let (a, b) = (sw.port_start as usize, sw.port_end as usize);
        if let Some(cc) = sw.cc.as_mut() {
            let mut cx = SwitchCx { now: self.now, node, ports: &self.stats[a..b], emit: &mut self.emit_buf };
            let in_local = if in_port == u32::MAX { u16::MAX } else { self.ports[in_port as usize].local };
            let out_local = self.ports[out as usize].local;
            let pkt = self.pool.get_mut(h);
            let ce_before = pkt.ce;
            cc.on_dequeue(&mut cx, in_local, out_local, pkt);
            // a scheme's own marking (e.g. PCN's NP-ECN) counts like the core's
            if pkt.ce && !ce_before && pkt.kind == PktKind::Data {
                self.ports[out as usize].ecn_marked += 1;
            }
        }
    }

    /// Consistency of the shared-buffer accounting, checked at the end of every
    /// run in debug builds (so by every test): for each switch ingress (port,
    /// class), ingress bytes + headroom bytes equal the bytes of the packets
    /// that entered through it and still wait in that switch's egress queues;
    /// each switch's shared use is the sum of the ingresses' use beyond their
    /// reserve; and an ingress that holds nothing is not pausing its upstream
    /// (its RESUME is decided when its last packet leaves). A leak here would
    /// shrink every dynamic threshold and pause fabrics for good. Also: every
    /// port's mask of non-empty classes matches its queues (a stale bit would
    /// send from an empty class, a missing one strand a packet).
    pub(crate) fn check_buffer_accounting(&self) -> Result<(), String> {
        let reserve = self.net.reserve.0;
        for (i, p) in self.ports.iter().enumerate().filter(|(_, p)| p.built) {
            for (c, q) in p.cls.iter().enumerate() {
                if p.has(c) == q.q.is_empty() {
                    return Err(format!("port {i} class {c}: the non-empty mask disagrees with the queue"));
                }
                if q.q.is_empty() != (q.q.tail == u32::MAX) {
                    return Err(format!("port {i} class {c}: the queue has a head without a tail, or the reverse"));
                }
            }
        }
        // (in a part of a parallel run, the switches whose ports it has)
        let whole = |sw: &&crate::node::Switch| {
            self.ports[sw.port_start as usize..sw.port_end as usize].iter().all(|p| p.built)
        };
        for sw in self.switches.iter().filter(whole) {
            let (a, b) = (sw.port_start as usize, sw.port_end as usize);
            let mut held = vec![[0u64; NC]; b - a];
            for p in &self.ports[a..b] {
                for (c, q) in p.cls.iter().enumerate() {
                    for h in q.q.iter(&self.pool) {
                        let pkt = self.pool.get(h);
                        if c != 0 && pkt.ingress != u32::MAX {
                            let i = pkt.ingress as usize;
                            if !(a..b).contains(&i) {
                                return Err(format!("switch {}: packet from foreign ingress {i}", sw.node));
                            }
                            held[i - a][c] += pkt.size as u64;
                        }
                    }
                }
            }
            let mut shared = 0;
            for (p, held) in self.ports[a..b].iter().zip(&held) {
                for (c, &queued) in held.iter().enumerate().skip(1) {
                    let acc = p.cls[c].ing_bytes + p.cls[c].hdrm_bytes;
                    if acc != queued {
                        return Err(format!(
                            "switch {} ingress to {} class {c}: accounted {} B (ingress {} + headroom {}), queued {} B",
                            sw.node, p.peer, acc, p.cls[c].ing_bytes, p.cls[c].hdrm_bytes, queued
                        ));
                    }
                    shared += p.cls[c].ing_bytes.saturating_sub(reserve);
                    // under xoff_at = "egress" an empty ingress may pause for an egress still full
                    let for_egress = match p.cls[c].xoff_egress {
                        u32::MAX => false,
                        e => (a..b).contains(&(e as usize)) && self.ports[e as usize].cls[c].bytes > 0,
                    };
                    if p.pause_out & (1 << c) != 0 && acc == 0 && !for_egress {
                        return Err(format!("switch {} ingress to {} class {c}: pausing while empty", sw.node, p.peer));
                    }
                }
            }
            if shared != sw.shared_used {
                return Err(format!(
                    "switch {}: shared use {} B, ingresses hold {} B",
                    sw.node, sw.shared_used, shared
                ));
            }
        }
        Ok(())
    }

    /// A cycle of paused egress ports (global port id, class): egress e is
    /// paused for class c by its peer, whose ingress (the other end of e's
    /// link) is pausing for c because its bytes wait in egress f of that
    /// switch, itself paused for c, and so on back to e. Such a cycle never
    /// drains: a PFC deadlock. Looked for only when a run has stopped moving.
    pub(crate) fn pfc_cycle(&self) -> Option<Vec<(u32, u8)>> {
        // edges between paused (port, class) pairs
        let mut next: std::collections::BTreeMap<(u32, u8), Vec<(u32, u8)>> = Default::default();
        for (e, p) in self.ports.iter().enumerate() {
            for c in 1..NC as u8 {
                if p.paused & (1 << c) == 0 {
                    continue;
                }
                let ingress = p.peer_port;
                let at = &self.ports[ingress as usize];
                if at.is_host || at.pause_out & (1 << c) == 0 {
                    continue;
                }
                let sw = &self.switches[self.node_index[at.node as usize] as usize];
                for f in sw.port_start..sw.port_end {
                    let q = &self.ports[f as usize];
                    let holds = q.cls[c as usize].q.iter(&self.pool).any(|h| self.pool.get(h).ingress == ingress);
                    if holds && q.paused & (1 << c) != 0 {
                        next.entry((e as u32, c)).or_default().push((f, c));
                    }
                }
            }
        }
        // depth-first search for a cycle
        let mut state: std::collections::BTreeMap<(u32, u8), u8> = Default::default(); // 1 = on the path, 2 = done
        let mut path: Vec<(u32, u8)> = Vec::new();
        fn dfs(
            v: (u32, u8),
            next: &std::collections::BTreeMap<(u32, u8), Vec<(u32, u8)>>,
            state: &mut std::collections::BTreeMap<(u32, u8), u8>,
            path: &mut Vec<(u32, u8)>,
        ) -> Option<Vec<(u32, u8)>> {
            state.insert(v, 1);
            path.push(v);
            for &w in next.get(&v).map(|x| x.as_slice()).unwrap_or(&[]) {
                match state.get(&w) {
                    Some(1) => {
                        let i = path.iter().position(|&x| x == w).expect("on the path");
                        return Some(path[i..].to_vec());
                    }
                    Some(_) => {}
                    None => {
                        if let Some(c) = dfs(w, next, state, path) {
                            return Some(c);
                        }
                    }
                }
            }
            path.pop();
            state.insert(v, 2);
            None
        }
        let starts: Vec<(u32, u8)> = next.keys().copied().collect();
        for v in starts {
            if !state.contains_key(&v) {
                if let Some(c) = dfs(v, &next, &mut state, &mut path) {
                    return Some(c);
                }
            }
        }
        None
    }

    /// Test and debug helper: bytes held by switch `node` for ingress accounting.
    #[allow(dead_code)]
    pub(crate) fn shared_used(&self, node: u32) -> u64 {
        self.switches[self.node_index[node as usize] as usize].shared_used
    }
}

#[allow(dead_code)]
fn _assert_ev_small() {
    const _: () = assert!(std::mem::size_of::<Ev>() <= 16);
}
