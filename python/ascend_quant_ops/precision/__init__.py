"""The precision suite: a case list per SoC (cases.py), the Ascend criteria (criteria.py), a runner that judges a
backend against the golden (runner.py) and JSON / HTML reports (report.py). `aqo precision` is its
command line; tests/npu/test_precision_npu.py runs it on a device."""
from .cases import Case, all_cases, random_cases
from .criteria import check_float8, check_integer, check_output, check_scale
from .runner import run_case, run_suite
from .report import render_html, svg_histogram, write_reports

__all__ = ["Case", "all_cases", "random_cases", "check_float8", "check_integer", "check_output", "check_scale", "run_case",
           "run_suite", "render_html", "svg_histogram", "write_reports"]
