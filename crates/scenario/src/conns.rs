//! Workloads on persistent connections: RPCs arriving as a Poisson process
//! over a fixed set of connections (open loop), optionally each answered by a
//! response, and closed loops in which every client keeps K requests
//! outstanding, with a think time between a completion and the next request
//! (what "100% load" means in a lab: Bolt §5.5).
//!
//! A [`Part`] is what one workload entry generates: flows, or connections and
//! messages (ids local to the entry), and the closed loops that make messages
//! while the run goes ([`LoopSource`], a [`MessageSource`]).

use std::collections::{BTreeMap, HashMap};

use crate::cdf::{Cdf, SampleMode};
use ccsim_core::flow::{ConnSpec, FlowSpec, MessageEvent, MessageInfo, MessageSource, MessageSpec};
use ccsim_core::rng::Rng;
use ccsim_core::time::Time;

/// Per message of a part, what the results show beside it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MsgMeta {
    /// Iteration of a job (collectives, traces); 0 otherwise.
    pub iteration: u32,
    /// The collective it belongs to, numbered within its job's iteration
    /// (a `collective` workload: 0; a trace: its collectives in order);
    /// None for a message of no collective.
    pub collective: Option<u32>,
}

/// Most dependencies per unit involved that a set of waiting messages may
/// take on a set of waited ones directly (see [`through_join`]).
pub const JOIN_RATIO: u64 = 64;

/// Whether `waiting` messages or tasks that all wait for the same `waited`
/// ones (an iteration's first steps on a rank and the rank's last ones of
/// the previous iteration) should wait through one zero-length task that
/// waits for them (a join: waiting + waited dependencies, the same times)
/// rather than directly (waiting x waited): when directly would take more
/// than [`JOIN_RATIO`] dependencies per unit involved. Keeps lowering
/// linear; small groups, the common case, stay direct.
pub fn through_join(waiting: u64, waited: u64) -> bool {
    waiting.saturating_mul(waited) > JOIN_RATIO.saturating_mul(waiting + waited)
}

/// What one workload entry generates. Connection and message ids are local
/// to the part (`MessageSpec::conn`, `after`); [`crate::spec::generate_traffic`]
/// renumbers them when it merges the parts.
#[derive(Default)]
pub struct Part {
    pub flows: Vec<FlowSpec>,
    pub conns: Vec<ConnSpec>,
    pub messages: Vec<MessageSpec>,
    /// Empty, or one entry per message.
    pub meta: Vec<MsgMeta>,
    /// A closed loop and its connections (local ids), which it keeps using while the run goes.
    pub closed_loop: Option<(ClosedLoop, ConnPool)>,
    /// What a run of this traffic should be read with (a trace's dependencies
    /// dropped, nodes that move no data), shown before a run.
    pub notes: Vec<String>,
    /// A job's hosts in rank order (after placement); empty for other traffic.
    pub ranks: Vec<u32>,
}

/// The connections of one workload entry: `per_pair` per ordered host pair,
/// made as first used.
#[derive(Clone, Debug)]
pub struct ConnPool {
    per_pair: u32,
    prio: u8,
    ids: BTreeMap<(u32, u32), u32>,
    pub conns: Vec<ConnSpec>,
}

impl ConnPool {
    pub fn new(per_pair: u32, prio: u8) -> Self {
        ConnPool { per_pair: per_pair.max(1), prio, ids: BTreeMap::new(), conns: Vec::new() }
    }

    /// A connection from `src` to `dst`: one of the pair's `per_pair`, chosen at random.
    pub fn pick(&mut self, src: u32, dst: u32, rng: &mut Rng) -> u32 {
        let k = if self.per_pair > 1 { rng.below(self.per_pair as u64) as u32 } else { 0 };
        self.get(src, dst) + k
    }

    /// The first of the pair's connections (making them all if new).
    fn get(&mut self, src: u32, dst: u32) -> u32 {
        if let Some(&c) = self.ids.get(&(src, dst)) {
            return c;
        }
        let first = self.conns.len() as u32;
        for _ in 0..self.per_pair {
            self.conns.push(ConnSpec { src, dst, prio: self.prio });
        }
        self.ids.insert((src, dst), first);
        first
    }
}

/// The size of a response: fixed, or drawn from a CDF.
#[derive(Clone, Debug)]
pub enum RespSize {
    Fixed(u64),
    Cdf(Cdf, SampleMode),
}

impl RespSize {
    fn draw(&self, rng: &mut Rng) -> u64 {
        match self {
            RespSize::Fixed(n) => *n,
            RespSize::Cdf(c, m) => c.sample(rng, *m).max(1),
        }
    }
}

/// Poisson RPCs over persistent connections (`kind = "rpc"`): the arrivals
/// of `flows` (a Poisson flow list: src, dst, size, start), each sent as a
/// message on a connection of its pair, and answered, when `response` is
/// set, by a message on the reverse connection released as the request is
/// delivered (a dependency).
pub fn rpc(flows: &[FlowSpec], per_pair: u32, prio: u8, response: Option<&RespSize>, rng: &mut Rng) -> Part {
    let mut pool = ConnPool::new(per_pair, prio);
    let mut messages = Vec::with_capacity(flows.len() * if response.is_some() { 2 } else { 1 });
    for f in flows {
        let c = pool.pick(f.src, f.dst, rng);
        let req = messages.len() as u32;
        messages.push(MessageSpec {
            conn: c,
            size: f.size,
            at: f.start,
            after: vec![],
            delay: 0,
            tag: 0,
            compute_on: None,
        });
        if let Some(r) = response {
            let back = pool.pick(f.dst, f.src, rng);
            let size = r.draw(rng);
            messages.push(MessageSpec {
                conn: back,
                size,
                at: f.start,
                after: vec![req],
                delay: 0,
                tag: 0,
                compute_on: None,
            });
        }
    }
    Part { conns: pool.conns, messages, ..Default::default() }
}

/// Think time between a completion and the client's next request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Think {
    Fixed(Time),
    /// Exponentially distributed with this mean.
    Exponential(Time),
}

/// One closed-loop workload, ready to run (connection ids local to its part).
#[derive(Clone, Debug)]
pub struct ClosedLoop {
    pub clients: Vec<u32>,
    pub servers: Vec<u32>,
    /// Requests each client keeps outstanding.
    pub outstanding: u32,
    pub cdf: Cdf,
    pub sample: SampleMode,
    pub response: Option<RespSize>,
    pub think: Think,
    /// Requests each client sends in all (the initial ones included).
    pub requests: Option<u64>,
    pub start: Time,
    /// No request is issued at or after this time.
    pub end: Option<Time>,
    pub per_pair: u32,
    pub prio: u8,
}

impl ClosedLoop {
    /// The loop's connections (every client to every server, and back when
    /// requests are answered) and its first `outstanding` requests per client,
    /// all at `start`, as a part that carries the loop and its connections.
    /// Draws from `rng`, which the run's [`LoopSource`] continues.
    pub fn initial(self, rng: &mut Rng) -> Part {
        let mut pool = ConnPool::new(self.per_pair, self.prio);
        for &c in &self.clients {
            for &s in self.servers.iter().filter(|&&s| s != c) {
                pool.get(c, s);
                if self.response.is_some() {
                    pool.get(s, c);
                }
            }
        }
        let mut messages = Vec::new();
        let first = self.requests.map_or(self.outstanding as u64, |r| r.min(self.outstanding as u64));
        for &c in &self.clients {
            for _ in 0..first {
                let s = self.server_for(c, rng);
                let conn = pool.pick(c, s, rng);
                let size = self.cdf.sample(rng, self.sample).max(1);
                messages.push(MessageSpec {
                    conn,
                    size,
                    at: self.start,
                    after: vec![],
                    delay: 0,
                    tag: 0,
                    compute_on: None,
                });
            }
        }
        Part { conns: pool.conns.clone(), messages, closed_loop: Some((self, pool)), ..Default::default() }
    }

    fn server_for(&self, client: u32, rng: &mut Rng) -> u32 {
        let choices: Vec<u32> = self.servers.iter().copied().filter(|&s| s != client).collect();
        choices[rng.below(choices.len() as u64) as usize]
    }
}

/// What a loop's message is.
#[derive(Clone, Copy, Debug)]
struct Slot {
    /// Index into `LoopSource::loops`.
    lp: usize,
    /// Index into the loop's clients.
    client: usize,
    response: bool,
}

/// One loop while the run goes.
struct LoopRun {
    spec: ClosedLoop,
    /// Workload entry (message tag).
    tag: u32,
    /// The loop's connections (local ids), and the global id of the first.
    pool: ConnPool,
    conn_base: u32,
    /// Requests issued per client.
    issued: Vec<u64>,
    rng: Rng,
}

/// The closed loops of a scenario as a [`MessageSource`]: a request (or its
/// response) completes, and after the think time the client sends its next
/// request, until its `requests` are issued or the loop's end time.
pub struct LoopSource {
    loops: Vec<LoopRun>,
    /// Messages of the loops, by global id.
    slots: HashMap<u32, Slot>,
    /// The id the next message pushed gets.
    next_id: u32,
}

/// A loop's place in the merged traffic, for [`LoopSource::new`].
#[derive(Clone, Debug)]
pub struct LoopPlacement {
    pub spec: ClosedLoop,
    pub tag: u32,
    /// The loop's connections (local ids, in the order of its part's).
    pub pool: ConnPool,
    /// Global id of the loop's first connection (its part's conns follow in order).
    pub conn_base: u32,
    /// Global id of the loop's first initial request (the others follow, per client in order).
    pub msg_base: u32,
    /// The generator after drawing the initial requests.
    pub rng: Rng,
}

impl LoopSource {
    /// `total_messages`: the number of messages the run starts with.
    pub fn new(placed: Vec<LoopPlacement>, total_messages: u32) -> Self {
        let mut slots = HashMap::new();
        let mut loops = Vec::new();
        for (lp, p) in placed.into_iter().enumerate() {
            let first = p.spec.requests.map_or(p.spec.outstanding as u64, |r| r.min(p.spec.outstanding as u64));
            let mut id = p.msg_base;
            for client in 0..p.spec.clients.len() {
                for _ in 0..first {
                    slots.insert(id, Slot { lp, client, response: false });
                    id += 1;
                }
            }
            let issued = vec![first; p.spec.clients.len()];
            loops.push(LoopRun { spec: p.spec, tag: p.tag, pool: p.pool, conn_base: p.conn_base, issued, rng: p.rng });
        }
        LoopSource { loops, slots, next_id: total_messages }
    }

    /// A connection of the loop from `src` to `dst` (global id), one of its `per_pair` at random.
    fn conn(run: &mut LoopRun, src: u32, dst: u32) -> u32 {
        run.conn_base + run.pool.pick(src, dst, &mut run.rng)
    }
}

impl MessageSource for LoopSource {
    fn on_message(&mut self, now: Time, what: MessageEvent, msg: &MessageInfo, out: &mut Vec<MessageSpec>) {
        let Some(&slot) = self.slots.get(&msg.id) else { return };
        let run = &mut self.loops[slot.lp];
        let answered = run.spec.response.is_some();
        let client = run.spec.clients[slot.client];
        let tag = run.tag;
        let (m, next) = match (slot.response, what) {
            // the server has the request: it answers at once
            (false, MessageEvent::Delivered) if answered => {
                self.slots.remove(&msg.id);
                let server = run.pool.conns[(msg.conn - run.conn_base) as usize].dst;
                let size = run.spec.response.as_ref().expect("answered").draw(&mut run.rng);
                let conn = Self::conn(run, server, client);
                (
                    MessageSpec { conn, size, at: now, after: vec![], delay: 0, tag, compute_on: None },
                    Slot { response: true, ..slot },
                )
            }
            // the client has its answer, or its unanswered request completed
            (true, MessageEvent::Delivered) | (false, MessageEvent::Completed) if slot.response || !answered => {
                self.slots.remove(&msg.id);
                let run = &mut self.loops[slot.lp];
                if run.spec.requests.is_some_and(|r| run.issued[slot.client] >= r) {
                    return;
                }
                let at = now
                    + match run.spec.think {
                        Think::Fixed(t) => t,
                        Think::Exponential(mean) => run.rng.exp(mean as f64) as Time,
                    };
                if run.spec.end.is_some_and(|e| at >= e) {
                    return;
                }
                run.issued[slot.client] += 1;
                let server = run.spec.server_for(client, &mut run.rng);
                let conn = Self::conn(run, client, server);
                let size = run.spec.cdf.sample(&mut run.rng, run.spec.sample).max(1);
                (
                    MessageSpec { conn, size, at, after: vec![], delay: 0, tag, compute_on: None },
                    Slot { response: false, ..slot },
                )
            }
            _ => return,
        };
        self.slots.insert(self.next_id, next);
        self.next_id += 1;
        out.push(m);
    }
}
