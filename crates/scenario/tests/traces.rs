//! Traces from outside as workloads: ccsim's DAG trace files (`kind =
//! "dag"`) and MLCommons Chakra execution traces (`kind = "chakra"`), read
//! from scenario text, checked and run.

use std::path::Path;

use ccsim_core::results::RunStatus;
use ccsim_core::time::{Time, US};
use ccsim_scenario::chakra::{encode, node_type, AttrValue, AttributeProto, Node};
use ccsim_scenario::testutil::TempDir;
use ccsim_scenario::{load_text, Overrides, Scenario};

fn scenario(dir: &Path, hosts: u32, workload: &str) -> Result<Scenario, String> {
    let text = format!(
        r#"
name = "t"
schemes = ["hpcc", "none"]
[topology]
kind = "star"
hosts = {hosts}
rate = "100Gbps"
delay = "1us"
{workload}
"#
    );
    load_text("t.toml", &text, dir, "t", &Overrides::default())
}

fn repo() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Release time of the message whose id (row id) is `id`.
fn released(r: &ccsim_core::RunResult, id: u32) -> Time {
    r.flows.iter().find(|m| m.id == id).unwrap_or_else(|| panic!("no row {id}")).start
}

#[test]
fn the_shipped_pipeline_trace_runs_near_its_critical_path() {
    let s = scenario(
        &repo().join("scenarios"),
        4,
        "[[workload]]\nkind = \"dag\"\npath = \"traces/pipeline.json\"\nhosts = [0, 1, 2, 3]\niterations = 2\n",
    )
    .unwrap();
    let g = &s.messages;
    let real = g.messages.iter().filter(|m| m.compute_on.is_none()).count();
    assert_eq!(real, 2 * 24, "4 micro-batches x 3 stage hops x 2 directions, 2 iterations");
    assert_eq!(g.conns.len(), 6, "one connection per ordered neighbouring stage pair");
    assert_eq!(g.meta.len(), g.messages.len());
    for (i, m) in g.messages.iter().enumerate() {
        assert!(m.after.iter().all(|&d| (d as usize) < i), "message {i} waits for a later one");
    }
    for scheme in ["none", "hpcc"] {
        let r = s.simulate(scheme, None).unwrap();
        assert_eq!(r.status, RunStatus::Completed, "{scheme}");
        assert_eq!(r.messages_waiting, 0);
        assert_eq!(r.flows.len(), real);
        let end = r.flows.iter().map(|m| m.start + m.fct.unwrap()).max().unwrap();
        // critical path of a GPipe step: (4 + 3) forwards of 40 us, (4 + 3)
        // backwards of 80 us, the optimizer's 20 us and 6 transfers of 512 KB
        // (40.96 us of payload at line rate each); the last message is the
        // gradient that stage 0's last backward and optimizer step wait for
        let xfer = 512_000 * 80; // ps at 100 Gbps
        let step = 7 * 40 * US + 7 * 80 * US + 20 * US + 6 * xfer;
        let bound = 2 * step - 100 * US;
        println!("{scheme}: last message of two steps done at {end} ps, bound {bound} ps");
        assert!(end >= bound, "{scheme}: {end} < {bound}");
        // headers (48 B per 1000 B packet), a few us of latency per transfer,
        // and HPCC's target of 95% of the line rate
        let slack = if scheme == "none" { 12 * 8 * US } else { bound / 10 };
        assert!(end <= bound + slack, "{scheme}: {end} vs {bound}");
    }
}

fn attr(name: &str, v: i64) -> AttributeProto {
    AttributeProto::int(name, v)
}

fn node(id: u64, ty: i32, attr: Vec<AttributeProto>, data: Vec<u64>, ctrl: Vec<u64>) -> Node {
    Node { id, name: format!("n{id}"), r#type: ty, data_deps: data, ctrl_deps: ctrl, attr, ..Default::default() }
}

fn comp(id: u64, micros: u64, deps: Vec<u64>) -> Node {
    Node { duration_micros: micros, ..node(id, node_type::COMP, vec![], deps, vec![]) }
}

fn allreduce(id: u64, size: i64, ctrl: Vec<u64>) -> Node {
    node(id, node_type::COMM_COLL, vec![attr("comm_type", 0), attr("comm_size", size)], vec![], ctrl)
}

/// 4 ranks: rank 0 computes 10 us and sends 100 KB to rank 1, which computes
/// 5 us on it; then all 4 all-reduce 1 MB (rank 0 after its send, rank 1
/// after its compute); rank 0 ends with a node of a type ccsim does not model.
fn small_trace() -> Vec<Vec<Node>> {
    vec![
        vec![
            comp(1, 10, vec![]),
            node(
                2,
                node_type::COMM_SEND,
                vec![attr("comm_src", 0), attr("comm_dst", 1), attr("comm_size", 100_000)],
                vec![1],
                vec![],
            ),
            allreduce(3, 1_000_000, vec![2]),
            node(4, node_type::MEM_LOAD, vec![], vec![3], vec![]),
        ],
        vec![
            // listed before the node it waits for: read in any order
            comp(2, 5, vec![1]),
            node(
                1,
                node_type::COMM_RECV,
                vec![
                    attr("comm_src", 0),
                    AttributeProto {
                        name: "comm_dst".into(),
                        doc_string: String::new(),
                        value: Some(AttrValue::Uint32(1)),
                    },
                    attr("comm_size", 100_000),
                ],
                vec![],
                vec![],
            ),
            allreduce(3, 1_000_000, vec![2]),
        ],
        vec![allreduce(7, 1_000_000, vec![])],
        vec![allreduce(7, 1_000_000, vec![])],
    ]
}

fn write_trace(dir: &TempDir, ranks: &[Vec<Node>]) {
    for (r, nodes) in ranks.iter().enumerate() {
        std::fs::write(dir.path().join(format!("et/job.{r}.et")), encode("0.0.4", nodes)).unwrap();
    }
}

fn chakra(dir: &TempDir, extra: &str) -> Result<Scenario, String> {
    scenario(dir.path(), 4, &format!("[[workload]]\nkind = \"chakra\"\npath = \"et\"\nhosts = [0, 1, 2, 3]\n{extra}"))
}

#[test]
fn a_chakra_trace_lowers_to_messages_tasks_and_a_ring_allreduce() {
    let d = TempDir::new("chakra");
    std::fs::create_dir_all(d.path().join("et")).unwrap();
    write_trace(&d, &small_trace());
    let s = chakra(&d, "").unwrap();
    let g = &s.messages;
    let msgs: Vec<usize> = (0..g.messages.len()).filter(|&i| g.messages[i].compute_on.is_none()).collect();
    let tasks: Vec<usize> = (0..g.messages.len()).filter(|&i| g.messages[i].compute_on.is_some()).collect();
    // 1 send/recv + ring all-reduce over 4 ranks: 2 (n-1) n = 24
    assert_eq!(msgs.len(), 25);
    // 2 compute, 1 memory node, per rank a collective start and end
    assert_eq!(tasks.len(), 3 + 2 * 4);
    let p2p = msgs.iter().copied().find(|&i| g.messages[i].size == 100_000).unwrap();
    let c = g.conns[g.messages[p2p].conn as usize];
    assert_eq!((c.src, c.dst), (0, 1));
    // the send waits for rank 0's compute of 10 us
    let comp0 = tasks.iter().copied().find(|&i| g.messages[i].delay == 10 * US).unwrap();
    assert_eq!(g.messages[p2p].after, vec![comp0 as u32]);
    assert_eq!(g.messages[comp0].compute_on, Some(0));
    // rank 1's compute waits for the message (delivered at rank 1)
    let comp1 = tasks.iter().copied().find(|&i| g.messages[i].delay == 5 * US).unwrap();
    assert_eq!((g.messages[comp1].compute_on, g.messages[comp1].after.clone()), (Some(1), vec![p2p as u32]));
    // the all-reduce: chunks of 250 KB; rank 1's messages wait for its start
    // task, which waits for its compute (a ctrl dependency)
    let ring: Vec<usize> = msgs.iter().copied().filter(|&i| i != p2p).collect();
    assert!(ring.iter().all(|&i| g.messages[i].size == 250_000));
    let start1 = tasks
        .iter()
        .copied()
        .find(|&i| g.messages[i].compute_on == Some(1) && g.messages[i].after == vec![comp1 as u32])
        .expect("rank 1's collective start");
    for &i in &ring {
        let c = g.conns[g.messages[i].conn as usize];
        if c.src == 1 {
            assert!(g.messages[i].after.contains(&(start1 as u32)), "{i}: {:?}", g.messages[i].after);
        }
    }
    // the memory node waits for rank 0's end of the collective: a task on
    // rank 0 waiting for the last message on each of rank 0's two ring connections
    let mem = tasks.iter().copied().find(|&i| {
        g.messages[i].compute_on == Some(0) && i != comp0 && {
            let a = &g.messages[i].after;
            a.len() == 1
                && g.messages[a[0] as usize].compute_on == Some(0)
                && g.messages[a[0] as usize].after.len() == 2
        }
    });
    assert!(mem.is_some(), "the memory node waits for rank 0's collective end");

    for scheme in ["hpcc", "none"] {
        let r = s.simulate(scheme, None).unwrap();
        assert_eq!(r.status, RunStatus::Completed, "{scheme}");
        assert_eq!((r.messages_waiting, r.flows.len()), (0, 25));
        let p = r.flows.iter().find(|m| m.id == p2p as u32).unwrap();
        assert!(p.start >= 10 * US, "the send leaves after the compute");
        let delivered_by = p.start + p.fct.unwrap();
        // rank 1 joins the all-reduce 5 us after the message arrived
        for &i in &ring {
            if g.conns[g.messages[i].conn as usize].src == 1 {
                assert!(released(&r, i as u32) >= p.start + 5 * US, "{scheme}: ring message {i}");
                assert!(released(&r, i as u32) <= delivered_by + 5 * US || i > ring[0] + 4);
            }
        }
        // ranks 2 and 3 start at once
        let first2 = ring.iter().copied().find(|&i| g.conns[g.messages[i].conn as usize].src == 2).unwrap();
        assert_eq!(released(&r, first2 as u32), 0, "{scheme}");
    }
}

/// The schema's three version strings (ASTRA-sim's "0.0.4", Chakra's
/// generator's "1.0.0", its converters' none) read the same; an ALL_GATHER's
/// `comm_size` is each rank's input, as ASTRA-sim's ring sends it (N-1 steps
/// of `comm_size`: astra-sim Ring.cc:42-88); a CPU-side collective record
/// without `comm_type` (PyTorch's `c10d::` ops, `is_cpu_op`) only orders.
#[test]
fn chakra_versions_allgather_sizes_and_cpu_side_records_read_as_astra_sim_does() {
    let d = TempDir::new("chakra-versions");
    std::fs::create_dir_all(d.path().join("et")).unwrap();
    let cpu_op =
        AttributeProto { name: "is_cpu_op".into(), doc_string: String::new(), value: Some(AttrValue::Bool(true)) };
    let rank = |r: u64| {
        vec![
            node(1, node_type::COMM_COLL, vec![cpu_op.clone(), attr("comm_size", 64)], vec![], vec![]),
            node(2, node_type::COMM_COLL, vec![attr("comm_type", 2), attr("comm_size", 1 << 20)], vec![1], vec![]),
            comp(3, 1 + r, vec![2]),
        ]
    };
    let mut sizes = Vec::new();
    for version in ["0.0.4", "1.0.0", ""] {
        for r in 0..4u64 {
            std::fs::write(d.path().join(format!("et/job.{r}.et")), encode(version, &rank(r))).unwrap();
        }
        let s = chakra(&d, "").unwrap_or_else(|e| panic!("version {version:?}: {e}"));
        let g = &s.messages;
        let msgs: Vec<_> = g.messages.iter().filter(|m| m.compute_on.is_none()).collect();
        // ring all-gather over 4 ranks: 3 steps per rank, each of one rank's 1 MiB input
        assert_eq!(msgs.len(), 4 * 3, "version {version:?}");
        assert!(msgs.iter().all(|m| m.size == 1 << 20), "version {version:?}");
        let from0: u64 = msgs.iter().filter(|m| g.conns[m.conn as usize].src == 0).map(|m| m.size).sum();
        assert_eq!(from0, 3 << 20);
        sizes.push(msgs.iter().map(|m| m.size).sum::<u64>());
        let r = s.simulate("none", None).unwrap();
        assert_eq!((r.status, r.messages_waiting), (RunStatus::Completed, 0));
    }
    assert!(sizes.windows(2).all(|w| w[0] == w[1]));
    // without is_cpu_op, a collective node must name its collective
    for r in 0..4u64 {
        let mut nodes = rank(r);
        nodes[0].attr.remove(0);
        std::fs::write(d.path().join(format!("et/job.{r}.et")), encode("1.0.0", &nodes)).unwrap();
    }
    let e = chakra(&d, "").err().unwrap();
    assert!(e.contains("job.0.et: rank 0 node 1 (n1): attribute comm_type: missing"), "{e}");
    // a process group other than the default one: refused, not run over all ranks
    for (r, g) in [(0u64, "0"), (1, ""), (2, "1"), (3, "1")] {
        let mut nodes = rank(r);
        let pg =
            AttributeProto { name: "pg_name".into(), doc_string: String::new(), value: Some(AttrValue::Str(g.into())) };
        nodes[1].attr.push(pg);
        std::fs::write(d.path().join(format!("et/job.{r}.et")), encode("1.0.0", &nodes)).unwrap();
    }
    let e = chakra(&d, "").err().unwrap();
    assert!(e.contains("job.2.et: rank 2 node 2 (n2): attribute pg_name = \"1\": process group 1 needs"), "{e}");
    // another major version
    std::fs::write(d.path().join("et/job.0.et"), encode("2.0.0", &rank(0))).unwrap();
    let e = chakra(&d, "").err().unwrap();
    assert!(e.contains("GlobalMetadata.version = \"2.0.0\": not supported"), "{e}");
}

/// ASTRA-sim's own microbenchmark traces (tests/data/chakra/astra-sim, MIT):
/// 1 MiB collectives over 4 ranks import unchanged and run, with the messages
/// and bytes ASTRA-sim's ring moves (astra-sim Ring.cc:42-88; all-to-all
/// direct, AllToAll.cc:17-28): all-reduce 2(n-1) steps of 256 KiB per rank,
/// all-gather n-1 steps of each rank's 1 MiB, reduce-scatter n-1 of 256 KiB,
/// all-to-all 256 KiB to each other rank.
#[test]
fn astra_sims_microbenchmark_traces_import_and_run() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/chakra/astra-sim");
    let kib = 1024u64;
    for (coll, messages, size) in [
        ("all_reduce", 24, 256 * kib),
        ("all_gather", 12, 1024 * kib),
        ("reduce_scatter", 12, 256 * kib),
        ("all_to_all", 12, 256 * kib),
    ] {
        let w = format!(
            "[[workload]]\nkind = \"chakra\"\npath = {:?}\nhosts = [0, 1, 2, 3]\n",
            data.join(coll).display().to_string()
        );
        let s = scenario(&data, 4, &w).unwrap_or_else(|e| panic!("{coll}: {e}"));
        let g = &s.messages;
        let msgs: Vec<_> = g.messages.iter().filter(|m| m.compute_on.is_none()).collect();
        assert_eq!(msgs.len(), messages, "{coll}");
        assert!(msgs.iter().all(|m| m.size == size), "{coll}");
        for r in 0..4 {
            let sent: u64 = msgs.iter().filter(|m| g.conns[m.conn as usize].src == r).map(|m| m.size).sum();
            assert_eq!(sent, messages as u64 / 4 * size, "{coll}: rank {r}");
        }
        let run = s.simulate("hpcc", None).unwrap();
        assert_eq!((run.status, run.messages_waiting, run.flows.len()), (RunStatus::Completed, 0, messages), "{coll}");
        let bytes: u64 = run.flows.iter().map(|f| f.size).sum();
        assert_eq!(bytes, messages as u64 * size, "{coll}");
    }
}

/// ASTRA-sim's custom ring all-reduce (8 ranks, 1 MiB, built from send and
/// recv nodes in one data_deps chain per rank: MIT, tests/data) imports
/// unchanged and runs: a send is issued when its own rank's dependencies are
/// done, as ASTRA-sim issues it, so the ring does not deadlock waiting for
/// each receiver's earlier steps.
#[test]
fn astra_sims_send_recv_ring_allreduce_runs_with_sends_issued_at_once() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/chakra/astra-sim");
    let w = format!(
        "[[workload]]\nkind = \"chakra\"\npath = {:?}\nhosts = [0, 1, 2, 3, 4, 5, 6, 7]\n",
        data.join("custom_ring_allreduce").display().to_string()
    );
    let s = scenario(&data, 8, &w).unwrap();
    let g = &s.messages;
    let msgs: Vec<_> = g.messages.iter().filter(|m| m.compute_on.is_none()).collect();
    // 2 (n-1) = 14 steps per rank of 1 MiB / 8, each to the next rank
    assert_eq!(msgs.len(), 8 * 14);
    assert!(msgs.iter().all(|m| m.size == 131_072));
    assert!(msgs.iter().all(|m| {
        let c = g.conns[m.conn as usize];
        c.dst == (c.src + 1) % 8
    }));
    let computes = g.messages.iter().filter(|m| m.compute_on.is_some() && m.delay == 7 * US).count();
    assert_eq!(computes, 8 * 7);
    let r = s.simulate("hpcc", None).unwrap();
    assert_eq!((r.status, r.messages_waiting), (RunStatus::Completed, 0));
    // each rank's chain holds 7 computes of 7 us and 14 messages of 128 KiB,
    // each at least its serialization at 100 Gbps (10.5 us)
    let end = r.flows.iter().map(|f| f.start + f.fct.unwrap()).max().unwrap();
    let ser = 131_072 * 8 * 1_000_000 / 100_000; // ps
    assert!(end >= 7 * 7 * US + 14 * ser, "{end}");
    eprintln!("ring all-reduce of send/recv nodes: {:.1} us", end as f64 / US as f64);
}

/// A 2x2 tensor/data-parallel job: each rank all-reduces in its tensor
/// group, then all-gathers in its data group (`pg_name`, ASTRA-sim's
/// communicator-group file): each collective runs over its group's two
/// ranks only, and the all-gather moves each member's input.
#[test]
fn chakra_collectives_run_over_their_process_group() {
    let d = TempDir::new("chakra-groups");
    std::fs::create_dir_all(d.path().join("et")).unwrap();
    std::fs::write(d.path().join("groups.json"), r#"{"1": [0, 1], "2": [2, 3], "3": [0, 2], "4": [1, 3]}"#).unwrap();
    let pg = |g: &str| AttributeProto {
        name: "pg_name".into(),
        doc_string: String::new(),
        value: Some(AttrValue::Str(g.into())),
    };
    let rank = |r: u64| {
        let (tp, dp) = (if r < 2 { "1" } else { "2" }, if r.is_multiple_of(2) { "3" } else { "4" });
        vec![
            node(
                1,
                node_type::COMM_COLL,
                vec![attr("comm_type", 0), attr("comm_size", 1 << 20), pg(tp)],
                vec![],
                vec![],
            ),
            node(
                2,
                node_type::COMM_COLL,
                vec![attr("comm_type", 2), attr("comm_size", 1 << 18), pg(dp)],
                vec![1],
                vec![],
            ),
        ]
    };
    for r in 0..4u64 {
        std::fs::write(d.path().join(format!("et/job.{r}.et")), encode("1.0.0", &rank(r))).unwrap();
    }
    let s = chakra(&d, "groups = \"groups.json\"\n").unwrap();
    // two all-reduces over 2 ranks (2 x 2 messages of 512 KiB each), two
    // all-gathers over 2 ranks (2 x 1 message of each member's 256 KiB)
    assert_two_by_two(&s, (524_288, [(0, 1), (2, 3)]), (262_144, [(0, 2), (1, 3)]));
    let r = s.simulate("hpcc", None).unwrap();
    assert_eq!((r.status, r.messages_waiting), (RunStatus::Completed, 0));

    // a rank outside its collective's group; a group the file lacks; a bad file
    let mut t: Vec<Vec<Node>> = (0..4).map(rank).collect();
    t[1][0].attr[2] = pg("2");
    write_trace(&d, &t);
    let e = chakra(&d, "groups = \"groups.json\"\n").err().unwrap();
    assert!(e.contains("job.1.et: rank 1 node 1 (n1): attribute pg_name = \"2\": group 2 of"), "{e}");
    t[1][0].attr[2] = pg("9");
    write_trace(&d, &t);
    let e = chakra(&d, "groups = \"groups.json\"\n").err().unwrap();
    assert!(e.contains("no group 9 in") && e.contains("(groups 1, 2, 3, 4)"), "{e}");
    for (text, want) in [
        (r#"{"0": [0, 1]}"#, "group \"0\": a group id is a positive integer"),
        (r#"{"1": [0, 4]}"#, "group \"1\": rank 4: not a rank of the trace (0..3)"),
        (r#"{"1": [0, 0]}"#, "group \"1\": rank 0 twice"),
        (r#"[[0, 1]]"#, "expected a JSON object"),
    ] {
        std::fs::write(d.path().join("bad.json"), text).unwrap();
        let e = chakra(&d, "groups = \"bad.json\"\n").err().unwrap();
        assert!(e.contains("workload[0].groups: ") && e.contains("bad.json: ") && e.contains(want), "{e}");
    }
}

/// A 2 x 2 tensor/data-parallel job's messages: two all-reduces of
/// `allreduce.0` bytes per message, each between one pair of hosts of
/// `allreduce.1`, and two all-gathers likewise.
fn assert_two_by_two(s: &Scenario, allreduce: (u64, [(u32, u32); 2]), allgather: (u64, [(u32, u32); 2])) {
    let g = &s.messages;
    let msgs: Vec<_> = g.messages.iter().filter(|m| m.compute_on.is_none()).collect();
    assert_eq!(msgs.len(), 2 * 4 + 2 * 2);
    for m in &msgs {
        let c = g.conns[m.conn as usize];
        let pair = (c.src.min(c.dst), c.src.max(c.dst));
        if m.size == allreduce.0 {
            assert!(allreduce.1.contains(&pair), "tensor-group all-reduce between {pair:?}");
        } else if m.size == allgather.0 {
            assert!(allgather.1.contains(&pair), "data-group all-gather between {pair:?}");
        } else {
            panic!("a message of {} bytes", m.size);
        }
    }
}

/// BROADCAST as ASTRA-sim runs it (no data: its duration_micros, with a
/// note saying so) and BARRIER as one byte from every rank to every other.
#[test]
fn chakra_broadcast_takes_its_duration_and_barrier_waits_for_every_rank() {
    let d = TempDir::new("chakra-bcast");
    std::fs::create_dir_all(d.path().join("et")).unwrap();
    let rank = |_r: u64| {
        vec![
            Node {
                duration_micros: 3,
                ..node(1, node_type::COMM_COLL, vec![attr("comm_type", 5), attr("comm_size", 4096)], vec![], vec![])
            },
            node(2, node_type::COMM_COLL, vec![attr("comm_type", 9), attr("comm_size", 0)], vec![1], vec![]),
        ]
    };
    write_trace(&d, &(0..4).map(rank).collect::<Vec<_>>());
    let s = chakra(&d, "").unwrap();
    let g = &s.messages;
    let msgs: Vec<_> = g.messages.iter().filter(|m| m.compute_on.is_none()).collect();
    assert_eq!(msgs.len(), 4 * 3);
    assert!(msgs.iter().all(|m| m.size == 1));
    assert_eq!(g.messages.iter().filter(|m| m.compute_on.is_some() && m.delay == 3 * US).count(), 4);
    assert!(g.notes.len() == 1 && g.notes[0].contains("4 BROADCAST node(s) move no data"), "{:?}", g.notes);
    let r = s.simulate("none", None).unwrap();
    assert_eq!((r.status, r.messages_waiting), (RunStatus::Completed, 0));
    // the barrier's messages leave after each sender's 3 us broadcast
    assert!(r.flows.iter().all(|f| f.start >= 3 * US));
}

/// Chakra's own PyTorch trace (its feeder tests' `chakra.0.et`, Apache-2.0,
/// tests/data) as every rank of a 4-rank job, with no edit: CPU-side
/// collective records only order, BROADCAST moves no data (as in
/// ASTRA-sim), the dangling, self and cyclic ctrl_deps are dropped and
/// counted, and the five all-reduces run over the ranks.
#[test]
fn chakras_pytorch_trace_imports_and_runs_unedited() {
    use std::io::Read;
    let gz = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/chakra/pytorch/chakra.0.et.gz");
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(gz).unwrap()).read_to_end(&mut bytes).unwrap();
    let d = TempDir::new("chakra-pytorch");
    std::fs::create_dir_all(d.path().join("et")).unwrap();
    for r in 0..4 {
        std::fs::write(d.path().join(format!("et/job.{r}.et")), &bytes).unwrap();
    }
    let s = chakra(&d, "").unwrap();
    let g = &s.messages;
    let msgs: Vec<_> = g.messages.iter().filter(|m| m.compute_on.is_none()).collect();
    // five ring all-reduces over 4 ranks: 2 (n-1) steps of a quarter each, per rank
    assert_eq!(msgs.len(), 5 * 24);
    let bytes: u64 = msgs.iter().map(|m| m.size).sum();
    let reduced: u64 = [8_196_000u64, 31_502_336, 26_255_360, 26_550_272, 9_724_160].iter().sum();
    assert_eq!(bytes, reduced / 4 * 2 * 3 * 4);
    assert_eq!(g.notes.len(), 2, "{:?}", g.notes);
    assert!(g.notes[0].contains("8 BROADCAST node(s) move no data"), "{}", g.notes[0]);
    // 1,277 and 383 per rank
    assert!(g.notes[1].contains("5,108 on nodes the rank does not have, 1,532 on the node itself"), "{}", g.notes[1]);
    let r = s.simulate("hpcc", None).unwrap();
    assert_eq!((r.status, r.messages_waiting), (RunStatus::Completed, 0));
}

#[test]
fn chakra_path_may_list_the_files_and_iterations_repeat_the_trace() {
    let d = TempDir::new("chakra-list");
    std::fs::create_dir_all(d.path().join("et")).unwrap();
    write_trace(&d, &small_trace());
    let list = "[[workload]]\nkind = \"chakra\"\npath = [\"et/job.0.et\", \"et/job.1.et\", \"et/job.2.et\", \"et/job.3.et\"]\nhosts = [4, 5, 6, 7]\niterations = 3\n";
    let s = scenario(d.path(), 8, list).unwrap();
    let g = &s.messages;
    assert_eq!(g.messages.iter().filter(|m| m.compute_on.is_none()).count(), 3 * 25);
    assert!(g.conns.iter().all(|c| c.src >= 4 && c.dst >= 4));
    assert_eq!(g.meta.iter().filter(|m| m.iteration == 2).count() * 3, g.messages.len());
    let r = s.simulate("hpcc", None).unwrap();
    assert_eq!((r.status, r.messages_waiting), (RunStatus::Completed, 0));
}

#[test]
fn bad_chakra_traces_name_file_rank_node_and_field() {
    let d = TempDir::new("chakra-bad");
    std::fs::create_dir_all(d.path().join("et")).unwrap();
    let err = |ranks: &[Vec<Node>]| {
        write_trace(&d, ranks);
        chakra(&d, "").err().unwrap()
    };
    // a truncated file
    write_trace(&d, &small_trace());
    let f = d.path().join("et/job.1.et");
    let bytes = std::fs::read(&f).unwrap();
    std::fs::write(&f, &bytes[..bytes.len() - 3]).unwrap();
    let e = chakra(&d, "").err().unwrap();
    assert!(e.contains("workload[0]") && e.contains("job.1.et: byte ") && e.contains("truncated"), "{e}");
    // a send without its peer
    let mut t = small_trace();
    t[0][1].attr.retain(|a| a.name != "comm_dst");
    let e = err(&t);
    assert!(e.contains("job.0.et: rank 0 node 2 (n2): attribute comm_dst: missing"), "{e}");
    // a peer out of range
    let mut t = small_trace();
    t[0][1].attr.push(attr("comm_dst", 9));
    t[0][1].attr.swap_remove(1);
    let e = err(&t);
    assert!(e.contains("rank 0 node 2 (n2): attribute comm_dst = 9: rank out of range"), "{e}");
    // mismatched sizes, and a send nobody receives
    let mut t = small_trace();
    t[1][1].attr[2] = attr("comm_size", 99);
    let e = err(&t);
    assert!(e.contains("job.1.et: rank 1 node 1: size = 99") && e.contains("size = 100000"), "{e}");
    let mut t = small_trace();
    t[1].remove(1);
    t[1][0].data_deps.clear();
    let e = err(&t);
    assert!(e.contains("job.0.et: rank 0 node 2: unmatched send to rank 1"), "{e}");
    // a data dependency on a node that does not exist is refused (ASTRA-sim's
    // FeederV3 refuses it too); control dependencies on a missing node, on the
    // node itself or inside a cycle are dropped, with a note, as PyTorch's
    // converter writes them and Chakra's reference feeder ignores them
    let mut t = small_trace();
    t[2][0].data_deps.push(42);
    let e = err(&t);
    assert!(e.contains("job.2.et: rank 2 node 7: data_deps/ctrl_deps = 42: no node 42"), "{e}");
    let mut t = small_trace();
    t[2][0].ctrl_deps.extend([42, 7]);
    // rank 0: node 1 -> (ctrl) 4 -> (data) 3 -> (ctrl) 2 -> (data) 1: the
    // ctrl_dep on the earlier node (3 on 2) is kept, the one on the later
    // node (1 on 4) closes the cycle and is dropped
    t[0][0].ctrl_deps.push(4);
    write_trace(&d, &t);
    let s = chakra(&d, "").unwrap();
    // rank 0's start of the all-reduce (a zero-length task on host 0) still
    // waits for its send: the kept ctrl_dep
    let g = &s.messages;
    let send = g.messages.iter().position(|m| m.size == 100_000).unwrap() as u32;
    assert!(g.messages.iter().any(|m| m.compute_on == Some(0) && m.delay == 0 && m.after == vec![send]));
    assert_eq!(
        s.messages.notes,
        ["workload[0]: 4 rank files: of 5 ctrl_deps, 1 on nodes the rank does not have, 1 on the node itself and 1 \
          closing a dependency cycle were dropped (Chakra's reference feeder follows only data_deps)"]
    );
    let r = s.simulate("none", None).unwrap();
    assert_eq!((r.status, r.messages_waiting), (RunStatus::Completed, 0));
    let mut t = small_trace();
    t[0][0].data_deps.push(4);
    let e = err(&t);
    assert!(e.contains("dependency cycle") && e.contains("rank 0 node 1"), "{e}");
    // collectives that do not line up, and one ccsim does not model
    let mut t = small_trace();
    t[3][0].attr[1] = attr("comm_size", 2_000_000);
    let e = err(&t);
    assert!(e.contains("job.3.et: rank 3 node 7: collective 1 is") && e.contains("on rank 0"), "{e}");
    let mut t = small_trace();
    t[3].clear();
    let e = err(&t);
    assert!(e.contains("has no counterpart"), "{e}");
    let mut t = small_trace();
    for r in &mut t {
        for x in r.iter_mut().filter(|x| x.r#type == node_type::COMM_COLL) {
            x.attr[0] = attr("comm_type", 1);
        }
    }
    let e = err(&t);
    assert!(e.contains("attribute comm_type = 1 (REDUCE): not supported"), "{e}");
    // an unknown node type only orders the others
    let mut t = small_trace();
    t[0][3].r#type = 77;
    write_trace(&d, &t);
    assert!(chakra(&d, "").is_ok());
    // an older schema; a rank missing from the folder; hosts for other ranks
    std::fs::write(d.path().join("et/job.0.et"), encode("0.0.2", &t[0])).unwrap();
    let e = chakra(&d, "").err().unwrap();
    assert!(e.contains("GlobalMetadata.version = \"0.0.2\": not supported"), "{e}");
    write_trace(&d, &small_trace());
    std::fs::rename(d.path().join("et/job.2.et"), d.path().join("job.2.et")).unwrap();
    let e = chakra(&d, "").err().unwrap();
    assert!(e.contains("workload[0].path") && e.contains("rank 2 missing"), "{e}");
    std::fs::rename(d.path().join("job.2.et"), d.path().join("et/job.2.et")).unwrap();
    let e = scenario(d.path(), 4, "[[workload]]\nkind = \"chakra\"\npath = \"et\"\nhosts = [0, 1]\n").err().unwrap();
    assert!(e.contains("workload[0].hosts: 2 host(s) given for the 4 rank file(s)"), "{e}");
    let e =
        scenario(d.path(), 4, "[[workload]]\nkind = \"chakra\"\npath = \"nothere\"\nhosts = [0, 1]\n").err().unwrap();
    assert!(e.contains("workload[0].path") && e.contains("nothere"), "{e}");
}

/// Collectives inside ccsim's DAG format: each over its group (the
/// trace's `groups`), lowered exactly as the `collective` workload lowers
/// the same operation over the same hosts, between compute nodes.
#[test]
fn dag_collectives_run_over_their_groups_as_the_collective_workload_does() {
    let d = TempDir::new("dag-coll");
    let mut nodes = Vec::new();
    for r in 0..4 {
        let (tp, dp) = (if r < 2 { 1 } else { 2 }, if r % 2 == 0 { 3 } else { 4 });
        nodes.push(format!(r#"{{"id": 1, "rank": {r}, "type": "compute", "duration": "10us"}}"#));
        nodes.push(format!(
            r#"{{"id": 2, "rank": {r}, "type": "collective", "op": "ring_allreduce", "size": "1MB", "group": {tp}, "deps": [1]}}"#
        ));
        nodes.push(format!(
            r#"{{"id": 3, "rank": {r}, "type": "collective", "op": "allgather", "size": 4000, "group": {dp}, "deps": [2]}}"#
        ));
        nodes.push(format!(r#"{{"id": 4, "rank": {r}, "type": "compute", "duration": "30us", "deps": [3]}}"#));
    }
    let groups = r#""groups": {"1": [0, 1], "2": [2, 3], "3": [0, 2], "4": [1, 3]}"#;
    d.file("t.json", &format!("{{{groups}, \"nodes\": [{}]}}", nodes.join(",\n")));
    let w = "[[workload]]\nkind = \"dag\"\npath = \"t.json\"\nhosts = [4, 5, 6, 7]\n";
    let s = scenario(d.path(), 8, w).unwrap();
    let g = &s.messages;
    let msgs: Vec<_> = g.messages.iter().filter(|m| m.compute_on.is_none()).collect();
    // two all-reduces over 2 ranks (2 x 2 messages of 500 KB), two
    // all-gathers over 2 ranks (2 x 1 message of half the 4000 B buffer)
    assert_two_by_two(&s, (500_000, [(4, 5), (6, 7)]), (2_000, [(4, 6), (5, 7)]));
    let r = s.simulate("hpcc", None).unwrap();
    assert_eq!((r.status, r.messages_waiting), (RunStatus::Completed, 0));
    // the last compute ends 30 us after the last message, and is a task of the run
    let last_msg = r.flows.iter().map(|m| m.start + m.fct.unwrap()).max().unwrap();
    let last_task = r.tasks.iter().map(|t| t.done).max().unwrap();
    assert_eq!(last_task, last_msg + 30 * US);
    assert_eq!(r.tasks.len(), g.messages.len() - msgs.len(), "every task ran once");

    // one collective over every rank: the same messages as the collective workload
    let one = r#"{"nodes": [
        {"id": 0, "rank": 0, "type": "collective", "op": "ring_allreduce", "size": "64KB"},
        {"id": 0, "rank": 1, "type": "collective", "op": "ring_allreduce", "size": "64KB"},
        {"id": 0, "rank": 2, "type": "collective", "op": "ring_allreduce", "size": "64KB"}]}"#;
    d.file("one.json", one);
    let a = scenario(d.path(), 8, "[[workload]]\nkind = \"dag\"\npath = \"one.json\"\nhosts = [3, 1, 6]\n").unwrap();
    let b = scenario(
        d.path(),
        8,
        "[[workload]]\nkind = \"collective\"\nop = \"ring_allreduce\"\nsize = \"64KB\"\nhosts = [3, 1, 6]\n",
    )
    .unwrap();
    let net = |s: &Scenario| -> Vec<(u32, u32, u64)> {
        s.messages
            .messages
            .iter()
            .filter(|m| m.compute_on.is_none())
            .map(|m| (s.messages.conns[m.conn as usize].src, s.messages.conns[m.conn as usize].dst, m.size))
            .collect()
    };
    assert_eq!(net(&a), net(&b));
    assert_eq!(net(&a).len(), 3 * 4);
    let fct = |s: &Scenario| -> Vec<Time> {
        let r = s.simulate("hpcc", None).unwrap();
        r.flows.iter().map(|m| m.start + m.fct.unwrap()).collect()
    };
    assert_eq!(fct(&a), fct(&b), "the same completion times");

    // refused: an unknown group, a rank outside its group, an unknown op, bad groups
    let bad = |text: String, want: &str| {
        d.file("bad.json", &text);
        let e = scenario(d.path(), 8, "[[workload]]\nkind = \"dag\"\npath = \"bad.json\"\nhosts = [4, 5, 6, 7]\n")
            .err()
            .unwrap();
        assert!(e.contains("bad.json") && e.contains(want), "{want}: {e}");
    };
    let with = |from: &str, to: &str| format!("{{{groups}, \"nodes\": [{}]}}", nodes.join(",").replacen(from, to, 1));
    bad(
        with(r#""group": 1"#, r#""group": 9"#),
        "rank 0 node 2: group = 9: no such group in the trace's groups (1, 2, 3, 4)",
    );
    bad(with(r#""group": 1"#, r#""group": 2"#), "process group 2 has ranks [2, 3], not rank 0");
    bad(with(r#""op": "ring_allreduce""#, r#""op": "all_reduce""#), "op = \"all_reduce\": must be \"ring_allreduce\"");
    bad(with(r#""size": "1MB""#, r#""size": 0"#), "size = 0: must be at least 1 byte");
    bad(with(r#""size": "1MB""#, r#""size": "1MB", "peer": 2"#), "peer: unknown field for a collective node");
    bad(
        format!("{{\"groups\": {{\"1\": [0, 7]}}, \"nodes\": [{}]}}", nodes.join(",")),
        "groups: group \"1\": rank 7: not a rank of the trace (0..3)",
    );
}

#[test]
fn bad_dag_workloads_name_the_field() {
    let d = TempDir::new("dag-bad");
    d.file(
        "p.json",
        r#"{"nodes": [
            {"id": 0, "rank": 0, "type": "send", "peer": 1, "size": "10KB"},
            {"id": 0, "rank": 1, "type": "recv", "peer": 0, "size": 10000}
        ]}"#,
    );
    let w = |extra: &str| format!("[[workload]]\nkind = \"dag\"\npath = \"p.json\"\n{extra}");
    assert!(scenario(d.path(), 4, &w("hosts = [2, 3]")).is_ok());
    let e = scenario(d.path(), 4, &w("hosts = [2, 3, 1]")).err().unwrap();
    assert!(e.contains("workload[0].hosts: 3 host(s) given for the 2 rank(s)"), "{e}");
    let e = scenario(d.path(), 4, &w("hosts = [2, 2]")).err().unwrap();
    assert!(e.contains("workload[0].hosts[1] = 2") && e.contains("twice"), "{e}");
    let e = scenario(d.path(), 4, &w("hosts = [2, 3]\niterations = 4000000000")).err().unwrap();
    assert!(e.contains("workload[0].iterations = 4000000000") && e.contains("at most"), "{e}");
    let e = scenario(d.path(), 4, &w("hosts = [2, 3]\niterations = 0")).err().unwrap();
    assert!(e.contains("workload[0].iterations = 0"), "{e}");
    let e = scenario(d.path(), 4, &w("hosts = [2, 3]\nconnections = 0")).err().unwrap();
    assert!(e.contains("workload[0].connections = 0"), "{e}");
    let e = scenario(d.path(), 4, "[[workload]]\nkind = \"dag\"\npath = \"q.json\"\nhosts = [0, 1]\n").err().unwrap();
    assert!(e.contains("workload[0].path") && e.contains("q.json") && e.contains("cannot read"), "{e}");
    d.file("big.json", &format!("{{\"nodes\": [{}]}}", ["{\"id\": 0, \"rank\": 0, \"type\": \"send\"}"; 3].join(",")));
    let e = scenario(d.path(), 4, "[[workload]]\nkind = \"dag\"\npath = \"big.json\"\nhosts = [0]\n").err().unwrap();
    assert!(e.contains("big.json: nodes[0] (rank 0 node 0): peer: missing"), "{e}");
}

#[test]
fn mutated_trace_files_are_refused_clearly_never_with_a_panic() {
    let pipeline = std::fs::read_to_string(repo().join("scenarios/traces/pipeline.json")).unwrap();
    let d = TempDir::new("trace-fuzz");
    std::fs::create_dir_all(d.path().join("et")).unwrap();
    let mut rng = ccsim_core::rng::Rng::new(7);
    let tokens =
        ["", "-1", "0", "1e30", "\"x\"", "null", "[]", "{}", "99", "18446744073709551616", "\"0us\"", "\"1e6s\""];
    let (mut ok, mut refused) = (0, 0);
    for case in 0..300 {
        // a DAG file: cut short, or one value replaced
        let text = if case % 3 == 0 {
            let mut cut = rng.below(pipeline.len() as u64) as usize;
            while !pipeline.is_char_boundary(cut) {
                cut -= 1;
            }
            pipeline[..cut].to_string()
        } else {
            let spots: Vec<usize> = pipeline.match_indices(": ").map(|(i, _)| i + 2).collect();
            let at = spots[rng.below(spots.len() as u64) as usize];
            let end = pipeline[at..].find([',', '}']).map_or(pipeline.len(), |e| at + e);
            format!("{}{}{}", &pipeline[..at], tokens[rng.below(tokens.len() as u64) as usize], &pipeline[end..])
        };
        d.file("p.json", &text);
        let got = std::panic::catch_unwind(|| {
            scenario(d.path(), 4, "[[workload]]\nkind = \"dag\"\npath = \"p.json\"\nhosts = [0, 1, 2, 3]\n")
        });
        match got.unwrap_or_else(|_| panic!("case {case} panicked:\n{text}")) {
            Ok(_) => ok += 1,
            Err(e) => {
                refused += 1;
                assert!(e.contains("t.toml") && e.contains("workload[0]"), "case {case}: {e}");
            }
        }
        // an ET file with a byte changed or cut short
        let mut bytes = encode("0.0.4", &small_trace()[(case % 4) as usize]);
        if case % 2 == 0 {
            let i = rng.below(bytes.len() as u64) as usize;
            bytes[i] = rng.below(256) as u8;
        } else {
            bytes.truncate(rng.below(bytes.len() as u64) as usize);
        }
        write_trace(&d, &small_trace());
        std::fs::write(d.path().join(format!("et/job.{}.et", case % 4)), &bytes).unwrap();
        let got = std::panic::catch_unwind(|| chakra(&d, ""));
        if let Err(e) = got.unwrap_or_else(|_| panic!("ET case {case} panicked")) {
            assert!(e.contains("workload[0]"), "ET case {case}: {e}");
        }
    }
    assert!(ok > 0 && refused > 100, "{ok} accepted, {refused} refused");
}
