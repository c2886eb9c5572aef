//! Regression: a lossless fabric must not drop under PFC storms. DCQCN with
//! per-packet spraying on a small-buffer 3-tier fat tree decides PAUSE and
//! RESUME for the same ingress while the port is busy; before PFC frames kept
//! their order (a RESUME could overtake its PAUSE), this dropped ~160 packets.

use ccsim_core::sim::{run, SimOptions};
use ccsim_core::units::{Bytes, Dur, Rate};
use ccsim_core::NetConfig;
use ccsim_scenario::spec::{generate_all, WorkloadSpec};
use ccsim_scenario::topo::TopoSpec;
use ccsim_scenario::SampleMode;
use std::path::Path;

#[test]
fn dcqcn_sprayed_pfc_storm_drops_nothing() {
    let topo = TopoSpec::FatTree3 {
        pods: 2,
        tors_per_pod: 2,
        aggs_per_pod: 2,
        hosts_per_tor: 8,
        cores: 4,
        host_rate: Rate(100_000_000_000),
        fabric_rate: Some(Rate(400_000_000_000)),
        delay: Dur(1_000_000),
        fabric_delay: None,
    }
    .build(Path::new("."))
    .unwrap();
    let w = WorkloadSpec::Poisson {
        cdf: "cachefollower".into(),
        load: 0.8,
        duration: Dur(2_000_000_000),
        start: Dur(0),
        sample: SampleMode::Interpolate,
        hosts: None,
        host_rate: None,
    };
    let flows = generate_all(&[w], &topo, Path::new("."), 1).unwrap();
    // go-back-N as when the regression was found (unset would be the reorder receiver)
    let net = NetConfig {
        routing: ccsim_core::config::Routing::Spray,
        receiver: ccsim_core::config::Receiver::GoBackN,
        buffer: Bytes(4_000_000),
        ..Default::default()
    };
    let scheme = ccsim_cc::make("dcqcn", None).unwrap();
    let opts = SimOptions { stop_at: Some(3_000_000_000), ..Default::default() };
    let r = run(&topo, &net, &flows, scheme.as_ref(), &opts, None).unwrap();
    assert!(r.pause_frames > 1000, "the scenario must exercise PFC: {} PAUSE frames", r.pause_frames);
    assert_eq!(r.drops, 0, "lossless fabric dropped packets");
}
