"""The QLinearMatMul explanation lists GM ranges summarised (a core's y writes as row-strided ranges, its reads as
spans): memory O(cores), never O(tiles). These tests rebuild every tile's accesses from the tiling fields alone
(block numbering batch-major, then strip, then N block) and check the summary against them: the y bytes each core
writes are exactly its tiles' bytes, every byte a tile reads lies in its core's span, and the partial-block
handling of each row segment matches; and that the explanation stays small for huge shapes."""
from __future__ import annotations

import random

import pytest

from ascend_quant_ops.errors import ConstraintError
from ascend_quant_ops import tiling

SOCS = ("ascend910b", "ascend310p", "ascend910_95")


def expand(g):
    return [(g["begin"] + i * g["stride"], g["end"] + i * g["stride"]) for i in range(g["count"])]


def batch_operands(t, bi):
    ai = bj = 0
    for d in reversed(range(t["batchRank"])):
        i = bi % t["batchDims"][d]
        bi //= t["batchDims"][d]
        ai += i * t["aBatchStrides"][d]
        bj += i * t["bBatchStrides"][d]
    return ai, bj


def tile_accesses(t, tile):
    """(y row segments, a byte range, b column segments per K row) of one tile, from the tiling alone."""
    m, n, k = t["m"], t["n"], t["k"]
    bi, rest = divmod(tile, t["strips"] * t["nBlocks"])
    mb, nb = divmod(rest, t["nBlocks"])
    ai, bj = batch_operands(t, bi)
    m0, m1 = mb * t["stripM"], min(m, (mb + 1) * t["stripM"])
    n0, n1 = nb * t["baseN"], min(n, (nb + 1) * t["baseN"])
    y = [((bi * m + r) * n + n0, (bi * m + r) * n + n1) for r in range(m0, m1)]
    a = ((ai * m + m0) * k, (ai * m + m1) * k)
    b = [(bj * k * n + kk * n + n0, bj * k * n + kk * n + n1) for kk in range(k)]
    return y, a, b


def merged(segments):
    """The byte set of possibly touching segments as sorted disjoint intervals (overlaps would be a bug: kept)."""
    out = []
    for b, e in sorted(segments):
        if out and b == out[-1][1]:
            out[-1][1] = e
        else:
            out.append([b, e])
    return out


def covered(spans, lo, hi):
    return any(b <= lo and hi <= e for b, e in spans)


def random_request(rng):
    m, k, n = rng.randint(1, 300), rng.randint(0, 70), rng.randint(1, 700)
    shapes = [((m, k), (k, n)), ((3, m, k), (k, n)), ((2, 1, m, k), (3, k, n)), ((m, k), (4, k, n)),
              ((2, 3, m, k), (1, 3, k, n))]
    return rng.choice(shapes)


# 310p requests with rounds (a core's blocks in two ranges: its whole strip rows, then its share of the rest).
ROUND_REQUESTS = [(((520, 2048), (2048, 4100)), dict(core_num=3)),
                  (((2, 300, 2048), (2048, 4096)), dict(core_num=5, a_dtype="uint8", a_param="row"))]


def requests(soc):
    rng = random.Random(f"summary-{soc}")
    for _ in range(60):
        a_shape, b_shape = random_request(rng)
        kw = dict(a_dtype=rng.choice(["int8", "uint8"]), b_dtype=rng.choice(["int8", "uint8"]),
                  a_param=rng.choice(["tensor", "row"]), b_param=rng.choice(["tensor", "column"]),
                  core_num=rng.choice([None, 1, 3, 5]))
        yield a_shape, b_shape, kw
    if soc == "ascend310p":
        for (a_shape, b_shape), kw in ROUND_REQUESTS:
            assert tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, **kw).tiling["roundRanges"] != 0
            yield a_shape, b_shape, kw


@pytest.mark.parametrize("soc", SOCS)
def test_summary_equals_the_tiles_it_stands_for(soc):
    for a_shape, b_shape, kw in requests(soc):
        p = tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, **kw)
        t, e = p.tiling, p.explanation
        if t["tiling_key"] != 0:
            continue  # the vector decode path has no cube tiles (test_qlinear_matmul_vector_decode.py checks it)
        has_pad = tiling.soc_table()[soc]["has_data_copy_pad"]
        last_w = t["n"] - (t["nBlocks"] - 1) * t["baseN"]
        for c in sorted({w["core"] for w in e["work"]}):
            mine = [g for g in e["gm"] if g["core"] == c]
            y_plan = sorted(s for g in mine if g["tensor"] == "y" for s in expand(g))
            y_tiles, a_spans, b_spans = [], [], []
            tiles = [u for w in e["work"] if w["core"] == c for u in range(w["begin"], w["end"])]
            for tile in tiles:
                y, a, b = tile_accesses(t, tile)
                y_tiles += y
                a_spans.append(a)
                b_spans += b
            # The plan lists whole rows of a core's tiles as one segment per row (or one range): compare the bytes.
            assert merged(y_plan) == merged(y_tiles), (a_shape, b_shape, kw, c)
            a_decl = [(g["begin"], g["end"]) for g in mine if g["tensor"] == "a"]
            b_decl = [(g["begin"], g["end"]) for g in mine if g["tensor"] == "b"]
            if t["k"]:
                assert all(covered(a_decl, lo, hi) for lo, hi in a_spans), (a_shape, b_shape, kw, c)
                assert all(covered(b_decl, lo, hi) for lo, hi in b_spans), (a_shape, b_shape, kw, c)
            for g in mine:
                if g["tensor"] != "y":
                    continue
                # Per repetition: the partial last block (no DataCopyPad) only on segments that reach column N.
                seg_end_col = g["end"] % t["n"] or t["n"]
                tail = 0 if has_pad or seg_end_col != t["n"] else last_w % 32
                want_scalar = tail if last_w < 32 else 0
                want_rewrite = 32 - tail if tail and last_w >= 32 else 0
                assert (g["scalar_bytes"], g["rewrite_bytes"]) == (want_scalar, want_rewrite), (g, t["n"], last_w)
        assert tiling.verify_explanation(e, soc_spec_=tiling.soc_table()[soc]) == []


@pytest.mark.parametrize("soc", SOCS)
# (N = 99999, not a multiple of 32: 310p's cube GEMM path would take a's 4096 matrices as one a, in 3125 units)
@pytest.mark.parametrize("a_shape, b_shape", [((131072, 131071), (131071, 131072)),
                                              ((4096, 64, 128), (128, 99999)),
                                              ((65536, 3, 7), (65536, 7, 1000))])
def test_explanation_is_o_cores_for_huge_shapes(soc, a_shape, b_shape):
    if soc == "ascend310p" and b_shape[-2] * b_shape[-1] >= 2**31:
        # 310p's Matmul API offsets an int8 b with a 32-bit int: one b matrix stays below 2^31 bytes there
        with pytest.raises(ConstraintError, match="32-bit B offset"):
            tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc)
        b_shape = (b_shape[0], 16383)
    p = tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc)
    e = p.explanation
    assert p.tiling["unitCount"] > 10_000
    # A core's blocks are one range, or two with 310p's rounds (its whole strip rows, then its share of the rest).
    assert len(e["gm"]) <= 16 * e["used_cores"] and len(e["work"]) <= 2 * e["used_cores"]
    assert tiling.verify_explanation(e, soc_spec_=tiling.soc_table()[soc]) == []
