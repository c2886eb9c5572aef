//! Shortest-path routing tables, precomputed as dense arrays: for every
//! (switch, destination host) the set of egress ports on a shortest path
//! (the ECMP group). Paths never transit a host.

use crate::topology::{NodeKind, Topology};

pub(crate) struct Routing {
    /// Per node: index of its row in `groups` (switches only; u32::MAX for hosts).
    row: Vec<u32>,
    /// Host node id -> dense host index.
    pub host_index: Vec<u32>,
    n_hosts: usize,
    /// groups[row * n_hosts + host] = (start, len) into `ports`.
    groups: Vec<(u32, u16)>,
    /// Global port ids.
    ports: Vec<u32>,
}

impl Routing {
    /// `node_ports[n]` = list of (global port id, peer node) of node `n`.
    pub fn build(topo: &Topology, node_ports: &[Vec<(u32, u32)>]) -> Routing {
        let n = topo.nodes.len();
        let mut host_index = vec![u32::MAX; n];
        let hosts = topo.hosts();
        for (i, &h) in hosts.iter().enumerate() {
            host_index[h as usize] = i as u32;
        }
        let nh = hosts.len();
        let mut dist = vec![u16::MAX; n * nh];
        let mut queue = std::collections::VecDeque::new();
        for (hi, &h) in hosts.iter().enumerate() {
            dist[h as usize * nh + hi] = 0;
            queue.clear();
            queue.push_back(h);
            while let Some(x) = queue.pop_front() {
                let d = dist[x as usize * nh + hi];
                // do not expand through hosts other than the source of the BFS
                if x != h && topo.nodes[x as usize] == NodeKind::Host {
                    continue;
                }
                for &(_, y) in &node_ports[x as usize] {
                    let slot = &mut dist[y as usize * nh + hi];
                    if *slot == u16::MAX {
                        *slot = d + 1;
                        queue.push_back(y);
                    }
                }
            }
        }
        let mut row = vec![u32::MAX; n];
        let mut groups = Vec::new();
        let mut ports = Vec::new();
        let mut r = 0;
        for s in 0..n {
            if topo.nodes[s] != NodeKind::Switch {
                continue;
            }
            row[s] = r;
            r += 1;
            for hi in 0..nh {
                let d = dist[s * nh + hi];
                let start = ports.len() as u32;
                if d != u16::MAX {
                    for &(p, peer) in &node_ports[s] {
                        let pd = dist[peer as usize * nh + hi];
                        let peer_ok = topo.nodes[peer as usize] == NodeKind::Switch || pd == 0;
                        if peer_ok && pd != u16::MAX && pd + 1 == d {
                            ports.push(p);
                        }
                    }
                }
                groups.push((start, (ports.len() as u32 - start) as u16));
            }
        }
        Routing { row, host_index, n_hosts: nh, groups, ports }
    }

    /// ECMP group at switch `sw` towards host `dst`.
    #[inline]
    pub fn group(&self, sw: u32, dst: u32) -> &[u32] {
        let r = self.row[sw as usize] as usize;
        let h = self.host_index[dst as usize] as usize;
        let (s, l) = self.groups[r * self.n_hosts + h];
        &self.ports[s as usize..s as usize + l as usize]
    }
}
