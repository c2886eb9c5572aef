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

// ---- issue 32, the fault round --------------------------------------------

/// A 4-host star scenario with `workload` as its only workload entry.
fn star_with(workload: &str, extra: &str) -> String {
    format!(
        "name = \"b\"\n[topology]\nkind = \"star\"\nhosts = 4\nrate = \"100Gbps\"\ndelay = \"1us\"\n\
         [[workload]]\n{workload}\n{extra}"
    )
}

/// A DAG trace file `t.json` of `nodes` (JSON objects) in a temporary folder.
fn dag_trace(nodes: &[String]) -> TempDir {
    let dir = TempDir::new("bad-dag");
    dir.file("t.json", &format!("{{\"nodes\": [{}]}}", nodes.join(",\n")));
    dir
}

/// A DAG entry reading `t.json` on hosts 0 and 1; `extra` adds keys.
fn dag_entry(extra: &str) -> String {
    format!("kind = \"dag\"\npath = \"t.json\"\nhosts = [0, 1]\n{extra}")
}

#[test]
fn iterations_of_a_wide_trace_are_chained_in_linear_dependencies() {
    // was: every root of iteration 2 waited for every sink of iteration 1
    // (roots x sinks dependencies): 2 ranks x 10,000 sends took 28 s and
    // 2.2 GB to validate, 100,000 never finished
    let n = 100_000;
    let mut nodes = Vec::with_capacity(2 * n);
    for i in 0..n {
        nodes.push(format!("{{\"id\": {i}, \"rank\": 0, \"type\": \"send\", \"peer\": 1, \"size\": 100}}"));
        nodes.push(format!("{{\"id\": {i}, \"rank\": 1, \"type\": \"recv\", \"peer\": 0, \"size\": 100}}"));
    }
    let dir = dag_trace(&nodes);
    let text = star_with(&dag_entry("iterations = 2"), "");
    let s = load_text("bad.toml", &text, dir.path(), "bad", &Overrides::default()).unwrap();
    s.check_schemes().unwrap();
    let m = &s.messages.messages;
    let tasks: Vec<usize> = (0..m.len()).filter(|&i| m[i].compute_on.is_some()).collect();
    // each rank's sinks of iteration 1 are joined by one task on its host,
    // which its roots of iteration 2 wait for
    assert_eq!(m.len(), 2 * n + 2, "the messages of both iterations and one join per rank");
    assert_eq!(tasks.len(), 2);
    for &j in &tasks {
        assert_eq!(m[j].after.len(), n, "a join waits for its rank's sinks (each message)");
        assert!(m[j].after.iter().all(|&d| (d as usize) < n), "... of the first iteration");
    }
    let edges: usize = m.iter().map(|x| x.after.len()).sum();
    assert_eq!(edges, 2 * n + 2 * n, "2 joins x n sinks, n messages x 2 joins");
    assert!(m[n + 2..].iter().all(|x| x.after == [tasks[0] as u32, tasks[1] as u32]));
}

#[test]
fn a_dag_message_of_2_pow_64_bytes_is_refused_naming_the_node() {
    // was: accepted, and totals of sizes wrapped
    let big = u64::MAX;
    let dir = dag_trace(&[
        format!("{{\"id\": 3, \"rank\": 0, \"type\": \"send\", \"peer\": 1, \"size\": {big}}}"),
        format!("{{\"id\": 4, \"rank\": 1, \"type\": \"recv\", \"peer\": 0, \"size\": {big}}}"),
    ]);
    let e = refused_in(dir.path(), &star_with(&dag_entry(""), ""));
    names(&e, &["workload[0]", "t.json", "rank 0 node 3", "size = 18446744073709551615", "too large", "10TB"]);
}

#[test]
fn dag_messages_whose_total_would_wrap_are_refused() {
    // 10 TB each (the most a message may carry) x 200,000 iterations: 2e18 bytes
    let dir = dag_trace(&[
        "{\"id\": 0, \"rank\": 0, \"type\": \"send\", \"peer\": 1, \"size\": \"10000GB\"}".to_string(),
        "{\"id\": 0, \"rank\": 1, \"type\": \"recv\", \"peer\": 0, \"size\": \"10000GB\"}".to_string(),
    ]);
    let e = refused_in(dir.path(), &star_with(&dag_entry("iterations = 200000"), ""));
    names(&e, &["workload[0].iterations = 200000", "t.json", "at most 1000000000000000000 bytes"]);
}

#[test]
fn dag_compute_past_the_time_limit_is_refused() {
    // was: release times saturated past 1,000,000 s
    let dir = dag_trace(&[
        "{\"id\": 0, \"rank\": 0, \"type\": \"compute\", \"duration\": \"700000s\"}".to_string(),
        "{\"id\": 1, \"rank\": 0, \"type\": \"send\", \"peer\": 1, \"size\": 10, \"deps\": [0]}".to_string(),
        "{\"id\": 0, \"rank\": 1, \"type\": \"recv\", \"peer\": 0, \"size\": 10}".to_string(),
    ]);
    // one iteration fits, two do not
    let text = star_with(&dag_entry(""), "");
    load_text("bad.toml", &text, dir.path(), "bad", &Overrides::default()).unwrap();
    let e = refused_in(dir.path(), &star_with(&dag_entry("iterations = 2"), ""));
    names(&e, &["workload[0]", "t.json", "through 2 iterations", "1400000 s", "limit of simulated time"]);
}

#[test]
fn collective_compute_past_the_time_limit_is_refused() {
    // was: iteration k released at k x 1,000,000 s, saturated
    let entry = "kind = \"collective\"\nop = \"ring_allreduce\"\nhosts = [0, 1, 2, 3]\nsize = \"4KB\"\n\
                 compute = \"1000000s\"\niterations = 3\n";
    names(&refused(&star_with(entry, "")), &["workload[0].compute", "1000000s", "2000000 s", "limit"]);
}

/// Chakra ET files `t.<rank>.et` of `ranks` in a temporary folder.
fn chakra_trace(ranks: &[Vec<ccsim_scenario::chakra::Node>]) -> TempDir {
    let dir = TempDir::new("bad-chakra");
    for (r, nodes) in ranks.iter().enumerate() {
        std::fs::write(dir.path().join(format!("t.{r}.et")), ccsim_scenario::chakra::encode("0.0.4", nodes)).unwrap();
    }
    dir
}

/// A Chakra send of rank 0 to rank 1 and its receive, with attribute `extra` on both.
fn chakra_pair(extra: ccsim_scenario::chakra::AttributeProto) -> Vec<Vec<ccsim_scenario::chakra::Node>> {
    use ccsim_scenario::chakra::{node_type, AttributeProto, Node};
    let node = |ty, peer: &str, extra: &AttributeProto| Node {
        id: 7,
        name: "x".into(),
        r#type: ty,
        attr: vec![AttributeProto::int(peer, if peer == "comm_dst" { 1 } else { 0 }), extra.clone()],
        ..Default::default()
    };
    let size = AttributeProto::int("comm_size", 64);
    let mut send = node(node_type::COMM_SEND, "comm_dst", &extra);
    let mut recv = node(node_type::COMM_RECV, "comm_src", &extra);
    if extra.name != "comm_size" {
        send.attr.push(size.clone());
        recv.attr.push(size);
    }
    vec![vec![send], vec![recv]]
}

fn chakra_entry() -> String {
    "kind = \"chakra\"\npath = \".\"\nhosts = [0, 1]\n".to_string()
}

#[test]
fn a_chakra_comm_size_of_2_pow_64_is_refused() {
    use ccsim_scenario::chakra::{AttrValue, AttributeProto};
    let big = AttributeProto {
        name: "comm_size".into(),
        doc_string: String::new(),
        value: Some(AttrValue::Uint64(u64::MAX)),
    };
    let dir = chakra_trace(&chakra_pair(big));
    let e = refused_in(dir.path(), &star_with(&chakra_entry(), ""));
    names(&e, &["workload[0]", "t.0.et", "rank 0 node 7 (x)", "comm_size = 18446744073709551615", "too large"]);
}

#[test]
fn a_negative_chakra_comm_tag_is_refused() {
    // was: wrapped to 2^64 - 5 (and matched as that tag)
    let dir = chakra_trace(&chakra_pair(ccsim_scenario::chakra::AttributeProto::int("comm_tag", -5)));
    let e = refused_in(dir.path(), &star_with(&chakra_entry(), ""));
    names(&e, &["workload[0]", "t.0.et", "rank 0 node 7 (x)", "comm_tag = -5", "non-negative"]);
}

#[test]
fn chakra_compute_past_the_time_limit_is_refused() {
    use ccsim_scenario::chakra::node_type;
    let mut ranks = chakra_pair(ccsim_scenario::chakra::AttributeProto::int("comm_tag", 0));
    // 600,000 s of compute before rank 0's send, twice
    ranks[0].insert(
        0,
        ccsim_scenario::chakra::Node {
            id: 1,
            r#type: node_type::COMP,
            duration_micros: 600_000_000_000,
            ..Default::default()
        },
    );
    ranks[0][1].data_deps = vec![1];
    let dir = chakra_trace(&ranks);
    load_text("bad.toml", &star_with(&chakra_entry(), ""), dir.path(), "bad", &Overrides::default()).unwrap();
    let e = refused_in(dir.path(), &star_with(&format!("{}iterations = 2\n", chakra_entry()), ""));
    names(&e, &["workload[0]", "t.0.et", "through 2 iterations", "1200000 s", "limit of simulated time"]);
}

#[test]
fn arrays_are_refused_where_tables_are_expected() {
    // was: read as the table's fields in order (serde's sequence-as-struct):
    // `network.trim = [true, "1KB", 100]` turned trimming on, `network = []`
    // reset every network setting
    let cases: &[(&str, &str)] = &[
        ("network.trim", "[network]\ntrim = [true, \"1KB\", 100]\n"),
        ("network", "network = []\n"),
        ("network.pfc", "[network]\npfc = [false]\n"),
        ("trace", "trace = [\"10us\"]\n"),
        ("output", "output = [\"out\"]\n"),
    ];
    for (key, extra) in cases {
        let text = star("", "").replace("name = \"b\"\n", &format!("name = \"b\"\n{extra}"));
        names(&refused(&text), &[&format!("{key} = ["), "expected a table, found an array"]);
    }
    // the tables of `[topology]` and `[[workload]]` (internally tagged: read from a copy)
    let text = "name = \"b\"\ntopology = [\"star\", 4, \"100Gbps\", \"1us\"]\n[[workload]]\nkind = \"flows\"\n\
                flows = [{ src = 0, dst = 1, size = \"100KB\" }]\n";
    names(&refused(text), &["topology = [", "expected a table, found an array"]);
    let text = star("", "").replace("flows = [{ src = 0, dst = 1, size = \"100KB\" }]", "flows = [[0, 1, \"100KB\"]]");
    names(&refused(&text), &["workload[0].flows[0] = [0, 1, \"100KB\"]", "expected a table, found an array", "line 9"]);
    let text = "name = \"b\"\nworkload = [[\"flows\", [{ src = 0, dst = 1, size = \"100KB\" }]]]\n[topology]\n\
                kind = \"star\"\nhosts = 4\nrate = \"100Gbps\"\n";
    names(&refused(text), &["workload[0] = [", "expected a table, found an array"]);
}

#[test]
fn a_duration_that_rounds_to_zero_is_refused_like_a_fraction_of_a_picosecond() {
    // was: "0.4ps" refused but "1e-30s" read as 0
    for v in ["1e-30s", "0.4ps"] {
        names(
            &refused(&star(&format!(", start = \"{v}\""), "")),
            &["workload[0].flows[0].start", v, "not a whole number of ps"],
        );
    }
}

#[test]
fn a_sub_picosecond_link_delay_in_an_hpcc_topology_file_is_refused() {
    // was: read as a delay of 0
    let (dir, text) = hpcc_topology("3 1 2");
    std::fs::write(dir.path().join("t.txt"), "3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1e-20s 0\n").unwrap();
    names(&refused_in(dir.path(), &text), &["t.txt:4", "1e-20s", "not a whole number of ps"]);
}

#[test]
fn a_blank_output_dir_is_refused() {
    // was: a results folder named " "
    names(&refused(&star("", "[output]\ndir = \" \"\n")), &["output.dir = \" \"", "blank"]);
    let ov = Overrides { out_dir: Some(" ".into()), ..Default::default() };
    let e = load_text("bad.toml", &star("", ""), Path::new("."), "bad", &ov).err().unwrap();
    assert!(e.starts_with("--out \" \"") && e.contains("blank"), "{e}");
}

#[test]
fn nscc_gains_of_1e300_are_refused_naming_the_key() {
    let text =
        star("", "[scheme.nscc]\nmax_wnd = 1e300\n").replace("name = \"b\"\n", "name = \"b\"\nschemes = [\"nscc\"]\n");
    names(&refused(&text), &["scheme.nscc.max_wnd = 1e300", "must be in (0, 100]"]);
}

#[test]
fn an_error_inside_an_inline_topology_table_names_the_key() {
    // was: "topology = {...}: invalid type ..." (the table, not the key)
    let text = "name = \"b\"\ntopology = { kind = \"star\", hosts = \"x\", rate = \"100Gbps\" }\n[[workload]]\n\
                kind = \"flows\"\nflows = [{ src = 0, dst = 1, size = \"100KB\" }]\n";
    names(&refused(text), &["topology.hosts = \"x\"", "invalid type", "line 2"]);
    let text = text.replace("hosts = \"x\"", "hosts = 4, hostz = 5");
    names(&refused(&text), &["topology.hostz = 5", "unknown field `hostz`"]);
    // values the message does not quote (an array, a table)
    let text = text.replace("hostz = 5", "delay = {}");
    names(&refused(&text), &["topology.delay = {...}", "invalid type: map", "line 2, column 40"]);
    let text = text.replace("hosts = 4, delay = {}", "hosts = [4]");
    names(&refused(&text), &["topology.hosts = [4]", "invalid type: sequence", "line 2, column 29"]);
}

#[test]
fn an_error_inside_an_inline_workload_table_names_the_key() {
    // was: "workload[0] = {...}: ..." for 64 refusals of the fuzz round
    let topo = "[topology]\nkind = \"star\"\nhosts = 4\nrate = \"100Gbps\"\n";
    let text = format!(
        "name = \"b\"\nworkload = [{{ kind = \"incast\", fan_in = 3, receiver = 0, size = \"10KB\", sendrs = 3 }}]\n{topo}"
    );
    names(&refused(&text), &["workload[0].sendrs = 3", "unknown field `sendrs`", "line 2"]);
    let text = format!(
        "name = \"b\"\nworkload = [{{ kind = \"incast\", fan_in = 3, receiver = 0, size = \"10KB\" }}, \
         {{ kind = \"poisson\", cdf = \"websearch\", load = 0.3, duration = \"1ms\", host_rate = \"x\" }}]\n{topo}"
    );
    names(&refused(&text), &["workload[1].host_rate = \"x\"", "invalid rate"]);
    let text = format!("name = \"b\"\nworkload = [{{ kind = \"incast\", fan_in = 3, receiver = 0 }}]\n{topo}");
    names(&refused(&text), &["workload[0].size", "missing field `size`"]);
    // values the message does not quote, in the second of two [[workload]] tables
    let text = star("", "[[workload]]\nkind = \"flows\"\nflows = { src = 0, dst = 1, size = \"100KB\" }\n");
    names(&refused(&text), &["workload[1].flows = {...}", "invalid type: map, expected a sequence", "line 12"]);
    let text = star("", "[[workload]]\nkind = \"poisson\"\ncdf = \"websearch\"\nload = 0.3\nduration = []\n");
    names(&refused(&text), &["workload[1].duration = []", "invalid type: sequence", "line 14"]);
    // an element of a list: the element
    let text = star("", "[[workload]]\nkind = \"incast\"\nsenders = [1, 2, []]\nreceiver = 0\nsize = \"1KB\"\n");
    names(&refused(&text), &["workload[1].senders[2] = []", "invalid type: sequence, expected u32", "line 12"]);
}
