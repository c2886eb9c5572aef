"""The example notebook runs end to end (on a tiny grid) and draws its plots."""

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("matplotlib")
pytest.importorskip("distributed")

REPO = Path(__file__).resolve().parents[3]


def test_the_sweep_notebook_runs_and_plots(tmp_path, monkeypatch):
    monkeypatch.setenv("CCSIM_NOTEBOOK_TINY", "1")
    monkeypatch.setenv("CCSIM_NOTEBOOK_OUT", str(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(REPO / "examples" / "sweep-load-scheme.ipynb", as_version=4)
    # run as from the repository's examples/ folder, but in a copy of that
    # layout, so that what goes under the current directory (the sweep's
    # run cache, results/cache) stays out of the repository
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios", target_is_directory=True)
    here = tmp_path / "examples"
    here.mkdir()
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(here)}}).execute()
    assert len(list((here / "results" / "cache").glob("*.run"))) == 4
    for png in ["p99_vs_load.png", "queue.png"]:
        assert (tmp_path / png).stat().st_size > 10_000, png
    # the stats cell shows a p99 per scheme and load: 2 x 2 on the tiny grid
    stats = nb.cells[4].outputs[-1]["data"]["text/plain"]
    assert "dcqcn" in stats and "hpcc" in stats
    assert len([l for l in stats.splitlines()[1:] if l.strip()]) == 4
    # the queue cell reports a peak queue per scheme
    peaks = nb.cells[6].outputs[-1]["data"]["text/plain"]
    assert "'dcqcn'" in peaks and "'hpcc'" in peaks
