"""Sweeps on this machine without Dask: threads by default (a plain script
needs no main guard), processes on request, grid values, and progress for
a terminal, a log file and a notebook."""

import io
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import ccsim

REPO = Path(__file__).resolve().parents[3]
INCAST = REPO / "scenarios" / "incast-16to1.toml"
SMALL = {"workload[0].fan_in": [2, 3], "trace.flows": [[0]], "scheme": ["dcqcn", "hpcc"], "seed": [1, 2]}


def test_a_plain_script_without_a_main_guard_prints_a_dataframe(tmp_path):
    # the script, run as a file: no `if __name__ == "__main__":`
    (tmp_path / "scenarios").mkdir()
    shutil.copy(REPO / "scenarios" / "quickstart.toml", tmp_path / "scenarios")
    script = tmp_path / "sweep_it.py"
    script.write_text(
        'import ccsim; print(ccsim.sweep("scenarios/quickstart.toml", '
        'grid={"scheme": ["hpcc", "dcqcn"], "seed": [1, 2]}))\n'
    )
    p = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "scheme  seed     status" in p.stdout and "[140 rows x 5 columns]" in p.stdout
    assert "hpcc" in p.stdout and "dcqcn" in p.stdout
    # progress on stderr, a pipe here: plain lines, no carriage returns
    assert "\r" not in p.stderr and "sweep: 4/4 points (0 cached)" in p.stderr
    assert (tmp_path / "results" / "quickstart" / "sweep" / "sweep.parquet").is_file()


def test_a_string_grid_value_is_one_point(tmp_path):
    df = ccsim.sweep(INCAST, {"workload[0].fan_in": 2, "trace.flows": [[0]], "scheme": "hpcc"}, out=tmp_path,
                     progress=False)
    assert df.attrs["failed"] == {}
    assert list(df.scheme.unique()) == ["hpcc"] and list(df["workload[0].fan_in"].unique()) == [2]
    assert df[df.metric == "finished"].value.tolist() == [2]
    # the losses are metrics of every point (issue 32)
    assert {"retransmits", "timeouts", "trimmed", "drops", "pause_frames"} <= set(df.metric)
    # a tuple or range holds several values; a str stays whole
    df = ccsim.sweep(INCAST, {"workload[0].fan_in": (2, 3), "trace.flows": [[0]], "scheme": "dcqcn",
                              "seed": range(1, 3)}, out=tmp_path, progress=False)
    points = df[["workload[0].fan_in", "seed"]].drop_duplicates()
    assert len(points) == 4 and set(df.scheme) == {"dcqcn"}
    with pytest.raises(ccsim.ScenarioError, match="bytes cannot be written"):
        ccsim.sweep(INCAST, {"stop": b"1ms"}, out=tmp_path)


def test_threads_and_processes_give_the_same_rows(tmp_path):
    threads = ccsim.sweep(INCAST, SMALL, out=tmp_path / "threads", progress=False)
    one = ccsim.sweep(INCAST, SMALL, out=tmp_path / "one", jobs=1, progress=False)
    procs = ccsim.sweep(INCAST, SMALL, out=tmp_path / "procs", processes=True, jobs=2, progress=False)
    assert len(threads) > 8 * 30 and (threads.status == "completed").all()
    pd.testing.assert_frame_equal(threads, one)
    pd.testing.assert_frame_equal(threads, procs)
    with pytest.raises(ValueError, match="jobs = 0"):
        ccsim.sweep(INCAST, SMALL, out=tmp_path, jobs=0)


def test_progress_in_a_log_is_a_line_per_tenth_of_the_points(tmp_path, capsys):
    grid = {"workload[0].fan_in": [2, 3, 4, 5], "trace.flows": [[0]], "scheme": ["dcqcn", "hpcc"], "seed": [1, 2, 3]}
    ccsim.sweep(INCAST, grid, out=tmp_path)
    err = capsys.readouterr().err
    assert "\r" not in err and "\x1b" not in err
    lines = err.splitlines()
    assert lines[0].startswith("sweep: 0/24 points (0 cached)")
    assert lines[-1].startswith("sweep: 24/24 points (0 cached)")
    assert 5 <= len(lines) <= 14, lines
    # a resumed sweep counts what it found (without the run cache, which
    # holds the removed point's run too)
    (tmp_path / "points").iterdir().__next__().unlink()
    df = ccsim.sweep(INCAST, grid, out=tmp_path, cache=None)
    err = capsys.readouterr().err
    assert "\r" not in err and "\x1b" not in err
    lines = err.splitlines()
    assert lines[0].startswith("sweep: 23/24 points (23 cached)") and lines[-1].startswith("sweep: 24/24")
    assert len(lines) == 2 and (df.attrs["simulated"], df.attrs["resumed"]) == (1, 23)
    # a sweep with some points in the run cache counts them as cached
    for f in list((tmp_path / "points").iterdir())[:6]:
        f.unlink()
    df = ccsim.sweep(INCAST, dict(grid, seed=[1, 2, 3, 4]), out=tmp_path)
    err = capsys.readouterr().err
    assert "\r" not in err and "\x1b" not in err
    lines = err.splitlines()
    assert lines[0].startswith("sweep: 24/32 points (24 cached)") and lines[-1].startswith("sweep: 32/32 points (24 cached)")
    assert (df.attrs["simulated"], df.attrs["cached"], df.attrs["resumed"]) == (8, 6, 18)


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_on_a_terminal_is_one_line_that_fits(tmp_path, monkeypatch):
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    for columns in (30, 100):
        monkeypatch.setenv("COLUMNS", str(columns))
        term.seek(0), term.truncate()
        ccsim.sweep(INCAST, SMALL, out=tmp_path / str(columns), cache=None)
        out = term.getvalue()
        assert out.endswith("\n") and out.count("\n") == 1, "one line, redrawn"
        frames = [f.replace("\x1b[K", "") for f in out.rstrip("\n").split("\r") if f]
        assert frames and all(len(f) < columns for f in frames), frames
    assert frames[-1].startswith("[####################] sweep: 8/8 points (0 cached)"), frames[-1]


def test_progress_in_a_notebook_is_one_output(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    code = (
        "import ccsim\n"
        f"df = ccsim.sweep({str(INCAST)!r}, {SMALL!r}, out={str(tmp_path)!r})\n"
        "len(df)"
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    outputs = nb.cells[0].outputs
    shown = [o for o in outputs if o.output_type == "display_data"]
    assert len(shown) == 1, outputs
    assert shown[0]["data"]["text/plain"].startswith("sweep: 8/8 points (0 cached)")
    assert not [o for o in outputs if o.output_type == "stream"], outputs
    assert outputs[-1]["data"]["text/plain"] != "0"


def test_a_sweep_of_a_job_has_its_time_iterations_and_resends(tmp_path):
    # scenarios/allreduce-ring.toml: workload[0] is an 8-rank ring all-reduce, 2 iterations
    ring = REPO / "scenarios" / "allreduce-ring.toml"
    df = ccsim.sweep(ring, {"workload[0].size": ["1MB", "4MB"], "scheme": "hpcc"}, out=tmp_path, progress=False)
    v = df.set_index(["workload[0].size", "metric"])["value"]
    for size in ["1MB", "4MB"]:
        t, mean, top = v[(size, "job0_time_us")], v[(size, "job0_iteration_mean_us")], v[(size, "job0_iteration_max_us")]
        # two iterations and 50 us of compute between them
        assert mean <= top and 2 * mean + 50 <= t * 1.05, (size, t, mean, top)
        assert v[(size, "job0_retransmits")] == 0 and v[(size, "job0_trimmed")] == 0
    assert v[("4MB", "job0_time_us")] > 2.5 * v[("1MB", "job0_time_us")]
