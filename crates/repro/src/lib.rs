//! ccsim-repro: the seed papers' experiments as data, and the machinery that
//! reproduces them. A paper's `experiments/<paper>/manifest.toml` lists its
//! claims ([`manifest`]); [`plan`] expands them into independent runs
//! (scenario x scheme/variant x seed at a scale), keyed by a hash of what
//! decides their result; [`cache`] keeps finished runs; [`exec`] runs a plan
//! in parallel with progress; [`metrics`] is the one vocabulary of measures
//! computed from run results; [`verdict`] puts measured beside paper; and
//! [`report`] writes Markdown and self-contained HTML with SVG charts
//! ([`chart`], [`plots`]). Plan, runs, results and report are separate steps
//! with serializable boundaries, so another executor (a cluster) can run
//! the plan's runs.

pub mod cache;
pub mod chart;
pub mod combos;
pub mod exec;
pub mod manifest;
pub mod metrics;
pub mod output;
pub mod parquet_out;
pub mod plan;
pub mod plots;
pub mod report;
pub mod result_rows;
pub mod sweep;
#[doc(hidden)]
pub mod testing;
pub mod verdict;
