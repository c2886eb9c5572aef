use ccsim_core::*;
use std::path::Path;
fn main() {
    let scheme = std::env::args().nth(1).unwrap_or("hpcc".into());
    let nf: usize = std::env::args().nth(2).map(|x| x.parse().unwrap()).unwrap_or(usize::MAX);
    let topo = ccsim_workload::hpcc::read_topology(Path::new("/work/shared/bench/fat320.topology.txt")).unwrap();
    let mut flows = ccsim_workload::hpcc::read_flows(Path::new("/work/shared/bench/websearch-load30-10ms.flows.txt")).unwrap();
    let t0 = flows[0].start; for f in flows.iter_mut() { f.start -= t0; }
    flows.truncate(nf);
    let mut net = NetConfig::default();
    net.ack_high_priority = false;
    let params: toml::Value = toml::from_str(if scheme == "hpcc" { "max_stage = 0\nmin_rate = \"1Gbps\"" } else if scheme == "dcqcn" { "preset = \"hpcc\"" } else { "" }).unwrap();
    let s = ccsim_cc::make(&scheme, Some(&params)).unwrap();
    let mut last = std::time::Instant::now();
    let mut cb = |p: &Progress| { if last.elapsed().as_secs_f64() > 5.0 { last = std::time::Instant::now(); eprintln!("  t={:.3}ms done {}/{} ev {}M wall {:.1}", p.now as f64/1e9, p.flows_done, p.flows_total, p.events/1000000, p.wall_secs); } };
    let r = run(&topo, &net, &flows, s.as_ref(), &SimOptions::default(), Some(&mut cb)).unwrap();
    let s = r.summary();
    println!("{scheme}: events {} wall {:.2}s  {:.2} Mev/s  sim_end {:.3} ms  data pkts {} link pkts {} drops {} pauses {} avg sd {:.2} p50 {:.2} p95 {:.2} p99 {:.2} finished {} maxq {}",
      r.engine.events, r.engine.wall_secs, r.engine.events as f64 / r.engine.wall_secs / 1e6, r.engine.sim_end as f64 / 1e9, r.engine.data_packets, r.engine.link_packets, r.drops, r.pause_frames, s.slowdown.avg, s.slowdown.p50, s.slowdown.p95, s.slowdown.p99, s.finished, s.max_queue_bytes);
    for (l, st) in &s.by_size { println!("  {l}: n {} avg {:.2} p99 {:.2}", st.count, st.avg, st.p99); }
}
