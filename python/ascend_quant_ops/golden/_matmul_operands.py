"""Operands of the quantized matmuls: numpy.matmul shapes and the layouts of their parameters.

Shared by the goldens of the quantized matrix products (qlinear_matmul, quant_matmul). Every function takes the
calling operator's name, so that a refusal names the operator the user called.

Coordinates: a2 [..., M, K], b2 [..., K, N], output [..., M, N], where a 1-D a is [1, K] and a 1-D b is [K, 1]
(numpy.matmul's promotion); the real output shape has those added axes removed again.

Parameter layouts (a scale, a zero point, a bias). Leading dimensions of size 1 never change what a parameter
means. A parameter of a or b that varies along K is refused: its terms cannot be taken out of the sum over K.
    of a (per_row_shape)       per tensor: [] or [1];  per row: [M], or [..., M, 1] whose batch part broadcasts
                               to a's; with rows_as_batch also a.shape[:-1]-like [..., M] (one value per row of
                               an N-D a, e.g. a per-token scale [B, S] of activations [B, S, K]).
    of b (per_column_shape)    per tensor: [] or [1];  per column: [N], or [..., 1, N] whose batch part
                               broadcasts to b's.
    of the output's columns    per tensor: [] or [1];  per column: [N], or [..., 1, N] whose batch part
    (output_column_shape)      broadcasts to the output's.
Each function returns the parameter's shape in matmul coordinates (ready to broadcast against a2, b2 or the
output), or raises ConstraintError.
"""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from ..errors import ConstraintError

Shape = Tuple[int, ...]


def as_array(op: str, name: str, value) -> np.ndarray:
    """value as an ndarray: ndarrays and numpy scalars only (the goldens take numpy in, numpy out)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, np.generic):
        return np.asarray(value)
    raise ConstraintError(op, name, "must be a numpy ndarray (or numpy scalar)", expected="numpy.ndarray",
                          actual=type(value).__name__,
                          suggestion=f"Use ascend_quant_ops.{op} for torch tensors; wrap Python numbers as numpy "
                                     f"arrays of the operator's dtypes (e.g. np.float32(0.1), np.int8(0)).")


def matmul_shapes(op: str, a_shape, b_shape):
    """numpy.matmul's shapes for operands of these shapes: (batch, out_shape_2d, out_shape).

    out_shape_2d is [*batch, M, N] with 1-D operands promoted (a [K] -> [1, K], b [K] -> [K, 1]); out_shape is
    the real output shape (those added axes removed). Raises ConstraintError for a 0-d operand, a K mismatch or
    batch dimensions that do not broadcast. Plain Python on the dimensions, so that torch fake implementations
    can call it with symbolic sizes too.
    """
    a_shape, b_shape = tuple(a_shape), tuple(b_shape)
    for name, shape in (("a", a_shape), ("b", b_shape)):
        if len(shape) == 0:
            raise ConstraintError(op, name, "rank must be at least 1 (numpy.matmul does not take scalars)",
                                  limit=1, actual="rank 0",
                                  suggestion=f"Reshape {name} to [1, 1] for a 1 x 1 matrix.")
    a2 = a_shape if len(a_shape) >= 2 else (1,) + a_shape
    b2 = b_shape if len(b_shape) >= 2 else b_shape + (1,)
    m, k = a2[-2:]
    n = b2[-1]
    if b2[-2] != k:
        raise ConstraintError(op, "b", "the inner dimensions must match: a's last dimension (K) is b's "
                              "second-to-last (its only one when b is 1-D)",
                              expected=f"K = {k} (a has shape {list(a_shape)})",
                              actual=f"{b2[-2]} (b has shape {list(b_shape)})")
    a_batch, b_batch = a2[:-2], b2[:-2]
    rank = max(len(a_batch), len(b_batch))
    a_pad = (1,) * (rank - len(a_batch)) + a_batch
    b_pad = (1,) * (rank - len(b_batch)) + b_batch
    batch = []
    for da, db in zip(a_pad, b_pad):
        if da == db or db == 1:
            batch.append(da)
        elif da == 1:
            batch.append(db)
        else:
            raise ConstraintError(op, "b", "the batch dimensions of a and b must broadcast (numpy.matmul rules)",
                                  expected=f"dimensions broadcastable with a's batch {list(a_batch)}",
                                  actual=f"b's batch {list(b_batch)}")
    batch = tuple(batch)
    out_shape = batch + ((m,) if len(a_shape) >= 2 else ()) + ((n,) if len(b_shape) >= 2 else ())
    return batch, batch + (m, n), out_shape


def promoted(a: np.ndarray, b: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """a and b in matmul coordinates: a 1-D a as [1, K], a 1-D b as [K, 1] (views, no copy)."""
    a2 = a if a.ndim >= 2 else a.reshape(1, a.shape[0])
    b2 = b if b.ndim >= 2 else b.reshape(b.shape[0], 1)
    return a2, b2


def strip_leading_ones(shape: Shape) -> Shape:
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return tuple(shape[i:])


def batch_broadcasts_to(param_batch: Shape, tensor_batch: Shape) -> bool:
    if len(param_batch) > len(tensor_batch):
        return False
    return all(p in (1, t) for p, t in zip(reversed(param_batch), reversed(tensor_batch)))


def per_row_shape(op: str, param: np.ndarray, name: str, a: np.ndarray, a2: np.ndarray, *,
                  rows_as_batch: bool = False) -> Shape:
    """Shape under which a parameter of a broadcasts against a2 [..., M, K] (per tensor or per row)."""
    m, k = a2.shape[-2:]
    shape = strip_leading_ones(param.shape)
    expected = f"[] or [1] (per tensor), [M] = [{m}] or [..., M, 1] = [..., {m}, 1] (per row)"
    if rows_as_batch:
        expected += f", or a's shape without its last dimension, {list(a.shape[:-1])}"
    if not shape:
        return (1, 1)
    if a.ndim < 2:
        raise ConstraintError(op, name, "a is a vector, so its parameters must be per tensor",
                              expected="[] or [1]", actual=list(param.shape))
    if len(shape) == 1:
        if shape[0] == m:
            return (m, 1)
        raise ConstraintError(op, name, along_k_or_shape(shape[0] == k, "a 1-D parameter of a is per row"),
                              expected=expected, actual=list(param.shape), suggestion=_per_row_hint(shape[0] == k))
    if shape[-1] == 1 and shape[-2] in (1, m) and batch_broadcasts_to(shape[:-2], a2.shape[:-2]):
        return shape  # [..., M, 1] (or [..., 1, 1]); preferred where [..., M] would also fit (M = 1)
    if rows_as_batch and shape[-1] == m and batch_broadcasts_to(shape[:-1], a2.shape[:-2]):
        return shape + (1,)  # [..., M]: one value per row of every matrix of a
    if shape[-1] != 1 and not (rows_as_batch and shape[-1] == m):
        raise ConstraintError(op, name, along_k_or_shape(shape[-1] == k, "the last dimension of a's parameter "
                              "must be 1"), expected=expected, actual=list(param.shape),
                              suggestion=_per_row_hint(shape[-1] == k))
    raise ConstraintError(op, name, "neither per tensor nor per row of a (batch dimensions must broadcast to a's)",
                          expected=f"{expected}, a has shape {list(a.shape)}", actual=list(param.shape))


def per_column_shape(op: str, param: np.ndarray, name: str, b: np.ndarray, b2: np.ndarray) -> Shape:
    """Shape under which a parameter of b broadcasts against b2 [..., K, N] (per tensor or per column)."""
    k, n = b2.shape[-2:]
    shape = strip_leading_ones(param.shape)
    expected = f"[] or [1] (per tensor), [N] = [{n}] or [..., 1, N] = [..., 1, {n}] (per column)"
    if not shape:
        return (1, 1)
    if b.ndim < 2:
        raise ConstraintError(op, name, "b is a vector, so its parameters must be per tensor",
                              expected="[] or [1]", actual=list(param.shape))
    if len(shape) == 1:
        if shape[0] == n:
            return (1, n)
        raise ConstraintError(op, name, along_k_or_shape(shape[0] == k, "a 1-D parameter of b is per column"),
                              expected=expected, actual=list(param.shape))
    if shape[-2] != 1:
        raise ConstraintError(op, name, along_k_or_shape(shape[-2] == k, "the second-to-last dimension of b's "
                              "parameter must be 1"), expected=expected, actual=list(param.shape))
    if shape[-1] not in (1, n) or not batch_broadcasts_to(shape[:-2], b2.shape[:-2]):
        raise ConstraintError(op, name, "neither per tensor nor per column of b (batch dimensions must broadcast "
                              "to b's)", expected=f"{expected}, b has shape {list(b.shape)}", actual=list(param.shape))
    return shape


def output_column_shape(op: str, param: np.ndarray, name: str, b: np.ndarray, out_shape_2d: Shape) -> Shape:
    """Shape under which a per-column parameter of the output broadcasts against it ([..., M, N])."""
    n = out_shape_2d[-1]
    shape = strip_leading_ones(param.shape)
    expected = f"[] or [1] (per tensor), [N] = [{n}] or [..., 1, N] = [..., 1, {n}] (per column)"
    if not shape:
        return (1, 1)
    if b.ndim < 2:
        raise ConstraintError(op, name, "b is a vector (the output has no columns), so this parameter must be per "
                              "tensor", expected="[] or [1]", actual=list(param.shape))
    if len(shape) == 1:
        if shape[0] == n:
            return (1, n)
        raise ConstraintError(op, name, "neither per tensor nor per column of the output", expected=expected,
                              actual=list(param.shape))
    if shape[-2] != 1 or shape[-1] not in (1, n) or not batch_broadcasts_to(shape[:-2], out_shape_2d[:-2]):
        raise ConstraintError(op, name, "neither per tensor nor per column of the output (one value per output "
                              "column; batch dimensions must broadcast to the output's)",
                              expected=f"{expected}, the output has batch {list(out_shape_2d[:-2])}",
                              actual=list(param.shape))
    return shape


def along_k_or_shape(varies_along_k: bool, what: str) -> str:
    if varies_along_k:
        return ("a parameter that varies along K is not allowed: the scale of a term of the sum over K cannot be "
                "taken out of the sum")
    return f"neither per tensor nor the right length: {what}"


def _per_row_hint(varies_along_k: bool) -> Optional[str]:
    if varies_along_k:
        return "Per-row parameters of a have shape [M] or [..., M, 1]; per-column ones belong to b."
    return None
