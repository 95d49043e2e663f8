"""The timeline validation kernels of these tests are in ascend_quant_ops_testing (tests/testing_module.py builds it where missing)."""
from testing_module import ensure_testing_module

ensure_testing_module()
