"""The OpDef in op_host/<kernel>.cpp, read as text, against the op description cmake/cann/ops.json: the package is
generated from the description, so the two must name the same inputs, outputs and attributes, and the OpDef must
point CANN at our kernel file and function."""
from __future__ import annotations

import json
import re

import cann_project as cp
import pytest


@pytest.fixture(scope="module")
def desc():
    return cp.load_description()

def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def default_op_file(op_type: str) -> str:
    """The file / kernel-function name CANN derives from an OpType when the OpDef does not set opFile.value /
    opInterface.value: msopgen's lower_with_under ("AbcDef" -> abc_def, "ABCDef" -> abc_def,
    "AqoQLinearMatMul" -> aqo_q_linear_mat_mul)."""
    out = ""
    for i, c in enumerate(op_type):
        if i > 0 and c.isupper():
            prev_lower = op_type[i - 1].islower() or op_type[i - 1].isdigit()
            next_lower = i + 1 < len(op_type) and op_type[i + 1].islower()
            if prev_lower or (op_type[i - 1].isupper() and next_lower):
                out += "_"
        out += c.lower()
    return out


def test_default_op_file_rule():
    assert default_op_file("AqoDynamicQuant") == "aqo_dynamic_quant"
    assert default_op_file("AqoQLinearMatMul") == "aqo_q_linear_mat_mul"
    assert default_op_file("ABCDef") == "abc_def"
    assert default_op_file("LSTMBlockCellGrad") == "lstm_block_cell_grad"


def _chain(text: str, start: int) -> str:
    """The member-call chain that starts at text[start] (up to the first `,` `)` or `;` at depth 0)."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c in "({[":
            depth += 1
        elif c in ")}]":
            if depth == 0:
                break
            depth -= 1
        elif c in ",;" and depth == 0:
            break
        i += 1
    return text[start:i]


def _enclosing_call(text: str, pos: int) -> tuple[str, int] | None:
    """(function name, argument index) when text[pos] is an argument of a call `F(..., <here>, ...)`."""
    depth, index, i = 0, 0, pos - 1
    while i >= 0:
        c = text[i]
        if c in ")}]":
            depth += 1
        elif c in "({[":
            if depth == 0:
                if c != "(":
                    return None
                m = re.search(r"(\w+)\s*$", text[:i])
                return (m.group(1), index) if m else None
            depth -= 1
        elif c == "," and depth == 0:
            index += 1
        elif c == ";" and depth == 0:
            return None
        i -= 1
    return None


def _param_type_through_helper(text: str, func: str, index: int) -> str | None:
    """ParamType(X) applied to parameter `index` of `func(OpParamDef& a, OpParamDef& b, ...)` in its body."""
    m = re.search(rf"\b{func}\s*\(([^)]*)\)\s*(const\s*)?\{{", text)
    if not m:
        return None
    params = [p.strip() for p in m.group(1).split(",")]
    if index >= len(params):
        return None
    name = re.search(r"(\w+)\s*$", params[index]).group(1)
    body = text[m.end():]
    found = re.search(rf"\b{name}\s*\.\s*ParamType\s*\(\s*(\w+)\s*\)", body)
    return found.group(1) if found else None


def parse_opdef(text: str, op_type: str) -> dict:
    """Inputs / outputs / attrs of the OpDef class `op_type`, in declaration order. Every `<recv>.Input("n")` /
    `<recv>->Input("n")` (and Output, Attr) after the class head counts, whatever the receiver (`this`, a helper's
    OpDef& or OpAICoreConfig& parameter): the parameter kind comes from the chain after it or, when the OpParamDef
    is handed to a helper, from that helper; every declaration of one name must agree."""
    text = strip_comments(text)
    m = re.search(rf"class\s+{op_type}\s*:\s*public\s+OpDef\b", text)
    assert m, f"no `class {op_type} : public OpDef`"
    assert re.search(rf"OP_ADD\s*\(\s*{op_type}\s*\)", text), f"no OP_ADD({op_type})"
    found_by_name: dict[tuple[str, str], dict] = {}
    order: list[tuple[str, str]] = []
    pattern = r"\b\w+\s*(?:\.|->)\s*(Input|Output|Attr)\s*\(\s*\"(\w+)\"\s*\)"
    for found in re.finditer(pattern, text[m.end():]):
        kind, name = found.group(1), found.group(2)
        pos = m.end() + found.start()
        chain = _chain(text, m.end() + found.end())
        if kind == "Attr":
            param = re.search(r"\.AttrType\s*\(\s*(\w+)\s*\)", chain)
            value = re.search(r"\.(Int|Float|Bool|String|ListInt|ListFloat)\s*\((.*)\)\s*$", chain.strip())
            assert value, f"attr {name}: no value type in `{chain.strip()}`"
            entry = {"name": name, "param_type": (param.group(1) if param else "REQUIRED").lower(),
                     "type": value.group(1).lower(), "default": value.group(2).strip()}
        else:
            param = re.search(r"\.ParamType\s*\(\s*(\w+)\s*\)", chain)
            param_type = param.group(1) if param else None
            if param_type is None:
                call = _enclosing_call(text, pos)
                if call:
                    param_type = _param_type_through_helper(text, *call)
            assert param_type, f"{kind} {name}: no ParamType found (neither chained nor in a helper)"
            entry = {"name": name, "param_type": param_type.lower()}
        key = (kind, name)
        if key in found_by_name:
            assert found_by_name[key] == entry, f"{kind} {name} is declared two ways: {found_by_name[key]}, {entry}"
        else:
            found_by_name[key] = entry
            order.append(key)
    groups = {"Input": "inputs", "Output": "outputs", "Attr": "attrs"}
    out = {"inputs": [], "outputs": [], "attrs": []}
    for key in order:
        out[groups[key[0]]].append(found_by_name[key])
    return out


def evaluate_default(text: str):
    """An attribute default as the OpDef spells it: a number, or a ge::DT_* enumerator (CANN's values)."""
    ge = {"ge::DT_INT8": 2, "DT_INT8": 2, "ge::DT_HIFLOAT8": 34, "ge::DT_FLOAT8_E5M2": 35,
          "ge::DT_FLOAT8_E4M3FN": 36}
    text = re.sub(r"^static_cast<\w+>\((.*)\)$", r"\1", text.strip())
    if text in ge:
        return ge[text]
    try:
        return json.loads(text.lower())
    except ValueError:
        return text


@pytest.mark.parametrize("index", [0, 1])
def test_opdef_matches_the_description(desc, repo, index):
    op = desc["ops"][index]
    source = repo / "op_host" / f"{op['kernel']}.cpp"
    assert source.is_file(), f"{source.relative_to(repo)} (the OpDef of {op['op_type']}) does not exist"
    assert_opdef_matches(op, desc["compute_units"], source.read_text(encoding="utf-8"))


def assert_opdef_matches(op: dict, compute_units: list[str], text: str) -> None:
    opdef = parse_opdef(text, op["op_type"])
    assert opdef["inputs"] == [{"name": t["name"], "param_type": t["param_type"]} for t in op["inputs"]]
    assert opdef["outputs"] == [{"name": t["name"], "param_type": t["param_type"]} for t in op["outputs"]]
    assert [(a["name"], a["param_type"], a["type"]) for a in opdef["attrs"]] == \
        [(a["name"], a["param_type"], a["type"]) for a in op["attrs"]]
    for got, want in zip(opdef["attrs"], op["attrs"]):
        assert evaluate_default(got["default"]) == want["default_value"], got
    code = strip_comments(text)
    literal = [u for u in compute_units if re.search(rf"AddConfig\s*\(\s*\"{u}\"", code)]
    if literal != compute_units:
        # Otherwise: one AddConfig per entry of the SoC table (whose SoCs are the compute units, see
        # test_build_op_description.py), named by the entry.
        assert "SocTable(" in code and re.search(r"AddConfig\s*\(\s*[\w\[\]\.]*\.name\s*,", code), \
            f"{op['op_type']}: AddConfig for {compute_units} neither literal nor over the SoC table"


@pytest.mark.parametrize("mutate", [
    lambda op: op["inputs"][1].update(                          # the kind of smooth_scales / a_scale
        param_type="optional" if op["inputs"][1]["param_type"] == "required" else "required"),
    lambda op: op["inputs"].reverse(),                           # order
    lambda op: op["outputs"].append({"name": "extra", "param_type": "required", "dtype": {"fixed": "float32"}}),
    lambda op: op["attrs"].append({"name": "mode", "param_type": "optional", "type": "int", "default_value": 0}),
])
@pytest.mark.parametrize("index", [0, 1])
def test_a_description_that_drifted_from_the_opdef_is_caught(desc, repo, index, mutate):
    op = json.loads(json.dumps(desc["ops"][index]))
    mutate(op)
    text = (repo / "op_host" / f"{op['kernel']}.cpp").read_text(encoding="utf-8")
    with pytest.raises(AssertionError):
        assert_opdef_matches(op, desc["compute_units"], text)


@pytest.mark.parametrize("index", [0, 1])
def test_kernel_file_and_function_are_the_ones_cann_will_look_for(desc, repo, index):
    """CANN compiles op_kernel/<opFile>.cpp and calls the kernel function <opInterface>; both default to the
    OpType in lower_with_under. Where our kernel name differs, the OpDef must set both explicitly."""
    op = desc["ops"][index]
    kernel = repo / "op_kernel" / f"{op['kernel']}.cpp"
    assert kernel.is_file()
    assert re.search(rf"__global__\s+__aicore__\s+void\s+{op['kernel']}\s*\(", kernel.read_text(encoding="utf-8")), \
        f"{kernel.name} defines no `__global__ __aicore__ void {op['kernel']}(`"
    source = repo / "op_host" / f"{op['kernel']}.cpp"
    assert source.is_file(), f"{source.relative_to(repo)} does not exist"
    code = strip_comments(source.read_text(encoding="utf-8"))
    for key in ("opFile.value", "opInterface.value"):
        set_to = re.findall(rf"ExtendCfgInfo\s*\(\s*\"{re.escape(key)}\"\s*,\s*\"(\w+)\"\s*\)", code)
        if default_op_file(op["op_type"]) != op["kernel"]:
            assert set_to, (f"{source.name}: CANN would look for {default_op_file(op['op_type'])}; the OpDef must "
                            f"set ExtendCfgInfo(\"{key}\", \"{op['kernel']}\") on every AICore config")
        assert all(v == op["kernel"] for v in set_to), (key, set_to)


# The reader itself, on the two ways an OpDef is written: chained calls, and OpParamDefs handed to a helper.
CHAINED = """
namespace ops {
class MyOp : public OpDef {
public:
    explicit MyOp(const char* name) : OpDef(name)
    {
        this->Input("a").ParamType(REQUIRED).DataType({ge::DT_INT8});  // a comment with this->Input("z")
        this->Input("b").ParamType(OPTIONAL).DataType({ge::DT_INT8, ge::DT_UINT8});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_INT8});
        this->Attr("mode").AttrType(OPTIONAL).Int(static_cast<int64_t>(ge::DT_INT8));
        this->Attr("flag").Bool();
    }
};
OP_ADD(MyOp);
}
"""

HELPER = """
class MyOp : public OpDef {
public:
    explicit MyOp(const char* name) : OpDef(name)
    {
        Define(this->Input("a"), this->Input("b"), this->Output("y"), lists);
    }
private:
    static void Define(OpParamDef& first, OpParamDef& second, OpParamDef& out, const L& l)
    {
        first.ParamType(REQUIRED).DataType(l.a);
        second.ParamType(OPTIONAL).DataType(l.a);
        out.ParamType(REQUIRED).DataType(l.y);
    }
};
OP_ADD(MyOp);
"""


TEMPLATE_HELPER = """
class MyOp : public OpDef {
public:
    explicit MyOp(const char* name) : OpDef(name)
    {
        Params(*this, all);
        OpAICoreConfig cfg;
        Params(cfg, one);
    }
private:
    template <class D>
    static void Params(D& d, const L& l)
    {
        d.Input("a").ParamType(REQUIRED).DataType(l.a);
        d.Input("b").ParamType(OPTIONAL).DataType(l.a);
        d.Output("y").ParamType(REQUIRED).DataType(l.y);
    }
};
OP_ADD(MyOp);
"""


@pytest.mark.parametrize("text", [CHAINED, HELPER, TEMPLATE_HELPER])
def test_reader_finds_names_and_parameter_kinds(text):
    got = parse_opdef(text, "MyOp")
    assert got["inputs"] == [{"name": "a", "param_type": "required"}, {"name": "b", "param_type": "optional"}]
    assert got["outputs"] == [{"name": "y", "param_type": "required"}]


def test_reader_finds_attributes_with_defaults():
    attrs = parse_opdef(CHAINED, "MyOp")["attrs"]
    assert [(a["name"], a["param_type"], a["type"]) for a in attrs] == [("mode", "optional", "int"),
                                                                       ("flag", "required", "bool")]
    assert evaluate_default(attrs[0]["default"]) == 2


def test_reader_refuses_conflicting_declarations():
    conflicting = CHAINED.replace("    }\n};", "        OpAICoreConfig c;\n        c.Input(\"b\").ParamType(REQUIRED);\n    }\n};")
    with pytest.raises(AssertionError, match="declared two ways"):
        parse_opdef(conflicting, "MyOp")


def test_reader_refuses_a_tensor_without_parameter_kind():
    with pytest.raises(AssertionError, match="no ParamType"):
        parse_opdef(HELPER.replace("second.ParamType(OPTIONAL).", "second."), "MyOp")


def test_package_project_gets_every_real_device_source(repo, native, tmp_path, monkeypatch):
    """The real source tree through package mode with the fake toolkit of fake_toolkit.py: every op_host and
    op_kernel source of this repository lands in the generated project unchanged, and nothing of the emulator."""
    from fake_toolkit import make_fake_toolkit, read_log

    monkeypatch.setenv("FAKE_CANN_LOG", str(tmp_path / "log"))
    toolkit = make_fake_toolkit(tmp_path / "cann")
    cp.package(toolkit, native, tmp_path / "out", tmp_path / "dist", repo=repo)
    project = tmp_path / "out" / "project"
    expected = sorted([*(repo / "op_host").glob("*.cpp"), *(repo / "op_host").glob("*.h"),
                       *(repo / "op_host" / "tiling_core").glob("*.cpp"),
                       *(repo / "op_host" / "tiling_core").glob("*.h"),
                       *(repo / "op_kernel").glob("*.cpp"), *(repo / "op_kernel").glob("*.h")])
    for src in expected:
        rel = src.relative_to(repo)
        assert (project / rel).read_bytes() == src.read_bytes(), rel
    copied = sorted(p.relative_to(project) for p in [*(project / "op_host").rglob("*"),
                                                     *(project / "op_kernel").rglob("*")]
                    if p.is_file() and p.name != "CMakeLists.txt")
    assert copied == sorted(p.relative_to(repo) for p in expected)
    assert [c["tool"] for c in read_log(tmp_path / "log")] == ["msopgen", "msopgen", "msopgen", "build.sh"]


def test_toolkit_float8_cube_rule_agrees_with_the_opdef(desc, repo):
    """The OpDef leaves out float8 a / b exactly while kToolkitMatmulTilingHasFloat8 is false (the reason is written
    next to it); the description's rule toolkit_no_float8_cube must then be there, so that the msopgen skeleton
    and the OpDef list the same columns, and must go when the constant turns true."""
    op = next(o for o in desc["ops"] if o["op_type"] == "AqoQLinearMatMul")
    code = strip_comments((repo / "op_host" / f"{op['kernel']}.cpp").read_text(encoding="utf-8"))
    m = re.search(r"\bconst\s+bool\s+kToolkitMatmulTilingHasFloat8\s*=\s*(true|false)\s*;", code)
    assert m, "op_host/aqo_qlinear_matmul.cpp defines no kToolkitMatmulTilingHasFloat8"
    # The OpDef's combination filter and the TilingFunc both consult it.
    assert len(re.findall(r"!\s*kToolkitMatmulTilingHasFloat8\b", code)) >= 2
    rules = [r for r in op["rules"] if r["kind"] == "toolkit_no_float8_cube"]
    if m.group(1) == "false":
        assert [r["between"] for r in rules] == [["a", "b"]]
        assert rules[0]["see"] == f"op_host/{op['kernel']}.cpp"
    else:
        assert not rules


def _function_body(code: str, name: str) -> str:
    """The body of the function `name` (the text between its opening brace and the matching closing one)."""
    m = re.search(rf"\b{name}\s*\([^)]*\)\s*\{{", code)
    assert m, f"no function {name}"
    depth, i = 1, m.end()
    while depth:
        depth += {"{": 1, "}": -1}.get(code[i], 0)
        i += 1
    return code[m.end():i - 1]


@pytest.mark.parametrize("op_type", ["AqoQLinearMatMul", "AqoQuantMatMul"])
def test_b_trans_is_an_attribute_read_by_infer_shape_and_tiling(desc, repo, op_type):
    """Both matmul operators take b as its [..., N, K] storage with b_trans: the description and the OpDef declare
    the attribute (bool, false by default), and InferShape and the TilingFunc read it at its position among the
    attributes (the runtime attrs are indexed by declaration order) and swap b's last two dims to the product's
    [..., K, N] view."""
    op = next(o for o in desc["ops"] if o["op_type"] == op_type)
    names = [a["name"] for a in op["attrs"]]
    assert "b_trans" in names
    attr = op["attrs"][names.index("b_trans")]
    assert (attr["param_type"], attr["type"], attr["default_value"]) == ("optional", "bool", False)
    code = strip_comments((repo / "op_host" / f"{op['kernel']}.cpp").read_text(encoding="utf-8"))
    opdef = parse_opdef(code, op_type)
    assert [a["name"] for a in opdef["attrs"]] == names
    for func in (f"{op_type}InferShape", f"{op_type}TilingFunc"):
        body = _function_body(code, func)
        reads = re.findall(r"GetAttrPointer<bool>\((\d+)\)", body)
        assert reads == [str(names.index("b_trans"))], (func, reads)
        assert re.search(r"std::swap\(\s*([\w.]+)\[\s*\1\.size\(\)\s*-\s*2\s*\]\s*,\s*\1\[\s*\1\.size\(\)\s*-\s*1\s*\]",
                         body), f"{func} does not swap b's last two dims"


def test_qlinear_matmul_plan_of_a_transposed_b_storage(native):
    """What AqoQLinearMatMul's TilingFunc hands the tiling core for b stored [B, N, K] with b_trans: the product's
    view [B, K, N]; the plan then computes y = a @ storage^T of numpy.matmul's shape [B, M, N], with bTrans set.
    A float8 b with b_trans is refused by the plan (the kernel reads float8 b as [K, N] only)."""
    import numpy as np
    from ascend_quant_ops import errors, tiling

    a_shape, storage = (3, 5, 40), (3, 24, 40)  # a [B, M, K], b's storage [B, N, K]
    want = np.matmul(np.zeros(a_shape), np.swapaxes(np.zeros(storage), -1, -2)).shape
    view = storage[:-2] + (storage[-1], storage[-2])
    p = tiling.plan_qlinear_matmul(a_shape, view, soc="ascend910b", b_param="column", b_trans=True)
    assert (p.tiling["batch"], p.tiling["m"], p.tiling["n"], p.tiling["k"]) == (3, 5, 24, 40) and want == (3, 5, 24)
    assert p.tiling["bTrans"] == 1
    with pytest.raises(errors.ConstraintError):
        tiling.plan_qlinear_matmul((4, 16), (16, 8), soc="ascend910_95", a_dtype="float8_e4m3fn",
                                   b_dtype="float8_e4m3fn", y_dtype="float8_e4m3fn", b_trans=True)


def _kernel_sources(repo, kernel: str) -> str:
    """The kernel file and every project header it includes (transitively), comments stripped."""
    seen, todo, text = set(), [f"{kernel}.cpp"], []
    while todo:
        name = todo.pop()
        path = repo / "op_kernel" / name
        if name in seen or not path.exists():
            continue
        seen.add(name)
        code = strip_comments(path.read_text(encoding="utf-8"))
        text.append(code)
        todo += re.findall(r'#include\s+"([\w.]+)"', code)
    return "\n".join(text)


def test_a_kernel_that_synchronises_its_cores_is_launched_in_batch_mode(desc, repo):
    """A SyncAll waits for every core of the launch, which the framework starts together only in the batch schedule
    mode: the TilingFunc of every operator whose kernel calls SyncAll hands SaveTiling a schedule mode (the matmul
    operators: the cube stage's, batch where the prepared operands are shared), the others the default (normal). The
    emulator's runners set the same mode, and a SyncAll in a normal-mode launch fails there."""
    synchronising = []
    for op in desc["ops"]:
        kernel_code = _kernel_sources(repo, op["kernel"])
        host = strip_comments((repo / "op_host" / f"{op['kernel']}.cpp").read_text(encoding="utf-8"))
        body = _function_body(host, f"{op['op_type']}TilingFunc")
        save = re.search(r"SaveTiling\((.*?)\);", body, re.S)
        assert save, op["op_type"]
        args = [a.strip() for a in save.group(1).split(",")]
        if re.search(r"\bSyncAll\s*[<(]", kernel_code):
            synchronising.append(op["op_type"])
            assert len(args) == 5 and "ScheduleMode" in args[4], (op["op_type"], args)
        else:
            assert len(args) == 4, (op["op_type"], args)
    assert sorted(synchronising) == ["AqoQLinearMatMul", "AqoQuantMatMul"]


def test_the_emulator_checks_the_block_dim_the_host_sets(desc, repo):
    """The device starts the cores the TilingFunc's blockDim names under the kernel type of the launch's key (a 1:2 mix
    kernel's counts cube cores, a vector kernel's vector cores). The emulator's runners pass the launch that blockDim
    (Launcher::SetDeviceBlockDim), computed by the same call as the TilingFunc's, and the emulator fails a launch whose
    blockDim does not start exactly its planned vector blocks; so the two calls must be the same."""
    for op in desc["ops"]:
        host = strip_comments((repo / "op_host" / f"{op['kernel']}.cpp").read_text(encoding="utf-8"))
        body = _function_body(host, f"{op['op_type']}TilingFunc")
        save = re.search(r"SaveTiling\((.*?)\);", body, re.S)
        assert save, op["op_type"]
        arg = [a.strip() for a in save.group(1).split(",")][2]
        named = re.search(rf"\b{re.escape(arg)}\s*=\s*(.*?);", body, re.S)
        host_expr = " ".join((named.group(1) if named else arg).split())
        runner_name = "emulate_" + op["kernel"][len("aqo_"):] + ".cpp"
        runner = strip_comments((repo / "python" / "csrc" / runner_name).read_text(encoding="utf-8"))
        passed = re.findall(r"SetDeviceBlockDim\((.*?)\);", runner, re.S)
        assert [" ".join(p.split()) for p in passed] == [host_expr], (op["op_type"], host_expr, passed)


def test_quant_matmul_classifies_every_parameter_shape(repo):
    """The CANN operator's TilingFunc sees its parameters' shapes only: every one goes through the tiling core's
    ClassifyMatMulParam (tests/tiling/test_quant_matmul_param_shapes.py), a scale and its zero point each to its
    own batch flag, so no shape the kernel would read past its end or as another layout reaches the plan."""
    host = strip_comments((repo / "op_host" / "aqo_quant_matmul.cpp").read_text(encoding="utf-8"))
    assert "aqo::ClassifyMatMulParam(" in _function_body(host, "Layout")
    body = _function_body(host, "AqoQuantMatMulTilingFunc")
    # Layout(shape, name, row, length, batch, soc, &kind, &batched) for each input: a's per row of M with a's batch
    # dims, b's per column of N with b's, the bias per column of N with y's
    calls = re.findall(r"Layout\(context->Get(?:Required|Optional)InputShape\((\w+)\),\s*\"(\w+)\",\s*(true|false),"
                       r"\s*(\w+),\s*(\w+),\s*soc_short,\s*&([\w.]+),\s*&([\w.]+)\)", body)
    assert sorted(calls) == sorted([
        ("kAScale", "a_scale", "true", "m", "a_batch", "as_kind", "req.a_param_batched"),
        ("kBScale", "b_scale", "false", "n", "b_batch", "bs_kind", "req.b_param_batched"),
        ("kAZeroPoint", "a_zero_point", "true", "m", "a_batch", "req.a_zp", "req.a_zp_batched"),
        ("kBZeroPoint", "b_zero_point", "false", "n", "b_batch", "req.b_zp", "req.b_zp_batched"),
        ("kBias", "bias", "false", "n", "y_batch", "req.bias", "req.bias_batched"),
    ]), calls


def test_qlinear_matmul_classifies_every_scale_and_zero_point(repo):
    """AqoQLinearMatMul's TilingFunc gives a's and b's scales and zero points to ParamLayout, which classifies each
    with the tiling core's ClassifyMatMulParam under QLinearMatMul's rules (tests/tiling/
    test_qlinear_matmul_param_shapes.py holds them to the golden's) and refuses a zero point of another layout than
    its scale's, so no shape the kernel would read past its end or as another layout reaches the plan."""
    host = strip_comments((repo / "op_host" / "aqo_qlinear_matmul.cpp").read_text(encoding="utf-8"))
    helper = " ".join(_function_body(host, "ParamLayout").split())
    assert helper.count("aqo::ClassifyMatMulParam(") == 2, helper
    assert helper.count("aqo::OpKind::QLINEAR_MATMUL, false)") == 2, helper
    assert re.search(r"z\.kind != layout->kind \|\| z\.batched != layout->batched", helper), helper
    body = " ".join(_function_body(host, "AqoQLinearMatMulTilingFunc").split())
    calls = re.findall(r"ParamLayout\(\"(\w+)\", \"(\w+)\", Dims\((\w+)->GetStorageShape\(\)\), "
                       r"Dims\((\w+)->GetStorageShape\(\)\), (true|false), req\.(\w+), soc_short, &(\w+)\)", body)
    assert sorted(calls) == [("a_scale", "a_zero_point", "ass", "azs", "true", "a_shape", "a_layout"),
                             ("b_scale", "b_zero_point", "bss", "bzs", "false", "b_shape", "b_layout")], calls
    for x in ("a", "b"):
        assert f"req.{x}_param_batched = {x}_layout.batched;" in body


def test_the_workspace_reserves_what_the_kernels_user_workspace_skips(desc, repo):
    """The kernel finds its own workspace with GetUserWorkspace, which on the device skips the headers' fixed
    RESERVED_WORKSPACE (the SoC table's system_workspace_bytes); the framework's GetLibApiWorkSpaceSize is what a
    TilingFunc is told to add. Every TilingFunc reserves the larger of the two (aqo_host::SystemWorkspace) ahead of the
    plan's own bytes, so the kernel's area never overlaps the system's whichever figure the device reports."""
    common = strip_comments((repo / "op_host" / "aqo_op_host_common.h").read_text(encoding="utf-8"))
    helper = _function_body(common, "SystemWorkspace")
    assert "GetLibApiWorkSpaceSize()" in helper and re.search(r"lib\s*>\s*kernel_skips", helper), helper
    for op in desc["ops"]:
        host = strip_comments((repo / "op_host" / f"{op['kernel']}.cpp").read_text(encoding="utf-8"))
        body = _function_body(host, f"{op['op_type']}TilingFunc")
        assert "GetLibApiWorkSpaceSize" not in body, op["op_type"]
        reserved = re.search(r"workspace\s*=\s*aqo_host::SystemWorkspace\(platform,\s*plan\.system_workspace_bytes\)"
                             r"\s*\+\s*plan\.workspace_bytes;", body)
        assert reserved, op["op_type"]
        save = re.search(r"SaveTiling\((.*?)\);", body, re.S)
        assert save and [a.strip() for a in save.group(1).split(",")][3] == "workspace", op["op_type"]


@pytest.mark.parametrize("index", [0, 1, 2])
def test_inputs_after_an_optional_one_are_read_by_ir_index(desc, repo, index):
    # gert's GetInputShape / GetInputDesc take the index among the inputs present (an absent optional input is not
    # counted: tiling_context.h, extended_kernel_context.h); GetRequiredInputShape / GetRequiredInputDesc /
    # GetOptionalInputShape take the IR index. Once an optional input precedes a required one, the host code reads
    # inputs by IR index only (the instance index of every later input shifts when the optional one is absent).
    op = desc["ops"][index]
    text = strip_comments((repo / "op_host" / f"{op['kernel']}.cpp").read_text(encoding="utf-8"))
    kinds = [i["param_type"] for i in parse_opdef(text, op["op_type"])["inputs"]]
    shifted = any(k == "optional" for k in kinds[:-1]) and any(
        k == "required" for k in kinds[kinds.index("optional") + 1:]) if "optional" in kinds else False
    instance = re.findall(r"\bGet(?:Input(?:Shape|Desc|Tensor|DataType))\s*\(", text)
    if shifted:
        assert not instance, f"{op['kernel']}.cpp reads inputs by instance index ({instance}) though an optional " \
                             "input precedes a required one: use GetRequiredInput* / GetOptionalInput*"
    assert index != 2 or shifted, "AqoQuantMatMul's optional a_zero_point precedes b (the case this test is for)"
