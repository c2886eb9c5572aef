//! Projected parallel runs (`SimOptions::project_threads`, `partition.rs`):
//! every event is counted once, the busiest part of each window sets the
//! pace, one thread projects no speedup, and counting changes no result.

use crate::common::*;
use ccsim_core::config::NetConfig;
use ccsim_core::sim::{run, SimOptions};

#[test]
fn every_event_is_counted_once_and_results_do_not_move() {
    // 8 hosts per leaf, 4 spines: 16 flows leaf to leaf and 8 within leaf 0
    let topo = leaf_spine(8, 4, G100, US);
    let mut flows: Vec<_> = (0..16).map(|i| flow(i, i % 8, 8 + (i * 3) % 8, 200_000, (i as u64) * US)).collect();
    flows.extend((0..8).map(|i| flow(16 + i, i, (i + 1) % 8, 100_000, 0)));
    let net = NetConfig::default();
    let plain = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    let opts = SimOptions { project_threads: vec![1, 2, 4], ..Default::default() };
    let r = run(&topo, &net, &flows, &line_rate(), &opts, None).unwrap();
    assert_eq!(r.flows, plain.flows, "counting changes no result");
    assert_eq!(r.engine.events, plain.engine.events);
    assert!(plain.parallel.is_empty());
    assert_eq!(r.parallel.iter().map(|p| p.threads).collect::<Vec<_>>(), vec![1, 2, 4]);
    for p in &r.parallel {
        let counted: u64 = p.part_events.iter().sum::<u64>() + p.serial_events;
        assert_eq!(counted, r.engine.events, "{} threads: every event counted once", p.threads);
        let busiest = *p.part_events.iter().max().unwrap();
        assert!(p.critical_events >= busiest, "the critical path is at least the busiest part's events");
        let s = p.speedup(0.0);
        assert!((1.0..=p.threads as f64 + 1e-9).contains(&s), "{} threads: speedup {s}", p.threads);
        assert!(p.speedup(10.0) <= s);
        assert_eq!(p.hosts.iter().sum::<u32>(), 16);
        assert_eq!(p.idle.len(), p.threads);
    }
    // one part: no cut, one window, the whole run on one thread
    let one = &r.parallel[0];
    assert_eq!((one.cut_links, one.barriers, one.window), (0, 1, u64::MAX));
    assert_eq!(one.speedup(0.0), 1.0);
    // two parts: each leaf with its hosts, the spines shared; links are 1 us
    let two = &r.parallel[1];
    assert_eq!(two.unit, "edge switch with its hosts");
    assert_eq!(two.hosts, vec![8, 8]);
    assert_eq!(two.window, US);
    // leaf 0's hosts send 24 of the flows and receive 8 of them: its part is busier
    assert!(two.speedup(0.0) > 1.0 && two.speedup(0.0) < 2.0, "{}", two.speedup(0.0));
}
