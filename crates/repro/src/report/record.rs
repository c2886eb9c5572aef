//! What a report found, claim by claim, as `claims.json` beside the report:
//! read back by the report of the other scale (the reduced report shows
//! the full scale's value and verdict, and the other way round) and by the
//! index, which puts every paper's headline claims and tallies in one place.
//!
//! Layout under a reports folder `out`: the reduced scale in
//! `out/<paper>/`, the full scale in `out/full/<paper>/`, the index in
//! `out/index.{md,html}` for both.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

use crate::manifest::{Claim, Kind, Status};
use crate::verdict::{ClaimEval, Verdict};

/// One claim as reported.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ClaimRecord {
    pub id: String,
    #[serde(rename = "where")]
    pub where_: String,
    pub says: String,
    pub headline: bool,
    /// "result" or "check".
    pub kind: String,
    /// The verdict's text ("reproduced", "inconclusive", ...).
    pub verdict: String,
    pub direction: String,
    pub within2x: String,
    /// The paper's values, one line.
    pub paper: String,
    /// ccsim's values, one line.
    pub measured: String,
    pub unit: String,
    pub seeds: usize,
    /// The measured cause of a miss, from the manifest.
    pub cause: Option<String>,
}

/// One paper's report at one scale.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PaperRecord {
    pub paper: String,
    pub title: String,
    /// "reduced" or "full".
    pub scale: String,
    pub runs: usize,
    pub failed_runs: usize,
    /// Simulation CPU time of the runs the report used (seconds).
    pub cpu_secs: f64,
    /// The simulator's version that ran them (`cache::version_of`: the
    /// hash of the simulation's sources); empty in reports older than it.
    #[serde(default)]
    pub version: String,
    pub claims: Vec<ClaimRecord>,
}

/// The folder of a paper's report at a scale.
pub fn paper_dir(out: &Path, full: bool, paper: &str) -> PathBuf {
    if full {
        out.join("full").join(paper)
    } else {
        out.join(paper)
    }
}

/// The name of a scale.
pub fn scale_name(full: bool) -> &'static str {
    if full {
        "full"
    } else {
        "reduced"
    }
}

/// A claim that is not run, as reported.
pub fn skipped(c: &Claim) -> ClaimRecord {
    ClaimRecord {
        id: c.id.clone(),
        where_: c.where_.clone(),
        says: c.says.clone(),
        headline: c.headline,
        kind: kind_name(c.kind).into(),
        verdict: if c.status == Status::NotSimulable { Verdict::NotSimulable } else { Verdict::NotAttempted }
            .text()
            .into(),
        cause: c.reason.clone(),
        ..Default::default()
    }
}

/// A judged claim, as reported (`paper`, `measured`: the summary cells).
pub fn judged(c: &Claim, e: &ClaimEval, paper: String, measured: String) -> ClaimRecord {
    ClaimRecord {
        id: c.id.clone(),
        where_: c.where_.clone(),
        says: c.says.clone(),
        headline: c.headline,
        kind: kind_name(c.kind).into(),
        verdict: verdict_text(e),
        direction: e.direction.mark().into(),
        within2x: e.within2x.mark().into(),
        paper,
        measured,
        unit: super::summary_unit(c),
        seeds: e.seeds,
        cause: c.cause.clone(),
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Result => "result",
        Kind::Check => "check",
    }
}

/// The verdict as shown: a tie says at how many seeds.
pub fn verdict_text(e: &ClaimEval) -> String {
    match e.verdict {
        Verdict::Inconclusive => format!("inconclusive at {} seed{}", e.seeds, if e.seeds == 1 { "" } else { "s" }),
        v => v.text().into(),
    }
}

impl ClaimRecord {
    /// The verdict without the seed count.
    pub fn verdict_kind(&self) -> &str {
        if self.verdict.starts_with("inconclusive") {
            "inconclusive"
        } else {
            &self.verdict
        }
    }

    pub fn reproduced(&self) -> bool {
        self.verdict == Verdict::Reproduced.text()
    }

    pub fn is_check(&self) -> bool {
        self.kind == "check"
    }

    /// Not simulated (not simulable or not attempted).
    pub fn skipped(&self) -> bool {
        self.verdict == Verdict::NotSimulable.text() || self.verdict == Verdict::NotAttempted.text()
    }
}

/// Writes `claims.json` into a report's folder.
pub fn write(dir: &Path, r: &PaperRecord) -> Result<(), String> {
    let text = serde_json::to_string_pretty(r).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("claims.json"), text + "\n")
        .map_err(|e| format!("cannot write {}: {e}", dir.join("claims.json").display()))
}

/// Reads a report's `claims.json`, if there is a readable one.
pub fn read(dir: &Path) -> Option<PaperRecord> {
    let text = std::fs::read_to_string(dir.join("claims.json")).ok()?;
    serde_json::from_str(&text).ok()
}

/// Counts of one paper's claims at one scale, for tables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub headline: usize,
    pub headline_reproduced: usize,
    pub headline_direction: usize,
    pub headline_inconclusive: usize,
    /// Holds on the seed mean only (the 95% interval crosses a limit).
    pub headline_fragile: usize,
    /// Results (not checks) that are run.
    pub results: usize,
    pub reproduced: usize,
    pub direction_only: usize,
    pub not_reproduced: usize,
    pub inconclusive: usize,
    pub fragile: usize,
    pub error: usize,
    pub not_simulated: usize,
    pub checks: usize,
    pub checks_held: usize,
}

impl Tally {
    pub fn of(claims: &[ClaimRecord]) -> Tally {
        let mut t = Tally::default();
        for c in claims {
            if c.is_check() {
                t.checks += 1;
                t.checks_held += c.reproduced() as usize;
                continue;
            }
            if c.skipped() {
                t.not_simulated += 1;
                continue;
            }
            t.results += 1;
            match c.verdict_kind() {
                "reproduced" => t.reproduced += 1,
                "direction only" => t.direction_only += 1,
                "not reproduced" => t.not_reproduced += 1,
                "inconclusive" => t.inconclusive += 1,
                "fragile" => t.fragile += 1,
                "error" => t.error += 1,
                _ => {}
            }
            if c.headline {
                t.headline += 1;
                t.headline_reproduced += c.reproduced() as usize;
                t.headline_direction += (c.verdict_kind() == "direction only") as usize;
                t.headline_inconclusive += (c.verdict_kind() == "inconclusive") as usize;
                t.headline_fragile += (c.verdict_kind() == "fragile") as usize;
            }
        }
        t
    }

    /// Headline claims that missed (neither reproduced, direction only, a tie nor fragile).
    pub fn headline_missed(&self) -> usize {
        self.headline
            - self.headline_reproduced
            - self.headline_direction
            - self.headline_inconclusive
            - self.headline_fragile
    }

    /// The counts with their names (`COUNT_NAMES`), as the Python package returns them.
    pub fn counts(&self) -> [usize; 15] {
        [
            self.headline,
            self.headline_reproduced,
            self.headline_direction,
            self.headline_inconclusive,
            self.headline_fragile,
            self.results,
            self.reproduced,
            self.direction_only,
            self.not_reproduced,
            self.inconclusive,
            self.fragile,
            self.error,
            self.not_simulated,
            self.checks,
            self.checks_held,
        ]
    }

    fn from_counts(c: [usize; 15]) -> Tally {
        let [headline, headline_reproduced, headline_direction, headline_inconclusive, headline_fragile, results, reproduced, direction_only, not_reproduced, inconclusive, fragile, error, not_simulated, checks, checks_held] =
            c;
        Tally {
            headline,
            headline_reproduced,
            headline_direction,
            headline_inconclusive,
            headline_fragile,
            results,
            reproduced,
            direction_only,
            not_reproduced,
            inconclusive,
            fragile,
            error,
            not_simulated,
            checks,
            checks_held,
        }
    }

    pub fn add(&mut self, o: &Tally) {
        let (a, b) = (self.counts(), o.counts());
        *self = Tally::from_counts(std::array::from_fn(|i| a[i] + b[i]));
    }

    /// Headline claims as "reproduced / direction only / inconclusive / fragile / missed of all".
    pub fn headline_text(&self) -> String {
        format!(
            "{} / {} / {} / {} / {} of {}",
            self.headline_reproduced,
            self.headline_direction,
            self.headline_inconclusive,
            self.headline_fragile,
            self.headline_missed(),
            self.headline
        )
    }

    /// Results as "reproduced of run (inconclusive, fragile)".
    pub fn results_text(&self) -> String {
        format!(
            "{} of {} ({} inconclusive, {} fragile)",
            self.reproduced, self.results, self.inconclusive, self.fragile
        )
    }
}

/// Names of [`Tally::counts`].
pub const COUNT_NAMES: [&str; 15] = [
    "headline",
    "headline_reproduced",
    "headline_direction",
    "headline_inconclusive",
    "headline_fragile",
    "results",
    "reproduced",
    "direction_only",
    "not_reproduced",
    "inconclusive",
    "fragile",
    "error",
    "not_simulated",
    "checks",
    "checks_held",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(verdict: &str, headline: bool, kind: &str) -> ClaimRecord {
        ClaimRecord { verdict: verdict.into(), headline, kind: kind.into(), ..Default::default() }
    }

    #[test]
    fn checks_are_counted_apart_and_ties_are_not_results() {
        let t = Tally::of(&[
            rec("reproduced", true, "result"),
            rec("inconclusive at 3 seeds", true, "result"),
            rec("not reproduced", true, "result"),
            rec("direction only", false, "result"),
            rec("reproduced", false, "check"),
            rec("not reproduced", false, "check"),
            rec("not simulable", false, "result"),
        ]);
        assert_eq!((t.headline, t.headline_reproduced, t.headline_inconclusive, t.headline_missed()), (3, 1, 1, 1));
        assert_eq!((t.results, t.reproduced, t.direction_only, t.not_reproduced, t.inconclusive), (4, 1, 1, 1, 1));
        assert_eq!((t.checks, t.checks_held, t.not_simulated), (2, 1, 1));
    }

    #[test]
    fn records_survive_the_file() {
        let dir = std::env::temp_dir().join(format!("ccsim-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let r = PaperRecord {
            paper: "p".into(),
            scale: "full".into(),
            claims: vec![rec("reproduced", true, "result")],
            ..Default::default()
        };
        write(&dir, &r).unwrap();
        let back = read(&dir).unwrap();
        assert_eq!(back.claims[0].verdict, "reproduced");
        assert!(back.claims[0].headline);
        assert!(read(&dir.join("absent")).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
