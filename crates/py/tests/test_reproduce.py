"""ccsim.reproduce on a 2-worker local Dask cluster: the plan, cache and
report of `ccsim reproduce`, on the tiny test manifest."""

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
    assert "tiny: 7 runs (0 cached)" in capsys.readouterr().err
    # everything cached now: no cluster is started, the same report comes back
    (again,) = ccsim.reproduce("tiny", experiments=TINY, out=tmp_path / "out2", cache=tmp_path / "cache")
    assert "tiny: 7 runs (7 cached)" in capsys.readouterr().err
    assert {k: v for k, v in again.items() if k != "report"} == {k: v for k, v in tiny.items() if k != "report"}
    with pytest.raises(ccsim.ScenarioError, match="unknown paper 'nope'"):
        ccsim.reproduce("nope", experiments=TINY, out=tmp_path, cache=tmp_path / "cache")
