//! Minimal reproducers of every bad input that once crashed, hung, was
//! silently clamped or was reported at the wrong place (issue 14). Each one
//! must now be refused by validation (`load` plus every check `run` makes)
//! with an error naming the file, the key or line, and the offending value.

use ccsim_scenario::testutil::TempDir;
use ccsim_scenario::{load, load_text, Overrides};
use std::path::Path;

/// A 4-host star with one 100 KB flow; `flow` and `extra` are spliced in.
fn star(flow: &str, extra: &str) -> String {
    format!(
        "name = \"b\"\n[topology]\nkind = \"star\"\nhosts = 4\nrate = \"100Gbps\"\ndelay = \"1us\"\n\
         [[workload]]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 1, size = \"100KB\"{flow} }}]\n{extra}"
    )
}

/// Validates `text` as scenario file `bad.toml` in `dir` the way `ccsim
/// validate` does; returns the error, failing the test if it was accepted.
fn refused_in(dir: &Path, text: &str) -> String {
    let checked = load_text("bad.toml", text, dir, "bad", &Overrides::default()).and_then(|s| s.check_schemes());
    match checked {
        Ok(()) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

fn refused(text: &str) -> String {
    refused_in(Path::new("."), text)
}

/// Asserts the error names every part in `parts`.
fn names(err: &str, parts: &[&str]) {
    for p in parts {
        assert!(err.contains(p), "error does not name {p:?}:\n{err}");
    }
    assert!(err.starts_with("bad.toml"), "error does not start with the file name:\n{err}");
}

/// An HPCC-format topology file with header `header` and two host links.
fn hpcc_topology(header: &str) -> (TempDir, String) {
    let dir = TempDir::new("bad-topo");
    let body = format!("{header}\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n");
    std::fs::write(dir.path().join("t.txt"), body).unwrap();
    let text = "name = \"x\"\n[topology]\nkind = \"hpcc_file\"\npath = \"t.txt\"\n[[workload]]\nkind = \"flows\"\n\
                flows = [{ src = 0, dst = 1, size = \"100KB\" }]\n"
        .to_string();
    (dir, text)
}

#[test]
fn the_base_case_is_accepted() {
    load_text("bad.toml", &star("", ""), Path::new("."), "bad", &Overrides::default())
        .and_then(|s| s.check_schemes())
        .unwrap();
}

#[test]
fn a_link_count_of_u64_max_is_refused_before_allocating() {
    // was: panic "capacity overflow"
    let (dir, text) = hpcc_topology("3 1 18446744073709551615");
    names(&refused_in(dir.path(), &text), &["t.txt:1", "link count 18446744073709551615", "at most"]);
}

#[test]
fn a_link_count_of_a_trillion_is_refused_before_allocating() {
    // was: an allocation of terabytes
    let (dir, text) = hpcc_topology("3 1 1000000000000");
    names(&refused_in(dir.path(), &text), &["t.txt:1", "link count 1000000000000", "at most"]);
}

#[test]
fn a_node_count_of_u32_max_is_refused_before_allocating() {
    // was: 4 GB allocated before any check
    let (dir, text) = hpcc_topology("4294967295 1 2");
    names(&refused_in(dir.path(), &text), &["t.txt:1", "node count 4294967295", "at most"]);
}

#[test]
fn a_poisson_host_rate_below_one_bps_is_refused() {
    // was: rounded to 0, then a panic in traffic.rs
    let text = "name = \"b\"\n[topology]\nkind = \"star\"\nhosts = 4\nrate = \"100Gbps\"\ndelay = \"1us\"\n\
                [[workload]]\nkind = \"poisson\"\ncdf = \"websearch\"\nload = 0.3\nduration = \"1ms\"\n\
                host_rate = \"0.1bps\"\n";
    names(&refused(text), &["workload[0].host_rate", "0.1bps", "below 1 bps", "line 12"]);
}

#[test]
fn a_start_time_of_1e30_seconds_is_refused_not_clamped() {
    // was: a panic in event.rs, or a clamped, wrapped time
    names(&refused(&star(", start = \"1e30s\"", "")), &["workload[0].flows[0].start", "1e30s", "too large", "at most"]);
}

#[test]
fn a_size_of_1e30_bytes_is_refused_not_clamped() {
    let text = star("", "").replace("\"100KB\"", "\"1e30B\"");
    names(&refused(&text), &["workload[0].flows[0].size", "1e30B", "too large", "at most 10TB"]);
}

#[test]
fn an_integer_that_does_not_fit_is_refused_not_clamped() {
    let text = star("", "").replace("size = \"100KB\"", "size = 18446744073709551615");
    let err = refused(&text);
    assert!(err.starts_with("bad.toml") && err.contains("size"), "{err}");
}

#[test]
fn a_switch_delay_of_1e30_seconds_is_refused() {
    // was: clamped, and the FCT came out as with no delay at all
    names(
        &refused(&star("", "[network]\nswitch_delay = \"1e30s\"\n")),
        &["network.switch_delay", "1e30s", "too large"],
    );
}

#[test]
fn a_trace_interval_of_one_picosecond_is_refused() {
    // was: out of memory
    let err = refused(&star("", "[trace]\ninterval = \"1ps\"\nqueues = [\"4:1\"]\n"));
    names(&err, &["trace.interval", "1ps", "at least 1ns"]);
}

#[test]
fn an_rto_shorter_than_the_base_rtt_is_refused() {
    // was: 423 M events for one 100 KB flow
    names(&refused(&star("", "[network]\nrto = \"1ps\"\n")), &["network.rto", "1ps", "base RTT"]);
}

#[test]
fn a_poisson_workload_of_billions_of_flows_is_refused_with_its_cost() {
    let text = "name = \"b\"\n[topology]\nkind = \"star\"\nhosts = 4\nrate = \"100Gbps\"\ndelay = \"1us\"\n\
                [[workload]]\nkind = \"poisson\"\ncdf = \"websearch\"\nload = 0.3\nduration = \"1000000s\"\n";
    names(&refused(text), &["workload[0]", "flows", "at most 5000000"]);
}

#[test]
fn validate_refuses_a_priority_without_its_data_class() {
    // was: accepted by validate, refused by run
    names(&refused(&star(", prio = 7", "")), &["flow 0", "prio 7", "network.data_classes"]);
}

#[test]
fn validate_refuses_a_reserve_larger_than_the_buffer() {
    names(&refused(&star("", "[network]\nreserve = \"100MB\"\n")), &["network.buffer", "reserve", "switch 4"]);
}

#[test]
fn validate_refuses_fncc_without_symmetric_routing() {
    let text = "schemes = [\"fncc\"]\nname = \"b\"\n[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 2\n\
                hosts_per_leaf = 2\nhost_rate = \"100Gbps\"\ndelay = \"1us\"\n[[workload]]\nkind = \"flows\"\n\
                flows = [{ src = 0, dst = 1, size = \"100KB\" }]\n";
    names(&refused(text), &["scheme fncc", "network.routing = \"symmetric\""]);
}

#[test]
fn a_bad_value_in_the_second_workload_is_located_there() {
    // was: reported as workload[0]
    let text = "name = \"w\"\n[topology]\nkind = \"star\"\nhosts = 4\nrate = \"100Gbps\"\ndelay = \"1us\"\n\
                [[workload]]\nkind = \"poisson\"\ncdf = \"websearch\"\nload = 0.3\nduration = \"1ms\"\n\
                [[workload]]\nkind = \"poisson\"\ncdf = \"websearch\"\nload = 0.3\nduration = \"1ms\"\nhost_rate = \"x\"\n";
    names(&refused(text), &["workload[1].host_rate", "\"x\"", "line 17"]);
}

#[test]
fn a_misspelt_key_in_the_second_workload_is_located_there() {
    // was: "workload[0] = {...}: unknown field `sendrs` ... (line 7, column 1)", the first entry's header
    let text = "name = \"w\"\n[topology]\nkind = \"star\"\nhosts = 4\nrate = \"100Gbps\"\ndelay = \"1us\"\n\
                [[workload]]\nkind = \"incast\"\nfan_in = 3\nreceiver = 0\nsize = \"10KB\"\n\
                [[workload]]\nkind = \"incast\"\nfan_in = 3\nreceiver = 0\nsize = \"10KB\"\nsendrs = 3\n";
    let e = refused(text);
    names(&e, &["workload[1].sendrs = 3", "unknown field `sendrs`", "line 17, column 1", "17 | sendrs = 3"]);
    assert!(!e.contains("workload[0]"), "{e}");
}

#[test]
fn a_missing_key_in_the_second_workload_is_located_there() {
    let text = "name = \"w\"\n[topology]\nkind = \"star\"\nhosts = 4\nrate = \"100Gbps\"\ndelay = \"1us\"\n\
                [[workload]]\nkind = \"incast\"\nfan_in = 3\nreceiver = 0\nsize = \"10KB\"\n\
                [[workload]]\nkind = \"incast\"\nfan_in = 3\nreceiver = 0\n";
    names(&refused(text), &["workload[1].size", "missing field `size`", "line 12"]);
}

/// A 2x2 leaf-spine with four hosts; `extra` goes into `[topology]`.
fn leaf_spine(extra: &str, dst: u32) -> String {
    format!(
        "name = \"w\"\n[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n\
         host_rate = \"100Gbps\"\n{extra}delay = \"1us\"\n[[workload]]\nkind = \"flows\"\n\
         flows = [{{ src = 0, dst = {dst}, size = \"100KB\" }}]\n"
    )
}

#[test]
fn an_empty_fabric_rate_is_reported_as_fabric_rate() {
    // was: reported as topology.host_rate
    names(&refused(&leaf_spine("fabric_rate = \"\"\n", 1)), &["topology.fabric_rate", "invalid rate ''", "line 8"]);
}

#[test]
fn an_unknown_destination_names_the_valid_host_ids() {
    // was: "(nodes are 0..20)", which counted switches as destinations
    names(&refused(&leaf_spine("", 21)), &["workload[0].flows[0].dst = 21", "the hosts are 0-3"]);
}

#[test]
fn a_missing_imported_file_names_it() {
    let dir = TempDir::new("bad-missing");
    let text = "name = \"x\"\n[topology]\nkind = \"hpcc_file\"\npath = \"nope.txt\"\n[[workload]]\nkind = \"flows\"\n\
                flows = [{ src = 0, dst = 1, size = \"100KB\" }]\n";
    names(&refused_in(dir.path(), text), &["nope.txt"]);
    // the file-based entry point names the scenario file too
    let f = dir.path().join("bad.toml");
    std::fs::write(&f, text).unwrap();
    let Err(err) = load(&f, &Overrides::default()) else { panic!("accepted a missing topology file") };
    assert!(err.contains("bad.toml") && err.contains("nope.txt"), "{err}");
}

#[test]
fn a_switch_with_half_a_million_ports_is_refused_at_once() {
    // was: 42 s (a quadratic port lookup) and 16-bit port numbers wrapping
    let text = star("", "").replace("hosts = 4", "hosts = 500000");
    names(&refused(&text), &["node 500000 has 500000 links", "at most 65536"]);
}

#[test]
fn a_leaf_spine_with_millions_of_spines_is_refused_before_building() {
    // was: minutes of validation and gigabytes (fuzz case 7059)
    let text = leaf_spine("", 1).replace("spines = 2", "spines = 4000000");
    names(&refused(&text), &["topology", "4000006 nodes", "limit is 1000000"]);
    let text = leaf_spine("", 1).replace("spines = 2", "spines = 600000");
    names(&refused(&text), &["topology", "1200004 links", "limit is 1000000"]);
}

#[test]
fn a_path_through_more_than_255_switches_is_refused() {
    // was: the switch count of the path wrapped at 256 (Swift's hop-scaled
    // target came out wrong) and the drain after a --check run took
    // hundreds of millions of events (fuzz seed 2)
    let text = "name = \"d\"\n[topology]\nkind = \"dumbbell\"\nhosts_per_side = 1\nswitches = 300\n\
                host_rate = \"100Gbps\"\ndelay = \"1us\"\n[[workload]]\nkind = \"flows\"\n\
                flows = [{ src = 0, dst = 1, size = \"100KB\" }]\n";
    names(&refused(text), &["flow 0", "crosses 300 switches", "at most 255"]);
}

#[test]
fn a_link_slower_than_1_kbps_is_refused() {
    // was: a panic (rate floor 1 Kbps above the 400 bps line rate; fuzz seed 3)
    let text = star("", "").replace("rate = \"100Gbps\"", "rate = \"400bps\"");
    names(&refused(&text), &["rate 400 bps", "at least 1000 bps"]);
}
