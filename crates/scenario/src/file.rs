//! Scenario files: the TOML format, its validation, and turning it into what
//! the simulator runs (topology, network config, flow list, schemes and
//! variants, traces). The only reader of scenario TOML: the CLI, the
//! reproduction runner, the Python package and the tests all load through
//! [`load`] / [`load_text`].
//!
//! Every error names the file, the key path and the value where one applies,
//! e.g. `scenarios/x.toml: topology.delay = "3": invalid duration ...`.

use crate::spec::WorkloadSpec;
use crate::topo::TopoSpec;
use ccsim_core::config::NetConfig;
use ccsim_core::flow::FlowSpec;
use ccsim_core::results::PortRef;
use ccsim_core::sim::{SimOptions, TraceConfig};
use ccsim_core::time::{Time, US};
use ccsim_core::topology::Topology;
use ccsim_core::units::{fmt_dur, fmt_rate, Dur};
use ccsim_core::Scheme;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::tomlpath;

/// Scheme used when a scenario names none.
pub const DEFAULT_SCHEME: &str = "hpcc";
/// Trace sampling interval when traces are requested without one.
pub const DEFAULT_TRACE_INTERVAL: Time = 10 * US;
/// Longest scenario name (as a results folder name), in bytes.
pub const MAX_NAME_BYTES: usize = 255;

/// Output directory when neither the scenario nor the command line names one.
pub const DEFAULT_OUT_DIR: &str = "results";

fn default_seed() -> u64 {
    1
}

/// The file as written (every table refuses unknown keys).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Default: the file stem.
    pub name: Option<String>,
    pub description: Option<String>,
    /// Seed of the workload generators and of the simulation. Default 1.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Schemes `run` uses (the first) and `compare` uses (all). Default ["hpcc"].
    pub schemes: Option<Vec<String>>,
    /// Simulated-time limit. Default: until all flows finish.
    pub stop: Option<Dur>,
    /// End the run as stalled (or deadlocked) when flows are active and no
    /// data is delivered for this long. Default 10ms.
    pub stall: Option<Dur>,
    /// Threads each run uses: the network is cut into as many parts, with
    /// results identical to one thread's (`ccsim_core::parallel`; what
    /// cannot be cut yet runs on one thread and says why). Default 1;
    /// `--threads` overrides it.
    pub threads: Option<usize>,
    #[serde(deserialize_with = "crate::strict::table")]
    pub topology: TopoSpec,
    /// `[[link]]`: one direction of a topology link (or both) with its own
    /// rate and delay (see [`crate::topo::LinkOverride`]).
    #[serde(default)]
    pub link: Vec<crate::topo::LinkOverride>,
    #[serde(default)]
    pub network: NetConfig,
    /// One or more workloads; their flows are merged.
    #[serde(deserialize_with = "crate::strict::list_of_tables")]
    pub workload: Vec<WorkloadSpec>,
    /// Per-scheme parameter tables, `[scheme.NAME]`.
    #[serde(default)]
    pub scheme: BTreeMap<String, toml::Value>,
    /// Named variants, `[variants.NAME]`: `base = "scheme"` and parameters
    /// laid over `[scheme.<base>]`; usable wherever a scheme name is.
    #[serde(default)]
    pub variants: BTreeMap<String, toml::Value>,
    pub trace: Option<TraceSection>,
    pub output: Option<OutputSection>,
}

#[derive(Deserialize, Default, Debug, Clone)]
#[serde(deny_unknown_fields, expecting = "a [trace] table")]
pub struct TraceSection {
    /// Sampling interval of every series. Default 10us.
    pub interval: Option<Dur>,
    /// Egress ports whose queue length is sampled, as "node:peer".
    #[serde(default)]
    pub queues: Vec<String>,
    /// Egress ports whose utilization is sampled, as "node:peer".
    #[serde(default)]
    pub utilization: Vec<String>,
    /// Flow ids (index in the generated flow list) whose rate/window are sampled.
    #[serde(default)]
    pub flows: Vec<u32>,
    /// Also record every rate/window change of the traced flows. Default false.
    #[serde(default)]
    pub changes: bool,
    /// Also record every ACK (send time, arrival) of the traced flows. Default false.
    #[serde(default)]
    pub acks: bool,
    /// Bin every RTT sample of every flow (RTT percentiles and CDFs). Default false.
    #[serde(default)]
    pub rtt: bool,
}

#[derive(Deserialize, Default, Debug, Clone)]
#[serde(deny_unknown_fields, expecting = "an [output] table")]
pub struct OutputSection {
    /// Results directory, relative to the current directory. Default "results".
    pub dir: Option<PathBuf>,
}

/// Command-line values that replace the file's.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub seed: Option<u64>,
    pub stop: Option<Time>,
    /// Schemes to use instead of the file's `schemes`.
    pub schemes: Option<Vec<String>>,
    pub out_dir: Option<PathBuf>,
    /// `--set key.path=value`: values laid over the file before it is read.
    pub sets: Vec<(String, toml::Value)>,
    /// Check everything but do not generate the workloads' traffic
    /// (`flows` and `messages` come back empty; checks that need the flows,
    /// such as `trace.flows` ids, are skipped). For plans and cost
    /// estimates, which tell traffic apart by [`Scenario::traffic_key`] and
    /// generate each distinct traffic once. Default false.
    pub skip_traffic: bool,
}

/// A named variant of a scheme (`[variants.NAME]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    /// The registered scheme it is built from.
    pub base: String,
    /// Its parameters: the scenario's `[scheme.<base>]` with the variant's own on top.
    pub params: toml::Value,
}

/// A scenario ready to simulate.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The file as named on the command line (for messages).
    pub label: String,
    /// The file's text (copied to the results).
    pub text: String,
    /// The `--set` overrides laid over the file, as `key=value` in the
    /// order given (empty without): `run.json` and the results page show them.
    pub overrides: Vec<String>,
    pub name: String,
    pub description: Option<String>,
    pub seed: u64,
    pub schemes: Vec<String>,
    pub stop: Option<Time>,
    /// See [`ScenarioFile::stall`].
    pub stall: Time,
    /// Set it to stop a running simulation of this scenario (Ctrl-C).
    pub interrupt: ccsim_core::sim::Interrupt,
    /// Check the run's invariants at its end (`--check`). Default false.
    pub check: bool,
    /// Count the run's events as parallel runs of these thread counts
    /// would see them (`ccsim bench --project-threads`; not a file key).
    pub project_threads: Vec<usize>,
    /// See [`ScenarioFile::threads`].
    pub threads: usize,
    pub topo: Topology,
    pub net: NetConfig,
    pub flows: Vec<FlowSpec>,
    /// For each flow (by id): the index of the `[[workload]]` entry that generated it.
    pub flow_workload: Vec<u32>,
    /// What decides the generated traffic (`flows`, `messages`): the
    /// topology and workload entries as read, the seed and the folder their
    /// files are read from. Equal keys give equal traffic.
    pub traffic_key: String,
    /// Connections, messages (each message's `tag` is its workload entry) and
    /// closed loops; its `flows` are moved to `flows` above.
    pub messages: crate::spec::Generated,
    pub scheme_params: BTreeMap<String, toml::Value>,
    /// Named variants, by name.
    pub variants: BTreeMap<String, Variant>,
    pub trace: TraceConfig,
    pub out_dir: PathBuf,
}

/// A scenario file as [`load_text`] takes it.
pub struct FileSource {
    /// How errors name the file (its path as given).
    pub label: String,
    pub text: String,
    /// Where its relative paths start.
    pub base_dir: PathBuf,
    /// The default scenario name.
    pub stem: String,
}

/// Reads a scenario file (not yet parsed).
pub fn read_file(path: &Path) -> Result<FileSource, String> {
    let label = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{label}: cannot read the scenario file: {e}"))?;
    let base_dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "scenario".into());
    Ok(FileSource { label, text, base_dir, stem })
}

/// Reads and resolves a scenario file.
pub fn load(path: &Path, ov: &Overrides) -> Result<Scenario, String> {
    let f = read_file(path)?;
    load_text(&f.label, &f.text, &f.base_dir, &f.stem, ov)
}

/// A located error message: `label: path = value: msg (line N)`.
fn at(label: &str, text: &str, path: &str, value: Option<&str>, msg: &str) -> String {
    let what = match value {
        Some(v) => format!("{path} = {v}"),
        None => path.to_string(),
    };
    match tomlpath::line_of(text, path) {
        Some(line) => format!("{label}: {what}: {msg} (line {line})"),
        None => format!("{label}: {what}: {msg}"),
    }
}

/// Like [`at`], with the value as written in the file.
fn at_here(label: &str, text: &str, path: &str, msg: &str) -> String {
    let value = tomlpath::span_of(text, path).and_then(|s| text.get(s)).map(|s| s.to_string());
    at(label, text, path, value.as_deref(), msg)
}

/// Prefixes an error from another crate with the file and, unless the message
/// already starts with it, the section it concerns.
fn in_section(label: &str, section: &str, msg: &str) -> String {
    let head = section.split(['.', '[']).next().unwrap_or(section);
    if msg.starts_with(head) {
        format!("{label}: {msg}")
    } else {
        format!("{label}: {section}: {msg}")
    }
}

/// "topology (fat_tree): k = 3: must be even" -> "topology.k = 3: must be even (fat_tree)",
/// so the message names the key as written in the file.
fn topology_msg(msg: &str) -> String {
    let Some(rest) = msg.strip_prefix("topology (") else { return msg.to_string() };
    let Some((kind, rest)) = rest.split_once("): ") else { return msg.to_string() };
    let key: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    let after = &rest[key.len()..];
    if !key.is_empty() && (after.starts_with(" = ") || after.starts_with(": ")) {
        format!("topology.{rest} ({kind})")
    } else {
        format!("topology ({kind}): {rest}")
    }
}

fn quote(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// Keys under which zero makes no sense (counts, sizes, loads, durations).
const POSITIVE_KEYS: &[&str] = &[
    "load",
    "duration",
    "size",
    "hosts",
    "hosts_per_side",
    "hosts_per_leaf",
    "hosts_per_tor",
    "leaves",
    "spines",
    "k",
    "pods",
    "tors_per_pod",
    "aggs_per_pod",
    "cores",
    "senders",
    "fan_in",
    "switches",
    "interval",
];

fn is_zero_value(v: &toml::Value) -> bool {
    match v {
        toml::Value::Integer(i) => *i == 0,
        toml::Value::Float(f) => *f == 0.0,
        toml::Value::String(s) => {
            let s = s.trim();
            let num: String = s.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
            let unit = s[num.len()..].trim();
            unit.chars().all(|c| c.is_ascii_alphabetic() || c == '/')
                && num.parse::<f64>().map(|x| x == 0.0).unwrap_or(false)
        }
        _ => false,
    }
}

/// "-1us", "-0.5": a negative quantity written as a string.
fn looks_negative(s: &str) -> bool {
    let s = s.trim_start();
    s.starts_with('-') && s[1..].trim_start().starts_with(|c: char| c.is_ascii_digit() || c == '.')
}

/// Refuses negative numbers anywhere in a table (no quantity of the
/// topology, workload, network or trace can be negative) and zero where it
/// makes no sense.
fn check_signs(label: &str, text: &str, path: &str, v: &toml::Value) -> Result<(), String> {
    match v {
        toml::Value::Integer(i) if *i < 0 => Err(at(label, text, path, Some(&i.to_string()), "must not be negative")),
        toml::Value::Float(f) if *f < 0.0 || f.is_nan() => {
            Err(at(label, text, path, Some(&f.to_string()), "must be a non-negative number"))
        }
        toml::Value::String(s) if looks_negative(s) => {
            Err(at(label, text, path, Some(&quote(s)), "must not be negative"))
        }
        toml::Value::Table(t) => {
            for (k, x) in t {
                let p = format!("{path}.{k}");
                if POSITIVE_KEYS.contains(&k.as_str()) && is_zero_value(x) {
                    return Err(at(label, text, &p, Some(&x.to_string()), "must be greater than zero"));
                }
                check_signs(label, text, &p, x)?;
            }
            Ok(())
        }
        toml::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                check_signs(label, text, &format!("{path}[{i}]"), x)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Checks that files a table names exist, so the message names the file
/// and the key before any generator runs.
fn check_files(label: &str, text: &str, base_dir: &Path, path: &str, t: &toml::Table) -> Result<(), String> {
    let kind = t.get("kind").and_then(|k| k.as_str()).unwrap_or("");
    for key in ["path", "cdf"] {
        let Some(toml::Value::String(s)) = t.get(key) else { continue };
        if key == "cdf" {
            let builtin = crate::cdf::Cdf::builtin_names();
            if builtin.iter().any(|b| b.eq_ignore_ascii_case(s)) {
                continue;
            }
            let file = base_dir.join(s);
            if !file.is_file() {
                return Err(at(
                    label,
                    text,
                    &format!("{path}.cdf"),
                    Some(&quote(s)),
                    &format!(
                        "neither a built-in distribution ({}) nor an existing CDF file (looked for {})",
                        builtin.join(", "),
                        file.display()
                    ),
                ));
            }
        } else if kind == "hpcc_file" || kind == "hpcc_flows" {
            let file = base_dir.join(s);
            if !file.is_file() {
                return Err(at(
                    label,
                    text,
                    &format!("{path}.path"),
                    Some(&quote(s)),
                    &format!("file not found: {}", file.display()),
                ));
            }
        }
    }
    Ok(())
}

/// Parses "node:peer".
pub fn parse_port(s: &str) -> Result<PortRef, String> {
    let err = || "expected an egress port as \"node:peer\" with integer node ids, e.g. \"2:5\"".to_string();
    let (a, b) = s.split_once(':').ok_or_else(err)?;
    let node = a.trim().parse::<u32>().map_err(|_| err())?;
    let peer = b.trim().parse::<u32>().map_err(|_| err())?;
    Ok(PortRef { node, peer })
}

/// Makes a name safe to use as one path component.
pub fn safe_component(s: &str) -> String {
    let out: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' { c } else { '_' })
        .collect();
    let out = out.trim_matches('.').to_string();
    if out.is_empty() {
        "scenario".into()
    } else {
        out
    }
}

/// Resolves a scenario given as text. `label` names it in messages, relative
/// paths in it are resolved against `base_dir`, `stem` is its default name.
pub fn load_text(label: &str, text: &str, base_dir: &Path, stem: &str, ov: &Overrides) -> Result<Scenario, String> {
    if ov.sets.is_empty() {
        return load_resolved(label, text, base_dir, stem, ov);
    }
    // --set: lay the values over the file and read the result like a file
    // (the text is regenerated, so comments are not kept in it)
    let mut doc: toml::Table = toml::from_str(text).map_err(|e| tomlpath::format_toml_error(label, text, &e))?;
    let mut said = Vec::new();
    for (k, v) in &ov.sets {
        crate::set::apply(&mut doc, k, v.clone())?;
        said.push(format!("{k}={v}"));
    }
    let label = format!("{label} (with --set {})", said.join(" "));
    let body = toml::to_string(&doc).map_err(|e| format!("{label}: cannot apply --set: {e}"))?;
    let text = format!("# {label}\n{body}");
    let mut scn = load_resolved(&label, &text, base_dir, stem, ov)?;
    scn.overrides = said;
    Ok(scn)
}

/// Reads `[topology]` or a `[[workload]]` entry alone (a [`tomlpath::Reader`]):
/// serde reads these `kind`-tagged tables from a copy without positions, so
/// an error in one is located by reading it again key by key.
fn read_tagged(path: &str, t: &toml::Table) -> Result<(), String> {
    let v = toml::Value::Table(t.clone());
    let read = if path == "topology" {
        crate::strict::table::<_, TopoSpec>(v).map(drop)
    } else if path.starts_with("workload[") {
        crate::strict::table::<_, WorkloadSpec>(v).map(drop)
    } else {
        return Ok(());
    };
    read.map_err(|e| e.message().to_string())
}

fn load_resolved(label: &str, text: &str, base_dir: &Path, stem: &str, ov: &Overrides) -> Result<Scenario, String> {
    // 1. Syntax, then the typed structure (unknown keys, wrong types, bad units).
    let raw: toml::Table = toml::from_str(text).map_err(|e| tomlpath::format_toml_error(label, text, &e))?;
    // (arrays are refused where tables are expected: `crate::strict`)
    let file: ScenarioFile = crate::strict::from_str(text).map_err(|e| {
        let mut m = tomlpath::format_toml_error_with(label, text, &e, &read_tagged);
        if e.message().contains("expected a sequence") && raw.get("workload").is_some_and(|w| w.is_table()) {
            m.push_str("\n(write each workload as a [[workload]] table, with double brackets)");
        }
        m
    })?;

    // 2. Values serde accepts but no scenario can mean.
    for section in ["topology", "network", "workload", "trace"] {
        if let Some(v) = raw.get(section) {
            check_signs(label, text, section, v)?;
        }
    }
    if let Some(toml::Value::Table(t)) = raw.get("topology") {
        check_files(label, text, base_dir, "topology", t)?;
    }
    if let Some(toml::Value::Array(ws)) = raw.get("workload") {
        for (i, w) in ws.iter().enumerate() {
            if let toml::Value::Table(t) = w {
                check_files(label, text, base_dir, &format!("workload[{i}]"), t)?;
            }
        }
    }
    if file.workload.is_empty() {
        return Err(at(label, text, "workload", None, "at least one [[workload]] is needed"));
    }
    let name = match &file.name {
        Some(n) if n.trim().is_empty() => return Err(at(label, text, "name", Some(&quote(n)), "must not be empty")),
        Some(n) => n.clone(),
        None => stem.to_string(),
    };
    // the name is a folder of the results (`dir_name`): most file systems take 255 bytes
    if safe_component(&name).len() > MAX_NAME_BYTES {
        let shown: String = name.chars().take(40).collect();
        let msg = format!(
            "{} bytes: a name becomes a results folder, at most {MAX_NAME_BYTES} bytes",
            safe_component(&name).len()
        );
        return Err(if file.name.is_some() {
            at(label, text, "name", Some(&quote(&format!("{shown}..."))), &msg)
        } else {
            format!("{label}: the file name '{shown}...' (the scenario's default name) is {msg}")
        });
    }
    let seed = ov.seed.unwrap_or(file.seed);
    let stop = match ov.stop {
        Some(0) => return Err("--stop: must be greater than zero".to_string()),
        Some(t) => Some(t),
        None => match file.stop {
            Some(Dur(0)) => return Err(at_here(label, text, "stop", "must be greater than zero")),
            Some(Dur(t)) => Some(t),
            None => None,
        },
    };

    let stall = match file.stall {
        Some(Dur(0)) => return Err(at_here(label, text, "stall", "must be greater than zero")),
        Some(Dur(t)) => t,
        None => ccsim_core::sim::DEFAULT_STALL,
    };
    let threads = match file.threads {
        Some(0) => return Err(at_here(label, text, "threads", "must be at least 1")),
        Some(n) if n > 4096 => return Err(at_here(label, text, "threads", "must be at most 4096")),
        Some(n) => n,
        None => 1,
    };

    // 3. Network.
    file.network.validate().map_err(|m| in_section(label, "network", &m))?;

    // 4. Topology.
    let mut topo = file.topology.build(base_dir).map_err(|m| in_section(label, "topology", &topology_msg(&m)))?;
    crate::topo::apply_links(&mut topo, &file.link).map_err(|m| format!("{label}: {m}"))?;
    topo.validate().map_err(|m| in_section(label, "topology", &m))?;
    topo.check_link_events(&file.network.link_events, stop).map_err(|m| in_section(label, "network", &m))?;

    // 5. Schemes and variants.
    let registered = registry::scheme_names();
    let variants = read_variants(label, text, &file, &registered)?;
    let mut known = registered.clone();
    known.extend(variants.keys().cloned());
    let (schemes, from_file) = match &ov.schemes {
        Some(s) => (s.clone(), false),
        None => (file.schemes.clone().unwrap_or_else(|| vec![DEFAULT_SCHEME.to_string()]), true),
    };
    if schemes.is_empty() {
        return Err(if from_file {
            at(label, text, "schemes", Some("[]"), "name at least one scheme")
        } else {
            "no scheme given".to_string()
        });
    }
    let mut seen = BTreeSet::new();
    for (i, s) in schemes.iter().enumerate() {
        if !known.iter().any(|k| k == s) {
            let msg = format!("unknown scheme (known: {})", known.join(", "));
            return Err(if from_file {
                at(label, text, &format!("schemes[{i}]"), Some(&quote(s)), &msg)
            } else {
                format!("unknown scheme '{s}' (known: {})", known.join(", "))
            });
        }
        if !seen.insert(s.clone()) {
            let msg = "listed twice";
            return Err(if from_file {
                at(label, text, &format!("schemes[{i}]"), Some(&quote(s)), msg)
            } else {
                format!("scheme '{s}' is listed twice")
            });
        }
    }
    for (s, v) in &file.scheme {
        if variants.contains_key(s) {
            return Err(at(
                label,
                text,
                &format!("scheme.{s}"),
                None,
                &format!("'{s}' is a variant: its parameters go in [variants.{s}]"),
            ));
        }
        if !registered.iter().any(|k| k == s) {
            return Err(at(
                label,
                text,
                &format!("scheme.{s}"),
                None,
                &format!("unknown scheme (known: {})", known.join(", ")),
            ));
        }
        if !v.is_table() {
            return Err(at(label, text, &format!("scheme.{s}"), Some(&v.to_string()), "must be a table of parameters"));
        }
    }
    // Make every scheme that will run or has parameters, so typos in any table are caught.
    let mut to_make: BTreeSet<&String> = schemes.iter().filter(|s| !variants.contains_key(*s)).collect();
    to_make.extend(file.scheme.keys());
    for s in to_make {
        registry::make_scheme(s, file.scheme.get(s)).map_err(|m| in_section(label, &format!("scheme.{s}"), &m))?;
    }
    for (name, v) in &variants {
        registry::make_scheme(&v.base, Some(&v.params))
            .map_err(|m| in_section(label, &format!("variants.{name}"), &m))?;
    }

    // 6. Flows.
    let traffic_key = format!("{:?}\n{:?}\n{seed}\n{}", file.topology, file.workload, base_dir.display());
    let mut generated = if ov.skip_traffic {
        crate::spec::Generated::default()
    } else {
        crate::spec::generate_traffic(&file.workload, &topo, base_dir, seed)
            .map_err(|m| in_section(label, "workload", &m))?
    };
    let flows = std::mem::take(&mut generated.flows);
    let flow_workload = std::mem::take(&mut generated.flow_workload);
    if flows.is_empty() && generated.messages.is_empty() && !ov.skip_traffic {
        let each: Vec<String> = file
            .workload
            .iter()
            .enumerate()
            .map(|(i, w)| format!("workload[{i}] ({}): {}", w.kind(), w.why_empty(&topo, base_dir)))
            .collect();
        return Err(format!("{label}: the workloads generate no flows and no messages; {}", each.join("; ")));
    }
    for (i, f) in flows.iter().enumerate() {
        if !topo.is_host(f.src) || !topo.is_host(f.dst) || f.src == f.dst {
            return Err(format!(
                "{label}: workload: flow {i} goes from node {} to node {}: both ends must be different hosts",
                f.src, f.dst
            ));
        }
    }

    // 7. Traces.
    let links: BTreeSet<(u32, u32)> = topo.links.iter().map(|l| (l.a.min(l.b), l.a.max(l.b))).collect();
    let mut trace = TraceConfig::default();
    if let Some(t) = &file.trace {
        let ports = |key: &str, list: &[String]| -> Result<Vec<PortRef>, String> {
            let mut out = Vec::new();
            for (i, s) in list.iter().enumerate() {
                let path = format!("trace.{key}[{i}]");
                let p = parse_port(s).map_err(|m| at(label, text, &path, Some(&quote(s)), &m))?;
                if !links.contains(&(p.node.min(p.peer), p.node.max(p.peer))) {
                    return Err(at(
                        label,
                        text,
                        &path,
                        Some(&quote(s)),
                        &format!("there is no link between node {} and node {}", p.node, p.peer),
                    ));
                }
                out.push(p);
            }
            Ok(out)
        };
        trace.queue_ports = ports("queues", &t.queues)?;
        trace.util_ports = ports("utilization", &t.utilization)?;
        for (i, &f) in t.flows.iter().enumerate() {
            if f as usize >= flows.len() && !ov.skip_traffic {
                return Err(at(
                    label,
                    text,
                    &format!("trace.flows[{i}]"),
                    Some(&f.to_string()),
                    &format!("no such flow: the workload has {} flows (ids 0..{})", flows.len(), flows.len() - 1),
                ));
            }
        }
        trace.flows = t.flows.clone();
        trace.changes = t.changes;
        trace.acks = t.acks;
        trace.rtt = t.rtt;
        if (t.changes || t.acks) && t.flows.is_empty() {
            let key = if t.changes { "trace.changes" } else { "trace.acks" };
            return Err(at_here(label, text, key, "records the traced flows: list them in trace.flows"));
        }
        let any = !trace.queue_ports.is_empty() || !trace.util_ports.is_empty() || !trace.flows.is_empty();
        trace.interval = match t.interval {
            Some(Dur(0)) => return Err(at_here(label, text, "trace.interval", "must be greater than zero")),
            Some(Dur(d)) if d < ccsim_core::time::NS => {
                return Err(at_here(
                    label,
                    text,
                    "trace.interval",
                    "must be at least 1ns (shorter than any packet time)",
                ))
            }
            Some(Dur(d)) => d,
            None if any => DEFAULT_TRACE_INTERVAL,
            None => 0,
        };
        let series = trace.queue_ports.len() + trace.util_ports.len() + trace.flows.len();
        if trace.interval > 0 && series > 0 && !(ov.skip_traffic && stop.is_none()) {
            let samples =
                series as f64 * (stop.unwrap_or_else(|| expected_end(&topo, &flows)) as f64 / trace.interval as f64);
            if samples > MAX_TRACE_SAMPLES {
                return Err(at_here(
                    label,
                    text,
                    "trace.interval",
                    &format!(
                        "would record about {samples:.2e} samples ({} series{}), about {:.0} GB; use a longer interval, fewer series or a stop time",
                        series,
                        if stop.is_some() { "" } else { " until the flows end" },
                        samples * 32.0 / 1e9
                    ),
                ));
            }
        }
    }

    if let Some(d) = file.output.as_ref().and_then(|o| o.dir.as_ref()) {
        if d.as_os_str().is_empty() {
            return Err(at_here(label, text, "output.dir", "must not be empty (omit it for \"results\")"));
        }
        // " " would make a folder of that name: a slip, never meant
        if d.to_string_lossy().trim().is_empty() {
            return Err(at_here(label, text, "output.dir", "must not be blank (omit it for \"results\")"));
        }
    }
    if ov.out_dir.as_ref().is_some_and(|d| d.to_string_lossy().trim().is_empty()) {
        return Err(format!("--out {:?}: must not be empty or blank", ov.out_dir.as_ref().unwrap()));
    }
    let out_dir = ov
        .out_dir
        .clone()
        .or_else(|| file.output.as_ref().and_then(|o| o.dir.clone()))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_OUT_DIR));

    Ok(Scenario {
        label: label.to_string(),
        text: text.to_string(),
        overrides: Vec::new(),
        name,
        description: file.description.clone(),
        seed,
        schemes,
        stop,
        stall,
        interrupt: Default::default(),
        check: false,
        project_threads: Vec::new(),
        threads,
        topo,
        net: file.network.clone(),
        flows,
        flow_workload,
        traffic_key,
        messages: generated,
        scheme_params: file.scheme.clone(),
        variants,
        trace,
        out_dir,
    })
}

/// Most trace samples a run may record (about 16 GB of CSV).
pub const MAX_TRACE_SAMPLES: f64 = 5e8;

/// When the flows would end at line rate (twice that, as a margin): the
/// length of a run without a stop time, for cost estimates.
fn expected_end(topo: &Topology, flows: &[FlowSpec]) -> Time {
    let rate = |h: u32| topo.links.iter().find(|l| l.a == h || l.b == h).map_or(1e9, |l| l.rate_from(h) as f64);
    flows.iter().map(|f| f.start + (f.size as f64 * 8.0 / rate(f.src) * 1e12) as Time).max().unwrap_or(0) * 2
}

/// Reads `[variants.*]`: each a table with a registered `base` scheme and
/// parameters, laid over the file's `[scheme.<base>]`.
fn read_variants(
    label: &str,
    text: &str,
    file: &ScenarioFile,
    registered: &[String],
) -> Result<BTreeMap<String, Variant>, String> {
    let mut out = BTreeMap::new();
    for (name, v) in &file.variants {
        let path = format!("variants.{name}");
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(at(label, text, &path, None, "a variant name has only letters, digits, '_' and '-'"));
        }
        if registered.iter().any(|k| k == name) {
            return Err(at(
                label,
                text,
                &path,
                None,
                &format!("'{name}' is a scheme's name: give the variant another"),
            ));
        }
        let Some(t) = v.as_table() else {
            return Err(at(label, text, &path, Some(&v.to_string()), "must be a table with `base` and parameters"));
        };
        let base = match t.get("base") {
            Some(toml::Value::String(b)) => b.clone(),
            Some(b) => {
                return Err(at(label, text, &format!("{path}.base"), Some(&b.to_string()), "must be a scheme name"))
            }
            None => return Err(at(label, text, &path, None, "needs `base = \"<scheme>\"`, the scheme it varies")),
        };
        if !registered.contains(&base) {
            return Err(at(
                label,
                text,
                &format!("{path}.base"),
                Some(&quote(&base)),
                &format!("unknown scheme (known: {})", registered.join(", ")),
            ));
        }
        let mut params = file.scheme.get(&base).and_then(|p| p.as_table()).cloned().unwrap_or_default();
        for (k, x) in t.iter().filter(|(k, _)| k.as_str() != "base") {
            params.insert(k.clone(), x.clone());
        }
        out.insert(name.clone(), Variant { base, params: toml::Value::Table(params) });
    }
    Ok(out)
}

/// Offered traffic of a flow list.
#[derive(Clone, Debug, PartialEq)]
pub struct Offered {
    pub total_bytes: u64,
    pub first_start: Time,
    pub last_start: Time,
    /// Total bits / arrival span / sum of host link rates (None if all start together).
    pub load: Option<f64>,
}

pub fn offered(topo: &Topology, flows: &[FlowSpec]) -> Offered {
    let total_bytes: u64 = flows.iter().map(|f| f.size).sum();
    let first_start = flows.iter().map(|f| f.start).min().unwrap_or(0);
    let last_start = flows.iter().map(|f| f.start).max().unwrap_or(0);
    let host_capacity: f64 = topo.hosts().iter().map(|&h| host_rate(topo, h) as f64).sum();
    let span = last_start.saturating_sub(first_start);
    let load = if span > 0 && host_capacity > 0.0 {
        Some(total_bytes as f64 * 8.0 / ccsim_core::time::to_secs(span) / host_capacity)
    } else {
        None
    };
    Offered { total_bytes, first_start, last_start, load }
}

fn rate_range(rates: impl Iterator<Item = u64>) -> String {
    let set: BTreeSet<u64> = rates.collect();
    set.iter().map(|&r| fmt_rate(r)).collect::<Vec<_>>().join("/")
}

impl Scenario {
    /// Makes a scheme (or a variant) with this scenario's parameters for it.
    pub fn make_scheme(&self, name: &str) -> Result<Box<dyn Scheme>, String> {
        match self.variants.get(name) {
            Some(v) => registry::make_scheme(&v.base, Some(&v.params))
                .map_err(|m| in_section(&self.label, &format!("variants.{name}"), &m)),
            None => registry::make_scheme(name, self.scheme_params.get(name))
                .map_err(|m| in_section(&self.label, &format!("scheme.{name}"), &m)),
        }
    }

    /// The registered scheme and the complete parameters scheme (or variant)
    /// `name` runs with, defaults included.
    pub fn resolved_table(&self, name: &str) -> Result<(String, toml::Table), String> {
        let (base, params) = match self.variants.get(name) {
            Some(v) => (v.base.as_str(), Some(&v.params)),
            None => (name, self.scheme_params.get(name)),
        };
        Ok((base.to_string(), ccsim_cc::resolved(base, params)?))
    }

    /// [`Scenario::resolved_table`] as text, "base: table".
    pub fn resolved_params(&self, name: &str) -> Result<String, String> {
        let (base, t) = self.resolved_table(name)?;
        Ok(format!("{base}: {t}"))
    }

    /// What the network is given for scheme (or variant) `name` and what to
    /// keep in mind reading its numbers; an error when the combination is
    /// refused ([`ccsim_core::compat::resolve`], which every run also makes).
    pub fn network_notes(&self, name: &str) -> Result<Vec<ccsim_core::compat::Note>, String> {
        let scheme = self.make_scheme(name)?;
        ccsim_core::compat::resolve(&self.net, &scheme.requirements(), scheme.name())
            .map(|r| r.notes)
            .map_err(|e| format!("{}: scheme {name}: {e}", self.label))
    }

    /// Builds the simulator for every scheme of the scenario (and drops it):
    /// every check a run makes before simulating, for `validate`.
    pub fn check_schemes(&self) -> Result<(), String> {
        for name in &self.schemes {
            let scheme = self.make_scheme(name)?;
            ccsim_core::Simulator::with_traffic(
                &self.topo,
                &self.net,
                self.traffic(),
                scheme.as_ref(),
                &self.sim_options(),
            )
            .map_err(|e| format!("{}: scheme {name}: {e}", self.label))?;
        }
        Ok(())
    }

    /// Simulates scheme (or variant) `name` on this scenario; the result is
    /// named `name`. `progress` is called about every 2^20 events.
    pub fn simulate(
        &self,
        name: &str,
        progress: Option<&mut dyn FnMut(&ccsim_core::sim::Progress)>,
    ) -> Result<ccsim_core::RunResult, String> {
        let scheme = self.make_scheme(name)?;
        let traffic = || self.traffic();
        let mut r = ccsim_core::parallel::simulate(
            &self.topo,
            &self.net,
            &traffic,
            scheme.as_ref(),
            &self.sim_options(),
            progress,
        )
        .map_err(|e| format!("{}: cannot simulate {name}: {e}", self.label))?;
        r.scheme = name.to_string();
        Ok(r)
    }

    /// The traffic of one run: the flows, the connections and messages, and
    /// a fresh source for the closed loops.
    pub fn traffic(&self) -> ccsim_core::flow::Traffic {
        ccsim_core::flow::Traffic {
            flows: self.flows.clone(),
            conns: self.messages.conns.clone(),
            messages: self.messages.messages.clone(),
            source: self.messages.source(),
        }
    }

    /// "120 flows", or with connections "120 flows, 3,000 messages on 16
    /// connections (closed loops make more as they run)".
    pub fn traffic_brief(&self) -> String {
        let mut s = format!("{} flows", self.flows.len());
        let g = &self.messages;
        if g.has_messages() {
            s.push_str(&format!(", {} messages on {} connections", g.network_messages(), g.conns.len()));
            let tasks = g.messages.len() - g.network_messages();
            if tasks > 0 {
                s.push_str(&format!(", {tasks} compute tasks"));
            }
            if g.has_loops() {
                s.push_str(" (closed loops make more as they run)");
            }
        }
        s
    }

    /// The workload entry of result row `id` (flows first, then messages).
    pub fn workload_of(&self, row: &ccsim_core::results::FlowResult) -> Option<u32> {
        match row.tag {
            Some(t) => Some(t),
            None => self.flow_workload.get(row.id as usize).copied(),
        }
    }

    pub fn sim_options(&self) -> SimOptions {
        SimOptions {
            seed: self.seed,
            stop_at: self.stop,
            trace: self.trace.clone(),
            stall: self.stall,
            interrupt: self.interrupt.clone(),
            check: self.check,
            project_threads: self.project_threads.clone(),
            threads: self.threads,
        }
    }

    /// Directory-safe scenario name.
    pub fn dir_name(&self) -> String {
        safe_component(&self.name)
    }

    /// One paragraph: what the scenario contains.
    pub fn summary(&self) -> String {
        let hosts = self.topo.hosts().len();
        let switches = self.topo.switches().len();
        let host_rates = rate_range(self.topo.hosts().iter().map(|&h| host_rate(&self.topo, h)));
        let fabric_links = self.topo.links.iter().filter(|l| !self.topo.is_host(l.a) && !self.topo.is_host(l.b));
        let fabric_rates = rate_range(fabric_links.flat_map(|l| [l.rate_from(l.a), l.rate_from(l.b)]));
        let delays: BTreeSet<Time> =
            self.topo.links.iter().flat_map(|l| [l.from(l.a).delay, l.from(l.b).delay]).collect();
        let delays = delays.iter().map(|&d| fmt_dur(d)).collect::<Vec<_>>().join("/");
        let off = offered(&self.topo, &self.flows);
        let n = self.flows.len();
        let sizes: Vec<u64> = self.flows.iter().map(|f| f.size).collect();
        let min = sizes.iter().min().copied().unwrap_or(0);
        let max = sizes.iter().max().copied().unwrap_or(0);
        let mean = off.total_bytes as f64 / n.max(1) as f64;
        let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut s = format!("{}: '{}'", self.label, self.name);
        if let Some(d) = &self.description {
            let d = d.split_whitespace().collect::<Vec<_>>().join(" ");
            s.push_str(&format!(" ({d})"));
        }
        s.push_str(&format!(
            ". Topology: {}; {}, {}, {} (host links {host_rates}{}, delay {delays}). ",
            self.topo.name,
            plural(hosts, "host", "hosts"),
            plural(switches, "switch", "switches"),
            plural(self.topo.links.len(), "link", "links"),
            if fabric_rates.is_empty() { String::new() } else { format!(", fabric {fabric_rates}") },
        ));
        if self.messages.has_messages() {
            let g = &self.messages;
            let bytes: u64 = g.messages.iter().filter(|m| m.compute_on.is_none()).map(|m| m.size).sum();
            let tasks = g.messages.len() - g.network_messages();
            s.push_str(&format!(
                "Messages on persistent connections: {} on {}, {} in total{}{}. ",
                plural(g.network_messages(), "message", "messages"),
                plural(g.conns.len(), "connection", "connections"),
                human_bytes(bytes as f64),
                if tasks > 0 {
                    format!(", and {} (no network)", plural(tasks, "compute task", "compute tasks"))
                } else {
                    String::new()
                },
                if g.has_loops() { ", and closed loops that make more as they run" } else { "" }
            ));
        }
        if n > 0 || !self.messages.has_messages() {
            s.push_str(&format!(
                "Workload: {}, {} in total (sizes {} to {}, mean {}), ",
                plural(n, "flow", "flows"),
                human_bytes(off.total_bytes as f64),
                human_bytes(min as f64),
                human_bytes(max as f64),
                human_bytes(mean),
            ));
            if off.first_start == off.last_start {
                s.push_str(&format!("all starting at {}", fmt_time(off.first_start)));
            } else {
                s.push_str(&format!("starting from {} to {}", fmt_time(off.first_start), fmt_time(off.last_start)));
            }
            // A load over the arrival window only means something for many flows.
            match off.load {
                Some(l) if n >= 20 => s.push_str(&format!("; offered load {:.1}% of host capacity. ", l * 100.0)),
                _ => s.push_str(". "),
            }
        }
        s.push_str(&format!("Schemes: {}; seed {}; ", self.schemes.join(", "), self.seed));
        match self.stop {
            Some(t) => s.push_str(&format!("stops at {}", fmt_time(t))),
            None if self.messages.has_loops() => {
                s.push_str("runs until the closed loops stop and every message finishes")
            }
            None => s.push_str("runs until every flow finishes"),
        }
        let tr = &self.trace;
        if tr.interval > 0 {
            s.push_str(&format!(
                "; traces every {}: {}, {}, {}",
                fmt_time(tr.interval),
                plural(tr.queue_ports.len(), "queue", "queues"),
                plural(tr.util_ports.len(), "utilization port", "utilization ports"),
                plural(tr.flows.len(), "flow", "flows")
            ));
        }
        s.push('.');
        s
    }
}

/// "1.5 MB", "320 KB", "12 B" (decimal units).
pub fn human_bytes(b: f64) -> String {
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.2} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} KB", b / 1e3)
    } else {
        format!("{:.0} B", b)
    }
}

/// A time for people: "12.5us", "3.2ms", "1.25s".
pub fn fmt_time(t: Time) -> String {
    let us = ccsim_core::time::to_us(t);
    if t == 0 {
        "0".into()
    } else if us < 1.0 {
        format!("{}ns", trim_float(us * 1e3))
    } else if us < 1000.0 {
        format!("{}us", trim_float(us))
    } else if us < 1e6 {
        format!("{}ms", trim_float(us / 1e3))
    } else {
        format!("{}s", trim_float(us / 1e6))
    }
}

fn trim_float(x: f64) -> String {
    let s = format!("{:.3}", x);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Listings and factories from the scheme and workload crates.
pub mod registry {
    use ccsim_core::Scheme;

    pub fn scheme_names() -> Vec<String> {
        ccsim_cc::names().iter().map(|s| s.to_string()).collect()
    }

    pub fn make_scheme(name: &str, params: Option<&toml::Value>) -> Result<Box<dyn Scheme>, String> {
        ccsim_cc::make(name, params)
    }

    pub struct ParamDoc {
        pub name: String,
        pub default: String,
        pub doc: String,
    }

    pub struct SchemeDoc {
        pub name: String,
        pub summary: String,
        pub params: Vec<ParamDoc>,
    }

    pub fn schemes() -> Vec<SchemeDoc> {
        ccsim_cc::describe()
            .into_iter()
            .map(|s| SchemeDoc {
                name: s.name.to_string(),
                summary: s.summary.to_string(),
                params: s
                    .params
                    .iter()
                    .map(|p| ParamDoc {
                        name: p.name.to_string(),
                        default: p.default.to_string(),
                        doc: p.doc.to_string(),
                    })
                    .collect(),
            })
            .collect()
    }

    /// (kind, description with fields and defaults).
    pub fn topologies() -> Vec<(String, String)> {
        crate::topo::describe().into_iter().map(|(k, d)| (k.to_string(), d.to_string())).collect()
    }

    /// (kind, description with fields and defaults).
    pub fn workloads() -> Vec<(String, String)> {
        crate::spec::describe().into_iter().map(|(k, d)| (k.to_string(), d.to_string())).collect()
    }

    /// (name, number of points, mean size in bytes) of every built-in CDF.
    pub fn cdfs() -> Vec<(String, usize, f64)> {
        use crate::cdf::{Cdf, SampleMode};
        Cdf::builtin_names()
            .iter()
            .filter_map(|n| Cdf::builtin(n))
            .map(|c| (c.name().to_string(), c.points().len(), c.mean(SampleMode::Interpolate)))
            .collect()
    }
}

/// What host `h` sends at: the rate of its link's direction away from it.
fn host_rate(topo: &Topology, h: u32) -> u64 {
    topo.links.iter().find(|l| l.a == h || l.b == h).map_or(0, |l| l.rate_from(h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::TempDir;

    fn scenarios_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
    }

    fn shipped(name: &str) -> Scenario {
        let p = scenarios_dir().join(name);
        load(&p, &Overrides::default()).unwrap_or_else(|e| panic!("{e}"))
    }

    const BASE: &str = r#"
name = "t"
[topology]
kind = "star"
hosts = 4
rate = "100Gbps"
delay = "1us"

[[workload]]
kind = "flows"
flows = [{ src = 0, dst = 1, size = "1MB" }, { src = 2, dst = 1, size = 5000, start = "3us" }]
"#;

    /// Loads `text` from a file `bad.toml` in a temp dir; returns the error.
    fn err_of(text: &str) -> String {
        let t = TempDir::new("scn");
        let p = t.file("bad.toml", text);
        match load(&p, &Overrides::default()) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => {
                assert!(e.contains("bad.toml"), "error does not name the file: {e}");
                e
            }
        }
    }

    fn load_str(text: &str, ov: &Overrides) -> Result<Scenario, String> {
        load_text("t.toml", text, Path::new("."), "t", ov)
    }

    #[test]
    fn link_entries_set_one_direction_or_both() {
        // star: hosts 0-3, the switch 4
        let one = format!("{BASE}\n[[link]]\nfrom = 4\nto = 1\nrate = \"25Gbps\"\ndelay = \"2us\"\n");
        let s = load_str(&one, &Overrides::default()).unwrap();
        let l = &s.topo.links[s.topo.link_between(4, 1).unwrap()];
        assert_eq!(
            (l.rate_from(4), l.from(4).delay, l.rate_from(1), l.from(1).delay),
            (25_000_000_000, 2_000_000, 100_000_000_000, 1_000_000)
        );
        let both = format!("{BASE}\n[[link]]\nfrom = 1\nto = 4\nrate = \"40Gbps\"\nboth = true\n");
        let s = load_str(&both, &Overrides::default()).unwrap();
        let l = &s.topo.links[s.topo.link_between(4, 1).unwrap()];
        assert_eq!((l.rate_from(4), l.rate_from(1), l.back), (40_000_000_000, 40_000_000_000, None));
        // the flow into host 1 runs at the slow direction's rate
        let r = load_str(&one, &Overrides::default()).unwrap().simulate("hpcc", None).unwrap();
        assert!(r.flows[0].ideal_fct > 300 * ccsim_core::time::US, "{}", r.flows[0].ideal_fct);
        // errors name the entry
        let none = format!("{BASE}\n[[link]]\nfrom = 0\nto = 1\nrate = \"25Gbps\"\n");
        let e = load_str(&none, &Overrides::default()).unwrap_err();
        assert!(e.contains("link[0] (0 -> 1)") && e.contains("no link joins node 0 and node 1"), "{e}");
        let nothing = format!("{BASE}\n[[link]]\nfrom = 4\nto = 1\n");
        assert!(load_str(&nothing, &Overrides::default()).unwrap_err().contains("set rate, delay or both"));
        let typo = format!("{BASE}\n[[link]]\nfrom = 4\nto = 1\nrte = \"1Gbps\"\n");
        assert!(load_str(&typo, &Overrides::default()).unwrap_err().contains("rte"));
    }

    #[test]
    fn variants_run_beside_their_base() {
        let text = format!(
            "schemes = [\"hpcc\", \"hpcc_star\"]\n{BASE}\n[scheme.hpcc]\nrate_ai = \"20Mbps\"\n[variants.hpcc_star]\nbase = \"hpcc\"\neta = 1.5\n"
        );
        let s = load_str(&text, &Overrides::default()).unwrap();
        assert_eq!(s.schemes, vec!["hpcc", "hpcc_star"]);
        let v = &s.variants["hpcc_star"];
        assert_eq!(v.base, "hpcc");
        // the variant's parameters over the file's [scheme.hpcc]
        assert_eq!(v.params["eta"].as_float(), Some(1.5));
        assert_eq!(v.params["rate_ai"].as_str(), Some("20Mbps"));
        assert!(s.make_scheme("hpcc_star").is_ok());
        let r = s.simulate("hpcc_star", None).unwrap();
        assert_eq!(r.scheme, "hpcc_star");
        assert!(r.flows.iter().all(|f| f.fct.is_some()));
        // --schemes may name a variant
        let ov = Overrides { schemes: Some(vec!["hpcc_star".into()]), ..Default::default() };
        assert_eq!(load_str(&text, &ov).unwrap().schemes, vec!["hpcc_star"]);
    }

    #[test]
    fn bad_variants_are_refused_with_their_key() {
        let e = |extra: &str| load_str(&format!("{BASE}\n{extra}"), &Overrides::default()).unwrap_err();
        let m = e("[variants.x]\neta = 1.5\n");
        assert!(m.contains("variants.x") && m.contains("base"), "{m}");
        let m = e("[variants.x]\nbase = \"reno\"\n");
        assert!(m.contains("variants.x.base = \"reno\"") && m.contains("unknown scheme"), "{m}");
        let m = e("[variants.hpcc]\nbase = \"hpcc\"\n");
        assert!(m.contains("variants.hpcc") && m.contains("scheme's name"), "{m}");
        let m = e("[variants.x]\nbase = \"hpcc\"\netaa = 1.5\n");
        assert!(m.contains("variants.x") && m.contains("etaa"), "{m}");
        let m = e("[variants.x]\nbase = \"hpcc\"\n[scheme.x]\neta = 1\n");
        assert!(m.contains("scheme.x") && m.contains("[variants.x]"), "{m}");
        let m = load_str(&format!("schemes = [\"x\"]\n{BASE}"), &Overrides::default()).unwrap_err();
        assert!(m.contains("schemes[0] = \"x\"") && m.contains("unknown scheme"), "{m}");
    }

    /// Plans read scenarios without their traffic (`skip_traffic`) and tell
    /// traffic apart by `traffic_key`: equal keys must mean equal flows.
    #[test]
    fn skipped_traffic_keeps_its_key() {
        let p = scenarios_dir().join("quickstart.toml");
        let ov = |seed: Option<u64>, sets: &[(&str, &str)], skip_traffic: bool| Overrides {
            seed,
            sets: sets.iter().map(|(k, v)| (k.to_string(), crate::set::parse_value(v))).collect(),
            skip_traffic,
            ..Default::default()
        };
        let full = load(&p, &ov(None, &[], false)).unwrap();
        let bare = load(&p, &ov(None, &[], true)).unwrap();
        assert!(!full.flows.is_empty() && bare.flows.is_empty() && !bare.messages.has_messages());
        assert_eq!(full.traffic_key, bare.traffic_key);
        assert_eq!((full.topo.links.len(), full.stop), (bare.topo.links.len(), bare.stop));
        // a scheme's or the network's setting leaves the traffic as it was
        let eta = load(&p, &ov(None, &[("scheme.hpcc.eta", "0.9"), ("network.mtu", "4000")], true)).unwrap();
        assert_eq!(eta.traffic_key, bare.traffic_key);
        // the seed, the workload and the topology change it, and with it the flows
        for (seed, sets) in [(Some(7), vec![]), (None, vec![("workload[0].load", "0.3")])] {
            let other = load(&p, &ov(seed, &sets, true)).unwrap();
            assert_ne!(other.traffic_key, bare.traffic_key, "{seed:?} {sets:?}");
            assert_ne!(load(&p, &ov(seed, &sets, false)).unwrap().flows, full.flows);
        }
        let rate = load(&p, &ov(None, &[("topology.host_rate", "\"25Gbps\"")], true)).unwrap();
        assert_ne!(rate.traffic_key, bare.traffic_key);
    }

    #[test]
    fn set_overrides_any_value_and_is_validated() {
        let p = scenarios_dir().join("quickstart.toml");
        let set = |k: &str, v: &str| Overrides {
            sets: vec![(k.to_string(), crate::set::parse_value(v))],
            ..Default::default()
        };
        let a = load(&p, &Overrides::default()).unwrap();
        let b = load(&p, &set("workload[0].load", "0.25")).unwrap();
        assert!(b.flows.len() < a.flows.len() * 3 / 4, "{} vs {} flows", b.flows.len(), a.flows.len());
        let c = load(&p, &set("network.pfc.static_xoff", "500KB")).unwrap();
        assert_eq!(c.net.pfc.static_xoff, Some(ccsim_core::units::Bytes(500_000)));
        assert!(c.text.contains("static_xoff"));
        assert_eq!(load(&p, &set("schemes", "[\"hpcc\"]")).unwrap().schemes, vec!["hpcc"]);
        // the value is checked like the file's, and the message names the key and --set
        let e = load(&p, &set("network.pfc.static_xoff", "lots")).unwrap_err();
        assert!(e.contains("--set") && e.contains("network.pfc.static_xoff") && e.contains("lots"), "{e}");
        let e = load(&p, &set("network.pfc.static_xof", "500KB")).unwrap_err();
        assert!(e.contains("static_xof"), "{e}");
        let e = load(&p, &set("workload[3].load", "0.5")).unwrap_err();
        assert!(e.contains("workload[3] does not exist"), "{e}");
        let e = load(&p, &set("workload[0].load", "-1")).unwrap_err();
        assert!(e.contains("workload[0].load") && e.contains("negative"), "{e}");
    }

    #[test]
    fn every_shipped_scenario_loads() {
        let mut n = 0;
        for e in std::fs::read_dir(scenarios_dir()).unwrap() {
            let p = e.unwrap().path();
            if p.extension().and_then(|x| x.to_str()) == Some("toml") {
                let s = load(&p, &Overrides::default()).unwrap_or_else(|e| panic!("{e}"));
                assert!(!s.flows.is_empty() || s.messages.has_messages(), "{}: no flows, no messages", p.display());
                assert!(s.description.is_some(), "{}: add a description", p.display());
                assert!(s.summary().contains("hosts"));
                n += 1;
            }
        }
        assert!(n >= 4, "only {n} scenarios found");
    }

    #[test]
    fn dumbbell_scenario_contents() {
        let s = shipped("dumbbell-2flows.toml");
        assert_eq!(s.name, "dumbbell-2flows");
        assert_eq!(s.schemes, vec!["dcqcn", "hpcc"]);
        assert_eq!(s.topo.hosts(), vec![0, 1, 2, 3]);
        assert_eq!(s.flows.len(), 2);
        assert_eq!((s.flows[0].src, s.flows[0].dst, s.flows[0].size, s.flows[0].start), (0, 2, 10_000_000, 0));
        assert_eq!((s.flows[1].src, s.flows[1].dst, s.flows[1].start), (1, 3, 100 * US));
        assert_eq!(s.trace.queue_ports, vec![PortRef { node: 4, peer: 5 }]);
        assert_eq!(s.trace.flows, vec![0, 1]);
        assert_eq!(s.trace.interval, 2 * US);
        assert!(s.scheme_params.contains_key("dcqcn"));
        assert_eq!(s.stop, None);
        assert_eq!(s.out_dir, PathBuf::from("results"));
    }

    #[test]
    fn incast_and_fabric_scenarios_contents() {
        let s = shipped("incast-16to1.toml");
        assert_eq!(s.topo.hosts().len(), 17);
        assert_eq!(s.flows.len(), 16);
        assert!(s.flows.iter().all(|f| f.dst == 16 && f.size == 1_000_000 && f.start == 0));
        assert_eq!(s.trace.queue_ports, vec![PortRef { node: 17, peer: 16 }]);
        assert_eq!(s.trace.interval, 5 * US);

        let q = shipped("quickstart.toml");
        assert_eq!(q.schemes, vec!["dcqcn", "hpcc", "none"]);
        assert_eq!(q.topo.hosts().len(), 32);
        assert_eq!(q.topo.switches().len(), 6);
        let off = offered(&q.topo, &q.flows);
        let load = off.load.unwrap();
        assert!(load > 0.3 && load < 0.8, "offered load {load}");
        assert!(q.flows.len() > 100 && q.flows.len() < 1000, "{} flows", q.flows.len());

        let f = shipped("fat320-websearch-30.toml");
        assert_eq!(f.topo.hosts().len(), 320);
        assert_eq!(f.topo.switches().len(), 56);
        assert_eq!(f.topo.links.len(), 480);
        assert!(f.flows.len() > 6000 && f.flows.len() < 8000, "{} flows", f.flows.len());
        assert!(!f.net.ack_high_priority);
    }

    #[test]
    fn overrides_replace_file_values() {
        let p = scenarios_dir().join("quickstart.toml");
        let a = load(&p, &Overrides::default()).unwrap();
        let ov = Overrides {
            seed: Some(9),
            stop: Some(MS_TEST),
            schemes: Some(vec!["hpcc".into()]),
            out_dir: Some(PathBuf::from("/tmp/x")),
            sets: Vec::new(),
            skip_traffic: false,
        };
        let b = load(&p, &ov).unwrap();
        assert_eq!(b.seed, 9);
        assert_eq!(b.stop, Some(MS_TEST));
        assert_eq!(b.schemes, vec!["hpcc"]);
        assert_eq!(b.out_dir, PathBuf::from("/tmp/x"));
        // Another seed draws other flows.
        assert_ne!(a.flows, b.flows);
        assert_eq!(b.sim_options().seed, 9);
        assert_eq!(b.sim_options().stop_at, Some(MS_TEST));
    }

    const MS_TEST: Time = ccsim_core::time::MS;

    #[test]
    fn defaults() {
        let t = TempDir::new("def");
        let p = t.file("my-run.toml", &BASE.replace("name = \"t\"\n", ""));
        let s = load(&p, &Overrides::default()).unwrap();
        assert_eq!(s.name, "my-run");
        assert_eq!(s.seed, 1);
        assert_eq!(s.schemes, vec![DEFAULT_SCHEME]);
        assert_eq!(s.trace, TraceConfig::default());
        assert_eq!(s.net, NetConfig::default());
        assert_eq!(s.flows.len(), 2);
    }

    #[test]
    fn unknown_key_names_key_file_and_line() {
        let e = err_of(&BASE.replace("hosts = 4", "hosts = 4\nhostz = 5"));
        assert!(e.contains("topology.hostz"), "{e}");
        assert!(e.contains("unknown field"), "{e}");
        assert!(e.contains("(line 6, column 1)\n  |\n6 | hostz = 5\n  | ^^^^^"), "{e}");
        let e = err_of(&format!("{BASE}\n[network.ecn]\nkmn = \"1KB\"\n"));
        assert!(e.contains("network.ecn.kmn"), "{e}");
        let e = err_of(&format!("colour = 1\n{BASE}"));
        assert!(e.contains("colour") && e.contains("line 1"), "{e}");
    }

    #[test]
    fn bad_unit_names_the_key() {
        let e = err_of(&BASE.replace("delay = \"1us\"", "delay = \"3\""));
        assert!(e.contains("topology.delay = \"3\""), "{e}");
        assert!(e.contains("invalid duration"), "{e}");
        let e = err_of(&BASE.replace("rate = \"100Gbps\"", "rate = \"100 parsecs\""));
        assert!(e.contains("topology.rate"), "{e}");
        let e = err_of(&BASE.replace("size = \"1MB\"", "size = \"1 apple\""));
        assert!(e.contains("workload[0]"), "{e}");
        assert!(e.contains("1 apple"), "{e}");
    }

    #[test]
    fn wrong_types_and_syntax() {
        let e = err_of(&BASE.replace("name = \"t\"", "seed = \"x\""));
        assert!(e.contains("seed = \"x\""), "{e}");
        let e = err_of(&BASE.replace("name = \"t\"", "seed = -3"));
        assert!(e.contains("seed = -3"), "{e}");
        let e = err_of(&BASE.replace("kind = \"star\"", "kind = star"));
        assert!(e.contains("line 4"), "{e}");
        let e = err_of(&BASE.replace("[[workload]]", "[workload]"));
        assert!(e.contains("[[workload]]"), "hint missing: {e}");
        let e = err_of(&format!("trace = 5\n{BASE}"));
        assert!(e.contains("trace = 5: invalid type: integer `5`, expected a [trace] table"), "{e}");
        let e = err_of(&BASE.replace("kind = \"star\"", "kind = \"ring\""));
        assert!(e.contains("ring"), "{e}");
    }

    #[test]
    fn negative_and_zero_values() {
        let poisson = BASE.replace(
            "kind = \"flows\"\nflows = [{ src = 0, dst = 1, size = \"1MB\" }, { src = 2, dst = 1, size = 5000, start = \"3us\" }]",
            "kind = \"poisson\"\ncdf = \"websearch\"\nload = -0.3\nduration = \"1ms\"",
        );
        let e = err_of(&poisson);
        assert!(e.contains("workload[0].load = -0.3"), "{e}");
        assert!(e.contains("negative"), "{e}");
        let e = err_of(&poisson.replace("load = -0.3", "load = 0"));
        assert!(e.contains("workload[0].load = 0"), "{e}");
        let e = err_of(&poisson.replace("load = -0.3", "load = 1.5"));
        assert!(e.contains("workload[0].load = 1.5"), "{e}");
        let e = err_of(&format!("stop = \"0us\"\n{BASE}"));
        assert!(e.contains("stop = \"0us\": must be greater than zero"), "{e}");
        let e = err_of(&BASE.replace("hosts = 4", "hosts = -4"));
        assert!(e.contains("topology.hosts"), "{e}");
        let e = err_of(&BASE.replace("size = 5000", "size = 0"));
        assert!(e.contains("workload[0].flows[1].size = 0"), "{e}");
        let e = err_of(&format!("{BASE}\n[trace]\ninterval = \"0us\"\nflows = [0]\n"));
        assert!(e.contains("trace.interval"), "{e}");
    }

    #[test]
    fn missing_files_are_named() {
        let poisson = BASE.replace(
            "kind = \"flows\"\nflows = [{ src = 0, dst = 1, size = \"1MB\" }, { src = 2, dst = 1, size = 5000, start = \"3us\" }]",
            "kind = \"poisson\"\ncdf = \"nosuch.cdf\"\nload = 0.3\nduration = \"1ms\"",
        );
        let e = err_of(&poisson);
        assert!(e.contains("workload[0].cdf = \"nosuch.cdf\""), "{e}");
        assert!(e.contains("nosuch.cdf"), "{e}");
        let e = err_of(
            "[topology]\nkind = \"hpcc_file\"\npath = \"missing-topo.txt\"\n[[workload]]\nkind = \"hpcc_flows\"\npath = \"f.txt\"\n",
        );
        assert!(e.contains("topology.path = \"missing-topo.txt\": file not found"), "{e}");
        let e = err_of(&format!("{BASE}\n[[workload]]\nkind = \"hpcc_flows\"\npath = \"gone.flows.txt\"\n"));
        assert!(e.contains("workload[1].path = \"gone.flows.txt\""), "{e}");
        let e = load(Path::new("/nonexistent/dir/s.toml"), &Overrides::default()).err().unwrap();
        assert!(e.contains("/nonexistent/dir/s.toml") && e.contains("cannot read"), "{e}");
    }

    #[test]
    fn a_cdf_file_next_to_the_scenario_is_used() {
        let t = TempDir::new("cdf");
        t.file("mine.cdf", "1000 0\n2000 0.5\n3000 1\n");
        let text = BASE.replace(
            "kind = \"flows\"\nflows = [{ src = 0, dst = 1, size = \"1MB\" }, { src = 2, dst = 1, size = 5000, start = \"3us\" }]",
            "kind = \"poisson\"\ncdf = \"mine.cdf\"\nload = 0.3\nduration = \"100us\"",
        );
        let p = t.file("s.toml", &text);
        let s = load(&p, &Overrides::default()).unwrap_or_else(|e| panic!("{e}"));
        assert!(s.flows.iter().all(|f| (1000..=3000).contains(&f.size)));
    }

    #[test]
    fn trace_ports_and_flows_are_checked() {
        let e = err_of(&format!("{BASE}\n[trace]\nqueues = [\"4:0\", \"1:2\"]\n"));
        assert!(e.contains("trace.queues[1] = \"1:2\""), "{e}");
        assert!(e.contains("no link between node 1 and node 2"), "{e}");
        let e = err_of(&format!("{BASE}\n[trace]\nutilization = [\"4-0\"]\n"));
        assert!(e.contains("trace.utilization[0]") && e.contains("node:peer"), "{e}");
        let e = err_of(&format!("{BASE}\n[trace]\nflows = [0, 2]\n"));
        assert!(e.contains("trace.flows[1] = 2"), "{e}");
        assert!(e.contains("2 flows"), "{e}");
        let e = err_of(&format!("{BASE}\n[trace]\nflows = [0]\nsample = 1\n"));
        assert!(e.contains("trace.sample"), "{e}");
        // Both directions of a link are ports.
        let t = TempDir::new("ports");
        let p = t.file("ok.toml", &format!("{BASE}\n[trace]\nqueues = [\"4:0\", \"0:4\"]\n"));
        let s = load(&p, &Overrides::default()).unwrap();
        assert_eq!(s.trace.queue_ports.len(), 2);
        assert_eq!(s.trace.interval, DEFAULT_TRACE_INTERVAL);
    }

    #[test]
    fn unknown_schemes_are_refused() {
        let e = err_of(&format!("schemes = [\"hpcc\", \"cubic\"]\n{BASE}"));
        assert!(e.contains("schemes[1] = \"cubic\": unknown scheme"), "{e}");
        assert!(e.contains("hpcc"), "lists known schemes: {e}");
        let e = err_of(&format!("{BASE}\n[scheme.cubic]\nx = 1\n"));
        assert!(e.contains("scheme.cubic: unknown scheme"), "{e}");
        let e = err_of(&format!("{BASE}\n[scheme.hpcc]\netaa = 1.0\n"));
        assert!(e.contains("scheme.hpcc.etaa"), "{e}");
        let e = err_of(&format!("schemes = []\n{BASE}"));
        assert!(e.contains("schemes = []"), "{e}");
        // From the command line.
        let t = TempDir::new("cli");
        let p = t.file("s.toml", BASE);
        let ov = Overrides { schemes: Some(vec!["reno".into()]), ..Default::default() };
        let e = load(&p, &ov).err().unwrap();
        assert!(e.contains("unknown scheme 'reno'"), "{e}");
    }

    #[test]
    fn topology_errors_name_the_key() {
        let e = err_of(
            "[topology]\nkind = \"fat_tree\"\nk = 3\nhost_rate = \"100Gbps\"\n[[workload]]\nkind = \"flows\"\nflows = [{ src = 0, dst = 1, size = 1 }]\n",
        );
        assert!(e.contains("topology.k = 3"), "{e}");
        let e = err_of(&BASE.replace("dst = 1, size = \"1MB\"", "dst = 4, size = \"1MB\""));
        assert!(e.contains("workload[0].flows[0].dst = 4"), "{e}");
        assert!(e.contains("switch"), "{e}");
    }

    #[test]
    fn link_events_are_parsed_and_checked() {
        let ok = format!(
            "{BASE}\n[[network.link_events]]\nat = \"0us\"\na = 0\nb = 4\naction = \"down\"\n[[network.link_events]]\nat = \"20us\"\na = 4\nb = 0\naction = \"up\"\n"
        );
        let s = load_text("x.toml", &ok, Path::new("."), "x", &Overrides::default()).unwrap();
        assert_eq!(s.net.link_events.len(), 2);
        assert_eq!(s.net.link_events[1].at, Dur(20 * ccsim_core::time::US));
        let e = err_of(&format!("{BASE}\n[[network.link_events]]\nat = \"5us\"\na = 0\nb = 1\naction = \"down\"\n"));
        assert!(e.contains("network.link_events[0]") && e.contains("no link between node 0 and node 1"), "{e}");
        let e = err_of(&format!("{BASE}\n[[network.link_events]]\nat = \"5us\"\na = 0\nb = 4\naction = \"off\"\n"));
        assert!(e.contains("network.link_events") && e.contains("off"), "{e}");
        let e = err_of(&format!("{BASE}\n[[network.link_events]]\nat = \"-5us\"\na = 0\nb = 4\naction = \"down\"\n"));
        assert!(e.contains("network.link_events[0].at"), "{e}");
        let e = err_of(&format!(
            "stop = \"10us\"\n{BASE}\n[[network.link_events]]\nat = \"50us\"\na = 0\nb = 4\naction = \"down\"\n"
        ));
        assert!(e.contains("after the run's stop time"), "{e}");
    }

    #[test]
    fn topology_message_rewrite() {
        assert_eq!(topology_msg("topology (fat_tree): k = 3: must be even"), "topology.k = 3: must be even (fat_tree)");
        assert_eq!(topology_msg("topology (star): host 3 has 2 links"), "topology (star): host 3 has 2 links");
        assert_eq!(topology_msg("something else"), "something else");
    }

    #[test]
    fn ports_and_names() {
        assert_eq!(parse_port("3:17").unwrap(), PortRef { node: 3, peer: 17 });
        assert_eq!(parse_port(" 3 : 17 ").unwrap(), PortRef { node: 3, peer: 17 });
        assert!(parse_port("s0:s1").is_err());
        assert!(parse_port("3").is_err());
        assert_eq!(safe_component("a b/c"), "a_b_c");
        assert_eq!(safe_component(".."), "scenario");
        assert_eq!(safe_component("x-1.2"), "x-1.2");
        assert_eq!(fmt_time(1_500_000), "1.5us");
        assert_eq!(fmt_time(2_000_000_000), "2ms");
        assert_eq!(fmt_time(500), "0.5ns");
        assert_eq!(human_bytes(1_600_000.0), "1.60 MB");
    }
}
