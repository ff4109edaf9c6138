"""The "server capacity" table: what the server really ran beside what was requested (issue 12, part 4).

Per config, workload and requested N (ok cells only, means over repeats): the client's achieved concurrency
(streams in flight), the server's running and waiting gauges (time-weighted while the load was offered,
``specscope.stats.capacity``), the ceiling (most requests running in any sample), TTFT and TTFO medians, the
streams' own decode rate beside their send-to-end rate, and ``CAPACITY_LIMITED`` when the server ran fewer than
requested while requests waited (seed 000: DFlash requested 64, ran at most 22, 43 waiting, TTFT 138 s).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from specscope.report import units
from specscope.report.document import Cell, Column, Table, text_cell
from specscope.report.tables import RunCells
from specscope.stats.summary import CellSummary

__all__ = ["capacity_table"]


def _mean(xs: Sequence[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


def _median_of(cells: Sequence[CellSummary], pick: str) -> float | None:
    vals = [v for c in cells for v in getattr(c, pick)]
    return statistics.median(vals) if vals else None


def _finding(cells: Sequence[CellSummary]) -> Cell:
    limited = [c.capacity_limited for c in cells if c.capacity_limited]
    if not limited:
        return text_cell("reached" if any(c.running_concurrency is not None for c in cells) else units.DASH)
    return text_cell(f"{limited[0]} in {len(limited)} of {len(cells)} rounds")


def _row(cells: Sequence[CellSummary], config: str, workload: str, n: int) -> list[Cell]:
    ceilings = [c.running_max for c in cells if c.running_max is not None]
    return [
        text_cell(config),
        text_cell(workload),
        units.count(n),
        units.requests(_mean([c.achieved_concurrency for c in cells])),
        units.requests(_mean([c.running_concurrency for c in cells])),
        units.requests(_mean([c.waiting_mean for c in cells])),
        units.count(max(ceilings) if ceilings else None),
        units.seconds(_mean([c.ttft_p50_s for c in cells])),
        units.seconds(_mean([c.ttfo_p50_s for c in cells])),
        units.seconds(_mean([c.queue_mean_s for c in cells])),
        units.tok_s(_median_of(cells, "decode_tok_s")),
        units.tok_s(_median_of(cells, "stream_tok_s")),
        _finding(cells),
    ]


def capacity_table(rc: RunCells) -> Table | None:
    """The server capacity table of a run's ok cells, or None when no cell has gauge samples."""
    if not any(c.gauge_samples for c in rc.cells):
        return None
    rows = []
    for config in rc.configs:
        for workload in rc.workloads:
            for n in rc.levels:
                cells = rc.ok(config, workload, n)
                if cells:
                    rows.append(_row(cells, config, workload, n))
    cols = [
        Column("config"),
        Column("workload"),
        Column("N", "requested"),
        Column("client", "streams"),
        Column("running", "requests"),
        Column("waiting", "requests"),
        Column("ceiling", "requests"),
        Column("TTFT p50", "s"),
        Column("TTFO p50", "s"),
        Column("queue", "s"),
        Column("decode p50", "tok/s"),
        Column("e2e p50", "tok/s"),
        Column("capacity"),
    ]
    note = (
        "N: requested concurrency; client: streams in flight as the client saw them (achieved); running / waiting:"
        " the server's gauges (vllm:num_requests_running / _waiting, llamacpp:requests_processing / _deferred, summed"
        " over engines) sampled a few times a second, time-weighted while all N requests were out; ceiling: the most"
        " running in any sample; decode: each stream's (tokens - 1) / (last - first token); e2e: its tokens /"
        " (end - send); TTFO: to the first content token after reasoning; queue: mean of vLLM's"
        " request_queue_time_seconds over the cell (not reported by llama.cpp). Means over ok rounds."
    )
    return Table("capacity", "Server capacity: requested vs what the server ran", cols, rows, note)
