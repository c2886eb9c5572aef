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

use crate::nic_queue::{ready_id, NicSlot, NicState};
use crate::state::Simulator;
use crate::time::Time;
use crate::transport::Flow;

/// Whether `fl` has something its window lets it send (pacing and PFC aside).
#[inline]
pub(crate) fn has_window(fl: &Flow) -> bool {
    // (una_eff is snd_una unless trimming counts NACKed bytes out of flight)
    // (credit_held is never set without receiver credits; rtx_free only
    // under SLEEK's loss recovery, whose resends ignore the window)
    !fl.snd.done
        && !fl.snd.credit_held
        && fl.has_data()
        && (fl.snd.nxt.saturating_sub(fl.snd.una_eff) < fl.snd.window || (fl.snd.rtx_free && !fl.snd.rtx.is_empty()))
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
        } else if fl.snd.next_send > now {
            NicState::Paced(fl.snd.next_send)
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
        if self.ctl.deep {
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
        if self.ctl.deep {
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
            has_window(fl) && paused & (1 << fl.class) == 0 && fl.snd.next_send <= self.now
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
            .map(|fl| fl.snd.next_send)
            .min()
            .unwrap_or(Time::MAX);
        assert_eq!(t, scan, "NIC wake time of host {hi} at {} differs from a scan", self.now);
    }
}
