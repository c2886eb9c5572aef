//! The scenario reader's integration tests (bad input, connection workloads,
//! the input fuzz test, traces), one module per file, in one test binary (one compile and
//! link instead of one per file: issue 34). Run one file's with
//! `cargo test -p ccsim-scenario --test inputs <module>::`.

mod bad_input;
mod conn_workloads;
mod fuzz;
mod placement;
mod threads;
mod traces;
