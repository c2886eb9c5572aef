//! The result files of one run and of a comparison: `flows.csv`,
//! `ports.csv`, `summary.json` (results only: the same bytes for the same
//! scenario and seed), `run.json` (wall-clock metadata), `scenario.toml`,
//! the charts, and a comparison's `compare.csv` / `compare.json`. Shared by
//! the `ccsim` command and the Python package, so both write the same bytes.

use crate::chart::export::Format;
use crate::plots::{self, PlotOptions};
use ccsim_core::results::{RunResult, Stats, Summary};
use ccsim_core::time::{to_secs, to_us, Time};
use ccsim_scenario::Scenario;
use serde_json::{json, Value};
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// A number for CSV/JSON text: empty for NaN/infinite, at most `prec`
/// decimals, trailing zeros removed (the same text the streamed traces use).
pub use ccsim_core::trace::num;

pub fn create(dir: &Path, name: &str) -> io::Result<BufWriter<fs::File>> {
    let p = dir.join(name);
    let f = fs::File::create(&p).map_err(|e| io::Error::new(e.kind(), format!("cannot write {}: {e}", p.display())))?;
    Ok(BufWriter::new(f))
}

/// `flows.csv`: one row per flow, then one per released message. `workload`
/// is the `[[workload]]` entry the row came from, `conn` a message's
/// connection (empty for a flow); a message's `start_us` is its release and
/// its `fct_us` runs to the acknowledgement of its last byte. `retransmits`
/// (data packets sent again), `timeouts` (retransmission timeouts fired),
/// `trimmed` and `drops` (its data packets trimmed and dropped): a message
/// counts the packets that carried its bytes, so the message rows of a
/// connection sum to its row of `conns.csv`.
pub fn write_flows_csv(w: &mut impl Write, r: &RunResult, scn: Option<&Scenario>) -> io::Result<()> {
    writeln!(w, "{FLOWS_CSV_HEADER}")?;
    for f in &r.flows {
        let workload = scn.map_or(f.tag, |s| s.workload_of(f));
        writeln!(
            w,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            f.id,
            f.src,
            f.dst,
            f.size,
            num(to_us(f.start), 6),
            f.fct.map(|t| num(to_us(t), 6)).unwrap_or_default(),
            num(to_us(f.ideal_fct), 6),
            f.slowdown.map(|s| num(s, 6)).unwrap_or_default(),
            f.retransmits,
            workload.map(|x| x.to_string()).unwrap_or_default(),
            f.conn.map(|x| x.to_string()).unwrap_or_default(),
            f.timeouts,
            f.trimmed,
            f.drops,
        )?;
    }
    Ok(())
}

/// The header of `flows.csv` (the losses after the columns it had before them).
pub const FLOWS_CSV_HEADER: &str =
    "id,src,dst,size,start_us,fct_us,ideal_fct_us,slowdown,retransmits,workload,conn,timeouts,trimmed,drops";

/// The header of `conns.csv`.
pub const CONNS_CSV_HEADER: &str = "id,src,dst,messages,completed,bytes,acked,retransmits,timeouts,trimmed,drops";

/// `conns.csv`: one row per connection (written only when a run has any).
pub fn write_conns_csv(w: &mut impl Write, r: &RunResult) -> io::Result<()> {
    writeln!(w, "{CONNS_CSV_HEADER}")?;
    for c in &r.conns {
        writeln!(
            w,
            "{},{},{},{},{},{},{},{},{},{},{}",
            c.id,
            c.src,
            c.dst,
            c.messages,
            c.completed,
            c.bytes,
            c.acked,
            c.retransmits,
            c.timeouts,
            c.trimmed,
            c.drops
        )?;
    }
    Ok(())
}

/// `nodes.csv`: where every node sits ([`ccsim_core::layout`]): `role`
/// (host, edge, spine in a 2-tier fabric, agg and core in a 3-tier one),
/// `tier` (hops from the nearest host), `pod` (3 tiers and more: the part
/// left without the top tier, empty for the top tier and flatter fabrics),
/// `index` (among the nodes of its role and pod), `edge` (a host's switch).
pub fn write_nodes_csv(w: &mut impl Write, topo: &ccsim_core::Topology) -> io::Result<()> {
    writeln!(w, "node,role,tier,pod,index,edge")?;
    let opt = |x: Option<u32>| x.map(|v| v.to_string()).unwrap_or_default();
    for (i, p) in ccsim_core::layout::layout(topo).iter().enumerate() {
        writeln!(w, "{i},{},{},{},{},{}", p.role, p.tier, opt(p.pod), p.index, opt(p.edge))?;
    }
    Ok(())
}

pub fn write_ports_csv(w: &mut impl Write, r: &RunResult) -> io::Result<()> {
    writeln!(
        w,
        "node,peer,rate_gbps,tx_bytes,tx_data_bytes,pause_sent,paused_us,drops,ecn_marked,max_qlen_bytes,trimmed"
    )?;
    for p in &r.ports {
        writeln!(
            w,
            "{},{},{},{},{},{},{},{},{},{},{}",
            p.port.node,
            p.port.peer,
            num(p.rate_bps as f64 / 1e9, 6),
            p.tx_bytes,
            p.tx_data_bytes,
            p.pause_sent,
            num(to_us(p.paused_time), 6),
            p.drops,
            p.ecn_marked,
            p.max_qlen,
            p.trimmed
        )?;
    }
    Ok(())
}

/// Quotes a CSV field when needed.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn jnum(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        Value::Null
    }
}

pub fn stats_json(s: &Stats) -> Value {
    json!({
        "count": s.count,
        "avg": jnum(s.avg),
        "p50": jnum(s.p50),
        "p95": jnum(s.p95),
        "p99": jnum(s.p99),
        "max": jnum(s.max),
    })
}

fn opt_time_us(t: Option<Time>) -> Value {
    t.map(|t| jnum(to_us(t))).unwrap_or(Value::Null)
}

/// Events per wall-clock second of a run.
pub fn events_per_sec(r: &RunResult) -> f64 {
    if r.engine.wall_secs > 0.0 {
        r.engine.events as f64 / r.engine.wall_secs
    } else {
        f64::NAN
    }
}

/// Fairness window for traced flows: 10 trace samples (at least one sample).
pub fn fairness_window(r: &RunResult) -> u64 {
    r.flow_traces.first().and_then(|f| (f.t.len() >= 2).then(|| 10 * (f.t[1] - f.t[0]))).unwrap_or(0)
}

/// Mean and 99th percentile of every traced queue's samples together (bytes).
pub fn traced_queue(r: &RunResult) -> Option<(f64, f64)> {
    let mut v: Vec<f64> = r.queues.iter().flat_map(|s| s.v.iter().copied()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    Some((mean, ccsim_core::results::percentile_sorted(&v, 99.0)))
}

/// `run.json`: how the run was made (the scenario file as named, the `--set`
/// overrides) and how fast it went (wall time, CPU time, events per
/// second): kept out of `summary.json`, which depends only on the scenario
/// and seed.
pub fn run_json(scn: &Scenario, r: &RunResult) -> Value {
    let e = &r.engine;
    json!({
        "scenario": scn.label,
        "overrides": scn.overrides,
        "scheme": r.scheme,
        "wall_secs": jnum(e.wall_secs),
        "cpu_secs": jnum(e.cpu_secs),
        "events": e.events,
        "events_per_sec": jnum(events_per_sec(r)),
        "sim_seconds_per_wall_second": jnum(if e.wall_secs > 0.0 { to_secs(e.sim_end) / e.wall_secs } else { f64::NAN }),
        "ccsim_version": env!("CARGO_PKG_VERSION"),
    })
}

fn write_json(dir: &Path, name: &str, v: &Value) -> io::Result<()> {
    let mut w = create(dir, name)?;
    serde_json::to_writer_pretty(&mut w, v).map_err(io::Error::other)?;
    writeln!(w)?;
    w.flush()
}

/// Everything in the summary, the engine statistics, the scenario and the
/// resolved network: the same bytes for the same scenario and seed.
/// The `jobs` section of `summary.json`: per workload entry that makes
/// messages, its messages, completion time and iterations (absent for a
/// flow-only scenario).
fn jobs_json(scn: &Scenario, r: &RunResult) -> Value {
    let jobs = crate::metrics::jobs::jobs(scn, r);
    if jobs.is_empty() {
        return Value::Null;
    }
    Value::Array(
        jobs.iter()
            .map(|j| {
                json!({
                    "workload": j.workload,
                    "messages": j.messages,
                    "finished": j.finished,
                    "start_us": jnum(j.start_us),
                    "job_time_us": j.time_us.map(jnum),
                    "iteration_us": j.iterations_us.iter().map(|x| x.map(jnum)).collect::<Vec<_>>(),
                    "retransmits": j.retransmits,
                    "trimmed": j.trimmed,
                    "hosts": j.hosts,
                    "collectives": j.collectives.iter().map(|c| json!({
                        "iteration": c.iteration,
                        "index": c.index,
                        "start_us": jnum(c.start_us),
                        "time_us": c.time_us.map(jnum),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

/// A run is warned about when it resent more than this share of the data
/// packets it needed (resends / distinct data packets, the distinct ones
/// being those sent for the first time). A lossy fabric that works resends
/// a few percent; past 10% the resends take a visible share of the
/// bandwidth and the completion times measure loss recovery as much as
/// congestion control (NSCC + REPS on a go-back-N receiver: 340%).
pub const RESEND_WARN_SHARE: f64 = 0.10;

/// 1234567 -> "1,234,567" (shared with the scenario reader's messages).
pub use ccsim_core::units::thousands;

/// Whether every data class of the scenario's fabric is lossless (PFC on,
/// no `pfc.lossy_prios` among the data priorities) and no link fails: then
/// the fabric drops nothing and a retransmission timeout is never needed.
fn lossless_without_failures(scn: &Scenario) -> bool {
    let n = &scn.net;
    n.pfc.enabled && (0..n.data_classes).all(|p| !n.pfc.lossy_prios.contains(&p)) && n.link_events.is_empty()
}

/// What to know before reading a run's numbers, one sentence each naming
/// the scheme (`summary.json`'s `warnings`): the warnings the run started
/// with (a combination of scheme and network easy to misread,
/// [`ccsim_core::compat`]; `ccsim run`/`compare` print them before
/// simulating), then [`loss_warnings`].
pub fn warnings(scn: &Scenario, scheme: &str, r: &RunResult) -> Vec<String> {
    let mut w: Vec<String> = r
        .notes
        .iter()
        .filter(|n| n.kind == ccsim_core::compat::NoteKind::Warning)
        .map(|n| format!("{scheme}: {}", n.text))
        .collect();
    w.extend(loss_warnings(scn, scheme, r));
    w
}

/// The choices made for a run because the scenario left them open
/// (`summary.json`'s `chosen`; [`ccsim_core::compat`]).
pub fn chosen(r: &RunResult) -> Vec<String> {
    r.notes.iter().filter(|n| n.kind == ccsim_core::compat::NoteKind::Chosen).map(|n| n.text.clone()).collect()
}

/// What the results say to know before reading them, one sentence each
/// naming the scheme (`ccsim run`/`compare` print them first, before the
/// table, prefixed "warning: "). Warned about:
/// - flows or messages that did not finish (a stop time, a stall, a PFC
///   deadlock, an interrupt): the statistics count only finished ones;
/// - resends above [`RESEND_WARN_SHARE`] of the distinct data packets;
/// - any retransmission timeout on a fabric that is lossless throughout
///   and has no link failure.
///
/// Derived from the results only, so as deterministic as they are.
pub fn loss_warnings(scn: &Scenario, scheme: &str, r: &RunResult) -> Vec<String> {
    let mut w = Vec::new();
    let open = r.flows.iter().filter(|f| f.fct.is_none()).count();
    if open > 0 || r.messages_waiting > 0 {
        let what = if r.conns.is_empty() { "flows" } else { "flows and messages" };
        let waiting = if r.messages_waiting > 0 {
            format!(", {} messages never released", thousands(r.messages_waiting))
        } else {
            String::new()
        };
        w.push(format!(
            "{scheme}: {} of {} {what} did not finish by {}{waiting} ({}): slowdown and FCT statistics count only finished ones",
            thousands(open as u64),
            thousands(r.flows.len() as u64),
            ccsim_scenario::fmt_time(r.engine.sim_end),
            r.status.describe()
        ));
    }
    let resends = r.retransmits;
    let distinct = r.engine.data_packets.saturating_sub(resends);
    if resends > 0 && resends as f64 > RESEND_WARN_SHARE * distinct as f64 {
        let ratio = r.engine.data_packets as f64 / distinct.max(1) as f64;
        w.push(format!(
            "{scheme} sent {ratio:.2}x the data packets it needed: {} resends of {} distinct data packets ({} timeouts, {} drops, {} trims); its completion times include the resends (per flow and message: `retransmits`, `timeouts`, `drops`, `trimmed` in flows.csv)",
            thousands(resends),
            thousands(distinct),
            thousands(r.timeouts),
            thousands(r.drops),
            thousands(r.trimmed),
        ));
    }
    if r.timeouts > 0 && lossless_without_failures(scn) {
        w.push(format!(
            "{scheme}: {} retransmission timeouts on a lossless fabric (PFC on every data class, no link failure): each stalled its flow for network.rto and resent everything in flight; the fabric lost nothing, so the RTO is shorter than the delay data met or the receiver discarded data that arrived out of order",
            thousands(r.timeouts)
        ));
    }
    w
}

pub fn summary_json(scn: &Scenario, scheme: &str, r: &RunResult) -> Value {
    let s: Summary = r.summary();
    let by_size: Vec<Value> = s
        .by_size
        .iter()
        .map(|(label, st)| {
            let mut v = stats_json(st);
            v["bucket"] = json!(label);
            v
        })
        .collect();
    let by_count: Vec<Value> = r
        .count_buckets(20)
        .iter()
        .map(|(size, st)| {
            let mut v = stats_json(st);
            v["max_size"] = json!(size);
            v
        })
        .collect();
    let e = &r.engine;
    let mut v = json!({
        "scenario": scn.name,
        "file": scn.label,
        "description": scn.description,
        "scheme": scheme,
        "scheme_params": scn.scheme_params.get(scheme).and_then(|v| serde_json::to_value(v).ok()),
        "seed": scn.seed,
        "stop_us": opt_time_us(scn.stop),
        "status": r.status.name(),
        "status_detail": r.status.describe(),
        "run_status": serde_json::to_value(&r.status).unwrap_or(Value::Null),
        "truncated": r.truncated,
        "unfinished_flows": s.flows - s.finished,
        "check": match &r.check {
            None => Value::Null,
            Some(Ok(_)) => json!("passed"),
            Some(Err(e)) => json!({ "failed": e }),
        },
        "topology": {
            "name": scn.topo.name,
            "hosts": scn.topo.hosts().len(),
            "switches": scn.topo.switches().len(),
            "links": scn.topo.links.len(),
        },
        "flows": s.flows,
        "finished": s.finished,
        "slowdown": stats_json(&s.slowdown),
        "slowdown_by_size": by_size,
        "slowdown_by_count": by_count,
        "fct_us": stats_json(&s.fct_us),
        "drops": s.drops,
        "pause_frames": s.pause_frames,
        "paused_time_us": jnum(s.paused_time_us),
        "max_queue_bytes": s.max_queue_bytes,
        "traced_queue": traced_queue(r).map(|(m, p)| json!({"mean_bytes": jnum(m), "p99_bytes": jnum(p)})),
        "traced_fairness": r.traced_fairness(fairness_window(r)).map(|f| json!({
            "window_us": jnum(to_us(fairness_window(r))),
            "windows": f.windows,
            "mean_jain": jnum(f.mean_jain),
            "min_jain": jnum(f.min_jain),
        })),
        "scheme_counters": r.scheme_counters.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
        "engine": {
            "events": e.events,
            "data_packets": e.data_packets,
            "link_packets": e.link_packets,
            "sim_end_us": jnum(to_us(e.sim_end)),
            "peak_packets_in_pool": e.peak_packets_in_pool,
            "packets_live": e.packets_live,
            "link_events": e.link_events,
            "data_bytes_delivered": e.data_bytes_delivered,
            "data_bytes_dropped": e.data_bytes_dropped,
            "data_bytes_in_flight": e.data_bytes_in_flight,
        },
        "network": serde_json::to_value(&scn.net).unwrap_or(Value::Null),
    });
    // the losses (beside `drops` and `pause_frames`) and what to know before
    // reading the numbers (set here: one macro call this large would pass
    // the recursion limit)
    v["warnings"] = json!(warnings(scn, scheme, r));
    v["chosen"] = json!(chosen(r));
    v["retransmits"] = json!(s.retransmits);
    v["timeouts"] = json!(s.timeouts);
    v["trimmed"] = json!({"packets": s.trimmed, "payload_bytes": r.engine.data_bytes_trimmed});
    let jobs = jobs_json(scn, r);
    if !jobs.is_null() {
        v["jobs"] = jobs;
    }
    v
}

/// Writes every file of one scheme's run into `dir` (which must exist). The
/// traces (`queues.csv`, `utilization.csv`, `flow_traces.csv`, `changes.csv`,
/// `acks.csv`) are not among them: the run streamed them into `dir` as it went.
pub fn write_run_files(dir: &Path, scn: &Scenario, scheme: &str, r: &RunResult) -> io::Result<()> {
    write_run_files_with(dir, scn, scheme, r, &plot_options(scn, None, &[Format::Svg]))
}

/// The chart options of a scenario's results: ports named by its topology.
pub fn plot_options(scn: &Scenario, window: Option<(Time, Time)>, formats: &[Format]) -> PlotOptions {
    PlotOptions { window, formats: formats.to_vec(), nodes: scn.topo.nodes.clone() }
}

/// [`write_run_files`] with the charts drawn as `opts` says.
pub fn write_run_files_with(
    dir: &Path,
    scn: &Scenario,
    scheme: &str,
    r: &RunResult,
    opts: &PlotOptions,
) -> io::Result<()> {
    let mut w = create(dir, "flows.csv")?;
    write_flows_csv(&mut w, r, Some(scn))?;
    w.flush()?;
    if !r.conns.is_empty() {
        let mut w = create(dir, "conns.csv")?;
        write_conns_csv(&mut w, r)?;
        w.flush()?;
    }
    let mut w = create(dir, "ports.csv")?;
    write_ports_csv(&mut w, r)?;
    w.flush()?;
    let mut w = create(dir, "nodes.csv")?;
    write_nodes_csv(&mut w, &scn.topo)?;
    w.flush()?;
    write_json(dir, "summary.json", &summary_json(scn, scheme, r))?;
    write_json(dir, "run.json", &run_json(scn, r))?;
    fs::write(dir.join("scenario.toml"), &scn.text)?;
    plots::write_all(dir, &[(scheme.to_string(), r)], opts)?;
    plots::write_jobs(dir, scn, &[(scheme.to_string(), r)], opts)?;
    write_page(dir, scn, &[(scheme.to_string(), r)])
}

/// A size-bucket label as a column-name part: "<100KB" -> "lt100KB",
/// "100KB-1MB" -> "100KB_1MB", ">=1MB" -> "ge1MB".
pub fn bucket_key(label: &str) -> String {
    label.replace(">=", "ge").replace('<', "lt").replace('>', "gt").replace('-', "_")
}

/// One row per scheme of the headline numbers, as CSV.
pub fn write_compare_csv(w: &mut impl Write, runs: &[(String, &RunResult)]) -> io::Result<()> {
    let buckets: Vec<String> = ccsim_core::results::SIZE_BUCKETS.iter().map(|b| b.0.to_string()).collect();
    let mut header =
        vec!["scheme", "flows", "finished", "slowdown_avg", "slowdown_p50", "slowdown_p95", "slowdown_p99"]
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>();
    for b in &buckets {
        for m in ["count", "avg", "p50", "p95", "p99"] {
            header.push(format!("slowdown_{}_{m}", bucket_key(b)));
        }
    }
    for h in [
        "fct_avg_us",
        "fct_p99_us",
        "drops",
        "pause_frames",
        "retransmits",
        "timeouts",
        "trimmed",
        "paused_time_us",
        "max_queue_bytes",
        "traced_queue_mean_bytes",
        "traced_queue_p99_bytes",
        "traced_jain_mean",
        "traced_jain_min",
        "sim_end_us",
        "events",
        "data_packets",
        "status",
        "truncated",
    ] {
        header.push(h.to_string());
    }
    writeln!(w, "{}", header.iter().map(|h| csv_field(h)).collect::<Vec<_>>().join(","))?;
    for (name, r) in runs {
        let s = r.summary();
        let mut row = vec![
            csv_field(name),
            s.flows.to_string(),
            s.finished.to_string(),
            num(s.slowdown.avg, 6),
            num(s.slowdown.p50, 6),
            num(s.slowdown.p95, 6),
            num(s.slowdown.p99, 6),
        ];
        for (_, st) in &s.by_size {
            row.push(st.count.to_string());
            row.extend([st.avg, st.p50, st.p95, st.p99].iter().map(|&x| num(x, 6)));
        }
        row.extend([
            num(s.fct_us.avg, 3),
            num(s.fct_us.p99, 3),
            s.drops.to_string(),
            s.pause_frames.to_string(),
            s.retransmits.to_string(),
            s.timeouts.to_string(),
            s.trimmed.to_string(),
            num(s.paused_time_us, 3),
            s.max_queue_bytes.to_string(),
            traced_queue(r).map(|q| num(q.0, 1)).unwrap_or_default(),
            traced_queue(r).map(|q| num(q.1, 1)).unwrap_or_default(),
            r.traced_fairness(fairness_window(r)).map(|f| num(f.mean_jain, 4)).unwrap_or_default(),
            r.traced_fairness(fairness_window(r)).map(|f| num(f.min_jain, 4)).unwrap_or_default(),
            num(to_us(r.engine.sim_end), 3),
            r.engine.events.to_string(),
            r.engine.data_packets.to_string(),
            r.status.name().to_string(),
            r.truncated.to_string(),
        ]);
        writeln!(w, "{}", row.join(","))?;
    }
    Ok(())
}

/// Writes a compare directory: one subdirectory per scheme, compare.csv,
/// compare.json and the overlaid charts.
pub fn write_compare_files(
    dir: &Path,
    scn: &Scenario,
    runs: &[(String, &RunResult)],
    opts: &PlotOptions,
) -> io::Result<()> {
    for (name, r) in runs {
        let sub = dir.join(ccsim_scenario::safe_component(name));
        // exists already when the scheme streamed its traces into it
        fs::create_dir_all(&sub)?;
        write_run_files_with(&sub, scn, name, r, opts)?;
    }
    let mut w = create(dir, "compare.csv")?;
    write_compare_csv(&mut w, runs)?;
    w.flush()?;
    let all: Vec<Value> = runs.iter().map(|(n, r)| summary_json(scn, n, r)).collect();
    let doc = json!({
        "scenario": scn.name,
        "file": scn.label,
        "seed": scn.seed,
        "schemes": runs.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(),
        "results": all,
    });
    write_json(dir, "compare.json", &doc)?;
    fs::write(dir.join("scenario.toml"), &scn.text)?;
    plots::write_all(dir, runs, opts)?;
    plots::write_jobs(dir, scn, runs, opts)?;
    write_page(dir, scn, runs)
}

/// `report.html` of a run or a comparison: the scenario, the result table
/// (one column per scheme, units in the row names) and the charts written
/// beside it, in the look of the reproduction reports (`report::doc`).
pub fn write_page(dir: &Path, scn: &Scenario, runs: &[(String, &RunResult)]) -> io::Result<()> {
    use crate::report::doc::{Block, Doc};
    let schemes: Vec<String> = runs.iter().map(|(n, _)| n.clone()).collect();
    let mut d = Doc { title: format!("{}: {}", scn.name, schemes.join(", ")), blocks: vec![] };
    d.push(Block::Heading(1, format!("{} ({})", scn.name, schemes.join(", ")), "top".into()));
    d.push(Block::Para(scn.summary()));
    if !scn.overrides.is_empty() {
        let sets: Vec<String> = scn.overrides.iter().map(|o| format!("`--set {o}`")).collect();
        d.push(Block::Para(format!("Made with {} over the file (also in `run.json`).", sets.join(" "))));
    }
    // what to know before reading the numbers comes first
    let warned: Vec<String> =
        runs.iter().flat_map(|(name, r)| warnings(scn, name, r)).map(|w| format!("**Warning:** {w}")).collect();
    if !warned.is_empty() {
        d.push(Block::List(warned));
    }
    let mut header = vec!["".to_string()];
    header.extend(schemes.iter().cloned());
    // the terminal's table: the same rows, values with their units
    let mut rows = crate::result_rows::result_rows(runs, Some(scn));
    for r in &mut rows {
        // a sub-row (per size bucket, per job) keeps its indent in HTML
        if let Some(label) = r[0].strip_prefix("  ") {
            r[0] = format!("\u{a0}\u{a0}\u{a0}\u{a0}{label}");
        }
    }
    d.push(Block::Heading(2, "Results".into(), "results".into()));
    d.push(Block::Table(header, rows));
    if let Some(crate::result_rows::JobTable { header, rows, placed }) = crate::result_rows::job_rows(runs, scn) {
        d.push(Block::Heading(2, "Jobs".into(), "jobs".into()));
        d.push(Block::Para(
            "A job runs from its first release (a message's, or a compute task's start) to the last completion of its \
             messages and compute tasks; an iteration's and a collective's time is their communication, from the first \
             release to the last completion of their messages (`summary.json`'s `jobs`; the chart `jobs.svg`)."
                .into(),
        ));
        d.push(Block::Table(header, rows));
        if !placed.is_empty() {
            d.push(Block::List(placed));
        }
    }
    d.push(Block::Para(
        "Files beside this page: `flows.csv` (one row per flow and message), `ports.csv`, `nodes.csv` (each node's role, pod and index), `summary.json`, the charts below as SVG; a comparison has one folder per scheme.".into(),
    ));
    d.push(Block::Heading(2, "Charts".into(), "charts".into()));
    for name in
        ["slowdown.svg", "jobs.svg", "queues.svg", "utilization.svg", "throughput.svg", "rates.svg", "rates_norm.svg"]
    {
        if let Ok(svg) = fs::read_to_string(dir.join(name)) {
            d.push(Block::Chart(name.into(), svg));
        }
    }
    fs::write(dir.join("report.html"), d.html())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_core::results::FlowResult;

    #[test]
    fn compare_csv_has_one_row_per_scheme() {
        let a = RunResult { scheme: "a".into(), ..Default::default() };
        let mut out = Vec::new();
        write_compare_csv(&mut out, &[("dcqcn".into(), &a), ("hpcc".into(), &a)]).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        let header: Vec<&str> = lines[0].split(',').collect();
        assert_eq!(header[0], "scheme");
        assert!(header.contains(&"slowdown_lt100KB_p99"));
        assert!(header.contains(&"slowdown_100KB_1MB_count"));
        assert!(header.contains(&"slowdown_ge1MB_avg"));
        for l in &lines[1..] {
            assert_eq!(l.split(',').count(), header.len(), "{l}");
        }
        assert!(lines[1].starts_with("dcqcn,0,0,"));
        assert!(lines[2].starts_with("hpcc,"));
    }

    #[test]
    fn csv_numbers_and_fields() {
        assert_eq!(num(1.5, 3), "1.5");
        assert_eq!(num(2.0, 3), "2");
        assert_eq!(num(f64::NAN, 3), "");
        assert_eq!(num(1234.0, 0), "1234");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("plain"), "plain");
    }

    #[test]
    fn flows_csv_has_a_row_per_flow_and_blanks_for_unfinished() {
        let r = RunResult {
            flows: vec![
                FlowResult {
                    id: 0,
                    src: 0,
                    dst: 3,
                    size: 1000,
                    start: 2_000_000,
                    fct: Some(5_500_000),
                    ideal_fct: 5_000_000,
                    slowdown: Some(1.1),
                    retransmits: 0,
                    conn: None,
                    tag: None,
                    ..Default::default()
                },
                FlowResult {
                    id: 1,
                    src: 1,
                    dst: 3,
                    size: 5000,
                    start: 0,
                    fct: None,
                    ideal_fct: 6_000_000,
                    slowdown: None,
                    retransmits: 4,
                    conn: None,
                    tag: None,
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let mut out = Vec::new();
        write_flows_csv(&mut out, &r, None).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "id,src,dst,size,start_us,fct_us,ideal_fct_us,slowdown,retransmits,workload,conn,timeouts,trimmed,drops"
        );
        assert_eq!(lines[1], "0,0,3,1000,2,5.5,5,1.1,0,,,0,0,0");
        assert_eq!(lines[2], "1,1,3,5000,0,,6,,4,,,0,0,0");
        assert_eq!(lines.len(), 3);
    }
}
