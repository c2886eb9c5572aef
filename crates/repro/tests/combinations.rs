//! The combination matrix run (`ccsim_repro::combos`): every cell is refused
//! at validation with its reason, or runs and holds the matrix's
//! invariants. docs/COMBINATIONS.md is what this test found
//! (`CCSIM_BLESS=1 cargo test -p ccsim-repro --test combinations` rewrites
//! it). `CCSIM_COMBOS=text` runs only the cells whose label contains `text`
//! (and then neither checks nor writes the page).

use ccsim_repro::combos::{self, Cell, Outcome};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn outcome(c: &Cell) -> Outcome {
    let base = repo().join("scenarios");
    let scn = match combos::load(c, &base) {
        Ok(s) => s,
        Err(e) => return Outcome::Refused(combos::short_reason(&e)),
    };
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| scn.simulate(&c.scheme, None)));
    match run {
        Err(_) => Outcome::Failed("the simulator panicked".into()),
        Ok(Err(e)) => Outcome::Failed(format!("refused only when built: {e}")),
        Ok(Ok(r)) => match combos::judge(c, &scn, &r) {
            Ok(m) => Outcome::Ran(m),
            Err(e) => Outcome::Failed(e),
        },
    }
}

#[test]
fn every_combination_is_refused_or_holds_its_invariants() {
    let filter = std::env::var("CCSIM_COMBOS").ok();
    let cells: Vec<Cell> = combos::cells()
        .into_iter()
        .filter(|c| filter.as_ref().is_none_or(|f| c.label().contains(f.as_str())))
        .collect();
    let next = AtomicUsize::new(0);
    let out: Vec<Mutex<Option<Outcome>>> = cells.iter().map(|_| Mutex::new(None)).collect();
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(8);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(c) = cells.get(i) else { break };
                *out[i].lock().unwrap() = Some(outcome(c));
            });
        }
    });
    let outcomes: Vec<(Cell, Outcome)> =
        cells.into_iter().zip(out).map(|(c, o)| (c, o.into_inner().unwrap().unwrap())).collect();
    let failed: Vec<String> = outcomes
        .iter()
        .filter_map(|(c, o)| match o {
            Outcome::Failed(e) => Some(format!("{}: {e}", c.label())),
            _ => None,
        })
        .collect();
    let ran = outcomes.iter().filter(|(_, o)| matches!(o, Outcome::Ran(_))).count();
    eprintln!("{} cells: {ran} ran, {} failed", outcomes.len(), failed.len());
    if filter.is_some() {
        for (c, o) in &outcomes {
            eprintln!("{}: {o:?}", c.label());
        }
    } else {
        let page = combos::markdown(&outcomes);
        let path = repo().join("docs/COMBINATIONS.md");
        if std::env::var_os("CCSIM_BLESS").is_some() {
            std::fs::write(&path, &page).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == page,
            "docs/COMBINATIONS.md is out of date: rerun with CCSIM_BLESS=1 (failing cells, if any, are listed in it)"
        );
    }
    assert!(failed.is_empty(), "{} cells fail their invariants:\n{}", failed.len(), failed.join("\n"));
}
