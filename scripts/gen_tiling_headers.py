#!/usr/bin/env python3
"""Writes the CANN tiling-data headers op_host/aqo_<op>_tiling.h from the field lists of op_host/tiling_core/.

Each operator's tiling fields are defined once, as the X-macro list of op_host/tiling_core/<op>_tiling_fields.h
(the tiling core's struct, its fill and the Python binding expand the macro). The CANN tiling-data class spells the
list out as one TILING_DATA_FIELD_DEF line per field, written by this script: CANN's build reads the class either
way, but tools that read those lines as text (the reference type-check scripts that generate a kernel-side struct
from BEGIN_TILING_DATA_DEF ... END_TILING_DATA_DEF) see only spelled-out fields. A field is still added in one
place, the list; then run

    python scripts/gen_tiling_headers.py            # rewrite the headers
    python scripts/gen_tiling_headers.py --check    # exit 1 if a header differs from what would be written

tests/tiling/test_tiling_fields_one_definition.py fails while a header is stale.
"""
from __future__ import annotations

import argparse
import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORE = REPO / "op_host" / "tiling_core"

# The Matmul API's TCubeTiling member of the matmul operators' classes (CANN defines its fields), and the include
# that provides it (the emulator's stand-in when the runner defines AQO_QMM_EMULATOR_TILING).
_CUBE_INCLUDES = """#ifdef AQO_QMM_EMULATOR_TILING
// The CPU emulator's TCubeTiling (op_kernel/emulator/include/lib/matmul_tiling_emu.h): the runner defines the macro.
#include "lib/matmul_tiling_emu.h"
#else
// CANN: optiling::TCubeTiling and matmul_tiling::MultiCoreMatmulTiling.
#include "tiling/tiling_api.h"
#endif
"""
_CUBE_MEMBER = "TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTiling);  // the Matmul API's tiling (MultiCoreMatmulTiling)"


@dataclass(frozen=True)
class Op:
    op: str          # the registered operator type
    stem: str        # op_host/<stem>_tiling.h
    fields: str      # op_host/tiling_core/<fields>
    macro: str       # the list's macro
    about: str       # the header's first comment lines (what the class is for)
    cube: bool       # has the Matmul API's TCubeTiling member first


OPS = [
    Op("AqoDynamicQuant", "aqo_dynamic_quant", "dynamic_quant_tiling_fields.h", "AQO_DYNAMIC_QUANT_TILING_FIELDS",
       "Tiling data of AqoDynamicQuant, filled from the host plan (op_host/tiling_core/dynamic_quant_plan.h) by\n"
       "aqo::FillDynamicQuantTilingData, the one fill function shared by the CANN TilingFunc and the emulator runner.",
       False),
    Op("AqoQLinearMatMul", "aqo_qlinear_matmul", "qlinear_matmul_tiling_fields.h", "AQO_QLINEAR_MATMUL_TILING_FIELDS",
       "Tiling data of AqoQLinearMatMul: the Matmul API's TCubeTiling for the cube part, then the fields, filled by\n"
       "aqo::FillQLinearMatMulTilingData (op_host/aqo_qlinear_matmul.cpp) and by the emulator runner.",
       True),
    Op("AqoQuantMatMul", "aqo_quant_matmul", "quant_matmul_tiling_fields.h", "AQO_QUANT_MATMUL_TILING_FIELDS",
       "Tiling data of AqoQuantMatMul: the Matmul API's TCubeTiling for the cube part, then the fields, filled by\n"
       "aqo::FillQuantMatMulTilingData (op_host/aqo_quant_matmul.cpp) and by the emulator runner.",
       True),
]


# The project's line length.
_WIDTH = 120


class ListError(RuntimeError):
    pass


def _headers() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(CORE.glob("*_tiling_fields.h"))}


def _constants(texts: dict[str, str]) -> dict[str, str]:
    """The object-like integer #defines of the field headers (array lengths)."""
    out = {}
    for text in texts.values():
        for m in re.finditer(r"^#define\s+(\w+)\s+(\d+)\s*$", text, re.M):
            out[m.group(1)] = m.group(2)
    return out


def fields(macro: str, texts: dict[str, str] | None = None) -> list[tuple[str, str, str | None, str]]:
    """(type, name, array length or None, comment) of the list `macro`, in order; a list that names another list
    (the shared cube stage's) has that list's fields in its place."""
    texts = texts if texts is not None else _headers()
    consts = _constants(texts)
    for text in texts.values():
        start = text.find(f"#define {macro}(")
        if start >= 0:
            break
    else:
        raise ListError(f"no field header in {CORE} defines {macro}")
    body = []
    for line in text[start:].splitlines()[1:]:
        body.append(line.rstrip().rstrip("\\").rstrip())
        if not line.rstrip().endswith("\\"):
            break
    out: list[tuple[str, str, str | None, str]] = []
    comment_of_last = None
    for line in body:
        nested = re.match(r"\s*(AQO_\w+_TILING_FIELDS)\(FIELD, ARRAY\)\s*$", line)
        if nested:
            out += fields(nested.group(1), texts)
            continue
        m = re.match(r"\s*(FIELD|ARRAY)\(([^)]*)\)\s*(?:/\*\s*(.*?)\s*(?:\*/)?)?\s*$", line)
        if m:
            args = [a.strip() for a in m.group(2).split(",")]
            comment = m.group(3) or ""
            if m.group(1) == "FIELD":
                out.append((args[0], args[1], None, comment))
            else:
                count = consts.get(args[1], args[1])
                if not count.isdigit():
                    raise ListError(f"{macro}: array length {args[1]} is not an integer #define")
                out.append((args[0], args[2], count, comment))
            comment_of_last = len(out) - 1
            continue
        # A comment continued on the next line of the list ("/* ..." then "... */").
        cont = re.match(r"\s*(.*?)\s*\*/\s*$", line)
        if cont and comment_of_last is not None:
            t, n, c, comment = out[comment_of_last]
            out[comment_of_last] = (t, n, c, (comment + " " + cont.group(1)).strip())
            continue
        if line.strip():
            raise ListError(f"{macro}: cannot read the list line {line.strip()!r}")
    return out


def render(op: Op, texts: dict[str, str] | None = None) -> str:
    texts = texts if texts is not None else _headers()
    guard = f"{op.stem.upper()}_TILING_H"
    lines = [
        "// GENERATED by scripts/gen_tiling_headers.py from the one definition of the fields,",
        f"// op_host/tiling_core/{op.fields}: edit the list there and run the script (a test fails while",
        "// this file differs from its output).",
        "//",
    ]
    lines += [f"// {l}" for l in op.about.splitlines()]
    lines += [
        "// CANN's build generates the kernel's struct from this registration; the emulator's register/tilingdata_base.h",
        "// makes the class a plain struct.",
        f"#ifndef {guard}",
        f"#define {guard}",
        "",
        '#include "register/tilingdata_base.h"',
    ]
    if op.cube:
        lines += _CUBE_INCLUDES.rstrip("\n").splitlines()
    lines += ["", "namespace optiling {", "", f"BEGIN_TILING_DATA_DEF({op.op}TilingData)"]
    if op.cube:
        lines.append(_CUBE_MEMBER)
    entries = []
    for type_, name, count, comment in fields(op.macro, texts):
        if count is None:
            entries.append((f"TILING_DATA_FIELD_DEF({type_}, {name});", comment))
        else:
            entries.append((f"TILING_DATA_FIELD_DEF_ARR({type_}, {count}, {name});", comment))
    width = max(len(e) for e, _ in entries)
    for text, comment in entries:
        line = f"{text.ljust(width)}  // {comment}"
        if not comment:
            lines.append(text)
        elif len(line) <= _WIDTH:
            lines.append(line)
        else:  # a long comment goes above its field
            lines += textwrap.wrap(comment, _WIDTH, initial_indent="// ", subsequent_indent="// ")
            lines.append(text)
    lines += [
        "END_TILING_DATA_DEF;",
        "",
        f"REGISTER_TILING_DATA_CLASS({op.op}, {op.op}TilingData)",
        "",
        "}  // namespace optiling",
        "",
        f"#endif  // {guard}",
        "",
    ]
    return "\n".join(lines)


def target(op: Op) -> Path:
    return REPO / "op_host" / f"{op.stem}_tiling.h"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a header differs from what would be written")
    args = ap.parse_args(argv)
    texts = _headers()
    stale = []
    for op in OPS:
        text = render(op, texts)
        path = target(op)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        if args.check:
            stale.append(path)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(REPO)}")
    if stale:
        print("stale (run python scripts/gen_tiling_headers.py): "
              + ", ".join(str(p.relative_to(REPO)) for p in stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
