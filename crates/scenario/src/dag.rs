//! Traces from outside as workloads: ccsim's own DAG trace format
//! (`kind = "dag"`, a JSON file; see docs/TRACES.md) and the lowering that it
//! shares with the Chakra importer ([`crate::chakra`]).
//!
//! A trace is a graph of nodes per rank: sends, receives, compute and
//! collectives, each waiting for other nodes of its rank. [`lower`] turns it
//! into a [`Part`]: the k-th send from rank a to rank b (with a tag) and the
//! k-th receive on b from a (same tag) become one message on a persistent
//! connection a -> b; a compute node becomes a compute task on its rank's
//! host; a collective becomes the messages of [`crate::collective`] over all
//! ranks. The whole graph may be repeated (`iterations`), each rank's roots
//! of iteration k+1 waiting for its sinks of iteration k: directly while
//! that takes few dependencies, else through one zero-length task of the
//! rank that waits for the sinks and that the roots wait for (a join: the
//! same times, roots + sinks dependencies instead of roots x sinks, so
//! lowering stays linear; see [`crate::conns::through_join`]).
//!
//! Dependencies keep their meaning on each side. The core counts a message's
//! dependency as done at its delivery when the message leaves from the
//! dependency's receiver, else at its completion (see `ccsim_core::msg`), so:
//! * a node waiting for a send on its rank waits for the message to be
//!   acknowledged (the send is complete), one waiting for a receive waits for
//!   its delivery;
//! * a message waits for its send node's dependencies (judged from the
//!   sender) and its receive node's; those of the receive are judged from the
//!   receiver: when one of them is a message, they go through a zero-length
//!   task on the receiver's host (the receive "posted");
//! * a collective node of rank r starts r's part of the collective when its
//!   dependencies are done (a zero-length task on r that each of r's messages
//!   of the collective waits for) and is done, for what waits for it on r,
//!   when every message r sent in it is acknowledged and every message r
//!   received is delivered (another zero-length task on r).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::Path;

use crate::collective::{Collective, Op};
use crate::conns::{ConnPool, MsgMeta, Part};
use crate::spec::{MAX_FLOWS, MAX_TOTAL_BYTES};
use ccsim_core::flow::MessageSpec;
use ccsim_core::rng::Rng;
use ccsim_core::time::{Time, SEC};
use ccsim_core::units::{fmt_dur, parse_bytes, parse_dur, MAX_BYTES, MAX_DURATION};
use serde_json::{Map, Value};

/// What a trace node does.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// Sends `size` bytes to rank `peer`.
    Send { peer: u32, size: u64, tag: u64 },
    /// Receives `size` bytes from rank `peer`.
    Recv { peer: u32, size: u64, tag: u64 },
    /// Computes for a while (0: a node that only orders others).
    Compute(Time),
    /// A collective over the ranks of process group `group` (0: every rank,
    /// in rank order; else [`Trace::groups`]); each member has its own node,
    /// the k-th of each member's nodes of the group matched together.
    Collective { op: Op, size: u64, group: u32 },
}

/// One node of one rank.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Unique within its rank.
    pub id: u64,
    pub kind: Kind,
    /// Ids of nodes of the same rank that must be done first (any order in the file).
    pub deps: Vec<u64>,
}

/// A trace: per rank, its nodes in file order.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Per rank, the file it came from (for messages).
    pub files: Vec<String>,
    pub ranks: Vec<Vec<Node>>,
    /// The name of the dependency field in this format (for messages).
    pub deps_field: &'static str,
    /// How a send is issued: false (ccsim's DAG traces), when both its own
    /// dependencies and its receive's are done; true (Chakra, as ASTRA-sim
    /// issues it: `Workload::issue_comm` and the analytical backend's
    /// `sim_send` without `--rendezvous-protocol`), as soon as its own are,
    /// the receive being done when the message has arrived and the receive's
    /// dependencies are done.
    pub eager_sends: bool,
    /// Process groups other than 0 (all ranks): id -> member ranks, in ring
    /// order (Chakra: ASTRA-sim's communicator-group file).
    pub groups: BTreeMap<u32, Vec<u32>>,
    /// What the reader changed or left out (see [`Part::notes`]).
    pub notes: Vec<String>,
}

/// How a trace becomes traffic.
#[derive(Clone, Debug)]
pub struct Options {
    /// Rank -> host (distinct hosts, one per rank).
    pub hosts: Vec<u32>,
    pub iterations: u32,
    /// Release time of the roots of the first iteration.
    pub start: Time,
    /// Connections per ordered rank pair (a message takes one at random).
    pub connections: u32,
    pub prio: u8,
}

/// Where in a trace: "file: rank r node id".
fn loc(t: &Trace, r: usize, id: u64) -> String {
    format!("{}: rank {r} node {id}", t.files[r])
}

/// What a unit of the lowered graph is.
#[derive(Clone, Copy, Debug)]
enum Unit {
    /// One matched send/receive: (rank, index) of each.
    Msg { send: (u32, u32), recv: (u32, u32) },
    /// A receive's dependencies, judged on the receiver (a zero-length task).
    Post { recv: (u32, u32) },
    /// With eager sends: a receive that has dependencies is done when its
    /// message (unit `msg`) has arrived and they are done (a zero-length
    /// task on the receiver).
    Recv { msg: u32, recv: (u32, u32) },
    /// A compute node (or one that only orders others).
    Task { node: (u32, u32) },
    /// Collective k starts on rank r (zero-length task).
    CollStart { k: u32, node: (u32, u32) },
    /// Collective k's messages.
    CollMsgs { k: u32 },
    /// Collective k is done on rank r (zero-length task).
    CollEnd { k: u32, node: (u32, u32) },
    /// Rank r's sinks are done (a zero-length task on r that the rank's
    /// roots of the next iteration wait for; not made in the last iteration).
    Join { rank: u32 },
}

impl Unit {
    /// Whether it is a compute task (done at one time, wherever judged from).
    fn is_task(self) -> bool {
        !matches!(self, Unit::Msg { .. } | Unit::CollMsgs { .. })
    }
}

/// A matched send and receive: (rank, node index) of each.
type Match = ((u32, u32), (u32, u32));

/// The lowered graph, before it is repeated over iterations.
struct Graph {
    units: Vec<Unit>,
    /// Per unit: units of the same iteration it waits for.
    deps: Vec<Vec<u32>>,
    /// Per unit: units of the previous iteration it waits for.
    prev: Vec<Vec<u32>>,
    /// Per collective: the unit of its messages.
    coll_msgs: Vec<u32>,
}

/// Checks `t` and turns it into connections, messages and tasks (ids local
/// to the part). `w` names the workload entry (`workload[3]`). Errors name
/// the file, the rank, the node and the field.
pub fn lower(w: &str, t: &Trace, o: &Options, rng: &mut Rng) -> Result<Part, String> {
    let n = t.ranks.len();
    let file = t.files.first().cloned().unwrap_or_default();
    if n == 0 {
        return Err(format!("{w}: {file}: the trace has no ranks"));
    }
    if o.hosts.len() != n {
        return Err(format!(
            "{w}.hosts: {} host(s) given for the {n} rank(s) of {file}: give one host per rank",
            o.hosts.len()
        ));
    }
    if o.iterations == 0 {
        return Err(format!("{w}.iterations = 0: must be at least 1"));
    }
    // node ids -> index, per rank; dependencies as indexes
    let mut deps: Vec<Vec<Vec<u32>>> = Vec::with_capacity(n);
    for (r, nodes) in t.ranks.iter().enumerate() {
        let mut index: HashMap<u64, u32> = HashMap::with_capacity(nodes.len());
        for (i, x) in nodes.iter().enumerate() {
            if index.insert(x.id, i as u32).is_some() {
                return Err(format!("{w}: {}: id: node {} appears twice on rank {r}", loc(t, r, x.id), x.id));
            }
        }
        let mut rd = Vec::with_capacity(nodes.len());
        for x in nodes {
            let mut v = Vec::with_capacity(x.deps.len());
            for &d in &x.deps {
                match index.get(&d) {
                    Some(&j) => v.push(j),
                    None => {
                        return Err(format!(
                            "{w}: {}: {} = {d}: no node {d} on rank {r} (dependencies name nodes of the same rank; \
                             other ranks are reached through send/recv pairs)",
                            loc(t, r, x.id),
                            t.deps_field
                        ))
                    }
                }
            }
            v.sort_unstable();
            v.dedup();
            rd.push(v);
            match x.kind {
                Kind::Send { peer, .. } | Kind::Recv { peer, .. } if peer as usize >= n => {
                    return Err(format!(
                        "{w}: {}: peer = {peer}: rank out of range (the trace has {n} ranks, 0..{})",
                        loc(t, r, x.id),
                        n - 1
                    ))
                }
                Kind::Send { peer, .. } | Kind::Recv { peer, .. } if peer as usize == r => {
                    return Err(format!("{w}: {}: peer = {peer}: a rank cannot send to itself", loc(t, r, x.id)))
                }
                _ => {}
            }
        }
        deps.push(rd);
    }

    // match the k-th send a -> b with the k-th receive on b from a (same tag)
    type Ends = (Vec<(u32, u32)>, Vec<(u32, u32)>);
    let mut pairs: BTreeMap<(u32, u32, u64), Ends> = BTreeMap::new();
    for (r, nodes) in t.ranks.iter().enumerate() {
        for (i, x) in nodes.iter().enumerate() {
            match x.kind {
                Kind::Send { peer, tag, .. } => {
                    pairs.entry((r as u32, peer, tag)).or_default().0.push((r as u32, i as u32))
                }
                Kind::Recv { peer, tag, .. } => {
                    pairs.entry((peer, r as u32, tag)).or_default().1.push((r as u32, i as u32))
                }
                _ => {}
            }
        }
    }
    let node = |(r, i): (u32, u32)| &t.ranks[r as usize][i as usize];
    let size_of = |x: &Node| match x.kind {
        Kind::Send { size, .. } | Kind::Recv { size, .. } => size,
        _ => 0,
    };
    let mut matched = Vec::new();
    for (&(a, b, tag), (sends, recvs)) in &pairs {
        let tagged = if tag != 0 { format!(" with tag {tag}") } else { String::new() };
        if sends.len() != recvs.len() {
            let k = sends.len().min(recvs.len());
            let (what, at) = if sends.len() > k { ("send to", sends[k]) } else { ("recv from", recvs[k]) };
            let other = if sends.len() > k { b } else { a };
            return Err(format!(
                "{w}: {}: unmatched {what} rank {other}{tagged}: rank {a} sends {} message(s) to rank {b}{tagged} and \
                 rank {b} receives {} (the k-th send is matched with the k-th recv, in file order)",
                loc(t, at.0 as usize, node(at).id),
                sends.len(),
                recvs.len()
            ));
        }
        for (k, (&s, &v)) in sends.iter().zip(recvs).enumerate() {
            let (ss, rs) = (size_of(node(s)), size_of(node(v)));
            if ss != rs {
                return Err(format!(
                    "{w}: {}: size = {rs}: send {} of rank {a} to rank {b}{tagged} ({}) has size = {ss}",
                    loc(t, v.0 as usize, node(v).id),
                    k + 1,
                    loc(t, s.0 as usize, node(s).id)
                ));
            }
            matched.push((s, v));
        }
    }

    let (inst, parts) = match_collectives(w, t, o)?;

    let g = build(t, &deps, &matched, &inst, &parts, o.iterations > 1);
    let order = toposort(w, t, &g)?;

    // size and time limits before making anything
    let per_iter: u64 = g
        .units
        .iter()
        .map(|u| match *u {
            Unit::CollMsgs { k } => parts[k as usize].as_ref().map_or(0, |p| p.messages.len() as u64),
            _ => 1,
        })
        .sum();
    // (the last iteration makes no join)
    let joins = g.units.iter().filter(|u| matches!(u, Unit::Join { .. })).count() as u128;
    let total = per_iter as u128 * o.iterations as u128 - joins;
    if total > MAX_FLOWS as u128 {
        return Err(format!(
            "{w}.iterations = {}: {file} would make {total} messages and tasks ({per_iter} per iteration); at most {MAX_FLOWS}",
            o.iterations
        ));
    }
    // bytes: each message at most MAX_BYTES (checked where read), all of
    // them together at most MAX_TOTAL_BYTES, so no sum of sizes wraps
    let bytes: u128 = matched.iter().map(|&(s, _)| size_of(node(s)) as u128).sum::<u128>()
        + parts.iter().flatten().flat_map(|p| &p.messages).map(|m| m.size as u128).sum::<u128>();
    if bytes * o.iterations as u128 > MAX_TOTAL_BYTES as u128 {
        return Err(format!(
            "{w}.iterations = {}: {file} carries {bytes} bytes per iteration, {} in all; at most {MAX_TOTAL_BYTES} bytes",
            o.iterations,
            bytes * o.iterations as u128
        ));
    }
    // time: start + the compute on the longest dependency path through all
    // iterations (the network's time comes on top) within the time limit
    let mut done: Vec<u128> = vec![0; g.units.len()];
    let mut before: Vec<u128> = vec![0; g.units.len()];
    let mut end = o.start as u128;
    for it in 0..o.iterations {
        std::mem::swap(&mut done, &mut before);
        for &u in &order {
            let u = u as usize;
            let own = match g.units[u] {
                Unit::Task { node } => match t.ranks[node.0 as usize][node.1 as usize].kind {
                    Kind::Compute(d) => d as u128,
                    _ => 0,
                },
                _ => 0,
            };
            let mut at = g.deps[u].iter().map(|&d| done[d as usize]).max().unwrap_or(o.start as u128);
            if it > 0 {
                at = at.max(g.prev[u].iter().map(|&d| before[d as usize]).max().unwrap_or(0));
            }
            done[u] = at + own;
            end = end.max(done[u]);
        }
    }
    if end > MAX_DURATION as u128 {
        return Err(format!(
            "{w}: {file}: the compute on its longest dependency path{} ends at {:.0} s (start {} included), past the \
             limit of simulated time ({} s)",
            if o.iterations > 1 { format!(" through {} iterations", o.iterations) } else { String::new() },
            end as f64 / SEC as f64,
            fmt_dur(o.start),
            MAX_DURATION / SEC
        ));
    }
    if matched.is_empty() && parts.iter().all(|p| p.is_none()) {
        return Err(format!(
            "{w}: {file}: the trace has no send/recv pair and no collective: nothing crosses the network"
        ));
    }

    let mut part = emit(t, o, &g, &order, &parts, rng);
    part.notes = t.notes.iter().map(|x| format!("{w}: {x}")).collect();
    Ok(part)
}

/// Per rank and node, the collective instance it takes part in (u32::MAX:
/// none), and per instance its messages (None: a group of one rank, which
/// does nothing). Per process group, the k-th collective node of each member
/// form instance k of the group; they must agree in operation and size.
type Instances = (Vec<Vec<u32>>, Vec<Option<Part>>);

fn match_collectives(w: &str, t: &Trace, o: &Options) -> Result<Instances, String> {
    let n = t.ranks.len();
    let all: Vec<u32> = (0..n as u32).collect();
    let members = |g: u32| -> &[u32] {
        if g == 0 {
            &all
        } else {
            t.groups.get(&g).map_or(&[], |v| v.as_slice())
        }
    };
    // per group: per member (in group order) its collective nodes in file order
    let mut by_group: BTreeMap<u32, Vec<Vec<u32>>> = BTreeMap::new();
    for (r, nodes) in t.ranks.iter().enumerate() {
        for (i, x) in nodes.iter().enumerate() {
            let Kind::Collective { group, .. } = x.kind else { continue };
            let m = members(group);
            let Some(pos) = m.iter().position(|&q| q as usize == r) else {
                return Err(format!(
                    "{w}: {}: process group {group} has ranks {m:?}, not rank {r}: a rank takes part only in its \
                     groups' collectives",
                    loc(t, r, x.id)
                ));
            };
            by_group.entry(group).or_insert_with(|| vec![Vec::new(); m.len()])[pos].push(i as u32);
        }
    }
    let mut inst: Vec<Vec<u32>> = t.ranks.iter().map(|v| vec![u32::MAX; v.len()]).collect();
    let mut parts = Vec::new();
    let what = |x: &Node| match x.kind {
        Kind::Collective { op, size, .. } => format!("{} of {size} bytes", op.name()),
        _ => String::new(),
    };
    let in_group = |g: u32| if g == 0 { String::new() } else { format!(" of process group {g}") };
    for (&g, lists) in &by_group {
        let m = members(g);
        let count = lists.iter().map(Vec::len).max().unwrap_or(0);
        if let Some(pos) = lists.iter().position(|l| l.len() != count) {
            let more = lists.iter().position(|l| l.len() == count).expect("the longest list");
            let (rm, rl) = (m[more] as usize, m[pos] as usize);
            let x = &t.ranks[rm][lists[more][lists[pos].len()] as usize];
            return Err(format!(
                "{w}: {}: collective {}{} of rank {rm} has no counterpart: rank {rm} has {count} collective node(s) \
                 in it, rank {rl} has {} (every member takes part in every collective of its group, in order)",
                loc(t, rm, x.id),
                lists[pos].len() + 1,
                in_group(g),
                lists[pos].len()
            ));
        }
        for k in 0..count {
            let r0 = m[0] as usize;
            let first = &t.ranks[r0][lists[0][k] as usize];
            for (pos, l) in lists.iter().enumerate().skip(1) {
                let r = m[pos] as usize;
                let x = &t.ranks[r][l[k] as usize];
                if x.kind != first.kind {
                    return Err(format!(
                        "{w}: {}: collective {}{} is {} here but {} on rank {r0} ({})",
                        loc(t, r, x.id),
                        k + 1,
                        in_group(g),
                        what(x),
                        what(first),
                        loc(t, r0, first.id)
                    ));
                }
            }
            for (pos, l) in lists.iter().enumerate() {
                inst[m[pos] as usize][l[k] as usize] = parts.len() as u32;
            }
            let Kind::Collective { op, size, .. } = first.kind else { unreachable!("a collective node") };
            if m.len() < 2 {
                parts.push(None);
                continue;
            }
            if size < m.len() as u64 {
                return Err(format!(
                    "{w}: {}: size = {size}: a collective over {} ranks needs at least {} bytes (a byte per chunk)",
                    loc(t, r0, first.id),
                    m.len(),
                    m.len()
                ));
            }
            let c = Collective {
                op,
                hosts: m.iter().map(|&r| o.hosts[r as usize]).collect(),
                size,
                channels: 1,
                iterations: 1,
                compute: 0,
                start: o.start,
                prio: o.prio,
            };
            let p = crate::collective::generate(&loc(t, r0, first.id), &c).map_err(|e| format!("{w}: {e}"))?;
            parts.push(Some(p));
        }
    }
    Ok((inst, parts))
}

/// The units of `t` and their dependencies (`iterating`: the graph is
/// repeated, so roots wait for the previous iteration's sinks).
fn build(
    t: &Trace,
    deps: &[Vec<Vec<u32>>],
    matched: &[Match],
    inst: &[Vec<u32>],
    parts: &[Option<Part>],
    iterating: bool,
) -> Graph {
    let n = t.ranks.len();
    let mut units = Vec::new();
    // what a node stands for, for the nodes that wait for it
    let mut rep: Vec<Vec<u32>> = t.ranks.iter().map(|v| vec![u32::MAX; v.len()]).collect();
    for &(s, v) in matched {
        let u = units.len() as u32;
        units.push(Unit::Msg { send: s, recv: v });
        rep[s.0 as usize][s.1 as usize] = u;
        rep[v.0 as usize][v.1 as usize] = u;
    }
    if t.eager_sends {
        for (msg, &(_, v)) in matched.iter().enumerate() {
            if iterating || !deps[v.0 as usize][v.1 as usize].is_empty() {
                rep[v.0 as usize][v.1 as usize] = units.len() as u32;
                units.push(Unit::Recv { msg: msg as u32, recv: v });
            }
        }
    }
    let mut coll_msgs = Vec::new();
    let mut coll_starts: Vec<Vec<u32>> = vec![Vec::new(); parts.len()];
    for (k, p) in parts.iter().enumerate() {
        if p.is_some() {
            coll_msgs.push(units.len() as u32);
            units.push(Unit::CollMsgs { k: k as u32 });
        } else {
            coll_msgs.push(u32::MAX);
        }
    }
    for (r, nodes) in t.ranks.iter().enumerate() {
        for (i, x) in nodes.iter().enumerate() {
            let at = (r as u32, i as u32);
            match x.kind {
                Kind::Compute(_) => {
                    rep[r][i] = units.len() as u32;
                    units.push(Unit::Task { node: at });
                }
                Kind::Collective { .. } => {
                    let k = inst[r][i];
                    if parts[k as usize].is_none() {
                        // a collective of one rank does nothing
                        rep[r][i] = units.len() as u32;
                        units.push(Unit::Task { node: at });
                    } else {
                        coll_starts[k as usize].push(units.len() as u32);
                        units.push(Unit::CollStart { k, node: at });
                        rep[r][i] = units.len() as u32;
                        units.push(Unit::CollEnd { k, node: at });
                    }
                }
                _ => {}
            }
        }
    }
    // per rank: roots (nodes waiting for nothing) and sinks (nodes nothing
    // waits for); with iterations, a join task per rank whose roots x sinks
    // would be too many dependencies
    let mut sinks: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut join: Vec<Option<u32>> = vec![None; n];
    for r in 0..n {
        let mut waited = vec![false; t.ranks[r].len()];
        for d in deps[r].iter().flatten() {
            waited[*d as usize] = true;
        }
        let mut s: Vec<u32> = (0..t.ranks[r].len()).filter(|&i| !waited[i]).map(|i| rep[r][i]).collect();
        s.sort_unstable();
        s.dedup();
        let roots = deps[r].iter().filter(|d| d.is_empty()).count() as u64;
        if iterating && crate::conns::through_join(roots, s.len() as u64) {
            join[r] = Some(units.len() as u32);
            units.push(Unit::Join { rank: r as u32 });
        }
        sinks[r] = s;
    }
    let node_deps = |(r, i): (u32, u32)| -> Vec<u32> {
        deps[r as usize][i as usize].iter().map(|&d| rep[r as usize][d as usize]).collect()
    };
    let iter_deps = |(r, i): (u32, u32)| -> Vec<u32> {
        if iterating && deps[r as usize][i as usize].is_empty() {
            match join[r as usize] {
                Some(j) => vec![j],
                None => sinks[r as usize].clone(),
            }
        } else {
            Vec::new()
        }
    };
    // a receive whose dependencies include a message waits through a post task
    let base = units.len();
    let mut post_of = vec![u32::MAX; base];
    for u in 0..base {
        if let (Unit::Msg { recv, .. }, false) = (units[u], t.eager_sends) {
            if !node_deps(recv).iter().chain(&iter_deps(recv)).all(|&x| units[x as usize].is_task()) {
                post_of[u] = units.len() as u32;
                units.push(Unit::Post { recv });
            }
        }
    }
    let mut g = Graph { units: Vec::new(), deps: Vec::new(), prev: Vec::new(), coll_msgs: Vec::new() };
    for (u, &unit) in units.iter().enumerate() {
        let (mut d, mut p) = match unit {
            Unit::Msg { send, .. } if t.eager_sends => (node_deps(send), iter_deps(send)),
            Unit::Recv { msg, recv } => {
                let mut d = node_deps(recv);
                d.push(msg);
                (d, iter_deps(recv))
            }
            Unit::Msg { send, recv } => {
                let (mut d, mut p) = (node_deps(send), iter_deps(send));
                if post_of[u] == u32::MAX {
                    d.extend(node_deps(recv));
                    p.extend(iter_deps(recv));
                } else {
                    d.push(post_of[u]);
                }
                (d, p)
            }
            Unit::Post { recv: node } | Unit::Task { node } | Unit::CollStart { node, .. } => {
                (node_deps(node), iter_deps(node))
            }
            Unit::CollMsgs { k } => (coll_starts[k as usize].clone(), Vec::new()),
            Unit::CollEnd { k, .. } => (vec![coll_msgs[k as usize]], Vec::new()),
            Unit::Join { rank } => (sinks[rank as usize].clone(), Vec::new()),
        };
        d.sort_unstable();
        d.dedup();
        p.sort_unstable();
        p.dedup();
        g.deps.push(d);
        g.prev.push(p);
    }
    g.units = units;
    g.coll_msgs = coll_msgs;
    g
}

/// Describes unit `u` for a cycle report.
fn describe(t: &Trace, u: Unit) -> String {
    let at = |(r, i): (u32, u32)| loc(t, r as usize, t.ranks[r as usize][i as usize].id);
    match u {
        Unit::Msg { send, recv } => format!("{} (send) / {} (recv)", at(send), at(recv)),
        Unit::Post { recv } | Unit::Recv { recv, .. } => format!("{} (recv)", at(recv)),
        Unit::Task { node } => at(node),
        Unit::CollStart { node, .. } | Unit::CollEnd { node, .. } => format!("{} (collective)", at(node)),
        Unit::CollMsgs { k } => format!("collective {}", k + 1),
        Unit::Join { rank } => format!("{}: rank {rank} (end of an iteration)", t.files[rank as usize]),
    }
}

/// The units in an order where each comes after what it waits for (Kahn,
/// ties in unit order), or the error naming a dependency cycle.
fn toposort(w: &str, t: &Trace, g: &Graph) -> Result<Vec<u32>, String> {
    let nu = g.units.len();
    let mut left: Vec<u32> = g.deps.iter().map(|d| d.len() as u32).collect();
    let mut waiting: Vec<Vec<u32>> = vec![Vec::new(); nu];
    for (u, d) in g.deps.iter().enumerate() {
        for &x in d {
            waiting[x as usize].push(u as u32);
        }
    }
    let mut ready: VecDeque<u32> = (0..nu as u32).filter(|&u| left[u as usize] == 0).collect();
    let mut order = Vec::with_capacity(nu);
    while let Some(u) = ready.pop_front() {
        order.push(u);
        for &x in &waiting[u as usize] {
            left[x as usize] -= 1;
            if left[x as usize] == 0 {
                ready.push_back(x);
            }
        }
    }
    if order.len() == nu {
        return Ok(order);
    }
    // walk from a unit left over through dependencies also left over until one repeats
    let start = (0..nu).find(|&u| left[u] > 0).expect("a unit left over");
    let mut seen = vec![usize::MAX; nu];
    let mut path = Vec::new();
    let mut u = start;
    while seen[u] == usize::MAX {
        seen[u] = path.len();
        path.push(u);
        u = g.deps[u].iter().map(|&x| x as usize).find(|&x| left[x] > 0).expect("a unit left over waits for one");
    }
    let cycle: Vec<String> =
        path[seen[u]..].iter().chain(std::iter::once(&u)).map(|&x| describe(t, g.units[x])).collect();
    Err(format!(
        "{w}: dependency cycle (the trace would deadlock): {} (each waits for the next, through {} or a send/recv pair)",
        cycle.join(" waits for "),
        t.deps_field
    ))
}

/// Makes the part: every unit of `order`, once per iteration.
fn emit(t: &Trace, o: &Options, g: &Graph, order: &[u32], parts: &[Option<Part>], rng: &mut Rng) -> Part {
    let nu = g.units.len();
    let mut pool = ConnPool::new(o.connections, o.prio);
    let mut messages: Vec<MessageSpec> = Vec::new();
    let mut meta = Vec::new();
    let mut cur = vec![u32::MAX; nu];
    let mut prev = vec![u32::MAX; nu];
    // per collective, per rank: (local) last message per connection touching it
    let ends: Vec<Vec<Vec<u32>>> = parts
        .iter()
        .map(|p| {
            let Some(p) = p else { return Vec::new() };
            let mut last: Vec<BTreeMap<u32, u32>> = vec![BTreeMap::new(); o.hosts.len()];
            let rank_of: HashMap<u32, usize> = o.hosts.iter().enumerate().map(|(r, &h)| (h, r)).collect();
            for (i, m) in p.messages.iter().enumerate() {
                let c = p.conns[m.conn as usize];
                last[rank_of[&c.src]].insert(m.conn, i as u32);
                last[rank_of[&c.dst]].insert(m.conn, i as u32);
            }
            last.into_iter().map(|l| l.into_values().collect()).collect()
        })
        .collect();
    // per collective, per rank: the CollStart unit
    let mut starts: Vec<Vec<u32>> = parts.iter().map(|_| vec![u32::MAX; o.hosts.len()]).collect();
    for (u, unit) in g.units.iter().enumerate() {
        if let Unit::CollStart { k, node } = *unit {
            starts[k as usize][node.0 as usize] = u as u32;
        }
    }
    for it in 0..o.iterations {
        for &u in order {
            let u = u as usize;
            let mut after: Vec<u32> = g.deps[u].iter().filter_map(|&d| rep_of(&cur, d)).collect();
            if it > 0 {
                after.extend(g.prev[u].iter().filter_map(|&d| rep_of(&prev, d)));
            }
            // (the core applies `delay` after dependencies only: a task that
            // waits for nothing is released at `at`)
            let task = |host: u32, delay: Time, after: Vec<u32>| MessageSpec {
                conn: 0,
                size: 0,
                at: if after.is_empty() { o.start + delay } else { o.start },
                after,
                delay,
                tag: 0,
                compute_on: Some(host),
            };
            let id = messages.len() as u32;
            match g.units[u] {
                Unit::Msg { send, recv } => {
                    let Kind::Send { size, .. } = t.ranks[send.0 as usize][send.1 as usize].kind else {
                        unreachable!("a send")
                    };
                    let conn = pool.pick(o.hosts[send.0 as usize], o.hosts[recv.0 as usize], rng);
                    messages.push(MessageSpec {
                        conn,
                        size,
                        at: o.start,
                        after: tidy(after),
                        delay: 0,
                        tag: 0,
                        compute_on: None,
                    });
                }
                Unit::Task { node } => {
                    let delay = match t.ranks[node.0 as usize][node.1 as usize].kind {
                        Kind::Compute(d) => d,
                        _ => 0,
                    };
                    messages.push(task(o.hosts[node.0 as usize], delay, tidy(after)));
                }
                Unit::Post { recv: node }
                | Unit::Recv { recv: node, .. }
                | Unit::CollStart { node, .. }
                | Unit::CollEnd { node, .. } => {
                    if let Unit::CollEnd { k, .. } = g.units[u] {
                        let block = cur[g.coll_msgs[k as usize] as usize];
                        after = ends[k as usize][node.0 as usize].iter().map(|&i| block + i).collect();
                    }
                    messages.push(task(o.hosts[node.0 as usize], 0, tidy(after)));
                }
                // nothing waits for the last iteration's joins
                Unit::Join { .. } if it + 1 == o.iterations => continue,
                Unit::Join { rank } => messages.push(task(o.hosts[rank as usize], 0, tidy(after))),
                Unit::CollMsgs { k } => {
                    let p = parts[k as usize].as_ref().expect("a collective of several ranks");
                    let rank_of: HashMap<u32, usize> = o.hosts.iter().enumerate().map(|(r, &h)| (h, r)).collect();
                    for m in &p.messages {
                        let c = p.conns[m.conn as usize];
                        let conn = pool.pick(c.src, c.dst, rng);
                        let mut a: Vec<u32> = m.after.iter().map(|&d| id + d).collect();
                        a.push(cur[starts[k as usize][rank_of[&c.src]] as usize]);
                        messages.push(MessageSpec {
                            conn,
                            size: m.size,
                            at: o.start,
                            after: tidy(a),
                            delay: 0,
                            tag: 0,
                            compute_on: None,
                        });
                        meta.push(MsgMeta { iteration: it, collective: Some(k) });
                    }
                    cur[u] = id;
                    continue;
                }
            }
            meta.push(MsgMeta { iteration: it, collective: None });
            cur[u] = id;
        }
        std::mem::swap(&mut cur, &mut prev);
        cur.iter_mut().for_each(|x| *x = u32::MAX);
    }
    Part { conns: pool.conns, messages, meta, ..Default::default() }
}

/// The message standing for unit `d` (None for a collective's messages, which nothing waits for directly).
fn rep_of(ids: &[u32], d: u32) -> Option<u32> {
    let x = ids[d as usize];
    (x != u32::MAX).then_some(x)
}

fn tidy(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v.dedup();
    v
}

/// A `dag` workload entry: reads `path` (relative to `base`) and lowers it.
pub fn workload(w: &str, path: &Path, base: &Path, o: &Options, rng: &mut Rng) -> Result<Part, String> {
    let p = base.join(path);
    let t = read(&p, &p.display().to_string()).map_err(|e| format!("{w}.path: {e}"))?;
    lower(w, &t, o, rng)
}

// ---- ccsim's DAG file (JSON) -------------------------------------------

/// Most ranks a trace may have.
pub const MAX_RANKS: u64 = 1 << 20;

/// Reads ccsim's DAG trace file `path` (shown as `label`). Errors name the
/// file, the node (index, rank, id) and the field.
pub fn read(path: &Path, label: &str) -> Result<Trace, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{label}: cannot read: {e}"))?;
    parse(&text, label)
}

/// Reads a DAG trace from its text (see [`read`]).
pub fn parse(text: &str, label: &str) -> Result<Trace, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("{label}: not valid JSON: {e}"))?;
    let Value::Object(top) = doc else {
        return Err(format!("{label}: expected a JSON object {{ \"ranks\": n, \"nodes\": [...] }}"));
    };
    for k in top.keys() {
        if !["ranks", "nodes", "groups", "description"].contains(&k.as_str()) {
            return Err(format!("{label}: {k}: unknown top-level field (expected ranks, nodes, groups, description)"));
        }
    }
    let declared = match top.get("ranks") {
        None => None,
        Some(v) => match v.as_u64() {
            Some(x) if (1..=MAX_RANKS).contains(&x) => Some(x as usize),
            _ => return Err(format!("{label}: ranks = {v}: must be an integer in 1..={MAX_RANKS}")),
        },
    };
    let nodes = match top.get("nodes") {
        Some(Value::Array(a)) => a,
        Some(v) => return Err(format!("{label}: nodes = {}: must be a list of nodes", short(v))),
        None => return Err(format!("{label}: nodes: missing field (the list of nodes)")),
    };
    let mut ranks: Vec<Vec<Node>> = vec![Vec::new(); declared.unwrap_or(0)];
    for (i, v) in nodes.iter().enumerate() {
        let Value::Object(m) = v else {
            return Err(format!("{label}: nodes[{i}] = {}: must be an object", short(v)));
        };
        let at0 = format!("{label}: nodes[{i}]");
        let rank = uint(m, "rank", &at0)?.ok_or_else(|| format!("{at0}: rank: missing field"))?;
        let id = uint(m, "id", &at0)?.ok_or_else(|| format!("{at0}: id: missing field"))?;
        let at = format!("{label}: nodes[{i}] (rank {rank} node {id})");
        let limit = declared.map_or(MAX_RANKS, |d| d as u64);
        if rank >= limit {
            return Err(match declared {
                Some(d) => format!("{at}: rank = {rank}: out of range (ranks = {d})"),
                None => format!("{at}: rank = {rank}: out of range (at most {MAX_RANKS} ranks)"),
            });
        }
        const TYPES: &str = "\"send\", \"recv\", \"compute\" or \"collective\"";
        let ty = match m.get("type") {
            Some(Value::String(s)) => s.as_str(),
            Some(v) => return Err(format!("{at}: type = {}: must be {TYPES}", short(v))),
            None => return Err(format!("{at}: type: missing field ({TYPES})")),
        };
        let allowed: &[&str] = match ty {
            "send" | "recv" => &["id", "rank", "type", "name", "deps", "peer", "size", "tag"],
            "compute" => &["id", "rank", "type", "name", "deps", "duration"],
            "collective" => &["id", "rank", "type", "name", "deps", "op", "size", "group"],
            _ => return Err(format!("{at}: type = \"{ty}\": must be {TYPES}")),
        };
        if let Some(k) = m.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(format!("{at}: {k}: unknown field for a {ty} node (allowed: {})", allowed.join(", ")));
        }
        let kind = if ty == "compute" {
            let d = match m.get("duration") {
                Some(Value::String(s)) => parse_dur(s).map_err(|e| format!("{at}: duration: {e}"))?,
                Some(Value::Number(x)) if x.as_u64() == Some(0) => 0,
                Some(v) => {
                    return Err(format!("{at}: duration = {}: must be a string with a unit, e.g. \"5us\"", short(v)))
                }
                None => return Err(format!("{at}: duration: missing field (a compute node's time, e.g. \"5us\")")),
            };
            Kind::Compute(d)
        } else if ty == "collective" {
            let op = match m.get("op") {
                Some(v) => serde_json::from_value::<Op>(v.clone()).map_err(|_| {
                    format!(
                        "{at}: op = {}: must be \"ring_allreduce\", \"allgather\", \"reduce_scatter\", \"alltoall\" or \
                         \"halving_doubling_allreduce\"",
                        short(v)
                    )
                })?,
                None => {
                    return Err(format!("{at}: op: missing field (the collective operation, e.g. \"ring_allreduce\")"))
                }
            };
            let size = size_field(m, &at)?;
            let group = uint(m, "group", &at)?.unwrap_or(0);
            let group = u32::try_from(group).map_err(|_| format!("{at}: group = {group}: not a group id"))?;
            Kind::Collective { op, size, group }
        } else {
            let peer = uint(m, "peer", &at)?.ok_or_else(|| format!("{at}: peer: missing field (the other rank)"))?;
            if peer >= limit {
                return Err(format!("{at}: peer = {peer}: rank out of range"));
            }
            let size = size_field(m, &at)?;
            let tag = uint(m, "tag", &at)?.unwrap_or(0);
            let (peer, size) = (peer as u32, size);
            if ty == "send" {
                Kind::Send { peer, size, tag }
            } else {
                Kind::Recv { peer, size, tag }
            }
        };
        if let Some(v) = m.get("name") {
            if !v.is_string() {
                return Err(format!("{at}: name = {}: must be a string", short(v)));
            }
        }
        let deps = match m.get("deps") {
            None => Vec::new(),
            Some(Value::Array(a)) => {
                let mut d = Vec::with_capacity(a.len());
                for (j, x) in a.iter().enumerate() {
                    d.push(x.as_u64().ok_or_else(|| format!("{at}: deps[{j}] = {}: must be a node id", short(x)))?);
                }
                d
            }
            Some(v) => return Err(format!("{at}: deps = {}: must be a list of node ids", short(v))),
        };
        let r = rank as usize;
        if ranks.len() <= r {
            ranks.resize(r + 1, Vec::new());
        }
        ranks[r].push(Node { id, kind, deps });
    }
    if ranks.is_empty() {
        return Err(format!("{label}: nodes: empty list"));
    }
    let groups = match top.get("groups") {
        Some(v) => group_members(v, ranks.len()).map_err(|e| format!("{label}: groups: {e}"))?,
        None => BTreeMap::new(),
    };
    check_groups(&ranks, &groups, label)?;
    Ok(Trace {
        files: vec![label.to_string(); ranks.len()],
        ranks,
        deps_field: "deps",
        eager_sends: false,
        groups,
        notes: Vec::new(),
    })
}

/// Process groups from JSON: an object from a group id (a positive
/// integer as a string; 0 is every rank) to its member ranks in ring order,
/// e.g. `{"1": [0, 1], "2": [2, 3]}` (ASTRA-sim's communicator-group file,
/// read in astra-sim Workload.cc:82-98; the `groups` of a DAG trace), for a
/// trace of `n` ranks. Errors name the group and the rank.
pub fn group_members(v: &Value, n: usize) -> Result<BTreeMap<u32, Vec<u32>>, String> {
    let obj = v.as_object().ok_or_else(|| format!("{}: expected a JSON object of group id -> ranks", short(v)))?;
    let mut members = BTreeMap::new();
    for (k, ranks) in obj {
        let id = k
            .parse::<u32>()
            .ok()
            .filter(|&i| i > 0)
            .ok_or_else(|| format!("group \"{k}\": a group id is a positive integer (0 is every rank)"))?;
        let list = ranks.as_array().ok_or_else(|| format!("group \"{k}\": expected a list of ranks"))?;
        if list.is_empty() {
            return Err(format!("group \"{k}\": no ranks"));
        }
        let mut m = Vec::with_capacity(list.len());
        for r in list {
            let r = r.as_u64().filter(|&r| (r as usize) < n).ok_or_else(|| {
                format!("group \"{k}\": rank {r}: not a rank of the trace (0..{})", n.saturating_sub(1))
            })?;
            if m.contains(&(r as u32)) {
                return Err(format!("group \"{k}\": rank {r} twice"));
            }
            m.push(r as u32);
        }
        if members.insert(id, m).is_some() {
            return Err(format!("group \"{k}\": the id {id} twice"));
        }
    }
    Ok(members)
}

/// A node's `size`: bytes, a number or a string with a unit, at least 1.
fn size_field(m: &Map<String, Value>, at: &str) -> Result<u64, String> {
    let size = match m.get("size") {
        Some(Value::String(s)) => parse_bytes(s).map_err(|e| format!("{at}: size: {e}"))?,
        Some(Value::Number(x)) => {
            x.as_u64().ok_or_else(|| format!("{at}: size = {x}: must be a whole number of bytes"))?
        }
        Some(v) => return Err(format!("{at}: size = {}: must be bytes (a number or e.g. \"1MB\")", short(v))),
        None => return Err(format!("{at}: size: missing field (bytes)")),
    };
    if size == 0 {
        return Err(format!("{at}: size = 0: must be at least 1 byte"));
    }
    if size > MAX_BYTES {
        return Err(format!("{at}: size = {size}: too large (at most {MAX_BYTES} bytes, 10TB)"));
    }
    Ok(size)
}

/// Every collective names group 0 or one of `groups`; each group's
/// membership is checked when collectives are matched ([`lower`]).
fn check_groups(ranks: &[Vec<Node>], groups: &BTreeMap<u32, Vec<u32>>, label: &str) -> Result<(), String> {
    for (r, nodes) in ranks.iter().enumerate() {
        for x in nodes {
            let Kind::Collective { group, .. } = x.kind else { continue };
            if group != 0 && !groups.contains_key(&group) {
                let ids: Vec<String> = groups.keys().map(|k| k.to_string()).collect();
                return Err(format!(
                    "{label}: rank {r} node {}: group = {group}: no such group in the trace's groups ({})",
                    x.id,
                    if ids.is_empty() { "none given".to_string() } else { ids.join(", ") }
                ));
            }
        }
    }
    Ok(())
}

/// A non-negative integer field, if present.
fn uint(m: &Map<String, Value>, k: &str, at: &str) -> Result<Option<u64>, String> {
    match m.get(k) {
        None => Ok(None),
        Some(v) => {
            v.as_u64().map(Some).ok_or_else(|| format!("{at}: {k} = {}: must be a non-negative integer", short(v)))
        }
    }
}

/// A value for a message, cut short.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 40 {
        let mut cut = 40;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}...", &s[..cut])
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(n: usize) -> Options {
        Options { hosts: (0..n as u32).map(|r| 10 + r).collect(), iterations: 1, start: 0, connections: 1, prio: 0 }
    }

    fn lowered(text: &str) -> Result<Part, String> {
        let t = parse(text, "t.json")?;
        lower("w", &t, &opts(t.ranks.len()), &mut Rng::new(1))
    }

    #[test]
    fn send_recv_compute_lower_to_a_message_and_tasks() {
        let p = lowered(
            r#"{"ranks": 2, "nodes": [
                {"id": 1, "rank": 0, "type": "compute", "duration": "5us"},
                {"id": 2, "rank": 0, "type": "send", "peer": 1, "size": "1KB", "deps": [1]},
                {"id": 7, "rank": 1, "type": "recv", "peer": 0, "size": 1000},
                {"id": 8, "rank": 1, "type": "compute", "duration": "3us", "deps": [7]}
            ]}"#,
        )
        .unwrap();
        assert_eq!(p.conns.len(), 1);
        assert_eq!((p.conns[0].src, p.conns[0].dst), (10, 11));
        assert_eq!(p.messages.len(), 3);
        assert_eq!(p.meta.len(), 3);
        let m = &p.messages;
        assert_eq!((m[0].compute_on, m[0].delay, m[0].at), (Some(10), 5_000_000, 5_000_000));
        assert_eq!((m[1].compute_on, m[1].size, m[1].after.clone()), (None, 1000, vec![0]));
        assert_eq!((m[2].compute_on, m[2].delay, m[2].after.clone()), (Some(11), 3_000_000, vec![1]));
    }

    #[test]
    fn a_receive_waiting_for_a_message_goes_through_a_posted_task() {
        // rank 1 receives from 0, then from 2 only after the first arrived
        let p = lowered(
            r#"{"nodes": [
                {"id": 0, "rank": 0, "type": "send", "peer": 1, "size": 10},
                {"id": 0, "rank": 2, "type": "send", "peer": 1, "size": 20},
                {"id": 0, "rank": 1, "type": "recv", "peer": 0, "size": 10},
                {"id": 1, "rank": 1, "type": "recv", "peer": 2, "size": 20, "deps": [0]}
            ]}"#,
        )
        .unwrap();
        let m = &p.messages;
        assert_eq!(m.len(), 3);
        let post = m.iter().position(|x| x.compute_on == Some(11)).unwrap();
        assert_eq!(m[post].after, vec![0], "the post task waits for the first message (delivered at rank 1)");
        assert_eq!(m[2].after, vec![post as u32]);
        assert_eq!(m[2].size, 20);
    }

    #[test]
    fn iterations_chain_sinks_to_roots() {
        let text = r#"{"nodes": [
            {"id": 0, "rank": 0, "type": "compute", "duration": "1us"},
            {"id": 1, "rank": 0, "type": "send", "peer": 1, "size": 10, "deps": [0]},
            {"id": 0, "rank": 1, "type": "recv", "peer": 0, "size": 10}
        ]}"#;
        let t = parse(text, "t.json").unwrap();
        let mut o = opts(2);
        o.iterations = 3;
        let p = lower("w", &t, &o, &mut Rng::new(1)).unwrap();
        // per iteration: rank 0's compute, rank 1's posted receive (a root
        // that, from iteration 1 on, waits for rank 1's sink: the message,
        // delivered at rank 1), the message
        let m = &p.messages;
        assert_eq!(m.len(), 9);
        assert_eq!(p.meta.iter().map(|x| x.iteration).collect::<Vec<_>>(), vec![0, 0, 0, 1, 1, 1, 2, 2, 2]);
        assert_eq!((m[0].compute_on, m[1].compute_on, m[2].compute_on), (Some(10), Some(11), None));
        assert_eq!((m[0].after.clone(), m[1].after.clone(), m[2].after.clone()), (vec![], vec![], vec![0, 1]));
        // iteration 1: the compute waits for rank 0's sink (the send, acknowledged),
        // the posted receive for rank 1's (the same message, delivered)
        assert_eq!((m[3].after.clone(), m[4].after.clone(), m[5].after.clone()), (vec![2], vec![2], vec![3, 4]));
        assert_eq!((m[6].after.clone(), m[7].after.clone(), m[8].after.clone()), (vec![5], vec![5], vec![6, 7]));
        for (i, m) in p.messages.iter().enumerate() {
            assert!(m.after.iter().all(|&d| d < i as u32), "{i}: {:?}", m.after);
        }
    }

    #[test]
    fn iterations_of_wide_ranks_chain_through_one_join_per_rank() {
        // 200 independent sends 0 -> 1: 200 roots x 200 sinks per rank, too
        // many to wait directly, so each rank's sinks are joined by one task
        let n = 200;
        let mut nodes = Vec::new();
        for i in 0..n {
            nodes.push(format!(r#"{{"id": {i}, "rank": 0, "type": "send", "peer": 1, "size": 10}}"#));
            nodes.push(format!(r#"{{"id": {i}, "rank": 1, "type": "recv", "peer": 0, "size": 10}}"#));
        }
        assert!(crate::conns::through_join(n as u64, n as u64));
        let t = parse(&format!(r#"{{"nodes": [{}]}}"#, nodes.join(",")), "t.json").unwrap();
        let mut o = opts(2);
        o.iterations = 3;
        let p = lower("w", &t, &o, &mut Rng::new(1)).unwrap();
        let m = &p.messages;
        // per iteration the n messages, then (but in the last) a join per rank
        assert_eq!(m.len(), 3 * n + 2 * 2);
        let joins: Vec<usize> = (0..m.len()).filter(|&i| m[i].compute_on.is_some()).collect();
        assert_eq!(joins, vec![n, n + 1, 2 * n + 2, 2 * n + 3]);
        assert_eq!((m[n].compute_on, m[n + 1].compute_on), (Some(10), Some(11)), "on the rank's host");
        for (k, &j) in joins.iter().enumerate() {
            let first = (k / 2) * (n + 2);
            assert_eq!(m[j].after, (first as u32..(first + n) as u32).collect::<Vec<_>>(), "join {j}");
            assert_eq!((m[j].delay, m[j].size), (0, 0));
        }
        for it in 1..3 {
            let first = it * (n + 2);
            let (a, b) = (joins[2 * (it - 1)] as u32, joins[2 * (it - 1) + 1] as u32);
            assert!(m[first..first + n].iter().all(|x| x.after == [a, b]), "iteration {it}");
        }
        assert_eq!(p.meta.iter().filter(|x| x.iteration == 2).count(), n, "no join after the last iteration");
        // dependencies: linear (joins x sinks + messages x joins), not n x n per iteration
        assert_eq!(m.iter().map(|x| x.after.len()).sum::<usize>(), 2 * 2 * n + 2 * n * 2);
    }

    #[test]
    fn time_and_size_limits_count_every_iteration() {
        let text = |dur: &str, size: &str| {
            format!(
                r#"{{"nodes": [
                {{"id": 0, "rank": 0, "type": "compute", "duration": "{dur}"}},
                {{"id": 1, "rank": 0, "type": "send", "peer": 1, "size": {size}, "deps": [0]}},
                {{"id": 0, "rank": 1, "type": "recv", "peer": 0, "size": {size}}}]}}"#
            )
        };
        let run = |dur: &str, size: &str, iterations: u32| {
            let t = parse(&text(dur, size), "t.json")?;
            lower("w", &t, &Options { iterations, ..opts(2) }, &mut Rng::new(1))
        };
        // the compute of the longest path, chained over iterations
        assert!(run("400000s", "10", 2).is_ok());
        let e = run("400000s", "10", 3).err().unwrap();
        assert!(e.contains("through 3 iterations ends at 1200000 s") && e.contains("limit"), "{e}");
        // sizes
        let e = parse(&text("1us", "10000000000001"), "t.json").unwrap_err();
        assert!(e.contains("rank 0 node 1): size = 10000000000001: too large"), "{e}");
        let e = run("1us", r#""10000GB""#, 100_001).err().unwrap();
        assert!(e.starts_with("w.iterations = 100001") && e.contains("at most 1000000000000000000 bytes"), "{e}");
    }

    #[test]
    fn refusals_name_file_rank_node_and_field() {
        let e = |s: &str| lowered(s).err().unwrap();
        let x = e(r#"{"nodes": [{"id": 3, "rank": 0, "type": "compute", "duration": "1us", "deps": [9]}]}"#);
        assert!(x.contains("t.json: rank 0 node 3: deps = 9: no node 9"), "{x}");
        let x = e(r#"{"nodes": [{"id": 3, "rank": 0, "type": "send", "size": 5}]}"#);
        assert!(x.contains("t.json: nodes[0] (rank 0 node 3): peer: missing"), "{x}");
        let x = e(r#"{"ranks": 2, "nodes": [{"id": 3, "rank": 2, "type": "compute", "duration": "1us"}]}"#);
        assert!(x.contains("rank = 2: out of range (ranks = 2)"), "{x}");
        let x = e(r#"{"nodes": [{"id": 3, "rank": 0, "type": "send", "peer": 1, "size": 5},
                                {"id": 1, "rank": 1, "type": "recv", "peer": 0, "size": 6}]}"#);
        assert!(
            x.contains("t.json: rank 1 node 1: size = 6") && x.contains("rank 0 node 3") && x.contains("size = 5"),
            "{x}"
        );
        let x = e(r#"{"nodes": [{"id": 3, "rank": 0, "type": "send", "peer": 1, "size": 5},
                                {"id": 1, "rank": 1, "type": "compute", "duration": "1us"}]}"#);
        assert!(x.contains("t.json: rank 0 node 3: unmatched send to rank 1"), "{x}");
        let x = e(r#"{"nodes": [{"id": 0, "rank": 0, "type": "compute", "duration": "1us", "deps": [1]},
                                {"id": 1, "rank": 0, "type": "compute", "duration": "1us", "deps": [0]}]}"#);
        assert!(x.contains("dependency cycle") && x.contains("rank 0 node 0") && x.contains("rank 0 node 1"), "{x}");
        // a deadlock across ranks: both receive before they send
        let x = e(r#"{"nodes": [
            {"id": 0, "rank": 0, "type": "recv", "peer": 1, "size": 5},
            {"id": 1, "rank": 0, "type": "send", "peer": 1, "size": 5, "deps": [0]},
            {"id": 0, "rank": 1, "type": "recv", "peer": 0, "size": 5},
            {"id": 1, "rank": 1, "type": "send", "peer": 0, "size": 5, "deps": [0]}]}"#);
        assert!(x.contains("dependency cycle"), "{x}");
        let x = e(r#"{"nodes": [{"id": 0, "rank": 0, "type": "compute"}]}"#);
        assert!(x.contains("duration: missing field"), "{x}");
        let x = e(r#"{"nodes": [{"id": 0, "rank": 0, "type": "compute", "duration": "1us", "peer": 1}]}"#);
        assert!(x.contains("peer: unknown field"), "{x}");
        let x = e(r#"{"nodes": [{"id": 0, "rank": 0, "type": "compute", "duration": "1us"}]}"#);
        assert!(x.contains("nothing crosses the network"), "{x}");
        let x = e(r#"{"nodes": [{"id": 0, "rank": 0, "type": "compute", "duration": "1us"},"#);
        assert!(x.starts_with("t.json: not valid JSON") && x.contains("line"), "{x}");
    }
}
