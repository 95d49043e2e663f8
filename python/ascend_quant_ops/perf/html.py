"""The HTML report of `aqo perf --html`: one self-contained file (inline CSS and SVG, no external assets).

Per launch: the estimate against the roofline, pipe busy fractions, stalls by cause, the sensitivity to each derived
or assumed parameter, and a timeline picture of the slowest core: one lane per pipe, a box per instruction (boxes
closer than a pixel merged, their count in the tooltip), stalls as red bars under the lane.
"""
from __future__ import annotations

import html
import math
from typing import Dict, List, Sequence, Tuple

from .model import PIPES

LANE_H = 22
LEFT = 64
WIDTH = 1100
AXIS_H = 24

# Colour by what the instruction does.
_COLOURS = {
    "dma": "#3b7dd8", "vec": "#3aa657", "cube": "#8a4fd0", "scalar": "#7a7a7a", "issue": "#c9c9c9",
    "fix": "#d08a2b", "other": "#999999",
}


def _family(label: str) -> str:
    if label == "issue":
        return "issue"
    if label.startswith("dma"):
        return "dma"
    if label.startswith("vec"):
        return "vec"
    if label.startswith("cube"):
        return "cube"
    if label.startswith("scalar"):
        return "scalar"
    if label.startswith("fix"):
        return "fix"
    return "other"


def _e(s) -> str:
    return html.escape(str(s), quote=True)


def _nice_step(total_us: float, target_ticks: int = 8) -> float:
    """A 1 / 2 / 5 x 10^k tick step giving about `target_ticks` ticks."""
    raw = max(total_us, 1e-12) / target_ticks
    base = 10.0 ** math.floor(math.log10(raw))
    for m in (1, 2, 5):
        if m * base >= raw:
            return m * base
    return 10 * base


def _merge(spans: List[Tuple[float, float, str, str]], cycles_per_px: float):
    """Merges (start, end, label, tip) spans of one lane that lie closer than a pixel and share a label family."""
    out: List[list] = []
    for start, end, label, tip in sorted(spans):
        fam = _family(label)
        if out and out[-1][2] == fam and start - out[-1][1] <= cycles_per_px:
            out[-1][1] = max(out[-1][1], end)
            out[-1][3] += 1
            if out[-1][4] != label:
                out[-1][4] = fam
            continue
        out.append([start, end, fam, 1, label, tip])
    return out


def timeline_svg(detail: dict) -> str:
    """An SVG picture of one core's timeline: `detail` as perf.report keeps it (instrs, stalls, causes, cycles,
    clock_mhz, core, is_cube)."""
    cycles = max(float(detail["cycles"]), 1.0)
    clock = float(detail["clock_mhz"])
    cpp = cycles / WIDTH  # cycles per pixel
    lanes: Dict[str, List[Tuple[float, float, str, str]]] = {p: [] for p in PIPES}
    for pipe, start, busy_end, end, label, site in detail["instrs"]:
        lanes[pipe].append((start, busy_end, label, f"{label} at {site}"))
    stalls: Dict[str, List[Tuple[float, float, str, str]]] = {p: [] for p in PIPES}
    for pipe, start, end, cause in detail["stalls"]:
        stalls[pipe].append((start, end, "stall", detail["causes"][cause]))
    shown = [p for p in PIPES if lanes[p] or stalls[p]] or ["S"]
    height = AXIS_H + LANE_H * len(shown) + 6
    total_w = LEFT + WIDTH + 10
    parts = [f'<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{height}" '
             f'viewBox="0 0 {total_w} {height}" data-core="{_e(detail["core"])}" data-cycles="{cycles:.1f}" '
             f'data-clock-mhz="{clock}">']
    # axis in microseconds
    total_us = cycles / clock
    step = _nice_step(total_us)
    t = 0.0
    parts.append(f'<g class="axis"><line x1="{LEFT}" y1="{AXIS_H - 4}" x2="{LEFT + WIDTH}" y2="{AXIS_H - 4}" '
                 f'stroke="#444"/>')
    while t <= total_us + 1e-12:
        x = LEFT + t * clock / cpp
        parts.append(f'<line x1="{x:.1f}" y1="{AXIS_H - 8}" x2="{x:.1f}" y2="{height}" stroke="#eee"/>'
                     f'<text x="{x:.1f}" y="{AXIS_H - 10}" font-size="10" text-anchor="middle">{t:g} us</text>')
        t += step
    parts.append("</g>")
    for i, pipe in enumerate(shown):
        y = AXIS_H + i * LANE_H
        parts.append(f'<g class="lane" data-pipe="{pipe}">'
                     f'<text x="4" y="{y + 15}" font-size="12" font-family="monospace">{pipe}</text>'
                     f'<rect x="{LEFT}" y="{y + 1}" width="{WIDTH}" height="{LANE_H - 2}" fill="#fafafa"/>')
        for start, end, fam, n, label, tip in _merge(lanes[pipe], cpp):
            x = LEFT + start / cpp
            w = max(0.6, (end - start) / cpp)
            title = (f"{tip}: {start / clock:.3f}-{end / clock:.3f} us" if n == 1
                     else f"{n} instructions ({label}): {start / clock:.3f}-{end / clock:.3f} us")
            parts.append(f'<rect class="instr" data-family="{fam}" x="{x:.2f}" y="{y + 2}" width="{w:.2f}" '
                         f'height="{LANE_H - 8}" fill="{_COLOURS[fam]}"><title>{_e(title)}</title></rect>')
        for start, end, fam, n, label, tip in _merge(stalls[pipe], cpp):
            x = LEFT + start / cpp
            w = max(0.6, (end - start) / cpp)
            title = f"stalled: {tip}" + (f" (and {n - 1} more)" if n > 1 else "") + \
                f": {start / clock:.3f}-{end / clock:.3f} us"
            parts.append(f'<rect class="stall" x="{x:.2f}" y="{y + LANE_H - 6}" width="{w:.2f}" height="4" '
                         f'fill="#d33"><title>{_e(title)}</title></rect>')
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


_CSS = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em 0; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; }
th { background: #f0f0f0; }
td.miss { color: #b00; font-weight: bold; }
td.ok { color: #070; }
details { margin: 0.4em 0; }
summary { cursor: pointer; }
.legend span { display: inline-block; padding: 0 6px; margin-right: 6px; color: #fff; font-size: 12px; }
.note { color: #555; font-size: 13px; max-width: 70em; }
"""


def _pct(v: float) -> str:
    return f"{100 * v:.1f}%"


def write_html(path: str, rows: Sequence, data: dict) -> None:
    out: List[str] = ["<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>aqo perf</title>",
                      f"<style>{_CSS}</style></head><body>", "<h1>ascend-quant-ops: performance model</h1>",
                      "<p class=\"note\">Estimated device time from the timeline model: the emulator's instruction "
                      "trace replayed with the SoC table's timing parameters (each with its source, or marked as an "
                      "assumption; the sensitivity columns rerun the model at 0.5x and 2x of every derived or assumed "
                      "value). It is an estimate from stated parameters, not a measurement: no NPU was used.</p>"]
    out.append("<h2>Launches</h2><table><tr><th>op</th><th>soc</th><th>case</th><th>traffic</th><th>balance</th>"
               "<th>est us</th><th>roofline us</th><th>est / roofline</th><th>DDR MB</th><th>L2 hit</th>"
               "<th>critical pipe</th><th>targets</th></tr>")
    for p in rows:
        r = p.row
        est = f"{p.time_us:.2f}" if p.summary else "n/a"
        ratio = f"{p.ratio:.2f}x" if p.summary else "n/a"
        crit = p.summary.critical_pipe if p.summary else "-"
        ddr = f"{p.summary.ddr_bytes / 1e6:.3f}" if p.summary else "n/a"
        hit = _pct(p.summary.l2_hit_share) if p.summary else "n/a"
        cls = "ok" if p.ok else "miss"
        out.append(f"<tr><td>{_e(r.op)}</td><td>{_e(r.soc)}</td><td>{_e(r.case)}</td><td>{r.traffic:.4f}x</td>"
                   f"<td>{r.balance:.3f}</td><td>{est}</td><td>{p.roof.us:.2f} ({p.roof.bound})</td><td>{ratio}</td>"
                   f"<td>{ddr}</td><td>{hit}</td>"
                   f"<td>{_e(crit)}</td><td class=\"{cls}\">{'ok' if p.ok else 'MISS'}</td></tr>")
    out.append("</table>")
    out.append("<div class=\"legend\">" + "".join(
        f"<span style=\"background:{c}\">{n}</span>" for n, c in _COLOURS.items()) +
        "<span style=\"background:#d33\">stall</span></div>")
    for i, p in enumerate(rows):
        r = p.row
        out.append(f"<details{' open' if i == 0 else ''}><summary><b>{_e(r.op)} {_e(r.soc)} {_e(r.case)}</b>: "
                   + (f"{p.time_us:.2f} us estimated, roofline {p.roof.us:.2f} us ({p.roof.bound})"
                      if p.summary else _e(p.note or "no estimate")) + "</summary>")
        out.append(f"<p class=\"note\">roofline: memory {p.roof.memory_us:.3f} us ({p.roof.min_bytes} bytes), compute "
                   f"{p.roof.compute_us:.3f} us ({_e(p.roof.compute_what)})</p>")
        if p.targets:
            out.append("<table><tr><th>target</th><th>today</th><th>wanted</th><th>floor</th><th>status</th></tr>")
            for t in p.targets:
                val = "n/a" if t.value is None else (_pct(t.value) if t.name == "cube busy" else f"{t.value:.2f}x")
                lim = _pct(t.limit) if t.name == "cube busy" else f"{t.limit:.2f}x"
                floor = "" if t.floor is None else f"{t.floor:.2f}x"
                out.append(f"<tr><td>{_e(t.name)}</td><td>{val}</td><td>{t.kind} {lim}</td><td>{floor}</td>"
                           f"<td class=\"{'ok' if t.ok else 'miss'}\">{'ok' if t.ok else 'MISS'}</td></tr>")
            out.append("</table>")
        s = p.summary
        if s:
            out.append(f"<p class=\"note\">GM: {s.raw.get('gm_bytes', 0) / 1e6:.3f} MB moved by DMA, "
                       f"{s.gm_read_bytes / 1e6:.3f} MB of it read; {s.ddr_bytes / 1e6:.3f} MB through the DDR "
                       f"bandwidth (L2 misses' lines and every write), DDR busy {_pct(s.gm_busy)}; L2 hits "
                       f"{_pct(s.l2_hit_share)} of the bytes read</p>")
            out.append("<table><tr><th>pipe</th>" + "".join(f"<th>{q}</th>" for q in PIPES) + "</tr>")
            out.append("<tr><td>busy, slowest core</td>" + "".join(f"<td>{_pct(s.busy_slowest[q])}</td>" for q in PIPES)
                       + "</tr>")
            out.append("<tr><td>busy, mean of users</td>" + "".join(f"<td>{_pct(s.busy_mean[q])}</td>" for q in PIPES)
                       + "</tr></table>")
            out.append("<table><tr><th>stall cause (all cores)</th><th>cycles</th></tr>")
            for cause, cyc in s.top_stalls(12, by_kind=False):
                out.append(f"<tr><td>{_e(cause)}</td><td>{cyc:.0f}</td></tr>")
            out.append("</table>")
        if p.sensitivity:
            ratios = p.sensitivity_ratios()
            out.append("<table><tr><th>parameter (derived or assumed)</th><th>est us at 0.5x</th><th>at 2x</th>"
                       "<th>est / roofline at 0.5x</th><th>at 2x</th></tr>")
            for name, v in sorted(p.sensitivity.items(), key=lambda kv: -abs(kv[1][2.0] - kv[1][0.5])):
                out.append(f"<tr><td>{_e(name)}</td><td>{v[0.5]:.3f}</td><td>{v[2.0]:.3f}</td>"
                           f"<td>{ratios[name][0.5]:.2f}x</td><td>{ratios[name][2.0]:.2f}x</td></tr>")
            out.append("</table>")
        if p.detail:
            kind = "cube" if p.detail.get("is_cube") else "vector / AI"
            out.append(f"<p class=\"note\">Timeline of the slowest core ({kind} core {_e(p.detail['core'])}):</p>")
            out.append(timeline_svg(p.detail))
        out.append("</details>")
    out.append("<h2>Parameters</h2>")
    for soc, params in data.get("parameters", {}).items():
        out.append(f"<h3>{_e(soc)}</h3><table><tr><th>parameter</th><th>value</th><th>unit</th><th>basis</th>"
                   "<th>source</th></tr>")
        for name, q in params.items():
            out.append(f"<tr><td>{_e(name)}</td><td>{q['value']:g}</td><td>{_e(q['unit'])}</td><td>{_e(q['basis'])}"
                       f"</td><td>{_e(q['source'])}</td></tr>")
        out.append("</table>")
    out.append("</body></html>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))
