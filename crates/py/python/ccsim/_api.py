"""The API of :mod:`ccsim` (scenarios, runs, results); ``ccsim/__init__.py``
re-exports its public names only."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Union

import numpy as np
import pandas as pd
import pyarrow as pa

from . import _native
from ._native import ScenarioError, SimulationError

__version__: str = _native.__version__
MAX_DEPTH: int = _native.MAX_DEPTH  # how deeply dicts and lists may nest in a scenario value

Overrides = Mapping[str, Any]


def _dict(m: Optional[Overrides]) -> Optional[Dict[str, Any]]:
    return None if m is None else dict(m)


class Scenario:
    """A scenario, read and validated exactly as ``ccsim validate`` does.

    Build one from a file with :func:`load`, or from a dict laid out like a
    scenario file::

        ccsim.Scenario({
            "name": "incast",
            "topology": {"kind": "star", "hosts": 17, "rate": "100Gbps"},
            "workload": [{"kind": "incast", "fan_in": 16, "receiver": 16, "size": "1MB"}],
            "schemes": ["dcqcn", "hpcc"],
        })

    ``set`` overrides values by key path, as ``--set`` does on the command
    line (``{"workload[0].load": 0.5, "network.pfc.static_xoff": "500KB"}``).
    Values are str, int, float, bool, lists and dicts of them, nested at
    most ``MAX_DEPTH`` (64) levels; a dict or list that contains itself is
    refused with the key path where the cycle closes. Relative paths in a dict (CDF and HPCC files) start at ``base_dir``;
    errors name ``label``. Raises :class:`ScenarioError` on invalid input.
    """

    def __init__(
        self,
        doc: Mapping[str, Any],
        *,
        set: Optional[Overrides] = None,
        base_dir: Union[str, os.PathLike, None] = None,
        label: str = "<dict>",
    ) -> None:
        if not isinstance(doc, Mapping):
            raise TypeError(f"Scenario() takes a dict laid out like a scenario file, not {type(doc).__name__}")
        # a dict is passed as it is, so that a cycle through it is named at its key
        self._native = _native.NativeScenario.from_dict(
            doc if isinstance(doc, dict) else dict(doc), label, str(base_dir if base_dir is not None else Path.cwd()), _dict(set)
        )

    @classmethod
    def _wrap(cls, native: "_native.NativeScenario") -> "Scenario":
        s = cls.__new__(cls)
        s._native = native
        return s

    @property
    def name(self) -> str:
        """The scenario's name (``name`` in the file, else the file stem)."""
        return self._native.name

    @property
    def schemes(self) -> List[str]:
        """The schemes (and variants) the scenario lists; ``run`` uses the first by default."""
        return self._native.schemes

    @property
    def seed(self) -> int:
        """The seed of the workload generators and the simulation."""
        return self._native.seed

    @property
    def hosts(self) -> int:
        """Number of hosts in the topology."""
        return self._native.hosts

    @property
    def flows(self) -> int:
        """Number of flows the workload generated."""
        return self._native.flows

    @property
    def text(self) -> str:
        """The scenario as TOML with the overrides applied (what a result's ``scenario.toml`` holds)."""
        return self._native.text

    def describe(self) -> str:
        """One paragraph on what the scenario holds, as ``ccsim validate`` prints it."""
        return self._native.describe()

    def with_overrides(self, set: Optional[Overrides] = None, *, seed: Optional[int] = None) -> "Scenario":
        """The same scenario with more overrides (checked like the file)."""
        return Scenario._wrap(self._native.with_overrides(_dict(set), seed))

    def __repr__(self) -> str:
        return f"<ccsim.Scenario {self.name!r} from {self._native.label}: {self.hosts} hosts, {self.flows} flows, schemes {self.schemes}>"


_ARROW = {"f64": (pa.float64(), "<f8"), "i64": (pa.int64(), "<i8")}


def _frame(columns: list) -> pd.DataFrame:
    """A DataFrame from the native module's typed column buffers, through Arrow."""
    arrays, names = [], []
    for name, (kind, data) in columns:
        if kind == "str":
            arr = pa.array(data, type=pa.string())
        else:
            arrow_type, dtype = _ARROW[kind]
            arr = pa.array(np.frombuffer(data, dtype=dtype), type=arrow_type, from_pandas=kind == "f64")
        arrays.append(arr)
        names.append(name)
    return pa.Table.from_arrays(arrays, names=names).to_pandas()


class Result:
    """One simulation: the same numbers ``ccsim run`` writes.

    DataFrames (built on first use): :attr:`flows` (``flows.csv``),
    :attr:`ports` (``ports.csv``), and the traces :attr:`queues`,
    :attr:`utilization`, :attr:`traces` (per traced port or flow, long
    format). :attr:`summary` is ``summary.json`` as a dict, :attr:`run_info`
    is ``run.json`` (wall time, events/s). Times are in microseconds; an
    unfinished flow has NaN ``fct_us`` and ``slowdown``. :func:`open`
    makes one from a results folder that ``ccsim run`` or :meth:`write` wrote.
    """

    def __init__(self, native: Union["_native.NativeResult", "_Folder"]) -> None:
        self._native = native
        self._cache: Dict[str, Any] = {}

    def _table(self, name: str) -> pd.DataFrame:
        if name not in self._cache:
            if isinstance(self._native, _Folder):
                self._cache[name] = self._native.frame(name)
            else:
                self._cache[name] = _frame(self._native.table(name))
        return self._cache[name]

    @property
    def scheme(self) -> str:
        """The scheme or variant that ran."""
        return self._native.scheme

    @property
    def status(self) -> str:
        """How the run ended: ``completed``, ``stopped``, ``deadlock``, ``stalled`` or ``interrupted``."""
        return self._native.status

    @property
    def summary(self) -> Dict[str, Any]:
        """``summary.json``: slowdown and FCT statistics, by size, losses (drops, pause_frames,
        retransmits, timeouts, trimmed), queues, engine counters, status, warnings."""
        if "summary" not in self._cache:
            self._cache["summary"] = json.loads(self._native.summary_json())
        return self._cache["summary"]

    @property
    def warnings(self) -> List[str]:
        """What to know before reading the numbers (``summary.json``'s ``warnings``; ``ccsim run``
        prints them first): flows or messages that did not finish, resends above 10% of the
        distinct data packets, retransmission timeouts on a lossless fabric. Empty when none."""
        return list(self.summary.get("warnings", []))

    @property
    def run_info(self) -> Dict[str, Any]:
        """``run.json``: wall and CPU seconds, events, events/s (varies between runs)."""
        return json.loads(self._native.run_json())

    @property
    def seed(self) -> int:
        """The seed the run used (the scenario's, or ``run``'s ``seed``)."""
        return int(self.summary["seed"])

    @property
    def flows(self) -> pd.DataFrame:
        """Per flow, then per released message: scheme and seed (the run's, so that the flows of
        several runs concatenate into one table), then flows.csv's columns: id, src, dst, size, start_us, fct_us, ideal_fct_us,
        slowdown, retransmits, workload (the ``[[workload]]`` entry), conn (a message's connection;
        NaN for a flow), timeouts, trimmed, drops. A message's ``start_us`` is its release, its
        ``fct_us`` runs to the acknowledgement of its last byte. The losses: retransmits (data
        packets sent again), timeouts (retransmission timeouts fired), trimmed and drops (its data
        packets trimmed, dropped); a message counts the packets that carried its bytes, so a
        connection's messages sum to its row of :attr:`conns`."""
        df = self._table("flows")
        if "scheme" not in df.columns:
            # once, into the cached table (no second copy of every flow)
            df.insert(0, "seed", np.int64(self.seed))
            df.insert(0, "scheme", self.scheme)
        return df

    @property
    def conns(self) -> pd.DataFrame:
        """Per connection (workloads ``rpc``, ``closed_loop``, ``collective``): id, src, dst,
        messages (released), completed, bytes (released), acked, retransmits, timeouts, trimmed, drops.
        Empty without connections."""
        return self._table("conns")

    @property
    def ports(self) -> pd.DataFrame:
        """Per egress port: node, peer, rate_gbps, tx_bytes, tx_data_bytes, pause_sent, paused_us, drops, ecn_marked, max_qlen_bytes, trimmed."""
        return self._table("ports")

    @property
    def queues(self) -> pd.DataFrame:
        """Traced queues (``[trace] queues``): port ("node:peer"), t_us, queue_bytes."""
        return self._table("queues")

    @property
    def utilization(self) -> pd.DataFrame:
        """Traced utilization (``[trace] utilization``): port, t_us, utilization (0-1)."""
        return self._table("utilization")

    @property
    def traces(self) -> pd.DataFrame:
        """Traced flows (``[trace] flows``): flow, t_us, rate_gbps, window_bytes (NaN = unlimited), acked_bytes, probe."""
        return self._table("traces")

    def write(self, dir: Union[str, os.PathLike]) -> Path:
        """Writes the files ``ccsim run`` writes (flows.csv, ports.csv, nodes.csv, summary.json, run.json, scenario.toml, charts) into ``dir``.

        A result from :func:`open` copies its folder's files."""
        self._native.write(str(dir))
        return Path(dir)

    def __repr__(self) -> str:
        s = self.summary
        return f"<ccsim.Result {self.scheme}: {s['finished']}/{s['flows']} flows finished, {self.status}>"


def load(path: Union[str, os.PathLike], *, set: Optional[Overrides] = None) -> Scenario:
    """Reads and validates a scenario file, as ``ccsim validate`` does.

    ``set`` overrides values by key path (``{"workload[0].load": 0.5}``),
    checked like the file. Raises :class:`ScenarioError` naming the file,
    key and value when the scenario is invalid.
    """
    return Scenario._wrap(_native.NativeScenario.from_file(os.fspath(path), _dict(set)))


def run(
    scenario: Union[Scenario, str, os.PathLike],
    *,
    scheme: Optional[str] = None,
    seed: Optional[int] = None,
    set: Optional[Overrides] = None,
    stop: Optional[str] = None,
    check: bool = False,
) -> Result:
    """Simulates one scheme of a scenario and returns its :class:`Result`.

    ``scenario`` is a :class:`Scenario` or a scenario file's path. ``scheme``
    defaults to the scenario's first; ``seed`` replaces the scenario's
    (the workload is generated again); ``set`` overrides values by key path;
    ``stop`` is a simulated-time limit such as ``"5ms"``; ``check`` runs the
    invariant checks of ``--check``. The GIL is released while simulating,
    so runs in threads proceed in parallel; Ctrl-C stops a run at the next
    event and returns the partial result (``status == "interrupted"``).
    The result is bit-identical to ``ccsim run`` for the same scenario,
    scheme and seed.
    """
    if not isinstance(scenario, Scenario):
        scenario = load(scenario)
    if set:
        scenario = scenario.with_overrides(set)
    return Result(scenario._native.run(scheme, seed, stop, check))


# The files of a results folder per table: CSV (the default of `ccsim run`)
# or Parquet (`--format parquet`), and renamed columns (file -> DataFrame).
_FILES = {
    "flows": ("flows", {}),
    "conns": ("conns", {}),
    "ports": ("ports", {}),
    "queues": ("queues", {}),
    "utilization": ("utilization", {"utilization_fraction": "utilization"}),
    "traces": ("flow_traces", {}),
}
_KINDS = {"f64": pa.float64(), "i64": pa.int64(), "str": pa.string()}


class _Folder:
    """A results folder read back: what :class:`Result` asks a run for."""

    def __init__(self, dir: Path) -> None:
        self.dir = dir
        summary = dir / "summary.json"
        if not summary.is_file():
            runs = sorted(p.parent.name for p in dir.glob("*/summary.json"))
            if runs:
                raise ValueError(f"{dir} holds the runs of {', '.join(runs)}: open one of them ({dir / runs[0]})")
            what = "no such folder" if not dir.is_dir() else "no summary.json in it"
            raise ValueError(f"{dir}: not a results folder of `ccsim run` ({what})")
        self.summary_text = summary.read_text()
        self.summary = json.loads(self.summary_text)
        self.scheme: str = self.summary["scheme"]
        self.status: str = self.summary["status"]

    def summary_json(self) -> str:
        return self.summary_text

    def run_json(self) -> str:
        p = self.dir / "run.json"
        return p.read_text() if p.is_file() else "{}"

    def frame(self, name: str) -> pd.DataFrame:
        """Table ``name`` from its Parquet or CSV file (with the column types
        of a run's table), or empty when the run wrote none (nothing traced,
        no connections)."""
        stem, renames = _FILES[name]
        kinds = {col: _KINDS[kind] for col, kind in _native.table_kinds(name)}
        parquet, csv = self.dir / f"{stem}.parquet", self.dir / f"{stem}.csv"
        if parquet.is_file():
            import pyarrow.parquet as pq

            table = pq.read_table(parquet)
        elif csv.is_file():
            import pyarrow.csv as pcsv

            types = {f: kinds[renames.get(f, f)] for f in _csv_header(csv) if renames.get(f, f) in kinds}
            table = pcsv.read_csv(csv, convert_options=pcsv.ConvertOptions(column_types=types))
        else:
            return pa.Table.from_arrays([pa.array([], type=t) for t in kinds.values()], names=list(kinds)).to_pandas()
        table = table.rename_columns([renames.get(c, c) for c in table.column_names])
        arrays = [
            table.column(c).cast(kinds[c]) if c in kinds else table.column(c) for c in table.column_names
        ]
        df = pa.Table.from_arrays(arrays, names=table.column_names).to_pandas()
        key = {"queues": "port", "utilization": "port", "traces": "flow"}.get(name)
        if key is not None and key in df.columns and len(df):
            # the files are written as the run goes (time-major); a run's table
            # holds each port's or flow's series in turn, in the order traced
            order = {v: i for i, v in enumerate(pd.unique(df[key]))}
            df = df.iloc[df[key].map(order).argsort(kind="stable")].reset_index(drop=True)
        return df

    def write(self, dir: str) -> None:
        import shutil

        shutil.copytree(self.dir, dir, dirs_exist_ok=True)


def _csv_header(path: Path) -> List[str]:
    with path.open() as f:
        return f.readline().rstrip("\r\n").split(",")


def open(dir: Union[str, os.PathLike]) -> Result:
    """The :class:`Result` of a run already on disk: a folder that ``ccsim
    run`` (or :meth:`Result.write`, or one scheme's folder of ``ccsim
    compare``) wrote.

    It has what :func:`run` would have returned for that run: ``summary``
    (``summary.json``), ``run_info`` (``run.json``), ``scheme``, ``status``
    and the DataFrames ``flows``, ``conns``, ``ports``, ``queues``,
    ``utilization`` and ``traces`` with the same columns and types, read
    from the CSV files or from the Parquet files of ``--format parquet``
    (a table the run did not write, as traces when nothing was traced, is
    empty). CSV files hold numbers to 6 decimals, so values can differ
    from the run's in the last digits; the flows, conns and ports of
    ``--format parquet`` are exact. Raises
    ``ValueError`` when ``dir`` is not such a folder (naming the scheme
    folders when it is a ``compare`` folder).
    """
    return Result(_Folder(Path(dir)))


def schemes() -> List[str]:
    """The names of the registered congestion-control schemes."""
    return _native.scheme_names()

