//! Shared helpers for the core's integration tests: hand-built topologies and
//! a minimal test scheme (fixed rate, optional fixed window).
#![allow(dead_code)]

use ccsim_core::cc::{FlowView, Scheme, SenderCc, SenderCx};
use ccsim_core::config::NetConfig;
use ccsim_core::packet::Packet;
use ccsim_core::sim::{run, SimOptions};
use ccsim_core::time::Time;
use ccsim_core::units::Bytes;
use ccsim_core::{FlowSpec, LinkSpec, NodeKind, RunResult, Topology};

pub const G100: u64 = 100_000_000_000;
pub const US: Time = 1_000_000;

/// Sends at a fixed fraction of line rate with a window of `window_bdps` x BDP (0 = none).
pub struct Fixed {
    pub rate_frac: f64,
    pub window_bdps: f64,
}
struct FixedSender {
    rate: f64,
    window: u64,
}
impl SenderCc for FixedSender {
    fn on_start(&mut self, cx: &mut SenderCx) {
        cx.rate = self.rate;
        cx.window = self.window;
    }
    fn on_ack(&mut self, _cx: &mut SenderCx, _ack: &Packet) {}
}
impl Scheme for Fixed {
    fn name(&self) -> &str {
        "fixed"
    }
    fn sender(&self, f: &FlowView) -> Box<dyn SenderCc> {
        let window = if self.window_bdps > 0.0 { (f.bdp as f64 * self.window_bdps) as u64 } else { u64::MAX };
        Box::new(FixedSender { rate: f.line_rate as f64 * self.rate_frac, window })
    }
}

pub fn line_rate() -> Fixed {
    Fixed { rate_frac: 1.0, window_bdps: 0.0 }
}

/// `n` hosts (0..n) on one switch (node n).
pub fn star(n: u32, rate: u64, delay: Time) -> Topology {
    let mut nodes = vec![NodeKind::Host; n as usize];
    nodes.push(NodeKind::Switch);
    let links = (0..n).map(|h| LinkSpec { a: h, b: n, rate_bps: rate, delay, back: None }).collect();
    Topology { nodes, links, name: format!("star {n}") }
}

/// Two leaves, `spines` spines, `per_leaf` hosts per leaf. Hosts 0..2*per_leaf,
/// leaves next, then spines.
pub fn leaf_spine(per_leaf: u32, spines: u32, rate: u64, delay: Time) -> Topology {
    let nh = 2 * per_leaf;
    let mut nodes = vec![NodeKind::Host; nh as usize];
    nodes.extend(std::iter::repeat_n(NodeKind::Switch, 2 + spines as usize));
    let mut links = Vec::new();
    for h in 0..nh {
        links.push(LinkSpec { a: h, b: nh + h / per_leaf, rate_bps: rate, delay, back: None });
    }
    for l in 0..2 {
        for s in 0..spines {
            links.push(LinkSpec { a: nh + l, b: nh + 2 + s, rate_bps: rate, delay, back: None });
        }
    }
    Topology { nodes, links, name: "leaf-spine".into() }
}

pub fn flow(id: u32, src: u32, dst: u32, size: u64, start: Time) -> FlowSpec {
    FlowSpec { id, src, dst, size, start, prio: 0 }
}

/// An 8:1 incast: hosts 0-7 of a 9-host star each send 500 KB at line rate
/// to host 8 at t = 0, on `net`, with the end-of-run checks on.
pub fn incast_8_to_1(net: &NetConfig) -> RunResult {
    let topo = star(9, G100, US);
    let flows: Vec<_> = (0..8).map(|i| flow(i, i, 8, 500_000, 0)).collect();
    let opts = SimOptions { check: true, ..Default::default() };
    run(&topo, net, &flows, &line_rate(), &opts, None).unwrap()
}

/// A fabric without PFC and a 400 KB switch buffer, which an 8:1 incast of
/// line-rate flows overflows.
pub fn lossy_400kb() -> NetConfig {
    let mut net = NetConfig::default();
    net.pfc.enabled = false;
    net.buffer = Bytes(400_000);
    net
}

/// The sum over a run's flows of `f`.
pub fn flow_sum(r: &RunResult, f: impl Fn(&ccsim_core::results::FlowResult) -> u64) -> u64 {
    r.flows.iter().map(f).sum()
}
