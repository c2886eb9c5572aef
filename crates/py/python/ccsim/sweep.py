"""Sweeps on Dask: a scenario at every point of a grid, on this machine or a cluster.

The grid, the points and the metrics are the simulator's own (the engine of
``ccsim sweep``); Dask only carries the points to workers and the rows
back. Each finished point is written at once to ``<out>/points/<key>.parquet``
(``key`` identifies the run: scenario, overrides, scheme, seed and this
build), so an interrupted sweep resumes where it stopped and a repeated one
runs nothing.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from . import _native

Grid = Mapping[str, Iterable[Any]]


def _run_point(spec: str) -> Tuple[str, List[Tuple[str, float]]]:
    """What a worker runs: one point (a run spec as JSON) -> (status, metrics)."""
    return _native.run_point(spec)


def _version() -> str:
    return _native.version_of(_native.__file__)


def _axes(scenario_schemes: List[str], grid: Grid) -> List[Tuple[str, List[Any]]]:
    axes = [(str(k), list(v)) for k, v in grid.items()]
    for k, v in axes:
        if not v:
            raise _native.ScenarioError(f"grid {k!r}: no values")
    if not any(k == "scheme" for k, _ in axes):
        axes.append(("scheme", list(scenario_schemes)))
    return axes


class _Session:
    """The Dask client for ``client=``, closing what it opened itself."""

    def __init__(self, client: Any) -> None:
        from distributed import Client, LocalCluster

        self.cluster = None
        self.owned = client is None or isinstance(client, str)
        if client is None:
            self.cluster = LocalCluster(
                n_workers=os.cpu_count() or 1, threads_per_worker=1, processes=True, dashboard_address=":0"
            )
            self.client = Client(self.cluster)
        elif isinstance(client, str):
            self.client = Client(client)
        else:
            self.client = client

    def close(self) -> None:
        if self.owned:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _progress(done: int, total: int, cached: int, failed: int, t0: float, ran: int) -> None:
    el = time.perf_counter() - t0
    left = total - done
    eta = f" | ETA {el / ran * left:.0f}s" if ran and left else ""
    fail = f", {failed} failed" if failed else ""
    sys.stderr.write(f"\r{done}/{total} points ({cached} cached{fail}) | {el:.0f}s{eta}   ")
    sys.stderr.flush()


def sweep(
    scenario: Union[str, os.PathLike, Any],
    grid: Grid,
    *,
    client: Any = None,
    out: Union[str, os.PathLike, None] = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Runs ``scenario`` at every point of ``grid``; returns one tidy DataFrame.

    ``grid`` maps keys to values: ``"scheme"``, ``"seed"`` or any scenario
    key path (``"workload[0].load": [0.3, 0.5, 0.8]``, ``"seed": range(5)``).
    Points are the product, first key slowest; without a ``scheme`` key
    every scheme of the scenario runs. ``scenario`` is a scenario file (or
    a :class:`ccsim.Scenario` loaded from one): workers read it, so on a
    cluster it must be at the same path on every worker.

    ``client``: ``None`` starts a local ``dask.distributed`` cluster (one
    worker process per core) for the sweep; a ``distributed.Client`` or a
    scheduler address (``"tcp://host:8786"``) runs it on that cluster
    (``ccsim`` must be installed on its workers).

    Each point is written to ``<out>/points/<key>.parquet`` as it finishes
    (default ``out``: ``results/<scenario name>/sweep``), so an interrupted
    sweep resumes with the points not yet done; the whole table is also
    written to ``<out>/sweep.parquet``. A failing point is reported (on
    stderr and in ``df.attrs["failed"]``: point -> error) and does not stop
    the others.

    The result has one row per point and metric: the grid's keys as
    columns (with their values as given), ``scheme`` and ``seed`` if not in
    the grid, ``status``, ``metric`` and ``value``. Metrics: flows,
    finished, slowdown_avg/p50/p95/p99 overall and per size bucket
    (``slowdown_lt100KB_p99`` ...), fct_avg_us, fct_p99_us, drops,
    pause_frames, paused_time_us, max_queue_bytes, traced queue and
    fairness when traced, sim_end_us, events, data_packets.
    """
    from . import Scenario, load

    if isinstance(scenario, Scenario):
        path = Path(scenario._native.label)
        if scenario._native.overrides:
            raise _native.ScenarioError(
                f"{scenario._native.label}: sweep reads the scenario file again on each worker, so the overrides "
                f"it was loaded with ({', '.join(scenario._native.overrides)}) would be lost: put them in the grid "
                "(one value each) or pass the file's path"
            )
        if not path.is_file():
            raise _native.ScenarioError(
                f"sweep needs a scenario file (workers read it); {scenario._native.label!r} is not one"
            )
    else:
        path = Path(scenario)
    path = path.resolve()
    base = load(path)
    axes = _axes(base.schemes, grid)
    planned = _native.plan_sweep(str(path), axes, _version())
    combos = list(itertools.product(*[v for _, v in axes]))
    assert len(combos) == len(planned)
    keys = [k for k, _ in axes]
    extra = [k for k in ("scheme", "seed") if k not in keys]

    out_dir = Path(out) if out is not None else Path("results") / base.name / "sweep"
    points_dir = out_dir / "points"
    points_dir.mkdir(parents=True, exist_ok=True)

    def fixed(i: int, spec_json: str) -> Dict[str, Any]:
        row = dict(zip(keys, combos[i]))
        spec = json.loads(spec_json)
        for k in extra:
            row[k] = spec[k]
        return row

    specs = [s for _, s in planned]
    run_keys = [json.loads(s)["key"] for s in specs]
    todo = [i for i, k in enumerate(run_keys) if not (points_dir / f"{k}.parquet").is_file()]
    cached = len(specs) - len(todo)
    failed: Dict[str, str] = {}
    t0 = time.perf_counter()
    if todo:
        from distributed import as_completed

        session = _Session(client)
        dask_client = session.client
        try:
            futures = {
                dask_client.submit(_run_point, specs[i], key=f"ccsim-point-{run_keys[i]}", pure=False): i for i in todo
            }
            done, ran = cached, 0
            if progress:
                _progress(done, len(specs), cached, 0, t0, 0)
            for fut in as_completed(futures):
                i = futures[fut]
                label = " ".join(f"{k}={v}" for k, v in planned[i][0])
                try:
                    status, metrics = fut.result()
                except Exception as e:  # a failing point is reported, the others go on
                    failed[label] = f"{type(e).__name__}: {e}"
                else:
                    _write_point(points_dir, run_keys[i], fixed(i, specs[i]), status, metrics)
                    ran += 1
                done += 1
                if progress:
                    _progress(done, len(specs), cached, len(failed), t0, ran)
        finally:
            session.close()
        if progress:
            sys.stderr.write("\n")
    for label, err in failed.items():
        sys.stderr.write(f"error: point [{label}]: {err}\n")
    files = [points_dir / f"{k}.parquet" for k in run_keys]
    frames = [pq.read_table(f).to_pandas() for f in files if f.is_file()]
    columns = keys + extra + ["status", "metric", "value"]
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    df.to_parquet(out_dir / "sweep.parquet", index=False)
    df.attrs["failed"] = failed
    return df


def _write_point(dir: Path, key: str, fixed: Dict[str, Any], status: str, metrics: List[Tuple[str, float]]) -> None:
    """One point's rows, written to a temporary file and renamed into place."""
    n = len(metrics)
    cols = {k: [v] * n for k, v in fixed.items()}
    cols["status"] = [status] * n
    cols["metric"] = [m for m, _ in metrics]
    cols["value"] = [v for _, v in metrics]
    table = pa.Table.from_pandas(pd.DataFrame(cols), preserve_index=False)
    tmp = dir / f".{key}.parquet.tmp-{os.getpid()}"
    pq.write_table(table, tmp)
    os.replace(tmp, dir / f"{key}.parquet")
