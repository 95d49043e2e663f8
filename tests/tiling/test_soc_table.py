"""The SoC table against its sources: CANN 8.1.RC1 platform_config/*.ini, the cube dtypes and
ATB's DynamicQuant limits (docs/references.md#soc-facts, #apis-per-soc, #atb-dynamicquant). The numbers here
are typed from those sources, not read from the code."""
import pytest

from ascend_quant_ops import _native, tiling
from ascend_quant_ops.errors import ConstraintError

# name -> (ai_core_cnt, cube_core_cnt, vector_core_cnt, ub_size) of the platform configs (docs/references.md#soc-facts).
PLATFORM_CONFIG = {
    "ascend910b1": (24, 24, 48, 196608),
    "ascend910b2": (24, 24, 48, 196608),
    "ascend910b2c": (24, 24, 48, 196608),
    "ascend910b3": (20, 20, 40, 196608),
    "ascend910b4": (20, 20, 40, 196608),
    "ascend910b4-1": (20, 20, 40, 196608),
    "ascend310p1": (10, 10, 8, 262144),
    "ascend310p3": (8, 8, 7, 262144),
    "ascend310p5": (8, 8, 7, 262144),
    "ascend310p7": (8, 8, 7, 262144),
    "ascend910_95": (32, 32, 64, 253952),
}


def test_canonical_socs_and_their_numbers():
    t = tiling.soc_table()
    assert list(t) == ["ascend910b", "ascend310p", "ascend910_95"]
    b, p, c = t["ascend910b"], t["ascend310p"], t["ascend910_95"]
    assert (b["cube_cores"], b["vector_cores"], b["ub_bytes"]) == (24, 48, 196608)
    assert (p["ai_cores"], p["vector_cores"], p["ub_bytes"]) == (8, 7, 262144)
    assert (c["cube_cores"], c["vector_cores"], c["ub_bytes"]) == (32, 64, 253952)
    # Kernels run on vector cores on split SoCs, on the AI cores on 310p (Cast unsupported on its vector cores).
    assert (b["dynamic_quant_cores"], p["dynamic_quant_cores"], c["dynamic_quant_cores"]) == (48, 8, 64)
    assert (b["qlinear_matmul_cores"], p["qlinear_matmul_cores"], c["qlinear_matmul_cores"]) == (24, 8, 32)
    assert [s["has_data_copy_pad"] for s in (b, p, c)] == [True, False, True]
    assert [s["saturation_only_float"] for s in (b, p, c)] == [False, True, False]
    assert [s["has_bfloat16"] for s in (b, p, c)] == [True, False, True]
    assert all(s["ub_align_bytes"] == 32 and s["copy_block_bytes"] == 32 for s in (b, p, c))


def test_dynamic_quant_facts_per_soc():
    t = tiling.soc_table()
    b, p, c = (t[n]["dynamic_quant"] for n in ("ascend910b", "ascend310p", "ascend910_95"))
    assert (b["max_tail_float16"], b["max_tail_bfloat16"], b["tail_multiple"]) == (26624, 7552, 1)
    assert (p["max_tail_float16"], p["tail_multiple"]) == (4096, 32)
    assert (c["max_tail_float16"], c["max_tail_bfloat16"], c["tail_multiple"]) == (0, 0, 1)
    assert b["x_dtypes"] == ["float16", "bfloat16"] and c["x_dtypes"] == ["float16", "bfloat16"]
    assert p["x_dtypes"] == ["float16"]
    assert b["dst_types"] == ["int8"] and p["dst_types"] == ["int8"]
    assert sorted(c["dst_types"]) == sorted(["int8", "hifloat8", "float8_e4m3fn", "float8_e5m2"])
    assert all(d["min_rank"] == 2 for d in (b, p, c))
    assert all(d["asymmetric_implemented"] for d in (b, p, c))
    assert b["asymmetric_dst_types"] == p["asymmetric_dst_types"] == ["int8", "uint8"]
    assert sorted(c["asymmetric_dst_types"]) == sorted(["int8", "uint8", "hifloat8", "float8_e4m3fn",
                                                        "float8_e5m2"])


def test_qlinear_matmul_dtypes_per_soc():
    t = tiling.soc_table()
    for name in ("ascend910b", "ascend310p"):
        q = t[name]["qlinear_matmul"]
        assert q["a_dtypes"] == q["b_dtypes"] == q["y_dtypes"] == ["int8", "uint8"]
    q = t["ascend910_95"]["qlinear_matmul"]
    assert sorted(q["a_dtypes"]) == sorted(["int8", "uint8", "float8_e4m3fn", "float8_e5m2"])
    for name in t:  # fnuz float8: CPU only
        q = t[name]["qlinear_matmul"]
        assert not {"float8_e4m3fnuz", "float8_e5m2fnuz"} & set(q["a_dtypes"] + q["b_dtypes"] + q["y_dtypes"])


@pytest.mark.parametrize("name, numbers", sorted(PLATFORM_CONFIG.items()))
def test_variants_carry_their_platform_config(name, numbers):
    ai, cube, vec, ub = numbers
    s = tiling.soc_spec(name)
    assert (s["ai_cores"], s["cube_cores"], s["vector_cores"], s["ub_bytes"]) == (ai, cube, vec, ub)
    split = s["split_architecture"]
    assert s["dynamic_quant_cores"] == (vec if split else ai)
    assert s["qlinear_matmul_cores"] == (cube if split else ai)
    assert s["variant"] == name


@pytest.mark.parametrize("name, canon", [
    ("ascend910b", "ascend910b"), ("ascend950", "ascend910_95"), ("Ascend950", "ascend910_95"),
    ("ASCEND910_95", "ascend910_95"), ("Ascend910B3", "ascend910b"), ("ascend910b4-1", "ascend910b"),
    ("Ascend310P3", "ascend310p"), (" ascend310p ", "ascend310p"),
    # CANN's Short_SoC_version strings (docs/references.md#soc-facts: the portable run-time detection) resolve too.
    ("Ascend910B", "ascend910b"), ("Ascend310P", "ascend310p"), ("Ascend910_95", "ascend910_95"),
])
def test_aliases(name, canon):
    assert tiling.canonical_soc(name) == canon
    assert _native.canonical_soc(name) == canon


@pytest.mark.parametrize("bad", ["ascend910", "ascend910c", "ascend310b", "", "910b", None, 910])
def test_unknown_soc_lists_valid_names(bad):
    with pytest.raises(ConstraintError) as ei:
        tiling.canonical_soc(bad, op="dynamic_quant")
    e = ei.value
    assert e.argument == "soc" and e.op == "dynamic_quant"
    for n in ("ascend910b", "ascend310p", "ascend910_95", "ascend950", "ascend910b3"):
        assert n in e.expected
    assert "ascend910_95" in str(e)


def test_soc_names_resolve():
    names = tiling.soc_names()
    assert names[:3] == ["ascend910b", "ascend310p", "ascend910_95"]
    for n in names:
        assert _native.canonical_soc(n) in ("ascend910b", "ascend310p", "ascend910_95")


def test_overrides_apply_and_are_checked():
    s = tiling.soc_spec("ascend910b", core_num=7, ub_size=65536)
    assert s["dynamic_quant_cores"] == 7 and s["qlinear_matmul_cores"] == 7 and s["ub_bytes"] == 65536
    # The table itself is untouched by an override.
    assert tiling.soc_table()["ascend910b"]["ub_bytes"] == 196608
    with pytest.raises(ConstraintError) as ei:
        tiling.soc_spec("ascend910b", ub_size=65537)
    e = ei.value
    assert (e.argument, e.soc) == ("ub_size", "ascend910b") and "65537" in str(e.actual)
    assert "65536" in e.suggestion and "196608" in e.suggestion
    with pytest.raises(ConstraintError) as ei:
        tiling.soc_spec("ascend910b", core_num=100000)
    assert ei.value.argument == "core_num" and "48" in ei.value.suggestion
    for bad in (0, -1, 2.5, True, "8"):
        with pytest.raises(ConstraintError) as ei:
            tiling.soc_spec("ascend910b", core_num=bad)
        assert ei.value.argument == "core_num"
    with pytest.raises(ConstraintError):
        tiling.soc_spec("ascend910b", ub_size=512)  # below the minimum UB override
    # Native layer: negative values are violations, not crashes or wrap-arounds.
    out = _native.soc_spec("ascend910b", -3, 0, "dynamic_quant")
    assert not out["ok"] and out["violation"]["argument"] == "core_num"
    out = _native.soc_spec("ascend910b", 0, -32, "dynamic_quant")
    assert not out["ok"] and out["violation"]["argument"] == "ub_size"


def test_package_exports():
    import ascend_quant_ops as aqo

    assert aqo.canonical_soc("ascend950") == "ascend910_95"
    assert "ascend310p" in aqo.soc_table()
