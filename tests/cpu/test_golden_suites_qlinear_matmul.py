"""The golden's QLinearMatMul test suites, run again with the int8 GEMM kernel in the golden's place.

Every test of tests/golden/test_qlinear_matmul_{properties,regressions,conformance,errors}.py and
test_onednn_tutorial.py is collected here a second time, once per ISA level this machine runs, and while it runs
the `qlinear_matmul` (and `dynamic_quant`) its module calls is the fast path. Their references are independent
of both implementations: onnxruntime, the ONNX backend test vectors, an exact int64 implementation written from
the spec (including the int32 wrap-around at long K), the DequantizeLinear -> MatMul -> QuantizeLinear chain.
"""
import pytest

import test_onednn_tutorial
import test_qlinear_matmul_conformance
import test_qlinear_matmul_errors
import test_qlinear_matmul_properties
import test_qlinear_matmul_regressions
from cpu_test_support import assert_suites_call_the_fast_paths, isa_levels, use_fast_paths_in_golden_tests
from test_onednn_tutorial import *  # noqa: F401,F403
from test_qlinear_matmul_conformance import *  # noqa: F401,F403
from test_qlinear_matmul_errors import *  # noqa: F401,F403
from test_qlinear_matmul_properties import *  # noqa: F401,F403
from test_qlinear_matmul_regressions import *  # noqa: F401,F403

SUITES = [
    test_onednn_tutorial,
    test_qlinear_matmul_conformance,
    test_qlinear_matmul_errors,
    test_qlinear_matmul_properties,
    test_qlinear_matmul_regressions,
]


@pytest.fixture(autouse=True, params=isa_levels())
def fast_qlinear_matmul(request, monkeypatch):
    use_fast_paths_in_golden_tests(request, monkeypatch, SUITES)


def test_the_suites_run_the_fast_path(request):
    assert_suites_call_the_fast_paths(SUITES, request.node.callspec.params["fast_qlinear_matmul"])
