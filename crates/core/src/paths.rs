//! The paths data takes, as the simulator chooses them, for code outside
//! the run that must follow the same routes (the fluid bound of crate
//! repro): shortest-path ECMP groups in each switch's port order (a node's
//! ports are numbered in the order of its links, globally node by node),
//! one next hop per flow chosen by [`pick`] from the flow's hash
//! ([`flow_hash`]) and the switch's salt ([`draw_salts`]).

use crate::rng::{mix64, Rng};
use crate::routing::Routing;
use crate::topology::{NodeKind, Topology};

/// The ECMP hash of flow (or connection) `index` of a run with `seed`: a
/// connection's index is the number of flows + its id, and every packet of
/// its messages carries it.
pub fn flow_hash(seed: u64, index: u64) -> u64 {
    mix64(seed ^ mix64(index + 0x9E37))
}

/// The salts of the switches (0 for a host), drawn from `rng` switch by
/// switch in node order. The simulator draws them from its own stream
/// (`Rng::derive(seed, 0xCC51)`), which goes on to its other choices.
pub fn draw_salts(topo: &Topology, rng: &mut Rng) -> Vec<u64> {
    topo.nodes.iter().map(|k| if *k == NodeKind::Switch { rng.next_u64() } else { 0 }).collect()
}

/// The index in an ECMP group of `n` ports that a packet of hash `hash`
/// takes at a switch of salt `salt`.
#[inline(always)]
pub fn pick(n: usize, hash: u64, salt: u64) -> usize {
    ((mix64(hash ^ salt) as u128 * n as u128) >> 64) as usize
}

/// A topology's routes at time 0, as the simulator builds them.
pub struct Paths {
    /// Per global port: (node, peer, rate in bits/s).
    ports: Vec<(u32, u32, u64)>,
    /// Per node: (global port id, peer), in port order.
    node_ports: Vec<Vec<(u32, u32)>>,
    /// Per global port: the port at the other end of its link.
    peer_port: Vec<u32>,
    /// Per global port: its link is up at time 0.
    up: Vec<bool>,
    /// Per node: a switch.
    switch: Vec<bool>,
    /// Over the links up at time 0.
    routing: Routing,
    /// Over all links, when some are down at time 0.
    full: Option<Routing>,
    salt: Vec<u64>,
}

impl Paths {
    /// The routes of `topo` (valid, [`Topology::validate`]) with the links
    /// of `down` (indexes into `topo.links`) down at time 0, and the
    /// switches' salts of a run with `seed`.
    pub fn new(topo: &Topology, down: &[usize], seed: u64) -> Result<Paths, String> {
        Routing::check_size(topo)?;
        let w = crate::wiring::wire(topo);
        let n_ports = w.base[topo.nodes.len()] as usize;
        let mut ports = vec![(0, 0, 0); n_ports];
        let mut up = vec![true; n_ports];
        let mut peer_port = vec![0; n_ports];
        for (li, l) in topo.links.iter().enumerate() {
            let (pa, pb) = w.link_ports[li];
            ports[pa as usize] = (l.a, l.b, l.rate_from(l.a));
            ports[pb as usize] = (l.b, l.a, l.rate_from(l.b));
            peer_port[pa as usize] = pb;
            peer_port[pb as usize] = pa;
        }
        for &li in down {
            let (pa, pb) = *w.link_ports.get(li).ok_or_else(|| format!("link {li}: no such link"))?;
            up[pa as usize] = false;
            up[pb as usize] = false;
        }
        let base = &w.base[..topo.nodes.len()];
        let up_ports: Vec<Vec<(u32, u32)>> =
            w.node_ports.iter().map(|v| v.iter().copied().filter(|&(p, _)| up[p as usize]).collect()).collect();
        let routing = Routing::build(topo, &up_ports, base);
        let full = (!down.is_empty()).then(|| Routing::build(topo, &w.node_ports, base));
        let salt = draw_salts(topo, &mut Rng::derive(seed, 0xCC51));
        let switch = topo.nodes.iter().map(|k| *k == NodeKind::Switch).collect();
        Ok(Paths { ports, node_ports: w.node_ports, peer_port, up, switch, routing, full, salt })
    }

    /// Number of ports (global ids 0..).
    pub fn port_count(&self) -> usize {
        self.ports.len()
    }

    /// Port `p`'s (node, peer, rate in bits/s).
    pub fn port(&self, p: u32) -> (u32, u32, u64) {
        self.ports[p as usize]
    }

    /// Host `h`'s port (a valid topology gives it exactly one).
    pub fn host_port(&self, h: u32) -> u32 {
        self.node_ports[h as usize][0].0
    }

    /// The port of host `h`'s switch towards `h`.
    pub fn port_to_host(&self, h: u32) -> u32 {
        self.peer_port[self.host_port(h) as usize]
    }

    /// Whether node `x` is a switch.
    pub fn is_switch(&self, x: u32) -> bool {
        self.switch.get(x as usize).copied().unwrap_or(false)
    }

    /// The ECMP group of switch `s` towards host `dst`, in port order (empty:
    /// unreachable): over the links up at time 0, or `all` links.
    pub fn group(&self, s: u32, dst: u32, all: bool) -> Vec<u32> {
        let r = if all { self.full.as_ref().unwrap_or(&self.routing) } else { &self.routing };
        if !all && !self.up[self.host_port(dst) as usize] {
            return Vec::new();
        }
        r.group(s, dst).to_vec()
    }

    /// Whether `p`'s link is up at time 0 (or `all`).
    pub fn usable(&self, p: u32, all: bool) -> bool {
        all || self.up[p as usize]
    }

    /// The ports from `src` to `dst`: at every switch the one [`pick`]
    /// chooses for `hash`, or the first of the group (`None`: the path of
    /// the ideal FCT). None if unreachable.
    pub fn path(&self, src: u32, dst: u32, hash: Option<u64>, all: bool) -> Option<Vec<u32>> {
        let mut p = self.host_port(src);
        if !self.usable(p, all) {
            return None;
        }
        let mut out = Vec::with_capacity(8);
        for _ in 0..=64 {
            out.push(p);
            let s = self.ports[p as usize].1;
            if s == dst {
                return Some(out);
            }
            if !self.is_switch(s) {
                return None;
            }
            let g = self.group(s, dst, all);
            p = match (g.len(), hash) {
                (0, _) => return None,
                (1, _) | (_, None) => g[0],
                (n, Some(h)) => g[pick(n, h, self.salt[s as usize])],
            };
        }
        None
    }
}
