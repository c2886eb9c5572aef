//! Per-flow head-of-line-blocking accounting (`RunResult::hol_pkts`).
#![allow(clippy::field_reassign_with_default)]

use crate::common::*;
use ccsim_core::config::NetConfig;
use ccsim_core::sim::{run, SimOptions};
use ccsim_core::units::Bytes;
use ccsim_core::{LinkSpec, NodeKind, Topology};

/// Senders 0, 1, 2 on switch 5; receivers 3 (R) and 4 (V) on switch 6; the
/// switch-switch link is 400G so that the only oversubscribed egress is 6 -> 3.
fn two_switches() -> Topology {
    let mut nodes = vec![NodeKind::Host; 5];
    nodes.extend([NodeKind::Switch, NodeKind::Switch]);
    let mut links: Vec<LinkSpec> =
        (0..3).map(|h| LinkSpec { a: h, b: 5, rate_bps: G100, delay: US, back: None }).collect();
    links.push(LinkSpec { a: 5, b: 6, rate_bps: 4 * G100, delay: US, back: None });
    links.push(LinkSpec { a: 3, b: 6, rate_bps: G100, delay: US, back: None });
    links.push(LinkSpec { a: 4, b: 6, rate_bps: G100, delay: US, back: None });
    Topology { nodes, links, name: "hol".into() }
}

#[test]
fn victim_behind_a_pause_it_did_not_cause_is_counted() {
    // flows 0, 1 (culprits) -> host 3 at 2:1; flow 2 (victim) -> host 4
    let flows = vec![flow(0, 0, 3, 3_000_000, 0), flow(1, 1, 3, 3_000_000, 0), flow(2, 2, 4, 3_000_000, 0)];
    let mut net = NetConfig::default();
    // XOFF 500 KB, above the 400G ingress headroom (3 x 50 KB + 2 packets)
    net.pfc.static_xoff = Some(Bytes(500_000));
    let r = run(&two_switches(), &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    assert!(r.pause_frames > 0, "switch 6 must pause switch 5");
    assert_eq!(r.drops, 0);
    assert_eq!(r.hol_pkts.len(), 3);
    assert!(r.hol_pkts[2] > 0, "victim blocked: {:?}", r.hol_pkts);
    assert_eq!(r.hol_pkts[0] + r.hol_pkts[1], 0, "culprits wait behind their own queue: {:?}", r.hol_pkts);
    assert!((r.hol_blocked_share() - 1.0 / 3.0).abs() < 1e-12);

    // without PAUSE nobody is blocked
    let mut net = NetConfig::default();
    net.pfc.static_xoff = Some(Bytes(20_000_000));
    let r = run(&two_switches(), &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    assert_eq!(r.pause_frames, 0);
    assert_eq!(r.hol_pkts, vec![0, 0, 0]);
    assert_eq!(r.hol_blocked_share(), 0.0);
}
