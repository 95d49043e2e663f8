"""The emulated Matmul high-level API (op_kernel/emulator/include/lib/matmul_intf.h): exact int32 wrap-around
arithmetic against integer math of our own, strides from SetOrgShape, per-SoC cube dtype pairs (FACTS 3), and
loud failures at the kernel line for every modelled misuse (test kernels in
python/csrc/emulate_qlinear_matmul_faults.cpp, each marked `// FAULT: <name>`)."""
from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

import ascend_quant_ops_testing as _native  # the Matmul API test kernels' module (tests/emulator/conftest.py)
from ascend_quant_ops.errors import EmulatorError


SOURCE = pathlib.Path(__file__).resolve().parents[2] / "python" / "csrc" / "emulate_qlinear_matmul_faults.cpp"


def _fault_lines():
    lines = {}
    for i, line in enumerate(SOURCE.read_text().splitlines(), start=1):
        m = re.search(r"// FAULT: (\w+)", line)
        if m:
            lines[m.group(1)] = i
    return lines


FAULT_LINES = _fault_lines()

# What each fault's message must say (the constraint in words).
EXPECTED = {
    "iterate_before_set_tensor_b": "before SetTensorB",
    "a_out_of_bounds": "outside the GlobalTensor's extent",
    "c_in_read_only_input": "read-only input",
    "base_block_not_fractal": "not made of cube fractals",
    "uint8_without_cube_path": "has no uint8 x int8 path",
    "float8_without_cube_path": "has no float8 path",
    "use_before_init": "before Init",
    "single_shape_larger_than_org": "must be positive and fit the org shape",
}


def test_every_fault_kernel_has_a_marker_and_an_expectation():
    assert sorted(_native.qmm_matmul_fault_names()) == sorted(FAULT_LINES) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fault_is_caught_at_the_kernel_line(name):
    with pytest.raises(EmulatorError) as e:
        _native.qmm_matmul_fault(name, "ascend910b")
    assert e.value.kernel_file.endswith("emulate_qlinear_matmul_faults.cpp")
    assert e.value.kernel_line == FAULT_LINES[name]
    assert EXPECTED[name] in str(e.value)


def _reference(a, b):
    acc = a.astype(np.int64) @ b.astype(np.int64)
    return ((acc + 2**31) % 2**32 - 2**31).astype(np.int32)


@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p", "ascend910_95"])
def test_int8_product_with_strides_is_exact(soc):
    rng = np.random.default_rng(1)
    m, n, k, lda, ldb, ldc = 5, 7, 33, 40, 9, 8  # every operand with a row stride longer than its row
    a = rng.integers(-128, 128, (m, lda)).astype(np.int8)
    b = rng.integers(-128, 128, (k, ldb)).astype(np.int8)
    c = np.frombuffer(_native.qmm_matmul_demo(soc, a.tobytes(), b.tobytes(), False, False, m, n, k, lda, ldb, ldc),
                      np.int32).reshape(m, ldc)
    np.testing.assert_array_equal(c[:, :n], _reference(a[:, :k], b[:, :n]))
    assert (c[:, n:] == 0).all(), "columns past N of C must not be written"


def test_int32_accumulator_wraps_modulo_2_pow_32():
    # 127 * 127 * 140000 = 2,258,060,000 > 2^31 - 1: the cube's accumulator wraps (ONNX: "accumulation may
    # overflow if and only if in 32 bits").
    k = 140000
    a = np.full((1, k), 127, np.int8)
    b = np.full((k, 1), 127, np.int8)
    c = np.frombuffer(_native.qmm_matmul_demo("ascend910b", a.tobytes(), b.tobytes(), False, False, 1, 1, k, k, 1, 1),
                      np.int32)
    assert int(c[0]) == 127 * 127 * k - 2**32


@pytest.mark.parametrize("a_unsigned,b_unsigned", [(True, False), (True, True)])
def test_uint8_cube_pairs_exist_on_310p_only(a_unsigned, b_unsigned):
    rng = np.random.default_rng(2)
    m, n, k = 3, 4, 50
    a = rng.integers(0, 256, (m, k)).astype(np.uint8 if a_unsigned else np.int8)
    b = rng.integers(0 if b_unsigned else -128, 256 if b_unsigned else 128, (k, n)).astype(
        np.uint8 if b_unsigned else np.int8)
    c = np.frombuffer(_native.qmm_matmul_demo("ascend310p", a.tobytes(), b.tobytes(), a_unsigned, b_unsigned, m, n,
                                              k, k, n, n), np.int32).reshape(m, n)
    np.testing.assert_array_equal(c, _reference(a, b))
    for soc in ("ascend910b", "ascend910_95"):
        with pytest.raises(EmulatorError, match="FACTS 3"):
            _native.qmm_matmul_demo(soc, a.tobytes(), b.tobytes(), a_unsigned, b_unsigned, m, n, k, k, n, n)
