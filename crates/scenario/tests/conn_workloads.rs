//! Workloads on persistent connections, read from scenario text and run:
//! `rpc` (open loop, optional responses) and `closed_loop` (K outstanding,
//! think time, request/response).

use std::path::Path;

use ccsim_scenario::{load_text, Overrides, Scenario};

const HEAD: &str = r#"
name = "t"
schemes = ["hpcc"]
[topology]
kind = "star"
hosts = 4
rate = "100Gbps"
delay = "1us"
"#;

fn scenario(workload: &str) -> Result<Scenario, String> {
    load_text("t.toml", &format!("{HEAD}\n{workload}"), Path::new("."), "t", &Overrides::default())
}

#[test]
fn rpc_messages_ride_one_connection_per_pair_and_responses_follow_requests() {
    let s = scenario(
        r#"
[[workload]]
kind = "rpc"
cdf = "webserver"
load = 0.3
duration = "200us"
response_size = "2KB"
"#,
    )
    .unwrap();
    let g = &s.messages;
    assert!(s.flows.is_empty());
    assert!(!g.messages.is_empty() && g.messages.len().is_multiple_of(2));
    // at most one connection per ordered pair of the 4 hosts
    assert!(g.conns.len() <= 12, "{} connections", g.conns.len());
    let mut pairs: Vec<(u32, u32)> = g.conns.iter().map(|c| (c.src, c.dst)).collect();
    pairs.sort();
    pairs.dedup();
    assert_eq!(pairs.len(), g.conns.len(), "one connection per pair");
    for w in g.messages.chunks(2) {
        let (req, resp) = (&w[0], &w[1]);
        let (a, b) = (&g.conns[req.conn as usize], &g.conns[resp.conn as usize]);
        assert_eq!((a.src, a.dst), (b.dst, b.src), "the response goes back");
        assert_eq!(resp.size, 2000);
        assert_eq!(resp.after.len(), 1);
    }
    let r = s.simulate("hpcc", None).unwrap();
    assert_eq!(r.status, ccsim_core::results::RunStatus::Completed);
    assert_eq!(r.flows.len(), g.messages.len());
    assert!(r.flows.iter().all(|m| m.fct.is_some() && m.conn.is_some() && m.tag == Some(0)));
    // a response is released only once its request has reached the server
    for w in r.flows.chunks(2) {
        assert!(w[1].start > w[0].start, "response released after its request");
        assert!(w[1].start < w[0].start + w[0].fct.unwrap(), "on delivery, before the request's ACK returns");
    }
}

#[test]
fn a_closed_loop_keeps_k_outstanding_until_its_requests_are_sent() {
    let s = scenario(
        r#"
[[workload]]
kind = "closed_loop"
clients = [0, 1]
servers = [3]
outstanding = 3
cdf = "webserver"
requests = 20
think = "1us"
"#,
    )
    .unwrap();
    assert_eq!(s.messages.messages.len(), 6, "3 initial requests per client");
    let r = s.simulate("hpcc", None).unwrap();
    assert_eq!(r.status, ccsim_core::results::RunStatus::Completed);
    assert_eq!(r.flows.len(), 40, "20 requests per client");
    assert!(r.flows.iter().all(|m| m.fct.is_some()));
    // never more than 3 outstanding per client
    for client in [0, 1] {
        let mine: Vec<_> = r.flows.iter().filter(|m| m.src == client).collect();
        assert_eq!(mine.len(), 20);
        for m in &mine {
            let open = mine.iter().filter(|o| o.start <= m.start && o.start + o.fct.unwrap() > m.start).count();
            assert!(open <= 3, "{open} outstanding at {}", m.start);
        }
    }
    assert_eq!(r.conns.len(), 2);
    assert_eq!(r.conns.iter().map(|c| c.completed).sum::<u32>(), 40);
    // the same seed gives the same run
    assert_eq!(s.simulate("hpcc", None).unwrap().flows, r.flows);
}

#[test]
fn a_closed_loop_with_responses_waits_for_them_and_stops_at_its_duration() {
    let s = scenario(
        r#"
[[workload]]
kind = "closed_loop"
clients = [0]
servers = [1, 2]
outstanding = 1
cdf = "webserver"
response_cdf = "webserver"
duration = "300us"
"#,
    )
    .unwrap();
    let r = s.simulate("hpcc", None).unwrap();
    assert_eq!(r.status, ccsim_core::results::RunStatus::Completed, "ends by itself once the loop stops");
    // one outstanding: request, response, request, ... strictly in turn
    let mut rows = r.flows.clone();
    rows.sort_by_key(|m| m.start);
    for w in rows.windows(2) {
        assert!(w[1].start >= w[0].start, "in order");
        if w[0].src == 0 {
            assert_ne!(w[1].src, 0, "a request is followed by its response");
        }
    }
    assert!(rows.iter().all(|m| m.start < 300 * 1_000_000 || m.src != 0), "no request after the duration");
    assert!(rows.len() > 10, "{} messages", rows.len());
}

#[test]
fn bad_connection_workloads_name_the_field() {
    let e = scenario("[[workload]]\nkind = \"closed_loop\"\nclients = [0]\nservers = [1]\ncdf = \"webserver\"\n")
        .err()
        .unwrap();
    assert!(e.contains("give requests (per client) or duration"), "{e}");
    let e = scenario(
        "[[workload]]\nkind = \"closed_loop\"\nclients = [0]\nservers = [0]\ncdf = \"webserver\"\nrequests = 3\n",
    )
    .err()
    .unwrap();
    assert!(e.contains("workload[0].servers"), "{e}");
    let e = scenario(
        "[[workload]]\nkind = \"rpc\"\ncdf = \"webserver\"\nload = 0.5\nduration = \"1ms\"\nconnections = 0\n",
    )
    .err()
    .unwrap();
    assert!(e.contains("workload[0].connections = 0"), "{e}");
    let e = scenario(
        "[[workload]]\nkind = \"rpc\"\ncdf = \"webserver\"\nload = 0.5\nduration = \"1ms\"\nresponse_size = 5\nresponse_cdf = \"hadoop\"\n",
    )
    .err()
    .unwrap();
    assert!(e.contains("not both"), "{e}");
    let e = scenario(
        "[[workload]]\nkind = \"closed_loop\"\nclients = [0]\nservers = [1]\ncdf = \"webserver\"\nrequests = 3\nthinks = \"1us\"\n",
    )
    .err()
    .unwrap();
    assert!(e.contains("thinks"), "{e}");
}

#[test]
fn the_ai_scenarios_run_under_every_scheme_deterministically() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    for (file, sets) in [
        ("ai-allreduce-16.toml", vec![("workload[0].size", "512KB"), ("workload[0].iterations", "1")]),
        (
            "ai-moe-alltoall.toml",
            vec![("workload[0].size", "256KB"), ("workload[1].size", "256KB"), ("workload[1].iterations", "1")],
        ),
    ] {
        let value =
            |v: &str| v.parse::<i64>().map_or_else(|_| toml::Value::String(v.to_string()), toml::Value::Integer);
        let ov =
            Overrides { sets: sets.iter().map(|(k, v)| (k.to_string(), value(v))).collect(), ..Default::default() };
        let s = ccsim_scenario::load(&repo.join(file), &ov).unwrap_or_else(|e| panic!("{e}"));
        for scheme in ccsim_scenario::registry::scheme_names() {
            let a = s.simulate(&scheme, None).unwrap_or_else(|e| panic!("{file} {scheme}: {e}"));
            assert_eq!(a.status, ccsim_core::results::RunStatus::Completed, "{file} {scheme}");
            assert!(a.flows.iter().all(|m| m.fct.is_some()), "{file} {scheme}: every message finishes");
            let b = s.simulate(&scheme, None).unwrap();
            assert_eq!(a.flows, b.flows, "{file} {scheme}: deterministic");
            assert_eq!(a.engine.events, b.engine.events);
        }
    }
}

#[test]
fn silent_acceptances_of_issue_25_are_refused_with_the_key() {
    // a workload window too short for any arrival: say which entry and why
    let e = scenario("[[workload]]\nkind = \"poisson\"\ncdf = \"websearch\"\nload = 0.01\nduration = \"1us\"\n")
        .err()
        .unwrap();
    assert!(e.contains("workload[0] (poisson): about") && e.contains("arrivals expected in its 1us window"), "{e}");
    // an empty output folder
    let ok_flows = "[[workload]]\nkind = \"flows\"\nflows = [{ src = 0, dst = 1, size = 1000 }]\n";
    let e = scenario(&format!("{ok_flows}[output]\ndir = \"\"\n")).err().unwrap();
    assert!(e.contains("output.dir") && e.contains("must not be empty"), "{e}");
    // a name too long for a results folder (it passed validate and failed run)
    let long = "n".repeat(300);
    let e = load_text(
        "t.toml",
        &format!("name = \"{long}\"\n{}\n{ok_flows}", &HEAD[HEAD.find("[topology]").unwrap()..]),
        Path::new("."),
        "t",
        &Overrides::default(),
    )
    .err()
    .unwrap();
    assert!(e.contains("name") && e.contains("300 bytes") && e.contains("at most 255"), "{e}");
    // sizes and durations below the unit were rounded silently
    let e =
        scenario("[[workload]]\nkind = \"flows\"\nflows = [{ src = 0, dst = 1, size = \"0.5B\" }]\n").err().unwrap();
    assert!(e.contains("not a whole number of bytes"), "{e}");
    let e = scenario("[[workload]]\nkind = \"flows\"\nflows = [{ src = 0, dst = 1, size = 100, start = \"0.5ps\" }]\n")
        .err()
        .unwrap();
    assert!(e.contains("not a whole number of ps"), "{e}");
    // a target utilization of 1e308 made every link look idle
    let e = scenario(&format!("{ok_flows}[scheme.hpcc]\neta = 1e308\n")).err().unwrap();
    assert!(e.contains("eta") && e.contains("(0, 10]"), "{e}");
}
