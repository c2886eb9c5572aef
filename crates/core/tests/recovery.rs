//! Per-packet loss recovery (`network.recovery = "packet"`, UET's packet
//! delivery after uet-htsim): a timer per packet, SACK bitmaps, selective
//! resends. Against the per-flow go-back-N timer on the same incasts.
#![allow(clippy::field_reassign_with_default)]

use crate::common::*;
use ccsim_core::cc::{FlowView, Scheme, SenderCc, SenderCx};
use ccsim_core::config::{NetConfig, Receiver, Recovery};
use ccsim_core::packet::Packet;
use ccsim_core::sim::{run, SimOptions};
use ccsim_core::time::Time;
use ccsim_core::units::Dur;
use ccsim_core::RunResult;

/// An 8:1 incast of 500 KB line-rate flows into a 400 KB lossy buffer,
/// trimming or dropping, with the reorder receiver and timeout `rto`.
fn incast(trim: bool, recovery: Recovery, rto: Time) -> RunResult {
    let mut net = lossy_400kb();
    net.trim.enabled = trim;
    net.receiver = Receiver::Reorder;
    net.recovery = recovery;
    net.rto = Some(Dur(rto));
    incast_8_to_1(&net)
}

#[test]
fn a_timed_out_packet_alone_is_resent() {
    // Drops and no NACKs: every loss waits for its timer. Per packet, each
    // dropped packet is resent (and a dropped resend again), nothing the
    // receiver holds; per flow, the timer goes back to the cumulative point
    // and resends what the receiver kept as well.
    let pkt = incast(false, Recovery::Packet, 200 * US);
    let flow = incast(false, Recovery::Flow, 200 * US);
    for r in [&pkt, &flow] {
        assert_eq!(r.check, Some(Ok(())));
        assert!(r.flows.iter().all(|f| f.fct.is_some()), "a flow was stranded");
        assert!(r.drops > 100, "the incast must overflow the buffer: {} drops", r.drops);
    }
    assert_eq!(pkt.retransmits, pkt.drops, "one resend per dropped packet");
    // a timeout per lost packet, each a packet
    assert_eq!(flow_sum(&pkt, |f| f.timeouts), pkt.drops);
    assert!(flow.retransmits > flow.drops, "go-back-N resends kept data: {} vs {} drops", flow.retransmits, flow.drops);
    // every payload byte crossed the receiver's downlink exactly once
    let down = pkt.ports.iter().find(|p| p.port.node == 9 && p.port.peer == 8).unwrap();
    assert_eq!(down.tx_data_bytes, 8 * 500_000);
}

#[test]
fn a_packet_timer_does_not_fire_while_trimmed_packets_are_resent() {
    // Trimming: every loss is NACKed within an RTT, but the cumulative point
    // can stall longer than the timeout while the resends queue behind new
    // data. The per-flow timer fires then and goes back; a packet's own
    // timer restarts at its resend and never fires here (uet-htsim's
    // incasts: no timeout).
    let rto = 60 * US;
    let pkt = incast(true, Recovery::Packet, rto);
    let flow = incast(true, Recovery::Flow, rto);
    assert!(pkt.trimmed > 100, "{} trimmed", pkt.trimmed);
    assert_eq!(pkt.check, Some(Ok(())));
    assert_eq!(flow_sum(&pkt, |f| f.timeouts), 0);
    assert_eq!(pkt.retransmits, pkt.trimmed, "each trimmed packet resent once");
    assert!(flow_sum(&flow, |f| f.timeouts) > 0, "the per-flow timer must fire in this incast for the test to tell");
    assert!(flow.retransmits > flow.trimmed);
}

#[test]
fn per_packet_recovery_refuses_a_go_back_n_receiver() {
    let topo = star(3, G100, US);
    let mut net = NetConfig::default();
    net.receiver = Receiver::GoBackN;
    net.recovery = Recovery::Packet;
    let flows = vec![flow(0, 0, 2, 10_000, 0)];
    let e = run(&topo, &net, &flows, &line_rate(), &SimOptions::default(), None).unwrap_err();
    assert!(e.contains("network.recovery") && e.contains("go-back-n"), "{e}");
}

#[test]
fn the_packet_that_fills_the_window_asks_for_its_ack() {
    // A window of about ten packets and an ACK every eight: per flow the
    // receiver ACKs when eight have come, so part of each window waits for
    // the next; per packet, the packet that fills the window carries the
    // ACK-request flag and is ACKed at once (uet-htsim `sendNewPacket`).
    let topo = star(2, G100, US);
    let mut net = NetConfig::default();
    net.receiver = Receiver::Reorder;
    net.ack_every = 8;
    net.rto = Some(Dur(1000 * US));
    let flows = vec![flow(0, 0, 1, 300_000, 0)];
    let window = Fixed { rate_frac: 1.0, window_bdps: 0.2 };
    let fct = |recovery| {
        let mut net = net.clone();
        net.recovery = recovery;
        let r = run(&topo, &net, &flows, &window, &SimOptions::default(), None).unwrap();
        let f = &r.flows[0];
        assert_eq!((f.timeouts, f.retransmits), (0, 0));
        f.fct.unwrap()
    };
    let (pkt, flow) = (fct(Recovery::Packet), fct(Recovery::Flow));
    assert!(pkt < flow, "per packet {pkt} ps vs per flow {flow} ps");
}

/// A sender at line rate with a fixed window of `0` bytes.
struct ByteWindow(u64);
struct ByteWindowSender(u64);
impl SenderCc for ByteWindowSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        cx.window = self.0;
    }
    fn on_ack(&mut self, _cx: &mut SenderCx, _ack: &Packet) {}
}
impl Scheme for ByteWindow {
    fn name(&self) -> &str {
        "byte window"
    }
    fn sender(&self, _f: &FlowView) -> Box<dyn SenderCc> {
        Box::new(ByteWindowSender(self.0))
    }
}

#[test]
fn the_ack_request_goes_on_the_packet_that_fills_the_window_only() {
    // A fixed window of 8 packets and ACKs coalesced beyond it. The core
    // sends while the bytes in flight are under the window, so the 8th
    // packet is the one after which the next would not fit: it alone asks
    // for an ACK (uet-htsim: `_in_flight + size >= _cwnd`, `_in_flight`
    // counting the packet), not the 7th as well. In the first round trip
    // the receiver ACKs the first packet and the 8th: two ACKs.
    let topo = star(2, G100, US);
    let mut net = NetConfig::default();
    net.receiver = Receiver::Reorder;
    net.recovery = Recovery::Packet;
    net.ack_every = 1000;
    net.rto = Some(Dur(1000 * US));
    let mtu = net.mtu.0;
    let flows = vec![flow(0, 0, 1, 100 * mtu, 0)];
    let opts = SimOptions { stop_at: Some(5 * US), ..SimOptions::default() };
    let r = run(&topo, &net, &flows, &ByteWindow(7 * mtu + 1), &opts, None).unwrap();
    let receiver = r.ports.iter().find(|p| p.port.node == 1 && p.port.peer == 2).unwrap();
    assert_eq!(receiver.tx_bytes / net.ack_size.0, 2, "ACKs in the first round trip");
    let sender = r.ports.iter().find(|p| p.port.node == 0 && p.port.peer == 2).unwrap();
    assert!(sender.tx_data_bytes > 8 * mtu, "the first ACK came back in time");
}
