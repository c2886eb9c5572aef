"""``ccsim.reproduce``: the seed papers' experiments (the plan of ``ccsim
reproduce``) run on Dask, with the same run cache and the same reports."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _native
from .sweep import _Progress, _Session, _version

_REPO_EXPERIMENTS = Path(__file__).resolve().parents[4] / "experiments"


def _run_encoded(spec: str) -> bytes:
    """What a worker runs: one planned run (JSON) -> the cache's bytes."""
    return _native.run_encoded(spec)


def _experiments(experiments: Union[str, os.PathLike, None]) -> Path:
    if experiments is not None:
        return Path(experiments)
    for p in (Path("experiments"), _REPO_EXPERIMENTS):
        if (p / "README.md").is_file():
            return p
    raise _native.ScenarioError(
        "no experiments folder found (looked in ./experiments and the repository's); pass experiments=DIR"
    )


def reproduce(
    paper: str = "all",
    *,
    full: bool = False,
    seeds: Optional[int] = None,
    claims: Optional[Sequence[str]] = None,
    client: Any = None,
    out: Union[str, os.PathLike] = "results/reproduce",
    cache: Union[str, os.PathLike] = "results/cache",
    experiments: Union[str, os.PathLike, None] = None,
    progress: bool = True,
) -> List[Dict[str, Any]]:
    """Reproduces a seed paper (or ``"all"``) as ``ccsim reproduce`` does, on Dask.

    The plan (every claim's runs: scenario x scheme x seed x sweep point),
    the run cache and the reports are the command's own: runs already in
    ``cache`` are not run again (a run from ``ccsim reproduce`` with the
    same build counts too: keys include the build), the others go to the
    Dask ``client`` (``None``: a local cluster, one worker per core; a
    ``distributed.Client`` or a scheduler address runs a full-scale
    reproduction on a cluster). Each finished run is stored in ``cache`` as
    it arrives, so an interrupted reproduction resumes. A failed run is
    reported and the others go on; then ``report.md``/``report.html`` per
    paper (and the index for ``"all"``) are written under ``out``.

    ``full`` selects the papers' scale, ``seeds`` overrides the seeds of
    claims that average several, ``claims`` runs only those claim ids.
    Returns one dict per paper: headline (headline claims run),
    headline_reproduced, headline_direction, headline_inconclusive,
    headline_fragile, results (the paper's results run; set-up checks
    apart), reproduced, direction_only, not_reproduced, inconclusive (ties
    within the noise across seeds), fragile (holds on the seed mean only:
    its 95% interval crosses a limit), error, not_simulated, checks, checks_held, report (the
    path of report.md). ``full=True`` writes the reports to
    ``out/full/<paper>``; the index ``out/index.md`` shows both scales.
    """
    root = _experiments(experiments).resolve()
    papers = _native.reproduce_papers(str(root), paper)
    version = _version()
    claims_list = list(claims) if claims else None
    specs = _native.reproduce_plan(str(root), papers, full, seeds, claims_list, version)
    keys = [json.loads(s)["key"] for s in specs]
    cache_dir = Path(cache)
    todo = [i for i, k in enumerate(keys) if not _native.cache_has(str(cache_dir), k)]
    failed: Dict[str, str] = {}
    if progress:
        sys.stderr.write(f"{', '.join(papers)}: {len(specs)} runs ({len(specs) - len(todo)} cached)\n")
    if todo:
        from distributed import as_completed

        session = _Session(client)
        dask_client = session.client
        # the progress display of ccsim.sweep: a line redrawn in a terminal,
        # one updated output in Jupyter, plain lines in a log file or pipe
        bar = _Progress(len(specs), len(specs) - len(todo), label="reproduce", unit="runs") if progress else None
        try:
            futures = {dask_client.submit(_run_encoded, specs[i], key=f"ccsim-run-{keys[i]}", pure=False): i for i in todo}
            for fut in as_completed(futures):
                i = futures[fut]
                try:
                    _native.cache_store(str(cache_dir), fut.result())
                except Exception as e:  # reported in the report; the others go on
                    failed[keys[i]] = f"{type(e).__name__}: {e}"
                if bar is not None:
                    bar.point(keys[i] in failed)
        finally:
            session.close()
            if bar is not None:
                bar.close()
    for key, err in failed.items():
        sys.stderr.write(f"error: run {key}: {err}\n")
    rows = _native.reproduce_report(
        str(root), papers, full, seeds, claims_list, version, str(cache_dir), str(Path(out)), failed
    )
    return [{"paper": paper, **dict(counts), "report": report} for paper, counts, report in rows]
