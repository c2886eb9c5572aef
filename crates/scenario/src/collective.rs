//! Collective operations of a training job as messages with dependencies on
//! persistent connections (`kind = "collective"`): ring all-reduce and its
//! halves (reduce-scatter, all-gather), all-to-all, and halving-doubling
//! all-reduce, repeated for a number of iterations with a compute time
//! between them.
//!
//! Ranks are the group's hosts in the order given (ring order). Each rank's
//! buffer of `size` bytes is split over `channels` independent rings (NCCL
//! channels: each one a connection per neighbour pair carrying its share of
//! the buffer), and a channel's share into `n` chunks (sizes differ by at
//! most one byte). One connection per (src, dst, channel) carries every step
//! and iteration between that pair (a persistent queue pair).
//!
//! Dependencies follow the data: a step that forwards or reduces what a rank
//! received waits for those messages to be delivered at the rank (the core
//! counts a dependency as done at its delivery when the waiting message is
//! sent from its receiver). Iteration k+1's first step at rank r waits for
//! every message of iteration k sent from r (completed, i.e. acknowledged)
//! and received by r (delivered), plus `compute`: directly, or, when a rank
//! has many first steps and many such messages (an all-to-all over hundreds
//! of ranks), through one zero-length task on r that waits for them
//! (a join, see [`crate::conns::through_join`]), so the dependencies stay
//! linear in the messages.
//!
//! Sources: the ring algorithms as NCCL runs them (one ring per channel;
//! `ncclAllReduce` = reduce-scatter then all-gather in 2(n-1) steps of
//! size/n; see NVIDIA NCCL `src/device/all_reduce.h`, and P. Patarasuk and
//! X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
//! workstations", JPDC 2009); halving-doubling as R. Thakur, R. Rabenseifner
//! and W. Gropp, "Optimization of collective communication operations in
//! MPICH", IJHPCA 19(1), 2005 (recursive-halving reduce-scatter followed by
//! recursive-doubling all-gather, for power-of-two groups); all-to-all as
//! every rank posting a send of size/n to every other rank at once (NCCL's
//! `ncclAllToAll` via grouped send/recv).

use std::collections::BTreeMap;

use crate::conns::{MsgMeta, Part};
use ccsim_core::flow::{ConnSpec, MessageSpec};
use ccsim_core::time::{Time, SEC};
use ccsim_core::units::MAX_DURATION;
use serde::{Deserialize, Serialize};

/// Most messages one collective entry may make (the same cap as a scenario's flows).
pub const MAX_MESSAGES: u64 = crate::spec::MAX_FLOWS as u64;

/// Most channels per neighbour pair.
pub const MAX_CHANNELS: u32 = 64;

/// The collective operation of a `collective` workload.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// Reduce-scatter then all-gather around the ring: 2(n-1) steps of size/n.
    RingAllreduce,
    /// The all-gather half of the ring: n-1 steps of size/n.
    Allgather,
    /// The reduce-scatter half of the ring: n-1 steps of size/n.
    ReduceScatter,
    /// Every rank sends size/n to every other rank at once.
    Alltoall,
    /// Recursive halving then recursive doubling (n a power of two): 2 log2(n) steps.
    HalvingDoublingAllreduce,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::RingAllreduce => "ring_allreduce",
            Op::Allgather => "allgather",
            Op::ReduceScatter => "reduce_scatter",
            Op::Alltoall => "alltoall",
            Op::HalvingDoublingAllreduce => "halving_doubling_allreduce",
        }
    }

    /// Messages each rank sends per channel and iteration in a group of `n`.
    pub fn sends_per_rank(self, n: u64) -> u64 {
        match self {
            Op::RingAllreduce => 2 * (n - 1),
            Op::Allgather | Op::ReduceScatter | Op::Alltoall => n - 1,
            Op::HalvingDoublingAllreduce => 2 * u64::from(n.max(1).trailing_zeros()),
        }
    }
}

/// One collective workload, checked by [`Collective::check`].
#[derive(Clone, Debug, PartialEq)]
pub struct Collective {
    pub op: Op,
    /// Ranks' hosts, in ring order (distinct).
    pub hosts: Vec<u32>,
    /// Bytes of each rank's buffer.
    pub size: u64,
    pub channels: u32,
    pub iterations: u32,
    /// Between a rank's last message of an iteration and its first of the next.
    pub compute: Time,
    pub start: Time,
    pub prio: u8,
}

/// Bytes of part `i` of `total` split into `parts` (sizes differ by at most 1).
fn piece(total: u64, parts: u64, i: u64) -> u64 {
    let at = |j: u64| (total as u128 * j as u128 / parts as u128) as u64;
    at(i + 1) - at(i)
}

impl Collective {
    /// Refuses what cannot run; errors name `{w}.field` and the value. (Host
    /// ids are checked against the topology by the caller.)
    pub fn check(&self, w: &str) -> Result<(), String> {
        let n = self.hosts.len() as u64;
        if n < 2 {
            return Err(format!("{w}.hosts: {n} host(s) given; a collective needs at least 2"));
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, h) in self.hosts.iter().enumerate() {
            if !seen.insert(h) {
                return Err(format!("{w}.hosts[{i}] = {h}: host listed twice"));
            }
        }
        if self.op == Op::HalvingDoublingAllreduce && !n.is_power_of_two() {
            return Err(format!(
                "{w}.hosts: {n} hosts; op = \"halving_doubling_allreduce\" needs a power of two (use ring_allreduce)"
            ));
        }
        if self.channels == 0 || self.channels > MAX_CHANNELS {
            return Err(format!("{w}.channels = {}: must be in 1..={MAX_CHANNELS}", self.channels));
        }
        if self.iterations == 0 {
            return Err(format!("{w}.iterations = 0: must be at least 1"));
        }
        let min = n * u64::from(self.channels);
        if self.size < min {
            return Err(format!(
                "{w}.size = {}: must be at least hosts x channels = {min} bytes (each chunk needs a byte)",
                self.size
            ));
        }
        let total = self.op.sends_per_rank(n) as u128 * n as u128 * self.channels as u128 * self.iterations as u128;
        if total > MAX_MESSAGES as u128 {
            return Err(format!(
                "{w}.iterations = {}: would make {total} messages ({n} hosts, channels = {}); at most {MAX_MESSAGES}",
                self.iterations, self.channels
            ));
        }
        // release times (start + compute between iterations) within the time limit
        let end = self.start as u128 + self.compute as u128 * (self.iterations as u128 - 1);
        if end > MAX_DURATION as u128 {
            return Err(format!(
                "{w}.compute = {}: start + compute x (iterations - 1) = {:.0} s ({} iterations), past the limit of \
                 simulated time ({} s)",
                if self.compute.is_multiple_of(SEC) {
                    format!("{}s", self.compute / SEC)
                } else {
                    ccsim_core::units::fmt_dur(self.compute)
                },
                end as f64 / SEC as f64,
                self.iterations,
                MAX_DURATION / SEC
            ));
        }
        Ok(())
    }

    /// The connections, messages and per-message iterations (ids local to
    /// the part). Assumes [`Collective::check`] passed.
    pub fn part(&self) -> Part {
        let mut b = Builder::new(self);
        for k in 0..self.iterations {
            b.iteration = k;
            match self.op {
                Op::RingAllreduce => b.ring(true, true),
                Op::ReduceScatter => b.ring(true, false),
                Op::Allgather => b.ring(false, true),
                Op::Alltoall => b.alltoall(),
                Op::HalvingDoublingAllreduce => b.halving_doubling(),
            }
            b.end_iteration(k + 1 == self.iterations);
        }
        Part { conns: b.conns, messages: b.messages, meta: b.meta, ..Default::default() }
    }
}

/// Checks `c` and generates its part.
pub fn generate(w: &str, c: &Collective) -> Result<Part, String> {
    c.check(w)?;
    Ok(c.part())
}

struct Builder<'a> {
    c: &'a Collective,
    n: u32,
    conns: Vec<ConnSpec>,
    conn_ids: BTreeMap<(u32, u32, u32), u32>,
    messages: Vec<MessageSpec>,
    meta: Vec<MsgMeta>,
    iteration: u32,
    /// Per rank, this iteration: connection touching it -> its last message.
    /// Messages on a connection are released in id order (each step waits
    /// for a delivery that follows the previous step's), so a connection's
    /// last message done means all of its messages are.
    touched: Vec<BTreeMap<u32, u32>>,
    /// Per rank: what its first step of this iteration waits for (the
    /// previous iteration's last message on each connection it touched, or
    /// the join task waiting for them).
    prev: Vec<Vec<u32>>,
    /// Per rank: `prev` is a join task (which waits the compute time).
    joined: Vec<bool>,
    /// Per rank: its first steps in this iteration.
    firsts: Vec<u64>,
}

impl<'a> Builder<'a> {
    fn new(c: &'a Collective) -> Self {
        let n = c.hosts.len() as u32;
        Builder {
            c,
            n,
            conns: Vec::new(),
            conn_ids: BTreeMap::new(),
            messages: Vec::new(),
            meta: Vec::new(),
            iteration: 0,
            touched: vec![BTreeMap::new(); n as usize],
            prev: vec![Vec::new(); n as usize],
            joined: vec![false; n as usize],
            firsts: vec![0; n as usize],
        }
    }

    fn conn(&mut self, src: u32, dst: u32, ch: u32) -> u32 {
        let next = self.conns.len() as u32;
        let id = *self.conn_ids.entry((src, dst, ch)).or_insert(next);
        if id == next {
            self.conns.push(ConnSpec {
                src: self.c.hosts[src as usize],
                dst: self.c.hosts[dst as usize],
                prio: self.c.prio,
            });
        }
        id
    }

    /// Bytes of chunk `j` of channel `ch`.
    fn chunk(&self, ch: u32, j: u32) -> u64 {
        piece(piece(self.c.size, self.c.channels as u64, ch as u64), self.n as u64, j as u64)
    }

    /// Rank `src` sends `size` bytes to rank `dst` on channel `ch`, after
    /// `after`; `first`: the rank's first step of the iteration (it also
    /// waits for the previous iteration and the compute time).
    fn send(&mut self, src: u32, dst: u32, ch: u32, size: u64, mut after: Vec<u32>, first: bool) -> u32 {
        let conn = self.conn(src, dst, ch);
        let mut delay = 0;
        if first {
            self.firsts[src as usize] += 1;
        }
        if first && self.iteration > 0 {
            after.extend_from_slice(&self.prev[src as usize]);
            if !self.joined[src as usize] {
                delay = self.c.compute;
            }
        }
        after.sort_unstable();
        after.dedup();
        let id = self.messages.len() as u32;
        self.messages.push(MessageSpec { conn, size, at: self.c.start, after, delay, tag: 0, compute_on: None });
        self.meta.push(MsgMeta { iteration: self.iteration, collective: Some(0) });
        self.touched[src as usize].insert(conn, id);
        self.touched[dst as usize].insert(conn, id);
        id
    }

    /// `last`: no iteration follows (so no join is made).
    fn end_iteration(&mut self, last: bool) {
        for r in 0..self.n as usize {
            let t = std::mem::take(&mut self.touched[r]);
            let mut v: Vec<u32> = t.into_values().collect();
            v.sort_unstable();
            let firsts = std::mem::take(&mut self.firsts[r]);
            self.joined[r] = !last && crate::conns::through_join(firsts, v.len() as u64);
            if self.joined[r] {
                // a zero-length task on r, done `compute` after all of them
                let id = self.messages.len() as u32;
                self.messages.push(MessageSpec {
                    conn: 0,
                    size: 0,
                    at: self.c.start,
                    after: v,
                    delay: self.c.compute,
                    tag: 0,
                    compute_on: Some(self.c.hosts[r]),
                });
                self.meta.push(MsgMeta { iteration: self.iteration, collective: None });
                v = vec![id];
            }
            self.prev[r] = v;
        }
    }

    /// The ring (NCCL): rank r sends to r+1. Reduce-scatter step s sends
    /// chunk r-s (after which r holds chunk r+1 reduced); all-gather step t
    /// sends chunk r+1-t (r-t when it runs alone: r starts with chunk r).
    /// Step s+1 of rank r waits for step s of rank r-1 (same channel) to be
    /// delivered at r.
    fn ring(&mut self, reduce_scatter: bool, all_gather: bool) {
        let n = self.n;
        // the chunk a step sends, as an offset from the rank (mod n)
        let mut steps: Vec<u32> = Vec::new();
        if reduce_scatter {
            steps.extend((0..n - 1).map(|s| n - s));
        }
        if all_gather {
            let shift = u32::from(reduce_scatter);
            steps.extend((0..n - 1).map(|t| n + shift - t));
        }
        for ch in 0..self.c.channels {
            let mut last: Vec<Option<u32>> = vec![None; n as usize];
            for (s, &off) in steps.iter().enumerate() {
                let mut now = vec![None; n as usize];
                for r in 0..n {
                    let pred = (r + n - 1) % n;
                    let after = last[pred as usize].into_iter().collect();
                    let size = self.chunk(ch, (r + off) % n);
                    now[r as usize] = Some(self.send(r, (r + 1) % n, ch, size, after, s == 0));
                }
                last = now;
            }
        }
    }

    /// Every rank sends chunk `dst` of its buffer to every other rank at
    /// once (ranks in order r+1, r+2, ... so that rank pairs interleave).
    fn alltoall(&mut self) {
        let n = self.n;
        for ch in 0..self.c.channels {
            for i in 1..n {
                for r in 0..n {
                    let dst = (r + i) % n;
                    let size = self.chunk(ch, dst);
                    self.send(r, dst, ch, size, vec![], true);
                }
            }
        }
    }

    /// Thakur, Rabenseifner & Gropp (2005). Reduce-scatter by recursive
    /// halving: at step j (distance d = n/2^(j+1)) rank r exchanges with
    /// r xor d, keeping the half of its current block of 2d chunks that holds
    /// r and sending the half that holds the peer; it ends with chunk r
    /// reduced. All-gather by recursive doubling: at step j (d = 2^j) rank r
    /// sends its block of d chunks to r xor d. Each step of r waits for all
    /// its receives of the iteration so far (what it sends is their sum).
    fn halving_doubling(&mut self) {
        let n = self.n;
        let m = n.trailing_zeros();
        let dists: Vec<u32> = (0..m).map(|j| n >> (j + 1)).chain((0..m).map(|j| 1 << j)).collect();
        for ch in 0..self.c.channels {
            let mut received: Vec<Vec<u32>> = vec![Vec::new(); n as usize];
            for (j, &d) in dists.iter().enumerate() {
                let mut got = Vec::with_capacity(n as usize);
                for r in 0..n {
                    let peer = r ^ d;
                    // halving: the peer's half of width d; doubling: r's own block of d
                    let base = if (j as u32) < m { peer & !(d - 1) } else { r & !(d - 1) };
                    let size = (base..base + d).map(|x| self.chunk(ch, x)).sum();
                    let after = received[r as usize].clone();
                    let id = self.send(r, peer, ch, size, after, j == 0);
                    got.push((peer, id));
                }
                for (peer, id) in got {
                    received[peer as usize].push(id);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_core::time::US;
    use std::collections::BTreeSet;

    fn coll(op: Op, n: u32, size: u64) -> Collective {
        Collective {
            op,
            hosts: (0..n).map(|i| 10 + 3 * i).collect(),
            size,
            channels: 1,
            iterations: 1,
            compute: 0,
            start: 0,
            prio: 0,
        }
    }

    /// Per host: (bytes sent, bytes received, messages sent).
    fn per_host(p: &Part) -> BTreeMap<u32, (u64, u64, u64)> {
        let mut out = BTreeMap::new();
        for m in &p.messages {
            let c = p.conns[m.conn as usize];
            out.entry(c.src).or_insert((0, 0, 0)).0 += m.size;
            out.entry(c.src).or_insert((0, 0, 0)).2 += 1;
            out.entry(c.dst).or_insert((0, 0, 0)).1 += m.size;
        }
        out
    }

    /// Every dependency is an earlier message; meta has one entry per message.
    fn well_formed(p: &Part) {
        assert_eq!(p.meta.len(), p.messages.len());
        for (i, m) in p.messages.iter().enumerate() {
            assert!(m.size >= 1);
            assert!(m.after.iter().all(|&d| d < i as u32), "message {i}: {:?}", m.after);
            assert!((m.conn as usize) < p.conns.len());
        }
        assert!(p.conns.iter().all(|c| c.src != c.dst));
    }

    #[test]
    fn pieces_cover_the_total() {
        for (total, parts) in [(10u64, 3u64), (1_000_003, 8), (7, 7), (u64::MAX / 2, 5)] {
            let v: Vec<u64> = (0..parts).map(|i| piece(total, parts, i)).collect();
            assert_eq!(v.iter().map(|&x| x as u128).sum::<u128>(), total as u128);
            assert!(v.iter().max().unwrap() - v.iter().min().unwrap() <= 1, "{v:?}");
        }
    }

    #[test]
    fn ring_allreduce_counts_bytes_and_connections() {
        let (n, size) = (4u64, 1_000_000u64);
        let p = coll(Op::RingAllreduce, n as u32, size).part();
        well_formed(&p);
        assert_eq!(p.messages.len() as u64, 2 * (n - 1) * n);
        assert_eq!(p.conns.len() as u64, n, "one connection per ring neighbour pair");
        for (h, &(sent, recv, msgs)) in &per_host(&p) {
            assert_eq!(sent, 2 * (n - 1) * size / n, "host {h}: 2(n-1)/n x size");
            assert_eq!(recv, sent);
            assert_eq!(msgs, 2 * (n - 1));
        }
        assert!(p.messages.iter().all(|m| m.size == size / n));
        // the ring follows the host order: 10 -> 13 -> 16 -> 19 -> 10
        let ends: BTreeSet<_> = p.conns.iter().map(|c| (c.src, c.dst)).collect();
        assert_eq!(ends, [(10, 13), (13, 16), (16, 19), (19, 10)].into_iter().collect());

        // uneven sizes and channels: every chunk moves n-1 times per phase
        let mut c = coll(Op::RingAllreduce, 5, 1_000_003);
        c.channels = 3;
        let p = c.part();
        well_formed(&p);
        assert_eq!(p.conns.len(), 5 * 3);
        assert_eq!(p.messages.len(), 2 * 4 * 5 * 3);
        let total: u64 = p.messages.iter().map(|m| m.size).sum();
        assert_eq!(total, 2 * 4 * 1_000_003);
        for (h, &(sent, _, _)) in &per_host(&p) {
            let ideal = 2.0 * 4.0 / 5.0 * 1_000_003.0;
            assert!((sent as f64 - ideal).abs() <= 2.0 * 3.0, "host {h}: {sent} vs {ideal}");
        }
    }

    #[test]
    fn ring_steps_wait_for_the_predecessors_chunk() {
        let n = 4usize;
        let p = coll(Op::RingAllreduce, n as u32, 4000).part();
        let steps = 2 * (n - 1);
        for s in 0..steps {
            for r in 0..n {
                let id = s * n + r;
                let m = &p.messages[id];
                let c = p.conns[m.conn as usize];
                assert_eq!(c.src, 10 + 3 * r as u32);
                if s == 0 {
                    assert!(m.after.is_empty(), "step 0 waits for nothing");
                } else {
                    let pred = (r + n - 1) % n;
                    assert_eq!(m.after, vec![((s - 1) * n + pred) as u32], "step {s} rank {r}");
                    // the dependency is delivered at this message's sender
                    let d = p.conns[p.messages[m.after[0] as usize].conn as usize];
                    assert_eq!(d.dst, c.src);
                }
                assert_eq!((m.delay, m.at), (0, 0));
            }
        }
    }

    #[test]
    fn iterations_wait_for_everything_the_rank_sent_and_received_plus_compute() {
        let n = 4u32;
        let mut c = coll(Op::RingAllreduce, n, 4000);
        c.iterations = 3;
        c.channels = 2;
        c.compute = 7 * US;
        c.start = 3 * US;
        let p = c.part();
        well_formed(&p);
        let per_iter = (2 * (n - 1) * n * 2) as usize;
        assert_eq!(p.messages.len(), 3 * per_iter);
        assert_eq!(p.conns.len(), (n * 2) as usize, "connections are reused across iterations");
        for (i, m) in p.meta.iter().enumerate() {
            assert_eq!(m.iteration as usize, i / per_iter);
        }
        assert!(p.messages.iter().all(|m| m.at == 3 * US));
        for (i, m) in p.messages.iter().enumerate().skip(per_iter) {
            let k = i / per_iter;
            let src = p.conns[m.conn as usize].src;
            let from_prev: Vec<u32> = m.after.iter().copied().filter(|&d| (d as usize) < k * per_iter).collect();
            if from_prev.is_empty() {
                assert_eq!(m.delay, 0);
                continue;
            }
            // a first step: the last message of iteration k-1 on each of the
            // rank's 4 connections (2 channels x in and out), and nothing else
            assert_eq!(m.after, from_prev, "a first step waits only for the previous iteration");
            assert_eq!(m.delay, 7 * US);
            assert_eq!(from_prev.len(), 4);
            assert!(from_prev.iter().all(|&d| d as usize >= (k - 1) * per_iter));
            let touched: BTreeSet<u32> = from_prev.iter().map(|&d| p.messages[d as usize].conn).collect();
            let mine: BTreeSet<u32> = (0..p.conns.len() as u32)
                .filter(|&x| p.conns[x as usize].src == src || p.conns[x as usize].dst == src)
                .collect();
            assert_eq!(touched, mine);
            for &d in &from_prev {
                let later =
                    p.messages[(d as usize + 1)..k * per_iter].iter().any(|x| x.conn == p.messages[d as usize].conn);
                assert!(!later, "message {d} is its connection's last of iteration {}", k - 1);
            }
        }
        // every rank starts each later iteration on each channel once
        let firsts = p.messages.iter().filter(|m| m.delay > 0).count();
        assert_eq!(firsts, 2 * (n as usize) * 2);
    }

    #[test]
    fn a_wide_all_to_all_chains_iterations_through_a_join_per_rank() {
        // 300 ranks: each sends 299 first steps that would each wait for the
        // 598 last messages of the rank's connections (53 M dependencies an
        // iteration); through a join per rank, 299 + 598
        let n = 300u32;
        let mut c = coll(Op::Alltoall, n, 300 * 100);
        c.iterations = 2;
        c.compute = 5 * US;
        let p = c.part();
        let per_iter = (n * (n - 1)) as usize;
        assert_eq!(p.messages.len(), 2 * per_iter + n as usize);
        let joins = &p.messages[per_iter..per_iter + n as usize];
        for (r, j) in joins.iter().enumerate() {
            assert_eq!((j.compute_on, j.size, j.delay), (Some(c.hosts[r]), 0, 5 * US), "the compute is the join's");
            assert_eq!(j.after.len(), 2 * (n as usize - 1), "the last message of each of its connections");
            assert!(j.after.iter().all(|&d| (d as usize) < per_iter));
        }
        assert!(p.meta[per_iter..per_iter + n as usize].iter().all(|m| m.iteration == 0));
        for m in &p.messages[per_iter + n as usize..] {
            let src = p.conns[m.conn as usize].src;
            let r = c.hosts.iter().position(|&h| h == src).unwrap();
            assert_eq!((m.after.clone(), m.delay), (vec![(per_iter + r) as u32], 0));
        }
        let edges: usize = p.messages.iter().map(|m| m.after.len()).sum();
        assert_eq!(edges, n as usize * 2 * (n as usize - 1) + per_iter);
        // a small group waits directly, as before
        assert!(!crate::conns::through_join(31, 62) && crate::conns::through_join(299, 598));
    }

    #[test]
    fn ring_halves() {
        let (n, size) = (6u64, 600_000u64);
        for op in [Op::Allgather, Op::ReduceScatter] {
            let p = coll(op, n as u32, size).part();
            well_formed(&p);
            assert_eq!(p.messages.len() as u64, (n - 1) * n, "{op:?}");
            assert_eq!(p.conns.len() as u64, n);
            for &(sent, recv, _) in per_host(&p).values() {
                assert_eq!((sent, recv), ((n - 1) * size / n, (n - 1) * size / n), "{op:?}");
            }
            assert_eq!(p.messages.iter().filter(|m| m.after.is_empty()).count() as u64, n);
        }
        // with uneven chunks, all-gather forwards what it received: rank r
        // sends chunk r first, then the chunk its predecessor sent it
        let p = coll(Op::Allgather, 3, 10).part();
        let sizes: Vec<u64> = p.messages.iter().map(|m| m.size).collect();
        // chunks of 10 over 3: [3, 3, 4]; step 0: chunk r; step 1: chunk r-1
        assert_eq!(sizes, vec![3, 3, 4, 4, 3, 3]);
        for r in 0..3 {
            assert_eq!(p.messages[3 + r].size, p.messages[(r + 2) % 3].size);
        }
    }

    #[test]
    fn alltoall_sends_to_everyone_at_once() {
        let (n, size) = (5u64, 500_000u64);
        let mut c = coll(Op::Alltoall, n as u32, size);
        c.channels = 2;
        c.iterations = 2;
        let p = c.part();
        well_formed(&p);
        assert_eq!(p.messages.len() as u64, 2 * 2 * n * (n - 1));
        assert_eq!(p.conns.len() as u64, 2 * n * (n - 1));
        for &(sent, recv, msgs) in per_host(&p).values() {
            assert_eq!((sent, recv, msgs), (2 * (n - 1) * size / n, 2 * (n - 1) * size / n, 2 * 2 * (n - 1)));
        }
        let first = (2 * n * (n - 1)) as usize;
        assert!(p.messages[..first].iter().all(|m| m.after.is_empty()));
        // in iteration 1 every message waits for its sender's 2 x 2(n-1) connections
        assert!(p.messages[first..].iter().all(|m| m.after.len() as u64 == 2 * 2 * (n - 1)));
    }

    #[test]
    fn halving_doubling_pairs_and_bytes() {
        let (n, size) = (8u32, 800_000u64);
        let p = coll(Op::HalvingDoublingAllreduce, n, size).part();
        well_formed(&p);
        assert_eq!(p.messages.len(), 2 * 3 * 8);
        // each rank talks to 3 peers (xor 4, 2, 1), both ways: one connection each
        assert_eq!(p.conns.len(), 8 * 3);
        for &(sent, recv, msgs) in per_host(&p).values() {
            assert_eq!((sent, recv, msgs), (2 * 7 * size / 8, 2 * 7 * size / 8, 6));
        }
        let host = |r: u32| 10 + 3 * r;
        let expect_peer = [4, 2, 1, 1, 2, 4];
        let expect_size = [size / 2, size / 4, size / 8, size / 8, size / 4, size / 2];
        for j in 0..6 {
            for r in 0..n {
                let m = &p.messages[(j * 8 + r) as usize];
                let c = p.conns[m.conn as usize];
                assert_eq!((c.src, c.dst), (host(r), host(r ^ expect_peer[j as usize])), "step {j} rank {r}");
                assert_eq!(m.size, expect_size[j as usize]);
                // step j waits for the j messages the rank received so far
                assert_eq!(m.after.len(), j as usize);
                for &d in &m.after {
                    assert_eq!(p.conns[p.messages[d as usize].conn as usize].dst, host(r));
                }
            }
        }
        // uneven chunks: reduce-scatter sends all but the rank's own chunk;
        // all-gather brings each rank all but its own chunk
        let p = coll(Op::HalvingDoublingAllreduce, 4, 1003).part();
        let chunk = |r: u32| piece(1003, 4, r as u64);
        for r in 0..4u32 {
            let rs_sent: u64 =
                p.messages[..8].iter().filter(|m| p.conns[m.conn as usize].src == host(r)).map(|m| m.size).sum();
            let ag_recv: u64 =
                p.messages[8..].iter().filter(|m| p.conns[m.conn as usize].dst == host(r)).map(|m| m.size).sum();
            assert_eq!((rs_sent, ag_recv), (1003 - chunk(r), 1003 - chunk(r)), "rank {r}");
        }
    }

    #[test]
    fn refusals_name_the_field_and_value() {
        let e = |c: Collective| generate("workload[2]", &c).err().expect("refused");
        let x = e(coll(Op::HalvingDoublingAllreduce, 6, 6000));
        assert!(x.starts_with("workload[2].hosts: 6 hosts") && x.contains("power of two"), "{x}");
        let x = e(coll(Op::RingAllreduce, 1, 6000));
        assert!(x.starts_with("workload[2].hosts: 1 host(s)") && x.contains("at least 2"), "{x}");
        let mut c = coll(Op::RingAllreduce, 3, 6000);
        c.hosts[2] = c.hosts[0];
        assert_eq!(e(c), "workload[2].hosts[2] = 10: host listed twice");
        let mut c = coll(Op::RingAllreduce, 4, 3);
        assert_eq!(
            e(c.clone()),
            "workload[2].size = 3: must be at least hosts x channels = 4 bytes (each chunk needs a byte)"
        );
        c.size = 8;
        c.channels = 2;
        assert!(generate("w", &c).is_ok());
        c.channels = 0;
        assert_eq!(e(c.clone()), format!("workload[2].channels = 0: must be in 1..={MAX_CHANNELS}"));
        c.channels = 1;
        c.iterations = 0;
        assert_eq!(e(c.clone()), "workload[2].iterations = 0: must be at least 1");
        c.iterations = u32::MAX;
        let x = e(c);
        assert!(x.starts_with("workload[2].iterations = 4294967295: would make") && x.contains("at most"), "{x}");
    }

    /// Runs `op` over 4 hosts of a 100G star (1 us links) under `scheme` and
    /// returns (completion time of the last message, all messages completed).
    fn simulate(op: &str, size: &str, scheme: &str, extra: &str) -> (Time, ccsim_core::RunResult) {
        let text = format!(
            r#"
name = "coll"
schemes = ["{scheme}"]
[topology]
kind = "star"
hosts = 4
rate = "100Gbps"
delay = "1us"
[[workload]]
kind = "collective"
op = "{op}"
hosts = [0, 1, 2, 3]
size = "{size}"
{extra}
"#
        );
        let s =
            crate::file::load_text("coll.toml", &text, std::path::Path::new("."), "coll", &Default::default()).unwrap();
        let r = s.simulate(scheme, None).unwrap();
        assert!(!r.truncated && r.messages_waiting == 0, "{op} under {scheme}: {:?}", r.status);
        assert!(r.flows.iter().all(|f| f.fct.is_some()));
        let end = r.flows.iter().map(|f| f.start + f.fct.unwrap()).max().unwrap();
        (end, r)
    }

    #[test]
    fn every_op_runs_to_completion() {
        for op in ["ring_allreduce", "allgather", "reduce_scatter", "alltoall", "halving_doubling_allreduce"] {
            let (_, r) = simulate(op, "64KB", "hpcc", "channels = 2\niterations = 2\ncompute = \"5us\"");
            let n = r.flows.len();
            let op: Op =
                serde::Deserialize::deserialize(serde::de::value::StrDeserializer::<serde::de::value::Error>::new(op))
                    .unwrap();
            assert_eq!(n as u64, op.sends_per_rank(4) * 4 * 2 * 2, "{op:?}");
        }
    }

    #[test]
    fn ring_allreduce_end_to_end_near_the_bandwidth_bound() {
        // 4 ranks, 4 MB each: every rank sends and receives 2(n-1)/n x size
        // on its own 100G link, so no schedule beats that at line rate
        let (n, size, rate) = (4.0, 4e6, 100e9);
        let bound = (2.0 * (n - 1.0) / n * size * 8.0 / rate * 1e12) as Time;
        let rtt = 4 * US; // 2 hops of 1 us each way
        let slack = 2 * 3 * rtt;
        for scheme in ["none", "hpcc", "dcqcn"] {
            let (end, r) = simulate("ring_allreduce", "4MB", scheme, "");
            println!("{scheme}: ring all-reduce {end} ps, bound {bound} ps, ratio {:.3}", end as f64 / bound as f64);
            assert_eq!(r.flows.len(), 24);
            assert!(end >= bound, "{scheme}: {end} < bound {bound}");
            assert!(end as f64 <= 1.5 * bound as f64 + slack as f64, "{scheme}: {end} vs bound {bound}");
        }
        // compute between two iterations adds to the completion time
        let (one, _) = simulate("ring_allreduce", "4MB", "none", "");
        let (two, _) = simulate("ring_allreduce", "4MB", "none", "iterations = 2\ncompute = \"100us\"");
        assert!(two >= 2 * bound + 100 * US && two > one + 100 * US, "{one} {two}");
    }
}
