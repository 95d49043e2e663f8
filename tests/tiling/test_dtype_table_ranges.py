"""The dtype table's own ranges (finite_max of the float types, int_min / int_max of the integer types), which
the plans hand to the kernels (QLinearMatMul's y saturation range, DynamicQuant's 310p saturation bound), against
independent references: numpy / ml_dtypes finfo and iinfo, and en_dtypes for hifloat8."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ascend_quant_ops import _native, dtypes

TABLE = {r["name"]: r for r in _native.dtype_table()}


@pytest.mark.parametrize("name", [n for n, r in TABLE.items() if r["is_float"]])
def test_finite_max_of_float_types(name):
    if name == "hifloat8":
        en_dtypes = pytest.importorskip("en_dtypes")
        expected = float(en_dtypes.finfo(en_dtypes.hifloat8).max)
    else:
        expected = float(ml_dtypes.finfo(dtypes.numpy_dtype(name)).max)
    assert TABLE[name]["finite_max"] == expected
    assert TABLE[name]["int_min"] == 0 and TABLE[name]["int_max"] == 0


@pytest.mark.parametrize("name", [n for n, r in TABLE.items() if not r["is_float"]])
def test_integer_range(name):
    info = np.iinfo(np.dtype(name))
    assert (TABLE[name]["int_min"], TABLE[name]["int_max"]) == (info.min, info.max)
    assert TABLE[name]["finite_max"] == 0


@pytest.mark.parametrize("y", ["int8", "uint8"])
def test_qlinear_matmul_plan_hands_the_y_range_to_the_kernel(y):
    from ascend_quant_ops import tiling

    plan = tiling.plan_qlinear_matmul((4, 8), (8, 4), y_dtype=y, soc="ascend910b").to_dict()["tiling"]
    info = np.iinfo(np.dtype(y))
    assert (plan["yQMin"], plan["yQMax"]) == (info.min, info.max)


@pytest.mark.parametrize("soc, expected", [("ascend310p", float(np.finfo(np.float16).max)), ("ascend910b", 0.0)])
def test_dynamic_quant_plan_hands_the_saturation_bound_to_the_kernel(soc, expected):
    from ascend_quant_ops import tiling

    plan = tiling.plan_dynamic_quant((2, 64), "float16", soc=soc).to_dict()["tiling"]
    assert plan["satMax"] == expected


@pytest.mark.parametrize("name", sorted(TABLE))
def test_nan_code_is_the_golden_conversion_of_nan(name):
    """The 8-bit float types' NaN bit pattern, which the kernels write themselves (DynamicQuant's nanCode,
    QLinearMatMul's yNanCode): ml_dtypes' / en_dtypes' conversion of a float32 NaN; 0 for every other type."""
    row = TABLE[name]
    if not (row["is_float"] and row["bytes"] == 1):
        assert row["nan_code"] == 0
        return
    if name == "hifloat8":
        en_dtypes = pytest.importorskip("en_dtypes")
        dtype = en_dtypes.hifloat8
    else:
        dtype = dtypes.numpy_dtype(name)
    assert row["nan_code"] == int(np.float32([np.nan]).astype(dtype).view(np.uint8)[0])


@pytest.mark.parametrize("y", ["int8", "float8_e4m3fn", "float8_e5m2"])
def test_qlinear_matmul_plan_hands_the_nan_code_to_the_kernel(y):
    from ascend_quant_ops import tiling

    plan = tiling.plan_qlinear_matmul((4, 8), (8, 4), a_dtype="float8_e4m3fn", b_dtype="float8_e4m3fn", y_dtype=y,
                                      soc="ascend910_95").to_dict()["tiling"]
    assert plan["yNanCode"] == TABLE[y]["nan_code"]
