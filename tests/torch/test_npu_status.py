"""npu.status() names the missing piece: torch_npu absent, torch_npu failing to import, no device, no custom
operator package. Each runs in a subprocess whose sys.path holds a fake torch_npu, so the real environment (where
torch_npu must never be installed) is not touched."""
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ascend_quant_ops
from ascend_quant_ops import npu

# The package this test imported (the checkout's or the installed one): subprocesses must use the same.
PACKAGE_PARENT = str(Path(ascend_quant_ops.__file__).resolve().parents[1])

PROBE = textwrap.dedent("""
    import json, sys
    import torch  # must keep working whatever torch_npu does
    from ascend_quant_ops import npu
    usable, reason = npu.status()
    print(json.dumps({"usable": usable, "reason": reason, "soc": npu.detect_soc(),
                      "torch_ok": bool(torch.ones(2).sum() == 2)}))
""")


def run_probe(tmp_path, fake_torch_npu=None, env_extra=None):
    paths = [PACKAGE_PARENT]
    if fake_torch_npu is not None:
        pkg = tmp_path / "fake" / "torch_npu"
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text(textwrap.dedent(fake_torch_npu))
        paths.insert(0, str(tmp_path / "fake"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND_")}
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"
    env.update(env_extra or {})
    r = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_torch_npu_absent(tmp_path):
    out = run_probe(tmp_path)
    assert out == {"usable": False, "soc": None, "torch_ok": True, "reason": out["reason"]}
    assert "torch_npu is not installed" in out["reason"]
    assert "torch-npu==2.13.0" in out["reason"]


def test_torch_npu_failing_to_import(tmp_path):
    out = run_probe(tmp_path, """
        raise RuntimeError("libhccl.so: cannot open shared object file: No such file or directory")
    """)
    assert out["usable"] is False and out["torch_ok"] is True and out["soc"] is None
    assert "torch_npu is installed but failed to import" in out["reason"]
    assert "RuntimeError: libhccl.so" in out["reason"]
    assert "set_env.sh" in out["reason"]


def test_torch_npu_import_error_kind_is_reported(tmp_path):
    out = run_probe(tmp_path, "from . import _C  # no such extension module\n")
    assert "failed to import" in out["reason"] and "ImportError" in out["reason"]


FAKE_WITH_DEVICES = """
    class npu:
        @staticmethod
        def device_count():
            return {count}
        @staticmethod
        def get_device_name(i):
            return "{name}"
"""


def test_no_device(tmp_path):
    out = run_probe(tmp_path, FAKE_WITH_DEVICES.format(count=0, name="Ascend910B2"))
    assert out["usable"] is False and out["soc"] is None
    assert "no NPU device" in out["reason"]


def test_custom_operator_package_missing(tmp_path):
    opp = tmp_path / "opp"
    (opp / "vendors" / "customize").mkdir(parents=True)
    (opp / "vendors" / "config.ini").write_text("load_priority=customize\n")
    out = run_probe(tmp_path, FAKE_WITH_DEVICES.format(count=1, name="Ascend910B2"),
                    {"ASCEND_OPP_PATH": str(opp)})
    assert out["usable"] is False
    assert out["soc"] == "ascend910b"
    assert "custom operator package" in out["reason"] and "not installed" in out["reason"]
    assert str(opp / "vendors" / "customize") in out["reason"]
    assert "build.sh --cann" in out["reason"]


def _install_fake_vendor(opp):
    vendor = opp / "vendors" / "aqo"
    (vendor / "op_api" / "lib").mkdir(parents=True)
    (vendor / "op_api" / "lib" / "libcust_opapi.so").write_bytes(b"")
    (opp / "vendors" / "config.ini").write_text("load_priority=customize,aqo\n")
    return vendor


def test_extension_not_loadable(tmp_path):
    # Everything present but the extension: the fake torch_npu has no headers and no libtorch_npu, so the
    # prebuilt library named by AQO_NPU_EXTENSION (which does not exist) cannot load.
    vendor = _install_fake_vendor(tmp_path / "opp")
    out = run_probe(tmp_path, FAKE_WITH_DEVICES.format(count=2, name="Ascend310P3"),
                    {"ASCEND_OPP_PATH": str(tmp_path / "opp"),
                     "AQO_NPU_EXTENSION": str(tmp_path / "missing_aqo_npu_ops.so")})
    assert out["usable"] is False and out["soc"] == "ascend310p"
    assert "NPU extension could not be built or loaded" in out["reason"]
    assert "missing_aqo_npu_ops.so" in out["reason"]
    assert vendor.is_dir()


def test_find_custom_opp_order(tmp_path, monkeypatch):
    custom = tmp_path / "elsewhere" / "vendors" / "aqo"
    (custom / "op_api" / "lib").mkdir(parents=True)
    (custom / "op_api" / "lib" / "libcust_opapi.so").write_bytes(b"")
    vendor = _install_fake_vendor(tmp_path / "opp")
    monkeypatch.setenv("ASCEND_OPP_PATH", str(tmp_path / "opp"))
    monkeypatch.delenv("ASCEND_CUSTOM_OPP_PATH", raising=False)
    assert npu.find_custom_opp() == (vendor, "")
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", f"{custom}:")
    assert npu.find_custom_opp() == (custom, "")
    monkeypatch.delenv("ASCEND_OPP_PATH")
    monkeypatch.delenv("ASCEND_CUSTOM_OPP_PATH")
    found, reason = npu.find_custom_opp()
    assert found is None and "ASCEND_CUSTOM_OPP_PATH and ASCEND_OPP_PATH unset" in reason


def test_other_vendor_is_not_ours(tmp_path, monkeypatch):
    other = tmp_path / "vendors" / "customize"
    (other / "op_api" / "lib").mkdir(parents=True)
    (other / "op_api" / "lib" / "libcust_opapi.so").write_bytes(b"")
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", str(other))
    monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    assert npu.find_custom_opp()[0] is None
    (other / "op_api" / "include").mkdir()
    (other / "op_api" / "include" / npu.ACLNN_HEADER).write_text("")
    assert npu.find_custom_opp()[0] == other


@pytest.mark.parametrize("name,soc", [
    ("Ascend910B1", "ascend910b"), ("Ascend910B4", "ascend910b"), ("Ascend310P3", "ascend310p"),
    ("Ascend910_9591", "ascend910_95"), ("Ascend950PR_9599", "ascend910_95"),
    ("Ascend910_9391", None), ("Ascend910A", None), ("", None), (None, None),
])
def test_soc_from_device_name(name, soc):
    assert npu.canonical_soc_from_device_name(name) == soc


def test_status_here_says_why():
    usable, reason = npu.status(load=False)
    assert usable == (reason == "")
    if importlib.util.find_spec("torch_npu") is None:  # every machine of this project: no NPU
        assert not usable and reason.startswith("torch_npu is not installed")


def test_op_api_lib_form_of_custom_opp_path(tmp_path, monkeypatch):
    lib = tmp_path / "build" / "op_api" / "lib"
    lib.mkdir(parents=True)
    (lib / "libcust_opapi.so").write_bytes(b"")
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", str(lib))
    monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    assert npu.find_custom_opp()[0] is None  # somebody else's operators
    (lib.parent / "include").mkdir()
    (lib.parent / "include" / npu.ACLNN_HEADER).write_text("")
    assert npu.find_custom_opp() == (lib, "")


def test_autoloaded_torch_npu_breaking_import_torch(tmp_path):
    # docs/references.md#torch-npu: with autoloading on, a torch_npu that cannot import (no CANN) makes `import torch` raise. The
    # package must still compute with numpy and report the first, meaningful error every time it is asked.
    fake = tmp_path / "fake"
    (fake / "torch_npu").mkdir(parents=True)
    (fake / "torch_npu" / "__init__.py").write_text('raise RuntimeError("libhccl.so: cannot open shared object")\n')
    dist = fake / "torch_npu-2.13.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: torch_npu\nVersion: 2.13.0\n")
    (dist / "entry_points.txt").write_text("[torch.backends]\ntorch_npu = torch_npu:_autoload\n")
    probe = textwrap.dedent("""
        import json, numpy as np
        from ascend_quant_ops import npu
        first, second = npu.status(), npu.status()
        import ascend_quant_ops as aqo
        y, scale = aqo.dynamic_quant(np.ones((2, 4), np.float16), backend="cpu")
        print(json.dumps({"first": first, "second": second, "y": y.tolist()}))
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND_")}
    env.update(PYTHONPATH=os.pathsep.join([str(fake), PACKAGE_PARENT]), TORCH_DEVICE_BACKEND_AUTOLOAD="1")
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["first"] == out["second"]
    usable, reason = out["first"]
    assert usable is False
    assert reason.startswith("torch is installed but failed to import") and "RuntimeError" in reason
    assert "torch_npu" in reason and "TORCH_DEVICE_BACKEND_AUTOLOAD=0" in reason
    assert out["y"] == [[127] * 4] * 2


def test_loader_reason_names_the_missing_library(tmp_path):
    # A library whose dependency is gone, as the extension is when CANN's libraries are not on the loader path.
    (tmp_path / "dep.c").write_text("int aqo_dep(void) { return 1; }\n")
    (tmp_path / "ext.c").write_text("int aqo_dep(void);\nint aqo_ext(void) { return aqo_dep(); }\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(tmp_path / "libaqo_gone.so"), str(tmp_path / "dep.c")],
                   check=True)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(tmp_path / "ext.so"), str(tmp_path / "ext.c"),
                    f"-L{tmp_path}", "-laqo_gone"], check=True)
    (tmp_path / "libaqo_gone.so").unlink()
    reason = npu._loader_reason(OSError(f"Could not load this library: {tmp_path / 'ext.so'}"))
    assert "libaqo_gone.so" in reason and "set_env.sh" in reason
    assert npu._loader_reason(RuntimeError("something else")) == ""
