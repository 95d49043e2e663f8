"""Helpers of the fast CPU path tests (imported by the tests and by conftest.py)."""
import functools
import importlib.util
import pathlib
import sys

GOLDEN_TESTS = pathlib.Path(__file__).resolve().parents[1] / "golden"
if str(GOLDEN_TESTS) not in sys.path:
    sys.path.insert(0, str(GOLDEN_TESTS))  # the golden's test modules and their helpers (test_hifloat8, ...)


def _golden_test_helpers():
    """tests/golden/conftest.py (the independent references) as a module, under a name of its own."""
    spec = importlib.util.spec_from_file_location("golden_test_references", GOLDEN_TESTS / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REFERENCES = _golden_test_helpers()


def isa_levels():
    from ascend_quant_ops import cpu

    return cpu.isa_levels()


def use_fast_paths_in_golden_tests(request, monkeypatch, suites):
    """For golden tests re-collected in tests/cpu: while one runs, the names the golden test modules `suites`
    call (dynamic_quant, qlinear_matmul), and the golden modules' own functions (which some tests import at
    call time), are the fast paths at ISA level request.param."""
    from ascend_quant_ops.cpu import dynamic_quant as cpu_dq, qlinear_matmul as cpu_qmm
    from ascend_quant_ops.golden import dynamic_quant as golden_dq, qlinear_matmul as golden_qmm

    fast = {"dynamic_quant": functools.partial(cpu_dq.dynamic_quant, isa=request.param),
            "qlinear_matmul": functools.partial(cpu_qmm.qlinear_matmul, isa=request.param)}
    for module in suites:
        for name, function in fast.items():
            if callable(getattr(module, name, None)):
                monkeypatch.setattr(module, name, function)
    monkeypatch.setattr(golden_dq, "dynamic_quant", fast["dynamic_quant"])
    monkeypatch.setattr(golden_qmm, "qlinear_matmul", fast["qlinear_matmul"])


def assert_suites_call_the_fast_paths(suites, isa):
    """Guard against a vacuous re-run: inside a re-run test, what the suites call is the fast path."""
    from ascend_quant_ops.cpu import dynamic_quant as cpu_dq, qlinear_matmul as cpu_qmm
    from ascend_quant_ops.golden import dynamic_quant as golden_dq, qlinear_matmul as golden_qmm

    fast = {"dynamic_quant": cpu_dq.dynamic_quant, "qlinear_matmul": cpu_qmm.qlinear_matmul}
    places = [(module, name) for module in suites for name in fast if hasattr(module, name)]
    places += [(golden_dq, "dynamic_quant"), (golden_qmm, "qlinear_matmul")]
    for module, name in places:
        patched = getattr(module, name)
        assert patched.func is fast[name] and patched.keywords == {"isa": isa}, (module.__name__, name)
