//! Packet trimming (`network.trim`, Ultra Ethernet): a data packet a switch
//! cannot admit goes on as its header in the control class, the receiver
//! answers with a trim NACK and the sender resends exactly those bytes.
#![allow(clippy::field_reassign_with_default)]

use crate::common::*;
use ccsim_core::config::{NetConfig, Receiver};
use ccsim_core::packet::{Packet, PktKind, TRIMMED, TRIMMED_LAST_HOP};
use ccsim_core::sim::{run, SimOptions};
use ccsim_core::units::Bytes;
use ccsim_core::FlowSpec;
use ccsim_core::RunResult;

/// An 8:1 incast of 500 KB flows into a 400 KB lossy buffer.
fn incast(trim: bool, receiver: Receiver) -> RunResult {
    let mut net = lossy_400kb();
    net.trim.enabled = trim;
    net.receiver = receiver;
    incast_8_to_1(&net)
}

fn worst_fct(r: &RunResult) -> u64 {
    r.flows.iter().map(|f| f.fct.expect("every flow finishes")).max().unwrap()
}

#[test]
fn trimming_replaces_drops_and_resends_only_the_trimmed_packets() {
    let r = incast(true, Receiver::Reorder);
    assert!(r.trimmed > 100, "the incast must overflow the buffer: {} trimmed", r.trimmed);
    assert_eq!(r.drops, 0, "a trimming fabric drops nothing here");
    assert_eq!(r.check.as_ref().map(|c| c.is_ok()), Some(true), "{:?}", r.check);
    // each trimmed packet is resent once (a resend trimmed again is resent again)
    let resent: u64 = r.flows.iter().map(|f| f.retransmits).sum();
    assert_eq!(resent, r.trimmed);
    // every payload byte crossed the receiver's downlink exactly once
    let down = r.ports.iter().find(|p| p.port.node == 9 && p.port.peer == 8).unwrap();
    assert_eq!(down.tx_data_bytes, 8 * 500_000);
    // trimmed where the queue builds: the switch's egress to the receiver
    assert_eq!(down.trimmed, r.trimmed);
    assert_eq!(r.engine.data_bytes_trimmed, r.trimmed * 1000);
}

#[test]
fn trimming_recovers_faster_than_drops_and_timeouts() {
    // Without trimming a reorder receiver never NACKs: tail drops wait for
    // the 1 ms retransmission timeout; a trim NACK comes back in one RTT.
    let trimmed = incast(true, Receiver::Reorder);
    let dropped = incast(false, Receiver::Reorder);
    assert!(dropped.drops > 0 && dropped.trimmed == 0);
    let (t, d) = (worst_fct(&trimmed), worst_fct(&dropped));
    // line-rate senders with no congestion control: 8 x 100G of offered load
    // is mostly trimmed, and the headers (64 B in the control class) take
    // up to 64/1048 of 8 x 100G, ~49%, of the receiver's link. The drain of
    // 4 MB then takes ~2x its 320 us at line rate; never a timeout's 1 ms.
    assert!(t > 320 * US && t < 700 * US, "trimmed incast took {t} ps");
    assert!(d > t + 500 * US, "drops with timeouts {d} ps vs trimming {t} ps");
}

/// Trimming is for selective resends: with a go-back-N receiver every trim
/// NACK would resend all that followed the trimmed packet, so the
/// combination is refused; left unset, the receiver is the reorder one.
#[test]
fn trimming_refuses_a_go_back_n_receiver_and_chooses_reorder() {
    let topo = star(9, G100, US);
    let mut net = NetConfig::default();
    net.pfc.enabled = false;
    net.buffer = Bytes(400_000);
    net.trim.enabled = true;
    net.receiver = Receiver::GoBackN;
    let flows: Vec<_> = (0..8).map(|i| flow(i, i, 8, 500_000, 0)).collect();
    let opts = SimOptions { check: true, ..SimOptions::default() };
    let e = run(&topo, &net, &flows, &line_rate(), &opts, None).unwrap_err();
    assert!(e.contains("network.receiver") && e.contains("trim"), "{e}");
    net.receiver = Receiver::Auto;
    let auto = run(&topo, &net, &flows, &line_rate(), &opts, None).unwrap();
    let reorder = incast(true, Receiver::Reorder);
    assert!(auto.notes.iter().any(|n| n.text.contains("network.receiver = \"reorder\"")), "{:?}", auto.notes);
    let fcts = |r: &RunResult| r.flows.iter().map(|f| f.fct).collect::<Vec<_>>();
    assert_eq!(fcts(&auto), fcts(&reorder), "unset is the reorder receiver");
}

/// The fabric's trimming reaches the scheme (`FlowView::trims`) per data
/// class: a lossless priority does not trim, a lossy one does.
#[test]
fn a_scheme_reads_whether_its_class_is_trimmed() {
    use ccsim_core::cc::{FlowView, Scheme, SenderCc};
    use std::sync::{Arc, Mutex};
    struct Probe(Arc<Mutex<Vec<(u32, bool)>>>);
    impl Scheme for Probe {
        fn name(&self) -> &str {
            "probe"
        }
        fn sender(&self, f: &FlowView) -> Box<dyn SenderCc> {
            self.0.lock().unwrap().push((f.id, f.trims));
            line_rate().sender(f)
        }
    }
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut net = NetConfig { data_classes: 2, ..NetConfig::default() };
    net.pfc.lossy_prios = vec![1];
    net.trim.enabled = true;
    let flows = [FlowSpec { prio: 0, ..flow(0, 0, 2, 10_000, 0) }, FlowSpec { prio: 1, ..flow(1, 1, 2, 10_000, 0) }];
    run(&star(3, G100, US), &net, &flows, &Probe(seen.clone()), &SimOptions::default(), None).unwrap();
    let mut v = seen.lock().unwrap().clone();
    v.sort();
    assert_eq!(v, [(0, false), (1, true)]);
    // without trimming nothing is trimmed
    net.trim.enabled = false;
    seen.lock().unwrap().clear();
    run(&star(3, G100, US), &net, &flows, &Probe(seen.clone()), &SimOptions::default(), None).unwrap();
    assert!(seen.lock().unwrap().iter().all(|&(_, t)| !t));
}

#[test]
fn a_trim_nack_names_the_trimmed_bytes_to_the_scheme() {
    // A scheme sees trim NACKs with their code and range, and the entropy
    // it wrote into the data packet's `aux` comes back in them.
    use ccsim_core::cc::{FlowView, ReceiverCc, Scheme, SenderCc, SenderCx};
    use std::sync::{Arc, Mutex};
    type Log = Arc<Mutex<Vec<(u8, u64, u32, u64)>>>;
    struct S(Log);
    struct Tx(Log, u64);
    struct Rx;
    impl SenderCc for Tx {
        fn on_start(&mut self, _: &mut SenderCx) {}
        fn on_send(&mut self, _: &mut SenderCx, p: &mut Packet) {
            self.1 += 1;
            p.aux[3] = self.1;
        }
        fn on_ack(&mut self, _: &mut SenderCx, _: &Packet) {}
        fn on_nack(&mut self, _: &mut SenderCx, p: &Packet) {
            assert_eq!(p.kind, PktKind::Nack);
            self.0.lock().unwrap().push((p.trim, p.trim_seq, p.trim_len, p.aux[3]));
        }
    }
    impl ReceiverCc for Rx {}
    impl Scheme for S {
        fn name(&self) -> &str {
            "probe"
        }
        fn sender(&self, _: &FlowView) -> Box<dyn SenderCc> {
            Box::new(Tx(self.0.clone(), 0))
        }
        fn receiver(&self, _: &FlowView) -> Box<dyn ReceiverCc> {
            Box::new(Rx)
        }
    }
    let log: Log = Arc::default();
    let topo = star(9, G100, US);
    let mut net = NetConfig::default();
    net.pfc.enabled = false;
    net.buffer = Bytes(400_000);
    net.trim.enabled = true;
    net.receiver = Receiver::Reorder;
    let flows: Vec<_> = (0..8).map(|i| flow(i, i, 8, 500_000, 0)).collect();
    let r = run(&topo, &net, &flows, &S(log.clone()), &SimOptions::default(), None).unwrap();
    let log = log.lock().unwrap();
    assert_eq!(log.len() as u64, r.trimmed);
    for &(code, seq, len, ev) in log.iter() {
        // trimmed at the egress towards the receiving host
        assert_eq!(code, TRIMMED_LAST_HOP);
        assert_ne!(code, TRIMMED);
        assert_eq!(seq % 1000, 0);
        assert_eq!(len, 1000);
        // the packet's own entropy (its send count) came back
        let most = 500 + r.flows.iter().map(|f| f.retransmits).max().unwrap();
        assert!(ev >= 1 && ev <= most, "{ev} > {most}");
    }
}

#[test]
fn a_trim_threshold_bounds_the_egress_queue() {
    // UE spec §3.6.17: trim at one Plane_BDP of queue, whatever the buffer holds
    let topo = star(9, G100, US);
    let mut net = NetConfig::default();
    net.pfc.enabled = false;
    net.trim.enabled = true;
    net.trim.threshold = Some(Bytes(60_000));
    net.receiver = Receiver::Reorder;
    let flows: Vec<_> = (0..8).map(|i| flow(i, i, 8, 500_000, 0)).collect();
    let opts = SimOptions { check: true, ..SimOptions::default() };
    let r = run(&topo, &net, &flows, &line_rate(), &opts, None).unwrap();
    let down = r.ports.iter().find(|p| p.port.node == 9 && p.port.peer == 8).unwrap();
    // data up to the threshold, plus the trimmed headers queued in the control class
    assert!(down.max_qlen <= 60_000 + r.trimmed * 64, "max queue {} B", down.max_qlen);
    assert!(down.max_qlen < 200_000, "max queue {} B", down.max_qlen);
    assert!(r.trimmed > 0 && r.drops == 0);
    assert_eq!(r.check.as_ref().map(|c| c.is_ok()), Some(true), "{:?}", r.check);
    // the 32 MB default buffer alone would have let the queue grow past 3 MB
    let mut net2 = net.clone();
    net2.trim.threshold = None;
    let r2 = run(&topo, &net2, &flows, &line_rate(), &opts, None).unwrap();
    let down2 = r2.ports.iter().find(|p| p.port.node == 9 && p.port.peer == 8).unwrap();
    assert!(down2.max_qlen > 1_000_000, "{}", down2.max_qlen);
}

#[test]
fn a_lossless_and_a_trimming_class_share_the_switch() {
    // pfc.lossy_prios: priority 0 under PFC, priority 1 trimmed (UE spec
    // §4.1's trimmed class beside lossless traffic); 4 + 4 senders into one
    // receiver. Strict priority serves class 0 first, so it is the class 1
    // queue that builds past the trim threshold.
    let topo = star(9, G100, US);
    let mut net = NetConfig::default();
    net.data_classes = 2;
    net.pfc.lossy_prios = vec![1];
    net.pfc.static_xoff = Some(Bytes(50_000));
    net.trim.enabled = true;
    net.trim.threshold = Some(Bytes(60_000));
    net.receiver = Receiver::Reorder;
    let flows: Vec<_> = (0..8).map(|i| FlowSpec { prio: (i / 4) as u8, ..flow(i, i, 8, 500_000, 0) }).collect();
    let opts = SimOptions { check: true, ..SimOptions::default() };
    let r = run(&topo, &net, &flows, &line_rate(), &opts, None).unwrap();
    assert_eq!(r.check.as_ref().map(|c| c.is_ok()), Some(true), "{:?}", r.check);
    assert!(r.flows.iter().all(|f| f.fct.is_some()));
    assert!(r.trimmed > 0, "the lossy class is trimmed");
    assert!(r.pause_frames > 0, "the lossless class is paused");
    assert_eq!(r.drops, 0);
    // the lossless class is never trimmed or resent...
    assert!(r.flows[..4].iter().all(|f| f.retransmits == 0), "{:?}", r.flows);
    // ... and every trimmed packet belonged to the lossy class
    assert_eq!(r.flows[4..].iter().map(|f| f.retransmits).sum::<u64>(), r.trimmed);
    let no_mix = {
        let mut n = net.clone();
        n.pfc.lossy_prios.clear();
        // trimming where PFC keeps every class lossless trims nothing: refused
        let e = run(&topo, &n, &flows, &line_rate(), &opts, None).unwrap_err();
        assert!(e.contains("network.trim.enabled") && e.contains("network.pfc"), "{e}");
        n.trim.enabled = false;
        run(&topo, &n, &flows, &line_rate(), &opts, None).unwrap()
    };
    // with both classes lossless nothing is trimmed and PFC pauses more
    assert_eq!(no_mix.trimmed, 0);
    assert!(no_mix.pause_frames >= r.pause_frames, "{} vs {}", no_mix.pause_frames, r.pause_frames);
}

#[test]
fn lossy_prios_must_exist() {
    let mut net = NetConfig::default();
    net.pfc.lossy_prios = vec![1];
    let e = net.validate().unwrap_err();
    assert!(e.contains("network.pfc.lossy_prios") && e.contains("priority 1"), "{e}");
    net.data_classes = 2;
    net.validate().unwrap();
}
