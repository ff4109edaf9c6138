"""Charts of a run as self-contained SVG (matplotlib, the optional ``charts`` extra).

Every chart function takes a run's cells (and derived statistics) and returns a :class:`Chart` whose
``svg`` is a complete SVG document with text drawn as paths (``svg.fonttype = "path"``), so it needs
no font or network when embedded; ``data_uri`` wraps it for an ``<img>``. Figures are built on
``matplotlib.figure.Figure`` directly (no pyplot global state), with a fixed hash salt and no date
so the same run renders the same bytes.

Without matplotlib, :func:`charts_available` returns False with the install hint and
:func:`render_charts` returns no charts; callers show the hint instead (the HTML page does).
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from specscope.stats.acceptance import AcceptanceView, pooled_acceptance
from specscope.stats.groups import GroupKey, group_cells, metric_value
from specscope.stats.speedup import Speedup, paired_speedups
from specscope.stats.summary import CellSummary

__all__ = ["Chart", "CHARTS_HINT", "charts_available", "render_charts"]

CHARTS_HINT = "charts need matplotlib: pip install 'specscope[charts]'"


@dataclass(frozen=True)
class Chart:
    """One figure: ``name`` (a stable id), ``title``, ``svg`` (a complete SVG document, UTF-8 text)."""

    name: str
    title: str
    svg: str

    @property
    def data_uri(self) -> str:
        return "data:image/svg+xml;base64," + base64.b64encode(self.svg.encode("utf-8")).decode("ascii")


def charts_available() -> tuple[bool, str]:
    """(True, "") when matplotlib imports, else (False, the install hint)."""
    try:
        import matplotlib  # noqa: F401
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError:
        return False, CHARTS_HINT
    return True, ""


def _svg(fig) -> str:
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "specscope", "svg.fonttype": "path"}):
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    return buf.getvalue()


def _figure(n_panels: int, width_in: float = 4.2, height_in: float = 3.2):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(max(width_in * n_panels, 5.0), height_in), layout="constrained")
    axes = fig.subplots(1, n_panels, squeeze=False)[0]
    return fig, list(axes)


def _log2_axis(ax, levels: Sequence[int]) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(levels))
    ax.set_xticklabels([str(c) for c in levels])
    ax.minorticks_off()


def _order(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def throughput_chart(
    cells: Sequence[CellSummary],
    metric: str = "output_tok_s",
    title: str = "Throughput vs concurrency",
    ylabel: str = "output tokens/s (all streams)",
    name: str = "throughput",
) -> Chart | None:
    """One panel per workload, one line per config: mean of ``metric`` over rounds vs requested streams."""
    groups = group_cells(cells)
    workloads, configs = _order(c.workload for c in cells), _order(c.config for c in cells)
    levels = sorted({k.concurrency for k in groups})
    if not groups:
        return None
    fig, axes = _figure(len(workloads))
    for ax, wl in zip(axes, workloads):
        for cfg in configs:
            xs, ys = [], []
            for lev in levels:
                vals = [metric_value(c, metric) for c in groups.get(GroupKey(cfg, wl, lev), {}).values()]
                vals = [v for v in vals if v is not None]
                if vals:
                    xs.append(lev)
                    ys.append(float(np.mean(vals)))
            if xs:
                ax.plot(xs, ys, marker="o", label=cfg)
        _log2_axis(ax, levels)
        ax.set_title(wl)
        ax.set_xlabel("requested streams")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(ylabel)
    axes[-1].legend(fontsize="small")
    return Chart(name, title, _svg(fig))


def speedup_heatmap(cells: Sequence[CellSummary], speedups: Sequence[Speedup]) -> Chart | None:
    """Workload x concurrency heatmap of the speedup per non-baseline config; degraded groups grey.

    Colour is log2(speedup) on a diverging map centred on 1.0; text is the gain in %, with ``~`` for
    within noise. A group with any degraded / failed / crashed cell is drawn grey and marked ``deg``.
    """
    if not speedups:
        return None
    from matplotlib.colors import TwoSlopeNorm

    configs = _order(s.config for s in speedups)
    workloads = _order(c.workload for c in cells)
    levels = sorted({c.concurrency for c in cells})
    bad = {(c.config, c.workload, c.concurrency) for c in cells if c.status != "ok"}
    baseline = speedups[0].baseline
    fig, axes = _figure(len(configs), width_in=max(3.0, 0.55 * len(levels) + 1.5), height_in=0.5 * len(workloads) + 1.6)
    lim = max(0.2, max(abs(math.log2(s.speedup)) for s in speedups if s.speedup))
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-lim, vmax=lim)
    by = {(s.config, s.workload, s.concurrency): s for s in speedups}
    image = None
    for ax, cfg in zip(axes, configs):
        grid = np.full((len(workloads), len(levels)), np.nan)  # [workloads, levels] log2 speedup
        for i, wl in enumerate(workloads):
            for j, lev in enumerate(levels):
                s = by.get((cfg, wl, lev))
                degraded = (cfg, wl, lev) in bad or (baseline, wl, lev) in bad
                if s is not None and s.speedup and not degraded:
                    grid[i, j] = math.log2(s.speedup)
                label = (
                    "deg"
                    if degraded
                    else (
                        ""
                        if s is None or s.speedup is None
                        else f"{100 * (s.speedup - 1):+.0f}%" + ("~" if s.verdict == "within noise" else "")
                    )
                )
                if degraded:
                    ax.add_patch(_grey_patch(j, i))
                dark = not np.isnan(grid[i, j]) and abs(grid[i, j]) > 0.6 * lim
                ax.text(j, i, label, ha="center", va="center", fontsize=7, color="white" if dark else "black")
        image = ax.imshow(np.ma.masked_invalid(grid), cmap="RdBu", norm=norm, aspect="auto")
        ax.set_facecolor("#d0d0d0")
        ax.set_xticks(range(len(levels)), [str(c) for c in levels])
        ax.set_yticks(range(len(workloads)), workloads)
        ax.set_xlabel("requested streams")
        ax.set_title(f"{cfg} vs {baseline}")
    if image is not None:
        cb = fig.colorbar(image, ax=axes, shrink=0.8)
        cb.set_label("log2 speedup")
    return Chart("speedup_heatmap", "Speedup vs baseline (~ within noise, grey: degraded)", _svg(fig))


def _grey_patch(x: int, y: int):
    from matplotlib.patches import Rectangle

    return Rectangle((x - 0.5, y - 0.5), 1.0, 1.0, facecolor="#bdbdbd", edgecolor="white", zorder=0)


def acceptance_chart(views: dict[tuple[str, str | None], AcceptanceView]) -> Chart | None:
    """Grouped bars: acceptance rate per workload, one bar per drafting config."""
    if not views:
        return None
    configs = _order(c for c, _ in views)
    workloads = _order(w for _, w in views)
    fig, (ax,) = _figure(1, width_in=max(5.0, 1.4 * len(workloads)))
    width = 0.8 / len(configs)
    for i, cfg in enumerate(configs):
        ys = [(views.get((cfg, w)).acceptance_rate or 0.0) if views.get((cfg, w)) else 0.0 for w in workloads]
        ax.bar(np.arange(len(workloads)) + i * width, ys, width, label=cfg)
    ax.set_xticks(np.arange(len(workloads)) + 0.4 - width / 2, workloads)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accepted / drafted tokens")
    ax.legend(fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    return Chart("acceptance", "Acceptance rate by config and workload", _svg(fig))


def position_chart(views: dict[tuple[str, str | None], AcceptanceView]) -> Chart | None:
    """Per-position acceptance: unconditional u_i (solid) and conditional a_i (dashed) per config x workload."""
    views = {k: v for k, v in views.items() if v.unconditional}
    if not views:
        return None
    configs = _order(c for c, _ in views)
    fig, axes = _figure(len(configs))
    for ax, cfg in zip(axes, configs):
        for (c, wl), v in views.items():
            if c != cfg:
                continue
            pos = np.arange(1, len(v.unconditional) + 1)  # [k]
            (line,) = ax.plot(pos, v.unconditional, marker="o", label=f"{wl} unconditional")
            cond = [np.nan if a is None else a for a in v.conditional]
            ax.plot(pos, cond, linestyle="--", marker="x", color=line.get_color(), label=f"{wl} conditional")
        ax.set_title(cfg)
        ax.set_xticks(range(1, 1 + max(len(v.unconditional) for (c, _), v in views.items() if c == cfg)))
        ax.set_xlabel("draft position")
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("acceptance")
    axes[-1].legend(fontsize="x-small")
    return Chart("positions", "Per-position acceptance (solid: accepted/drafts, dashed: conditional)", _svg(fig))


def stream_band_chart(cells: Sequence[CellSummary]) -> Chart | None:
    """Per-stream tok/s vs concurrency: min..max and p05..p95 bands and the p50 line per config.

    Streams of all usable rounds of a group are pooled before taking the percentiles (numpy, linear).
    """
    groups = group_cells(cells)
    if not any(c.stream_tok_s for by in groups.values() for c in by.values()):
        return None
    workloads, configs = _order(c.workload for c in cells), _order(c.config for c in cells)
    levels = sorted({k.concurrency for k in groups})
    fig, axes = _figure(len(workloads))
    for ax, wl in zip(axes, workloads):
        for cfg in configs:
            xs, q = [], []
            for lev in levels:
                pooled = [v for c in groups.get(GroupKey(cfg, wl, lev), {}).values() for v in c.stream_tok_s]
                if pooled:
                    xs.append(lev)
                    q.append(np.percentile(pooled, [0, 5, 50, 95, 100]))  # [5] tokens/s
            if not xs:
                continue
            qa = np.array(q)  # [levels, 5]
            (line,) = ax.plot(xs, qa[:, 2], marker="o", label=cfg)
            ax.fill_between(xs, qa[:, 0], qa[:, 4], color=line.get_color(), alpha=0.12)
            ax.fill_between(xs, qa[:, 1], qa[:, 3], color=line.get_color(), alpha=0.28)
        _log2_axis(ax, levels)
        ax.set_title(wl)
        ax.set_xlabel("requested streams")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("tokens/s per stream")
    axes[-1].legend(fontsize="small")
    return Chart("stream_bands", "Per-stream tok/s (band min..max, p05..p95; line p50)", _svg(fig))


def achieved_chart(cells: Sequence[CellSummary]) -> Chart | None:
    """Achieved (time-weighted, from the wire) vs requested concurrency per config, with the diagonal."""
    groups = group_cells(cells, include_degraded=True)
    configs = _order(c.config for c in cells)
    levels = sorted({k.concurrency for k in groups})
    if not levels:
        return None
    fig, (ax,) = _figure(1, width_in=5.0)
    ax.plot(levels, levels, color="grey", linestyle=":", label="requested")
    for cfg in configs:
        xs, ys = [], []
        for lev in levels:
            vals = [
                c.achieved_concurrency
                for k, by in groups.items()
                if k.config == cfg and k.concurrency == lev
                for c in by.values()
                if c.achieved_concurrency is not None
            ]
            if vals:
                xs.append(lev)
                ys.append(float(np.mean(vals)))
        if xs:
            ax.plot(xs, ys, marker="o", label=cfg)
    _log2_axis(ax, levels)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("requested streams")
    ax.set_ylabel("achieved streams")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return Chart("achieved", "Achieved vs requested concurrency", _svg(fig))


def render_charts(cells: Sequence[CellSummary], baseline: str = "base") -> list[Chart]:
    """All charts of one run that have data (none without matplotlib; see :func:`charts_available`)."""
    ok, _ = charts_available()
    cells = list(cells)
    if not ok or not cells:
        return []
    configs = {c.config for c in cells}
    speedups = paired_speedups(cells, baseline=baseline) if baseline in configs else []
    views = pooled_acceptance(cells)
    charts = [
        throughput_chart(cells),
        speedup_heatmap(cells, speedups),
        acceptance_chart(views),
        position_chart(views),
        stream_band_chart(cells),
        throughput_chart(cells, "ttft_p50_s", "TTFT vs concurrency (median)", "TTFT p50 (s)", "ttft"),
        achieved_chart(cells),
    ]
    return [c for c in charts if c is not None]
