//! Where an axis's ticks go and how they read. One unit per axis: a byte
//! axis reads "500 KB, 1 MB, 1.5 MB" (each label with its unit, the same
//! precision on all of them), a number axis "0, 2.5, 5" or, past 10^5,
//! "200k, 400k" with one suffix for the whole axis.
//!
//! Log axes are drawn in log10 space (the renderer maps a value v to
//! log10 v), so their ticks here are log10 positions.

use super::{Scale, TickFormat};

/// Tick positions of an axis, in drawing space (log10 for log axes).
#[derive(Clone, Debug, PartialEq)]
pub struct Ticks {
    /// Labelled ticks with grid lines.
    pub major: Vec<f64>,
    /// Fainter grid lines between them.
    pub minor: Vec<f64>,
}

/// "Nice" step for about `n` intervals over `span`: 1, 2, 2.5 or 5 times a power of ten.
pub fn nice_step(span: f64, n: usize) -> f64 {
    let raw = span / n.max(1) as f64;
    if !(raw > 0.0 && raw.is_finite()) {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 2.5 {
        2.5
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// Ticks of `lo..hi` (drawing space), about `n` labelled ones.
pub fn ticks(lo: f64, hi: f64, scale: Scale, n: usize) -> Ticks {
    match scale {
        Scale::Linear => linear_ticks(lo, hi, n),
        Scale::Log => log_ticks(lo, hi),
    }
}

fn linear_ticks(lo: f64, hi: f64, n: usize) -> Ticks {
    let step = nice_step(hi - lo, n);
    let minor_step = step / if (step / 10f64.powf(step.log10().floor()) - 2.5).abs() < 1e-9 { 5.0 } else { 2.0 };
    Ticks { major: multiples(lo, hi, step), minor: multiples(lo, hi, minor_step) }
}

/// Multiples of `step` within `lo..=hi` (with a little slack for rounding).
fn multiples(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    let eps = step * 1e-9;
    let first = ((lo - eps) / step).ceil() as i64;
    let last = ((hi + eps) / step).floor() as i64;
    if last < first || last - first > 1000 {
        return vec![];
    }
    // round away float noise (0.30000000000000004 -> 0.3)
    (first..=last).map(|k| round_sig(k as f64 * step)).collect()
}

fn round_sig(v: f64) -> f64 {
    if v == 0.0 {
        return 0.0;
    }
    let p = 10f64.powi(12 - v.abs().log10().floor() as i32);
    (v * p).round() / p
}

/// Decades of a log axis, with 2 and 5 labelled too when it spans less than
/// two decades; minor lines at 2..9 of each decade.
fn log_ticks(lo: f64, hi: f64) -> Ticks {
    if hi - lo < 1.0 {
        // less than a decade: nice values (1, 1.5, 2, 2.5) at their log positions
        let t = linear_ticks(10f64.powf(lo), 10f64.powf(hi), 5);
        let log = |v: Vec<f64>| v.into_iter().filter(|x| *x > 0.0).map(f64::log10).collect();
        return Ticks { major: log(t.major), minor: log(t.minor) };
    }
    let (a, b) = (lo.floor() as i64, hi.ceil() as i64);
    if b - a > 300 {
        return Ticks { major: vec![], minor: vec![] };
    }
    let every = ((b - a) as f64 / 8.0).ceil().max(1.0) as i64;
    let few = hi - lo < 2.0;
    let mut major = Vec::new();
    let mut minor = Vec::new();
    for d in a..=b {
        for m in 1..10 {
            let x = d as f64 + (m as f64).log10();
            if x < lo - 1e-9 || x > hi + 1e-9 {
                continue;
            }
            if (m == 1 && d.rem_euclid(every) == 0) || (few && (m == 2 || m == 5)) {
                major.push(x);
            } else {
                minor.push(x);
            }
        }
    }
    Ticks { major, minor }
}

/// Labels of the major ticks of an axis (values, not log10 positions).
pub fn labels(values: &[f64], format: TickFormat, scale: Scale) -> Vec<String> {
    match format {
        TickFormat::Number => number_labels(values),
        TickFormat::Bytes => values.iter().map(|&v| bytes_label(v, values, scale == Scale::Log)).collect(),
    }
}

/// Decimals that tell `values` apart (at most 6).
fn decimals(values: &[f64]) -> usize {
    (0..6)
        .find(|&d| {
            let p = 10f64.powi(d as i32);
            values.iter().all(|v| ((v * p).round() - v * p).abs() < 1e-6 * p.max(1.0))
        })
        .unwrap_or(6)
}

/// Plain numbers with one precision, or one k/M/G suffix for an axis past 10^5.
fn number_labels(values: &[f64]) -> Vec<String> {
    let top = values.iter().fold(0f64, |m, v| m.max(v.abs()));
    let (div, suffix) = match top {
        t if t >= 1e11 => (1e9, "G"),
        t if t >= 1e8 => (1e6, "M"),
        t if t >= 1e5 => (1e3, "k"),
        _ => (1.0, ""),
    };
    let scaled: Vec<f64> = values.iter().map(|v| v / div).collect();
    let d = decimals(&scaled);
    scaled.iter().map(|v| if *v == 0.0 { "0".into() } else { format!("{v:.d$}{suffix}") }).collect()
}

/// A byte count in the unit of its axis: B, KB, MB or GB (10^3 steps, as
/// the scenario files' sizes), with as many decimals as the axis needs.
fn bytes_label(v: f64, axis: &[f64], log_axis: bool) -> String {
    if v == 0.0 {
        return "0".into();
    }
    // on a log axis every decade gets its own unit; on a linear one the largest tick's
    let basis = if log_axis { v.abs() } else { axis.iter().fold(0f64, |m, x| m.max(x.abs())) };
    let (div, unit) = match basis {
        b if b >= 1e9 => (1e9, "GB"),
        b if b >= 1e6 => (1e6, "MB"),
        b if b >= 1e3 => (1e3, "KB"),
        _ => (1.0, "B"),
    };
    let d = if log_axis { decimals(&[v / div]) } else { decimals(&axis.iter().map(|x| x / div).collect::<Vec<_>>()) };
    format!("{:.d$} {unit}", v / div)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_nice_multiples() {
        let t = ticks(0.0, 20_000.0, Scale::Linear, 5);
        assert_eq!(t.major, vec![0.0, 5000.0, 10000.0, 15000.0, 20000.0]);
        let t = ticks(0.03, 0.97, Scale::Linear, 4);
        assert_eq!(t.major, vec![0.25, 0.5, 0.75]);
        assert!(t.minor.contains(&0.05) && t.minor.len() > t.major.len());
    }

    #[test]
    fn log_ticks_label_decades() {
        let t = ticks(2.0, 6.3, Scale::Log, 5);
        assert_eq!(t.major, vec![2.0, 3.0, 4.0, 5.0, 6.0]);
        assert!(t.minor.iter().any(|&x| (x - 2.0f64.log10() - 2.0).abs() < 1e-12));
        // a narrow log axis labels 1, 2, 5 of each decade
        // less than a decade: linear-looking steps
        let t = ticks(0.0, 0.4, Scale::Log, 5);
        let vals: Vec<f64> = t.major.iter().map(|x| (10f64.powf(*x) * 1e6).round() / 1e6).collect();
        assert_eq!(vals, vec![1.0, 1.5, 2.0, 2.5]);
        let t = ticks(0.0, 1.5, Scale::Log, 5);
        let vals: Vec<f64> = t.major.iter().map(|x| 10f64.powf(*x)).collect();
        for (got, want) in vals.iter().zip([1.0, 2.0, 5.0, 10.0, 20.0]) {
            assert!((got - want).abs() < 1e-9, "{vals:?}");
        }
    }

    #[test]
    fn byte_axes_read_in_one_unit() {
        // issue 25: a KB axis read "5000, 10K, 20K KB"; it must read MB
        let lin = |v: &[f64]| labels(v, TickFormat::Bytes, Scale::Linear);
        assert_eq!(lin(&[0.0, 5e6, 10e6, 15e6, 20e6]), vec!["0", "5 MB", "10 MB", "15 MB", "20 MB"]);
        assert_eq!(lin(&[0.0, 2e5, 4e5, 6e5]), vec!["0", "200 KB", "400 KB", "600 KB"]);
        assert_eq!(lin(&[0.0, 0.5e6, 1e6, 1.5e6]), vec!["0", "0.5 MB", "1.0 MB", "1.5 MB"]);
        let log = labels(&[1e2, 1e3, 1e4, 1e5, 1e6], TickFormat::Bytes, Scale::Log);
        assert_eq!(log, vec!["100 B", "1 KB", "10 KB", "100 KB", "1 MB"]);
    }

    #[test]
    fn number_axes_share_precision_and_suffix() {
        let num = |v: &[f64]| labels(v, TickFormat::Number, Scale::Linear);
        assert_eq!(num(&[0.0, 2.5, 5.0, 7.5]), vec!["0", "2.5", "5.0", "7.5"]);
        assert_eq!(num(&[0.0, 5000.0, 10000.0]), vec!["0", "5000", "10000"]);
        assert_eq!(num(&[0.0, 2e5, 4e5]), vec!["0", "200k", "400k"]);
        assert_eq!(num(&[1.0, 10.0, 100.0]), vec!["1", "10", "100"]);
    }
}
