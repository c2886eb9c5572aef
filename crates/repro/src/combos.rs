//! The combination matrix: every registered scheme (and NSCC with RCCC's
//! credits) x receiver x load balancer x fabric x workload kind, on one small
//! leaf-spine. Each cell is a scenario ([`scenario_text`]); it is refused at
//! validation with its reason, or it runs and its result must hold the
//! invariants of [`judge`] (everything finishes, time within a factor of the
//! fluid max-min-fair bound on the same traffic, resends zero where nothing
//! can be lost and bounded where it can, no stall). The test
//! `crates/repro/tests/combinations.rs` runs every cell and keeps
//! `docs/COMBINATIONS.md` ([`markdown`]) equal to what it found; `ccsim list
//! combinations` prints the validation half ([`refusals`]), which needs no run.

use ccsim_core::results::{RunResult, RunStatus};
use ccsim_scenario::{load_text, Overrides, Scenario};
use std::collections::BTreeMap;
use std::path::Path;

/// `network.receiver` of a cell: unset (the scheme's or the network's
/// choice), or set; "packet" is the reorder receiver with per-packet loss
/// recovery asked for (`network.recovery = "packet"`, UET's, whatever the
/// scheme); "sleek" is "packet" with SLEEK loss recovery
/// (`network.sleek.enabled`).
pub const RECEIVERS: &[&str] = &["auto", "go-back-n", "reorder", "packet", "sleek"];

/// The fabrics: PFC everywhere; tail drop; trimming; a lossless priority
/// beside a trimmed one (`pfc.lossy_prios`).
pub const FABRICS: &[&str] = &["lossless", "lossy", "trim", "mixed"];

/// The workload kinds, each as a small job on the matrix's leaf-spine.
pub const WORKLOADS: &[&str] = &["flows", "rpc", "closed_loop", "collective", "dag"];

/// The load balancers: per-flow ECMP, ECMP with ACKs retracing their data
/// (`symmetric`) and the network's per-packet spraying for every scheme;
/// NSCC's own entropy balancers (REPS, oblivious, bitmap, MIXED) for NSCC.
pub fn balancers(scheme: &str) -> Vec<&'static str> {
    if base_of(scheme) == "nscc" {
        vec!["ecmp", "symmetric", "spray", "reps", "oblivious", "bitmap", "mixed"]
    } else {
        vec!["ecmp", "symmetric", "spray"]
    }
}

/// Every registered scheme, and `nscc_rccc` (NSCC with RCCC's receiver credits).
pub fn schemes() -> Vec<String> {
    let mut v = ccsim_scenario::registry::scheme_names();
    v.push("nscc_rccc".into());
    v
}

fn base_of(scheme: &str) -> &str {
    if scheme == "nscc_rccc" {
        "nscc"
    } else {
        scheme
    }
}

/// One cell of the matrix.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cell {
    pub scheme: String,
    pub receiver: &'static str,
    pub balancer: &'static str,
    pub fabric: &'static str,
    pub workload: &'static str,
}

impl Cell {
    /// "hpcc / go-back-n / spray / lossy / rpc".
    pub fn label(&self) -> String {
        format!("{} / {} / {} / {} / {}", self.scheme, self.receiver, self.balancer, self.fabric, self.workload)
    }
}

/// Every cell, in a fixed order.
pub fn cells() -> Vec<Cell> {
    let mut v = Vec::new();
    for scheme in schemes() {
        for &balancer in &balancers(&scheme) {
            for &receiver in RECEIVERS {
                for &fabric in FABRICS {
                    for &workload in WORKLOADS {
                        v.push(Cell { scheme: scheme.clone(), receiver, balancer, fabric, workload });
                    }
                }
            }
        }
    }
    v
}

/// The `[network]` lines of a fabric: a 2 MB buffer per switch, ECN from 30
/// to 120 KB (under the tail-drop threshold of about 250 KB, so that
/// ECN-driven schemes are warned before the buffer fills), trimming at 100 KB
/// (about one BDP of the leaf-spine).
fn fabric_lines(fabric: &str) -> &'static str {
    match fabric {
        "lossless" => "",
        "lossy" => "pfc.enabled = false\n",
        "trim" => "pfc.enabled = false\ntrim.enabled = true\ntrim.threshold = \"100KB\"\n",
        "mixed" => "data_classes = 2\npfc.lossy_prios = [1]\ntrim.enabled = true\ntrim.threshold = \"100KB\"\n",
        _ => unreachable!("fabric {fabric}"),
    }
}

/// The workload entries of a kind, on data priority `prio`.
fn workload_lines(kind: &str, prio: u8) -> String {
    match kind {
        "flows" => format!(
            "[[workload]]\nkind = \"flows\"\nflows = [\n\
             {{ src = 1, dst = 0, size = \"300KB\", prio = {prio} }},\n\
             {{ src = 2, dst = 0, size = \"300KB\", prio = {prio} }},\n\
             {{ src = 5, dst = 0, size = \"300KB\", prio = {prio} }},\n\
             {{ src = 6, dst = 0, size = \"300KB\", prio = {prio} }},\n\
             {{ src = 4, dst = 7, size = \"1MB\", prio = {prio} }},\n\
             {{ src = 3, dst = 5, size = \"200KB\", start = \"10us\", prio = {prio} }},\n\
             {{ src = 7, dst = 2, size = \"50KB\", start = \"20us\", prio = {prio} }},\n]\n"
        ),
        "rpc" => format!(
            "[[workload]]\nkind = \"rpc\"\ncdf = \"webserver\"\nload = 0.4\nduration = \"50us\"\n\
             response_size = \"2KB\"\nprio = {prio}\n"
        ),
        "closed_loop" => format!(
            "[[workload]]\nkind = \"closed_loop\"\nclients = [0, 1, 2]\nservers = [4, 5]\noutstanding = 4\n\
             cdf = \"webserver\"\nrequests = 10\nresponse_size = \"2KB\"\nprio = {prio}\n"
        ),
        "collective" => format!(
            "[[workload]]\nkind = \"collective\"\nop = \"ring_allreduce\"\nhosts = [0, 4, 1, 5, 2, 6, 3, 7]\n\
             size = \"256KB\"\nprio = {prio}\n"
        ),
        "dag" => format!(
            "[[workload]]\nkind = \"dag\"\npath = \"traces/pipeline.json\"\nhosts = [0, 4, 1, 5]\nprio = {prio}\n"
        ),
        _ => unreachable!("workload {kind}"),
    }
}

/// The scenario of a cell: a leaf-spine of 2 leaves x 4 hosts at 100 Gbps
/// and 2 spines at 200 Gbps (non-blocking), 1 us links. Every kind but
/// `flows` (which has its own 4:1 incast) runs beside a 3:1 incast into
/// host 0. On the mixed fabric all of it runs on the trimmed priority 1
/// beside a lossless flow on priority 0. A DAG cell reads `traces/pipeline.json` under the base
/// folder it is loaded from (the repository's `scenarios/`).
pub fn scenario_text(c: &Cell) -> String {
    let mut s = format!(
        "name = \"combo\"\nseed = 1\nschemes = [\"{}\"]\nstop = \"50ms\"\n\n\
         [topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 4\n\
         host_rate = \"100Gbps\"\nfabric_rate = \"200Gbps\"\ndelay = \"1us\"\n\n\
         [network]\nbuffer = \"2MB\"\necn.kmin = \"30KB\"\necn.kmax = \"120KB\"\necn.scale_per_25g = false\n",
        c.scheme
    );
    if matches!(c.balancer, "spray" | "symmetric") {
        s.push_str(&format!("routing = \"{}\"\n", c.balancer));
    }
    match c.receiver {
        "auto" => {}
        "packet" => s.push_str("receiver = \"reorder\"\nrecovery = \"packet\"\n"),
        "sleek" => s.push_str("receiver = \"reorder\"\nrecovery = \"packet\"\nsleek.enabled = true\n"),
        r => s.push_str(&format!("receiver = \"{r}\"\n")),
    }
    s.push_str(fabric_lines(c.fabric));
    s.push('\n');
    let prio = if c.fabric == "mixed" { 1 } else { 0 };
    s.push_str(&workload_lines(c.workload, prio));
    if c.workload != "flows" {
        // contention for every kind: a 3:1 incast into host 0 beside it
        s.push_str(&format!(
            "\n[[workload]]\nkind = \"flows\"\nflows = [\n\
             {{ src = 1, dst = 0, size = \"300KB\", prio = {prio} }},\n\
             {{ src = 5, dst = 0, size = \"300KB\", prio = {prio} }},\n\
             {{ src = 6, dst = 0, size = \"300KB\", prio = {prio} }},\n]\n"
        ));
    }
    if c.fabric == "mixed" {
        s.push_str("\n[[workload]]\nkind = \"flows\"\nflows = [{ src = 3, dst = 0, size = \"500KB\", prio = 0 }]\n");
    }
    if c.scheme == "nscc_rccc" {
        s.push_str("\n[variants.nscc_rccc]\nbase = \"nscc\"\nrccc = true\n");
    }
    if matches!(c.balancer, "reps" | "oblivious" | "bitmap" | "mixed") {
        // nscc_rccc's variant table is the last one written above
        if c.scheme != "nscc_rccc" {
            s.push_str("\n[scheme.nscc]\n");
        }
        s.push_str(&format!("load_balancer = \"{}\"\n", c.balancer));
    }
    s
}

/// The cell's scenario, read and checked as `ccsim validate` reads it (the
/// scheme built against the network included); `base` holds `traces/`.
pub fn load(c: &Cell, base: &Path) -> Result<Scenario, String> {
    let scn = load_text("combo.toml", &scenario_text(c), base, "combo", &Overrides::default())?;
    scn.network_notes(&c.scheme)?;
    Ok(scn)
}

/// What a run of a cell measured, against its bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// Last completion over the fluid bound's last completion.
    pub tail: f64,
    /// Sum of completion times over the bound's sum (flows and messages).
    pub total: f64,
    /// Data packets resent over data packets sent.
    pub resent: f64,
    pub drops: u64,
    /// The run started with a warning ([`ccsim_core::compat`]).
    pub warned: bool,
}

/// How far above the fluid bound a run may be, by what its cell is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    /// Largest last completion and summed completion times over the
    /// bound's (0: not checked).
    pub factor: f64,
    /// Largest completion time of each flow and message over its own
    /// bound's, plus `timeouts` retransmission timeouts (0: not checked).
    pub row_factor: f64,
    pub timeouts: f64,
    /// Largest share of data packets resent.
    pub resent: f64,
}

/// The invariants' bounds: a fabric that loses nothing, 2x and nothing
/// resent; trimming, 3x (resent bytes cross the fabric twice, and on the
/// mixed fabric strict priority lets the lossless class finish first,
/// which max-min fairness does not), at most one resend per packet on
/// average; tail drop, every row within 2x its bound plus two timeouts (a
/// loss found by the timeout costs one, and its resend may be lost
/// again); a run that started with a warning, every row within 4x plus
/// three timeouts (go-back-N under spraying waits out NACK suppression and
/// timeouts while reordering goes on).
pub fn bound_of(fabric: &str, warned: bool) -> Bound {
    match (fabric, warned) {
        (_, true) => Bound { factor: 0.0, row_factor: 4.0, timeouts: 3.0, resent: 1.0 },
        ("lossless", _) => Bound { factor: 2.0, row_factor: 0.0, timeouts: 0.0, resent: 0.0 },
        ("trim" | "mixed", _) => Bound { factor: 3.0, row_factor: 0.0, timeouts: 0.0, resent: 1.0 },
        _ => Bound { factor: 0.0, row_factor: 2.0, timeouts: 2.0, resent: 1.0 },
    }
}

/// What a run must hold. Errors say which invariant failed, with the numbers.
pub fn judge(c: &Cell, scn: &Scenario, r: &RunResult) -> Result<Measured, String> {
    if r.status != RunStatus::Completed {
        return Err(format!("did not complete: {:?}", r.status));
    }
    if let Some(f) = r.flows.iter().find(|f| f.fct.is_none()) {
        return Err(format!("row {} ({} -> {}, {} B) never finished", f.id, f.src, f.dst, f.size));
    }
    let fair = crate::metrics::fair::bound("combos", r, scn, crate::metrics::fair::Fabric::Routes)?;
    let (mut end, mut fair_end, mut sum, mut fair_sum) = (0f64, 0f64, 0f64, 0f64);
    for (f, &b) in r.flows.iter().zip(&fair) {
        let fct = f.fct.unwrap_or(0) as f64;
        end = end.max(f.start as f64 + fct);
        fair_end = fair_end.max(f.start as f64 + b);
        sum += fct;
        fair_sum += b;
    }
    let warned = r.notes.iter().any(|n| n.kind == ccsim_core::compat::NoteKind::Warning);
    let m = Measured {
        tail: end / fair_end.max(1.0),
        total: sum / fair_sum.max(1.0),
        resent: r.retransmits as f64 / r.engine.data_packets.max(1) as f64,
        drops: r.drops,
        warned,
    };
    let b = bound_of(c.fabric, warned);
    if c.fabric != "lossy" && m.drops > 0 {
        return Err(format!("{} drops on a fabric that pauses or trims", m.drops));
    }
    if m.resent > b.resent {
        return Err(format!("{:.3} of data packets resent (at most {})", m.resent, b.resent));
    }
    if b.factor > 0.0 && (m.tail > b.factor || m.total > b.factor) {
        return Err(format!(
            "last completion {:.2}x, summed completion times {:.2}x the fluid bound (at most {}x)",
            m.tail, m.total, b.factor
        ));
    }
    if b.row_factor > 0.0 {
        let rto = scn.net.rto.map_or(1_000_000_000, |d| d.0) as f64;
        for (f, &fair) in r.flows.iter().zip(&fair) {
            let fct = f.fct.unwrap_or(0) as f64;
            if fct > b.row_factor * fair + b.timeouts * rto {
                return Err(format!(
                    "row {} ({} -> {}, {} B) took {:.1} us: over {}x its fluid bound {:.1} us + {} timeouts",
                    f.id,
                    f.src,
                    f.dst,
                    f.size,
                    fct / 1e6,
                    b.row_factor,
                    fair / 1e6,
                    b.timeouts
                ));
            }
        }
    }
    Ok(m)
}

/// One cell's outcome.
#[derive(Clone, Debug)]
pub enum Outcome {
    Refused(String),
    Ran(Measured),
    Failed(String),
}

/// The validation half of the matrix, for `ccsim list combinations`: per
/// scheme, the (balancer, receiver, fabric) triples refused and why. Needs
/// no run (the `flows` workload stands for every kind: refusals do not
/// depend on it).
pub fn refusals(base: &Path) -> BTreeMap<String, Vec<(String, String)>> {
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for c in cells().into_iter().filter(|c| c.workload == "flows") {
        let entry = out.entry(c.scheme.clone()).or_default();
        if let Err(e) = load(&c, base) {
            entry.push((format!("{} / {} / {}", c.balancer, c.receiver, c.fabric), short_reason(&e)));
        }
    }
    out
}

/// The reason of a refusal without the file label and scheme prefix.
pub fn short_reason(e: &str) -> String {
    let e = e.strip_prefix("combo.toml: ").unwrap_or(e);
    match e.find(": ") {
        Some(i) if e.starts_with("scheme ") => e[i + 2..].to_string(),
        _ => e.to_string(),
    }
}

/// docs/COMBINATIONS.md from every cell's outcome.
pub fn markdown(outcomes: &[(Cell, Outcome)]) -> String {
    let mut s = String::from(
        "# What works with what\n\n\
         Generated by `crates/repro/tests/combinations.rs` (`CCSIM_BLESS=1` rewrites it; `ccsim_repro::combos` \
         defines the cells), which runs every registered scheme (and NSCC with RCCC's credits, `nscc_rccc`) \
         x receiver (`network.receiver` unset, `go-back-n`, `reorder`, and `packet`: the reorder receiver with \
         `network.recovery = \"packet\"`, and `sleek`: that with `network.sleek.enabled`) x load balancer (per-flow ECMP, `symmetric`, `network.routing = \
         \"spray\"`, and NSCC's REPS, oblivious, bitmap and MIXED) x fabric (PFC \
         lossless; tail-drop lossy; trimming at 100 KB; a lossless priority beside a trimmed one) x workload \
         kind (flows with a 4:1 incast; rpc, closed_loop, a ring all-reduce and a DAG pipeline, each beside a \
         3:1 incast) on a leaf-spine of 8 hosts at 100 Gbps with 2 MB switch buffers. `ccsim list \
         combinations` prints the refusals.\n\n\
         A cell is refused when its scenario is (the reason below is the one `ccsim validate` gives), or it \
         runs and must hold (`combos::judge`): every flow and message finishes, with no stall; no drop except \
         on the tail-drop fabric; and against the fluid max-min-fair bound of the same traffic (`fair_fct`, \
         each message from its release in the run):\n\n\
         - lossless fabric: last completion and summed completion times at most 2x the bound's, nothing resent;\n\
         - trimming fabrics: at most 3x (resent bytes cross the fabric twice; on the mixed fabric strict \
         priority serves the lossless class first, which max-min fairness does not), at most one resend per \
         data packet;\n\
         - tail-drop fabric: each flow and message within 2x its own bound plus two retransmission timeouts \
         (a loss the timeout finds costs one; the resend may be lost again), at most one resend per packet;\n\
         - a run that starts with a warning (go-back-N asked for under spraying; the reorder receiver on a \
         fabric that drops, where only the timeout finds losses): each row within 4x plus three timeouts, at \
         most one resend per packet.\n\n\
         Per scheme and fabric: cells run / cells, and the largest last completion over the bound's among the \
         runs (w: some ran with a warning; the largest among those without a warning is given first).\n\n",
    );
    let mut by_scheme: BTreeMap<&str, Vec<&(Cell, Outcome)>> = BTreeMap::new();
    for o in outcomes {
        by_scheme.entry(o.0.scheme.as_str()).or_default().push(o);
    }
    s.push_str("| scheme | lossless | lossy | trim | mixed | worst resent share |\n");
    s.push_str("| --- | --- | --- | --- | --- | ---: |\n");
    for (scheme, v) in &by_scheme {
        let mut row = format!("| `{scheme}` ");
        let mut resent = 0f64;
        for &fabric in FABRICS {
            let here: Vec<&&(Cell, Outcome)> = v.iter().filter(|(c, _)| c.fabric == fabric).collect();
            let ran: Vec<&Measured> = here
                .iter()
                .filter_map(|(_, o)| match o {
                    Outcome::Ran(m) => Some(m),
                    _ => None,
                })
                .collect();
            resent = ran.iter().map(|m| m.resent).fold(resent, f64::max);
            let worst = |warned: bool| {
                ran.iter()
                    .filter(|m| m.warned == warned)
                    .map(|m| m.tail)
                    .fold(None, |a: Option<f64>, t| Some(a.map_or(t, |a| a.max(t))))
            };
            let mut cell = format!("{}/{}", ran.len(), here.len());
            match (worst(false), worst(true)) {
                (Some(a), Some(w)) => cell.push_str(&format!(": {a:.2}x, w {w:.2}x")),
                (Some(a), None) => cell.push_str(&format!(": {a:.2}x")),
                (None, Some(w)) => cell.push_str(&format!(": w {w:.2}x")),
                (None, None) => {}
            }
            row.push_str(&format!("| {cell} "));
        }
        row.push_str(&format!("| {:.1}% |\n", resent * 100.0));
        s.push_str(&row);
    }
    s.push_str("\n## Refused\n\nEach reason once, with the cells (balancer / receiver / fabric) it refuses, for every workload kind.\n\n");
    for (scheme, v) in &by_scheme {
        let mut reasons: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (c, o) in v.iter().filter(|(c, _)| c.workload == "flows") {
            if let Outcome::Refused(e) = o {
                reasons.entry(e.clone()).or_default().push(format!("{} / {} / {}", c.balancer, c.receiver, c.fabric));
            }
        }
        if reasons.is_empty() {
            continue;
        }
        s.push_str(&format!("### `{scheme}`\n\n"));
        for (e, where_) in reasons {
            s.push_str(&format!("- {} — {}\n", where_.join(", "), e.replace('|', "\\|")));
        }
        s.push('\n');
    }
    let failed: Vec<&(Cell, Outcome)> = outcomes.iter().filter(|(_, o)| matches!(o, Outcome::Failed(_))).collect();
    if !failed.is_empty() {
        s.push_str("## Failing (the test fails while this list is not empty)\n\n");
        for (c, o) in failed {
            if let Outcome::Failed(e) = o {
                s.push_str(&format!("- {}: {e}\n", c.label()));
            }
        }
    }
    s
}
