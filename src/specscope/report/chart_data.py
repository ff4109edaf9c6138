"""The numbers behind a run's charts (:class:`~specscope.report.document.ChartData`), computed once here.

Every chart uses ok cells only (:class:`specscope.report.tables.RunCells`), the same cells as the
tables; a group with a degraded, failed or crashed cell is greyed in the speedup heatmap. Per-position
charts stop at the first position whose unconditional acceptance is below :data:`POSITION_FLOOR` (1 %),
because an n-gram drafter reports 64 positions and the tail is all zeros; the chart's note says so.
"""

from __future__ import annotations

import math

from specscope.report import units
from specscope.report.acceptance_tables import POSITION_FLOOR, acceptance_views, shown_positions
from specscope.report.document import ChartData, Panel, Series
from specscope.report.tables import RunCells
from specscope.stats.descriptive import group_mean, pooled_stream_quantiles

__all__ = ["run_charts"]


def _per_workload_lines(rc: RunCells, field: str, name: str, title: str, ylabel: str) -> ChartData:
    panels = []
    for w in rc.workloads:
        series = []
        for c in rc.configs:
            pts = [(n, group_mean(rc.ok(c, w, n), field)) for n in rc.levels]
            pts = [(n, y) for n, y in pts if y is not None]
            if pts:
                series.append(Series(c, tuple(float(n) for n, _ in pts), tuple(y for _, y in pts)))
        panels.append(Panel(w, "requested streams", ylabel, tuple(series), log2_x=True))
    return ChartData(name, title, "lines", tuple(panels))


def _heatmap(rc: RunCells) -> ChartData | None:
    if not rc.has_baseline or len(rc.configs) < 2:
        return None
    by = {(s.config, s.workload, s.level): s for s in rc.comparisons}
    bad = {(c.config, c.workload, c.concurrency) for c in rc.cells if c.status != "ok"}
    panels = []
    for cfg in rc.others:
        grid, text, grey = [], [], []
        for i, w in enumerate(rc.workloads):
            g_row: list[float | None] = []
            t_row: list[str] = []
            for j, n in enumerate(rc.levels):
                s = by.get((cfg, w, n))
                # the judgement's speedup and verdict (failed rounds already left out of it); grey only where it has
                # none and a cell was not ok: the chart never judges a group on its own
                judged = s is not None and bool(s.speedup)
                degraded = not judged and ((cfg, w, n) in bad or (rc.baseline, w, n) in bad)
                g_row.append(math.log2(s.speedup) if judged and s is not None and s.speedup else None)
                if degraded:
                    grey.append((i, j))
                    t_row.append("deg")
                elif s is None or s.speedup is None:
                    t_row.append("")
                else:
                    t_row.append(units.speedup(s.speedup).text + ("" if s.verdict in ("faster", "slower") else "~"))
            grid.append(tuple(g_row))
            text.append(tuple(t_row))
        panels.append(
            Panel(
                f"{cfg} vs {rc.baseline}",
                "requested streams",
                "",
                (),
                x_labels=tuple(str(n) for n in rc.levels),
                y_labels=rc.workloads,
                grid=tuple(grid),
                grid_text=tuple(text),
                grey=tuple(grey),
            )
        )
    return ChartData(
        "speedup_heatmap", "Speedup vs baseline (~ neither faster nor slower, grey: degraded)", "heatmap", tuple(panels)
    )


def _acceptance_bars(rc: RunCells) -> ChartData | None:
    views = acceptance_views(rc)
    if not views:
        return None
    configs = list(dict.fromkeys(c for c, _ in views))
    series = tuple(
        Series(
            c,
            tuple(float(i) for i in range(len(rc.workloads))),
            # no bar where nothing was measured (no counter, or 0 drafts: not engaged), as the table's '—'
            tuple(v.acceptance_rate if (v := views.get((c, w))) else None for w in rc.workloads),
            style="bar",
        )
        for c in configs
    )
    panel = Panel("", "", "accepted / drafted tokens", series, y_max=1.05, x_labels=rc.workloads)
    return ChartData("acceptance", "Acceptance rate by config and workload", "bars", (panel,))


def _positions(rc: RunCells) -> ChartData | None:
    views = {k: v for k, v in acceptance_views(rc).items() if v.unconditional}
    if not views:
        return None
    panels, cut = [], []
    for cfg in dict.fromkeys(c for c, _ in views):
        series: list[Series] = []
        for (c, wl), v in views.items():
            if c != cfg:
                continue
            k = shown_positions(v.unconditional)
            if k < len(v.unconditional):
                cut.append(f"{c} {wl}: {k} of {len(v.unconditional)}")
            xs = tuple(float(i) for i in range(1, k + 1))
            series.append(Series(f"{wl} unconditional", xs, tuple(v.unconditional[:k])))
            series.append(Series(f"{wl} conditional", xs, tuple(v.conditional[:k]), style="dashed"))
        panels.append(Panel(cfg, "draft position", "acceptance", tuple(series), y_max=1.05))
    note = (
        f"Positions shown until acceptance falls below {units.rate(POSITION_FLOOR, 0).text} ({'; '.join(cut)})."
        if cut
        else ""
    )
    return ChartData(
        "positions",
        "Per-position acceptance (solid: accepted/drafts, dashed: conditional)",
        "lines",
        tuple(panels),
        note,
    )


def _stream_bands(rc: RunCells) -> ChartData | None:
    if not any(s.stream_tok_s for by in rc.groups.values() for s in by.values()):
        return None
    panels = []
    for w in rc.workloads:
        series = []
        for c in rc.configs:
            xs, q = [], []
            for n in rc.levels:
                quantiles = pooled_stream_quantiles(rc.ok(c, w, n))  # [5] tokens/s
                if quantiles is not None:
                    xs.append(float(n))
                    q.append(quantiles)
            if xs:
                qa = list(zip(*q, strict=True))
                series.append(Series(c, tuple(xs), qa[2], "band", qa[0], qa[4], qa[1], qa[3]))
        panels.append(Panel(w, "requested streams", "tokens/s per stream", tuple(series), log2_x=True))
    return ChartData("stream_bands", "Per-stream tok/s (band min..max, p05..p95; line p50)", "lines", tuple(panels))


def _achieved(rc: RunCells) -> ChartData | None:
    if not rc.levels:
        return None
    levels = tuple(float(n) for n in rc.levels)
    series = []
    for c in rc.configs:
        every_workload = {n: [s for w in rc.workloads for s in rc.ok(c, w, n)] for n in rc.levels}
        pts = [(n, group_mean(every_workload[n], "achieved_concurrency")) for n in rc.levels]
        pts = [(n, y) for n, y in pts if y is not None]
        if pts:
            series.append(Series(c, tuple(float(n) for n, _ in pts), tuple(y for _, y in pts)))
    series.append(Series("requested", levels, levels, style="reference"))  # last: drawn on top, dashed
    panel = Panel("", "requested streams", "achieved streams", tuple(series), log2_x=True, log2_y=True)
    return ChartData("achieved", "Achieved vs requested concurrency (dashed: requested)", "lines", (panel,))


def run_charts(rc: RunCells) -> list[ChartData]:
    """Every chart of one run that has data, in the page's order."""
    if not rc.cells:
        return []
    charts = [
        _per_workload_lines(
            rc, "output_tok_s", "throughput", "Throughput vs concurrency", "output tokens/s (streams that did not fail)"
        ),
        _heatmap(rc),
        _acceptance_bars(rc),
        _positions(rc),
        _stream_bands(rc),
        _per_workload_lines(rc, "ttft_p50_s", "ttft", "TTFT vs concurrency (median)", "TTFT p50 (s)"),
        _achieved(rc),
    ]
    return [c for c in charts if c is not None]
