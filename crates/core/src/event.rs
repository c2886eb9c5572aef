//! The event queue, ordered by (time, insertion sequence), so simultaneous
//! events run in the order they were scheduled and a run is bit-for-bit
//! reproducible. Cancellation is lazy (generation counters in the owners),
//! which keeps the queue free of deletions.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ev {
    /// The packet at the head of egress `port`'s wire reaches the peer (its last
    /// bit); stale if `gen` differs from the port's wire generation (the link
    /// went down and its wire was emptied).
    Arrive {
        port: u32,
        /// The port it arrives at (`port`'s peer), so that the loop can
        /// prefetch it without reading `port` first.
        to: u32,
        gen: u16,
        /// The packet (the wire's head): known here so that the loop can
        /// prefetch it an event ahead.
        pkt: u32,
    },
    /// Global port `port` finished a transmission and has more to send.
    TxDone {
        port: u32,
    },
    /// A host NIC may be able to send (a pacing gap ended).
    HostWake {
        host: u32,
    },
    FlowStart {
        flow: u32,
    },
    /// A message joins its connection (see `msg.rs`).
    MsgRelease {
        msg: u32,
    },
    /// A scheme timer; stale if `gen` differs from the flow's slot generation.
    Timer {
        flow: u32,
        slot: u8,
        gen: u32,
    },
    /// Retransmission timer check for a flow.
    Rto {
        flow: u32,
    },
    /// Periodic trace sampling.
    Sample,
    /// The `idx`-th link event (in time order) applies.
    Link {
        idx: u32,
    },
    /// Receiver credits: host `host`'s pacer may pull again (`credit.rs`).
    Pull {
        host: u32,
    },
}

impl crate::results::EventCounts {
    /// The counter of `ev`'s kind.
    #[inline]
    pub(crate) fn count(&mut self, ev: &Ev) -> &mut u64 {
        match ev {
            Ev::Arrive { .. } => &mut self.arrive,
            Ev::TxDone { .. } => &mut self.tx_done,
            Ev::HostWake { .. } => &mut self.host_wake,
            Ev::FlowStart { .. } | Ev::MsgRelease { .. } => &mut self.flow_start,
            // (a credit pull is a receiver's timer)
            Ev::Timer { .. } | Ev::Pull { .. } => &mut self.timer,
            Ev::Rto { .. } => &mut self.rto,
            Ev::Sample => &mut self.sample,
            Ev::Link { .. } => &mut self.link,
        }
    }
}

impl Ev {
    /// The ports and the packet this event will touch first.
    #[inline(always)]
    pub fn touches(&self) -> Touch {
        match *self {
            Ev::Arrive { port, to, pkt, .. } => Touch { port, to, pkt },
            Ev::TxDone { port } => Touch { port, ..Touch::NONE },
            _ => Touch::NONE,
        }
    }
}

/// What an event touches first ([`Ev::touches`]; `u32::MAX`: nothing).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Touch {
    pub port: u32,
    pub to: u32,
    pub pkt: u32,
}

impl Touch {
    pub const NONE: Touch = Touch { port: u32::MAX, to: u32::MAX, pkt: u32::MAX };
}

/// An event in the overflow heap, ordered by (time, insertion sequence).
#[derive(Clone, Copy, Debug)]
struct Entry {
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

/// An event in a wheel bucket. No sequence number: a bucket receives its
/// events in insertion order (overflow events migrate into a bucket before
/// any event can be pushed to it directly), so position is the tie-break.
#[derive(Clone, Copy, Debug)]
struct Slot {
    time: Time,
    ev: Ev,
}

/// Sorts bucket `b` (in insertion order) into descending (time, insertion
/// order), so popping from the end gives the earliest time, earliest
/// inserted first; `spare` (swapped with `b`) and `keys` are scratch space.
///
/// Each event gets a distinct key, (time within the bucket, position),
/// whose descending rank is where it goes. Up to 16 events (most buckets),
/// the ranks come from comparing every key with every other: no branch
/// depends on the data, where an insertion sort of these buckets, whose
/// times arrive in no particular order, mispredicts and moves each event
/// several times. Larger buckets sort their keys.
#[inline]
fn sort_descending(b: &mut Vec<Slot>, spare: &mut Vec<Slot>, keys: &mut Vec<u64>) {
    let n = b.len();
    if n < 2 {
        return;
    }
    spare.clear();
    if n <= 8 {
        by_rank::<8>(b, spare);
    } else if n <= 16 {
        by_rank::<16>(b, spare);
    } else {
        keys.clear();
        keys.extend(b.iter().enumerate().map(|(i, e)| (e.time & LOW) << 32 | i as u64));
        keys.sort_unstable_by(|x, y| y.cmp(x));
        spare.extend(keys.iter().map(|&k| b[(k & u32::MAX as u64) as usize]));
    }
    std::mem::swap(b, spare);
}

/// Bits of a time within its bucket.
const LOW: u64 = (1 << SHIFT) - 1;

/// [`sort_descending`] of up to `W` (at most 16) events into `spare`.
#[inline(always)]
fn by_rank<const W: usize>(b: &[Slot], spare: &mut Vec<Slot>) {
    // (time within the bucket, position) in SHIFT + 4 bits; padding sorts last
    const _: () = assert!(SHIFT + 4 < 31);
    let mut k = [i32::MIN; W];
    for (i, (k, e)) in k.iter_mut().zip(b.iter()).enumerate() {
        *k = ((e.time & LOW) as i32) << 4 | i as i32;
    }
    // the ranks of the n keys are 0..n (distinct keys, padding below all)
    spare.extend_from_slice(b);
    for (i, &ki) in k.iter().enumerate().take(b.len()) {
        let r: u8 = k.iter().map(|&x| (x > ki) as u8).sum();
        spare[r as usize] = b[i];
    }
}

/// Width of a near bucket: 2^10 ps (about 1 ns).
const SHIFT: u32 = 10;
/// Near buckets per window: 2^6, so a window spans 64 ns.
const NEAR_BITS: u32 = 6;
const NEAR: u64 = 1 << NEAR_BITS;

/// A two-level timing wheel with a binary heap beyond it, ordered exactly as
/// a (time, insertion sequence) priority queue.
///
/// Time is cut into ~1 ns buckets grouped in 64 ns windows. An event in the
/// current window goes to its near bucket; an event in one of the next
/// windows (the horizon: a little longer than the slowest link's packet time
/// plus propagation delay, so almost every arrival, transmission and pacing
/// gap) is appended to that window's list; later events wait in the heap.
/// When the wheel enters a window it first moves the heap's events that are
/// now within the horizon to their windows, then spreads the window's list
/// over the near buckets; when it reaches a near bucket it sorts it once (a
/// few events, stably by time) into descending order and pops from the end;
/// an event pushed into that bucket meanwhile is inserted in place.
///
/// Why two levels: an event is usually scheduled a link delay ahead, and
/// appending it to a window's list writes where the previous event went
/// (a warm cache line) where a single wheel of fine buckets touched a cold
/// bucket per push; the near buckets are filled just before they are used.
///
/// Ties: a bucket or a window list receives its events in insertion order
/// (heap events move into a window before any event can be pushed to it
/// directly, and a window list is spread before any direct push to its near
/// buckets), so position breaks ties and no sequence number is stored.
pub(crate) struct EventQueue {
    /// Near buckets of the current window.
    near: Vec<Vec<Slot>>,
    /// Scratch for sorting a bucket (exchanged with it) and its keys.
    spare: Vec<Slot>,
    keys: Vec<u64>,
    /// Lists of the windows ahead, indexed by absolute window & `far_mask`.
    far: Vec<Vec<Slot>>,
    /// far.len() - 1 (a power of two minus one).
    far_mask: u64,
    /// Absolute near-bucket number (time >> SHIFT) the wheel is at; no event is earlier.
    cur: u64,
    /// The current near bucket is sorted (descending; the next event is last).
    sorted: bool,
    in_near: usize,
    in_far: usize,
    overflow: BinaryHeap<Entry>,
    seq: u64,
    /// See [`EventQueue::next_hint`].
    hint: Touch,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue::with_horizon(2 * crate::time::US)
    }
}

impl EventQueue {
    /// A queue whose windows cover at least `horizon` ahead of now (between
    /// 16 and 2^16 windows).
    pub fn with_horizon(horizon: Time) -> Self {
        let windows = ((horizon >> (SHIFT + NEAR_BITS)) + 2).next_power_of_two().clamp(16, 1 << 16) as usize;
        EventQueue {
            near: (0..NEAR).map(|_| Vec::new()).collect(),
            spare: Vec::new(),
            keys: Vec::new(),
            far: (0..windows).map(|_| Vec::new()).collect(),
            far_mask: windows as u64 - 1,
            cur: 0,
            sorted: false,
            in_near: 0,
            in_far: 0,
            overflow: BinaryHeap::new(),
            seq: 0,
            hint: Touch::NONE,
        }
    }

    /// The window the wheel is in.
    #[inline(always)]
    fn window(&self) -> u64 {
        self.cur >> NEAR_BITS
    }

    #[inline(always)]
    pub fn push(&mut self, time: Time, ev: Ev) {
        self.seq += 1;
        let b = time >> SHIFT;
        assert!(b >= self.cur, "event at {time} ps scheduled before the wheel's current bucket");
        let w = b >> NEAR_BITS;
        let cw = self.window();
        if w == cw {
            self.put_near(b, Slot { time, ev });
        } else if w <= cw + self.far_mask {
            self.far[(w & self.far_mask) as usize].push(Slot { time, ev });
            self.in_far += 1;
        } else {
            self.overflow.push(Entry { time, seq: self.seq, ev });
        }
    }

    /// Appends to near bucket `b`, or inserts in order if it is the current, sorted one.
    #[inline(always)]
    fn put_near(&mut self, b: u64, e: Slot) {
        let bucket = &mut self.near[(b & (NEAR - 1)) as usize];
        if b == self.cur && self.sorted {
            // descending; e is the latest inserted, so it goes before (pops
            // after) the events of its own time. Shifted in from the end (a
            // few slots: the bucket is short) rather than a call to memmove.
            bucket.push(e);
            let mut j = bucket.len() - 1;
            while j > 0 && bucket[j - 1].time <= e.time {
                bucket[j] = bucket[j - 1];
                j -= 1;
            }
            bucket[j] = e;
        } else {
            bucket.push(e);
        }
        self.in_near += 1;
    }

    /// Moves heap events now within the horizon to their window lists.
    fn migrate(&mut self) {
        let last = self.window() + self.far_mask;
        while let Some(top) = self.overflow.peek() {
            let w = top.time >> (SHIFT + NEAR_BITS);
            if w > last {
                break;
            }
            let e = self.overflow.pop().unwrap();
            self.far[(w & self.far_mask) as usize].push(Slot { time: e.time, ev: e.ev });
            self.in_far += 1;
        }
    }

    /// Enters window `w` (the near buckets are empty): migrates, then
    /// spreads the window's list over the near buckets.
    fn enter(&mut self, w: u64) {
        self.cur = w << NEAR_BITS;
        self.sorted = false;
        if !self.overflow.is_empty() {
            self.migrate();
        }
        let mut list = std::mem::take(&mut self.far[(w & self.far_mask) as usize]);
        self.in_far -= list.len();
        self.in_near += list.len();
        for e in list.drain(..) {
            self.near[((e.time >> SHIFT) & (NEAR - 1)) as usize].push(e);
        }
        // keep the list's allocation for the window it will hold next
        self.far[(w & self.far_mask) as usize] = list;
    }

    /// Advances to the first non-empty near bucket and sorts it; false if
    /// there are no events.
    #[inline]
    fn settle(&mut self) -> bool {
        loop {
            let bucket = &mut self.near[(self.cur & (NEAR - 1)) as usize];
            if !bucket.is_empty() {
                if !self.sorted {
                    sort_descending(bucket, &mut self.spare, &mut self.keys);
                    self.sorted = true;
                }
                return true;
            }
            if self.in_near > 0 {
                // the next bucket of this window
                self.cur += 1;
                self.sorted = false;
                continue;
            }
            // this window is done: the next one with events
            let next = if self.in_far > 0 {
                self.window() + 1
            } else {
                match self.overflow.peek() {
                    None => return false,
                    Some(top) => (top.time >> (SHIFT + NEAR_BITS)).max(self.window() + 1),
                }
            };
            self.enter(next);
        }
    }

    /// The earliest event. [`EventQueue::next_hint`] then tells what the
    /// one after it touches, if that is in the same bucket.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, Ev)> {
        if !self.settle() {
            return None;
        }
        let bucket = &mut self.near[(self.cur & (NEAR - 1)) as usize];
        let e = bucket.pop().expect("settled on a non-empty bucket");
        self.hint = match bucket.last() {
            Some(n) => n.ev.touches(),
            None => Touch::NONE,
        };
        self.in_near -= 1;
        Some((e.time, e.ev))
    }

    /// What the event likely to pop next touches first ([`Ev::touches`]; a
    /// hint: one pushed meanwhile can come first), so the caller can
    /// prefetch it.
    #[inline(always)]
    pub fn next_hint(&self) -> Touch {
        self.hint
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn matches_a_sorted_order_across_the_horizon() {
        // random times near and far (beyond the wheel) pop in (time, seq) order
        let mut q = EventQueue::default();
        let mut r = crate::rng::Rng::new(3);
        let mut expect = Vec::new();
        let mut now = 0;
        let mut seq = 0u32;
        for round in 0..50 {
            for _ in 0..200 {
                let dt = match r.below(4) {
                    0 => 0,
                    1 => r.below(5_000),
                    2 => r.below(1 << 27),
                    _ => r.below(1 << 40),
                };
                seq += 1;
                q.push(now + dt, Ev::HostWake { host: seq });
                expect.push((now + dt, seq));
            }
            expect.sort();
            // pop half of what is there, checking order
            for _ in 0..(expect.len() / 2) {
                let (t, e) = q.pop().unwrap();
                let (et, es) = expect.remove(0);
                assert_eq!((t, e), (et, Ev::HostWake { host: es }), "round {round}");
                now = t;
            }
        }
        while let Some((t, e)) = q.pop() {
            let (et, es) = expect.remove(0);
            assert_eq!((t, e), (et, Ev::HostWake { host: es }));
        }
        assert!(expect.is_empty());
    }

    #[test]
    fn equal_times_pop_in_insertion_order_across_migration_and_sorting() {
        // coarse times (many ties), pushes into the bucket being popped, into
        // later buckets and beyond the horizon (migrated later), interleaved
        let mut q = EventQueue::with_horizon(0);
        let mut r = crate::rng::Rng::new(11);
        let mut expect: Vec<(Time, u32)> = Vec::new();
        let (mut now, mut seq) = (0, 0u32);
        for _ in 0..400 {
            for _ in 0..r.below(12) {
                let dt = match r.below(3) {
                    0 => r.below(4) * 256,
                    1 => r.below(64) * 4096,
                    _ => r.below(8) * (1 << 20),
                };
                seq += 1;
                q.push(now + dt, Ev::HostWake { host: seq });
                expect.push((now + dt, seq));
            }
            expect.sort();
            for _ in 0..r.below(10).min(expect.len() as u64) {
                let (t, e) = q.pop().unwrap();
                assert_eq!((t, e), (expect[0].0, Ev::HostWake { host: expect[0].1 }));
                expect.remove(0);
                now = t;
            }
        }
        while let Some((t, e)) = q.pop() {
            assert_eq!((t, e), (expect[0].0, Ev::HostWake { host: expect[0].1 }));
            expect.remove(0);
        }
        assert!(expect.is_empty());
    }

    /// Both ways of sorting a bucket (ranks up to 16 events, keys above)
    /// give descending (time, insertion order), ties and all.
    #[test]
    fn bucket_sort_is_descending_time_then_insertion() {
        let mut r = crate::rng::Rng::new(5);
        let (mut spare, mut keys) = (Vec::new(), Vec::new());
        for n in 0..70u64 {
            for round in 0..20 {
                // few distinct times in a bucket: many ties
                let spread = if round % 2 == 0 { 4 } else { 1 << SHIFT };
                let base = 77 << SHIFT;
                let mut b: Vec<Slot> = (0..n)
                    .map(|i| Slot { time: base + r.below(spread), ev: Ev::HostWake { host: i as u32 } })
                    .collect();
                let mut expect: Vec<(Time, u32)> = (0..n as usize).map(|i| (b[i].time, i as u32)).collect();
                expect.sort();
                expect.reverse();
                sort_descending(&mut b, &mut spare, &mut keys);
                let got: Vec<(Time, u32)> = b
                    .iter()
                    .map(|e| match e.ev {
                        Ev::HostWake { host } => (e.time, host),
                        _ => unreachable!(),
                    })
                    .collect();
                assert_eq!(got, expect, "{n} events, round {round}");
            }
        }
    }

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
