"""`aqo perf`: usage errors, the JSON report, and the HTML timeline picture (parsed, not eyeballed)."""
import json
from html.parser import HTMLParser

import pytest

from ascend_quant_ops import cli
from ascend_quant_ops.perf import html as perf_html
from ascend_quant_ops.perf import model


class SvgCollector(HTMLParser):
    """Collects the timeline SVGs: per svg its attributes, lanes (pipe -> instr / stall rect attributes)."""

    def __init__(self):
        super().__init__()
        self.svgs = []
        self._lane = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and "timeline" in a.get("class", ""):
            self.svgs.append({"attrs": a, "lanes": {}})
        elif tag == "g" and a.get("class") == "lane" and self.svgs:
            self._lane = a["data-pipe"]
            self.svgs[-1]["lanes"][self._lane] = {"instr": [], "stall": []}
        elif tag == "rect" and self._lane and a.get("class") in ("instr", "stall"):
            self.svgs[-1]["lanes"][self._lane][a["class"]].append(a)

    def handle_endtag(self, tag):
        if tag == "g":
            self._lane = None


def _detail_of(result):
    d = dict(result["detail"])
    i = d["index"]
    d.update(causes=result["causes"], core=result["cores"][i]["core"], is_cube=False, cycles=result["cycles"],
             clock_mhz=result["clock_mhz"])
    return d


def _pipeline_trace(chunks):
    """A double-buffered copy-compute-copy loop on one core, as TQue would record it."""
    ev = []
    for i in range(chunks):
        slot = i % 2
        if i >= 2:
            ev.append(dict(kind="wait_flag", src="V", dst="MTE2", id=slot, line=10))
        ev += [dict(kind="instr", pipe="MTE2", cls="dma_gm_to_ub", count=16384, bursts=1, line=11),
               dict(kind="set_flag", src="MTE2", dst="V", id=slot, line=12),
               dict(kind="wait_flag", src="MTE2", dst="V", id=slot, line=13)]
        if i >= 2:
            ev.append(dict(kind="wait_flag", src="MTE3", dst="V", id=slot, line=14))
        ev += [dict(kind="instr", pipe="V", cls="vec_elementwise", count=8192, elem_bytes=2, line=15),
               dict(kind="set_flag", src="V", dst="MTE2", id=slot, line=16),
               dict(kind="set_flag", src="V", dst="MTE3", id=slot, line=17),
               dict(kind="wait_flag", src="V", dst="MTE3", id=slot, line=18),
               dict(kind="instr", pipe="MTE3", cls="dma_ub_to_gm", count=16384, bursts=1, line=19),
               dict(kind="set_flag", src="MTE3", dst="V", id=slot, line=20)]
    # drain the flags the loop left set
    for slot in range(min(chunks, 2)):
        ev += [dict(kind="wait_flag", src="V", dst="MTE2", id=slot), dict(kind="wait_flag", src="MTE3", dst="V", id=slot)]
    return [dict(core=0, events=ev)]


def test_timeline_svg_lanes_and_boxes(tmp_path):
    res = model.simulate(_pipeline_trace(40), "ascend910b")
    svg = perf_html.timeline_svg(_detail_of(res))
    p = SvgCollector()
    p.feed(svg)
    assert len(p.svgs) == 1
    s = p.svgs[0]
    assert float(s["attrs"]["data-cycles"]) == pytest.approx(res["cycles"], rel=1e-3)
    assert set(s["lanes"]) == {"S", "V", "MTE2", "MTE3"}
    for pipe in ("V", "MTE2", "MTE3"):
        boxes = s["lanes"][pipe]["instr"]
        assert boxes, pipe
        for b in boxes:
            x, w = float(b["x"]), float(b["width"])
            assert perf_html.LEFT - 1e-6 <= x and x + w <= perf_html.LEFT + perf_html.WIDTH + 1.0
    # the MTE2 loads cover most of the lane: the loop is bound by the loads (the pipe's rate), as the model says
    mte2_px = sum(float(b["width"]) for b in s["lanes"]["MTE2"]["instr"])
    busy = res["cores"][0]["pipes"]["MTE2"]["busy"] / res["cycles"]
    assert mte2_px / perf_html.WIDTH == pytest.approx(busy, abs=0.05)


def test_html_report_file_from_rows(tmp_path):
    from ascend_quant_ops.perf import report

    class Args:
        op = ["dynamic_quant"]
        soc = ["ascend910b"]
        shape = (64, 1024)
        dtype = "float16"
        dst = "int8"
        smooth = False
        seed = 0
        quick = True
        no_sensitivity = True
        html = str(tmp_path / "r.html")
        scale = None

    rows = report.run(Args)
    perf_html.write_html(Args.html, rows, report.to_json(rows))
    text = open(Args.html, encoding="utf-8").read()
    assert text.startswith("<!DOCTYPE html>") and "</html>" in text
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")  # no external assets
    assert "gm_bandwidth_gbps" in text and "assumption" in text
    # the launch's slowest core as lanes: DynamicQuant loads, computes, stores and reads results on the scalar unit
    p = SvgCollector()
    p.feed(text)
    (svg,) = p.svgs
    (row,) = rows
    assert float(svg["attrs"]["data-cycles"]) == pytest.approx(row.summary.cycles, rel=1e-3)
    assert {"S", "V", "MTE2", "MTE3"} <= set(svg["lanes"])
    assert all(svg["lanes"][q]["instr"] for q in ("S", "V", "MTE2", "MTE3"))
    assert svg["lanes"]["S"]["stall"]  # the scalar unit waits for vector results


@pytest.mark.parametrize("argv", [["--shape", "abc", "--op", "dynamic_quant"], ["--shape", "4x16"],
                                  ["--shape", "0x0", "--op", "dynamic_quant"],
                                  ["--shape", "4x16", "--op", "qlinear_matmul"], ["--scale", "warp=2"],
                                  ["--scale", "dma_latency_cycles=-1"]])
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as e:
        rc = cli.main(["perf"] + argv)
        raise SystemExit(rc)
    assert e.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_json_report_of_one_shape(capsys):
    rc = cli.main(["perf", "--op", "dynamic_quant", "--soc", "ascend310p", "--shape", "64x4096", "--json",
                   "--no-sensitivity"])
    data = json.loads(capsys.readouterr().out)
    (launch,) = data["launches"]
    assert launch["op"] == "dynamic_quant" and launch["soc"] == "ascend310p"
    assert launch["traffic"]["min_bytes"] == 64 * 4096 * 3 + 64 * 4
    t = model.timing_table("ascend310p")
    assert launch["roofline"]["memory_us"] == pytest.approx(launch["traffic"]["min_bytes"] /
                                                            (t["gm_bandwidth_gbps"]["value"] * 1e3))
    assert data["parameters"]["ascend310p"]["clock_mhz"]["value"] == 1060
    est = launch["estimate"]
    assert est["time_us"] >= launch["roofline"]["us"]
    assert est["ratio"] == pytest.approx(est["time_us"] / launch["roofline"]["us"])
    assert est["critical_pipe"] in model.PIPES
    assert 0 < est["gm_busy"] <= 1 and all(0 <= v <= 1 for v in est["busy_slowest"].values())
    # DynamicQuant reads x once, in whole lines (rows of 8 KiB from a line-aligned buffer): no L2 hit, and the DDR
    # moves exactly what the emulator counted as GM traffic
    assert est["l2_hit_share"] == 0 and est["l2_hit_bytes"] == 0
    assert est["gm_read_bytes"] == 64 * 4096 * 2
    assert est["ddr_bytes"] == launch["traffic"]["gm_bytes"]
    # 64 rows >= 4 x 8 cores and a tail >= 1024: the DynamicQuant target applies on ascend310p (1.25x)
    (target,) = launch["targets"]
    assert target["limit"] == 1.25 and target["ok"] == (est["memory_ratio"] <= 1.25)
    assert rc == (0 if data["ok"] else 1)


def test_sensitivity_reruns_every_assumed_parameter(capsys):
    rc = cli.main(["perf", "--op", "dynamic_quant", "--soc", "ascend910b", "--shape", "48x1024", "--json"])
    data = json.loads(capsys.readouterr().out)
    (launch,) = data["launches"]
    assert set(launch["sensitivity"]) == set(model.sensitivity_parameters("ascend910b"))
    base = launch["estimate"]["time_us"]
    lat = launch["sensitivity"]["dma_latency_cycles"]
    assert lat["0.5"] < base < lat["2.0"]  # a longer GM round trip can only make it slower
    # each run is compared with the roofline of its own parameters: half the bandwidth, twice the memory time
    bw = launch["sensitivity"]["gm_bandwidth_gbps"]["0.5"]
    mem = launch["roofline"]["memory_us"]
    assert launch["sensitivity_memory_ratio"]["gm_bandwidth_gbps"]["0.5"] == pytest.approx(bw / (2 * mem))
    assert launch["sensitivity_memory_ratio"]["dma_latency_cycles"]["2.0"] == pytest.approx(lat["2.0"] / mem)
    # the threaded sweep gives what one run at that factor gives (the emulator's last run is this launch)
    from ascend_quant_ops import _native

    assert _native.timeline_last_run({"dma_latency_cycles": 2.0}, -2)["time_us"] == pytest.approx(lat["2.0"])
    assert rc in (0, 1)


def test_text_report_shows_ddr_bytes_and_the_l2_hit_share():
    import io

    from ascend_quant_ops.perf import report

    class Args:
        op = ["qlinear_matmul"]
        soc = ["ascend910b"]
        shape = (64, 512, 512)
        seed = 0
        quick = True
        no_sensitivity = True
        html = None
        scale = None
        smooth = False

    # QLinearMatMul re-reads its operands: the L2 serves part of what it reads from GM
    rows = report.run(Args)
    buf = io.StringIO()
    report.print_report(rows, out=buf)
    lines = buf.getvalue().splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith("op ") and "est us" in line)
    head, row = lines[i], lines[i + 2]  # the timeline table: header, dashes, the launch
    assert "DDR MB" in head and "L2 hit" in head and "DDR busy" in head
    cell = lambda name: row[head.index(name):].split()[0]  # columns are left-aligned under their names
    (p,) = rows
    assert float(cell("DDR MB")) == pytest.approx(p.summary.ddr_bytes / 1e6, abs=1e-3)
    assert cell("L2 hit") == f"{100 * p.summary.l2_hit_share:.0f}%" and p.summary.l2_hit_share > 0


def test_latency_floor_is_the_memory_time_plus_one_round_trip():
    # The floor's arithmetic from the SoC table's parameters, worked out here: 256 x 4096 float16 -> int8 on
    # ascend910b moves 256 * 4096 * (2 + 1) bytes of x and y plus 256 * 4 bytes of scales.
    from ascend_quant_ops.perf import roofline
    from ascend_quant_ops.perf import report as perf_report

    soc = "ascend910b"
    p = model.timing_table(soc)
    bw, lat, mhz = (p[k]["value"] for k in ("gm_bandwidth_gbps", "dma_latency_cycles", "clock_mhz"))
    min_bytes = 256 * 4096 * 3 + 256 * 4
    memory_us = min_bytes / (bw * 1e3)
    assert roofline.latency_floor_us(soc, min_bytes) == pytest.approx(memory_us + lat / mhz, rel=1e-12)
    # under a scaled parameter, the floor of that parameter: twice the round trip, or half the bandwidth
    assert roofline.latency_floor_us(soc, min_bytes, {"dma_latency_cycles": 2.0}) == \
        pytest.approx(memory_us + 2 * lat / mhz, rel=1e-12)
    assert roofline.latency_floor_us(soc, min_bytes, {"gm_bandwidth_gbps": 0.5}) == \
        pytest.approx(2 * memory_us + lat / mhz, rel=1e-12)
    # the report's time target carries it as a ratio to the memory roofline, next to the target it leaves as is
    pr = perf_report.dynamic_quant(soc, (256, 4096), "float16", "int8", sensitivity=False, detail=False)
    assert pr.row.min_bytes == min_bytes
    (t,) = [t for t in pr.targets if t.name == "time / memory roofline"]
    assert t.limit == 1.10 and t.floor == pytest.approx((memory_us + lat / mhz) / memory_us, rel=1e-9)
    assert t.ok == (t.value <= t.limit)


def test_a_one_element_product_meets_its_traffic_target_on_every_soc(capsys):
    """1 x 1 x 1: a few bytes of data against every worker's scalar reads of the per-tensor parameters (4 bytes a read
    in the counters). The target allows 32 bytes a launched worker for them, so the row is not a MISS."""
    rc = cli.main(["perf", "--op", "qlinear_matmul", "--shape", "1x1x1", "--json", "--no-sensitivity"])
    data = json.loads(capsys.readouterr().out)
    assert {x["soc"] for x in data["launches"]} == {"ascend910b", "ascend310p", "ascend910_95"}
    for launch in data["launches"]:
        tr = launch["traffic"]
        assert tr["min_bytes"] == 1 + 1 + 1 + 3 * 5  # a, b, y and three scales with their zero points
        assert launch["traffic_ok"] and tr["ratio"] <= tr["target"] + 0.005
    assert rc == 0
