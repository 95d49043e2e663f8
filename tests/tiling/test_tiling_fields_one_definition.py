"""Each operator's tiling data is defined once, as the field list of op_host/tiling_core/<op>_tiling_fields.h: the
tiling core's struct, the fill and the Python tiling dict expand it; the CANN tiling-data class spells it out, written
from the list by scripts/gen_tiling_headers.py; the kernel's view is the struct the build generates from that class.
These tests read the list independently (as text) and check that every consumer has exactly its fields, that the
CANN headers are what the script writes from the list today, and that no hand-written consumer restates them."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from ascend_quant_ops import tiling

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "op_host" / "tiling_core"
sys.path.insert(0, str(ROOT / "scripts"))
import check_device_code  # noqa: E402
import gen_tiling_headers  # noqa: E402

OPS = {
    "dynamic_quant": ("dynamic_quant_tiling_fields.h", "AQO_DYNAMIC_QUANT_TILING_FIELDS", "aqo_dynamic_quant",
                      "AqoDynamicQuantTilingData"),
    "qlinear_matmul": ("qlinear_matmul_tiling_fields.h", "AQO_QLINEAR_MATMUL_TILING_FIELDS", "aqo_qlinear_matmul",
                       "AqoQLinearMatMulTilingData"),
    "quant_matmul": ("quant_matmul_tiling_fields.h", "AQO_QUANT_MATMUL_TILING_FIELDS", "aqo_quant_matmul",
                     "AqoQuantMatMulTilingData"),
}


def macro_fields(macro: str) -> list[str]:
    """The field names of an X-macro list, in order, read from the tiling core's header text; a list that starts with
    another list (the shared cube stage's) expands it in place."""
    for header in sorted(CORE.glob("*_tiling_fields.h")):
        text = header.read_text()
        if f"#define {macro}" in text:
            break
    else:
        raise AssertionError(f"no header defines {macro}")
    body = text[text.index(f"#define {macro}"):]
    body = body[:body.index("#endif")].split("\n", 1)[1]
    names = []
    for m in re.finditer(r"\b(AQO_\w+_TILING_FIELDS)\(FIELD, ARRAY\)|\b(FIELD|ARRAY)\(([^)]*)\)", body):
        if m.group(1):
            names += macro_fields(m.group(1))
        else:
            names.append(m.group(3).split(",")[-1].strip())
    return names


def field_list(op: str) -> list[str]:
    """The field names of the op's list, in order, read from the header text."""
    _, macro, _, _ = OPS[op]
    return macro_fields(macro)


def plan(op: str):
    if op == "dynamic_quant":
        return tiling.plan_dynamic_quant((4, 64), "float16", soc="ascend910b")
    return tiling.plan_qlinear_matmul((4, 64), (64, 32), soc="ascend910b")


@pytest.mark.parametrize("op", sorted(OPS))
def test_cann_header_is_what_the_script_writes_from_the_list(op):
    """A field added to the list and not to the CANN class (or edited by hand in the class) fails here."""
    _, _, kernel, _ = OPS[op]
    (gen,) = [o for o in gen_tiling_headers.OPS if o.stem == kernel]
    assert (ROOT / "op_host" / f"{kernel}_tiling.h").read_text() == gen_tiling_headers.render(gen), \
        "stale: run python scripts/gen_tiling_headers.py"
    assert [name for _, name, _, _ in gen_tiling_headers.fields(gen.macro)] == field_list(op)
    assert gen_tiling_headers.main(["--check"]) == 0


def test_stale_header_is_reported(tmp_path, monkeypatch, capsys):
    """--check fails, naming the file, when a header differs from the list's rendering."""
    op = gen_tiling_headers.OPS[0]
    stale = tmp_path / "op_host" / f"{op.stem}_tiling.h"
    stale.parent.mkdir()
    for o in gen_tiling_headers.OPS:
        (tmp_path / "op_host" / f"{o.stem}_tiling.h").write_text(gen_tiling_headers.render(o))
    text = gen_tiling_headers.render(op)
    dropped = "\n".join(line for line in text.splitlines() if ", rows);" not in line) + "\n"
    assert dropped != text
    stale.write_text(dropped)  # a field missing
    monkeypatch.setattr(gen_tiling_headers, "REPO", tmp_path)
    assert gen_tiling_headers.main(["--check"]) == 1
    assert f"{op.stem}_tiling.h" in capsys.readouterr().err
    assert gen_tiling_headers.main([]) == 0
    assert gen_tiling_headers.main(["--check"]) == 0


@pytest.mark.parametrize("op", ["dynamic_quant", "qlinear_matmul"])
def test_python_tiling_dict_has_exactly_the_listed_fields(op):
    names = field_list(op)
    assert len(names) == len(set(names)) > 10
    extra = {"dynamic_quant": {"block_dim", "tiling_key", "workspace_bytes", "system_workspace_bytes"},
             "qlinear_matmul": {"workspace_bytes", "system_workspace_bytes", "y_elements", "tiling_key"}}[op]
    assert list(plan(op).tiling)[:len(names)] == names
    assert set(plan(op).tiling) == set(names) | extra


@pytest.mark.parametrize("op", sorted(OPS))
def test_kernel_struct_generated_from_the_cann_class_has_the_listed_fields(op):
    _, _, kernel, cls = OPS[op]
    headers = sorted((ROOT / "op_host").glob("*tiling*.h"))
    stub, main = check_device_code.tiling_stub(headers, ROOT / "op_kernel" / f"{kernel}.cpp")
    assert main == cls
    body = stub[stub.index(f"class {cls} {{"):]
    body = body[:body.index("};")]
    members = re.findall(r"\b(\w+)(?:\[\d+\])?;", body)
    assert [m for m in members if m != "cubeTiling"] == field_list(op)


@pytest.mark.parametrize("op", sorted(OPS))
def test_no_consumer_restates_the_fields(op):
    """The plan header, the kernel and the bindings name the list macro, not the fields one by one (a restated list
    is how a field gets added in one place and forgotten in another); the CANN header is generated (above)."""
    _, macro, kernel, _ = OPS[op]
    names = field_list(op)
    sources = [CORE / f"{op}_plan.h", ROOT / "op_kernel" / f"{kernel}.cpp",
               ROOT / "python" / "csrc" / f"bind_{op}_plan.cpp"]
    for path in sources:
        text = path.read_text()
        # A consumer that restated the list would name (nearly) every field as a declaration or a setter.
        pattern = (r"(set_{n}\b|\b\w+\s+{n}\s*[;=\[]|TILING_DATA_FIELD_DEF\w*\([^)]*\b{n}\)"
                   r"|AQO_TILING_FIELD\([^)]*\b{n}\)|\[\"{n}\"\])")
        declared = [n for n in names if re.search(pattern.format(n=n), text)]
        assert len(declared) < len(names) // 2, (path, declared)
    assert macro in (CORE / f"{op}_plan.h").read_text()
