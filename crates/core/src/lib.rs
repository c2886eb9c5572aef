//! ccsim-core: a fast, deterministic, packet-level simulator of datacenter
//! fabrics (lossless RDMA-style Ethernet with PFC, ECN, INT and priority
//! classes, or lossy with tail drop), with hosts running a reliable
//! go-back-N transport. Congestion control plugs in through [`cc`]; the core
//! knows no scheme by name.
//!
//! Entry point: [`sim::run`] (or [`sim::Simulator`]) with a [`topology::Topology`],
//! a [`config::NetConfig`], a flow list and a [`cc::Scheme`].

pub mod cc;
pub mod compat;
pub mod config;
pub mod flow;
pub mod layout;
pub mod options;
pub mod packet;
pub mod parallel;
pub mod partition;
pub mod paths;
pub mod results;
pub mod rng;
pub mod sim;
pub mod time;
pub mod topology;
pub mod trace;
pub mod units;

mod build;
mod check;
mod credit;
mod event;
mod fabric;
mod host;
mod links;
mod mailbox;
mod msg;
mod nic;
mod nic_queue;
mod node;
mod port;
mod projection;
mod recovery;
mod routing;
mod setup;
mod sleek;
mod state;
mod table;
mod transport;
mod wiring;

pub use cc::{FlowView, ReceiverCc, ReceiverCx, Requirements, Scheme, SenderCc, SenderCx, SwitchCc, SwitchCx};
pub use config::NetConfig;
pub use flow::{ConnSpec, FlowSpec, MessageEvent, MessageInfo, MessageSource, MessageSpec, Traffic};
pub use results::{PortRef, RunResult, Summary};
pub use sim::{run, Progress, SimOptions, Simulator, TraceConfig};
pub use time::Time;
pub use topology::{LinkSpec, NodeKind, Topology};
