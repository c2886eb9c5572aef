//! Traffic generators: Poisson arrivals between random host pairs at a target
//! load, one-shot incast (N senders to one receiver) and repeated incast events
//! at a target load. Each returns flows with ids 0.. in order of start time and
//! prio 0; a caller merging several lists renumbers them.
//!
//! Load convention (`WORKLOADS.md`, HPCC `traffic_gen.py`): offered bytes per
//! second = load x host link rate x number of hosts / 8, i.e. load is a
//! fraction of the total host (edge) capacity.

use crate::cdf::{Cdf, SampleMode};
use ccsim_core::flow::FlowSpec;
use ccsim_core::rng::Rng;
use ccsim_core::time::{Time, SEC};

fn assert_distinct(hosts: &[u32], what: &str) {
    let mut v = hosts.to_vec();
    v.sort_unstable();
    if let Some(w) = v.windows(2).find(|w| w[0] == w[1]) {
        panic!("{what}: host {} is listed twice", w[0]);
    }
}

fn assert_rate_load(host_rate_bps: u64, load: f64) {
    assert!(host_rate_bps > 0, "host rate must be positive");
    assert!(load.is_finite() && load > 0.0, "load must be positive, got {load}");
}

/// Arrival times of a Poisson process with mean gap `mean_gap_ps`, as offsets
/// in [0, duration), fed one by one to `each`.
fn arrivals(mean_gap_ps: f64, duration: Time, rng: &mut Rng, mut each: impl FnMut(Time, &mut Rng)) {
    let d = duration as f64;
    let mut t = 0.0f64;
    loop {
        t += rng.exp(mean_gap_ps);
        if t >= d {
            break;
        }
        each((t as Time).min(duration.saturating_sub(1)), rng);
    }
}

/// Flows arriving as one Poisson process over the whole network: mean
/// inter-arrival = mean_size x 8 / (host_rate_bps x load x hosts.len()),
/// mean_size = `cdf.mean(mode)`; each flow goes between a uniformly random
/// ordered pair of distinct hosts from `hosts`, with a size drawn from `cdf`,
/// and starts in [start, start + duration). (HPCC `traffic_gen.py` runs one
/// such process per source host; the superposition is the same process.)
///
/// Panics if `hosts` has fewer than 2 entries or repeats one, if
/// `host_rate_bps` is 0 or if `load` is not positive and finite.
#[allow(clippy::too_many_arguments)]
pub fn poisson(
    hosts: &[u32],
    host_rate_bps: u64,
    load: f64,
    cdf: &Cdf,
    mode: SampleMode,
    start: Time,
    duration: Time,
    rng: &mut Rng,
) -> Vec<FlowSpec> {
    assert!(hosts.len() >= 2, "Poisson traffic needs at least 2 hosts, got {}", hosts.len());
    assert_distinct(hosts, "Poisson traffic");
    assert_rate_load(host_rate_bps, load);
    let n = hosts.len() as u64;
    let mean_gap_ps = cdf.mean(mode) * 8.0 / (host_rate_bps as f64 * load * n as f64) * SEC as f64;
    let mut flows = Vec::new();
    arrivals(mean_gap_ps, duration, rng, |t, rng| {
        let i = rng.below(n);
        let mut j = rng.below(n - 1);
        if j >= i {
            j += 1;
        }
        let size = cdf.sample(rng, mode);
        let id = flows.len() as u32;
        flows.push(FlowSpec { id, src: hosts[i as usize], dst: hosts[j as usize], size, start: start + t, prio: 0 });
    });
    flows
}

/// One incast: every sender sends one flow of `size` bytes to `receiver`,
/// starting at a time drawn uniformly from [start, start + jitter] (all at
/// `start` when `jitter` is 0). Ids follow start order (ties keep sender order).
///
/// Panics if `senders` is empty, repeats a host or contains `receiver`, or if
/// `size` is 0.
pub fn incast(senders: &[u32], receiver: u32, size: u64, start: Time, jitter: Time, rng: &mut Rng) -> Vec<FlowSpec> {
    assert!(!senders.is_empty(), "incast needs at least one sender");
    assert_distinct(senders, "incast senders");
    assert!(!senders.contains(&receiver), "incast receiver {receiver} is also a sender");
    assert!(size > 0, "incast flow size must be at least 1 byte");
    let mut flows: Vec<FlowSpec> = senders
        .iter()
        .map(|&src| {
            let off = if jitter > 0 { rng.below(jitter.saturating_add(1)) } else { 0 };
            FlowSpec { id: 0, src, dst: receiver, size, start: start + off, prio: 0 }
        })
        .collect();
    flows.sort_by_key(|f| f.start);
    for (i, f) in flows.iter_mut().enumerate() {
        f.id = i as u32;
    }
    flows
}

/// Repeated synchronized incast events arriving as a Poisson process in
/// [start, start + duration). Each event picks a uniformly random receiver
/// from `hosts` and `fan_in` distinct other hosts as senders, each sending
/// `size` bytes at the event time. The event rate makes the incast bytes
/// `load` of the total host capacity: mean gap between events =
/// fan_in x size x 8 / (host_rate_bps x load x hosts.len()).
/// (OSCAR: 32 senders x 450 KB at load 0.2.)
///
/// Panics if `hosts` repeats a host, if `fan_in` is 0 or not less than
/// `hosts.len()`, if `size` is 0, if `host_rate_bps` is 0 or if `load` is not
/// positive and finite.
#[allow(clippy::too_many_arguments)]
pub fn incast_at_load(
    hosts: &[u32],
    fan_in: usize,
    size: u64,
    host_rate_bps: u64,
    load: f64,
    start: Time,
    duration: Time,
    rng: &mut Rng,
) -> Vec<FlowSpec> {
    assert_distinct(hosts, "incast hosts");
    assert!(
        fan_in >= 1 && fan_in < hosts.len(),
        "fan_in {fan_in} must be in 1..{} (hosts - 1)",
        hosts.len().saturating_sub(1)
    );
    assert!(size > 0, "incast flow size must be at least 1 byte");
    assert_rate_load(host_rate_bps, load);
    let n = hosts.len();
    let mean_gap_ps = fan_in as f64 * size as f64 * 8.0 / (host_rate_bps as f64 * load * n as f64) * SEC as f64;
    let mut pool = hosts.to_vec();
    let mut flows = Vec::new();
    arrivals(mean_gap_ps, duration, rng, |t, rng| {
        // receiver to the last slot, then a partial Fisher-Yates shuffle of the rest
        let r = rng.below(n as u64) as usize;
        pool.swap(r, n - 1);
        let receiver = pool[n - 1];
        for k in 0..fan_in {
            let j = k + rng.below((n - 1 - k) as u64) as usize;
            pool.swap(k, j);
            let id = flows.len() as u32;
            flows.push(FlowSpec { id, src: pool[k], dst: receiver, size, start: start + t, prio: 0 });
        }
    });
    flows
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_core::time::{MS, US};
    use std::collections::{BTreeMap, HashSet};

    fn ids_in_start_order(f: &[FlowSpec]) {
        for (i, x) in f.iter().enumerate() {
            assert_eq!(x.id, i as u32);
        }
        assert!(f.windows(2).all(|w| w[0].start <= w[1].start));
    }

    #[test]
    fn poisson_offers_the_target_load() {
        // 16 hosts x 100 Gbps at load 0.5 for 1 s of websearch: about 58k
        // flows; the standard error of the offered bytes is about 1%.
        let hosts: Vec<u32> = (0..16).collect();
        let cdf = Cdf::builtin("websearch").unwrap();
        let rate = 100_000_000_000u64;
        let (start, dur) = (3 * MS, SEC);
        let mut rng = Rng::new(11);
        let f = poisson(&hosts, rate, 0.5, &cdf, SampleMode::Interpolate, start, dur, &mut rng);
        ids_in_start_order(&f);
        let bytes: u64 = f.iter().map(|x| x.size).sum();
        let expect = 0.5 * rate as f64 * 16.0 * (dur as f64 / SEC as f64) / 8.0;
        assert!((bytes as f64 / expect - 1.0).abs() < 0.05, "offered {bytes} vs {expect}");
        let expect_n = expect / cdf.mean(SampleMode::Interpolate);
        assert!((f.len() as f64 / expect_n - 1.0).abs() < 0.03, "{} flows vs {expect_n}", f.len());
        assert!(f.iter().all(|x| x.src != x.dst && x.src < 16 && x.dst < 16 && x.prio == 0));
        assert!(f.iter().all(|x| x.start >= start && x.start < start + dur));
        // every ordered pair is used about equally (58k / 240 = 243 each)
        let mut pairs: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        for x in &f {
            *pairs.entry((x.src, x.dst)).or_default() += 1;
        }
        assert_eq!(pairs.len(), 240);
        assert!(pairs.values().all(|&c| (150..350).contains(&c)), "{:?}", pairs.values().min());
    }

    #[test]
    fn poisson_step_mode_uses_step_mean_and_table_sizes() {
        let hosts = [5u32, 9, 20];
        let cdf = Cdf::builtin("alistorage").unwrap();
        let sizes: HashSet<u64> = cdf.points().iter().map(|p| p.0 as u64).collect();
        let mut rng = Rng::new(2);
        let rate = 25_000_000_000u64;
        let f = poisson(&hosts, rate, 0.8, &cdf, SampleMode::Step, 0, 200 * MS, &mut rng);
        assert!(f.iter().all(|x| sizes.contains(&x.size)));
        assert!(f.iter().all(|x| hosts.contains(&x.src) && hosts.contains(&x.dst) && x.src != x.dst));
        let bytes: u64 = f.iter().map(|x| x.size).sum();
        let expect = 0.8 * rate as f64 * 3.0 * 0.2 / 8.0;
        assert!((bytes as f64 / expect - 1.0).abs() < 0.05, "{bytes} vs {expect}");
    }

    #[test]
    fn poisson_deterministic_per_seed() {
        let hosts: Vec<u32> = (0..8).collect();
        let cdf = Cdf::builtin("hadoop").unwrap();
        let gen =
            |seed| poisson(&hosts, 10_000_000_000, 0.3, &cdf, SampleMode::Interpolate, 0, 10 * MS, &mut Rng::new(seed));
        let a = gen(1);
        assert!(a.len() > 100);
        assert_eq!(a, gen(1));
        assert_ne!(a, gen(2));
    }

    #[test]
    #[should_panic(expected = "at least 2 hosts")]
    fn poisson_refuses_one_host() {
        let cdf = Cdf::builtin("hadoop").unwrap();
        poisson(&[3], 1, 0.5, &cdf, SampleMode::Step, 0, MS, &mut Rng::new(1));
    }

    #[test]
    fn incast_synchronized_and_jittered() {
        let senders = [1u32, 2, 3, 4, 7];
        let f = incast(&senders, 0, 450_000, 5 * US, 0, &mut Rng::new(1));
        assert_eq!(f.len(), 5);
        assert!(f.iter().all(|x| x.dst == 0 && x.size == 450_000 && x.start == 5 * US));
        assert_eq!(f.iter().map(|x| x.src).collect::<Vec<_>>(), senders);
        ids_in_start_order(&f);

        let many: Vec<u32> = (1..=400).collect();
        let f = incast(&many, 0, 1000, 10 * US, 2 * US, &mut Rng::new(4));
        ids_in_start_order(&f);
        assert!(f.iter().all(|x| x.start >= 10 * US && x.start <= 12 * US));
        let srcs: HashSet<u32> = f.iter().map(|x| x.src).collect();
        assert_eq!(srcs.len(), 400);
        let spread = f.last().unwrap().start - f[0].start;
        assert!(spread > US, "jitter not applied: spread {spread}");
        // roughly uniform: about half in the first half of the window
        let early = f.iter().filter(|x| x.start <= 11 * US).count();
        assert!((150..250).contains(&early), "{early}");
    }

    #[test]
    #[should_panic(expected = "also a sender")]
    fn incast_refuses_receiver_as_sender() {
        incast(&[1, 2], 2, 10, 0, 0, &mut Rng::new(1));
    }

    #[test]
    fn incast_at_load_events_and_load() {
        // 32 hosts x 100 Gbps, fan-in 8 x 50 KB at load 0.2 over 100 ms:
        // about 20k events, standard error of the bytes about 0.7%.
        let hosts: Vec<u32> = (100..132).collect();
        let rate = 100_000_000_000u64;
        let (fan_in, size) = (8usize, 50_000u64);
        let f = incast_at_load(&hosts, fan_in, size, rate, 0.2, MS, 100 * MS, &mut Rng::new(5));
        ids_in_start_order(&f);
        assert_eq!(f.len() % fan_in, 0);
        let bytes = f.len() as f64 * size as f64;
        let expect = 0.2 * rate as f64 * 32.0 * 0.1 / 8.0;
        assert!((bytes / expect - 1.0).abs() < 0.05, "{bytes} vs {expect}");
        let mut receivers = BTreeMap::new();
        for ev in f.chunks(fan_in) {
            let r = ev[0].dst;
            assert!(hosts.contains(&r));
            let srcs: HashSet<u32> = ev.iter().map(|x| x.src).collect();
            assert_eq!(srcs.len(), fan_in, "senders not distinct");
            assert!(!srcs.contains(&r));
            assert!(ev.iter().all(|x| x.dst == r && x.start == ev[0].start && x.size == size));
            assert!(srcs.iter().all(|s| hosts.contains(s)));
            assert!(ev[0].start >= MS && ev[0].start < 101 * MS);
            *receivers.entry(r).or_insert(0u32) += 1;
        }
        // receivers spread over all hosts
        assert_eq!(receivers.len(), 32);
        let events = f.len() / fan_in;
        let avg = events as f64 / 32.0;
        assert!(receivers.values().all(|&c| (c as f64 - avg).abs() < 0.25 * avg), "{receivers:?}");
        // deterministic
        assert_eq!(f, incast_at_load(&hosts, fan_in, size, rate, 0.2, MS, 100 * MS, &mut Rng::new(5)));
    }

    #[test]
    fn incast_at_load_full_fan_in() {
        // fan_in = hosts - 1: every other host sends in every event
        let hosts: Vec<u32> = (0..5).collect();
        let f = incast_at_load(&hosts, 4, 1000, 1_000_000_000, 0.5, 0, 10 * MS, &mut Rng::new(8));
        assert!(!f.is_empty());
        for ev in f.chunks(4) {
            let mut s: Vec<u32> = ev.iter().map(|x| x.src).collect();
            s.push(ev[0].dst);
            s.sort_unstable();
            assert_eq!(s, hosts);
        }
    }

    #[test]
    #[should_panic(expected = "fan_in 5 must be in 1..4")]
    fn incast_at_load_refuses_too_large_fan_in() {
        incast_at_load(&[0, 1, 2, 3, 4], 5, 10, 1, 0.5, 0, MS, &mut Rng::new(1));
    }
}
