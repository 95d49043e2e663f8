#!/usr/bin/env bash
# Benchmark (not a test): host time of one DynamicQuant tiling call (aqo::PlanDynamicQuant, the function the
# CANN TilingFunc calls on every launch, with request.explain = false), for a few shapes per SoC; also the time
# with the explanation (Python, scripts). Target: under 2 us per call on the launch path.
#
# Compiles scripts/bench_tiling_main.cpp and every op_host/tiling_core/*.cpp with g++ -O2 (no CANN, no Python),
# then prints ns per call: the best of 5 rounds, each round the mean over enough calls to last about 0.1 s.
#
# Usage: scripts/bench_tiling.sh [--check-request-only]   (env: CXX=g++, BUILD_DIR=build/bench_tiling)
#   --check-request-only   also time CheckDynamicQuantRequest alone (the seed-004 checks without the plan)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cxx=${CXX:-g++}
bdir=${BUILD_DIR:-$here/build/bench_tiling}
mkdir -p "$bdir"
"$cxx" -std=c++17 -O2 -DNDEBUG -I"$here/op_host/tiling_core" "$here/scripts/bench_tiling_main.cpp" \
    "$here"/op_host/tiling_core/*.cpp -o "$bdir/bench_tiling"
"$bdir/bench_tiling" "$@"
