//! Shortest-path routing tables: for every (switch, destination host) the
//! set of egress ports on a shortest path (the ECMP group), in the switch's
//! port order. Paths never transit a host.
//!
//! Every host has exactly one link, to its edge switch (`Topology::validate`),
//! so a destination is reached through its edge switch and the tables are
//! kept per (switch, edge switch): one breadth-first search over the switch
//! graph per edge switch, and at the edge switch itself the port to the host.
//!
//! Groups are stored as port indexes local to the switch, so that switches
//! wired alike share one row of the table: a fat tree's core switches have
//! one row, its edge switches one, the aggregation switches of a pod one
//! (`Routing::rows`; docs/PERFORMANCE.md has the sizes), where one row per
//! switch made every lookup at scale a cache miss. Each distinct port set is
//! stored once.

use crate::topology::{NodeKind, Topology};
use std::collections::HashMap;

/// Most (switch, edge switch) groups a routing table may hold while it is
/// built (4 bytes each).
pub const MAX_GROUPS: u64 = 100_000_000;
/// Most breadth-first-search steps (edge switches x switch-to-switch link
/// ends) the tables may take to build: about 3 ns a step, so 10 s at most.
/// A k = 64 fat tree takes 0.5 G.
pub const MAX_BFS_WORK: u64 = 3_000_000_000;

/// A destination host: its edge switch (u32::MAX while the host's link is
/// down) and that switch's local port to it, and the edge switch's column in
/// `groups` (u32::MAX when it has none).
#[derive(Clone, Copy)]
struct Dest {
    edge: u32,
    col: u32,
    port: u16,
}

impl Dest {
    const NONE: Dest = Dest { edge: u32::MAX, col: u32::MAX, port: 0 };
}

/// Marks a table cell no lookup reads (an edge switch's own column).
const ANY: u32 = u32::MAX;

pub(crate) struct Routing {
    /// Per node: (its row in `groups`, its first global port id); the row is
    /// u32::MAX for hosts.
    node: Vec<(u32, u32)>,
    /// Per node id (hosts; switches hold `Dest::NONE`): what a lookup
    /// towards it needs, in one place.
    dest: Vec<Dest>,
    /// Columns per row: the edge switches.
    n_cols: usize,
    /// groups[row * n_cols + column] = (start, len) into `locals`.
    groups: Vec<(u32, u32)>,
    /// Local port indexes.
    locals: Vec<u16>,
}

/// An ECMP group: egress ports of one switch.
#[derive(Clone, Copy)]
pub(crate) struct Group<'a> {
    base: u32,
    locals: &'a [u16],
}

impl Group<'_> {
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.locals.len()
    }
    /// The `i`-th port (global id).
    #[inline(always)]
    pub fn get(&self, i: usize) -> u32 {
        self.base + self.locals[i] as u32
    }
    pub fn first(&self) -> Option<u32> {
        (!self.locals.is_empty()).then(|| self.get(0))
    }
    /// The ports (global ids), in the switch's port order.
    #[allow(dead_code)]
    pub fn to_vec(self) -> Vec<u32> {
        self.locals.iter().map(|&l| self.base + l as u32).collect()
    }
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
    /// the links that are up; `base[n]` = the global id of node `n`'s first
    /// port (its ports are numbered base[n].. whether up or down).
    pub fn build(topo: &Topology, node_ports: &[Vec<(u32, u32)>], base: &[u32]) -> Routing {
        let n = topo.nodes.len();
        let is_switch = |x: u32| topo.nodes[x as usize] == NodeKind::Switch;
        let local = |x: u32, p: u32| (p - base[x as usize]) as u16;
        let mut host_index = vec![u32::MAX; n];
        let mut switch_index = vec![u32::MAX; n];
        let (mut nh, mut ns) = (0u32, 0u32);
        for x in 0..n as u32 {
            if is_switch(x) {
                switch_index[x as usize] = ns;
                ns += 1;
            } else {
                host_index[x as usize] = nh;
                nh += 1;
            }
        }
        // each host's edge switch and the port to it, over the links that are up
        let mut last_hop = vec![(u32::MAX, 0u16); nh as usize];
        let mut edge_col = vec![u32::MAX; n];
        let mut edges = Vec::new();
        for s in 0..n as u32 {
            if !is_switch(s) {
                continue;
            }
            for &(p, peer) in &node_ports[s as usize] {
                if !is_switch(peer) {
                    last_hop[host_index[peer as usize] as usize] = (s, local(s, p));
                    if edge_col[s as usize] == u32::MAX {
                        edge_col[s as usize] = edges.len() as u32;
                        edges.push(s);
                    }
                }
            }
        }
        let n_cols = edges.len();
        let (cells, sets, locals) = Self::cells(topo, node_ports, &edges, &switch_index, ns as usize, local);
        let (row_of, groups) = Self::share_rows(&cells, n_cols, &sets);
        let node = (0..n)
            .map(|x| {
                let row = if is_switch(x as u32) { row_of[switch_index[x] as usize] } else { u32::MAX };
                (row, base[x])
            })
            .collect();
        let mut dest = vec![Dest::NONE; n];
        for (x, &h) in host_index.iter().enumerate() {
            if h != u32::MAX {
                let (edge, port) = last_hop[h as usize];
                let col = if edge == u32::MAX { u32::MAX } else { edge_col[edge as usize] };
                dest[x] = Dest { edge, col, port };
            }
        }
        Routing { node, dest, n_cols, groups, locals }
    }

    /// The full table, one row per switch: cells[switch * n_cols + column]
    /// is the id of the port set towards edge switch `column` (`ANY` at the
    /// edge switch itself); each distinct set of local ports is stored once
    /// in `locals`, `sets[id]` = (start, len).
    #[allow(clippy::type_complexity)]
    fn cells(
        topo: &Topology,
        node_ports: &[Vec<(u32, u32)>],
        edges: &[u32],
        switch_index: &[u32],
        ns: usize,
        local: impl Fn(u32, u32) -> u16,
    ) -> (Vec<u32>, Vec<(u32, u32)>, Vec<u16>) {
        let n = topo.nodes.len();
        let is_switch = |x: u32| topo.nodes[x as usize] == NodeKind::Switch;
        let n_cols = edges.len();
        let mut cells = vec![0u32; ns * n_cols];
        let mut sets: Vec<(u32, u32)> = Vec::new();
        let mut locals: Vec<u16> = Vec::new();
        let mut interned: HashMap<Vec<u16>, u32> = HashMap::new();
        let mut dist = vec![u32::MAX; n];
        let mut queue = std::collections::VecDeque::new();
        let mut set: Vec<u16> = Vec::new();
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
                if !is_switch(s) {
                    continue;
                }
                let d = dist[s as usize];
                let cell = &mut cells[switch_index[s as usize] as usize * n_cols + col];
                if d == 0 {
                    *cell = ANY;
                    continue;
                }
                set.clear();
                if d != u32::MAX {
                    set.extend(
                        node_ports[s as usize]
                            .iter()
                            .filter(|&&(_, q)| is_switch(q) && dist[q as usize].wrapping_add(1) == d)
                            .map(|&(p, _)| local(s, p)),
                    );
                }
                *cell = match interned.get(&set) {
                    Some(&id) => id,
                    None => {
                        let id = sets.len() as u32;
                        sets.push((locals.len() as u32, set.len() as u32));
                        locals.extend_from_slice(&set);
                        interned.insert(set.clone(), id);
                        id
                    }
                };
            }
        }
        (cells, sets, locals)
    }

    /// Merges identical rows: a row's `ANY` cells take the row's most
    /// common set (lowest id on a tie) so that an edge switch's row matches
    /// its peers'. Returns each switch's row and the shared rows as
    /// (start, len) cells.
    fn share_rows(cells: &[u32], n_cols: usize, sets: &[(u32, u32)]) -> (Vec<u32>, Vec<(u32, u32)>) {
        let ns = cells.len().checked_div(n_cols).unwrap_or(0);
        let mut row_of = vec![0u32; ns];
        let mut rows: HashMap<Vec<u32>, u32> = HashMap::new();
        let mut groups = Vec::new();
        let mut count: HashMap<u32, u32> = HashMap::new();
        for (s, r) in row_of.iter_mut().enumerate() {
            let mut row = cells[s * n_cols..(s + 1) * n_cols].to_vec();
            if row.contains(&ANY) {
                count.clear();
                for &c in row.iter().filter(|&&c| c != ANY) {
                    *count.entry(c).or_default() += 1;
                }
                let fill = count.iter().max_by_key(|&(&id, &k)| (k, std::cmp::Reverse(id))).map_or(0, |(&id, _)| id);
                row.iter_mut().filter(|c| **c == ANY).for_each(|c| *c = fill);
            }
            let next = rows.len() as u32;
            *r = *rows.entry(row).or_insert_with_key(|row| {
                groups.extend(row.iter().map(|&id| sets.get(id as usize).copied().unwrap_or((0, 0))));
                next
            });
        }
        (row_of, groups)
    }

    /// ECMP group at switch `sw` towards host `dst` (empty: unreachable).
    #[inline(always)]
    pub fn group(&self, sw: u32, dst: u32) -> Group<'_> {
        let d = &self.dest[dst as usize];
        let (row, base) = self.node[sw as usize];
        if d.edge == sw {
            return Group { base, locals: std::slice::from_ref(&d.port) };
        }
        if d.col == u32::MAX {
            return Group { base, locals: &[] };
        }
        let (s, l) = self.groups[row as usize * self.n_cols + d.col as usize];
        Group { base, locals: &self.locals[s as usize..(s + l) as usize] }
    }

    /// Distinct rows of the table.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn rows(&self) -> usize {
        self.groups.len().checked_div(self.n_cols).unwrap_or(0)
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

    /// Ports numbered per node, contiguously (as the simulator does), and
    /// each node's first port id.
    fn ports_of(topo: &Topology) -> (Vec<Vec<(u32, u32)>>, Vec<u32>) {
        let n = topo.nodes.len();
        let mut count = vec![0u32; n];
        for l in &topo.links {
            count[l.a as usize] += 1;
            count[l.b as usize] += 1;
        }
        let mut base = vec![0u32; n];
        for i in 1..n {
            base[i] = base[i - 1] + count[i - 1];
        }
        let mut next = base.clone();
        let mut v = vec![Vec::new(); n];
        for l in &topo.links {
            v[l.a as usize].push((next[l.a as usize], l.b));
            next[l.a as usize] += 1;
            v[l.b as usize].push((next[l.b as usize], l.a));
            next[l.b as usize] += 1;
        }
        (v, base)
    }

    /// `hosts` hosts on `tors` edge switches, and `core` more switches,
    /// wired at random (connected: a random tree first).
    fn random_topology(rng: &mut Rng, hosts: u32, tors: u32, core: u32, extra: u32) -> Topology {
        let sw = tors + core;
        let mut nodes = vec![NodeKind::Host; hosts as usize];
        nodes.extend(std::iter::repeat_n(NodeKind::Switch, sw as usize));
        let link = |a: u32, b: u32| Link { a, b, rate_bps: 100_000_000_000, delay: 1_000_000, back: None };
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
            let (mut np, base) = ports_of(&topo);
            if case % 3 == 0 {
                // some links down, both directions (host links too)
                let down: std::collections::HashSet<(u32, u32)> = (0..topo.links.len())
                    .filter(|i| i % 5 == 1)
                    .flat_map(|i| [(topo.links[i].a, topo.links[i].b), (topo.links[i].b, topo.links[i].a)])
                    .collect();
                for (x, v) in np.iter_mut().enumerate() {
                    v.retain(|&(_, peer)| !down.contains(&(x as u32, peer)));
                }
            }
            let r = Routing::build(&topo, &np, &base);
            for sw in topo.switches() {
                for dst in topo.hosts() {
                    assert_eq!(r.group(sw, dst).to_vec(), reference(&topo, &np, sw, dst), "case {case}: {sw} -> {dst}");
                }
            }
        }
    }

    #[test]
    fn a_fat_trees_switches_share_rows_by_role() {
        // k = 8: 128 hosts, 32 edge, 32 aggregation and 16 core switches
        let k = 8u32;
        let (h, e, a) = (k * k * k / 4, k * k / 2, k * k / 2);
        let (edge0, agg0, core0) = (h, h + e, h + e + a);
        let n = h + e + a + k * k / 4;
        let mut nodes = vec![NodeKind::Host; h as usize];
        nodes.extend(std::iter::repeat_n(NodeKind::Switch, (n - h) as usize));
        let link = |a: u32, b: u32| Link { a, b, rate_bps: 100_000_000_000, delay: 1_000_000, back: None };
        let mut links: Vec<Link> = (0..h).map(|x| link(x, edge0 + x / (k / 2))).collect();
        for pod in 0..k {
            for i in 0..k / 2 {
                for j in 0..k / 2 {
                    links.push(link(edge0 + pod * k / 2 + i, agg0 + pod * k / 2 + j));
                }
            }
        }
        for pod in 0..k {
            for j in 0..k / 2 {
                for c in 0..k / 2 {
                    links.push(link(agg0 + pod * k / 2 + j, core0 + j * k / 2 + c));
                }
            }
        }
        let topo = Topology { name: "fat".into(), nodes, links };
        topo.validate().unwrap();
        let (np, base) = ports_of(&topo);
        let r = Routing::build(&topo, &np, &base);
        // one row for the cores, one for the edge switches, one per pod's aggregation
        assert_eq!(r.rows(), 1 + 1 + k as usize);
        for sw in topo.switches() {
            for dst in topo.hosts() {
                assert_eq!(r.group(sw, dst).to_vec(), reference(&topo, &np, sw, dst), "{sw} -> {dst}");
            }
        }
    }

    #[test]
    fn oversized_tables_are_refused() {
        // 20,000 switches in a line, each with a host: 4e8 entries
        let n = 20_000u32;
        let mut nodes = vec![NodeKind::Host; n as usize];
        nodes.extend(std::iter::repeat_n(NodeKind::Switch, n as usize));
        let mut links: Vec<Link> = (0..n).map(|h| Link { a: h, b: n + h, rate_bps: 1, delay: 1, back: None }).collect();
        links.extend((1..n).map(|i| Link { a: n + i - 1, b: n + i, rate_bps: 1, delay: 1, back: None }));
        let topo = Topology { name: "line".into(), nodes, links };
        let e = Routing::check_size(&topo).unwrap_err();
        assert!(e.contains("20000 switches") && e.contains("400000000 routing entries"), "{e}");
    }
}
