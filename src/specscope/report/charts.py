"""Draw :class:`~specscope.report.document.ChartData` as self-contained SVG (matplotlib, the ``charts`` extra).

This module computes nothing: the numbers come from :mod:`specscope.report.chart_data`. Each SVG is a
complete document with text drawn as paths (``svg.fonttype = "path"``), so it needs no font or network
when embedded; ``data_uri`` wraps it for an ``<img>``. Figures are built on ``matplotlib.figure.Figure``
directly (no pyplot global state), with a fixed hash salt and no date, so the same run renders the
same bytes. Without matplotlib :func:`charts_available` returns False with the install hint.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from specscope.report.document import ChartData, Panel, Series
from specscope.textsafe import clip_words

__all__ = ["Chart", "CHARTS_HINT", "charts_available", "draw_chart", "draw_charts"]

CHARTS_HINT = "charts need matplotlib: pip install 'specscope[charts]'"


@dataclass(frozen=True)
class Chart:
    """One drawn figure: ``name`` (a stable id), ``title``, ``svg`` (a complete SVG document, UTF-8 text)."""

    name: str
    title: str
    svg: str
    note: str = ""

    @property
    def data_uri(self) -> str:
        return "data:image/svg+xml;base64," + base64.b64encode(self.svg.encode("utf-8")).decode("ascii")


def _c(text: str) -> str:
    """A label as drawn: a run of more than 48 characters without a space clipped (a stored config name of 100,000
    characters took matplotlib a minute to draw as a legend entry); the tables and the JSON report keep it whole."""
    return clip_words(text, 48)


def charts_available() -> tuple[bool, str]:
    """(True, "") when matplotlib imports, else (False, the install hint)."""
    try:
        import matplotlib  # noqa: F401
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError:
        return False, CHARTS_HINT
    return True, ""


def _svg(fig: Any) -> str:
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "specscope", "svg.fonttype": "path"}):
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    return buf.getvalue()


def _figure(n_panels: int, width_in: float = 4.2, height_in: float = 3.2) -> tuple[Any, list[Any]]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(max(width_in * n_panels, 5.0), height_in), layout="constrained")
    axes = fig.subplots(1, n_panels, squeeze=False)[0]
    return fig, list(axes)


def _ys(s: Series) -> list[float]:
    return [np.nan if y is None else y for y in s.ys]


def _draw_series(ax: Any, s: Series, colors: dict[str, Any]) -> None:
    base = s.label.split(" ")[0]
    color = colors.get(base)
    if s.style == "reference":
        ax.plot(s.xs, _ys(s), color="black", linestyle="--", linewidth=1.6, zorder=10, label=_c(s.label))
        return
    if s.style == "dashed":
        ax.plot(s.xs, _ys(s), linestyle="--", marker="x", color=color, label=_c(s.label))
        return
    (line,) = ax.plot(s.xs, _ys(s), marker="o", color=color, label=_c(s.label))
    colors.setdefault(base, line.get_color())
    if s.style == "band":
        ax.fill_between(s.xs, s.low, s.high, color=line.get_color(), alpha=0.12)
        ax.fill_between(s.xs, s.inner_low, s.inner_high, color=line.get_color(), alpha=0.28)


def _axes(ax: Any, p: Panel) -> None:
    if p.log2_x:
        xs = sorted({x for s in p.series for x in s.xs})
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs)
        ax.set_xticklabels([f"{x:g}" for x in xs])
        ax.minorticks_off()
    elif p.series and not p.x_labels:
        ax.set_xticks(sorted({x for s in p.series for x in s.xs}))
    if p.log2_y:
        ys = sorted({x for s in p.series for x in s.xs})  # ticks at the requested levels (achieved vs requested)
        ax.set_yscale("log", base=2)
        ax.set_yticks(ys)
        ax.set_yticklabels([f"{y:g}" for y in ys])
        ax.minorticks_off()
    if p.y_max is not None:
        ax.set_ylim(0, p.y_max)
    ax.set_title(_c(p.title))
    ax.set_xlabel(p.xlabel)
    ax.grid(alpha=0.3)


def _lines(ch: ChartData) -> Any:
    fig, axes = _figure(len(ch.panels), width_in=4.2 if len(ch.panels) > 1 else 5.0)
    for ax, p in zip(axes, ch.panels, strict=True):
        colors: dict[str, Any] = {}
        for s in p.series:
            _draw_series(ax, s, colors)
        _axes(ax, p)
    axes[0].set_ylabel(ch.panels[0].ylabel)
    if axes[-1].get_legend_handles_labels()[1]:  # no labelled series (every panel empty): no legend, no warning
        axes[-1].legend(fontsize="x-small")
    return fig


def _bars(ch: ChartData) -> Any:
    (p,) = ch.panels
    fig, (ax,) = _figure(1, width_in=max(5.0, 1.4 * len(p.x_labels)))
    width = 0.8 / max(len(p.series), 1)
    for i, s in enumerate(p.series):
        ax.bar(np.asarray(s.xs) + i * width, _ys(s), width, label=_c(s.label))
    ax.set_xticks(np.arange(len(p.x_labels)) + 0.4 - width / 2, p.x_labels)
    ax.set_ylim(0, p.y_max or 1.05)
    ax.set_ylabel(p.ylabel)
    if ax.get_legend_handles_labels()[1]:
        ax.legend(fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    return fig


def _heatmap(ch: ChartData) -> Any:
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.patches import Rectangle

    first = ch.panels[0]
    fig, axes = _figure(
        len(ch.panels), width_in=max(3.0, 0.55 * len(first.x_labels) + 1.5), height_in=0.5 * len(first.y_labels) + 1.6
    )
    vals = [abs(v) for p in ch.panels for row in p.grid for v in row if v is not None]
    lim = max([0.2, *vals])
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-lim, vmax=lim)
    image = None
    for ax, p in zip(axes, ch.panels, strict=True):
        grid = np.array(
            [[np.nan if v is None else v for v in row] for row in p.grid], dtype=float
        )  # [workloads, levels]
        for i, j in p.grey:
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1.0, 1.0, facecolor="#bdbdbd", edgecolor="white", zorder=0))
        for i, row in enumerate(p.grid_text):
            for j, label in enumerate(row):
                dark = not np.isnan(grid[i, j]) and abs(grid[i, j]) > 0.6 * lim
                ax.text(j, i, label, ha="center", va="center", fontsize=7, color="white" if dark else "black")
        image = ax.imshow(np.ma.masked_invalid(grid), cmap="RdBu", norm=norm, aspect="auto")
        ax.set_facecolor("#d0d0d0")
        ax.set_xticks(range(len(p.x_labels)), [_c(x) for x in p.x_labels])
        ax.set_yticks(range(len(p.y_labels)), [_c(y) for y in p.y_labels])
        ax.set_xlabel(p.xlabel)
        ax.set_title(_c(p.title))
    if image is not None:
        fig.colorbar(image, ax=axes, shrink=0.8).set_label("log2 speedup")
    return fig


def draw_chart(ch: ChartData) -> Chart:
    """Draw one chart (matplotlib must be importable; see :func:`charts_available`)."""
    draw = {"lines": _lines, "bars": _bars, "heatmap": _heatmap}[ch.kind]
    return Chart(ch.name, ch.title, _svg(draw(ch)), ch.note)


def draw_charts(charts: Sequence[ChartData]) -> list[Chart]:
    """Every chart drawn, or none without matplotlib."""
    ok, _ = charts_available()
    return [draw_chart(c) for c in charts] if ok else []
