"""The "server capacity" and "per-stream timing" tables: what the server really ran (issue 12, part 4).

Per config, workload and requested N (ok cells only, means over repeats). Capacity: the client's achieved
concurrency (streams in flight), the server's running and waiting gauges (time-weighted while the load was offered,
``specscope.stats.capacity``), the ceiling (most requests running in any sample), the median queue wait the
responses reported and the cells' ``CAPACITY_LIMITED(ceiling=C, requested=N)`` reasons. Timing:
TTFT and TTFO medians, the queue time the server reports, the streams' own decode rate beside their send-to-end rate.
The notes name the gauges, histograms and response fields from the adapters' declarations
(:func:`specscope.adapters.names.gauge_names_text`, :func:`~specscope.adapters.per_response.queue_fields_text`).
``CAPACITY_LIMITED`` is shown when the server ran fewer than requested while requests waited (seed 000: DFlash
requested 64, ran at most 22, 43 waiting, TTFT 138 s).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from specscope.adapters.names import gauge_names_text, queue_histograms_text
from specscope.adapters.per_response import queue_fields_text
from specscope.report import units
from specscope.report.document import Cell, Column, Table, text_cell
from specscope.report.tables import RunCells
from specscope.stats.capacity import LIMITED_CODE
from specscope.stats.descriptive import group_mean, pooled_median
from specscope.stats.summary import CellSummary

__all__ = ["capacity_table", "stream_timing_table"]


def _finding(cells: Sequence[CellSummary]) -> Cell:
    """The cells' ``CAPACITY_LIMITED(...)`` reasons (each distinct one) and in how many rounds, else ``reached``."""
    limited = [r for c in cells for r in c.reasons if r.startswith(LIMITED_CODE)]
    if not limited:
        return text_cell("reached" if any(c.running_concurrency is not None for c in cells) else units.DASH)
    return text_cell(f"{'; '.join(sorted(set(limited)))} in {len(limited)} of {len(cells)} rounds")


def _key(config: str, workload: str, n: int) -> list[Cell]:
    """The row's first three cells: config, workload and requested N (requests)."""
    return [text_cell(config), text_cell(workload), units.count(n)]


def _means(cells: Sequence[CellSummary], fmt: Callable[[float | None], Cell], *fields: str) -> list[Cell]:
    """``fmt`` of the mean of each of ``fields`` (in their own units) over ``cells``, in order
    (:func:`specscope.stats.descriptive.group_mean`)."""
    return [fmt(group_mean(cells, f)) for f in fields]


def _row(cells: Sequence[CellSummary], config: str, workload: str, n: int) -> list[Cell]:
    ceilings = [c.running_max for c in cells if c.running_max is not None]
    return [
        *_key(config, workload, n),
        *_means(cells, units.requests, "achieved_concurrency", "running_concurrency", "waiting_mean"),
        units.count(max(ceilings) if ceilings else None),
        *_means(cells, units.seconds, "queue_p50_s"),
        _finding(cells),
    ]


def _timing_row(cells: Sequence[CellSummary], config: str, workload: str, n: int) -> list[Cell]:
    return [
        *_key(config, workload, n),
        *_means(cells, units.seconds, "ttft_p50_s", "ttfo_p50_s", "queue_mean_s"),
        units.tok_s(pooled_median(cells, "decode_tok_s")),
        units.tok_s(pooled_median(cells, "stream_tok_s")),
    ]


def _groups(rc: RunCells) -> list[tuple[str, str, int, list[CellSummary]]]:
    out = []
    for config in rc.configs:
        for workload in rc.workloads:
            for n in rc.levels:
                cells = rc.ok(config, workload, n)
                if cells:
                    out.append((config, workload, n, cells))
    return out


def _table(
    rc: RunCells, name: str, title: str, columns: list[Column], note: str, row: Callable[..., list[Cell]]
) -> Table | None:
    """A table of one ``row(cells, config, workload, n)`` per group with ok cells, after the key columns; None
    for a run stored before the gauges were sampled (no cell has gauge samples)."""
    if not any(c.gauge_samples for c in rc.cells):
        return None
    level = Column("N", "requested") if not rc.axis.open else units.level_column(rc.axis)
    cols = [Column("config"), Column("workload"), level, *columns]
    rows = [row(cells, cfg, wl, n) for cfg, wl, n, cells in _groups(rc)]
    if rc.axis.open:  # the level is a rate (or the trace), not a requested N
        rows = [[*r[:2], units.level(rc.axis, g[2]), *r[3:]] for r, g in zip(rows, _groups(rc), strict=True)]
    return Table(name, title, cols, rows, note)


def stream_timing_table(rc: RunCells) -> Table | None:
    """Per-stream timing beside the capacity table: TTFT, TTFO, queue, decode rate vs send-to-end rate (ok cells);
    None, like the capacity table, for a run stored before the gauges were sampled."""
    note = (
        "decode: each stream's (tokens - 1) / (last - first token), no queueing or prefill; e2e: its tokens /"
        " (end - send); TTFO: to the first content token after reasoning; queue: mean of the server's queue-time"
        f" histogram over the cell ({queue_histograms_text()}; other servers report none). TTFT, TTFO and queue: means"
        " over ok rounds of each round's figure; decode p50 and e2e p50: the median over every stream of the ok"
        " rounds (the throughput table's per-stream columns are means)."
    )
    timing = ("TTFT p50", "s"), ("TTFO p50", "s"), ("queue", "s"), ("decode p50", "tok/s"), ("e2e p50", "tok/s")
    cols = [Column(name, unit) for name, unit in timing]
    return _table(rc, "stream_timing", "Per-stream timing: waiting, prefill and decode apart", cols, note, _timing_row)


def capacity_table(rc: RunCells) -> Table | None:
    """The server capacity table of a run's ok cells, or None when no cell has gauge samples."""
    if rc.axis.open:
        level = f"{rc.axis.name}: the offered load (an open loop requests no concurrency)"
        window = "time-weighted over the cell (first send to last end)"
        limited = ""
    else:
        level = "N: requested concurrency"
        window = "time-weighted while all N requests were out"
        limited = (
            "; CAPACITY_LIMITED (a reason of the cell that leaves it ok): running stayed below N while requests waited"
        )
    note = (
        f"{level}; client: streams in flight as the client saw them (achieved); running / waiting:"
        f" the server's gauges ({gauge_names_text()}, summed over engines) sampled a few times a second, {window};"
        " ceiling: the most running in any sample; queue p50: the median of the queue waits the responses reported"
        f" ({queue_fields_text()}; other servers report none){limited}. Means over ok rounds."
    )
    gauges = [("client", "streams"), ("running", "requests"), ("waiting", "requests"), ("ceiling", "requests")]
    gauges.append(("queue p50", "s"))
    cols = [*(Column(name, unit) for name, unit in gauges), Column("capacity")]
    return _table(rc, "capacity", "Server capacity: requested vs what the server ran", cols, note, _row)
