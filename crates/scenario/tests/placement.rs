//! Where nodes sit (`ccsim_core::layout`) and where ranks go (`placement`).

use ccsim_core::layout::layout;
use ccsim_core::rng::Rng;
use ccsim_core::time::US;
use ccsim_scenario::placement::{place, Placement};
use ccsim_scenario::testutil::TempDir;
use ccsim_scenario::topo::{fat_tree, leaf_spine, star};
use ccsim_scenario::{load_text, Overrides, Tier};

const G100: u64 = 100_000_000_000;

#[test]
fn a_fat_trees_nodes_have_their_tier_pod_and_edge() {
    let t = fat_tree(4, Tier::new(G100, US), Tier::new(G100, US)).unwrap();
    let l = layout(&t);
    let count = |role: &str| l.iter().filter(|p| p.role == role).count();
    assert_eq!((count("host"), count("edge"), count("agg"), count("core")), (16, 8, 8, 4));
    // hosts 0..15 (2 per ToR), ToRs 16..23 (2 per pod), aggs 24..31, cores 32..35
    let h5 = &l[5];
    assert_eq!((h5.tier, h5.pod, h5.index, h5.edge), (0, Some(1), 1, Some(18)));
    assert_eq!((l[18].role.as_str(), l[18].pod, l[18].index), ("edge", Some(1), 0));
    assert_eq!((l[27].role.as_str(), l[27].pod, l[27].index), ("agg", Some(1), 1));
    assert_eq!((l[35].role.as_str(), l[35].pod, l[35].index, l[35].tier), ("core", None, 3, 3));
    for (i, p) in l.iter().enumerate().take(16) {
        assert_eq!(p.pod, Some(i as u32 / 4), "host {i}");
        assert_eq!(p.edge, Some(16 + i as u32 / 2), "host {i}");
    }

    let ls = leaf_spine(4, 2, 4, Tier::new(G100, US), Tier::new(2 * G100, US)).unwrap();
    let l = layout(&ls);
    assert_eq!(l[20].role, "spine");
    assert_eq!(l[17].role, "edge");
    assert!(l.iter().all(|p| p.pod.is_none()), "no pods below 3 tiers");
    assert_eq!(l[6].edge, Some(17));
    let s = star(3, Tier::new(G100, US)).unwrap();
    assert_eq!(layout(&s).iter().map(|p| p.role.as_str()).collect::<Vec<_>>(), ["host", "host", "host", "edge"]);
}

#[test]
fn placement_orders_ranks_by_leaf() {
    let t = leaf_spine(4, 2, 4, Tier::new(G100, US), Tier::new(2 * G100, US)).unwrap();
    let shuffled = [9, 2, 15, 0, 4, 12, 7, 1, 10, 3, 14, 5, 8, 13, 6, 11];
    let mut rng = Rng::new(1);
    let local = place(Placement::LeafLocal, &shuffled, &t, &mut rng);
    assert_eq!(local, (0..16).collect::<Vec<u32>>());
    let spread = place(Placement::Spread, &shuffled, &t, &mut rng);
    assert_eq!(spread, [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15]);
    assert_eq!(place(Placement::Given, &shuffled, &t, &mut rng), shuffled);
    // uneven leaves: 3 hosts of leaf 16, 1 of leaf 17
    assert_eq!(place(Placement::Spread, &[0, 1, 2, 5], &t, &mut rng), [0, 5, 1, 2]);
    let mut r = place(Placement::Random, &shuffled, &t, &mut Rng::new(7));
    assert_ne!(r, shuffled);
    assert_eq!(r, place(Placement::Random, &shuffled, &t, &mut Rng::new(7)), "seeded");
    r.sort_unstable();
    assert_eq!(r, (0..16).collect::<Vec<u32>>());
    // a fat tree: pods first, then ToRs
    let ft = fat_tree(4, Tier::new(G100, US), Tier::new(G100, US)).unwrap();
    assert_eq!(place(Placement::Spread, &[0, 1, 2, 3, 4, 5], &ft, &mut rng), [0, 2, 4, 1, 3, 5]);
}

/// A 16-rank ring all-reduce on a 4 x 4 leaf-spine with as much uplink as
/// host capacity: in leaf-local order only 4 of 16 hops cross the spines,
/// 4 channels' worth per leaf on 2 uplinks, so ECMP cannot overload an
/// uplink and the job runs within a few percent of the wire bound; in spread
/// order every hop crosses and ECMP's collisions slow the whole ring.
#[test]
fn leaf_local_placement_keeps_a_ring_off_the_spines() {
    let d = TempDir::new("placement");
    let text = |p: &str| {
        format!(
            "name = \"p\"\nschemes = [\"dcqcn\"]\nseed = 1\n[topology]\nkind = \"leaf_spine\"\nleaves = 4\nspines = 2\n\
             hosts_per_leaf = 4\nhost_rate = \"100Gbps\"\nfabric_rate = \"200Gbps\"\ndelay = \"1us\"\n\
             [network]\nrouting = \"symmetric\"\n[[workload]]\nkind = \"collective\"\nop = \"ring_allreduce\"\n\
             hosts = [3, 1, 2, 0, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]\nplacement = \"{p}\"\nsize = \"4MB\"\n\
             channels = 2\n"
        )
    };
    let end = |p: &str| {
        let s = load_text("p.toml", &text(p), d.path(), "p", &Overrides::default()).unwrap();
        let r = s.simulate("dcqcn", None).unwrap();
        let end = r.flows.iter().map(|f| f.start + f.fct.unwrap()).max().unwrap();
        (end, s)
    };
    let (local, s) = end("leaf_local");
    let first = &s.messages.conns[s.messages.messages[0].conn as usize];
    assert_eq!((first.src, first.dst), (0, 1), "rank 0 on host 0 sends to rank 1 on host 1");
    let (spread, _) = end("spread");
    // 30 steps of 250 KB per rank (125 KB per channel) at 100 Gbps: each
    // host link carries its data (48 B of headers per 1000 B packet) and the
    // ACKs of what it receives (60 B per packet); each step waits for its
    // predecessor's last packet (two 1 us hops, store and forward at the leaf)
    let wire = 30 * 250_000 * (1048 + 60) / 1000 * 80; // ps
    let bound = wire + 30 * (2 * US + 1048 * 80);
    println!("leaf-local {local} ps, spread {spread} ps, bound {bound} ps");
    assert!(local >= bound);
    assert!((local as f64) < 1.03 * bound as f64, "leaf-local {local} vs {bound}");
    assert!(spread as f64 > 1.2 * local as f64, "spread {spread} vs leaf-local {local}");
}
