//! Rank placement: which host runs which rank of a job (`placement` of the
//! `collective`, `dag` and `chakra` workloads). Placement decides how many
//! ring hops cross the fabric: on a leaf-spine with 4 hosts per leaf, a
//! 16-rank ring in leaf-local order crosses the spines 4 times, in spread
//! order 16 times (every hop), where per-flow ECMP can stack them.

use ccsim_core::layout::{layout, Place};
use ccsim_core::rng::Rng;
use ccsim_core::topology::Topology;
use serde::{Deserialize, Serialize};

/// How the listed hosts are ordered into ranks 0..n-1.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// Rank r on `hosts[r]`, as listed. The default.
    #[default]
    Given,
    /// Ranks fill one edge switch (leaf, ToR) after another, pods in order:
    /// the hosts sorted by (pod, edge switch, host id), so consecutive
    /// ranks share a leaf and a ring crosses the fabric once per leaf.
    LeafLocal,
    /// Ranks go round-robin over the edge switches (in (pod, id) order),
    /// each switch's hosts in id order: consecutive ranks sit on different
    /// leaves, so every ring hop crosses the fabric (a worst case).
    Spread,
    /// A random permutation of the listed hosts, from the workload entry's
    /// seeded stream.
    Random,
}

impl Placement {
    pub fn name(self) -> &'static str {
        match self {
            Placement::Given => "given",
            Placement::LeafLocal => "leaf_local",
            Placement::Spread => "spread",
            Placement::Random => "random",
        }
    }
}

/// The hosts in rank order under placement `p` (`hosts` distinct hosts of `topo`).
pub fn place(p: Placement, hosts: &[u32], topo: &Topology, rng: &mut Rng) -> Vec<u32> {
    let mut v = hosts.to_vec();
    match p {
        Placement::Given => {}
        Placement::Random => {
            for i in (1..v.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                v.swap(i, j);
            }
        }
        Placement::LeafLocal | Placement::Spread => {
            let places = layout(topo);
            let key = |h: u32| leaf_key(&places, h);
            v.sort_by_key(|&h| (key(h), h));
            if p == Placement::Spread {
                v = round_robin(&v, key);
            }
        }
    }
    v
}

/// (pod, edge switch) of host `h`, for ordering.
fn leaf_key(places: &[Place], h: u32) -> (u32, u32) {
    let p = &places[h as usize];
    let edge = p.edge.unwrap_or(h);
    (places[edge as usize].pod.unwrap_or(0), edge)
}

/// `sorted` (grouped by leaf) dealt round-robin: the first host of every
/// leaf, then the second of every leaf that has one, ...
fn round_robin(sorted: &[u32], key: impl Fn(u32) -> (u32, u32)) -> Vec<u32> {
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for &h in sorted {
        match groups.last_mut() {
            Some(g) if key(g[0]) == key(h) => g.push(h),
            _ => groups.push(vec![h]),
        }
    }
    let deepest = groups.iter().map(Vec::len).max().unwrap_or(0);
    (0..deepest).flat_map(|i| groups.iter().filter_map(move |g| g.get(i).copied())).collect()
}
