"""A fake CANN toolkit for the package-mode tests: just the paths the build looks for, with stub tools that record
how they were called. It is not a copy of any toolkit file; the stub project it generates has only the shape our
build relies on (a "default" configure preset, an op_host/CMakeLists.txt that collects op_host/*.cpp into
ops_srcs with aux_source_directory, a build.sh that leaves build_out/custom_opp_<os>_<arch>.run)."""
from __future__ import annotations

import json
import os
import stat
import textwrap
from pathlib import Path

STUB_MSOPGEN = r'''#!/usr/bin/env python3
# Stub msopgen: records its arguments and environment, and on `gen` writes a minimal project.
import json, os, re, sys
from pathlib import Path

log = Path(os.environ["FAKE_CANN_LOG"])
with log.open("a") as f:
    f.write(json.dumps({"tool": "msopgen", "argv": sys.argv[1:], "cwd": os.getcwd(),
                        "ASCEND_HOME_PATH": os.environ.get("ASCEND_HOME_PATH"),
                        "PYTHONPATH": os.environ.get("PYTHONPATH", "")}) + "\n")
args = sys.argv[1:]
opt = {args[i]: args[i + 1] for i in range(1, len(args) - 1, 2)}
if os.environ.get("FAKE_MSOPGEN_FAIL"):
    print("[ERROR] stub msopgen told to fail", file=sys.stderr)
    sys.exit(3)
ops = json.loads(Path(opt["-i"]).read_text())
op = next(o for o in ops if o["op"] == opt["-op"])
snake = re.sub(r"(?<!^)([A-Z])", r"_\1", op["op"]).lower()
out = Path(opt["-out"])
if opt["-m"] == "0":
    if out.exists():
        print("[ERROR] project exists", file=sys.stderr)
        sys.exit(2)
    (out / "op_host").mkdir(parents=True)
    (out / "op_kernel").mkdir(parents=True)
    (out / "cmake").mkdir(parents=True)
    units = [u.split("-", 1)[1] for u in opt["-c"].split(",")]
    presets = {"version": 1, "configurePresets": [{
        "name": "default", "generator": "Unix Makefiles", "binaryDir": "${sourceDir}/build_out",
        "cacheVariables": {
            "ASCEND_COMPUTE_UNIT": {"type": "STRING", "value": ";".join(units)},
            "ASCEND_CANN_PACKAGE_PATH": {"type": "PATH", "value": os.environ["ASCEND_HOME_PATH"]},
            "vendor_name": {"type": "STRING", "value": "customize"},
            "ENABLE_CROSS_COMPILE": {"type": "BOOL", "value": "False"}}}]}
    (out / "CMakePresets.json").write_text(json.dumps(presets, indent=4))
    (out / "op_host" / "CMakeLists.txt").write_text(
        "aux_source_directory(${CMAKE_CURRENT_SOURCE_DIR} ops_srcs)\n"
        "opbuild(OPS_SRC ${ops_srcs} OUT_DIR ${ASCEND_AUTOGEN_PATH})\n"
        "add_library(cust_optiling SHARED ${ops_srcs})\n")
    (out / "op_kernel" / "CMakeLists.txt").write_text("add_kernels_compile()\n")
    (out / "build.sh").write_text(
        "#!/bin/bash\n"
        "python3 -c 'import json,os,sys; open(os.environ[\"FAKE_CANN_LOG\"],\"a\").write(json.dumps("
        "{\"tool\": \"build.sh\", \"argv\": sys.argv[1:], \"cwd\": os.getcwd()})+\"\\n\")'\n"
        "[ -n \"$FAKE_BUILD_FAIL\" ] && { echo 'stub build failed' >&2; exit 4; }\n"
        "mkdir -p build_out && echo run > build_out/custom_opp_fakeos_x86_64.run\n")
elif not out.exists():
    print("[ERROR] -m 1 needs an existing project", file=sys.stderr)
    sys.exit(2)
(out / "op_host" / f"{snake}.cpp").write_text("// msopgen skeleton\n")
(out / "op_host" / f"{snake}_tiling.h").write_text("// msopgen skeleton\n")
(out / "op_kernel" / f"{snake}.cpp").write_text("// msopgen skeleton\n")
print("Generation completed.")
'''


def _executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def make_fake_toolkit(root: Path, *, platform_configs=("Ascend910B1", "Ascend310P3", "Ascend910_95"),
                      with_op_build: bool = True, kernel_impls=("dav_c220", "dav_m200", "dav_3510")) -> Path:
    """Creates the fake toolkit under `root` and returns it. kernel_impls: the AscendC implementation folders
    (basic_api/impl/dav_*) its headers have; CANN 8.1.RC1 has dav_c220 and dav_m200 but no dav_3510."""
    _executable(root / "python" / "site-packages" / "bin" / "msopgen", STUB_MSOPGEN)
    (root / "tools" / "op_project_templates" / "ascendc" / "customize").mkdir(parents=True)
    if with_op_build:
        _executable(root / "toolkit" / "tools" / "opbuild" / "op_build", "#!/bin/sh\nexit 0\n")
    (root / "compiler" / "ccec_compiler" / "bin").mkdir(parents=True)
    for impl in kernel_impls:
        (root / "x86_64-linux" / "ascendc" / "include" / "basic_api" / "impl" / impl).mkdir(parents=True)
    cfg = root / "x86_64-linux" / "data" / "platform_config"
    cfg.mkdir(parents=True)
    for name in platform_configs:
        (cfg / f"{name}.ini").write_text("[version]\n", encoding="utf-8")
    # msopgen 8.1.RC1's type table, reduced to what matters here: it lacks the float8 / hifloat8 names.
    transform = root / "python" / "site-packages" / "op_gen" / "config" / "transform.json"
    transform.parent.mkdir(parents=True)
    known = ["float", "float16", "bfloat16", "int8", "uint8", "int32"]
    transform.write_text(json.dumps({"INPUT_OUTPUT_DTYPE_MAP": {k: k for k in known}}), encoding="utf-8")
    return root


def read_log(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def make_fake_repo(root: Path) -> Path:
    """A source tree with the files the package takes (tiny stand-ins for the real ones)."""
    files = {
        "op_host/aqo_dynamic_quant.cpp": "// host DynamicQuant\n",
        "op_host/aqo_dynamic_quant_tiling.h": "// tiling data DynamicQuant\n",
        "op_host/aqo_qlinear_matmul.cpp": "// host QLinearMatMul\n",
        "op_host/aqo_qlinear_matmul_tiling.h": "// tiling data QLinearMatMul\n",
        "op_host/tiling_core/soc_table.cpp": "// tiling core\n",
        "op_host/tiling_core/soc_table.h": "// tiling core header\n",
        "op_host/tiling_core/dynamic_quant_plan.cpp": "// plan\n",
        "op_host/tiling_core/CMakeLists.txt": "# not part of the package\n",
        "op_kernel/aqo_dynamic_quant.cpp": "// kernel DynamicQuant\n",
        "op_kernel/aqo_qlinear_matmul.cpp": "// kernel QLinearMatMul\n",
        "op_host/aqo_quant_matmul.cpp": "// host quant_matmul\n",
        "op_host/aqo_quant_matmul_tiling.h": "// tiling data quant_matmul\n",
        "op_kernel/aqo_quant_matmul.cpp": "// kernel quant_matmul\n",
        "op_kernel/emulator/src/emulator.cpp": "// CPU emulator: not device code\n",
        "op_kernel/emulator/include/kernel_operator.h": "// CPU emulator header\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def clean_env(**extra) -> dict:
    """The test process's environment without any CANN variable, plus `extra`."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("ASCEND_HOME_PATH", "ASCEND_CANN_PACKAGE_PATH", "ASCEND_TOOLKIT", "ASCEND_OPP_PATH")}
    env.update(extra)
    return env
