//! The event queue: a binary min-heap ordered by (time, insertion sequence), so
//! simultaneous events run in the order they were scheduled and a run is
//! bit-for-bit reproducible. Cancellation is lazy (generation counters in the
//! owners), which keeps the heap free of deletions.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ev {
    /// A packet's last bit arrives at the node owning global port `port` (its ingress).
    Arrive { port: u32, pkt: u32 },
    /// Global port `port` finished a transmission and has more to send.
    TxDone { port: u32 },
    /// A host NIC may be able to send (a pacing gap ended).
    HostWake { host: u32 },
    FlowStart { flow: u32 },
    /// A scheme timer; stale if `gen` differs from the flow's slot generation.
    Timer { flow: u32, slot: u8, gen: u32 },
    /// Retransmission timer check for a flow.
    Rto { flow: u32 },
    /// Periodic trace sampling.
    Sample,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    /// (time << 0) compared first, then seq.
    time: Time,
    seq: u64,
    ev: Ev,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        // reversed: BinaryHeap is a max-heap
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

#[derive(Default)]
pub(crate) struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
    popped: u64,
}

impl EventQueue {
    #[inline]
    pub fn push(&mut self, time: Time, ev: Ev) {
        self.seq += 1;
        self.heap.push(Entry { time, seq: self.seq, ev });
    }
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Ev)> {
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((e.time, e.ev))
    }
    pub fn popped(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn time_then_fifo_order() {
        let mut q = EventQueue::default();
        q.push(5, Ev::HostWake { host: 1 });
        q.push(3, Ev::HostWake { host: 2 });
        q.push(5, Ev::HostWake { host: 3 });
        q.push(3, Ev::HostWake { host: 4 });
        let order: Vec<u32> = std::iter::from_fn(|| q.pop())
            .map(|(_, e)| match e {
                Ev::HostWake { host } => host,
                _ => 0,
            })
            .collect();
        assert_eq!(order, vec![2, 4, 1, 3]);
    }
}
