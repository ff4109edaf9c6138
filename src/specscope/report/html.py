"""One self-contained HTML page for one or several runs (``specscope report RUN... --format html``).

The page has, per run: the throughput table (labelled "target N / achieved X.XX", never the
requested N alone; case C16), the paired speedups with 95 % intervals, verdicts and CVs
(:mod:`specscope.stats.speedup`), the acceptance views with identity flags
(:mod:`specscope.stats.acceptance`), degraded cells with their reasons, the server facts, the
manifest, and the charts (:mod:`specscope.report.charts`) as base64 SVG ``<img>`` elements. With
several runs a comparison table puts the same cell of each run side by side (two checkpoints, two
machines). There are no scripts, fonts, stylesheets or images from anywhere else: the page opens
from disk with no network.
"""

from __future__ import annotations

import html
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from specscope.report.charts import charts_available, render_charts
from specscope.stats.acceptance import pooled_acceptance
from specscope.stats.groups import GroupKey, group_cells, metric_value
from specscope.stats.speedup import coefficient_of_variation, paired_speedups
from specscope.stats.summary import CellSummary

__all__ = ["RunView", "run_view", "render_html", "write_html", "write_report_html"]


@dataclass(frozen=True)
class RunView:
    """What the page needs of a run: a name, the manifest, the cells and the server facts."""

    name: str
    manifest: Mapping[str, Any]
    cells: Sequence[CellSummary]
    server_facts: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


def run_view(run: Any) -> RunView:
    """A :class:`RunView` of a RunView or of an open store run (``specscope.store.open_run``)."""
    if isinstance(run, RunView):
        return run
    facts = run.server_facts
    facts = facts() if callable(facts) else facts
    return RunView(Path(run.path).name, dict(run.manifest), list(run.summaries()), dict(facts or {}))


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5rem auto;max-width:1200px;color:#222;padding:0 1rem}
h1{font-size:1.5rem}h2{border-bottom:2px solid #ccc;padding-bottom:.2rem;margin-top:2.5rem}h3{margin-top:1.6rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.85rem}
th,td{border:1px solid #ccc;padding:.2rem .45rem;text-align:right}th{background:#f0f0f0}
td.l,th.l{text-align:left}.wins{background:#d8f0d8}.loses{background:#f6d6d6}.noise{background:#f4f4f4}
.flag{color:#a40000}pre{background:#f7f7f7;padding:.6rem;overflow:auto;font-size:.8rem;max-height:30rem}
figure{margin:1rem 0}figure img{max-width:100%;border:1px solid #eee}figcaption{font-size:.85rem;color:#555}
.note{color:#555;font-size:.85rem}
"""


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _f(x: float | None, fmt: str = "{:.2f}") -> str:
    return "–" if x is None or (isinstance(x, float) and not np.isfinite(x)) else fmt.format(x)


def _table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    cls: str,
    left: int = 1,
    row_classes: Sequence[str] | None = None,
) -> str:
    """Cells in ``rows`` are already HTML-escaped; the first ``left`` columns are left-aligned."""
    head = "".join(f'<th class="l">{_e(h)}</th>' if i < left else f"<th>{_e(h)}</th>" for i, h in enumerate(headers))
    body = []
    for ri, row in enumerate(rows):
        rc = f' class="{row_classes[ri]}"' if row_classes and row_classes[ri] else ""
        body.append(
            f"<tr{rc}>"
            + "".join(f'<td class="l">{c}</td>' if i < left else f"<td>{c}</td>" for i, c in enumerate(row))
            + "</tr>"
        )
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _throughput_rows(cells: Sequence[CellSummary]) -> list[list[str]]:
    rows = []
    for key, by in sorted(
        group_cells(cells, include_degraded=True).items(),
        key=lambda kv: (kv[0].workload, kv[0].concurrency, kv[0].config),
    ):
        tput = [v for v in (metric_value(c, "output_tok_s") for c in by.values() if c.status == "ok") if v is not None]
        ach = [c.achieved_concurrency for c in by.values() if c.achieved_concurrency is not None]
        ttft = [c.ttft_p50_s for c in by.values() if c.ttft_p50_s is not None]
        label = f"target {key.concurrency} / achieved {_f(float(np.mean(ach)) if ach else None)}"
        cv = coefficient_of_variation(tput)
        rows.append(
            [
                _e(key.workload),
                _e(key.config),
                _e(label),
                _f(float(np.mean(tput)) if tput else None, "{:.1f}"),
                _f(None if cv is None else 100 * cv, "{:.2f}%"),
                _f(float(np.mean(ttft)) if ttft else None, "{:.3f}"),
                f"{len(tput)}/{len(by)}",
            ]
        )
    return rows


def _speedup_section(cells: Sequence[CellSummary], baseline: str) -> str:
    if baseline not in {c.config for c in cells}:
        return f'<p class="note">No config named {_e(baseline)!s} in this run: no speedups.</p>'
    sp = paired_speedups(cells, baseline=baseline)
    if not sp:
        return '<p class="note">No paired rounds of a config and the baseline.</p>'
    rows, classes = [], []
    for s in sp:
        ci = "–" if s.ci_low is None else f"{100 * (s.ci_low - 1):+.1f}% … {100 * (s.ci_high - 1):+.1f}%"
        rows.append(
            [
                _e(s.workload),
                _e(s.concurrency),
                _e(s.config),
                _f(None if s.speedup is None else 100 * (s.speedup - 1), "{:+.1f}%"),
                ci,
                _e(s.verdict),
                _f(None if s.config_cv is None else 100 * s.config_cv, "{:.2f}%"),
                _f(None if s.baseline_cv is None else 100 * s.baseline_cv, "{:.2f}%"),
                _e(s.repeats),
                _e(s.note),
            ]
        )
        classes.append({"wins": "wins", "loses": "loses"}.get(s.verdict, "noise"))
    head = [
        "workload",
        "streams",
        "config",
        f"vs {baseline}",
        "95% CI",
        "verdict",
        "CV config",
        "CV base",
        "rounds",
        "note",
    ]
    return (
        _table(head, rows, "speedups", left=3, row_classes=classes)
        + '<p class="note">Paired percentile bootstrap over rounds (scipy, fixed seed, 9999 resamples). An interval '
        "that contains 0% is within noise, never a win. With 2 rounds the interval is only the range of the two "
        "per-round ratios.</p>"
    )


SHOWN_POSITIONS = 8


def _positions(values: list[str]) -> str:
    """The first SHOWN_POSITIONS per-position rates, then how many more (n-gram drafters report 64)."""
    if not values:
        return "–"
    more = len(values) - SHOWN_POSITIONS
    return " / ".join(values[:SHOWN_POSITIONS]) + (f" … (+{more} positions)" if more > 0 else "")


def _acceptance_section(cells: Sequence[CellSummary]) -> str:
    views = pooled_acceptance(cells)
    if not views:
        return '<p class="note">No config drafted (no acceptance counters).</p>'
    rows = []
    for (cfg, wl), v in views.items():
        flags = "<br>".join(f'<span class="flag">{_e(f)}</span>' for f in v.flags) or "ok"
        rows.append(
            [
                _e(cfg),
                _e(wl),
                _f(v.acceptance_rate, "{:.3f}"),
                _f(v.acceptance_length, "{:.3f}"),
                _f(v.length_from_positions, "{:.3f}"),
                _positions([f"{u:.3f}" for u in v.unconditional]),
                _positions(["–" if a is None else f"{a:.3f}" for a in v.conditional]),
                flags,
            ]
        )
    head = ["config", "workload", "rate", "length", "1+Σu_i", "unconditional u_i", "conditional a_i", "check"]
    return (
        _table(head, rows, "acceptance", left=2)
        + '<p class="note">rate = accepted/drafted tokens; length = 1 + accepted/drafts; u_i = accepted at i / drafts '
        "(vLLM); a_i = accepted at i / accepted at i-1 (EAGLE). A consistent server has length = 1 + Σu_i.</p>"
    )


def _degraded_section(cells: Sequence[CellSummary]) -> str:
    bad = [c for c in cells if c.status != "ok"]
    if not bad:
        return "<p>Every cell is ok.</p>"
    rows = [
        [
            _e(c.config),
            _e(c.workload),
            _e(c.concurrency),
            _e(c.repeat),
            _e(c.status),
            _e(", ".join(c.reasons) or "–"),
            f"{c.streams_ok}/{c.streams}",
        ]
        for c in sorted(bad, key=lambda c: (c.config, c.workload, c.concurrency, c.repeat))
    ]
    return _table(
        ["config", "workload", "streams", "round", "status", "reasons", "streams ok"], rows, "degraded", left=2
    )


def _pre_json(data: Any) -> str:
    return f"<pre>{_e(json.dumps(data, indent=2, sort_keys=True, default=str))}</pre>"


def _compare_section(views: Sequence[RunView]) -> str:
    means: list[dict[GroupKey, float]] = []
    for v in views:
        g = group_cells(v.cells)
        means.append(
            {
                k: float(np.mean(vals))
                for k, by in g.items()
                if (vals := [x for x in (metric_value(c, "output_tok_s") for c in by.values()) if x is not None])
            }
        )
    keys = sorted(set().union(*means), key=lambda k: (k.workload, k.concurrency, k.config))
    rows = []
    for k in keys:
        first = means[0].get(k)
        row = [_e(k.workload), _e(k.concurrency), _e(k.config)]
        for m in means:
            val = m.get(k)
            rel = "" if val is None or not first or m is means[0] else f" ({100 * (val / first - 1):+.1f}%)"
            row.append(_f(val, "{:.1f}") + rel)
        rows.append(row)
    head = ["workload", "streams", "config", *[f"{v.name} tok/s" for v in views]]
    return (
        _table(head, rows, "compare", left=3)
        + f'<p class="note">Mean output tok/s of ok rounds; percentages are relative to {_e(views[0].name)}.</p>'
    )


def _report_tables_html(tables: Sequence[Any]) -> str:
    """The text report's tables (specscope.report.tables.ReportTable) as HTML tables with their notes."""
    out = []
    for t in tables:
        out.append(
            f"<h4>{_e(t.title)}</h4>"
            + _table(t.columns, [[_e(c) for c in row] for row in t.rows], f"report-{_e(t.key.split(':')[0])}", left=2)
        )
        if t.note:
            out.append(f'<p class="note">{_e(t.note)}</p>')
    return "\n".join(out)


_MORE_TABLES = ("stream_spread", "ttft", "concurrency", "cv", "crashes", "kv", "failures", "drafts")


def _run_section(v: RunView, idx: int, baseline: str) -> str:
    from specscope.report.build import run_table
    from specscope.report.server_facts import server_tables
    from specscope.report.tables import bench_tables

    baseline = str(v.manifest.get("baseline") or baseline)
    parts = [f'<section class="run" id="run-{idx}"><h2>Run {_e(v.name)}</h2>']
    parts.append(_report_tables_html([run_table(dict(v.manifest), dict(v.server_facts), len(v.cells), Path(v.name))]))
    parts.append(
        "<h3>Throughput</h3>"
        + _table(
            ["workload", "config", "concurrency", "output tok/s", "CV", "TTFT p50 s", "ok rounds"],
            _throughput_rows(v.cells),
            "throughput",
            left=3,
        )
    )
    parts.append("<h3>Speedup vs baseline</h3>" + _speedup_section(v.cells, baseline))
    parts.append("<h3>Acceptance</h3>" + _acceptance_section(v.cells))
    parts.append("<h3>Degraded cells</h3>" + _degraded_section(v.cells))
    more = [
        t
        for t in bench_tables(v.cells, baseline=baseline) + server_tables(v.server_facts, baseline=baseline)
        if t.key in _MORE_TABLES and t.rows
    ]
    if more:
        parts.append(
            "<h3>Per-stream spread, TTFT, concurrency, noise and server facts</h3>" + _report_tables_html(more)
        )
    ok, hint = charts_available()
    charts = render_charts(v.cells, baseline) if ok else []
    parts.append("<h3>Charts</h3>")
    if not ok:
        parts.append(f'<p class="note charts-missing">{_e(hint)}</p>')
    for ch in charts:
        parts.append(
            f'<figure class="chart" data-chart="{_e(ch.name)}"><img src="{ch.data_uri}" alt="{_e(ch.title)}">'
            f"<figcaption>{_e(ch.title)}</figcaption></figure>"
        )
    parts.append(
        "<h3>Server facts</h3>" + (_pre_json(dict(v.server_facts)) if v.server_facts else "<p>None recorded.</p>")
    )
    parts.append(f"<h3>Manifest</h3><details><summary>manifest.json</summary>{_pre_json(dict(v.manifest))}</details>")
    parts.append("</section>")
    return "\n".join(parts)


def render_html(runs: Sequence[Any], *, baseline: str = "base", title: str | None = None) -> str:
    """The page for ``runs`` (RunView objects or open store runs), as one HTML string (UTF-8 text).

    Raises:
        ValueError: ``runs`` is empty (a programming error; the CLI requires at least one RUN).
    """
    views = [run_view(r) for r in runs]
    if not views:
        raise ValueError("render_html needs at least one run")
    title = title or (
        "specscope report" if len(views) == 1 else "specscope report: " + ", ".join(v.name for v in views)
    )
    body = [f"<h1>{_e(title)}</h1>"]
    if len(views) > 1:
        body.append("<h2>Comparison</h2>" + _compare_section(views))
    body += [_run_section(v, i, baseline) for i, v in enumerate(views)]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{_e(title)}</title>'
        f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def write_html(path: str | os.PathLike[str], runs: Sequence[Any], **kw: Any) -> Path:
    """Render and write atomically (temp file in the same folder, then ``os.replace``); returns the path."""
    target = Path(path)
    text = render_html(runs, **kw)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; a report is meant to be shared
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def write_report_html(run_paths: Sequence[str | os.PathLike[str]], target: str | os.PathLike[str], **kw: Any) -> Path:
    """Open the run folders (``specscope.store.open_run``), write their page atomically to ``target``.

    Raises:
        StoreError: a path is not a run folder.
    """
    from specscope.store import open_run

    runs = [open_run(p) for p in run_paths]
    try:
        return write_html(target, runs, **kw)
    finally:
        for r in runs:
            r.close()
