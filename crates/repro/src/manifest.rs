//! Experiment manifests (`experiments/<paper>/manifest.toml`): what a paper
//! claims and how ccsim measures each claim. The format is documented in
//! `experiments/README.md`; this module reads it, refuses unknown keys, and
//! checks what can be checked without running anything (ids, files,
//! schemes, metric names and parameters, paper values against the compare
//! mode). Errors name the manifest, the claim and the key.

use serde::Deserialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::metrics;

/// One paper's manifest, as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The folder name, e.g. "fncc".
    pub paper: String,
    pub title: String,
    /// The text the claims were read from (kept with the project's seeds,
    /// not shipped: reports cite `cite` instead).
    #[serde(default)]
    pub source: Option<String>,
    /// Where a reader finds the paper: its DOI or URL (reports link it).
    /// Unset when it has none public; the report says so.
    #[serde(default)]
    pub cite: Option<String>,
    #[serde(default)]
    pub defaults: Defaults,
    #[serde(default, rename = "claim")]
    pub claims: Vec<Claim>,
    #[serde(default, rename = "figure")]
    pub figures: Vec<Figure>,
    /// The manifest's folder (set when read).
    #[serde(skip)]
    pub dir: PathBuf,
}

/// Most seeds a claim, a scale or `--seeds` may ask for (each seed is a
/// run of every scheme at every point: 100,000 took 4.7 GB to plan).
pub const MAX_SEEDS: u32 = 1000;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// Seeds per run point when a claim gives none. Default 1.
    pub seeds: Option<u32>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    #[default]
    Run,
    NotSimulable,
    NotAttempted,
}

/// What a claim is: a result of the paper, or a check of ccsim's set-up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A result the paper reports (default).
    #[default]
    Result,
    /// A set-up or sanity check (workload shares, offered load, flows
    /// finished, no loss): shown apart, never counted as a reproduced result.
    Check,
}

/// How measured values are set against the paper's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Compare {
    /// Values per scheme, side by side.
    #[default]
    Absolute,
    /// `"a/b"` = a's change against b, in percent.
    Relative,
    /// Only the ranking (`order`, lowest first; ties as inner lists).
    Order,
    /// The paper gives a range `[lo, hi]` per scheme.
    Band,
    /// The paper gives an upper bound per scheme.
    AtMost,
    /// The paper gives a lower bound per scheme.
    AtLeast,
    /// Along a sweep, each scheme's change in percent against its own value at the first point.
    SweepRelative,
    /// Along a sweep, the ranking of the sweep values (lowest metric first) for every scheme.
    SweepOrder,
    /// `subject` has the lowest value of the claim's schemes (the others in any order).
    Lowest,
    /// `subject` has the highest value of the claim's schemes.
    Highest,
    /// No paper value: the measured values are only recorded (diagnostics).
    Record,
}

impl Compare {
    /// The name as written in manifests.
    pub fn name(self) -> &'static str {
        match self {
            Compare::Absolute => "absolute",
            Compare::Relative => "relative",
            Compare::Order => "order",
            Compare::Band => "band",
            Compare::AtMost => "at_most",
            Compare::AtLeast => "at_least",
            Compare::SweepRelative => "sweep_relative",
            Compare::SweepOrder => "sweep_order",
            Compare::Lowest => "lowest",
            Compare::Highest => "highest",
            Compare::Record => "record",
        }
    }
}

/// One entry of an `order`: a name, or a list of names that tie.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Rank {
    Tie(Vec<toml::Value>),
    One(toml::Value),
}

impl Rank {
    /// The names (or sweep values as text) in this rank.
    pub fn names(&self) -> Vec<String> {
        match self {
            Rank::One(v) => vec![value_text(v)],
            Rank::Tie(v) => v.iter().map(value_text).collect(),
        }
    }
}

/// A value as a label: strings unquoted, anything else as TOML.
pub fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// What a scale changes.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scale {
    /// `--set` values, `{ "workload[0].duration" = "1ms" }`.
    #[serde(default)]
    pub set: toml::Table,
    /// Another scenario file for this scale.
    pub scenario: Option<String>,
    /// Metric parameters laid over the claim's at this scale.
    #[serde(default)]
    pub params: toml::Table,
    /// Seeds at this scale.
    pub seeds: Option<u32>,
}

/// A claim measured along one setting (or along scenario files).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    /// The setting swept (a `--set` key path); absent when sweeping `scenarios`.
    pub key: Option<String>,
    /// More keys set to the same value at each point.
    #[serde(default)]
    pub also: Vec<String>,
    /// The values (for `scenarios`: the x value of each file).
    pub values: Vec<toml::Value>,
    /// One scenario file per value instead of a key.
    pub scenarios: Option<Vec<String>>,
    /// Metric parameters per value, laid over the claim's (e.g. a port per point).
    #[serde(default)]
    pub params: Vec<toml::Table>,
    /// Axis label in the report.
    pub label: Option<String>,
}

/// A sweep over a setting the paper leaves unstated.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sensitivity {
    pub key: String,
    /// More keys set to the same value.
    #[serde(default)]
    pub also: Vec<String>,
    pub values: Vec<toml::Value>,
    /// Why this setting (what the paper leaves unstated).
    pub why: Option<String>,
    /// Seeds per point. Default 1.
    pub seeds: Option<u32>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    pub id: String,
    #[serde(rename = "where")]
    pub where_: String,
    #[serde(default)]
    pub says: String,
    #[serde(default)]
    pub status: Status,
    pub reason: Option<String>,
    pub scenario: Option<String>,
    #[serde(default)]
    pub schemes: Vec<String>,
    pub seeds: Option<u32>,
    pub metric: Option<String>,
    #[serde(default)]
    pub params: toml::Table,
    pub unit: Option<String>,
    #[serde(default)]
    pub paper: toml::Table,
    #[serde(default)]
    pub compare: Compare,
    pub baseline: Option<String>,
    /// For `lowest` / `highest`: the scheme the claim is about.
    pub subject: Option<String>,
    /// For `order`: "close" (default: names in one rank within 10% of each
    /// other) or "any" (names in one rank in any order).
    pub tie: Option<String>,
    #[serde(default)]
    pub order: Vec<Rank>,
    pub sweep: Option<Sweep>,
    pub unstated: Option<String>,
    pub chose: Option<String>,
    pub reduced: Option<Scale>,
    pub full: Option<Scale>,
    #[serde(default)]
    pub sensitivity: Vec<Sensitivity>,
    /// Draw the claim's chart among the paper's figures.
    #[serde(default)]
    pub figure: bool,
    /// One of the paper's headline claims (abstract, contributions,
    /// conclusion, main figures): listed first, in the headline table.
    #[serde(default)]
    pub headline: bool,
    /// The runs do not depend on the seed (fixed flows, no random paths):
    /// at full scale a headline claim then runs 2 seeds, which must give
    /// identical values, instead of the 5 that headline claims need.
    #[serde(default)]
    pub deterministic: bool,
    /// A result of the paper (default) or a set-up check.
    #[serde(default)]
    pub kind: Kind,
    /// One line: the measured cause of a miss (shown when the claim does not reproduce).
    pub cause: Option<String>,
    /// For `relative`: the paper's absolute values behind the changes, `{ scheme = value }`, judged too.
    #[serde(default)]
    pub absolute: toml::Table,
    /// The unit of `absolute` (as `unit`).
    pub absolute_unit: Option<String>,
}

/// A figure the paper draws, drawn from seed 1 of the runs.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Figure {
    pub id: String,
    #[serde(rename = "where")]
    pub where_: String,
    pub title: String,
    pub scenario: String,
    pub schemes: Vec<String>,
    pub kind: String,
    #[serde(default)]
    pub params: toml::Table,
    /// `bars`: the metric (also accepted inside `params`).
    pub metric: Option<String>,
    /// `--set` values for this figure's runs.
    #[serde(default)]
    pub set: toml::Table,
    /// Scale-specific changes (as for claims).
    pub reduced: Option<Scale>,
    pub full: Option<Scale>,
}

/// The figure kinds the report draws.
pub const FIGURE_KINDS: &[&str] = &[
    "slowdown_by_size",
    "slowdown_cdf",
    "fct_cdf",
    "queue_series",
    "utilization_series",
    "rate_series",
    "throughput_series",
    "window_series",
    "rtt_cdf",
    "bars",
];

/// Units a claim's paper values may be given in.
pub const UNITS: &[&str] =
    &["", "us", "ms", "s", "ns", "B", "KB", "MB", "GB", "pkts", "Gbps", "Mbps", "%", "x", "steps", "rtts"];

impl Figure {
    /// The metric and its parameters of a `bars` figure, wherever written.
    pub fn bars_metric(&self) -> Option<(String, toml::Table)> {
        let inner = self.params.get("params").and_then(|p| p.as_table()).cloned();
        let metric =
            self.metric.clone().or_else(|| self.params.get("metric").and_then(|m| m.as_str()).map(String::from))?;
        let params = inner.unwrap_or_else(|| {
            let mut p = self.params.clone();
            p.remove("metric");
            p
        });
        Some((metric, params))
    }
}

impl Claim {
    /// The scale's changes, if any.
    pub fn scale(&self, full: bool) -> Option<&Scale> {
        if full {
            self.full.as_ref()
        } else {
            self.reduced.as_ref()
        }
    }

    /// Metric parameters at a scale and sweep point (point 0 without a sweep).
    pub fn params_at(&self, full: bool, point: usize) -> toml::Table {
        let mut p = self.params.clone();
        let scale = self.scale(full).map(|s| &s.params);
        let per_point = self.sweep.as_ref().and_then(|s| s.params.get(point));
        for layer in [scale, per_point].into_iter().flatten() {
            for (k, v) in layer {
                p.insert(k.clone(), v.clone());
            }
        }
        p
    }

    /// The unit the metric's values are converted to: the claim's, except
    /// that a claim about changes in percent ("%" with `relative` or
    /// `sweep_relative`) compares the metric in its own unit, or in
    /// `absolute_unit` when the paper gives the values behind the changes.
    pub fn value_unit(&self) -> &str {
        let unit = self.unit.as_deref().unwrap_or("");
        if self.compare == Compare::Relative && !self.absolute.is_empty() {
            return self.absolute_unit.as_deref().unwrap_or("");
        }
        match self.compare {
            Compare::Relative | Compare::SweepRelative if unit == "%" => "",
            _ => unit,
        }
    }

    /// Number of points: sweep values, or 1.
    pub fn points(&self) -> usize {
        self.sweep.as_ref().map_or(1, |s| s.values.len())
    }
}

/// Reads `dir/manifest.toml`.
pub fn read(dir: &Path) -> Result<Manifest, String> {
    let path = dir.join("manifest.toml");
    let label = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{label}: cannot read: {e}"))?;
    let mut m: Manifest =
        toml::from_str(&text).map_err(|e| ccsim_scenario::tomlpath::format_toml_error(&label, &text, &e))?;
    m.dir = dir.to_path_buf();
    Ok(m)
}

/// Every paper folder under `root` (those with a manifest.toml), sorted.
pub fn papers(root: &Path) -> Result<Vec<String>, String> {
    let rd = std::fs::read_dir(root).map_err(|e| format!("{}: cannot list experiments: {e}", root.display()))?;
    let mut out: Vec<String> = rd
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("manifest.toml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    Ok(out)
}

impl Manifest {
    fn label(&self) -> String {
        self.dir.join("manifest.toml").display().to_string()
    }

    /// Checks everything that can be checked without simulating: claim
    /// ids, statuses, files, metric names and parameters, units, paper
    /// values against the compare mode, orders, sweeps and figures.
    /// Scheme names are checked against the scenarios when the plan loads them.
    pub fn check(&self) -> Result<(), String> {
        let label = self.label();
        if let Some(n) = self.defaults.seeds.filter(|&n| n == 0 || n > MAX_SEEDS) {
            return Err(format!("{label}: defaults.seeds = {n}: must be in 1..={MAX_SEEDS}"));
        }
        if self.paper.is_empty() || self.dir.file_name().is_some_and(|n| n.to_string_lossy() != self.paper) {
            return Err(format!("{label}: paper = \"{}\" must be the folder's name", self.paper));
        }
        let mut ids = BTreeSet::new();
        for c in &self.claims {
            let at = |key: &str, msg: &str| format!("{label}: claim '{}': {key}: {msg}", c.id);
            if c.id.is_empty()
                || !c.id.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' || ch == '.')
            {
                return Err(format!("{label}: claim id '{}': use letters, digits, '-', '_' and '.'", c.id));
            }
            if !ids.insert(c.id.clone()) {
                return Err(format!("{label}: claim id '{}' is used twice", c.id));
            }
            if c.status != Status::Run {
                if c.reason.as_deref().is_none_or(str::is_empty) {
                    return Err(at("reason", "a claim that is not run says why"));
                }
                if c.headline {
                    return Err(at("headline", "a headline claim is one that is run"));
                }
                continue;
            }
            let seed_counts = std::iter::once(("seeds", c.seeds))
                .chain(c.reduced.iter().map(|r| ("reduced.seeds", r.seeds)))
                .chain(c.full.iter().map(|r| ("full.seeds", r.seeds)))
                .chain(c.sensitivity.iter().map(|s| ("sensitivity.seeds", s.seeds)));
            for (key, n) in seed_counts {
                if let Some(n) = n.filter(|&n| n == 0 || n > MAX_SEEDS) {
                    return Err(at(key, &format!("{n}: must be in 1..={MAX_SEEDS}")));
                }
            }
            if c.headline && c.kind == Kind::Check {
                return Err(at("headline", "a check is not a headline result of the paper"));
            }
            if c.cause.as_deref().is_some_and(|t| t.trim().is_empty() || t.contains('\n')) {
                return Err(at("cause", "one line of text"));
            }
            let scenario = c.scenario.as_deref().ok_or_else(|| at("scenario", "missing"))?;
            self.check_file(scenario).map_err(|m| at("scenario", &m))?;
            for s in [&c.reduced, &c.full].into_iter().flatten() {
                if let Some(f) = &s.scenario {
                    self.check_file(f).map_err(|m| at("reduced/full.scenario", &m))?;
                }
            }
            if c.schemes.is_empty() {
                return Err(at("schemes", "name at least one scheme"));
            }
            let metric = c.metric.as_deref().ok_or_else(|| at("metric", "missing"))?;
            for full in [false, true] {
                for point in 0..c.points() {
                    metrics::check(metric, &c.params_at(full, point)).map_err(|m| at("params", &m))?;
                }
            }
            let unit = c.unit.as_deref().unwrap_or("");
            if !UNITS.contains(&unit) {
                return Err(at("unit", &format!("'{unit}' is not one of {}", UNITS.join(", "))));
            }
            metrics::convert(metrics::unit_of(metric, &c.params), c.value_unit(), 1.0, &c.params)
                .map_err(|m| at("unit", &m))?;
            if let Some(sw) = &c.sweep {
                if sw.values.is_empty() {
                    return Err(at("sweep.values", "empty"));
                }
                match (&sw.key, &sw.scenarios) {
                    (Some(_), None) => {}
                    (None, Some(files)) => {
                        if files.len() != sw.values.len() {
                            return Err(at("sweep.scenarios", "one file per value"));
                        }
                        for f in files {
                            self.check_file(f).map_err(|m| at("sweep.scenarios", &m))?;
                        }
                    }
                    _ => return Err(at("sweep", "give either `key` or `scenarios`")),
                }
                if !sw.params.is_empty() && sw.params.len() != sw.values.len() {
                    return Err(at("sweep.params", "one table per value"));
                }
            }
            self.check_paper(c).map_err(|m| at("paper", &m))?;
            for s in &c.sensitivity {
                if s.values.is_empty() {
                    return Err(at("sensitivity", &format!("{}: no values", s.key)));
                }
            }
        }
        let mut fids = BTreeSet::new();
        for f in &self.figures {
            let at = |key: &str, msg: &str| format!("{label}: figure '{}': {key}: {msg}", f.id);
            if !fids.insert(f.id.clone()) {
                return Err(format!("{label}: figure id '{}' is used twice", f.id));
            }
            if !FIGURE_KINDS.contains(&f.kind.as_str()) {
                return Err(at("kind", &format!("'{}' is not one of {}", f.kind, FIGURE_KINDS.join(", "))));
            }
            self.check_file(&f.scenario).map_err(|m| at("scenario", &m))?;
            if f.kind == "bars" {
                let (m, p) = f.bars_metric().ok_or_else(|| at("metric", "a bars figure names a metric"))?;
                metrics::check(&m, &p).map_err(|e| at("params", &e))?;
            }
        }
        Ok(())
    }

    fn check_file(&self, name: &str) -> Result<(), String> {
        let p = self.dir.join(name);
        if p.is_file() {
            Ok(())
        } else {
            Err(format!("{name}: no such file in {}", self.dir.display()))
        }
    }

    /// The paper values must fit the compare mode and name the claim's schemes.
    fn check_paper(&self, c: &Claim) -> Result<(), String> {
        let points = c.points();
        let number_or_list = |k: &str, v: &toml::Value, width: usize| -> Result<(), String> {
            let ok_num = |x: &toml::Value| x.as_float().is_some() || x.as_integer().is_some();
            match v {
                x if ok_num(x) && (points == 1 || width == 1) => Ok(()),
                toml::Value::Array(a) if a.len() == points && width == 1 && a.iter().all(ok_num) => Ok(()),
                toml::Value::Array(a) if width == 2 && a.len() == 2 && a.iter().all(ok_num) => Ok(()),
                toml::Value::Array(a)
                    if width == 2
                        && a.len() == points
                        && a.iter()
                            .all(|r| matches!(r, toml::Value::Array(b) if b.len() == 2 && b.iter().all(ok_num))) =>
                {
                    Ok(())
                }
                _ => Err(format!(
                    "{k} = {v}: expected {}",
                    match (width, points) {
                        (2, _) => "[lo, hi] (or one [lo, hi] per sweep value)".to_string(),
                        (_, 1) => "a number".to_string(),
                        (_, n) => format!("a number or a list of {n} numbers (one per sweep value)"),
                    }
                )),
            }
        };
        let scheme_known = |s: &str| -> Result<(), String> {
            if c.schemes.iter().any(|x| x == s) {
                Ok(())
            } else {
                Err(format!("'{s}' is not among the claim's schemes ({})", c.schemes.join(", ")))
            }
        };
        match c.compare {
            Compare::Order | Compare::SweepOrder => {
                if c.order.is_empty() {
                    return Err("compare = \"order\" needs `order = [...]` (lowest metric first)".into());
                }
                if c.compare == Compare::Order {
                    for r in &c.order {
                        for n in r.names() {
                            scheme_known(&n)?;
                        }
                    }
                }
                for (k, v) in &c.paper {
                    scheme_known(k)?;
                    number_or_list(k, v, 1)?;
                }
            }
            Compare::Record => {}
            Compare::Lowest | Compare::Highest => {
                let s = c.subject.as_deref().ok_or(format!("compare = \"{}\" needs `subject`", c.compare.name()))?;
                scheme_known(s)?;
                for (k, v) in &c.paper {
                    scheme_known(k)?;
                    number_or_list(k, v, 1)?;
                }
            }
            Compare::Relative => {
                if c.paper.is_empty() {
                    return Err("compare = \"relative\" needs paper values { \"a/b\" = percent }".into());
                }
                for (k, v) in &c.paper {
                    let (a, b) = k.split_once('/').ok_or_else(|| format!("{k}: a relative value is keyed \"a/b\""))?;
                    scheme_known(a)?;
                    scheme_known(b)?;
                    // a change or a range [lo, hi] of changes
                    number_or_list(k, v, 1).or_else(|e| if points == 1 { number_or_list(k, v, 2) } else { Err(e) })?;
                }
            }
            Compare::Band => {
                for (k, v) in &c.paper {
                    scheme_known(k)?;
                    number_or_list(k, v, 2)?;
                }
            }
            _ => {
                if c.paper.is_empty() {
                    return Err(format!("compare = \"{}\" needs paper values", c.compare.name()));
                }
                for (k, v) in &c.paper {
                    scheme_known(k)?;
                    number_or_list(k, v, 1)?;
                }
                if c.compare == Compare::SweepRelative && c.sweep.is_none() {
                    return Err("compare = \"sweep_relative\" needs a sweep".into());
                }
            }
        }
        if let Some(b) = &c.baseline {
            scheme_known(b)?;
        }
        if !c.absolute.is_empty() {
            if c.compare != Compare::Relative {
                return Err("`absolute` is for compare = \"relative\" (other modes take values in `paper`)".into());
            }
            let unit = c.absolute_unit.as_deref().ok_or("`absolute` needs `absolute_unit`")?;
            if !UNITS.contains(&unit) {
                return Err(format!("absolute_unit = '{unit}' is not one of {}", UNITS.join(", ")));
            }
            metrics::convert(metrics::unit_of(c.metric.as_deref().unwrap_or(""), &c.params), unit, 1.0, &c.params)
                .map_err(|m| format!("absolute_unit: {m}"))?;
            for (k, v) in &c.absolute {
                scheme_known(k).map_err(|e| format!("absolute: {e}"))?;
                number_or_list(k, v, 1).map_err(|e| format!("absolute: {e}"))?;
            }
        } else if c.absolute_unit.is_some() {
            return Err("`absolute_unit` without `absolute` values".into());
        }
        if let Some(t) = c.tie.as_deref().filter(|t| !matches!(*t, "close" | "any")) {
            return Err(format!("tie = \"{t}\": expected \"close\" or \"any\""));
        }
        Ok(())
    }
}
