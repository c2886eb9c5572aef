//! A host NIC's bookkeeping of its started flows: where each stands
//! ([`NicState`]: ready, pacing, held by PFC, or waiting), its slot per
//! flow, and the ready set in start order. The choice of the next flow over
//! them is `nic.rs`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::time::Time;

/// Where a started flow stands at its host's NIC.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) enum NicState {
    /// Nothing to send (window full, all sent, or complete) until an ACK, a
    /// timer or its scheme changes that.
    #[default]
    Waiting,
    /// May send now: in the ready set.
    Ready,
    /// May send at this time (its pacing gap ends): in the pacing heap.
    Paced(Time),
    /// May send but for a PFC PAUSE of its class: in the held list.
    Held,
}

/// A flow's NIC state, kept apart from `Flow` in one dense array (a few
/// bytes per flow): the ready set, the pacing heap and the held list are
/// checked against it without loading the flows.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct NicSlot {
    pub state: NicState,
    /// Start order at its host.
    pub key: u32,
    /// Its traffic class (PFC pauses by class).
    pub class: u8,
    /// The flow completed (it may still sit in its host's `active` list).
    pub done: bool,
}

/// One host's sending flows.
#[derive(Default)]
pub(crate) struct NicFlows {
    /// Started flows in start order: the unfinished ones, and finished ones
    /// not yet dropped (never at the end; at most as many as unfinished).
    pub active: Vec<u32>,
    /// Finished flows still in `active`.
    pub finished_in_active: usize,
    /// Start key of the first flow the round robin considers.
    pub rr: u32,
    /// Start key of the next flow to start.
    pub next_key: u32,
    /// Ready flows as `key << 32 | flow`, in start order.
    pub ready: ReadySet,
    /// Paced flows by due time (entries whose flow has moved on are stale).
    pub paced: BinaryHeap<Reverse<(Time, u32)>>,
    /// Flows held by a PAUSE of their class (entries may be stale).
    pub held: Vec<u32>,
}

impl NicFlows {
    /// Registers a starting flow; returns its start key.
    pub fn start(&mut self, f: u32) -> u32 {
        self.active.push(f);
        self.next_key += 1;
        self.next_key - 1
    }

    /// Whether any flow sits in the ready set (it may send now).
    pub fn any_ready(&self) -> bool {
        !self.ready.is_empty()
    }
}

/// A host's ready flows (`key << 32 | flow`), ordered. Usually few flows
/// are ready at once (most wait for ACKs or pacing): then a sorted vector,
/// whose moves are short, beats a tree. A host with many ready flows (a
/// thousand line-rate flows started together) would make every insertion
/// and removal move most of the vector, so past `LARGE` entries the set
/// becomes a B-tree, O(log n) per operation, and returns to a vector below
/// `SMALL`.
#[derive(Debug)]
pub(crate) enum ReadySet {
    Small(Vec<u64>),
    Large(std::collections::BTreeSet<u64>),
}

impl Default for ReadySet {
    fn default() -> Self {
        ReadySet::Small(Vec::new())
    }
}

impl ReadySet {
    const LARGE: usize = 256;
    const SMALL: usize = 64;

    pub fn is_empty(&self) -> bool {
        match self {
            ReadySet::Small(v) => v.is_empty(),
            ReadySet::Large(t) => t.is_empty(),
        }
    }

    pub fn insert(&mut self, id: u64) {
        match self {
            ReadySet::Small(v) => {
                let i = v.partition_point(|&x| x < id);
                v.insert(i, id);
                if v.len() > Self::LARGE {
                    *self = ReadySet::Large(v.drain(..).collect());
                }
            }
            ReadySet::Large(t) => {
                t.insert(id);
            }
        }
    }

    pub fn remove(&mut self, id: u64) {
        match self {
            ReadySet::Small(v) => {
                let i = v.partition_point(|&x| x < id);
                debug_assert_eq!(v.get(i), Some(&id), "a ready flow is in the ready set");
                v.remove(i);
            }
            ReadySet::Large(t) => {
                let was = t.remove(&id);
                debug_assert!(was, "a ready flow is in the ready set");
                if t.len() < Self::SMALL {
                    *self = ReadySet::Small(std::mem::take(t).into_iter().collect());
                }
            }
        }
    }

    /// The first entry at or after `from`, else the first (wrapping).
    pub fn first_from(&self, from: u64) -> Option<u64> {
        match self {
            ReadySet::Small(v) => {
                let i = v.partition_point(|&x| x < from);
                v.get(i).or_else(|| v.first()).copied()
            }
            ReadySet::Large(t) => t.range(from..).next().or_else(|| t.first()).copied(),
        }
    }
}

/// A flow's entry in its host's ready set: start order, then flow.
#[inline]
pub(crate) fn ready_id(key: u32, f: u32) -> u64 {
    (key as u64) << 32 | f as u64
}
