//! How ports are numbered: a node's ports have consecutive global ids, in
//! the order of its links (docs/TOPOLOGY.md). The builder and the public
//! path choice ([`crate::paths::Paths`]) both start from it.

use crate::port::Port;
use crate::topology::Topology;

/// How ports are numbered: a node's ports have the global ids
/// `base[node]..base[node + 1]`, in the order of its links.
pub(crate) struct Wiring {
    /// Per node: (global port id, peer node), sorted by port id.
    pub node_ports: Vec<Vec<(u32, u32)>>,
    /// Per link: (port at `a`, port at `b`).
    pub link_ports: Vec<(u32, u32)>,
    /// Per node (and one past the last): its first port id.
    pub base: Vec<u32>,
}

/// Numbers the ports of `topo`.
pub(crate) fn wire(topo: &Topology) -> Wiring {
    let n = topo.nodes.len();
    let mut node_ports: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
    let mut link_ports = Vec::with_capacity(topo.links.len());
    let mut base = vec![0u32; n + 1];
    let mut count = vec![0u32; n];
    for l in &topo.links {
        count[l.a as usize] += 1;
        count[l.b as usize] += 1;
    }
    for i in 0..n {
        base[i + 1] = base[i] + count[i];
    }
    let mut next = base.clone();
    for l in &topo.links {
        let pa = next[l.a as usize];
        next[l.a as usize] += 1;
        let pb = next[l.b as usize];
        next[l.b as usize] += 1;
        link_ports.push((pa, pb));
    }
    for (i, l) in topo.links.iter().enumerate() {
        let (pa, pb) = link_ports[i];
        node_ports[l.a as usize].push((pa, l.b));
        node_ports[l.b as usize].push((pb, l.a));
    }
    for v in node_ports.iter_mut() {
        v.sort_unstable();
    }
    Wiring { node_ports, link_ports, base }
}

/// `node_ports` without the ports of links that are down.
pub(crate) fn up_ports(node_ports: &[Vec<(u32, u32)>], ports: &[Port]) -> Vec<Vec<(u32, u32)>> {
    node_ports.iter().map(|v| v.iter().copied().filter(|&(p, _)| !ports[p as usize].down).collect()).collect()
}
