//! uet-htsim's bitmap and MIXED entropy balancers (`ultraethernet/uet-htsim`
//! at 40ccb05, `htsim/sim/uec_mp.cpp`), beside REPS and oblivious spraying
//! in [`crate::reps`]. MIXED is uet-htsim's default (`main_uec.cpp` L89).
//!
//! * Bitmap (`UecMpBitmap`, uec_mp.cpp L46-134): oblivious spraying's order
//!   (every EV once per round, index XOR a value drawn anew every round) with
//!   a penalty per EV: an ECN-echoed ACK adds 1, a trim NACK 4, a timeout
//!   the maximum, 15 (capped at 15); a clean ACK adds nothing. A penalized
//!   EV is skipped when its turn comes, and the first one skipped for a
//!   packet loses one point; at most `evs` EVs are skipped per packet.
//!   uet-htsim's sender reports a timeout against `UNKNOWN_EV` (0), which
//!   penalizes EV 0; ccsim's timeout names no EV and penalizes none.
//! * MIXED (`UecMpMixed`, uec_mp.cpp L250-287): every clean ACK's EV is
//!   queued (`UecMpRepsLegacy::processEv`, unbounded); a packet takes the
//!   oldest queued EV if any (`nextEntropyRecycle`), else the bitmap's next.
//!   Both parts see every feedback.

use std::collections::VecDeque;

use crate::feedback::Feedback;
use crate::oblivious::Oblivious;

/// The highest penalty an EV can have (uet-htsim `_max_penalty = 15`).
pub const MAX_PENALTY: u8 = 15;
/// Penalty of an ECN-echoed ACK's EV.
const PENALTY_ECN: u8 = 1;
/// Penalty of a trimmed packet's EV.
const PENALTY_NACK: u8 = 4;

/// Label of the bitmap balancer's generator ([`Rng::derive`]).
const RNG_LABEL: u64 = 0xB17_3A9;

/// The bitmap balancer of one connection.
#[derive(Clone, Debug)]
pub struct Bitmap {
    /// Oblivious spraying's order, from a stream of its own.
    order: Oblivious,
    penalty: Vec<u8>,
}

impl Bitmap {
    /// `evs` (a power of two) entropy values, randomness from `flow`'s id.
    pub fn new(flow: u32, evs: u32) -> Self {
        Bitmap { order: Oblivious::with_stream(flow, evs, RNG_LABEL), penalty: vec![0; evs as usize] }
    }

    /// Feedback about `ev` (None for a timeout: no EV is named).
    pub fn feedback(&mut self, ev: Option<u32>, fb: Feedback) {
        let Some(ev) = ev else { return };
        let add = match fb {
            Feedback::Good => 0,
            Feedback::Ecn => PENALTY_ECN,
            Feedback::Nack => PENALTY_NACK,
            Feedback::Timeout => MAX_PENALTY,
        };
        let i = (ev % self.order.evs()) as usize;
        let p = &mut self.penalty[i];
        *p = p.saturating_add(add).min(MAX_PENALTY);
    }

    /// The EV of the next packet.
    pub fn next_ev(&mut self) -> u32 {
        let mut ev = self.order.current();
        let mut first = true;
        let mut skipped = 0;
        while self.penalty[ev as usize] > 0 {
            if first {
                self.penalty[ev as usize] -= 1;
                first = false;
            }
            skipped += 1;
            if skipped > self.order.evs() {
                break;
            }
            self.order.advance();
            ev = self.order.current();
        }
        self.order.advance();
        ev
    }

    /// The penalty of `ev`.
    pub fn penalty(&self, ev: u32) -> u8 {
        self.penalty[(ev % self.order.evs()) as usize]
    }
}

/// uet-htsim's MIXED balancer of one connection: recycled clean EVs first,
/// else the bitmap's.
#[derive(Clone, Debug)]
pub struct Mixed {
    bitmap: Bitmap,
    recycled: VecDeque<u32>,
}

impl Mixed {
    pub fn new(flow: u32, evs: u32) -> Self {
        Mixed { bitmap: Bitmap::new(flow, evs), recycled: VecDeque::new() }
    }

    pub fn feedback(&mut self, ev: Option<u32>, fb: Feedback) {
        self.bitmap.feedback(ev, fb);
        if let (Feedback::Good, Some(ev)) = (fb, ev) {
            self.recycled.push_back(ev);
        }
    }

    pub fn next_ev(&mut self) -> u32 {
        self.recycled.pop_front().unwrap_or_else(|| self.bitmap.next_ev())
    }

    /// EVs waiting to be reused.
    pub fn recycled(&self) -> usize {
        self.recycled.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_feedback_the_bitmap_sprays_like_oblivious() {
        let mut b = Bitmap::new(3, 16);
        for _ in 0..4 {
            let mut round: Vec<u32> = (0..16).map(|_| b.next_ev()).collect();
            round.sort_unstable();
            assert_eq!(round, (0..16).collect::<Vec<_>>());
        }
    }

    #[test]
    fn penalized_evs_are_skipped_and_forgiven_one_point_per_skip() {
        let mut b = Bitmap::new(3, 16);
        b.feedback(Some(5), Feedback::Nack);
        b.feedback(Some(6), Feedback::Ecn);
        b.feedback(Some(7), Feedback::Good);
        assert_eq!((b.penalty(5), b.penalty(6), b.penalty(7)), (4, 1, 0));
        // a round skips both; each skip as the packet's first costs a point
        let round: Vec<u32> = (0..14).map(|_| b.next_ev()).collect();
        assert!(!round.contains(&5) && !round.contains(&6), "{round:?}");
        assert_eq!(b.penalty(6), 0, "one skip forgives an ECN mark");
        assert_eq!(b.penalty(5), 3);
        // penalties cap at the maximum; a timeout names no EV
        for _ in 0..10 {
            b.feedback(Some(9), Feedback::Nack);
        }
        assert_eq!(b.penalty(9), MAX_PENALTY);
        b.feedback(None, Feedback::Timeout);
        assert_eq!(b.penalty(0), 0);
    }

    #[test]
    fn a_fully_penalized_bitmap_still_sends() {
        let mut b = Bitmap::new(3, 4);
        for ev in 0..4 {
            b.feedback(Some(ev), Feedback::Timeout);
        }
        let ev = b.next_ev();
        assert!(ev < 4);
        assert_eq!((0..4).map(|e| b.penalty(e) as u32).sum::<u32>(), 4 * MAX_PENALTY as u32 - 1);
    }

    #[test]
    fn mixed_reuses_clean_evs_in_order_then_sprays() {
        let mut m = Mixed::new(3, 16);
        m.feedback(Some(11), Feedback::Good);
        m.feedback(Some(12), Feedback::Ecn);
        m.feedback(Some(13), Feedback::Good);
        assert_eq!(m.recycled(), 2);
        assert_eq!((m.next_ev(), m.next_ev()), (11, 13));
        // then the bitmap, which skips the marked EV 12 once
        let round: Vec<u32> = (0..15).map(|_| m.next_ev()).collect();
        assert!(!round.contains(&12), "{round:?}");
    }
}
