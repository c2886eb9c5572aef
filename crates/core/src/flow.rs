//! Flows to simulate: produced by workload generators, importers or scenario lists.

use crate::time::Time;

/// One flow: `size` payload bytes from host `src` to host `dst` starting at `start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowSpec {
    /// Index in the flow list (the simulator renumbers flows 0..n in list order).
    pub id: u32,
    /// Source host node id.
    pub src: u32,
    /// Destination host node id.
    pub dst: u32,
    /// Payload bytes (headers are added per packet by the transport).
    pub size: u64,
    pub start: Time,
    /// Data priority class (0 = highest data class). Control traffic is above all data classes.
    pub prio: u8,
}

/// A persistent connection from `src` to `dst` (an RDMA queue pair): one
/// transport and congestion-control state that carries messages in the order
/// they are released; its rate, window and estimators live across them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnSpec {
    pub src: u32,
    pub dst: u32,
    /// Data priority class (0 = highest data class).
    pub prio: u8,
}

/// A message on a connection. It is released (queued on its connection, after
/// the messages released before it) at `at`, or, when it waits for other
/// messages (`after`), `delay` after the last of them is done, and not before
/// `at`. A dependency is done when its data has reached its receiver if this
/// message is sent from that receiver (a data dependency: a ring step forwards
/// what it received), else when its sender has it acknowledged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MessageSpec {
    /// Index into the traffic's `conns`.
    pub conn: u32,
    /// Payload bytes (at least 1).
    pub size: u64,
    /// Earliest release time.
    pub at: Time,
    /// Messages (ids: indexes into the traffic's messages, lower than this
    /// one's) that must be done first.
    pub after: Vec<u32>,
    /// Wait after the last dependency is done (compute time, think time).
    pub delay: Time,
    /// The caller's label (ccsim's scenarios: the workload entry), passed to the results.
    pub tag: u32,
    /// Not a message but a compute task on this host (a trace's compute node):
    /// it sends nothing (`conn` and `size` are ignored) and is done as soon as
    /// it is released, `delay` after its dependencies. It has no result row.
    pub compute_on: Option<u32>,
}

/// What happened to a message, as told to a [`MessageSource`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageEvent {
    /// Its last byte reached the receiver (in order).
    Delivered,
    /// Its sender received the acknowledgement of its last byte: it is complete.
    Completed,
}

/// A message's facts, as told to a [`MessageSource`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageInfo {
    pub id: u32,
    /// Its connection (`u32::MAX` for a compute task).
    pub conn: u32,
    pub size: u64,
    pub tag: u32,
    pub released: Time,
}

/// Traffic generated while the run goes (closed loops, request/response): the
/// core tells it when a message is delivered or completed; it may answer with
/// new messages, which get the next ids in the order pushed. Their
/// dependencies must name existing messages; a release time in the past means now.
pub trait MessageSource: Send {
    fn on_message(&mut self, now: Time, what: MessageEvent, msg: &MessageInfo, out: &mut Vec<MessageSpec>);
}

/// Everything a run carries: flows (one transfer each, a fresh transport
/// state), connections and the messages on them, and an optional source of
/// messages made during the run.
#[derive(Default)]
pub struct Traffic {
    pub flows: Vec<FlowSpec>,
    pub conns: Vec<ConnSpec>,
    pub messages: Vec<MessageSpec>,
    pub source: Option<Box<dyn MessageSource>>,
}

impl Traffic {
    /// Flows only.
    pub fn flows(flows: Vec<FlowSpec>) -> Self {
        Traffic { flows, ..Default::default() }
    }
}
