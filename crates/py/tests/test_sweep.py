"""Sweeps on a 2-worker local Dask cluster: the expected rows, the same
numbers as `ccsim sweep`, failing points reported, resumption."""

import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import ccsim

distributed = pytest.importorskip("distributed")

REPO = Path(__file__).resolve().parents[3]
CLI = Path(os.environ.get("CCSIM_BIN", REPO / "target" / "release" / "ccsim"))
INCAST = REPO / "scenarios" / "incast-16to1.toml"
GRID = {"workload[0].fan_in": [2, 4], "trace.flows": [[0]], "scheme": ["dcqcn", "hpcc"], "seed": [1, 2]}


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_a_sweep_returns_a_row_per_point_and_metric(client, tmp_path):
    df = ccsim.sweep(INCAST, GRID, client=client, out=tmp_path, progress=False)
    assert list(df.columns) == ["workload[0].fan_in", "trace.flows", "scheme", "seed", "status", "metric", "value"]
    points = df[["workload[0].fan_in", "scheme", "seed"]].drop_duplicates()
    assert len(points) == 8
    per_point = df.groupby(["workload[0].fan_in", "scheme", "seed"]).size()
    assert (per_point == per_point.iloc[0]).all() and per_point.iloc[0] >= 30
    fin = df[df.metric == "finished"].set_index(["workload[0].fan_in", "scheme", "seed"])["value"]
    assert (fin.xs(2, level=0) == 2).all() and (fin.xs(4, level=0) == 4).all()
    assert (df.status == "completed").all()
    # grid values keep their Python types
    assert df["workload[0].fan_in"].dtype.kind == "i"
    assert df.attrs["failed"] == {}
    assert (tmp_path / "sweep.parquet").is_file() and len(list((tmp_path / "points").glob("*.parquet"))) == 8


@pytest.mark.skipif(not CLI.exists(), reason="the ccsim binary is built by scripts/test.sh")
def test_the_same_numbers_as_the_cli_sweep(client, tmp_path):
    df = ccsim.sweep(INCAST, GRID, client=client, out=tmp_path / "py", progress=False)
    args = [str(CLI), "sweep", str(INCAST), "--out", str(tmp_path / "cli"), "--cache", str(tmp_path / "cache"), "-q"]
    args += ["--grid", "workload[0].fan_in=2,4", "--grid", "trace.flows=[0]", "--grid", "scheme=dcqcn,hpcc"]
    args += ["--grid", "seed=1,2"]
    subprocess.run(args, check=True, capture_output=True, cwd=REPO)
    cli = pd.read_csv(tmp_path / "cli" / "incast-16to1" / "sweep.csv")
    assert len(cli) == len(df)
    a = df.assign(value=df.value.round(6)).drop(columns=["trace.flows"]).reset_index(drop=True)
    b = cli.drop(columns=["trace.flows"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_dtype=False)


def test_a_scheduler_address_runs_the_sweep_on_that_cluster(client, tmp_path):
    address = client.scheduler.address
    assert address.startswith("tcp://")
    df = ccsim.sweep(INCAST, {"trace.flows": [[0]], "scheme": ["hpcc"], "seed": [1, 2]}, client=address, out=tmp_path)
    assert set(df.seed) == {1, 2} and (df.status == "completed").all()
    # the points ran on the fixture's workers (their task logs name them)
    logs = client.run(lambda dask_worker: [t for t in dask_worker.state.log if "ccsim-point" in str(t)])
    assert sum(len(v) for v in logs.values()) > 0


def test_a_failing_point_is_reported_and_the_others_finish(client, tmp_path, capsys):
    # FNCC needs symmetric routing, which this scenario does not set: its
    # points fail when simulated; HPCC's finish
    df = ccsim.sweep(INCAST, {"trace.flows": [[0]], "scheme": ["hpcc", "fncc"]}, client=client, out=tmp_path, progress=False)
    assert set(df.scheme) == {"hpcc"}
    (label, err), = df.attrs["failed"].items()
    assert "scheme=fncc" in label and "symmetric" in err
    assert "error: point [trace.flows=[0] scheme=fncc]" in capsys.readouterr().err


def test_a_resumed_sweep_runs_only_the_missing_points(client, tmp_path):
    grid = {"workload[0].fan_in": [2, 3], "trace.flows": [[0]], "scheme": ["hpcc"]}
    first = ccsim.sweep(INCAST, grid, client=client, out=tmp_path, progress=False, cache=None)
    files = sorted((tmp_path / "points").glob("*.parquet"))
    assert len(files) == 2
    stamps = {f: f.stat().st_mtime_ns for f in files}
    files[0].unlink()
    again = ccsim.sweep(INCAST, grid, client=client, out=tmp_path, progress=False, cache=None)
    assert files[0].is_file(), "the missing point ran again"
    assert (again.attrs["simulated"], again.attrs["resumed"]) == (1, 1)
    assert files[1].stat().st_mtime_ns == stamps[files[1]], "the finished point was not run again"
    pd.testing.assert_frame_equal(first, again)


def test_bad_grids_raise_before_anything_runs(tmp_path):
    with pytest.raises(ccsim.ScenarioError, match=r"point \[network.ecn.pmax=7"):
        ccsim.sweep(INCAST, {"network.ecn.pmax": [0.5, 7]}, out=tmp_path)
    with pytest.raises(ccsim.ScenarioError, match=r"overrides it was loaded with \(stop\) would be lost"):
        ccsim.sweep(ccsim.load(INCAST, set={"stop": "1ms"}), {"seed": [1]}, out=tmp_path)
    with pytest.raises(ccsim.ScenarioError, match="no values"):
        ccsim.sweep(INCAST, {"seed": []}, out=tmp_path)
    assert not list(tmp_path.glob("points/*.parquet"))


def test_runs_on_dask_are_stored_in_the_run_cache_by_the_client(client, tmp_path):
    cache = tmp_path / "cache"
    df = ccsim.sweep(INCAST, GRID, client=client, out=tmp_path / "dask", cache=cache, progress=False)
    assert df.attrs["simulated"] == 8 and len(list(cache.glob("*.run"))) == 8
    # read back on this machine without Dask: every point from the cache, the same values
    local = ccsim.sweep(INCAST, GRID, out=tmp_path / "local", cache=cache, progress=False)
    assert (local.attrs["simulated"], local.attrs["cached"]) == (0, 8)
    pd.testing.assert_frame_equal(df, local)
    # and the other way: Dask starts no task for a cached point
    again = ccsim.sweep(INCAST, GRID, client=client, out=tmp_path / "dask2", cache=cache, progress=False)
    assert (again.attrs["simulated"], again.attrs["cached"]) == (0, 8)
    pd.testing.assert_frame_equal(df, again)
