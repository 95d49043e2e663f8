"""`python -m ascend_quant_ops info | demo`: the demo prints the spec results."""
import json
import subprocess
import sys

import numpy as np
import pytest

from ascend_quant_ops import cli, examples as ex


def test_demo_prints_both_spec_results(capsys):
    assert cli.main(["demo", "--backend", "cpu"]) == 0
    out = capsys.readouterr().out
    assert np.array2string(ex.SEED_004_Y, separator=", ") in out
    assert np.array2string(ex.ONNX_2D_UINT8_Y, separator=", ") in out
    assert out.count("y matches the spec: True") == 2


@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p", "ascend910_95"])
def test_demo_on_every_soc_with_the_emulator(capsys, soc):
    # ascend310p needs a tail that is a multiple of 32: the demo pads the example with zeros and still shows it
    assert cli.main(["demo", "--backend", "emulator", "--soc", soc]) == 0
    out = capsys.readouterr().out
    assert np.array2string(ex.SEED_004_Y, separator=", ") in out
    assert np.array2string(ex.ONNX_2D_UINT8_Y, separator=", ") in out
    assert out.count("y matches the spec: True") == 2


def test_info_json(capsys):
    assert cli.main(["info", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["backends"]["cpu"]["usable"] is True
    names = set(info["socs"])
    assert {"ascend910b", "ascend310p", "ascend910_95"} <= names


def test_module_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "ascend_quant_ops", "info"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert "backends:" in out.stdout


def test_cli_reports_constraint_errors_cleanly(capsys):
    assert cli.main(["demo", "--soc", "ascend999"]) == 2
    assert "ascend999" in capsys.readouterr().err


def _declared_console_scripts():
    """[project.scripts] of pyproject.toml (read as text: tomllib needs Python >= 3.11)."""
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    section = text.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    return dict(re.findall(r'^\s*([\w-]+)\s*=\s*"([^"]+)"', section, re.M))


def test_console_script_aqo():
    import importlib
    import importlib.metadata
    import os
    import shutil

    target = _declared_console_scripts()["aqo"]
    module, func = target.split(":")
    assert getattr(importlib.import_module(module), func) is cli.main
    try:
        importlib.metadata.distribution("ascend-quant-ops")
    except importlib.metadata.PackageNotFoundError:
        return  # a developer build that was never pip-installed has no console script; the declaration is checked
    exe = shutil.which("aqo")
    assert exe, "ascend-quant-ops is installed but its console script aqo is not on PATH"
    env = dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    out = subprocess.run([exe, "demo", "--backend", "cpu"], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("y matches the spec: True") == 2


# ---------------------------------------------------------------------------------------- subcommands, exit status
def run_aqo(*args):
    """`aqo ARGS` in a subprocess: (exit status, stdout, stderr)."""
    r = subprocess.run([sys.executable, "-m", "ascend_quant_ops", *args], capture_output=True, text=True, timeout=300)
    assert "Traceback" not in r.stderr + r.stdout, r.stderr[-3000:]
    return r.returncode, r.stdout, r.stderr


def test_help_lists_the_subcommands():
    status, out, _ = run_aqo("--help")
    assert status == 0
    for name in ("info", "demo", "plan", "sweep", "precision"):
        assert name in out
    assert set(cli.SUBCOMMANDS) >= {"info", "demo", "plan", "sweep", "precision"}


@pytest.mark.parametrize("args", [
    ["plan", "--soc", "bogus", "--shape", "4,64"],
    ["plan", "--soc", "ascend910b", "--shape", "abc"],
    ["plan", "--soc", "ascend910b", "--shape", "4x-16"],
    ["plan", "--soc", "ascend910b", "--shape", "4,64", "--dst-type", "garbage"],
    ["plan", "--soc", "ascend910b"],
    ["plan", "--op", "qlinear_matmul", "--soc", "ascend910b", "--a-shape", "2,4"],
    ["sweep", "--count", "0"], ["sweep", "--count", "-5"], ["sweep", "--count", "many"],
    ["sweep", "--overrides", "2.0"], ["sweep", "--overrides", "-1"], ["sweep", "--overrides", "nan"],
    ["sweep", "--soc", "bogus", "--count", "5"],
    ["precision", "--backend", "cpu", "--soc", "bogus"],
    ["precision", "--backend", "cpu", "-k", "no-such-case-id"],
    ["precision", "--backend", "bogus"],
    ["demo", "--soc", "bogus"], ["demo", "--backend", "gpu"],
    ["sweep", "--grid", "--count", "5"],
    ["perf", "--scale", "nonsense=2"], ["perf", "--shape", "64x4096"],
    # beyond what the emulator runs here: overflowing, too much work, too much memory
    ["perf", "--op", "qlinear_matmul", "--shape", "99999999999999x99999999999x9999999999"],
    ["perf", "--op", "qlinear_matmul", "--shape", "8192x8192x8192"],
    ["perf", "--op", "qlinear_matmul", "--shape", "100000x100000x1"],
    ["perf", "--op", "dynamic_quant", "--shape", "1000000x1000"],
    ["no-such-command"],
])
def test_usage_errors_exit_2_without_a_traceback(args):
    status, out, err = run_aqo(*args)
    assert status == 2, (status, out, err)
    assert "error" in err
    assert "usage: aqo" in err and "Traceback" not in err  # argparse's and the subcommands' own: the same form


def test_a_reader_that_goes_away_is_not_an_error():
    # `aqo plan ... | head -1`: the broken pipe ends the command quietly with SIGPIPE's status, not "internal error"
    proc = subprocess.Popen([sys.executable, "-m", "ascend_quant_ops", "plan", "--soc", "ascend910b", "--shape",
                             "4,16", "--core-num", "1000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before the first line is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 141, err
    assert err == ""


def _buffered_env():
    env = dict(__import__("os").environ)
    env.pop("PYTHONUNBUFFERED", None)  # block-buffered stdout: the final flush is where a broken pipe shows
    return env


def test_a_failed_command_keeps_its_status_when_its_reader_goes_away():
    proc = subprocess.Popen([sys.executable, "-m", "ascend_quant_ops", "sweep", "--grid", "--count", "3"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_buffered_env())
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 2, err
    assert "error: --count" in err and "Traceback" not in err and "Exception ignored" not in err


def test_a_closed_stderr_does_not_stop_a_sweep(tmp_path):
    # the progress bar is cosmetic: its reader gone, the sweep still writes its summary and succeeds
    out = tmp_path / "out.txt"
    with open(out, "w") as f:
        proc = subprocess.Popen([sys.executable, "-m", "ascend_quant_ops", "sweep", "--op", "dynamic_quant", "--soc",
                                 "ascend910b", "--count", "50"], stdout=f, stderr=subprocess.PIPE, env=_buffered_env())
        proc.stderr.close()
        assert proc.wait(timeout=300) == 0
    assert "50 cases, 0 failed" in out.read_text()


def test_plan_help_describes_the_asymmetric_modes():
    status, out, _ = run_aqo("plan", "--help")
    assert status == 0
    assert "not implemented" not in out and "uint8" in out


def test_bench_tiling_refuses_an_unknown_argument():
    script = __import__("pathlib").Path(__file__).resolve().parents[2] / "scripts" / "bench_tiling.sh"
    out = subprocess.run(["bash", str(script), "--bogus"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "unknown argument '--bogus'" in out.stderr


def test_demo_refuses_before_printing_its_inputs(capsys):
    assert cli.main(["demo", "--soc", "ascend910b\x00junk"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "soc" in captured.err


def test_precision_checks_its_output_directory_first(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    from ascend_quant_ops import precision

    ran = []
    monkeypatch.setattr(precision, "run_suite", lambda *a, **k: ran.append(1))
    assert cli.main(["precision", "--backend", "cpu", "-k", "special", "--out", str(blocker / "sub")]) == 2
    assert not ran, "the suite ran before --out was found unwritable"


def test_plan_json_and_refusal_exit_1():
    status, out, _ = run_aqo("plan", "--soc", "ascend310p", "--shape", "64,4001", "--json")
    assert status == 1 and json.loads(out)["violation"]["soc"] == "ascend310p"
    status, out, _ = run_aqo("plan", "--soc", "ascend910b", "--shape", "64,4096", "--json")
    assert status == 0 and json.loads(out)["ok"] is True


def test_plan_of_a_quant_matmul():
    # the plan of each layout the operator takes; a refusal names the SoC's limit (310p writes float32 only)
    status, out, _ = run_aqo("plan", "--op", "quant_matmul", "--soc", "ascend310p", "--a-shape", "2,16,512",
                             "--b-shape", "512,256", "--b-trans", "--a-scale", "row", "--b-scale", "column",
                             "--a-zero-point", "row", "--b-zero-point", "column", "--bias", "column")
    assert status == 0, out
    first = out.splitlines()[0]
    assert first.startswith("quant_matmul plan on ascend310p: a [2, 16, 512] int8 x b [512, 256] int8, stored "
                            "transposed as [256, 512] -> float32")
    for part in ("a_scale row", "b_scale column", "a_zero_point row", "b_zero_point column", "bias column"):
        assert part in first, (part, first)
    status, out, _ = run_aqo("plan", "--op", "quant_matmul", "--soc", "ascend910b", "--a-shape", "16,64",
                             "--b-shape", "64,32", "--out-dtype", "bfloat16", "--json")
    d = json.loads(out)
    assert status == 0 and d["ok"] is True and d["request"]["out_dtype"] == "bfloat16"
    status, out, _ = run_aqo("plan", "--op", "quant_matmul", "--soc", "ascend310p", "--a-shape", "16,64",
                             "--b-shape", "64,32", "--out-dtype", "float16", "--json")
    v = json.loads(out)["violation"]
    assert status == 1 and (v["soc"], v["argument"]) == ("ascend310p", "out_dtype")
    for args in (["--a-shape", "16,64"], ["--a-shape", "16,64", "--b-shape", "64,32", "--out-dtype", "garbage"]):
        status, _, err = run_aqo("plan", "--op", "quant_matmul", "--soc", "ascend910b", *args)
        assert status == 2 and "usage: aqo" in err and "Traceback" not in err, err


@pytest.mark.parametrize("op, args, message", [
    ("quant_matmul", ["--a-param", "row"], "--a-param is an option of qlinear_matmul, not of quant_matmul; "
                                           "quant_matmul takes --a-scale row and --a-zero-point row"),
    ("quant_matmul", ["--y-dtype", "uint8"], "quant_matmul takes --out-dtype"),
    ("qlinear_matmul", ["--out-dtype", "float16"], "qlinear_matmul takes --y-dtype"),
    ("qlinear_matmul", ["--bias", "column"], "--bias is an option of quant_matmul, not of qlinear_matmul"),
    ("dynamic_quant", ["--b-trans"], "--b-trans is an option of qlinear_matmul and quant_matmul"),
    ("quant_matmul", ["--smooth"], "--smooth is an option of dynamic_quant"),
])
def test_plan_refuses_an_option_of_another_operator(op, args, message):
    # never dropped without a word: --a-param row on a quant_matmul would otherwise plan per-tensor scales
    shapes = ["--shape", "4,64"] if op == "dynamic_quant" else ["--a-shape", "16,64", "--b-shape", "64,32"]
    status, _, err = run_aqo("plan", "--op", op, "--soc", "ascend910b", *shapes, *args)
    assert status == 2 and message in err and "Traceback" not in err, err


def test_plan_with_per_batch_parameter_vectors():
    # the per-row / per-column vectors of a batched launch, one per batch matrix ([..., M], [..., N]): the tiling's
    # batch strides say so, and so does the plan's first line
    status, out, _ = run_aqo("plan", "--op", "qlinear_matmul", "--soc", "ascend910b", "--a-shape", "3,16,64",
                             "--b-shape", "64,32", "--a-param", "row", "--a-param-batched", "--json")
    d = json.loads(out)
    assert status == 0 and d["tiling"]["aParamBatchStride"] == 16 and d["request"]["a_param_batched"] is True
    status, out, _ = run_aqo("plan", "--op", "quant_matmul", "--soc", "ascend910b", "--a-shape", "3,16,64",
                             "--b-shape", "3,64,32", "--b-scale", "column", "--b-param-batched", "--bias", "column",
                             "--bias-batched")
    first = out.splitlines()[0]
    assert status == 0 and "b's vectors per batch matrix" in first and "a bias per batch matrix" in first, out
    status, _, err = run_aqo("plan", "--op", "qlinear_matmul", "--soc", "ascend910b", "--a-shape", "16,64",
                             "--b-shape", "64,32", "--bias-batched")
    assert status == 2 and "--bias-batched is an option of quant_matmul" in err


def test_plan_refusals_speak_the_command_lines_words():
    # the API's "pass core_num=None" becomes "omit --core-num"; a shape no tensor can have names the SoC asked about
    status, out, _ = run_aqo("plan", "--soc", "ascend910b", "--shape", "16,64", "--core-num", "0")
    assert status == 1 and "omit --core-num" in out and "core_num=None" not in out, out
    status, out, _ = run_aqo("plan", "--op", "quant_matmul", "--soc", "ascend310p", "--a-shape",
                             "9223372036854775808,64", "--b-shape", "64,32", "--json")
    v = json.loads(out)["violation"]
    assert status == 1 and v["soc"] == "ascend310p" and "check the shape" in v["suggestion"]


def test_plan_of_a_qlinear_matmul_with_b_stored_transposed():
    status, out, _ = run_aqo("plan", "--op", "qlinear_matmul", "--soc", "ascend910b", "--a-shape", "16,64",
                             "--b-shape", "64,32", "--b-trans", "--json")
    d = json.loads(out)
    assert status == 0 and d["tiling"]["bTrans"] == 1 and d["request"]["b_trans"] is True


def test_perf_shape_a_soc_refuses_is_reported_and_the_others_run():
    # 310p refuses a tail of 1 (no DataCopyPad): its refusal is listed (exit 1, as plan's refusals) and the other
    # SoCs' launches still run
    status, out, err = run_aqo("perf", "--op", "dynamic_quant", "--shape", "1x1", "--no-sensitivity", "--json")
    d = json.loads(out)
    assert status == 1 and d["ok"] is False, err
    assert {l["soc"] for l in d["launches"]} == {"ascend910b", "ascend910_95"}
    (r,) = d["refused"]
    assert r["soc"] == "ascend310p" and r["case"] == "1x1" and "multiple of 32" in r["error"]


def test_perf_shape_bounds():
    from ascend_quant_ops.perf import cli as perf_cli
    from ascend_quant_ops.perf import report, traffic

    check = perf_cli.check_shape_size
    # every case of the report's own lists passes
    for cases in list(report.DQ_TARGET_CASES.values()) + list(traffic.DQ_DEFAULT_CASES.values()):
        for shape, _, _ in cases:
            assert check("dynamic_quant", shape) == "", shape
    for cases in list(report.QMM_TARGET_CASES.values()) + list(traffic.QMM_DEFAULT_CASES.values()):
        for case in cases:
            m, k, n = case[0][-2], case[0][-1], case[1][-1]
            assert check("qlinear_matmul", (m, k, n)) == "", case
    # exactly at each bound, and one past it
    assert check("qlinear_matmul", (2048, 8192, 8192)) == ""  # 2^37 multiply-accumulates
    msg = check("qlinear_matmul", (2049, 8192, 8192))
    assert "2^37 = 137438953472" in msg and "e.g. 2048x8192x8192" in msg
    assert check("qlinear_matmul", (1, 46339, 46339)) == ""  # a, b and y just under 2 GiB
    msg = check("qlinear_matmul", (1, 65535, 65535))
    assert "more than 2 GiB" in msg and "smaller K or N" in msg
    assert check("dynamic_quant", (1 << 14, 1 << 14)) == ""
    msg = check("dynamic_quant", ((1 << 14) + 1, 1 << 14))
    assert "2^28 = 268435456" in msg and "fewer rows" in msg
    assert check("dynamic_quant", (2, 3, 1 << 27)) != "" and check("dynamic_quant", (2, 3, 4, 5)) == ""


def test_sweep_json_and_exit_status(capsys):
    assert cli.main(["sweep", "--op", "dynamic_quant", "--soc", "ascend310p", "--count", "30", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["cases"] == 30 and report["failed"] == 0 and report["summary"]


def test_sweep_progress_bar_on_stderr(capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)  # the bar is drawn on a terminal only
    assert cli.main(["sweep", "--op", "qlinear_matmul", "--soc", "ascend910b", "--count", "20"]) == 0
    captured = capsys.readouterr()
    assert "[" in captured.err and "20/20" in captured.err and "cases, 0 failed" in captured.out


def test_precision_json(tmp_path, capsys):
    status = cli.main(["precision", "--backend", "cpu", "--soc", "ascend910b", "-k", "special", "--out",
                       str(tmp_path), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0 and report["summary"]["total"] >= 1 and report["summary"]["pass"] == report["summary"]["total"]
    assert (tmp_path / "precision_cpu.html").is_file()


def test_internal_errors_are_one_line(monkeypatch, capsys):
    monkeypatch.delenv("AQO_TRACEBACK", raising=False)
    monkeypatch.setitem(cli.SUBCOMMANDS, "info", (cli._Local(cli._add_info, lambda args: 1 / 0), "info"))
    assert cli.main(["info"]) == 1
    err = capsys.readouterr().err
    assert "internal error: ZeroDivisionError" in err and "Traceback" not in err


def test_scripts_keep_only_what_a_package_user_never_runs():
    import pathlib

    scripts = pathlib.Path(__file__).resolve().parents[2] / "scripts"
    for gone in ("tiling_check.py", "tiling_sweep.py", "precision_test.py"):
        assert not (scripts / gone).exists(), f"scripts/{gone} is `aqo` now"
