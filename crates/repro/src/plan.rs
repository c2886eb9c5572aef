//! From manifests to a plan of independent runs. Each claim at the chosen
//! scale expands into runs (scenario + `--set` values x scheme/variant x
//! seed, for every sweep point and sensitivity value); figures add theirs.
//! A run is identified by a key: a hash of everything that decides its
//! result (the resolved topology, network, flows, stop time, traces, the
//! scheme's effective parameters, the seed) and of the simulator's version,
//! so identical runs of different claims are planned once and a cached run
//! is reused only by the same binary.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ccsim_scenario::{Overrides, Scenario};

use crate::manifest::{self, Claim, Figure, Manifest, Status};

/// Seeds a headline claim runs at least at full scale: enough for a 95%
/// interval of the seed mean (Student's t, 4 degrees of freedom).
pub const HEADLINE_SEEDS: u32 = 5;

/// Seeds of a headline claim declared `deterministic`: two, whose values must be identical.
pub const DETERMINISTIC_HEADLINE_SEEDS: u32 = 2;

/// `--set` values, in order.
pub type Sets = Vec<(String, toml::Value)>;

/// One point of a claim: (sweep value, scenario file, sets).
type PointSpec = (Option<toml::Value>, String, Sets);

/// One simulation: what the runner (local or on a cluster) needs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunSpec {
    pub paper: String,
    /// The scenario file.
    pub scenario: PathBuf,
    /// `--set` values laid over it, in order.
    pub sets: Vec<(String, toml::Value)>,
    /// Scheme or variant.
    pub scheme: String,
    pub seed: u64,
    /// Hash of what decides the result (see the module docs).
    pub key: String,
    /// Estimated simulator events (for ETAs and `--list`).
    pub est_events: f64,
}

impl RunSpec {
    /// "fncc/fig9-100g.toml hpcc seed 1 [network.pfc.static_xoff=200KB]".
    pub fn label(&self) -> String {
        let file = self.scenario.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        let mut s = format!("{}/{} {} seed {}", self.paper, file, self.scheme, self.seed);
        if !self.sets.is_empty() {
            let sets: Vec<String> = self.sets.iter().map(|(k, v)| format!("{k}={v}")).collect();
            s.push_str(&format!(" [{}]", sets.join(" ")));
        }
        s
    }

    /// Loads the scenario this run simulates.
    pub fn load(&self) -> Result<Scenario, String> {
        let ov = Overrides { seed: Some(self.seed), sets: self.sets.clone(), ..Default::default() };
        ccsim_scenario::load(&self.scenario, &ov)
    }
}

/// Runs of one scheme at one point: one per seed (indices into [`Plan::runs`]).
pub type SeedRuns = Vec<usize>;

/// A claim's measurement at one sweep point (or its only point).
#[derive(Clone, Debug, Default)]
pub struct PointPlan {
    /// The sweep value (None without a sweep).
    pub x: Option<toml::Value>,
    pub runs: BTreeMap<String, SeedRuns>,
}

/// A sensitivity sweep: per value, the claim's points re-run with the setting.
#[derive(Clone, Debug)]
pub struct SensitivityPlan {
    pub key: String,
    pub values: Vec<toml::Value>,
    /// `points[value index][point index]`.
    pub points: Vec<Vec<PointPlan>>,
}

#[derive(Clone, Debug)]
pub struct ClaimPlan {
    /// Index in the manifest's claims.
    pub claim: usize,
    pub points: Vec<PointPlan>,
    pub sensitivity: Vec<SensitivityPlan>,
    /// Why the claim could not be planned (a bad scenario or scheme name).
    pub error: Option<String>,
}

impl ClaimPlan {
    /// The plan's run indices this claim uses (points, seeds, sensitivity
    /// sweeps), with repeats.
    pub fn run_indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.points
            .iter()
            .chain(self.sensitivity.iter().flat_map(|s| s.points.iter().flatten()))
            .flat_map(|p| p.runs.values().flatten().copied())
    }
}

#[derive(Clone, Debug)]
pub struct FigurePlan {
    pub figure: usize,
    /// Seed-1 run per scheme.
    pub runs: BTreeMap<String, usize>,
    pub error: Option<String>,
}

#[derive(Clone, Debug)]
pub struct PaperPlan {
    pub manifest: Manifest,
    pub claims: Vec<ClaimPlan>,
    pub figures: Vec<FigurePlan>,
}

/// What to plan.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The paper's scale (default: reduced).
    pub full: bool,
    /// Seeds for claims that use more than one.
    pub seeds: Option<u32>,
    /// Only these claim ids (and no figures) when set.
    pub claims: Option<Vec<String>>,
    /// Identifies the simulator build in run keys.
    pub version: String,
    /// An outline for listing and estimates, not for running: runs are told
    /// apart by a digest of the scenario point at the file's seed, the
    /// scheme's parameters and the seed, instead of the hash of each run's
    /// generated flows as text, and every seed costs what the first does.
    /// Scenario points are read without their traffic, which they tell
    /// apart by what decides it (`Scenario::traffic_key`) and generate once
    /// per distinct traffic, for the estimate. A setting written
    /// differently that makes the same traffic would count as another point
    /// (an overcount; the tests check the shipped manifests have none). Its
    /// keys are not cache keys.
    pub outline: bool,
}

/// The runs of every selected claim and figure, each run listed once.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub papers: Vec<PaperPlan>,
    pub runs: Vec<RunSpec>,
    pub full: bool,
}

/// Loaded scenarios by (file, sets, seed): loading generates the flows.
type Loaded = BTreeMap<(PathBuf, String, u64), Result<Scenario, String>>;

struct Planner<'a> {
    opts: &'a Options,
    runs: Vec<RunSpec>,
    by_key: BTreeMap<String, usize>,
    c: &'a mut Caches,
}

/// What plans of the same kind (outlines, or not) can share: both scales'
/// outlines read the same scenario points.
#[derive(Default)]
struct Caches {
    loaded: Loaded,
    /// Scenario points of an outline by (file, sets).
    points: BTreeMap<(PathBuf, String), Point>,
    /// Estimated events: an outline's by what decides them (see
    /// [`Planner::point`]), a plan's by (file, sets, seed).
    estimates: BTreeMap<String, f64>,
    /// A loaded scenario's [`scenario_digest`], by the same key.
    digests: BTreeMap<(PathBuf, String, u64), String>,
    /// A scheme's resolved parameters in an outline, by (file, sets, scheme).
    params: BTreeMap<(PathBuf, String, String), String>,
}

/// A scenario point of an outline, at the file's seed.
struct Point {
    /// Everything of the resolved scenario but the schemes (see [`Planner::point`]).
    digest: String,
    est: f64,
}

/// Plans the given papers (manifest folders under `root`).
pub fn plan(root: &Path, papers: &[String], opts: &Options) -> Result<Plan, String> {
    plan_with(root, papers, opts, &mut Caches::default())
}

/// Outlines (see [`Options::outline`]) of `paper` at the reduced and the
/// full scale, which read their shared scenario points once.
pub fn outlines(root: &Path, paper: &str, version: &str) -> Result<[Plan; 2], String> {
    let mut caches = Caches::default();
    let papers = [paper.to_string()];
    let mut at = |full| {
        let opts = Options { full, version: version.to_string(), outline: true, ..Default::default() };
        plan_with(root, &papers, &opts, &mut caches)
    };
    Ok([at(false)?, at(true)?])
}

fn plan_with(root: &Path, papers: &[String], opts: &Options, caches: &mut Caches) -> Result<Plan, String> {
    if let Some(n) = opts.seeds.filter(|&n| n == 0 || n > crate::manifest::MAX_SEEDS) {
        return Err(format!("--seeds {n}: must be in 1..={}", crate::manifest::MAX_SEEDS));
    }
    let mut p = Planner { opts, runs: Vec::new(), by_key: BTreeMap::new(), c: caches };
    let mut out = Vec::new();
    for paper in papers {
        let m = manifest::read(&root.join(paper))?;
        m.check()?;
        out.push(p.paper(m));
    }
    if let Some(ids) = &opts.claims {
        for id in ids {
            if !out.iter().any(|pp| pp.claims.iter().any(|c| pp.manifest.claims[c.claim].id == *id)) {
                return Err(format!("--claim {id}: no such claim in {}", papers.join(", ")));
            }
        }
    }
    Ok(Plan { papers: out, runs: p.runs, full: opts.full })
}

fn sets_of(t: &toml::Table) -> Vec<(String, toml::Value)> {
    t.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

fn set_text(sets: &[(String, toml::Value)]) -> String {
    sets.iter().map(|(k, v)| format!("{k}={v};")).collect()
}

impl Planner<'_> {
    fn paper(&mut self, m: Manifest) -> PaperPlan {
        let mut claims = Vec::new();
        for (i, c) in m.claims.iter().enumerate() {
            if c.status != Status::Run {
                continue;
            }
            if let Some(ids) = &self.opts.claims {
                if !ids.contains(&c.id) {
                    continue;
                }
            }
            claims.push(self.claim(&m, i, c));
        }
        let mut figures = Vec::new();
        if self.opts.claims.is_none() {
            for (i, f) in m.figures.iter().enumerate() {
                figures.push(self.figure(&m, i, f));
            }
        }
        PaperPlan { manifest: m, claims, figures }
    }

    fn seeds_for(&self, m: &Manifest, c: &Claim) -> u32 {
        let scale = c.scale(self.opts.full).and_then(|s| s.seeds);
        let mut n = scale.or(c.seeds).or(m.defaults.seeds).unwrap_or(1).max(1);
        if self.opts.full && c.headline {
            n = n.max(if c.deterministic { DETERMINISTIC_HEADLINE_SEEDS } else { HEADLINE_SEEDS });
        }
        match self.opts.seeds {
            Some(s) if n > 1 => s.max(1),
            _ => n,
        }
    }

    fn claim(&mut self, m: &Manifest, idx: usize, c: &Claim) -> ClaimPlan {
        let mut cp = ClaimPlan { claim: idx, points: Vec::new(), sensitivity: Vec::new(), error: None };
        let scale = c.scale(self.opts.full);
        let file = scale.and_then(|s| s.scenario.clone()).or_else(|| c.scenario.clone()).unwrap_or_default();
        let base_sets = scale.map(|s| sets_of(&s.set)).unwrap_or_default();
        let seeds = self.seeds_for(m, c);
        let points = self.points_of(c, &file, &base_sets);
        let result = (|| -> Result<(), String> {
            for (i, (x, file, sets)) in points.iter().enumerate() {
                let params = c.params_at(self.opts.full, i);
                let outline = self.opts.outline;
                let scn = self.scenario(&m.dir.join(file), sets, None)?;
                // (an outline has no traffic to check the metric's flows against)
                if !outline {
                    crate::metrics::needs(c.metric.as_deref().unwrap_or(""), &params, scn)?;
                }
                let runs = self.runs_for(m, c, &m.dir.join(file), sets, seeds)?;
                cp.points.push(PointPlan { x: x.clone(), runs });
            }
            for s in &c.sensitivity {
                let mut by_value = Vec::new();
                for v in &s.values {
                    let mut pts = Vec::new();
                    for (x, file, sets) in &points {
                        let mut sets = sets.clone();
                        for k in std::iter::once(&s.key).chain(&s.also) {
                            sets.push((k.clone(), v.clone()));
                        }
                        let runs = self.runs_for(m, c, &m.dir.join(file), &sets, s.seeds.unwrap_or(1).max(1))?;
                        pts.push(PointPlan { x: x.clone(), runs });
                    }
                    by_value.push(pts);
                }
                cp.sensitivity.push(SensitivityPlan { key: s.key.clone(), values: s.values.clone(), points: by_value });
            }
            Ok(())
        })();
        if let Err(e) = result {
            cp.error = Some(format!("{}: claim '{}': {e}", m.paper, c.id));
        }
        cp
    }

    /// (sweep value, scenario file, sets) of each point of a claim.
    fn points_of(&self, c: &Claim, file: &str, base: &[(String, toml::Value)]) -> Vec<PointSpec> {
        match &c.sweep {
            None => vec![(None, file.to_string(), base.to_vec())],
            Some(sw) => sw
                .values
                .iter()
                .enumerate()
                .map(|(i, v)| match (&sw.key, &sw.scenarios) {
                    (Some(k), _) => {
                        let mut sets = base.to_vec();
                        for key in std::iter::once(k).chain(&sw.also) {
                            sets.push((key.clone(), v.clone()));
                        }
                        (Some(v.clone()), file.to_string(), sets)
                    }
                    (None, Some(files)) => (Some(v.clone()), files[i].clone(), base.to_vec()),
                    (None, None) => (Some(v.clone()), file.to_string(), base.to_vec()),
                })
                .collect(),
        }
    }

    fn figure(&mut self, m: &Manifest, idx: usize, f: &Figure) -> FigurePlan {
        // a figure without a scale of its own is drawn at the scale of the
        // first claim on its scenario (so it reuses that claim's runs)
        let own = if self.opts.full { f.full.as_ref() } else { f.reduced.as_ref() };
        let borrowed = || {
            m.claims
                .iter()
                .filter(|c| c.status == Status::Run && c.scenario.as_deref() == Some(f.scenario.as_str()))
                .find_map(|c| c.scale(self.opts.full))
        };
        let scale = own.or_else(borrowed);
        let file = scale.and_then(|s| s.scenario.clone()).unwrap_or_else(|| f.scenario.clone());
        let mut sets = sets_of(&f.set);
        if let Some(s) = scale {
            sets.extend(sets_of(&s.set));
        }
        let mut fp = FigurePlan { figure: idx, runs: BTreeMap::new(), error: None };
        for scheme in &f.schemes {
            match self.run(&m.paper, &m.dir.join(&file), &sets, scheme, 0) {
                Ok(i) => {
                    fp.runs.insert(scheme.clone(), i);
                }
                Err(e) => {
                    fp.error = Some(format!("{}: figure '{}': {e}", m.paper, f.id));
                    break;
                }
            }
        }
        fp
    }

    fn runs_for(
        &mut self,
        m: &Manifest,
        c: &Claim,
        file: &Path,
        sets: &[(String, toml::Value)],
        seeds: u32,
    ) -> Result<BTreeMap<String, SeedRuns>, String> {
        let mut out = BTreeMap::new();
        for scheme in &c.schemes {
            let mut v = Vec::new();
            for i in 0..seeds as u64 {
                v.push(self.run(&m.paper, file, sets, scheme, i)?);
            }
            out.insert(scheme.clone(), v);
        }
        Ok(out)
    }

    /// The scenario `file` with `sets`, at seed `seed` (None: the file's own).
    fn scenario(
        &mut self,
        file: &Path,
        sets: &[(String, toml::Value)],
        seed: Option<u64>,
    ) -> Result<&Scenario, String> {
        let k = (file.to_path_buf(), set_text(sets), seed.unwrap_or(u64::MAX));
        if !self.c.loaded.contains_key(&k) {
            let skip_traffic = self.opts.outline;
            let ov = Overrides { seed, sets: sets.to_vec(), skip_traffic, ..Default::default() };
            self.c.loaded.insert(k.clone(), ccsim_scenario::load(file, &ov));
        }
        self.c.loaded[&k].as_ref().map_err(|e| e.clone())
    }

    /// The run's key (see [`run_key`]), or in an outline (see
    /// [`Options::outline`]) its stand-in: the point's digest at the file's
    /// seed, the scheme's resolved parameters and the seed, so settings that
    /// leave the scenario as it was (a default swept, another scheme's
    /// parameter) add no run, as in a real plan.
    fn key(&mut self, file: &Path, sets: &[(String, toml::Value)], scheme: &str, seed: u64) -> Result<String, String> {
        if !self.opts.outline {
            let version = self.opts.version.clone();
            let k = (file.to_path_buf(), set_text(sets), seed);
            let scn = self.scenario(file, sets, Some(seed))?;
            scn.make_scheme(scheme)?;
            let digest = self.c.digests.entry(k.clone()).or_insert_with(|| {
                let scn = self.c.loaded[&k].as_ref().expect("loaded above");
                scenario_digest(scn)
            });
            let scn = self.c.loaded[&k].as_ref().expect("loaded above");
            return Ok(run_key_of(&version, digest, scn, scheme));
        }
        let point = self.point(file, sets)?.digest.clone();
        let k = (file.to_path_buf(), set_text(sets), scheme.to_string());
        if !self.c.params.contains_key(&k) {
            let scn = self.scenario(file, sets, None)?;
            scn.make_scheme(scheme)?;
            let params = scn.resolved_params(scheme).unwrap_or_default();
            self.c.params.insert(k.clone(), params);
        }
        Ok(format!("{point}\n{scheme}\n{}\n{seed}", self.c.params[&k]))
    }

    /// A scenario point's digest and estimated events at the file's seed (outlines; computed once).
    fn point(&mut self, file: &Path, sets: &[(String, toml::Value)]) -> Result<&Point, String> {
        let k = (file.to_path_buf(), set_text(sets));
        if !self.c.points.contains_key(&k) {
            let scn = self.scenario(file, sets, None)?;
            // the traffic by what decides it (the topology and workloads as
            // read, the seed), so it is generated once per distinct traffic,
            // for the estimate, which also reads the stop time, the MTU and
            // the trace interval
            let mut h = HashWriter::new();
            let _ = write!(h, "{:?}\n{:?}\n{:?}\n{}\n", scn.net, scn.stop, scn.trace, scn.traffic_key);
            let digest = h.hex();
            let what = format!("{}\n{:?}\n{:?}\n{}", scn.traffic_key, scn.stop, scn.net.mtu, scn.trace.interval);
            let est = match self.c.estimates.get(&what) {
                Some(&e) => e,
                None => {
                    let ov = Overrides { sets: sets.to_vec(), ..Default::default() };
                    let e = estimate_events(&ccsim_scenario::load(file, &ov)?);
                    self.c.estimates.insert(what, e);
                    e
                }
            };
            self.c.points.insert(k.clone(), Point { digest, est });
        }
        Ok(&self.c.points[&k])
    }

    /// Estimated events of a new run: its own scenario's, or in an outline
    /// the point's at the file's seed.
    fn estimate(&mut self, file: &Path, sets: &[(String, toml::Value)], seed: u64) -> Result<f64, String> {
        if self.opts.outline {
            return Ok(self.point(file, sets)?.est);
        }
        let k = format!("{}\n{}\n{seed}", file.display(), set_text(sets));
        if let Some(&e) = self.c.estimates.get(&k) {
            return Ok(e);
        }
        let e = estimate_events(self.scenario(file, sets, Some(seed))?);
        self.c.estimates.insert(k, e);
        Ok(e)
    }

    /// Plans (or finds) the run of `scheme` at the i-th seed; returns its index.
    fn run(
        &mut self,
        paper: &str,
        file: &Path,
        sets: &[(String, toml::Value)],
        scheme: &str,
        i: u64,
    ) -> Result<usize, String> {
        let base_seed = self.scenario(file, sets, None)?.seed;
        let seed = base_seed + i;
        let key = self.key(file, sets, scheme, seed)?;
        if let Some(&i) = self.by_key.get(&key) {
            return Ok(i);
        }
        let est_events = self.estimate(file, sets, seed)?;
        let spec = RunSpec {
            paper: paper.to_string(),
            scenario: file.to_path_buf(),
            sets: sets.to_vec(),
            scheme: scheme.to_string(),
            seed,
            key: key.clone(),
            est_events,
        };
        self.runs.push(spec);
        self.by_key.insert(key, self.runs.len() - 1);
        Ok(self.runs.len() - 1)
    }
}

/// Hashes formatted text without building it, in blocks (formatting writes
/// many short pieces; hashing each alone costs more than the formatting).
struct HashWriter {
    h: Sha256,
    buf: Vec<u8>,
}

impl HashWriter {
    /// Bytes gathered before they are hashed.
    const BLOCK: usize = 1 << 16;

    fn new() -> HashWriter {
        HashWriter { h: Sha256::new(), buf: Vec::new() }
    }

    #[inline]
    fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= Self::BLOCK {
            self.h.update(&self.buf);
            self.buf.clear();
        }
    }

    /// The first 16 bytes of the digest, in hex.
    fn hex(mut self) -> String {
        self.h.update(&self.buf);
        self.h.finalize().iter().take(16).map(|b| format!("{b:02x}")).collect()
    }
}

impl std::fmt::Write for HashWriter {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.bytes(s.as_bytes());
        Ok(())
    }
}

/// The key of a run: the simulator's version and everything of the resolved
/// scenario that decides this scheme's result. Other schemes' parameters do
/// not count, so a sweep of one scheme's setting re-runs only that scheme.
pub fn run_key(version: &str, scn: &Scenario, scheme: &str) -> String {
    run_key_of(version, &scenario_digest(scn), scn, scheme)
}

/// [`run_key`] with the scenario's [`scenario_digest`] already made (a
/// planner makes it once for all the schemes and claims of a scenario).
fn run_key_of(version: &str, digest: &str, scn: &Scenario, scheme: &str) -> String {
    let mut h = HashWriter::new();
    let params = scn.resolved_params(scheme).unwrap_or_else(|e| format!("unresolved: {e}"));
    let _ = write!(h, "ccsim run v4\n{version}\n{scheme}\n{params}\n{digest}\n");
    h.hex()
}

/// Everything of a resolved scenario that decides a run but the schemes:
/// topology, network, stop time, traces and seed as text, the flows field by
/// field, and connections, messages and closed loops (absent from flow-only
/// runs) field by field ([`ccsim_scenario::spec::Generated::encode`]).
fn scenario_digest(scn: &Scenario) -> String {
    let mut h = HashWriter::new();
    let _ = write!(h, "{:?}\n{:?}\n{:?}\n{:?}\n{}\n", scn.topo, scn.net, scn.stop, scn.trace, scn.seed);
    for f in &scn.flows {
        h.bytes(&ccsim_scenario::spec::flow_bytes(f));
    }
    if scn.messages.has_messages() {
        scn.messages.encode(&mut |b| h.bytes(b));
    }
    h.hex()
}

/// Simulator events per second on one core of this machine class, for
/// estimates (`--list`, ETAs); checked against finished runs with the
/// `estimate_check` example (docs/PERFORMANCE.md: the fat-tree runs of the
/// cache take 3.3-5 M events per CPU second).
pub const EVENTS_PER_SEC: f64 = 4.0e6;

/// A rough cost model of a run in simulator events: data packets x links on
/// their path x ~2.9 events per packet-link (data, its ACK and scheduling;
/// 16 per packet on the 5-link paths of the 320-host reference run), plus
/// trace samples. With a stop time, a flow sends at most its line rate for
/// the time it has, and a receiver takes at most its link rate.
pub fn estimate_events(scn: &Scenario) -> f64 {
    let topo = &scn.topo;
    let n = topo.nodes.len();
    let mut adj = vec![Vec::new(); n];
    for l in &topo.links {
        adj[l.a as usize].push((l.b, l.rate_from(l.a)));
        adj[l.b as usize].push((l.a, l.rate_from(l.b)));
    }
    let rate_of = |h: u32| adj[h as usize].first().map_or(100e9, |x| x.1 as f64);
    // per switch (or multi-homed host): hop counts to every node, made when first needed
    let mut hops_from: Vec<Option<Vec<u32>>> = vec![None; n];
    let mtu = scn.net.mtu.0.max(1) as f64;
    // flows, and messages taken as flows (closed loops: each client's link busy while it runs)
    let all: Vec<ccsim_core::FlowSpec>;
    let flows = if scn.messages.has_messages() {
        all = scn.flows.iter().copied().chain(scn.messages.as_flows(&scn.topo, scn.stop)).collect();
        &all
    } else {
        &scn.flows
    };
    // bytes each flow sends, capped by its sender's and then its receiver's rate
    let mut bytes: Vec<f64> = flows.iter().map(|f| f.size as f64).collect();
    if let Some(stop) = scn.stop {
        let secs = |from: u64| stop.saturating_sub(from) as f64 / 1e12;
        for (b, f) in bytes.iter_mut().zip(flows) {
            *b = b.min(rate_of(f.src) / 8.0 * secs(f.start));
        }
        // per receiver: bytes to it and its first flow's start
        let mut by_dst: Vec<(f64, u64)> = vec![(0.0, u64::MAX); n];
        for (b, f) in bytes.iter().zip(flows) {
            let e = &mut by_dst[f.dst as usize];
            e.0 += b;
            e.1 = e.1.min(f.start);
        }
        for (b, f) in bytes.iter_mut().zip(flows) {
            let (total, first) = by_dst[f.dst as usize];
            let cap = rate_of(f.dst) / 8.0 * secs(first);
            if total > cap {
                *b *= cap / total;
            }
        }
    }
    let mut events = 0.0;
    let mut last_end = 0u64;
    for (b, f) in bytes.iter().zip(flows) {
        // a host on one link is one hop more than its switch: search from
        // the switch, once for all the hosts on it
        let (from, first) = match adj[f.src as usize].as_slice() {
            [(sw, _)] => (*sw, 1),
            _ => (f.src, 0),
        };
        let hops = hops_from[from as usize].get_or_insert_with(|| bfs(&adj, from));
        let to = hops.get(f.dst as usize).copied().unwrap_or(0).saturating_add(first);
        let links = to.max(1) as f64;
        events += (b / mtu).ceil() * (2.9 * links + 1.5);
        last_end = last_end.max(f.start + (f.size as f64 * 8.0 / rate_of(f.src) * 1e12) as u64);
    }
    if scn.trace.interval > 0 {
        let end = scn.stop.unwrap_or(last_end * 2);
        events += end as f64 / scn.trace.interval as f64;
    }
    events
}

/// Hop counts from `src` to every node.
fn bfs(adj: &[Vec<(u32, u64)>], src: u32) -> Vec<u32> {
    let mut d = vec![u32::MAX; adj.len()];
    let mut q = std::collections::VecDeque::from([src]);
    d[src as usize] = 0;
    while let Some(u) = q.pop_front() {
        for &(v, _) in &adj[u as usize] {
            if d[v as usize] == u32::MAX {
                d[v as usize] = d[u as usize] + 1;
                q.push_back(v);
            }
        }
    }
    d
}
