//! Flow-size distributions: empirical CDF tables of (size in bytes, cumulative
//! probability) points, the built-in tables used by the datacenter
//! congestion-control literature (see `WORKLOADS.md`), CDF files in the HPCC
//! `traffic_gen` two-column form, sampling (linear interpolation as in HPCC
//! `traffic_gen.py`, or steps as in the Homa simulator) and exact means.

use ccsim_core::rng::Rng;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// How a size is drawn from a CDF table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SampleMode {
    /// Draw u uniform in (0, 1] and interpolate linearly between the two table
    /// points whose cumulative probabilities bracket u; probability mass below
    /// the first point goes to the first point's size. The result is truncated
    /// to whole bytes (at least 1), as HPCC `traffic_gen.py` does with `int()`.
    /// Default (HPCC convention; `WORKLOADS.md`).
    #[default]
    Interpolate,
    /// Draw u uniform in (0, 1] and return the size of the first point whose
    /// cumulative probability is >= u, so only table sizes occur (Homa
    /// simulator convention). Sizes below 1 byte become 1 byte.
    Step,
}

/// An empirical flow-size CDF: points (size in bytes, cumulative probability),
/// sizes and probabilities non-decreasing, probabilities in [0, 1], the last
/// probability exactly 1.
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    name: String,
    points: Vec<(f64, f64)>,
}

/// websearch: DCTCP web search, as in HPCC `traffic_gen/WebSearch_distribution.txt`
/// (file in percent, here as fractions).
const WEBSEARCH: &[(f64, f64)] = &[
    (0.0, 0.0),
    (10000.0, 0.15),
    (20000.0, 0.20),
    (30000.0, 0.30),
    (50000.0, 0.40),
    (80000.0, 0.53),
    (200000.0, 0.60),
    (1000000.0, 0.70),
    (2000000.0, 0.80),
    (5000000.0, 0.90),
    (10000000.0, 0.97),
    (30000000.0, 1.0),
];

/// hadoop: Facebook Hadoop ("FbHdp"), HPCC `traffic_gen/FbHdp_distribution.txt`.
/// Note: SRCC's "Hadoop" (avg 1.04 MB) is a different table from this one.
const HADOOP: &[(f64, f64)] = &[
    (0.0, 0.0),
    (100.0, 0.01),
    (200.0, 0.02),
    (300.0, 0.05),
    (350.0, 0.15),
    (400.0, 0.20),
    (500.0, 0.30),
    (600.0, 0.40),
    (700.0, 0.50),
    (1000.0, 0.60),
    (2000.0, 0.67),
    (7000.0, 0.70),
    (30000.0, 0.72),
    (50000.0, 0.82),
    (80000.0, 0.87),
    (120000.0, 0.90),
    (300000.0, 0.95),
    (1000000.0, 0.975),
    (2000000.0, 0.99),
    (10000000.0, 1.0),
];

/// cachefollower: Facebook cache follower, intra-cluster (Roy et al. SIGCOMM'15),
/// Homa simulator `Facebook_CacheFollowerDist_IntraCluster.txt`, rows at each 5% crossing.
const CACHEFOLLOWER: &[(f64, f64)] = &[
    (50.0, 0.0),
    (235.0, 0.0513),
    (293.0, 0.1045),
    (324.0, 0.155),
    (394.0, 0.219),
    (455.0, 0.2577),
    (577.0, 0.3048),
    (707.0, 0.3532),
    (1146.0, 0.4007),
    (2767.0, 0.4505),
    (28270.0, 0.5),
    (133012.0, 0.5502),
    (209954.0, 0.6002),
    (305460.0, 0.6506),
    (553812.0, 0.7026),
    (1647457.0, 0.7528),
    (1865505.0, 0.8011),
    (2213771.0, 0.8532),
    (2461220.0, 0.9052),
    (2714115.0, 0.9554),
    (3105433.0, 0.991),
    (3837698.0, 1.0),
];

/// webserver: Facebook web server, intra-cluster (Roy et al. SIGCOMM'15), same source.
const WEBSERVER: &[(f64, f64)] = &[
    (50.0, 0.0),
    (80.0, 0.0549),
    (120.0, 0.1),
    (187.0, 0.1527),
    (281.0, 0.2061),
    (765.0, 0.2511),
    (1033.0, 0.3008),
    (1534.0, 0.35),
    (1889.0, 0.4002),
    (2551.0, 0.4515),
    (3464.0, 0.5028),
    (4676.0, 0.5519),
    (6481.0, 0.6),
    (9895.0, 0.6508),
    (16817.0, 0.7),
    (31784.0, 0.7507),
    (70000.0, 0.8),
    (187363.0, 0.8507),
    (271823.0, 0.9027),
    (347950.0, 0.9523),
    (565213.0, 0.9907),
    (951034.0, 0.9993),
    (1000000.0, 1.0),
];

/// googlerpc: Homa W3 "Google all RPC" (= HPCC `GoogleRPC2008.txt`), decimated.
/// The first point carries probability 0.0649 (no 0-probability point).
const GOOGLERPC: &[(f64, f64)] = &[
    (8.0, 0.0649),
    (36.0, 0.1089),
    (64.0, 0.1553),
    (77.0, 0.2207),
    (85.0, 0.2534),
    (110.0, 0.3189),
    (128.0, 0.3516),
    (158.0, 0.4064),
    (205.0, 0.4613),
    (268.0, 0.524),
    (282.0, 0.5501),
    (313.0, 0.6023),
    (352.0, 0.6545),
    (402.0, 0.7066),
    (469.0, 0.7588),
    (573.0, 0.8017),
    (896.0, 0.852),
    (1755.0, 0.9013),
    (5521.0, 0.9501),
    (31013.0, 0.9901),
    (356516.0, 0.999),
    (15158197.0, 1.0),
];

/// alistorage: Alibaba storage 2019, HPCC repository `AliStorage2019`.
const ALISTORAGE: &[(f64, f64)] = &[
    (0.0, 0.0),
    (4000.0, 0.2293),
    (8000.0, 0.6921),
    (16000.0, 0.8061),
    (32000.0, 0.9047),
    (64000.0, 0.9353),
    (128000.0, 0.9677),
    (256000.0, 0.9753),
    (2000000.0, 1.0),
];

const BUILTIN: &[(&str, &[(f64, f64)])] = &[
    ("websearch", WEBSEARCH),
    ("hadoop", HADOOP),
    ("cachefollower", CACHEFOLLOWER),
    ("webserver", WEBSERVER),
    ("googlerpc", GOOGLERPC),
    ("alistorage", ALISTORAGE),
];

const BUILTIN_NAMES: &[&str] = &["websearch", "hadoop", "cachefollower", "webserver", "googlerpc", "alistorage"];

/// Tolerance on the last cumulative probability (it is then set to exactly 1).
const LAST_PROB_TOL: f64 = 1e-6;

/// Checks a table; `at(i)` names point `i` in error messages.
fn check_points(points: &mut [(f64, f64)], at: &dyn Fn(usize) -> String) -> Result<(), String> {
    if points.is_empty() {
        return Err(format!("{}: the CDF has no points", at(usize::MAX)));
    }
    for i in 0..points.len() {
        let (s, p) = points[i];
        if !s.is_finite() || s < 0.0 {
            return Err(format!("{}: size {s} must be a finite number of bytes >= 0", at(i)));
        }
        if !p.is_finite() || !(0.0..=1.0).contains(&p) {
            return Err(format!("{}: cumulative probability {p} must be in [0, 1]", at(i)));
        }
        if i > 0 {
            let (s0, p0) = points[i - 1];
            if s < s0 {
                return Err(format!(
                    "{}: size {s} is smaller than the previous point's size {s0}; sizes must not decrease",
                    at(i)
                ));
            }
            if p < p0 {
                return Err(format!(
                    "{}: cumulative probability {p} is smaller than the previous point's {p0}; probabilities must not decrease",
                    at(i)
                ));
            }
        }
    }
    let last = points.len() - 1;
    if (points[last].1 - 1.0).abs() > LAST_PROB_TOL {
        return Err(format!("{}: the last cumulative probability is {}, it must be 1", at(last), points[last].1));
    }
    points[last].1 = 1.0;
    Ok(())
}

/// A sampled size as a whole number of bytes, at least 1.
#[inline]
fn to_bytes(x: f64) -> u64 {
    (x.floor() as u64).max(1)
}

impl Cdf {
    /// A built-in distribution by name (see [`Cdf::builtin_names`]), `None` if unknown.
    pub fn builtin(name: &str) -> Option<Cdf> {
        BUILTIN.iter().find(|(n, _)| *n == name).map(|(n, pts)| Cdf { name: n.to_string(), points: pts.to_vec() })
    }

    /// Names of the built-in distributions, in the order of `WORKLOADS.md`.
    pub fn builtin_names() -> &'static [&'static str] {
        BUILTIN_NAMES
    }

    /// A CDF from explicit points (size in bytes, cumulative probability).
    /// Sizes and probabilities must not decrease, probabilities lie in [0, 1]
    /// and the last one is 1 (within 1e-6).
    pub fn from_points(name: &str, points: Vec<(f64, f64)>) -> Result<Cdf, String> {
        let mut points = points;
        check_points(&mut points, &|i| {
            if i == usize::MAX {
                format!("CDF '{name}'")
            } else {
                format!("CDF '{name}' point {i}")
            }
        })?;
        Ok(Cdf { name: name.to_string(), points })
    }

    /// Reads a CDF file: one "size cum_prob" pair per line, separated by
    /// whitespace; blank lines and everything after '#' are ignored.
    /// Probabilities are fractions (last = 1) or percent (last = 100, the HPCC
    /// `traffic_gen` files); the scale is chosen from the last line. Any other
    /// column count or a bad number is refused as "file:line: message".
    /// The CDF is named after the file stem.
    pub fn from_file(path: &Path) -> Result<Cdf, String> {
        let disp = path.display();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{disp}: cannot read CDF file: {e}"))?;
        let mut points = Vec::new();
        let mut lines = Vec::new();
        for (ln, raw) in text.lines().enumerate() {
            let ln = ln + 1;
            let body = raw.split('#').next().unwrap_or("");
            let cols: Vec<&str> = body.split_whitespace().collect();
            if cols.is_empty() {
                continue;
            }
            if cols.len() != 2 {
                return Err(format!(
                    "{disp}:{ln}: expected 2 columns \"size cum_prob\", found {}: '{}'",
                    cols.len(),
                    raw.trim()
                ));
            }
            let num = |s: &str, what: &str| -> Result<f64, String> {
                s.parse::<f64>().map_err(|_| format!("{disp}:{ln}: {what} '{s}' is not a number"))
            };
            points.push((num(cols[0], "size")?, num(cols[1], "cumulative probability")?));
            lines.push(ln);
        }
        if points.is_empty() {
            return Err(format!("{disp}: the CDF file has no points"));
        }
        let last = points[points.len() - 1].1;
        if (last - 100.0).abs() <= 100.0 * LAST_PROB_TOL {
            for p in points.iter_mut() {
                p.1 /= 100.0;
            }
        }
        check_points(&mut points, &|i| {
            if i == usize::MAX {
                format!("{disp}")
            } else {
                format!("{disp}:{}", lines[i])
            }
        })?;
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| disp.to_string());
        Ok(Cdf { name, points })
    }

    /// A built-in name, or else a path to a CDF file (relative paths are
    /// resolved against `base_dir`).
    pub fn by_name_or_path(spec: &str, base_dir: &Path) -> Result<Cdf, String> {
        if let Some(c) = Cdf::builtin(spec) {
            return Ok(c);
        }
        let p = base_dir.join(spec);
        if !p.exists() {
            return Err(format!(
                "'{spec}' is neither a built-in distribution ({}) nor an existing CDF file (looked for {})",
                BUILTIN_NAMES.join(", "),
                p.display()
            ));
        }
        Cdf::from_file(&p)
    }

    /// The distribution's name (built-in name or file stem).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The table: (size in bytes, cumulative probability), last probability 1.
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// Draws one flow size in bytes (at least 1). Uses exactly one
    /// `rng.next_f64()` per call.
    pub fn sample(&self, rng: &mut Rng, mode: SampleMode) -> u64 {
        let u = 1.0 - rng.next_f64(); // (0, 1]
        let i = self.points.partition_point(|&(_, p)| p < u);
        let i = i.min(self.points.len() - 1); // last p == 1 >= u; guard anyway
        match mode {
            SampleMode::Step => to_bytes(self.points[i].0),
            SampleMode::Interpolate => {
                if i == 0 {
                    to_bytes(self.points[0].0)
                } else {
                    let (x0, y0) = self.points[i - 1];
                    let (x1, y1) = self.points[i];
                    // y0 < u <= y1, so y1 > y0
                    to_bytes(x0 + (x1 - x0) * (u - y0) / (y1 - y0))
                }
            }
        }
    }

    /// The mean size in bytes, computed from the table.
    /// Interpolate: the mean of the piecewise-linear distribution (mass below
    /// the first point at the first point's size), before truncation to whole
    /// bytes, so sampled means are lower by about half a byte.
    /// Step: the exact mean of what [`Cdf::sample`] returns (sizes truncated,
    /// at least 1 byte).
    pub fn mean(&self, mode: SampleMode) -> f64 {
        let pts = &self.points;
        match mode {
            SampleMode::Interpolate => {
                let mut m = pts[0].1 * pts[0].0;
                for w in pts.windows(2) {
                    m += (w[1].1 - w[0].1) * 0.5 * (w[0].0 + w[1].0);
                }
                m
            }
            SampleMode::Step => {
                let mut m = pts[0].1 * to_bytes(pts[0].0) as f64;
                for w in pts.windows(2) {
                    m += (w[1].1 - w[0].1) * to_bytes(w[1].0) as f64;
                }
                m
            }
        }
    }

    /// The second moment E[X^2] in bytes^2, computed from the table like
    /// [`Cdf::mean`] (used to size statistical checks and report variability).
    pub fn second_moment(&self, mode: SampleMode) -> f64 {
        let pts = &self.points;
        match mode {
            SampleMode::Interpolate => {
                let mut m = pts[0].1 * pts[0].0 * pts[0].0;
                for w in pts.windows(2) {
                    let (a, b) = (w[0].0, w[1].0);
                    m += (w[1].1 - w[0].1) * (a * a + a * b + b * b) / 3.0;
                }
                m
            }
            SampleMode::Step => {
                let sq = |x: f64| {
                    let b = to_bytes(x) as f64;
                    b * b
                };
                let mut m = pts[0].1 * sq(pts[0].0);
                for w in pts.windows(2) {
                    m += (w[1].1 - w[0].1) * sq(w[1].0);
                }
                m
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_all_present_and_valid() {
        assert_eq!(Cdf::builtin_names().len(), 6);
        for name in Cdf::builtin_names() {
            let c = Cdf::builtin(name).unwrap_or_else(|| panic!("missing builtin {name}"));
            assert_eq!(c.name(), *name);
            // re-validate through the public constructor
            let again = Cdf::from_points(name, c.points().to_vec()).unwrap();
            assert_eq!(again, c);
        }
        assert!(Cdf::builtin("nosuch").is_none());
        // spot-check table contents against WORKLOADS.md
        assert_eq!(Cdf::builtin("websearch").unwrap().points().len(), 12);
        assert_eq!(Cdf::builtin("hadoop").unwrap().points().len(), 20);
        assert_eq!(Cdf::builtin("cachefollower").unwrap().points().len(), 22);
        assert_eq!(Cdf::builtin("webserver").unwrap().points().len(), 23);
        assert_eq!(Cdf::builtin("googlerpc").unwrap().points().len(), 22);
        assert_eq!(Cdf::builtin("alistorage").unwrap().points().len(), 9);
        assert_eq!(Cdf::builtin("googlerpc").unwrap().points()[0], (8.0, 0.0649));
        assert_eq!(Cdf::builtin("webserver").unwrap().points()[21], (951034.0, 0.9993));
        assert_eq!(Cdf::builtin("cachefollower").unwrap().points()[15], (1647457.0, 0.7528));
    }

    #[test]
    fn means_match_hand_computation() {
        let ws = Cdf::builtin("websearch").unwrap();
        // sum of segment midpoints x segment mass, computed by hand
        assert!((ws.mean(SampleMode::Interpolate) - 1_711_250.0).abs() < 1e-6, "{}", ws.mean(SampleMode::Interpolate));
        // sum of point size x point mass
        assert!((ws.mean(SampleMode::Step) - 2_434_900.0).abs() < 1e-6, "{}", ws.mean(SampleMode::Step));
        let ali = Cdf::builtin("alistorage").unwrap();
        assert!((ali.mean(SampleMode::Interpolate) - 40_869.8).abs() < 1e-6, "{}", ali.mean(SampleMode::Interpolate));
        // mass below the first point sits at the first point's size
        let c = Cdf::from_points("t", vec![(100.0, 0.5), (300.0, 1.0)]).unwrap();
        assert!((c.mean(SampleMode::Interpolate) - 150.0).abs() < 1e-12);
        assert!((c.mean(SampleMode::Step) - 200.0).abs() < 1e-12);
        assert!((c.second_moment(SampleMode::Step) - (0.5 * 1e4 + 0.5 * 9e4)).abs() < 1e-9);
        // uniform on [0, 300]: E[X^2] = 300^2 / 3
        let u = Cdf::from_points("u", vec![(0.0, 0.0), (300.0, 1.0)]).unwrap();
        assert!((u.second_moment(SampleMode::Interpolate) - 30_000.0).abs() < 1e-9);
        // step sizes below one byte count as one byte
        let z = Cdf::from_points("z", vec![(0.0, 0.5), (10.0, 1.0)]).unwrap();
        assert!((z.mean(SampleMode::Step) - 5.5).abs() < 1e-12);
    }

    /// Sampled means approach `mean()`. The sample count is chosen from the
    /// exact variance so that 2% is at least 4 standard errors (200k samples
    /// suffice for the light-tailed tables; googlerpc and hadoop need more).
    #[test]
    fn sampled_mean_matches_mean() {
        for mode in [SampleMode::Interpolate, SampleMode::Step] {
            for name in Cdf::builtin_names() {
                let c = Cdf::builtin(name).unwrap();
                let m = c.mean(mode);
                let var = c.second_moment(mode) - m * m;
                let cv = var.sqrt() / m;
                let n = ((4.0 * cv / 0.02).powi(2).ceil() as usize).max(200_000);
                let mut rng = Rng::new(42);
                let mut sum = 0.0;
                for _ in 0..n {
                    sum += c.sample(&mut rng, mode) as f64;
                }
                let got = sum / n as f64;
                assert!((got - m).abs() / m < 0.02, "{name} {mode:?}: sampled mean {got} vs table mean {m} over {n}");
            }
        }
    }

    /// The empirical CDF at every table size matches the table (binomial
    /// standard error <= 0.0012 at 200k samples; tolerance 0.006).
    #[test]
    fn sampled_distribution_matches_table() {
        let n = 200_000;
        for name in Cdf::builtin_names() {
            let c = Cdf::builtin(name).unwrap();
            let mut rng = Rng::new(7);
            let xs: Vec<u64> = (0..n).map(|_| c.sample(&mut rng, SampleMode::Interpolate)).collect();
            for &(s, p) in c.points() {
                let frac = xs.iter().filter(|&&x| (x as f64) <= s.max(1.0)).count() as f64 / n as f64;
                assert!((frac - p).abs() < 0.006, "{name}: P(X <= {s}) = {frac}, table {p}");
            }
        }
    }

    #[test]
    fn step_mode_returns_only_table_sizes() {
        for name in Cdf::builtin_names() {
            let c = Cdf::builtin(name).unwrap();
            let allowed: Vec<u64> = c.points().iter().map(|&(s, _)| to_bytes(s)).collect();
            let mut rng = Rng::new(3);
            let mut seen = std::collections::HashSet::new();
            for _ in 0..100_000 {
                let x = c.sample(&mut rng, SampleMode::Step);
                assert!(allowed.contains(&x), "{name}: {x} not a table size");
                seen.insert(x);
            }
            // exactly the sizes with positive mass occur (smallest mass 0.0007,
            // about 70 expected draws each); a zero-mass first point never does
            let mut positive = std::collections::HashSet::new();
            let mut prev = 0.0;
            for &(s, p) in c.points() {
                if p > prev {
                    positive.insert(to_bytes(s));
                }
                prev = p;
            }
            assert_eq!(seen, positive, "{name}");
        }
    }

    #[test]
    fn interpolate_stays_in_range_and_is_deterministic() {
        let c = Cdf::builtin("googlerpc").unwrap();
        let mut a = Rng::new(9);
        let mut b = Rng::new(9);
        let mut at_first = 0;
        for _ in 0..50_000 {
            let x = c.sample(&mut a, SampleMode::Interpolate);
            assert_eq!(x, c.sample(&mut b, SampleMode::Interpolate));
            assert!((8..=15_158_197).contains(&x), "{x}");
            if x == 8 {
                at_first += 1;
            }
        }
        // P(X = 8) = 0.0649 (mass below the first point); std error ~0.0011
        let f = at_first as f64 / 50_000.0;
        assert!((f - 0.0649).abs() < 0.006, "{f}");
        // sizes are at least one byte even when the table starts at 0
        let z = Cdf::from_points("z", vec![(0.0, 0.0), (0.5, 1.0)]).unwrap();
        let mut r = Rng::new(1);
        assert!((0..1000).all(|_| z.sample(&mut r, SampleMode::Interpolate) == 1));
    }

    #[test]
    fn from_points_refuses_bad_tables() {
        assert!(Cdf::from_points("e", vec![]).unwrap_err().contains("no points"));
        let e = Cdf::from_points("d", vec![(10.0, 0.1), (5.0, 0.5), (20.0, 1.0)]).unwrap_err();
        assert!(e.contains("point 1") && e.contains("sizes must not decrease"), "{e}");
        let e = Cdf::from_points("p", vec![(10.0, 0.6), (20.0, 0.5), (30.0, 1.0)]).unwrap_err();
        assert!(e.contains("point 1") && e.contains("probabilities must not decrease"), "{e}");
        let e = Cdf::from_points("r", vec![(10.0, -0.1), (20.0, 1.0)]).unwrap_err();
        assert!(e.contains("point 0") && e.contains("[0, 1]"), "{e}");
        let e = Cdf::from_points("l", vec![(10.0, 0.1), (20.0, 0.9)]).unwrap_err();
        assert!(e.contains("point 1") && e.contains("must be 1"), "{e}");
        let e = Cdf::from_points("n", vec![(f64::NAN, 0.1), (20.0, 1.0)]).unwrap_err();
        assert!(e.contains("point 0"), "{e}");
        let e = Cdf::from_points("neg", vec![(-1.0, 0.1), (20.0, 1.0)]).unwrap_err();
        assert!(e.contains(">= 0"), "{e}");
    }

    #[test]
    fn reads_files_in_fraction_and_percent_form() {
        let td = crate::testutil::TempDir::new("cdf");
        // HPCC traffic_gen form: percent, single space
        let p = td.file("WebSearch_distribution.txt", "0 0\n10000 15\n20000 20\n30000 30\n50000 40\n80000 53\n200000 60\n1000000 70\n2000000 80\n5000000 90\n10000000 97\n30000000 100\n");
        let c = Cdf::from_file(&p).unwrap();
        assert_eq!(c.name(), "WebSearch_distribution");
        let ws = Cdf::builtin("websearch").unwrap();
        assert_eq!(c.points().len(), ws.points().len());
        for (a, b) in c.points().iter().zip(ws.points()) {
            assert_eq!(a.0, b.0);
            assert!((a.1 - b.1).abs() < 1e-12);
        }
        // fractions, comments, blank lines, tabs
        let p = td.file("frac.cdf", "# my table\n\n100\t0.25  # first\n  200 0.5\n400 1.0\n");
        let c = Cdf::from_file(&p).unwrap();
        assert_eq!(c.points(), &[(100.0, 0.25), (200.0, 0.5), (400.0, 1.0)]);
    }

    #[test]
    fn bad_files_refused_naming_the_line() {
        let td = crate::testutil::TempDir::new("cdf");
        let p = td.file("three.cdf", "# header\n0 0\n100 0.5 7\n200 1\n");
        let e = Cdf::from_file(&p).unwrap_err();
        assert!(e.contains("three.cdf:3:") && e.contains("expected 2 columns") && e.contains("found 3"), "{e}");
        let p = td.file("one.cdf", "0 0\n100\n");
        let e = Cdf::from_file(&p).unwrap_err();
        assert!(e.contains("one.cdf:2:") && e.contains("found 1"), "{e}");
        let p = td.file("nan.cdf", "0 0\n\n100 abc\n200 1\n");
        let e = Cdf::from_file(&p).unwrap_err();
        assert!(e.contains("nan.cdf:3:") && e.contains("'abc'"), "{e}");
        let p = td.file("dec.cdf", "0 0\n100 0.5\n50 0.7\n200 1\n");
        let e = Cdf::from_file(&p).unwrap_err();
        assert!(e.contains("dec.cdf:3:") && e.contains("must not decrease"), "{e}");
        let p = td.file("end.cdf", "0 0\n100 0.5\n200 0.9\n");
        let e = Cdf::from_file(&p).unwrap_err();
        assert!(e.contains("end.cdf:3:") && e.contains("must be 1"), "{e}");
        let p = td.file("empty.cdf", "# nothing\n");
        assert!(Cdf::from_file(&p).unwrap_err().contains("no points"));
        let e = Cdf::from_file(Path::new("/nonexistent/x.cdf")).unwrap_err();
        assert!(e.contains("/nonexistent/x.cdf") && e.contains("cannot read"), "{e}");
    }

    #[test]
    fn by_name_or_path_resolves_relative_to_base() {
        let td = crate::testutil::TempDir::new("cdf");
        let p = td.file("rel.cdf", "10 0.5\n20 1\n");
        let dir = p.parent().unwrap();
        assert_eq!(Cdf::by_name_or_path("rel.cdf", dir).unwrap().points().len(), 2);
        assert_eq!(Cdf::by_name_or_path("hadoop", dir).unwrap().name(), "hadoop");
        let e = Cdf::by_name_or_path("websarch", dir).unwrap_err();
        assert!(e.contains("'websarch'") && e.contains("websearch, hadoop"), "{e}");
    }
}
