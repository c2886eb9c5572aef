//! The static description of a fabric: nodes (hosts and switches) and
//! full-duplex links with a rate and a propagation delay. Builders and file
//! importers (in `ccsim-workload`) produce this; the simulator consumes it.

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
    /// Bits per second, each direction.
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay: Time,
}

/// Nodes are numbered 0..nodes.len(); flows name hosts by node id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Topology {
    pub nodes: Vec<NodeKind>,
    pub links: Vec<LinkSpec>,
    /// Human-readable description ("fat tree k=4", file name, ...).
    pub name: String,
}

impl Topology {
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
    /// (to a switch), no duplicate links, and every host can reach every other.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.nodes.len();
        if self.hosts().len() < 2 {
            return Err(format!("topology '{}' has {} hosts; at least 2 are needed", self.name, self.hosts().len()));
        }
        let mut deg = vec![0u32; n];
        let mut seen = std::collections::HashSet::new();
        for (i, l) in self.links.iter().enumerate() {
            if l.a as usize >= n || l.b as usize >= n {
                return Err(format!("link {i} ({} - {}) names a node that does not exist (nodes are 0..{})", l.a, l.b, n));
            }
            if l.a == l.b {
                return Err(format!("link {i} connects node {} to itself", l.a));
            }
            if l.rate_bps == 0 {
                return Err(format!("link {i} ({} - {}) has rate 0", l.a, l.b));
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
        for h in self.hosts() {
            if deg[h as usize] != 1 {
                return Err(format!("host {h} has {} links; every host needs exactly one (to its switch)", deg[h as usize]));
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
}
