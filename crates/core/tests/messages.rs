//! Connections and messages (`msg.rs`): a message on an idle connection
//! behaves as a flow, messages queue in order and are packetized one by one,
//! the scheme's state lives across messages and sees the stream, dependencies
//! wait for delivery or completion, and a message source drives a closed loop.

use std::sync::{Arc, Mutex};

use crate::common::*;
use ccsim_core::cc::{FlowView, Scheme, SenderCc, SenderCx};
use ccsim_core::config::NetConfig;
use ccsim_core::packet::Packet;
use ccsim_core::sim::{SimOptions, Simulator};
use ccsim_core::time::Time;
use ccsim_core::{ConnSpec, MessageEvent, MessageInfo, MessageSource, MessageSpec, RunResult, Traffic};

fn msg(conn: u32, size: u64, at: Time) -> MessageSpec {
    MessageSpec { conn, size, at, after: vec![], delay: 0, tag: 7, compute_on: None }
}

fn conn(src: u32, dst: u32) -> ConnSpec {
    ConnSpec { src, dst, prio: 0 }
}

fn run_traffic(traffic: Traffic, scheme: &dyn Scheme, opts: &SimOptions) -> RunResult {
    let topo = star(4, G100, US);
    Simulator::with_traffic(&topo, &NetConfig::default(), traffic, scheme, opts).unwrap().run(None)
}

fn checked() -> SimOptions {
    SimOptions { check: true, ..Default::default() }
}

#[test]
fn a_message_on_an_idle_connection_completes_as_a_flow_does() {
    let size = 123_456;
    let flows = run_traffic(Traffic::flows(vec![flow(0, 0, 1, size, 5 * US)]), &line_rate(), &checked());
    let t = Traffic { conns: vec![conn(0, 1)], messages: vec![msg(0, size, 5 * US)], ..Default::default() };
    let msgs = run_traffic(t, &line_rate(), &checked());
    assert_eq!(msgs.check, Some(Ok(())));
    let (f, m) = (&flows.flows[0], &msgs.flows[0]);
    assert_eq!((m.id, m.conn, m.tag, m.start), (0, Some(0), Some(7), 5 * US));
    assert_eq!(m.fct, f.fct, "same bytes, same path, same scheme");
    assert_eq!(m.ideal_fct, f.ideal_fct);
    assert_eq!(msgs.engine.data_packets, flows.engine.data_packets);
    assert_eq!(msgs.conns.len(), 1);
    let c = &msgs.conns[0];
    assert_eq!((c.messages, c.completed, c.bytes, c.acked), (1, 1, size, size));
}

#[test]
fn messages_queue_in_order_and_are_packetized_one_by_one() {
    // three 1.5-packet messages released together: 2 packets each (a packet
    // never carries bytes of two messages), completed in order, and the
    // connection's link is busy for all six packets
    let mtu = NetConfig::default().mtu.0;
    let size = mtu + mtu / 2;
    let t =
        Traffic { conns: vec![conn(0, 1)], messages: (0..3).map(|_| msg(0, size, 0)).collect(), ..Default::default() };
    let r = run_traffic(t, &line_rate(), &checked());
    assert_eq!(r.check, Some(Ok(())));
    assert_eq!(r.engine.data_packets, 6);
    let done: Vec<Time> = r.flows.iter().map(|m| m.start + m.fct.unwrap()).collect();
    assert!(done[0] < done[1] && done[1] < done[2], "completed in release order: {done:?}");
    // the second waits behind the first: its FCT exceeds the first's by at least its own packets' time
    let pkt = ccsim_core::time::ser_time(NetConfig::default().packet_size(), G100);
    assert!(r.flows[1].fct.unwrap() >= r.flows[0].fct.unwrap() + pkt);
    assert_eq!(r.conns[0].messages, 3);
    assert_eq!(r.conns[0].bytes, 3 * size);
}

/// A scheme that records what its sender sees: starts, and per packet sent
/// (seq, avail, msg_start, burst_start).
/// Per packet sent: (seq, avail, msg_start, burst_start).
type SendLog = Arc<Mutex<Vec<(u64, u64, u64, u64)>>>;

#[derive(Default, Clone)]
struct Spy {
    log: SendLog,
    starts: Arc<Mutex<u32>>,
}
struct SpySender(Spy);
impl SenderCc for SpySender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        *self.0.starts.lock().unwrap() += 1;
        cx.window = 4_000;
    }
    fn on_ack(&mut self, _cx: &mut SenderCx, _ack: &Packet) {}
    fn on_send(&mut self, cx: &mut SenderCx, pkt: &mut Packet) {
        self.0.log.lock().unwrap().push((pkt.seq, cx.avail, cx.msg_start, cx.burst_start));
    }
}
impl Scheme for Spy {
    fn name(&self) -> &str {
        "spy"
    }
    fn sender(&self, _f: &FlowView) -> Box<dyn SenderCc> {
        Box::new(SpySender(self.clone()))
    }
}

#[test]
fn the_scheme_keeps_its_state_across_messages_and_sees_the_stream() {
    // message 0 at 0; message 1 while 0 is in flight (same busy period);
    // message 2 long after (the connection went idle: a new busy period)
    let spy = Spy::default();
    let t = Traffic {
        conns: vec![conn(0, 1)],
        messages: vec![msg(0, 10_000, 0), msg(0, 3_000, 100_000), msg(0, 2_000, 200 * US)],
        ..Default::default()
    };
    let r = run_traffic(t, &spy, &checked());
    assert!(r.flows.iter().all(|m| m.fct.is_some()));
    assert_eq!(*spy.starts.lock().unwrap(), 1, "one transport state: started once");
    let log = spy.log.lock().unwrap().clone();
    // the first packet: only message 0 released
    assert_eq!(log[0], (0, 10_000, 0, 0));
    // a packet of message 1: same busy period, the stream ends at 13,000
    let p1 = log.iter().find(|p| p.0 == 10_000).expect("message 1's first packet");
    assert_eq!(*p1, (10_000, 13_000, 10_000, 0));
    // message 2 starts a new busy period at its offset
    let p2 = log.iter().find(|p| p.0 == 13_000).expect("message 2's first packet");
    assert_eq!(*p2, (13_000, 15_000, 13_000, 13_000));
}

#[test]
fn dependencies_wait_for_delivery_or_completion_then_the_delay() {
    // A: 0 -> 1. B (1 -> 2) forwards what A delivered at host 1: it waits for
    // A's delivery; C (0 -> 3) is sent by A's sender: it waits for A's
    // acknowledgement. Both 3 us later.
    let delay = 3 * US;
    let t = Traffic {
        conns: vec![conn(0, 1), conn(1, 2), conn(0, 3)],
        messages: vec![
            msg(0, 50_000, 0),
            MessageSpec { conn: 1, size: 1_000, at: 0, after: vec![0], delay, tag: 1, compute_on: None },
            MessageSpec { conn: 2, size: 1_000, at: 0, after: vec![0], delay, tag: 2, compute_on: None },
        ],
        ..Default::default()
    };
    let r = run_traffic(t, &line_rate(), &checked());
    let (a, b, c) = (&r.flows[0], &r.flows[1], &r.flows[2]);
    let a_done = a.start + a.fct.unwrap();
    assert_eq!(c.start, a_done + delay, "C waits for A's acknowledgement");
    // A's last byte reaches host 1 one link delay (plus switch hop) before its ACK returns
    assert!(b.start < c.start, "B waits only for A's delivery");
    assert!(b.start >= a.start + delay + 2 * US, "B is released after A's data crossed two links");
    assert_eq!(
        a_done - (b.start - delay),
        2 * US + ccsim_core::time::ser_time(NetConfig::default().ack_size.0, G100) * 2
    );
}

#[test]
fn a_message_released_later_than_its_dependency_keeps_its_time() {
    let t = Traffic {
        conns: vec![conn(0, 1), conn(0, 2)],
        messages: vec![
            msg(0, 1_000, 0),
            MessageSpec { conn: 1, size: 1_000, at: 500 * US, after: vec![0], delay: 0, tag: 0, compute_on: None },
        ],
        ..Default::default()
    };
    let r = run_traffic(t, &line_rate(), &checked());
    assert_eq!(r.flows[1].start, 500 * US);
}

/// Closed loop: each completion releases the next message on the same
/// connection after a think time, `n` messages in all.
struct Loop {
    left: u32,
    think: Time,
    seen: Arc<Mutex<Vec<(MessageEvent, u32)>>>,
}
impl MessageSource for Loop {
    fn on_message(&mut self, now: Time, what: MessageEvent, m: &MessageInfo, out: &mut Vec<MessageSpec>) {
        self.seen.lock().unwrap().push((what, m.id));
        if what == MessageEvent::Completed && self.left > 0 {
            self.left -= 1;
            out.push(MessageSpec {
                conn: m.conn,
                size: m.size,
                at: now + self.think,
                after: vec![],
                delay: 0,
                tag: 9,
                compute_on: None,
            });
        }
    }
}

#[test]
fn a_source_closes_the_loop() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let think = 2 * US;
    let t = Traffic {
        conns: vec![conn(0, 1)],
        messages: vec![msg(0, 20_000, 0)],
        source: Some(Box::new(Loop { left: 4, think, seen: seen.clone() })),
        ..Default::default()
    };
    let r = run_traffic(t, &line_rate(), &checked());
    assert_eq!(r.status, ccsim_core::results::RunStatus::Completed);
    assert_eq!(r.flows.len(), 5);
    for w in r.flows.windows(2) {
        assert_eq!(w[1].start, w[0].start + w[0].fct.unwrap() + think, "next released a think time after completion");
        assert_eq!(w[1].tag, Some(9));
    }
    // each message is delivered, then completed
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 10);
    assert!(seen
        .chunks(2)
        .enumerate()
        .all(|(i, p)| p[0] == (MessageEvent::Delivered, i as u32) && p[1] == (MessageEvent::Completed, i as u32)));
    assert_eq!(r.conns[0].completed, 5);
}

#[test]
fn an_endless_loop_runs_to_the_stop_time_and_counts_what_waits() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let t = Traffic {
        conns: vec![conn(0, 1)],
        messages: vec![msg(0, 20_000, 0), msg(0, 1_000, 10_000 * US)],
        source: Some(Box::new(Loop { left: u32::MAX, think: 0, seen })),
        ..Default::default()
    };
    let opts = SimOptions { stop_at: Some(100 * US), ..Default::default() };
    let r = run_traffic(t, &line_rate(), &opts);
    assert_eq!(r.status, ccsim_core::results::RunStatus::Stopped);
    // one 20 KB message at a time, each about an RTT plus its serialization (~5.6 us)
    let ideal = r.flows[0].ideal_fct;
    assert!(r.flows.len() as u64 >= 100 * US / (2 * ideal), "{} messages in 100 us", r.flows.len());
    assert!(r.flows.iter().all(|m| m.start <= 100 * US));
    assert!(r.flows.last().unwrap().fct.is_none(), "the last one was cut by the stop");
    assert_eq!(r.messages_waiting, 1, "the message due at 10 ms was never released");
}

#[test]
fn bad_messages_are_refused_with_their_id_and_field() {
    let topo = star(3, G100, US);
    let net = NetConfig::default();
    let err = |t: Traffic| {
        Simulator::with_traffic(&topo, &net, t, &line_rate(), &SimOptions::default()).err().expect("refused")
    };
    let e = err(Traffic { conns: vec![conn(0, 1)], messages: vec![msg(1, 10, 0)], ..Default::default() });
    assert!(e.contains("message 0: conn = 1"), "{e}");
    let e = err(Traffic { conns: vec![conn(0, 1)], messages: vec![msg(0, 0, 0)], ..Default::default() });
    assert!(e.contains("message 0: size must be positive"), "{e}");
    let e = err(Traffic {
        conns: vec![conn(0, 1)],
        messages: vec![MessageSpec { after: vec![0], ..msg(0, 10, 0) }],
        ..Default::default()
    });
    assert!(e.contains("message 0: after = 0"), "{e}");
    let e = err(Traffic { conns: vec![conn(1, 1)], ..Default::default() });
    assert!(e.contains("connection 0 (1 -> 1)"), "{e}");
    let e = err(Traffic { conns: vec![conn(0, 3)], ..Default::default() });
    assert!(e.contains("must be hosts"), "{e}");
}

#[test]
fn flows_and_messages_share_a_run_deterministically() {
    let make = || Traffic {
        flows: vec![flow(0, 2, 1, 300_000, 0)],
        conns: vec![conn(0, 1), conn(3, 1)],
        messages: (0..40).map(|i| msg(i % 2, 5_000 + 1_000 * i as u64, i as u64 * 2 * US)).collect(),
        ..Default::default()
    };
    let scheme = Fixed { rate_frac: 1.0, window_bdps: 1.0 };
    let a = run_traffic(make(), &scheme, &checked());
    let b = run_traffic(make(), &scheme, &checked());
    assert_eq!(a.check, Some(Ok(())));
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.flows.len(), 41);
    assert_eq!(a.flows[0].conn, None);
    assert_eq!(a.flows[1].id, 1, "message ids follow the flows'");
    assert!(a.flows.iter().all(|f| f.fct.is_some()));
}

#[test]
fn a_compute_task_waits_for_its_inputs_then_its_duration() {
    // A: 0 -> 1; B (1 -> 2) forwards A directly; T computes 10 us on host 1
    // after A arrives, and C (1 -> 2) waits for T: C leaves 10 us after B.
    let t = Traffic {
        conns: vec![conn(0, 1), conn(1, 2), conn(1, 3)],
        messages: vec![
            msg(0, 30_000, 0),
            MessageSpec { conn: 1, size: 1_000, after: vec![0], ..Default::default() },
            MessageSpec { compute_on: Some(1), after: vec![0], delay: 10 * US, ..Default::default() },
            MessageSpec { conn: 2, size: 1_000, after: vec![2], ..Default::default() },
        ],
        ..Default::default()
    };
    let r = run_traffic(t, &line_rate(), &checked());
    assert_eq!(r.status, ccsim_core::results::RunStatus::Completed);
    assert_eq!(r.flows.len(), 3, "a task has no row");
    let (b, c) = (&r.flows[1], &r.flows[2]);
    assert_eq!(c.id, 3, "rows keep the message ids");
    assert_eq!(c.start, b.start + 10 * US);
    let topo = star(3, G100, US);
    let e = Simulator::with_traffic(
        &topo,
        &NetConfig::default(),
        Traffic { messages: vec![MessageSpec { compute_on: Some(3), ..Default::default() }], ..Default::default() },
        &line_rate(),
        &SimOptions::default(),
    )
    .err()
    .unwrap();
    assert!(e.contains("message 0: compute_on = 3: not a host"), "{e}");
}
