//! Quantities with units as they appear in scenario files: durations ("1.5us"),
//! byte sizes ("32MB", "500KiB", or a plain integer of bytes) and rates
//! ("100Gbps", "25G"). A value with a missing or unknown unit is refused with a
//! message that names the value and the units accepted.

use crate::time::{Time, SEC};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Longest duration (or time) a scenario may give: 10^6 s of simulated time
/// (about 11.6 days), so that sums of times never overflow `Time`.
pub const MAX_DURATION: Time = 1_000_000 * SEC;
/// Largest size: 10 TB, so that sums over many flows never overflow.
pub const MAX_BYTES: u64 = 10_000_000_000_000;
/// Highest rate: 1 Pbps.
pub const MAX_RATE: u64 = 1_000_000_000_000_000;

/// `v` x `mult` as a whole number of the base unit (ps, bytes, bps), refused
/// above `max` and when it is not whole ("0.5ps", "0.5B": no silent rounding;
/// a decimal written exactly, "1.1us", is whole up to float error).
fn scaled(s: &str, what: &str, unit: &str, v: f64, mult: f64, max: u64, max_text: &str) -> Result<u64, String> {
    let exact = v * mult;
    let x = exact.round();
    if x.is_nan() || x > max as f64 {
        return Err(format!("invalid {what} '{s}': too large (at most {max_text})"));
    }
    // a value within float error of a whole number reads as it, but never
    // as 0: "1e-30s" is refused as "0.4ps" is
    if (exact - x).abs() > 1e-6 + exact.abs() * 1e-9 || (x == 0.0 && exact > 0.0) {
        return Err(format!("invalid {what} '{s}': {exact} {unit} is not a whole number of {unit}"));
    }
    Ok(x as u64)
}

/// A duration in picoseconds, written "10us", "1.5 ms", "800ns", "2s", "50ps".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
pub struct Dur(pub Time);

/// A size in bytes, written as an integer (bytes) or "64KB", "32MB", "1.5MiB", "1000B".
/// KB/MB/GB are decimal (1000), KiB/MiB/GiB binary (1024).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
pub struct Bytes(pub u64);

/// A rate in bits per second, written "100Gbps", "100G", "25 Gb/s", "40Mbps", "10Gbit".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
pub struct Rate(pub u64);

fn split_num(s: &str) -> Option<(f64, String)> {
    let s = s.trim();
    let idx = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
        .unwrap_or(s.len());
    // 'e' could start a unit like "e"? none of our units start with e, fine.
    let (n, u) = s.split_at(idx);
    let v: f64 = n.trim().parse().ok()?;
    Some((v, u.trim().to_string()))
}

pub fn parse_dur(s: &str) -> Result<Time, String> {
    let err = || {
        format!(
            "invalid duration '{s}': expected a non-negative number with a unit (ps, ns, us, ms, s), e.g. \"1.5us\""
        )
    };
    let (v, u) = split_num(s).ok_or_else(err)?;
    let mult = match u.as_str() {
        "ps" => 1.0,
        "ns" => 1e3,
        "us" | "µs" => 1e6,
        "ms" => 1e9,
        "s" | "sec" => 1e12,
        _ => return Err(err()),
    };
    if !(v.is_finite() && v >= 0.0) {
        return Err(err());
    }
    scaled(s, "duration", "ps", v, mult, MAX_DURATION, "1000000s, about 11.6 days of simulated time")
}

pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let err = || {
        format!("invalid size '{s}': expected a non-negative number of bytes, optionally with a unit (B, KB, MB, GB, KiB, MiB, GiB), e.g. \"32MB\"")
    };
    let (v, u) = split_num(s).ok_or_else(err)?;
    let mult = match u.as_str() {
        "" | "B" => 1.0,
        "KB" | "kB" | "K" => 1e3,
        "MB" | "M" => 1e6,
        "GB" | "G" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(err()),
    };
    if !(v.is_finite() && v >= 0.0) {
        return Err(err());
    }
    scaled(s, "size", "bytes", v, mult, MAX_BYTES, "10TB")
}

pub fn parse_rate(s: &str) -> Result<u64, String> {
    let err = || {
        format!("invalid rate '{s}': expected a positive number with a unit (bps, Kbps, Mbps, Gbps, Tbps; also K/M/G/T or Gb/s), e.g. \"100Gbps\"")
    };
    let (v, u) = split_num(s).ok_or_else(err)?;
    let u = u.replace("b/s", "bps").replace("bit", "bps");
    let mult = match u.as_str() {
        "bps" => 1.0,
        "K" | "Kbps" | "kbps" => 1e3,
        "M" | "Mbps" => 1e6,
        "G" | "Gbps" => 1e9,
        "T" | "Tbps" => 1e12,
        _ => return Err(err()),
    };
    if !(v.is_finite() && v > 0.0) {
        return Err(err());
    }
    if v * mult < 1.0 {
        return Err(format!("invalid rate '{s}': below 1 bps"));
    }
    match scaled(s, "rate", "bps", v, mult, MAX_RATE, "1000Tbps")? {
        0 => Err(format!("invalid rate '{s}': below 1 bps")),
        r => Ok(r),
    }
}

pub fn fmt_dur(t: Time) -> String {
    if t == 0 {
        "0us".into()
    } else if t.is_multiple_of(crate::time::MS) {
        format!("{}ms", t / crate::time::MS)
    } else if t.is_multiple_of(crate::time::US) {
        format!("{}us", t / crate::time::US)
    } else if t.is_multiple_of(crate::time::NS) {
        format!("{}ns", t / crate::time::NS)
    } else {
        format!("{}ps", t)
    }
}

pub fn fmt_rate(r: u64) -> String {
    if r.is_multiple_of(1_000_000_000) {
        format!("{}Gbps", r / 1_000_000_000)
    } else if r.is_multiple_of(1_000_000) {
        format!("{}Mbps", r / 1_000_000)
    } else {
        format!("{}bps", r)
    }
}

pub fn fmt_bytes(b: u64) -> String {
    if b != 0 && b.is_multiple_of(1_000_000) {
        format!("{}MB", b / 1_000_000)
    } else if b != 0 && b.is_multiple_of(1000) {
        format!("{}KB", b / 1000)
    } else {
        format!("{}B", b)
    }
}

impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&fmt_dur(self.0))
    }
}
impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&fmt_bytes(self.0))
    }
}
impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&fmt_rate(self.0))
    }
}

impl Serialize for Dur {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&fmt_dur(self.0))
    }
}
impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&fmt_bytes(self.0))
    }
}
impl Serialize for Rate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&fmt_rate(self.0))
    }
}

struct V<F>(&'static str, F);
impl<'de, T, F: Fn(&str) -> Result<T, String>> de::Visitor<'de> for V<F> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.0)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        (self.1)(v).map_err(E::custom)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        (self.1)(&v.to_string()).map_err(E::custom)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        (self.1)(&v.to_string()).map_err(E::custom)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        (self.1)(&v.to_string()).map_err(E::custom)
    }
}

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(V("a duration with a unit, e.g. \"1.5us\"", |s: &str| parse_dur(s).map(Dur)))
    }
}
impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(V("a size, e.g. \"32MB\" or 1000", |s: &str| parse_bytes(s).map(Bytes)))
    }
}
impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(V("a rate with a unit, e.g. \"100Gbps\"", |s: &str| parse_rate(s).map(Rate)))
    }
}

/// 1234567 -> "1,234,567": counts in messages and tables.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn parses_units_and_refuses_bad_ones() {
        assert_eq!(parse_dur("1.5us").unwrap(), 1_500_000);
        assert_eq!(parse_dur("300 ns").unwrap(), 300_000);
        assert!(parse_dur("3").unwrap_err().contains("'3'"));
        assert!(parse_dur("4 parsecs").is_err());
        assert!(parse_dur("-1us").is_err());
        assert_eq!(parse_bytes("32MB").unwrap(), 32_000_000);
        assert_eq!(parse_bytes("4KiB").unwrap(), 4096);
        assert_eq!(parse_bytes("1000").unwrap(), 1000);
        assert!(parse_bytes("12 apples").is_err());
        assert_eq!(parse_rate("100Gbps").unwrap(), 100_000_000_000);
        assert_eq!(parse_rate("25G").unwrap(), 25_000_000_000);
        assert_eq!(parse_rate("40 Mbps").unwrap(), 40_000_000);
        assert_eq!(parse_rate("10Gb/s").unwrap(), 10_000_000_000);
        assert!(parse_rate("0Gbps").is_err());
        assert!(parse_rate("100").is_err());
        assert_eq!(fmt_dur(1_500_000), "1500ns");
        // nothing is clamped: too large or too small values are refused
        assert!(parse_dur("1e30s").unwrap_err().contains("too large (at most 1000000s"));
        assert_eq!(parse_dur("1000000s").unwrap(), MAX_DURATION);
        assert!(parse_bytes("1e30B").unwrap_err().contains("too large (at most 10TB)"));
        assert!(parse_bytes("18446744073709551615").unwrap_err().contains("too large"));
        assert!(parse_rate("0.1bps").unwrap_err().contains("below 1 bps"));
        assert!(parse_rate("1e30Gbps").unwrap_err().contains("too large"));
        assert!(parse_dur("NaNs").is_err() && parse_bytes("inf").is_err());
        // issue 25: below the resolution was rounded silently ("0.5ps" -> 0, "0.5B" -> 1 byte)
        assert!(parse_dur("0.5ps").unwrap_err().contains("not a whole number of ps"));
        // not zero, so not rounded to it however small
        for s in ["0.4ps", "1e-30s", "0.0000001ps", "1e-20ns"] {
            assert!(parse_dur(s).unwrap_err().contains("not a whole number of ps"), "{s}");
        }
        assert!(parse_bytes("1e-30B").unwrap_err().contains("not a whole number of bytes"));
        assert_eq!((parse_dur("0s"), parse_dur("0.0ps"), parse_bytes("0")), (Ok(0), Ok(0), Ok(0)));
        assert!(parse_dur("1.0004ns").unwrap_err().contains("not a whole number of ps"));
        assert!(parse_bytes("0.5B").unwrap_err().contains("not a whole number of bytes"));
        assert!(parse_bytes("1.0001KB").unwrap_err().contains("not a whole number of bytes"));
        assert!(parse_rate("1.5bps").unwrap_err().contains("not a whole number of bps"));
        // decimals that are whole in the base unit still read exactly
        assert_eq!(parse_dur("1.1us").unwrap(), 1_100_000);
        assert_eq!(parse_dur("0.3us").unwrap(), 300_000);
        assert_eq!(parse_dur("1930ns").unwrap(), 1_930_000);
        assert_eq!(parse_bytes("1.5MiB").unwrap(), 1_572_864);
        assert_eq!(parse_bytes("4.952KB").unwrap(), 4952);
        assert_eq!(parse_rate("2.5Gbps").unwrap(), 2_500_000_000);
        assert_eq!(fmt_rate(100_000_000_000), "100Gbps");
    }
}
