//! Metric parameters: their kinds, checks and typed reading. A parameter
//! table is checked against the metric's declared names before anything
//! runs, so a typo or a wrong type is an error that names the parameter.

use ccsim_core::results::PortRef;
use ccsim_core::time::Time;
use ccsim_core::units::{parse_bytes, parse_dur, parse_rate};

/// What a parameter holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A duration, "300us".
    Time,
    /// A size, "1MB" or a number of bytes.
    Size,
    /// A rate, "10Gbps", or a number of Gbps.
    Rate,
    /// A number.
    Number,
    /// A whole number.
    Int,
    /// true / false.
    Bool,
    /// An egress port, "node:peer".
    Port,
    /// A list of egress ports.
    Ports,
    /// A flow id.
    Flow,
    /// A list of flow ids.
    Flows,
    /// A statistic name (see [`Stat`]).
    Stat,
    /// Free text (a counter name, an estimator).
    Text,
}

/// A statistic over a set of values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stat {
    Mean,
    Percentile(f64),
    Min,
    Max,
    Std,
    /// max - min
    Range,
    /// p95 - p5
    P95P5,
    Sum,
    Count,
}

impl Stat {
    pub fn parse(s: &str) -> Result<Stat, String> {
        Ok(match s {
            "avg" | "mean" => Stat::Mean,
            "min" => Stat::Min,
            "max" => Stat::Max,
            "std" => Stat::Std,
            "range" => Stat::Range,
            "p95_p5" => Stat::P95P5,
            "sum" => Stat::Sum,
            "count" => Stat::Count,
            "p999" => Stat::Percentile(99.9),
            p if p.starts_with('p') && p[1..].parse::<f64>().is_ok_and(|x| (0.0..=100.0).contains(&x)) => {
                Stat::Percentile(p[1..].parse().unwrap())
            }
            _ => {
                return Err(format!(
                    "stat = \"{s}\": expected avg, mean, min, max, std, range, p95_p5, sum, count or a percentile (p50, p99, p999, ...)"
                ))
            }
        })
    }

    /// The statistic of `v` (None when `v` is empty, except count and sum).
    pub fn of(self, v: &[f64]) -> Option<f64> {
        match self {
            Stat::Count => return Some(v.len() as f64),
            Stat::Sum => return Some(v.iter().sum()),
            _ if v.is_empty() => return None,
            _ => {}
        }
        let mut s = v.to_vec();
        s.sort_by(|a, b| a.total_cmp(b));
        let pct = |p: f64| ccsim_core::results::percentile_sorted(&s, p);
        let mean = s.iter().sum::<f64>() / s.len() as f64;
        Some(match self {
            Stat::Mean => mean,
            Stat::Percentile(p) => pct(p),
            Stat::Min => s[0],
            Stat::Max => s[s.len() - 1],
            Stat::Std => (s.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / s.len() as f64).sqrt(),
            Stat::Range => s[s.len() - 1] - s[0],
            Stat::P95P5 => pct(95.0) - pct(5.0),
            Stat::Sum | Stat::Count => unreachable!(),
        })
    }
}

/// A parameter table being read for one metric.
pub struct Params<'a> {
    pub t: &'a toml::Table,
}

fn num(v: &toml::Value) -> Option<f64> {
    v.as_float().or_else(|| v.as_integer().map(|i| i as f64))
}

/// Checks one value against a kind; the message names the parameter.
pub fn check_kind(name: &str, kind: Kind, v: &toml::Value) -> Result<(), String> {
    let bad = |what: &str| Err(format!("{name} = {v}: expected {what}"));
    match kind {
        Kind::Time => match v {
            toml::Value::String(s) => parse_dur(s).map(|_| ()).map_err(|e| format!("{name}: {e}")),
            toml::Value::Integer(0) => Ok(()),
            _ => bad("a duration such as \"300us\""),
        },
        Kind::Size => match v {
            toml::Value::String(s) => parse_bytes(s).map(|_| ()).map_err(|e| format!("{name}: {e}")),
            toml::Value::Integer(i) if *i >= 0 => Ok(()),
            _ => bad("a size such as \"1MB\" or a number of bytes"),
        },
        Kind::Rate => match v {
            toml::Value::String(s) => parse_rate(s).map(|_| ()).map_err(|e| format!("{name}: {e}")),
            x if num(x).is_some_and(|g| g > 0.0) => Ok(()),
            _ => bad("a rate such as \"10Gbps\" or a number of Gbps"),
        },
        Kind::Number => num(v).map(|_| ()).ok_or(()).or_else(|_| bad("a number")),
        Kind::Int => match v.as_integer() {
            Some(i) if i >= 0 => Ok(()),
            _ => bad("a non-negative integer"),
        },
        Kind::Bool => v.as_bool().map(|_| ()).ok_or(()).or_else(|_| bad("true or false")),
        Kind::Port => match v.as_str().map(ccsim_scenario::parse_port) {
            Some(Ok(_)) => Ok(()),
            _ => bad("an egress port \"node:peer\""),
        },
        Kind::Ports => match v.as_array() {
            Some(a) if a.iter().all(|x| x.as_str().is_some_and(|s| ccsim_scenario::parse_port(s).is_ok())) => Ok(()),
            _ => bad("a list of egress ports [\"node:peer\", ...]"),
        },
        Kind::Flow => match v.as_integer() {
            Some(i) if i >= 0 => Ok(()),
            _ => bad("a flow id"),
        },
        Kind::Flows => match v.as_array() {
            Some(a) if a.iter().all(|x| x.as_integer().is_some_and(|i| i >= 0)) => Ok(()),
            _ if v.as_str() == Some("all") => Ok(()),
            _ => bad("a list of flow ids, or \"all\""),
        },
        Kind::Stat => match v.as_str() {
            Some(s) => Stat::parse(s).map(|_| ()),
            None => bad("a statistic name"),
        },
        Kind::Text => v.as_str().map(|_| ()).ok_or(()).or_else(|_| bad("a string")),
    }
}

impl<'a> Params<'a> {
    pub fn new(t: &'a toml::Table) -> Params<'a> {
        Params { t }
    }

    pub fn has(&self, k: &str) -> bool {
        self.t.contains_key(k)
    }

    pub fn time(&self, k: &str) -> Option<Time> {
        match self.t.get(k)? {
            toml::Value::String(s) => parse_dur(s).ok(),
            _ => Some(0),
        }
    }

    pub fn size(&self, k: &str) -> Option<u64> {
        match self.t.get(k)? {
            toml::Value::String(s) => parse_bytes(s).ok(),
            v => v.as_integer().map(|i| i as u64),
        }
    }

    /// A rate in Gbps.
    pub fn gbps(&self, k: &str) -> Option<f64> {
        match self.t.get(k)? {
            toml::Value::String(s) => parse_rate(s).ok().map(|r| r as f64 / 1e9),
            v => num(v),
        }
    }

    pub fn num(&self, k: &str) -> Option<f64> {
        num(self.t.get(k)?)
    }

    pub fn int(&self, k: &str) -> Option<u64> {
        self.t.get(k)?.as_integer().map(|i| i as u64)
    }

    pub fn bool(&self, k: &str) -> Option<bool> {
        self.t.get(k)?.as_bool()
    }

    pub fn text(&self, k: &str) -> Option<&str> {
        self.t.get(k)?.as_str()
    }

    pub fn port(&self, k: &str) -> Option<PortRef> {
        ccsim_scenario::parse_port(self.t.get(k)?.as_str()?).ok()
    }

    pub fn ports(&self, k: &str) -> Option<Vec<PortRef>> {
        self.t.get(k)?.as_array()?.iter().map(|x| ccsim_scenario::parse_port(x.as_str()?).ok()).collect()
    }

    pub fn flow(&self, k: &str) -> Option<u32> {
        self.int(k).map(|i| i as u32)
    }

    /// A list of flow ids; None for absent or "all".
    pub fn flows(&self, k: &str) -> Option<Vec<u32>> {
        self.t.get(k)?.as_array()?.iter().map(|x| x.as_integer().map(|i| i as u32)).collect()
    }

    pub fn stat(&self, k: &str) -> Option<Stat> {
        Stat::parse(self.text(k)?).ok()
    }
}
