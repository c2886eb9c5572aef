//! Result directories: written under a temporary name and renamed into
//! place. The files in them are `ccsim_repro::output`'s (re-exported here).
//!
//! A result directory is written under a temporary name next to its final
//! place and renamed into place when complete, so an interrupted run never
//! leaves a half-written result. An existing result is never overwritten: the
//! new one gets the first free suffix `-2`, `-3`, ... unless `force` is set,
//! in which case the old directory is replaced (after the new one is complete).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub use ccsim_repro::output::*;

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// `target` if it does not exist, else the first of `target-2`, `target-3`, ... that does not.
pub fn free_name(target: &Path) -> PathBuf {
    if !target.exists() {
        return target.to_path_buf();
    }
    let leaf = target.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut n = 2u64;
    loop {
        let p = target.with_file_name(format!("{leaf}-{n}"));
        if !p.exists() {
            return p;
        }
        n += 1;
    }
}

/// A result directory being written.
pub struct PendingDir {
    target: PathBuf,
    tmp: PathBuf,
    force: bool,
    committed: bool,
}

impl PendingDir {
    /// Creates a temporary directory beside `target` (creating its parents).
    pub fn begin(target: &Path, force: bool) -> io::Result<PendingDir> {
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot create {}: {e}", parent.display())))?;
        let leaf = target.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "result".into());
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let tmp = parent.join(format!(".{leaf}.tmp-{}-{n}", std::process::id()));
            match fs::create_dir(&tmp) {
                Ok(()) => return Ok(PendingDir { target: target.to_path_buf(), tmp, force, committed: false }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io::Error::new(e.kind(), format!("cannot create {}: {e}", tmp.display()))),
            }
        }
    }

    /// Where to write the files now.
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Moves the finished directory into place; returns its final path.
    pub fn commit(mut self) -> io::Result<PathBuf> {
        if self.force && self.target.exists() {
            let leaf = self.target.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let old = self.target.with_file_name(format!(
                ".{leaf}.old-{}-{}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            fs::rename(&self.target, &old)?;
            fs::rename(&self.tmp, &self.target)?;
            self.committed = true;
            fs::remove_dir_all(&old)?;
            return Ok(self.target.clone());
        }
        for _ in 0..1000 {
            let dest = free_name(&self.target);
            match fs::rename(&self.tmp, &dest) {
                Ok(()) => {
                    self.committed = true;
                    return Ok(dest);
                }
                // Someone else took the name between the check and the rename: try the next.
                Err(_) if dest.exists() => continue,
                Err(e) => {
                    return Err(io::Error::new(e.kind(), format!("cannot move results to {}: {e}", dest.display())))
                }
            }
        }
        Err(io::Error::other(format!("no free directory name for {}", self.target.display())))
    }
}

impl Drop for PendingDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_dir_all(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_scenario::testutil::TempDir;

    #[test]
    fn free_name_suffixes() {
        let t = TempDir::new("free");
        let target = t.path().join("run");
        assert_eq!(free_name(&target), target);
        fs::create_dir(&target).unwrap();
        assert_eq!(free_name(&target), t.path().join("run-2"));
        fs::create_dir(t.path().join("run-2")).unwrap();
        assert_eq!(free_name(&target), t.path().join("run-3"));
    }

    fn write_marker(target: &Path, force: bool, text: &str) -> PathBuf {
        let p = PendingDir::begin(target, force).unwrap();
        fs::write(p.path().join("marker.txt"), text).unwrap();
        p.commit().unwrap()
    }

    #[test]
    fn never_overwrites_unless_forced() {
        let t = TempDir::new("pending");
        let target = t.path().join("a/b/hpcc");
        let first = write_marker(&target, false, "one");
        assert_eq!(first, target);
        let second = write_marker(&target, false, "two");
        assert_eq!(second, t.path().join("a/b/hpcc-2"));
        let third = write_marker(&target, false, "three");
        assert_eq!(third, t.path().join("a/b/hpcc-3"));
        assert_eq!(fs::read_to_string(target.join("marker.txt")).unwrap(), "one");
        // --force replaces the directory itself, leaving the suffixed ones alone.
        let forced = write_marker(&target, true, "four");
        assert_eq!(forced, target);
        assert_eq!(fs::read_to_string(target.join("marker.txt")).unwrap(), "four");
        assert_eq!(fs::read_to_string(t.path().join("a/b/hpcc-2/marker.txt")).unwrap(), "two");
        // No temporary or old directories are left behind.
        let names: Vec<String> = fs::read_dir(t.path().join("a/b"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        let mut names = names;
        names.sort();
        assert_eq!(names, vec!["hpcc", "hpcc-2", "hpcc-3"]);
    }

    #[test]
    fn abandoned_result_leaves_nothing() {
        let t = TempDir::new("abandon");
        let target = t.path().join("x");
        {
            let p = PendingDir::begin(&target, false).unwrap();
            fs::write(p.path().join("half.csv"), "id\n").unwrap();
            // dropped without commit, as when a write fails
        }
        assert!(!target.exists());
        assert_eq!(fs::read_dir(t.path()).unwrap().count(), 0);
    }
}
