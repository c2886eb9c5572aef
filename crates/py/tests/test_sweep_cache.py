"""ccsim.sweep and the run cache of `ccsim sweep` / `ccsim reproduce`:
a point whose run is cached is read, not simulated, with the values a
simulation gives; a point simulated in Python is stored where the command
line finds it, and the other way round."""

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import ccsim

REPO = Path(__file__).resolve().parents[3]
CLI = Path(os.environ.get("CCSIM_BIN", REPO / "target" / "release" / "ccsim"))
INCAST = REPO / "scenarios" / "incast-16to1.toml"
GRID = {"workload[0].fan_in": [2, 3], "trace.flows": [[0]], "scheme": ["dcqcn", "hpcc"], "seed": [1, 2]}
CLI_GRID = ["--grid", "workload[0].fan_in=2,3", "--grid", "trace.flows=[0]", "--grid", "scheme=dcqcn,hpcc",
            "--grid", "seed=1,2"]
# run keys include the simulator build (a hash of crates/core, cc and
# scenario): the binary must be built from the same sources as the extension
SAME_BUILD = f"the run keys differ: are {CLI} and the extension built from the same sources (scripts/test.sh builds both)? "
needs_cli = pytest.mark.skipif(not CLI.exists(), reason="the ccsim binary is built by scripts/test.sh")


def runs(cache):
    return {p.name: p.stat().st_mtime_ns for p in Path(cache).glob("*.run")}


def test_a_second_sweep_reads_every_point_from_the_run_cache(tmp_path):
    cache = tmp_path / "cache"
    first = ccsim.sweep(INCAST, GRID, out=tmp_path / "a", cache=cache, progress=False)
    assert (first.attrs["simulated"], first.attrs["cached"], first.attrs["resumed"]) == (8, 0, 0)
    assert first.attrs["cache"] == str(cache) and first.attrs["failed"] == {}
    stored = runs(cache)
    assert len(stored) == 8, "each simulated point is stored"
    # another output folder: nothing to resume, so every point comes from the run cache
    second = ccsim.sweep(INCAST, GRID, out=tmp_path / "b", cache=cache, progress=False)
    assert (second.attrs["simulated"], second.attrs["cached"], second.attrs["resumed"]) == (0, 8, 0)
    assert runs(cache) == stored, "nothing was simulated or stored again"
    pd.testing.assert_frame_equal(first, second)
    assert len(list((tmp_path / "b" / "points").glob("*.parquet"))) == 8
    # without the cache every point is simulated again, to the same values
    fresh = ccsim.sweep(INCAST, GRID, out=tmp_path / "c", cache=None, progress=False)
    assert (fresh.attrs["simulated"], fresh.attrs["cached"], fresh.attrs["cache"]) == (8, 0, None)
    pd.testing.assert_frame_equal(first, fresh)
    assert runs(cache) == stored
    off = ccsim.sweep(INCAST, GRID, out=tmp_path / "d", cache=False, progress=False)
    assert off.attrs["simulated"] == 8
    # the same output folder again: its points are resumed, not even read from the cache
    again = ccsim.sweep(INCAST, GRID, out=tmp_path / "a", cache=cache, progress=False)
    assert (again.attrs["simulated"], again.attrs["cached"], again.attrs["resumed"]) == (0, 0, 8)
    pd.testing.assert_frame_equal(first, again)


def test_the_default_cache_is_results_cache_under_the_current_directory(tmp_path):
    grid = {"workload[0].fan_in": 2, "trace.flows": [[0]], "scheme": "hpcc"}
    df = ccsim.sweep(INCAST, grid, out=tmp_path / "a", progress=False)
    default = Path.cwd() / "results" / "cache"
    assert df.attrs["cache"] == str(default) and len(runs(default)) == 1
    df2 = ccsim.sweep(INCAST, grid, out=tmp_path / "b", progress=False)
    assert df2.attrs["cached"] == 1 and df2.attrs["simulated"] == 0
    pd.testing.assert_frame_equal(df, df2)


def test_a_point_given_twice_runs_once(tmp_path, monkeypatch):
    sweep_module = sys.modules["ccsim.sweep"]  # (the attribute ccsim.sweep is the function)
    calls = []
    real = sweep_module._run_point
    monkeypatch.setattr(sweep_module, "_run_point", lambda *a: calls.append(a) or real(*a))
    cache = tmp_path / "cache"
    df = ccsim.sweep(INCAST, {"trace.flows": [[0]], "scheme": "hpcc", "seed": [1, 1]}, out=tmp_path / "o",
                     cache=cache, progress=False)
    assert df.attrs["failed"] == {} and len(runs(cache)) == 1
    assert len(calls) == 1, "one simulation for the two points"
    assert df.attrs["simulated"] == 2
    half = len(df) // 2
    assert half > 30
    pd.testing.assert_frame_equal(df.iloc[:half].reset_index(drop=True), df.iloc[half:].reset_index(drop=True))


def test_a_cache_that_cannot_be_written_fails_the_points(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    df = ccsim.sweep(INCAST, {"trace.flows": [[0]], "scheme": "hpcc"}, out=tmp_path / "o", cache=blocker,
                     progress=False)
    (err,) = df.attrs["failed"].values()
    assert "cannot write the run cache" in err and df.attrs["simulated"] == 0


def test_processes_store_in_and_read_from_the_cache(tmp_path):
    cache = tmp_path / "cache"
    procs = ccsim.sweep(INCAST, GRID, out=tmp_path / "p", cache=cache, processes=True, jobs=2, progress=False)
    assert procs.attrs["simulated"] == 8 and len(runs(cache)) == 8
    threads = ccsim.sweep(INCAST, GRID, out=tmp_path / "t", cache=cache, progress=False)
    assert threads.attrs["cached"] == 8
    pd.testing.assert_frame_equal(procs, threads)


@needs_cli
def test_python_finds_the_runs_of_a_cli_sweep(tmp_path):
    cache = tmp_path / "cache"
    args = [str(CLI), "sweep", str(INCAST), "--out", str(tmp_path / "cli"), "--cache", str(cache), "-q", *CLI_GRID]
    p = subprocess.run(args, capture_output=True, text=True, cwd=REPO)
    assert p.returncode == 0, p.stderr
    assert "8 points: 8 simulated, 0 from the cache" in p.stdout
    stored = runs(cache)
    df = ccsim.sweep(INCAST, GRID, out=tmp_path / "py", cache=cache, progress=False)
    assert (df.attrs["simulated"], df.attrs["cached"]) == (0, 8), SAME_BUILD
    assert runs(cache) == stored
    # the values of the CLI's table (which writes 6 decimals)
    cli = pd.read_csv(tmp_path / "cli" / "incast-16to1" / "sweep.csv")
    a = df.assign(value=df.value.round(6)).drop(columns=["trace.flows"])
    pd.testing.assert_frame_equal(a, cli.drop(columns=["trace.flows"]), check_dtype=False)
    # and the values of a fresh simulation, exactly
    fresh = ccsim.sweep(INCAST, GRID, out=tmp_path / "fresh", cache=None, progress=False)
    pd.testing.assert_frame_equal(df, fresh)


@needs_cli
def test_a_cli_sweep_finds_the_runs_of_python(tmp_path):
    cache = tmp_path / "cache"
    df = ccsim.sweep(INCAST, GRID, out=tmp_path / "py", cache=cache, progress=False)
    assert df.attrs["simulated"] == 8
    stored = runs(cache)
    args = [str(CLI), "sweep", str(INCAST), "--out", str(tmp_path / "cli"), "--cache", str(cache), "-q", *CLI_GRID]
    p = subprocess.run(args, capture_output=True, text=True, cwd=REPO)
    assert p.returncode == 0, p.stderr
    assert "8 points: 0 simulated, 8 from the cache, 0 failed" in p.stdout, SAME_BUILD + p.stdout
    assert runs(cache) == stored
    cli = pd.read_csv(tmp_path / "cli" / "incast-16to1" / "sweep.csv")
    a = df.assign(value=df.value.round(6)).drop(columns=["trace.flows"])
    pd.testing.assert_frame_equal(a, cli.drop(columns=["trace.flows"]), check_dtype=False)
