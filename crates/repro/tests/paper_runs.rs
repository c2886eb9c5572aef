//! The reproduction's integration tests (causes, combinations, the reproduce
//! pipeline on the tiny paper), one module per file, in one test binary (one compile and
//! link instead of one per file: issue 34). Run one file's with
//! `cargo test -p ccsim-repro --test paper_runs <module>::`.

mod causes;
mod combinations;
mod reproduce;
