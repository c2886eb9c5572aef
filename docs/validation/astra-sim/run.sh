#!/usr/bin/env bash
# ccsim vs ASTRA-sim's analytical network backend (README.md beside this file).
#
#   docs/validation/astra-sim/run.sh            # build ASTRA-sim, generate, run both, write the tables
#   SCRATCH=/tmp/astra RANKS=4 SIZES=1 docs/validation/astra-sim/run.sh   # a quick subset
#
# Steps:
#  1. Debian packages (root: installed with apt-get unless NO_APT=1):
#     g++ cmake protobuf-compiler libprotobuf-dev libfmt-dev libspdlog-dev
#     libyaml-cpp-dev python3-protobuf.
#  2. Sources into $SCRATCH/astra-sim at pinned commits (git archive):
#     astra-sim            $ASTRA_SIM_COMMIT  (518bd51, 2026-03-25)
#     astra-network-analytical $ANALYTICAL_COMMIT (599a047) -> extern/network_backend/analytical
#     chakra               $CHAKRA_COMMIT     (f37c2bb)  -> extern/graph_frontend/chakra
#     astra-sim 518bd51 pins analytical e8c5119 and chakra 0e3cd40; where those
#     are not to be had (a mirror without them, no network), the nearest
#     pins of astra-sim's own history are used: analytical 599a047 (its pin
#     until astra-sim 2367f6f, which only moved yaml-cpp from the backend's
#     submodule to the top CMakeLists) and chakra f37c2bb (its pin at
#     astra-sim 4b6e027, same FeederV3 reader). The *_GIT variables name
#     where to take each from: a URL, or a local (bare) git directory.
#  3. Offline adaptations, each applied only when the pinned piece is missing:
#     fmt, spdlog and yaml-cpp from Debian (find_package) instead of the
#     submodules / FetchContent; a stand-in for the remote-memory submodule
#     (astra-memory-analytical; never called by these workloads: it exits if
#     it is); Chakra::ETFeeder{,Node} aliases for FeederV3's names (chakra
#     0e3cd40 has them, f37c2bb only in Chakra::FeederV3).
#  4. build/astra_analytical/build.sh -t all  (both backends, ~10 min on 2 cores)
#  5. compare.py: traces from ASTRA-sim's generator scripts
#     (examples/workload/microbenchmarks/generator_scripts/<op>.py), ASTRA-sim
#     and ccsim runs, closed forms -> $SCRATCH/work/results.{csv,md}.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
SCRATCH=${SCRATCH:-/tmp/astra-scratch}
CCSIM=${CCSIM:-$REPO/target/release/ccsim}
PYTHON=${PYTHON:-/usr/bin/python3}
RANKS=${RANKS:-4,8,16}
SIZES=${SIZES:-1,16,64}
ASTRA_SIM_GIT=${ASTRA_SIM_GIT:-https://github.com/astra-sim/astra-sim.git}
ANALYTICAL_GIT=${ANALYTICAL_GIT:-https://github.com/astra-sim/astra-network-analytical.git}
CHAKRA_GIT=${CHAKRA_GIT:-https://github.com/astra-sim/chakra.git}
ASTRA_SIM_COMMIT=${ASTRA_SIM_COMMIT:-518bd513ae110428cd62eb60efc0f3993fd53c70}
ANALYTICAL_COMMIT=${ANALYTICAL_COMMIT:-599a0473a9a74f5383f73b3cea5a12b9bc5ebaef}
CHAKRA_COMMIT=${CHAKRA_COMMIT:-f37c2bb50afa8b0e99b32ba9921662ab77502e85}
SRC=$SCRATCH/astra-sim
BIN=$SRC/build/astra_analytical/build/bin

[[ -x "$CCSIM" ]] || { echo "no ccsim at $CCSIM: cargo build --release, or set CCSIM" >&2; exit 1; }

if [[ "${NO_APT:-0}" != 1 && $(id -u) == 0 ]]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ cmake protobuf-compiler libprotobuf-dev \
    libfmt-dev libspdlog-dev libyaml-cpp-dev python3-protobuf >/dev/null
fi

# tree URL-or-gitdir COMMIT DEST [PATH...]: the commit's files (or PATHs) into DEST
tree() {
  local src=$1 commit=$2 dest=$3
  shift 3
  mkdir -p "$dest"
  if [[ -d "$src" ]]; then
    git --git-dir="$src" archive "$commit" "$@" | tar -x -C "$dest"
  else
    local tmp
    tmp=$(mktemp -d)
    git -C "$tmp" init -q
    git -C "$tmp" fetch -q --depth 1 "$src" "$commit"
    git -C "$tmp" archive FETCH_HEAD "$@" | tar -x -C "$dest"
    rm -rf "$tmp"
  fi
}

if [[ ! -x "$BIN/AstraSim_Analytical_Congestion_Unaware" || ! -x "$BIN/AstraSim_Analytical_Congestion_Aware" ]]; then
  rm -rf "$SRC"
  tree "$ASTRA_SIM_GIT" "$ASTRA_SIM_COMMIT" "$SRC"
  rm -rf "$SRC/extern/network_backend/analytical" "$SRC/extern/graph_frontend/chakra"
  tree "$ANALYTICAL_GIT" "$ANALYTICAL_COMMIT" "$SRC/extern/network_backend/analytical"
  tree "$CHAKRA_GIT" "$CHAKRA_COMMIT" "$SRC/extern/graph_frontend/chakra" schema src

  # 3. offline adaptations
  if [[ ! -f "$SRC/extern/helper/fmt/CMakeLists.txt" ]]; then
    "$PYTHON" - "$SRC" <<'EOF'
import re, sys
src = sys.argv[1]
p = f"{src}/CMakeLists.txt"
s = open(p).read()
s = s.replace('add_subdirectory("${CMAKE_CURRENT_SOURCE_DIR}/extern/helper/fmt")', 'find_package(fmt REQUIRED)')
s = s.replace('option(SPDLOG_FMT_EXTERNAL ON) # override default option for spdlog.\n', '')
s = s.replace('add_subdirectory("${CMAKE_CURRENT_SOURCE_DIR}/extern/helper/spdlog")', 'find_package(spdlog REQUIRED)')
s = re.sub(r'FetchContent_Declare\(\s*yaml-cpp.*?\)\s*FetchContent_MakeAvailable\(yaml-cpp\)',
           'find_package(yaml-cpp REQUIRED)', s, flags=re.S)
open(p, "w").write(s)
p = f"{src}/extern/network_backend/analytical/CMakeLists.txt"
s = open(p).read()
s = s.replace('add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/extern/yaml-cpp yaml-cpp)',
              'if (NOT TARGET yaml-cpp)\n  find_package(yaml-cpp REQUIRED)\nendif ()')
open(p, "w").write(s)
EOF
  fi
  mem=$SRC/extern/remote_memory_backend/analytical
  if [[ ! -f "$mem/AnalyticalRemoteMemory.hh" ]]; then
    mkdir -p "$mem"
    cat >"$mem/AnalyticalRemoteMemory.hh" <<'EOF'
// Stand-in for astra-sim/astra-memory-analytical (not available offline).
// Network-only microbenchmarks never issue remote-memory requests.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include "astra-sim/common/AstraRemoteMemoryAPI.hh"
#include "astra-sim/system/Sys.hh"
namespace Analytical {
class AnalyticalRemoteMemory : public AstraSim::AstraRemoteMemoryAPI {
  public:
    explicit AnalyticalRemoteMemory(std::string) {}
    void set_sys(int, AstraSim::Sys*) override {}
    void issue(uint64_t, AstraSim::WorkloadLayerHandlerData*) override {
        std::cerr << "remote memory is not modelled in this build\n";
        std::exit(1);
    }
};
}  // namespace Analytical
EOF
  fi
  feeder=$SRC/extern/graph_frontend/chakra/src/feeder_v3/et_feeder.h
  if grep -q "namespace FeederV3" "$feeder" && ! grep -rq "using FeederV3::ETFeeder" "$feeder"; then
    cat >>"$feeder" <<'EOF'

// astra-sim 518bd51 names these Chakra::ETFeeder{,Node} (chakra 0e3cd40)
namespace Chakra {
using FeederV3::ETFeeder;
using FeederV3::ETFeederNode;
}  // namespace Chakra
EOF
  fi

  # 4. build both analytical backends
  nice bash "$SRC/build/astra_analytical/build.sh" -t all >"$SCRATCH/astra-build.log" 2>&1 ||
    { tail -30 "$SCRATCH/astra-build.log" >&2; exit 1; }
fi

# 5. traces, runs, tables
nice "$PYTHON" "$HERE/compare.py" --astra-src "$SRC" --astra-bin "$BIN" --ccsim "$CCSIM" \
  --python "$PYTHON" --work "$SCRATCH/work" --ranks "$RANKS" --sizes "$SIZES"
