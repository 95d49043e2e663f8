"""One path through the Python layer: one validation and at most one plan per call, no import circle between
api / npu / torch_ops, the torch_npu compatibility rules in one module below them, the op names defined once."""
import ast
import pathlib
import sys

import numpy as np
import pytest
import torch

import ascend_quant_ops as aqo
from ascend_quant_ops import _native, dtypes, tiling
from ascend_quant_ops import examples as ex
from ascend_quant_ops.golden import dynamic_quant as golden_dq
from ascend_quant_ops.golden import qlinear_matmul as golden_qmm

PKG = pathlib.Path(aqo.__file__).parent


class Counter:
    """Counts calls of owner.name made by the call path (a plan function's check of its own arguments is the
    plan's, not the call's: calls from tiling.py are not counted)."""

    def __init__(self, monkeypatch, owner, name, count_tiling=False):
        self.n = 0
        original = getattr(owner, name)

        def counted(*a, **kw):
            if count_tiling or sys._getframe(1).f_globals.get("__name__") != "ascend_quant_ops.tiling":
                self.n += 1
            return original(*a, **kw)

        monkeypatch.setattr(owner, name, counted)


@pytest.fixture
def counters(monkeypatch):
    return {
        "dst": Counter(monkeypatch, dtypes, "parse_dst_type"),
        "validate_dq": Counter(monkeypatch, golden_dq, "_validate_arrays"),
        "plan_dq": Counter(monkeypatch, _native, "plan_dynamic_quant", True),
        "plan_qmm": Counter(monkeypatch, _native, "plan_qlinear_matmul", True),
        "emulate_dq": Counter(monkeypatch, _native, "emulate_dynamic_quant"),
        "emulate_qmm": Counter(monkeypatch, _native, "emulate_qlinear_matmul"),
    }


def _count_operands(monkeypatch):
    box = {"n": 0}
    original = golden_qmm.QLinearMatMulOperands.__init__

    def init(self, *a, **kw):
        box["n"] += 1
        original(self, *a, **kw)

    monkeypatch.setattr(golden_qmm.QLinearMatMulOperands, "__init__", init)
    return box


@pytest.mark.parametrize("asymmetric", [False, True])
@pytest.mark.parametrize("kind", ["numpy", "torch"])
@pytest.mark.parametrize("backend,soc,plans,runs", [("cpu", None, 0, 0), ("cpu", "ascend310p", 1, 0),
                                                      ("emulator", None, 0, 1), ("emulator", "ascend310p", 0, 1)])
def test_dynamic_quant_validates_once_and_plans_at_most_once(counters, kind, backend, soc, plans, runs, asymmetric):
    x = np.zeros((4, 32), np.float16)
    x[:, :4] = ex.SEED_004_X.reshape(4, 4)
    if kind == "torch":
        x = torch.from_numpy(x)
    out = aqo.dynamic_quant(x, dst_type="int8", backend=backend, soc=soc, asymmetric=asymmetric)
    assert len(out) == (3 if asymmetric else 2)
    if not asymmetric:
        assert np.array_equal(np.asarray(out[0])[:, :4], ex.SEED_004_Y.reshape(4, 4))
    assert counters["dst"].n == 1, "dst_type parsed more than once"
    assert counters["validate_dq"].n == 1, "arguments validated more than once"
    assert counters["plan_dq"].n == plans and counters["emulate_dq"].n == runs  # a runner plans inside itself


@pytest.mark.parametrize("kind", ["numpy", "torch"])
@pytest.mark.parametrize("backend,soc,plans,runs", [("cpu", None, 0, 0), ("cpu", "ascend910b", 1, 0),
                                                      ("emulator", None, 0, 1)])
def test_qlinear_matmul_builds_its_operands_once_and_plans_at_most_once(counters, monkeypatch, kind, backend, soc,
                                                                         plans, runs):
    operands = _count_operands(monkeypatch)
    args = dict(ex.ONNX_2D_UINT8)
    if kind == "torch":
        args = {k: torch.from_numpy(np.array(v)) for k, v in args.items()}
    y = aqo.qlinear_matmul(**args, backend=backend, soc=soc)
    assert np.array_equal(np.asarray(y), ex.ONNX_2D_UINT8_Y)
    assert operands["n"] == 1
    assert counters["plan_qmm"].n == plans and counters["emulate_qmm"].n == runs


def _imports(module_file: pathlib.Path):
    """(module-level imports, function-level imports) of package-relative modules, as dotted names."""
    tree = ast.parse(module_file.read_text())
    top, inner = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            names = {node.module} if node.module else {a.name for a in node.names}
            target = top if node in tree.body else inner
            target |= {n.split(".")[0] for n in names}
    return top, inner


def test_no_import_circle_between_api_npu_and_torch_ops():
    api_top, api_inner = _imports(PKG / "api.py")
    npu_top, npu_inner = _imports(PKG / "npu.py")
    ops_top, ops_inner = _imports(PKG / "torch_ops.py")
    compat_top, compat_inner = _imports(PKG / "torch_npu_compat.py")
    assert "api" not in npu_top | npu_inner and "api" not in ops_top | ops_inner
    assert "torch_ops" not in npu_top  # the extension loader needs the schemas only when it loads
    assert not ({"api", "torch_ops", "npu"} & (compat_top | compat_inner))
    assert "torch_npu_compat" in api_top and "torch_npu_compat" in ops_top
    # api imports everything at module level but torch_ops (which imports torch: numpy users never pay for it)
    assert api_inner <= {"torch_ops"}, api_inner


def test_op_names_are_defined_once():
    from ascend_quant_ops import _opnames

    for path in PKG.rglob("*.py"):
        if path.name == "_opnames.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                assert node.value.value not in ("dynamic_quant", "qlinear_matmul", "dynamic_quant_asymmetric"), (
                    f"{path.name}:{node.lineno} defines an op name; import it from _opnames")
    assert _opnames.qualified(_opnames.TORCH_DYNAMIC_QUANT) == "ascend_quant_ops::dynamic_quant"


def test_operand_object_is_public_and_named_for_what_it_is():
    p = golden_qmm.validate(**ex.ONNX_2D_UINT8)
    assert isinstance(p, golden_qmm.QLinearMatMulOperands)
    assert (p.a_param, p.b_param, p.y_param) == ("tensor", "tensor", "tensor")
    assert np.array_equal(golden_qmm.compute(p), ex.ONNX_2D_UINT8_Y)
    assert not hasattr(golden_qmm, "_Problem")


def test_plan_check_is_shared_by_the_backends():
    # The emulator runner no longer has a per-tensor y rule of its own: the one in _plan_check refuses it.
    src = (PKG / "emulator" / "qlinear_matmul.py").read_text()
    assert "per-tensor y_scale" not in src
    assert "_plan_check.qlinear_matmul_operands" in src and "_plan_check.qlinear_matmul" in (PKG / "api.py").read_text()
    assert tiling.plan_qlinear_matmul is not None
