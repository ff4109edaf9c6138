"""The seed-card tables of a bench run as :class:`~specscope.report.document.Table` (the data every renderer shares).

Only cells with status ``ok`` enter averages (:func:`specscope.stats.groups.group_cells`); degraded,
failed and crashed cells are listed in their own table and never averaged in. Means are over repeats.
Acceptance is pooled over cells by :func:`specscope.stats.acceptance.pooled_acceptance` (sum accepted /
sum drafted, from the counter deltas), not a mean of ratios. Units: :mod:`specscope.report.units`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from specscope.facts import LogPoolFacts
from specscope.report import units
from specscope.report.cell_marks import achieved_cell, beside_mean, server_cell
from specscope.report.document import Cell, Column, Table, text_cell
from specscope.stats.choices import Traffic
from specscope.stats.descriptive import group_mean, mean_stream_quantiles
from specscope.stats.groups import (
    METRIC_WORDS,
    GroupKey,
    LevelAxis,
    configs_of,
    group_cells,
    level_axis,
    levels_of,
    speed_metric,
    speed_value,
    workloads_of,
)
from specscope.stats.judgement import Judgement, judge, speculative_configs
from specscope.stats.speedup import coefficient_of_variation
from specscope.stats.summary import CellSummary
from specscope.stats.verdict import DEFAULT_MIN_EFFECT, Comparison, verdict_text

__all__ = ["BASELINE", "RunCells", "bench_tables", "config_grid", "pairing_words", "speedup_cell"]

BASELINE = "base"


@dataclass(frozen=True)
class RunCells:
    """A run's cells indexed once: names in first-seen order, levels ascending, ok cells by group; and how the run
    is judged (``min_effect``, the configs' speculative ``methods``, the ``traffic`` of the picks, the configs' stored
    server-log pools ``log_pools``, whose alarms the judgement carries)."""

    cells: tuple[CellSummary, ...]
    baseline: str
    configs: tuple[str, ...]
    workloads: tuple[str, ...]
    levels: tuple[int, ...]
    groups: dict[GroupKey, dict[int, CellSummary]]
    min_effect: float = DEFAULT_MIN_EFFECT
    methods: tuple[tuple[str, str | None], ...] = ()
    traffic: Traffic | None = None
    log_pools: tuple[tuple[str, tuple[LogPoolFacts, ...]], ...] = ()

    @classmethod
    def of(
        cls,
        cells: Sequence[CellSummary],
        baseline: str = BASELINE,
        *,
        min_effect: float = DEFAULT_MIN_EFFECT,
        methods: Mapping[str, str | None] | None = None,
        traffic: Traffic | None = None,
        log_pools: Mapping[str, tuple[LogPoolFacts, ...]] | None = None,
    ) -> RunCells:
        return cls(
            tuple(cells),
            baseline,
            tuple(configs_of(cells)),
            tuple(workloads_of(cells)),
            tuple(levels_of(cells)),
            group_cells(cells),
            min_effect,
            tuple((methods or {}).items()),
            traffic,
            tuple((log_pools or {}).items()),
        )

    def ok(self, config: str, workload: str, level: int) -> list[CellSummary]:
        return list(self.groups.get(GroupKey(config, workload, level), {}).values())

    @cached_property
    def axis(self) -> LevelAxis:
        """What the run's levels are (streams, request rates, a trace): :func:`specscope.stats.groups.level_axis`."""
        return level_axis(self.cells)

    @property
    def figure(self) -> str:
        """The words for the figure the run's speedups were judged on (``aggregate output tok/s``, or for an open
        loop ``decode tok/s = 1 / median TPOT``)."""
        # without a comparison (one config), the figure the cells' own load means speed by, as the CV table takes it
        metrics = list(dict.fromkeys(c.metric for c in self.comparisons)) or [speed_metric(self.cells)]
        return " / ".join(METRIC_WORDS.get(m, m) for m in metrics)

    @cached_property
    def speculative(self) -> frozenset[str]:
        """The configs that speculate (:func:`specscope.stats.judgement.speculative_configs`, the judgement's own
        rule): only these can be ``not engaged``."""
        return frozenset(speculative_configs(dict(self.methods) if self.methods else None, self.cells))

    @property
    def has_baseline(self) -> bool:
        return self.baseline in self.configs

    @property
    def others(self) -> list[str]:
        return [c for c in self.configs if c != self.baseline]

    @cached_property
    def judgement(self) -> Judgement | None:
        """The run's one judgement (:func:`specscope.stats.judgement.judge`), computed once: every table, chart,
        verdict line and pick takes its figures from here. None without a baseline and another config."""
        if not self.has_baseline or len(self.configs) < 2:
            return None
        methods = dict(self.methods) if self.methods else None
        return judge(
            list(self.cells),
            self.baseline,
            min_effect=self.min_effect,
            methods=methods,
            traffic=self.traffic,
            log_pools=dict(self.log_pools),
        )

    @property
    def comparisons(self) -> tuple[Comparison, ...]:
        return () if self.judgement is None else self.judgement.comparisons

    def speedup(self, config: str, workload: str, level: int) -> Comparison | None:
        """The comparison of ``config`` with the baseline in one workload x N, or None."""
        return None if self.judgement is None else self.judgement.get(config, workload, level)


def pairing_words(comparisons: Sequence[Comparison], noun: str = "cells") -> str:
    """How the comparisons' rounds were paired, in words, from their reasons: nearest in time (a measured run), or by
    import order where cells were imported (``NOT_INTERLEAVED``: another tool's files carry no interleaving); with no
    comparison, that there is none and why."""
    if not comparisons:  # nothing was paired: saying how would describe pairs that do not exist
        return "none: no other config has cells at a workload and level of the baseline's"
    by_order = [any(r.code == "NOT_INTERLEAVED" for r in c.reasons) for c in comparisons]
    if all(by_order):
        return "rounds paired by import order, not interleaved"
    if any(by_order):
        return f"{noun} paired nearest in time; imported ones by import order, not interleaved"
    return f"{noun} paired nearest in time"


def speedup_cell(c: Comparison | None) -> Cell:
    """A comparison as one cell: ``1.32x [1.25x, 1.40x] faster`` (value: the speedup)."""
    if c is None:
        return units.missing()
    cell = units.ratio_ci(c.speedup, c.low, c.high, verdict_text(c.verdict))
    return Cell(cell.value, cell.text, c.verdict)


def throughput_tables(rc: RunCells) -> list[Table]:
    """Aggregate output tok/s per workload x N, with each config's speedup over the baseline's mean."""
    tables = []
    base = rc.baseline
    for w in rc.workloads:
        cols = [units.level_column(rc.axis)] + ([Column(base, "tok/s")] if rc.has_baseline else [])
        for c in rc.others:
            cols += [Column(c, "tok/s")] + ([Column(f"{c} vs {base}", "x")] if rc.has_baseline else [])
        rows = []
        for n in rc.levels:
            b = group_mean(rc.ok(base, w, n), "output_tok_s")
            row = [units.level(rc.axis, n)] + ([units.tok_s(b)] if rc.has_baseline else [])
            for c in rc.others:
                v = group_mean(rc.ok(c, w, n), "output_tok_s")
                row.append(units.tok_s(v))
                if rc.has_baseline:  # the paired speedup, as in the speedup table (not v / b: see the note)
                    row.append(units.speedup(getattr(rc.speedup(c, w, n), "speedup", None)))
            rows.append(row)
        tables.append(
            Table(
                f"throughput:{w}",
                f"Aggregate output tok/s — {w}",
                cols,
                rows,
                "Sum of usage.completion_tokens / (last stream end - first send), mean over ok repeats. vs: the"
                f" paired speedup of the speedup table ({pairing_words(rc.comparisons, 'rounds')}; a round whose"
                " partner is not ok is left out), so it differs from the ratio of the two means when a round was"
                " dropped." + _open_loop_note(rc),
            )
        )
    return tables


def speedup_table(rc: RunCells) -> Table | None:
    """Paired speedup per workload x N with its interval and verdict (the run's judgement)."""
    if not rc.has_baseline or len(rc.configs) < 2:
        return None
    rows = [
        [text_cell(w), units.level(rc.axis, n), *[speedup_cell(rc.speedup(c, w, n)) for c in rc.others]]
        for w in rc.workloads
        for n in rc.levels
    ]
    return Table(
        "speedup",
        f"Speedup vs {rc.baseline} ({rc.figure}, geometric mean of paired ratios, 95% interval, verdict)",
        [Column("workload"), units.level_column(rc.axis), *[Column(c, "x") for c in rc.others]],
        rows,
        "Interval: a t-interval on the log of the paired per-round ratios (benchmarks/verdict_coverage.py shows it "
        f"keeps 95% coverage from 2 rounds). Faster / slower: the interval excludes 1.00x and the effect exceeds "
        f"the minimum effect ({rc.min_effect:.1%}) and the A/A noise floor; equivalent: the interval lies within "
        f"1 +- {rc.min_effect:.1%}. The comparisons table gives each row's rounds and reasons."
        + _open_loop_note(rc)
        + _rounds_note(rc.comparisons, rc.axis),
    )


def _open_loop_note(rc: RunCells) -> str:
    """For an open-loop run, why its speedups are not on output tok/s ("" for a closed loop)."""
    if not rc.axis.open:
        return ""
    return (
        " Open loop: requests arrived on a schedule, so a cell's output tok/s is the offered load, not the server's "
        f"speed; every speedup and verdict is on {METRIC_WORDS['decode_tok_s']} (the time per output token each "
        "stream saw at that load)."
    )


def _rounds_note(sp: Sequence[Comparison], axis: LevelAxis) -> str:
    """When the comparisons rest on different numbers of rounds: which rest on how many (per config when all of a
    config's comparisons have the same count, else per workload x N); "" when all have the same."""
    if len({x.rounds for x in sp}) < 2:
        return ""
    by_count: dict[int, list[str]] = {}
    for cfg in dict.fromkeys(x.config for x in sp):
        mine = [x for x in sp if x.config == cfg]
        if len({x.rounds for x in mine}) == 1:
            by_count.setdefault(mine[0].rounds, []).append(cfg)
            continue
        for x in mine:
            by_count.setdefault(x.rounds, []).append(f"{cfg} {x.workload} {axis.label(x.level)}")
    listing = "; ".join(f"{n} paired round{'s' if n != 1 else ''}: {', '.join(v)}" for n, v in sorted(by_count.items()))
    return f" Rounds per comparison: {listing}."


def stream_spread_table(rc: RunCells) -> Table | None:
    """Per-stream tok/s percentiles at the highest level, mean over repeats."""
    if not rc.levels:
        return None
    top = rc.levels[-1]
    rows = []
    for w in rc.workloads:
        row = [text_cell(w)]
        for c in rc.configs:
            quantiles = mean_stream_quantiles(rc.ok(c, w, top))
            if quantiles is None:
                row.append(units.missing())
                continue
            row.append(Cell(quantiles[2], " / ".join(f"{v:.2f}" for v in quantiles)))
        rows.append(row)
    return Table(
        "stream_spread",
        f"Per-stream tok/s at {rc.axis.label(top)} (min / p05 / p50 / p95 / max, mean over repeats)",
        [Column("workload"), *[Column(c, "tok/s") for c in rc.configs]],
        rows,
        "Each stream's usage tokens over its own send-to-end time.",
    )


def config_grid(
    rc: RunCells, name: str, title: str, unit: str, cell: Callable[[RunCells, str, str, int], Cell], note: str
) -> Table:
    """A table of one row per workload x N and one column per config, each ``cell(rc, config, workload, n)``;
    ``unit`` is the config columns' unit."""
    rows = [
        [text_cell(w), units.level(rc.axis, n), *[cell(rc, c, w, n) for c in rc.configs]]
        for w in rc.workloads
        for n in rc.levels
    ]
    cols = [Column("workload"), units.level_column(rc.axis), *[Column(c, unit) for c in rc.configs]]
    return Table(name, title, cols, rows, note)


def _ttft_cell(rc: RunCells, config: str, workload: str, n: int) -> Cell:
    return units.seconds(group_mean(rc.ok(config, workload, n), "ttft_p50_s"))


def ttft_table(rc: RunCells) -> Table:
    """Median TTFT (s) per workload x N, a column per config: the mean over ok repeats of each cell's p50."""
    note = "First content or reasoning token; role-only chunks do not count. Mean over ok repeats of each cell's p50."
    return config_grid(rc, "ttft", "Median TTFT (s)", "s", _ttft_cell, note)


def _per_level_table(
    rc: RunCells, key: str, title: str, unit: str, cell: Callable[[list[CellSummary], int], Cell], note: str
) -> Table:
    """Rows config x workload, one column per requested N; ``cell`` turns a group's ok cells into a figure."""
    rows = [
        [text_cell(c), text_cell(w)] + [cell(rc.ok(c, w, n), n) for n in rc.levels]
        for c in rc.configs
        for w in rc.workloads
    ]
    cols = [Column("config"), Column("workload"), *[Column(rc.axis.label(n), unit) for n in rc.levels]]
    return Table(key, title, cols, rows, note)


def concurrency_table(rc: RunCells) -> Table:
    """Achieved over requested streams per level; an open loop requests a rate, not streams: achieved only. A
    degraded cell stays beside its group's mean, marked and left out of it by name (:mod:`.cell_marks`)."""
    note = (
        "Time-weighted streams in flight between first send and last end, from the wire instants; mean over ok "
        "cells, a degraded cell shown beside it and left out of the mean by name (its reasons: Cells not ok)."
    )
    if any(s.token_source == "imported" for s in rc.cells):
        note += (
            " Imported cells: from the tool's per-request start_times and latencies (sum of latencies / (last end - "
            "first start) over the successful requests), else the tool's own figure as written where it wrote one (its "
            "definition in the cell's CONCURRENCY_FROM reason); a dash where the file holds neither."
        )
    open_loop = rc.axis.open
    rows = []
    for c in rc.configs:
        for w in rc.workloads:
            row = [text_cell(c), text_cell(w)]
            for n in rc.levels:
                achieved = group_mean(rc.ok(c, w, n), "achieved_concurrency")
                figure = units.requests(achieved) if open_loop else units.concurrency(achieved, n)
                marked = [
                    s for s in rc.cells if (s.config, s.workload, s.concurrency, s.status) == (c, w, n, "degraded")
                ]
                row.append(beside_mean(figure, marked, open_loop))
            rows.append(row)
    cols = [Column("config"), Column("workload"), *[Column(rc.axis.label(n), "streams") for n in rc.levels]]
    title = (
        "Achieved concurrency (open loop: the load is a rate, no streams were requested)"
        if open_loop
        else ("Achieved / requested concurrency")
    )
    return Table("concurrency", title, cols, rows, note)


def cv_table(rc: RunCells) -> Table:
    """The coefficient of variation of each group's speed figure (:func:`specscope.stats.groups.speed_value`: the
    figure its comparisons are judged on) across repeats."""
    return _per_level_table(
        rc,
        "cv",
        f"Coefficient of variation of {rc.figure} across repeats",
        "%",
        lambda cells, _n: units.rate(coefficient_of_variation([v for s in cells if (v := speed_value(s))])),
        "Differences smaller than this spread are not meaningful.",
    )


def crash_table(rc: RunCells) -> Table | None:
    """Server crashes: the sweep of that config stopped; name the highest stable concurrency."""
    crashed = [s for s in rc.cells if s.status == "server_crash"]
    if not crashed:
        return None
    rows = []
    for s in crashed:
        stable = sorted({k.concurrency for k in rc.groups if k.config == s.config and k.concurrency < s.concurrency})
        rows.append(
            [text_cell(s.config), text_cell(s.workload), units.count(s.concurrency), units.count(s.repeat)]
            + [units.count(stable[-1]) if stable else units.missing()]
        )
    return Table(
        "crashes",
        "Server crashes",
        [Column("config"), Column("workload"), Column("N", "streams"), Column("repeat"), Column("highest stable N")],
        rows,
        "The server died during this cell; the rest of that config's sweep was not run (with --crash-trials: the "
        "levels below it were, see Crash trials).",
    )


def not_ok_table(rc: RunCells) -> Table:
    """Every cell that is not ok, with its reasons: the cells excluded from every average."""
    cols = [Column("config"), Column("workload"), units.level_column(rc.axis), Column("repeat"), Column("status")]
    cols += [Column("achieved / target" if not rc.axis.open else "achieved", "streams"), Column("server gauges")]
    cols.append(Column("reasons"))
    if not rc.cells:
        return Table("not_ok", "No cells", cols, [], "This run has no finished cell yet.")
    bad = [s for s in rc.cells if s.status != "ok"]
    rows = [
        [text_cell(s.config), text_cell(s.workload), units.level(rc.axis, s.concurrency), units.count(s.repeat)]
        + [text_cell(s.status), achieved_cell(s, rc.axis.open), server_cell(s)]
        + [text_cell("; ".join(s.reasons) or units.DASH)]
        for s in bad
    ]
    return Table(
        "not_ok",
        f"Cells not ok ({len(bad)} of {len(rc.cells)})",
        cols,
        rows,
        "Left out of every average, chart and speedup in this report, each by name here; a degraded cell also stays "
        "in the concurrency table, marked. Server gauges: time-weighted running / waiting requests while the load "
        "was offered (max of any sample)."
        if bad
        else "Every cell was ok.",
    )


def bench_tables(summaries: Sequence[CellSummary], baseline: str = BASELINE, rc: RunCells | None = None) -> list[Table]:
    """All tables of a bench run, in reading order; speedups are against the config ``baseline`` (``rc``: the run's
    cells already indexed, so that its speedups are computed once for the whole report)."""
    from specscope.report.acceptance_tables import acceptance_by_level_table, acceptance_detail_table, acceptance_table

    rc = rc if rc is not None else RunCells.of(summaries, baseline)
    tables = [
        acceptance_table(rc),
        acceptance_by_level_table(rc),
        acceptance_detail_table(rc),
        *throughput_tables(rc),
        speedup_table(rc),
        stream_spread_table(rc),
        ttft_table(rc),
        concurrency_table(rc),
        cv_table(rc),
        crash_table(rc),
        not_ok_table(rc),
    ]
    return [t for t in tables if t is not None]
