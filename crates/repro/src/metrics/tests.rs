//! Tests of the metric vocabulary on hand-made results: each metric's
//! definition on data whose answer is known.

use super::*;
use ccsim_core::results::{FlowResult, FlowTrace, PortRef, PortResult, RunResult, Series};
use ccsim_core::time::US;
use std::path::Path;

/// A star of 4 hosts (switch 4) with two workloads: flows 0..2 from
/// workload 0 (sizes 1 KB, 50 KB), flow 2 from workload 1 (2 MB).
fn scenario(trace: &str) -> Scenario {
    let text = format!(
        r#"
[topology]
kind = "star"
hosts = 4
rate = "100Gbps"
delay = "1us"
[[workload]]
kind = "flows"
flows = [{{ src = 0, dst = 3, size = 1000 }}, {{ src = 1, dst = 3, size = 50000, start = "1us" }}]
[[workload]]
kind = "flows"
flows = [{{ src = 2, dst = 3, size = 2000000, start = "2us" }}]
{trace}
"#
    );
    ccsim_scenario::load_text("t.toml", &text, Path::new("."), "t", &Default::default()).unwrap()
}

fn flow(id: u32, size: u64, start: u64, fct: Option<u64>, ideal: u64) -> FlowResult {
    FlowResult {
        id,
        src: id,
        dst: 3,
        size,
        start,
        fct,
        ideal_fct: ideal,
        slowdown: fct.map(|f| (f as f64 / ideal as f64).max(1.0)),
        retransmits: 0,
        conn: None,
        tag: None,
        ..Default::default()
    }
}

fn series(name: &str, step: u64, v: &[f64]) -> Series {
    Series { name: name.into(), t: (0..v.len() as u64).map(|i| i * step).collect(), v: v.to_vec() }
}

fn result() -> RunResult {
    RunResult {
        flows: vec![
            flow(0, 1000, 0, Some(10 * US), 5 * US),
            flow(1, 50_000, US, Some(20 * US), 10 * US),
            flow(2, 2_000_000, 2 * US, None, 100 * US),
        ],
        queues: vec![series("4:3", 10 * US, &[0.0, 5000.0, 20000.0, 8000.0, 0.0, 3000.0, 0.0])],
        utilization: vec![series("4:3", 10 * US, &[0.2, 0.5, 0.99, 0.9, 0.97, 0.98, 0.99])],
        ports: vec![
            PortResult {
                port: PortRef { node: 4, peer: 3 },
                rate_bps: 100_000_000_000,
                max_qlen: 21_000,
                pause_sent: 2,
                ..Default::default()
            },
            PortResult {
                port: PortRef { node: 0, peer: 4 },
                rate_bps: 100_000_000_000,
                paused_time: 15 * US,
                paused_intervals: vec![(10 * US, 20 * US), (30 * US, 35 * US)],
                ..Default::default()
            },
            PortResult {
                port: PortRef { node: 1, peer: 4 },
                rate_bps: 100_000_000_000,
                paused_intervals: vec![(15 * US, 25 * US)],
                pause_sent: 1,
                ..Default::default()
            },
        ],
        engine: ccsim_core::results::EngineStats { sim_end: 60 * US, ..Default::default() },
        hol_pkts: vec![0, 3, 0],
        ..Default::default()
    }
}

/// Parameters written as the inside of an inline table.
fn table(s: &str) -> toml::Table {
    let mut t: toml::Table = toml::from_str(&format!("p = {{ {s} }}")).unwrap();
    t.remove("p").unwrap().as_table().unwrap().clone()
}

fn value(name: &str, params: &str, r: &RunResult, scn: &Scenario) -> Option<f64> {
    let p = table(params);
    compute(name, &p, &Ctx { r, scn }).unwrap_or_else(|e| panic!("{name} {params}: {e}"))
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-9 * b.abs().max(1.0))
}

#[test]
fn flow_metrics_filter_by_size_and_workload() {
    let scn = scenario("");
    let r = result();
    assert!(close(value("slowdown", "", &r, &scn), 2.0));
    assert!(close(value("slowdown", "stat = \"max\"", &r, &scn), 2.0));
    assert!(close(value("fct", "stat = \"p50\"", &r, &scn), 10.0));
    assert!(close(value("fct", "min_size = \"10KB\"", &r, &scn), 20.0));
    assert_eq!(value("fct", "min_size = \"1MB\"", &r, &scn), None, "no finished flow in range");
    assert!(close(value("finished", "", &r, &scn), 2.0 / 3.0));
    assert!(close(value("finished", "workload = 1", &r, &scn), 0.0));
    assert!(close(value("unfinished", "workload = 0", &r, &scn), 0.0));
    assert!(close(value("flow_size", "stat = \"share\", max_size = \"100KB\"", &r, &scn), 2.0 / 3.0));
    assert!(close(value("flow_size", "stat = \"max\", max_size = \"100KB\"", &r, &scn), 50_000.0));
    assert!(close(value("hol_share", "", &r, &scn), 1.0 / 3.0));
    // 51 KB over [0, 21 us] at 8 bits per byte
    assert!(close(value("incast_goodput", "flows = [0, 1]", &r, &scn), 51_000.0 * 8.0 / 21e-6 / 1e9));
    assert_eq!(value("incast_goodput", "", &r, &scn), None, "flow 2 did not finish");
    assert!(close(value("completion", "flows = [0, 1]", &r, &scn), 21.0));
    // a time metric less an origin: a delay
    assert!(close(value("completion", "flows = [0, 1], origin = \"1us\"", &r, &scn), 20.0));
    let p = table("origin = \"1us\"");
    assert!(compute("slowdown", &p, &Ctx { r: &r, scn: &scn }).unwrap_err().contains("not a time"));
    // 2.051 MB over 0..2 us on 4 host links of 100G
    assert!(close(value("offered_load", "", &r, &scn), 51_000.0 * 8.0 / (400e9 * 2e-6)));
    assert!(close(value("offered_load", "workload = 0", &r, &scn), 1000.0 * 8.0 / (400e9 * 1e-6)));
}

#[test]
fn queue_and_utilization_metrics() {
    let scn = scenario("[trace]\ninterval = \"10us\"\nqueues = [\"4:3\"]\nutilization = [\"4:3\"]\n");
    let r = result();
    let q = "port = \"4:3\"";
    assert!(close(value("queue", q, &r, &scn), 36000.0 / 7.0));
    assert!(close(value("queue", &format!("{q}, stat = \"max\", from = \"20us\""), &r, &scn), 20000.0));
    assert!(close(value("queue", &format!("{q}, stat = \"max\", last = 0.5"), &r, &scn), 8000.0));
    assert!(close(value("queue", &format!("{q}, stat = \"max\""), &r, &scn).map(|b| b / 1000.0), 20.0));
    assert!(close(value("max_queue", q, &r, &scn), 21_000.0));
    assert!(close(value("queue_delay", &format!("{q}, stat = \"max\""), &r, &scn), 20000.0 * 8.0 / 100e9 * 1e6));
    assert!(close(value("queue_above", &format!("{q}, threshold = 4000"), &r, &scn), 3.0 / 7.0));
    // the queue is 0 at 60 us for good; at or below 3 KB from 50 us
    assert!(close(value("queue_clear_time", q, &r, &scn), 60.0));
    assert!(close(value("queue_clear_time", &format!("{q}, below = 3000"), &r, &scn), 40.0));
    // the peak (20 us) drains to <= 0 at 40 us
    assert!(close(value("drain_time", &format!("{q}, from = \"10us\""), &r, &scn), 30.0));
    // episodes above 4 KB: 10..40 us; above 2 KB: 10..40 and 50..60 us
    assert!(close(value("queue_episode", &format!("{q}, high = 4000"), &r, &scn), 30.0));
    assert!(close(value("queue_episode", &format!("{q}, high = 2000, stat = \"count\""), &r, &scn), 2.0));
    let u = "port = \"4:3\"";
    assert!(close(value("utilization", &format!("{u}, stat = \"min\", from = \"30us\""), &r, &scn), 0.9));
    // >= 0.95 first at 20 us, for good from 40 us
    assert!(close(value("time_to_utilization", &format!("{u}, hold = false"), &r, &scn), 20.0));
    assert!(close(value("time_to_utilization", u, &r, &scn), 40.0));
    // capacity lost under 1.0, 10 us per sample
    // under 0.95: 0..20 us and 30..40 us; the longest lasted 20 us
    assert!(close(value("utilization_episode", u, &r, &scn), 20.0));
    assert!(close(value("utilization_episode", &format!("{u}, stat = \"count\""), &r, &scn), 2.0));
    let lost = (0.8 + 0.5 + 0.01 + 0.1 + 0.03 + 0.02 + 0.01) * 10.0;
    assert!(close(value("underutilization", &format!("{u}, threshold = 1.0"), &r, &scn), lost));
}

#[test]
fn pause_metrics() {
    let scn = scenario("");
    let r = result();
    assert!(close(value("pause_frames", "", &r, &scn), 3.0));
    assert!(close(value("pause_frames", "ports = [\"4:3\", \"1:4\"]", &r, &scn), 3.0));
    assert!(close(value("paused_time", "", &r, &scn), 15.0));
    // union of [10,20], [30,35] and [15,25] = 20 us; clipped to 18..32: 7 + 2
    assert!(close(value("pause_duration", "", &r, &scn), 20.0));
    assert!(close(value("pause_duration", "from = \"18us\", to = \"32us\"", &r, &scn), 9.0));
}

fn traced_result() -> RunResult {
    let t: Vec<u64> = (0..11).map(|i| i * 10 * US).collect();
    // flow 0 at 100G until 50 us, then 50G; flow 1 starts at 50 us at 50G
    let acked0: Vec<f64> = t
        .iter()
        .map(|&x| if x <= 50 * US { x as f64 * 12.5e-3 } else { 625_000.0 + (x - 50 * US) as f64 * 6.25e-3 })
        .collect();
    let acked1: Vec<f64> = t.iter().map(|&x| if x <= 50 * US { 0.0 } else { (x - 50 * US) as f64 * 6.25e-3 }).collect();
    let rate0: Vec<f64> = t.iter().map(|&x| if x < 60 * US { 100e9 } else { 50e9 }).collect();
    RunResult {
        flow_traces: vec![
            FlowTrace {
                flow: 0,
                line_rate_bps: 100e9,
                t: t.clone(),
                rate_bps: rate0,
                window: vec![1e5; 11],
                acked: acked0,
                probe: vec![0.5; 11],
                changes: vec![
                    (0, 100e9, 1e5),
                    (52 * US, 80e9, 1e5),
                    (55 * US, 60e9, 1e5),
                    (58 * US, 49e9, 1e5),
                    (70 * US, 60e9, 1e5),
                    (75 * US, 50e9, 1e5),
                ],
                acks: vec![(0, 5 * US), (US, 7 * US), (2 * US, 6 * US)],
            },
            FlowTrace {
                flow: 1,
                line_rate_bps: 100e9,
                t,
                rate_bps: vec![50e9; 11],
                window: vec![1e5; 11],
                acked: acked1,
                probe: vec![0.0; 11],
                ..Default::default()
            },
        ],
        engine: ccsim_core::results::EngineStats { sim_end: 100 * US, ..Default::default() },
        ..result()
    }
}

#[test]
fn flow_trace_metrics() {
    let scn = scenario("[trace]\ninterval = \"10us\"\nflows = [0, 1]\nchanges = true\nacks = true\n");
    let r = traced_result();
    assert!(close(value("goodput", "flows = [0], from = \"0us\", to = \"50us\"", &r, &scn), 100.0));
    assert!(close(value("goodput", "from = \"60us\", to = \"100us\"", &r, &scn), 100.0));
    assert!(close(value("jain", "from = \"60us\", to = \"100us\"", &r, &scn), 1.0));
    assert!(close(value("jain", "from = \"0us\", to = \"50us\"", &r, &scn), 0.5));
    assert!(close(value("jain_min", "window = \"20us\", step = \"10us\"", &r, &scn), 0.5));
    assert!(close(value("share", "flow = 1, from = \"60us\", to = \"100us\", fair_frac = 0.5", &r, &scn), 1.0));
    // windows of 20 us every 10 us: fair from the window starting at 50 us
    assert!(close(value("time_to_fair", "window = \"20us\", step = \"10us\"", &r, &scn), 50.0));
    assert!(close(value("rate", "flow = 0, stat = \"min\"", &r, &scn), 50.0));
    assert!(close(value("first_rate_drop", "flow = 0, after = \"20us\", below = 0.9", &r, &scn), 60.0));
    assert!(close(value("first_rate_drop", "flow = 0, after = \"20us\", drop = 0.4", &r, &scn), 60.0));
    assert_eq!(value("first_rate_drop", "flow = 1, after = \"20us\", below = 0.4", &r, &scn), None, "never");
    assert!(close(value("time_to_rate", "flow = 0, from = \"20us\", target = \"50Gbps\"", &r, &scn), 40.0));
    assert!(close(value("probe", "flow = 0", &r, &scn), 0.5));
    assert!(close(value("window", "flow = 1, stat = \"max\"", &r, &scn), 1e5));
    // changes after 50 us until the rate is within 5% of 50G: 80, 60, 49 -> 3 steps;
    // for good: the last entry into the band is the 6th change (75 us) -> 5 steps
    let s = "flow = 0, from = \"50us\", target = \"50Gbps\"";
    assert!(close(value("steps_to_rate", s, &r, &scn), 3.0));
    assert!(close(value("steps_to_rate", &format!("{s}, hold = true"), &r, &scn), 5.0));
    assert!(close(value("rate_changes", "flow = 0, from = \"50us\"", &r, &scn), 5.0));
    assert!(close(value("rtt", "stat = \"max\"", &r, &scn), 6.0));
    assert!(close(value("rtt", "stat = \"mean\", from = \"6us\"", &r, &scn), 5.0));
}

#[test]
fn rtt_from_the_histogram() {
    let scn = scenario("[trace]\nrtt = true\n");
    let mut h = ccsim_core::results::RttHistogram::new();
    for us_ in [5u64, 6, 7, 8, 100] {
        h.add(us_ * US);
    }
    let r = RunResult { rtt: Some(h), ..result() };
    let p50 = value("rtt", "stat = \"p50\"", &r, &scn).unwrap();
    assert!((p50 - 7.0).abs() < 0.07, "{p50}");
    let p99 = value("rtt", "stat = \"p99\"", &r, &scn).unwrap();
    assert!((p99 - 100.0).abs() < 1.0, "{p99}");
}

#[test]
fn missing_inputs_are_named_before_running() {
    let bare = scenario("");
    let p = table;
    let e = needs("queue", &p("port = \"4:3\""), &bare).unwrap_err();
    assert!(e.contains("4:3") && e.contains("[trace] queues"), "{e}");
    let e = needs("rate", &p("flow = 0"), &bare).unwrap_err();
    assert!(e.contains("flow 0") && e.contains("[trace] flows"), "{e}");
    let e = needs("slowdown", &p("workload = 0"), &bare);
    assert!(e.is_ok());
    let e = needs("completion", &p("flows = [7]"), &bare).unwrap_err();
    assert!(e.contains("flow 7 does not exist"), "{e}");
    let traced = scenario("[trace]\nflows = [0]\n");
    let e = needs("steps_to_rate", &p("flow = 0, target_frac = 0.5"), &traced).unwrap_err();
    assert!(e.contains("changes = true"), "{e}");
    let e = needs("gradient_error", &p("flow = 0, port = \"4:3\""), &traced).unwrap_err();
    assert!(e.contains("queues") || e.contains("acks"), "{e}");
}

#[test]
fn params_are_checked_by_name_and_kind() {
    let p = table;
    assert!(check("queue", &p("port = \"1:2\", stat = \"p99\", from = \"10us\"")).is_ok());
    assert!(check("queue", &p("prot = \"1:2\"")).unwrap_err().contains("no parameter 'prot'"));
    assert!(check("queue", &p("port = \"12\"")).unwrap_err().contains("node:peer"));
    assert!(check("queue", &p("from = \"10\"")).unwrap_err().contains("from"));
    assert!(check("slowdown", &p("stat = \"p1000\"")).unwrap_err().contains("stat"));
    assert!(check("nope", &p("")).unwrap_err().contains("unknown metric"));
}

#[test]
fn units_convert() {
    let none = toml::Table::new();
    assert_eq!(convert(Unit::Us, "ms", 1500.0, &none).unwrap(), 1.5);
    assert_eq!(convert(Unit::Bytes, "KB", 1500.0, &none).unwrap(), 1.5);
    assert_eq!(convert(Unit::Bytes, "pkts", 2096.0, &none).unwrap(), 2.0);
    let pkt = table("packet = 1000");
    assert_eq!(convert(Unit::Bytes, "pkts", 2000.0, &pkt).unwrap(), 2.0);
    assert_eq!(convert(Unit::Fraction, "%", 0.25, &none).unwrap(), 25.0);
    assert_eq!(convert(Unit::Gbps, "Mbps", 1.5, &none).unwrap(), 1500.0);
    assert!(convert(Unit::Us, "KB", 1.0, &none).is_err());
    assert!(convert(Unit::Us, "rtts", 1.0, &none).is_err());
    let rtt = table("rtt = \"10us\"");
    assert_eq!(convert(Unit::Us, "rtts", 25.0, &rtt).unwrap(), 2.5);
}
