#!/usr/bin/env python3
"""Type-checks the AscendC device code and the CANN op_host code against the headers of a CANN toolkit.

No NPU and no CANN compiler are needed: the AscendC headers have a CPU-debug mode (the one tikicpulib uses) that
host g++ parses, so `g++ -fsyntax-only` finds wrong API names and overloads, wrong dtypes, missing includes, and
APIs the headers mark as unsupported on a SoC (they are [[deprecated("... is an unsupported API on current
device")]] for that SoC; the check turns that warning into a failure). It is a front-end check only: nothing is
linked, and run-time restrictions (illegal Cast round modes, UB overflow, alignment) are not seen.

Kernel passes (every op_kernel/*.cpp, and the emulator's API probes op_kernel/emulator/probes/*.cpp: device code that
calls what the emulator models, on the SoCs its `// check-socs:` line names; tests/emulator/test_emulator_probes.py
compiles the same files against the emulator, so the two APIs are held to one set of calls):
  ascend910b   cpu-debug  __CCE_AICORE__=220, core type chosen at run time (how tikicpulib compiles a mix kernel)
               aiv        the same plus the vector-core macros bisheng defines for the AIV half of a mix kernel
  ascend310p   aicore     __CCE_AICORE__=200 (coupled AI core)
  ascend910_95 signatures: no public header set has its dav-3510 implementation, so its own code paths (selected by
               __DAV_C310__: the float8 / hifloat8 conversions and dispatch) are checked against the 8.1 interface
               signatures through the ascend910b aiv pass, with the three 8-bit float storage types declared by a
               stand-in header (8.1 has none). Errors inside the toolkit's dav_c220 implementation headers for those
               types are expected and ignored; an error, or an API the headers mark unsupported, located in the
               checked sources fails the pass. An approximation: it finds wrong API names, overloads and argument
               types in 950-only code, not what the dav-3510 implementation itself accepts or refuses.
A kernel that uses GET_TILING_DATA gets a tiling struct generated from the BEGIN_TILING_DATA_DEF of
op_host/*tiling*.h after the header's own macros are expanded (the field lists of op_host/tiling_core/), which is
what the real build generates from the registered class.

Host passes (every op_host/*.cpp), as the custom-op template compiles each file (-std=c++11):
  opbuild (no define), proto (-DOP_PROTO_LIB), tiling (-DOP_TILING_LIB).

Toolkit: --toolkit, else $ASCEND_HOME_PATH, else $ASCEND_TOOLKIT. Exit status: 0 all checked passes clean,
1 a pass failed, 2 usage error or headers missing.
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROBES = Path("op_kernel") / "emulator" / "probes"  # the emulator's API probes, relative to the repository
UNSUPPORTED = "is an unsupported API on current device"

# Per-SoC macros. __CCE_AICORE__ selects impl/dav_* in the headers; __DAV_C220_VEC__ / __DAV_C220_CUBE__ are what
# bisheng defines for --cce-aicore-arch=dav-c220-vec / -cube (a mix kernel is compiled once per core type);
# tikicpulib defines only __DAV_C220__ and picks the core type at run time. __NPU_ARCH__ as asc-tools' cpudebug.
C220 = ["-D__CCE_AICORE__=220", "-D__DAV_C220__", "-D__NPU_ARCH__=2201"]
M200 = ["-D__CCE_AICORE__=200", "-D__DAV_M200__", "-D__NPU_ARCH__=2002"]
VEC = ["-D__DAV_C220_VEC__", "-D__DAV_VEC__"]
# ascend910_95: the 8.1 signatures with its code paths selected (see the module docstring); its passes keep only
# the errors located in the checked sources (APPROXIMATE_SOCS).
C310 = ["-D__DAV_C310__"]
KERNEL_PASSES = {
    "ascend910b": [("cpu-debug", C220), ("aiv", C220 + VEC)],
    "ascend310p": [("aicore", M200)],
    "ascend910_95": [("signatures", C220 + VEC + C310)],
}
APPROXIMATE_SOCS = {"ascend910_95"}
NOT_CHECKABLE: dict[str, str] = {}
# The 8-bit float storage types the 950 toolkit declares and 8.1 does not (each a distinct one-byte type that
# converts from arithmetic values, as the device's do).
FP8_STANDIN = """\
#pragma once
#include <cstdint>
#include <type_traits>
#define AQO_CHECK_FP8_STANDIN(TYPE)                                                                            \\
    struct TYPE {                                                                                              \\
        uint8_t bits_ = 0;                                                                                     \\
        TYPE() = default;                                                                                      \\
        template <typename A, typename = typename std::enable_if<std::is_arithmetic<A>::value>::type>          \\
        TYPE(A) {}                                                                                             \\
        operator float() const { return 0.0f; }                                                                \\
    };
AQO_CHECK_FP8_STANDIN(hifloat8_t)
AQO_CHECK_FP8_STANDIN(fp8_e4m3fn_t)
AQO_CHECK_FP8_STANDIN(fp8_e5m2_t)
"""
FP8_STANDIN_TYPES = ("hifloat8_t", "fp8_e4m3fn_t", "fp8_e5m2_t")
_FP8 = r"(?:hifloat8_t|fp8_e4m3fn_t|fp8_e5m2_t)"
# The toolkit errors the pass ignores, each the 8.1 dav_c220 implementation lacking what the 950's has:
#   * a raw intrinsic (lower-case name: mad, load_cbuf_to_ca, copy_matrix_cc_to_gm, ...) without a form for a
#     stand-in type;
#   * the float32 -> float8 / hifloat8 conversion intrinsic (CastIntrinsicsImpl from float: the kernels convert
#     float32 only; any other source type is kept);
#   * the Matmul copying B in A's type when A and B are different float8 types (8.1's matmul_private_modules.h:
#     MatmulInputBType<B_TYPE, A_TYPE::T>; the asc-devkit Matmul copies B in its own type).
# Any other error naming a stand-in type (an API template such as DataCopy or Cast with a wrong operand type) is kept.
_IGNORED_950 = [
    re.compile(r"no matching function for call to [‘'][a-z][a-z0-9_]*\(.*" + _FP8),
    re.compile(r"no matching function for call to [‘']CastIntrinsicsImpl\(" + _FP8 + r"\*&, float\*&"),
    re.compile(r"no matching function for call to [‘']DataCopy\(.*LocalTensor<(" + _FP8 + r")>.*GlobalTensor<("
               + _FP8 + r")>"),
]


def _ignored_on_950(line: str) -> bool:
    for i, pattern in enumerate(_IGNORED_950):
        m = pattern.search(line)
        if m and (i != 2 or m.group(1) != m.group(2)):
            return True
    return False
HOST_PASSES = [("opbuild", []), ("proto", ["-DOP_PROTO_LIB"]), ("tiling", ["-DOP_TILING_LIB"])]


class HeaderError(RuntimeError):
    pass


@dataclass
class Toolkit:
    root: Path
    arch_dir: Path  # <root>/<arch>-linux

    @property
    def ascendc(self) -> Path:
        return self.arch_dir / "ascendc" / "include"

    @property
    def include(self) -> Path:
        return self.arch_dir / "include"

    @property
    def highlevel(self) -> Path:
        return self.ascendc / "highlevel_api"

    @property
    def tikicpulib(self) -> Path:
        return self.root / "tools" / "tikicpulib" / "lib" / "include"


def locate_toolkit(root: Path) -> Toolkit:
    """The header directories of the toolkit at `root`; HeaderError naming what is missing."""
    if not root.is_dir():
        raise HeaderError(f"{root} is not a directory")
    candidates = [root / f"{platform.machine()}-linux"] + sorted(root.glob("*-linux"))
    arch = next((c for c in candidates if (c / "ascendc" / "include").is_dir()), None)
    if arch is None:
        raise HeaderError(f"no <arch>-linux/ascendc/include under {root}: not a CANN toolkit (>= 8.0) with the "
                          "AscendC headers")
    tk = Toolkit(root, arch)
    return tk


def require(tk: Toolkit, kind: str) -> None:
    if kind == "kernel":
        dirs = [tk.ascendc / "basic_api", tk.highlevel, tk.tikicpulib, tk.include]
    else:
        dirs = [tk.include / "register", tk.include / "exe_graph", tk.highlevel / "tiling" / "platform",
                tk.highlevel / "lib"]
    missing = [str(d) for d in dirs if not d.is_dir()]
    if missing:
        raise HeaderError(f"the toolkit at {tk.root} lacks header directories needed for the {kind} check: "
                          + ", ".join(missing))


# ---------------------------------------------------------------------------------------------------------------
# Kernel-side tiling struct


def _strip_comments(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def snake_case(name: str) -> str:
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def expand_tiling_header(header: Path, cxx: str | None = None) -> str:
    """The text of a host tiling header with its own macros expanded (the field lists of
    op_host/tiling_core/<op>_tiling_fields.h become TILING_DATA_FIELD_DEF lines), CANN's tiling macros left as
    they are: the preprocessor runs with empty stand-ins for the CANN headers, so that BEGIN_TILING_DATA_DEF and
    friends stay unexpanded text. The real build generates the kernel's struct from the registered class, i.e.
    after the same expansion. Without a compiler, the header's text with comments stripped."""
    cxx = cxx or os.environ.get("CXX", "g++")
    with tempfile.TemporaryDirectory(prefix="aqo-tiling-") as tmp:
        fake = Path(tmp)
        for rel in ("register/tilingdata_base.h", "tiling/tiling_api.h", "lib/matmul_tiling_emu.h"):
            (fake / rel).parent.mkdir(parents=True, exist_ok=True)
            (fake / rel).write_text("#pragma once\n", encoding="utf-8")
        cmd = [cxx, "-E", "-P", "-x", "c++", "-std=c++11", f"-I{fake}", f"-I{header.parent}", str(header)]
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
        except OSError:
            proc = None
    if proc is None or proc.returncode != 0:
        return _strip_comments(header.read_text(encoding="utf-8", errors="replace"))
    return proc.stdout


def tiling_stub(headers: list[Path], kernel: Path, wanted: str | None = None,
                cxx: str | None = None) -> tuple[str, str]:
    """(C++ text, class name): the kernel-side structs of every BEGIN_TILING_DATA_DEF in `headers` (after their own
    macros are expanded) and a GET_TILING_DATA bound to the class registered for the kernel's operator."""
    src = "\n".join(expand_tiling_header(h, cxx) for h in headers)
    classes, order = {}, []
    for m in re.finditer(r"BEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\)(.*?)END_TILING_DATA_DEF", src, re.S):
        fields = []
        for f in re.finditer(r"TILING_DATA_FIELD_DEF(_ARR|_STRUCT)?\s*\(([^)]*)\)", m.group(2)):
            args = [a.strip() for a in f.group(2).split(",")]
            if f.group(1) == "_ARR":
                fields.append(f"    {args[0]} {args[2]}[{args[1]}];")
            else:
                fields.append(f"    {args[0]} {args[1]};")
        classes[m.group(1)] = fields
        order.append(m.group(1))
    if not order:
        raise HeaderError("no BEGIN_TILING_DATA_DEF in " + ", ".join(str(h) for h in headers))
    registered = re.findall(r"REGISTER_TILING_DATA_CLASS\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)", src)
    stem = kernel.stem.replace("_", "")
    mine = [cls for op, cls in registered if snake_case(op).replace("_", "") == stem]
    main = wanted or (mine[0] if mine else (registered[0][1] if registered else order[-1]))
    if main not in classes:
        raise HeaderError(f"tiling class {main} is not defined in " + ", ".join(str(h) for h in headers))
    lines = ["#pragma once", '#include "kernel_operator.h"', '#include "kernel_tiling/kernel_tiling.h"']
    for name in order:
        lines.append(f"class {name} {{\npublic:\n" + "\n".join(classes[name]) + "\n};")
    lines.append("template <class T>\n__aicore__ inline void AqoCheckInitTiling(const __gm__ uint8_t* p, T* t)\n"
                 "{\n    uint8_t* d = reinterpret_cast<uint8_t*>(t);\n"
                 "    for (uint64_t i = 0; i < sizeof(T); ++i) { d[i] = p[i]; }\n}")
    lines.append(f"#define GET_TILING_DATA(tiling_data, tiling_arg) {main} tiling_data; "
                 f"AqoCheckInitTiling<{main}>(tiling_arg, &tiling_data);")
    lines.append("#define GET_TILING_DATA_WITH_STRUCT(tiling_struct, tiling_data, tiling_arg) "
                 "tiling_struct tiling_data; AqoCheckInitTiling<tiling_struct>(tiling_arg, &tiling_data);")
    lines.append("#define GET_TILING_DATA_MEMBER(tiling_type, member, var, tiling) "
                 "decltype(((tiling_type *)0)->member) var; "
                 "AqoCheckInitTiling<decltype(((tiling_type *)0)->member)>("
                 "(tiling) + (size_t)(&((tiling_type*)0)->member), &var);")
    return "\n".join(lines) + "\n", main


# ---------------------------------------------------------------------------------------------------------------
# Passes


@dataclass
class Result:
    target: str   # "ascend910b/aiv" or "host/opbuild"
    file: Path
    status: str   # PASS | FAIL | NOT-CHECKABLE
    detail: list[str] = field(default_factory=list)
    command: list[str] = field(default_factory=list)


def _shims(tmp: Path, tk: Toolkit) -> Path:
    """Include names that are symlinks in an installed toolkit but plain paths in a header-only mirror."""
    shim = tmp / "shim"
    (shim / "lib").mkdir(parents=True, exist_ok=True)
    (shim / "tiling").mkdir(parents=True, exist_ok=True)
    (shim / "lib" / "matmul_intf.h").write_text(
        f'#include "{tk.highlevel / "lib" / "matmul" / "matmul_intf.h"}"\n', encoding="utf-8")
    (shim / "tiling" / "tiling_api.h").write_text(
        f'#include "{tk.highlevel / "lib" / "tiling_api.h"}"\n', encoding="utf-8")
    return shim


def _compile(cmd: list[str]) -> tuple[int, str]:
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    return proc.returncode, proc.stdout


def kernel_commands(tk: Toolkit, kernel: Path, soc: str, shim: Path, forced: list[str], cxx: str,
                    extra: list[str]) -> list[tuple[str, list[str]]]:
    a = tk.ascendc
    incs = [shim, kernel.parent, tk.tikicpulib, tk.include, a / "basic_api", a / "basic_api" / "interface",
            a / "basic_api" / "impl", tk.highlevel, tk.highlevel / "lib", tk.highlevel / "impl",
            tk.highlevel / "lib" / "matmul"]
    base = [cxx, "-std=c++17", "-fsyntax-only", "-Wdeprecated-declarations", "-Wno-missing-template-keyword",
            "-D_GLIBCXX_USE_CXX11_ABI=0", "-D__CCE_KT_TEST__=1", "-DASCENDC_CPU_DEBUG=1", "-DASCENDC_DEBUG=1"]
    base += [f"-I{d}" for d in incs]
    if soc in APPROXIMATE_SOCS:
        standin = shim / "aqo_check_fp8_standin.h"
        standin.write_text(FP8_STANDIN, encoding="utf-8")
        forced = ["-include", str(standin)] + forced
    return [(name, base + flags + extra + forced + [str(kernel)]) for name, flags in KERNEL_PASSES[soc]]


def _located_in(line: str, sources: Path) -> bool:
    """Whether a compiler diagnostic line points into the checked sources' folder (op_kernel/), not a toolkit
    header."""
    m = re.match(r"^(.*?):\d+:\d+: ", line)
    if not m:
        return False
    path = Path(m.group(1))
    try:
        path.resolve().relative_to(sources.resolve())
        return True
    except ValueError:
        return False


def check_kernel(tk: Toolkit, kernel: Path, socs: list[str], tiling_headers: list[Path] | None, cxx: str,
                 extra: list[str], tmp: Path) -> list[Result]:
    results = []
    text = kernel.read_text(encoding="utf-8", errors="replace")
    only = re.search(r"^// check-socs: (.+)$", text, re.MULTILINE)  # an API probe names the SoCs its calls are for
    if only:
        socs = [s for s in socs if s in only.group(1).split()]
    checkable = [s for s in socs if s in KERNEL_PASSES]
    for soc in socs:
        if soc in NOT_CHECKABLE:
            results.append(Result(soc, kernel, "NOT-CHECKABLE", [NOT_CHECKABLE[soc]]))
    if not checkable:
        return results
    shim = _shims(tmp, tk)
    forced = []
    if "GET_TILING_DATA" in text:
        headers = tiling_headers or sorted((kernel.parent.parent / "op_host").glob("*tiling*.h"))
        if not headers:
            return results + [Result(f"{s}/*", kernel, "FAIL",
                                     ["uses GET_TILING_DATA but no op_host/*tiling*.h with BEGIN_TILING_DATA_DEF "
                                      "was found (pass --tiling-header)"]) for s in checkable]
        try:
            stub, _ = tiling_stub(headers, kernel, cxx=cxx)
        except HeaderError as exc:
            return results + [Result(f"{s}/*", kernel, "FAIL", [str(exc)]) for s in checkable]
        stub_path = tmp / f"tiling_stub_{kernel.stem}.h"
        stub_path.write_text(stub, encoding="utf-8")
        forced = ["-include", str(stub_path)]
    for soc in checkable:
        for name, cmd in kernel_commands(tk, kernel, soc, shim, forced, cxx, extra):
            rc, log = _compile(cmd)
            if soc in APPROXIMATE_SOCS:
                # Kept: every error (and unsupported-API mark) in the checked sources, and every error elsewhere
                # that is not about the stand-in types (e.g. a static_assert on an element type in an impl header).
                kept, ignored = [], 0
                for ln in log.splitlines():
                    if ("error:" in ln or UNSUPPORTED in ln) and _located_in(ln, kernel.parent):
                        kept.append(ln)
                    elif ": error:" in ln or (ln.startswith("cc1plus") and "error:" in ln):
                        if _ignored_on_950(ln):
                            ignored += 1
                        else:
                            kept.append(ln)
                if rc != 0 and not kept and not ignored:
                    kept = log.splitlines()[-20:] or [f"the compiler failed (exit status {rc}) without a message"]
                note = [f"{ignored} error(s) in the toolkit's dav_c220 headers for the stand-in 8-bit float types "
                        "ignored (missing intrinsics, the 8.1 Matmul's mixed float8 copy)"] if ignored else []
                results.append(Result(f"{soc}/{name}", kernel, "FAIL" if kept else "PASS", kept[:40] + note, cmd))
                continue
            if rc == 0 and UNSUPPORTED not in log:
                own = [ln for ln in log.splitlines() if re.match(rf"^(.*/)?{re.escape(kernel.name)}:\d+:\d+: warning", ln)]
                results.append(Result(f"{soc}/{name}", kernel, "PASS", own, cmd))
            else:
                keep = [ln.replace(": warning: ", ": error(unsupported-on-SoC): ") for ln in log.splitlines()
                        if ("error:" in ln or UNSUPPORTED in ln
                            or re.match(rf"^(.*/)?{re.escape(kernel.name)}:\d+:\d+: +required from", ln))
                        and not ln.startswith("cc1plus")]
                results.append(Result(f"{soc}/{name}", kernel, "FAIL", keep[:40] or log.splitlines()[-20:], cmd))
    return results


def check_host(tk: Toolkit, source: Path, cxx: str, extra: list[str], tmp: Path,
               passes: list[str] | None = None) -> list[Result]:
    shim = _shims(tmp, tk)
    base = [cxx, "-std=c++11", "-fsyntax-only", "-fPIC", "-D_GLIBCXX_USE_CXX11_ABI=0", f"-I{shim}",
            f"-I{tk.include}", f"-I{tk.highlevel}", f"-I{source.parent}", f"-I{source.parent.parent / 'op_kernel'}"]
    results = []
    for name, defines in HOST_PASSES:
        if passes and name not in passes:
            continue
        cmd = base + defines + extra + [str(source)]
        rc, log = _compile(cmd)
        if rc == 0:
            results.append(Result(f"host/{name}", source, "PASS", [], cmd))
        else:
            errors = [ln for ln in log.splitlines() if "error:" in ln]
            results.append(Result(f"host/{name}", source, "FAIL", errors[:30] or log.splitlines()[-20:], cmd))
    return results


# ---------------------------------------------------------------------------------------------------------------


def default_toolkit(env=None) -> tuple[str | None, str]:
    env = os.environ if env is None else env
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT"):
        if env.get(var):
            return env[var], var
    return None, ""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", help="sources to check (default: op_kernel/*.cpp and op_host/*.cpp)")
    parser.add_argument("--toolkit", help="CANN toolkit root (default: $ASCEND_HOME_PATH, else $ASCEND_TOOLKIT)")
    parser.add_argument("--soc", action="append", choices=sorted(KERNEL_PASSES) + sorted(NOT_CHECKABLE),
                        help="kernel SoC (repeatable; default: all three)")
    parser.add_argument("--host-pass", action="append", choices=[n for n, _ in HOST_PASSES],
                        help="host pass (repeatable; default: all three)")
    parser.add_argument("--tiling-header", action="append", type=Path,
                        help="host tiling header(s) for GET_TILING_DATA (default: ../op_host/*tiling*.h)")
    parser.add_argument("--repo", type=Path, default=REPO, help="project root for the default file lists")
    parser.add_argument("-I", dest="includes", action="append", default=[], help="extra include directory")
    parser.add_argument("-D", dest="defines", action="append", default=[], help="extra define")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="files checked in parallel (default 1)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the g++ command lines")
    args = parser.parse_args(argv)

    root, source = (args.toolkit, "--toolkit") if args.toolkit else default_toolkit()
    if not root:
        print("check: no CANN headers: set ASCEND_HOME_PATH to a CANN toolkit (or ASCEND_TOOLKIT to a header "
              "mirror such as ~/.cache/cann-headers/Ascend/ascend-toolkit/8.1.RC1), or pass --toolkit",
              file=sys.stderr)
        return 2
    cxx = os.environ.get("CXX", "g++")
    extra = [f"-I{d}" for d in args.includes] + [f"-D{d}" for d in args.defines]
    socs = args.soc or ["ascend910b", "ascend310p", "ascend910_95"]
    if args.files:
        files = [Path(f) for f in args.files]
    else:
        files = (sorted((args.repo / "op_kernel").glob("*.cpp")) + sorted((args.repo / PROBES).glob("*.cpp")) +
                 sorted((args.repo / "op_host").glob("*.cpp")))
    if not files:
        print(f"check: no op_kernel/*.cpp or op_host/*.cpp under {args.repo}: nothing to check", file=sys.stderr)
        return 2
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        print("check: no such file: " + ", ".join(missing), file=sys.stderr)
        return 2
    try:
        tk = locate_toolkit(Path(root))
        kinds = {"host" if f.parent.name == "op_host" else "kernel" for f in files}
        for kind in sorted(kinds):
            require(tk, kind)
    except HeaderError as exc:
        print(f"check: {exc} (toolkit from {source})", file=sys.stderr)
        return 2
    print(f"check: headers of {tk.root} ({tk.arch_dir.name}, from {source})")

    results = []
    with tempfile.TemporaryDirectory(prefix="aqo-check-") as tmpdir:

        def check_file(item):
            index, f = item
            tmp = Path(tmpdir) / str(index)  # one scratch folder per file: shims and stubs are not shared
            tmp.mkdir()
            if f.parent.name != "op_host":
                return check_kernel(tk, f, socs, args.tiling_header, cxx, extra, tmp)
            return check_host(tk, f, cxx, extra, tmp, args.host_pass)

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            batches = pool.map(check_file, enumerate(files))  # results in file order, whatever finishes first
            for batch in batches:
                for r in batch:
                    print(f"check: {r.status:<13} {r.target:<22} {r.file}", flush=True)
                    indent = "    "
                    for line in r.detail:
                        print(indent + line)
                    if args.verbose and r.command:
                        print(indent + "+ " + " ".join(r.command))
                results += batch
    failed = [r for r in results if r.status == "FAIL"]
    passed = [r for r in results if r.status == "PASS"]
    unchecked = [r for r in results if r.status == "NOT-CHECKABLE"]
    print(f"check: {len(passed)} passed, {len(failed)} failed, {len(unchecked)} not checkable "
          f"({', '.join(sorted({r.target for r in unchecked})) or 'none'})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
