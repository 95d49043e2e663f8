"""Every tail width the documented limits accept gets a valid plan: ATB's own bfloat16 budget (docs/references.md#dynamicquant-implementations)
overflows UB for some widths below 7552 (about 4272-4432, 4800-5024, 5472-5824, 6352-6896 with many rows); ours
must fit for every accepted width, so this walks all of them (with many rows, where rows per UB iteration is
largest), checking each explanation with the invariant checker."""
import pytest

from ascend_quant_ops import _native
from ascend_quant_ops.tiling import verify_explanation

TABLE = {r["name"]: r for r in _native.soc_table()}


def walk(soc, x_dtype, widths, rows_list, smooth_list=(False, True)):
    spec = TABLE[soc]
    failures = []
    for h in widths:
        for rows in rows_list:
            for smooth in smooth_list:
                out = _native.plan_dynamic_quant([rows, h], x_dtype, "int8", smooth, False, soc, 0, 0)
                if not out["ok"]:
                    failures.append((h, rows, smooth, "refused: " + out["violation"]["constraint"]))
                    continue
                n = rows * h
                problems = verify_explanation(
                    out["explanation"], soc_spec_=spec, expected_work=rows,
                    expected_tensors={"x": 2 * n, "y": n, "scale": 4 * rows},
                    core_limit=spec["dynamic_quant_cores"], ub_limit=spec["ub_bytes"])
                if problems:
                    failures.append((h, rows, smooth, problems[:3]))
    return failures


def test_910b_every_bfloat16_width_up_to_7552():
    failures = walk("ascend910b", "bfloat16", range(1, 7553), [100_000])
    assert not failures, failures[:10]


def test_910b_float16_widths_up_to_26624():
    # Every width up to 1024 and in the last 512 before the limit, every 7th between (a prime stride hits every
    # residue of the 16-element block and of the 64-element chunk).
    widths = sorted(set(range(1, 1025)) | set(range(1025, 26112, 7)) | set(range(26112, 26625)))
    failures = walk("ascend910b", "float16", widths, [100_000], smooth_list=(True,))
    assert not failures, failures[:10]


def test_910b_atb_overflow_bands_with_few_rows():
    bands = [w for lo, hi in ((4272, 4432), (4800, 5024), (5472, 5824), (6352, 6896)) for w in range(lo, hi + 1, 8)]
    failures = walk("ascend910b", "bfloat16", bands, [1, 47, 48, 49, 97, 4096])
    assert not failures, failures[:10]


def test_310p_every_multiple_of_32_up_to_4096():
    failures = walk("ascend310p", "float16", range(32, 4097, 32), [1, 7, 8, 9, 63, 65, 100_000])
    assert not failures, failures[:10]


@pytest.mark.parametrize("x_dtype", ["float16", "bfloat16"])
def test_950_widths_across_the_single_pass_limit(x_dtype):
    # No documented limit: widths from small to past one UB load (multi-pass) must all plan.
    widths = list(range(1, 200)) + list(range(7000, 80000, 997)) + [10 ** 6, 3 * 10 ** 6 + 1]
    failures = walk("ascend910_95", x_dtype, widths, [1, 65, 100_000], smooth_list=(False,))
    assert not failures, failures[:10]
