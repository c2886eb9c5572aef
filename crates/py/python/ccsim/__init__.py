"""ccsim: a fast packet-level simulator of datacenter congestion control.

The simulator is linked in (no subprocess). Scenarios are read and checked
by the same code as the ``ccsim`` command, with the same error messages;
results are the same numbers the command writes, as pandas DataFrames.

>>> import ccsim
>>> s = ccsim.load("scenarios/quickstart.toml")
>>> r = ccsim.run(s, scheme="hpcc", seed=2, set={"workload[0].load": 0.3})
>>> r.summary["slowdown"]["p99"]      # the CLI's summary.json, as a dict
>>> r.flows.head()                   # flows.csv, as a DataFrame

Errors in a scenario raise :class:`ScenarioError` (a ``ValueError``) naming
the file, key and value; a failed run raises :class:`SimulationError`.
"""

from ._api import MAX_DEPTH, Result, Scenario, ScenarioError, SimulationError, __version__, load, open, run, schemes
from .sweep import sweep
from .reproduce import reproduce

__all__ = [
    "sweep",
    "reproduce",
    "Scenario",
    "Result",
    "load",
    "run",
    "open",
    "schemes",
    "ScenarioError",
    "SimulationError",
    "MAX_DEPTH",
    "__version__",
]
