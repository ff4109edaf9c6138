"""Acceptance along the workload axes of issue 15: by dataset category, by context length, by temperature,
by phase (reasoning / answer, from per-step data), and the thinking note where no split can be made.

Cells are read through their workload labels (:mod:`specscope.workload.labels`); every figure is pooled over
ok cells by :func:`specscope.stats.acceptance.pooled_acceptance` (sum accepted / sum drafted from the counter
deltas) after grouping, so a table row weights every verify step equally. A table appears only when its axis
is present in the run.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace

from specscope.report import units
from specscope.report.document import Cell, Column, Table, text_cell
from specscope.stats.acceptance import acceptance_rate, pooled_acceptance
from specscope.stats.descriptive import group_mean
from specscope.stats.summary import CellSummary
from specscope.workload.labels import Variant, parse_label

__all__ = ["workload_axis_tables", "thinking_notes"]


def _accept(cells: Sequence[CellSummary]) -> tuple[Cell, Cell, Cell]:
    """Pooled acceptance rate, length and drafted tokens of ``cells`` (one config)."""
    views = pooled_acceptance([replace(c, workload="*") for c in cells])
    view = next(iter(views.values()), None)
    if view is None or view.acceptance_rate is None:
        return units.missing(), units.missing(), units.count(0)
    return units.rate(view.acceptance_rate), units.length(view.acceptance_length), units.count(view.draft_tokens)


def _grouped(
    cells: Sequence[CellSummary], key: Callable[[Variant], tuple[str, ...] | None]
) -> dict[tuple[str, ...], list[CellSummary]]:
    groups: dict[tuple[str, ...], list[CellSummary]] = defaultdict(list)
    for c in cells:
        k = key(parse_label(c.workload))
        if k is not None and c.status == "ok":
            groups[(c.config, *k)].append(c)
    return dict(sorted(groups.items()))


def _by_variant_table(
    cells: Sequence[CellSummary],
    key: Callable[[Variant], tuple[str, ...] | None],
    key_columns: tuple[str, str],
    name: str,
    title: str,
) -> Table | None:
    """Pooled acceptance (%), length (tokens/step) and drafted tokens per config and ``key`` of the workload
    label (two text columns named ``key_columns``); None when no ok cell has that key."""
    groups = _grouped(cells, key)
    if not groups:
        return None
    rows = [[*map(text_cell, k), *_accept(g)] for k, g in groups.items()]
    cols = [Column("config"), *map(Column, key_columns)]
    cols += [Column("acceptance", "%"), Column("length", "tokens/step"), Column("drafted", "tokens")]
    return Table(name, title, cols, rows, _POOL_NOTE)


def _category_table(cells: Sequence[CellSummary]) -> Table | None:
    return _by_variant_table(
        cells,
        lambda v: tuple(v.base.split(".", 1)) if "." in v.base else None,
        ("dataset", "category"),
        "acceptance_by_category",
        "Acceptance by dataset category",
    )


def _context_table(cells: Sequence[CellSummary]) -> Table | None:
    groups = _grouped(cells, lambda v: None if v.context_tokens is None else (v.base, str(v.context_tokens)))
    if not groups:
        return None
    rows = []
    for (config, base, ctx), g in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], int(kv[0][2]))):
        rate, length, drafted = _accept(g)
        prompt = units.count(group_mean(g, "prompt_tokens_mean"))
        decode = units.tok_s(group_mean(g, "output_tok_s"))
        rows.append([text_cell(config), text_cell(base), units.count(int(ctx)), prompt, rate, length, decode])
    cols = [Column("config"), Column("workload"), Column("context", "tokens"), Column("prompt (usage)", "tokens")]
    cols += [Column("acceptance", "%"), Column("length", "tokens/step"), Column("decode", "tok/s")]
    note = _POOL_NOTE + " Prompt tokens: mean usage.prompt_tokens; decode: mean of the cells' output tok/s."
    return Table("acceptance_by_context", "Acceptance by context length", cols, rows, note)


def _temperature_table(cells: Sequence[CellSummary]) -> Table | None:
    return _by_variant_table(
        cells,
        lambda v: None if v.temperature is None else (v.base, f"{v.temperature:g}"),
        ("workload", "temperature"),
        "acceptance_by_temperature",
        "Acceptance by temperature",
    )


def _phase_rate(accepted: int, drafted: int) -> tuple[Cell, Cell]:
    """The phase's acceptance rate (the one formula, :func:`specscope.stats.acceptance.acceptance_rate`) and its
    drafted tokens."""
    return units.rate(acceptance_rate(accepted, drafted)), units.count(drafted)


def _phase_table(cells: Sequence[CellSummary]) -> Table | None:
    sums: dict[tuple[str, str], dict[str, int]] = {}
    for c in cells:
        if c.status != "ok" or not c.phase_counts:
            continue
        total = sums.setdefault((c.config, c.workload), defaultdict(int))
        for k, v in c.phase_counts.items():
            total[k] += v
    if not sums:
        return None
    rows = []
    for (config, workload), t in sorted(sums.items()):
        r = _phase_rate(t["reasoning_accepted_tokens"], t["reasoning_draft_tokens"])
        a = _phase_rate(t["answer_accepted_tokens"], t["answer_draft_tokens"])
        rows.append([text_cell(config), text_cell(workload), *r, *a])
    cols = [Column("config"), Column("workload"), Column("reasoning acceptance", "%")]
    cols += [
        Column("reasoning drafted", "tokens"),
        Column("answer acceptance", "%"),
        Column("answer drafted", "tokens"),
    ]
    note = (
        "From the server's per-request per-step data: a step belongs to the phase of its first token; the "
        "reasoning phase is usage.completion_tokens_details.reasoning_tokens long. Ok cells only."
    )
    return Table("acceptance_by_phase", "Acceptance by phase (reasoning / answer)", cols, rows, note)


_POOL_NOTE = "Pooled over ok cells: sum of accepted / sum of drafted tokens from the /metrics counter deltas."


def workload_axis_tables(cells: Sequence[CellSummary]) -> list[Table]:
    """The tables of the axes present in ``cells``: category, context length, temperature, phase (in that order)."""
    built = (_category_table(cells), _context_table(cells), _temperature_table(cells), _phase_table(cells))
    return [t for t in built if t is not None]


def thinking_notes(cells: Sequence[CellSummary]) -> list[str]:
    """One note per config whose cells asked for thinking: whether a reasoning phase was seen at all."""
    notes = []
    by_config: dict[str, list[CellSummary]] = defaultdict(list)
    for c in cells:
        if parse_label(c.workload).thinking:
            by_config[c.config].append(c)
    for config, group in sorted(by_config.items()):
        chunks = sum(c.reasoning_chunks for c in group)
        if any(c.phase_counts for c in group):
            continue  # the phase table shows the split
        if chunks == 0:
            notes.append(
                f"{config}: thinking was on, but no reasoning phase was seen (the server streamed no reasoning "
                "deltas); acceptance is shown overall only."
            )
        else:
            notes.append(
                f"{config}: thinking on, {chunks} reasoning chunks seen; the server gave no per-step speculative "
                "data, so acceptance is not split by phase (overall only)."
            )
    return notes
