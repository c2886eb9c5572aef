//! Counting a sequential run's events as a conservative parallel run would
//! see them (`SimOptions::project_threads`): each event belongs to the part
//! owning the node it happens at ([`crate::partition::plan`]), and time is
//! cut into windows of the plan's length. Per window, the busiest part sets
//! the pace; the others wait at the barrier. Only the running window's
//! counts are kept, so memory does not grow with the run.

use crate::event::Ev;
use crate::partition::Plan;
use crate::results::ParallelProjection;
use crate::time::Time;

/// The counts of one plan.
pub(crate) struct Counting {
    plan: Plan,
    /// Per global port, per flow (its sender's part), per host index: the part.
    port_part: Vec<u16>,
    flow_part: Vec<u16>,
    host_part: Vec<u16>,
    /// The window being counted and its events per part.
    window: u64,
    now: Vec<u64>,
    part_events: Vec<u64>,
    serial: u64,
    barriers: u64,
    critical: u64,
    max_window: u64,
}

/// Where an event happens, as the simulator knows it.
pub(crate) enum Owner {
    Port(u32),
    Flow(u32),
    Host(u32),
    /// Every part (samples, link changes, compute tasks).
    All,
}

impl Owner {
    /// The owner of `ev`; `msg_flow` gives a message's flow (`None` for a
    /// compute task).
    #[inline]
    pub fn of(ev: &Ev, msg_flow: impl Fn(u32) -> Option<u32>) -> Owner {
        match *ev {
            Ev::Arrive { to, .. } => Owner::Port(to),
            Ev::TxDone { port } => Owner::Port(port),
            Ev::HostWake { host } | Ev::Pull { host } => Owner::Host(host),
            Ev::FlowStart { flow } | Ev::Timer { flow, .. } | Ev::Rto { flow } | Ev::Probe { flow } => {
                Owner::Flow(flow)
            }
            Ev::MsgRelease { msg } => msg_flow(msg).map_or(Owner::All, Owner::Flow),
            Ev::Sample | Ev::Link { .. } => Owner::All,
        }
    }
}

impl Counting {
    /// Counts for `plan`, with each port's node, each flow's sender and
    /// each host's node.
    pub fn new(plan: Plan, port_node: &[u32], flow_src: &[u32], host_node: &[u32]) -> Counting {
        let part = |v: &[u32]| v.iter().map(|&n| plan.part_of[n as usize]).collect();
        let parts = plan.parts();
        Counting {
            port_part: part(port_node),
            flow_part: part(flow_src),
            host_part: part(host_node),
            plan,
            window: 0,
            now: vec![0; parts],
            part_events: vec![0; parts],
            serial: 0,
            barriers: 0,
            critical: 0,
            max_window: 0,
        }
    }

    /// Counts one event at `t`.
    #[inline]
    pub fn note(&mut self, t: Time, owner: &Owner) {
        let part = match *owner {
            Owner::Port(p) => self.port_part[p as usize],
            Owner::Flow(f) => self.flow_part[f as usize],
            Owner::Host(h) => self.host_part[h as usize],
            Owner::All => {
                self.serial += 1;
                return;
            }
        };
        let w = if self.plan.window == Time::MAX { 0 } else { t / self.plan.window.max(1) };
        if w != self.window {
            self.close_window();
            self.window = w;
        }
        self.now[part as usize] += 1;
    }

    /// Folds the running window into the totals.
    fn close_window(&mut self) {
        let busiest = self.now.iter().copied().max().unwrap_or(0);
        if busiest == 0 {
            return;
        }
        self.barriers += 1;
        self.critical += busiest;
        self.max_window = self.max_window.max(busiest);
        for (total, n) in self.part_events.iter_mut().zip(self.now.iter_mut()) {
            *total += *n;
            *n = 0;
        }
    }

    /// The projection, once the run has ended.
    pub fn finish(mut self) -> ParallelProjection {
        self.close_window();
        let parts = self.plan.parts();
        let events: u64 = self.part_events.iter().sum();
        let idle = self
            .part_events
            .iter()
            .map(|&e| if self.critical > 0 { 1.0 - e as f64 / self.critical as f64 } else { 0.0 })
            .collect();
        ParallelProjection {
            threads: parts,
            unit: self.plan.unit.to_string(),
            window: self.plan.window,
            cut_links: self.plan.cut_links,
            hosts: self.plan.hosts.clone(),
            barriers: self.barriers,
            part_events: self.part_events,
            serial_events: self.serial,
            critical_events: self.critical,
            mean_window_events: if self.barriers > 0 {
                events as f64 / (self.barriers as f64 * parts as f64)
            } else {
                0.0
            },
            max_window_events: self.max_window,
            idle,
        }
    }
}
