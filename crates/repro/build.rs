//! Hashes the simulation's sources into `CCSIM_SIM_HASH` for the run cache.
//!
//! A cached run is valid as long as the code that produced it is unchanged:
//! the simulator (`crates/core`), the schemes (`crates/cc`) and the scenario
//! reader (`crates/scenario`: topologies, workloads, CDFs). Hashing their
//! sources instead of the executable lets a report, metric or CLI change
//! reuse hours of cached full-scale runs, while any change to what a run
//! computes invalidates them. Where the sources are not beside this crate
//! (a packaged build), the variable is empty and the cache falls back to
//! hashing the executable.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

const SIM_CRATES: [&str; 3] = ["core", "cc", "scenario"];

fn files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            files(&p, out)?;
        } else {
            out.push(p);
        }
    }
    Ok(())
}

fn sim_hash(crates: &Path) -> std::io::Result<String> {
    let mut h = Sha256::new();
    for name in SIM_CRATES {
        let dir = crates.join(name);
        let mut list = vec![dir.join("Cargo.toml")];
        files(&dir.join("src"), &mut list)?;
        list.sort();
        for f in list {
            println!("cargo:rerun-if-changed={}", f.display());
            // the path relative to crates/, so the hash does not depend on where the checkout is
            let rel = f.strip_prefix(crates).unwrap_or(&f);
            h.update(rel.to_string_lossy().as_bytes());
            h.update([0]);
            h.update(std::fs::read(&f)?);
            h.update([0]);
        }
        println!("cargo:rerun-if-changed={}", dir.join("src").display());
    }
    Ok(h.finalize().iter().take(12).map(|b| format!("{b:02x}")).collect())
}

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let crates = here.parent().map(Path::to_path_buf).unwrap_or_default();
    let hash = sim_hash(&crates).unwrap_or_default();
    println!("cargo:rustc-env=CCSIM_SIM_HASH={hash}");
    println!("cargo:rerun-if-changed=build.rs");
}
