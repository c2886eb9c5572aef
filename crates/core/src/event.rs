//! The event queue. Events run in time order; simultaneous events run
//! "first scheduled, first run": by the time they were scheduled, then by
//! what they are ([`Ev::id`]: their kind, then the port or host under a
//! fixed permutation, or the flow, message or link in the workload's order,
//! then a timer's slot and generation or an arrival's wire generation).
//! Unlike a global insertion counter, this order does not depend on what
//! else runs or on how the network is cut into parts that run on their own
//! threads (issue 36), so a run is bit-for-bit reproducible whatever the
//! thread count; and it costs a queue slot four bytes (how long ahead the
//! event was scheduled) and a comparison only between equal times. Two
//! events equal in all of these are equal events (a wake asked twice), so
//! their order changes nothing. Cancellation is lazy (generation counters in
//! the owners), which keeps the queue free of deletions.

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
/// another, odd so invertible mod 2^32): simultaneous events of ports, hosts
/// and flows' timers scheduled at the same time run in an order that follows
/// no numbering.
#[inline(always)]
fn shuffle(id: u32) -> u32 {
    (id ^ 0x7B1D_CDAF).wrapping_mul(0xE220_A839)
}

const _: () = assert!(crate::cc::TIMER_SLOTS <= 16);

impl Ev {
    /// What this event is, as a number that orders the events of one time
    /// scheduled at one time: its kind (link events, samples, flow starts,
    /// message releases, transmissions done, arrivals, wakes, credit pulls,
    /// scheme timers, retransmission checks, probes), then the link event,
    /// flow start or message in the workload's order (as they were given),
    /// or the port a `TxDone` is for or an `Arrive` reaches, the host or the
    /// timer's flow ([`shuffle`]d), then a timer's slot and generation (its
    /// low 24 bits) or an arrival's wire generation. Equal ids are equal
    /// events (a generation 2^24 apart aside, for which one of the two is
    /// stale).
    #[inline(always)]
    pub fn id(&self) -> u64 {
        let (kind, slot, entity, gen): (u64, u64, u32, u64) = match *self {
            Ev::Link { idx } => (0, 0, idx, 0),
            Ev::Sample => (1, 0, 0, 0),
            Ev::FlowStart { flow } => (2, 0, flow, 0),
            Ev::MsgRelease { msg } => (3, 0, msg, 0),
            Ev::TxDone { port } => (4, 0, shuffle(port), 0),
            Ev::Arrive { to, gen, .. } => (5, 0, shuffle(to), gen as u64),
            Ev::HostWake { host } => (6, 0, shuffle(host), 0),
            Ev::Pull { host } => (7, 0, shuffle(host), 0),
            Ev::Timer { flow, slot, gen } => (8, slot as u64 & 15, shuffle(flow), gen as u64 & 0xFF_FFFF),
            Ev::Rto { flow } => (9, 0, shuffle(flow), 0),
            Ev::Probe { flow } => (10, 0, shuffle(flow), 0),
        };
        kind << 60 | (entity as u64) << 28 | slot << 24 | gen
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

/// An event's place among the events of its time: when it was scheduled
/// (`t0`), then what it is ([`Ev::id`]). Outside any event (building the
/// run): 0 and 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(crate) struct Key {
    pub t0: Time,
    pub id: u64,
}

/// An event in the queue: its time, itself, and how long before its time
/// it was scheduled (saturated at 2^32 - 1 ps, about 4.3 ms, longer than
/// the wheel's horizon: only events from the heap saturate); ordered by
/// time, then the earliest scheduled, then [`Ev::id`] (computed only for
/// equal times).
#[derive(Clone, Copy, Debug)]
struct Slot {
    time: Time,
    ev: Ev,
    ahead: u32,
}

impl Slot {
    #[inline(always)]
    fn new(time: Time, ev: Ev, t0: Time) -> Slot {
        Slot { time, ev, ahead: time.saturating_sub(t0).min(u32::MAX as u64) as u32 }
    }

    /// The order among events of one time: scheduled earlier, then id
    /// (computed only when both were scheduled at one time).
    #[inline(always)]
    fn tie(&self, o: &Slot) -> Ordering {
        o.ahead.cmp(&self.ahead).then_with(|| self.ev.id().cmp(&o.ev.id()))
    }

    /// Whether this event runs before `o`.
    #[inline(always)]
    fn before(&self, o: &Slot) -> bool {
        self.time < o.time || (self.time == o.time && self.tie(o) == Ordering::Less)
    }

    /// When it was scheduled (as far as `ahead` tells).
    #[inline(always)]
    fn t0(&self) -> Time {
        self.time - self.ahead as Time
    }
}

/// An event in the overflow heap, earliest first.
#[derive(Clone, Copy, Debug)]
struct Entry(Slot);

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
        // (the tie only between equal times)
        o.0.time.cmp(&self.0.time).then_with(|| o.0.tie(&self.0))
    }
}

/// The bits of a time below its near bucket.
const LOW: u64 = (1 << SHIFT) - 1;

/// Sorts bucket `b` into descending (time, [`Slot::tie`]) order, so popping
/// from the end gives the earliest. Sorted by rank on the time within the
/// bucket and the position (ten bits and four: up to 16 events, most
/// buckets), or as (time within the bucket, position) words; then each run
/// of equal times, rare, is put in tie order.
#[inline]
fn sort_descending(b: &mut Vec<Slot>, spare: &mut Vec<Slot>, words: &mut Vec<u64>) {
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
        words.clear();
        words.extend(b.iter().enumerate().map(|(i, e)| (e.time & LOW) << 32 | i as u64));
        words.sort_unstable_by(|x, y| y.cmp(x));
        spare.extend(words.iter().map(|&w| b[(w & u32::MAX as u64) as usize]));
    }
    std::mem::swap(b, spare);
    ties_within_times(b);
}

/// Places each of the (up to `W`, at most 16) events of `b` in `out` by its
/// rank in descending (time within the bucket, position): the ranks of
/// distinct words are a permutation, computed without branches.
#[inline(always)]
fn by_rank<const W: usize>(b: &[Slot], out: &mut Vec<Slot>) {
    const _: () = assert!(SHIFT + 4 < 31);
    // padding sorts below every event
    let mut w = [i32::MIN; W];
    for (i, (w, e)) in w.iter_mut().zip(b.iter()).enumerate() {
        *w = ((e.time & LOW) as i32) << 4 | i as i32;
    }
    out.extend_from_slice(b);
    for (i, &wi) in w.iter().enumerate().take(b.len()) {
        let r: u8 = w.iter().map(|&x| (x > wi) as u8).sum();
        out[r as usize] = b[i];
    }
}

/// Puts each run of equal times in descending (time-sorted) `b` into
/// descending tie order (an insertion sort: runs are short).
#[inline(always)]
fn ties_within_times(b: &mut [Slot]) {
    for i in 1..b.len() {
        if b[i].time == b[i - 1].time {
            let e = b[i];
            let mut j = i;
            while j > 0 && b[j - 1].time == e.time && b[j - 1].before(&e) {
                b[j] = b[j - 1];
                j -= 1;
            }
            b[j] = e;
        }
    }
}

/// Width of a near bucket: 2^10 ps (about 1 ns).
const SHIFT: u32 = 10;
/// Near buckets per window: 2^6, so a window spans 64 ns.
const NEAR_BITS: u32 = 6;
const NEAR: u64 = 1 << NEAR_BITS;

/// A two-level timing wheel with a binary heap beyond it, ordered exactly as
/// a (time, [`Slot::tie`]) priority queue.
///
/// Time is cut into ~1 ns buckets grouped in 64 ns windows. An event in the
/// current window goes to its near bucket; an event in one of the next
/// windows (the horizon: a little longer than the slowest link's packet time
/// plus propagation delay, so almost every arrival, transmission and pacing
/// gap) is appended to that window's list; later events wait in the heap.
/// When the wheel enters a window it first moves the heap's events that are
/// now within the horizon to their windows, then spreads the window's list
/// over the near buckets; when it reaches a near bucket it sorts it once (a
/// few events, [`sort_descending`]) and pops from the end; an event pushed
/// into that bucket meanwhile is inserted in place.
///
/// Why two levels: an event is usually scheduled a link delay ahead, and
/// appending it to a window's list writes where the previous event went
/// (a warm cache line) where a single wheel of fine buckets touched a cold
/// bucket per push; the near buckets are filled just before they are used.
pub(crate) struct EventQueue {
    /// Near buckets of the current window.
    near: Vec<Vec<Slot>>,
    /// Scratch of the bucket sort.
    spare: Vec<Slot>,
    words: Vec<u64>,
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
    /// The event being run (the last popped), for [`EventQueue::current`];
    /// its time is when the events it pushes are scheduled.
    running: Option<Slot>,
    now: Time,
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
            words: Vec::new(),
            far: (0..windows).map(|_| Vec::new()).collect(),
            far_mask: windows as u64 - 1,
            cur: 0,
            sorted: false,
            in_near: 0,
            in_far: 0,
            overflow: BinaryHeap::new(),
            running: None,
            now: 0,
            hint: Touch::NONE,
        }
    }

    /// The window the wheel is in.
    #[inline(always)]
    fn window(&self) -> u64 {
        self.cur >> NEAR_BITS
    }

    /// Schedules `ev` at `time`, now (at the running event's time).
    #[inline(always)]
    pub fn push(&mut self, time: Time, ev: Ev) {
        self.push_from(time, ev, self.now);
    }

    /// Schedules `ev` at `time` as if at `t0` (an event handed over by
    /// another part, or scheduled there at `t0`).
    #[inline(always)]
    pub fn push_from(&mut self, time: Time, ev: Ev, t0: Time) {
        let e = Slot::new(time, ev, t0);
        let b = time >> SHIFT;
        assert!(b >= self.cur, "event at {time} ps scheduled before the wheel's current bucket");
        let w = b >> NEAR_BITS;
        let cw = self.window();
        if w == cw {
            self.put_near(b, e);
        } else if w <= cw + self.far_mask {
            self.far[(w & self.far_mask) as usize].push(e);
            self.in_far += 1;
        } else {
            self.overflow.push(Entry(e));
        }
    }

    /// The event being run: its time and key (0 and the default outside
    /// any event).
    #[inline]
    pub fn current(&self) -> (Time, Key) {
        self.running.map_or((0, Key::default()), |e| (e.time, Key { t0: e.t0(), id: e.ev.id() }))
    }

    /// Puts the last popped event back (a run stopping before it).
    pub fn unpop(&mut self) {
        if let Some(e) = self.running.take() {
            self.push_from(e.time, e.ev, e.t0());
        }
    }

    /// Appends to near bucket `b`, or inserts in order if it is the current, sorted one.
    #[inline(always)]
    fn put_near(&mut self, b: u64, e: Slot) {
        let bucket = &mut self.near[(b & (NEAR - 1)) as usize];
        if b == self.cur && self.sorted {
            // descending: shifted in from the end (a few slots: the bucket
            // is short) rather than a call to memmove
            bucket.push(e);
            let mut j = bucket.len() - 1;
            while j > 0 && bucket[j - 1].before(&e) {
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
            let w = top.0.time >> (SHIFT + NEAR_BITS);
            if w > last {
                break;
            }
            let e = self.overflow.pop().unwrap().0;
            self.far[(w & self.far_mask) as usize].push(e);
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
                    sort_descending(bucket, &mut self.spare, &mut self.words);
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
                    Some(top) => (top.0.time >> (SHIFT + NEAR_BITS)).max(self.window() + 1),
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
        far.into_iter().chain(self.overflow.peek().map(|e| e.0.time)).min()
    }

    /// The earliest event. [`EventQueue::next_hint`] then tells what the
    /// one after it touches, if that is in the same bucket.
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
        self.running = Some(e);
        self.now = e.time;
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

    /// Every event still queued (time, event, when it was scheduled), in
    /// no particular order, emptying the queue.
    pub fn drain_all(&mut self) -> Vec<(Time, Ev, Time)> {
        let mut out: Vec<(Time, Ev, Time)> = Vec::with_capacity(self.in_near + self.in_far + self.overflow.len());
        for list in self.near.iter_mut().chain(self.far.iter_mut()) {
            out.extend(list.drain(..).map(|e| (e.time, e.ev, e.t0())));
        }
        out.extend(self.overflow.drain().map(|e| (e.0.time, e.0.ev, e.0.t0())));
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

    /// A plain priority queue with the same order, to check the wheel
    /// against: by time, then the time scheduled (as far as 2^32 - 1 ps
    /// ahead), then id.
    #[derive(Default)]
    struct Model {
        items: Vec<(Time, Ev, Time)>,
        now: Time,
    }

    impl Model {
        fn push(&mut self, time: Time, ev: Ev) {
            self.items.push((time, ev, self.now));
        }
        fn pop(&mut self) -> Option<(Time, Ev)> {
            let order =
                |&(t, ev, t0): &(Time, Ev, Time)| (t, std::cmp::Reverse((t - t0).min(u32::MAX as u64)), ev.id());
            let i = (0..self.items.len()).min_by_key(|&i| order(&self.items[i]))?;
            let (t, ev, _) = self.items.remove(i);
            self.now = t;
            Some((t, ev))
        }
    }

    /// Random pushes (many at equal times, near, in later windows and
    /// beyond the horizon, in buckets of every size) interleaved with pops.
    fn against_model(horizon: Time, seed: u64, coarse: bool) {
        let mut q = EventQueue::with_horizon(horizon);
        let mut m = Model::default();
        let mut r = crate::rng::Rng::new(seed);
        let mut now = 0;
        for round in 0..300 {
            for _ in 0..r.below(40) {
                let dt = match (coarse, r.below(4)) {
                    (true, 0) => r.below(4) * 256,
                    (true, 1) => r.below(64) * 4096,
                    (true, _) => r.below(8) * (1 << 20),
                    (false, 0) => 0,
                    (false, 1) => r.below(5_000),
                    (false, 2) => r.below(1 << 27),
                    (false, _) => r.below(1 << 40),
                };
                // few distinct events, so that equal ones repeat
                let ev = match r.below(4) {
                    0 => Ev::HostWake { host: r.below(4) as u32 },
                    1 => Ev::TxDone { port: r.below(4) as u32 },
                    2 => Ev::Timer { flow: r.below(2) as u32, slot: r.below(2) as u8, gen: r.below(2) as u32 },
                    _ => Ev::Rto { flow: r.below(4) as u32 },
                };
                q.push(now + dt, ev);
                m.push(now + dt, ev);
            }
            for _ in 0..r.below(30) {
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

    /// Simultaneous events run first scheduled, first run, and those
    /// scheduled at one time by kind, then by their ports', hosts' or
    /// timers' flows' permutation or their flows' order, whatever order
    /// they were pushed in, in a sorted bucket or not.
    #[test]
    fn simultaneous_events_run_first_scheduled_then_by_what_they_are() {
        let mut q = EventQueue::default();
        q.push(50, Ev::Sample);
        // scheduled at 0
        for e in [Ev::Rto { flow: 3 }, Ev::HostWake { host: 9 }, Ev::Arrive { port: 1, to: 2, gen: 0, pkt: 7 }] {
            q.push(100, e);
        }
        assert_eq!(q.pop(), Some((50, Ev::Sample)));
        // scheduled at 50 (the bucket of 100 is not sorted yet: appended)
        for e in [Ev::HostWake { host: 2 }, Ev::TxDone { port: 5 }, Ev::Link { idx: 0 }] {
            q.push(100, e);
        }
        assert_eq!(q.pop(), Some((100, Ev::Arrive { port: 1, to: 2, gen: 0, pkt: 7 })));
        // scheduled at 100, into the sorted bucket: inserted in place
        q.push(100, Ev::Timer { flow: 1, slot: 0, gen: 4 });
        let order: Vec<Ev> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(
            order,
            vec![
                Ev::HostWake { host: 9 },
                Ev::Rto { flow: 3 },
                Ev::Link { idx: 0 },
                Ev::TxDone { port: 5 },
                Ev::HostWake { host: 2 },
                Ev::Timer { flow: 1, slot: 0, gen: 4 },
            ]
        );
        // ports and hosts by their permutation
        let mut q = EventQueue::default();
        q.push(10, Ev::HostWake { host: 9 });
        q.push(10, Ev::HostWake { host: 2 });
        let first = if shuffle(9) < shuffle(2) { 9 } else { 2 };
        assert_eq!(q.pop(), Some((10, Ev::HostWake { host: first })));
    }

    /// Beyond 2^32 - 1 ps ahead (past the wheel's horizon) how far ahead
    /// saturates: such events of one time run by id, before those scheduled
    /// within it.
    #[test]
    fn far_ahead_events_run_by_id_before_nearer_ones() {
        let ms = crate::time::MS;
        let at = 10 * ms;
        let mut q = EventQueue::default();
        q.push(at, Ev::Rto { flow: 1 });
        q.push(ms, Ev::Sample);
        assert_eq!(q.pop(), Some((ms, Ev::Sample)));
        // scheduled later than Rto 1, also more than 2^32 ps ahead
        q.push(at, Ev::FlowStart { flow: 7 });
        q.push(at - crate::time::US, Ev::Sample);
        assert_eq!(q.pop(), Some((at - crate::time::US, Ev::Sample)));
        // scheduled 1 us ahead: after both
        q.push(at, Ev::HostWake { host: 3 });
        let order: Vec<Ev> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, vec![Ev::FlowStart { flow: 7 }, Ev::Rto { flow: 1 }, Ev::HostWake { host: 3 }]);
    }

    /// `current` is the popped event's time and key, and `unpop` puts it
    /// back in its place.
    #[test]
    fn current_and_unpop() {
        let mut q = EventQueue::default();
        assert_eq!(q.current(), (0, Key::default()));
        q.push(30, Ev::HostWake { host: 5 });
        q.push(30, Ev::TxDone { port: 1 });
        assert_eq!(q.pop(), Some((30, Ev::TxDone { port: 1 })));
        assert_eq!(q.current(), (30, Key { t0: 0, id: Ev::TxDone { port: 1 }.id() }));
        q.unpop();
        assert_eq!(q.pop(), Some((30, Ev::TxDone { port: 1 })));
        assert_eq!(q.drain_all(), vec![(30, Ev::HostWake { host: 5 }, 0)]);
        assert_eq!(q.pop(), None);
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
