"""Reports of a precision run: JSON (the data) and HTML (rendered with jinja2; histograms drawn as inline SVG).

    write_reports(suite, out_dir) -> (json_path, html_path)
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import List, Sequence, Tuple

from markupsafe import Markup, escape

TEMPLATE_DIR = Path(__file__).with_name("templates")
TEMPLATE = "report.html.j2"


def svg_histogram(labels: Sequence[str], counts: Sequence[int], bad: Sequence[bool] = (), *, title: str = "",
                  width: int = 540, height: int = 180) -> Markup:
    """A bar chart as an SVG element. Bar heights follow log10(1 + count), so that a handful of outliers stays
    visible next to millions of exact elements; each bar is labelled with its exact count. Bins that break the
    criterion are red, the others blue."""
    n = max(1, len(counts))
    top, bottom, left, right = 34, 34, 8, 8  # top leaves room for the title and the counts
    plot_h = height - top - bottom
    slot = (width - left - right) / n
    peak = max((math.log10(1 + c) for c in counts), default=0.0) or 1.0
    parts: List[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}" class="hist">',
        f'<text x="{left}" y="13" font-size="11" font-weight="bold">{escape(title)}</text>',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{width - right}" y2="{top + plot_h}" stroke="#555"/>',
    ]
    for i, (label, count) in enumerate(zip(labels, counts)):
        h = 0.0 if count == 0 else max(1.5, plot_h * math.log10(1 + count) / peak)
        x = left + i * slot + slot * 0.12
        w = slot * 0.76
        colour = "#c0392b" if (i < len(bad) and bad[i]) else "#2e86c1"
        parts.append(f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{w:.1f}" height="{h:.1f}" '
                     f'fill="{colour}"><title>{escape(label)}: {count}</title></rect>')
        parts.append(f'<text x="{x + w / 2:.1f}" y="{top + plot_h - h - 3:.1f}" font-size="9" '
                     f'text-anchor="middle">{count}</text>')
        parts.append(f'<text x="{x + w / 2:.1f}" y="{top + plot_h + 13:.1f}" font-size="9" '
                     f'text-anchor="middle">{escape(label)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def render_html(suite: dict) -> str:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
                             autoescape=jinja2.select_autoescape(["html", "j2"]), undefined=jinja2.StrictUndefined)
    env.globals["svg_histogram"] = svg_histogram
    env.filters["fmt"] = _fmt
    by_soc = {}
    for r in suite["results"]:
        by_soc.setdefault(r["soc"], []).append(r)
    return env.get_template(TEMPLATE).render(suite=suite, meta=suite["meta"], summary=suite["summary"],
                                             by_soc=by_soc)


def _fmt(v):
    if isinstance(v, float):
        if v == 0:
            return "0"
        if abs(v) < 1e-3 or abs(v) >= 1e6:
            return f"{v:.3e}"
        return f"{v:.4g}"
    return str(v)


def write_reports(suite: dict, out_dir) -> Tuple[Path, Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"precision_{suite['meta']['backend']}"
    json_path = out / f"{stem}.json"
    html_path = out / f"{stem}.html"
    json_path.write_text(json.dumps(suite, indent=1, allow_nan=True, default=str))
    html_path.write_text(render_html(suite))
    return json_path, html_path
