//! ccsim-scenario: what to simulate, and the one reader of scenario files.
//! The file format, its validation, scheme variants and `--set` overrides
//! ([`file`], with TOML error locations from [`tomlpath`]); flow-size
//! distributions ([`cdf`]), traffic generators ([`traffic`]), topology
//! builders and the `topology` table ([`topo`]), importers for the HPCC ns-3
//! simulator's topology and flow files ([`hpcc`]), and the `workload` entries
//! ([`spec`]). All randomness comes from `ccsim_core::rng::Rng`, so a seed
//! fixes every generated flow list.

pub mod cdf;
pub mod chakra;
pub mod collective;
pub mod conns;
pub mod dag;
pub mod file;
pub mod hpcc;
pub mod placement;
pub mod set;
pub mod spec;
pub mod strict;
pub mod tomlpath;
pub mod topo;
pub mod traffic;

#[cfg(test)]
mod testde;
#[doc(hidden)]
pub mod testutil;

pub use file::*;

pub use cdf::{Cdf, SampleMode};
pub use spec::{generate_all, generate_traffic, FlowEntry, Generated, WorkloadSpec};
pub use topo::{Tier, TopoSpec};
