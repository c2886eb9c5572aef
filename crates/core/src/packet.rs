//! Packets and the packet arena. Packets live in a pool and move through the
//! simulator as `u32` handles; nothing is allocated per packet on the hot path.

use crate::time::Time;

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
/// every hop sits in the first 64-byte cache line; INT records come last.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct Packet {
    pub kind: PktKind,
    /// Scheme-defined subtype for `Ctrl` packets.
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
    /// Entropy for ECMP (per flow; per packet under spraying).
    pub hash: u64,
    /// Data: offset of the first payload byte. Ack/Nack: next byte expected.
    pub seq: u64,
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

    /// Appends an INT record (ignored past `MAX_INT_HOPS`).
    #[inline]
    pub fn push_int(&mut self, h: IntHop) {
        if (self.n_int as usize) < MAX_INT_HOPS {
            self.int[self.n_int as usize] = h;
            self.n_int += 1;
        }
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
            self.slots[h as usize] = p;
            h
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as u32
        }
    }
    #[inline]
    pub fn free(&mut self, h: u32) {
        self.live -= 1;
        self.free.push(h);
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
