//! Topology builders (dumbbell, star, leaf-spine, k-ary fat tree, general
//! 3-tier fat tree) and [`TopoSpec`], the `topology` table of scenario files.
//!
//! Every builder numbers hosts first (0..n_hosts), then switches, so flows can
//! name hosts 0..n-1. Rates and delays are given per tier ([`Tier`]): host
//! links (host to its first switch) and fabric links (switch to switch).
//! Imported HPCC topology files keep the file's numbering instead.

use crate::hpcc;
use ccsim_core::time::{Time, US};
use ccsim_core::topology::{LinkSpec, NodeKind, Topology};
use ccsim_core::units::{fmt_rate, Dur, Rate};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Largest topology a builder will produce (nodes), to catch typos such as
/// `k = 4000` before they exhaust memory (a k = 64 fat tree has 70 K).
pub const MAX_NODES: u64 = 1_000_000;
/// Most links a topology may have: the simulator holds about 2.3 KB per
/// link (both directions), so 2.3 GB at this limit.
pub const MAX_LINKS: u64 = 1_000_000;

/// Rate and one-way propagation delay of the links of one tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tier {
    /// Bits per second, each direction.
    pub rate_bps: u64,
    /// One-way propagation delay (ps).
    pub delay: Time,
}

impl Tier {
    pub fn new(rate_bps: u64, delay: Time) -> Tier {
        Tier { rate_bps, delay }
    }
}

fn positive(field: &str, v: u32) -> Result<(), String> {
    if v == 0 {
        Err(format!("{field} = 0: must be at least 1"))
    } else {
        Ok(())
    }
}

fn rate_ok(field: &str, t: Tier) -> Result<(), String> {
    if t.rate_bps == 0 {
        Err(format!("{field} = 0bps: must be positive"))
    } else {
        Ok(())
    }
}

fn size_ok(nodes: u64, links: u64) -> Result<(), String> {
    if nodes > MAX_NODES {
        Err(format!("the topology would have {nodes} nodes; the limit is {MAX_NODES}"))
    } else if links > MAX_LINKS {
        Err(format!("the topology would have {links} links; the limit is {MAX_LINKS}"))
    } else {
        Ok(())
    }
}

fn link(a: u64, b: u64, t: Tier) -> LinkSpec {
    LinkSpec { a: a as u32, b: b as u32, rate_bps: t.rate_bps, delay: t.delay, back: None }
}

fn nodes(hosts: u64, switches: u64) -> Vec<NodeKind> {
    let mut v = vec![NodeKind::Host; hosts as usize];
    v.resize((hosts + switches) as usize, NodeKind::Switch);
    v
}

/// A ratio such as 2, 1.5 or 0.33 for names ("2:1").
fn fmt_ratio(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{}", x.round())
    } else {
        let s = format!("{x:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Two groups of `hosts_per_side` hosts joined by a chain of `switches`
/// switches. Hosts 0..n are the left side (senders), n..2n the right side
/// (receivers); left hosts attach to the first switch, right hosts to the last;
/// the chain links use `bottleneck`. `switches` must be at least 2.
pub fn dumbbell(hosts_per_side: u32, host: Tier, bottleneck: Tier, switches: u32) -> Result<Topology, String> {
    positive("hosts_per_side", hosts_per_side)?;
    rate_ok("host_rate", host)?;
    rate_ok("bottleneck_rate", bottleneck)?;
    if switches < 2 {
        return Err(format!(
            "switches = {switches}: a dumbbell needs at least 2 switches (use kind = \"star\" for one switch)"
        ));
    }
    let n = hosts_per_side as u64;
    let s = switches as u64;
    size_ok(2 * n + s, 2 * n + s - 1)?;
    let first = 2 * n;
    let last = 2 * n + s - 1;
    let mut links = Vec::with_capacity((2 * n + s - 1) as usize);
    for h in 0..n {
        links.push(link(h, first, host));
    }
    for h in n..2 * n {
        links.push(link(h, last, host));
    }
    for k in first..last {
        links.push(link(k, k + 1, bottleneck));
    }
    Ok(Topology {
        nodes: nodes(2 * n, s),
        links,
        name: format!(
            "dumbbell: 2 x {n} hosts at {}, {s} switches, bottleneck {}",
            fmt_rate(host.rate_bps),
            fmt_rate(bottleneck.rate_bps)
        ),
    })
}

/// `hosts` hosts on one switch (node id `hosts`).
pub fn star(hosts: u32, link_tier: Tier) -> Result<Topology, String> {
    if hosts < 2 {
        return Err(format!("hosts = {hosts}: a star needs at least 2 hosts"));
    }
    rate_ok("rate", link_tier)?;
    let n = hosts as u64;
    size_ok(n + 1, n)?;
    Ok(Topology {
        nodes: nodes(n, 1),
        links: (0..n).map(|h| link(h, n, link_tier)).collect(),
        name: format!("star: {n} hosts at {}", fmt_rate(link_tier.rate_bps)),
    })
}

/// Two-tier Clos: `leaves` leaf switches with `hosts_per_leaf` hosts each,
/// every leaf linked to every one of `spines` spine switches. Hosts
/// 0..leaves*hosts_per_leaf (leaf-major), then leaves, then spines. The name
/// reports the oversubscription hosts_per_leaf*host_rate / (spines*fabric_rate).
pub fn leaf_spine(leaves: u32, spines: u32, hosts_per_leaf: u32, host: Tier, fabric: Tier) -> Result<Topology, String> {
    positive("leaves", leaves)?;
    positive("spines", spines)?;
    positive("hosts_per_leaf", hosts_per_leaf)?;
    rate_ok("host_rate", host)?;
    rate_ok("fabric_rate", fabric)?;
    let (l, s, hpl) = (leaves as u64, spines as u64, hosts_per_leaf as u64);
    let h = l * hpl;
    if h < 2 {
        return Err(format!("leaves x hosts_per_leaf = {h}: at least 2 hosts are needed"));
    }
    size_ok(h + l + s, h + l * s)?;
    let mut links = Vec::with_capacity((h + l * s) as usize);
    for x in 0..h {
        links.push(link(x, h + x / hpl, host));
    }
    for i in 0..l {
        for j in 0..s {
            links.push(link(h + i, h + l + j, fabric));
        }
    }
    let over = (hpl as f64 * host.rate_bps as f64) / (s as f64 * fabric.rate_bps as f64);
    Ok(Topology {
        nodes: nodes(h, l + s),
        links,
        name: format!(
            "leaf-spine: {l} leaves x {hpl} hosts at {}, {s} spines at {}, oversubscription {}:1",
            fmt_rate(host.rate_bps),
            fmt_rate(fabric.rate_bps),
            fmt_ratio(over)
        ),
    })
}

/// General 3-tier fat tree. `pods` pods, each with `tors_per_pod` ToR and
/// `aggs_per_pod` aggregation switches, every ToR linked to every agg of its
/// pod; `hosts_per_tor` hosts per ToR; `cores` core switches, agg j of every
/// pod linked to cores j*c .. j*c+c-1 with c = cores / aggs_per_pod.
/// Numbering: hosts (ToR-major), ToRs (pod-major), aggs (pod-major), cores;
/// links: host links, then ToR-agg, then agg-core. With pods=5,
/// tors_per_pod=4, aggs_per_pod=4, hosts_per_tor=16, cores=16 this is exactly
/// the HPCC/OSCAR 320-host topology (`fat320.topology.txt`), ids included.
#[allow(clippy::too_many_arguments)]
pub fn fat_tree3(
    pods: u32,
    tors_per_pod: u32,
    aggs_per_pod: u32,
    hosts_per_tor: u32,
    cores: u32,
    host: Tier,
    fabric: Tier,
) -> Result<Topology, String> {
    positive("pods", pods)?;
    positive("tors_per_pod", tors_per_pod)?;
    positive("aggs_per_pod", aggs_per_pod)?;
    positive("hosts_per_tor", hosts_per_tor)?;
    positive("cores", cores)?;
    rate_ok("host_rate", host)?;
    rate_ok("fabric_rate", fabric)?;
    if !cores.is_multiple_of(aggs_per_pod) {
        return Err(format!(
            "cores = {cores}: must be a multiple of aggs_per_pod = {aggs_per_pod} (each agg links to cores / aggs_per_pod cores)"
        ));
    }
    let (p, t, a, hpt, c) = (pods as u64, tors_per_pod as u64, aggs_per_pod as u64, hosts_per_tor as u64, cores as u64);
    let n_tor = p * t;
    let n_agg = p * a;
    let h = n_tor * hpt;
    if h < 2 {
        return Err(format!("pods x tors_per_pod x hosts_per_tor = {h}: at least 2 hosts are needed"));
    }
    size_ok(h + n_tor + n_agg + c, h + n_tor * a + n_agg * (c / a))?;
    let tor0 = h;
    let agg0 = tor0 + n_tor;
    let core0 = agg0 + n_agg;
    let per_agg = c / a;
    let mut links = Vec::with_capacity((h + n_tor * a + n_agg * per_agg) as usize);
    for x in 0..h {
        links.push(link(x, tor0 + x / hpt, host));
    }
    for tor in 0..n_tor {
        let pod = tor / t;
        for j in 0..a {
            links.push(link(tor0 + tor, agg0 + pod * a + j, fabric));
        }
    }
    for agg in 0..n_agg {
        let j = agg % a;
        for k in 0..per_agg {
            links.push(link(agg0 + agg, core0 + j * per_agg + k, fabric));
        }
    }
    let over = (hpt as f64 * host.rate_bps as f64) / (a as f64 * fabric.rate_bps as f64);
    Ok(Topology {
        nodes: nodes(h, n_tor + n_agg + c),
        links,
        name: format!(
            "3-tier fat tree: {p} pods x {t} ToRs x {hpt} hosts ({h} hosts) at {}, {a} aggs per pod, {c} cores, fabric {}, ToR oversubscription {}:1",
            fmt_rate(host.rate_bps),
            fmt_rate(fabric.rate_bps),
            fmt_ratio(over)
        ),
    })
}

/// Classic k-ary fat tree: k pods of k/2 ToRs and k/2 aggs, (k/2)^2 cores,
/// k/2 hosts per ToR, so k^3/4 hosts (k = 8: 128 hosts, 80 switches).
/// Built as [`fat_tree3`] with pods = k, tors_per_pod = aggs_per_pod =
/// hosts_per_tor = k/2, cores = (k/2)^2. `k` must be even and at least 2.
pub fn fat_tree(k: u32, host: Tier, fabric: Tier) -> Result<Topology, String> {
    if k < 2 || !k.is_multiple_of(2) {
        return Err(format!("k = {k}: must be an even number >= 2"));
    }
    let h = k / 2;
    let cores = h.checked_mul(h).ok_or_else(|| format!("k = {k}: too large"))?;
    let mut t = fat_tree3(k, h, h, h, cores, host, fabric).map_err(|e| format!("k = {k}: {e}"))?;
    t.name = format!(
        "fat tree k={k}: {} hosts at {}, fabric {}",
        t.hosts().len(),
        fmt_rate(host.rate_bps),
        fmt_rate(fabric.rate_bps)
    );
    Ok(t)
}

fn default_delay() -> Dur {
    Dur(US)
}
fn default_switches() -> u32 {
    2
}

/// The `topology` table of a scenario file, selected by `kind`.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopoSpec {
    /// Senders and receivers joined by a chain of switches; see [`dumbbell`].
    Dumbbell {
        /// Hosts on each side: senders 0..n on the left, receivers n..2n on
        /// the right. Required.
        hosts_per_side: u32,
        /// Rate of every host link. Required.
        host_rate: Rate,
        /// Rate of the switch-to-switch links. Default: `host_rate`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bottleneck_rate: Option<Rate>,
        /// One-way delay of every link. Default 1us (the per-link delay of the
        /// HPCC reference topology, `/work/shared/bench/README.md`).
        #[serde(default = "default_delay")]
        delay: Dur,
        /// Switches in the chain between the two sides (>= 2). Default 2
        /// (classic dumbbell); FNCC's evaluation uses 3.
        #[serde(default = "default_switches")]
        switches: u32,
    },
    /// All hosts on one switch; see [`star`].
    Star {
        /// Number of hosts (>= 2). Required.
        hosts: u32,
        /// Rate of every link. Required.
        rate: Rate,
        /// One-way delay of every link. Default 1us (HPCC reference topology).
        #[serde(default = "default_delay")]
        delay: Dur,
    },
    /// Two-tier leaf-spine; see [`leaf_spine`].
    LeafSpine {
        /// Leaf (ToR) switches. Required.
        leaves: u32,
        /// Spine switches, each linked to every leaf. Required.
        spines: u32,
        /// Hosts per leaf. Required.
        hosts_per_leaf: u32,
        /// Rate of host links. Required.
        host_rate: Rate,
        /// Rate of leaf-spine links. Default: `host_rate`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fabric_rate: Option<Rate>,
        /// One-way delay of host links (and of fabric links unless
        /// `fabric_delay` is set). Default 1us (HPCC reference topology).
        #[serde(default = "default_delay")]
        delay: Dur,
        /// One-way delay of leaf-spine links. Default: `delay`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fabric_delay: Option<Dur>,
    },
    /// Classic k-ary fat tree (k^3/4 hosts); see [`fat_tree`].
    FatTree {
        /// Switch radix: even, >= 2. Required.
        k: u32,
        /// Rate of host links. Required.
        host_rate: Rate,
        /// Rate of ToR-agg and agg-core links. Default: `host_rate`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fabric_rate: Option<Rate>,
        /// One-way delay of host links (and of fabric links unless
        /// `fabric_delay` is set). Default 1us (HPCC reference topology).
        #[serde(default = "default_delay")]
        delay: Dur,
        /// One-way delay of switch-switch links. Default: `delay`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fabric_delay: Option<Dur>,
    },
    /// General 3-tier fat tree; see [`fat_tree3`]. The HPCC/OSCAR 320-host
    /// shape is pods=5, tors_per_pod=4, aggs_per_pod=4, hosts_per_tor=16,
    /// cores=16, host_rate 100Gbps, fabric_rate 400Gbps, delay 1us.
    FatTree3 {
        /// Pods. Required.
        pods: u32,
        /// ToR switches per pod. Required.
        tors_per_pod: u32,
        /// Aggregation switches per pod (each linked to every ToR of its pod). Required.
        aggs_per_pod: u32,
        /// Hosts per ToR. Required.
        hosts_per_tor: u32,
        /// Core switches; a multiple of `aggs_per_pod`. Required.
        cores: u32,
        /// Rate of host links. Required.
        host_rate: Rate,
        /// Rate of ToR-agg and agg-core links. Default: `host_rate`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fabric_rate: Option<Rate>,
        /// One-way delay of host links (and of fabric links unless
        /// `fabric_delay` is set). Default 1us (HPCC reference topology).
        #[serde(default = "default_delay")]
        delay: Dur,
        /// One-way delay of switch-switch links. Default: `delay`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fabric_delay: Option<Dur>,
    },
    /// A topology file in the HPCC ns-3 format; see [`hpcc::read_topology`].
    HpccFile {
        /// Path to the file; relative paths are resolved against the scenario
        /// file's folder. Required.
        path: PathBuf,
    },
}

impl TopoSpec {
    /// The `kind` string of this spec.
    pub fn kind(&self) -> &'static str {
        match self {
            TopoSpec::Dumbbell { .. } => "dumbbell",
            TopoSpec::Star { .. } => "star",
            TopoSpec::LeafSpine { .. } => "leaf_spine",
            TopoSpec::FatTree { .. } => "fat_tree",
            TopoSpec::FatTree3 { .. } => "fat_tree3",
            TopoSpec::HpccFile { .. } => "hpcc_file",
        }
    }

    /// Builds the topology; relative file paths are resolved against
    /// `base_dir` (the scenario file's folder). Impossible shapes are refused
    /// naming the field and value, and the result passes [`Topology::validate`].
    pub fn build(&self, base_dir: &Path) -> Result<Topology, String> {
        let fab = |host: &Rate, fr: &Option<Rate>, d: &Dur, fd: &Option<Dur>| {
            Tier::new(fr.unwrap_or(*host).0, fd.unwrap_or(*d).0)
        };
        let t = match self {
            TopoSpec::Dumbbell { hosts_per_side, host_rate, bottleneck_rate, delay, switches } => dumbbell(
                *hosts_per_side,
                Tier::new(host_rate.0, delay.0),
                Tier::new(bottleneck_rate.unwrap_or(*host_rate).0, delay.0),
                *switches,
            ),
            TopoSpec::Star { hosts, rate, delay } => star(*hosts, Tier::new(rate.0, delay.0)),
            TopoSpec::LeafSpine { leaves, spines, hosts_per_leaf, host_rate, fabric_rate, delay, fabric_delay } => {
                leaf_spine(
                    *leaves,
                    *spines,
                    *hosts_per_leaf,
                    Tier::new(host_rate.0, delay.0),
                    fab(host_rate, fabric_rate, delay, fabric_delay),
                )
            }
            TopoSpec::FatTree { k, host_rate, fabric_rate, delay, fabric_delay } => {
                fat_tree(*k, Tier::new(host_rate.0, delay.0), fab(host_rate, fabric_rate, delay, fabric_delay))
            }
            TopoSpec::FatTree3 {
                pods,
                tors_per_pod,
                aggs_per_pod,
                hosts_per_tor,
                cores,
                host_rate,
                fabric_rate,
                delay,
                fabric_delay,
            } => fat_tree3(
                *pods,
                *tors_per_pod,
                *aggs_per_pod,
                *hosts_per_tor,
                *cores,
                Tier::new(host_rate.0, delay.0),
                fab(host_rate, fabric_rate, delay, fabric_delay),
            ),
            TopoSpec::HpccFile { path } => hpcc::read_topology(&base_dir.join(path)),
        }
        .map_err(|e| format!("topology ({}): {e}", self.kind()))?;
        t.validate().map_err(|e| format!("topology ({}): {e}", self.kind()))?;
        Ok(t)
    }
}

/// A `[[link]]` entry of a scenario file: one direction of a topology's
/// link (or both) given its own rate and delay, as a degraded or
/// asymmetric link (uet-htsim's `-failed N` slows the core-to-aggregation
/// direction of N links to a quarter, fat_tree_topology.cpp `alloc_queue`).
/// Queues of a slowed port follow its rate under `network.ecn.scale_per_25g`
/// and `network.trim.scale_per_100g`.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkOverride {
    /// The node the direction leaves. Required.
    pub from: u32,
    /// The node it reaches; a topology link must join the two. Required.
    pub to: u32,
    /// Its rate. Default: the topology's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Its one-way propagation delay. Default: the topology's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Dur>,
    /// Set both directions. Default false: only `from` -> `to`.
    #[serde(default)]
    pub both: bool,
}

/// Applies `[[link]]` entries to `topo`, in order. Errors name the entry.
pub fn apply_links(topo: &mut Topology, links: &[LinkOverride]) -> Result<(), String> {
    for (i, o) in links.iter().enumerate() {
        let name = format!("link[{i}] ({} -> {})", o.from, o.to);
        let li = topo
            .link_between(o.from, o.to)
            .ok_or_else(|| format!("{name}: no link joins node {} and node {}", o.from, o.to))?;
        if o.rate.is_none() && o.delay.is_none() {
            return Err(format!("{name}: set rate, delay or both"));
        }
        let l = &mut topo.links[li];
        let ends = if o.both { vec![o.from, o.to] } else { vec![o.from] };
        for from in ends {
            let mut d = l.from(from);
            d.rate_bps = o.rate.map_or(d.rate_bps, |r| r.0);
            d.delay = o.delay.map_or(d.delay, |x| x.0);
            l.set_from(from, d);
        }
    }
    Ok(())
}

/// Topology kinds and their parameters with defaults, for `ccsim list`.
pub fn describe() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "dumbbell",
            "hosts_per_side (senders 0..n left, receivers n..2n right), host_rate, bottleneck_rate (default host_rate), \
             delay (every link, default 1us), switches (chain length >= 2, default 2)",
        ),
        ("star", "hosts (>= 2), rate, delay (default 1us)"),
        (
            "leaf_spine",
            "leaves, spines, hosts_per_leaf, host_rate, fabric_rate (default host_rate), delay (default 1us), \
             fabric_delay (default delay); name reports oversubscription",
        ),
        (
            "fat_tree",
            "k (even >= 2; k^3/4 hosts), host_rate, fabric_rate (default host_rate), delay (default 1us), fabric_delay (default delay)",
        ),
        (
            "fat_tree3",
            "pods, tors_per_pod, aggs_per_pod, hosts_per_tor, cores (multiple of aggs_per_pod), host_rate, \
             fabric_rate (default host_rate), delay (default 1us), fabric_delay (default delay); \
             HPCC 320-host: pods=5 tors_per_pod=4 aggs_per_pod=4 hosts_per_tor=16 cores=16",
        ),
        ("hpcc_file", "path (HPCC ns-3 topology file, relative to the scenario file)"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testde::{from, m, s, V};
    use std::collections::BTreeMap;

    const G: u64 = 1_000_000_000;

    fn bench_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench")
    }

    fn degree(t: &Topology) -> Vec<u32> {
        let mut d = vec![0; t.nodes.len()];
        for l in &t.links {
            d[l.a as usize] += 1;
            d[l.b as usize] += 1;
        }
        d
    }

    /// Tier of every node, found from the wiring alone: 0 host, 1 switch next
    /// to a host, 2 switch next to a tier-1 switch, 3 the rest.
    fn tiers(t: &Topology) -> Vec<u8> {
        let n = t.nodes.len();
        let mut tier = vec![3u8; n];
        for h in t.hosts() {
            tier[h as usize] = 0;
        }
        for l in &t.links {
            for (x, y) in [(l.a, l.b), (l.b, l.a)] {
                if tier[x as usize] == 0 && tier[y as usize] != 0 {
                    tier[y as usize] = 1;
                }
            }
        }
        for l in &t.links {
            for (x, y) in [(l.a, l.b), (l.b, l.a)] {
                if tier[x as usize] == 1 && tier[y as usize] == 3 {
                    tier[y as usize] = 2;
                }
            }
        }
        tier
    }

    /// Multiset of (lower tier, upper tier, rate) link classes and, per tier,
    /// the multiset of degrees.
    /// (lower tier, upper tier, rate) -> links, and (tier, degree) -> nodes.
    type Structure = (BTreeMap<(u8, u8, u64), u32>, BTreeMap<(u8, u32), u32>);

    fn structure(t: &Topology) -> Structure {
        let tier = tiers(t);
        let mut adj = BTreeMap::new();
        for l in &t.links {
            let (x, y) = (tier[l.a as usize], tier[l.b as usize]);
            *adj.entry((x.min(y), x.max(y), l.rate_bps)).or_insert(0) += 1;
        }
        let mut deg = BTreeMap::new();
        for (i, d) in degree(t).into_iter().enumerate() {
            *deg.entry((tier[i], d)).or_insert(0) += 1;
        }
        (adj, deg)
    }

    #[test]
    fn dumbbell_shape() {
        let t = dumbbell(4, Tier::new(100 * G, US), Tier::new(40 * G, 2 * US), 3).unwrap();
        t.validate().unwrap();
        assert_eq!(t.hosts(), (0..8).collect::<Vec<_>>());
        assert_eq!(t.switches(), vec![8, 9, 10]);
        assert_eq!(t.links.len(), 8 + 2);
        for l in &t.links[..4] {
            assert_eq!((l.b, l.rate_bps, l.delay), (8, 100 * G, US));
        }
        for l in &t.links[4..8] {
            assert_eq!(l.b, 10);
        }
        assert_eq!(t.links[8], LinkSpec { a: 8, b: 9, rate_bps: 40 * G, delay: 2 * US, back: None });
        assert_eq!(t.links[9], LinkSpec { a: 9, b: 10, rate_bps: 40 * G, delay: 2 * US, back: None });
        assert!(t.name.contains("bottleneck 40Gbps"), "{}", t.name);
        let e = dumbbell(4, Tier::new(G, US), Tier::new(G, US), 1).unwrap_err();
        assert!(e.contains("switches = 1"), "{e}");
        let e = dumbbell(0, Tier::new(G, US), Tier::new(G, US), 2).unwrap_err();
        assert!(e.contains("hosts_per_side = 0"), "{e}");
    }

    #[test]
    fn star_and_leaf_spine_shapes() {
        let t = star(5, Tier::new(25 * G, 500_000)).unwrap();
        t.validate().unwrap();
        assert_eq!(t.nodes.len(), 6);
        assert!(t.links.iter().enumerate().all(|(i, l)| l.a == i as u32 && l.b == 5 && l.delay == 500_000));
        assert!(star(1, Tier::new(G, US)).unwrap_err().contains("hosts = 1"));

        let t = leaf_spine(4, 2, 8, Tier::new(100 * G, US), Tier::new(200 * G, 2 * US)).unwrap();
        t.validate().unwrap();
        assert_eq!(t.hosts(), (0..32).collect::<Vec<_>>());
        assert_eq!(t.switches(), (32..38).collect::<Vec<_>>());
        assert_eq!(t.links.len(), 32 + 8);
        assert_eq!(t.links[9], LinkSpec { a: 9, b: 33, rate_bps: 100 * G, delay: US, back: None });
        let fabric: Vec<(u32, u32)> = t.links[32..].iter().map(|l| (l.a, l.b)).collect();
        assert_eq!(fabric, vec![(32, 36), (32, 37), (33, 36), (33, 37), (34, 36), (34, 37), (35, 36), (35, 37)]);
        assert!(t.links[32..].iter().all(|l| l.rate_bps == 200 * G && l.delay == 2 * US));
        // 8 x 100G down, 2 x 200G up
        assert!(t.name.contains("oversubscription 2:1"), "{}", t.name);
        let t = leaf_spine(2, 4, 6, Tier::new(100 * G, US), Tier::new(100 * G, US)).unwrap();
        assert!(t.name.contains("oversubscription 1.5:1"), "{}", t.name);
        assert!(leaf_spine(2, 0, 4, Tier::new(G, US), Tier::new(G, US)).unwrap_err().contains("spines = 0"));
        assert!(leaf_spine(1, 1, 1, Tier::new(G, US), Tier::new(G, US)).unwrap_err().contains("at least 2 hosts"));
    }

    #[test]
    fn k_ary_fat_tree() {
        let t = fat_tree(8, Tier::new(100 * G, US), Tier::new(100 * G, US)).unwrap();
        t.validate().unwrap();
        assert_eq!(t.hosts(), (0..128).collect::<Vec<_>>());
        assert_eq!(t.switches().len(), 32 + 32 + 16);
        assert_eq!(t.links.len(), 128 + 128 + 128);
        let (adj, deg) = structure(&t);
        assert_eq!(adj.values().copied().collect::<Vec<_>>(), vec![128, 128, 128]);
        // every switch has radix k = 8
        assert_eq!(deg.get(&(1, 8)), Some(&32));
        assert_eq!(deg.get(&(2, 8)), Some(&32));
        assert_eq!(deg.get(&(3, 8)), Some(&16));
        assert!(t.name.starts_with("fat tree k=8: 128 hosts"), "{}", t.name);
        let t = fat_tree(4, Tier::new(G, US), Tier::new(G, US)).unwrap();
        assert_eq!((t.hosts().len(), t.switches().len(), t.links.len()), (16, 20, 48));
        let t = fat_tree(2, Tier::new(G, US), Tier::new(G, US)).unwrap();
        t.validate().unwrap();
        assert_eq!(t.hosts().len(), 2);
        for k in [0, 1, 7] {
            let e = fat_tree(k, Tier::new(G, US), Tier::new(G, US)).unwrap_err();
            assert!(e.contains(&format!("k = {k}")) && e.contains("even"), "{e}");
        }
        assert!(fat_tree(400, Tier::new(G, US), Tier::new(G, US)).unwrap_err().contains("limit"));
    }

    #[test]
    fn fat_tree3_validation() {
        let t = |c| fat_tree3(2, 2, 4, 2, c, Tier::new(G, US), Tier::new(G, US));
        let e = t(10).unwrap_err();
        assert!(e.contains("cores = 10") && e.contains("aggs_per_pod = 4"), "{e}");
        assert!(t(4).is_ok());
        let e = fat_tree3(2, 0, 4, 2, 4, Tier::new(G, US), Tier::new(G, US)).unwrap_err();
        assert!(e.contains("tors_per_pod = 0"), "{e}");
        let e = fat_tree3(1, 1, 1, 1, 1, Tier::new(G, US), Tier::new(G, US)).unwrap_err();
        assert!(e.contains("at least 2 hosts"), "{e}");
    }

    fn fat320() -> TopoSpec {
        TopoSpec::FatTree3 {
            pods: 5,
            tors_per_pod: 4,
            aggs_per_pod: 4,
            hosts_per_tor: 16,
            cores: 16,
            host_rate: Rate(100 * G),
            fabric_rate: Some(Rate(400 * G)),
            delay: Dur(US),
            fabric_delay: None,
        }
    }

    #[test]
    fn fat_tree3_matches_hpcc_320_host_file() {
        let t = fat320().build(Path::new(".")).unwrap();
        assert_eq!(t.hosts().len(), 320);
        assert_eq!(t.switches().len(), 56);
        assert_eq!(t.links.len(), 480);
        let (adj, deg) = structure(&t);
        let want_adj: BTreeMap<(u8, u8, u64), u32> =
            [((0, 1, 100 * G), 320), ((1, 2, 400 * G), 80), ((2, 3, 400 * G), 80)].into();
        assert_eq!(adj, want_adj);
        // 20 ToRs of degree 16+4, 20 aggs of 4+4, 16 cores of 5
        let want_deg: BTreeMap<(u8, u32), u32> = [((0, 1), 320), ((1, 20), 20), ((2, 8), 20), ((3, 5), 16)].into();
        assert_eq!(deg, want_deg);

        let p = bench_dir().join("fat320.topology.txt");
        if !p.exists() {
            println!("note: {} absent, comparison with the file skipped", p.display());
            return;
        }
        let f = hpcc::read_topology(&p).unwrap();
        assert_eq!(structure(&f), (adj, deg));
        // the numbering coincides too: same nodes and the same link list
        assert_eq!(f.nodes, t.nodes);
        let key = |l: &LinkSpec| (l.a.min(l.b), l.a.max(l.b), l.rate_bps, l.delay);
        let mut a: Vec<_> = t.links.iter().map(key).collect();
        let mut b: Vec<_> = f.links.iter().map(key).collect();
        assert_eq!(a, b, "link order differs from the file");
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
    }

    #[test]
    fn spec_deserializes_with_defaults() {
        let spec: TopoSpec =
            from(m(&[("kind", s("dumbbell")), ("hosts_per_side", V::U(3)), ("host_rate", s("25Gbps"))])).unwrap();
        assert_eq!(
            spec,
            TopoSpec::Dumbbell {
                hosts_per_side: 3,
                host_rate: Rate(25 * G),
                bottleneck_rate: None,
                delay: Dur(US),
                switches: 2
            }
        );
        let t = spec.build(Path::new(".")).unwrap();
        assert_eq!(t.links.len(), 7);
        assert!(t.links.iter().all(|l| l.rate_bps == 25 * G && l.delay == US));

        let spec: TopoSpec = from(m(&[
            ("kind", s("fat_tree")),
            ("k", V::U(4)),
            ("host_rate", s("100Gbps")),
            ("fabric_rate", s("400Gbps")),
            ("delay", s("2us")),
            ("fabric_delay", s("500ns")),
        ]))
        .unwrap();
        let t = spec.build(Path::new(".")).unwrap();
        for l in &t.links {
            let host_link = t.is_host(l.a) || t.is_host(l.b);
            assert_eq!((l.rate_bps, l.delay), if host_link { (100 * G, 2 * US) } else { (400 * G, 500_000) });
        }

        let spec: TopoSpec = from(m(&[
            ("kind", s("leaf_spine")),
            ("leaves", V::U(2)),
            ("spines", V::U(1)),
            ("hosts_per_leaf", V::U(2)),
            ("host_rate", s("10Gbps")),
        ]))
        .unwrap();
        let t = spec.build(Path::new(".")).unwrap();
        assert!(t.links.iter().all(|l| l.rate_bps == 10 * G && l.delay == US));
        let spec: TopoSpec =
            from(m(&[("kind", s("star")), ("hosts", V::U(3)), ("rate", s("1Gbps")), ("delay", s("3us"))])).unwrap();
        assert_eq!(spec, TopoSpec::Star { hosts: 3, rate: Rate(G), delay: Dur(3 * US) });
    }

    #[test]
    fn spec_refuses_unknown_fields_kinds_and_bad_values() {
        let e =
            from::<TopoSpec>(m(&[("kind", s("star")), ("hosts", V::U(3)), ("rate", s("1Gbps")), ("colour", s("red"))]))
                .unwrap_err();
        assert!(e.contains("colour"), "{e}");
        let e = from::<TopoSpec>(m(&[("kind", s("torus")), ("hosts", V::U(3))])).unwrap_err();
        assert!(e.contains("torus"), "{e}");
        let e = from::<TopoSpec>(m(&[("kind", s("star")), ("hosts", V::U(3)), ("rate", s("fast"))])).unwrap_err();
        assert!(e.contains("'fast'"), "{e}");
        let e = from::<TopoSpec>(m(&[("kind", s("star")), ("rate", s("1Gbps"))])).unwrap_err();
        assert!(e.contains("hosts"), "{e}");
        let spec: TopoSpec = from(m(&[("kind", s("fat_tree")), ("k", V::U(5)), ("host_rate", s("1Gbps"))])).unwrap();
        let e = spec.build(Path::new(".")).unwrap_err();
        assert_eq!(e, "topology (fat_tree): k = 5: must be an even number >= 2");
    }

    #[test]
    fn hpcc_file_spec_resolves_relative_path() {
        let td = crate::testutil::TempDir::new("topo");
        let dir = td.path().to_path_buf();
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/t.txt"), "3 1 2\n2\n0 2 10Gbps 1us 0\n1 2 10Gbps 1us 0\n").unwrap();
        let spec: TopoSpec = from(m(&[("kind", s("hpcc_file")), ("path", s("sub/t.txt"))])).unwrap();
        let t = spec.build(&dir).unwrap();
        assert_eq!(t.hosts(), vec![0, 1]);
        assert_eq!(t.links.len(), 2);
        let e = spec.build(Path::new("/nonexistent")).unwrap_err();
        assert!(e.contains("/nonexistent/sub/t.txt") && e.starts_with("topology (hpcc_file):"), "{e}");
    }

    #[test]
    fn describe_lists_every_kind() {
        let kinds: Vec<&str> = describe().iter().map(|d| d.0).collect();
        assert_eq!(kinds, ["dumbbell", "star", "leaf_spine", "fat_tree", "fat_tree3", "hpcc_file"]);
        // each described kind is accepted by the deserializer (fails on missing fields, not on the kind)
        for k in kinds {
            let e = from::<TopoSpec>(m(&[("kind", s(k))])).unwrap_err();
            assert!(e.contains("missing field"), "{k}: {e}");
        }
        assert_eq!(fat320().kind(), "fat_tree3");
    }
}
