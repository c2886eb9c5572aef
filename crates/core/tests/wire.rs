//! What crosses the wire and when: INT bytes per hop under each encoding,
//! switch latency in the base RTT, PFC headroom and ideal FCT, and the
//! optional time quantum (ns-3's truncation of serialization and pacing).
#![allow(clippy::field_reassign_with_default)]

use crate::common::*;
use ccsim_core::config::{IntEncoding, NetConfig};
use ccsim_core::sim::{run, SimOptions};
use ccsim_core::time::{ser_time, Time, NS};
use ccsim_core::units::{Bytes, Dur};
use ccsim_core::{LinkSpec, NodeKind, PortRef, RunResult, Topology};

/// Host 0 - switch 2 - ... - switch 1 + `switches` - host 1, every link alike.
fn chain(switches: u32, rate: u64, delay: Time) -> Topology {
    let mut nodes = vec![NodeKind::Host; 2];
    nodes.extend(std::iter::repeat_n(NodeKind::Switch, switches as usize));
    let mut links = vec![LinkSpec { a: 0, b: 2, rate_bps: rate, delay, back: None }];
    for s in 2..1 + switches {
        links.push(LinkSpec { a: s, b: s + 1, rate_bps: rate, delay, back: None });
    }
    links.push(LinkSpec { a: 1 + switches, b: 1, rate_bps: rate, delay, back: None });
    Topology { nodes, links, name: format!("chain of {switches}") }
}

/// The nodes along `chain(switches)` from host 0 to host 1.
fn chain_path(switches: u32) -> Vec<u32> {
    let mut v = vec![0];
    v.extend(2..2 + switches);
    v.push(1);
    v
}

fn tx_bytes(r: &RunResult, node: u32, peer: u32) -> u64 {
    r.ports.iter().find(|p| p.port == PortRef { node, peer }).unwrap().tx_bytes
}

fn int_net(enc: IntEncoding) -> NetConfig {
    let mut net = NetConfig::default();
    net.int = Some(true);
    net.int_encoding = enc;
    net
}

#[test]
fn int_bytes_on_every_link_for_each_encoding() {
    // 10 full packets across 3 switches at line rate, one ACK per packet
    let sw = 3;
    let topo = chain(sw, G100, US);
    let path = chain_path(sw);
    let flows = vec![flow(0, 0, 1, 10_000, 0)];
    for enc in [IntEncoding::Fixed, IntEncoding::PerHop, IntEncoding::Free] {
        let r = run(&topo, &int_net(enc), &flows, &line_rate(), &SimOptions::default(), None).unwrap();
        assert!(r.flows[0].fct.is_some());
        for (hop, w) in path.windows(2).enumerate() {
            // a data packet's wire size on the hop'th link of the path: records
            // are added as it leaves each switch (`hop` switches so far)
            let data = match enc {
                IntEncoding::Fixed => 1000 + 48 + 42,
                IntEncoding::PerHop => 1000 + 48 + 8 * hop as u64,
                IntEncoding::Free => 1000 + 48,
            };
            assert_eq!(tx_bytes(&r, w[0], w[1]), 10 * data, "{enc:?}: data on {} -> {}", w[0], w[1]);
            // the ACK echoes all 3 records on every link back
            let ack = match enc {
                IntEncoding::Fixed => 60 + 42,
                IntEncoding::PerHop => 60 + 8 * sw as u64,
                IntEncoding::Free => 60,
            };
            assert_eq!(tx_bytes(&r, w[1], w[0]), 10 * ack, "{enc:?}: ACKs on {} -> {}", w[1], w[0]);
        }
        // payload is conserved whatever the headers
        let down = r.ports.iter().find(|p| p.port == PortRef { node: 4, peer: 1 }).unwrap();
        assert_eq!(down.tx_data_bytes, 10_000);
    }
}

#[test]
fn int_bytes_only_where_int_is_carried() {
    // INT off: no INT bytes whatever the encoding
    let topo = chain(2, G100, US);
    let flows = vec![flow(0, 0, 1, 10_000, 0)];
    let mut net = NetConfig::default();
    net.int_encoding = IntEncoding::Fixed;
    let r = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    assert_eq!(tx_bytes(&r, 0, 2), 10 * 1048);
    assert_eq!(tx_bytes(&r, 1, 3), 10 * 60);
}

#[test]
fn lone_flow_fct_matches_store_and_forward_with_int_bytes() {
    // star: host 0 -> switch -> host 1; the switch output runs one first-packet
    // time behind the host; the last ACK crosses two links
    let topo = star(2, G100, US);
    for size in [1u64, 999, 1000, 1001, 64_000, 1_000_000] {
        let npk = size.div_ceil(1000);
        let first = size.min(1000) + 48;
        for enc in [IntEncoding::Fixed, IntEncoding::PerHop] {
            let flows = vec![flow(0, 0, 1, size, 0)];
            let r = run(&topo, &int_net(enc), &flows, &line_rate(), &SimOptions::default(), None).unwrap();
            let f = &r.flows[0];
            let fct = f.fct.unwrap();
            let (exact, ack) = match enc {
                // 42 B on every data packet on both links, echoed on the ACK
                IntEncoding::Fixed => (
                    ser_time(size + npk * 90, G100) + ser_time(first + 42, G100) + 4 * US + 2 * ser_time(102, G100),
                    102,
                ),
                // 8 B added at the switch: its output is slower than its input,
                // so it stays busy from the first arrival to the last departure
                _ => (ser_time(first, G100) + ser_time(size + npk * 56, G100) + 4 * US + 2 * ser_time(68, G100), 68),
            };
            assert!(
                fct >= exact && fct - exact <= ser_time(ack, G100),
                "{enc:?} size {size}: fct {fct} vs exact model {exact}"
            );
            // the ideal FCT keeps the HPCC convention: no INT bytes in it
            let ideal = 4 * US + 2 * ser_time(1048, G100) + ser_time(size + npk * 48, G100);
            assert_eq!(f.ideal_fct, ideal);
        }
    }
}

#[test]
fn switch_delay_is_in_base_rtt_ideal_and_fct() {
    let sd = 3 * US;
    let topo = chain(2, G100, US);
    let mut net = NetConfig::default();
    net.switch_delay = Dur(sd);
    for size in [1000u64, 64_000, 1_000_000] {
        let npk = size.div_ceil(1000);
        let flows = vec![flow(0, 0, 1, size, 0)];
        let r = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
        let f = &r.flows[0];
        // base RTT: 3 links of 1 us and 2 switches each way, one packet per link
        let base_rtt = 6 * US + 4 * sd + 3 * ser_time(1048, G100);
        assert_eq!(f.ideal_fct, base_rtt + ser_time(size + npk * 48, G100));
        assert_eq!(f.slowdown, Some(1.0), "size {size}: fct {:?} ideal {}", f.fct, f.ideal_fct);
        let fct = f.fct.unwrap();
        // exact: the two switch outputs run one first-packet time behind each, ACK on 3 links
        let exact =
            ser_time(size + npk * 48, G100) + 2 * ser_time(1048, G100) + 6 * US + 4 * sd + 3 * ser_time(60, G100);
        assert!(fct >= exact && fct - exact <= ser_time(60, G100), "size {size}: fct {fct} vs {exact}");
    }
}

#[test]
fn switch_delay_is_covered_by_pfc_headroom() {
    // an 8:1 line-rate incast into a small buffer with a 3 us pipeline per
    // switch: what arrives after a PAUSE (wire + pipeline) fits the headroom
    let topo = star(9, G100, US);
    let mut net = NetConfig::default();
    net.buffer = Bytes(1_000_000);
    net.switch_delay = Dur(3 * US);
    let flows: Vec<_> = (0..8).map(|i| flow(i, i, 8, 500_000, 0)).collect();
    let r = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    assert!(r.pause_frames > 0, "the incast must pause");
    assert_eq!(r.drops, 0, "a lossless fabric dropped packets");
    assert!(r.flows.iter().all(|f| f.fct.is_some()));
}

#[test]
fn time_quantum_truncates_serialization_and_pacing() {
    // 400G: a 1048 B packet takes 20.96 ns exactly, 20 ns truncated to 1 ns;
    // a 60 B ACK 1.2 ns -> 1 ns
    let g400 = 400_000_000_000;
    let topo = star(2, g400, US);
    let mut net = NetConfig::default();
    net.time_quantum = Some(Dur(NS));
    let flows = vec![flow(0, 0, 1, 100_000, 0)];
    let r = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    let fct = r.flows[0].fct.unwrap();
    let exact = 100 * 20 * NS + 20 * NS + 4 * US + 2 * NS;
    assert!(fct >= exact && fct - exact <= NS, "fct {fct} vs truncated model {exact}");
    // without the quantum: exact picoseconds, about 1.6% slower here
    let r = run(&topo, &NetConfig::default(), &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    let exact_ps = 101 * 20_960 + 4 * US + 2 * 1_200;
    let fct = r.flows[0].fct.unwrap();
    assert!(fct >= exact_ps && fct - exact_ps <= 1_200, "fct {fct} vs exact model {exact_ps}");
    // pacing at half the line rate: the gap 41.92 ns is truncated to 41 ns
    let half = Fixed { rate_frac: 0.5, window_bdps: 0.0 };
    let r = run(&topo, &net, &flows, &half, &SimOptions::default(), None).unwrap();
    let fct = r.flows[0].fct.unwrap();
    let paced = 99 * 41 * NS + 20 * NS + 20 * NS + 4 * US + 2 * NS;
    assert!(fct >= paced && fct - paced <= NS, "fct {fct} vs paced model {paced}");
}

#[test]
fn bad_int_and_quantum_settings_are_refused() {
    let mut net = NetConfig::default();
    net.time_quantum = Some(Dur(0));
    assert!(net.validate().unwrap_err().contains("network.time_quantum"));
    net.time_quantum = Some(Dur(2 * US));
    assert!(net.validate().unwrap_err().contains("network.time_quantum"));
    let mut net = NetConfig::default();
    net.int_hop_bytes = Bytes(1000);
    assert!(net.validate().unwrap_err().contains("network.int_hop_bytes"));
}

/// A window smaller than `ack_every` packets used to wait for the timeout
/// (or for ever without one): the packet that fills the window asks for an
/// ACK at once (UET's ACK-request flag), so a windowed flow runs at its
/// window's pace whatever `ack_every` is.
#[test]
fn ack_every_above_the_window_does_not_stall() {
    let topo = chain(1, G100, US);
    let fct = |ack_every: u32| {
        let net = NetConfig { ack_every, ..NetConfig::default() };
        let scheme = Fixed { rate_frac: 1.0, window_bdps: 1.0 };
        let r = run(&topo, &net, &[flow(0, 0, 1, 2_000_000, 0)], &scheme, &SimOptions::default(), None).unwrap();
        (r.flows[0].fct.expect("the flow finishes"), r.flows[0].ideal_fct)
    };
    let (every, ideal) = fct(1);
    // a 1-BDP window is about 25 packets here: 64 per ACK is more than the window
    let (coalesced, _) = fct(64);
    assert!(every < ideal * 11 / 10, "1 ACK per packet: {every} ps against ideal {ideal} ps");
    // one ACK per window: the window is sent, then waits a round trip for
    // its ACK, about half the line rate (before the flag: no ACK at all)
    assert!(
        coalesced < ideal * 5 / 2,
        "64 packets per ACK with a 25-packet window: {coalesced} ps against ideal {ideal} ps"
    );
}
