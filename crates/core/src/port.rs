//! One direction of a link: the egress of a node towards its peer, and (for
//! switches) the ingress accounting of what arrives from that peer.
//!
//! Layout is what makes the event loop fast: a packet's hop touches its
//! egress port's transmit line, its flags line and the one (port, class)
//! line of its class, so those are 64-byte lines of their own (`repr(C)`,
//! hot fields first) and everything a class needs (queue, queued bytes,
//! ingress accounting, pause start) shares one line.
//!
//! Class queues, PFC frames and the wire are [`Fifo`]s linked through their
//! packets: queueing writes the packet being queued and the one before it,
//! dequeueing reads the packet being sent, where a ring buffer of handles
//! touched a line of its own per push and per pop.

use crate::packet::{Fifo, PacketPool};
use crate::time::Time;

/// Most queue classes per port: class 0 control, 1..=7 data.
pub(crate) const NC: usize = 8;

/// The state of one (port, class): exactly one cache line.
#[derive(bytemuck::Zeroable)]
#[repr(C, align(64))]
pub(crate) struct ClassQ {
    /// Packets queued at this egress in this class, in order.
    pub q: Fifo,
    /// Bytes of `q`.
    pub bytes: u64,
    /// Ingress (MMU) accounting of packets of this class that arrived
    /// through this port: bytes in reserve or shared buffer...
    pub ing_bytes: u64,
    /// ... and bytes in PFC headroom.
    pub hdrm_bytes: u64,
    /// When the peer paused this class (valid while `Port::paused` has it).
    pub paused_since: Time,
    /// Under `network.pfc.xoff_at = "egress"`: the egress (global port id)
    /// whose queue made this ingress pause its upstream, u32::MAX if none.
    pub xoff_egress: u32,
}

impl Default for ClassQ {
    fn default() -> Self {
        ClassQ { q: Fifo::EMPTY, bytes: 0, ing_bytes: 0, hdrm_bytes: 0, paused_since: 0, xoff_egress: u32::MAX }
    }
}

/// All zeros is a valid port that is not `built`: a part of a parallel run
/// leaves the ports it does not own so (`Simulator::make_part`), and reads
/// no more of them than that flag and `down`, which link events set on
/// every part's copy so that every part's routes are the run's.
#[derive(bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct Port {
    // line 1: what putting a packet on the wire, taking it off and
    // forwarding it touches
    pub busy_until: Time,
    pub rate: u64,
    pub delay: Time,
    /// Packets on the wire towards the peer, in order; the first has its
    /// `Arrive` event in the queue, which schedules the next one's.
    pub wire: Fifo,
    /// PFC PAUSE/RESUME frames waiting to go out, in decision order, ahead of every class.
    pub pfc: Fifo,
    /// Bumped when the wire is emptied by a link failure; `Arrive` events of
    /// an older generation are stale.
    pub wire_gen: u16,
    /// Index of this port within its node.
    pub local: u16,
    /// Global id of the peer's port on the same link.
    pub peer_port: u32,
    pub node: u32,
    /// The node at the other end.
    pub peer: u32,
    pub is_host: bool,
    pub peer_is_switch: bool,
    /// The link is down (`network.link_events`): nothing is sent or received.
    pub down: bool,
    /// A `TxDone` event is scheduled.
    pub tx_pending: bool,
    /// Classes the peer has paused (bit c = class c).
    pub paused: u8,
    /// Classes for which we have sent PAUSE to the peer.
    pub pause_out: u8,
    /// Classes with a packet queued (bit c = `cls[c]` is not empty).
    pub nonempty: u8,
    /// Classes for which an ingress paused its upstream because of this
    /// egress's queue (`network.pfc.xoff_at = "egress"`).
    pub xoff_fed: u8,
    // line 2: buffer and marking parameters
    pub headroom: u64,
    /// Dynamic-threshold alpha in 1/1024 units.
    pub alpha_1024: u64,
    pub kmin: u64,
    pub kmax: u64,
    /// `network.trim.threshold` for this egress (scaled with its rate under
    /// `trim.scale_per_100g`); `u64::MAX` without a threshold.
    pub trim_at: u64,
    /// `network.queue_limit` for this egress: a lossy class queue refuses
    /// what would take it past this; `u64::MAX` without a limit.
    pub limit_at: u64,
    pub max_qlen: u64,
    pub tx_data_bytes: u64,
    // line 3, read by a transmission in a part of a parallel run only
    // (`Mode::cut`): whether the peer is in another part and, if so, when
    // the last packet sent to it arrives (see `Simulator::transmit`)
    pub last_arrival: Time,
    /// 0, or the part of the peer + 1 when the link is cut.
    pub cut: u16,
    /// A real port: false only in the zeroed slots of ports another part
    /// of a parallel run owns.
    pub built: bool,
    // cold: counters
    pub paused_time: Time,
    pub pause_sent: u64,
    pub drops: u64,
    pub ecn_marked: u64,
    /// Data packets trimmed to their header at admission into this egress (`network.trim`).
    pub trimmed: u64,
    /// The time of the link's latest failure + 1 (0: it never failed since
    /// the run started): in a part of a parallel run, a packet that was
    /// sent over a cut link before it failed is lost when it reaches this
    /// part afterwards (`Simulator::take_crossings`).
    pub failed: Time,
    /// Per class: queue and ingress accounting.
    pub cls: [ClassQ; NC],
}

impl Port {
    /// A port with nothing queued, sent or paused (rates, delay and buffer
    /// parameters are set by the caller).
    pub fn new(node: u32, local: u16, peer: u32, peer_port: u32, is_host: bool, peer_is_switch: bool) -> Port {
        Port {
            busy_until: 0,
            rate: 0,
            delay: 0,
            wire: Fifo::EMPTY,
            pfc: Fifo::EMPTY,
            wire_gen: 0,
            peer_port,
            node,
            local,
            is_host,
            peer_is_switch,
            down: false,
            tx_pending: false,
            paused: 0,
            pause_out: 0,
            nonempty: 0,
            xoff_fed: 0,
            headroom: 0,
            alpha_1024: 1,
            kmin: 0,
            trim_at: u64::MAX,
            limit_at: u64::MAX,
            kmax: 0,
            max_qlen: 0,
            tx_data_bytes: 0,
            last_arrival: 0,
            cut: 0,
            peer,
            pause_sent: 0,
            failed: 0,
            paused_time: 0,
            built: true,
            drops: 0,
            ecn_marked: 0,
            trimmed: 0,
            cls: Default::default(),
        }
    }

    /// Queues packet `h` of `size` bytes in class `c`.
    #[inline]
    pub fn push(&mut self, c: usize, h: u32, size: u64, pool: &mut PacketPool) {
        let q = &mut self.cls[c];
        q.q.push(h, pool);
        q.bytes += size;
        self.nonempty |= 1 << c;
    }

    /// Takes the head of class `c` (the caller subtracts its bytes).
    #[inline]
    pub fn pop(&mut self, c: usize, pool: &PacketPool) -> Option<u32> {
        let q = &mut self.cls[c];
        let h = q.q.pop(pool)?;
        if q.q.is_empty() {
            self.nonempty &= !(1 << c);
        }
        Some(h)
    }

    /// The packet at the head of class `c`, if any.
    #[inline]
    pub fn head(&self, c: usize) -> Option<u32> {
        self.cls[c].q.first()
    }

    /// Class `c` has a packet queued.
    #[inline]
    pub fn has(&self, c: usize) -> bool {
        self.nonempty & (1 << c) != 0
    }

    /// Highest-priority class with a packet and not paused.
    #[inline]
    pub fn sendable(&self) -> Option<usize> {
        let m = self.nonempty & !self.paused;
        (m != 0).then(|| m.trailing_zeros() as usize)
    }

    /// Every queued packet, class by class.
    pub fn queued<'a>(&'a self, pool: &'a PacketPool) -> impl Iterator<Item = u32> + 'a {
        self.cls.iter().flat_map(move |c| c.q.iter(pool))
    }
}

#[allow(dead_code)]
fn _assert_layout() {
    const _: () = assert!(std::mem::size_of::<ClassQ>() == 64);
    const _: () = assert!(std::mem::offset_of!(Port, headroom) == 64);
    const _: () = assert!(std::mem::offset_of!(Port, nonempty) < 64);
    const _: () = assert!(std::mem::offset_of!(Port, last_arrival) == 128);
}
