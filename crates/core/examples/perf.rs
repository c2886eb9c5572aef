// temporary perf harness (not committed)
use ccsim_core::cc::{FlowView, Scheme, SenderCc, SenderCx};
use ccsim_core::packet::Packet;
use ccsim_core::*;
struct W;
struct S(u64);
impl SenderCc for S { fn on_start(&mut self, cx: &mut SenderCx) { cx.window = self.0; } fn on_ack(&mut self, _: &mut SenderCx, _: &Packet) {} }
impl Scheme for W { fn name(&self) -> &str { "w" } fn sender(&self, f: &FlowView) -> Box<dyn SenderCc> { Box::new(S(f.bdp)) } }
fn main() {
    let t = std::fs::read_to_string("/work/shared/bench/fat320.topology.txt").unwrap();
    let mut lines = t.lines();
    let h: Vec<u32> = lines.next().unwrap().split_whitespace().map(|x| x.parse().unwrap()).collect();
    let sw: Vec<u32> = lines.next().unwrap().split_whitespace().map(|x| x.parse().unwrap()).collect();
    let mut nodes = vec![NodeKind::Host; h[0] as usize];
    for s in sw { nodes[s as usize] = NodeKind::Switch; }
    let mut links = vec![];
    for l in lines { let v: Vec<&str> = l.split_whitespace().collect(); if v.len() < 4 {continue;}
        let r: u64 = v[2].trim_end_matches("Gbps").parse::<u64>().unwrap() * 1_000_000_000;
        links.push(LinkSpec { a: v[0].parse().unwrap(), b: v[1].parse().unwrap(), rate_bps: r, delay: 1_000_000 }); }
    let topo = Topology { nodes, links, name: "f".into() };
    let f = std::fs::read_to_string("/work/shared/bench/websearch-load30-10ms.flows.txt").unwrap();
    let mut flows = vec![];
    for (i, l) in f.lines().skip(1).enumerate() { let v: Vec<&str> = l.split_whitespace().collect();
        let st: f64 = v[5].parse().unwrap();
        flows.push(FlowSpec { id: i as u32, src: v[0].parse().unwrap(), dst: v[1].parse().unwrap(), size: v[4].parse().unwrap(), start: ((st - 2.0) * 1e12).round() as u64, prio: 0 }); }
    let nf: usize = std::env::args().nth(1).map(|x| x.parse().unwrap()).unwrap_or(flows.len()); flows.truncate(nf);
    let mut net = NetConfig::default();
    net.ack_high_priority = false;
    let r = run(&topo, &net, &flows, &W, &SimOptions::default(), None).unwrap();
    let s = r.summary();
    println!("events {} wall {:.2}s  {:.2} Mev/s  sim_end {:.3} ms  data pkts {} link pkts {} drops {} pauses {} avg sd {:.2} p99 {:.2} finished {}",
      r.engine.events, r.engine.wall_secs, r.engine.events as f64 / r.engine.wall_secs / 1e6, r.engine.sim_end as f64 / 1e9, r.engine.data_packets, r.engine.link_packets, r.drops, r.pause_frames, s.slowdown.avg, s.slowdown.p99, s.finished);
}
