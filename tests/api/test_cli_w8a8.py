"""`aqo demo`'s W8A8 part: float16 activations -> per-token int8 -> int8 weights with per-channel scales ->
bfloat16 (float32 where the SoC's kernel writes no bfloat16), checked against the float32 product."""
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


def test_demo_runs_the_w8a8_layer_in_float32_where_the_soc_has_no_bfloat16_output(capsys):
    # ascend310p's quant_matmul kernel writes float32 only: the demo's layer asks for that there
    assert cli.main(["demo", "--backend", "emulator", "--soc", "ascend310p", "--json"]) == 0
    w8a8 = json.loads(capsys.readouterr().out)["w8a8"]
    assert w8a8["out_dtype"] == "float32" and "refused" not in w8a8
    assert w8a8["passes"] and 0 < w8a8["relative_l2"] <= ex.W8A8_THRESHOLD
    assert cli.main(["demo", "--backend", "emulator", "--soc", "ascend310p"]) == 0
    out = capsys.readouterr().out
    assert 'out_dtype="float32"' in out and "does not write bfloat16" in out and ": ok" in out


def test_demo_without_soc_takes_the_backends_soc(capsys, monkeypatch):
    # Without --soc the launches run on the backend's SoC (an NPU's own, the emulator's default): its tail padding and
    # its W8A8 output type apply, so a 310p NPU needs no --soc. The emulator's default stands in for the device here.
    from ascend_quant_ops import api, npu

    monkeypatch.setattr(npu, "detect_soc", lambda: "ascend310p")
    assert cli._backend_soc("npu") == "ascend310p"
    assert cli._backend_soc("cpu") is None and cli._backend_soc("auto") is None
    monkeypatch.setattr(api, "DEFAULT_EMULATOR_SOC", "ascend310p")
    assert cli.main(["demo", "--backend", "emulator", "--json"]) == 0
    w8a8 = json.loads(capsys.readouterr().out)["w8a8"]
    assert w8a8["out_dtype"] == "float32" and w8a8["passes"]
    assert cli.main(["demo", "--backend", "emulator"]) == 0
    out = capsys.readouterr().out
    assert "ascend310p needs a multiple of 32" in out and "ascend310p's quant_matmul kernel does not write" in out
