"""The one op description (cmake/cann/ops.json) and what scripts/cann_project.py renders from it, checked against
the two things it must never drift from: the SoC table of the tiling core (dtypes) and the OpDef in the op_host
sources (names, parameter kinds, attributes, kernel file and function), read here as text."""
from __future__ import annotations

import itertools
import json
import re

import cann_project as cp
import pytest

FLOAT8 = {"hifloat8", "float8_e4m3fn", "float8_e5m2"}
INTEGER = {"int8", "uint8"}
# msopgen / op_build spell float32 "float"; everything else as our canonical names.
IR = {"float32": "float"}


def ir(name: str) -> str:
    return IR.get(name, name)


@pytest.fixture(scope="module")
def desc():
    return cp.load_description()


@pytest.fixture(scope="module")
def table(native):
    return {spec["name"]: spec for spec in native.soc_table()}


def expected_dynamic_quant(spec) -> set[tuple]:
    """(x, smooth_scales, y, scale, offset) for every x dtype and dst type of the SoC, either mode (the asymmetric
    uint8 mode's offset is its uint8 zero point, every other offset float32)."""
    dq = spec["dynamic_quant"]
    ys = set(dq["dst_types"]) | set(dq["asymmetric_dst_types"])
    return {(x, x, y, "float32", "uint8" if y == "uint8" else "float32") for x in dq["x_dtypes"] for y in ys}


def expected_qlinear_matmul(spec) -> set[tuple]:
    """(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp, y); int x float8 operand pairs only where the table
    says the cube mixes them; no float8 operand at all, because the package's toolkit cannot tile a float8 cube
    (kToolkitMatmulTilingHasFloat8 in op_host/aqo_qlinear_matmul.cpp says why; the SoC table still lists them)."""
    q = spec["qlinear_matmul"]
    out = set()
    for a, b, y in itertools.product(q["a_dtypes"], q["b_dtypes"], q["y_dtypes"]):
        mixed = (a in FLOAT8 and b in INTEGER) or (a in INTEGER and b in FLOAT8)
        if mixed and not q["mixed_int_float8"]:
            continue
        if a in FLOAT8 or b in FLOAT8:
            continue
        out.add((a, "float32", a, b, "float32", b, "float32", y, y))
    return out


def expected_quant_matmul(spec) -> set[tuple]:
    """(a, a_scale, a_zp, b, b_scale, b_zp, bias, y): a and b the SoC's integer operand types, y its quant_matmul
    output types (the SoC table), scales and bias float32."""
    q = spec["quant_matmul"]
    return {(a, "float32", a, b, "float32", b, "float32", y)
            for a, b, y in itertools.product(q["a_dtypes"], q["b_dtypes"], q["out_dtypes"])}


EXPECTED = {"AqoDynamicQuant": expected_dynamic_quant, "AqoQLinearMatMul": expected_qlinear_matmul,
            "AqoQuantMatMul": expected_quant_matmul}


def test_description_covers_the_operators_and_three_compute_units(desc, table):
    assert desc["vendor_name"] == "aqo"
    assert [op["op_type"] for op in desc["ops"]] == ["AqoDynamicQuant", "AqoQLinearMatMul", "AqoQuantMatMul"]
    assert desc["compute_units"] == ["ascend910b", "ascend310p", "ascend910_95"]
    assert set(desc["compute_units"]) == set(table)
    # The description never lists a dtype of the SoC table itself: only references and fixed scale dtypes.
    for op in desc["ops"]:
        for t in op["inputs"] + op["outputs"]:
            assert set(t["dtype"]) <= {"soc_table", "same_as", "fixed", "offset_of"}
            if "fixed" in t["dtype"]:
                assert t["dtype"]["fixed"] == "float32"


@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p", "ascend910_95"])
def test_dtype_columns_per_soc_equal_the_soc_table(desc, table, soc):
    for op in desc["ops"]:
        names = [t["name"] for t in op["inputs"] + op["outputs"]]
        got = [tuple(c[n] for n in names) for c in cp.op_columns(op, table[soc])]
        assert len(got) == len(set(got)), "a dtype column appears twice"
        assert set(got) == EXPECTED[op["op_type"]](table[soc]), (soc, op["op_type"])


def test_rendered_msopgen_json_matches_description_and_table(desc, table):
    specs = [table[s] for s in desc["compute_units"]]
    rendered = json.loads(cp.render_msopgen_json(desc, specs))
    assert [r["op"] for r in rendered] == [op["op_type"] for op in desc["ops"]]
    for op, r in zip(desc["ops"], rendered):
        assert r["language"] == "cpp"
        assert [(t["name"], t["param_type"]) for t in r["input_desc"]] == \
            [(t["name"], t["param_type"]) for t in op["inputs"]]
        assert [(t["name"], t["param_type"]) for t in r["output_desc"]] == \
            [(t["name"], t["param_type"]) for t in op["outputs"]]
        assert r["attr"] == [{"name": a["name"], "param_type": a["param_type"], "type": a["type"],
                              "default_value": a["default_value"]} for a in op["attrs"]]
        tensors = r["input_desc"] + r["output_desc"]
        width = len(tensors[0]["type"])
        for t in tensors:
            assert len(t["type"]) == width and t["format"] == ["ND"] * width
        columns = {tuple(t["type"][i] for t in tensors) for i in range(width)}
        assert width == len(columns), "duplicate msopgen columns"
        union = set().union(*(EXPECTED[op["op_type"]](s) for s in specs))
        assert columns == {tuple(ir(d) for d in c) for c in union}


def test_msopgen_json_leaves_out_types_the_toolkit_msopgen_does_not_know(desc, table, capsys):
    specs = [table[s] for s in desc["compute_units"]]
    known = {"float", "float16", "bfloat16", "int8", "uint8", "int32"}
    rendered = json.loads(cp.render_msopgen_json(desc, specs, known))
    for r in rendered:
        for t in r["input_desc"] + r["output_desc"]:
            assert set(t["type"]) <= known
    dq = rendered[0]
    ys = dq["output_desc"][0]["type"]
    assert set(ys) == {"int8", "uint8"}  # uint8: the asymmetric zero-point mode's y
    out = capsys.readouterr().out
    assert "does not know" in out and "hifloat8" in out


def test_soc_table_keeps_float8_operands_the_package_leaves_out(desc, table):
    """ascend910_95 runs float8 a / b (the SoC table, the emulator); the package columns do not, and only a and b
    lose float8: a float8 y with int8 operands stays."""
    q = table["ascend910_95"]["qlinear_matmul"]
    assert FLOAT8 & set(q["a_dtypes"]) and FLOAT8 & set(q["b_dtypes"])
    op = desc["ops"][1]
    columns = cp.op_columns(op, table["ascend910_95"])
    assert columns and not any(c["a"] in FLOAT8 or c["b"] in FLOAT8 for c in columns)
    assert {c["y"] for c in columns} == set(q["y_dtypes"])
    without = json.loads(json.dumps(op))
    without["rules"] = [r for r in without["rules"] if r["kind"] != "toolkit_no_float8_cube"]
    assert any(c["a"] in FLOAT8 for c in cp.op_columns(without, table["ascend910_95"]))


def test_unknown_compute_unit_is_refused(desc, native):
    with pytest.raises(cp.CannBuildError, match="not a SoC of the table"):
        cp.selected_specs(desc, native, ["ascend910b", "ascend999"])


def test_presets_overlay_and_merge_keep_the_toolkit_preset(desc):
    overlay = cp.render_presets_overlay(desc, ["ascend910b", "ascend310p", "ascend910_95"], "/opt/cann", "py3")
    assert overlay["ASCEND_COMPUTE_UNIT"]["value"] == "ascend910b;ascend310p;ascend910_95"
    assert overlay["ASCEND_CANN_PACKAGE_PATH"] == {"type": "PATH", "value": "/opt/cann"}
    assert overlay["vendor_name"]["value"] == "aqo"
    assert overlay["ASCEND_PYTHON_EXECUTABLE"]["value"] == "py3"
    generated = {"version": 1, "configurePresets": [
        {"name": "default", "generator": "Unix Makefiles",
         "cacheVariables": {"vendor_name": {"type": "STRING", "value": "customize"},
                            "ENABLE_CROSS_COMPILE": {"type": "BOOL", "value": "False"}}}]}
    merged = cp.merge_presets(generated, overlay)
    preset = merged["configurePresets"][0]
    assert preset["generator"] == "Unix Makefiles"
    assert preset["cacheVariables"]["ENABLE_CROSS_COMPILE"]["value"] == "False"
    assert preset["cacheVariables"]["vendor_name"]["value"] == "aqo"
    assert generated["configurePresets"][0]["cacheVariables"]["vendor_name"]["value"] == "customize"
    with pytest.raises(cp.CannBuildError, match="'default'"):
        cp.merge_presets({"configurePresets": [{"name": "other"}]}, overlay)


def test_tiling_core_cmake_lists_every_tiling_core_source(repo):
    sources = sorted(p.name for p in (repo / "op_host" / "tiling_core").glob("*.cpp"))
    assert sources, "the tiling core has no sources"
    text = cp.render_tiling_core_cmake(cp.tiling_core_sources(repo))
    listed = re.findall(r"op_host/tiling_core/(\w+\.cpp)", text)
    assert listed == sources


def test_render_writes_parseable_files(desc, native, tmp_path):
    paths = cp.render_all(desc, native, tmp_path)
    json.loads(paths["msopgen_json"].read_text())
    assert json.loads(paths["presets_overlay"].read_text())["vendor_name"]["value"] == "aqo"
    assert "aqo_tiling_core_prepare" in paths["tiling_core_cmake"].read_text()


@pytest.mark.parametrize("broken, message", [
    ({"dtype": {}}, "exactly one of"),
    ({"dtype": {"fixed": "float32", "same_as": "x"}}, "exactly one of"),
    ({"dtype": {"same_as": "nothing"}}, "same_as"),
    ({"dtype": {"offset_of": "nothing"}}, "offset_of"),
    ({"dtype": {"fixed": "complex64"}}, "unknown fixed dtype"),
    ({"param_type": "sometimes"}, "param_type"),
])
def test_broken_descriptions_are_refused(desc, tmp_path, broken, message):
    bad = json.loads(json.dumps(desc))
    bad["ops"][0]["inputs"][1].update(broken)
    path = tmp_path / "ops.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(cp.CannBuildError, match=message):
        cp.load_description(path)


def test_table_field_missing_is_a_clear_error(desc, table):
    op = json.loads(json.dumps(desc["ops"][0]))
    op["inputs"][0]["dtype"] = {"soc_table": "dynamic_quant.no_such_field"}
    with pytest.raises(cp.CannBuildError, match="no field 'dynamic_quant.no_such_field'"):
        cp.op_columns(op, table["ascend910b"])
