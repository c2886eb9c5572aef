//! The static description of a fabric: nodes (hosts and switches) and
//! full-duplex links with a rate and a propagation delay. Builders and file
//! importers (in `ccsim-workload`) produce this; the simulator consumes it.

use crate::config::{LinkAction, LinkEvent};
use crate::time::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

/// One full-duplex link between nodes `a` and `b` (node ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkSpec {
    pub a: u32,
    pub b: u32,
    /// Bits per second from `a` to `b` (and from `b` to `a` unless `back` says otherwise).
    pub rate_bps: u64,
    /// One-way propagation delay from `a` to `b` (and back unless `back` says otherwise).
    pub delay: Time,
    /// The direction from `b` to `a`, when it differs (a degraded direction:
    /// uet-htsim's `-failed` slows the core-to-aggregation direction only,
    /// htsim/sim/datacenter/fat_tree_topology.cpp `alloc_queue`). None: as
    /// from `a` to `b`.
    pub back: Option<Direction>,
}

/// One direction of a link: its rate and propagation delay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Direction {
    pub rate_bps: u64,
    pub delay: Time,
}

impl LinkSpec {
    /// The direction that leaves node `from` (one of the link's ends).
    pub fn from(&self, from: u32) -> Direction {
        match self.back {
            Some(d) if from == self.b => d,
            _ => Direction { rate_bps: self.rate_bps, delay: self.delay },
        }
    }

    /// The rate leaving node `from` (one of the link's ends).
    pub fn rate_from(&self, from: u32) -> u64 {
        self.from(from).rate_bps
    }

    /// The shorter of the two directions' delays (a conservative parallel
    /// run's window is the shortest delay of a cut link).
    pub fn min_delay(&self) -> Time {
        self.back.map_or(self.delay, |d| d.delay.min(self.delay))
    }

    /// Sets the direction leaving node `from` (one of the link's ends),
    /// keeping the other as it was.
    pub fn set_from(&mut self, from: u32, d: Direction) {
        let other = self.from(if from == self.a { self.b } else { self.a });
        let (ab, ba) = if from == self.a { (d, other) } else { (other, d) };
        (self.rate_bps, self.delay) = (ab.rate_bps, ab.delay);
        self.back = (ba != ab).then_some(ba);
    }
}

/// Nodes are numbered 0..nodes.len(); flows name hosts by node id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Topology {
    pub nodes: Vec<NodeKind>,
    pub links: Vec<LinkSpec>,
    /// Human-readable description ("fat tree k=4", file name, ...).
    pub name: String,
}

/// Slowest link rate (bps): the lowest pacing rate a sender may be held to,
/// so every scheme's rate range [minimum, line rate] is non-empty.
pub const MIN_LINK_RATE: u64 = 1_000;

/// Most ports (links) one node may have: port numbers within a node are 16
/// bits wide, far above the radix of any switch ASIC (512 ports of 100G at
/// most today).
pub const MAX_PORTS_PER_NODE: usize = 1 << 16;

impl Topology {
    /// The host ids as ranges, e.g. "0-15, 20-35".
    pub fn host_ranges(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        let mut run: Option<(usize, usize)> = None;
        for (i, k) in self.nodes.iter().enumerate() {
            match (run, *k == NodeKind::Host) {
                (None, true) => run = Some((i, i)),
                (Some((a, b)), true) if b + 1 == i => run = Some((a, i)),
                (Some((a, b)), host) => {
                    out.push(if a == b { a.to_string() } else { format!("{a}-{b}") });
                    run = host.then_some((i, i));
                }
                (None, false) => {}
            }
        }
        if let Some((a, b)) = run {
            out.push(if a == b { a.to_string() } else { format!("{a}-{b}") });
        }
        if out.is_empty() {
            "none".into()
        } else {
            out.join(", ")
        }
    }

    pub fn hosts(&self) -> Vec<u32> {
        (0..self.nodes.len() as u32).filter(|&i| self.nodes[i as usize] == NodeKind::Host).collect()
    }

    pub fn switches(&self) -> Vec<u32> {
        (0..self.nodes.len() as u32).filter(|&i| self.nodes[i as usize] == NodeKind::Switch).collect()
    }

    pub fn is_host(&self, n: u32) -> bool {
        self.nodes.get(n as usize) == Some(&NodeKind::Host)
    }

    /// Checks the structural rules the simulator relies on: link ends exist and
    /// differ, rates and delays are positive, every host has exactly one link
    /// (to a switch), no node has more than [`MAX_PORTS_PER_NODE`] links, no
    /// duplicate links, and every host can reach every other.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.nodes.len();
        if self.hosts().len() < 2 {
            return Err(format!("topology '{}' has {} hosts; at least 2 are needed", self.name, self.hosts().len()));
        }
        let mut deg = vec![0u32; n];
        let mut seen = std::collections::HashSet::new();
        for (i, l) in self.links.iter().enumerate() {
            if l.a as usize >= n || l.b as usize >= n {
                return Err(format!(
                    "link {i} ({} - {}) names a node that does not exist (node ids are 0 to {})",
                    l.a,
                    l.b,
                    n.saturating_sub(1)
                ));
            }
            if l.a == l.b {
                return Err(format!("link {i} connects node {} to itself", l.a));
            }
            for (from, to) in [(l.a, l.b), (l.b, l.a)] {
                let rate = l.rate_from(from);
                if rate < MIN_LINK_RATE {
                    return Err(format!(
                        "link {i} ({from} -> {to}) has rate {rate} bps; at least {MIN_LINK_RATE} bps (1 Kbps) is supported"
                    ));
                }
            }
            if !seen.insert((l.a.min(l.b), l.a.max(l.b))) {
                return Err(format!("link {i} ({} - {}) duplicates an earlier link", l.a, l.b));
            }
            if self.nodes[l.a as usize] == NodeKind::Host && self.nodes[l.b as usize] == NodeKind::Host {
                return Err(format!("link {i} connects two hosts ({} - {}); hosts attach to switches", l.a, l.b));
            }
            deg[l.a as usize] += 1;
            deg[l.b as usize] += 1;
        }
        if let Some(node) = (0..n).find(|&i| deg[i] as usize > MAX_PORTS_PER_NODE) {
            return Err(format!(
                "node {node} has {} links; at most {MAX_PORTS_PER_NODE} per node are supported",
                deg[node]
            ));
        }
        for h in self.hosts() {
            if deg[h as usize] != 1 {
                return Err(format!(
                    "host {h} has {} links; every host needs exactly one (to its switch)",
                    deg[h as usize]
                ));
            }
        }
        // connectivity
        let mut adj = vec![Vec::new(); n];
        for l in &self.links {
            adj[l.a as usize].push(l.b);
            adj[l.b as usize].push(l.a);
        }
        let hosts = self.hosts();
        let mut vis = vec![false; n];
        let mut st = vec![hosts[0]];
        vis[hosts[0] as usize] = true;
        while let Some(x) = st.pop() {
            for &y in &adj[x as usize] {
                if !vis[y as usize] {
                    vis[y as usize] = true;
                    st.push(y);
                }
            }
        }
        if let Some(h) = hosts.iter().find(|&&h| !vis[h as usize]) {
            return Err(format!("host {h} cannot reach host {}: the topology is not connected", hosts[0]));
        }
        Ok(())
    }

    /// Index of the link between nodes `a` and `b` (either order).
    pub fn link_between(&self, a: u32, b: u32) -> Option<usize> {
        self.links.iter().position(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a))
    }

    /// Checks `network.link_events` against this topology: nodes exist, a link
    /// joins them, no event is after `stop` (when the run has a stop time), and
    /// in time order every `down` finds the link up and every `up` finds it
    /// down. Returns (time, link index, up?) in the order they apply. Errors
    /// name the event by its position in the list.
    pub fn check_link_events(
        &self,
        events: &[LinkEvent],
        stop: Option<Time>,
    ) -> Result<Vec<(Time, usize, bool)>, String> {
        let n = self.nodes.len() as u32;
        let mut out = Vec::with_capacity(events.len());
        for (i, e) in events.iter().enumerate() {
            let name = format!("network.link_events[{i}] (at {}, {} - {})", e.at, e.a, e.b);
            for x in [e.a, e.b] {
                if x >= n {
                    return Err(format!("{name}: node {x} does not exist (node ids are 0 to {})", n.saturating_sub(1)));
                }
            }
            let Some(li) = self.link_between(e.a, e.b) else {
                return Err(format!("{name}: there is no link between node {} and node {}", e.a, e.b));
            };
            if let Some(s) = stop {
                if e.at.0 > s {
                    return Err(format!(
                        "{name}: at = {} is after the run's stop time ({}); it would never happen",
                        e.at,
                        crate::units::Dur(s)
                    ));
                }
            }
            out.push((e.at.0, li, e.action == LinkAction::Up, i));
        }
        // stable by time: ties keep list order
        out.sort_by_key(|x| (x.0, x.3));
        let mut down = vec![false; self.links.len()];
        for &(_, li, up, i) in &out {
            let e = &events[i];
            if up && !down[li] {
                return Err(format!(
                    "network.link_events[{i}] (at {}, {} - {}): action = \"up\" but the link is not down then",
                    e.at, e.a, e.b
                ));
            }
            if !up && down[li] {
                return Err(format!(
                    "network.link_events[{i}] (at {}, {} - {}): action = \"down\" but the link is already down then",
                    e.at, e.a, e.b
                ));
            }
            down[li] = !up;
        }
        Ok(out.into_iter().map(|(t, li, up, _)| (t, li, up)).collect())
    }
}
