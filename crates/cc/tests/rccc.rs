//! RCCC (receiver credits, the core's `credit.rs`, asked for by `nscc` with
//! `rccc = true`), rule by rule on small scenarios: credit paced at 0.99 x
//! the receiver's line rate (uet-htsim `pull_rate_modifier`), shared round
//! robin so an incast drains evenly with a short queue (UE spec §3.6.14:
//! "To deal with incast, RCCC leverages information available at the
//! destination"), speculative credit of 1.5 BDP before the first feedback,
//! no ECN towards hosts, and no deadlock when packets are lost (RTS).

use ccsim_core::RunResult;
use ccsim_scenario::{load, Overrides};
use std::path::{Path, PathBuf};

fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name)
}

fn run_with(path: &Path, scheme: &str, sets: &[(&str, &str)]) -> RunResult {
    let r = run_until(path, scheme, sets);
    assert!(r.flows.iter().all(|f| f.fct.is_some()), "{scheme}: a flow did not finish");
    r
}

/// A checked run that may stop before the flows finish.
fn run_until(path: &Path, scheme: &str, sets: &[(&str, &str)]) -> RunResult {
    let ov = Overrides {
        sets: sets.iter().map(|(k, v)| (k.to_string(), ccsim_scenario::set::parse_value(v))).collect(),
        ..Default::default()
    };
    let mut scn = load(path, &ov).unwrap();
    scn.check = true;
    let r = scn.simulate(scheme, None).unwrap();
    assert_eq!(r.check.as_ref().map(|c| c.is_ok()), Some(true), "{scheme}: {:?}", r.check);
    r
}

fn counter(r: &RunResult, name: &str) -> u64 {
    r.scheme_counters.iter().find(|(n, _)| n == name).map(|c| c.1).unwrap_or_else(|| panic!("no counter {name}"))
}

/// Two hosts on a switch; one flow of `size` from host 0 to host 1.
fn pair(dir: &Path, size: &str) -> PathBuf {
    let p = dir.join("pair.toml");
    let text = format!(
        r#"name = "pair"
seed = 1
schemes = ["nscc"]
[topology]
kind = "star"
hosts = 2
rate = "100Gbps"
delay = "1us"
[network]
pfc.enabled = false
trim.enabled = true
receiver = "reorder"
[[workload]]
kind = "flows"
flows = [{{ src = 0, dst = 1, size = "{size}", start = "0us" }}]
[variants.nscc_rccc]
base = "nscc"
rccc = true
"#
    );
    std::fs::write(&p, text).unwrap();
    p
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ccsim-rccc-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_lone_flow_runs_at_the_credit_rate_after_its_speculative_credit() {
    let dir = tmp("lone");
    let path = pair(&dir, "10MB");
    let alone = run_with(&path, "nscc", &[]);
    let credit = run_with(&path, "nscc_rccc", &[]);
    let (a, c) = (alone.flows[0].fct.unwrap() as f64, credit.flows[0].fct.unwrap() as f64);
    // 10 MB at line rate less the 1.5 BDP sent before the first pull, the
    // rest at 0.99 of it: about 1% longer, never shorter
    let ratio = c / a;
    assert!((1.004..1.012).contains(&ratio), "credit-paced FCT / line-rate FCT = {ratio}");
    // the receiver granted what the flow sent beyond its speculative credit, in pulls of 16 KB at most
    let (pulls, bytes) = (counter(&credit, "credit_pulls"), counter(&credit, "credit_bytes"));
    let wire = 10_000_000u64 + 10_000 * 48;
    assert!(bytes < wire && bytes > wire - 100_000, "{bytes} B granted for {wire} B on the wire");
    // (pulls are smaller while the target is close: at the start and the end)
    assert!(pulls * 16_384 >= bytes && pulls < bytes / 16_384 * 11 / 10, "{pulls} pulls for {bytes} B");
    assert_eq!(counter(&credit, "credit_rts"), 0);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn speculative_credit_bounds_what_a_sender_sends_before_feedback() {
    let dir = tmp("spec");
    let path = pair(&dir, "10MB");
    // base RTT 4.168 us, BDP 52.1 KB: at 3.5 us no ACK or pull has come
    // back yet. A line-rate sender fills most of a BDP by then; with 0.5 BDP
    // (26,048 B) of speculative credit it stops after 25 packets of 1048 B
    // (the last one takes its credit below zero).
    let stop = ("stop", "\"3.5us\"");
    let alone = run_until(&path, "nscc", &[stop]);
    let credit = run_until(&path, "nscc_rccc", &[stop, ("scheme.nscc.rccc_max_credit", "0.5")]);
    let sent = |r: &RunResult| r.engine.data_bytes_delivered + r.engine.data_bytes_in_flight;
    assert_eq!(sent(&credit), 25_000, "payload sent on 0.5 BDP of speculative credit");
    assert!(sent(&alone) > 40_000, "NSCC alone sent {} B", sent(&alone));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn credits_drain_an_incast_evenly_with_a_short_queue_and_no_last_hop_ecn() {
    let path = scenario("uet-incast.toml");
    let nscc = run_with(&path, "nscc", &[]);
    let rccc = run_with(&path, "nscc_rccc", &[]);
    let fcts: Vec<u64> = rccc.flows.iter().map(|f| f.fct.unwrap()).collect();
    let (lo, hi) = (*fcts.iter().min().unwrap(), *fcts.iter().max().unwrap());
    // round robin: every sender finishes within 2% of the others
    assert!(hi - lo < hi / 50, "FCTs from {lo} to {hi} ps");
    // 16 MB + headers at 0.99 x 100G: 1.355 ms, plus the speculative first RTT's trims
    assert!(hi < 1_400_000_000, "last flow {hi} ps");
    // the queue to host 16 stays short once credits pace it: the mean of the
    // traced queue after the first 50 us is well below NSCC's alone
    let mean_after = |r: &RunResult| {
        let s = &r.queues[0];
        let v: Vec<f64> = s.t.iter().zip(&s.v).filter(|(t, _)| **t > 50_000_000).map(|(_, v)| *v).collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let (qn, qr) = (mean_after(&nscc), mean_after(&rccc));
    assert!(qr * 3.0 < qn, "queue mean {qr} B with credits vs {qn} B without");
    // ECN is off towards hosts under RCCC (uet-htsim main_uec.cpp L708)
    let marks = |r: &RunResult| {
        r.ports.iter().filter(|p| p.port.node == 17 && p.port.peer == 16).map(|p| p.ecn_marked).sum::<u64>()
    };
    assert_eq!(marks(&rccc), 0);
    assert!(marks(&nscc) > 0);
}

#[test]
fn lost_packets_cannot_deadlock_credits() {
    // tail drop instead of trimming: the receiver never learns of the lost
    // packets (nor of the pull targets they carried); the senders time out,
    // go back and ask for credit again
    let path = scenario("uet-incast.toml");
    let r = run_with(
        &path,
        "nscc_rccc",
        &[("network.trim.enabled", "false"), ("network.buffer", "\"1MB\""), ("network.rto", "\"100us\"")],
    );
    assert!(r.drops > 0, "the scenario must lose packets");
    assert!(r.flows.iter().map(|f| f.retransmits).sum::<u64>() > 0);
}

#[test]
fn a_connection_asks_for_credit_when_a_message_arrives_with_none_left() {
    // closed-loop RPCs: messages join connections whose credit is spent; the
    // sender sends an RTS with its new pull target, and every message completes
    let path = scenario("rpc-closed-loop.toml");
    let r = run_until(&path, "nscc", &[("scheme.nscc.rccc", "true"), ("network.receiver", "\"reorder\"")]);
    assert!(r.flows.len() > 400 && r.flows.iter().all(|f| f.fct.is_some()), "every message completes");
    assert!(counter(&r, "credit_rts") > 0);
    assert!(counter(&r, "credit_pulls") > 0);
}

#[test]
fn rccc_alone_drains_an_incast_on_credits_only() {
    // uet-htsim's -receiver_cc_only: no NSCC window, credits alone. On an
    // incast the credits bind before NSCC's window does, so RCCC alone
    // finishes as NSCC+RCCC does
    let path = scenario("uet-incast.toml");
    let alone = run_with(&path, "nscc_rccc", &[("variants.nscc_rccc.sender_cc", "false")]);
    let both = run_with(&path, "nscc_rccc", &[]);
    let last = |r: &RunResult| r.flows.iter().map(|f| f.fct.unwrap()).max().unwrap();
    let first = |r: &RunResult| r.flows.iter().map(|f| f.fct.unwrap()).min().unwrap();
    let (lo, hi) = (first(&alone), last(&alone));
    assert!(hi - lo < hi / 50 && hi < 1_400_000_000, "FCTs from {lo} to {hi} ps");
    assert!(hi.abs_diff(last(&both)) < hi / 100, "RCCC alone {hi} ps, with NSCC {} ps", last(&both));
    // only the first RTT's 16 x 1.5 BDP of speculative data overflows the 1 BDP threshold
    assert!(alone.trimmed > 0 && alone.trimmed < 1_500, "{} trims", alone.trimmed);
}

#[test]
fn a_dead_link_that_eats_pulls_and_requests_does_not_stall_credits() {
    // a link fails under a permutation and routes change 1 ms later: pulls
    // and RTS packets routed over it vanish. A sender held by credit that
    // hears nothing for an RTO asks again, so every flow finishes (before
    // that rule 3-4 of the 32 flows stalled here)
    let path = scenario("uet-link-failure.toml");
    for scheme in ["nscc", "nscc_reps"] {
        let r = run_with(&path, scheme, &[("scheme.nscc.rccc", "true")]);
        assert!(r.drops > 0, "{scheme}: the failure must cost packets");
        assert!(counter(&r, "credit_rts") > 0, "{scheme}: no RTS");
    }
}

/// A credit rate far below the line rate (issue 32: 1e-15 panicked the
/// event queue; the core now ends such a run as stalled) is refused by
/// NSCC's settings with its documented range; 1% is the least accepted.
#[test]
fn a_credit_rate_below_one_percent_is_refused() {
    let path = scenario("uet-incast.toml");
    let outcome = |rate: &str| -> Result<(), String> {
        let ov = Overrides {
            sets: vec![("variants.nscc_rccc.rccc_rate".into(), ccsim_scenario::set::parse_value(rate))],
            schemes: Some(vec!["nscc_rccc".into()]),
            stop: Some(1_000_000),
            ..Default::default()
        };
        let scn = load(&path, &ov).map_err(|e| e.to_string())?;
        scn.simulate("nscc_rccc", None).map(|_| ())
    };
    for rate in ["1e-15", "2e-15", "0.0099", "0", "-1", "1.01"] {
        let e = outcome(rate).unwrap_err();
        assert!(e.contains("rccc_rate") && e.contains("[0.01, 1]"), "{rate}: {e}");
    }
    for rate in ["0.01", "1"] {
        outcome(rate).unwrap_or_else(|e| panic!("{rate}: {e}"));
    }
}
