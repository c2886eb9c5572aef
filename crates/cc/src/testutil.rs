//! Test harness: plays the core's part for one flow's sender, so a scheme's
//! rules can be checked in isolation (hand-built flow, synthetic ACKs, timers
//! fired in time order).

use ccsim_core::cc::{FlowView, SenderCc, SenderCx, TIMER_SLOTS};
use ccsim_core::packet::{IntHop, Packet, PktKind};
use ccsim_core::time::{Time, US};

/// A 100 Gbps flow with a 10 us base RTT (BDP 125 KB) and 1000 B payloads.
pub fn flow() -> FlowView {
    FlowView {
        id: 7,
        src: 0,
        dst: 1,
        size: 10_000_000,
        start: 0,
        line_rate: 100_000_000_000,
        bottleneck_rate: 100_000_000_000,
        base_rtt: 10 * US,
        bdp: 125_000,
        max_base_rtt: 10 * US,
        path_switches: 1,
        mtu: 1000,
        packet_size: 1048,
        trims: false,
    }
}

pub fn ack(seq: u64) -> Packet {
    Packet { kind: PktKind::Ack, seq, ..Default::default() }
}

pub fn ack_ecn(seq: u64) -> Packet {
    Packet { ecn_echo: true, ..ack(seq) }
}

pub fn ack_int(seq: u64, hops: &[IntHop]) -> Packet {
    let mut p = ack(seq);
    for h in hops {
        p.push_int(*h);
    }
    p
}

pub fn cnp() -> Packet {
    Packet { kind: PktKind::Cnp, ..Default::default() }
}

/// What the core keeps for a flow's sender between hooks.
pub struct Harness {
    pub flow: FlowView,
    pub now: Time,
    pub snd_nxt: u64,
    pub snd_una: u64,
    /// The core's lower edge of the bytes in flight (`SenderCx::una_eff`);
    /// below `snd_una` means `snd_una`.
    pub una_eff: u64,
    pub rate: f64,
    pub window: u64,
    pub timers: [Option<Time>; TIMER_SLOTS],
}

impl Harness {
    pub fn new(flow: FlowView) -> Self {
        let rate = flow.line_rate as f64;
        Harness {
            flow,
            now: 0,
            snd_nxt: 0,
            snd_una: 0,
            una_eff: 0,
            rate,
            window: u64::MAX,
            timers: [None; TIMER_SLOTS],
        }
    }

    /// Calls one hook with a fresh context and applies what it set.
    pub fn call<R>(&mut self, f: impl FnOnce(&mut SenderCx) -> R) -> R {
        let mut cx = SenderCx::new(self.now, &self.flow, self.snd_nxt, self.snd_una, self.rate, self.window);
        cx.una_eff = self.una_eff.max(self.snd_una);
        let r = f(&mut cx);
        self.rate = cx.rate;
        self.window = cx.window;
        for (slot, req) in cx.timers.iter().enumerate() {
            if let Some(t) = req {
                assert!(t.is_none_or(|t| t >= self.now), "timer armed in the past");
                self.timers[slot] = *t;
            }
        }
        r
    }

    pub fn start(&mut self, s: &mut dyn SenderCc) {
        self.call(|cx| s.on_start(cx));
    }

    pub fn ack(&mut self, s: &mut dyn SenderCc, p: &Packet) {
        self.call(|cx| s.on_ack(cx, p));
    }

    pub fn control(&mut self, s: &mut dyn SenderCc, p: &Packet) {
        self.call(|cx| s.on_control(cx, p));
    }

    pub fn send(&mut self, s: &mut dyn SenderCc, p: &mut Packet) {
        self.call(|cx| s.on_send(cx, p));
    }

    /// Fires every timer due at or before `t` in time order (lower slot first on
    /// ties), then sets the clock to `t`.
    pub fn run_until(&mut self, s: &mut dyn SenderCc, t: Time) {
        loop {
            let next =
                (0..TIMER_SLOTS).filter_map(|i| self.timers[i].map(|at| (at, i))).filter(|&(at, _)| at <= t).min();
            let Some((at, slot)) = next else { break };
            self.now = at;
            self.timers[slot] = None;
            self.call(|cx| s.on_timer(cx, slot));
        }
        self.now = t;
    }
}
