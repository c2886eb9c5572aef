//! Oblivious spraying (uet-htsim `UecMpOblivious`, uec_mp.cpp L7-44): each
//! round of `evs` packets uses every EV once, in the order index XOR a
//! random value drawn anew every round (`evs` a power of two). No feedback.
//! The bitmap balancer ([`crate::bitmap`]) follows the same order.

use ccsim_core::rng::Rng;

/// Label of the per-flow EV generator ([`Rng::derive`]) of REPS and
/// oblivious spraying.
pub(crate) const RNG_LABEL: u64 = 0x4E5C_C0DE;

/// Oblivious spraying state of one connection.
#[derive(Clone, Debug)]
pub struct Oblivious {
    mask: u32,
    index: u32,
    xor: u32,
    rng: Rng,
}

impl Oblivious {
    /// `evs` (a power of two) entropy values, randomness from `flow`'s id.
    pub fn new(flow: u32, evs: u32) -> Self {
        Self::with_stream(flow, evs, RNG_LABEL)
    }

    /// As [`Oblivious::new`], drawing from `flow`'s stream `label` (the
    /// bitmap balancer follows this order from a stream of its own).
    pub fn with_stream(flow: u32, evs: u32, label: u64) -> Self {
        assert!(evs.is_power_of_two());
        let mut rng = Rng::derive(flow as u64, label);
        let xor = rng.below(evs as u64) as u32;
        Oblivious { mask: evs - 1, index: 0, xor, rng }
    }

    pub fn next_ev(&mut self) -> u32 {
        let ev = self.current();
        self.advance();
        ev
    }

    /// The EV whose turn it is.
    pub fn current(&self) -> u32 {
        (self.index ^ self.xor) & self.mask
    }

    /// Moves to the next EV; after the last of a round, a new order.
    pub fn advance(&mut self) {
        if self.index == self.mask {
            self.index = 0;
            self.xor = self.rng.below(self.mask as u64 + 1) as u32;
        } else {
            self.index += 1;
        }
    }

    /// EVs per round.
    pub fn evs(&self) -> u32 {
        self.mask + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oblivious_uses_every_ev_once_per_round() {
        let mut o = Oblivious::new(7, 16);
        let mut rounds = Vec::new();
        for _ in 0..8 {
            let mut round: Vec<u32> = (0..16).map(|_| o.next_ev()).collect();
            rounds.push(round.clone());
            round.sort_unstable();
            assert_eq!(round, (0..16).collect::<Vec<_>>());
        }
        rounds.dedup();
        assert!(rounds.len() > 1, "the order changes between rounds");
    }
}
