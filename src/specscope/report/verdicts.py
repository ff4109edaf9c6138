"""The comparisons of a bench run, explained: one row per config x workload x N against the baseline.

Everything here is rendered from the run's judgement (:mod:`specscope.stats.judgement`): each row's paired rounds,
speedup, interval (numbers and method), verdict and reasons (codes with their figures, and the sentence
:mod:`specscope.stats.verdict` renders from them); the headline lines; the drift and cold-start notes and alarms.
Nothing here decides a verdict or reads one back out of a sentence. Units: the speedup in x, effects in %.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from specscope.config import RunOptions
from specscope.report import units
from specscope.report.document import Alarm, Cell, Column, Table, text_cell
from specscope.report.tables import pairing_words, speedup_cell
from specscope.stats.groups import METRIC_WORDS, LevelAxis, level_axis
from specscope.stats.judgement import Judgement
from specscope.stats.stopping import design_cost
from specscope.stats.summary import CellSummary
from specscope.stats.verdict import Comparison, verdict_text
from specscope.values import ratio_text

__all__ = ["cold_start_notes", "comparisons_table", "design_note", "drift_notes", "verdict_line", "verdict_lines"]


def _bound(x: float | None) -> Cell:
    return Cell(float(x), ratio_text(x, 3)) if x is not None else units.missing()


def comparisons_table(j: Judgement) -> Table:
    """One row per comparison: rounds, speedup, the interval's ends as numbers, its method, verdict and reasons."""
    rows = [
        [
            text_cell(c.config),
            text_cell(c.workload),
            units.level(j.axis, c.level),
            units.count(c.rounds),
            speedup_cell(c),
            _bound(c.low),
            _bound(c.high),
            text_cell(c.interval),
            Cell(c.verdict, verdict_text(c.verdict), c.verdict),
            text_cell(c.why or units.DASH),
        ]
        for c in j.comparisons
    ]
    return Table(
        "comparisons",
        f"Comparisons with {j.baseline} ({pairing_words(j.comparisons)})",
        [
            Column("config"),
            Column("workload"),
            units.level_column(j.axis),
            Column("rounds"),
            Column("speedup", "x"),
            Column("low", "x"),
            Column("high", "x"),
            Column("interval"),
            Column("verdict"),
            Column("why"),
        ],
        rows,
        f"Faster / slower: the interval excludes 1.00x and the effect exceeds the minimum effect "
        f"({j.min_effect:.1%}), the A/A noise floor of its group and any bias a confirmed drift can give it; "
        f"equivalent: the interval lies within 1 +- {j.min_effect:.1%}; not engaged: a speculative config whose "
        f"server reported 0 drafts. A verdict needs at least {j.min_rounds} paired rounds. Judged on "
        f"{_figures(j)}.",
    )


def _figures(j: Judgement) -> str:
    """The figures the comparisons were judged on, in words, with why for an open loop."""
    metrics = list(dict.fromkeys(c.metric for c in j.comparisons)) or ["output_tok_s"]
    words = " / ".join(METRIC_WORDS.get(m, m) for m in metrics)
    if "decode_tok_s" in metrics:
        words += " (open loop: the output tok/s is the offered load, not the server's speed)"
    return words


#: Above this many comparisons of one config with one verdict, the headline gives one line for them all (their
#: places, and the range of their speedups) instead of one line each.
GROUP_ABOVE = 4


#: Reason codes a comparison's figure already says: ``(1 round)`` for too few rounds, the interval for one that
#: includes 1.00x.
_SAID = {"TOO_FEW_ROUNDS", "INTERVAL_INCLUDES_ONE"}


def _codes(c: Comparison, shown: set[str]) -> list[str]:
    """The comparison's reason codes (its judgement's, in order) that its line does not already say."""
    return [code for code in dict.fromkeys(r.code for r in c.reasons) if code not in shown]


def verdict_line(who: str, where: str, figure: str, verdict: str, why: str = "") -> str:
    """The one shape of a headline verdict line, for every screen (text, markdown, HTML and JSON print these lines as
    they are): ``WHO on WHERE: FIGURE VERDICT (WHY)``, e.g. ``draft on code at N=1: 0.87x [0.78x, 0.99x] slower`` or
    ``ngram on 6 comparisons (code N=1,2; ...): 0.98x to 1.29x undetermined (TOO_FEW_ROUNDS 6)``."""
    return f"{who} on {where}: {figure} {verdict_text(verdict)}" + (f" ({why})" if why else "")


def _figure(c: Comparison) -> str:
    """A comparison's speedup with its interval (``1.02x [0.97x, 1.08x]``), or with the rounds it rests on where it
    has no interval (``1.03x (1 round)``); a dash without a speedup."""
    if c.speedup is None:
        return units.DASH
    if c.low is None or c.high is None:
        return f"{ratio_text(c.speedup)} ({c.rounds} round{'s' if c.rounds != 1 else ''})"
    return f"{ratio_text(c.speedup)} [{ratio_text(c.low)}, {ratio_text(c.high)}]"


def _one(c: Comparison, axis: LevelAxis, why: str) -> str:
    """The line of one comparison (an A/A control's says so)."""
    who = f"A/A control {c.config}" if c.control else c.config
    return verdict_line(who, f"{c.workload} at {axis.label(c.level)}", _figure(c), c.verdict, why)


def _grouped(verdict: str, config: str, rows: list[Comparison], axis: LevelAxis) -> list[str]:
    """The headline lines of a config's comparisons with one verdict: one each, with the reason codes its figure does
    not say (the comparisons table has their sentences); or, if many, one line with their places, the range of their
    speedups and their reason codes with how many of the comparisons carry each."""
    if len(rows) <= GROUP_ABOVE:
        return [_one(c, axis, ", ".join(_codes(c, _SAID if c.speedup is not None else set()))) for c in rows]
    places: dict[str, list[int]] = {}
    for c in rows:
        places.setdefault(c.workload, []).append(c.level)
    where = "; ".join(f"{w} {axis.labels(ns)}" for w, ns in places.items())
    xs = [c.speedup for c in rows if c.speedup is not None]
    spread = f"{ratio_text(min(xs))} to {ratio_text(max(xs))}" if xs else units.DASH
    codes = Counter(code for c in rows for code in _codes(c, set()))
    why = ", ".join(f"{code} {n}" for code, n in codes.most_common())
    return [verdict_line(config, f"{len(rows)} comparisons ({where})", spread, verdict, why)]


def verdict_lines(j: Judgement) -> list[str]:
    """The headline: one line per faster, slower and not-engaged comparison and per A/A control (with its reason's
    sentence), then per config its ``equivalent`` comparisons and its ``undetermined`` ones (one line each, or one
    for all above :data:`GROUP_ABOVE`), so that it answers for every comparison; every line in the one shape of
    :func:`verdict_line`."""
    out = []
    rest: dict[tuple[str, str], list[Comparison]] = {}
    for c in j.comparisons:
        if c.verdict in ("faster", "slower", "not_engaged") or c.control:
            out.append(_one(c, j.axis, c.why))
        else:
            rest.setdefault((c.verdict, c.config), []).append(c)
    for verdict in ("equivalent", "undetermined"):
        for (v, cfg), rows in rest.items():
            if v == verdict:
                out += _grouped(verdict, cfg, rows, j.axis)
    return out


def cold_start_notes(j: Judgement) -> list[str]:
    """One note per cell the judgement left out as a cold start (:func:`specscope.stats.noise.cold_starts`); report
    and advise both show these."""
    return [f"cold start: {c.text}" for c in j.cold_starts]


def drift_notes(j: Judgement) -> tuple[list[str], list[Alarm]]:
    """Notes with the run's drift (after warm-up) and its cold starts; an alarm when a drift the A/A or sentinel
    cells confirm was large enough to leave a comparison undetermined."""
    notes = cold_start_notes(j)
    big = j.drift.largest
    if big is None:
        return notes, []
    w, n = big.group
    shown = (
        "confirmed by the A/A or sentinel cells"
        if big.confirmed
        else "not shown by the A/A or sentinel cells, so not used to judge"
        if big.control_drift is not None
        else f"{big.control_cells} A/A or sentinel cell(s) there, too few to confirm it (two are needed once cold "
        "starts are left out), so not used to judge"
        if big.control_cells
        else "no A/A or sentinel cells to confirm it, so not used to judge"
    )
    figure = big.figure
    note = (
        f"drift: baseline {figure} moved {big.drift * 100:+.1f} % between the early and the late half of the run "
        f"after warm-up (largest on {w} at {j.axis.label(n)}; {j.drift.cells} baseline cells; {shown})"
    )
    judged = next((a for a in j.alarms if a.code == "DRIFT"), None)  # decided in the judgement (stats/alarms.py)
    if judged is None:
        return [*notes, note], []
    where = ", ".join(f"{cfg} {w} {j.axis.label(lev)}" for cfg, w, lev in judged.where)
    alarm = Alarm(
        "DRIFT",
        j.baseline,
        None,
        f"{note}; it leaves {len(judged.where)} comparison(s) undetermined ({where})",
        "the machine's load or state changed during the run",
        ("the cells' started_at_s and load_avg_1m in the JSON report", "re-run on a quieter machine"),
    )
    return [*notes, note], [alarm]


def design_note(cells: Sequence[CellSummary], options: RunOptions) -> list[str]:
    """For an adaptive run (``target_ci`` in the options): the rounds each comparison got and the cell time spent
    against the fixed design's estimate (every cell ``max_repeats`` rounds, at each config's mean time per cell:
    :func:`specscope.stats.stopping.design_cost`)."""
    if not options.target_ci:
        return []
    cost = design_cost(cells, int(options.max_repeats or 0))
    groups = {(c.config, c.workload, c.concurrency) for c in cells}
    rounds = sorted({(g, sum(1 for c in cells if (c.config, c.workload, c.concurrency) == g)) for g in groups})
    axis = level_axis(cells)
    listing = ", ".join(f"{g[0]}/{g[1]} {axis.label(g[2])}: {n}" for g, n in rounds)
    return [
        f"adaptive repeats (target {float(options.target_ci) * 100:.1f} %): {len(cells)} cells, "
        f"{cost.spent_s:.1f} s of cell time; the fixed design ({options.max_repeats} rounds of every cell) "
        f"would take about {cost.fixed_s:.1f} s. Rounds per cell: {listing}"
    ]
