#!/usr/bin/env bash
# The project's test command (README quick start, .ci/run): the Rust tests,
# then the Python package built into a virtual environment and its tests.
#
#   scripts/test.sh            # everything
#   CCSIM_VENV=DIR scripts/test.sh   # use/keep the virtual environment in DIR
#                                     # (default target/py-venv)
set -euo pipefail
cd "$(dirname "$0")/.."

# One build for both commands: the tests compile in the quick start's release
# profile (target/release), so its ~150 compiled crates are reused, and the
# simulator's deep consistency checks (ccsim_core::check::deep_checks: each
# NIC choice against a scan, buffer accounting after every run), which a
# debug build always runs, are switched on for the release build here.
export CCSIM_DEEP_CHECKS=1
echo "== Rust: cargo test --workspace --release (deep checks on)"
cargo test --workspace --release --locked

echo "== Python: the ccsim package (crates/py) in a virtual environment"
venv="${CCSIM_VENV:-target/py-venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --upgrade pip >/dev/null
"$venv/bin/python" -m pip install -q -r crates/py/requirements-test.txt
# the CLI the Python tests compare against, and the package itself
cargo build --release --locked -p ccsim
venv_abs="$(cd "$venv" && pwd)"
(cd crates/py && VIRTUAL_ENV="$venv_abs" PATH="$venv_abs/bin:$PATH" maturin develop --release --locked -q)
# the same build's command in the environment: `source target/py-venv/bin/activate`
# then gives `ccsim` on the PATH and `import ccsim`, with no second build
ln -sf "$(pwd)/target/release/ccsim" "$venv_abs/bin/ccsim"
"$venv/bin/python" -m pytest -q crates/py/tests
