//! The scheme plug-in boundary end to end: a switch hook that sends a control
//! packet straight back to the sender, a receiver hook that writes a field into
//! ACKs, sender hooks that react to both, and timers.

use crate::common::*;
use ccsim_core::cc::{FlowView, PortStat, ReceiverCc, ReceiverCx, Scheme, SenderCc, SenderCx, SwitchCc, SwitchCx};
use ccsim_core::packet::{Packet, PktKind};
use ccsim_core::sim::{run, SimOptions, TraceConfig};
use ccsim_core::time::Time;
use ccsim_core::{NetConfig, PortRef};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Switch: when a data packet is enqueued behind more than `thresh` bytes, send
/// a Ctrl packet (sub 7) to its sender carrying the queue length and the time.
/// Receiver: writes the number of flows it receives into ACK aux[1].
/// Sender: halves its rate on each Ctrl packet (at most once per 10 us, by a timer
/// that restores nothing, just counts), and records the max flow count seen.
struct Probe {
    thresh: u64,
    ctrl_seen: Arc<AtomicU64>,
    max_latency: Arc<AtomicU64>,
    max_n: Arc<AtomicU64>,
    timers: Arc<AtomicU64>,
}
struct ProbeSwitch {
    thresh: u64,
}
impl SwitchCc for ProbeSwitch {
    fn on_enqueue(&mut self, cx: &mut SwitchCx, _in: u16, out: u16, pkt: &mut Packet) {
        if pkt.kind == PktKind::Data && cx.ports[out as usize].qlen > self.thresh && pkt.aux[0] == 0 {
            pkt.aux[0] = 1; // mark: one notification per packet
            let mut c = Packet {
                kind: PktKind::Ctrl,
                sub: 7,
                class: 0,
                flow: pkt.flow,
                src: cx.node,
                dst: pkt.src,
                size: 64,
                hash: pkt.hash,
                ..Default::default()
            };
            c.aux[0] = cx.ports[out as usize].qlen;
            c.aux[1] = cx.now;
            cx.emit.push(c);
        }
    }
    fn on_dequeue(&mut self, cx: &mut SwitchCx, _in: u16, out: u16, pkt: &mut Packet) {
        // the scheme's own ECN marking (counted in the port's ecn_marked)
        if pkt.kind == PktKind::Data && cx.ports[out as usize].qlen > self.thresh {
            pkt.ce = true;
        }
    }
}
struct ProbeRx;
impl ReceiverCc for ProbeRx {
    fn fill_ack(&mut self, cx: &ReceiverCx, _d: &Packet, ack: &mut Packet) {
        ack.aux[1] = cx.host_active_flows as u64;
    }
}
struct ProbeTx {
    seen: Arc<AtomicU64>,
    lat: Arc<AtomicU64>,
    max_n: Arc<AtomicU64>,
    timers: Arc<AtomicU64>,
}
impl SenderCc for ProbeTx {
    fn on_start(&mut self, cx: &mut SenderCx) {
        cx.set_timer(1, 10 * US);
    }
    fn on_ack(&mut self, _cx: &mut SenderCx, ack: &Packet) {
        self.max_n.fetch_max(ack.aux[1], Ordering::Relaxed);
    }
    fn on_control(&mut self, cx: &mut SenderCx, pkt: &Packet) {
        assert_eq!((pkt.kind, pkt.sub), (PktKind::Ctrl, 7));
        self.seen.fetch_add(1, Ordering::Relaxed);
        self.lat.fetch_max(cx.now - pkt.aux[1], Ordering::Relaxed);
        cx.rate = (cx.rate / 2.0).max(1e9);
    }
    fn on_timer(&mut self, cx: &mut SenderCx, slot: usize) {
        assert_eq!(slot, 1);
        self.timers.fetch_add(1, Ordering::Relaxed);
        cx.set_timer(1, 10 * US);
    }
}
impl Scheme for Probe {
    fn name(&self) -> &str {
        "probe"
    }
    fn sender(&self, _f: &FlowView) -> Box<dyn SenderCc> {
        Box::new(ProbeTx {
            seen: self.ctrl_seen.clone(),
            lat: self.max_latency.clone(),
            max_n: self.max_n.clone(),
            timers: self.timers.clone(),
        })
    }
    fn receiver(&self, _f: &FlowView) -> Box<dyn ReceiverCc> {
        Box::new(ProbeRx)
    }
    fn switch(&self, _node: u32, ports: &[PortStat]) -> Option<Box<dyn SwitchCc>> {
        assert!(!ports.is_empty());
        Some(Box::new(ProbeSwitch { thresh: self.thresh }))
    }
}

#[test]
fn switch_feedback_reaches_the_sender_within_an_rtt_and_receiver_fields_arrive() {
    let topo = star(5, G100, US);
    let flows: Vec<_> = (0..4).map(|i| flow(i, i, 4, 2_000_000, 0)).collect();
    let p = Probe {
        thresh: 20_000,
        ctrl_seen: Arc::default(),
        max_latency: Arc::default(),
        max_n: Arc::default(),
        timers: Arc::default(),
    };
    let opts = SimOptions {
        trace: TraceConfig { interval: US, queue_ports: vec![PortRef { node: 5, peer: 4 }], ..Default::default() },
        ..Default::default()
    };
    let r = run(&topo, &NetConfig::default(), &flows, &p, &opts, None).unwrap();
    assert!(r.flows.iter().all(|f| f.fct.is_some()));
    let seen = p.ctrl_seen.load(Ordering::Relaxed);
    assert!(seen > 0, "no switch notification reached a sender");
    // switch -> sender is one hop back: propagation 1 us + a 64 B packet, never queued behind data
    let lat: Time = p.max_latency.load(Ordering::Relaxed);
    let base_rtt = 4 * US + 2 * 84_000;
    assert!(lat < base_rtt / 2, "notification took {lat} ps, more than half an RTT");
    // the receiver saw all 4 flows at once and wrote it into ACKs
    assert_eq!(p.max_n.load(Ordering::Relaxed), 4);
    // the timers ran (every 10 us while the flows lasted, ~80 us at 4-way share)
    assert!(p.timers.load(Ordering::Relaxed) >= 4 * 5);
    // marks a switch hook sets are counted on the port (the core's RED at 400 KB never fires here)
    let marked = r.ports.iter().find(|p| p.port == PortRef { node: 5, peer: 4 }).unwrap().ecn_marked;
    assert!(marked > 0, "hook marks not counted");
    // and the senders slowed down: the queue stays far below what 4 line-rate senders build
    let maxq = r.queues[0].v.iter().cloned().fold(0.0, f64::max);
    assert!(maxq < 400_000.0, "max queue {maxq}");
}

/// A scheme that brings its own ECN marking (DCTCP-style step at K).
struct StepEcn(Option<ccsim_core::config::EcnConfig>);
impl Scheme for StepEcn {
    fn name(&self) -> &str {
        "step"
    }
    fn requirements(&self) -> ccsim_core::cc::Requirements {
        ccsim_core::cc::Requirements { ecn: self.0.clone(), ..Default::default() }
    }
    fn sender(&self, f: &FlowView) -> Box<dyn SenderCc> {
        Fixed { rate_frac: 1.0, window_bdps: 1.0 }.sender(f)
    }
}

#[test]
fn a_scheme_can_bring_its_own_ecn_marking() {
    use ccsim_core::config::{EcnConfig, EcnMode};
    use ccsim_core::units::Bytes;
    let topo = star(5, G100, US);
    let flows: Vec<_> = (0..4).map(|i| flow(i, i, 4, 1_000_000, 0)).collect();
    let marks = |s: &StepEcn| {
        let r = run(&topo, &NetConfig::default(), &flows, s, &SimOptions::default(), None).unwrap();
        r.ports.iter().find(|p| p.port == PortRef { node: 5, peer: 4 }).unwrap().ecn_marked
    };
    // 4 windows of one BDP keep the queue under the default RED Kmin (400 KB at 100G)
    assert_eq!(marks(&StepEcn(None)), 0);
    let step = EcnConfig { mode: EcnMode::Step, kmin: Bytes(20_000), scale_per_25g: false, ..Default::default() };
    assert!(marks(&StepEcn(Some(step))) > 100);
}

/// A switch part that counts the data packets it sees, under two names.
struct Counting;
struct CountingSwitch {
    data: u64,
    bytes: u64,
}
impl SwitchCc for CountingSwitch {
    fn on_enqueue(&mut self, _cx: &mut SwitchCx, _in: u16, _out: u16, pkt: &mut Packet) {
        if pkt.kind == PktKind::Data {
            self.data += 1;
            self.bytes += pkt.size as u64;
        }
    }
    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("data_pkts", self.data), ("data_bytes", self.bytes)]
    }
}
impl Scheme for Counting {
    fn name(&self) -> &str {
        "counting"
    }
    fn sender(&self, f: &FlowView) -> Box<dyn SenderCc> {
        line_rate().sender(f)
    }
    fn switch(&self, _node: u32, _ports: &[PortStat]) -> Option<Box<dyn SwitchCc>> {
        Some(Box::new(CountingSwitch { data: 0, bytes: 0 }))
    }
}

#[test]
fn switch_counters_are_summed_over_switches_into_the_result() {
    // leaf-spine: a flow across leaves crosses 3 switches, one within a leaf crosses 1
    let topo = leaf_spine(2, 2, G100, US);
    let flows = vec![flow(0, 0, 2, 100_000, 0), flow(1, 1, 0, 50_000, 0)];
    let r = run(&topo, &NetConfig::default(), &flows, &Counting, &SimOptions::default(), None).unwrap();
    assert!(r.flows.iter().all(|f| f.fct.is_some()));
    let net = NetConfig::default();
    let pkts = |size: u64| size.div_ceil(net.mtu.0);
    let expect = 3 * pkts(100_000) + pkts(50_000);
    let get = |n: &str| r.scheme_counters.iter().find(|(k, _)| k == n).map(|x| x.1);
    assert_eq!(get("data_pkts"), Some(expect));
    assert_eq!(
        get("data_bytes"),
        Some(3 * (100_000 + pkts(100_000) * net.header.0) + 50_000 + pkts(50_000) * net.header.0)
    );
    // sorted by name
    assert_eq!(r.scheme_counters[0].0, "data_bytes");
    // a scheme without switch counters reports none
    let r = run(&topo, &NetConfig::default(), &flows, &line_rate(), &SimOptions::default(), None).unwrap();
    assert!(r.scheme_counters.is_empty());
}
