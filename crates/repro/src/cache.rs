//! Finished runs on disk, one file per run key (MessagePack with field
//! names, so every f64, NaN included, comes back as it went in, and optional
//! fields may be absent). Written through a temporary
//! file and renamed, so a file that exists is complete; a file that cannot
//! be read is treated as absent and the run is done again.

use ccsim_core::results::RunResult;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

use crate::plan::RunSpec;

/// A finished run as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Stored {
    pub spec: RunSpec,
    pub result: RunResult,
}

/// The run cache: a folder of `<key>.run` files.
#[derive(Clone, Debug)]
pub struct Cache {
    pub dir: PathBuf,
}

impl Cache {
    pub fn new(dir: &Path) -> Cache {
        Cache { dir: dir.to_path_buf() }
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.run"))
    }

    /// Whether a readable result is stored under `key`.
    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The stored run, if there is a readable one.
    pub fn get(&self, key: &str) -> Option<Stored> {
        let bytes = std::fs::read(self.path(key)).ok()?;
        rmp_serde::from_slice(&bytes).ok()
    }

    /// Stores a finished run (atomically: temporary file, then rename).
    pub fn put(&self, spec: &RunSpec, result: &RunResult) -> Result<(), String> {
        let fail = |e: &dyn std::fmt::Display| format!("cannot write the run cache in {}: {e}", self.dir.display());
        std::fs::create_dir_all(&self.dir).map_err(|e| fail(&e))?;
        let stored = Stored { spec: spec.clone(), result: result.clone() };
        let bytes = rmp_serde::to_vec_named(&stored).map_err(|e| fail(&e))?;
        // unique per process and call: two threads storing the same run
        // (a grid that names a point twice) must not share a temporary file
        static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = self.dir.join(format!(".{}.{}.{seq}.tmp", spec.key, std::process::id()));
        std::fs::write(&tmp, bytes).map_err(|e| fail(&e))?;
        std::fs::rename(&tmp, self.path(&spec.key)).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            fail(&e)
        })
    }

    /// Encodes a result as stored (for executors that move results between machines).
    pub fn encode(spec: &RunSpec, result: &RunResult) -> Result<Vec<u8>, String> {
        rmp_serde::to_vec_named(&Stored { spec: spec.clone(), result: result.clone() }).map_err(|e| e.to_string())
    }

    /// Decodes [`Cache::encode`]'s bytes.
    pub fn decode(bytes: &[u8]) -> Result<Stored, String> {
        rmp_serde::from_slice(bytes).map_err(|e| e.to_string())
    }
}

/// A version string that identifies the simulation code a run was made
/// with: the package version and a hash of the sources of the simulation
/// crates (core, cc, scenario; see `build.rs`), so a cached run is reused
/// by every build that would compute it the same way (a CLI, report or
/// metric change keeps the cache; any change to the simulator, a scheme or
/// the scenario reader does not). Where those sources were not at hand when
/// this crate was built, the hash of `file` (the `ccsim` executable, or the
/// Python extension module) stands in: only the very same build reuses it.
pub fn version_of(file: &Path) -> String {
    let sim = env!("CCSIM_SIM_HASH");
    if !sim.is_empty() {
        return format!("{}+sim-{sim}", env!("CARGO_PKG_VERSION"));
    }
    use sha2::{Digest, Sha256};
    match std::fs::read(file) {
        Ok(bytes) => {
            let d = Sha256::digest(&bytes);
            format!(
                "{}+{}",
                env!("CARGO_PKG_VERSION"),
                d.iter().take(12).map(|b| format!("{b:02x}")).collect::<String>()
            )
        }
        Err(_) => format!("{}+unknown", env!("CARGO_PKG_VERSION")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_storing_the_same_run_at_once_all_succeed() {
        let t = ccsim_scenario::testutil::TempDir::new("cache-race");
        let cache = Cache::new(t.path());
        let spec = RunSpec {
            paper: "p".into(),
            scenario: "x.toml".into(),
            sets: vec![],
            scheme: "hpcc".into(),
            seed: 1,
            key: "k".repeat(16),
            est_events: 0.0,
        };
        let r = crate::testing::sample_result(1.0);
        std::thread::scope(|s| {
            let hs: Vec<_> =
                (0..4).map(|_| s.spawn(|| (0..25).map(|_| cache.put(&spec, &r)).collect::<Vec<_>>())).collect();
            for h in hs {
                for res in h.join().unwrap() {
                    res.unwrap();
                }
            }
        });
        assert_eq!(cache.get(&spec.key).unwrap().result.flows.len(), r.flows.len());
    }
}
