"""The trace replay table of a run (``bench --trace``): the achieved schedule against the trace
(:func:`specscope.stats.trace.trace_replays`); goodput is in the open-loop table."""

from __future__ import annotations

from collections.abc import Sequence

from specscope.report import units
from specscope.report.document import Cell, Column, Table, text_cell
from specscope.stats.trace import TraceReplay

__all__ = ["trace_table"]


def _ms(x: float) -> Cell:
    return Cell(float(x), f"{x:.2f}")


def trace_table(rows: Sequence[TraceReplay]) -> list[Table]:
    """One table of the trace cells (none when the run replayed no trace)."""
    if not rows:
        return []
    cols = [Column("config"), Column("repeat"), Column("requests"), Column("ok"), Column("time scale", "x")]
    cols += [Column("trace span", "s"), Column("achieved span", "s"), Column("send error p50", "ms")]
    cols += [Column("send error p99", "ms"), Column("send error max", "ms")]
    cols += [Column("input (trace)", "tokens"), Column("prompt (usage)", "tokens")]
    cells = []
    for r in rows:
        row = [text_cell(r.config), units.count(r.repeat), units.count(r.requests), units.count(r.ok)]
        row += [Cell(r.time_scale, f"{r.time_scale:g}"), units.seconds(r.scheduled_span_s)]
        row += [units.seconds(r.achieved_span_s), _ms(r.send_error_p50_ms), _ms(r.send_error_p99_ms)]
        row += [_ms(r.send_error_max_ms), units.count(r.input_tokens_trace_mean), units.count(r.prompt_tokens_mean)]
        cells.append(row)
    note = (
        "Each request sent at the trace's arrival x the time scale; send error = when its bytes left - when the "
        "trace said (the replay's drift from the trace). Input: the trace's mean length beside the server's mean "
        "usage.prompt_tokens. Goodput: the open-loop table."
    )
    return [Table("trace_replay", "Trace replay: achieved schedule against the trace", cols, cells, note)]
