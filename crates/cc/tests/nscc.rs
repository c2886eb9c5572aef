//! NSCC and REPS on the shipped Ultra Ethernet scenarios (trimming fabric,
//! reorder receiver): the spec's intent that quick adapt makes an incast's
//! windows converge so the destination link is not overloaded (UE spec 1.0
//! §3.6.13), and REPS spreading a permutation where one ECMP path per flow
//! collides (REPS paper, arXiv 2407.21625: faster than ECMP and oblivious
//! spraying on symmetric networks).

use ccsim_core::RunResult;
use ccsim_scenario::{load, Overrides};
use std::path::Path;

fn run(file: &str, scheme: &str) -> RunResult {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(file);
    let mut scn = load(&path, &Overrides::default()).unwrap();
    scn.check = true;
    let r = scn.simulate(scheme, None).unwrap();
    assert_eq!(r.check.as_ref().map(|c| c.is_ok()), Some(true), "{scheme}: {:?}", r.check);
    assert!(r.flows.iter().all(|f| f.fct.is_some()), "{scheme}: a flow did not finish");
    r
}

fn last_fct(r: &RunResult) -> u64 {
    r.flows.iter().map(|f| f.fct.unwrap()).max().unwrap()
}

#[test]
fn nscc_drains_a_16_to_1_incast_near_line_rate_with_few_trims() {
    let r = run("uet-incast.toml", "nscc");
    // 16 MB of payload + 48 B headers per 1000 B at 100G: 1.3414 ms + one base RTT
    let ideal = 1_341_440_000 + 4_200_000;
    let last = last_fct(&r);
    assert!(last < ideal + ideal / 20, "last flow {last} ps vs ideal {ideal}");
    // 16,000 data packets: quick adapt cuts the 16 x 1.5 BDP first window, so
    // trims stay a small fraction of them
    assert!(r.trimmed > 0 && r.trimmed < 2_000, "{} trims", r.trimmed);
    assert_eq!(r.drops, 0);
}

#[test]
fn reps_and_oblivious_spraying_beat_one_ecmp_path_per_flow() {
    let ecmp = run("uet-permutation.toml", "nscc");
    let reps = run("uet-permutation.toml", "nscc_reps");
    let obl = run("uet-permutation.toml", "nscc_oblivious");
    let (e, r, o) = (last_fct(&ecmp), last_fct(&reps), last_fct(&obl));
    // ECMP collisions on 4 uplinks shared by 8 flows leave some links with 3-4 flows
    assert!(r * 3 < e * 2, "REPS {r} ps vs ECMP {e} ps");
    assert!(o * 3 < e * 2, "oblivious {o} ps vs ECMP {e} ps");
    // 2 MB over a 2:1 oversubscribed leaf (8 x 100G into 4 x 100G): 2 x 168 us at best
    assert!(r > 330_000_000, "faster than the uplinks allow: {r}");
}
