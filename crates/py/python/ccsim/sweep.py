"""Sweeps: a scenario at every point of a grid, in threads of this process,
in worker processes, or on a Dask cluster.

The grid, the points and the metrics are the simulator's own (the engine of
``ccsim sweep``); threads, processes or Dask workers only carry the points
to the simulator and the rows back. Threads are the default: a point runs
with the GIL released, so threads simulate in parallel, and nothing is
started that imports the calling script again, so a plain script or a
notebook needs no ``if __name__ == "__main__":`` guard.

Runs share the run cache of ``ccsim sweep`` and ``ccsim reproduce``
(``results/cache``, one ``<key>.run`` file per run; ``key`` identifies the
run: what the scenario, overrides, scheme and seed make, and the simulator
build): a point whose run is there is read from it, not simulated, and a
point simulated here is stored there, so the command line finds it too.
Each finished point is also written at once to
``<out>/points/<key>.parquet``, so an interrupted sweep resumes where it
stopped and a repeated one runs nothing, with the cache or without it.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import shutil
import sys
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures import as_completed as _futures_completed
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from . import _native
from ._api import Scenario, load

Grid = Mapping[str, Any]


Metrics = Tuple[str, List[Tuple[str, float]]]


def _run_point(spec: str, cache: Optional[str] = None) -> Metrics:
    """What a thread or worker process runs: one point (a run spec as JSON)
    -> (status, metrics); with ``cache``, the run is stored there too."""
    return _native.run_point(spec, cache)


def _run_encoded(spec: str) -> bytes:
    """What a Dask worker runs when the client keeps a run cache: one run
    (JSON) -> the run as the cache stores it, for the client to store."""
    return _native.run_encoded(spec)


def _cache_dir(cache: Union[str, os.PathLike, bool, None]) -> Optional[str]:
    """``cache=`` as an absolute folder, or None when disabled."""
    if cache is None or cache is False:
        return None
    if cache is True:
        cache = "results/cache"
    return os.path.abspath(os.fspath(cache))


def _version() -> str:
    return _native.version_of(_native.__file__)


def _values(v: Any) -> List[Any]:
    """A grid entry as its values: a list, tuple, range or other iterable
    holds several; a str, bytes, dict or a scalar is one value."""
    if isinstance(v, (str, bytes, bytearray, Mapping)) or not hasattr(v, "__iter__"):
        return [v]
    return list(v)


def _axes(scenario_schemes: List[str], grid: Grid) -> List[Tuple[str, List[Any]]]:
    axes = [(str(k), _values(v)) for k, v in grid.items()]
    for k, v in axes:
        if not v:
            raise _native.ScenarioError(f"grid {k!r}: no values")
    if not any(k == "scheme" for k, _ in axes):
        axes.append(("scheme", list(scenario_schemes)))
    return axes


class _Session:
    """The Dask client for ``client=``, closing what it opened itself:
    ``None`` or ``"local"`` starts a local cluster (one worker process per
    core), another string is a scheduler's address, anything else is a
    ``distributed.Client``."""

    def __init__(self, client: Any) -> None:
        from distributed import Client, LocalCluster

        self.cluster = None
        self.owned = client is None or isinstance(client, str)
        if client is None or client == "local":
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


class _Runner:
    """Where a sweep's points run: threads (the default), processes, or Dask.

    With a run cache, threads and processes (this machine) store each run
    themselves; Dask workers, which may be elsewhere, send the run back and
    :meth:`outcome` stores it here."""

    def __init__(self, jobs: Optional[int], processes: bool, client: Any, cache: Optional[str]) -> None:
        self.session: Optional[_Session] = None
        self.pool: Optional[Executor] = None
        self.cache = cache
        if client is not None:
            self.session = _Session(client)
        elif processes:
            self.pool = ProcessPoolExecutor(max_workers=jobs)
        else:
            self.pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="ccsim-sweep")

    def submit(self, spec: str, key: str) -> Any:
        if self.session is not None:
            fn = _run_encoded if self.cache is not None else _run_point
            return self.session.client.submit(fn, spec, key=f"ccsim-point-{key}", pure=False)
        assert self.pool is not None
        return self.pool.submit(_run_point, spec, self.cache)

    def outcome(self, fut: Any) -> Metrics:
        """A finished future's (status, metrics); raises what the point raised."""
        if self.session is not None and self.cache is not None:
            return _native.point_of_encoded(fut.result(), self.cache)
        return fut.result()

    def completed(self, futures: Iterable[Any]) -> Iterable[Any]:
        if self.session is not None:
            from distributed import as_completed

            return as_completed(list(futures))
        return _futures_completed(list(futures))

    def close(self, finished: bool) -> None:
        """Frees the workers; after an error or Ctrl-C, points not yet started are dropped."""
        if self.session is not None:
            self.session.close()
        elif self.pool is not None:
            self.pool.shutdown(wait=finished, cancel_futures=not finished)


def _in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (IPython with a ZMQ front end)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _secs(s: float) -> str:
    if s < 100:
        return f"{s:.0f}s"
    if s < 6000:
        return f"{s / 60:.0f}min"
    return f"{s / 3600:.1f}h"


class _Progress:
    """How far a sweep (or a reproduction) is, in the form its output can show:

    - a terminal: one line, redrawn in place, never wider than the terminal;
    - Jupyter: one text output, updated in place (an IPython display handle);
    - anything else (a log file, a pipe): a plain line at the start, after
      every tenth of the points to run and at the end; no carriage returns.
    """

    def __init__(
        self, total: int, cached: int, stream: Any = None, label: str = "sweep", unit: str = "points"
    ) -> None:
        self.total, self.cached, self.done, self.ran, self.failed = total, cached, cached, 0, 0
        self.label, self.unit = label, unit
        self.stream = stream if stream is not None else sys.stderr
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.handle: Any = None
        if _in_notebook():
            self.mode = "notebook"
        elif getattr(self.stream, "isatty", lambda: False)():
            self.mode = "tty"
        else:
            self.mode = "log"
        self.step = max(1, math.ceil((total - cached) / 10))
        self._show(force=True)

    def point(self, failed: bool) -> None:
        self.done += 1
        if failed:
            self.failed += 1
        else:
            self.ran += 1
        self._show(force=self.done == self.total)

    def text(self, width: Optional[int] = None) -> str:
        """The progress line; with ``width``, a bar in front when it fits, cut to ``width - 1``."""
        el = time.perf_counter() - self.t0
        left = self.total - self.done
        eta = f" | ETA {_secs(el / self.ran * left)}" if self.ran and left else ""
        fail = f", {self.failed} failed" if self.failed else ""
        line = f"{self.label}: {self.done}/{self.total} {self.unit} ({self.cached} cached{fail}) | {_secs(el)}{eta}"
        if width is None:
            return line
        bar = 20
        if width - 1 - len(line) - 3 >= bar:
            full = bar * self.done // max(self.total, 1)
            line = f"[{'#' * full}{'.' * (bar - full)}] {line}"
        return line[: max(width - 1, 1)]

    def _show(self, force: bool) -> None:
        now = time.perf_counter()
        if self.mode == "notebook":
            if not force and now - self.last < 0.5:
                return
            from IPython.display import display

            out = {"text/plain": self.text()}
            if self.handle is None:
                self.handle = display(out, raw=True, display_id=True)
            else:
                self.handle.update(out, raw=True)
        elif self.mode == "tty":
            if not force and now - self.last < 0.2:
                return
            width = shutil.get_terminal_size().columns
            self.stream.write("\r" + self.text(width) + "\x1b[K")
            self.stream.flush()
        else:
            if not force and (self.done - self.cached) % self.step:
                return
            self.stream.write(self.text() + "\n")
            self.stream.flush()
        self.last = now

    def close(self) -> None:
        if self.mode == "tty":
            self.stream.write("\n")
            self.stream.flush()


def sweep(
    scenario: Union[str, os.PathLike, Any],
    grid: Grid,
    *,
    jobs: Optional[int] = None,
    processes: bool = False,
    client: Any = None,
    out: Union[str, os.PathLike, None] = None,
    cache: Union[str, os.PathLike, bool, None] = "results/cache",
    progress: bool = True,
) -> pd.DataFrame:
    """Runs ``scenario`` at every point of ``grid``; returns one tidy DataFrame.

    ``grid`` maps keys to values: ``"scheme"``, ``"seed"`` or any scenario
    key path (``"workload[0].load": [0.3, 0.5, 0.8]``, ``"seed": range(5)``).
    A list, tuple, range or other iterable holds several values; a str (or
    bytes, dict, number) is one value (``"scheme": "hpcc"`` is one point).
    Points are the product, first key slowest; without a ``scheme`` key
    every scheme of the scenario runs. ``scenario`` is a scenario file (or
    a :class:`ccsim.Scenario` loaded from one): workers read it, so on a
    cluster it must be at the same path on every worker.

    Where points run:

    - by default in ``jobs`` threads of this process (default: one per
      core); a point runs with the GIL released, so they run in parallel,
      and no ``if __name__ == "__main__":`` guard is needed in a script or
      a notebook;
    - ``processes=True``: in ``jobs`` worker processes
      (``concurrent.futures``; the usual guard is needed where Python
      starts processes by spawning, as on macOS and Windows);
    - ``client``: on Dask (``pip install 'ccsim[sweep]'``): a
      ``distributed.Client``, a scheduler address (``"tcp://host:8786"``;
      ``ccsim`` must be installed on its workers), or ``"local"`` to start a
      local ``dask.distributed`` cluster of one worker process per core
      (which needs the guard).

    ``cache`` is the run cache of ``ccsim sweep`` and ``ccsim reproduce``
    (default ``"results/cache"``, relative to the current directory, as on
    the command line; ``None`` or ``False``: no cache). A point whose run
    is in it (from this function, ``ccsim sweep`` or ``ccsim reproduce``
    with the same simulator build: the run's key includes the build) is
    read from it instead of simulated, with the same values a simulation
    gives; each point simulated here is stored in it as it finishes (on
    Dask, by this process, so workers need no access to it), where a later
    ``ccsim sweep`` of the same point finds it.

    Each point is written to ``<out>/points/<key>.parquet`` as it finishes
    (default ``out``: ``results/<scenario name>/sweep``), so an interrupted
    sweep resumes with the points not yet done, even without a cache; the
    whole table is also written to ``<out>/sweep.parquet``. A failing point
    is reported (on stderr and in ``df.attrs["failed"]``: point -> error)
    and does not stop the others. Where the points came from is counted in
    ``df.attrs``: ``"simulated"`` (now), ``"cached"`` (read from the run
    cache), ``"resumed"`` (already in ``<out>/points``); ``"cache"`` is the
    cache folder used (or None). ``progress`` shows how far it is on
    stderr: one line redrawn in a terminal, one updated output in Jupyter,
    a plain line every tenth of the points in a log file or pipe.

    The result has one row per point and metric: the grid's keys as
    columns (with their values as given), ``scheme`` and ``seed`` if not in
    the grid, ``status``, ``metric`` and ``value``. Metrics: flows,
    finished, slowdown_avg/p50/p95/p99 overall and per size bucket
    (``slowdown_lt100KB_p99`` ...), fct_avg_us, fct_p99_us, drops,
    pause_frames, retransmits (data packets resent), timeouts
    (retransmission timeouts), trimmed (packets), paused_time_us,
    max_queue_bytes, traced queue and
    fairness when traced, sim_end_us, events, data_packets; per job (a
    workload entry made of messages: collective, dag, chakra, rpc; ``w`` its
    ``[[workload]]`` index) ``job<w>_time_us``, ``job<w>_iteration_mean_us``,
    ``job<w>_iteration_max_us``, ``job<w>_retransmits``, ``job<w>_trimmed``
    (a time is NaN while the job is unfinished).
    """

    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs = {jobs}: must be at least 1")
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
    cache_dir = _cache_dir(cache)
    labels = [" ".join(f"{k}={v}" for k, v in planned[i][0]) for i in range(len(specs))]
    # where each point's rows come from: this sweep's points folder (an
    # earlier call with the same `out`), the run cache, or a simulation
    # (once per distinct run: two points can be the same run)
    resumed = {i for i, k in enumerate(run_keys) if (points_dir / f"{k}.parquet").is_file()}
    cached: List[int] = []
    by_key: Dict[str, List[int]] = {}
    found: Dict[str, Optional[Metrics]] = {}
    for i, k in enumerate(run_keys):
        if i in resumed:
            continue
        if cache_dir is not None:
            if k not in found:
                found[k] = _native.cached_point(cache_dir, k)
            hit = found[k]
            if hit is not None:
                _write_point(points_dir, k, fixed(i, specs[i]), *hit)
                cached.append(i)
                continue
        by_key.setdefault(k, []).append(i)
    todo = [i for idx in by_key.values() for i in idx]
    failed: Dict[str, str] = {}
    if by_key:
        runner = _Runner(jobs, processes, client, cache_dir)
        bar = _Progress(len(specs), len(specs) - len(todo)) if progress else None
        finished = False
        try:
            futures = {runner.submit(specs[idx[0]], k): k for k, idx in by_key.items()}
            for fut in runner.completed(futures):
                k = futures[fut]
                idx = by_key[k]
                try:
                    status, metrics = runner.outcome(fut)
                except Exception as e:  # a failing point is reported, the others go on
                    for i in idx:
                        failed[labels[i]] = f"{type(e).__name__}: {e}"
                else:
                    _write_point(points_dir, k, fixed(idx[0], specs[idx[0]]), status, metrics)
                for i in idx:
                    if bar is not None:
                        bar.point(labels[i] in failed)
            finished = True
        finally:
            runner.close(finished)
            if bar is not None:
                bar.close()
    for label, err in failed.items():
        sys.stderr.write(f"error: point [{label}]: {err}\n")
    files = [points_dir / f"{k}.parquet" for k in run_keys]
    frames = [pq.read_table(f).to_pandas() for f in files if f.is_file()]
    columns = keys + extra + ["status", "metric", "value"]
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    df.to_parquet(out_dir / "sweep.parquet", index=False)
    df.attrs["failed"] = failed
    df.attrs["simulated"] = len(todo) - len([i for i in todo if labels[i] in failed])
    df.attrs["cached"] = len(cached)
    df.attrs["resumed"] = len(resumed)
    df.attrs["cache"] = cache_dir
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
