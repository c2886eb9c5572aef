//! One run on several threads (`SimOptions::threads`, issue 36): a
//! conservative parallel run whose results are those of the sequential run,
//! byte for byte, whatever the number of threads.
//!
//! The network is cut into parts ([`crate::partition::plan`]: pods or edge
//! switches with their hosts, so that only links between switches are
//! cut). Each part is a whole [`Simulator`] built from the same scenario
//! that runs only the events of the nodes it owns: its ports, switches and
//! hosts, and the flows whose sender it holds (a flow's receiver side runs
//! where its receiver is). Time advances in steps of the run's grid
//! ([`crate::partition::grid`], the smallest delay of a link between two
//! switches), so a packet sent over a cut link during a step arrives in a
//! later one: each part runs a step on its own thread, then at the barrier
//! the packets that crossed are handed to the parts they reach, each with
//! the time its arrival would have been scheduled on one thread: events
//! run by time, then that time, then what they are ([`crate::event::Ev::id`]),
//! an order that does not depend on the cut.
//!
//! The checks the sequential run makes at the grid steps (the end once
//! every flow has finished, the stop time, a stall, a lasting PFC deadlock)
//! are made at the barriers on the parts' combined counts. A stall or a
//! possible deadlock needs the whole fabric at once: the run is then made
//! again on one thread, and says so. What cannot be cut yet runs on one
//! thread from the start and says why ([`sequential_reason`]).
//!
//! Events every part runs: trace samples (each part samples its own ports
//! and flows; [`TraceOwners`] feeds the run's one tracer at the barriers)
//! and link events (each part applies every failure and repair, so that
//! its routes are the run's; a packet that crosses a cut link which failed
//! after it was sent is lost in the part it reaches). Each is counted once.
//!
//! Messages: each is released in its sender's part, which tells the part
//! holding the receiver at the barrier (`msg.rs`), before any of its data
//! can get there; its waits must be signals at its own sender's host.

use crate::cc::Scheme;
use crate::compat::{Note, NoteKind};
use crate::config::NetConfig;
use crate::event::Ev;
use crate::flow::Traffic;
use crate::mailbox::Mailbox;
use crate::options::{Progress, SimOptions};
use crate::partition::Plan;
use crate::port::Port;
use crate::projection::Owner;
use crate::results::{EventCounts, RunResult, RunStatus};
use crate::state::Simulator;
use crate::table::ZeroTable;
use crate::time::Time;
use crate::topology::Topology;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Builds and runs the scenario on `opts.threads` threads when it can be
/// cut, else on one (with a note saying why). `traffic` makes the traffic
/// afresh for each part.
pub fn simulate(
    topo: &Topology,
    net: &NetConfig,
    traffic: &dyn Fn() -> Traffic,
    scheme: &dyn Scheme,
    opts: &SimOptions,
    mut progress: Option<&mut dyn FnMut(&Progress)>,
) -> Result<RunResult, String> {
    let first = Simulator::with_traffic(topo, net, traffic(), scheme, opts)?;
    if opts.threads <= 1 {
        return Ok(first.run(progress));
    }
    if let Some(why) = sequential_reason(&first, opts, scheme.requirements().host_receive_count) {
        return Ok(on_one_thread(first, progress, why));
    }
    // no more parts than there are units to deal out (a part without a
    // node would be a whole simulator and a thread doing nothing)
    let mut n = opts.threads.min(u16::MAX as usize);
    let bytes = first.host_bytes();
    let plan = loop {
        let plan = crate::partition::plan(topo, n, &bytes);
        let mut owners: Vec<u16> = plan.part_of.clone();
        owners.sort_unstable();
        owners.dedup();
        if owners.len() == n {
            break plan;
        }
        n = owners.len();
    };
    let used = plan.hosts.iter().filter(|&&h| h > 0).count();
    if used < 2 {
        let why = "the network has fewer than two pods or edge switches to cut it at".to_string();
        return Ok(on_one_thread(first, progress, why));
    }
    if let Some(why) = first.cross_part_wait(&plan.part_of) {
        return Ok(on_one_thread(first, progress, why));
    }
    let traces = TraceOwners::new(&first, &plan);
    // each part is cut down to what it owns before the next is built; the
    // run's trace files are part 0's (the others keep no streams)
    let mut first = first;
    first.make_part(&plan, 0);
    let mut parts = vec![first];
    let mut part_opts = opts.clone();
    part_opts.trace.dir = None;
    for p in 1..plan.parts() {
        let mut sim = Simulator::with_traffic(topo, net, traffic(), scheme, &part_opts)?;
        sim.make_part(&plan, p as u16);
        parts.push(sim);
    }
    match run_parts(parts, &plan, opts, traces, &mut progress) {
        Ok(r) => Ok(r),
        Err(why) => {
            let again = Simulator::with_traffic(topo, net, traffic(), scheme, opts)?;
            Ok(on_one_thread(again, progress, why))
        }
    }
}

/// Runs `sim` sequentially, noting why it was not cut into parts.
fn on_one_thread(sim: Simulator, progress: Option<&mut dyn FnMut(&Progress)>, why: String) -> RunResult {
    let mut r = sim.run(progress);
    r.notes.push(Note { kind: NoteKind::Chosen, text: format!("ran on one thread: {why}") });
    r
}

/// Why a run cannot be cut into parts yet, if it cannot (`host_receive_count`:
/// the scheme's receivers count their host's active flows).
fn sequential_reason(sim: &Simulator, opts: &SimOptions, host_receive_count: bool) -> Option<String> {
    let why = if sim.source.is_some() {
        "a message source makes messages as the run goes, from what happens anywhere"
    } else if host_receive_count && sim.flows.len() > sim.n_plain as usize {
        "the scheme's receivers count their host's active flows, which on a connection follow its \
         sender's message releases at once"
    } else if sim.credit.is_some() {
        "receiver credits run on one thread"
    } else if opts.check {
        "the end-of-run checks play out the whole fabric at once"
    } else if !opts.project_threads.is_empty() {
        "a projection counts the sequential run"
    } else {
        return None;
    };
    Some(why.to_string())
}

/// The barrier's command: run up to this time, or stop.
const STOP: u64 = u64::MAX;

/// A barrier for a fixed number of threads that spins briefly, then
/// yields: a step takes microseconds to milliseconds, so a thread that
/// sleeps in the kernel would cost more than the step. A thread that
/// panics aborts it ([`AbortOnPanic`]), so that the others do not wait for
/// ever.
struct SpinBarrier {
    n: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    aborted: AtomicBool,
}

impl SpinBarrier {
    fn new(n: usize) -> Self {
        SpinBarrier {
            n,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            aborted: AtomicBool::new(false),
        }
    }

    /// Waits for every thread; false if the barrier was aborted.
    fn wait(&self) -> bool {
        let gen = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::AcqRel);
            return !self.aborted.load(Ordering::Acquire);
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == gen {
            if self.aborted.load(Ordering::Acquire) {
                return false;
            }
            if spins < 2000 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
        !self.aborted.load(Ordering::Acquire)
    }
}

/// Aborts the barrier when the thread holding it unwinds from a panic.
struct AbortOnPanic<'a>(&'a SpinBarrier);

impl Drop for AbortOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.aborted.store(true, Ordering::Release);
        }
    }
}

/// Runs the parts in steps until the run ends; their merged results, or
/// why the run must be made again on one thread.
fn run_parts(
    parts: Vec<Simulator>,
    plan: &Plan,
    opts: &SimOptions,
    traces: Option<TraceOwners>,
    progress: &mut Option<&mut dyn FnMut(&Progress)>,
) -> Result<RunResult, String> {
    let wall = std::time::Instant::now();
    let cpu0 = crate::sim::process_cpu_secs();
    let n = parts.len();
    let parts: Vec<Part> = parts.into_iter().map(|s| Padded(Mutex::new(s))).collect();
    let counts: Vec<Counts> = (0..n).map(|_| Padded(Mutex::new(PartStats::default()))).collect();
    let barrier = SpinBarrier::new(n);
    let until = AtomicU64::new(0);
    let mut coord = Coordinator::new(&parts, opts, traces);
    let outcome = std::thread::scope(|s| {
        for p in 1..n {
            let (parts, counts, barrier, until) = (&parts, &counts, &barrier, &until);
            s.spawn(move || {
                let _guard = AbortOnPanic(barrier);
                while barrier.wait() {
                    let u = until.load(Ordering::Acquire);
                    if u == STOP {
                        return;
                    }
                    run_step(&parts[p], &counts[p], u);
                    if !barrier.wait() {
                        return;
                    }
                }
            });
        }
        let _guard = AbortOnPanic(&barrier);
        loop {
            let next = coord.next_step(&parts, &counts, progress, wall);
            until.store(next.unwrap_or(STOP), Ordering::Release);
            if !barrier.wait() {
                break;
            }
            let Some(u) = next else { break };
            run_step(&parts[0], &counts[0], u);
            if !barrier.wait() {
                break;
            }
        }
        coord.outcome.take().unwrap_or_else(|| Err("a thread of the run failed".into()))
    });
    let status = outcome?;
    let parts: Vec<Simulator> = parts.into_iter().map(|m| m.0.into_inner().unwrap()).collect();
    let counts: Vec<PartStats> = counts.into_iter().map(|m| m.0.into_inner().unwrap()).collect();
    let samples = coord.traces.as_ref().map(|t| t.kept);
    Ok(merge(parts, plan, (&counts, coord.steps, samples), status, (wall, cpu0)))
}

/// A value alone in its cache lines: each thread writes its own part and
/// counts at every event, and a line shared with the next part's would
/// bounce between the cores.
#[repr(align(128))]
struct Padded<T>(T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A part, and its events run and their kinds, each alone in its lines.
type Part = Padded<Mutex<Simulator>>;
type Counts = Padded<Mutex<PartStats>>;

/// What a part did: events run (and their kinds), time spent running its
/// steps, packets it took from other parts.
#[derive(Default)]
struct PartStats {
    events: u64,
    by_kind: EventCounts,
    busy: std::time::Duration,
    crossed: u64,
}

/// One part's step: its events before `until`, counted.
fn run_step(part: &Part, counts: &Counts, until: Time) {
    let t0 = std::time::Instant::now();
    let mut c = counts.lock().unwrap();
    let mut sim = part.lock().unwrap();
    c.crossed += sim.take_crossings();
    sim.take_releases();
    c.events += sim.run_window(until, &mut c.by_kind);
    c.busy += t0.elapsed();
}

/// The decisions taken at the barriers, on the parts' combined counts.
struct Coordinator {
    /// How the run ended (an error: it must be made again on one thread).
    outcome: Option<Result<RunStatus, String>>,
    /// The sequential run's `RunControl::cycle_check`.
    cycle_check: Time,
    stall: Time,
    stop_at: Option<Time>,
    grid: Time,
    total: usize,
    lossless: bool,
    interrupt: crate::options::Interrupt,
    next_report: u64,
    /// Steps run (barriers).
    steps: u64,
    /// With traces: which part samples each series, and the samples kept.
    traces: Option<TraceOwners>,
}

impl Coordinator {
    fn new(parts: &[Part], opts: &SimOptions, traces: Option<TraceOwners>) -> Self {
        let s = parts[0].lock().unwrap();
        Coordinator {
            outcome: None,
            cycle_check: s.ctl.cycle_check,
            stall: s.ctl.stall,
            stop_at: opts.stop_at,
            grid: s.ctl.grid,
            total: s.ctl.total,
            lossless: s.mode.lossless != 0,
            interrupt: opts.interrupt.clone(),
            next_report: 1 << 20,
            steps: 0,
            traces,
        }
    }

    /// Between two steps (no part running): hands the packets that crossed
    /// to their parts, then decides the next step's end, or that the run
    /// ends (`outcome` set, None returned).
    fn next_step(
        &mut self,
        parts: &[Part],
        counts: &[Counts],
        progress: &mut Option<&mut dyn FnMut(&Progress)>,
        wall: std::time::Instant,
    ) -> Option<Time> {
        let mut sims: Vec<_> = parts.iter().map(|m| m.lock().unwrap()).collect();
        let crossing = exchange(&mut sims);
        if let Some(t) = self.traces.as_mut() {
            t.feed(&mut sims, self.total);
        }
        let finished: usize = sims.iter().map(|s| s.ctl.finished).sum();
        let started: usize = sims.iter().map(|s| s.ctl.started).sum();
        let last_progress = sims.iter().map(|s| s.ctl.last_progress).max().unwrap_or(0);
        let now = sims.iter().map(|s| s.now).max().unwrap_or(0);
        let next = sims.iter().filter_map(|s| s.events.next_time()).chain(crossing).min();
        let events: u64 = counts.iter().map(|c| c.lock().unwrap().events).sum();
        if events >= self.next_report {
            self.next_report = events + (1 << 20);
            if let Some(cb) = progress.as_deref_mut() {
                let wall_secs = wall.elapsed().as_secs_f64();
                cb(&Progress { now, events, flows_done: finished, flows_total: self.total, wall_secs });
            }
        }
        let end =
            |o: &mut Self, r: Result<RunStatus, String>, at: Time, sims: &mut [std::sync::MutexGuard<Simulator>]| {
                for s in sims.iter_mut() {
                    s.now = at;
                }
                o.outcome = Some(r);
                None
            };
        if finished >= self.total {
            // every flow has finished: the step in which the last did has
            // run, and its samples past the run's last one are not counted
            let now = match &self.traces {
                Some(t) => sims.iter().map(|s| s.ctl.last_event).max().unwrap_or(0).max(t.last_kept),
                None => now,
            };
            return end(self, Ok(RunStatus::Completed), now, &mut sims);
        }
        if self.interrupt.is_set() {
            return end(self, Ok(RunStatus::Interrupted { at: now }), now, &mut sims);
        }
        let Some(t) = next else {
            return end(self, Err("flows remain and nothing is left to happen".into()), now, &mut sims);
        };
        if let Some(s) = self.stop_at.filter(|&s| t > s) {
            return end(self, Ok(RunStatus::Stopped), s, &mut sims);
        }
        let step = t - t % self.grid;
        if started > finished && step > last_progress + self.stall {
            return end(self, Err("the run stalled".into()), now, &mut sims);
        }
        if step >= self.cycle_check {
            if let Some(why) = self.lasting_deadlock(&sims, now) {
                return end(self, Err(why), now, &mut sims);
            }
        }
        let until = step.saturating_add(self.grid);
        self.steps += 1;
        Some(match self.stop_at {
            Some(s) => until.min(s.saturating_add(1)),
            None => until,
        })
    }

    /// `Simulator::lasting_deadlock` on the parts: the first look
    /// ([`crate::sim::pause_outlasts`]) is made here; a cycle of paused
    /// ports needs the whole fabric, so finding one is left to a run on one
    /// thread (the reason returned).
    fn lasting_deadlock(&mut self, sims: &[std::sync::MutexGuard<Simulator>], now: Time) -> Option<String> {
        let oldest = || sims.iter().filter_map(|s| s.oldest_pause()).min();
        crate::sim::pause_outlasts(&mut self.cycle_check, self.stall, now, self.lossless, oldest)?;
        Some("a PFC pause lasted as long as the stall limit (a possible deadlock)".into())
    }
}

/// The traces of a parallel run: every part samples every traced series
/// at the same instants (its own ports' and flows' values are right,
/// the others' are not kept); at each barrier the run's one tracer, part
/// 0's, takes the samples from the parts owning each series, and the
/// traced flows' changes and ACKs in event order.
struct TraceOwners {
    /// The part owning each traced queue's port, each utilization port and
    /// each traced flow's sender.
    queues: Vec<usize>,
    util: Vec<usize>,
    flows: Vec<usize>,
    /// A sample saw every flow finished: one thread takes no sample after
    /// it, so none is kept.
    over: bool,
    /// Samples taken into the run's tracer, and the time of the last.
    kept: u64,
    last_kept: Time,
}

impl TraceOwners {
    /// The owners in `sim` (before it is cut) under `plan`; None without traces.
    fn new(sim: &Simulator, plan: &Plan) -> Option<TraceOwners> {
        let t = sim.tracer.as_ref()?;
        let port = |p: &u32| plan.part_of[sim.ports[*p as usize].node as usize] as usize;
        Some(TraceOwners {
            queues: t.queue_ports.iter().map(port).collect(),
            util: t.util_ports.iter().map(port).collect(),
            flows: t.flows.iter().map(|&f| plan.part_of[sim.flows[f as usize].view.src as usize] as usize).collect(),
            over: false,
            kept: 0,
            last_kept: 0,
        })
    }

    /// Moves what the parts traced during the step into the run's tracer.
    fn feed(&mut self, sims: &mut [std::sync::MutexGuard<Simulator>], total: usize) {
        let logs: Vec<crate::trace::PartLog> = sims
            .iter_mut()
            .map(|s| std::mem::take(s.tracer.as_mut().and_then(|t| t.part.as_mut()).expect("a part's trace log")))
            .collect();
        let run = sims[0].tracer.as_mut().expect("the run's tracer");
        let n = logs[0].samples.len();
        debug_assert!(logs.iter().all(|l| l.samples.len() == n), "the parts sampled at different instants");
        for i in 0..n {
            if self.over {
                break;
            }
            let at = |p: usize| &logs[p].samples[i];
            let qlen: Vec<f64> = self.queues.iter().enumerate().map(|(j, &p)| at(p).qlen[j]).collect();
            let util: Vec<f64> = self.util.iter().enumerate().map(|(j, &p)| at(p).util[j]).collect();
            let flows: Vec<_> = self.flows.iter().enumerate().map(|(j, &p)| at(p).flows[j]).collect();
            run.sample(at(0).time, &qlen, &util, &flows);
            self.kept += 1;
            self.last_kept = at(0).time;
            self.over = logs.iter().map(|l| l.samples[i].finished).sum::<usize>() >= total;
        }
        // (time, key) orders events of different parts as one thread runs
        // them; a stable sort keeps one event's records in their order
        let mut events: Vec<_> = logs.into_iter().flat_map(|l| l.events).collect();
        events.sort_by_key(|&(t, key, _)| (t, key));
        for (t, _, ev) in events {
            run.apply(t, ev);
        }
    }
}

/// Hands the packets that crossed cut links during the step, and the
/// message releases for other parts, to the parts they reach (moving the
/// lists only: each part takes its own at the start of its next step, on
/// its own thread); the earliest arrival among them.
fn exchange(sims: &mut [std::sync::MutexGuard<Simulator>]) -> Option<Time> {
    let mut earliest = None;
    for p in 0..sims.len() {
        earliest = earliest.into_iter().chain(sims[p].outbox_min.take()).min();
        // each list goes to q, which hands back the one it took last time,
        // emptied: p fills that next
        for q in 0..sims.len() {
            if !sims[p].outbox[q].is_empty() {
                let sent = std::mem::take(&mut sims[p].outbox[q]);
                sims[p].outbox[q] = std::mem::replace(&mut sims[q].inbox[p], sent);
            }
            if !sims[p].msg_mail.out[q].is_empty() {
                let sent = std::mem::take(&mut sims[p].msg_mail.out[q]);
                sims[p].msg_mail.out[q] = std::mem::replace(&mut sims[q].msg_mail.inbox[p], sent);
            }
        }
    }
    earliest
}

/// The parts' results as one run's: each port, switch and host from the
/// part owning it, each flow from its sender's part (its head-of-line and
/// loss counts, which the switches on its path add to, summed over the
/// parts), the counters summed.
fn merge(
    parts: Vec<Simulator>,
    plan: &Plan,
    (counts, steps, samples): (&[PartStats], u64, Option<u64>),
    status: RunStatus,
    (wall, cpu0): (std::time::Instant, Option<f64>),
) -> RunResult {
    // the packets that crossed in the last step are on their wires
    let mut parts = parts;
    for s in parts.iter_mut() {
        s.take_crossings();
    }
    let in_flight: u64 = parts.iter().map(|s| s.data_in_flight()).sum();
    if parts[0].ctl.deep {
        for (p, s) in parts.iter().enumerate() {
            if let Err(e) = s.check_buffer_accounting() {
                panic!("buffer accounting broken in part {p} at {} ps: {e}", s.now);
            }
        }
    }
    // counted where they happen: head-of-line victims and losses at the
    // switches on a flow's path, resends and timeouts at its sender
    let sum =
        |f: usize, get: &dyn Fn(&crate::transport::Sender) -> u64| parts.iter().map(|s| get(&s.flows[f].snd)).sum();
    let per_flow: Vec<[u64; 5]> = (0..parts[0].flows.len())
        .map(|f| {
            [
                sum(f, &|s| s.hol_pkts),
                sum(f, &|s| s.losses.retransmits),
                sum(f, &|s| s.losses.timeouts),
                sum(f, &|s| s.losses.trimmed),
                sum(f, &|s| s.losses.drops),
            ]
        })
        .collect();
    // packets lost on a cut link that failed under them are counted at the
    // far end's copy of the sending port (in the part they crossed to)
    let copy_drops: Vec<u64> = (0..parts[0].ports.len())
        .map(|i| parts.iter().filter(|s| !s.owns_port(i as u32) && s.ports[i].built).map(|s| s.ports[i].drops).sum())
        .collect();
    merge_messages(&mut parts, &plan.part_of);
    let peak: u64 = parts.iter().map(|s| s.pool.peak() as u64).sum();
    let live: u64 = parts.iter().map(|s| s.pool.live() as u64).sum();
    // the packets and events go before the parts are joined: the ports
    // moved into the first part are new memory there
    for s in parts.iter_mut() {
        s.pool = crate::packet::PacketPool::default();
        s.events = crate::event::EventQueue::default();
    }
    let mut rest = parts.into_iter();
    let mut base = rest.next().expect("at least one part");
    for (i, mut other) in rest.enumerate() {
        base.absorb(&mut other, &plan.part_of, i as u16 + 1);
    }
    for (i, d) in copy_drops.into_iter().enumerate() {
        base.ports[i].drops += d;
    }
    for (f, [hol, resent, timeouts, trimmed, drops]) in per_flow.into_iter().enumerate() {
        let s = &mut base.flows[f].snd;
        s.hol_pkts = hol;
        s.losses = crate::transport::Losses { retransmits: resent, timeouts, trimmed, drops };
    }
    base.count.events_run = counts.iter().map(|c| c.events).sum();
    let mut by_kind = EventCounts::default();
    for c in counts {
        by_kind.add(&c.by_kind);
    }
    // every part ran every link event and every sample (and the samples
    // past the run's last one): counted once each, as one thread runs them
    let once = |n: u64| n / counts.len() as u64;
    base.count.events_run = base.count.events_run - by_kind.link + once(by_kind.link);
    by_kind.link = once(by_kind.link);
    if let Some(kept) = samples {
        base.count.events_run = base.count.events_run - by_kind.sample + kept;
        by_kind.sample = kept;
    }
    base.count.events_by_kind = by_kind;
    base.ctl.deep = false;
    let grid = base.ctl.grid;
    let mut r = base.finish_merged(status, wall, in_flight, (peak, live), cpu0);
    r.notes.push(Note { kind: NoteKind::Chosen, text: describe(plan, counts, steps, grid, r.engine.wall_secs) });
    r
}

/// Gathers the messages' state into the first part: each message's release,
/// completion and losses from its sender's part (a task's from its host's),
/// its delivery from its receiver's; then the drops and trims that other
/// parts' switches saw, each given to the message holding its byte if that
/// one was still outstanding then, as one thread counts them.
fn merge_messages(parts: &mut [Simulator], part_of: &[u16]) {
    for m in 0..parts[0].msgs.len() as u32 {
        let (from, to) = parts[0].msg_parts(m, part_of);
        let i = m as usize;
        if from != 0 {
            let o = &parts[from as usize].msgs[i];
            let (offset, released, done, done_key, losses) = (o.offset, o.released, o.done, o.done_key, o.losses);
            let b = &mut parts[0].msgs[i];
            (b.offset, b.released, b.done, b.done_key, b.losses) = (offset, released, done, done_key, losses);
        }
        if to != 0 {
            parts[0].msgs[i].delivered = parts[to as usize].msgs[i].delivered;
        }
    }
    // each connection's released messages by stream offset
    let mut by_flow: Vec<Vec<(u64, u32)>> = vec![Vec::new(); parts[0].flows.len()];
    for (m, msg) in parts[0].msgs.iter().enumerate() {
        if msg.flow != crate::transport::TASK && msg.released.is_some() {
            by_flow[msg.flow as usize].push((msg.offset, m as u32));
        }
    }
    for list in by_flow.iter_mut() {
        list.sort_unstable();
    }
    let losses: Vec<_> = parts.iter_mut().flat_map(|s| std::mem::take(&mut s.msg_mail.losses)).collect();
    for l in losses {
        let list = &by_flow[l.flow as usize];
        let Some(&(_, m)) = list.get(list.partition_point(|&(off, _)| off <= l.seq).wrapping_sub(1)) else {
            continue;
        };
        let msg = &mut parts[0].msgs[m as usize];
        let outstanding = l.seq < msg.offset + msg.size && msg.done.is_none_or(|t| (t, msg.done_key) > l.at);
        if outstanding {
            msg.losses.add(l.what);
        }
    }
}

/// The note a parallel run leaves: its cut, steps, and per part the events
/// run, the share of the run's wall time spent running them and the
/// packets taken from other parts.
fn describe(plan: &Plan, counts: &[PartStats], steps: u64, grid: Time, wall_secs: f64) -> String {
    let list = |f: &dyn Fn(&PartStats) -> String| counts.iter().map(f).collect::<Vec<_>>().join(", ");
    format!(
        "ran on {n} threads: the network cut into {n} parts (units kept whole: {unit}; {cut} links cut), \
         {steps} steps of {step} ns; per part: events {events}; busy {busy} of the wall time; \
         packets from other parts {crossed}",
        n = plan.parts(),
        unit = plan.unit,
        cut = plan.cut_links,
        step = grid as f64 / 1e3,
        events = list(&|c| c.events.to_string()),
        busy = list(&|c| format!("{:.0}%", 100.0 * c.busy.as_secs_f64() / wall_secs.max(1e-9))),
        crossed = list(&|c| c.crossed.to_string()),
    )
}

impl Simulator {
    /// Makes this simulator part `p` of `plan`: marks the ports whose link
    /// is cut and keeps only the events of the nodes it owns.
    pub(crate) fn make_part(&mut self, plan: &Plan, p: u16) {
        let part_of = &plan.part_of;
        for port in self.ports.iter_mut() {
            let (here, there) = (part_of[port.node as usize], part_of[port.peer as usize]);
            port.cut = if here == there { 0 } else { there + 1 };
        }
        self.keep_own_ports(part_of, p);
        self.mode.cut = true;
        self.mode.part = p;
        self.outbox = (0..plan.parts()).map(|_| Mailbox::default()).collect();
        self.inbox = (0..plan.parts()).map(|_| Mailbox::default()).collect();
        self.msg_mail = crate::mailbox::MsgMail {
            node_part: part_of.to_vec(),
            out: vec![Vec::new(); plan.parts()],
            inbox: vec![Vec::new(); plan.parts()],
            losses: Vec::new(),
        };
        for (t, ev, t0) in self.events.drain_all() {
            if self.part_of_event(&ev, part_of).is_none_or(|q| q == p) {
                self.events.push_from(t, ev, t0);
            }
        }
        if let Some(t) = self.tracer.as_mut() {
            t.part = Some(crate::trace::PartLog::default());
        }
    }

    /// Leaves in the port table only the ports of this part's nodes and,
    /// for each cut link, the far end, whose wire takes the packets sent
    /// from the other part. The table keeps its length, so that port ids
    /// stay global on the packet paths; the other slots are zeros that
    /// nothing writes, which the OS does not back with memory (the ports
    /// are most of a simulator's fixed size: docs/PERFORMANCE.md).
    fn keep_own_ports(&mut self, part_of: &[u16], p: u16) {
        let mut kept: ZeroTable<Port> = ZeroTable::zeroed(self.ports.len());
        for i in 0..self.ports.len() {
            let port = &self.ports[i];
            let far_end_of_cut = part_of[port.peer as usize] == p;
            if part_of[port.node as usize] == p || far_end_of_cut {
                std::mem::swap(&mut kept[i], &mut self.ports[i]);
            } else if port.down {
                // (a link down from the start: every part's routes leave it out)
                kept[i].down = true;
            }
        }
        self.ports = kept;
    }

    /// The part owning event `ev`; None for the trace samples and the link
    /// events, which every part runs.
    fn part_of_event(&self, ev: &Ev, part_of: &[u16]) -> Option<u16> {
        if let Ev::MsgRelease { msg } = *ev {
            // a message is released at its sender, a task at its host
            return Some(self.msg_parts(msg, part_of).0);
        }
        let node = match Owner::of(ev, |_| None) {
            Owner::Port(p) => self.ports[p as usize].node,
            Owner::Flow(f) => self.flows[f as usize].view.src,
            Owner::Host(h) => self.ports[self.hosts[h as usize].port as usize].node,
            Owner::All => {
                debug_assert!(matches!(ev, Ev::Sample | Ev::Link { .. }), "{ev:?} in a parallel run");
                return None;
            }
        };
        Some(part_of[node as usize])
    }

    /// Takes the packets other parts sent here during the last step: onto
    /// their wires here, with their arrivals (all after the step's end, where
    /// the wheel still is); how many.
    pub(crate) fn take_crossings(&mut self) -> u64 {
        let mut n = 0;
        for from in 0..self.inbox.len() {
            let mut mail = std::mem::take(&mut self.inbox[from]);
            for c in mail.iter() {
                let h = self.pool.alloc_copy(&c.pkt);
                if c.sent < self.ports[c.port as usize].failed {
                    // the link failed while the packet was on it (after it
                    // was sent, during the step): lost, as on one thread
                    self.drop_packet(c.port, h);
                    continue;
                }
                let p = &mut self.ports[c.port as usize];
                let (gen, to) = (p.wire_gen, p.peer_port);
                // behind a packet still on its way, its arrival is scheduled
                // by that one's
                if p.wire.push_on_wire(h, c.time, &mut self.pool) {
                    self.events.push_from(c.time, Ev::Arrive { port: c.port, to, gen, pkt: h }, c.t0);
                }
            }
            n += mail.len() as u64;
            mail.clear();
            self.inbox[from] = mail;
        }
        n
    }

    /// Packet `h`, sent now on port `port` whose peer is in part
    /// `cut - 1`, goes to that part at the next barrier.
    #[cold]
    pub(crate) fn hand_over(&mut self, port: u32, cut: u16, h: u32, time: Time, t0: Time) {
        self.outbox[cut as usize - 1].push(self.now, time, t0, port, self.pool.get(h));
        self.pool.free(h);
        self.outbox_min = Some(self.outbox_min.map_or(time, |m| m.min(time)));
    }

    /// Per node, the bytes its flows and messages send and receive (the
    /// load a plan balances, as for the projections).
    pub(crate) fn host_bytes(&self) -> Vec<f64> {
        let flows = self.flows[..self.n_plain as usize].iter().map(|f| (f.view.src, f.view.dst, f.view.size));
        let msgs = self.msgs.iter().filter(|m| m.flow != crate::transport::TASK).map(|m| {
            let v = &self.flows[m.flow as usize].view;
            (v.src, v.dst, m.size)
        });
        crate::partition::host_bytes(self.topo.nodes.len(), flows.chain(msgs))
    }

    /// Takes from `other` (part `p`) what it owns: its ports with their
    /// statistics, switches and hosts, the flows it sends, and its counters.
    fn absorb(&mut self, other: &mut Simulator, part_of: &[u16], p: u16) {
        for i in 0..self.ports.len() {
            // (only the owner and the far end of a cut have the port built)
            let theirs = &other.ports[i];
            if theirs.built && part_of[theirs.node as usize] == p {
                std::mem::swap(&mut self.ports[i], &mut other.ports[i]);
                std::mem::swap(&mut self.stats[i], &mut other.stats[i]);
            }
        }
        for (node, &owner) in part_of.iter().enumerate() {
            if owner != p {
                continue;
            }
            let idx = self.node_index[node] as usize;
            if self.topo.nodes[node] == crate::topology::NodeKind::Switch {
                std::mem::swap(&mut self.switches[idx], &mut other.switches[idx]);
            } else {
                std::mem::swap(&mut self.hosts[idx], &mut other.hosts[idx]);
            }
        }
        for f in 0..self.flows.len() {
            if part_of[self.flows[f].view.src as usize] == p {
                std::mem::swap(&mut self.flows[f], &mut other.flows[f]);
            }
        }
        self.pause_log.append(&mut other.pause_log);
        // every part binned the RTTs its senders measured
        if let (Some(mine), Some(theirs)) = (self.rtt_hist.as_mut(), other.rtt_hist.as_ref()) {
            for (a, b) in mine.counts.iter_mut().zip(&theirs.counts) {
                *a += b;
            }
        }
        self.count.add(&other.count);
        self.ctl.finished += other.ctl.finished;
        self.ctl.started += other.ctl.started;
        self.ctl.last_progress = self.ctl.last_progress.max(other.ctl.last_progress);
        self.now = self.now.max(other.now);
    }
}
