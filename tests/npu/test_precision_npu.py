"""The precision suite on an Ascend NPU: every case of the device's SoC, judged against the golden under the
Ascend criteria (precision/criteria.py). Collected everywhere; skipped with npu.status()'s reason when the npu
backend is not usable (no torch_npu, no device, no custom operator package, no extension), and per case when the
case belongs to another SoC than the device's."""
import functools

import pytest

from ascend_quant_ops import npu, precision
from ascend_quant_ops.precision import runner

pytestmark = pytest.mark.npu

CASES = precision.all_cases()


@functools.lru_cache(maxsize=None)
def _device():
    usable, reason = npu.status()
    return usable, reason, (npu.detect_soc() if usable else None)


@pytest.fixture
def device_soc():
    usable, reason, soc = _device()
    if not usable:
        pytest.skip(f"npu backend not usable: {reason}")
    if soc is None:
        pytest.skip("the NPU's SoC is not one this package is built for (npu.detect_soc() is None)")
    return soc


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_precision_case(case, device_soc):
    if case.soc != device_soc:
        pytest.skip(f"case for {case.soc}; this device is {device_soc}")
    result = runner.run_case(case, "npu")
    assert result["verdict"] == "pass", f"{result['message']}\n{result.get('traceback', '')}"


def test_torch_ops_on_npu_match_cpu(device_soc):
    # The PrivateUse1 kernels reached through torch.ops (not the public api), small and direct.
    import torch

    from ascend_quant_ops import torch_ops

    x = (torch.randn(33, 4096 if device_soc == "ascend310p" else 1000) * 3).half()
    y_cpu, s_cpu = torch_ops.dynamic_quant(x)
    y_npu, s_npu = torch_ops.dynamic_quant(x.to("npu"))
    assert y_npu.device.type == "npu" and y_npu.dtype == torch.int8
    assert (y_npu.cpu().to(torch.int16) - y_cpu.to(torch.int16)).abs().max() <= 1
    assert ((s_npu.cpu() - s_cpu).abs() <= 2.0 ** -8 * s_cpu.abs().clamp(min=1)).all()
