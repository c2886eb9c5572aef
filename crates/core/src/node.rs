//! The state a switch and a host own (their ports are `Port`s, by global
//! id; their flows are the simulator's), and the classes PFC keeps lossless.

use std::collections::VecDeque;

use crate::cc::SwitchCc;
use crate::config::NetConfig;
use crate::nic_queue::NicFlows;
use crate::rng::Rng;
use crate::time::Time;

/// A switch: its ports `port_start..port_end`, its shared buffer's
/// occupancy and its budgets, its ECMP salt and the scheme's switch part.
pub(crate) struct Switch {
    pub node: u32,
    pub port_start: u32,
    pub port_end: u32,
    pub shared_used: u64,
    /// PFC headroom of its ingresses, for the lossless classes only.
    pub total_hdrm: u64,
    pub total_rsrv: u64,
    pub salt: u64,
    /// Its random stream (RED marking).
    pub rng: Rng,
    pub cc: Option<Box<dyn SwitchCc>>,
}

/// A host: its one port, its NIC's flows and its receive state.
pub(crate) struct Host {
    pub port: u32,
    /// Flows this host sends: started, not complete (see `nic.rs`).
    pub nic: NicFlows,
    /// Time of the pending `HostWake`, or `Time::MAX`.
    pub wake_at: Time,
    /// Flows being received (first packet seen, last byte not yet).
    pub rx_active: u32,
    /// Its random stream (a sprayed packet's entropy).
    pub rng: Rng,
}

/// The classes PFC protects, as a bit mask (class = priority + 1).
pub(crate) fn lossless_classes(net: &NetConfig) -> u8 {
    if !net.pfc.enabled {
        return 0;
    }
    (1..=net.data_classes).filter(|c| !net.pfc.lossy_prios.contains(&(c - 1))).fold(0u8, |m, c| m | 1 << c)
}

/// One receiving host's credit pacer.
#[derive(Debug, Default)]
pub(crate) struct Pacer {
    /// Flows waiting for credit, served round robin.
    pub queue: VecDeque<u32>,
    /// A `Pull` event is pending.
    pub armed: bool,
    /// The pacer may pull again from this time (the last grant's time at the
    /// credit rate).
    pub free_at: Time,
}
