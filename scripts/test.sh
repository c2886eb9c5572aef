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
# ccsim-py has no Rust tests; its library is built once, below, with the
# features the Python module needs (a test build would compile pyo3 twice).
cargo test --workspace --exclude ccsim-py --release --locked

echo "== Python: the ccsim package (crates/py) in a virtual environment"
venv="${CCSIM_VENV:-target/py-venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
# uv installs the pinned packages from the same index in seconds where pip
# takes a minute (issue 34: 24 s against 60 s into a new environment). It
# compiles the modules as pip does: without, each test process imports
# pandas, dask and matplotlib from source (pytest 53 s instead of 27 s).
# pip is the fallback where no uv wheel exists for the platform.
if [ -x "$venv/bin/uv" ] || "$venv/bin/python" -m pip install -q "uv==0.13.9" >/dev/null 2>&1; then
    "$venv/bin/uv" pip install -q --compile-bytecode --python "$venv/bin/python" -r crates/py/requirements-test.txt
else
    "$venv/bin/python" -m pip install -q -r crates/py/requirements-test.txt
fi
# the CLI the Python tests compare against, and the package's native module
# with the features maturin builds it with (crates/py/pyproject.toml), from
# the same target/, lock and crates
cargo build --release --locked -p ccsim
venv_abs="$(cd "$venv" && pwd)"
PYO3_PYTHON="$venv_abs/bin/python" cargo build --release --locked -p ccsim-py --features pyo3/extension-module
# An editable install, as `maturin develop` makes one: the module beside the
# package's Python sources, and a .pth file that puts them on the path.
# maturin itself is not used here because it runs `cargo metadata`, which
# downloads the crates of every platform in the lock (32 Windows, macOS and
# wasm crates the build never compiles); `pip install ./crates/py` and
# `maturin develop` still work as the README says.
cp target/release/lib_native.so crates/py/python/ccsim/_native.abi3.so
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
"$venv/bin/python" -m pip uninstall -q -y ccsim >/dev/null 2>&1 || true
echo "$(pwd)/crates/py/python" > "$site/ccsim.pth"
# the same build's command in the environment: `source target/py-venv/bin/activate`
# then gives `ccsim` on the PATH and `import ccsim`, with no second build
ln -sf "$(pwd)/target/release/ccsim" "$venv_abs/bin/ccsim"
"$venv/bin/python" -m pytest -q crates/py/tests
