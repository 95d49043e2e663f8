"""`aqo demo`'s W8A8 part: float16 activations -> per-token int8 -> int8 weights with per-channel scales ->
bfloat16, checked against the float32 product; refused (and reported, not failed) where no kernel exists yet."""
import json

from ascend_quant_ops import cli
from ascend_quant_ops import examples as ex


def test_demo_runs_the_w8a8_layer_on_the_cpu(capsys):
    assert cli.main(["demo", "--backend", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "== W8A8" in out and 'quant_matmul(xq, xs, None, wq.T, ws, out_dtype="bfloat16")' in out
    assert "relative L2 error" in out and ": ok" in out


def test_demo_json_has_the_w8a8_result(capsys):
    assert cli.main(["demo", "--backend", "cpu", "--json"]) == 0
    w8a8 = json.loads(capsys.readouterr().out)["w8a8"]
    assert w8a8["passes"] and 0 < w8a8["relative_l2"] <= ex.W8A8_THRESHOLD


def test_demo_reports_the_missing_kernel_on_the_emulator(capsys):
    assert cli.main(["demo", "--backend", "emulator", "--soc", "ascend910b"]) == 0
    out = capsys.readouterr().out
    assert "refused: quant_matmul" in out and "no quant_matmul kernel" in out
    assert cli.main(["demo", "--backend", "emulator", "--json"]) == 0
    assert "no quant_matmul kernel" in json.loads(capsys.readouterr().out)["w8a8"]["refused"]
