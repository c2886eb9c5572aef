//! End-to-end tests of the `ccsim` binary for one issue: `sweep --set /
//! --seed / --stop` (as `run` has them, refused against a grid axis of the
//! same value), a misspelt key in a later `[[workload]]` located there, and
//! the cost estimate of `validate`, `run`, `compare` and `sweep`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn ccsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ccsim")).args(args).current_dir(repo()).output().expect("cannot start ccsim")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Asserts success and returns (stdout, stderr).
fn ok(args: &[&str]) -> (String, String) {
    let o = ccsim(args);
    assert!(
        o.status.success(),
        "ccsim {args:?} failed with {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        text(&o.stdout),
        text(&o.stderr)
    );
    (text(&o.stdout), text(&o.stderr))
}

/// Asserts exit status 2 (bad input) and returns stderr.
fn refused(args: &[&str]) -> String {
    let o = ccsim(args);
    assert_eq!(o.status.code(), Some(2), "ccsim {args:?}\nstdout:\n{}\nstderr:\n{}", text(&o.stdout), text(&o.stderr));
    text(&o.stderr)
}

struct Tmp(PathBuf);
static N: AtomicU64 = AtomicU64::new(0);
impl Tmp {
    fn new(tag: &str) -> Tmp {
        let p = std::env::temp_dir().join(format!(
            "ccsim-e2e-flags-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Tmp(p)
    }
    fn s(&self) -> &str {
        self.0.to_str().unwrap()
    }
    fn file(&self, name: &str, body: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, body).unwrap();
        p.to_str().unwrap().to_string()
    }
}
impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A 3:1 incast of 10 KB flows on a 4-host star, run with hpcc.
const TINY: &str = "name = \"tiny\"\nschemes = [\"hpcc\"]\n\
    [topology]\nkind = \"star\"\nhosts = 4\nrate = \"100Gbps\"\ndelay = \"1us\"\n\
    [[workload]]\nkind = \"incast\"\nfan_in = 3\nreceiver = 0\nsize = \"10KB\"\n";

/// sweep.csv as rows of fields (no field of these tables is quoted).
fn sweep_rows(path: &Path) -> Vec<Vec<String>> {
    let t = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    t.lines().map(|l| l.split(',').map(String::from).collect()).collect()
}

/// The value of `metric` in every row of a tidy table (its last two columns).
fn metric(rows: &[Vec<String>], metric: &str) -> Vec<f64> {
    let n = rows[0].len();
    rows[1..].iter().filter(|r| r[n - 2] == metric).map(|r| r[n - 1].parse().unwrap()).collect()
}

/// Column `name` of each point (its `flows` row).
fn column(rows: &[Vec<String>], name: &str) -> Vec<String> {
    let i = rows[0].iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}: {:?}", rows[0]));
    let n = rows[0].len();
    rows[1..].iter().filter(|r| r[n - 2] == "flows").map(|r| r[i].clone()).collect()
}

#[test]
fn sweep_takes_set_seed_and_stop_like_run() {
    let t = Tmp::new("sweep");
    let file = t.file("tiny.toml", TINY);
    let cache = t.0.join("cache");
    let cache = cache.to_str().unwrap();
    let sweep = |extra: &[&str], out: &str| {
        let mut args = vec!["sweep", file.as_str(), "--grid", "network.ecn.pmax=0.1,0.2", "--cache", cache, "-q"];
        args.extend_from_slice(&["--out", out]);
        args.extend_from_slice(extra);
        ok(&args);
        sweep_rows(&Path::new(out).join("tiny/sweep.csv"))
    };
    // the scenario as written: 3 flows, all finished, seed 1, past 1us
    let plain = sweep(&[], &format!("{}/plain", t.s()));
    assert_eq!(metric(&plain, "flows"), [3.0, 3.0]);
    assert_eq!(metric(&plain, "finished"), [3.0, 3.0]);
    assert_eq!(column(&plain, "seed"), ["1", "1"]);
    assert!(metric(&plain, "sim_end_us").iter().all(|&t| t > 1.0), "{plain:?}");

    // --set changes the scenario of every point
    let set = sweep(&["--set", "workload[0].fan_in=2"], &format!("{}/set", t.s()));
    assert_eq!(metric(&set, "flows"), [2.0, 2.0]);
    // the grid's columns stay the grid's
    assert_eq!(set[0].join(","), "network.ecn.pmax,scheme,seed,status,metric,value");

    // --seed replaces the scenario's seed
    let seeded = sweep(&["--seed", "7"], &format!("{}/seed", t.s()));
    assert_eq!(column(&seeded, "seed"), ["7", "7"]);

    // --stop ends every point at that simulated time
    let stopped = sweep(&["--stop", "1us"], &format!("{}/stop", t.s()));
    assert_eq!(metric(&stopped, "sim_end_us"), [1.0, 1.0]);
    assert_eq!(metric(&stopped, "finished"), [0.0, 0.0]);
    assert!(column(&stopped, "status").iter().all(|s| s == "stopped"), "{stopped:?}");
}

#[test]
fn sweep_refuses_a_value_both_fixed_and_swept() {
    let t = Tmp::new("conflict");
    let file = t.file("tiny.toml", TINY);
    let base = ["sweep", file.as_str(), "--out", t.s(), "--cache", t.s(), "-q"];
    let run = |extra: &[&str]| refused(&[&base[..], extra].concat());

    let e = run(&["--grid", "workload[0].fan_in=1,2", "--set", "workload[0].fan_in=3"]);
    assert!(e.contains("--set workload[0].fan_in=3") && e.contains("is a --grid axis"), "{e}");
    // a table and a key inside it are the same value
    let e = run(&["--grid", "workload[0].fan_in=1,2", "--set", "workload[0]={ kind = \"incast\" }"]);
    assert!(e.contains("workload[0].fan_in is a --grid axis"), "{e}");
    let e = run(&["--grid", "seed=1..2", "--seed", "3"]);
    assert!(e.contains("--seed and --grid seed"), "{e}");
    let e = run(&["--grid", "seed=1..2", "--set", "seed=3"]);
    assert!(e.contains("seed is a --grid axis"), "{e}");
    let e = run(&["--grid", "stop=1us,2us", "--stop", "3us"]);
    assert!(e.contains("--stop and --grid stop"), "{e}");
    // the same checks as `run --set` / `run --stop`
    let e = run(&["--grid", "seed=1", "--set", "nokey"]);
    assert!(e.contains("expected KEY=VALUE"), "{e}");
    let e = run(&["--grid", "seed=1", "--stop", "0us"]);
    assert!(e.contains("--stop") && e.contains("greater than zero"), "{e}");
    // a scheme's parameter is not the scheme axis
    let (out, _) = ok(&[&base[..], &["--grid", "scheme=hpcc", "--set", "scheme.hpcc.eta=0.9"]].concat());
    assert!(out.contains("1 points: 1 simulated"), "{out}");
}

#[test]
fn a_misspelt_key_in_the_second_workload_is_named_at_its_line() {
    let t = Tmp::new("typo");
    let body = "[topology]\nkind = \"star\"\nhosts = 4\nrate = \"100Gbps\"\ndelay = \"1us\"\n\n\
                [[workload]]\nkind = \"incast\"\nfan_in = 3\nreceiver = 0\nsize = \"10KB\"\n\n\
                [[workload]]\nkind = \"incast\"\nfan_in = 3\nreceiver = 0\nsize = \"10KB\"\nsendrs = 3\n";
    let file = t.file("typo.toml", body);
    let e = refused(&["validate", &file]);
    // was: "workload[0] = {...}: unknown field `sendrs` ... (line 7, column 1)"
    assert!(e.contains("workload[1].sendrs = 3: unknown field `sendrs`"), "{e}");
    assert!(e.contains("(line 18, column 1)") && e.contains("18 | sendrs = 3"), "{e}");
    assert!(!e.contains("workload[0]"), "{e}");
}

#[test]
fn validate_run_compare_and_sweep_estimate_the_cost() {
    let (out, _) = ok(&["validate", "scenarios/dumbbell-2flows.toml", "scenarios/quickstart.toml"]);
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("estimate: ")).collect();
    assert_eq!(lines.len(), 2, "{out}");
    for l in lines {
        assert!(
            l.contains(" of CPU time (") && l.contains("M events/s on one core") && l.ends_with("per scheme"),
            "{l}"
        );
    }

    let t = Tmp::new("estimate");
    let file = t.file("tiny.toml", TINY);
    let (_, err) = ok(&["run", &file, "--out", t.s()]);
    assert_eq!(err.lines().filter(|l| l.starts_with("estimate: ")).count(), 1, "{err}");
    let (_, err) = ok(&["run", &file, "--out", t.s(), "-q"]);
    assert!(!err.contains("estimate"), "{err}");
    let (_, err) = ok(&["compare", &file, "--schemes", "hpcc,dcqcn", "--jobs", "2", "--out", t.s()]);
    let l = err.lines().find(|l| l.starts_with("estimate: ")).unwrap_or_else(|| panic!("{err}"));
    assert!(l.contains("for 2 runs") && l.contains("with 2 at a time"), "{l}");
    let cache = t.0.join("cache");
    let sweep = ["sweep", &file, "--grid", "seed=1..3", "--out", t.s(), "--cache", cache.to_str().unwrap()];
    let (_, err) = ok(&sweep);
    let l = err.lines().find(|l| l.starts_with("estimate: ")).unwrap_or_else(|| panic!("{err}"));
    assert!(l.contains("for 3 runs"), "{l}");
    // all cached: nothing to estimate
    let (_, err) = ok(&sweep);
    assert!(!err.contains("estimate: "), "{err}");
}

#[test]
fn the_table_shows_cpu_time_and_events_per_cpu_second() {
    let t = Tmp::new("table");
    let file = t.file("tiny.toml", TINY);
    let (out, _) = ok(&["run", &file, "--out", t.s(), "-q"]);
    for row in ["wall time", "CPU time", "events/s (CPU)"] {
        assert!(out.lines().any(|l| l.starts_with(row)), "no row {row}:\n{out}");
    }
    assert!(!out.lines().any(|l| l.starts_with("events/s ") && !l.starts_with("events/s (CPU)")), "{out}");
}

/// Ctrl-C during a sweep (issue 32: no sweep.csv at all) writes the points
/// finished so far, stops the others, says how to resume, and exits 3; the
/// same command then runs only the rest.
#[cfg(unix)]
#[test]
fn an_interrupted_sweep_writes_the_points_it_finished() {
    let t = Tmp::new("sigint");
    // each point runs for a second or two
    let file = t.file("slow.toml", &TINY.replace("10KB", "100MB"));
    let cache = t.0.join("cache");
    let args = [
        "sweep",
        &file,
        "--grid",
        "seed=1..4",
        "--jobs",
        "1",
        "--out",
        t.s(),
        "--cache",
        cache.to_str().unwrap(),
        "-q",
    ];
    let child = Command::new(env!("CARGO_BIN_EXE_ccsim"))
        .args(args)
        .current_dir(repo())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // once the first point is in the cache, Ctrl-C
    let t0 = std::time::Instant::now();
    let first_done = || {
        std::fs::read_dir(&cache).is_ok_and(|d| d.flatten().any(|e| e.path().extension().is_some_and(|x| x == "run")))
    };
    while !first_done() {
        assert!(t0.elapsed().as_secs() < 120, "the first point never finished");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let o = child.wait_with_output().unwrap();
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(3), "stdout:\n{out}\nstderr:\n{err}");
    assert!(err.contains("interrupted:") && err.contains("points written"), "{err}");
    let rows = sweep_rows(&t.0.join("tiny/sweep.csv"));
    let seeds: std::collections::BTreeSet<String> = column(&rows, "seed").into_iter().collect();
    assert!(!seeds.is_empty() && seeds.len() < 4 && seeds.contains("1"), "points written: {seeds:?}");
    // the rest runs when asked again; the finished points come from the cache
    let (out, _) = ok(&args);
    assert!(out.contains(&format!("{} from the cache", seeds.len())), "{out}");
    let again: std::collections::BTreeSet<String> =
        column(&sweep_rows(&t.0.join("tiny/sweep-2.csv")), "seed").into_iter().collect();
    assert_eq!(again.len(), 4);
}

/// A job's time, iterations, resends and trims are columns of the sweep: a
/// ring all-reduce over 4 hosts of a star, twice, at two buffer sizes.
#[test]
fn sweep_reports_each_jobs_time_iterations_and_resends() {
    let t = Tmp::new("sweep-jobs");
    let file = t.file(
        "ring.toml",
        "name = \"ring\"\nschemes = [\"none\"]\n[topology]\nkind = \"star\"\nhosts = 4\nrate = \"100Gbps\"\n\
         [[workload]]\nkind = \"collective\"\nop = \"ring_allreduce\"\nhosts = [0, 1, 2, 3]\nsize = \"1MB\"\n\
         iterations = 2\ncompute = \"10us\"\n",
    );
    let out = format!("{}/out", t.s());
    let cache = format!("{}/cache", t.s());
    ok(&["sweep", file.as_str(), "--grid", "workload[0].size=400KB,1MB", "--cache", &cache, "-q", "--out", &out]);
    let rows = sweep_rows(&Path::new(&out).join("ring/sweep.csv"));
    let time = metric(&rows, "job0_time_us");
    let (mean, max) = (metric(&rows, "job0_iteration_mean_us"), metric(&rows, "job0_iteration_max_us"));
    assert_eq!(time.len(), 2);
    // 2(n-1)/n x size at 100 Gbps per iteration: 48 us and 120 us of payload;
    // at most that with headers and ACKs (x 1.108) at line rate (no
    // congestion control) plus 4 us per step (6 steps, each waiting for its
    // predecessor's delivery over two 1 us hops)
    for (i, payload_us) in [48.0, 120.0].into_iter().enumerate() {
        let most = payload_us * 1.108 + 6.0 * 4.0;
        assert!(mean[i] > payload_us && mean[i] < most, "point {i}: iteration {} us, at most {most}", mean[i]);
        assert!(max[i] >= mean[i]);
        // two iterations and the compute between them
        assert!((time[i] - (2.0 * mean[i] + 10.0)).abs() < 0.1 * time[i], "point {i}: job {} us", time[i]);
    }
    assert_eq!(metric(&rows, "job0_retransmits"), [0.0, 0.0]);
    assert_eq!(metric(&rows, "job0_trimmed"), [0.0, 0.0]);
}
