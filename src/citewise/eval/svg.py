"""Grouped bar charts with 95% error bars as inline SVG: no plotting library, so report.html
has its pictures with the default install. Every bar carries a ``<title>`` (its exact value
and interval, shown on hover) and the chart a ``<desc>`` for screen readers."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence

from citewise.eval.bootstrap import Figure

#: Colour-blind-safe palette (Okabe-Ito), one colour per metric.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")
PLOT_H = 220
TOP, LEFT, BOTTOM = 34, 44, 70
BAR_W = 22
GROUP_GAP = 26
LEGEND_W = 170


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _value(figure: Figure | None) -> float:
    if figure is None or figure.mean is None or math.isnan(figure.mean):
        return 0.0
    return min(1.0, max(0.0, figure.mean))


def _y(value: float) -> float:
    return TOP + PLOT_H * (1.0 - min(1.0, max(0.0, value)))


def bar_chart(groups: Mapping[str, Mapping[str, Figure]], metrics: Sequence[str],
              title: str) -> str:
    """``<svg>`` with one group of bars per slice value and one bar per metric (scale 0–1),
    each with its 95% interval as an error bar."""
    names = [g for g in groups if any(m in groups[g] for m in metrics)]
    group_w = BAR_W * len(metrics) + GROUP_GAP
    plot_w = max(group_w * len(names), 160)
    width = LEFT + plot_w + LEGEND_W
    height = TOP + PLOT_H + BOTTOM
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" role="img" '
           f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'font-family="system-ui,sans-serif" font-size="11">',
           f"<title>{_e(title)}</title><desc>{_e(_describe(groups, names, metrics))}</desc>",
           f'<text x="{LEFT}" y="18" font-size="13" font-weight="600">{_e(title)}</text>']
    out += _axis(plot_w)
    for gi, name in enumerate(names):
        x0 = LEFT + gi * group_w + GROUP_GAP / 2
        for mi, metric in enumerate(metrics):
            out.append(_bar(groups[name].get(metric), metric, name, x0 + mi * BAR_W,
                            PALETTE[mi % len(PALETTE)]))
        n = max((f.n for f in groups[name].values()), default=0)
        cx = x0 + BAR_W * len(metrics) / 2
        out.append(f'<text x="{cx:.1f}" y="{TOP + PLOT_H + 14}" text-anchor="end" '
                   f'transform="rotate(-25 {cx:.1f} {TOP + PLOT_H + 14})">'
                   f"{_e(_short(name))} (n={n})</text>")
    out += _legend(metrics, LEFT + plot_w + 14)
    out.append("</svg>")
    return "".join(out)


def _axis(plot_w: float) -> list[str]:
    parts = []
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = _y(tick)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" '
                     f'stroke="{"#999" if tick == 0 else "#e3e3e3"}"/>'
                     f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#555">'
                     f"{tick:.2f}</text>")
    return parts


def _bar(figure: Figure | None, metric: str, group: str, x: float, colour: str) -> str:
    if figure is None:
        return ""
    value = _value(figure)
    top = _y(value)
    label = (f"{metric} for {group}: {_fmt(figure.mean)} "
             f"[{_fmt(figure.lo)}, {_fmt(figure.hi)}], n={figure.n}")
    parts = [f'<g class="bar" data-metric="{_e(metric)}" data-group="{_e(group)}" '
             f'data-value="{_fmt(figure.mean)}"><title>{_e(label)}</title>'
             f'<rect x="{x + 2:.1f}" y="{top:.1f}" width="{BAR_W - 4}" '
             f'height="{TOP + PLOT_H - top:.1f}" fill="{colour}"/>']
    if not (math.isnan(figure.lo) or math.isnan(figure.hi)):
        cx, lo, hi = x + BAR_W / 2, _y(figure.lo), _y(figure.hi)
        parts.append(f'<path d="M{cx:.1f} {lo:.1f}V{hi:.1f}M{cx - 4:.1f} {lo:.1f}h8'
                     f'M{cx - 4:.1f} {hi:.1f}h8" stroke="#222" stroke-width="1.2"/>')
    return "".join(parts) + "</g>"


def _legend(metrics: Sequence[str], x: float) -> list[str]:
    parts = []
    for i, metric in enumerate(metrics):
        y = TOP + 6 + 18 * i
        parts.append(f'<rect x="{x:.1f}" y="{y}" width="12" height="12" '
                     f'fill="{PALETTE[i % len(PALETTE)]}"/>'
                     f'<text x="{x + 18:.1f}" y="{y + 10}">{_e(metric)}</text>')
    return parts


def _describe(groups: Mapping[str, Mapping[str, Figure]], names: Sequence[str],
              metrics: Sequence[str]) -> str:
    return "; ".join(f"{g}: " + ", ".join(f"{m} {_fmt(groups[g][m].mean)}"
                                          for m in metrics if m in groups[g]) for g in names)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.3f}"


def _short(name: str, limit: int = 24) -> str:
    return name if len(name) <= limit else name[:limit - 1] + "…"
