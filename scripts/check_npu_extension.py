#!/usr/bin/env python3
"""Type-check the NPU extension (python/ascend_quant_ops/npu_ext/aqo_npu_ops.cpp) without an NPU or CANN.

Gets the torch_npu wheel that matches the installed torch (pip download, no install: an installed torch_npu
without CANN breaks `import torch`), unpacks its headers into a cache directory that is not on sys.path, and runs
`g++ -fsyntax-only` with torch's and torch_npu's include directories and the flags the JIT build uses
(npu_ext/build.py). The wheel carries op-plugin's op_api_common.h (EXEC_NPU_CMD) and CANN's acl headers, so no
stub header is needed. Front-end only: nothing is linked, and the aclnn symbols are looked up at run time, so
their argument order is checked separately (tests/torch/test_npu_extension.py, against the OpDefs).

    python scripts/check_npu_extension.py [--cache DIR] [--torch-npu-version V] [--source FILE] [--schema] [--jit]

With --jit it also runs the JIT build of npu.load_extension() against the wheel (compile and link with its
libtorch_npu.so); without CANN the result cannot load, which is reported with the missing library's name.

With --schema it also builds the extension against CPU-only torch, with a stand-in for op_api_common.h
(scripts/check_npu_extension_stub/: the few names the extension uses, EXEC_NPU_CMD doing nothing), and loads it
after ascend_quant_ops.torch_ops: registering the PrivateUse1 kernels makes the dispatcher compare their C++
signatures with the op schemas defined in Python, which no header check can do.

Exit status 0 = the source compiles (and, with --schema, registers); 1 = compiler or registration errors
(printed); 2 = the headers could not be obtained. Needs network access to PyPI the first time (the wheel is
about 45 MB), then works from the cache.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
import _package_path  # noqa: E402,F401  (developer build or installed package)

import ascend_quant_ops  # noqa: E402  (needs the path above)
from ascend_quant_ops.npu_ext import build  # noqa: E402

PACKAGE_PARENT = str(Path(ascend_quant_ops.__file__).resolve().parents[1])


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ascend-quant-ops" / "torch_npu-headers"


def matching_torch_npu_version() -> str:
    """torch_npu releases follow torch's: torch 2.13.0(+cpu) -> torch-npu 2.13.0."""
    import torch

    m = re.match(r"(\d+\.\d+\.\d+)", torch.__version__)
    return m.group(1)


def ensure_headers(cache: Path, version: str, with_libs: bool = False) -> Path:
    """Return the unpacked torch_npu package folder for `version`, downloading the wheel if needed. With
    with_libs, its lib/ folder (libtorch_npu.so, for linking) is unpacked as well."""
    cache = cache.resolve()
    for entry in sys.path:
        if entry and Path(entry).resolve() in (cache, *cache.parents) and Path(entry).resolve() != Path("/"):
            raise SystemExit(f"cache directory {cache} is on sys.path ({entry}): choose another one")
    unpacked = cache / version / "unpacked"
    package = unpacked / "torch_npu"
    marker = package / "include" / "third_party" / "op-plugin" / "op_plugin" / "utils" / "op_api_common.h"
    if marker.is_file() and (not with_libs or (package / "lib" / "libtorch_npu.so").is_file()):
        return package
    wheels = cache / version / "wheel"
    wheels.mkdir(parents=True, exist_ok=True)
    found = sorted(wheels.glob(f"torch_npu-{version}-*.whl"))
    if not found:
        cmd = [sys.executable, "-m", "pip", "download", f"torch-npu=={version}", "--no-deps",
               "--only-binary=:all:", "-d", str(wheels)]
        print("+", " ".join(cmd), flush=True)
        r = subprocess.run(cmd)
        found = sorted(wheels.glob(f"torch_npu-{version}-*.whl"))
        if r.returncode != 0 or not found:
            print(f"error: could not download torch-npu=={version} (is PyPI reachable?)", file=sys.stderr)
            sys.exit(2)
    tmp = unpacked.with_name("unpacked.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    with zipfile.ZipFile(found[0]) as z:
        members = [n for n in z.namelist() if n.startswith("torch_npu/include/") or n == "torch_npu/version.py"
                   or (with_libs and n.startswith("torch_npu/lib/"))]
        z.extractall(tmp, members)
    shutil.rmtree(unpacked, ignore_errors=True)
    tmp.rename(unpacked)
    if not marker.is_file():
        print(f"error: {found[0].name} has no op_plugin/utils/op_api_common.h", file=sys.stderr)
        sys.exit(2)
    return package


def check(source: Path, package: Path) -> int:
    cmd = ["g++", "-fsyntax-only", *build.compile_flags(package), str(source)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    errors = [line for line in r.stderr.splitlines() if "error" in line]
    if r.returncode != 0:
        sys.stderr.write(r.stderr[-20000:])
        print(f"FAILED: {source.name} does not compile against torch_npu headers ({len(errors)} error lines)")
        return 1
    print(f"OK: {source.name} type-checks against torch {__import__('torch').__version__} and "
          f"torch_npu {package.parent.parent.name} headers")
    return 0


STUB_DIR = Path(__file__).resolve().parent / "check_npu_extension_stub"

LOAD_PROBE = """
import sys, torch
import ascend_quant_ops.torch_ops  # defines the schemas
torch.ops.load_library(sys.argv[1])
for op in ("dynamic_quant", "qlinear_matmul"):
    assert torch._C._dispatch_has_kernel_for_dispatch_key(f"ascend_quant_ops::{op}", "PrivateUse1"), op
print("registered")
"""


def check_schema(source: Path, workdir: Path) -> int:
    """Build `source` against CPU torch + the stub header and load it next to the Python schemas."""
    import torch
    from torch.utils import cpp_extension

    workdir.mkdir(parents=True, exist_ok=True)
    lib = workdir / "aqo_npu_ops_schema_check.so"
    flags = ["-std=c++20", "-shared", "-fPIC", "-O0", f"-I{STUB_DIR}",
             f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}"]
    flags += [f"-I{d}" for d in cpp_extension.include_paths()]
    libdirs = cpp_extension.library_paths()
    cmd = ["g++", *flags, str(source), "-o", str(lib), *[f"-L{d}" for d in libdirs], "-lc10", "-ltorch_cpu",
           *[f"-Wl,-rpath,{d}" for d in libdirs]]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr[-20000:])
        print(f"FAILED: {source.name} does not build against CPU torch with the stub header")
        return 1
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([PACKAGE_PARENT, os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", LOAD_PROBE, str(lib)], capture_output=True, text=True, env=env)
    if r.returncode != 0 or "registered" not in r.stdout:
        sys.stderr.write(r.stderr[-20000:])
        print(f"FAILED: {source.name}'s PrivateUse1 kernels do not match the op schemas of torch_ops.py")
        return 1
    print(f"OK: {source.name}'s kernels register against the torch_ops schemas (PrivateUse1)")
    return 0


def check_jit(package: Path, workdir: Path) -> int:
    """Run the JIT build exactly as npu.load_extension() does (torch.utils.cpp_extension, the wheel's headers,
    linked against its libtorch_npu.so). Without CANN the library builds but cannot load (libtorch_npu.so needs
    CANN's runtime libraries): that outcome passes, naming the missing library; a compile or link error fails."""
    import ascend_quant_ops.torch_ops  # noqa: F401  (the schemas the library adds kernels to)
    from ascend_quant_ops import npu

    try:
        path = build.jit_build(package, workdir)
    except OSError as e:  # built, not loadable here
        built = sorted(workdir.glob(f"{build.LIBRARY_NAME}*.so"))
        if not built:
            print(f"FAILED: JIT build produced no library: {e}")
            return 1
        print(f"OK: JIT build compiled and linked {built[0]}; loading it needs CANN here"
              f"{npu._loader_reason(e) or ': ' + str(e)}")
        return 0
    except Exception as e:
        sys.stderr.write(f"{type(e).__name__}: {e}\n")
        print("FAILED: JIT build of the extension failed")
        return 1
    print(f"OK: JIT build compiled, linked and loaded {path}")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cache", type=Path, default=default_cache(), help="where the wheel and headers are kept")
    p.add_argument("--torch-npu-version", default=None, help="default: the installed torch's version")
    p.add_argument("--source", type=Path, default=build.SOURCE, help="the C++ file to check")
    p.add_argument("--schema", action="store_true",
                   help="also build against CPU torch with the stub header and check the kernel signatures")
    p.add_argument("--schema-only", action="store_true", help="only the schema check (no wheel needed)")
    p.add_argument("--jit", action="store_true",
                   help="also run npu.load_extension()'s JIT build against the wheel (headers and libtorch_npu.so)")
    args = p.parse_args(argv)
    if shutil.which("g++") is None:
        print("error: g++ not found", file=sys.stderr)
        return 2
    rc = 0
    if not args.schema_only:
        package = ensure_headers(args.cache, args.torch_npu_version or matching_torch_npu_version())
        rc = check(args.source, package)
    if rc == 0 and (args.schema or args.schema_only):
        rc = check_schema(args.source, args.cache / "schema_check")
    if rc == 0 and args.jit and not args.schema_only:
        if args.source != build.SOURCE:
            print("error: --jit builds the package's own source only", file=sys.stderr)
            return 2
        version = args.torch_npu_version or matching_torch_npu_version()
        rc = check_jit(ensure_headers(args.cache, version, with_libs=True), args.cache / version / "jit")
    return rc


if __name__ == "__main__":
    sys.exit(main())
