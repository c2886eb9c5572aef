//! Congestion-control schemes for ccsim, one file per scheme, and the registry
//! that maps scheme names to factories.
//!
//! Each scheme file holds a `Config` struct (serde, every field documented with
//! its default and the source of that default), the scheme's sender, receiver and
//! switch parts behind the traits of [`ccsim_core::cc`], and unit tests that feed
//! the parts synthetic signals and check their reaction.
//!
//! Adding a scheme: write `src/NAME.rs` with a config type implementing
//! [`registry::SchemeConfig`], declare the module below, and add one line to
//! the `SCHEMES` table in `registry.rs`.

pub mod bitmap;
pub mod bolt;
pub mod dcqcn;
pub mod dctcp;
pub mod feedback;
pub mod fncc;
pub mod hpcc;
pub mod none;
pub mod nscc;
pub mod oblivious;
pub mod oscar;
pub mod patched_timely;
pub mod pcn;
pub mod powertcp;
pub mod registry;
pub mod reps;
pub mod sqcc;
pub mod srcc;
pub mod swift;
pub mod timely;

#[cfg(test)]
mod testutil;

pub use registry::{config, describe, make, names, resolved, ParamInfo, SchemeConfig, SchemeInfo};
