//! Every cause is current: each number the `cause` of a claim quotes must be
//! in the shipped reports' own records of that claim, or of a claim the
//! cause names by its id (docs/reproduction, either scale; where one scale
//! was made by this build of the simulation, `claims.json` `version`, only
//! such: the claim's section of the report, with its tables of measured
//! values, the paper's values and the sensitivity sweeps, and its rows in
//! the summary tables), or among the paper's values in its manifest
//! (`says`, `paper`, `absolute`, the sweep and sensitivity settings of any
//! claim). A cause that quotes a number its claims' records do not hold is
//! stale, unmeasured, or borrowed from a claim it does not name. Headline claims that miss at some scale must have
//! a cause; a claim that reproduces at every scale must not keep one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ccsim_repro::report::record::{self, PaperRecord};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The numbers of a text, as written (sign, digits, decimals). A '-' right
/// after a letter, digit, '%' or ')' is a range separator, not a sign.
fn numbers(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'));
        if !starts {
            i += 1;
            continue;
        }
        let negative =
            i > 0 && b[i - 1] == b'-' && (i < 2 || !(b[i - 2].is_ascii_alphanumeric() || b"%)".contains(&b[i - 2])));
        let mut s = String::from(if negative { "-" } else { "" });
        let mut j = i;
        // a thousands separator: ',' and then exactly three digits
        let thousands = |j: usize| {
            b[j] == b','
                && b.len() >= j + 4
                && b[j + 1..j + 4].iter().all(|c| c.is_ascii_digit())
                && b.get(j + 4).is_none_or(|c| !c.is_ascii_digit())
        };
        while j < b.len() && (b[j].is_ascii_digit() || thousands(j)) {
            if b[j] != b',' {
                s.push(b[j] as char);
            }
            j += 1;
        }
        if j + 1 < b.len() && b[j] == b'.' && b[j + 1].is_ascii_digit() {
            s.push('.');
            j += 1;
            while j < b.len() && b[j].is_ascii_digit() {
                s.push(b[j] as char);
                j += 1;
            }
        }
        out.push(s);
        i = j;
    }
    out
}

/// The numbers a report records for each claim: its section (from its
/// anchor to the next claim's or the next part of the report) and the
/// summary-table rows that name it; under [`RUNS`], the table of runs.
fn recorded_by_claim(report: &Path, ids: &[&str]) -> BTreeMap<String, Vec<f64>> {
    let mut out: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let Ok(text) = std::fs::read_to_string(report) else { return out };
    let marker = "<a id=\"claim-";
    let first = text.find(marker).unwrap_or(text.len());
    // summary rows: a row's numbers go to the claims whose link it holds
    for line in text[..first].lines().filter(|l| l.starts_with('|')) {
        for id in ids.iter().filter(|id| line.contains(&format!("#claim-{id})"))) {
            out.entry(id.to_string()).or_default().extend(recorded(&format!("| h |\n|---|\n{line}")));
        }
    }
    for part in text[first..].split(marker).skip(1) {
        let Some((id, body)) = part.split_once('"') else { continue };
        // (the last claim's section ends at the next part of the report)
        let body = body.split("\n## ").next().unwrap_or_default();
        out.entry(id.to_string()).or_default().extend(recorded(body));
    }
    // the table of runs (each run's outcome: flows finished, timeouts, ...) serves every claim
    if let Some((_, runs)) = text.split_once("\n## Runs\n") {
        out.insert(RUNS.to_string(), recorded(runs.split("\n## ").next().unwrap_or_default()));
    }
    out
}

/// [`recorded_by_claim`]'s key of the numbers of the table of runs.
const RUNS: &str = "";

/// The claim ids `cause` names (whole words), `own` first.
fn named<'a>(cause: &str, own: &'a str, ids: &[&'a str]) -> Vec<&'a str> {
    let word = |id: &str| {
        cause.match_indices(id).any(|(i, _)| {
            let before = cause[..i].chars().next_back();
            let after = cause[i + id.len()..].chars().next();
            let edge = |c: Option<char>| c.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'));
            edge(before) && edge(after)
        })
    };
    std::iter::once(own).chain(ids.iter().copied().filter(|id| *id != own && word(id))).collect()
}

/// The numbers in a report's tables (not its cause column) and sensitivity headings.
fn recorded(text: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let mut head: Option<Vec<String>> = None;
    for line in text.lines() {
        if !line.starts_with('|') {
            head = None;
            if line.starts_with("Sensitivity to") {
                out.extend(numbers(line).iter().filter_map(|s| s.parse::<f64>().ok()));
            }
            continue;
        }
        let cells: Vec<String> = line.trim().trim_matches('|').split('|').map(|c| c.trim().to_string()).collect();
        if cells.iter().all(|c| c.chars().all(|ch| "-: ".contains(ch))) {
            continue;
        }
        let Some(h) = &head else {
            head = Some(cells);
            continue;
        };
        for (k, c) in cells.iter().enumerate() {
            if h.get(k).is_some_and(|n| n.to_lowercase().starts_with("cause")) {
                continue;
            }
            out.extend(numbers(c).iter().filter_map(|s| s.parse::<f64>().ok()));
        }
    }
    out
}

/// Whether `written` (a number as a cause writes it) is one of `values` at
/// its precision, in the same unit or one a factor 1000 away (us and ms),
/// whatever the sign (a cut of 24% is a change of -24%).
fn found(written: &str, values: &[f64]) -> bool {
    let x: f64 = written.parse().unwrap();
    let decimals = written.split_once('.').map_or(0, |(_, d)| d.len());
    let tol = 0.5 * 10f64.powi(-(decimals as i32)) + 1e-9;
    values.iter().any(|y| [1.0, 1e3, 1e-3].iter().any(|f| ((y * f).abs() - x.abs()).abs() <= tol))
}

fn paper_values(claim: &toml::Table) -> Vec<f64> {
    let mut text = String::new();
    for key in ["says", "where"] {
        if let Some(s) = claim.get(key).and_then(|v| v.as_str()) {
            text.push_str(s);
            text.push(' ');
        }
    }
    for key in ["paper", "absolute", "sensitivity", "sweep"] {
        if let Some(v) = claim.get(key) {
            text.push_str(&v.to_string());
            text.push(' ');
        }
    }
    numbers(&text).iter().filter_map(|s| s.parse().ok()).collect()
}

fn verdicts(rec: &Option<PaperRecord>) -> BTreeMap<String, (String, bool)> {
    rec.iter().flat_map(|r| &r.claims).map(|c| (c.id.clone(), (c.verdict.clone(), c.headline))).collect()
}

#[test]
fn numbers_are_read_as_written() {
    assert_eq!(numbers("17.5 / 26.4 us, 1,038 us, -29.9%"), ["17.5", "26.4", "1038", "-29.9"]);
    assert_eq!(numbers("for 1.8-2.2 ms at N = 1000; fig13-n16 (-45/-39%)"), ["1.8", "2.2", "1000", "-45", "-39"]);
    assert!(found("-24", &[24.2]) && found("1.8", &[1838.0]) && !found("1.8", &[1900.0]) && !found("6.4", &[6.5]));
}

#[test]
fn a_cause_reads_its_own_section_and_the_claims_it_names() {
    let ids = ["a", "a-b", "b"];
    assert_eq!(named("as a-b shows, and b", "a", &ids), ["a", "a-b", "b"]);
    assert_eq!(named("see a-bc", "b", &ids), ["b"]);
    let dir = std::env::temp_dir().join(format!("causes-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("report.md");
    std::fs::write(
        &report,
        "| claim | ccsim |\n| --- | --- |\n| [a](#claim-a) | 1.5 |\n\n<a id=\"claim-a\"></a>\n| x | y |\n| --- | --- |\n\
         | s | 2.5 |\n\n<a id=\"claim-b\"></a>\nSensitivity to `k` (7 runs):\n\n## Runs\n\n| run | flows |\n| --- | --- |\n\
         | x | 9/10 |\n",
    )
    .unwrap();
    let by = recorded_by_claim(&report, &["a", "b"]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(by["a"], [1.5, 2.5]);
    assert_eq!(by["b"], [7.0]);
    assert_eq!(by[RUNS], [9.0, 10.0]);
}

#[test]
fn every_cause_quotes_measured_numbers() {
    let docs = root().join("docs/reproduction");
    let current = ccsim_repro::cache::version_of(Path::new(""));
    let mut problems = Vec::new();
    let mut checked = 0;
    let mut current_reports = 0;
    for paper in ["bolt", "fncc", "oscar", "sqcc", "srcc", "uet"] {
        let manifest = root().join("experiments").join(paper).join("manifest.toml");
        let m: toml::Table = toml::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
        // beside a report of this build, one of an older build of the
        // simulation records nothing current
        let dirs = [docs.join(paper), docs.join("full").join(paper)];
        let all: Vec<_> = dirs.iter().map(|d| record::read(d)).collect();
        let here = all.iter().flatten().filter(|r| r.version == current).count();
        current_reports += here;
        let scales: Vec<_> = all.into_iter().map(|r| r.filter(|r| here == 0 || r.version == current)).collect();
        let by_scale: Vec<_> = scales.iter().map(verdicts).collect();
        let claims = m.get("claim").and_then(|c| c.as_array()).cloned().unwrap_or_default();
        let ids: Vec<&str> = claims.iter().filter_map(|c| c.as_table()?.get("id")?.as_str()).collect::<Vec<_>>();
        let by_claim: Vec<_> = dirs
            .iter()
            .zip(&scales)
            .filter(|(_, r)| r.is_some())
            .map(|(d, _)| recorded_by_claim(&d.join("report.md"), &ids))
            .collect();
        // the paper's own numbers, of any claim (a cause may set one result beside another)
        let paper_nums: Vec<f64> = claims.iter().filter_map(|c| c.as_table()).flat_map(paper_values).collect();
        for c in claims.iter().filter_map(|c| c.as_table()) {
            let id = c.get("id").and_then(|v| v.as_str()).unwrap_or_default();
            let cause = c.get("cause").and_then(|v| v.as_str());
            let seen: Vec<&(String, bool)> = by_scale.iter().filter_map(|v| v.get(id)).collect();
            let reproduced_everywhere = !seen.is_empty() && seen.iter().all(|(v, _)| v == "reproduced");
            let headline_miss = seen.iter().any(|(v, h)| *h && v != "reproduced" && v != "recorded");
            match cause {
                Some(_) if reproduced_everywhere => {
                    problems.push(format!("{paper} {id}: reproduces at every scale but keeps a cause"))
                }
                None if headline_miss => problems.push(format!("{paper} {id}: a headline miss without a cause")),
                _ => {}
            }
            let Some(cause) = cause else { continue };
            let mut sources = named(cause, id, &ids);
            sources.push(RUNS);
            let mut values = paper_nums.clone();
            for scale in &by_claim {
                values.extend(sources.iter().filter_map(|s| scale.get(*s)).flatten());
            }
            for n in numbers(cause) {
                checked += 1;
                if !found(&n, &values) {
                    problems.push(format!(
                        "{paper} {id}: the cause quotes {n}, which the records of {} and the runs do not hold",
                        sources[..sources.len() - 1].join(", ")
                    ));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} numbers checked: are the reports there?");
    eprintln!("{current_reports} reports of this build ({current})");
    assert!(problems.is_empty(), "{} stale causes:\n{}", problems.len(), problems.join("\n"));
}
