//! Scheme names -> factories.
//!
//! A scheme is registered through its configuration type, which implements
//! [`SchemeConfig`]: the type knows the scheme's name, a one-line summary, the
//! documentation of each parameter, and how to turn a finished configuration into
//! a [`Scheme`]. The registry does the rest for every scheme alike: it lays the
//! scenario's `[scheme.NAME]` table over the scheme's base configuration (its
//! defaults, or a preset the table selects), refuses unknown keys and bad values
//! with a message that names `scheme.NAME.key` and the value, and lists every
//! parameter with its default for `ccsim list`.

use ccsim_core::Scheme;
use serde::{de::DeserializeOwned, Serialize};
use toml::{Table, Value};

/// One parameter of a scheme, for listings.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamInfo {
    pub name: &'static str,
    /// The default as a TOML value (e.g. `"55us"`, `0.95`, `true`).
    pub default: String,
    pub doc: &'static str,
}

/// A registered scheme, for listings.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemeInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: Vec<ParamInfo>,
}

/// Implemented by each scheme's configuration type; this is all the registry
/// needs to parse, list and build the scheme.
///
/// Every field of the configuration must serialize to a TOML key (no `Option`
/// fields: use a documented sentinel such as 0 for "off") and be listed in
/// [`SchemeConfig::PARAMS`]; the registry's tests check this for every scheme.
pub trait SchemeConfig: Serialize + DeserializeOwned + Default {
    /// Registry name, as written in scenario files (`scheme = "dcqcn"`).
    const NAME: &'static str;
    /// One line for `ccsim list`.
    const SUMMARY: &'static str;
    /// `(key, doc)` for every parameter, in the order listings show them.
    const PARAMS: &'static [(&'static str, &'static str)];

    /// The configuration the scenario's keys are laid over. Schemes with presets
    /// read the preset key from `table` here; the default is [`Default`].
    /// Errors are `(key, message)`.
    fn base(_table: &Table) -> Result<Self, (&'static str, String)> {
        Ok(Self::default())
    }

    /// Checks that serde cannot express (ranges, combinations).
    /// Errors are `(key, message)`.
    fn validate(&self) -> Result<(), (&'static str, String)> {
        Ok(())
    }

    /// The scheme this configuration describes.
    fn into_scheme(self) -> Box<dyn Scheme>;
}

type MakeFn = fn(Option<&Value>) -> Result<Box<dyn Scheme>, String>;

struct Entry {
    name: &'static str,
    summary: &'static str,
    /// `(key, doc)` of each parameter.
    params: &'static [(&'static str, &'static str)],
    /// The default configuration as a TOML table.
    defaults: fn() -> Table,
    make: MakeFn,
    resolve: fn(Option<&Value>) -> Result<Table, String>,
}

impl Entry {
    const fn of<C: SchemeConfig>() -> Entry {
        Entry {
            name: C::NAME,
            summary: C::SUMMARY,
            params: C::PARAMS,
            defaults: default_table::<C>,
            make: make_scheme::<C>,
            resolve: resolve::<C>,
        }
    }
}

/// Every scheme, in the order listings show them. One line per scheme.
const SCHEMES: &[Entry] = &[
    Entry::of::<crate::none::NoneConfig>(),
    Entry::of::<crate::dcqcn::DcqcnConfig>(),
    Entry::of::<crate::hpcc::HpccConfig>(),
    Entry::of::<crate::pcn::PcnConfig>(),
    Entry::of::<crate::powertcp::PowerTcpConfig>(),
    Entry::of::<crate::powertcp::ThetaPowerTcpConfig>(),
    Entry::of::<crate::dctcp::DctcpConfig>(),
    Entry::of::<crate::swift::SwiftConfig>(),
    Entry::of::<crate::timely::TimelyConfig>(),
    Entry::of::<crate::patched_timely::PatchedTimelyConfig>(),
    Entry::of::<crate::bolt::BoltConfig>(),
    Entry::of::<crate::fncc::FnccConfig>(),
    Entry::of::<crate::sqcc::SqccConfig>(),
    Entry::of::<crate::srcc::SrccConfig>(),
    Entry::of::<crate::oscar::OscarConfig>(),
    Entry::of::<crate::nscc::NsccConfig>(),
];

/// Names of all registered schemes.
pub fn names() -> Vec<&'static str> {
    SCHEMES.iter().map(|e| e.name).collect()
}

/// Every scheme with its summary and parameters (for `ccsim list`).
pub fn describe() -> Vec<SchemeInfo> {
    SCHEMES.iter().map(|e| SchemeInfo { name: e.name, summary: e.summary, params: param_info(e) }).collect()
}

/// Builds scheme `name` from the scenario's `[scheme.NAME]` table, if any.
/// Unknown keys and bad values give an error naming `scheme.NAME.key` and the
/// value; an unknown scheme name gives an error listing the known names.
pub fn make(name: &str, params: Option<&Value>) -> Result<Box<dyn Scheme>, String> {
    match SCHEMES.iter().find(|e| e.name == name) {
        Some(e) => (e.make)(params),
        None => Err(format!("unknown congestion-control scheme '{name}'; known schemes: {}", names().join(", "))),
    }
}

/// The complete configuration scheme `name` runs with, given its
/// `[scheme.NAME]` table: every parameter, defaults included (so two tables
/// that differ only by writing out a default resolve alike).
pub fn resolved(name: &str, params: Option<&Value>) -> Result<Table, String> {
    match SCHEMES.iter().find(|e| e.name == name) {
        Some(e) => (e.resolve)(params),
        None => Err(format!("unknown congestion-control scheme '{name}'; known schemes: {}", names().join(", "))),
    }
}

fn resolve<C: SchemeConfig>(params: Option<&Value>) -> Result<Table, String> {
    to_table::<C>(&config::<C>(params)?)
}

/// Parses and validates the configuration of scheme `C` from its
/// `[scheme.NAME]` table, as [`make`] does, and returns it (for tools that show
/// the effective parameters, and for tests).
pub fn config<C: SchemeConfig>(params: Option<&Value>) -> Result<C, String> {
    let empty = Table::new();
    let table = match params {
        None => &empty,
        Some(Value::Table(t)) => t,
        Some(other) => return Err(format!("scheme.{} must be a table of parameters, found {other}", C::NAME)),
    };
    // (a float as written when it is huge or tiny: 1e300, not 301 digits)
    let show = |v: &Value| match v {
        Value::Float(f) if f.is_finite() && (f.abs() >= 1e16 || (*f != 0.0 && f.abs() < 1e-6)) => format!("{f:e}"),
        v => v.to_string(),
    };
    let err = |key: &str, value: Option<&Value>, msg: &str| match value {
        Some(v) => format!("scheme.{}.{key} = {}: {msg}", C::NAME, show(v)),
        None => format!("scheme.{}.{key}: {msg}", C::NAME),
    };

    let base = C::base(table).map_err(|(k, m)| err(k, table.get(k), &m))?;
    let base = to_table::<C>(&base)?;

    // Each key on its own first, so an error names the key that caused it.
    for (key, value) in table {
        if !base.contains_key(key) {
            let known: Vec<&str> = C::PARAMS.iter().map(|(k, _)| *k).collect();
            return Err(err(key, Some(value), &format!("unknown parameter; {} takes: {}", C::NAME, known.join(", "))));
        }
        let mut one = base.clone();
        one.insert(key.clone(), value.clone());
        if let Err(e) = Value::Table(one).try_into::<C>() {
            return Err(err(key, Some(value), &de_message(&e)));
        }
    }

    let mut merged = base;
    for (key, value) in table {
        merged.insert(key.clone(), value.clone());
    }
    let cfg: C =
        Value::Table(merged.clone()).try_into().map_err(|e| format!("scheme.{}: {}", C::NAME, de_message(&e)))?;
    cfg.validate().map_err(|(k, m)| err(k, merged.get(k), &m))?;
    Ok(cfg)
}

/// A deserialization error without the trailing "in `key`" lines toml adds
/// (our messages name the key already).
fn de_message(e: &toml::de::Error) -> String {
    let text = e.to_string();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with("in `")).collect();
    lines.join(" ").trim().to_string()
}

fn make_scheme<C: SchemeConfig>(params: Option<&Value>) -> Result<Box<dyn Scheme>, String> {
    Ok(config::<C>(params)?.into_scheme())
}

fn to_table<C: SchemeConfig>(cfg: &C) -> Result<Table, String> {
    match Value::try_from(cfg) {
        Ok(Value::Table(t)) => Ok(t),
        Ok(_) => Err(format!("scheme.{}: configuration is not a table", C::NAME)),
        Err(e) => Err(format!("scheme.{}: cannot serialize configuration: {e}", C::NAME)),
    }
}

fn default_table<C: SchemeConfig>() -> Table {
    C::base(&Table::new()).ok().and_then(|c| to_table::<C>(&c).ok()).unwrap_or_default()
}

fn param_info(e: &Entry) -> Vec<ParamInfo> {
    let defaults = (e.defaults)();
    e.params
        .iter()
        .map(|&(name, doc)| ParamInfo {
            name,
            default: defaults.get(name).map(|v| v.to_string()).unwrap_or_default(),
            doc,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dcqcn::{DcqcnConfig, Preset, RpModel};
    use crate::hpcc::HpccConfig;
    use ccsim_core::units::{Bytes, Dur, Rate};

    fn table(src: &str) -> Value {
        Value::Table(src.parse::<Table>().unwrap())
    }

    #[test]
    fn names_and_unknown_scheme() {
        // The first schemes in order; later ones only need unique names.
        assert_eq!(names()[..3], ["none", "dcqcn", "hpcc"]);
        let mut unique = names();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names().len(), "duplicate scheme names");
        let e = make("cubic", None).err().unwrap();
        assert!(e.contains("'cubic'"), "{e}");
        assert!(e.contains("none, dcqcn, hpcc"), "{e}");
        for n in names() {
            assert_eq!(make(n, None).unwrap().name(), n);
        }
    }

    #[test]
    fn unknown_key_names_key_and_value() {
        let e = make("dcqcn", Some(&table("rate_aii = \"5Mbps\""))).err().unwrap();
        assert!(e.starts_with("scheme.dcqcn.rate_aii = \"5Mbps\""), "{e}");
        assert!(e.contains("rate_ai,"), "lists known keys: {e}");
        let e = make("hpcc", Some(&table("etaa = 1.5"))).err().unwrap();
        assert!(e.starts_with("scheme.hpcc.etaa = 1.5"), "{e}");
    }

    #[test]
    fn bad_value_names_key_and_value() {
        let e = make("dcqcn", Some(&table("alpha_interval = \"55\""))).err().unwrap();
        assert!(e.starts_with("scheme.dcqcn.alpha_interval = \"55\""), "{e}");
        assert!(e.contains("duration"), "{e}");
        assert!(!e.contains('\n'), "one line: {e}");
        let e = make("hpcc", Some(&table("window = 3"))).err().unwrap();
        assert!(e.starts_with("scheme.hpcc.window = 3"), "{e}");
        let e = make("dcqcn", Some(&table("preset = \"fast\""))).err().unwrap();
        assert!(e.starts_with("scheme.dcqcn.preset = \"fast\""), "{e}");
        // Range checks after parsing also name the key.
        let e = make("dcqcn", Some(&table("g = 0"))).err().unwrap();
        assert!(e.starts_with("scheme.dcqcn.g = 0"), "{e}");
        let e = make("hpcc", Some(&table("eta = -1.0"))).err().unwrap();
        assert!(e.starts_with("scheme.hpcc.eta = -1.0"), "{e}");
        let e = make("none", Some(&Value::Integer(3))).err().unwrap();
        assert!(e.contains("scheme.none must be a table"), "{e}");
    }

    #[test]
    fn presets_and_overrides() {
        let c: DcqcnConfig = config(None).unwrap();
        assert_eq!(c, DcqcnConfig::paper());
        let c: DcqcnConfig = config(Some(&table("preset = \"hpcc\""))).unwrap();
        assert_eq!(c, DcqcnConfig::hpcc());
        // A field given next to the preset overrides the preset's value only.
        let c: DcqcnConfig = config(Some(&table("preset = \"hpcc\"\nrate_ai = \"30Mbps\"\ng = 0.0625"))).unwrap();
        assert_eq!(c.preset, Preset::Hpcc);
        assert_eq!(c.rp_model, RpModel::Mlx);
        assert_eq!(c.rate_ai, Rate(30_000_000));
        assert_eq!(c.g, 0.0625);
        assert_eq!(c.rate_increase_interval, Dur(300 * ccsim_core::time::US));
        assert_eq!(c.byte_counter, Bytes(0));
        // Integers are accepted for float parameters.
        let h: HpccConfig = config(Some(&table("eta = 1\nmax_stage = 0"))).unwrap();
        assert_eq!(h.eta, 1.0);
        assert_eq!(h.max_stage, 0);
    }

    #[test]
    fn params_listed_match_config_fields() {
        for (info, e) in describe().iter().zip(SCHEMES) {
            assert!(!info.summary.is_empty());
            let defaults = (e.defaults)();
            assert!(!defaults.is_empty(), "{}: default configuration", info.name);
            let mut listed: Vec<&str> = info.params.iter().map(|p| p.name).collect();
            let mut fields: Vec<&str> = defaults.keys().map(|k| k.as_str()).collect();
            listed.sort();
            fields.sort();
            assert_eq!(listed, fields, "{}: PARAMS must list every config field", info.name);
            for p in &info.params {
                assert!(!p.doc.is_empty() && !p.default.is_empty(), "{}.{}", info.name, p.name);
                // Every listed default is accepted when written back.
                let src = format!("{} = {}", p.name, p.default);
                (e.make)(Some(&table(&src))).unwrap_or_else(|err| panic!("{src}: {err}"));
            }
        }
    }
}
