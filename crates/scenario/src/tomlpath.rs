//! Turning TOML errors into messages a person can act on: the file, the
//! dotted key path (`topology.delay`, `workload[1].load`), the value as
//! written, the line, and the offending source line.
//!
//! `toml` reports where an error is as a byte span. Errors raised inside a
//! `kind`-tagged enum (topology, workload) only carry the span of the whole
//! table (serde reads such a table from a copy without positions), so the
//! key is then recovered by reading the table again key by key (a
//! [`Reader`]: the key whose value alone gives the same error), or else from
//! the names and values the error message quotes.

use std::ops::Range;
use toml::de::{DeArray, DeTable, DeValue};

/// Where in a document an error points.
#[derive(Clone, Debug, PartialEq)]
pub struct Located {
    /// Dotted key path, e.g. `topology.delay` or `workload[0].cdf`.
    pub path: String,
    /// The value as written (TOML syntax, shortened), if the key exists.
    pub value: Option<String>,
    /// 1-based line and column of the key or value.
    pub line: usize,
    pub column: usize,
    /// Length in bytes of what is pointed at (for the marker under it).
    pub len: usize,
}

/// 1-based (line, column) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
    (line, col)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Short TOML rendering of a value for messages.
fn render(v: &DeValue) -> String {
    let s = match v {
        DeValue::String(s) => toml::Value::String(s.to_string()).to_string(),
        DeValue::Integer(i) => i.as_str().to_string(),
        DeValue::Float(f) => f.as_str().to_string(),
        DeValue::Boolean(b) => b.to_string(),
        DeValue::Datetime(d) => d.to_string(),
        DeValue::Array(a) => {
            let items: Vec<String> = a.iter().map(|x| render(x.get_ref())).collect();
            format!("[{}]", items.join(", "))
        }
        DeValue::Table(_) => "{...}".to_string(),
    };
    if s.chars().count() > 60 {
        let cut: String = s.chars().take(57).collect();
        format!("{cut}...")
    } else {
        s
    }
}

/// The plain text of a scalar (strings unquoted), used to match names quoted in messages.
fn scalar_text(v: &DeValue) -> Option<String> {
    match v {
        DeValue::String(s) => Some(s.to_string()),
        DeValue::Integer(i) => Some(i.as_str().to_string()),
        DeValue::Float(f) => Some(f.as_str().to_string()),
        DeValue::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

fn contains(outer: &Range<usize>, inner: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end.max(outer.start + 1)
}

struct Found<'a, 'i> {
    path: String,
    value: Option<&'a DeValue<'i>>,
    span: Range<usize>,
    /// When this is an element of an array (of tables): the array, its
    /// path and the element's index.
    array: Option<(&'a DeArray<'i>, String, usize)>,
}

fn join(prefix: &str, key: &str) -> String {
    let bare = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let key = if bare { key.to_string() } else { toml::Value::String(key.to_string()).to_string() };
    if prefix.is_empty() {
        key
    } else {
        format!("{prefix}.{key}")
    }
}

/// Deepest key whose key or value span contains `span`.
fn walk<'a, 'i>(table: &'a DeTable<'i>, prefix: &str, span: &Range<usize>, best: &mut Option<Found<'a, 'i>>) {
    for (k, v) in table.iter() {
        let path = join(prefix, k.get_ref());
        if contains(&k.span(), span) {
            *best = Some(Found { path: path.clone(), value: Some(v.get_ref()), span: k.span(), array: None });
        }
        walk_value(v.get_ref(), v.span(), &path, None, span, best);
    }
}

fn walk_value<'a, 'i>(
    v: &'a DeValue<'i>,
    vspan: Range<usize>,
    path: &str,
    array: Option<(&'a DeArray<'i>, &str, usize)>,
    span: &Range<usize>,
    best: &mut Option<Found<'a, 'i>>,
) {
    if contains(&vspan, span) {
        let array = array.map(|(a, p, i)| (a, p.to_string(), i));
        *best = Some(Found { path: path.to_string(), value: Some(v), span: vspan.clone(), array });
    }
    match v {
        DeValue::Table(t) => walk(t, path, span, best),
        DeValue::Array(a) => {
            for (i, item) in a.iter().enumerate() {
                walk_value(item.get_ref(), item.span(), &format!("{path}[{i}]"), Some((a, path, i)), span, best);
            }
        }
        _ => {}
    }
}

/// The key of `t` the message names: a key equal to a quoted token, or a
/// key whose scalar value is one.
fn named_key<'a, 'i>(
    t: &'a DeTable<'i>,
    tokens: &[String],
) -> Option<(&'a toml::Spanned<std::borrow::Cow<'i, str>>, &'a toml::Spanned<DeValue<'i>>)> {
    tokens.iter().find_map(|tok| {
        t.iter().find(|(k, v)| {
            (!tok.is_empty() && k.get_ref().as_ref() == tok.as_str())
                || scalar_text(v.get_ref()).as_deref() == Some(tok.as_str())
        })
    })
}

/// The tables of `array` after element `from`, in order, with their paths and spans.
fn later_tables<'a, 'i>(
    array: &'a DeArray<'i>,
    path: &str,
    from: usize,
) -> impl Iterator<Item = (String, &'a DeTable<'i>, Range<usize>)> + 'a {
    let path = path.to_string();
    array.iter().enumerate().skip(from + 1).filter_map(move |(i, item)| match item.get_ref() {
        DeValue::Table(t) => Some((format!("{path}[{i}]"), t, item.span())),
        _ => None,
    })
}

/// Names and values a serde message quotes (`x`, 'x' or "x", possibly
/// empty), before its "expected ..." / "e.g. ..." part, which quotes
/// examples rather than what is wrong.
fn quoted_tokens(msg: &str) -> Vec<String> {
    let mut out = Vec::new();
    let end = ["expected", "e.g."].iter().filter_map(|w| msg.find(w)).min().unwrap_or(msg.len());
    let chars: Vec<char> = msg[..end].chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let q = chars[i];
        if q == '`' || q == '\'' || q == '"' {
            if let Some(len) = chars[i + 1..].iter().position(|&c| c == q) {
                out.push(chars[i + 1..i + 1 + len].iter().collect());
                i += len + 2;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Reads the table at a key path (`topology`, `workload[2]`) as the file's
/// format would and returns the error message (`Ok` for paths it does not
/// know): lets [`locate_with`] find the key an error in a whole table is about.
pub type Reader<'a> = &'a dyn Fn(&str, &toml::Table) -> Result<(), String>;

/// The value at a key path such as `workload[1]` in a parsed document.
fn value_at<'a>(doc: &'a toml::Table, path: &str) -> Option<&'a toml::Value> {
    let mut table = Some(doc);
    let mut cur = None;
    for part in path.split('.') {
        let (key, idx) = match part.find('[') {
            Some(b) => (&part[..b], &part[b..]),
            None => (part, ""),
        };
        let mut v = table?.get(key)?;
        for n in idx.split(['[', ']']).filter(|s| !s.is_empty()) {
            v = v.as_array()?.get(n.parse::<usize>().ok()?)?;
        }
        table = v.as_table();
        cur = Some(v);
    }
    cur
}

/// The key of table `t` (at `path`) whose value alone, beside the table's
/// `kind`, fails to read with `message` (`kind`, `flows`), and when that
/// value is a list, the element that alone fails so (`flows[3]`).
fn culprit(read: Reader, path: &str, t: &toml::Table, message: &str) -> Option<(String, Option<usize>)> {
    let kind: toml::Table = t.iter().filter(|(k, _)| *k == "kind").map(|(k, v)| (k.clone(), v.clone())).collect();
    let fails = |k: &str, v: &toml::Value| {
        let mut one = kind.clone();
        one.insert(k.to_string(), v.clone());
        read(path, &one).err().is_some_and(|e| e.trim_end() == message)
    };
    if read(path, &kind).err().is_some_and(|e| e.trim_end() == message) {
        return t.contains_key("kind").then(|| ("kind".to_string(), None));
    }
    let key = t.keys().filter(|k| *k != "kind").find(|k| fails(k, &t[*k]))?;
    // (when an empty list reads, the list is not itself the mistake)
    let element = match &t[key] {
        toml::Value::Array(a) if !fails(key, &toml::Value::Array(vec![])) => {
            a.iter().position(|x| fails(key, &toml::Value::Array(vec![x.clone()])))
        }
        _ => None,
    };
    Some((key.clone(), element))
}

/// Locates the key an error at `span` refers to. `message` is the error text
/// (used to find the key inside a table when the span covers the whole table).
pub fn locate(text: &str, span: Range<usize>, message: &str) -> Option<Located> {
    locate_with(text, span, message, &|_, _| Ok(()))
}

/// [`locate`], reading a whole table again with `read` to find the key an
/// error in it is about.
pub fn locate_with(text: &str, span: Range<usize>, message: &str, read: Reader) -> Option<Located> {
    let doc = DeTable::parse(text).ok()?;
    let mut best = None;
    walk(doc.get_ref(), "", &span, &mut best);
    let found = best?;
    let mut path = found.path;
    let mut value = found.value.map(render);
    let mut at = found.span;
    if let Some(DeValue::Table(t)) = found.value {
        // The error is about a whole table: find the key the message names.
        // toml points at the first table of an array of tables (an
        // internally tagged `[[workload]]`) whatever element is wrong, so
        // when the message does not fit that table a later one it fits is
        // the culprit (serde reads them in order: the first that fits)
        if let Some(rest) = message.strip_prefix("missing field `") {
            let field = rest.split('`').next().unwrap_or("");
            let has = |t: &DeTable| t.iter().any(|(k, _)| k.get_ref().as_ref() == field);
            if has(t) {
                if let Some((array, array_path, i)) = &found.array {
                    if let Some((p, span)) =
                        later_tables(array, array_path, *i).find(|(_, t, _)| !has(t)).map(|(p, _, s)| (p, s))
                    {
                        path = p;
                        at = span;
                    }
                }
            }
            path = join(&path, field);
            value = None;
        } else {
            // the table (or a later one of its array) read again key by key
            let again = read_again(text, &path, found.array.as_ref(), message, read);
            // a key the message quotes, or a key whose value it quotes
            let tokens = quoted_tokens(message);
            let here = named_key(t, &tokens).map(|kv| (path.clone(), kv)).or_else(|| {
                let (array, array_path, i) = found.array.as_ref()?;
                later_tables(array, array_path, *i).find_map(|(p, t, _)| named_key(t, &tokens).map(|kv| (p, kv)))
            });
            let quoted = match here {
                Some((table_path, (k, v))) => {
                    Some((join(&table_path, k.get_ref()), Some(render(v.get_ref())), k.span()))
                }
                // else a value quoted by the message that appears once in
                // the whole document locates it
                None => tokens
                    .iter()
                    .find_map(|tok| unique_value(doc.get_ref(), tok))
                    .map(|f| (f.path, f.value.map(render), f.span)),
            };
            let within = |p: &str, key: &str| {
                p.strip_prefix(key).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
            };
            match (again, quoted) {
                // the quoted place is inside the key read again (a flow of `flows`): the deeper one
                (Some(key), Some(q)) if within(&q.0, &key) => (path, value, at) = q,
                (Some(key), _) => {
                    // the key's name, or the element of its list
                    if let Some(s) = key_span(doc.get_ref(), &key).or_else(|| span_of(text, &key)) {
                        at = s;
                    }
                    value = toml::from_str(text).ok().and_then(|d| value_at(&d, &key).map(render_value));
                    path = key;
                }
                (None, Some(q)) => (path, value, at) = q,
                (None, None) => {}
            }
        }
    }
    let (line, column) = line_col(text, at.start);
    Some(Located { path, value, line, column, len: at.len() })
}

/// The table at `path` (or, for an element of an array of tables, a later
/// element: toml points at the first whatever element is wrong) and its key
/// that [`culprit`] finds, read with `read`, as a key path (`workload[1].flows[3]`).
fn read_again(
    text: &str,
    path: &str,
    array: Option<&(&DeArray, String, usize)>,
    message: &str,
    read: Reader,
) -> Option<String> {
    let doc: toml::Table = toml::from_str(text).ok()?;
    let mut candidates = vec![path.to_string()];
    if let Some((a, array_path, i)) = array {
        candidates.extend((i + 1..a.len()).map(|j| format!("{array_path}[{j}]")));
    }
    candidates.into_iter().find_map(|p| {
        let t = value_at(&doc, &p)?.as_table()?;
        let (key, element) = culprit(read, &p, t, message)?;
        let key = join(&p, &key);
        Some(match element {
            Some(i) => format!("{key}[{i}]"),
            None => key,
        })
    })
}

/// The span of the key (the name, not the value) at key path `want`.
fn key_span(doc: &DeTable, want: &str) -> Option<Range<usize>> {
    fn in_table(t: &DeTable, prefix: &str, want: &str) -> Option<Range<usize>> {
        t.iter().find_map(|(k, v)| {
            let p = join(prefix, k.get_ref());
            if p == want {
                Some(k.span())
            } else {
                in_value(v.get_ref(), &p, want)
            }
        })
    }
    fn in_value(v: &DeValue, path: &str, want: &str) -> Option<Range<usize>> {
        match v {
            DeValue::Table(t) => in_table(t, path, want),
            DeValue::Array(a) => {
                a.iter().enumerate().find_map(|(i, item)| in_value(item.get_ref(), &format!("{path}[{i}]"), want))
            }
            _ => None,
        }
    }
    in_table(doc, "", want)
}

/// [`render`] for a parsed value.
fn render_value(v: &toml::Value) -> String {
    let s = match v {
        toml::Value::Table(_) => "{...}".to_string(),
        toml::Value::Array(a) => format!("[{}]", a.iter().map(render_value).collect::<Vec<_>>().join(", ")),
        v => v.to_string(),
    };
    if s.chars().count() > 60 {
        let cut: String = s.chars().take(57).collect();
        format!("{cut}...")
    } else {
        s
    }
}

/// The one key in the document whose scalar value is `tok`, if exactly one.
fn unique_value<'a, 'i>(doc: &'a DeTable<'i>, tok: &str) -> Option<Found<'a, 'i>> {
    fn scan<'a, 'i>(v: &'a DeValue<'i>, span: Range<usize>, path: &str, tok: &str, out: &mut Vec<Found<'a, 'i>>) {
        match v {
            DeValue::Table(t) => {
                for (k, x) in t.iter() {
                    let p = join(path, k.get_ref());
                    if scalar_text(x.get_ref()).as_deref() == Some(tok) {
                        out.push(Found { path: p.clone(), value: Some(x.get_ref()), span: k.span(), array: None });
                    }
                    scan(x.get_ref(), x.span(), &p, tok, out);
                }
            }
            DeValue::Array(a) => {
                for (i, item) in a.iter().enumerate() {
                    scan(item.get_ref(), item.span(), &format!("{path}[{i}]"), tok, out);
                }
            }
            _ => {
                let _ = span;
            }
        }
    }
    let mut out = Vec::new();
    for (k, v) in doc.iter() {
        let p = join("", k.get_ref());
        if scalar_text(v.get_ref()).as_deref() == Some(tok) {
            out.push(Found { path: p.clone(), value: Some(v.get_ref()), span: k.span(), array: None });
        }
        scan(v.get_ref(), v.span(), &p, tok, &mut out);
    }
    (out.len() == 1).then(|| out.pop()).flatten()
}

/// Span of the value at a dotted path such as `trace.queues[1]` or `workload[0].cdf`.
pub fn span_of(text: &str, path: &str) -> Option<Range<usize>> {
    let doc = DeTable::parse(text).ok()?;
    let mut cur: (&DeValue, Range<usize>) = (&DeValue::Boolean(false), 0..0);
    let mut table: Option<&DeTable> = Some(doc.get_ref());
    for part in path.split('.') {
        let (key, idx) = match part.find('[') {
            Some(b) => (&part[..b], Some(&part[b..])),
            None => (part, None),
        };
        let t = table?;
        let (_, v) = t.iter().find(|(k, _)| k.get_ref().as_ref() == key)?;
        cur = (v.get_ref(), v.span());
        if let Some(idx) = idx {
            for n in idx.split(['[', ']']).filter(|s| !s.is_empty()) {
                let n: usize = n.parse().ok()?;
                match cur.0 {
                    DeValue::Array(a) => {
                        let item = a.get(n)?;
                        cur = (item.get_ref(), item.span());
                    }
                    _ => return None,
                }
            }
        }
        table = match cur.0 {
            DeValue::Table(t) => Some(t),
            _ => None,
        };
    }
    Some(cur.1)
}

/// 1-based line of the value at a dotted path, if the path exists.
pub fn line_of(text: &str, path: &str) -> Option<usize> {
    span_of(text, path).map(|s| line_col(text, s.start).0)
}

/// The source line `line` with a `^^^` marker under `len` bytes from `column`
/// (1-based), drawn like rustc and `toml` do.
pub fn snippet(text: &str, line: usize, column: usize, len: usize) -> String {
    let Some(src) = text.split('\n').nth(line.saturating_sub(1)) else { return String::new() };
    let src = src.trim_end_matches('\r');
    let gutter = " ".repeat(line.to_string().len());
    let width = src.chars().count();
    let len = len.clamp(1, width.saturating_sub(column - 1).max(1));
    format!("{gutter} |\n{line} | {src}\n{gutter} | {}{}", " ".repeat(column - 1), "^".repeat(len))
}

/// Formats a `toml` deserialization error: `file: path = value: message (line L, column C)`
/// followed by the source line with a marker.
pub fn format_toml_error(file: &str, text: &str, err: &toml::de::Error) -> String {
    format_toml_error_with(file, text, err, &|_, _| Ok(()))
}

/// [`format_toml_error`], finding the key of an error in a whole table with `read` (see [`Reader`]).
pub fn format_toml_error_with(file: &str, text: &str, err: &toml::de::Error, read: Reader) -> String {
    let msg = err.message().trim_end().to_string();
    match err.span() {
        Some(span) => match locate_with(text, span.clone(), &msg, read) {
            Some(loc) => {
                let what = match &loc.value {
                    Some(v) => format!("{} = {}", loc.path, v),
                    None => loc.path.clone(),
                };
                format!(
                    "{file}: {what}: {msg} (line {}, column {})\n{}",
                    loc.line,
                    loc.column,
                    snippet(text, loc.line, loc.column, loc.len)
                )
            }
            None => {
                let (line, column) = line_col(text, span.start);
                format!("{file}: line {line}, column {column}: {msg}\n{}", snippet(text, line, column, span.len()))
            }
        },
        None => format!("{file}: {msg}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "seed = 1\n[topology]\nkind = \"star\"\nhosts = 3\ndelay = \"3\"\n\n[[workload]]\nkind = \"flows\"\n\n[[workload]]\nkind = \"poisson\"\nload = -0.5\n[trace]\nqueues = [\"1:2\", \"3:4\"]\n";

    #[test]
    fn line_and_column() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("ab\ncd", 99), (2, 3));
    }

    #[test]
    fn locates_a_value_span_directly() {
        let start = DOC.find("-0.5").unwrap();
        let loc = locate(DOC, start..start + 4, "bad").unwrap();
        assert_eq!(loc.path, "workload[1].load");
        assert_eq!(loc.value.as_deref(), Some("-0.5"));
        assert_eq!(loc.line, 12);
    }

    #[test]
    fn refines_a_table_span_by_quoted_value_or_key() {
        let start = DOC.find("[topology]").unwrap();
        let span = start..start + "[topology]".len();
        let loc = locate(DOC, span.clone(), "invalid duration '3': expected a unit").unwrap();
        assert_eq!(loc.path, "topology.delay");
        assert_eq!(loc.value.as_deref(), Some("\"3\""));
        assert_eq!(loc.line, 5);
        let loc = locate(DOC, span.clone(), "unknown field `hosts`, expected `x`").unwrap();
        assert_eq!(loc.path, "topology.hosts");
        let loc = locate(DOC, span, "missing field `rate`").unwrap();
        assert_eq!(loc.path, "topology.rate");
        assert_eq!(loc.value, None);
    }

    /// Two incast `[[workload]]` tables; `first` and `second` are spliced into them.
    fn two_incasts(first: &str, second: &str) -> String {
        format!(
            "[topology]\nkind = \"star\"\nhosts = 4\nrate = \"100Gbps\"\ndelay = \"1us\"\n\n\
             [[workload]]\nkind = \"incast\"\nfan_in = 3\nreceiver = 0\n{first}\n\
             [[workload]]\nkind = \"incast\"\nfan_in = 3\nreceiver = 0\n{second}"
        )
    }

    #[test]
    fn a_table_span_of_an_array_of_tables_is_refined_to_the_element_the_message_names() {
        // toml points at the first [[workload]] whichever element is wrong
        let doc = two_incasts("size = \"10KB\"\n", "size = \"10KB\"\nsendrs = 3\n");
        let first = doc.find("[[workload]]").unwrap();
        let span = first..first + "[[workload]]".len();
        let msg = "unknown field `sendrs`, expected one of `senders`, `fan_in`";
        let loc = locate(&doc, span.clone(), msg).unwrap();
        assert_eq!(loc.path, "workload[1].sendrs");
        assert_eq!(loc.value.as_deref(), Some("3"));
        assert_eq!((loc.line, loc.column), (18, 1));
        // the first element still wins when it has the key
        let doc = two_incasts("size = \"10KB\"\nsendrs = 3\n", "size = \"10KB\"\nsendrs = 3\n");
        let loc = locate(&doc, span.clone(), msg).unwrap();
        assert_eq!((loc.path.as_str(), loc.line), ("workload[0].sendrs", 12));
        // a missing field: the first element that lacks it, at its header
        let doc = two_incasts("size = \"10KB\"\n", "");
        let loc = locate(&doc, span.clone(), "missing field `size`").unwrap();
        assert_eq!((loc.path.as_str(), loc.line, loc.value.as_deref()), ("workload[1].size", 13, None));
        let doc = two_incasts("", "size = \"10KB\"\n");
        let loc = locate(&doc, span, "missing field `size`").unwrap();
        assert_eq!((loc.path.as_str(), loc.line), ("workload[0].size", 7));
    }

    #[test]
    fn a_table_error_without_a_quoted_culprit_is_found_by_reading_again() {
        // a reader refusing the value 2 anywhere, as serde would refuse a type
        let read = |_: &str, t: &toml::Table| -> Result<(), String> {
            let two = |v: &toml::Value| v.as_integer() == Some(2);
            let bad = t.values().any(|v| two(v) || v.as_array().is_some_and(|a| a.iter().any(two)));
            if bad {
                Err("invalid value".into())
            } else {
                Ok(())
            }
        };
        let doc = "[[w]]\nkind = \"a\"\nx = 1\n[[w]]\nkind = \"a\"\nx = 1\ny = [1, 1, 2]\n";
        let first = doc.find("[[w]]").unwrap();
        // toml points at the first table: the second, its key y, its element 2
        let loc = locate_with(doc, first..first + 5, "invalid value", &read).unwrap();
        assert_eq!((loc.path.as_str(), loc.value.as_deref(), loc.line), ("w[1].y[2]", Some("2"), 7));
        let doc = doc.replace("y = [1, 1, 2]", "y = 2");
        let loc = locate_with(&doc, first..first + 5, "invalid value", &read).unwrap();
        assert_eq!((loc.path.as_str(), loc.value.as_deref(), loc.line), ("w[1].y", Some("2"), 7));
        // without a reader: the table
        let loc = locate(&doc, first..first + 5, "invalid value").unwrap();
        assert_eq!(loc.path, "w[0]");
    }

    #[test]
    fn finds_spans_by_path() {
        let s = span_of(DOC, "trace.queues[1]").unwrap();
        assert_eq!(&DOC[s], "\"3:4\"");
        assert_eq!(line_of(DOC, "workload[1].load"), Some(12));
        assert_eq!(line_of(DOC, "topology.nothing"), None);
        assert_eq!(line_of(DOC, "trace.queues[7]"), None);
    }

    #[test]
    fn snippet_marks_the_key() {
        assert_eq!(snippet("a = 1\nhostz = 5\n", 2, 1, 5), "  |\n2 | hostz = 5\n  | ^^^^^");
        assert_eq!(snippet("x = \"3\"", 1, 5, 99), "  |\n1 | x = \"3\"\n  |     ^^^");
        assert_eq!(snippet("x", 7, 1, 1), "");
    }

    #[test]
    fn quotes_are_extracted() {
        // what follows "expected" or "e.g." quotes examples, not the culprit
        assert_eq!(quoted_tokens("unknown field `foo`, expected one of `a`, `b`"), vec!["foo"]);
        assert_eq!(quoted_tokens("invalid size '12 apples': x"), vec!["12 apples"]);
        assert_eq!(quoted_tokens("invalid rate '': expected a rate, e.g. \"100Gbps\""), vec![""]);
    }
}
