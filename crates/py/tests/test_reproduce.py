"""ccsim.reproduce on a 2-worker local Dask cluster: the plan, cache and
report of `ccsim reproduce`, on the tiny test manifest."""

import io
import sys
from pathlib import Path

import pytest

import ccsim

distributed = pytest.importorskip("distributed")

REPO = Path(__file__).resolve().parents[3]
TINY = REPO / "crates" / "repro" / "tests" / "tiny"


def test_reproduce_runs_the_plan_on_dask_then_answers_from_the_cache(tmp_path, capsys):
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    client = distributed.Client(cluster)
    try:
        kw = dict(experiments=TINY, client=client, out=tmp_path / "out", cache=tmp_path / "cache")
        (tiny,) = ccsim.reproduce("tiny", **kw)
    finally:
        client.close()
        cluster.close()
    # the same verdicts as `ccsim reproduce tiny` (crates/cli/tests/cli.rs)
    keys = ["results", "reproduced", "direction_only", "not_reproduced", "inconclusive", "error", "not_simulated"]
    assert [tiny[k] for k in keys] == [5, 3, 1, 1, 0, 0, 1], tiny
    assert [tiny[k] for k in ["headline", "headline_reproduced", "checks", "checks_held"]] == [2, 1, 1, 1], tiny
    assert Path(tiny["report"]).is_file() and (tmp_path / "out" / "tiny" / "report.html").is_file()
    assert len(list((tmp_path / "cache").glob("*.run"))) == 7
    err = capsys.readouterr().err
    assert "tiny: 7 runs (0 cached)" in err
    # progress into a file or pipe (capsys is neither a terminal nor a
    # notebook): plain lines, no carriage returns or escape codes
    assert "\r" not in err and "\x1b" not in err
    lines = [l for l in err.splitlines() if l.startswith("reproduce: ")]
    assert lines[0].startswith("reproduce: 0/7 runs (0 cached)"), err
    assert lines[-1].startswith("reproduce: 7/7 runs (0 cached)"), err
    assert 2 <= len(lines) <= 9, lines
    # everything cached now: no cluster is started, the same report comes back
    (again,) = ccsim.reproduce("tiny", experiments=TINY, out=tmp_path / "out2", cache=tmp_path / "cache")
    assert "tiny: 7 runs (7 cached)" in capsys.readouterr().err
    assert {k: v for k, v in again.items() if k != "report"} == {k: v for k, v in tiny.items() if k != "report"}
    with pytest.raises(ccsim.ScenarioError, match="unknown paper 'nope'"):
        ccsim.reproduce("nope", experiments=TINY, out=tmp_path, cache=tmp_path / "cache")


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_reproduce_progress_on_a_terminal_is_one_line_that_fits(tmp_path, monkeypatch):
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    monkeypatch.setenv("COLUMNS", "40")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    client = distributed.Client(cluster)
    try:
        ccsim.reproduce("tiny", experiments=TINY, client=client, out=tmp_path / "out", cache=tmp_path / "cache")
    finally:
        client.close()
        cluster.close()
    head, bar = term.getvalue().split("\n", 1)
    assert head == "tiny: 7 runs (0 cached)"
    assert bar.endswith("\n") and bar.count("\n") == 1, "one line, redrawn"
    frames = [f.replace("\x1b[K", "") for f in bar.rstrip("\n").split("\r") if f]
    assert len(frames) >= 2 and all(len(f) < 40 for f in frames), frames
    assert frames[-1].startswith("reproduce: 7/7 runs (0 cached)"), frames
