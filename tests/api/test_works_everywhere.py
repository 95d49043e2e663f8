"""The package imports and computes on CPU when torch is absent, when torch_npu is absent, and when torch_npu is
installed but fails to import (docs/references.md#torch-npu: then `import torch` itself raises). Each case runs in a fresh
interpreter so that the environment can be shaped without touching this one."""
import json
import os
import subprocess
import sys
import textwrap


import ascend_quant_ops
from ascend_quant_ops import examples

# where this interpreter found the package (the install, or python/ in a developer build)
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(ascend_quant_ops.__file__)))

PROBE = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import ascend_quant_ops as aqo
    from ascend_quant_ops import examples as ex
    y, scale = aqo.dynamic_quant(ex.SEED_004_X)
    qy = aqo.qlinear_matmul(**ex.ONNX_2D_UINT8)
    print(json.dumps({"y": y.tolist(), "qy": qy.tolist(), "info": aqo.backend_info(),
                      "torch_loaded": "torch" in sys.modules and sys.modules["torch"] is not None}))
    """
)


def run_probe(tmp_path, extra_path=None, env_update=None, prelude=""):
    env = {k: v for k, v in os.environ.items() if k != "TORCH_DEVICE_BACKEND_AUTOLOAD"}
    paths = [str(p) for p in (extra_path or [])] + [PACKAGE_PARENT]
    if "PYTHONPATH" in env:
        paths.append(env["PYTHONPATH"])
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths)
    env.update(env_update or {})
    script = tmp_path / "probe.py"
    script.write_text(prelude + PROBE)
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300,
                         cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def check_results(res):
    assert res["y"] == examples.SEED_004_Y.tolist()
    assert res["qy"] == examples.ONNX_2D_UINT8_Y.tolist()
    assert res["info"]["cpu"]["usable"] is True


def test_without_torch(tmp_path):
    # `sys.modules["torch"] = None` makes every `import torch` raise ImportError, as if it were not installed.
    res = run_probe(tmp_path, prelude="import sys\nsys.modules['torch'] = None\n")
    check_results(res)
    assert res["info"]["npu"]["usable"] is False
    assert "torch" in res["info"]["npu"]["reason"]


def test_without_torch_npu(tmp_path):
    res = run_probe(tmp_path)
    check_results(res)
    assert res["info"]["npu"]["usable"] is False
    assert "torch_npu" in res["info"]["npu"]["reason"]


def _fake_broken_torch_npu(root):
    """A torch_npu that fails the way the real one does without CANN, registered for torch's backend autoload."""
    pkg = root / "torch_npu"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "raise ImportError('libhccl.so: cannot open shared object file: No such file or directory')\n")
    dist = root / "torch_npu-2.13.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: torch_npu\nVersion: 2.13.0\n")
    (dist / "entry_points.txt").write_text("[torch.backends]\ntorch_npu = torch_npu:_autoload\n")
    (dist / "RECORD").write_text("")


def test_with_broken_torch_npu(tmp_path):
    fake = tmp_path / "site"
    fake.mkdir()
    _fake_broken_torch_npu(fake)
    # First prove the fake reproduces the real failure: plain `import torch` raises.
    env = {k: v for k, v in os.environ.items() if k != "TORCH_DEVICE_BACKEND_AUTOLOAD"}
    env["PYTHONPATH"] = os.pathsep.join([str(fake), PACKAGE_PARENT, env.get("PYTHONPATH", "")])
    broken = subprocess.run([sys.executable, "-c", "import torch"], env=env, capture_output=True, text=True,
                            timeout=300)
    assert broken.returncode != 0 and "torch_npu" in broken.stderr
    # The package still imports and computes with numpy inputs, and says why the npu backend is unusable.
    res = run_probe(tmp_path, extra_path=[fake])
    check_results(res)
    assert res["info"]["npu"]["usable"] is False
    assert "libhccl" in res["info"]["npu"]["reason"] or "torch_npu" in res["info"]["npu"]["reason"]


def test_cli_info_with_broken_torch_npu(tmp_path):
    # `aqo info` probes torch once: the npu reason is torch_npu's failure, not the different error a second
    # `import torch` raises after a failed first one.
    fake = tmp_path / "site"
    fake.mkdir()
    _fake_broken_torch_npu(fake)
    env = {k: v for k, v in os.environ.items() if k != "TORCH_DEVICE_BACKEND_AUTOLOAD"}
    env["PYTHONPATH"] = os.pathsep.join([str(fake), PACKAGE_PARENT, env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-m", "ascend_quant_ops", "info", "--json"], env=env, capture_output=True,
                         text=True, timeout=300, cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    npu_reason = info["backends"]["npu"]["reason"]
    assert not info["backends"]["npu"]["usable"] and "torch_npu" in npu_reason
    assert "TORCH_LIBRARY" not in npu_reason, npu_reason
    assert info["versions"]["torch"].startswith("not usable") and "torch_npu" in info["versions"]["torch"]
