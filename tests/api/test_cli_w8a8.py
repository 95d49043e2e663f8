"""`aqo demo`'s W8A8 part: float16 activations -> per-token int8 -> int8 weights with per-channel scales ->
bfloat16, checked against the float32 product; refused (and reported, not failed) where the SoC's kernel cannot
write the output type."""
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


def test_demo_runs_the_w8a8_layer_on_the_emulator(capsys):
    # the quant_matmul kernel in the emulator (the DynamicQuant before it too)
    assert cli.main(["demo", "--backend", "emulator", "--soc", "ascend910b"]) == 0
    out = capsys.readouterr().out
    assert "== W8A8" in out and "relative L2 error" in out and ": ok" in out


def test_demo_reports_an_output_type_the_soc_cannot_write(capsys):
    # ascend310p's quant_matmul kernel writes float32 only: the demo's bfloat16 layer is refused there, reported
    assert cli.main(["demo", "--backend", "emulator", "--soc", "ascend310p", "--json"]) == 0
    refused = json.loads(capsys.readouterr().out)["w8a8"]["refused"]
    assert "quant_matmul" in refused and "out_dtype" in refused
