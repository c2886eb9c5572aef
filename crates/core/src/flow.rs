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
