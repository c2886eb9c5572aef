//! Where each node sits in a fabric, read off the links alone: its tier (a
//! host 0, a switch its hop distance from the nearest host), a role named
//! after the tier, its pod and its index, and for a host its edge switch.
//! Used for the node table of a run (`nodes.csv`) and for rank placement
//! (leaf-local and spread rings), on built and imported topologies alike.

use std::collections::VecDeque;

use crate::topology::{NodeKind, Topology};

/// One node's place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// 0 for a host; a switch's hop distance from the nearest host.
    pub tier: u32,
    /// "host", "edge" (tier 1: ToR, leaf), then in a 2-tier fabric "spine";
    /// in a deeper one "agg" (tier 2), "core" (tier 3), "tier N" above.
    pub role: String,
    /// In a fabric of 3 or more tiers: the connected part left when the top
    /// tier is removed (a fat tree's pod), numbered by its lowest node id;
    /// None for the top tier and in flatter fabrics.
    pub pod: Option<u32>,
    /// Position among the nodes of the same role and pod, in id order.
    pub index: u32,
    /// A host's edge switch (its one neighbour); None for a switch.
    pub edge: Option<u32>,
}

/// Every node's [`Place`], by node id. The topology must be valid
/// ([`Topology::validate`]): every host has one link and every node is
/// reachable from a host.
pub fn layout(t: &Topology) -> Vec<Place> {
    let n = t.nodes.len();
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
    for l in &t.links {
        adj[l.a as usize].push(l.b);
        adj[l.b as usize].push(l.a);
    }
    let tier = tiers(t, &adj);
    let top = tier.iter().copied().max().unwrap_or(0);
    let pod = if top >= 3 { pods(&adj, &tier, top) } else { vec![None; n] };
    let mut next: std::collections::BTreeMap<(u32, Option<u32>), u32> = Default::default();
    (0..n)
        .map(|i| {
            let k = next.entry((tier[i], pod[i])).or_default();
            let index = *k;
            *k += 1;
            Place {
                tier: tier[i],
                role: role(tier[i], top),
                pod: pod[i],
                index,
                edge: (t.nodes[i] == NodeKind::Host).then(|| adj[i].first().copied()).flatten(),
            }
        })
        .collect()
}

/// Hop distance of every node from the nearest host (breadth-first from all
/// hosts at once); unreachable nodes get u32::MAX.
fn tiers(t: &Topology, adj: &[Vec<u32>]) -> Vec<u32> {
    let mut tier = vec![u32::MAX; t.nodes.len()];
    let mut q = VecDeque::new();
    for h in t.hosts() {
        tier[h as usize] = 0;
        q.push_back(h);
    }
    while let Some(x) = q.pop_front() {
        for &y in &adj[x as usize] {
            if tier[y as usize] == u32::MAX {
                tier[y as usize] = tier[x as usize] + 1;
                q.push_back(y);
            }
        }
    }
    tier
}

/// The name of tier `tier` in a fabric whose top tier is `top`.
fn role(tier: u32, top: u32) -> String {
    match (tier, top) {
        (0, _) => "host".into(),
        (1, _) => "edge".into(),
        (2, 2) => "spine".into(),
        (2, _) => "agg".into(),
        (3, _) => "core".into(),
        (u32::MAX, _) => "unreachable".into(),
        (k, _) => format!("tier {k}"),
    }
}

/// Pods: connected parts of the fabric without its top tier, numbered in
/// order of their lowest node id.
fn pods(adj: &[Vec<u32>], tier: &[u32], top: u32) -> Vec<Option<u32>> {
    let n = adj.len();
    let mut pod = vec![None; n];
    let mut count = 0;
    for s in 0..n {
        if pod[s].is_some() || tier[s] >= top {
            continue;
        }
        pod[s] = Some(count);
        let mut stack = vec![s as u32];
        while let Some(x) = stack.pop() {
            for &y in &adj[x as usize] {
                if pod[y as usize].is_none() && tier[y as usize] < top {
                    pod[y as usize] = Some(count);
                    stack.push(y);
                }
            }
        }
        count += 1;
    }
    pod
}
