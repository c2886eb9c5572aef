//! The engine's integration tests, one module per subject, in one test binary
//! (one compile and link instead of one per file: issue 34). Run one subject
//! with `cargo test -p ccsim-core --test engine <module>::`.

mod common;

mod credit;
mod fabric;
mod hol;
mod hooks;
mod layering;
mod links;
mod losses;
mod messages;
mod nic;
mod projection;
mod recovery;
mod sleek;
mod trim;
mod wire;
