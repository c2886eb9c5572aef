//! Measured against the paper: each claim's metric on each of its runs,
//! aggregated over seeds (mean, spread), converted to the claim's unit, and
//! judged by its compare mode. The rules (experiments/README.md):
//!
//! * direction: `absolute` with a baseline: every scheme on the baseline's
//!   side the paper puts it on (paper values within 2% of the baseline's are
//!   "equal" and pass when measured within 10%); without a baseline, every
//!   pair of schemes ranked as in the paper; `relative`: every change has the
//!   paper's sign; `order`: the ranking matches (ties within 10%); `band`,
//!   `at_most`, `at_least`: the value is in the range.
//! * within 2x: every measured value within a factor 2 of the paper's (a
//!   paper 0 needs a measured 0); for changes, the same sign and within a
//!   factor 2 (changes under 5 points in the paper: within 5 points).
//! * undefined values ("never") rank above every defined one and fail 2x.
//! * noise: a comparison of two measured values (scheme against scheme,
//!   against a bound, a change's sign) that flips between seeds, or whose
//!   difference is under 1% of the values (the reports' resolution), is a
//!   tie: the claim is "inconclusive at N seeds", neither passed nor failed.
//!   Seeds are paired (seed k of every scheme ran the same arrivals).
//!   Values identical in every seed are equal, not a tie.
//! * shares (unit "%" outside `relative`: utilization, fractions of flows)
//!   are within tolerance when within 5 points, or within 2x of the paper's
//!   distance to whichever of 0% and 100% is nearer.
//! * a `relative` claim with `absolute` values is judged on both: the
//!   changes, and each scheme's value within 2x of the paper's.

use std::collections::BTreeMap;

use crate::manifest::{Claim, Compare, Manifest};
use crate::metrics;
use crate::plan::{PointPlan, SeedRuns};

/// A metric's value on each seed's run (None: undefined; Err: the run or metric failed).
pub type SeedValues = Vec<Result<Option<f64>, String>>;

/// [`SeedValues`] per scheme.
pub type PerScheme = BTreeMap<String, SeedValues>;

/// Computes metric `name` with `params` on run `index` of the plan.
pub type MetricFn<'a> = dyn Fn(usize, &str, &toml::Table) -> Result<Option<f64>, String> + 'a;

/// A value over seeds, in the claim's unit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measured {
    pub mean: Option<f64>,
    pub std: f64,
    pub min: f64,
    pub max: f64,
    /// Seeds with a defined value.
    pub n: usize,
    /// Seeds whose value is undefined ("never", no flows in range).
    pub undefined: usize,
    /// Seeds whose run failed or whose metric could not be computed.
    pub errors: Vec<String>,
    /// The value of each seed, in seed order (None: undefined or failed).
    pub values: Vec<Option<f64>>,
}

impl Measured {
    pub fn of(values: &[Result<Option<f64>, String>]) -> Measured {
        let mut m = Measured::default();
        let mut v = Vec::new();
        for x in values {
            match x {
                Ok(Some(y)) => v.push(*y),
                Ok(None) => m.undefined += 1,
                Err(e) => m.errors.push(e.clone()),
            }
            m.values.push(x.as_ref().ok().copied().flatten());
        }
        m.n = v.len();
        if !v.is_empty() {
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            m.mean = Some(mean);
            m.std = (v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / v.len() as f64).sqrt();
            m.min = v.iter().cloned().fold(f64::INFINITY, f64::min);
            m.max = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        }
        m
    }

    /// A value per seed, of the given per-seed values (for rows computed from others).
    pub fn from_values(values: &[Option<f64>]) -> Measured {
        let v: Vec<Result<Option<f64>, String>> = values.iter().map(|x| Ok(*x)).collect();
        Measured::of(&v)
    }

    /// The 95% confidence interval of the seed mean (Student's t on the
    /// defined values); None under two seeds.
    pub fn interval(&self) -> Option<(f64, f64)> {
        interval_of(&self.values.iter().flatten().copied().collect::<Vec<_>>())
    }

    /// The mean for ranking: undefined ("never") above everything.
    fn rank_value(&self) -> f64 {
        if self.undefined > 0 && self.n == 0 {
            f64::INFINITY
        } else {
            self.mean.unwrap_or(f64::NAN)
        }
    }
}

/// Two-sided 95% quantiles of Student's t for 1..=30 degrees of freedom.
const T95: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
    2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/// The 95% confidence interval of the mean of `v` (sample standard
/// deviation, Student's t with n - 1 degrees of freedom); None under two values.
pub fn interval_of(v: &[f64]) -> Option<(f64, f64)> {
    let n = v.len();
    if n < 2 || v.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let mean = v.iter().sum::<f64>() / n as f64;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    let t = T95.get(n - 2).copied().unwrap_or(1.96);
    let half = t * (var / n as f64).sqrt();
    Some((mean - half, mean + half))
}

/// Yes / no / a tie within the noise / not applicable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    Yes,
    No,
    /// The answer flips between seeds or is under the resolution.
    Tie,
    /// Holds on the seed mean, but neither every seed holds nor the 95%
    /// interval of the mean lies on the right side: noise could carry it.
    Fragile,
    Na,
}

impl Check {
    /// All must hold: any No is No; else any tie is a tie; else any fragile is fragile.
    fn all(v: impl IntoIterator<Item = Check>) -> Check {
        let (mut yes, mut tie, mut fragile) = (false, false, false);
        for c in v {
            match c {
                Check::No => return Check::No,
                Check::Yes => yes = true,
                Check::Tie => tie = true,
                Check::Fragile => fragile = true,
                Check::Na => {}
            }
        }
        if tie {
            Check::Tie
        } else if fragile {
            Check::Fragile
        } else if yes {
            Check::Yes
        } else {
            Check::Na
        }
    }
    fn from(b: bool) -> Check {
        if b {
            Check::Yes
        } else {
            Check::No
        }
    }
    pub fn mark(self) -> &'static str {
        match self {
            Check::Yes => "yes",
            Check::No => "no",
            Check::Tie => "tie",
            Check::Fragile => "fragile",
            Check::Na => "-",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    Reproduced,
    DirectionOnly,
    NotReproduced,
    /// The direction is a tie within the noise across seeds.
    Inconclusive,
    /// Holds on the seed mean only: the 95% interval crosses a limit and
    /// some seed fails. Counted apart, never as reproduced.
    Fragile,
    /// The runs or the metric failed.
    Error,
    NotSimulable,
    NotAttempted,
    /// A `record` claim: measured, nothing to judge.
    Recorded,
}

impl Verdict {
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::DirectionOnly => "direction only",
            Verdict::NotReproduced => "not reproduced",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Fragile => "fragile",
            Verdict::Error => "error",
            Verdict::NotSimulable => "not simulable",
            Verdict::NotAttempted => "not attempted",
            Verdict::Recorded => "recorded",
        }
    }
}

/// The paper's value of a row.
#[derive(Clone, Debug, PartialEq)]
pub enum PaperValue {
    Number(f64),
    Range(f64, f64),
}

impl PaperValue {
    pub fn text(&self) -> String {
        match self {
            PaperValue::Number(x) => fmt_num(*x),
            PaperValue::Range(a, b) => format!("[{}, {}]", fmt_num(*a), fmt_num(*b)),
        }
    }
}

/// One compared quantity at one point: a scheme's value, or a change "a/b".
#[derive(Clone, Debug)]
pub struct Row {
    pub name: String,
    pub paper: Option<PaperValue>,
    pub measured: Measured,
}

#[derive(Clone, Debug)]
pub struct PointEval {
    pub x: Option<toml::Value>,
    pub rows: Vec<Row>,
    pub direction: Check,
    pub within2x: Check,
}

/// A sensitivity sweep's values: per setting value, per point, per scheme.
#[derive(Clone, Debug)]
pub struct SensitivityEval {
    pub key: String,
    pub values: Vec<toml::Value>,
    /// `rows[value][point]`: the schemes' measured values.
    pub rows: Vec<Vec<Vec<Row>>>,
}

#[derive(Clone, Debug)]
pub struct ClaimEval {
    pub claim: usize,
    pub points: Vec<PointEval>,
    pub direction: Check,
    pub within2x: Check,
    pub verdict: Verdict,
    /// Seeds per run point (the most of any point).
    pub seeds: usize,
    pub sensitivity: Vec<SensitivityEval>,
    /// Why it could not be judged.
    pub error: Option<String>,
}

/// A compact number: 3 significant digits, no exponent for usual sizes.
pub fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return "never".into();
    }
    let a = x.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-3..1e6).contains(&a) {
        format!("{x:.3e}")
    } else if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

fn num(v: &toml::Value) -> Option<f64> {
    v.as_float().or_else(|| v.as_integer().map(|i| i as f64))
}

/// The paper's value for `key` at point `i` of `points`.
fn paper_at(c: &Claim, key: &str, i: usize) -> Option<PaperValue> {
    let v = c.paper.get(key)?;
    let pair = |a: &toml::Value| -> Option<PaperValue> {
        let t = a.as_array()?;
        Some(PaperValue::Range(num(t.first()?)?, num(t.get(1)?)?))
    };
    let pair_here = c.compare == Compare::Band || (c.compare == Compare::Relative && c.points() == 1);
    if pair_here && v.as_array().is_some_and(|a| a.len() == 2 && a.iter().all(|x| num(x).is_some())) {
        return pair(v);
    }
    if c.compare == Compare::Band {
        return match v.as_array() {
            Some(a) if a.len() == 2 && a.iter().all(|x| num(x).is_some()) => pair(v),
            Some(a) => pair(a.get(i)?),
            None => None,
        };
    }
    match v {
        toml::Value::Array(a) => num(a.get(i)?).map(PaperValue::Number),
        x => num(x).map(PaperValue::Number),
    }
}

/// The paper's absolute value behind a relative claim, for scheme `s` at point `i`.
fn absolute_at(c: &Claim, s: &str, i: usize) -> Option<PaperValue> {
    match c.absolute.get(s)? {
        toml::Value::Array(a) => num(a.get(i)?).map(PaperValue::Number),
        x => num(x).map(PaperValue::Number),
    }
}

/// Computes a claim's metric on every run of a point, per scheme, in the claim's unit.
pub fn measure_point(
    c: &Claim,
    full: bool,
    point: usize,
    runs: &BTreeMap<String, SeedRuns>,
    value: &MetricFn,
) -> PerScheme {
    let metric = c.metric.as_deref().unwrap_or("");
    let params = c.params_at(full, point);
    let unit = c.value_unit();
    let from = metrics::unit_of(metric, &params);
    runs.iter()
        .map(|(scheme, seeds)| {
            let v = seeds
                .iter()
                .map(|&r| {
                    value(r, metric, &params)
                        .and_then(|x| x.map(|y| metrics::convert(from, unit, y, &params)).transpose())
                })
                .collect();
            (scheme.clone(), v)
        })
        .collect()
}

/// Per-seed change of a against b, in percent.
fn changes(a: &[Result<Option<f64>, String>], b: &[Result<Option<f64>, String>]) -> Vec<Result<Option<f64>, String>> {
    a.iter()
        .zip(b)
        .map(|(x, y)| match (x, y) {
            (Ok(Some(x)), Ok(Some(y))) if *y != 0.0 => Ok(Some((x - y) / y * 100.0)),
            (Ok(_), Ok(_)) => Ok(None),
            (Err(e), _) | (_, Err(e)) => Err(e.clone()),
        })
        .collect()
}

/// Rows of one point: the schemes' values, and for `relative` the changes.
fn rows_of(c: &Claim, i: usize, per: &PerScheme) -> Vec<Row> {
    let mut rows: Vec<Row> = c
        .schemes
        .iter()
        .map(|s| Row {
            name: s.clone(),
            paper: if c.compare == Compare::Relative { absolute_at(c, s, i) } else { paper_at(c, s, i) },
            measured: Measured::of(per.get(s).map(|v| v.as_slice()).unwrap_or(&[])),
        })
        .collect();
    if c.compare == Compare::Relative {
        for key in c.paper.keys() {
            let Some((a, b)) = key.split_once('/') else { continue };
            let (Some(va), Some(vb)) = (per.get(a), per.get(b)) else { continue };
            rows.push(Row { name: key.clone(), paper: paper_at(c, key, i), measured: Measured::of(&changes(va, vb)) });
        }
    }
    rows
}

/// Differences under this fraction of the larger value are under the
/// reports' resolution (3 significant digits): a tie, not an order.
const RESOLUTION: f64 = 0.01;

/// Changes (in percent) under this many points are a tie in sign.
const CHANGE_RESOLUTION: f64 = 1.0;

/// How one measured value compares with another, across seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cmp {
    Less,
    Greater,
    /// Identical in every seed.
    Equal,
    /// Below (above) on the mean only: some seed disagrees and the 95%
    /// interval of the paired difference spans zero.
    LeansLess,
    LeansGreater,
    /// Differs by less than the resolution, or flips between seeds around "never".
    Tie,
}

fn seed_cmp(x: f64, y: f64) -> Cmp {
    if x == y {
        Cmp::Equal
    } else if x.is_finite() && y.is_finite() && (x - y).abs() <= RESOLUTION * x.abs().max(y.abs()) {
        Cmp::Tie
    } else if x < y {
        Cmp::Less
    } else if x > y {
        Cmp::Greater
    } else {
        Cmp::Tie
    }
}

/// Compares `a` with `b`: seed by seed when both have the same seeds
/// (seed k of each ran the same arrivals), else by their means. "Never"
/// ranks above every value. Decided when every seed agrees, or when the
/// 95% interval of the paired differences excludes zero; otherwise it
/// only leans the mean's way.
fn compare(a: &Measured, b: &Measured) -> Cmp {
    let rank = |x: &Option<f64>| x.unwrap_or(f64::INFINITY);
    if a.values.len() == b.values.len() && a.values.len() > 1 {
        let per: Vec<Cmp> = a.values.iter().zip(&b.values).map(|(x, y)| seed_cmp(rank(x), rank(y))).collect();
        if per.iter().all(|c| *c == per[0]) {
            return per[0];
        }
        let pairs: Vec<(f64, f64)> = a.values.iter().zip(&b.values).map(|(x, y)| (rank(x), rank(y))).collect();
        if pairs.iter().any(|(x, y)| !x.is_finite() || !y.is_finite()) {
            return Cmp::Tie;
        }
        let d: Vec<f64> = pairs.iter().map(|(x, y)| x - y).collect();
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        let scale = (a.rank_value().abs()).max(b.rank_value().abs());
        if mean.abs() <= RESOLUTION * scale {
            return Cmp::Tie;
        }
        let decided = interval_of(&d).is_some_and(|(lo, hi)| lo > 0.0 || hi < 0.0);
        return match (mean < 0.0, decided) {
            (true, true) => Cmp::Less,
            (false, true) => Cmp::Greater,
            (true, false) => Cmp::LeansLess,
            (false, false) => Cmp::LeansGreater,
        };
    }
    seed_cmp(a.rank_value(), b.rank_value())
}

/// A strict comparison the paper states (`less`: a below b) against the measurement.
fn ordered(a: &Measured, b: &Measured, less: bool) -> Check {
    let lean = |right: bool| if right { Check::Fragile } else { Check::Tie };
    match compare(a, b) {
        Cmp::Less => Check::from(less),
        Cmp::Greater => Check::from(!less),
        Cmp::LeansLess => lean(less),
        Cmp::LeansGreater => lean(!less),
        Cmp::Equal => Check::No,
        Cmp::Tie => Check::Tie,
    }
}

/// Whether `m` lies in `[lo, hi]` over the seeds: yes when every seed does
/// or the 95% interval of the mean lies inside; no when no seed does or the
/// interval lies outside; otherwise fragile when the mean is inside, and a
/// tie when it is not.
fn in_range(m: &Measured, (lo, hi): (f64, f64)) -> Check {
    let Some(mean) = m.mean else { return Check::No };
    let inside = |x: f64| x >= lo && x <= hi;
    let seeds: Vec<f64> = m.values.iter().flatten().copied().collect();
    if seeds.iter().all(|&x| inside(x)) {
        return Check::Yes;
    }
    if seeds.iter().all(|&x| !inside(x)) {
        return Check::No;
    }
    match m.interval() {
        Some((a, b)) if a >= lo && b <= hi => Check::Yes,
        Some((a, b)) if b < lo || a > hi => Check::No,
        _ if inside(mean) => Check::Fragile,
        _ => Check::Tie,
    }
}

/// The tolerance around a share (a percentage of a whole, 0-100): within 5
/// points, or within 2x of the paper's distance to the nearer of 0 and 100.
fn share_range(p: f64) -> (f64, f64) {
    let (lo, hi) = if p <= 50.0 {
        within2_range(p)
    } else {
        let (a, b) = within2_range(100.0 - p);
        (100.0 - b, 100.0 - a)
    };
    (lo.min(p - 5.0), hi.max(p + 5.0))
}

/// A bound `x` relaxed by the tolerance (`upper`: an upper bound).
fn relax(x: f64, upper: bool, share: bool) -> f64 {
    if !share {
        return if upper == (x >= 0.0) { x * 2.0 } else { x / 2.0 };
    }
    let factor = if upper {
        if x < 50.0 {
            x * 2.0
        } else {
            100.0 - (100.0 - x) / 2.0
        }
    } else if x > 50.0 {
        100.0 - (100.0 - x) * 2.0
    } else {
        x / 2.0
    };
    if upper {
        factor.max(x + 5.0)
    } else {
        factor.min(x - 5.0)
    }
}

/// Within a factor 2 of `p` (a paper 0 needs a measured 0).
fn within2_range(p: f64) -> (f64, f64) {
    if p == 0.0 {
        (-1e-9, 1e-9)
    } else {
        let (a, b) = (p * 0.5, p * 2.0);
        (a.min(b), a.max(b))
    }
}

/// Within tolerance of a change `p` in percent: the same sign and within a
/// factor 2, or within 5 points of a paper change under 5 points.
fn change_range(p: f64) -> (f64, f64) {
    if p.abs() < 5.0 {
        (p - 5.0, p + 5.0)
    } else {
        within2_range(p)
    }
}

/// Whether measured changes (per seed, in percent) have the paper's sign
/// `p` over the seeds ([`in_range`]); a tie when the mean change is under a
/// point. Paper changes under 5 points are compared as differences (within 5).
fn change_direction(p: f64, m: &Measured) -> Check {
    let Some(mean) = m.mean else { return Check::No };
    if p.abs() < 5.0 {
        return in_range(m, (p - 5.0, p + 5.0));
    }
    if mean.abs() < CHANGE_RESOLUTION {
        return Check::Tie;
    }
    let side = if p > 0.0 { (f64::MIN_POSITIVE, f64::INFINITY) } else { (f64::NEG_INFINITY, -f64::MIN_POSITIVE) };
    in_range(m, side)
}

/// Whether measured `mi`, `mj` are ordered as paper `pi`, `pj` (paper
/// values within 2% are "equal": measured within 10% then holds).
fn same_side(pi: f64, pj: f64, mi: &Measured, mj: &Measured) -> Check {
    if (pi - pj).abs() <= 0.02 * pj.abs().max(pi.abs()) {
        let (a, b) = (mi.rank_value(), mj.rank_value());
        Check::from((a - b).abs() <= 0.1 * b.abs().max(a.abs()) || (a.is_infinite() && b.is_infinite()))
    } else if pi.is_nan() || pj.is_nan() {
        Check::No
    } else {
        ordered(mi, mj, pi < pj)
    }
}

fn by_name<'a>(rows: &'a [Row], n: &str) -> Option<&'a Row> {
    rows.iter().find(|r| r.name == n)
}

/// Direction and 2x of one point.
fn judge_point(c: &Claim, rows: &[Row]) -> (Check, Check) {
    let num_of = |r: &Row| match r.paper {
        Some(PaperValue::Number(x)) => Some(x),
        _ => None,
    };
    let with_paper: Vec<&Row> = rows.iter().filter(|r| r.paper.is_some()).collect();
    let share = c.unit.as_deref() == Some("%") && !matches!(c.compare, Compare::Relative | Compare::SweepRelative);
    let tolerance = |p: f64| if share { share_range(p) } else { within2_range(p) };
    let values_x2 = || {
        Check::all(with_paper.iter().filter(|r| !r.name.contains('/')).map(|r| match num_of(r) {
            Some(p) => in_range(&r.measured, tolerance(p)),
            None => Check::No,
        }))
    };
    match c.compare {
        Compare::Absolute => {
            let x2 = values_x2();
            let dir = match c.baseline.as_deref().and_then(|b| by_name(rows, b)) {
                Some(b) => match num_of(b) {
                    Some(pb) => Check::all(
                        with_paper
                            .iter()
                            .filter(|r| r.name != b.name)
                            .map(|r| same_side(num_of(r).unwrap_or(f64::NAN), pb, &r.measured, &b.measured)),
                    ),
                    None => Check::Na,
                },
                None => {
                    let mut checks = Vec::new();
                    for (i, a) in with_paper.iter().enumerate() {
                        for b in &with_paper[i + 1..] {
                            let (pa, pb) = (num_of(a).unwrap_or(f64::NAN), num_of(b).unwrap_or(f64::NAN));
                            checks.push(same_side(pa, pb, &a.measured, &b.measured));
                        }
                    }
                    Check::all(checks)
                }
            };
            (dir, x2)
        }
        Compare::Relative => {
            let changes: Vec<&Row> = rows.iter().filter(|r| r.name.contains('/')).collect();
            let direction = |r: &Row| -> Check {
                match r.paper {
                    Some(PaperValue::Number(p)) => change_direction(p, &r.measured),
                    // a range of changes: the range's sign, or in it when it spans zero
                    Some(PaperValue::Range(a, b)) => {
                        let (lo, hi) = (a.min(b), a.max(b));
                        if lo > 0.0 {
                            change_direction(1e9, &r.measured)
                        } else if hi < 0.0 {
                            change_direction(-1e9, &r.measured)
                        } else {
                            in_range(&r.measured, (lo, hi))
                        }
                    }
                    None => Check::No,
                }
            };
            // 2x: the change within a factor 2 (a range widened by 2 away from 0)
            let close = |r: &Row| -> Check {
                match r.paper {
                    Some(PaperValue::Number(p)) => in_range(&r.measured, change_range(p)),
                    Some(PaperValue::Range(a, b)) => {
                        let (lo, hi) = (a.min(b), a.max(b));
                        in_range(&r.measured, (relax(lo, false, false), relax(hi, true, false)))
                    }
                    None => Check::No,
                }
            };
            let dir = Check::all(changes.iter().map(|r| direction(r)));
            // the absolute values behind the changes, when the paper gives them
            let x2 = Check::all(changes.iter().map(|r| close(r)).chain([values_x2()]));
            (dir, x2)
        }
        Compare::Order => {
            let x2 = values_x2();
            let ranks: Vec<Vec<String>> = c.order.iter().map(|r| r.names()).collect();
            let any = c.tie.as_deref() == Some("any");
            (order_holds(&ranks, any, &|n| by_name(rows, n).map(|r| r.measured.clone())), x2)
        }
        Compare::Band | Compare::AtMost | Compare::AtLeast => {
            // the range or bound as the paper gives it, or relaxed by the tolerance
            let range = |r: &Row, relaxed: bool| -> Option<(f64, f64)> {
                let lo = |x: f64| if relaxed { relax(x, false, share) } else { x };
                let hi = |x: f64| if relaxed { relax(x, true, share) } else { x };
                match (&r.paper, c.compare) {
                    (Some(PaperValue::Range(a, b)), _) => Some((lo(*a), hi(*b))),
                    (Some(PaperValue::Number(x)), Compare::AtMost) => Some((f64::NEG_INFINITY, hi(*x))),
                    (Some(PaperValue::Number(x)), Compare::AtLeast) => Some((lo(*x), f64::INFINITY)),
                    _ => None,
                }
            };
            let dir = Check::all(with_paper.iter().map(|r| match range(r, false) {
                Some(band) => in_range(&r.measured, band),
                None => Check::No,
            }));
            let x2 = Check::all(with_paper.iter().map(|r| match range(r, true) {
                Some(band) => in_range(&r.measured, band),
                None => Check::No,
            }));
            (dir, x2)
        }
        Compare::Lowest | Compare::Highest => {
            let x2 = values_x2();
            let Some(subject) = c.subject.as_deref().and_then(|s| by_name(rows, s)) else { return (Check::No, x2) };
            let others = rows.iter().filter(|r| r.name != subject.name && c.schemes.contains(&r.name));
            let dir = Check::all(others.map(|r| ordered(&subject.measured, &r.measured, c.compare == Compare::Lowest)));
            (dir, x2)
        }
        // judged across points, or not at all
        Compare::SweepRelative | Compare::SweepOrder | Compare::Record => (Check::Na, Check::Na),
    }
}

/// Whether measured values (by name) rank as `ranks` (lowest first; names
/// in one rank are equal: within 10% of each other, unless `any_tie`).
/// Between ranks, a difference within the noise is a tie.
fn order_holds(ranks: &[Vec<String>], any_tie: bool, value: &dyn Fn(&str) -> Option<Measured>) -> Check {
    let mut checks = Vec::new();
    for (i, ri) in ranks.iter().enumerate() {
        for a in ri {
            let Some(ma) = value(a) else { return Check::No };
            let va = ma.rank_value();
            for b in ri.iter().filter(|_| !any_tie) {
                if let Some(vb) = value(b).map(|m| m.rank_value()) {
                    checks.push(Check::from((va - vb).abs() <= 0.1 * va.abs().max(vb.abs()) || va == vb));
                }
            }
            for rj in &ranks[i + 1..] {
                for b in rj {
                    let Some(mb) = value(b) else { return Check::No };
                    checks.push(ordered(&ma, &mb, true));
                }
            }
        }
    }
    Check::all(checks)
}

/// Judges a claim from its points' per-scheme values.
pub fn judge(c: &Claim, points: Vec<(Option<toml::Value>, PerScheme)>) -> (Vec<PointEval>, Check, Check) {
    let mut out = Vec::new();
    for (i, (x, per)) in points.iter().enumerate() {
        let rows = rows_of(c, i, per);
        let (d, w) = judge_point(c, &rows);
        out.push(PointEval { x: x.clone(), rows, direction: d, within2x: w });
    }
    match c.compare {
        Compare::SweepRelative => sweep_relative(c, &mut out),
        Compare::SweepOrder => {
            let ranks: Vec<Vec<String>> = c.order.iter().map(|r| r.names()).collect();
            let dir = Check::all(c.schemes.iter().map(|s| {
                order_holds(&ranks, c.tie.as_deref() == Some("any"), &|v| {
                    let i =
                        out.iter().position(|p| p.x.as_ref().map(crate::manifest::value_text).as_deref() == Some(v))?;
                    by_name(&out[i].rows, s).map(|r| r.measured.clone())
                })
            }));
            (out, dir, Check::Na)
        }
        _ => {
            let d = Check::all(out.iter().map(|p| p.direction));
            let w = Check::all(out.iter().map(|p| p.within2x));
            (out, d, w)
        }
    }
}

/// Along a sweep: each scheme's change against its own first point, in
/// percent, as rows "scheme@x"; judged like relative changes.
fn sweep_relative(c: &Claim, out: &mut [PointEval]) -> (Vec<PointEval>, Check, Check) {
    let mut dirs = Vec::new();
    let mut x2s = Vec::new();
    let first: BTreeMap<String, Measured> =
        out.first().map(|p| p.rows.iter().map(|r| (r.name.clone(), r.measured.clone())).collect()).unwrap_or_default();
    for (i, p) in out.iter_mut().enumerate().skip(1) {
        let mut extra = Vec::new();
        for s in &c.schemes {
            let Some(PaperValue::Number(pv)) = paper_at(c, s, i) else { continue };
            let (Some(here), Some(base)) = (by_name(&p.rows, s), first.get(s)) else { continue };
            // per seed: seed k's change against seed k's first point
            let change = if here.measured.values.len() == base.values.len() {
                let per: Vec<Option<f64>> = here
                    .measured
                    .values
                    .iter()
                    .zip(&base.values)
                    .map(|(m, b)| match (m, b) {
                        (Some(m), Some(b)) if *b != 0.0 => Some((m - b) / b * 100.0),
                        _ => None,
                    })
                    .collect();
                Measured::from_values(&per)
            } else {
                let c = match (here.measured.mean, base.mean) {
                    (Some(m), Some(b)) if b != 0.0 => Some((m - b) / b * 100.0),
                    _ => None,
                };
                Measured::from_values(&[c])
            };
            dirs.push(change_direction(pv, &change));
            x2s.push(in_range(&change, change_range(pv)));
            extra.push(Row { name: format!("{s} change"), paper: Some(PaperValue::Number(pv)), measured: change });
        }
        p.rows.extend(extra);
        p.direction = Check::all(dirs.iter().copied());
        p.within2x = Check::all(x2s.iter().copied());
    }
    // scheme rows keep no paper value under sweep_relative (it is for changes)
    for p in out.iter_mut() {
        for r in p.rows.iter_mut().filter(|r| !r.name.ends_with(" change")) {
            r.paper = None;
        }
    }
    (out.to_vec(), Check::all(dirs), Check::all(x2s))
}

/// The verdict from the two checks.
pub fn verdict(direction: Check, within2x: Check) -> Verdict {
    match (direction, within2x) {
        (Check::No, _) => Verdict::NotReproduced,
        // a direction within the noise: more seeds may decide it, unless the
        // size is off whatever the direction
        (Check::Tie, Check::No) => Verdict::NotReproduced,
        (Check::Tie, _) => Verdict::Inconclusive,
        (_, Check::Tie) => Verdict::Inconclusive,
        (Check::Yes | Check::Fragile, Check::No) => Verdict::DirectionOnly,
        (Check::Na, Check::No) => Verdict::NotReproduced,
        (Check::Na, Check::Na) => Verdict::Error,
        // holds on the mean only: noise could carry it
        (Check::Fragile, _) | (_, Check::Fragile) => Verdict::Fragile,
        _ => Verdict::Reproduced,
    }
}

/// Rows of a claim declared `deterministic` whose seeds gave different values.
fn seed_dependence(points: &[PointEval]) -> Vec<String> {
    points
        .iter()
        .flat_map(|p| &p.rows)
        .filter(|r| r.measured.values.windows(2).any(|w| w[0] != w[1]))
        .map(|r| {
            let v: Vec<String> = r.measured.values.iter().map(|x| x.map_or("-".into(), fmt_num)).collect();
            format!(
                "declared deterministic, but {} differs between seeds ({}): drop `deterministic` to run {} seeds",
                r.name,
                v.join(", "),
                crate::plan::HEADLINE_SEEDS
            )
        })
        .collect()
}

/// Evaluates every planned claim of a paper; `value(run, metric, params)`
/// computes a metric on a run (from the cache).
pub fn evaluate(m: &Manifest, claims: &[crate::plan::ClaimPlan], full: bool, value: &MetricFn) -> Vec<ClaimEval> {
    claims
        .iter()
        .map(|cp| {
            let c = &m.claims[cp.claim];
            if let Some(e) = &cp.error {
                return ClaimEval {
                    claim: cp.claim,
                    points: vec![],
                    direction: Check::Na,
                    within2x: Check::Na,
                    verdict: Verdict::Error,
                    seeds: 0,
                    sensitivity: vec![],
                    error: Some(e.clone()),
                };
            }
            let measure = |pts: &[PointPlan]| -> Vec<_> {
                pts.iter().enumerate().map(|(i, p)| (p.x.clone(), measure_point(c, full, i, &p.runs, value))).collect()
            };
            let (points, direction, within2x) = judge(c, measure(&cp.points));
            let errors: Vec<String> =
                points.iter().flat_map(|p| p.rows.iter().flat_map(|r| r.measured.errors.clone())).collect();
            let sensitivity = cp
                .sensitivity
                .iter()
                .map(|s| SensitivityEval {
                    key: s.key.clone(),
                    values: s.values.clone(),
                    rows: s
                        .points
                        .iter()
                        .map(|pts| measure(pts).iter().enumerate().map(|(i, (_, per))| rows_of(c, i, per)).collect())
                        .collect(),
                })
                .collect();
            let mut errors = errors;
            if c.deterministic {
                errors.extend(seed_dependence(&points));
            }
            let (verdict, error) = if errors.is_empty() {
                (if c.compare == Compare::Record { Verdict::Recorded } else { verdict(direction, within2x) }, None)
            } else {
                let mut e = errors;
                e.dedup();
                (Verdict::Error, Some(e.join("; ")))
            };
            let seeds = cp.points.iter().flat_map(|p| p.runs.values().map(|r| r.len())).max().unwrap_or(0);
            ClaimEval { claim: cp.claim, points, direction, within2x, verdict, seeds, sensitivity, error }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A claim from manifest text (only the judging keys matter).
    fn claim(extra: &str) -> Claim {
        let text = format!("id = \"c\"\nwhere = \"x\"\nscenario = \"s.toml\"\nmetric = \"fct\"\n{extra}");
        toml::from_str(&text).unwrap()
    }

    type Per = BTreeMap<String, Vec<Result<Option<f64>, String>>>;

    fn per(v: &[(&str, &[f64])]) -> Per {
        v.iter()
            .map(|(k, xs)| (k.to_string(), xs.iter().map(|&x| Ok(if x.is_nan() { None } else { Some(x) })).collect()))
            .collect()
    }

    fn judged(c: &Claim, p: Per) -> (Check, Check) {
        let (_, d, w) = judge(c, vec![(None, p)]);
        (d, w)
    }

    #[test]
    fn absolute_with_a_baseline() {
        let c = claim("schemes = [\"a\", \"b\", \"c\"]\npaper = { a = 300, b = 330, c = 346 }\nbaseline = \"b\"");
        assert_eq!(judged(&c, per(&[("a", &[308.0]), ("b", &[316.0]), ("c", &[329.0])])), (Check::Yes, Check::Yes));
        // c below the baseline while the paper puts it above
        assert_eq!(judged(&c, per(&[("a", &[308.0]), ("b", &[316.0]), ("c", &[310.0])])).0, Check::No);
        // more than 2x off
        assert_eq!(judged(&c, per(&[("a", &[100.0]), ("b", &[316.0]), ("c", &[329.0])])), (Check::Yes, Check::No));
        // "never" is above everything
        assert_eq!(judged(&c, per(&[("a", &[308.0]), ("b", &[316.0]), ("c", &[f64::NAN])])), (Check::Yes, Check::No));
    }

    #[test]
    fn relative_changes_per_seed() {
        let c = claim("schemes = [\"a\", \"b\"]\ncompare = \"relative\"\npaper = { \"a/b\" = -40 }");
        // seeds: -50% and -30% -> mean -40%
        assert_eq!(judged(&c, per(&[("a", &[50.0, 70.0]), ("b", &[100.0, 100.0])])), (Check::Yes, Check::Yes));
        assert_eq!(judged(&c, per(&[("a", &[90.0]), ("b", &[100.0])])), (Check::Yes, Check::No));
        assert_eq!(judged(&c, per(&[("a", &[110.0]), ("b", &[100.0])])), (Check::No, Check::No));
        // a change of under 5 points in the paper is compared as a difference
        let small = claim("schemes = [\"a\", \"b\"]\ncompare = \"relative\"\npaper = { \"a/b\" = 2 }");
        assert_eq!(judged(&small, per(&[("a", &[98.0]), ("b", &[100.0])])), (Check::Yes, Check::Yes));
        assert_eq!(judged(&small, per(&[("a", &[110.0]), ("b", &[100.0])])), (Check::No, Check::No));
    }

    #[test]
    fn order_with_ties_and_never() {
        let c = claim("schemes = [\"a\", \"b\", \"c\"]\ncompare = \"order\"\norder = [\"a\", [\"b\", \"c\"]]");
        assert_eq!(judged(&c, per(&[("a", &[1.0]), ("b", &[5.0]), ("c", &[5.2])])).0, Check::Yes);
        assert_eq!(judged(&c, per(&[("a", &[1.0]), ("b", &[5.0]), ("c", &[9.0])])).0, Check::No, "not a tie");
        assert_eq!(judged(&c, per(&[("a", &[6.0]), ("b", &[5.0]), ("c", &[5.0])])).0, Check::No);
        let c = claim("schemes = [\"a\", \"b\"]\ncompare = \"order\"\norder = [\"a\", \"b\"]");
        assert_eq!(judged(&c, per(&[("a", &[7.0]), ("b", &[f64::NAN])])).0, Check::Yes, "never ranks last");
        assert_eq!(judged(&c, per(&[("a", &[0.0]), ("b", &[0.0])])).0, Check::No, "a tie is not an order");
    }

    #[test]
    fn bands_and_bounds() {
        let c = claim("schemes = [\"a\"]\ncompare = \"band\"\npaper = { a = [100, 200] }");
        assert_eq!(judged(&c, per(&[("a", &[150.0])])), (Check::Yes, Check::Yes));
        assert_eq!(judged(&c, per(&[("a", &[275.0])])), (Check::No, Check::Yes));
        assert_eq!(judged(&c, per(&[("a", &[450.0])])), (Check::No, Check::No));
        let c = claim("schemes = [\"a\"]\ncompare = \"at_most\"\npaper = { a = 25 }");
        assert_eq!(judged(&c, per(&[("a", &[13.0])])), (Check::Yes, Check::Yes));
        assert_eq!(judged(&c, per(&[("a", &[33.0])])), (Check::No, Check::Yes));
        let c = claim("schemes = [\"a\"]\ncompare = \"at_least\"\npaper = { a = 0.9 }");
        assert_eq!(judged(&c, per(&[("a", &[0.95])])), (Check::Yes, Check::Yes));
    }

    #[test]
    fn sweeps_judge_every_point() {
        let c = claim("schemes = [\"a\"]\npaper = { a = [10, 20] }\nsweep = { key = \"k\", values = [1, 2] }");
        let pts = |x: f64, y: f64| vec![(Some(1.into()), per(&[("a", &[x])])), (Some(2.into()), per(&[("a", &[y])]))];
        assert_eq!(judge(&c, pts(12.0, 18.0)).2, Check::Yes);
        assert_eq!(judge(&c, pts(12.0, 50.0)).2, Check::No);
        let c = claim("schemes = [\"a\"]\ncompare = \"sweep_relative\"\npaper = { a = [0, 100] }\nsweep = { key = \"k\", values = [1, 2] }");
        let (_, d, w) = judge(&c, pts(10.0, 19.0));
        assert_eq!((d, w), (Check::Yes, Check::Yes));
        let c = claim(
            "schemes = [\"a\"]\ncompare = \"sweep_order\"\norder = [2, 1]\nsweep = { key = \"k\", values = [1, 2] }",
        );
        assert_eq!(judge(&c, pts(10.0, 5.0)).1, Check::Yes);
        assert_eq!(judge(&c, pts(10.0, 15.0)).1, Check::No);
    }

    #[test]
    fn lowest_and_highest() {
        let c = claim("schemes = [\"a\", \"b\", \"c\"]\ncompare = \"lowest\"\nsubject = \"a\"");
        assert_eq!(judged(&c, per(&[("a", &[1.0]), ("b", &[9.0]), ("c", &[5.0])])), (Check::Yes, Check::Na));
        assert_eq!(judged(&c, per(&[("a", &[6.0]), ("b", &[9.0]), ("c", &[5.0])])).0, Check::No);
        let c = claim("schemes = [\"a\", \"b\"]\ncompare = \"highest\"\nsubject = \"a\"\npaper = { a = 10 }");
        assert_eq!(judged(&c, per(&[("a", &[12.0]), ("b", &[9.0])])), (Check::Yes, Check::Yes));
    }

    #[test]
    fn a_ranking_that_flips_between_seeds_is_not_a_result() {
        let c = claim("schemes = [\"a\", \"b\"]\ncompare = \"order\"\norder = [\"a\", \"b\"]");
        // a below b in two seeds, above in the third: the mean leans the
        // paper's way but the interval of the paired differences spans 0
        let flips = per(&[("a", &[2.0, 2.0, 3.0]), ("b", &[2.5, 2.5, 2.5])]);
        assert_eq!(judged(&c, flips.clone()).0, Check::Fragile);
        // the other way round: the mean leans against the paper, a tie
        let against = per(&[("a", &[3.0, 3.0, 2.0]), ("b", &[2.5, 2.5, 2.5])]);
        assert_eq!(judged(&c, against).0, Check::Tie);
        // every seed agrees: decided, whatever the spread of the values
        assert_eq!(judged(&c, per(&[("a", &[1.0, 5.0, 9.0]), ("b", &[1.5, 6.0, 9.5])])).0, Check::Yes);
        assert_eq!(judged(&c, per(&[("a", &[1.5, 6.0, 9.5]), ("b", &[1.0, 5.0, 9.0])])).0, Check::No);
        // one seed, under the 1% resolution: a tie; identical: equal, so the order fails
        assert_eq!(judged(&c, per(&[("a", &[117.2]), ("b", &[117.0])])).0, Check::Tie);
        assert_eq!(judged(&c, per(&[("a", &[117.0]), ("b", &[117.0])])).0, Check::No);
        let (_, d, w) = judge(&c, vec![(None, flips)]);
        assert_eq!(verdict(d, w), Verdict::Fragile);
        // one seed of five disagrees but the paired differences' interval excludes 0: decided
        let mostly = per(&[("a", &[2.0, 2.1, 1.9, 2.0, 2.55]), ("b", &[2.5, 2.6, 2.4, 2.5, 2.5])]);
        assert_eq!(judged(&c, mostly).0, Check::Yes);
    }

    #[test]
    fn a_change_whose_sign_flips_is_not_a_result() {
        let c = claim("schemes = [\"a\", \"b\"]\ncompare = \"relative\"\npaper = { \"a/b\" = -40 }");
        // -40% and +10% per seed: the sign flips
        let (d, w) = judged(&c, per(&[("a", &[60.0, 110.0]), ("b", &[100.0, 100.0])]));
        // the mean -15% leans the paper's way; its size is out of 2x on the mean but one seed is in
        assert_eq!((d, w, verdict(d, w)), (Check::Fragile, Check::Tie, Verdict::Inconclusive));
        let (d, w) = judged(&c, per(&[("a", &[30.0, 105.0]), ("b", &[100.0, 100.0])]));
        assert_eq!((d, w, verdict(d, w)), (Check::Fragile, Check::Fragile, Verdict::Fragile));
        // every seed against the paper's sign: a miss
        let (d, w) = judged(&c, per(&[("a", &[110.0, 105.0]), ("b", &[100.0, 100.0])]));
        assert_eq!((d, verdict(d, w)), (Check::No, Verdict::NotReproduced));
        // -0.5% in every seed: under a point
        assert_eq!(judged(&c, per(&[("a", &[99.5, 99.5]), ("b", &[100.0, 100.0])])).0, Check::Tie);
    }

    #[test]
    fn lowest_and_baselines_respect_the_noise() {
        let c = claim("schemes = [\"a\", \"b\"]\ncompare = \"lowest\"\nsubject = \"a\"");
        assert_eq!(judged(&c, per(&[("a", &[1.0, 3.0]), ("b", &[2.0, 2.0])])).0, Check::Tie);
        let c = claim("schemes = [\"a\", \"b\"]\npaper = { a = 10, b = 20 }\nbaseline = \"b\"");
        assert_eq!(judged(&c, per(&[("a", &[10.0, 30.0]), ("b", &[20.0, 20.0])])).0, Check::Tie);
        assert_eq!(judged(&c, per(&[("a", &[10.0, 15.0]), ("b", &[20.0, 20.0])])).0, Check::Yes);
    }

    #[test]
    fn a_bound_the_seeds_straddle_is_fragile_or_a_tie() {
        let c = claim("schemes = [\"a\"]\ncompare = \"at_most\"\npaper = { a = 25 }");
        assert_eq!(judged(&c, per(&[("a", &[20.0, 29.0])])).0, Check::Fragile, "mean 24.5 holds, one seed fails");
        assert_eq!(judged(&c, per(&[("a", &[21.0, 30.0])])).0, Check::Tie, "mean 25.5 fails, one seed holds");
        assert_eq!(judged(&c, per(&[("a", &[20.0, 24.0])])).0, Check::Yes);
        assert_eq!(judged(&c, per(&[("a", &[26.0, 30.0])])).0, Check::No);
        // one seed of five over the bound, the 95% interval of the mean under it: holds
        let v = [20.0, 21.0, 22.0, 20.0, 26.0];
        let (lo, hi) = interval_of(&v).unwrap();
        assert!(lo > 18.0 && hi < 25.0, "{lo} {hi}");
        assert_eq!(judged(&c, per(&[("a", &v)])).0, Check::Yes);
    }

    #[test]
    fn the_interval_is_students_t_on_the_sample_deviation() {
        let (lo, hi) = interval_of(&[1.0, 2.0, 3.0]).unwrap();
        // mean 2, s = 1, t(2) = 4.303: 2 +- 4.303 / sqrt(3)
        assert!((hi - 2.0 - 4.303 / 3f64.sqrt()).abs() < 1e-9 && (lo + hi - 4.0).abs() < 1e-9);
        assert_eq!(interval_of(&[5.0]), None);
        assert_eq!(interval_of(&[5.0, 5.0]), Some((5.0, 5.0)));
    }

    #[test]
    fn a_pass_by_a_margin_the_seeds_do_not_carry_is_fragile() {
        // the paper's -58%: within 2x down to -29%. Five seeds averaging
        // -29.9% with a spread of several points: holds on the mean only.
        let c = claim("schemes = [\"a\", \"b\"]\ncompare = \"relative\"\npaper = { \"a/b\" = -58 }");
        let a = [64.0, 76.0, 70.0, 62.0, 78.5];
        let (d, w) = judged(&c, per(&[("a", &a), ("b", &[100.0; 5])]));
        assert_eq!((d, w, verdict(d, w)), (Check::Yes, Check::Fragile, Verdict::Fragile));
        // the same mean with a tight spread: every seed holds, reproduced
        let a = [70.0, 70.2, 70.1, 70.0, 70.2];
        let (d, w) = judged(&c, per(&[("a", &a), ("b", &[100.0; 5])]));
        assert_eq!(verdict(d, w), Verdict::Reproduced);
        // one seed: nothing to interval, the seed decides
        let (d, w) = judged(&c, per(&[("a", &[70.5]), ("b", &[100.0])]));
        assert_eq!(verdict(d, w), Verdict::Reproduced);
    }

    #[test]
    fn a_deterministic_claim_whose_seeds_differ_is_an_error() {
        let row = |v: &[f64]| Row {
            name: "a".into(),
            paper: None,
            measured: Measured::from_values(&v.iter().map(|x| Some(*x)).collect::<Vec<_>>()),
        };
        let point = |v: &[f64]| PointEval { x: None, rows: vec![row(v)], direction: Check::Yes, within2x: Check::Yes };
        assert!(seed_dependence(&[point(&[3.0, 3.0])]).is_empty());
        let e = seed_dependence(&[point(&[3.0, 3.5])]);
        assert!(e.len() == 1 && e[0].contains("a differs between seeds (3.00, 3.50)"), "{e:?}");
    }

    #[test]
    fn shares_are_judged_in_points_and_distance_to_the_whole() {
        let c = claim("schemes = [\"a\"]\nunit = \"%\"\npaper = { a = 90 }");
        assert_eq!(judged(&c, per(&[("a", &[45.0])])).1, Check::No, "2x of 90% is not a tolerance");
        assert_eq!(judged(&c, per(&[("a", &[86.0])])).1, Check::Yes, "within 5 points");
        assert_eq!(judged(&c, per(&[("a", &[81.0])])).1, Check::Yes, "19% idle vs 10%: within 2x");
        assert_eq!(judged(&c, per(&[("a", &[75.0])])).1, Check::No, "25% idle vs 10%");
        let c = claim("schemes = [\"a\"]\nunit = \"%\"\npaper = { a = 10 }");
        assert_eq!(judged(&c, per(&[("a", &[19.0])])).1, Check::Yes);
        assert_eq!(judged(&c, per(&[("a", &[30.0])])).1, Check::No);
        let c = claim("schemes = [\"a\"]\nunit = \"%\"\ncompare = \"at_least\"\npaper = { a = 90 }");
        assert_eq!(judged(&c, per(&[("a", &[85.0])])), (Check::No, Check::Yes), "relaxed to 80%");
        assert_eq!(judged(&c, per(&[("a", &[60.0])])), (Check::No, Check::No), "not to 45%");
    }

    #[test]
    fn absolute_values_behind_a_change_are_judged_too() {
        let c = claim(
            "schemes = [\"a\", \"b\"]\ncompare = \"relative\"\nunit = \"%\"\npaper = { \"a/b\" = -83 }\nabsolute = { a = 40, b = 235 }\nabsolute_unit = \"us\"",
        );
        // the change is right (-45% vs -83%: within 2x), the values 7x off
        assert_eq!(judged(&c, per(&[("a", &[277.0]), ("b", &[504.0])])), (Check::Yes, Check::No));
        assert_eq!(judged(&c, per(&[("a", &[45.0]), ("b", &[260.0])])), (Check::Yes, Check::Yes));
    }

    #[test]
    fn verdicts() {
        assert_eq!(verdict(Check::Yes, Check::Yes), Verdict::Reproduced);
        assert_eq!(verdict(Check::Yes, Check::Na), Verdict::Reproduced);
        assert_eq!(verdict(Check::Na, Check::Yes), Verdict::Reproduced);
        assert_eq!(verdict(Check::Yes, Check::No), Verdict::DirectionOnly);
        assert_eq!(verdict(Check::No, Check::Yes), Verdict::NotReproduced);
        assert_eq!(verdict(Check::Na, Check::No), Verdict::NotReproduced);
        assert_eq!(verdict(Check::Tie, Check::Na), Verdict::Inconclusive);
        assert_eq!(verdict(Check::Tie, Check::No), Verdict::NotReproduced);
        assert_eq!(verdict(Check::Fragile, Check::Yes), Verdict::Fragile);
        assert_eq!(verdict(Check::Yes, Check::Fragile), Verdict::Fragile);
        assert_eq!(verdict(Check::Fragile, Check::No), Verdict::DirectionOnly);
        assert_eq!(verdict(Check::Fragile, Check::Tie), Verdict::Inconclusive);
    }
}
