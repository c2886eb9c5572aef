//! SLEEK loss recovery (`[network.sleek]`, after uet-htsim `runSleek` and
//! `sendProbe`): on a fabric that drops, losses are found from the
//! receiver's out-of-order count and from probes, not by the timers.
#![allow(clippy::field_reassign_with_default)]

use crate::common::*;
use ccsim_core::cc::{FlowView, Requirements, Scheme, SenderCc, SenderCx, SleekState};
use ccsim_core::config::{LinkAction, LinkEvent, NetConfig, Receiver, Recovery};
use ccsim_core::packet::Packet;
use ccsim_core::sim::{run, SimOptions};
use ccsim_core::time::Time;
use ccsim_core::topology::Topology;
use ccsim_core::units::{Bytes, Dur};
use ccsim_core::RunResult;

/// Line rate, a fixed window of `window` bytes, and the state SLEEK reads:
/// that window, the flow's base RTT and a target of one base RTT.
struct Windowed {
    window: u64,
}
struct WindowedSender {
    window: u64,
    base_rtt: Time,
}
impl SenderCc for WindowedSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        cx.window = self.window;
    }
    fn on_ack(&mut self, _cx: &mut SenderCx, _ack: &Packet) {}
    fn sleek_state(&self) -> Option<SleekState> {
        let w = self.window as f64;
        Some(SleekState { cwnd: w, max_wnd: w, base_rtt: self.base_rtt, target: self.base_rtt, avg_delay: 0 })
    }
}
impl Scheme for Windowed {
    fn name(&self) -> &str {
        "windowed"
    }
    fn requirements(&self) -> Requirements {
        Requirements { sleek: true, ..Default::default() }
    }
    fn sender(&self, f: &FlowView) -> Box<dyn SenderCc> {
        Box::new(WindowedSender { window: self.window, base_rtt: f.base_rtt })
    }
}

/// Drops (no PFC, no trimming), the reorder receiver, per-packet recovery,
/// a 1 ms timeout and SLEEK as `sleek` says.
fn dropping(sleek: bool) -> NetConfig {
    let mut net = NetConfig::default();
    net.pfc.enabled = false;
    net.receiver = Receiver::Reorder;
    net.recovery = Recovery::Packet;
    net.rto = Some(Dur(1000 * US));
    net.sleek.enabled = sleek;
    net
}

fn go(topo: &Topology, net: &NetConfig, flows: &[ccsim_core::flow::FlowSpec], window: u64) -> RunResult {
    let opts = SimOptions { check: true, ..Default::default() };
    let r = run(topo, net, flows, &Windowed { window }, &opts, None).unwrap();
    assert_eq!(r.check, Some(Ok(())));
    assert!(r.flows.iter().all(|f| f.fct.is_some()), "a flow was stranded");
    r
}

fn tail(r: &RunResult) -> Time {
    r.flows.iter().filter_map(|f| f.fct).max().unwrap()
}

#[test]
fn the_out_of_order_count_resends_drops_before_their_timers() {
    // An 8:1 incast of 200 KB windows into 100 KB queues: packets drop
    // while later ones of the same window arrive. Without SLEEK each loss
    // waits for its 1 ms timer; with it the receiver's count of packets
    // held out of order passes 1.5 windows' worth and the sender resends.
    let topo = star(9, G100, US);
    let flows: Vec<_> = (0..8).map(|i| flow(i, i, 8, 1_000_000, 0)).collect();
    let run = |sleek| {
        let mut net = dropping(sleek);
        net.queue_limit = Some(Bytes(100_000));
        go(&topo, &net, &flows, 200_000)
    };
    let (with, without) = (run(true), run(false));
    assert!(without.drops > 50, "the incast must overflow the queue: {} drops", without.drops);
    assert_eq!(flow_sum(&without, |f| f.timeouts), without.drops, "without SLEEK every loss times out");
    assert!(tail(&without) > 1000 * US);
    assert!(with.drops > 50, "{} drops", with.drops);
    assert!(with.retransmits >= with.drops, "every drop is resent: {} of {}", with.retransmits, with.drops);
    assert!(
        flow_sum(&with, |f| f.timeouts) * 10 < with.drops,
        "SLEEK, not the timer, resends: {} timeouts for {} drops",
        flow_sum(&with, |f| f.timeouts),
        with.drops
    );
    assert!(tail(&with) < tail(&without) * 3 / 4, "{} vs {} ps", tail(&with), tail(&without));
}

#[test]
fn a_probe_finds_a_lost_tail() {
    // The receiver's link is down while the last packets of a 100 KB flow
    // cross it: nothing arrives after them to be counted out of order. The
    // probe timer (base RTT + target once all is sent) fires, the probe
    // comes back over empty queues, and loss recovery resends the tail,
    // long before the 1 ms timer would.
    let topo = star(2, G100, US);
    let flows = vec![flow(0, 0, 1, 100_000, 0)];
    let run = |sleek| {
        let mut net = dropping(sleek);
        net.link_events = vec![
            LinkEvent { at: Dur(8 * US), a: 1, b: 2, action: LinkAction::Down },
            LinkEvent { at: Dur(12 * US), a: 1, b: 2, action: LinkAction::Up },
        ];
        go(&topo, &net, &flows, 1_000_000)
    };
    let (with, without) = (run(true), run(false));
    for r in [&with, &without] {
        assert!(r.drops > 0, "the outage must lose packets");
    }
    assert!(tail(&without) > 1000 * US, "{} ps", tail(&without));
    assert_eq!(with.flows[0].timeouts, 0);
    assert!(tail(&with) < 100 * US, "{} ps", tail(&with));
}

#[test]
fn sleek_needs_per_packet_recovery_and_a_window_scheme() {
    let topo = star(2, G100, US);
    let flows = vec![flow(0, 0, 1, 10_000, 0)];
    let mut net = dropping(true);
    net.recovery = Recovery::Flow;
    let e = run(&topo, &net, &flows, &Windowed { window: 50_000 }, &SimOptions::default(), None).unwrap_err();
    assert!(e.contains("network.sleek") && e.contains("network.recovery"), "{e}");
    let e = run(&topo, &dropping(true), &flows, &line_rate(), &SimOptions::default(), None).unwrap_err();
    assert!(e.contains("network.sleek") && e.contains("keeps no window"), "{e}");
}

#[test]
fn sleek_runs_are_deterministic() {
    let topo = star(9, G100, US);
    let flows: Vec<_> = (0..8).map(|i| flow(i, i, 8, 300_000, 0)).collect();
    let mut net = dropping(true);
    net.queue_limit = Some(Bytes(60_000));
    let a = go(&topo, &net, &flows, 150_000);
    let b = go(&topo, &net, &flows, 150_000);
    let fcts = |r: &RunResult| r.flows.iter().map(|f| (f.fct, f.retransmits, f.timeouts)).collect::<Vec<_>>();
    assert_eq!(fcts(&a), fcts(&b));
}
