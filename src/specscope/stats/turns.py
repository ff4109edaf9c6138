"""Conversations read back: acceptance and speed per turn index, from the stored stream records.

A conversation cell's streams are named ``"<conversation>/t<k>"`` (:func:`specscope.records.split_turn`); later
turns carry the earlier answers, so their prompts are longer and drafting may see more of its own text. Per
(config, workload, turn k), over the streams of usable cells (ok; degraded cells never enter a figure):

- acceptance rate: sum of the server's per-response accepted draft tokens / sum of its drafted tokens
  (:func:`specscope.stats.acceptance.acceptance_view`; llama.cpp ``timings.draft_n`` / ``draft_n_accepted``, vLLM
  per-request speculative metrics). Counter deltas cover a whole cell and cannot be split by turn, so a server
  without per-response fields gives no per-turn acceptance (absent, never 0);
- prompt tokens: mean ``usage.prompt_tokens`` (tokens); TTFT: median from the send (s);
- decode: mean over streams of ``1 / TPOT`` (tokens per second after the first token, usage tokens).

Per conversation (the cell's ``conversations`` client facts): turns planned and sent; a failed turn ends one.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from specscope.records import CellKey, CellResult, StreamRecord, split_turn
from specscope.stats.acceptance import acceptance_view

__all__ = ["TurnRow", "turn_rows", "conversation_counts"]


@dataclass(frozen=True)
class TurnRow:
    """One (config, workload, turn index) of the run's conversations.

    Attributes:
        config, workload: the cells' config and workload label; turn: 1-based turn index.
        streams: streams of this turn in usable cells; ok: those that ended ok.
        draft_tokens / accepted_tokens: summed per-response fields (tokens); None when no stream had them.
        acceptance_rate: accepted / drafted (fraction, excludes the bonus token), None without drafts.
        prompt_tokens_mean: mean ``usage.prompt_tokens`` (tokens); ttft_s_median: median TTFT (s);
        decode_tok_s_mean: mean of 1 / TPOT over the streams with two or more tokens (tokens/s).
    """

    config: str
    workload: str
    turn: int
    streams: int
    ok: int
    draft_tokens: int | None
    accepted_tokens: int | None
    acceptance_rate: float | None
    prompt_tokens_mean: float | None
    ttft_s_median: float | None
    decode_tok_s_mean: float | None


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _row(config: str, workload: str, turn: int, streams: list[StreamRecord]) -> TurnRow:
    drafted = [s for s in streams if s.server_draft_tokens is not None]
    draft = sum(s.server_draft_tokens or 0 for s in drafted) if drafted else None
    accepted = sum(s.server_accepted_tokens or 0 for s in drafted) if drafted else None
    rate = acceptance_view(0.0, float(draft), float(accepted or 0), ()).acceptance_rate if draft else None
    ttfts = [s.ttft_ns / 1e9 for s in streams if s.ttft_ns is not None]
    decode = [1e9 / s.tpot_ns for s in streams if s.tpot_ns]
    return TurnRow(
        config,
        workload,
        turn,
        len(streams),
        sum(s.status == "ok" for s in streams),
        draft,
        accepted,
        rate,
        _mean([float(s.prompt_tokens) for s in streams if s.prompt_tokens is not None]),
        statistics.median(ttfts) if ttfts else None,
        _mean(decode),
    )


def turn_rows(cells: Iterable[CellResult], usable: Callable[[CellKey], bool]) -> list[TurnRow]:
    """Per (config, workload, turn) rows of the conversation streams of the cells ``usable`` accepts, sorted."""
    groups: dict[tuple[str, str, int], list[StreamRecord]] = defaultdict(list)
    for cell in cells:
        if cell.crashed or not usable(cell.key):
            continue
        for s in cell.streams:
            _, turn = split_turn(s.prompt_id)
            if turn is not None:
                groups[(cell.key.config, cell.key.workload, turn)].append(s)
    return [_row(c, w, t, streams) for (c, w, t), streams in sorted(groups.items())]


def conversation_counts(cells: Iterable[CellResult], usable: Callable[[CellKey], bool]) -> tuple[int, int]:
    """``(conversations, ended early)`` over the usable cells' ``conversations`` facts (a failed turn ends one)."""
    total = early = 0
    for cell in cells:
        if cell.crashed or not usable(cell.key):
            continue
        for conv in cell.client.conversations or ():
            total += 1
            early += int(conv.turns_sent < conv.turns_planned)
    return total, early
