#!/usr/bin/env bash
# Developer build: compiles ascend_quant_ops._native into python/ascend_quant_ops/ (and the tests' fixture module
# ascend_quant_ops_testing into python/, outside the package) so that
# `PYTHONPATH=python python -m pytest` runs against the working tree without reinstalling.
# Usage: scripts/dev_build.sh [BUILD_DIR]   (default build/dev; use your own dir when builds run in parallel)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bdir=${1:-$here/build/dev}
cmake -S "$here" -B "$bdir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DAQO_INPLACE=ON -DAQO_BUILD_TESTING_MODULE=ON >/dev/null
cmake --build "$bdir" -j 2
