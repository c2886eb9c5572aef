//! Packets and the packet arena. Packets live in a pool and move through the
//! simulator as `u32` handles; nothing is allocated per packet on the hot path.

use crate::time::Time;

/// [`Packet::trim`]: cut at a switch inside the fabric.
pub const TRIMMED: u8 = 1;
/// [`Packet::trim`]: cut at the egress towards the destination host (the last hop).
pub const TRIMMED_LAST_HOP: u8 = 2;

/// [`PktKind::Credit`] `sub`: a pull, granting credit to the sender.
pub const CREDIT_PULL: u8 = 0;
/// [`PktKind::Credit`] `sub`: a request to send (RTS), carrying a pull target.
pub const CREDIT_RTS: u8 = 1;

/// [`PktKind::Data`] `sub`: a SLEEK probe (`network.sleek`), a header
/// with no payload that asks its receiver for an ACK at once (uet-htsim
/// `DATA_PROBE`); on the [`PktKind::Ack`] that answers it, the same value.
pub const PROBE: u8 = 1;
/// [`PktKind::Ack`] `sub`: the answer to a probe older than the sender's
/// latest (set by the sender's core before its scheme sees it; uet-htsim
/// uses the average delay for such an ACK, `processAck`).
pub const PROBE_STALE: u8 = 2;

/// Most INT records a packet can carry (one per switch egress it crosses).
pub const MAX_INT_HOPS: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum PktKind {
    #[default]
    Data,
    /// Cumulative acknowledgement; `seq` = next byte expected.
    Ack,
    /// Out-of-order notification; `seq` = next byte expected (go-back-N from there).
    Nack,
    /// Congestion notification packet (receiver -> sender), DCQCN style.
    Cnp,
    /// PFC PAUSE (`pause_class` in `aux[0]`) or RESUME, link-local.
    Pause,
    Resume,
    /// A scheme's own control packet (Bolt SRC, SRCC CNM, ...); `sub` tells which.
    Ctrl,
    /// Receiver credits (`network`-independent, asked for by a scheme's
    /// [`crate::config::CreditConfig`]; UET RCCC): a pull (`sub`
    /// [`CREDIT_PULL`], receiver -> sender) or a request to send (`sub`
    /// [`CREDIT_RTS`], sender -> receiver).
    Credit,
}

impl PktKind {
    /// PFC PAUSE or RESUME: link-local MAC control frames.
    #[inline]
    pub fn is_pfc(self) -> bool {
        matches!(self, PktKind::Pause | PktKind::Resume)
    }

    /// Control packets travel in the control class, above all data classes.
    #[inline]
    pub fn is_control(self) -> bool {
        !matches!(self, PktKind::Data)
    }
}

/// One INT record, pushed by a switch egress port as the packet is dequeued
/// (HPCC: timestamp, bytes transmitted so far, queue length, link rate).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntHop {
    pub ts: Time,
    pub tx_bytes: u64,
    pub qlen: u64,
    pub rate_bps: u64,
}

/// Field order is fixed (`repr(C)`) so that everything the fabric reads at
/// every hop sits in the first 64-byte cache line (checked below); the
/// hosts' fields, the schemes' and the INT records come after. Packets are
/// aligned to cache lines, so that line is one line (and one prefetch).
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct Packet {
    pub kind: PktKind,
    /// Scheme-defined subtype for `Ctrl` packets; on data packets and
    /// their ACKs, [`PROBE`] or [`PROBE_STALE`] (0 otherwise).
    pub sub: u8,
    /// Queue class at switches: 0 = control, 1.. = data classes.
    pub class: u8,
    /// ECN congestion experienced (set by switches on data packets).
    pub ce: bool,
    /// ECN echo on ACKs (the acknowledged data packet was CE-marked).
    pub ecn_echo: bool,
    /// Hops travelled (switches crossed); TTL-like.
    pub hops: u8,
    /// Number of valid entries in `int`.
    pub n_int: u8,
    /// Set by the core: this data packet sat in a switch egress queue while that
    /// queue's class was paused by PFC, since its last switch arrival (cleared
    /// at the next switch, where head-of-line blocking is judged).
    pub paused: bool,
    /// Data: the sender's window, smaller than `network.ack_every`
    /// packets, is full after this packet, so the receiver ACKs it at once
    /// (after UET's ACK-request flag, which uet-htsim sets on the packet
    /// that fills the window). Without it such a window waits for the
    /// timeout, or for ever.
    pub ack_req: bool,
    /// ACK, NACK and CNP: the switches the data packet they answer crossed
    /// (its `hops`), so that symmetric routing (`network.routing =
    /// "symmetric"`, FNCC) retraces that path from the flow's record of it.
    /// Carried by the reply, not read from the flow's receiver, so that no
    /// switch reads a host's state (a parallel run's parts share none).
    pub path_hops: u8,
    /// Packet trimming (`network.trim`): 0 = a whole packet; on a data packet
    /// [`TRIMMED`] or [`TRIMMED_LAST_HOP`] = a switch cut it to its header
    /// (`payload` 0; `seq` and `trim_len` name the bytes it carried); on a
    /// NACK, the same codes = the receiver's answer to such a header (UE
    /// spec 1.0 §3.6.12: NACK codes UET_TRIMMED and UET_TRIMMED_LASTHOP).
    pub trim: u8,
    /// Flow index.
    pub flow: u32,
    /// Source and destination node ids (hosts, or a switch for switch-generated packets).
    pub src: u32,
    pub dst: u32,
    /// Bytes on the wire (headers included).
    pub size: u32,
    /// Payload bytes (data packets).
    pub payload: u32,
    /// Global id of the port the packet entered the current switch by (set by the core).
    pub ingress: u32,
    /// Set by the core: the packet behind this one in the FIFO that holds
    /// it, an egress class queue or a wire (`u32::MAX`: none yet).
    #[doc(hidden)]
    pub next: u32,
    /// Entropy for ECMP (per flow; per packet under spraying).
    pub hash: u64,
    /// Data: offset of the first payload byte. Ack/Nack: next byte expected.
    pub seq: u64,
    /// On a wire, with a packet behind it: when that one reaches the end of
    /// the wire (only a wire's first packet has an `Arrive` event; its
    /// arrival schedules the next one's).
    #[doc(hidden)]
    pub wire_next_at: Time,
    /// Payload bytes a trimmed packet carried before it was cut.
    pub trim_len: u32,
    /// Per-packet loss recovery (`network.recovery = "packet"`): on a data
    /// packet (and the trim NACK made from it) its packet sequence number,
    /// kept by a resend; on an ACK the first PSN its SACK bitmap covers
    /// ([`Packet::sack`]). UET's PSN (uet-htsim `UecDataPacket::epsn`).
    pub psn: u32,
    /// A trim NACK: `seq` of the trimmed data packet; with `trim_len`, the
    /// bytes the sender resends at once. An ACK under per-packet recovery
    /// carries its SACK bitmap here instead ([`Packet::sack`]).
    pub trim_seq: u64,
    /// ACK and NACK: the distinct payload bytes the receiver holds, the
    /// reordered ones above `seq` included (UET's Rcvd_Bytes, spec 1.0
    /// §3.6.13); `seq` for an in-order receiver. Under receiver credits
    /// (UET RCCC; no room is left in six cache lines for a field of its
    /// own) data packets and RTS packets carry the sender's pull target
    /// here (cumulative wire bytes of credit it wants), and pulls the
    /// receiver's cumulative grant; see [`Packet::credit`].
    pub rcvd: u64,
    /// Data: time the sender put it on the wire. Ack: echo of that time.
    pub ts: Time,
    /// Free fields for schemes (header fields such as Bolt flags, a receiver's
    /// flow count, a target rate). Core code never reads them.
    pub aux: [u64; 4],
    /// In-band network telemetry records.
    pub int: [IntHop; MAX_INT_HOPS],
}

impl Packet {
    #[inline]
    pub fn int_hops(&self) -> &[IntHop] {
        &self.int[..self.n_int as usize]
    }

    /// Makes `self` equal to `src` for every reader: all fields, and the
    /// INT records up to `n_int` (records beyond it are never read, so the
    /// cache lines holding them are not written).
    #[inline]
    pub fn assign(&mut self, src: &Packet) {
        let n = src.n_int as usize;
        let Packet {
            kind,
            sub,
            class,
            ce,
            ecn_echo,
            hops,
            n_int,
            paused,
            ack_req,
            path_hops,
            trim,
            flow,
            src: from,
            dst,
            size,
            payload,
            ingress,
            next,
            hash,
            seq,
            wire_next_at,
            trim_len,
            psn,
            trim_seq,
            rcvd,
            ts,
            aux,
            int,
        } = self;
        (*kind, *sub, *class, *ce, *ecn_echo, *hops, *n_int, *paused) =
            (src.kind, src.sub, src.class, src.ce, src.ecn_echo, src.hops, src.n_int, src.paused);
        (*ack_req, *path_hops, *flow, *from, *dst, *size, *payload, *ingress) =
            (src.ack_req, src.path_hops, src.flow, src.src, src.dst, src.size, src.payload, src.ingress);
        (*next, *hash, *seq, *wire_next_at, *trim, *trim_len, *psn, *trim_seq, *rcvd, *ts, *aux) = (
            src.next,
            src.hash,
            src.seq,
            src.wire_next_at,
            src.trim,
            src.trim_len,
            src.psn,
            src.trim_seq,
            src.rcvd,
            src.ts,
            src.aux,
        );
        int[..n].copy_from_slice(&src.int[..n]);
    }

    /// A copy of everything a reader can see ([`Packet::assign`]).
    #[inline]
    pub fn snapshot(&self) -> Packet {
        let mut p = Packet::default();
        p.assign(self);
        p
    }

    /// Receiver credits: the pull target of a data packet or RTS, the
    /// cumulative grant of a pull (held in `rcvd`, unused on those packets).
    #[inline]
    pub fn credit(&self) -> u64 {
        self.rcvd
    }

    /// An ACK's SACK bitmap under per-packet recovery: bit i set = the
    /// receiver holds PSN `psn + i` above its cumulative point (uet-htsim
    /// `UecSink::buildSackBitmap`). It rides in `trim_seq`, which only a
    /// trim NACK uses (no room is left in six cache lines for a field of
    /// its own).
    #[inline]
    pub fn sack(&self) -> u64 {
        self.trim_seq
    }

    /// Sets [`Packet::sack`].
    #[inline]
    pub fn set_sack(&mut self, bitmap: u64) {
        self.trim_seq = bitmap;
    }

    /// Appends an INT record (ignored past `MAX_INT_HOPS`).
    #[inline]
    pub fn push_int(&mut self, h: IntHop) {
        if (self.n_int as usize) < MAX_INT_HOPS {
            self.int[self.n_int as usize] = h;
            self.n_int += 1;
        }
    }
}

#[allow(dead_code)]
fn _assert_layout() {
    // what every hop reads is in the first line
    const _: () = assert!(std::mem::offset_of!(Packet, seq) + 8 <= 64);
    const _: () = assert!(std::mem::align_of::<Packet>() == 64);
    // the trimming fields fit in what alignment left over: six lines per packet
    const _: () = assert!(std::mem::size_of::<Packet>() == 384);
}

/// A FIFO of pool packets linked through [`Packet::next`]: an egress class
/// queue, a port's PFC frames, a wire. Eight bytes where the packets are
/// owned; queueing writes the packet and the one before it, dequeueing reads
/// the packet taken, so a FIFO touches no memory of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct Fifo {
    /// The first packet and the last (`u32::MAX`: none).
    pub head: u32,
    pub tail: u32,
}

impl Default for Fifo {
    fn default() -> Self {
        Fifo::EMPTY
    }
}

impl Fifo {
    pub const EMPTY: Fifo = Fifo { head: u32::MAX, tail: u32::MAX };

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.head == u32::MAX
    }

    /// Appends `h`; returns the packet it now follows (`u32::MAX`: the FIFO was empty).
    #[inline(always)]
    pub fn push(&mut self, h: u32, pool: &mut PacketPool) -> u32 {
        pool.get_mut(h).next = u32::MAX;
        let before = self.tail;
        if before == u32::MAX {
            self.head = h;
        } else {
            pool.get_mut(before).next = h;
        }
        self.tail = h;
        before
    }

    /// Appends `h` to a wire, reaching its end at `at`. Only a wire's first
    /// packet has an `Arrive` event: behind another, `at` is kept in that
    /// one (`Packet::wire_next_at`), whose arrival schedules this one's.
    /// True when `h` is the first, whose arrival the caller schedules.
    #[inline(always)]
    pub fn push_on_wire(&mut self, h: u32, at: Time, pool: &mut PacketPool) -> bool {
        let before = self.push(h, pool);
        if before == u32::MAX {
            return true;
        }
        pool.get_mut(before).wire_next_at = at;
        false
    }

    /// Takes the first packet.
    #[inline(always)]
    pub fn pop(&mut self, pool: &PacketPool) -> Option<u32> {
        let h = self.head;
        if h == u32::MAX {
            return None;
        }
        self.head = pool.get(h).next;
        if self.head == u32::MAX {
            self.tail = u32::MAX;
        }
        Some(h)
    }

    /// The first packet, if any.
    #[inline(always)]
    pub fn first(&self) -> Option<u32> {
        (self.head != u32::MAX).then_some(self.head)
    }

    /// The packets, first to last.
    pub fn iter<'a>(&self, pool: &'a PacketPool) -> impl Iterator<Item = u32> + 'a {
        let first = self.head;
        std::iter::successors((first != u32::MAX).then_some(first), move |&h| {
            let n = pool.get(h).next;
            (n != u32::MAX).then_some(n)
        })
    }
}

/// Pool of packets addressed by `u32` handles.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: u32,
    peak: u32,
}

impl PacketPool {
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        self.live += 1;
        if self.live > self.peak {
            self.peak = self.live;
        }
        if let Some(h) = self.free.pop() {
            self.slots[h as usize].assign(&p);
            h
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as u32
        }
    }
    /// [`PacketPool::alloc`] of a copy of `p` (of what a reader can see).
    #[inline]
    pub fn alloc_copy(&mut self, p: &Packet) -> u32 {
        self.live += 1;
        if self.live > self.peak {
            self.peak = self.live;
        }
        if let Some(h) = self.free.pop() {
            self.slots[h as usize].assign(p);
            h
        } else {
            self.slots.push(p.clone());
            (self.slots.len() - 1) as u32
        }
    }
    #[inline]
    pub fn free(&mut self, h: u32) {
        self.live -= 1;
        self.free.push(h);
    }
    /// Address of slot `h` (for a prefetch; never dereferenced).
    #[inline]
    pub(crate) fn slot_ptr(&self, h: u32) -> *const Packet {
        self.slots.as_ptr().wrapping_add(h as usize)
    }
    #[inline]
    pub fn get(&self, h: u32) -> &Packet {
        &self.slots[h as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, h: u32) -> &mut Packet {
        &mut self.slots[h as usize]
    }
    pub fn live(&self) -> u32 {
        self.live
    }
    pub fn peak(&self) -> u32 {
        self.peak
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two FIFOs sharing a pool keep their own order; a packet popped from
    /// one and pushed to another is linked there only; `push` names the
    /// packet the new one follows.
    #[test]
    fn fifos_linked_through_packets_keep_order() {
        let mut pool = PacketPool::default();
        let hs: Vec<u32> = (0..6).map(|i| pool.alloc(Packet { seq: i, ..Default::default() })).collect();
        let (mut a, mut b) = (Fifo::EMPTY, Fifo::EMPTY);
        assert_eq!(a.push(hs[0], &mut pool), u32::MAX);
        assert_eq!(a.push(hs[1], &mut pool), hs[0]);
        assert_eq!(b.push(hs[2], &mut pool), u32::MAX);
        a.push(hs[3], &mut pool);
        b.push(hs[4], &mut pool);
        assert_eq!(a.iter(&pool).collect::<Vec<_>>(), [hs[0], hs[1], hs[3]]);
        assert_eq!(b.iter(&pool).collect::<Vec<_>>(), [hs[2], hs[4]]);
        let first = a.pop(&pool).unwrap();
        assert_eq!(first, hs[0]);
        b.push(first, &mut pool);
        assert_eq!(a.iter(&pool).collect::<Vec<_>>(), [hs[1], hs[3]]);
        assert_eq!(b.iter(&pool).collect::<Vec<_>>(), [hs[2], hs[4], hs[0]]);
        while a.pop(&pool).is_some() {}
        assert!(a.is_empty() && a == Fifo::EMPTY, "an emptied FIFO forgets its tail");
        assert_eq!(a.push(hs[5], &mut pool), u32::MAX);
        assert_eq!(a.first(), Some(hs[5]));
    }
}
