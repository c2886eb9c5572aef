//! The simulator: builds the network from a topology, runs the event loop and
//! collects results. The fabric (switch ports, shared buffer, PFC, ECN, INT)
//! lives in `fabric.rs`, the hosts (NIC, transport, scheme calls) in `host.rs`;
//! both are `impl Simulator` blocks over the state in `state.rs`.
//!
//! Events per packet: one `Arrive` per hop, plus a `TxDone` only when a port
//! has more to send after a transmission (an idle port starts the next packet
//! directly from the arrival), so a packet crossing idle ports costs one event
//! per hop. A host NIC looks again only when something may be sendable: a
//! `TxDone` when its transmission ends with a packet or flow waiting, or a
//! `HostWake` when the first paced flow's gap ends (`host.rs`, `nic.rs`).

use crate::cc::Scheme;
use crate::config::{EcnMode, NetConfig};
use crate::event::{Ev, Touch};
use crate::flow::FlowSpec;
pub use crate::options::{Interrupt, Progress, SimOptions, TraceConfig, DEFAULT_STALL};
use crate::packet::Packet;
use crate::port::NC;
use crate::projection::Owner;
use crate::results::{EngineStats, EventCounts, FlowResult, PortRef, PortResult, RunResult, RunStatus};
use crate::state::prefetch;
pub use crate::state::Simulator;
use crate::time::{ser_time, Time};
use crate::topology::Topology;
use crate::trace::FlowSample;
use crate::transport::CcOp;

pub use crate::cc::PortStat;

impl Simulator {
    /// Runs until every flow has finished (to the end of that grid step), or
    /// the stop time, then returns the results.
    pub fn run(mut self, mut progress: Option<&mut dyn FnMut(&Progress)>) -> RunResult {
        let wall = std::time::Instant::now();
        let cpu0 = thread_cpu_secs();
        let (status, events, by_kind) = if self.projection.is_empty() {
            self.turn::<false>(&mut progress, wall)
        } else {
            self.turn::<true>(&mut progress, wall)
        };
        self.count.events_run = events;
        self.count.events_by_kind = by_kind;
        self.finish(status, wall, cpu0)
    }

    /// The event loop: pops and runs events until every flow has finished
    /// (the events of the grid step in which the last did still run),
    /// the stop time, a stall, a lasting deadlock or an interrupt; returns
    /// how it ended, the events run and their kinds. `PROJECT`: count each
    /// event for the projected parallel runs (a second copy of the loop, so
    /// that a run without them pays nothing).
    #[inline(always)]
    fn turn<const PROJECT: bool>(
        &mut self,
        progress: &mut Option<&mut dyn FnMut(&Progress)>,
        wall: std::time::Instant,
    ) -> (RunStatus, u64, EventCounts) {
        let mut status = RunStatus::Completed;
        let mut next_report: u64 = 1 << 20;
        let mut events: u64 = 0;
        let mut by_kind = EventCounts::default();
        loop {
            let Some((t, ev)) = self.events.pop() else {
                if self.ctl.finished < self.ctl.total {
                    // nothing left to happen, yet flows remain
                    status = self.stuck(self.now);
                }
                break;
            };
            if t >= self.ctl.end && self.ctl.finished >= self.ctl.total {
                self.events.unpop();
                break;
            }
            if let Some(s) = self.ctl.stop_at {
                if t > s {
                    status = RunStatus::Stopped;
                    self.now = s;
                    // kept for the checks, which play out what is in flight
                    self.events.unpop();
                    break;
                }
            }
            if t >= self.ctl.next_grid {
                if let Some(s) = self.on_grid(t) {
                    status = s;
                    self.events.unpop();
                    break;
                }
            }
            debug_assert!(t >= self.now);
            self.now = t;
            self.prefetch(self.events.next_hint());
            if !self.dispatch(t, ev) {
                continue;
            }
            if PROJECT {
                self.project(t, &ev);
            }
            events += 1;
            *by_kind.count(&ev) += 1;
            if events & 4095 == 0 && self.ctl.interrupt.is_set() {
                status = RunStatus::Interrupted { at: self.now };
                break;
            }
            if events >= next_report {
                next_report += 1 << 20;
                if let Some(cb) = progress.as_deref_mut() {
                    cb(&Progress {
                        now: self.now,
                        events,
                        flows_done: self.ctl.finished,
                        flows_total: self.ctl.total,
                        wall_secs: wall.elapsed().as_secs_f64(),
                    });
                }
            }
        }
        (status, events, by_kind)
    }

    /// Runs this part's events before `until` (a step of a parallel run,
    /// `parallel.rs`), counting them into `by_kind`; returns how many ran.
    pub(crate) fn run_window(&mut self, until: Time, by_kind: &mut EventCounts) -> u64 {
        let mut events = 0;
        while let Some((t, ev)) = self.events.pop_before(until) {
            self.now = t;
            self.prefetch(self.events.next_hint());
            if self.dispatch(t, ev) {
                events += 1;
                *by_kind.count(&ev) += 1;
            }
            if !matches!(ev, Ev::Sample) {
                self.ctl.last_event = t;
            }
        }
        events
    }

    /// Handles event `ev` at `t`; false for an arrival that no longer
    /// happens (its link changed while the packet was on it), which is not
    /// counted.
    #[inline(always)]
    fn dispatch(&mut self, t: Time, ev: Ev) -> bool {
        match ev {
            Ev::Arrive { port, gen, pkt, .. } => return self.arrival(port, gen, pkt),
            Ev::TxDone { port } => {
                self.ports[port as usize].tx_pending = false;
                self.try_send(port);
            }
            Ev::HostWake { host } => {
                // (a wake superseded by an earlier one does nothing: that
                // one re-armed the NIC)
                let h = &mut self.hosts[host as usize];
                if h.wake_at == t {
                    h.wake_at = Time::MAX;
                    let p = h.port;
                    self.try_send(p);
                }
            }
            Ev::FlowStart { flow } => self.flow_start(flow),
            Ev::MsgRelease { msg } => self.msg_release(msg),
            Ev::Timer { flow, slot, gen } => {
                if self.flows[flow as usize].snd.timer_gen[slot as usize] == gen && !self.flows[flow as usize].snd.done
                {
                    self.cc_call(flow, CcOp::Timer(slot as usize));
                    self.kick_sender(flow);
                }
            }
            Ev::Rto { flow } => self.rto_check(flow),
            Ev::Probe { flow } => self.sleek_timer(flow, t),
            Ev::Sample => self.sample(),
            Ev::Pull { host } => self.credit_pull(host),
            Ev::Link { idx: crate::links::REROUTE } => self.reroute(),
            Ev::Link { idx } => {
                let (_, li, up) = self.link_events[idx as usize];
                self.link_event(li, up);
            }
        }
        true
    }

    /// After the loop: pauses still open are closed at the end, the checks
    /// run (deep buffer accounting; with `check`, the invariants and then
    /// the drain), and the results are collected.
    fn finish(mut self, status: RunStatus, wall: std::time::Instant, cpu0: Option<f64>) -> RunResult {
        self.close_pauses();
        if self.ctl.deep {
            if let Err(e) = self.check_buffer_accounting() {
                panic!("buffer accounting broken at {} ps: {e}", self.now);
            }
        }
        let invariants = if self.ctl.check { self.check_invariants().err() } else { None };
        let wall_secs = wall.elapsed().as_secs_f64();
        let cpu_secs = match (cpu0, thread_cpu_secs()) {
            (Some(a), Some(b)) => b - a,
            _ => wall_secs,
        };
        let in_flight = self.data_in_flight();
        let mut r = self.results(status, wall_secs, in_flight);
        r.engine.cpu_secs = cpu_secs;
        if self.ctl.check {
            r.check = Some(match invariants {
                Some(e) => Err(e),
                // a deadlocked fabric cannot drain: its packets stay, rightly
                None if matches!(r.status, RunStatus::Deadlock { .. }) => Ok(()),
                None => self.drain_and_check(),
            });
            r.engine.packets_live = self.pool.live();
        }
        r
    }

    /// The first event of a new grid step, at `t`: before it runs, a stall
    /// (flows remain and no data moved for `stall` before the step) or a
    /// lasting deadlock ends the run. Checked once a step rather than at
    /// every event, so that a run cut into parts, whose parts meet at the
    /// steps, ends after the same events.
    #[cold]
    fn on_grid(&mut self, t: Time) -> Option<RunStatus> {
        let step = t - t % self.ctl.grid;
        self.ctl.next_grid = step.saturating_add(self.ctl.grid);
        if self.ctl.started > self.ctl.finished && step > self.ctl.last_progress + self.ctl.stall {
            self.now = self.now.max(self.ctl.last_progress + self.ctl.stall);
            return Some(self.stuck(self.now));
        }
        if step >= self.ctl.cycle_check {
            return self.lasting_deadlock();
        }
        None
    }

    /// Pauses still open at the end are closed at `now`.
    fn close_pauses(&mut self) {
        let now = self.now;
        for (i, p) in self.ports.iter_mut().enumerate() {
            for c in 0..NC {
                if p.paused & (1 << c) != 0 {
                    p.paused_time += now - p.cls[c].paused_since;
                    self.pause_log.push((i as u32, p.cls[c].paused_since, now));
                }
            }
        }
    }

    /// The end of a parallel run, on its parts merged into this one
    /// (`parallel.rs`): the packets in flight and the pool's peak and live
    /// packets are the parts' sums, given, since the merged queues name
    /// packets of the parts' pools; the CPU time is the process's since
    /// `cpu0` (every thread).
    pub(crate) fn finish_merged(
        mut self,
        status: RunStatus,
        wall: std::time::Instant,
        in_flight: u64,
        pool: (u64, u64),
        cpu0: Option<f64>,
    ) -> RunResult {
        self.close_pauses();
        let wall_secs = wall.elapsed().as_secs_f64();
        let mut r = self.results(status, wall_secs, in_flight);
        (r.engine.peak_packets_in_pool, r.engine.packets_live) = (pool.0 as _, pool.1 as _);
        if let (Some(a), Some(b)) = (cpu0, process_cpu_secs()) {
            r.engine.cpu_secs = b - a;
        }
        r
    }

    /// Flows remain and nothing moves: a PFC deadlock if paused ports form a
    /// cycle, else a stall.
    fn stuck(&self, at: Time) -> RunStatus {
        match self.pfc_cycle() {
            Some(cycle) => self.deadlock(at, cycle),
            None => RunStatus::Stalled { at, since: self.ctl.last_progress },
        }
    }

    /// A deadlock found at `at`: the cycle, closed by the last of its PAUSEs.
    fn deadlock(&self, at: Time, cycle: Vec<(u32, u8)>) -> RunStatus {
        let since = cycle.iter().map(|&(p, c)| self.ports[p as usize].cls[c as usize].paused_since).max();
        RunStatus::Deadlock {
            at,
            since: since.unwrap_or(self.ctl.last_progress),
            cycle: cycle
                .into_iter()
                // the flows' priority, as scenarios name it (class = prio + 1)
                .map(|(p, c)| (PortRef { node: self.ports[p as usize].node, peer: self.ports[p as usize].peer }, c - 1))
                .collect(),
        }
    }

    /// Every `stall / 2` of simulated time: a cycle of paused ports, each
    /// paused for `stall` without a break, is a deadlock even while other
    /// traffic (a lossy class, flows elsewhere) keeps delivering data and so
    /// keeps the stall check from firing. Ends the run at the check's time.
    fn lasting_deadlock(&mut self) -> Option<RunStatus> {
        let lossless = self.mode.lossless != 0;
        let (now, stall, mut check) = (self.now, self.ctl.stall, self.ctl.cycle_check);
        let at = pause_outlasts(&mut check, stall, now, lossless, || self.oldest_pause());
        self.ctl.cycle_check = check;
        let at = at?;
        let cycle = self.pfc_cycle()?;
        let closed = cycle.iter().map(|&(p, c)| self.ports[p as usize].cls[c as usize].paused_since).max()?;
        if at.saturating_sub(closed) < self.ctl.stall {
            // a younger cycle: look again when it is `stall` old
            self.ctl.cycle_check = self.ctl.cycle_check.min(closed + self.ctl.stall);
            return None;
        }
        self.now = at;
        Some(self.deadlock(at, cycle))
    }

    /// When the oldest PFC pause still on (of any lossless class) began.
    pub(crate) fn oldest_pause(&self) -> Option<Time> {
        self.ports
            .iter()
            .flat_map(|p| (1..NC).filter(move |&c| p.paused & (1 << c) != 0).map(move |c| p.cls[c].paused_since))
            .min()
    }

    /// The run's results (the traces are moved out; the rest stays for the checks).
    fn results(&mut self, status: RunStatus, wall_secs: f64, in_flight: u64) -> RunResult {
        let truncated = status != RunStatus::Completed;
        let mut counters: std::collections::BTreeMap<String, u64> = Default::default();
        for cc in self.switches.iter().filter_map(|s| s.cc.as_ref()) {
            for (name, v) in cc.counters() {
                *counters.entry(name.to_string()).or_default() += v;
            }
        }
        if self.credit.is_some() {
            for (name, v) in ["credit_pulls", "credit_rts", "credit_bytes"].iter().zip(self.count.credit_counts) {
                counters.insert(name.to_string(), v);
            }
        }
        let mut flows = self.flow_results();
        let (messages, conns, tasks, waiting) = self.message_results();
        flows.extend(messages);
        let ports = self.port_results();
        let (queues, utilization, flow_traces, traces_streamed, trace_error) = match self.tracer.take() {
            Some(mut t) => {
                let streamed = t.streamed();
                let e = t.finish();
                (t.queues, t.utilization, t.flow_traces, streamed, e)
            }
            None => (vec![], vec![], vec![], false, None),
        };
        RunResult {
            scheme: self.scheme_name.clone(),
            flows,
            conns,
            tasks,
            messages_waiting: waiting,
            ports,
            queues,
            utilization,
            flow_traces,
            engine: EngineStats {
                events: self.count.events_run,
                by_kind: self.count.events_by_kind,
                data_packets: self.count.data_packets,
                link_packets: self.count.link_packets,
                sim_end: self.now,
                wall_secs,
                cpu_secs: wall_secs,
                peak_packets_in_pool: self.pool.peak(),
                packets_live: self.pool.live(),
                data_bytes_delivered: self.count.data_bytes_delivered,
                data_bytes_dropped: self.count.data_bytes_dropped,
                data_bytes_trimmed: self.count.data_bytes_trimmed,
                data_bytes_in_flight: in_flight,
                link_events: self.link_events_run,
            },
            drops: self.count.drops,
            trimmed: self.count.trimmed,
            pause_frames: self.count.pause_frames,
            retransmits: self.flows.iter().map(|f| f.snd.losses.retransmits).sum(),
            timeouts: self.flows.iter().map(|f| f.snd.losses.timeouts).sum(),
            truncated,
            status,
            traces_streamed,
            trace_error,
            check: None,
            scheme_counters: counters.into_iter().collect(),
            hol_pkts: self.flows.iter().map(|f| f.snd.hol_pkts).collect(),
            rtt: self.rtt_hist.take(),
            parallel: std::mem::take(&mut self.projection).into_iter().map(|c| c.finish()).collect(),
            notes: std::mem::take(&mut self.notes),
        }
    }

    /// Counts event `ev` at `t` for the projected parallel runs (only the
    /// `turn::<true>` copy of the loop calls it).
    fn project(&mut self, t: Time, ev: &Ev) {
        let msgs = &self.msgs;
        let owner = Owner::of(ev, |m| Some(msgs[m as usize].flow).filter(|&f| f != crate::transport::TASK));
        for c in &mut self.projection {
            c.note(t, &owner);
        }
    }

    /// One row per flow (the messages' rows follow from `msg.rs`).
    fn flow_results(&self) -> Vec<FlowResult> {
        self.flows[..self.n_plain as usize]
            .iter()
            .map(|f| FlowResult {
                id: f.view.id,
                src: f.view.src,
                dst: f.view.dst,
                size: f.view.size,
                start: f.view.start,
                fct: f.snd.fct,
                ideal_fct: f.ideal_fct,
                slowdown: f.snd.fct.map(|x| (x as f64 / f.ideal_fct as f64).max(1.0)),
                retransmits: f.snd.losses.retransmits,
                timeouts: f.snd.losses.timeouts,
                trimmed: f.snd.losses.trimmed,
                drops: f.snd.losses.drops,
                conn: None,
                tag: None,
            })
            .collect()
    }

    /// One row per egress port.
    fn port_results(&self) -> Vec<PortResult> {
        let mut intervals: Vec<Vec<(Time, Time)>> = vec![Vec::new(); self.ports.len()];
        for &(p, start, end) in &self.pause_log {
            intervals[p as usize].push((start, end));
        }
        self.ports
            .iter()
            .zip(&self.stats)
            .zip(intervals)
            .map(|((p, s), paused_intervals)| PortResult {
                port: PortRef { node: p.node, peer: p.peer },
                rate_bps: p.rate,
                tx_bytes: s.tx_bytes,
                tx_data_bytes: p.tx_data_bytes,
                pause_sent: p.pause_sent,
                paused_time: p.paused_time,
                paused_intervals,
                drops: p.drops,
                ecn_marked: p.ecn_marked,
                trimmed: p.trimmed,
                max_qlen: p.max_qlen,
            })
            .collect()
    }

    fn sample(&mut self) {
        let now = self.now;
        let Some(t) = self.tracer.as_mut() else { return };
        let qlen: Vec<f64> = t.queue_ports.iter().map(|&p| self.stats[p as usize].qlen as f64).collect();
        let mut util = Vec::with_capacity(t.util_ports.len());
        for (i, &p) in t.util_ports.iter().enumerate() {
            let tx = self.stats[p as usize].tx_bytes;
            let cap = self.ports[p as usize].rate as f64 / 8.0 * (t.interval as f64 / 1e12);
            util.push((tx - t.util_last[i]) as f64 / cap);
            t.util_last[i] = tx;
        }
        let flows: Vec<FlowSample> = t
            .flows
            .iter()
            .map(|&f| {
                let fl = &self.flows[f as usize];
                let active = now >= fl.view.start && !fl.snd.done;
                FlowSample {
                    rate: if active { fl.snd.rate as f64 } else { 0.0 },
                    window: fl.snd.window as f64,
                    acked: fl.snd.una as f64,
                    probe: fl.cc.probe(),
                }
            })
            .collect();
        let next = now + t.interval;
        if let Some(log) = t.part.as_mut() {
            // a part of a parallel run: the run's tracer takes the sample at
            // the barrier; a part cannot tell when the run's flows are all
            // done, so it samples on, and the barrier keeps the samples one
            // thread would have taken (`parallel.rs`)
            let finished = self.ctl.finished;
            log.samples.push(crate::trace::PartSample { time: now, finished, qlen, util, flows });
            self.events.push(next, Ev::Sample);
            return;
        }
        t.sample(now, &qlen, &util, &flows);
        if self.ctl.finished < self.ctl.total {
            self.events.push(next, Ev::Sample);
        }
    }

    /// Packet `pkt`, the head of `port`'s wire, arrives at the other end;
    /// false (and nothing happens) when the event is stale: the link failed
    /// after it was scheduled and its packets are gone.
    pub(crate) fn arrival(&mut self, port: u32, gen: u16, pkt: u32) -> bool {
        let p = &mut self.ports[port as usize];
        if gen != p.wire_gen {
            return false;
        }
        let h = p.wire.pop(&self.pool).expect("an Arrive event of the current generation has its packet on the wire");
        debug_assert_eq!(h, pkt, "packets leave a wire in the order they entered it");
        let (next, to) = (p.wire.head, p.peer_port);
        if next != u32::MAX {
            // the next packet's arrival
            let at = self.pool.get(h).wire_next_at;
            self.events.push(at, Ev::Arrive { port, to, gen, pkt: next });
        }
        self.arrive(to, h);
        true
    }

    /// Asks the CPU to load what an event will touch first ([`Ev::touches`]):
    /// its ports' first two lines and its packet's first line (and the lines
    /// of INT records a switch appends to or a sender reads, with INT on), so
    /// that those loads overlap the current event: the loop's cost is memory
    /// latency, not instructions.
    #[inline(always)]
    fn prefetch(&self, Touch { port, to, pkt }: Touch) {
        for port in [port, to] {
            if port != u32::MAX {
                let p = self.ports.as_ptr().wrapping_add(port as usize);
                prefetch(p);
                prefetch(p.cast::<u8>().wrapping_add(64));
            }
        }
        if pkt != u32::MAX {
            let p = self.pool.slot_ptr(pkt).cast::<u8>();
            prefetch(p);
            if self.mode.int_on || self.mode.int_on_acks {
                for line in 1..4 {
                    prefetch(p.wrapping_add(64 * line));
                }
            }
        }
    }

    /// Dispatch of a packet arriving at the node owning `port`.
    fn arrive(&mut self, port: u32, h: u32) {
        if self.ports[port as usize].is_host {
            self.host_arrive(port, h);
        } else {
            self.switch_arrive(port, h);
        }
    }

    /// Starts transmitting on `port` if it is idle and has something to send,
    /// or makes sure a `TxDone` will look again when it becomes idle.
    pub(crate) fn try_send(&mut self, port: u32) {
        let p = &mut self.ports[port as usize];
        if p.down {
            return;
        }
        if p.busy_until > self.now {
            if p.is_host {
                let t = p.busy_until;
                self.host_arm(port, t);
            } else if !p.tx_pending {
                p.tx_pending = true;
                let t = p.busy_until;
                self.events.push(t, Ev::TxDone { port });
            }
            return;
        }
        // a packet sent now is linked behind the wire's last one: load that
        // while the packet is chosen
        prefetch(self.pool.slot_ptr(p.wire.tail));
        if p.is_host {
            self.host_send(port);
        } else {
            self.switch_send(port);
        }
    }

    /// Puts packet `h` on the wire of `port` now; `more` = the port has more
    /// queued, so a `TxDone` is scheduled for the end of this transmission.
    /// Returns that end.
    pub(crate) fn transmit(&mut self, port: u32, h: u32, more: bool) -> Time {
        let now = self.now;
        let pkt = self.pool.get(h);
        let size = pkt.size as u64;
        let payload = pkt.payload as u64;
        // PFC frames are consumed by the peer's MAC, not its forwarding pipeline
        let pipeline = if pkt.kind.is_pfc() { 0 } else { self.net.switch_delay.0 };
        let end = now + self.wire_time(size, self.ports[port as usize].rate);
        let parts = self.mode.cut;
        let p = &mut self.ports[port as usize];
        p.tx_data_bytes += payload;
        p.busy_until = end;
        let arrive = end + p.delay + if p.peer_is_switch { pipeline } else { 0 };
        // At most one TxDone per port is ever pending: if one is (due now, not yet
        // popped), it will find the port busy and re-arm itself for `end`.
        if more && !p.tx_pending {
            p.tx_pending = true;
            self.events.push(end, Ev::TxDone { port });
        }
        self.stats[port as usize].tx_bytes += size;
        self.count.link_packets += 1;
        // Only a wire's first packet has an event: behind another, the
        // packet's arrival is scheduled by that one's (`arrival`), when it
        // arrives.
        let (gen, to) = (p.wire_gen, p.peer_port);
        if parts && p.cut != 0 {
            // the packets go to another part: this wire stays empty here;
            // the arrival is scheduled as if it were not (when the packet
            // ahead arrives if that is still on its way, else now), so that
            // its place among simultaneous events is the same as on one
            // thread
            let t0 = p.last_arrival.max(now);
            p.last_arrival = arrive;
            let cut = p.cut;
            self.hand_over(port, cut, h, arrive, t0);
        } else if p.wire.push_on_wire(h, arrive, &mut self.pool) {
            self.events.push(arrive, Ev::Arrive { port, to, gen, pkt: h });
        }
        end
    }

    /// Time to serialize `bytes` at `rate_bps` (also a pacing gap):
    /// [`ser_time`], or truncated to `network.time_quantum` as ns-3 does.
    #[inline]
    pub(crate) fn wire_time(&self, bytes: u64, rate_bps: u64) -> Time {
        if self.mode.quantum == 0 {
            ser_time(bytes, rate_bps)
        } else {
            let exact = crate::time::ser_time_floor(bytes, rate_bps);
            exact - exact % self.mode.quantum
        }
    }

    /// Wire bytes of the INT an ACK (or NACK) of flow data `data` carries when it
    /// leaves the receiver: the echo of the data's records, or the empty
    /// header that switches fill on the way back (FNCC).
    #[inline]
    pub(crate) fn ack_int_bytes(&self, data: &Packet) -> u32 {
        if !(self.mode.int_on || self.mode.int_on_acks) {
            return 0;
        }
        self.mode.int_fixed + self.mode.int_hop * data.n_int as u32
    }

    pub(crate) fn ecn_enabled(&self) -> bool {
        self.net.ecn.mode != EcnMode::Off
    }
}

/// The first look of [`Simulator::lasting_deadlock`] at `now` (also made by
/// a parallel run's barrier on its parts, `parallel.rs`): moves
/// `cycle_check` on by half the stall limit, or to when the oldest pause
/// (`oldest`, read only on a lossless fabric) will be `stall` old if that is
/// sooner; the time of the look when a pause has lasted `stall` already.
pub(crate) fn pause_outlasts(
    cycle_check: &mut Time,
    stall: Time,
    now: Time,
    lossless: bool,
    oldest: impl FnOnce() -> Option<Time>,
) -> Option<Time> {
    let at = (*cycle_check).max(now);
    *cycle_check = at.saturating_add((stall / 2).max(1));
    if !lossless {
        return None;
    }
    let oldest = oldest()?;
    if at.saturating_sub(oldest) < stall {
        *cycle_check = (*cycle_check).min(oldest + stall);
        return None;
    }
    Some(at)
}

/// CPU time used by this thread so far (user + system), from
/// /proc/thread-self/stat in clock ticks of 1/100 s (Linux); None elsewhere.
fn thread_cpu_secs() -> Option<f64> {
    cpu_secs_of("/proc/thread-self/stat")
}

/// CPU time used by the whole process so far (every thread), as
/// [`thread_cpu_secs`]: a parallel run's CPU time.
pub(crate) fn process_cpu_secs() -> Option<f64> {
    cpu_secs_of("/proc/self/stat")
}

fn cpu_secs_of(path: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(path).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // after the command name: state is field 3 of the file, utime 14, stime 15
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// Builds and runs in one call.
pub fn run(
    topo: &Topology,
    net: &NetConfig,
    flows: &[FlowSpec],
    scheme: &dyn Scheme,
    opts: &SimOptions,
    progress: Option<&mut dyn FnMut(&Progress)>,
) -> Result<RunResult, String> {
    Ok(Simulator::new(topo, net, flows, scheme, opts)?.run(progress))
}
