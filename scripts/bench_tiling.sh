#!/usr/bin/env bash
# Benchmark (not a test): host time of one tiling call of each operator (aqo::PlanDynamicQuant,
# aqo::PlanQLinearMatMul, aqo::PlanQuantMatMul: what the CANN TilingFuncs call on every launch, with explain = false),
# for shapes on every SoC up to (131072, 131071) x (131071, 131072) (K at the integer cube's limit); also the time
# with the explanation (Python, scripts) and its number of GM ranges (O(cores)). Target: under 2 us per call on the
# launch path, every shape.
#
# Compiles scripts/bench_tiling_main.cpp and every op_host/tiling_core/*.cpp with g++ -O2 (no CANN, no Python),
# then prints ns per call: the best of 5 rounds, each round the mean over enough calls to last about 0.1 s.
#
# Usage: scripts/bench_tiling.sh [--check-request-only]   (env: CXX=g++, BUILD_DIR=build/bench_tiling)
#   --check-request-only   also time CheckDynamicQuantRequest alone (the request checks without the plan)
# Exit status 1 when a listed shape is refused or the launch path misses the target.
set -euo pipefail
for arg in "$@"; do
    case "$arg" in
        --check-request-only) ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench_tiling.sh: unknown argument '$arg' (usage: scripts/bench_tiling.sh [--check-request-only])" >&2
           exit 2 ;;
    esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
cxx=${CXX:-g++}
bdir=${BUILD_DIR:-$here/build/bench_tiling}
mkdir -p "$bdir"
"$cxx" -std=c++17 -O2 -DNDEBUG -I"$here/op_host/tiling_core" "$here/scripts/bench_tiling_main.cpp" \
    "$here"/op_host/tiling_core/*.cpp -o "$bdir/bench_tiling"
"$bdir/bench_tiling" "$@"
