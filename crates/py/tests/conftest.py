"""Every test runs in its own empty current directory, so that what
defaults to a path under the current directory (``ccsim.sweep``'s run cache
``results/cache`` and its output ``results/<scenario>/sweep``) lands in
the test's temporary folder: never in the repository's ``results/``, and
never found again by a later test or test run."""

import pytest


@pytest.fixture(autouse=True)
def _own_current_directory(tmp_path_factory, monkeypatch):
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))
