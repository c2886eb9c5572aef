//! Cutting a network into parts for a conservative parallel run (issue 36):
//! which node each part owns, and how far ahead a part may run without
//! hearing from the others (the window: the smallest delay of a link between
//! two parts, since an event crosses parts only over a link).
//!
//! Units kept whole: a fat tree's pods (every node below the top tier, read
//! by [`crate::layout`]) when there are at least two per part (one pod per
//! part leaves the parts that also got the busiest core switches behind:
//! measured in docs/PERFORMANCE.md), else an edge switch with its hosts when
//! there are fewer (then some parts may be empty: a host always stays with
//! its edge switch, so that only links between switches are cut and the
//! window is never shorter than [`grid`]); the switches of the tiers above
//! are units of their own. Units are
//! dealt to parts largest first, each to the part with the least load so far
//! (the longest-processing-time rule), balancing the expected load: a host's
//! is the bytes it sends and receives, a switch unit's its share of the bytes
//! that cross between units.

use crate::layout::layout;
use crate::time::Time;
use crate::topology::Topology;

/// A cut of a network into parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Per node: its part.
    pub part_of: Vec<u16>,
    /// What a unit kept whole is: "pod" or "edge switch with its hosts".
    pub unit: &'static str,
    /// Smallest delay of a link between two parts (`Time::MAX`: none).
    pub window: Time,
    /// Links between two parts.
    pub cut_links: usize,
    /// Per part: its hosts.
    pub hosts: Vec<u32>,
    /// Per part: its expected load (the weight balanced).
    pub load: Vec<f64>,
}

impl Plan {
    pub fn parts(&self) -> usize {
        self.hosts.len()
    }
}

/// Cuts `topo` (valid) into `parts` parts (1..=65535), balancing
/// `host_bytes`: per node, the bytes its flows send and receive (0 for a
/// switch).
pub fn plan(topo: &Topology, parts: usize, host_bytes: &[f64]) -> Plan {
    assert!((1..=u16::MAX as usize).contains(&parts), "parts must be 1..=65535");
    let (unit_of, unit) = units(topo, parts);
    let n_units = unit_of.iter().copied().max().map_or(0, |u| u as usize + 1);
    let weight = unit_weights(topo, &unit_of, n_units, host_bytes);
    // largest first; ties by unit id (the order is fixed for a topology)
    let mut order: Vec<usize> = (0..n_units).collect();
    order.sort_by(|&a, &b| weight[b].total_cmp(&weight[a]).then(a.cmp(&b)));
    let mut load = vec![0.0f64; parts];
    let mut part_of_unit = vec![0u16; n_units];
    for u in order {
        let p = (0..parts).min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b))).unwrap_or(0);
        part_of_unit[u] = p as u16;
        load[p] += weight[u];
    }
    let part_of: Vec<u16> = unit_of.iter().map(|&u| part_of_unit[u as usize]).collect();
    let mut hosts = vec![0u32; parts];
    for h in topo.hosts() {
        hosts[part_of[h as usize] as usize] += 1;
    }
    let cut: Vec<&crate::topology::LinkSpec> =
        topo.links.iter().filter(|l| part_of[l.a as usize] != part_of[l.b as usize]).collect();
    let window = cut.iter().map(|l| l.min_delay()).min().unwrap_or(Time::MAX);
    Plan { part_of, unit, window, cut_links: cut.len(), hosts, load }
}

/// Per node, the bytes the transfers `ends` (source, destination, size)
/// send and receive: the load a [`plan`] balances.
pub fn host_bytes(nodes: usize, ends: impl IntoIterator<Item = (u32, u32, u64)>) -> Vec<f64> {
    let mut bytes = vec![0.0f64; nodes];
    for (src, dst, size) in ends {
        bytes[src as usize] += size as f64;
        bytes[dst as usize] += size as f64;
    }
    bytes
}

/// Per node its unit, and what a unit is: pods when there are at least two
/// per part, else edge switches with their hosts.
fn units(topo: &Topology, parts: usize) -> (Vec<u32>, &'static str) {
    let place = layout(topo);
    let n = topo.nodes.len();
    let pods = place.iter().filter_map(|p| p.pod).max().map_or(0, |p| p as usize + 1);
    if pods >= 2 * parts {
        // pods keep their ids; each switch above them is a unit after them
        let mut next = pods as u32;
        let unit_of = place
            .iter()
            .map(|p| {
                p.pod.unwrap_or_else(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        return (unit_of, "pod");
    }
    // an edge switch and its hosts share the edge switch's unit
    let mut unit_of = vec![u32::MAX; n];
    let mut next = 0u32;
    for (i, p) in place.iter().enumerate() {
        if p.tier != 0 {
            unit_of[i] = next;
            next += 1;
        }
    }
    for (i, p) in place.iter().enumerate() {
        if let Some(e) = p.edge {
            unit_of[i] = unit_of[e as usize];
        }
    }
    (unit_of, "edge switch with its hosts")
}

/// The grid a run's end and its checks keep to, in ps: the smallest delay of
/// a link between two switches (else of any link; at least 1 ps). Links
/// between switches are the only ones a [`plan`] cuts, so a parallel run's
/// windows can be this grid's steps whatever the number of parts; the
/// sequential run keeps to the same grid, so that both stop after the same
/// events (issue 36).
pub fn grid(topo: &Topology) -> Time {
    let is_switch = |n: u32| topo.nodes[n as usize] == crate::topology::NodeKind::Switch;
    let between_switches = topo.links.iter().filter(|l| is_switch(l.a) && is_switch(l.b)).map(|l| l.min_delay()).min();
    between_switches.or_else(|| topo.links.iter().map(|l| l.min_delay()).min()).unwrap_or(1).max(1)
}

/// Per unit its expected load: its hosts' bytes, and for a unit without
/// hosts (a switch above the pods or edges) an equal share of the bytes of
/// the hosts of the other units, which cross such switches.
fn unit_weights(topo: &Topology, unit_of: &[u32], n_units: usize, host_bytes: &[f64]) -> Vec<f64> {
    let mut w = vec![0.0f64; n_units];
    let mut has_host = vec![false; n_units];
    for h in topo.hosts() {
        let u = unit_of[h as usize] as usize;
        w[u] += host_bytes.get(h as usize).copied().unwrap_or(0.0);
        has_host[u] = true;
    }
    let total: f64 = w.iter().sum();
    let carriers = has_host.iter().filter(|&&x| !x).count();
    if carriers > 0 {
        for u in 0..n_units {
            if !has_host[u] {
                w[u] = total / carriers as f64;
            }
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{LinkSpec, NodeKind};

    /// A k-ary fat tree built here (hosts first per edge switch), k even.
    fn fat_tree(k: u32) -> Topology {
        let mut t = Topology::default();
        let half = k / 2;
        let node = |t: &mut Topology, kind| {
            t.nodes.push(kind);
            t.nodes.len() as u32 - 1
        };
        let cores: Vec<u32> = (0..half * half).map(|_| node(&mut t, NodeKind::Switch)).collect();
        for _pod in 0..k {
            let aggs: Vec<u32> = (0..half).map(|_| node(&mut t, NodeKind::Switch)).collect();
            for (i, &a) in aggs.iter().enumerate() {
                for j in 0..half {
                    let c = cores[i * half as usize + j as usize];
                    t.links.push(LinkSpec { a, b: c, rate_bps: 100_000_000_000, delay: 2000, back: None });
                }
            }
            for _ in 0..half {
                let e = node(&mut t, NodeKind::Switch);
                for &a in &aggs {
                    t.links.push(LinkSpec { a: e, b: a, rate_bps: 100_000_000_000, delay: 1000, back: None });
                }
                for _ in 0..half {
                    let h = node(&mut t, NodeKind::Host);
                    t.links.push(LinkSpec { a: h, b: e, rate_bps: 100_000_000_000, delay: 500, back: None });
                }
            }
        }
        t
    }

    #[test]
    fn a_fat_tree_is_cut_between_pods_and_cores_with_its_hosts_balanced() {
        let t = fat_tree(8);
        t.validate().unwrap();
        let bytes: Vec<f64> = t.nodes.iter().map(|k| if *k == NodeKind::Host { 1.0 } else { 0.0 }).collect();
        let p = plan(&t, 2, &bytes);
        assert_eq!(p.unit, "pod");
        assert_eq!(p.hosts, vec![64, 64]);
        // only agg-core links are cut; their delay (2 ns) is the window
        assert_eq!(p.window, 2000);
        assert!(p.cut_links > 0 && p.cut_links < 8 * 4 * 4);
        for l in &t.links {
            if t.is_host(l.a) || t.is_host(l.b) || l.delay == 1000 {
                assert_eq!(p.part_of[l.a as usize], p.part_of[l.b as usize], "{l:?} is inside a pod");
            }
        }
        // fewer than two pods per part: edge switches with their hosts
        let p = plan(&t, 16, &bytes);
        assert_eq!(p.unit, "edge switch with its hosts");
        assert_eq!(p.hosts.iter().sum::<u32>(), 128);
        assert!(p.hosts.iter().all(|&h| h == 8), "{:?}", p.hosts);
        assert_eq!(p.window, 1000);
    }

    #[test]
    fn load_not_host_count_is_balanced() {
        let t = fat_tree(8);
        // pod 0's hosts carry 7 times the bytes of any other pod's
        let place = crate::layout::layout(&t);
        let bytes: Vec<f64> = (0..t.nodes.len())
            .map(|i| match (t.nodes[i], place[i].pod) {
                (NodeKind::Host, Some(0)) => 7.0,
                (NodeKind::Host, _) => 1.0,
                _ => 0.0,
            })
            .collect();
        let p = plan(&t, 2, &bytes);
        // pod 0 alone weighs as much as the other seven pods together
        let pod0 = p.part_of[place.iter().position(|x| x.pod == Some(0)).unwrap()];
        assert_eq!(p.hosts[pod0 as usize], 16, "{:?}", p.hosts);
        assert!((p.load[0] - p.load[1]).abs() <= 0.2 * p.load[0].max(p.load[1]), "{:?}", p.load);
    }

    #[test]
    fn one_part_cuts_nothing() {
        let t = fat_tree(4);
        let p = plan(&t, 1, &[]);
        assert_eq!(p.cut_links, 0);
        assert_eq!(p.window, Time::MAX);
        assert!(p.part_of.iter().all(|&x| x == 0));
    }
}
