//! `ccsim`: run, compare, validate and benchmark datacenter congestion-control
//! scenarios described in TOML files.
//!
//! Exit status: 0 on success, 2 for bad input (scenario file, arguments),
//! 1 for a failure while running (e.g. results cannot be written, a --check
//! failed), 3 when a run did not complete (PFC deadlock, stall, interrupted;
//! its results are written).

/// `println!` that does not panic when stdout is closed (`ccsim run x | head -1`)
/// or full: what goes to stdout is a report of results already written.
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

/// `print!` that does not panic when stdout is closed or full.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($t)*);
    }};
}

/// `eprintln!` that does not panic when stderr is closed or full
/// (`ccsim run X 2>/dev/full` panicked with "failed printing to stderr").
macro_rules! errln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

/// `--jobs`: at least 1 (0 used to be taken as 1 without a word).
pub fn jobs_arg(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{s}' is not a whole number")),
    }
}

/// `--seeds`: 1 to `ccsim_repro::manifest::MAX_SEEDS`.
pub fn seeds_arg(s: &str) -> Result<u32, String> {
    let max = ccsim_repro::manifest::MAX_SEEDS;
    match s.parse::<u32>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        Ok(n) => Err(format!("{n}: must be in 1..={max}")),
        Err(_) => Err(format!("'{s}' is not a whole number in 1..={max}")),
    }
}

mod bench;
mod commands;
mod output;

mod progress;
mod reproduce;
mod sweep;

mod table;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

use ccsim_core::time::Time;

/// Why a command failed, which decides the exit status.
#[derive(Debug)]
pub enum Fail {
    /// Bad input: scenario file, arguments, names (exit 2).
    Input(String),
    /// Failure while running or writing results (exit 1).
    Runtime(String),
    /// The results are written but the run did not complete: a PFC
    /// deadlock, a stall, or an interruption (exit 3).
    Incomplete(String),
}

#[derive(Parser, Debug)]
#[command(
    name = "ccsim",
    version,
    about = "Packet-level datacenter network simulator for comparing congestion-control schemes",
    long_about = "Packet-level datacenter network simulator for comparing congestion-control schemes.\n\n\
                  Scenarios are TOML files (see scenarios/). Start with:\n  \
                  ccsim validate scenarios/quickstart.toml\n  \
                  ccsim compare scenarios/quickstart.toml\n\n\
                  Reproduce the seed papers' experiments (reports in results/reproduce/):\n  \
                  ccsim reproduce --list\n  \
                  ccsim reproduce all\n\n\
                  Sweep a scenario over loads, schemes and seeds (one tidy CSV):\n  \
                  ccsim sweep scenarios/quickstart.toml --grid workload[0].load=0.3,0.5 --grid seed=1..3"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Run a scenario with one scheme (the scenario's first, or --scheme).
    Run(RunArgs),
    /// Run a scenario with several schemes (same flows, same seed) and compare them side by side.
    Compare(CompareArgs),
    /// Check scenario files: parse, build the topology, generate the flows, make the schemes.
    Validate(ValidateArgs),
    /// List schemes, workloads, topologies or built-in flow-size distributions, with parameters.
    List(ListArgs),
    /// Benchmark the simulator on fixed reference scenarios (each in its own process).
    Bench(bench::BenchArgs),
    /// Reproduce the seed papers' experiments (OSCAR, Bolt, FNCC, SQCC, SRCC) and the
    /// Ultra Ethernet comparison (uet), and write a paper-vs-measured report per paper;
    /// `--list` shows papers, claims and run times.
    Reproduce(reproduce::ReproduceArgs),
    /// Run a scenario at every point of a grid (--grid key=v1,v2 ...: loads, schemes,
    /// seeds, any scenario value) in parallel, with the run cache; one tidy CSV.
    Sweep(sweep::SweepArgs),
}

fn parse_stop(s: &str) -> Result<Time, String> {
    let t = ccsim_core::units::parse_dur(s)?;
    if t == 0 {
        return Err("must be greater than zero".into());
    }
    Ok(t)
}

/// `--window FROM..TO`: a span of simulated time (either end may be left out).
fn parse_window(s: &str) -> Result<(Time, Time), String> {
    let (a, b) = s.split_once("..").ok_or("expected FROM..TO, e.g. 500us..1ms (or 2ms.., ..1ms)")?;
    let from = if a.trim().is_empty() { 0 } else { ccsim_core::units::parse_dur(a.trim())? };
    let to = if b.trim().is_empty() { Time::MAX } else { ccsim_core::units::parse_dur(b.trim())? };
    if to <= from {
        return Err(format!("the window ends ({}) before it starts ({})", b.trim(), a.trim()));
    }
    Ok((from, to))
}

/// Chart file formats besides SVG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figures(pub Vec<ccsim_repro::chart::export::Format>);

fn parse_figures(s: &str) -> Result<Figures, String> {
    ccsim_repro::chart::export::Format::parse_list(s).map(Figures)
}

/// How `run` and `compare` draw their charts.
#[derive(Args, Debug, Clone, Default)]
pub struct ChartArgs {
    /// Draw the time axes of the charts over this span only, e.g. --window 500us..1ms (2ms.. and ..1ms also work).
    #[arg(long, value_parser = parse_window, value_name = "FROM..TO")]
    pub window: Option<(Time, Time)>,
    /// Chart files to write besides SVG (always written, the HTML page shows it): --figures png,pdf (a build with the `export` feature).
    #[arg(long, value_parser = parse_figures, value_name = "FORMATS")]
    pub figures: Option<Figures>,
}

/// Format of the result tables.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Parquet,
}

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// Scenario file (TOML).
    pub scenario: PathBuf,
    /// Scheme to run instead of the scenario's first.
    #[arg(long)]
    pub scheme: Option<String>,
    /// Seed for the workload and the simulation, instead of the scenario's.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Stop at this simulated time, e.g. 5ms (default: the scenario's `stop`, else when all flows finish).
    #[arg(long, value_parser = parse_stop)]
    pub stop: Option<Time>,
    /// Results directory (default: the scenario's [output] dir, else "results").
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Override any scenario value, e.g. --set workload[0].load=0.5 --set network.pfc.static_xoff=500KB (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Check the run's invariants at its end (byte conservation, no loss where lossless, buffer
    /// accounting, no packet leaked once the fabric drains); a failed check exits 1.
    #[arg(long)]
    pub check: bool,
    /// Threads each run uses (default: the scenario's `threads`, else 1): the network is cut
    /// into as many parts, with results identical to one thread's.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub threads: Option<u16>,
    /// Result tables as csv (default) or parquet: flows, ports and the traces
    /// (the traces are streamed as CSV during the run and converted at the end).
    #[arg(long, value_enum, default_value_t = Format::Csv)]
    pub format: Format,
    /// Replace an existing result directory instead of writing a new one with a suffix.
    #[arg(long)]
    pub force: bool,
    /// No progress line.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub charts: ChartArgs,
}

#[derive(Args, Debug, Clone)]
pub struct CompareArgs {
    /// Scenario file (TOML).
    pub scenario: PathBuf,
    /// Schemes to compare, comma-separated (default: the scenario's `schemes`).
    #[arg(long, value_delimiter = ',')]
    pub schemes: Option<Vec<String>>,
    /// Seed for the workload and the simulation, instead of the scenario's.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Stop at this simulated time, e.g. 5ms.
    #[arg(long, value_parser = parse_stop)]
    pub stop: Option<Time>,
    /// Results directory (default: the scenario's [output] dir, else "results").
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Override any scenario value, e.g. --set workload[0].load=0.5 --set network.pfc.static_xoff=500KB (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Check the run's invariants at its end (byte conservation, no loss where lossless, buffer
    /// accounting, no packet leaked once the fabric drains); a failed check exits 1.
    #[arg(long)]
    pub check: bool,
    /// Threads each run uses (default: the scenario's `threads`, else 1): the network is cut
    /// into as many parts, with results identical to one thread's.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub threads: Option<u16>,
    /// Result tables as csv (default) or parquet: flows, ports and the traces
    /// (the traces are streamed as CSV during the run and converted at the end).
    #[arg(long, value_enum, default_value_t = Format::Csv)]
    pub format: Format,
    /// Replace an existing result directory instead of writing a new one with a suffix.
    #[arg(long)]
    pub force: bool,
    /// Simulations run at once (default: the number of CPUs).
    #[arg(long, value_parser = jobs_arg)]
    pub jobs: Option<usize>,
    /// No progress line.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub charts: ChartArgs,
}

#[derive(Args, Debug, Clone)]
pub struct ValidateArgs {
    /// Scenario files (TOML).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Check each file with these values overridden, as `run` would run it, e.g. --set workload[0].load=0.9 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListWhat {
    Schemes,
    Workloads,
    Topologies,
    Cdfs,
    /// Every `[network]` key with its unit, default and source.
    Network,
    /// Which scheme x load balancer x receiver x fabric combinations are
    /// refused and why (docs/COMBINATIONS.md has the runs).
    Combinations,
}

#[derive(Args, Debug, Clone)]
pub struct ListArgs {
    /// What to list (default: everything).
    pub what: Option<ListWhat>,
}

/// Keeps glibc's malloc from moving its mmap threshold. By default each
/// large block freed raises the threshold to that block's size (up to
/// 32 MB); after that the packet pools' and queues' growing vectors are
/// copied inside the heap, and the holes they leave stay resident. A fixed
/// threshold (128 KB, glibc's initial value, `mallopt(3)`) keeps every
/// large block in its own mapping, returned when freed: a lower peak on
/// one thread and more so on several (measured in docs/PERFORMANCE.md).
fn fix_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a malloc parameter; called before any thread starts
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

fn main() -> ExitCode {
    fix_mmap_threshold();
    let cli = Cli::parse();
    let res = match &cli.cmd {
        Cmd::Run(a) => commands::run(a),
        Cmd::Compare(a) => commands::compare(a),
        Cmd::Validate(a) => commands::validate(a),
        Cmd::List(a) => commands::list(a),
        Cmd::Bench(a) => bench::bench(a),
        Cmd::Reproduce(a) => reproduce::reproduce(a),
        Cmd::Sweep(a) => sweep::sweep(a),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail::Input(m)) => {
            errln!("error: {m}");
            ExitCode::from(2)
        }
        Err(Fail::Runtime(m)) => {
            errln!("error: {m}");
            ExitCode::from(1)
        }
        Err(Fail::Incomplete(m)) => {
            errln!("error: {m}");
            ExitCode::from(3)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn parses_commands_and_options() {
        let c =
            Cli::try_parse_from(["ccsim", "compare", "x.toml", "--schemes", "dcqcn,hpcc,none", "--seed", "7"]).unwrap();
        match c.cmd {
            Cmd::Compare(a) => {
                assert_eq!(a.schemes.unwrap(), vec!["dcqcn", "hpcc", "none"]);
                assert_eq!(a.seed, Some(7));
            }
            _ => panic!("not compare"),
        }
        let c = Cli::try_parse_from(["ccsim", "run", "x.toml", "--stop", "5ms", "--force", "-q"]).unwrap();
        match c.cmd {
            Cmd::Run(a) => {
                assert_eq!(a.stop, Some(5 * ccsim_core::time::MS));
                assert!(a.force && a.quiet);
            }
            _ => panic!("not run"),
        }
        assert!(Cli::try_parse_from(["ccsim", "run", "x.toml", "--stop", "5"]).is_err());
        assert!(Cli::try_parse_from(["ccsim", "run", "x.toml", "--stop", "0ms"]).is_err());
        assert!(Cli::try_parse_from(["ccsim", "list", "nothing"]).is_err());
        let c = Cli::try_parse_from(["ccsim", "list", "cdfs"]).unwrap();
        assert!(matches!(c.cmd, Cmd::List(ListArgs { what: Some(ListWhat::Cdfs) })));
    }
}
