//! The event queue. Events run in time order; simultaneous events run
//! "first scheduled, first run": by the time they were scheduled, then by
//! what scheduled them (the scheduling event's kind and the port, host,
//! flow, message or link it was for: [`Ev::tie`]), then by the order that
//! event scheduled them in ([`Key`]). Unlike a global insertion counter, this
//! order does not depend on what else runs or on how the network is cut
//! into parts that run on their own threads (issue 36), so a run is
//! bit-for-bit reproducible whatever the thread count. Two events equal in
//! all of these come from two copies of one event (a wake asked twice) and
//! run in insertion order. Cancellation is lazy (generation counters in the
//! owners), which keeps the queue free of deletions.

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
    /// SLEEK's probe timer of a flow (`sleek.rs`; stale unless it is the
    /// flow's pending one).
    Probe {
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
            Ev::Timer { .. } | Ev::Pull { .. } | Ev::Probe { .. } => &mut self.timer,
            Ev::Rto { .. } => &mut self.rto,
            Ev::Sample => &mut self.sample,
            Ev::Link { .. } => &mut self.link,
        }
    }
}

/// A fixed permutation of the 32-bit ids (xor with one constant, times
/// another, odd so invertible mod 2^32): events scheduled at the same time by
/// different events run in an order of the schedulers' ids that follows no
/// port or flow numbering.
#[inline(always)]
fn shuffle(id: u32) -> u32 {
    (id ^ 0x7B1D_CDAF).wrapping_mul(0xE220_A839)
}

/// Bits of an entity (port, host, flow, message, link) in [`Ev::tie`].
const ENTITY_BITS: u32 = 32;
/// Bits of [`Ev::tie`]: kind (4), a timer's slot (4), entity (32).
const TIE_BITS: u32 = 40;
/// Bits of the index of a push among one event's pushes in [`Key::from`].
const PUSH_BITS: u32 = 64 - TIE_BITS;
const _: () = assert!(crate::cc::TIMER_SLOTS <= 16);

impl Ev {
    /// What this event is, as a number of [`TIE_BITS`] bits distinct for
    /// distinct events at one time: its kind, then the port an `Arrive`
    /// reaches or a `TxDone` is for, the host, the flow and a timer's slot,
    /// the message or the link event ([`shuffle`]d). The events it
    /// schedules carry it in their [`Key`].
    #[inline(always)]
    pub fn tie(&self) -> u64 {
        let (kind, slot, entity): (u64, u64, u32) = match *self {
            Ev::Link { idx } => (0, 0, idx),
            Ev::FlowStart { flow } => (1, 0, flow),
            Ev::MsgRelease { msg } => (2, 0, msg),
            Ev::TxDone { port } => (3, 0, port),
            Ev::Arrive { to, .. } => (4, 0, to),
            Ev::HostWake { host } => (5, 0, host),
            Ev::Pull { host } => (6, 0, host),
            Ev::Timer { flow, slot, .. } => (7, slot as u64 & 15, flow),
            Ev::Rto { flow } => (8, 0, flow),
            Ev::Sample => (9, 0, 0),
            Ev::Probe { flow } => (10, 0, flow),
        };
        kind << (TIE_BITS - 4) | slot << ENTITY_BITS | shuffle(entity) as u64
    }

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

/// Where an event stands among the events of its time: when it was
/// scheduled (`t0`), then `from`: the scheduling event's [`Ev::tie`] and the
/// index of this push among that event's pushes. Pushes outside any event
/// (building the run) have `t0` 0 and the tie 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default, bytemuck::Zeroable)]
pub(crate) struct Key {
    pub t0: Time,
    pub from: u64,
}

/// An event in the overflow heap, ordered by (time, key, insertion sequence).
#[derive(Clone, Copy, Debug)]
struct Entry {
    time: Time,
    key: Key,
    seq: u64,
    ev: Ev,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
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
        (o.time, o.key, o.seq).cmp(&(self.time, self.key, self.seq))
    }
}

/// An event in a wheel bucket. No sequence number: a bucket receives its
/// events in insertion order (overflow events migrate into a bucket before
/// any event can be pushed to it directly), so position is the last
/// tie-break, after time and [`Key`].
#[derive(Clone, Copy, Debug)]
struct Slot {
    time: Time,
    ev: Ev,
    key: Key,
}

impl Slot {
    #[inline(always)]
    fn order(&self) -> (Time, Key) {
        (self.time, self.key)
    }
}

/// Sorts bucket `b` (in insertion order) into descending (time, key,
/// insertion order), so popping from the end gives the earliest time, then
/// the earliest scheduled, then the earliest inserted. Buckets are short (a
/// few events): a stable sort of them is an insertion sort.
#[inline]
fn sort_descending(b: &mut [Slot]) {
    if b.len() < 2 {
        return;
    }
    b.sort_by_key(|e| e.order());
    b.reverse();
}

/// Width of a near bucket: 2^10 ps (about 1 ns).
const SHIFT: u32 = 10;
/// Near buckets per window: 2^6, so a window spans 64 ns.
const NEAR_BITS: u32 = 6;
const NEAR: u64 = 1 << NEAR_BITS;

/// A two-level timing wheel with a binary heap beyond it, ordered exactly as
/// a (time, [`Key`], insertion sequence) priority queue.
///
/// Time is cut into ~1 ns buckets grouped in 64 ns windows. An event in the
/// current window goes to its near bucket; an event in one of the next
/// windows (the horizon: a little longer than the slowest link's packet time
/// plus propagation delay, so almost every arrival, transmission and pacing
/// gap) is appended to that window's list; later events wait in the heap.
/// When the wheel enters a window it first moves the heap's events that are
/// now within the horizon to their windows, then spreads the window's list
/// over the near buckets; when it reaches a near bucket it sorts it once (a
/// few events, stably by time and key) into descending order and pops from
/// the end; an event pushed into that bucket meanwhile is inserted in place.
///
/// Why two levels: an event is usually scheduled a link delay ahead, and
/// appending it to a window's list writes where the previous event went
/// (a warm cache line) where a single wheel of fine buckets touched a cold
/// bucket per push; the near buckets are filled just before they are used.
///
/// Ties: a bucket or a window list receives its events in insertion order
/// (heap events move into a window before any event can be pushed to it
/// directly, and a window list is spread before any direct push to its near
/// buckets), so position breaks the last ties and no sequence number is
/// stored.
pub(crate) struct EventQueue {
    /// Near buckets of the current window.
    near: Vec<Vec<Slot>>,
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
    /// The event being run (the last popped): its time, its tie shifted
    /// into place in [`Key::from`], and how many events it has pushed.
    parent_time: Time,
    parent: u64,
    pushes: u64,
    /// The last popped event, for [`EventQueue::unpop`].
    last: Option<Slot>,
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
            far: (0..windows).map(|_| Vec::new()).collect(),
            far_mask: windows as u64 - 1,
            cur: 0,
            sorted: false,
            in_near: 0,
            in_far: 0,
            overflow: BinaryHeap::new(),
            seq: 0,
            parent_time: 0,
            parent: 0,
            pushes: 0,
            last: None,
            hint: Touch::NONE,
        }
    }

    /// The window the wheel is in.
    #[inline(always)]
    fn window(&self) -> u64 {
        self.cur >> NEAR_BITS
    }

    /// The key of the next event the running event schedules (counted as
    /// one of its pushes): for an event handed to another queue.
    #[inline(always)]
    pub fn next_key(&mut self) -> Key {
        let key = Key { t0: self.parent_time, from: self.parent | (self.pushes & ((1 << PUSH_BITS) - 1)) };
        self.pushes += 1;
        key
    }

    /// Schedules `ev` at `time`, as the running event's next push.
    #[inline(always)]
    pub fn push(&mut self, time: Time, ev: Ev) {
        let key = self.next_key();
        self.push_keyed(time, ev, key);
    }

    /// Schedules `ev` at `time` with a key given by the queue it was made in.
    #[inline(always)]
    pub fn push_keyed(&mut self, time: Time, ev: Ev, key: Key) {
        self.seq += 1;
        let b = time >> SHIFT;
        assert!(b >= self.cur, "event at {time} ps scheduled before the wheel's current bucket");
        let w = b >> NEAR_BITS;
        let cw = self.window();
        if w == cw {
            self.put_near(b, Slot { time, ev, key });
        } else if w <= cw + self.far_mask {
            self.far[(w & self.far_mask) as usize].push(Slot { time, ev, key });
            self.in_far += 1;
        } else {
            self.overflow.push(Entry { time, key, seq: self.seq, ev });
        }
    }

    /// The event being run: its time and key.
    #[inline(always)]
    pub fn current(&self) -> (Time, Key) {
        self.last.map_or((0, Key::default()), |e| (e.time, e.key))
    }

    /// The key an arrival at port `to` gives the event it schedules first:
    /// for an arrival scheduled as if by the arrival ahead of it on its wire.
    #[inline(always)]
    pub fn key_after_arrival(at: Time, to: u32) -> Key {
        Key { t0: at, from: Ev::Arrive { port: 0, to, gen: 0, pkt: 0 }.tie() << PUSH_BITS }
    }

    /// Puts the last popped event back where it was (a run stopping before it).
    pub fn unpop(&mut self) {
        if let Some(e) = self.last.take() {
            self.push_keyed(e.time, e.ev, e.key);
        }
    }

    /// Appends to near bucket `b`, or inserts in order if it is the current, sorted one.
    #[inline(always)]
    fn put_near(&mut self, b: u64, e: Slot) {
        let bucket = &mut self.near[(b & (NEAR - 1)) as usize];
        if b == self.cur && self.sorted {
            // descending; e is the latest inserted, so it goes before (pops
            // after) the events of its own time and key. Shifted in from the
            // end (a few slots: the bucket is short) rather than a call to
            // memmove.
            bucket.push(e);
            let mut j = bucket.len() - 1;
            let k = e.order();
            while j > 0 && bucket[j - 1].order() <= k {
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
            self.far[(w & self.far_mask) as usize].push(Slot { time: e.time, ev: e.ev, key: e.key });
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
        self.settle_to::<false>(0)
    }

    /// [`EventQueue::settle`]; with `BOUNDED`, never past `until`: the wheel
    /// stays before it, so that events at `until` or later can still be
    /// pushed, and true only if an event before `until` is next.
    #[inline(always)]
    fn settle_to<const BOUNDED: bool>(&mut self, until: Time) -> bool {
        loop {
            let bucket = &mut self.near[(self.cur & (NEAR - 1)) as usize];
            if !bucket.is_empty() {
                if !self.sorted {
                    sort_descending(bucket);
                    self.sorted = true;
                }
                return !BOUNDED || bucket.last().is_some_and(|e| e.time < until);
            }
            if self.in_near > 0 {
                // the next bucket of this window
                if BOUNDED && (self.cur + 1) << SHIFT >= until {
                    return false;
                }
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
            if BOUNDED && next << (SHIFT + NEAR_BITS) >= until {
                return false;
            }
            self.enter(next);
        }
    }

    /// The time of the earliest event, if any, without moving the wheel (a
    /// parallel run's barrier: events may still be pushed from then on).
    pub fn next_time(&self) -> Option<Time> {
        let earliest = |list: &Vec<Slot>| list.iter().map(|e| e.time).min();
        if self.in_near > 0 {
            let near = (self.cur..(self.window() + 1) << NEAR_BITS).map(|b| &self.near[(b & (NEAR - 1)) as usize]);
            if let Some(t) = near.filter_map(earliest).next() {
                return Some(t);
            }
        }
        let far = if self.in_far > 0 {
            (1..=self.far_mask).find_map(|i| earliest(&self.far[((self.window() + i) & self.far_mask) as usize]))
        } else {
            None
        };
        far.into_iter().chain(self.overflow.peek().map(|e| e.time)).min()
    }

    /// The earliest event; the events it schedules are keyed by it.
    /// [`EventQueue::next_hint`] then tells what the one after it touches,
    /// if that is in the same bucket.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, Ev)> {
        if !self.settle() {
            return None;
        }
        Some(self.take_next())
    }

    /// Pops the last event of the current bucket (settled, not empty).
    #[inline(always)]
    fn take_next(&mut self) -> (Time, Ev) {
        let bucket = &mut self.near[(self.cur & (NEAR - 1)) as usize];
        let e = bucket.pop().expect("settled on a non-empty bucket");
        self.hint = match bucket.last() {
            Some(n) => n.ev.touches(),
            None => Touch::NONE,
        };
        self.in_near -= 1;
        self.parent_time = e.time;
        self.parent = e.ev.tie() << PUSH_BITS;
        self.pushes = 0;
        self.last = Some(e);
        (e.time, e.ev)
    }

    /// The earliest event if it is before `until` ([`EventQueue::pop`]),
    /// the wheel never moving past `until`.
    #[inline(always)]
    pub fn pop_before(&mut self, until: Time) -> Option<(Time, Ev)> {
        if !self.settle_to::<true>(until) {
            return None;
        }
        Some(self.take_next())
    }

    /// Every event still queued, in no particular order, emptying the queue.
    pub fn drain_all(&mut self) -> Vec<(Time, Ev, Key)> {
        let mut out: Vec<(Time, Ev, Key)> = Vec::with_capacity(self.in_near + self.in_far + self.overflow.len());
        for list in self.near.iter_mut().chain(self.far.iter_mut()) {
            out.extend(list.drain(..).map(|e| (e.time, e.ev, e.key)));
        }
        out.extend(self.overflow.drain().map(|e| (e.time, e.ev, e.key)));
        self.in_near = 0;
        self.in_far = 0;
        self.sorted = false;
        out
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

    /// A plain priority queue with the same order, to check the wheel against.
    #[derive(Default)]
    struct Model {
        items: Vec<(Time, Key, u64, Ev)>,
        parent: (Time, u64),
        pushes: u64,
        seq: u64,
    }

    impl Model {
        fn push(&mut self, time: Time, ev: Ev) {
            let key = Key { t0: self.parent.0, from: self.parent.1 << PUSH_BITS | self.pushes };
            self.pushes += 1;
            self.seq += 1;
            self.items.push((time, key, self.seq, ev));
        }
        fn pop(&mut self) -> Option<(Time, Ev)> {
            let i = (0..self.items.len()).min_by_key(|&i| (self.items[i].0, self.items[i].1, self.items[i].2))?;
            let (t, _, _, ev) = self.items.remove(i);
            self.parent = (t, ev.tie());
            self.pushes = 0;
            Some((t, ev))
        }
    }

    /// Random pushes (many at equal times, some from the same event, near,
    /// in later windows and beyond the horizon) interleaved with pops.
    fn against_model(horizon: Time, seed: u64, coarse: bool) {
        let mut q = EventQueue::with_horizon(horizon);
        let mut m = Model::default();
        let mut r = crate::rng::Rng::new(seed);
        let mut now = 0;
        for round in 0..300 {
            for _ in 0..r.below(12) {
                let dt = match (coarse, r.below(4)) {
                    (true, 0) => r.below(4) * 256,
                    (true, 1) => r.below(64) * 4096,
                    (true, _) => r.below(8) * (1 << 20),
                    (false, 0) => 0,
                    (false, 1) => r.below(5_000),
                    (false, 2) => r.below(1 << 27),
                    (false, _) => r.below(1 << 40),
                };
                // few distinct events, so that equal keys' parents repeat
                let ev = match r.below(3) {
                    0 => Ev::HostWake { host: r.below(4) as u32 },
                    1 => Ev::TxDone { port: r.below(4) as u32 },
                    _ => Ev::Rto { flow: r.below(4) as u32 },
                };
                q.push(now + dt, ev);
                m.push(now + dt, ev);
            }
            for _ in 0..r.below(10) {
                let want = m.pop();
                assert_eq!(q.pop(), want, "seed {seed}, round {round}");
                if let Some((t, _)) = want {
                    now = t;
                }
            }
        }
        while let Some(want) = m.pop() {
            assert_eq!(q.pop(), Some(want));
        }
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn matches_a_model_queue_across_the_horizon() {
        for seed in 0..8 {
            against_model(2 * crate::time::US, seed, false);
            against_model(0, seed + 100, true);
        }
    }

    /// Simultaneous events run in the order they were scheduled, whatever
    /// order they were pushed in: the one scheduled earlier first, then by
    /// the scheduling event, then by that event's order of pushes.
    #[test]
    fn first_scheduled_first_run() {
        let mut q = EventQueue::default();
        q.push(100, Ev::HostWake { host: 1 });
        q.push(50, Ev::TxDone { port: 7 });
        assert_eq!(q.pop(), Some((50, Ev::TxDone { port: 7 })));
        // scheduled at 50 by TxDone 7: after HostWake 1 (scheduled at 0)
        q.push(100, Ev::HostWake { host: 2 });
        q.push(100, Ev::HostWake { host: 3 });
        let order: Vec<u32> = std::iter::from_fn(|| q.pop())
            .map(|(_, e)| match e {
                Ev::HostWake { host } => host,
                _ => 0,
            })
            .collect();
        assert_eq!(order, vec![1, 2, 3]);
    }

    /// A key handed to another queue orders its event there as if the
    /// scheduling event had pushed it there; `unpop` restores the order.
    #[test]
    fn keys_travel_and_unpop_restores() {
        let (mut a, mut b) = (EventQueue::default(), EventQueue::default());
        a.push(10, Ev::TxDone { port: 1 });
        b.push(10, Ev::TxDone { port: 2 });
        a.pop();
        b.pop();
        // at 10, port 1's event schedules an arrival in b's part; port 2's
        // event schedules one at the same time in b itself
        let k = a.next_key();
        b.push(30, Ev::HostWake { host: 5 });
        b.push_keyed(30, Ev::HostWake { host: 6 }, k);
        let (t1, t2) = (Ev::TxDone { port: 1 }.tie(), Ev::TxDone { port: 2 }.tie());
        let first = if t1 < t2 { 6 } else { 5 };
        assert_eq!(b.pop(), Some((30, Ev::HostWake { host: first })));
        b.unpop();
        assert_eq!(b.pop(), Some((30, Ev::HostWake { host: first })));
        assert_eq!(b.drain_all().len(), 1);
        assert_eq!(b.pop(), None);
    }

    /// A parallel part's step: `pop_before` gives the model's events before
    /// each bound and no later one, `next_time` the model's next time
    /// without moving the wheel, and events at the bound or later can be
    /// pushed after a step.
    #[test]
    fn steps_pop_before_their_bound_and_accept_later_pushes() {
        let mut q = EventQueue::with_horizon(2 * crate::time::US);
        let mut m = Model::default();
        let mut r = crate::rng::Rng::new(9);
        let step = 1_000_000;
        for k in 1..400u64 {
            let until = k * step;
            // what another part sent during the last step: at its end (this
            // step's start) or later, a link delay ahead
            for _ in 0..r.below(6) {
                let t = until - step + r.below(3 * step);
                let ev = Ev::HostWake { host: r.below(8) as u32 };
                q.push(t, ev);
                m.push(t, ev);
            }
            let mut m_next = m.items.iter().map(|e| e.0).min();
            assert_eq!(q.next_time(), m_next, "step {k}");
            while let Some((t, ev)) = q.pop_before(until) {
                assert_eq!(Some((t, ev)), m.pop(), "step {k}");
                assert!(t < until);
                // each event schedules another now and then, near or far
                if r.below(2) == 0 {
                    let later = t + r.below(step / 2) + if r.below(4) == 0 { 1 << 30 } else { 0 };
                    q.push(later, Ev::TxDone { port: 3 });
                    m.push(later, Ev::TxDone { port: 3 });
                }
            }
            m_next = m.items.iter().map(|e| e.0).min();
            assert!(m_next.is_none_or(|t| t >= until), "step {k}: an event before the bound was left");
        }
    }
}
