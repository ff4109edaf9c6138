"""Acceptance tables of a run: by config x workload, by requested N (the seed card's two tables), and the
per-position detail with the consistency checks of :mod:`specscope.stats.acceptance`.

Everything is pooled over ok cells by :func:`specscope.stats.acceptance.pooled_acceptance` (sum accepted /
sum drafted from the counter deltas). Per-position lists stop at the first position whose unconditional
acceptance is below :data:`POSITION_FLOOR` (1 %): an n-gram drafter reports 64 positions, mostly zeros.
"""

from __future__ import annotations

from collections.abc import Sequence

from specscope.config import is_control
from specscope.report import units
from specscope.report.document import Cell, Column, Table, text_cell
from specscope.report.tables import RunCells
from specscope.stats.acceptance import AcceptanceView, cell_drafts, pooled_acceptance, reported_lengths
from specscope.values import count_noun

__all__ = [
    "POSITION_FLOOR",
    "shown_positions",
    "acceptance_views",
    "acceptance_table",
    "acceptance_by_level_table",
    "acceptance_detail_table",
]

POSITION_FLOOR = 0.01  # fraction: positions from the first one below this acceptance on are not shown
FEW_STEPS = 50  # verify steps that carried a draft: an acceptance figure resting on fewer is marked as thin


def rests_on(view: AcceptanceView) -> str:
    """What an acceptance figure rests on: ``8 verify steps, 312 drafted`` (verify steps that carried a draft =
    drafts, tokens drafted), with ``; few verify steps`` below :data:`FEW_STEPS`; ``verify steps unknown, 312
    drafted`` when no drafts figure. "Verify steps", never "rounds": on the same screen a comparison's rounds are
    paired measurement rounds."""
    if not view.drafts_known:  # no drafts counter and no per-response verify steps: never "0 verify steps"
        return f"verify steps unknown, {view.draft_tokens:.0f} drafted"
    text = f"{count_noun(view.drafts, 'verify step')}, {view.draft_tokens:.0f} drafted"
    return text + ("; few verify steps" if view.drafts < FEW_STEPS else "")


def shown_positions(unconditional: Sequence[float]) -> int:
    """How many positions to show: up to (not including) the first with u_i < 1 %; at least one."""
    for i, u in enumerate(unconditional):
        if u < POSITION_FLOOR:
            return max(i, 1)
    return len(unconditional)


def acceptance_views(rc: RunCells, level: int | None = None) -> dict[tuple[str, str | None], AcceptanceView]:
    """Pooled acceptance per config x workload over ok cells (at one requested level when given)."""
    cells = [c for c in rc.cells if level is None or c.concurrency == level]
    return pooled_acceptance(cells)


def _zero_drafts(rc: RunCells, config: str, workload: str) -> bool:
    """Every ok cell of ``config`` on ``workload`` whose server said how much it drafted said 0 (and one did)."""
    said = [d for lev in rc.levels for c in rc.ok(config, workload, lev) if (d := cell_drafts(c)) is not None]
    return bool(said) and not any(said)


def _acceptance_cell(view: AcceptanceView | None, zero: bool, reported: tuple[float, int] | None = None) -> Cell:
    if (view is None or view.acceptance_rate is None) and reported is not None:
        mean_len, n = reported
        told = units.length(mean_len).text
        return text_cell(f"{units.DASH} (len {told} as the tool reported, {n} cells; no counts)")
    if view is None or view.acceptance_rate is None:
        return text_cell("0 drafts (not engaged)") if zero else units.missing()
    r = units.rate(view.acceptance_rate)
    ln = units.length(view.acceptance_length)
    length = f"len {ln.text}; " if view.acceptance_length is not None else ""
    return Cell(r.value, f"{r.text} ({length}{rests_on(view)})")


def _drafting_configs(rc: RunCells) -> list[str]:
    """The configs an acceptance column is about: every config but the baseline and its controls (the A/A
    control and the sentinels are the baseline again), and those too when the baseline's server drafted (a run
    of one speculative config is its own baseline)."""
    views = acceptance_views(rc)
    baseline_drafted = any(c == rc.baseline or is_control(c) for c, _ in views)
    return [c for c in rc.configs if baseline_drafted or (c != rc.baseline and not is_control(c))]


def acceptance_table(rc: RunCells) -> Table:
    """Acceptance rate (and length) per drafting config x workload, pooled over every ok cell; the baseline and the
    A/A control have no row."""
    views = acceptance_views(rc)
    told = reported_lengths(rc.cells)
    rows = []
    for c in _drafting_configs(rc):
        # "not engaged" is for a speculative config that drafted nothing; a config that does not speculate (the
        # judgement's rule) and drafted nothing has no row
        zero = {w: c in rc.speculative and _zero_drafts(rc, c, w) for w in rc.workloads}
        drafted = any((c, w) in views or (c, w) in told for w in rc.workloads)
        if not drafted and not any(zero.values()):
            continue
        rows.append(
            [text_cell(c)] + [_acceptance_cell(views.get((c, w)), zero[w], told.get((c, w))) for w in rc.workloads]
        )
    # no row at all: say why first (a run of plain servers, or result files that recorded no speculative figure)
    empty = (
        ""
        if rows
        else "No config has an acceptance figure: no cell carried a speculative counter, per-request record or "
        "reported length (an imported file's tool may not record them: the Run table's imports say what each did "
        "not record). "
    )
    return Table(
        "acceptance",
        "Acceptance rate by config x workload (accepted / drafted; acceptance length in brackets)",
        [Column("config"), *[Column(w, "%") for w in rc.workloads]],
        rows,
        empty
        + "From the server's spec-decode counter deltas around each cell, or the responses' own per-request records "
        "(their verify steps and accepted-count histograms where the server has no drafts counter), pooled over ok "
        "cells. "
        "Acceptance rate excludes the bonus token; acceptance length = 1 + accepted / drafts includes it. "
        "Each figure says how many verify steps that carried a draft (the server's drafts counter) and drafted "
        f"tokens it rests on ('few verify steps' below {FEW_STEPS}). "
        "No row for a config without speculation (a baseline, its A/A control, a second plain server); '0 drafts "
        "(not engaged)': a speculative config whose server counted no draft in any cell (a counter that said so, not "
        "a missing one). 'as the tool reported': an imported length with no counts behind it (a "
        "benchmark file's accept_length), the mean over its cells; no rate can be derived from it.",
    )


def acceptance_by_level_table(rc: RunCells) -> Table | None:
    """The seed card's second acceptance table: one row per requested N, a column per config x workload."""
    per_level = {lev: acceptance_views(rc, lev) for lev in rc.levels}
    keys = [(c, w) for c in _drafting_configs(rc) for w in rc.workloads if any((c, w) in v for v in per_level.values())]
    if not keys or len(rc.levels) < 1:
        return None
    rows = [[units.level(rc.axis, lev)] + [_rate_on(per_level[lev].get(k)) for k in keys] for lev in rc.levels]
    return Table(
        "acceptance_by_n",
        f"Acceptance rate by {'requested concurrency N' if not rc.axis.open else 'load'}, per config and workload",
        [units.level_column(rc.axis), *[Column(f"{c} {w}", "%") for c, w in keys]],
        rows,
        "Pooled over the ok cells of each N. Acceptance moves with content, not with load: a column that "
        "changes much with N deserves a look.",
    )


def _rate_on(view: AcceptanceView | None) -> Cell:
    r = units.rate(None if view is None else view.acceptance_rate)
    return r if view is None or view.acceptance_rate is None else Cell(r.value, f"{r.text} ({rests_on(view)})")


def _positions(values: Sequence[float | None], k: int) -> str:
    shown = " / ".join(units.DASH if v is None else units.rate(v).text for v in values[:k])
    more = len(values) - k
    return shown + (f" (+{more} positions below {units.rate(POSITION_FLOOR, 0).text})" if more > 0 else "")


def acceptance_detail_table(rc: RunCells) -> Table | None:
    """Rate, length, 1 + sum of u_i, per-position u_i and a_i, and the consistency flags per config x workload."""
    views = acceptance_views(rc)
    if not views:
        return None
    rows = []
    for (cfg, wl), v in views.items():
        k = shown_positions(v.unconditional)
        rows.append(
            [
                text_cell(cfg),
                text_cell(str(wl)),
                units.rate(v.acceptance_rate),
                text_cell(rests_on(v)),
                units.length(v.acceptance_length),
                units.length(v.length_from_positions),
                text_cell(_positions(v.unconditional, k) or units.DASH),
                text_cell(_positions(v.conditional, k) or units.DASH),
                text_cell("; ".join(v.flags) or "ok"),
            ]
        )
    return Table(
        "acceptance_detail",
        "Acceptance per position and consistency checks",
        [
            Column("config"),
            Column("workload"),
            Column("rate", "%"),
            Column("rests on"),
            Column("length", "tokens/step"),
            Column("1 + sum u_i", "tokens/step"),
            Column("unconditional u_i"),
            Column("conditional a_i"),
            Column("check"),
        ],
        rows,
        "rate = accepted/drafted tokens; length = 1 + accepted/drafts; u_i = accepted at i / drafts (vLLM); "
        "a_i = accepted at i / accepted at i-1 (EAGLE). A consistent server has length = 1 + sum u_i. Positions are "
        f"shown until u_i falls below {units.rate(POSITION_FLOOR, 0).text}.",
    )
