//! Receiver credits (`credit.rs`) at the edges of their settings: a credit
//! rate so low that a pull's gap passes the end of simulated time, and a
//! scheme timer set to the end of time, end the run cleanly (no overflow, no
//! event before the wheel's current bucket).

use crate::common::*;
use ccsim_core::cc::{FlowView, Requirements, Scheme, SenderCc, SenderCx};
use ccsim_core::config::{CreditConfig, NetConfig};
use ccsim_core::packet::Packet;
use ccsim_core::results::RunStatus;
use ccsim_core::sim::{run, SimOptions};
use ccsim_core::time::Time;

/// Line rate, no window; receiver credits at `rate` x line rate.
struct Credited {
    rate: f64,
}
struct LineRate;
impl SenderCc for LineRate {
    fn on_start(&mut self, cx: &mut SenderCx) {
        cx.rate = cx.flow.line_rate as f64;
    }
    fn on_ack(&mut self, _cx: &mut SenderCx, _ack: &Packet) {}
}
impl Scheme for Credited {
    fn name(&self) -> &str {
        "credited"
    }
    fn requirements(&self) -> Requirements {
        Requirements {
            credit: Some(CreditConfig {
                rate: self.rate,
                per_pull: 16_384,
                max_credit: 1.5,
                quantum: 256,
                last_hop_ecn: false,
            }),
            ..Default::default()
        }
    }
    fn sender(&self, _f: &FlowView) -> Box<dyn SenderCc> {
        Box::new(LineRate)
    }
}

/// A pull gap of 16 KB at 1e-15 x 100 Gbps is ~1.3e21 ps, past u64: the
/// pacer's next pull used to wrap around `now` (release: "event scheduled
/// before the wheel's current bucket"; debug: an overflow). The flow
/// outgrows its speculative credit and waits for a pull that never comes
/// within the run: the run stalls, and says so.
#[test]
fn a_credit_rate_whose_pull_gap_passes_the_end_of_time_stalls_cleanly() {
    for rate in [1e-15, 2e-15, 5e-15, 1e-300, 0.0] {
        let topo = star(3, G100, US);
        let flows = vec![flow(0, 0, 2, 2_000_000, 0), flow(1, 1, 2, 2_000_000, 0)];
        let r = run(&topo, &NetConfig::default(), &flows, &Credited { rate }, &SimOptions::default(), None).unwrap();
        assert!(matches!(r.status, RunStatus::Stalled { .. }), "rate {rate}: {:?}", r.status);
        assert!(r.flows.iter().all(|f| f.fct.is_none()), "rate {rate}");
    }
    // a sane rate completes
    let topo = star(3, G100, US);
    let flows = vec![flow(0, 0, 2, 2_000_000, 0), flow(1, 1, 2, 2_000_000, 0)];
    let r = run(&topo, &NetConfig::default(), &flows, &Credited { rate: 0.99 }, &SimOptions::default(), None).unwrap();
    assert_eq!(r.status, RunStatus::Completed);
}

/// A scheme that arms a timer `Time::MAX` from now (e.g. a delay computed
/// in f64 and saturated) gets a timer at the end of time, not an overflow.
#[test]
fn a_timer_at_the_end_of_time_does_not_overflow() {
    struct Forever;
    struct ForeverSender;
    impl SenderCc for ForeverSender {
        fn on_start(&mut self, cx: &mut SenderCx) {
            cx.rate = cx.flow.line_rate as f64;
            cx.set_timer(0, Time::MAX);
        }
        fn on_ack(&mut self, cx: &mut SenderCx, _ack: &Packet) {
            cx.set_timer(0, Time::MAX - 1);
        }
    }
    impl Scheme for Forever {
        fn name(&self) -> &str {
            "forever"
        }
        fn sender(&self, _f: &FlowView) -> Box<dyn SenderCc> {
            Box::new(ForeverSender)
        }
    }
    let topo = star(2, G100, US);
    let flows = vec![flow(0, 0, 1, 100_000, 0)];
    let r = run(&topo, &NetConfig::default(), &flows, &Forever, &SimOptions::default(), None).unwrap();
    assert_eq!(r.status, RunStatus::Completed);
}
