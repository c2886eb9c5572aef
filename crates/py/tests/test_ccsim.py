"""Tests of the ccsim Python package: the same results as the CLI, the same
errors, overrides and seeds, the GIL released while simulating."""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

import ccsim

REPO = Path(__file__).resolve().parents[3]
CLI = Path(os.environ.get("CCSIM_BIN", REPO / "target" / "release" / "ccsim"))
DUMBBELL = REPO / "scenarios" / "dumbbell-2flows.toml"
INCAST = REPO / "scenarios" / "incast-16to1.toml"
QUICK = REPO / "scenarios" / "quickstart.toml"


def cli_run(tmp_path, scenario, *args):
    out = tmp_path / "cli"
    subprocess.run(
        [str(CLI), "run", str(scenario), "--out", str(out), "-q", "--force", *args],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    (d,) = [p for p in (out).glob("*/*") if p.is_dir()]
    return d


@pytest.mark.skipif(not CLI.exists(), reason="the ccsim binary is built by scripts/test.sh")
@pytest.mark.parametrize("scenario,scheme,seed", [(DUMBBELL, "hpcc", 3), (INCAST, "dcqcn", 1), (QUICK, "swift", 7)])
def test_run_is_bit_identical_to_the_cli(tmp_path, scenario, scheme, seed):
    cli = cli_run(tmp_path, scenario, "--scheme", scheme, "--seed", str(seed))
    r = ccsim.run(ccsim.load(scenario), scheme=scheme, seed=seed)
    py = r.write(tmp_path / "py")
    for f in ["flows.csv", "ports.csv"]:
        assert (py / f).read_bytes() == (cli / f).read_bytes(), f
    a = json.loads((cli / "summary.json").read_text())
    b = json.loads((py / "summary.json").read_text())
    # the file label is the path as given; everything else is equal
    a.pop("file"), b.pop("file")
    assert a == b
    assert r.summary["engine"]["events"] == a["engine"]["events"] > 0
    # the DataFrames hold the CSV's numbers (the CSV rounds to 6 decimals)
    csv = pd.read_csv(cli / "flows.csv")
    # ... after the run's scheme and seed, which name the rows when runs are concatenated
    assert list(r.flows.columns) == ["scheme", "seed"] + list(csv.columns)
    assert (r.flows["scheme"] == scheme).all() and (r.flows["seed"] == seed).all() and r.seed == seed
    pd.testing.assert_frame_equal(r.flows.drop(columns=["scheme", "seed"]).round(6), csv, check_dtype=False)
    ports = pd.read_csv(cli / "ports.csv")
    pd.testing.assert_frame_equal(r.ports.round(6), ports, check_dtype=False)


def test_same_seed_same_result_other_seed_other_workload():
    s = ccsim.load(QUICK, set={"stop": "200us"})
    a = ccsim.run(s, scheme="hpcc")
    b = ccsim.run(s, scheme="hpcc")
    pd.testing.assert_frame_equal(a.flows, b.flows)
    assert a.summary == b.summary
    c = ccsim.run(s, scheme="hpcc", seed=s.seed + 1)
    assert not a.flows[["src", "dst", "size"]].equals(c.flows[["src", "dst", "size"]])


def test_overrides_are_applied_and_checked():
    s = ccsim.load(INCAST, set={"workload[0].fan_in": 4, "trace.flows": [0, 3]})
    assert s.flows == 4
    r = ccsim.run(s, scheme="hpcc", set={"workload[0].size": "100KB"})
    assert len(r.flows) == 4 and (r.flows["size"] == 100_000).all()
    assert r.status == "completed" and r.flows["slowdown"].min() >= 1.0
    # run.json names every override that made the result, in the order given
    keys = [o.split("=")[0] for o in r.run_info["overrides"]]
    assert keys == ["workload[0].fan_in", "trace.flows", "workload[0].size"], r.run_info
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.load(INCAST, set={"network.pfc.static_xoff": "lots"})
    msg = str(e.value)
    assert "incast-16to1.toml" in msg and "network.pfc.static_xoff" in msg and "lots" in msg


def test_errors_name_file_key_and_value(tmp_path):
    bad = tmp_path / "typo.toml"
    bad.write_text(
        '[topology]\nkind = "star"\nhosts = 4\nrate = "100Gbps"\ndelai = "1us"\n'
        '[[workload]]\nkind = "flows"\nflows = [{ src = 0, dst = 1, size = 1000 }]\n'
    )
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.load(bad)
    assert "typo.toml" in str(e.value) and "topology.delai" in str(e.value) and "line 5" in str(e.value)
    assert isinstance(e.value, ValueError)
    with pytest.raises(ccsim.ScenarioError, match="cannot read"):
        ccsim.load(tmp_path / "missing.toml")
    doc = {
        "topology": {"kind": "star", "hosts": 4, "rate": "100Gbps"},
        "workload": [{"kind": "flows", "flows": [{"src": 0, "dst": 9, "size": "1KB"}]}],
    }
    with pytest.raises(ccsim.ScenarioError, match=r"<dict>: workload\[0\]\.flows\[0\]\.dst = 9: no such node"):
        ccsim.Scenario(doc)
    with pytest.raises(ccsim.ScenarioError, match="dumbbell-2flows.toml: scheme.cubic: unknown congestion-control scheme 'cubic'"):
        ccsim.run(ccsim.load(DUMBBELL), scheme="cubic")
    with pytest.raises(ccsim.ScenarioError, match="stop"):
        ccsim.run(ccsim.load(DUMBBELL), stop="soon")
    with pytest.raises(ccsim.ScenarioError, match="cannot be written in a scenario"):
        ccsim.Scenario({"name": object()})


def test_a_scenario_from_a_dict_runs_like_a_file():
    doc = {
        "name": "incast4",
        "topology": {"kind": "star", "hosts": 5, "rate": "100Gbps", "delay": "1us"},
        "workload": [{"kind": "incast", "fan_in": 4, "receiver": 4, "size": "200KB"}],
        "schemes": ["dcqcn", "hpcc"],
        "trace": {"queues": ["5:4"], "flows": [0, 1]},
    }
    s = ccsim.Scenario(doc)
    assert (s.name, s.hosts, s.flows, s.schemes) == ("incast4", 5, 4, ["dcqcn", "hpcc"])
    r = ccsim.run(s)
    assert r.scheme == "dcqcn"
    assert r.summary["finished"] == 4
    # bytes are conserved: every flow's data left its host port
    sent = r.ports[r.ports["node"] < 4]["tx_data_bytes"].sum()
    assert sent >= 4 * 200_000
    q = r.queues
    assert set(q["port"]) == {"5:4"} and q["queue_bytes"].max() > 0
    assert q["t_us"].is_monotonic_increasing
    assert set(r.traces["flow"]) == {0, 1}
    assert r.utilization.empty


def test_deadlock_and_interrupt_statuses_come_back():
    r = ccsim.run(ccsim.load(REPO / "scenarios" / "pfc-deadlock-ring.toml"), check=True)
    assert r.status == "deadlock"
    assert "5:6 -> 6:7" in r.summary["status_detail"]
    assert r.summary["check"] == "passed"
    assert r.flows["fct_us"].isna().all()


def test_the_gil_is_released_while_simulating():
    s = ccsim.load(REPO / "scenarios" / "fat320-websearch-30.toml", set={"stop": "1ms"})
    done = threading.Event()
    out = {}

    def work():
        out["r"] = ccsim.run(s, scheme="hpcc")
        done.set()

    t = threading.Thread(target=work)
    t0 = time.perf_counter()
    t.start()
    spins = 0
    while not done.is_set():
        spins += 1
        time.sleep(0)
    t.join()
    elapsed = time.perf_counter() - t0
    # with the GIL held for the whole run this thread could not have run
    # at all; released, it spins the whole time
    assert elapsed > 0.2, "the run was too short to tell"
    assert spins > 1000, (spins, elapsed)
    assert out["r"].status == "stopped"


def test_the_api_is_documented():
    for f in [ccsim.load, ccsim.run, ccsim.Scenario, ccsim.Result, ccsim.schemes]:
        assert f.__doc__ and len(f.__doc__) > 40, f
    assert "seed" in ccsim.run.__doc__ and "GIL" in ccsim.run.__doc__
    pkg = Path(ccsim.__file__).parent
    assert (pkg / "_native.pyi").is_file() and (pkg / "py.typed").is_file()
    assert {"hpcc", "dcqcn", "oscar", "bolt", "fncc", "sqcc", "srcc"} <= set(ccsim.schemes())


@pytest.mark.skipif(not CLI.exists(), reason="the ccsim binary is built by scripts/test.sh")
def test_cli_parquet_output_holds_the_csv_tables(tmp_path):
    csv = cli_run(tmp_path / "csv", INCAST, "--scheme", "dcqcn")
    pq = cli_run(tmp_path / "pq", INCAST, "--scheme", "dcqcn", "--format", "parquet")
    assert not (pq / "flows.csv").exists() and not (pq / "queues.csv").exists()
    for name in ["flows", "ports", "queues", "utilization", "flow_traces"]:
        a = pd.read_parquet(pq / f"{name}.parquet")
        b = pd.read_csv(csv / f"{name}.csv")
        assert list(a.columns) == list(b.columns), name
        pd.testing.assert_frame_equal(a.round(6), b, check_dtype=False, obj=name)
    # and the same as the Python API's DataFrame, unrounded
    r = ccsim.run(INCAST, scheme="dcqcn")
    pd.testing.assert_frame_equal(
        pd.read_parquet(pq / "flows.parquet"), r.flows.drop(columns=["scheme", "seed"]), check_dtype=False
    )


def test_messages_on_connections_are_rows_with_their_connection():
    r = ccsim.run(ccsim.load(REPO / "scenarios" / "rpc-closed-loop.toml", set={"workload[0].duration": "1ms"}), scheme="hpcc")
    f, c = r.flows, r.conns
    assert len(f) > 20 and f["conn"].notna().all() and (f["workload"] == 0).all()
    assert list(c.columns) == ["id", "src", "dst", "messages", "completed", "bytes", "acked", "retransmits",
                               "timeouts", "trimmed", "drops"]
    # every message counted on its connection; requests go client -> server, responses back
    assert f.groupby("conn").size().sort_index().tolist() == c.set_index("id")["messages"].sort_index().tolist()
    assert set(zip(c.src, c.dst)) == {(0, 2), (0, 3), (1, 2), (1, 3), (2, 0), (3, 0), (2, 1), (3, 1)}
    assert (f[f.src >= 2]["size"] == 2000).all(), "2 KB responses"


def test_losses_are_columns_of_flows_and_totals_of_the_summary():
    # issue 32: a lossy incast (PFC off, 1 MB of buffer) resends; the per-flow
    # losses sum to the summary's totals, and heavy resends are warned about
    lossy = {"network.pfc.enabled": False, "network.buffer": "1MB"}
    r = ccsim.run(ccsim.load(INCAST, set=lossy), scheme="dcqcn")
    f, s = r.flows, r.summary
    assert list(f.columns[-3:]) == ["timeouts", "trimmed", "drops"] and "retransmits" in f.columns
    assert s["retransmits"] > 0 and s["drops"] > 0 and s["pause_frames"] == 0
    assert f.retransmits.sum() == s["retransmits"] and f.timeouts.sum() == s["timeouts"]
    assert f.drops.sum() == s["drops"] and f.trimmed.sum() == s["trimmed"]["packets"] == 0
    assert r.warnings == s["warnings"] and r.warnings[0].startswith("dcqcn sent ")
    lossless = ccsim.run(INCAST, scheme="dcqcn")
    assert lossless.warnings == [] and lossless.summary["retransmits"] == lossless.flows.retransmits.sum() == 0


def test_collective_job_times_are_in_the_summary():
    s = ccsim.load(REPO / "scenarios" / "ai-moe-alltoall.toml",
                   set={"workload[0].size": "256KB", "workload[1].size": "256KB", "workload[1].iterations": 1})
    r = ccsim.run(s, scheme="hpcc")
    jobs = r.summary["jobs"]
    assert [j["workload"] for j in jobs] == [0, 1]
    a2a, ring = jobs
    assert a2a["messages"] == a2a["finished"] == 4 * 8 * 7, "4 iterations of an 8-rank all-to-all"
    assert len(a2a["iteration_us"]) == 4 and all(t > 0 for t in a2a["iteration_us"])
    # the job spans its iterations and the compute between them (20 us x 3)
    assert a2a["job_time_us"] >= sum(a2a["iteration_us"]) * 0.5 and a2a["job_time_us"] > 60
    assert ring["messages"] == 2 * (8 - 1) * 8 and ring["job_time_us"] > 0
    per_job = r.flows.groupby("workload").size().to_dict()
    assert per_job == {0: 224, 1: 112}


def test_a_dict_that_contains_itself_or_nests_too_deep_is_refused():
    # in a child interpreter: before the fix each case killed it (SIGSEGV)
    code = r'''
import ccsim
def refused(doc, **kw):
    try:
        ccsim.Scenario(doc, **kw)
    except ValueError as e:
        return str(e)
    raise AssertionError("accepted")
cyclic = {"name": "loop"}
cyclic["self"] = cyclic
print(refused(cyclic))
items = [1]
items.append(items)
print(refused({"topology": {"kind": "star", "hosts": items}}))
print(refused({"name": "x"}, set={"trace.flows": items}))
deep = leaf = {}
for _ in range(30_000):
    leaf["x"] = {}
    leaf = leaf["x"]
e = refused(deep)
print(e[:30] + " ... " + e[-80:])
deep_list = 1
for _ in range(30_000):
    deep_list = [deep_list]
e = refused({"name": deep_list})
print(e[:30] + " ... " + e[-80:])
print(ccsim.MAX_DEPTH)
'''
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    lines = p.stdout.splitlines()
    assert lines[0] == "self: a dict that contains itself (a cycle) cannot be written in a scenario"
    assert lines[1] == "topology.hosts[1]: a list that contains itself (a cycle) cannot be written in a scenario"
    assert lines[2].startswith("trace.flows[1]: a list that contains itself")
    deeper = ": dicts and lists nested deeper than 64 levels cannot be written in a scenario"
    assert lines[3].startswith("x." * 15) and lines[3].endswith(".x" + deeper)
    assert lines[4].startswith("name" + "[0]" * 6) and lines[4].endswith("0]" + deeper)
    assert lines[5] == "64"
    # at the limit a value is converted and the scenario reader judges it
    nested = 1
    for _ in range(ccsim.MAX_DEPTH - 1):
        nested = [nested]
    with pytest.raises(ccsim.ScenarioError, match="name = .*expected a string"):
        ccsim.Scenario({"name": nested})
    # the same list twice is no cycle
    flows = [{"src": 0, "dst": 1, "size": "1KB"}]
    s = ccsim.Scenario({"topology": {"kind": "star", "hosts": 3, "rate": "100Gbps"},
                        "workload": [{"kind": "flows", "flows": flows}, {"kind": "flows", "flows": flows}]})
    assert s.flows == 2
    with pytest.raises(ccsim.ScenarioError, match="bytes cannot be written in a scenario"):
        ccsim.Scenario({"name": b"incast"})


def test_the_module_exposes_only_the_api():
    # issue 34: `import ccsim` then `dir(ccsim)` or tab completion shows the
    # API, not the modules it is built with (np, pd, os, ...)
    public = {n for n in dir(ccsim) if not n.startswith("_")}
    assert public == set(ccsim.__all__) - {"__version__"}, public ^ set(ccsim.__all__)
    assert callable(ccsim.sweep) and callable(ccsim.reproduce)
