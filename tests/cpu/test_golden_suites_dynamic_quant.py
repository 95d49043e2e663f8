"""The golden's DynamicQuant test suites, run again with the fused CPU kernel in the golden's place.

Every test of tests/golden/test_dynamic_quant_{examples,properties,errors,onnxruntime}.py and the golden-facing
tests of test_hifloat8.py is collected here a second time, once per ISA level this machine runs, and while it
runs the `dynamic_quant` its module calls is ascend_quant_ops.cpu.dynamic_quant. Their references are
independent of both implementations: hand-computed values, a Fraction-based re-implementation of the rules,
onnxruntime, the HiFloat8 bit layout.
"""
import pytest

import test_dynamic_quant_errors
import test_dynamic_quant_examples
import test_dynamic_quant_onnxruntime
import test_dynamic_quant_properties
import test_hifloat8
from cpu_test_support import assert_suites_call_the_fast_paths, isa_levels, use_fast_paths_in_golden_tests
from test_dynamic_quant_errors import *  # noqa: F401,F403
from test_dynamic_quant_examples import *  # noqa: F401,F403
from test_dynamic_quant_onnxruntime import *  # noqa: F401,F403
from test_dynamic_quant_properties import *  # noqa: F401,F403
from test_hifloat8 import (  # noqa: F401
    test_golden_hifloat8_clips_instead_of_overflowing,
    test_golden_hifloat8_nan_and_inf_codes,
    test_golden_hifloat8_reproduces_the_hand_table,
)

SUITES = [
    test_dynamic_quant_errors,
    test_dynamic_quant_examples,
    test_dynamic_quant_onnxruntime,
    test_dynamic_quant_properties,
    test_hifloat8,
]


@pytest.fixture(autouse=True, params=isa_levels())
def fast_dynamic_quant(request, monkeypatch):
    use_fast_paths_in_golden_tests(request, monkeypatch, SUITES)


def test_the_suites_run_the_fast_path(request):
    assert_suites_call_the_fast_paths(SUITES, request.node.callspec.params["fast_dynamic_quant"])
