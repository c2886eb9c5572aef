//! A seeded, deterministic fuzz test of everything ccsim reads: the shipped
//! scenarios (`scenarios/`, `experiments/*/`) and the imported file formats
//! (HPCC topology and flow files, CDF files), mutated the way a hostile or
//! careless user would (out-of-range numbers, wrong units and types, deleted
//! and unknown keys, duplicated entries, broken lines, truncated files).
//!
//! Every case is read and validated exactly as `ccsim validate` does (which
//! runs every check `run` makes); a few hundred of those that pass are also
//! simulated for a short while with `--check`. The test asserts:
//! * no panic, anywhere;
//! * no hang: each case finishes within a wall-clock bound (a watchdog
//!   interrupts simulations and fails the test on a stuck validation);
//! * every error names the scenario file, and a key of it or a line of the
//!   file it points at;
//! * every run that is simulated passes the invariant checks.
//!
//! `CCSIM_FUZZ_CASES` sets the number of cases (default 4,000, about 18 s on
//! two cores, in the test command; `.ci/run` runs 12,000) and
//! `CCSIM_FUZZ_SEED` the seed (default 1) for longer hunts; `CCSIM_FUZZ_CASE=n`
//! runs case n alone and prints it; `CCSIM_FUZZ_VERBOSE=1` prints each case
//! number as it starts; `CCSIM_FUZZ_ERRORS=file` appends every refusal's
//! first line to the file (to review how errors read).

use ccsim_core::rng::Rng;
use ccsim_core::time::US;
use ccsim_scenario::testutil::TempDir;
use ccsim_scenario::{load_text, Overrides};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use toml::Value;

/// About one in this many accepted small cases (at most 64 hosts, 2,000
/// flows) is also simulated: about 300 runs in 12,000 cases.
const RUN_ONE_IN: u64 = 3;
/// Runs the test insists on per 12,000 cases.
const MIN_RUNS: u64 = 200;
/// A validation taking longer than this is a hang (the largest workloads
/// allowed, millions of flows, take several seconds).
const VALIDATE_LIMIT: Duration = Duration::from_secs(60);
/// A simulation still running after this is interrupted and counted as a hang.
const RUN_LIMIT: Duration = Duration::from_secs(20);
/// Simulated time of a fuzz run, at most.
const RUN_STOP: u64 = 200 * US;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// A scenario to mutate: its text, the folder its relative paths start from,
/// and the imported files it reads (name, text), written next to it.
#[derive(Clone)]
struct Seed {
    name: String,
    text: String,
    dir: PathBuf,
    files: Vec<(String, String)>,
}

fn shipped() -> Vec<Seed> {
    let root = repo();
    let mut dirs = vec![root.join("scenarios")];
    let mut exp: Vec<PathBuf> = std::fs::read_dir(root.join("experiments"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    exp.sort();
    dirs.extend(exp);
    let mut seeds = Vec::new();
    for d in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml") && !p.ends_with("manifest.toml"))
            .collect();
        files.sort();
        for f in files {
            seeds.push(Seed {
                name: f.strip_prefix(&root).unwrap().display().to_string(),
                text: std::fs::read_to_string(&f).unwrap(),
                dir: d.clone(),
                files: vec![],
            });
        }
    }
    seeds
}

/// Small scenarios built on imported files, whose text is mutated too.
fn imported() -> Vec<Seed> {
    let ring = std::fs::read_to_string(repo().join("scenarios/topologies/ring5.txt")).unwrap();
    let chain = std::fs::read_to_string(repo().join("experiments/fncc/topologies/fncc-chain3.txt")).unwrap();
    let flows = "4\n0 2 3 100 100000 2.000000000\n1 2 3 100 50000 2.000001000\n3 4 3 100 2000000 2.000002500\n5 0 3 100 1000 2.0000031\n";
    let cdf = "# size cum_prob\n1000 0\n10000 50\n100000 90\n1000000 100\n";
    let topo = |file: &str, extra: &str| {
        format!(
            "name = \"imported\"\nschemes = [\"dcqcn\", \"hpcc\"]\n[topology]\nkind = \"hpcc_file\"\npath = \"{file}\"\n{extra}"
        )
    };
    let none = PathBuf::new();
    vec![
        Seed {
            name: "imported-topology".into(),
            text: topo(
                "topo.txt",
                "[[workload]]\nkind = \"flows\"\nflows = [{ src = 0, dst = 2, size = \"200KB\" }, { src = 1, dst = 3, size = \"50KB\", start = \"3us\" }]\n",
            ),
            dir: none.clone(),
            files: vec![("topo.txt".into(), ring.clone())],
        },
        Seed {
            name: "imported-flows".into(),
            text: topo("topo.txt", "[[workload]]\nkind = \"hpcc_flows\"\npath = \"flows.txt\"\nrebase = true\n"),
            dir: none.clone(),
            files: vec![("topo.txt".into(), chain), ("flows.txt".into(), flows.into())],
        },
        Seed {
            name: "imported-cdf".into(),
            text: topo(
                "topo.txt",
                "[[workload]]\nkind = \"poisson\"\ncdf = \"sizes.cdf\"\nload = 0.4\nduration = \"30us\"\n",
            ),
            dir: none,
            files: vec![("topo.txt".into(), ring), ("sizes.cdf".into(), cdf.into())],
        },
    ]
}

// ---- mutations --------------------------------------------------------

#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

fn path_text(p: &[Seg]) -> String {
    let mut s = String::new();
    for seg in p {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => {
                let _ = write!(s, "[{i}]");
            }
        }
    }
    s
}

/// Every value's path (tables and arrays too), depth first.
fn paths(v: &Value, at: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match v {
        Value::Table(t) => {
            for (k, x) in t {
                at.push(Seg::Key(k.clone()));
                out.push(at.clone());
                paths(x, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                at.push(Seg::Index(i));
                out.push(at.clone());
                paths(x, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn get_mut<'a>(v: &'a mut Value, p: &[Seg]) -> Option<&'a mut Value> {
    let mut cur = v;
    for seg in p {
        cur = match (seg, cur) {
            (Seg::Key(k), Value::Table(t)) => t.get_mut(k)?,
            (Seg::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn pick<'a, T>(rng: &mut Rng, xs: &'a [T]) -> &'a T {
    &xs[rng.below(xs.len() as u64) as usize]
}

const HOSTILE_STRINGS: &[&str] = &[
    "",
    "x",
    "0",
    "-1us",
    "1e30s",
    "1e30B",
    "0.1bps",
    "1ps",
    "0ps",
    "18446744073709551615",
    "18446744073709551616B",
    "NaN",
    "inf",
    "-inf",
    "1e-30s",
    "100",
    "1 us",
    "1.5.3us",
    "1e3us",
    "5µs",
    "💥",
    "0Gbps",
    "1e300Gbps",
    "99999999999TB",
    "-5KB",
    "1e6s",
    "1000001s",
    "10TB",
    "0.5B",
    "100Gbps",
    "1us",
    "10MB",
    "websearch",
    "hadoop",
    "4:5",
    "0:0",
    "999:1",
    "symmetric",
    "ecmp",
    "hpcc",
    "dcqcn",
];

fn hostile_number(rng: &mut Rng) -> Value {
    let ints: &[i64] =
        &[0, -1, 1, 2, 3, 7, 8, 255, 256, 65535, 65536, 4294967295, 4294967296, i64::MAX, i64::MIN, 1_000_000_000];
    let floats: &[f64] = &[0.0, -0.0, 0.5, 1.0, 1.5, 2.0, -1.0, 1e-300, 1e30, -1e30, 1e308, f64::NAN, f64::INFINITY];
    if rng.below(2) == 0 {
        Value::Integer(*pick(rng, ints))
    } else {
        Value::Float(*pick(rng, floats))
    }
}

/// Multiplies the number in a number or a "number+unit" string by 10^k.
fn scaled(v: &Value, rng: &mut Rng) -> Option<Value> {
    let k = *pick(rng, &[-9i32, -6, -3, -1, 1, 3, 6, 9, 12, 20]);
    let f = 10f64.powi(k);
    match v {
        Value::Integer(i) => {
            Some(if k > 0 { Value::Integer(i.saturating_mul(f as i64)) } else { Value::Float(*i as f64 * f) })
        }
        Value::Float(x) => Some(Value::Float(x * f)),
        Value::String(s) => {
            let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-')).unwrap_or(s.len());
            let x: f64 = s[..end].parse().ok()?;
            Some(Value::String(format!("{}{}", x * f, &s[end..])))
        }
        _ => None,
    }
}

/// Swaps the unit of a "number+unit" string for another of its kind.
fn reunit(v: &Value, rng: &mut Rng) -> Option<Value> {
    let Value::String(s) = v else { return None };
    let families: &[&[&str]] = &[
        &["ps", "ns", "us", "ms", "s"],
        &["bps", "Kbps", "Mbps", "Gbps", "Tbps"],
        &["B", "KB", "MB", "GB", "TB", "KiB"],
    ];
    for fam in families {
        // longest suffix first, so "Gbps" is not read as "s" or "bps"
        let mut by_len: Vec<&&str> = fam.iter().collect();
        by_len.sort_by_key(|u| std::cmp::Reverse(u.len()));
        if let Some(u) = by_len.iter().find(|u| s.ends_with(**u)) {
            let base = &s[..s.len() - u.len()];
            if base.parse::<f64>().is_ok() {
                return Some(Value::String(format!("{base}{}", pick(rng, fam))));
            }
        }
    }
    None
}

/// One mutation of the document; returns the path it touched.
fn mutate_doc(doc: &mut Value, rng: &mut Rng) -> Option<String> {
    let mut all = Vec::new();
    paths(doc, &mut Vec::new(), &mut all);
    if all.is_empty() {
        return None;
    }
    let p = pick(rng, &all).clone();
    let label = path_text(&p);
    let op = rng.below(100);
    if op < 8 {
        // delete the key or array element
        let (last, parent) = p.split_last()?;
        match (get_mut(doc, parent)?, last) {
            (Value::Table(t), Seg::Key(k)) => {
                t.remove(k);
            }
            (Value::Array(a), Seg::Index(i)) => {
                a.remove(*i);
            }
            _ => {}
        }
        return Some(label);
    }
    if op < 12 {
        // an unknown key beside it
        let (_, parent) = p.split_last()?;
        if let Value::Table(t) = get_mut(doc, parent)? {
            t.insert("colour".into(), Value::Integer(1));
            return Some(format!("{}colour", if parent.is_empty() { String::new() } else { path_text(parent) + "." }));
        }
        return None;
    }
    if op < 18 {
        // duplicate an array element (more flows, workloads, link events)
        let (last, parent) = p.split_last()?;
        if let (Value::Array(a), Seg::Index(i)) = (get_mut(doc, parent)?, last) {
            let x = a[*i].clone();
            let n = 1 + rng.below(3) as usize;
            for _ in 0..n {
                a.push(x.clone());
            }
            return Some(label);
        }
        return None;
    }
    let v = get_mut(doc, &p)?;
    let new = match op {
        18..=44 => Some(Value::String(pick(rng, HOSTILE_STRINGS).to_string())),
        45..=64 => Some(hostile_number(rng)),
        65..=79 => scaled(v, rng),
        80..=89 => reunit(v, rng),
        90..=93 => Some(Value::Boolean(rng.below(2) == 0)),
        94..=96 => Some(Value::Array(vec![])),
        _ => Some(Value::Table(Default::default())),
    };
    *v = new?;
    Some(label)
}

/// Text-level damage to an imported file (or a scenario's TOML).
fn mutate_text(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    if lines.is_empty() {
        return String::new();
    }
    let i = rng.below(lines.len() as u64) as usize;
    match rng.below(10) {
        0 => {
            lines.remove(i);
        }
        1 => {
            let l = lines[i].clone();
            lines.insert(i, l);
        }
        2 => {
            // truncate the file at a random byte (on a char boundary)
            let mut cut = rng.below(text.len() as u64 + 1) as usize;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            return text[..cut].to_string();
        }
        3 => lines[i].push_str(" 7"),
        4 => lines.insert(i, String::new()),
        _ => {
            // replace one field with a hostile token
            let mut f: Vec<String> = lines[i].split_whitespace().map(String::from).collect();
            let tokens = [
                "",
                "-1",
                "0",
                "18446744073709551615",
                "1e12",
                "4294967295",
                "abc",
                "1.5",
                "100Tbps",
                "0bps",
                "1ps",
                "1e30s",
                "NaN",
                "99999",
                "2.5",
                "1000000000000000000000",
            ];
            if f.is_empty() {
                lines[i] = pick(rng, &tokens).to_string();
            } else {
                let j = rng.below(f.len() as u64) as usize;
                f[j] = pick(rng, &tokens).to_string();
                lines[i] = f.join(" ");
            }
        }
    }
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

// ---- one case ---------------------------------------------------------

struct Case {
    seed: usize,
    text: String,
    files: Vec<(String, String)>,
    touched: Vec<String>,
}

fn make_case(seeds: &[Seed], rng: &mut Rng) -> Case {
    let si = rng.below(seeds.len() as u64) as usize;
    let seed = &seeds[si];
    let mut files = seed.files.clone();
    let mut touched = Vec::new();
    let mut text = seed.text.clone();
    if !files.is_empty() && rng.below(2) == 0 {
        let fi = rng.below(files.len() as u64) as usize;
        let rounds = 1 + rng.below(2);
        for _ in 0..rounds {
            files[fi].1 = mutate_text(&files[fi].1, rng);
        }
        touched.push(files[fi].0.clone());
    } else if rng.below(20) == 0 {
        text = mutate_text(&text, rng);
        touched.push("<text>".into());
    } else {
        let mut doc: Value = Value::Table(toml::from_str(&text).expect("shipped scenarios parse"));
        let rounds = 1 + rng.below(3);
        for _ in 0..rounds {
            if let Some(p) = mutate_doc(&mut doc, rng) {
                touched.push(p);
            }
        }
        text = match toml::to_string(&doc) {
            Ok(t) => t,
            // e.g. NaN in a place TOML cannot write: use the original
            Err(_) => seed.text.clone(),
        };
    }
    Case { seed: si, text, files, touched }
}

/// Every key path in a scenario's TOML text, longest first (`workload[0].flows[1].dst`, ...).
fn key_paths(text: &str) -> Vec<String> {
    let Ok(t) = toml::from_str::<toml::Table>(text) else { return vec![] };
    let mut all = Vec::new();
    paths(&Value::Table(t), &mut Vec::new(), &mut all);
    let mut v: Vec<String> = all.iter().map(|p| path_text(p)).collect();
    v.sort_by_key(|p| std::cmp::Reverse(p.len()));
    v
}

/// Whether an error message points at something a user can find: a key of
/// the scenario, a line ("line 3", "file.txt:3:"), a scheme or flow by name.
fn names_a_place(err: &str, text: &str, files: &[(String, String)]) -> bool {
    if err.contains("(line ") || err.contains(" line ") {
        return true;
    }
    for (name, _) in files {
        let at = format!("{name}:");
        if let Some(i) = err.find(&at) {
            let rest = &err[i + at.len()..];
            if rest.starts_with(|c: char| c.is_ascii_digit()) {
                return true;
            }
        }
        // whole-file problems ("empty flow file", "cannot read", "has no points") name the file
        if err.contains(name.as_str()) {
            return true;
        }
    }
    // a key path of the scenario (leaf or table), written as in the file
    for p in key_paths(text) {
        if p.contains('.') || p.contains('[') || p.len() > 3 {
            if err.contains(&format!("{p} ")) || err.contains(&format!("{p}:")) || err.contains(&format!("{p}=")) {
                return true;
            }
            if err.contains(&format!("{p} =")) || err.contains(&format!("`{p}`")) || err.contains(&format!("'{p}'")) {
                return true;
            }
        }
    }
    // a key the mutation deleted ("workload[0].receiver: required ..."), or
    // a scheme's own check ("scheme fncc: ... network.routing")
    ["scheme ", "network.", "topology.", "workload[", "trace.", "variants."].iter().any(|k| err.contains(k))
}

#[derive(Default)]
struct Tally {
    cases: u64,
    accepted: u64,
    errors: u64,
    runs: u64,
    run_errors: u64,
    panics: Vec<String>,
    hangs: Vec<String>,
    unnamed: Vec<String>,
    check_failures: Vec<String>,
}

fn describe(seeds: &[Seed], c: &Case, n: u64) -> String {
    let mut s = format!("case {n}: seed {} mutated at {:?}\n{}", seeds[c.seed].name, c.touched, c.text);
    for (name, text) in &c.files {
        let _ = write!(s, "\n--- {name}\n{text}");
    }
    s
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

/// What a worker shares with the test: the seeds, its scratch folder for
/// imported files, the tally, and `busy`, the start of its current step
/// (ms since `t0`, plus 1; 0 when idle) for the watchdog.
struct Worker<'a> {
    seeds: &'a [Seed],
    tmp: &'a Path,
    tally: &'a Mutex<Tally>,
    busy: &'a AtomicU64,
    t0: Instant,
}

/// Runs one case: validation, then (for `run`) a short checked simulation
/// of its first scheme.
fn one(w: &Worker, c: &Case, n: u64, run: bool) {
    let Worker { seeds, tmp, tally, busy, t0 } = *w;
    let seed = &seeds[c.seed];
    let dir = if c.files.is_empty() { seed.dir.clone() } else { tmp.to_path_buf() };
    for (name, text) in &c.files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let label = format!("fuzz-{n}.toml");
    busy.store(t0.elapsed().as_millis() as u64 + 1, Ordering::Relaxed);
    let got = std::panic::catch_unwind(|| {
        load_text(&label, &c.text, &dir, "fuzz", &Overrides::default()).and_then(|s| s.check_schemes().map(|_| s))
    });
    busy.store(0, Ordering::Relaxed);
    let mut t = tally.lock().unwrap();
    t.cases += 1;
    let scn = match got {
        Err(p) => {
            t.panics.push(format!("validation panicked: {}\n{}", panic_text(p), describe(seeds, c, n)));
            return;
        }
        Ok(Err(e)) => {
            t.errors += 1;
            if let Some(f) = std::env::var_os("CCSIM_FUZZ_ERRORS") {
                use std::io::Write as _;
                let mut f = std::fs::OpenOptions::new().create(true).append(true).open(f).unwrap();
                writeln!(f, "case {n}: {}", e.lines().next().unwrap_or("")).unwrap();
            }
            if !e.contains(&label) || !names_a_place(&e, &c.text, &c.files) {
                t.unnamed.push(format!("{e}\n{}", describe(seeds, c, n)));
            }
            return;
        }
        Ok(Ok(s)) => s,
    };
    t.accepted += 1;
    let small = scn.topo.hosts().len() <= 64 && scn.flows.len() <= 2_000;
    if !run || !small || scn.schemes.is_empty() {
        return;
    }
    drop(t);
    let mut scn = scn;
    scn.stop = Some(scn.stop.map_or(RUN_STOP, |s| s.min(RUN_STOP)));
    scn.check = true;
    let stop = scn.interrupt.clone();
    let finished = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watch = std::thread::spawn({
        let (stop, finished) = (stop.clone(), finished.clone());
        move || {
            let deadline = Instant::now() + RUN_LIMIT;
            while !finished.load(Ordering::Relaxed) {
                if Instant::now() > deadline {
                    stop.set();
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    });
    let name = scn.schemes[0].clone();
    let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| scn.simulate(&name, None)));
    finished.store(true, Ordering::Relaxed);
    let _ = watch.join();
    let timed_out = stop.is_set();
    let mut t = tally.lock().unwrap();
    t.runs += 1;
    match got {
        Err(p) => t.panics.push(format!("simulation panicked: {}\n{}", panic_text(p), describe(seeds, c, n))),
        Ok(Err(e)) => {
            t.run_errors += 1;
            if !e.contains(&label) {
                t.unnamed.push(format!("{e}\n{}", describe(seeds, c, n)));
            }
        }
        Ok(Ok(r)) => {
            if timed_out {
                t.hangs.push(format!("simulation ran past {RUN_LIMIT:?}\n{}", describe(seeds, c, n)));
            } else if let Some(Err(e)) = &r.check {
                t.check_failures.push(format!("{name}: {e}\n{}", describe(seeds, c, n)));
            }
        }
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn mutated_scenarios_and_files_never_panic_hang_or_err_vaguely() {
    let cases = env_u64("CCSIM_FUZZ_CASES", 4_000);
    let seed = env_u64("CCSIM_FUZZ_SEED", 1);
    // CCSIM_FUZZ_CASE=n: that case alone, printed (to study a failure)
    let only = std::env::var("CCSIM_FUZZ_CASE").ok().and_then(|v| v.parse::<u64>().ok());
    // CCSIM_FUZZ_VERBOSE: print each case number as it starts (to find one
    // that kills the process, e.g. by exhausting memory under `ulimit -v`)
    let verbose = std::env::var_os("CCSIM_FUZZ_VERBOSE").is_some();
    let mut seeds = shipped();
    let shipped_n = seeds.len();
    seeds.extend(imported());
    assert!(shipped_n >= 40, "expected the shipped scenarios, found {shipped_n}");

    // quiet the default hook: panics are caught and reported below
    std::panic::set_hook(Box::new(|_| {}));
    let tally = Arc::new(Mutex::new(Tally::default()));
    let workers = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).clamp(1, 4) as u64;
    // per worker: when its current case started (ms since t0, plus 1), 0 when idle
    let busy: Arc<Vec<AtomicU64>> = Arc::new((0..workers).map(|_| AtomicU64::new(0)).collect());
    let current: Arc<Vec<AtomicU64>> = Arc::new((0..workers).map(|_| AtomicU64::new(0)).collect());
    let t0 = Instant::now();
    let handles: Vec<_> = (0..workers)
        .map(|w| {
            let (tally, busy, current, seeds) = (tally.clone(), busy.clone(), current.clone(), seeds.clone());
            if let Some(n) = only.filter(|n| n % workers == w) {
                eprintln!("{}", describe(&seeds, &make_case(&seeds, &mut Rng::derive(seed, n)), n));
            }
            std::thread::spawn(move || {
                let tmp = TempDir::new("fuzz");
                // case n is the same whatever the worker count: its own generator
                for n in (w..cases).step_by(workers as usize) {
                    if only.is_some_and(|o| o != n) {
                        continue;
                    }
                    current[w as usize].store(n, Ordering::Relaxed);
                    if verbose {
                        eprintln!("case {n}");
                    }
                    let mut rng = Rng::derive(seed, n);
                    let c = make_case(&seeds, &mut rng);
                    // about one in RUN_ONE_IN accepted small cases is simulated too
                    let due = rng.below(RUN_ONE_IN.max(cases / 4_000)) == 0;
                    let worker = Worker { seeds: &seeds, tmp: tmp.path(), tally: &tally, busy: &busy[w as usize], t0 };
                    one(&worker, &c, n, due);
                }
            })
        })
        .collect();
    while !handles.iter().all(|h| h.is_finished()) {
        std::thread::sleep(Duration::from_millis(50));
        let now = t0.elapsed().as_millis() as u64;
        for (b, n) in busy.iter().zip(current.iter()) {
            let since = b.load(Ordering::Relaxed);
            if since > 0 && now > since + VALIDATE_LIMIT.as_millis() as u64 {
                let _ = std::panic::take_hook();
                let n = n.load(Ordering::Relaxed);
                let c = make_case(&seeds, &mut Rng::derive(seed, n));
                panic!("a validation ran past {VALIDATE_LIMIT:?} (a hang):\n{}", describe(&seeds, &c, n));
            }
        }
    }
    let _ = std::panic::take_hook();
    for h in handles {
        h.join().expect("a fuzz worker itself panicked");
    }
    let t = tally.lock().unwrap();
    eprintln!(
        "fuzz: {} cases ({} accepted, {} refused), {} short runs ({} refused), {:.1}s; panics {}, hangs {}, vague errors {}, failed checks {}",
        t.cases,
        t.accepted,
        t.errors,
        t.runs,
        t.run_errors,
        t0.elapsed().as_secs_f64(),
        t.panics.len(),
        t.hangs.len(),
        t.unnamed.len(),
        t.check_failures.len()
    );
    let show = |what: &str, v: &[String]| {
        assert!(v.is_empty(), "{} {what}; the first:\n{}", v.len(), v.first().map(String::as_str).unwrap_or(""));
    };
    show("panics", &t.panics);
    show("hangs", &t.hangs);
    show("failed invariant checks", &t.check_failures);
    show("errors that do not name the file and a key or line", &t.unnamed);
    if only.is_some() {
        return;
    }
    assert_eq!(t.cases, cases);
    assert!(t.runs >= MIN_RUNS * cases / 12_000, "only {} cases were simulated", t.runs);
    assert!(
        t.accepted > cases / 10 && t.errors > cases / 10,
        "mutations too mild or too harsh: {} accepted, {} refused",
        t.accepted,
        t.errors
    );
}
