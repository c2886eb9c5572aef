//! Entropy-value (EV) load balancing for Ultra Ethernet style multipath:
//! REPS (Bonato et al., "REPS: Recycled Entropy Packet Spraying", arXiv
//! 2407.21625, EuroSys'26) and the oblivious spraying baseline, as the UEC's
//! reference simulator implements them (uet-htsim, `ultraethernet/uet-htsim` at
//! 40ccb05, `htsim/sim/uec_mp.cpp` and `buffer_reps.cpp`). Used by the `nscc`
//! scheme; nothing here is NSCC-specific.
//!
//! * EVs and paths: each data packet carries an EV (UE spec 1.0 §3.6: "in the
//!   same packet location as the UDP source port", so unmodified switches hash
//!   on it). Here a sender writes `pkt.hash = ev_hash(flow, EV)`, which the
//!   switches hash with their per-switch salt to pick among equal-cost next
//!   hops (uet-htsim `fat_tree_switch.cpp` L339 hashes (flow, EV, salt) alike),
//!   and stores the EV in `pkt.aux[AUX_EV]` (tagged with [`EV_PRESENT`]); the
//!   receiver's ACK/NACK for that packet echoes it (UE spec: ACKs and NACKs
//!   echo the EV of the packet they acknowledge). Every packet, retransmissions
//!   included, takes a fresh EV from the balancer (UE spec §3.6.13, as
//!   quoted by third-party notes on the spec).
//! * REPS (uet-htsim `UecMpReps`, uec_mp.cpp L137-196; buffer_reps.cpp): a
//!   circular buffer of `buffer` (8) EVs with a valid bit each.
//!   - Feedback: an ACK without ECN echo (or a NACK that is not a trim in the
//!     fabric and has no ECN echo: a last-hop trim or a go-back-N NACK, uec.cpp
//!     L1604-1607) adds its EV at the head, marked valid, overwriting the oldest
//!     when full. An ECN-echoed ACK or a trim NACK discards its EV.
//!   - Choice, in order: while `explore` is positive, decrement it and take a
//!     random EV; when frozen, cycle through the cached entries in order
//!     whatever their valid bit (`remove_frozen`), or a random EV if the buffer
//!     is empty; otherwise take the oldest valid EV and invalidate it (each
//!     clean ACK licenses one reuse, `remove_earliest_fresh`), or a random EV
//!     when none is valid. A connection therefore starts spraying random EVs
//!     until clean ACKs come back.
//!   - Freezing (failure handling): a retransmission timeout, when not frozen
//!     and not exploring, freezes the buffer until `freeze` (10 ms,
//!     buffer_reps.cpp L8) has passed; the first feedback after that leaves
//!     frozen mode, empties the buffer and explores with the next 16 packets
//!     (uec_mp.cpp L160-164). Clean EVs are still added while frozen.
//!     uet-htsim requires trimming for this (a timeout is then a failure, not
//!     congestion); ccsim does not enforce it.
//!   - Random EVs are uniform in [0, evs) (`rand() % no_of_paths`).
//! * Oblivious (uet-htsim `UecMpOblivious`, uec_mp.cpp L7-44): each round of
//!   `evs` packets uses every EV once, in the order index XOR a random value
//!   drawn anew every round (`evs` a power of two). No feedback.
//!
//! Randomness comes from a generator seeded from the flow id alone, so a flow
//! sends the same EV sequence in every run given the same feedback; which
//! path an EV takes still depends on the run's seed (the switches' salts).

use crate::bitmap::{Bitmap, Mixed};
pub use crate::oblivious::Oblivious;
use crate::oblivious::RNG_LABEL;
use ccsim_core::rng::{mix64, Rng};
use ccsim_core::time::Time;
use serde::{Deserialize, Serialize};

/// `pkt.aux` index holding a data packet's EV (echoed by its ACK/NACK). The
/// last slot, leaving 0..=2 for receiver fields a companion scheme may add.
pub const AUX_EV: usize = 3;

/// Tag in `aux[AUX_EV]` telling an EV from an unused slot (0).
pub const EV_PRESENT: u64 = 1 << 32;

/// Mixing constant of [`ev_hash`].
const EV_HASH_KEY: u64 = 0x5EB5_E11A_0E7A_D0C5;

/// Packets that explore with random EVs after leaving frozen mode
/// (uet-htsim uec_mp.cpp L164: `explore_counter = 16`).
pub const EXPLORE_AFTER_FREEZE: u32 = 16;

/// How a sender picks the entropy of each data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoadBalancer {
    /// Leave `pkt.hash` to the core: the flow's ECMP hash (one path per flow
    /// under `network.routing = "ecmp"`).
    Ecmp,
    /// REPS: recycle the EVs of clean ACKs.
    Reps,
    /// Oblivious spraying: every EV once per round, in a random order.
    Oblivious,
    /// uet-htsim's bitmap: oblivious order, skipping EVs penalized by ECN
    /// marks, trims and timeouts ([`crate::bitmap`]).
    Bitmap,
    /// uet-htsim's MIXED (its default): clean ACKs' EVs reused in order,
    /// else the bitmap's ([`crate::bitmap`]).
    Mixed,
}

pub use crate::feedback::Feedback;

/// The switch hash of `ev` for flow `flow`.
#[inline]
pub fn ev_hash(flow: u32, ev: u32) -> u64 {
    mix64((((flow as u64) << 32) | ev as u64) ^ EV_HASH_KEY)
}

/// The EV echoed in an ACK/NACK, if its data packet carried one.
#[inline]
pub fn echoed_ev(pkt: &ccsim_core::packet::Packet) -> Option<u32> {
    let v = pkt.aux[AUX_EV];
    (v & EV_PRESENT != 0).then_some(v as u32)
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    ev: u32,
    valid: bool,
}

/// REPS state of one connection.
#[derive(Clone, Debug)]
pub struct Reps {
    evs: u64,
    slots: Vec<Slot>,
    /// Next slot written.
    head: usize,
    /// Slots written so far (at most the buffer size).
    count: usize,
    /// Valid slots.
    fresh: usize,
    /// Next slot read in frozen mode.
    head_frozen: usize,
    frozen: bool,
    /// Frozen mode ends at the first feedback after this time.
    exit_frozen_at: Time,
    /// Packets still to explore with random EVs.
    explore: u32,
    /// How long a freeze lasts; 0 = never freeze.
    freeze: Time,
    rng: Rng,
}

impl Reps {
    /// `evs` entropy values, a buffer of `buffer` EVs, freezes of `freeze`
    /// (0 = none), randomness from `flow`'s id.
    pub fn new(flow: u32, evs: u32, buffer: usize, freeze: Time) -> Self {
        assert!(evs > 0 && buffer > 0);
        Reps {
            evs: evs as u64,
            slots: vec![Slot::default(); buffer],
            head: 0,
            count: 0,
            fresh: 0,
            head_frozen: 0,
            frozen: false,
            exit_frozen_at: 0,
            explore: 0,
            freeze,
            rng: Rng::derive(flow as u64, RNG_LABEL),
        }
    }

    /// Feedback about `ev` (None for a timeout) at time `now`.
    pub fn feedback(&mut self, ev: Option<u32>, fb: Feedback, now: Time) {
        if fb == Feedback::Timeout && !self.frozen && self.explore == 0 && self.freeze > 0 {
            self.frozen = true;
            self.exit_frozen_at = now + self.freeze;
        }
        if self.frozen && now > self.exit_frozen_at {
            self.frozen = false;
            self.reset();
            self.explore = EXPLORE_AFTER_FREEZE;
        }
        if let (Feedback::Good, Some(ev)) = (fb, ev) {
            self.add(ev);
        }
    }

    /// The EV of the next packet.
    pub fn next_ev(&mut self) -> u32 {
        if self.explore > 0 {
            self.explore -= 1;
            return self.random();
        }
        if self.frozen {
            if self.count == 0 {
                return self.random();
            }
            let i = self.head_frozen;
            self.head_frozen = (i + 1) % self.count;
            if self.slots[i].valid {
                self.slots[i].valid = false;
                self.fresh -= 1;
            }
            return self.slots[i].ev;
        }
        if self.fresh == 0 {
            return self.random();
        }
        // The oldest valid slot: the valid slots are the `fresh` ones just
        // behind the head (each take invalidates the oldest).
        let n = self.slots.len();
        let i = (self.head + n - self.fresh) % n;
        debug_assert!(self.slots[i].valid);
        self.slots[i].valid = false;
        self.fresh -= 1;
        self.slots[i].ev
    }

    pub fn is_frozen(&self) -> bool {
        self.frozen
    }

    /// Valid (recyclable) EVs in the buffer.
    pub fn fresh(&self) -> usize {
        self.fresh
    }

    /// Packets left to explore with random EVs.
    pub fn exploring(&self) -> u32 {
        self.explore
    }

    fn random(&mut self) -> u32 {
        self.rng.below(self.evs) as u32
    }

    fn add(&mut self, ev: u32) {
        let slot = &mut self.slots[self.head];
        if !slot.valid {
            self.fresh += 1;
        }
        *slot = Slot { ev, valid: true };
        self.head = (self.head + 1) % self.slots.len();
        self.count = (self.count + 1).min(self.slots.len());
    }

    fn reset(&mut self) {
        self.slots.fill(Slot::default());
        self.head = 0;
        self.count = 0;
        self.fresh = 0;
        self.head_frozen = 0;
    }
}

/// A sender's load balancer.
#[derive(Clone, Debug)]
pub enum Multipath {
    Ecmp,
    Reps(Reps),
    Oblivious(Oblivious),
    Bitmap(Bitmap),
    Mixed(Mixed),
}

impl Multipath {
    pub fn new(lb: LoadBalancer, flow: u32, evs: u32, buffer: usize, freeze: Time) -> Self {
        match lb {
            LoadBalancer::Ecmp => Multipath::Ecmp,
            LoadBalancer::Reps => Multipath::Reps(Reps::new(flow, evs, buffer, freeze)),
            LoadBalancer::Oblivious => Multipath::Oblivious(Oblivious::new(flow, evs)),
            LoadBalancer::Bitmap => Multipath::Bitmap(Bitmap::new(flow, evs)),
            LoadBalancer::Mixed => Multipath::Mixed(Mixed::new(flow, evs)),
        }
    }

    /// Stamps a data packet of `flow` about to leave: its EV in `aux[AUX_EV]`
    /// and the hash switches route it by. ECMP leaves the packet alone.
    pub fn on_send(&mut self, flow: u32, pkt: &mut ccsim_core::packet::Packet) {
        let ev = match self {
            Multipath::Ecmp => return,
            Multipath::Reps(r) => r.next_ev(),
            Multipath::Oblivious(o) => o.next_ev(),
            Multipath::Bitmap(b) => b.next_ev(),
            Multipath::Mixed(m) => m.next_ev(),
        };
        pkt.hash = ev_hash(flow, ev);
        pkt.aux[AUX_EV] = EV_PRESENT | ev as u64;
    }

    /// Path feedback (REPS, bitmap and MIXED; ECMP and oblivious take none).
    pub fn feedback(&mut self, ev: Option<u32>, fb: Feedback, now: Time) {
        match self {
            Multipath::Reps(r) => r.feedback(ev, fb, now),
            Multipath::Bitmap(b) => b.feedback(ev, fb),
            Multipath::Mixed(m) => m.feedback(ev, fb),
            Multipath::Ecmp | Multipath::Oblivious(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_core::packet::Packet;
    use ccsim_core::time::{MS, US};

    fn reps() -> Reps {
        Reps::new(7, 64, 8, 10 * MS)
    }

    #[test]
    fn starts_with_random_evs_in_range() {
        let mut r = reps();
        let evs: Vec<u32> = (0..1000).map(|_| r.next_ev()).collect();
        assert!(evs.iter().all(|&e| e < 64));
        let mut distinct = evs.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(distinct.len() > 60, "explores the whole EV space: {}", distinct.len());
    }

    #[test]
    fn clean_ev_recycled_once_in_fifo_order() {
        let mut r = reps();
        r.feedback(Some(5), Feedback::Good, US);
        r.feedback(Some(9), Feedback::Good, US);
        assert_eq!(r.fresh(), 2);
        assert_eq!(r.next_ev(), 5, "oldest first");
        assert_eq!(r.next_ev(), 9);
        assert_eq!(r.fresh(), 0, "each clean ACK licenses one reuse");
        // The same EV returned twice is recycled twice.
        r.feedback(Some(5), Feedback::Good, US);
        r.feedback(Some(5), Feedback::Good, US);
        assert_eq!((r.next_ev(), r.next_ev(), r.fresh()), (5, 5, 0));
    }

    #[test]
    fn marked_and_trimmed_evs_are_discarded() {
        let mut r = reps();
        r.feedback(Some(5), Feedback::Ecn, US);
        r.feedback(Some(6), Feedback::Nack, US);
        assert_eq!(r.fresh(), 0);
        r.feedback(Some(7), Feedback::Good, US);
        assert_eq!(r.next_ev(), 7);
    }

    #[test]
    fn buffer_keeps_the_newest_eight() {
        let mut r = reps();
        for ev in 0..10 {
            r.feedback(Some(ev), Feedback::Good, US);
        }
        assert_eq!(r.fresh(), 8);
        let got: Vec<u32> = (0..8).map(|_| r.next_ev()).collect();
        assert_eq!(got, (2..10).collect::<Vec<_>>());
        // Interleaved adds and takes stay in arrival order.
        r.feedback(Some(20), Feedback::Good, US);
        r.feedback(Some(21), Feedback::Good, US);
        assert_eq!(r.next_ev(), 20);
        r.feedback(Some(22), Feedback::Good, US);
        assert_eq!((r.next_ev(), r.next_ev()), (21, 22));
        // A smaller buffer keeps fewer.
        let mut r = Reps::new(7, 64, 2, 10 * MS);
        for ev in 0..5 {
            r.feedback(Some(ev), Feedback::Good, US);
        }
        assert_eq!((r.fresh(), r.next_ev(), r.next_ev()), (2, 3, 4));
    }

    #[test]
    fn timeout_freezes_cycles_cached_evs_then_explores() {
        let mut r = reps();
        for ev in [1, 2, 3] {
            r.feedback(Some(ev), Feedback::Good, US);
        }
        assert_eq!(r.next_ev(), 1, "used once before the failure");
        r.feedback(None, Feedback::Timeout, 100 * US);
        assert!(r.is_frozen());
        // Frozen: cycle through the cached EVs whatever their valid bit.
        let got: Vec<u32> = (0..7).map(|_| r.next_ev()).collect();
        assert_eq!(got, [1, 2, 3, 1, 2, 3, 1]);
        assert_eq!(r.fresh(), 0, "a frozen read uses up a valid entry too");
        // Clean EVs are still added while frozen; a second timeout does not
        // extend the freeze.
        r.feedback(Some(4), Feedback::Good, 5 * MS);
        r.feedback(None, Feedback::Timeout, 9 * MS);
        assert!(r.is_frozen());
        assert_eq!(r.next_ev(), 2, "cycle continues over 4 entries");
        // The first feedback after 10 ms leaves frozen mode, empties the
        // buffer and explores with the next 16 packets.
        r.feedback(Some(9), Feedback::Ecn, 100 * US + 10 * MS);
        assert!(r.is_frozen(), "not before the freeze has passed");
        r.feedback(Some(9), Feedback::Ecn, 100 * US + 10 * MS + 1);
        assert!(!r.is_frozen());
        assert_eq!((r.fresh(), r.exploring()), (0, EXPLORE_AFTER_FREEZE));
        r.feedback(Some(42), Feedback::Good, 11 * MS);
        for _ in 0..EXPLORE_AFTER_FREEZE {
            r.next_ev();
        }
        assert_eq!(r.exploring(), 0);
        assert_eq!(r.next_ev(), 42, "recycling resumes after exploring");
        // Done exploring: the next timeout freezes again.
        r.feedback(None, Feedback::Timeout, 12 * MS);
        assert!(r.is_frozen());
        // A timeout while exploring does not freeze.
        let mut r = reps();
        r.explore = 3;
        r.feedback(None, Feedback::Timeout, US);
        assert!(!r.is_frozen());
        // freeze = 0: never freeze.
        let mut r = Reps::new(7, 64, 8, 0);
        r.feedback(None, Feedback::Timeout, US);
        assert!(!r.is_frozen());
        // Frozen with an empty buffer: random EVs.
        let mut r = reps();
        r.feedback(None, Feedback::Timeout, US);
        assert!(r.is_frozen());
        assert!(r.next_ev() < 64);
    }

    #[test]
    fn deterministic_per_flow() {
        let seq = |flow: u32| {
            let mut r = Reps::new(flow, 64, 8, 10 * MS);
            let mut o = Oblivious::new(flow, 64);
            let a: Vec<u32> = (0..50).map(|_| r.next_ev()).collect();
            let b: Vec<u32> = (0..200).map(|_| o.next_ev()).collect();
            (a, b)
        };
        assert_eq!(seq(3), seq(3));
        assert_ne!(seq(3).0, seq(4).0);
        assert_ne!(seq(3).1, seq(4).1);
    }

    #[test]
    fn multipath_stamps_hash_and_ev() {
        let mut m = Multipath::new(LoadBalancer::Reps, 7, 64, 8, 10 * MS);
        m.feedback(Some(11), Feedback::Good, US);
        let mut p = Packet { hash: 99, ..Default::default() };
        m.on_send(7, &mut p);
        assert_eq!(p.hash, ev_hash(7, 11));
        assert_eq!(echoed_ev(&p), Some(11));
        assert_ne!(ev_hash(7, 11), ev_hash(7, 12));
        assert_ne!(ev_hash(7, 11), ev_hash(8, 11));
        // ECMP: the core's hash and no EV.
        let mut m = Multipath::new(LoadBalancer::Ecmp, 7, 64, 8, 10 * MS);
        let mut p = Packet { hash: 99, ..Default::default() };
        m.on_send(7, &mut p);
        assert_eq!((p.hash, echoed_ev(&p)), (99, None));
        // EV 0 is told from an empty slot.
        let mut p = Packet::default();
        assert_eq!(echoed_ev(&p), None);
        p.aux[AUX_EV] = EV_PRESENT;
        assert_eq!(echoed_ev(&p), Some(0));
    }
}
