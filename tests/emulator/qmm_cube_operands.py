"""Operands and checks shared by the 310p cube paths' tests (test_qlinear_matmul_cube_decode.py,
test_qlinear_matmul_cube_gemm.py)."""
from __future__ import annotations

import numpy as np

from ascend_quant_ops.precision import criteria


def operands(rng, a_shape, b_shape, at, bt, a_param, b_param, zps):
    """a, a_scale, a_zero_point, b, b_scale, b_zero_point at random over the types' ranges; a_param "row" / "tensor",
    b_param "column" / "tensor"; zps "random", "a0" (a's zero points 0), "b0", "0" (both)."""
    def rand(dtype, shape):
        info = np.iinfo(np.dtype(dtype))
        return rng.integers(info.min, int(info.max) + 1, size=shape).astype(dtype)

    m, n = a_shape[-2], b_shape[-1]
    a_s = rng.uniform(0.01, 0.02, (m,) if a_param == "row" else ()).astype(np.float32)
    b_s = rng.uniform(0.01, 0.02, (n,) if b_param == "column" else ()).astype(np.float32)
    a_z = rand(at, (m,) if a_param == "row" else ())
    b_z = rand(bt, (n,) if b_param == "column" else ())
    if zps in ("0", "b0"):
        b_z = np.zeros_like(b_z)
    if zps in ("0", "a0"):
        a_z = np.zeros_like(a_z)
    return rand(at, a_shape), a_s, a_z, rand(bt, b_shape), b_s, b_z


def transposed(args):
    """The operands with b as a transposed view of an [N, K] array (the kernels read b stored so)."""
    a, a_s, a_z, b, b_s, b_z = args
    return a, a_s, a_z, np.ascontiguousarray(b.T).T, b_s, b_z


def assert_y_under_variant(y, golden_y, variant):
    """Under perturbed division the epilogue (the cube path's) meets the cube path's criteria (integer y within 1 of
    the golden's: a y can cross a tie even with power-of-two scales); under every other run variant y is the
    golden's."""
    if variant.get("divide") == "perturbed":
        r = criteria.check_integer(y, golden_y)
        assert r["passed"], r["message"]
    else:
        np.testing.assert_array_equal(y, golden_y)
