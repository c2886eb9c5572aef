//! ccsim-workload: what to simulate. Flow-size distributions ([`cdf`]),
//! traffic generators ([`traffic`]), topology builders and the scenario-file
//! `topology` table ([`topo`]), importers for the HPCC ns-3 simulator's
//! topology and flow files ([`hpcc`]), and the scenario-file `workload`
//! entries ([`spec`]). All randomness comes from `ccsim_core::rng::Rng`, so a
//! seed fixes every generated flow list.

pub mod cdf;
pub mod hpcc;
pub mod spec;
pub mod topo;
pub mod traffic;

#[cfg(test)]
mod testde;

pub use cdf::{Cdf, SampleMode};
pub use spec::{generate_all, FlowEntry, WorkloadSpec};
pub use topo::{Tier, TopoSpec};
