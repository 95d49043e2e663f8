"""Fixtures of the fast CPU path tests.

The references are the golden (python/ascend_quant_ops/golden/) and the independent references of the golden's
own tests (tests/golden/: hand-computed examples, a Fraction-based DynamicQuant, an exact int64 QLinearMatMul,
onnxruntime). Those test modules are re-collected here with the fast paths in the golden's place
(test_golden_suites_*.py), so their fixtures are provided here too.
"""
import pathlib

import pytest

from cpu_test_support import GOLDEN_TESTS, REFERENCES

pytest.register_assert_rewrite(*(p.stem for p in GOLDEN_TESTS.glob("test_*.py")))


@pytest.fixture(scope="session")
def ort_qlinear_matmul():
    return REFERENCES.run_ort_qlinear_matmul


@pytest.fixture(scope="session")
def dq_matmul_q_oracle():
    return REFERENCES.run_dq_matmul_q_oracle


@pytest.fixture(scope="session")
def exact_qlinear_matmul():
    return REFERENCES.exact_qlinear_matmul_reference
