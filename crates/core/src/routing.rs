//! Shortest-path routing tables: for every (switch, destination host) the
//! set of egress ports on a shortest path (the ECMP group), in the switch's
//! port order. Paths never transit a host.
//!
//! Every host has exactly one link, to its edge switch (`Topology::validate`),
//! so a destination is reached through its edge switch and the tables are
//! kept per (switch, edge switch): one breadth-first search over the switch
//! graph per edge switch, `switches x edge switches` groups, and at the edge
//! switch itself the port to the host. Identical port sets of a switch are
//! stored once.

use crate::topology::{NodeKind, Topology};
use std::collections::HashMap;

/// Most (switch, edge switch) groups a routing table may hold (8 bytes each).
pub const MAX_GROUPS: u64 = 100_000_000;
/// Most breadth-first-search steps (edge switches x switch-to-switch link
/// ends) the tables may take to build: about 3 ns a step, so 10 s at most.
/// A k = 64 fat tree takes 0.5 G.
pub const MAX_BFS_WORK: u64 = 3_000_000_000;

/// A destination host: its edge switch and that switch's port to it
/// (u32::MAX while its link is down), and the edge switch's column in
/// `groups` (u32::MAX when it has none).
#[derive(Clone, Copy)]
struct Dest {
    edge: u32,
    port: u32,
    col: u32,
}

impl Dest {
    const NONE: Dest = Dest { edge: u32::MAX, port: u32::MAX, col: u32::MAX };
}

pub(crate) struct Routing {
    /// Per node: index of its row in `groups` (switches only; u32::MAX for hosts).
    row: Vec<u32>,
    /// Per node id (hosts; switches hold `Dest::NONE`): what a lookup
    /// towards it needs, in one place (one cache line per lookup).
    dest: Vec<Dest>,
    /// Columns per row: the edge switches.
    n_cols: usize,
    /// groups[row * n_cols + column] = (start, len) into `ports`.
    groups: Vec<(u32, u32)>,
    /// Global port ids.
    ports: Vec<u32>,
}

impl Routing {
    /// Refuses a topology whose tables would be too large to hold or build.
    pub fn check_size(topo: &Topology) -> Result<(), String> {
        let switches = topo.switches().len() as u64;
        let mut edges = std::collections::HashSet::new();
        for l in &topo.links {
            if topo.is_host(l.a) {
                edges.insert(l.b);
            } else if topo.is_host(l.b) {
                edges.insert(l.a);
            }
        }
        let fabric_ends = 2 * topo.links.iter().filter(|l| !topo.is_host(l.a) && !topo.is_host(l.b)).count() as u64;
        let work = fabric_ends * edges.len() as u64;
        if work > MAX_BFS_WORK {
            return Err(format!(
                "topology '{}': routing {} edge switches over {fabric_ends} switch-to-switch link ends is {work} steps, \
                 minutes of work; at most {MAX_BFS_WORK} are supported",
                topo.name,
                edges.len()
            ));
        }
        let groups = switches * edges.len() as u64;
        if groups > MAX_GROUPS {
            return Err(format!(
                "topology '{}': {switches} switches with {} edge switches need {groups} routing entries; at most {MAX_GROUPS} are supported",
                topo.name,
                edges.len()
            ));
        }
        Ok(())
    }

    /// `node_ports[n]` = list of (global port id, peer node) of node `n`,
    /// the links that are up.
    pub fn build(topo: &Topology, node_ports: &[Vec<(u32, u32)>]) -> Routing {
        let n = topo.nodes.len();
        let is_switch = |x: u32| topo.nodes[x as usize] == NodeKind::Switch;
        let mut host_index = vec![u32::MAX; n];
        let mut row = vec![u32::MAX; n];
        let (mut nh, mut ns) = (0u32, 0u32);
        for x in 0..n as u32 {
            if is_switch(x) {
                row[x as usize] = ns;
                ns += 1;
            } else {
                host_index[x as usize] = nh;
                nh += 1;
            }
        }
        // each host's edge switch and the port to it, over the links that are up
        let mut last_hop = vec![(u32::MAX, u32::MAX); nh as usize];
        let mut edge_col = vec![u32::MAX; n];
        let mut edges = Vec::new();
        for s in 0..n as u32 {
            if !is_switch(s) {
                continue;
            }
            for &(p, peer) in &node_ports[s as usize] {
                if !is_switch(peer) {
                    last_hop[host_index[peer as usize] as usize] = (s, p);
                    if edge_col[s as usize] == u32::MAX {
                        edge_col[s as usize] = edges.len() as u32;
                        edges.push(s);
                    }
                }
            }
        }
        let column: Vec<u32> =
            last_hop.iter().map(|&(s, _)| if s == u32::MAX { u32::MAX } else { edge_col[s as usize] }).collect();
        let n_cols = edges.len();
        let mut groups = vec![(0u32, 0u32); ns as usize * n_cols];
        let mut ports = Vec::new();
        // per switch: its distinct port sets, stored once
        let mut interned: Vec<HashMap<Vec<u32>, u32>> = vec![HashMap::new(); ns as usize];
        let mut dist = vec![u32::MAX; n];
        let mut queue = std::collections::VecDeque::new();
        let mut set = Vec::new();
        for (col, &e) in edges.iter().enumerate() {
            // hops between switches from every switch to edge switch e
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[e as usize] = 0;
            queue.clear();
            queue.push_back(e);
            while let Some(x) = queue.pop_front() {
                let d = dist[x as usize];
                for &(_, y) in &node_ports[x as usize] {
                    if is_switch(y) && dist[y as usize] == u32::MAX {
                        dist[y as usize] = d + 1;
                        queue.push_back(y);
                    }
                }
            }
            for s in 0..n as u32 {
                let d = dist[s as usize];
                if !is_switch(s) || d == u32::MAX || d == 0 {
                    continue;
                }
                set.clear();
                set.extend(
                    node_ports[s as usize]
                        .iter()
                        .filter(|&&(_, q)| is_switch(q) && dist[q as usize].wrapping_add(1) == d)
                        .map(|&(p, _)| p),
                );
                let r = row[s as usize] as usize;
                let start = *interned[r].entry(set.clone()).or_insert_with(|| {
                    let at = ports.len() as u32;
                    ports.extend_from_slice(&set);
                    at
                });
                groups[r * n_cols + col] = (start, set.len() as u32);
            }
        }
        let mut dest = vec![Dest::NONE; n];
        for (x, &h) in host_index.iter().enumerate() {
            if h != u32::MAX {
                let (edge, port) = last_hop[h as usize];
                dest[x] = Dest { edge, port, col: column[h as usize] };
            }
        }
        Routing { row, dest, n_cols, groups, ports }
    }

    /// ECMP group at switch `sw` towards host `dst` (empty: unreachable).
    #[inline(always)]
    pub fn group(&self, sw: u32, dst: u32) -> &[u32] {
        let d = &self.dest[dst as usize];
        if d.edge == sw {
            return std::slice::from_ref(&d.port);
        }
        if d.col == u32::MAX {
            return &[];
        }
        let r = self.row[sw as usize] as usize;
        let (s, l) = self.groups[r * self.n_cols + d.col as usize];
        &self.ports[s as usize..(s + l) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::topology::{LinkSpec as Link, Topology};

    /// The definition, computed the slow way: a breadth-first search from
    /// every host over the whole graph, never through another host; a port
    /// is in the group when its peer is one hop closer to the destination.
    fn reference(topo: &Topology, node_ports: &[Vec<(u32, u32)>], sw: u32, dst: u32) -> Vec<u32> {
        let n = topo.nodes.len();
        let mut dist = vec![u32::MAX; n];
        dist[dst as usize] = 0;
        let mut q = std::collections::VecDeque::from([dst]);
        while let Some(x) = q.pop_front() {
            if x != dst && topo.is_host(x) {
                continue;
            }
            for &(_, y) in &node_ports[x as usize] {
                if dist[y as usize] == u32::MAX {
                    dist[y as usize] = dist[x as usize] + 1;
                    q.push_back(y);
                }
            }
        }
        let d = dist[sw as usize];
        if d == u32::MAX {
            return vec![];
        }
        node_ports[sw as usize]
            .iter()
            .filter(|&&(_, q)| (!topo.is_host(q) || q == dst) && dist[q as usize].wrapping_add(1) == d)
            .map(|&(p, _)| p)
            .collect()
    }

    fn ports_of(topo: &Topology) -> Vec<Vec<(u32, u32)>> {
        let mut v = vec![Vec::new(); topo.nodes.len()];
        let mut next = 0;
        for l in &topo.links {
            v[l.a as usize].push((next, l.b));
            v[l.b as usize].push((next + 1, l.a));
            next += 2;
        }
        v
    }

    /// `hosts` hosts on `tors` edge switches, and `core` more switches,
    /// wired at random (connected: a random tree first).
    fn random_topology(rng: &mut Rng, hosts: u32, tors: u32, core: u32, extra: u32) -> Topology {
        let sw = tors + core;
        let mut nodes = vec![NodeKind::Host; hosts as usize];
        nodes.extend(std::iter::repeat_n(NodeKind::Switch, sw as usize));
        let link = |a: u32, b: u32| Link { a, b, rate_bps: 100_000_000_000, delay: 1_000_000 };
        let mut links = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for h in 0..hosts {
            links.push(link(h, hosts + rng.below(tors as u64) as u32));
        }
        for i in 1..sw {
            let j = rng.below(i as u64) as u32;
            seen.insert((j, i));
            links.push(link(hosts + j, hosts + i));
        }
        for _ in 0..extra {
            let (a, b) = (rng.below(sw as u64) as u32, rng.below(sw as u64) as u32);
            if a != b && seen.insert((a.min(b), a.max(b))) {
                links.push(link(hosts + a, hosts + b));
            }
        }
        Topology { name: "random".into(), nodes, links }
    }

    #[test]
    fn tables_match_the_definition_on_random_graphs_with_links_down() {
        let mut rng = Rng::new(7);
        for case in 0..60 {
            let topo = random_topology(&mut rng, 2 + case % 13, 1 + case % 5, case % 7, case % 11);
            let mut np = ports_of(&topo);
            if case % 3 == 0 {
                // some links down, both directions (host links too)
                for v in np.iter_mut() {
                    v.retain(|&(p, _)| (p / 2) % 5 != 1);
                }
            }
            let r = Routing::build(&topo, &np);
            for sw in topo.switches() {
                for dst in topo.hosts() {
                    assert_eq!(
                        r.group(sw, dst),
                        reference(&topo, &np, sw, dst).as_slice(),
                        "case {case}: {sw} -> {dst}"
                    );
                }
            }
        }
    }

    #[test]
    fn oversized_tables_are_refused() {
        // 20,000 switches in a line, each with a host: 4e8 entries
        let n = 20_000u32;
        let mut nodes = vec![NodeKind::Host; n as usize];
        nodes.extend(std::iter::repeat_n(NodeKind::Switch, n as usize));
        let mut links: Vec<Link> = (0..n).map(|h| Link { a: h, b: n + h, rate_bps: 1, delay: 1 }).collect();
        links.extend((1..n).map(|i| Link { a: n + i - 1, b: n + i, rate_bps: 1, delay: 1 }));
        let topo = Topology { name: "line".into(), nodes, links };
        let e = Routing::check_size(&topo).unwrap_err();
        assert!(e.contains("20000 switches") && e.contains("400000000 routing entries"), "{e}");
    }
}
