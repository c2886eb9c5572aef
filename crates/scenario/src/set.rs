//! `--set key.path=value`: overriding any value of a scenario file before it
//! is read, so the override is validated exactly like the file. Paths use
//! the notation of error messages: `network.pfc.static_xoff`,
//! `workload[0].load`, `scheme.hpcc.eta`, `variants.hpcc_star.eta`.

/// One step of a key path.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// Parses `a.b[2].c` into steps; errors name the path.
fn parse_path(path: &str) -> Result<Vec<Step>, String> {
    let bad = |why: &str| format!("--set {path}: {why}");
    if path.trim().is_empty() {
        return Err(bad("empty key path"));
    }
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(bad(&format!("'{part}' is not a key (letters, digits, '_' and '-', then optional [index])")));
        }
        steps.push(Step::Key(key.to_string()));
        while !rest.is_empty() {
            let close = rest.find(']').ok_or_else(|| bad("unclosed '['"))?;
            let idx: usize =
                rest[1..close].trim().parse().map_err(|_| bad(&format!("'{}' is not an index", &rest[..=close])))?;
            steps.push(Step::Index(idx));
            rest = &rest[close + 1..];
            if !rest.is_empty() && !rest.starts_with('[') {
                return Err(bad(&format!("unexpected '{rest}' after an index")));
            }
        }
    }
    Ok(steps)
}

/// Reads a value as written on a command line: TOML (`1.5`, `true`,
/// `"text"`, `[1, 2]`, `{ a = 1 }`), else the text itself as a string
/// (`2us`, `hpcc`).
pub fn parse_value(text: &str) -> toml::Value {
    match toml::from_str::<toml::Table>(&format!("v = {text}")) {
        Ok(mut t) => t.remove("v").unwrap_or_else(|| toml::Value::String(text.to_string())),
        Err(_) => toml::Value::String(text.to_string()),
    }
}

/// Splits `key=value` (the value as [`parse_value`] reads it).
pub fn parse_assignment(arg: &str) -> Result<(String, toml::Value), String> {
    let (k, v) = arg
        .split_once('=')
        .ok_or_else(|| format!("--set {arg}: expected KEY=VALUE, e.g. --set network.pfc.static_xoff=500KB"))?;
    let k = k.trim();
    parse_path(k)?;
    Ok((k.to_string(), parse_value(v.trim())))
}

/// Sets `path` to `value` in `doc`, creating missing tables on the way;
/// an index must name an existing array element.
pub fn apply(doc: &mut toml::Table, path: &str, value: toml::Value) -> Result<(), String> {
    let steps = parse_path(path)?;
    let mut here = Here::Table(doc);
    let mut done = String::new();
    for (i, step) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        let next_is_index = matches!(steps.get(i + 1), Some(Step::Index(_)));
        here = match (here, step) {
            (Here::Table(t), Step::Key(k)) => {
                if !done.is_empty() {
                    done.push('.');
                }
                done.push_str(k);
                if last {
                    t.insert(k.clone(), value);
                    return Ok(());
                }
                if !t.contains_key(k) {
                    if next_is_index {
                        return Err(format!("--set {path}: {done} does not exist (an index needs an existing list)"));
                    }
                    t.insert(k.clone(), toml::Value::Table(toml::Table::new()));
                }
                Here::from(t.get_mut(k).expect("just checked"))
            }
            (Here::Array(a), Step::Index(n)) => {
                let len = a.len();
                if *n >= len {
                    return Err(format!(
                        "--set {path}: {done}[{n}] does not exist ({done} has {len} entr{}{})",
                        if len == 1 { "y" } else { "ies" },
                        if len > 0 { format!(", {done}[0]..{done}[{}]", len - 1) } else { String::new() }
                    ));
                }
                done.push_str(&format!("[{n}]"));
                if last {
                    a[*n] = value;
                    return Ok(());
                }
                Here::from(&mut a[*n])
            }
            (Here::Scalar, _) => return Err(format!("--set {path}: {done} is a value, not a table or list")),
            (Here::Table(_), Step::Index(_)) => return Err(format!("--set {path}: {done} is a table, not a list")),
            (Here::Array(_), Step::Key(k)) => {
                return Err(format!("--set {path}: {done} is a list: give an index before .{k}, e.g. {done}[0].{k}"))
            }
        };
    }
    Ok(())
}

enum Here<'a> {
    Table(&'a mut toml::Table),
    Array(&'a mut Vec<toml::Value>),
    Scalar,
}

impl<'a> From<&'a mut toml::Value> for Here<'a> {
    fn from(v: &'a mut toml::Value) -> Here<'a> {
        match v {
            toml::Value::Table(t) => Here::Table(t),
            toml::Value::Array(a) => Here::Array(a),
            _ => Here::Scalar,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> toml::Table {
        toml::from_str("seed = 1\n[network]\nmtu = 1000\n[[workload]]\nload = 0.3\n[[workload]]\nload = 0.5\n").unwrap()
    }

    #[test]
    fn paths_and_values() {
        assert_eq!(
            parse_path("workload[1].load").unwrap(),
            vec![Step::Key("workload".into()), Step::Index(1), Step::Key("load".into())]
        );
        assert!(parse_path("a..b").is_err());
        assert!(parse_path("a[x]").is_err());
        assert!(parse_path("a[1").is_err());
        assert_eq!(parse_value("1.5"), toml::Value::Float(1.5));
        assert_eq!(parse_value("7"), toml::Value::Integer(7));
        assert_eq!(parse_value("true"), toml::Value::Boolean(true));
        assert_eq!(parse_value("2us"), toml::Value::String("2us".into()));
        assert_eq!(parse_value("\"hpcc\""), toml::Value::String("hpcc".into()));
        assert_eq!(parse_value("[1, 2]"), toml::Value::Array(vec![1.into(), 2.into()]));
        assert!(parse_assignment("seed").unwrap_err().contains("KEY=VALUE"));
        assert_eq!(parse_assignment("network.mtu = 1500").unwrap(), ("network.mtu".into(), 1500.into()));
    }

    #[test]
    fn apply_sets_existing_and_new_keys() {
        let mut d = doc();
        apply(&mut d, "workload[1].load", 0.8.into()).unwrap();
        apply(&mut d, "network.pfc.static_xoff", "500KB".into()).unwrap();
        apply(&mut d, "seed", 3.into()).unwrap();
        assert_eq!(d["workload"].as_array().unwrap()[1]["load"].as_float(), Some(0.8));
        assert_eq!(d["workload"].as_array().unwrap()[0]["load"].as_float(), Some(0.3));
        assert_eq!(d["network"]["pfc"]["static_xoff"].as_str(), Some("500KB"));
        assert_eq!(d["network"]["mtu"].as_integer(), Some(1000));
        assert_eq!(d["seed"].as_integer(), Some(3));
    }

    #[test]
    fn apply_refuses_what_cannot_be_set() {
        let mut d = doc();
        let e = apply(&mut d, "workload[2].load", 0.8.into()).unwrap_err();
        assert!(e.contains("workload[2] does not exist (workload has 2 entries, workload[0]..workload[1])"), "{e}");
        let e = apply(&mut d, "workload.load", 0.8.into()).unwrap_err();
        assert!(e.contains("workload is a list"), "{e}");
        let e = apply(&mut d, "seed.x", 1.into()).unwrap_err();
        assert!(e.contains("seed is a value"), "{e}");
        let e = apply(&mut d, "trace.flows[0]", 1.into()).unwrap_err();
        assert!(e.contains("trace does not exist") || e.contains("trace.flows does not exist"), "{e}");
    }
}
