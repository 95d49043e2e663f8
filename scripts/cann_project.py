#!/usr/bin/env python3
"""Generates and builds the standard CANN custom operator project of ascend-quant-ops.

Everything the toolkit provides is used from the toolkit at build time, never copied into this repository:
msopgen (python/site-packages/bin/msopgen) creates the project from the toolkit's own template, and the project's
own build.sh (cmake/func.cmake, op_build, the kernel compiler) builds `custom_opp_<os>_<arch>.run`.

What this script adds, all rendered with jinja2 from cmake/cann/ops.json (the one op description) and the SoC
table of the tiling core (ascend_quant_ops._native.soc_table(), never restated here):
  * the msopgen input json (operators, inputs, outputs, attributes, dtype columns);
  * the cache variables of CMakePresets.json (compute units, CANN path, vendor "aqo"), merged over the preset
    msopgen wrote;
  * cmake/aqo_tiling_core.cmake, which compiles op_host/tiling_core/*.cpp (C++17) into opbuild's library and into
    the op_host libraries (the template globs only op_host/*.cpp);
and it replaces the skeleton sources msopgen generates with ours (op_host/*.cpp|h, op_host/tiling_core/,
op_kernel/*.cpp|h; the CPU emulator is not part of the package).

Commands:
  render  --out DIR         write the rendered files (msopgen json, preset overlay, tiling-core cmake); no CANN
  describe                  print the operators with their dtype columns per compute unit
  package --toolkit DIR     generate the project with msopgen, overlay our sources, build, copy the .run
"""
from __future__ import annotations

import argparse
import glob
import importlib.util
import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TEMPLATE_DIR = REPO / "cmake" / "cann"
DESCRIPTION = TEMPLATE_DIR / "ops.json"

# Canonical dtype names (op_host/tiling_core/dtype_table.cpp) -> msopgen IR json type names
# (op_gen/config/transform.json INPUT_OUTPUT_DTYPE_MAP). The float8 / hifloat8 names follow the same spelling;
# msopgen 8.1.RC1 does not know them (and rejects an operator that uses them), so render_msopgen_json leaves the
# columns holding them out of msopgen's input when the toolkit's table lacks them: only msopgen's skeleton, which
# our sources replace, is generated from that file.
IR_TYPE = {
    "float16": "float16",
    "bfloat16": "bfloat16",
    "float32": "float",
    "int8": "int8",
    "uint8": "uint8",
    "int32": "int32",
    "hifloat8": "hifloat8",
    "float8_e4m3fn": "float8_e4m3fn",
    "float8_e5m2": "float8_e5m2",
}
# Which dtype families the rules of ops.json tell apart.
FLOAT8_TYPES = {"hifloat8", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"}
INTEGER_TYPES = {"int8", "uint8", "int32"}


class CannBuildError(RuntimeError):
    """A failure with a message that says what is missing and what to do."""


# ---------------------------------------------------------------------------------------------------------------
# The op description and the SoC table


def load_native(native_path: str | None = None):
    """The compiled core: the extension file `native_path` if given, else the installed ascend_quant_ops._native."""
    if native_path:
        path = Path(native_path)
        if not path.is_file():
            raise CannBuildError(f"--native {native_path}: no such file")
        spec = importlib.util.spec_from_file_location("_native", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    try:
        from ascend_quant_ops import _native  # noqa: PLC0415
    except ImportError as exc:
        raise CannBuildError(
            "the SoC table comes from ascend_quant_ops._native, which is not importable here "
            f"({exc}). Build it first: `./build.sh` (then pass --native build/native/_native*.so) or "
            "`python -m pip install .`") from exc
    return _native


def soc_specs(native) -> dict:
    """{canonical SoC name: spec dict} from the tiling core's SoC table."""
    if not hasattr(native, "soc_table"):
        raise CannBuildError("ascend_quant_ops._native has no soc_table(): it is older than this script; rebuild it")
    return {spec["name"]: spec for spec in native.soc_table()}


def load_description(path: Path = DESCRIPTION) -> dict:
    """Reads and validates cmake/cann/ops.json."""
    try:
        desc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CannBuildError(f"cannot read the op description {path}: {exc}") from exc
    for key in ("vendor_name", "compute_units", "ops"):
        if key not in desc:
            raise CannBuildError(f"{path}: missing key '{key}'")
    for op in desc["ops"]:
        where = f"{path}: op {op.get('op_type', '?')}"
        for key in ("op_type", "kernel", "inputs", "outputs", "attrs"):
            if key not in op:
                raise CannBuildError(f"{where}: missing key '{key}'")
        names = [t["name"] for t in op["inputs"] + op["outputs"]]
        if len(set(names)) != len(names):
            raise CannBuildError(f"{where}: duplicate tensor names {names}")
        for t in op["inputs"] + op["outputs"]:
            if t.get("param_type") not in ("required", "optional", "dynamic"):
                raise CannBuildError(f"{where}: tensor {t['name']}: param_type must be required|optional|dynamic")
            dtype = t.get("dtype", {})
            kinds = [k for k in DTYPE_KINDS if k in dtype]
            if len(kinds) != 1:
                raise CannBuildError(f"{where}: tensor {t['name']}: dtype needs exactly one of "
                                     f"{', '.join(DTYPE_KINDS)} (has {kinds or 'none'})")
            for kind in ("same_as", "offset_of"):
                if kind not in dtype:
                    continue
                ref = next((r for r in op["inputs"] + op["outputs"] if r["name"] == dtype[kind]), None)
                if ref is None or "soc_table" not in ref.get("dtype", {}):
                    raise CannBuildError(f"{where}: tensor {t['name']}: {kind} must name a tensor whose dtype "
                                         "comes from the SoC table")
            if "fixed" in dtype and dtype["fixed"] not in IR_TYPE:
                raise CannBuildError(f"{where}: tensor {t['name']}: unknown fixed dtype {dtype['fixed']}")
        for rule in op.get("rules", []):
            if rule.get("kind") not in RULE_KINDS:
                raise CannBuildError(f"{where}: unknown rule kind {rule.get('kind')}")
    return desc


# How ops.json gives a tensor's dtype: a SoC table list (an axis of the dtype columns), another tensor's dtype, a
# fixed dtype, or DynamicQuant's offset of a y: the integer zero point (uint8, y's dtype) when y is uint8, else a
# float32 offset (golden/dynamic_quant.py, the asymmetric modes).
DTYPE_KINDS = ("soc_table", "same_as", "fixed", "offset_of")


def offset_dtype(y: str) -> str:
    """The dtype of DynamicQuant's offset for output type `y`."""
    return "uint8" if y == "uint8" else "float32"


def table_field(spec: dict, dotted: str):
    """spec["dynamic_quant"]["x_dtypes"] for "dynamic_quant.x_dtypes"; a clear error when the table lacks it."""
    value = spec
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            raise CannBuildError(f"the SoC table entry of {spec.get('name')} has no field '{dotted}' "
                                 "(cmake/cann/ops.json and python/csrc/bind_tiling.cpp disagree)")
        value = value[part]
    return value


def op_columns(op: dict, spec: dict) -> list[dict]:
    """Every supported dtype combination of `op` on the SoC `spec`: a list of {tensor name: canonical dtype}."""
    tensors = op["inputs"] + op["outputs"]
    axes = [t for t in tensors if "soc_table" in t["dtype"]]
    values = []
    for t in axes:
        dtypes = list(table_field(spec, t["dtype"]["soc_table"]))
        unknown = [d for d in dtypes if d not in IR_TYPE]
        if unknown:
            raise CannBuildError(f"{op['op_type']} on {spec['name']}: tensor {t['name']}: dtypes {unknown} have no "
                                 "CANN spelling in scripts/cann_project.py IR_TYPE")
        if not dtypes:
            raise CannBuildError(f"{op['op_type']} on {spec['name']}: the SoC table gives no dtype for {t['name']}")
        values.append(dtypes)
    columns = []
    for combo in itertools.product(*values):
        column = {t["name"]: d for t, d in zip(axes, combo)}
        for t in tensors:
            if "same_as" in t["dtype"]:
                column[t["name"]] = column[t["dtype"]["same_as"]]
            elif "fixed" in t["dtype"]:
                column[t["name"]] = t["dtype"]["fixed"]
            elif "offset_of" in t["dtype"]:
                column[t["name"]] = offset_dtype(column[t["dtype"]["offset_of"]])
        if all(_rule_allows(rule, column, spec) for rule in op.get("rules", [])):
            columns.append({t["name"]: column[t["name"]] for t in tensors})
    return columns


# The rule kinds of ops.json. no_int_float8_mix: a SoC fact (the SoC table's field 'unless' lifts it).
# toolkit_no_float8_cube: a fact of the toolkit the package is built with, not of the SoC; its reason is written
# once, next to kToolkitMatmulTilingHasFloat8 in the rule's 'see' file (the OpDef, which applies the same rule).
RULE_KINDS = ("no_int_float8_mix", "toolkit_no_float8_cube")


def _rule_allows(rule: dict, column: dict, spec: dict) -> bool:
    if rule["kind"] == "toolkit_no_float8_cube":
        return not any(column[n] in FLOAT8_TYPES for n in rule["between"])
    if rule.get("unless") and table_field(spec, rule["unless"]):
        return True
    kinds = {("float8" if column[n] in FLOAT8_TYPES else "int" if column[n] in INTEGER_TYPES else "other")
             for n in rule["between"]}
    return not {"float8", "int"} <= kinds


def union_columns(op: dict, specs: list[dict]) -> list[dict]:
    """The columns of every SoC in `specs`, each once, in first-seen order."""
    seen, out = set(), []
    for spec in specs:
        for column in op_columns(op, spec):
            key = tuple(sorted(column.items()))
            if key not in seen:
                seen.add(key)
                out.append(column)
    return out


def selected_specs(desc: dict, native, compute_units: list[str] | None = None) -> list[dict]:
    """The SoC table entries of the compute units to build (default: the description's list)."""
    table = soc_specs(native)
    units = compute_units or desc["compute_units"]
    out = []
    for unit in units:
        name = native.canonical_soc(unit) if hasattr(native, "canonical_soc") else unit
        if name is None or name not in table:
            raise CannBuildError(f"compute unit '{unit}' is not a SoC of the table; known: {', '.join(table)}")
        out.append(table[name])
    return out


# ---------------------------------------------------------------------------------------------------------------
# Rendering


def _jinja_env():
    try:
        import jinja2  # noqa: PLC0415
    except ImportError as exc:
        raise CannBuildError("jinja2 is needed to render the CANN project files: python -m pip install jinja2") from exc
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, autoescape=False)


def msopgen_known_types(toolkit: Path) -> set[str] | None:
    """The IR type names the toolkit's msopgen accepts (op_gen/config/transform.json), None when unknown."""
    path = toolkit / "python" / "site-packages" / "op_gen" / "config" / "transform.json"
    try:
        return set(json.loads(path.read_text(encoding="utf-8"))["INPUT_OUTPUT_DTYPE_MAP"])
    except (OSError, ValueError, KeyError):
        return None


def render_msopgen_json(desc: dict, specs: list[dict], known_types: set[str] | None = None) -> str:
    """The msopgen input. With `known_types`, columns holding a type that msopgen does not know are left out:
    msopgen 8.1.RC1 rejects the whole operator otherwise ("number of types does not match that of formats"). Only
    msopgen's skeleton loses them; the OpDef that replaces it declares every column of the description."""
    ops = []
    for op in desc["ops"]:
        columns = union_columns(op, specs)
        if known_types is not None:
            dropped = [c for c in columns if any(IR_TYPE[d] not in known_types for d in c.values())]
            columns = [c for c in columns if c not in dropped]
            unknown = sorted({IR_TYPE[d] for c in dropped for d in c.values()} - known_types)
            if dropped:
                print(f"cann_project: {op['op_type']}: this toolkit's msopgen does not know {', '.join(unknown)}; "
                      f"its skeleton is generated without those {len(dropped)} dtype columns (op_host/"
                      f"{op['kernel']}.cpp, which replaces the skeleton, declares them)", flush=True)
            if not columns:
                raise CannBuildError(f"{op['op_type']}: this toolkit's msopgen knows none of the dtype columns")

        def tensor(t, columns=columns):
            return {"name": t["name"], "param_type": t["param_type"], "formats": ["ND"] * len(columns),
                    "ir_types": [IR_TYPE[c[t["name"]]] for c in columns]}

        ops.append({"op_type": op["op_type"], "inputs": [tensor(t) for t in op["inputs"]],
                    "outputs": [tensor(t) for t in op["outputs"]],
                    "attrs": [{"name": a["name"], "param_type": a["param_type"], "type": a["type"],
                               "default_value": a.get("default_value")} for a in op["attrs"]]})
    text = _jinja_env().get_template("msopgen_ops.json.j2").render(ops=ops)
    json.loads(text)  # a template error must never reach msopgen
    return text


def render_presets_overlay(desc: dict, compute_units: list[str], cann_package_path: str,
                           python_executable: str = "python3") -> dict:
    text = _jinja_env().get_template("CMakePresets.json.j2").render(
        compute_units=compute_units, cann_package_path=cann_package_path, vendor_name=desc["vendor_name"],
        python_executable=python_executable)
    return json.loads(text)


def merge_presets(generated: dict, overlay: dict) -> dict:
    """The toolkit's presets with our cache variables set in its "default" configure preset."""
    merged = json.loads(json.dumps(generated))
    for preset in merged.get("configurePresets", []):
        if preset.get("name") == "default":
            preset.setdefault("cacheVariables", {}).update(overlay)
            return merged
    raise CannBuildError("the generated CMakePresets.json has no configure preset named 'default' (the toolkit's "
                         "build.sh runs `cmake --preset=default`); this toolkit version is not supported")


def tiling_core_sources(repo: Path = REPO) -> list[str]:
    return sorted(p.name for p in (repo / "op_host" / "tiling_core").glob("*.cpp"))


def render_tiling_core_cmake(sources: list[str]) -> str:
    return _jinja_env().get_template("aqo_tiling_core.cmake.j2").render(tiling_core_sources=sources)


def render_all(desc: dict, native, out: Path, compute_units: list[str] | None = None,
               cann_package_path: str = "/usr/local/Ascend/ascend-toolkit/latest") -> dict:
    """Writes the rendered files into `out`; returns {role: path}."""
    units = compute_units or desc["compute_units"]
    specs = selected_specs(desc, native, units)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"msopgen_json": out / "aqo_ops.json", "presets_overlay": out / "CMakePresets.overlay.json",
             "tiling_core_cmake": out / "aqo_tiling_core.cmake"}
    paths["msopgen_json"].write_text(render_msopgen_json(desc, specs), encoding="utf-8")
    overlay = render_presets_overlay(desc, [s["name"] for s in specs], cann_package_path,
                                     os.environ.get("ASCEND_PYTHON_EXECUTABLE", "python3"))
    paths["presets_overlay"].write_text(json.dumps(overlay, indent=4) + "\n", encoding="utf-8")
    paths["tiling_core_cmake"].write_text(render_tiling_core_cmake(tiling_core_sources()), encoding="utf-8")
    return paths


# ---------------------------------------------------------------------------------------------------------------
# The toolkit


def find_toolkit(explicit: str | None = None, env=None) -> tuple[Path | None, str]:
    """(toolkit root, where it came from) from --toolkit, ASCEND_HOME_PATH or ASCEND_CANN_PACKAGE_PATH."""
    env = os.environ if env is None else env
    if explicit:
        return Path(explicit), "--toolkit"
    for var in ("ASCEND_HOME_PATH", "ASCEND_CANN_PACKAGE_PATH"):
        if env.get(var):
            return Path(env[var]), var
    return None, ""


def msopgen_path(toolkit: Path) -> Path:
    """The toolkit's msopgen: <toolkit>/python/site-packages/bin/msopgen, else the one on PATH (CANN's set_env.sh
    puts that directory there), else the standard path (which toolkit_problems then reports missing)."""
    standard = toolkit / "python" / "site-packages" / "bin" / "msopgen"
    if standard.is_file():
        return standard
    on_path = shutil.which("msopgen")
    return Path(on_path) if on_path else standard


def toolkit_problems(toolkit: Path, compute_units: list[str]) -> list[str]:
    """What the package build needs from the toolkit and does not find (empty list: all there)."""
    problems = []
    if not toolkit.is_dir():
        return [f"{toolkit} is not a directory"]
    needs = [
        (msopgen_path(toolkit), "msopgen (creates the custom operator project)"),
        (toolkit / "tools" / "op_project_templates" / "ascendc" / "customize",
         "the AscendC custom operator project template msopgen copies"),
        (toolkit / "toolkit" / "tools" / "opbuild" / "op_build",
         "op_build (generates the aclnn API and the op info from the OpDefs)"),
        (toolkit / "compiler" / "ccec_compiler" / "bin", "the AscendC kernel compiler (ccec/bisheng)"),
    ]
    for path, what in needs:
        if not path.exists():
            problems.append(f"missing {what}: {path}")
    configs = glob.glob(str(toolkit / "*-linux" / "data" / "platform_config" / "*.ini"))
    if configs:
        known = {Path(c).stem.lower() for c in configs}
        for unit in compute_units:
            if not any(k == unit or k.startswith(unit) for k in known):
                problems.append(f"this toolkit has no platform config for compute unit {unit} "
                                f"({toolkit}/*-linux/data/platform_config/); build for the others with "
                                f"--compute-units, or use a newer CANN")
    return problems


def kernel_impl_dirs(toolkit: Path, max_depth: int = 6) -> set[str]:
    """The AscendC implementation directories (dav_<arch>) under the toolkit's <arch>-linux trees: which core
    architectures its kernel compiler has headers for (8.1.RC1: ascendc/include/basic_api/impl/dav_c220, ...;
    newer layouts move the folder, so every dav_* directory a few levels down counts)."""
    found = set()
    for root in sorted(toolkit.glob("*-linux")):
        base = len(root.parts)
        for dirpath, dirnames, _ in os.walk(root):
            depth = len(Path(dirpath).parts) - base
            for d in dirnames:
                if d.startswith("dav_"):
                    found.add(d)
            # Do not descend into the implementations themselves, nor below max_depth.
            dirnames[:] = [] if depth >= max_depth else [d for d in dirnames if not d.startswith("dav_")]
    return found


def buildable_units(toolkit: Path, desc: dict, units: list[str]) -> tuple[list[str], list[str]]:
    """(units the toolkit has kernel headers for, a reason per unit it has not), by the description's
    kernel_headers (the dav_<arch> implementation each unit needs)."""
    needed = desc.get("kernel_headers", {})
    have = kernel_impl_dirs(toolkit)
    ok, skipped = [], []
    for unit in units:
        impl = needed.get(unit)
        if impl is None or impl in have:
            ok.append(unit)
        else:
            skipped.append(f"{unit}: the toolkit at {toolkit} has no AscendC kernel headers for it ({impl}, the "
                           f"implementation its kernels compile against; CANN 8.1.RC1 has none), so its kernels "
                           f"cannot be compiled; use a CANN toolkit that supports {unit}")
    return ok, skipped


def _tool_env(toolkit: Path) -> dict:
    env = dict(os.environ)
    env["ASCEND_HOME_PATH"] = str(toolkit)  # msopgen copies its template from $ASCEND_HOME_PATH/tools/...
    site = str(toolkit / "python" / "site-packages")
    env["PYTHONPATH"] = site + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _run(cmd: list[str], cwd: Path | None, env: dict, what: str) -> None:
    print("+ " + " ".join(str(c) for c in cmd), flush=True)
    result = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL, check=False)
    if result.returncode != 0:
        raise CannBuildError(f"{what} failed (exit {result.returncode}); its output is above")


def msopgen_commands(toolkit: Path, json_path: Path, desc: dict, units: list[str], project: Path) -> list[list[str]]:
    """One `msopgen gen` per operator: the first creates the project (-m 0), the others add to it (-m 1).
    -op names the operator because msopgen asks interactively when a json holds several."""
    compute = ",".join(f"ai_core-{u}" for u in units)
    cmds = []
    for i, op in enumerate(desc["ops"]):
        cmds.append([sys.executable, str(msopgen_path(toolkit)), "gen", "-i", str(json_path), "-c", compute,
                     "-lan", "cpp", "-out", str(project), "-op", op["op_type"], "-m", "0" if i == 0 else "1"])
    return cmds


def overlay_sources(project: Path, desc: dict, repo: Path = REPO) -> list[str]:
    """Replaces msopgen's skeleton sources with ours; returns the copied paths (relative to the project)."""
    missing = []
    for op in desc["ops"]:
        for rel in (f"op_host/{op['kernel']}.cpp", f"op_kernel/{op['kernel']}.cpp"):
            if not (repo / rel).is_file():
                missing.append(rel)
    if missing:
        raise CannBuildError("the package needs these sources, which do not exist yet: " + ", ".join(missing))
    # msopgen's skeletons are named by its own snake case of the OpType (AqoQLinearMatMul ->
    # aqo_q_linear_mat_mul), not by our file names, so every generated source goes, whatever its name.
    for folder in ("op_host", "op_kernel"):
        for skeleton in (project / folder).glob("*"):
            if skeleton.is_file() and skeleton.name != "CMakeLists.txt":
                skeleton.unlink()
    copied = []

    def copy(src: Path, dst_dir: Path):
        dst_dir.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst_dir / src.name)
        copied.append(str((dst_dir / src.name).relative_to(project)))

    for pattern in ("*.cpp", "*.h"):
        for src in sorted((repo / "op_host").glob(pattern)):
            copy(src, project / "op_host")
        for src in sorted((repo / "op_host" / "tiling_core").glob(pattern)):
            copy(src, project / "op_host" / "tiling_core")
        # Top level only: op_kernel/emulator is the CPU emulator, not device code.
        for src in sorted((repo / "op_kernel").glob(pattern)):
            copy(src, project / "op_kernel")
    return copied


INCLUDE_LINE = "include(${CMAKE_CURRENT_LIST_DIR}/../cmake/aqo_tiling_core.cmake)  # added by ascend-quant-ops"


def inject_tiling_core(project: Path, sources: list[str]) -> None:
    """cmake/aqo_tiling_core.cmake plus its two calls in the generated op_host/CMakeLists.txt."""
    cmake_file = project / "op_host" / "CMakeLists.txt"
    if not cmake_file.is_file():
        raise CannBuildError(f"msopgen did not create {cmake_file}")
    text = cmake_file.read_text(encoding="utf-8")
    if "aux_source_directory" not in text or "ops_srcs" not in text:
        raise CannBuildError(f"{cmake_file} does not collect op_host sources into `ops_srcs` with "
                             "aux_source_directory: this toolkit's template is not the one scripts/cann_project.py "
                             "knows how to extend with the tiling core")
    (project / "cmake").mkdir(exist_ok=True)
    (project / "cmake" / "aqo_tiling_core.cmake").write_text(render_tiling_core_cmake(sources), encoding="utf-8")
    if INCLUDE_LINE not in text:
        text = f"{INCLUDE_LINE}\naqo_tiling_core_prepare()\n\n{text.rstrip()}\n\naqo_tiling_core_link()\n"
        cmake_file.write_text(text, encoding="utf-8")


def write_presets(project: Path, overlay: dict) -> dict:
    path = project / "CMakePresets.json"
    if not path.is_file():
        raise CannBuildError(f"msopgen did not create {path}")
    merged = merge_presets(json.loads(path.read_text(encoding="utf-8")), overlay)
    path.write_text(json.dumps(merged, indent=4) + "\n", encoding="utf-8")
    return merged


def package(toolkit: Path, native, out_dir: Path, dist_dir: Path, compute_units: list[str] | None = None,
            desc_path: Path = DESCRIPTION, repo: Path = REPO) -> Path:
    """The whole package build; returns the path of the copied custom_opp_*.run."""
    desc = load_description(desc_path)
    units = compute_units or desc["compute_units"]
    specs = selected_specs(desc, native, units)
    units = [s["name"] for s in specs]
    toolkit = toolkit.resolve()
    # A compute unit whose kernels the toolkit cannot compile: asked for explicitly, an error; by default, left out
    # with the reason (e.g. ascend910_95 with CANN 8.1.RC1, whose headers have no dav_3510 implementation).
    units, skipped = buildable_units(toolkit, desc, units)
    if skipped and compute_units:
        raise CannBuildError("compute units asked for that this toolkit cannot build:\n  - " + "\n  - ".join(skipped))
    for reason in skipped:
        print(f"cann_project: skipped compute unit {reason}", flush=True)
    if not units:
        raise CannBuildError("no compute unit of the description can be built with this toolkit")
    specs = [s for s in specs if s["name"] in units]
    problems = toolkit_problems(toolkit, units)
    if problems:
        raise CannBuildError(f"the CANN toolkit at {toolkit} cannot build the operator package:\n  - "
                             + "\n  - ".join(problems))
    out_dir.mkdir(parents=True, exist_ok=True)
    project = out_dir / "project"
    if project.exists():
        shutil.rmtree(project)  # msopgen -m 0 refuses an existing project
    json_path = out_dir / "aqo_ops.json"
    json_path.write_text(render_msopgen_json(desc, specs, msopgen_known_types(toolkit)), encoding="utf-8")
    env = _tool_env(toolkit)
    for cmd in msopgen_commands(toolkit, json_path, desc, units, project):
        _run(cmd, out_dir, env, "msopgen gen")
    copied = overlay_sources(project, desc, repo)
    print(f"cann_project: copied {len(copied)} source files into {project}", flush=True)
    inject_tiling_core(project, tiling_core_sources(repo))
    overlay = render_presets_overlay(desc, units, str(toolkit), env.get("ASCEND_PYTHON_EXECUTABLE", "python3"))
    write_presets(project, overlay)
    if not (project / "build.sh").is_file():
        raise CannBuildError(f"msopgen did not create {project / 'build.sh'}")
    _run(["bash", "build.sh"], project, env, "the custom operator project's build.sh")
    runs = sorted((project / "build_out").glob("custom_opp_*.run"))
    if not runs:
        raise CannBuildError(f"the build finished but left no custom_opp_*.run in {project / 'build_out'}")
    dist_dir.mkdir(parents=True, exist_ok=True)
    target = dist_dir / runs[-1].name
    shutil.copy2(runs[-1], target)
    return target


# ---------------------------------------------------------------------------------------------------------------
# Command line


def _units_arg(text: str | None) -> list[str] | None:
    return [u.strip() for u in text.split(",") if u.strip()] if text else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--native", help="path of the _native extension to read the SoC table from "
                                         "(default: import ascend_quant_ops._native)")
    parser.add_argument("--description", default=str(DESCRIPTION), help="the op description (cmake/cann/ops.json)")
    parser.add_argument("--compute-units", help="comma-separated compute units (default: the description's list)")
    sub = parser.add_subparsers(dest="command", required=True)
    p_render = sub.add_parser("render", help="write the rendered files, no CANN needed")
    p_render.add_argument("--out", required=True)
    p_render.add_argument("--cann-package-path", default="/usr/local/Ascend/ascend-toolkit/latest")
    sub.add_parser("describe", help="print each operator's dtype columns per compute unit")
    p_pre = sub.add_parser("preflight", help="check that a toolkit has what the package build needs (no build)")
    p_pre.add_argument("--toolkit", help="CANN toolkit root (default: $ASCEND_HOME_PATH, $ASCEND_CANN_PACKAGE_PATH)")
    p_pkg = sub.add_parser("package", help="build custom_opp_<os>_<arch>.run with the toolkit")
    p_pkg.add_argument("--toolkit", help="CANN toolkit root (default: $ASCEND_HOME_PATH, $ASCEND_CANN_PACKAGE_PATH)")
    p_pkg.add_argument("--out-dir", default=str(REPO / "build" / "cann"), help="where the project is generated")
    p_pkg.add_argument("--dist-dir", default=str(REPO / "build_out"), help="where the .run is copied")
    p_pkg.add_argument("--repo", default=str(REPO), help="the source tree whose op_host / op_kernel are packaged")
    args = parser.parse_args(argv)
    units = _units_arg(args.compute_units)
    try:
        if args.command == "preflight":
            toolkit, source = find_toolkit(args.toolkit)
            if toolkit is None:
                raise CannBuildError("no CANN toolkit: set ASCEND_HOME_PATH (source <toolkit>/set_env.sh) or "
                                     "ASCEND_CANN_PACKAGE_PATH, or pass --toolkit")
            desc = load_description(Path(args.description))
            wanted = units or desc["compute_units"]
            buildable, skipped = buildable_units(toolkit, desc, wanted)
            problems = toolkit_problems(toolkit, buildable)
            if units and skipped:
                problems += skipped
            if not buildable:
                problems.append("no compute unit of the description can be built with this toolkit")
            if problems:
                raise CannBuildError(f"the CANN toolkit at {toolkit} (from {source}) cannot build the operator "
                                     "package:\n  - " + "\n  - ".join(problems))
            for reason in skipped:
                print(f"cann_project: will skip compute unit {reason}")
            print(f"cann_project: toolkit {toolkit} has msopgen, the project template, op_build and the kernel "
                  f"compiler; compute units {', '.join(buildable)}")
            return 0
        if args.command == "package":
            toolkit, source = find_toolkit(args.toolkit)
            if toolkit is None:
                raise CannBuildError("no CANN toolkit: set ASCEND_HOME_PATH (source <toolkit>/set_env.sh) or "
                                     "ASCEND_CANN_PACKAGE_PATH, or pass --toolkit")
            print(f"cann_project: toolkit {toolkit} (from {source})", flush=True)
            native = load_native(args.native)
            run = package(toolkit, native, Path(args.out_dir), Path(args.dist_dir), units, Path(args.description),
                          Path(args.repo))
            print(f"cann_project: built {run}")
            print(f"cann_project: install it by running it: `bash {run}` (into $ASCEND_OPP_PATH/vendors/aqo), or "
                  f"`bash {run} --install-path=DIR` and then `source DIR/vendors/aqo/bin/set_env.bash`")
            return 0
        native = load_native(args.native)
        desc = load_description(Path(args.description))
        if args.command == "render":
            paths = render_all(desc, native, Path(args.out), units, args.cann_package_path)
            for role, path in paths.items():
                print(f"{role}: {path}")
            return 0
        for spec in selected_specs(desc, native, units):
            for op in desc["ops"]:
                print(f"{spec['name']} {op['op_type']}:")
                for column in op_columns(op, spec):
                    print("  " + ", ".join(f"{k}={v}" for k, v in column.items()))
        return 0
    except CannBuildError as exc:
        print(f"cann_project: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
