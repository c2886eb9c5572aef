//! The host NIC's choice of the next data packet: round robin, in start
//! order, over the flows that may send now, with a pacing timer per flow.
//!
//! A flow may send when it has bytes left, room in its window, its class is
//! not paused by PFC and its pacing gap has passed. Each started flow is in
//! one of four places (its [`NicState`], in `Simulator::nic_slots`): the host's ready set, its pacing
//! heap (due at `next_send`), its held list (class paused), or nowhere
//! (waiting for an ACK, a timer or its scheme). A flow is re-placed whenever
//! something about it changes ([`Simulator::nic_place`], called on start,
//! after each packet it sends and from every kick of its sender), so choosing
//! costs O(log n) in the paced flows plus a move in the ready set (a short
//! sorted vector when few flows are ready, a B-tree when many are), where a
//! scan over the host's flows cost O(n).
//!
//! The choice is exactly the scan's: the first sendable flow at or after the
//! round-robin position, in start order, wrapping once past the last started
//! flow. Heap and held entries are dropped lazily: an entry counts only while
//! its flow's state still names it. Debug builds check every choice and every
//! wake time against the scan.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::sim::{Flow, Simulator};
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
    finished_in_active: usize,
    /// Start key of the first flow the round robin considers.
    rr: u32,
    /// Start key of the next flow to start.
    next_key: u32,
    /// Ready flows as `key << 32 | flow`, in start order.
    ready: ReadySet,
    /// Paced flows by due time (entries whose flow has moved on are stale).
    paced: BinaryHeap<Reverse<(Time, u32)>>,
    /// Flows held by a PAUSE of their class (entries may be stale).
    held: Vec<u32>,
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
enum ReadySet {
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

    fn is_empty(&self) -> bool {
        match self {
            ReadySet::Small(v) => v.is_empty(),
            ReadySet::Large(t) => t.is_empty(),
        }
    }

    fn insert(&mut self, id: u64) {
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

    fn remove(&mut self, id: u64) {
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
    fn first_from(&self, from: u64) -> Option<u64> {
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
fn ready_id(key: u32, f: u32) -> u64 {
    (key as u64) << 32 | f as u64
}

/// Whether `fl` has something its window lets it send (pacing and PFC aside).
#[inline]
pub(crate) fn has_window(fl: &Flow) -> bool {
    // (una_eff is snd_una unless trimming counts NACKed bytes out of flight)
    // (credit_held is never set without receiver credits)
    !fl.done && !fl.credit_held && fl.has_data() && fl.snd_nxt.saturating_sub(fl.una_eff) < fl.window
}

impl Simulator {
    /// Registers flow `f` with its host's NIC at its start.
    pub(crate) fn nic_start(&mut self, hi: usize, f: u32) {
        let key = self.hosts[hi].nic.start(f);
        let class = self.flows[f as usize].class;
        self.nic_slots[f as usize] = NicSlot { state: NicState::Waiting, key, class, done: false };
        self.nic_place(hi, f);
    }

    /// Puts flow `f` where its current state says it belongs.
    pub(crate) fn nic_place(&mut self, hi: usize, f: u32) {
        let now = self.now;
        let paused = self.ports[self.hosts[hi].port as usize].paused;
        let fl = &self.flows[f as usize];
        let state = if !has_window(fl) {
            NicState::Waiting
        } else if paused & (1 << fl.class) != 0 {
            NicState::Held
        } else if fl.next_send > now {
            NicState::Paced(fl.next_send)
        } else {
            NicState::Ready
        };
        self.nic_move(hi, f, state);
    }

    /// Moves flow `f` of host `hi` to `state`.
    fn nic_move(&mut self, hi: usize, f: u32, state: NicState) {
        let slot = &mut self.nic_slots[f as usize];
        let old = slot.state;
        if old == state {
            return;
        }
        slot.state = state;
        let id = ready_id(slot.key, f);
        let nic = &mut self.hosts[hi].nic;
        if old == NicState::Ready {
            nic.ready.remove(id);
        }
        match state {
            NicState::Ready => {
                nic.ready.insert(id);
            }
            NicState::Paced(t) => nic.paced.push(Reverse((t, f))),
            NicState::Held => nic.held.push(f),
            NicState::Waiting => {}
        }
    }

    /// The flow the NIC of host `hi` sends from now, if any may send; moves
    /// the round robin past it.
    pub(crate) fn nic_pick(&mut self, hi: usize) -> Option<u32> {
        let now = self.now;
        // pacing gaps that have ended
        while let Some(&Reverse((t, f))) = self.hosts[hi].nic.paced.peek() {
            if t > now {
                break;
            }
            self.hosts[hi].nic.paced.pop();
            if self.nic_slots[f as usize].state == NicState::Paced(t) {
                self.nic_place(hi, f);
            }
        }
        let chosen = loop {
            let nic = &self.hosts[hi].nic;
            let from = (nic.rr as u64) << 32;
            let Some(id) = nic.ready.first_from(from) else {
                break None;
            };
            let f = id as u32;
            // the set is exact but for PAUSE frames, which do not visit flows
            self.nic_place(hi, f);
            if self.nic_slots[f as usize].state == NicState::Ready {
                break Some(f);
            }
        };
        if self.deep {
            self.nic_check_pick(hi, chosen);
        }
        if let Some(f) = chosen {
            let nic = &mut self.hosts[hi].nic;
            // past the last started flow the round robin starts over
            nic.rr = if nic.active.last() == Some(&f) { 0 } else { self.nic_slots[f as usize].key + 1 };
        }
        chosen
    }

    /// Earliest time a paced flow of host `hi` may send (`Time::MAX` if
    /// none); drops stale heap entries and holds paused flows on the way.
    pub(crate) fn nic_earliest(&mut self, hi: usize) -> Time {
        let paused = self.ports[self.hosts[hi].port as usize].paused;
        let t = loop {
            let Some(&Reverse((t, f))) = self.hosts[hi].nic.paced.peek() else { break Time::MAX };
            let slot = self.nic_slots[f as usize];
            if slot.state != NicState::Paced(t) {
                self.hosts[hi].nic.paced.pop();
            } else if paused & (1 << slot.class) != 0 {
                self.hosts[hi].nic.paced.pop();
                self.nic_move(hi, f, NicState::Held);
            } else {
                break t;
            }
        };
        if self.deep {
            self.nic_check_earliest(hi, t);
        }
        t
    }

    /// A PFC RESUME reached host `hi`: its held flows are placed again.
    pub(crate) fn nic_resume(&mut self, hi: usize) {
        let held = std::mem::take(&mut self.hosts[hi].nic.held);
        for &f in &held {
            if self.nic_slots[f as usize].state == NicState::Held {
                // re-placed from scratch: still held if its class is paused
                self.nic_slots[f as usize].state = NicState::Waiting;
                self.nic_place(hi, f);
            }
        }
    }

    /// Flow `f` of host `hi` completed: it leaves the NIC. It is dropped
    /// from the `active` list lazily (from its end, or all at once when the
    /// finished would outnumber the rest), so a completion costs O(1)
    /// amortized however many flows the host has started.
    pub(crate) fn nic_finish(&mut self, hi: usize, f: u32) {
        self.nic_move(hi, f, NicState::Waiting);
        self.nic_slots[f as usize].done = true;
        let slots = &self.nic_slots;
        let nic = &mut self.hosts[hi].nic;
        nic.finished_in_active += 1;
        while let Some(&last) = nic.active.last() {
            if !slots[last as usize].done {
                break;
            }
            nic.active.pop();
            nic.finished_in_active -= 1;
        }
        if nic.finished_in_active > nic.active.len() / 2 {
            nic.active.retain(|&x| !slots[x as usize].done);
            nic.finished_in_active = 0;
        }
    }

    /// Deep check: the flow a scan over the host's flows in start order would pick.
    #[cold]
    fn nic_check_pick(&self, hi: usize, chosen: Option<u32>) {
        let nic = &self.hosts[hi].nic;
        let paused = self.ports[self.hosts[hi].port as usize].paused;
        let sendable = |&&f: &&u32| {
            let fl = &self.flows[f as usize];
            has_window(fl) && paused & (1 << fl.class) == 0 && fl.next_send <= self.now
        };
        let start = nic.active.iter().position(|&f| self.nic_slots[f as usize].key >= nic.rr).unwrap_or(0);
        let (head, tail) = nic.active.split_at(start);
        let scan = tail.iter().chain(head).find(sendable).copied();
        assert_eq!(chosen, scan, "NIC pick of host {hi} at {} differs from a scan", self.now);
    }

    /// Deep check: with no flow ready, the wake time a scan over the host's
    /// flows would give.
    #[cold]
    fn nic_check_earliest(&self, hi: usize, t: Time) {
        if self.hosts[hi].nic.any_ready() {
            return;
        }
        let paused = self.ports[self.hosts[hi].port as usize].paused;
        let scan = (self.hosts[hi].nic.active.iter())
            .map(|&f| &self.flows[f as usize])
            .filter(|fl| has_window(fl) && paused & (1 << fl.class) == 0)
            .map(|fl| fl.next_send)
            .min()
            .unwrap_or(Time::MAX);
        assert_eq!(t, scan, "NIC wake time of host {hi} at {} differs from a scan", self.now);
    }
}
