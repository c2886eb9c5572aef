"""`ccsim.open`: a results folder written by `ccsim run` (CSV or Parquet) or
by `Result.write` comes back as the `Result` that `ccsim.run` returned."""

import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import ccsim

REPO = Path(__file__).resolve().parents[3]
CLI = Path(os.environ.get("CCSIM_BIN", REPO / "target" / "release" / "ccsim"))
INCAST = REPO / "scenarios" / "incast-16to1.toml"
RPC = REPO / "scenarios" / "rpc-closed-loop.toml"
TABLES = ["flows", "conns", "ports", "queues", "utilization", "traces"]
needs_cli = pytest.mark.skipif(not CLI.exists(), reason="the ccsim binary is built by scripts/test.sh")


def cli_run(out, scenario, *args):
    subprocess.run(
        [str(CLI), "run", str(scenario), "--out", str(out), "-q", "--force", *args],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    (d,) = [p for p in out.glob("*/*") if p.is_dir()]
    return d


def assert_same_run(opened, r, exact):
    """`opened` holds `r`'s numbers: exactly from Parquet, to 6 decimals from CSV."""
    assert (opened.scheme, opened.status) == (r.scheme, r.status)
    a, b = dict(opened.summary), dict(r.summary)
    # the file label is the path as given to each; everything else is equal
    a.pop("file"), b.pop("file")
    assert a == b
    assert opened.run_info["events"] == r.summary["engine"]["events"]
    for name in TABLES:
        got, want = getattr(opened, name), getattr(r, name)
        assert list(got.columns) == list(want.columns), name
        assert len(want) > 0 or name == "conns", f"{name}: the scenario should fill it"
        if not exact:
            got, want = got.round(6), want.round(6)
        # same columns, types and numbers
        pd.testing.assert_frame_equal(got, want, obj=name)


@needs_cli
def test_a_cli_run_opens_as_the_result_of_ccsim_run(tmp_path):
    d = cli_run(tmp_path / "cli", INCAST, "--scheme", "dcqcn")
    assert (d / "flows.csv").is_file() and (d / "queues.csv").is_file()
    opened = ccsim.open(d)
    assert isinstance(opened, ccsim.Result)
    assert_same_run(opened, ccsim.run(INCAST, scheme="dcqcn"), exact=False)


@needs_cli
def test_a_parquet_run_opens_with_the_exact_numbers(tmp_path):
    d = cli_run(tmp_path / "cli", INCAST, "--scheme", "hpcc", "--seed", "3", "--format", "parquet")
    assert (d / "flows.parquet").is_file() and not (d / "flows.csv").exists()
    opened = ccsim.open(str(d))
    r = ccsim.run(INCAST, scheme="hpcc", seed=3)
    pd.testing.assert_frame_equal(opened.flows, r.flows)
    pd.testing.assert_frame_equal(opened.ports, r.ports)
    # the traces are streamed as CSV text and converted, so they carry its rounding
    assert_same_run(opened, r, exact=False)


def test_a_written_result_opens_again(tmp_path):
    r = ccsim.run(ccsim.load(RPC, set={"workload[0].duration": "1ms"}), scheme="hpcc")
    opened = ccsim.open(r.write(tmp_path / "run"))
    assert opened.summary == r.summary
    assert len(opened.conns) > 0
    for name in ["flows", "conns", "ports"]:
        pd.testing.assert_frame_equal(getattr(opened, name).round(6), getattr(r, name).round(6), obj=name)
    # `write` streams no traces: the trace tables are empty, with the run's columns and types
    assert opened.queues.empty and opened.traces.empty
    assert opened.queues.dtypes.to_dict() == r.queues.dtypes.to_dict()
    # an opened result writes its files again
    again = opened.write(tmp_path / "copy")
    assert json.loads((again / "summary.json").read_text()) == r.summary
    assert (again / "flows.csv").read_bytes() == (tmp_path / "run" / "flows.csv").read_bytes()
    assert "hpcc" in repr(opened)


def test_what_is_not_a_run_folder_is_named(tmp_path):
    with pytest.raises(ValueError, match="not a results folder of `ccsim run` \\(no such folder\\)"):
        ccsim.open(tmp_path / "missing")
    with pytest.raises(ValueError, match="no summary.json"):
        ccsim.open(tmp_path)
    # a `ccsim compare` folder holds one run per scheme
    r = ccsim.run(INCAST, scheme="dcqcn", set={"workload[0].fan_in": 2, "trace.flows": [0]})
    r.write(tmp_path / "compare" / "dcqcn")
    r.write(tmp_path / "compare" / "hpcc")
    with pytest.raises(ValueError, match="holds the runs of dcqcn, hpcc: open one of them"):
        ccsim.open(tmp_path / "compare")
