//! The core's shape (issue 36): no file imports a file that imports it,
//! directly or through others, and no function runs past 100 lines. Both
//! read the sources as text: a `crate::x` or `super::x` outside comments and
//! tests is an import of `x.rs`; a function ends at the first closing brace
//! at its own indentation (the sources are rustfmt-formatted).

use std::collections::{BTreeMap, BTreeSet};

/// Each source file of the core (by module name) and its text before its
/// unit tests, comment lines dropped.
fn sources() -> BTreeMap<String, String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().and_then(|x| x.to_str()) != Some("rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        let code: Vec<&str> = code.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
        out.insert(path.file_stem().unwrap().to_str().unwrap().to_string(), code.join("\n"));
    }
    out
}

/// The modules `code` names as `crate::m` or `super::m`.
fn imports(code: &str, modules: &BTreeSet<String>, me: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for prefix in ["crate::", "super::"] {
        for (i, _) in code.match_indices(prefix) {
            let rest = &code[i + prefix.len()..];
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if name != me && modules.contains(&name) {
                out.insert(name);
            }
        }
    }
    out
}

/// A cycle through `start` in `graph`, if there is one (depth-first).
fn cycle_from(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_string(), vec![start.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((node, path)) = stack.pop() {
        for next in &graph[&node] {
            if next == start {
                let mut cycle = path.clone();
                cycle.push(start.to_string());
                return Some(cycle);
            }
            if seen.insert(next.clone()) {
                let mut p = path.clone();
                p.push(next.clone());
                stack.push((next.clone(), p));
            }
        }
    }
    None
}

#[test]
fn no_file_of_the_core_imports_itself_through_others() {
    // the search finds a circle when there is one
    let toy: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")]
        .iter()
        .map(|(m, d)| (m.to_string(), BTreeSet::from([d.to_string()])))
        .collect();
    assert_eq!(cycle_from(&toy, "a"), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    assert_eq!(cycle_from(&toy, "d"), None);
    let src = sources();
    let modules: BTreeSet<String> = src.keys().cloned().collect();
    assert!(modules.contains("sim") && modules.contains("state"), "read the core's files: {modules:?}");
    let graph: BTreeMap<String, BTreeSet<String>> =
        src.iter().map(|(m, code)| (m.clone(), imports(code, &modules, m))).collect();
    // the reader must see real imports, or the check below proves nothing
    assert!(graph["sim"].contains("state") && graph["fabric"].contains("state"), "{graph:?}");
    let cycles: Vec<String> = modules.iter().filter_map(|m| cycle_from(&graph, m)).map(|c| c.join(" -> ")).collect();
    assert!(cycles.is_empty(), "import circles in crates/core/src:\n{}", cycles.join("\n"));
}

/// Functions of `code` longer than `limit` lines: (name, first line, lines).
fn long_functions(code: &str, limit: usize) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let Some(at) = t.find("fn ") else { continue };
        let head = &t[..at];
        let is_item = head
            .split_whitespace()
            .all(|w| matches!(w, "pub" | "const" | "unsafe" | "async" | "extern") || w.starts_with("pub("));
        if !is_item {
            continue;
        }
        let indent = line.len() - t.len();
        let name: String = t[at + 3..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        // the signature may span lines; a `;` before `{` is a declaration
        let Some(open) = (i..lines.len()).find(|&j| lines[j].trim_end().ends_with('{') || lines[j].ends_with(';'))
        else {
            continue;
        };
        if lines[open].ends_with(';') {
            continue;
        }
        let close = (open + 1..lines.len())
            .find(|&j| {
                lines[j].len() > indent && lines[j][..indent].trim().is_empty() && lines[j][indent..].starts_with('}')
            })
            .unwrap_or(lines.len() - 1);
        if close + 1 - i > limit {
            out.push((name, i + 1, close + 1 - i));
        }
    }
    out
}

#[test]
fn no_function_of_the_core_runs_past_100_lines() {
    // the reader finds a long function when there is one
    let sample = format!("fn long() {{\n{}}}\n", "    step();\n".repeat(120));
    assert_eq!(long_functions(&sample, 100), vec![("long".to_string(), 1, 122)]);
    let mut long = Vec::new();
    for (m, code) in sources() {
        for (name, line, n) in long_functions(&code, 100) {
            long.push(format!("{m}.rs: {name} (line {line} of the code without comments): {n} lines"));
        }
    }
    assert!(long.is_empty(), "functions over 100 lines in crates/core/src:\n{}", long.join("\n"));
}
