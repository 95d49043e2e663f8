#!/usr/bin/env bash
# build.sh - builds ascend-quant-ops from a source tree.
#
# Usage: ./build.sh [MODE] [options]
#
# Modes:
#   (none)            Build what builds on this machine: the native parts (tiling core + the _native Python
#                     extension with the AscendC CPU emulator) with CMake into build/native, and, when
#                     ASCEND_HOME_PATH or ASCEND_CANN_PACKAGE_PATH points at a CANN toolkit, also the operator
#                     package (as --cann). Without CANN it says what it skipped and why, and exits 0.
#                     Users normally install with `python -m pip install .` instead; this mode is for developers.
#   --cann | package  Build the CANN custom operator package build_out/custom_opp_<os>_<arch>.run for the compute
#                     units ascend910b, ascend310p, ascend910_95 (vendor "aqo"): scripts/cann_project.py renders
#                     the msopgen input and the CMake presets from cmake/cann/ (jinja2), runs the toolkit's own
#                     `msopgen gen -i <json> -c ai_core-<soc>,... -lan cpp -out build/cann/project`, replaces the
#                     generated skeleton with our op_host / op_kernel / op_host/tiling_core sources and runs the
#                     project's own build.sh (op_build, kernel compile per compute unit, .run packaging).
#                     A compute unit whose kernels the toolkit cannot compile is left out, with the reason: the
#                     toolkit needs the unit's AscendC implementation headers (cmake/cann/ops.json kernel_headers;
#                     CANN 8.1.RC1 has none for ascend910_95, dav_3510). Naming such a unit in --compute-units is an
#                     error.
#                     Needs a CANN toolkit (ASCEND_HOME_PATH or ASCEND_CANN_PACKAGE_PATH; `source
#                     /usr/local/Ascend/ascend-toolkit/set_env.sh` sets it); fails with a clear message without one.
#                     Install the result by running it: `bash build_out/custom_opp_*.run`.
#   check             Type-check every op_kernel/*.cpp (ascend910b: cpu-debug mix + aiv; ascend310p: aicore) and
#                     op_host/*.cpp (opbuild, OP_PROTO_LIB and OP_TILING_LIB passes) with g++ -fsyntax-only
#                     against the CANN headers at ASCEND_HOME_PATH (or ASCEND_TOOLKIT). ascend910_95 is not
#                     checkable against its own headers (no public headers implement it): its code paths are
#                     checked against the 8.1 signatures instead (ascend910_95/signatures). Exit 0 clean, 1 a pass
#                     failed, 2 no headers. Arguments after `check` go to scripts/check_device_code.py (--help), e.g.
#                       ASCEND_TOOLKIT=~/.cache/cann-headers/Ascend/ascend-toolkit/8.1.RC1 ./build.sh check
#                       ./build.sh check --soc ascend310p op_kernel/aqo_dynamic_quant.cpp
#                       ./build.sh check -j 4        (files in parallel)
#   render DIR        Write the rendered CANN build inputs (msopgen json, preset variables, tiling-core cmake)
#                     into DIR without any toolkit, for inspection.
#   -h | --help       This text.
#
# Options (default and --cann modes):
#   --compute-units LIST   comma-separated compute units for the package (default: from cmake/cann/ops.json)
#   --jobs N               parallel build jobs for the native build (default: 2)
#
# Environment: CMAKE (cmake executable), PYTHON (python3), CXX (g++, for check), ASCEND_HOME_PATH,
#              ASCEND_CANN_PACKAGE_PATH, ASCEND_TOOLKIT (check only), ASCEND_PYTHON_EXECUTABLE (preset value),
#              AQO_BUILD_DIR (default ./build: native/ and cann/ go there), AQO_DIST_DIR (default ./build_out).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CMAKE="${CMAKE:-cmake}"
PYTHON="${PYTHON:-python3}"
BUILD_DIR="${AQO_BUILD_DIR:-$HERE/build}"
DIST_DIR="${AQO_DIST_DIR:-$HERE/build_out}"
NATIVE_DIR="$BUILD_DIR/native"

usage() { sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; }
say() { echo "build.sh: $*"; }
die() { echo "build.sh: error: $*" >&2; exit "${2:-1}"; }

MODE=default
case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    --cann|package) MODE=package; shift ;;
    check) shift; exec "$PYTHON" "$HERE/scripts/check_device_code.py" --repo "$HERE" "$@" ;;
    render)
        shift
        [ $# -ge 1 ] || die "render needs an output directory" 2
        out="$1"; shift
        MODE=render ;;
esac

UNITS=""
JOBS=2
while [ $# -gt 0 ]; do
    case "$1" in
        --compute-units) [ $# -ge 2 ] || die "--compute-units needs a value" 2; UNITS="$2"; shift 2 ;;
        --compute-units=*) UNITS="${1#*=}"; shift ;;
        --jobs) [ $# -ge 2 ] || die "--jobs needs a value" 2; JOBS="$2"; shift 2 ;;
        --jobs=*) JOBS="${1#*=}"; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1' (see ./build.sh --help)" 2 ;;
    esac
done

# The toolkit the package is built with: the variables CANN's set_env.sh exports.
TOOLKIT="${ASCEND_HOME_PATH:-${ASCEND_CANN_PACKAGE_PATH:-}}"
TOOLKIT_VAR=""
if [ -n "${ASCEND_HOME_PATH:-}" ]; then TOOLKIT_VAR=ASCEND_HOME_PATH
elif [ -n "${ASCEND_CANN_PACKAGE_PATH:-}" ]; then TOOLKIT_VAR=ASCEND_CANN_PACKAGE_PATH; fi

if [ "$MODE" = package ]; then
    # Fail before the (slow) native build when the package cannot be built at all.
    [ -n "$TOOLKIT" ] || die "--cann needs a CANN toolkit, and neither ASCEND_HOME_PATH nor ASCEND_CANN_PACKAGE_PATH
is set. On a machine with CANN: \`source /usr/local/Ascend/ascend-toolkit/set_env.sh\` (or your install's
set_env.sh), then ./build.sh --cann. Without CANN, ./build.sh builds everything else."
    [ -d "$TOOLKIT" ] || die "$TOOLKIT_VAR=$TOOLKIT is not a directory: point it at an installed CANN toolkit"
fi

build_native() {
    command -v "$CMAKE" >/dev/null 2>&1 || die "cmake not found (set CMAKE or install cmake >= 3.18)"
    command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found (set PYTHON to the Python the extension is for)"
    local gen=()
    if [ ! -f "$NATIVE_DIR/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then gen=(-G Ninja); fi
    say "native build (tiling core, _native extension, CPU emulator) in $NATIVE_DIR"
    "$CMAKE" -S "$HERE" -B "$NATIVE_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DPython_EXECUTABLE="$(command -v "$PYTHON")"
    "$CMAKE" --build "$NATIVE_DIR" -j "$JOBS"
}

# The _native extension just built, for the SoC table the package's dtype lists come from (empty when the build
# put it elsewhere: cann_project.py then imports the installed ascend_quant_ops._native).
native_module() {
    local so
    so="$(find "$NATIVE_DIR" -maxdepth 1 -name '_native*.so' 2>/dev/null | head -n 1 || true)"
    [ -n "$so" ] && echo "--native=$so"
    return 0
}

cann_project() {
    local args=()
    local native; native="$(native_module)"
    [ -n "$native" ] && args+=("$native")
    [ -n "$UNITS" ] && args+=(--compute-units "$UNITS")
    "$PYTHON" "$HERE/scripts/cann_project.py" "${args[@]}" "$@"
}

case "$MODE" in
    render)
        cann_project render --out "$out" ;;
    package)
        # The toolkit check needs no native build: fail before the slow part when the toolkit lacks a tool.
        "$PYTHON" "$HERE/scripts/cann_project.py" ${UNITS:+--compute-units "$UNITS"} preflight
        build_native
        cann_project package --out-dir "$BUILD_DIR/cann" --dist-dir "$DIST_DIR"
        ;;
    default)
        build_native
        say "built: native parts in $NATIVE_DIR"
        if [ -n "$TOOLKIT" ]; then
            say "CANN toolkit at $TOOLKIT (from $TOOLKIT_VAR): building the operator package"
            cann_project package --out-dir "$BUILD_DIR/cann" --dist-dir "$DIST_DIR"
        else
            say "skipped: the CANN operator package (build_out/custom_opp_<os>_<arch>.run), because no CANN toolkit" \
                "is set (ASCEND_HOME_PATH and ASCEND_CANN_PACKAGE_PATH are unset). On a CANN machine:" \
                "source <toolkit>/set_env.sh, then ./build.sh --cann."
            say "skipped: the header check of op_kernel/ and op_host/ (run ./build.sh check with ASCEND_HOME_PATH or" \
                "ASCEND_TOOLKIT pointing at CANN headers)."
        fi
        ;;
esac
