//! Losses are counted where they happen and add up (issue 32): per flow and
//! per message the data packets resent, the retransmission timeouts, the
//! data packets trimmed and dropped; their sums are the run's totals, a
//! connection's messages sum to the connection, and a lossless fabric has
//! none of them.

use crate::common::*;
use ccsim_core::config::{NetConfig, Receiver};
use ccsim_core::sim::{SimOptions, Simulator};
use ccsim_core::units::Bytes;
use ccsim_core::{ConnSpec, MessageSpec, Traffic};

#[test]
fn a_lossy_incast_counts_resends_timeouts_and_drops_per_flow_and_in_total() {
    let r = incast_8_to_1(&lossy_400kb());
    assert_eq!(r.check, Some(Ok(())));
    assert!(r.flows.iter().all(|f| f.fct.is_some()), "go-back-N delivers everything");
    assert!(r.drops > 0 && r.retransmits > 0, "drops {} resends {}", r.drops, r.retransmits);
    // the flows' counts are the totals: every drop was a data packet (ACKs
    // travel in the control class, which is never dropped)
    assert_eq!(flow_sum(&r, |f| f.retransmits), r.retransmits);
    assert_eq!(flow_sum(&r, |f| f.drops), r.drops);
    assert_eq!(flow_sum(&r, |f| f.timeouts), r.timeouts);
    assert_eq!(flow_sum(&r, |f| f.trimmed), 0);
    // a lost packet is resent: at least as many resends as data drops
    assert!(r.retransmits >= r.drops);
    let s = r.summary();
    assert_eq!(
        (s.retransmits, s.timeouts, s.drops, s.data_packets),
        (r.retransmits, r.timeouts, r.drops, r.engine.data_packets)
    );
    // 8 x 500 KB in 1 KB packets needed 8 x 489 distinct packets; the rest were resends
    let distinct: u64 = r.flows.iter().map(|f| f.size.div_ceil(NetConfig::default().mtu.0)).sum();
    assert_eq!(r.engine.data_packets, distinct + r.retransmits);
}

#[test]
fn a_lossless_incast_loses_nothing() {
    let mut net = NetConfig::default();
    net.pfc.static_xoff = Some(Bytes(50_000));
    let r = incast_8_to_1(&net);
    assert_eq!(r.check, Some(Ok(())));
    assert!(r.pause_frames > 0, "the incast is held by PFC");
    assert_eq!((r.drops, r.retransmits, r.timeouts, r.trimmed), (0, 0, 0, 0));
    assert!(r.flows.iter().all(|f| f.retransmits == 0 && f.timeouts == 0 && f.drops == 0 && f.trimmed == 0));
}

#[test]
fn trims_are_counted_per_flow() {
    let mut net = lossy_400kb();
    net.trim.enabled = true;
    net.trim.threshold = Some(Bytes(60_000));
    net.receiver = Receiver::Reorder;
    let r = incast_8_to_1(&net);
    assert_eq!(r.check, Some(Ok(())));
    assert!(r.trimmed > 0);
    assert_eq!(flow_sum(&r, |f| f.trimmed), r.trimmed);
    assert_eq!(flow_sum(&r, |f| f.retransmits), r.retransmits);
    assert!(r.retransmits >= r.trimmed, "every trimmed packet is resent");
}

#[test]
fn a_message_row_shows_the_resends_of_its_bytes() {
    // the incast as messages: 8 connections into host 8, three messages each
    let topo = star(9, G100, US);
    let conns: Vec<_> = (0..8).map(|i| ConnSpec { src: i, dst: 8, prio: 0 }).collect();
    let messages: Vec<_> = (0..24)
        .map(|m| MessageSpec { conn: m % 8, size: 200_000, at: 0, after: vec![], delay: 0, tag: 0, compute_on: None })
        .collect();
    let t = Traffic { conns, messages, ..Default::default() };
    let opts = SimOptions { check: true, ..Default::default() };
    let r = Simulator::with_traffic(&topo, &lossy_400kb(), t, &line_rate(), &opts).unwrap().run(None);
    assert_eq!(r.check, Some(Ok(())));
    assert!(r.flows.iter().all(|f| f.fct.is_some()));
    assert!(r.retransmits > 0 && r.drops > 0);
    assert!(r.flows.iter().any(|m| m.retransmits > 0), "a message row shows its resends");
    // each connection's messages sum to its totals, which sum to the run's
    for c in &r.conns {
        let of = |f: &dyn Fn(&ccsim_core::results::FlowResult) -> u64| {
            r.flows.iter().filter(|m| m.conn == Some(c.id)).map(f).sum::<u64>()
        };
        assert_eq!(of(&|m| m.retransmits), c.retransmits, "connection {}", c.id);
        assert_eq!(of(&|m| m.timeouts), c.timeouts, "connection {}", c.id);
        assert!(of(&|m| m.drops) <= c.drops, "connection {}", c.id);
    }
    assert_eq!(r.conns.iter().map(|c| c.retransmits).sum::<u64>(), r.retransmits);
    assert_eq!(flow_sum(&r, |m| m.retransmits), r.retransmits);
    assert_eq!(r.conns.iter().map(|c| c.drops).sum::<u64>(), r.drops);
}
