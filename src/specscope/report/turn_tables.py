"""The conversations of a run, per turn index: acceptance and speed (:func:`specscope.stats.turns.turn_rows`)."""

from __future__ import annotations

from collections.abc import Sequence

from specscope.report import units
from specscope.report.document import Column, Table, text_cell
from specscope.stats.turns import TurnRow

__all__ = ["turn_table"]


def turn_table(rows: Sequence[TurnRow], conversations: tuple[int, int] = (0, 0)) -> list[Table]:
    """One table of the run's conversation turns (none when the run has no conversations).

    ``conversations``: ``(conversations, ended early)`` of the usable cells."""
    if not rows:
        return []
    cols = [Column("config"), Column("workload"), Column("turn"), Column("streams"), Column("ok")]
    cols += [Column("prompt (usage)", "tokens"), Column("acceptance", "%"), Column("drafted", "tokens")]
    cols += [Column("TTFT p50", "s"), Column("decode", "tok/s")]
    cells = []
    for r in rows:
        row = [text_cell(r.config), text_cell(r.workload), units.count(r.turn), units.count(r.streams)]
        row += [units.count(r.ok), units.count(r.prompt_tokens_mean), units.rate(r.acceptance_rate)]
        row += [units.count(r.draft_tokens), units.seconds(r.ttft_s_median), units.tok_s(r.decode_tok_s_mean)]
        cells.append(row)
    total, early = conversations
    note = (
        "Turn k+1 was sent after the answer to turn k, with that answer in its history. Acceptance: the server's "
        "per-response accepted / drafted tokens of that turn's streams (— where the server gives none: counter "
        "deltas cannot be split by turn); decode: mean of 1 / TPOT. Ok cells only."
    )
    if total:
        note += f" {total} conversations, {early} ended early (a failed turn ends its conversation)."
    return [Table("acceptance_by_turn", "Conversations: acceptance and speed per turn", cols, cells, note)]
