"""Advice: which config (and k) to ship for a traffic mix, at each concurrency and overall, as ``advise`` prints it.

The picks are the run's judgement (:func:`specscope.stats.judgement.judge`, :mod:`specscope.stats.choices`):
per level the candidate with the highest mix speedup among those ``faster`` than the baseline by the one verdict
rule, overall the same with equal time at each level (on tok/s), and with ``--level-mix`` the time-weighted static and
dynamic choices. ``report`` computes the same picks (its ``choices``, with the same mix), so ``advise -f json`` and
``report -f json`` give the same pick and gain for the same run and mix. This module adds what advice needs around
them and lays them out as a report :class:`~specscope.report.document.Section`, so ``advise`` has the report's four
formats (text, Markdown, JSON, HTML):

* **Crossovers** where a candidate's verdict flips between ``faster`` and ``slower`` from one measured level to the
  next decided one (a sign change inside the noise is not a crossover), placed where its speedup crosses 1.0 (linear
  in log2 of the level: streams, or requests/s on a rate axis), on the mix and per workload
  (the judgement's, :func:`specscope.stats.crossovers.judged_crossovers`);
* **Acceptance placement**: a measured acceptance rate placed between the run's workloads for the config it was
  measured with, giving the two-workload mix the advice runs on (:func:`specscope.stats.crossovers.place_acceptance`);
* **Alarms**: the run's alarms as the report renders them (:func:`specscope.report.alarms.run_alarms`:
  low acceptance, not engaged, a confirmed drift), since a config whose draft head looks broken, that never drafted,
  or whose gain a drift can explain, should not be advised on its speed alone;
* **k** of each config from :func:`specscope.stats.server_spec.spec_k` (the one place; unknown is — , never 0), the
  same in ``report``'s picks (:func:`config_ks`).

Levels are named by the run's axis (:class:`specscope.stats.groups.LevelAxis`): ``N=2`` streams, ``4 req/s`` for an
open-loop rate run (whose picks are judged on decode tok/s, the judgement's speed figure for an open loop). A level
mix is shares of wall time over concurrency levels, so ``--level-mix`` on an open-loop run is refused.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from specscope.config import SENTINEL_SUFFIX, is_control
from specscope.errors import ConfigError
from specscope.facts import RunFacts
from specscope.report import units
from specscope.report.alarms import run_alarms
from specscope.report.document import Alarm, Cell, Column, Section, Table, text_cell
from specscope.report.verdicts import cold_start_notes
from specscope.stats.choices import Choices, LevelChoice, MixComparison, Traffic
from specscope.stats.crossovers import Crossover, Placement, place_acceptance
from specscope.stats.groups import LevelAxis, level_axis, workloads_of
from specscope.stats.judgement import Judgement, judge
from specscope.stats.mix import equal_mix, require_workloads
from specscope.stats.server_spec import log_pools_of, methods_of, spec_k
from specscope.stats.summary import CellSummary
from specscope.stats.verdict import DEFAULT_MIN_EFFECT, verdict_text
from specscope.textsafe import shell_word
from specscope.values import ratio_text

__all__ = ["Advice", "advise", "advice_section", "choices_tables", "config_ks", "unjudged_lines"]


@dataclass(frozen=True)
class Advice:
    """Everything ``specscope advise`` prints; ``to_dict`` is the ``data`` of its JSON (``choices`` as ``report -f
    json`` carries them)."""

    judgement: Judgement
    choices: Choices
    crossovers: list[Crossover]
    placement: Placement | None = None
    notes: list[str] = field(default_factory=list)
    alarms: list[Alarm] = field(default_factory=list)
    ks: dict[str, int | None] = field(default_factory=dict)

    @property
    def baseline(self) -> str:
        return self.choices.baseline

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "min_effect": self.judgement.min_effect,
            "choices": self.choices.to_dict(),
            "judged_alarms": [a.to_dict() for a in self.judgement.alarms],
            "cold_starts": self.judgement.noise_dict()["cold_starts"],  # as report -f json's noise.cold_starts
            "k": dict(self.ks),
            "crossovers": [vars(x).copy() for x in self.crossovers],
            "placement": None if self.placement is None else vars(self.placement).copy(),
            "notes": list(self.notes),
        }


def _scope(
    cells: Sequence[CellSummary], mix: Mapping[str, float], concurrency: int | Sequence[int] | None, command: str
) -> list[int]:
    """The levels to advise on (``concurrency``: one level or several, None: every measured one). Raises ConfigError
    for a mix workload or a level the run lacks (naming every unmeasured one; its fix: ``command`` with the mix and
    the measured level nearest each one asked for)."""
    require_workloads(mix, workloads_of(cells), command=command)
    levels = sorted({c.concurrency for c in cells})
    if concurrency is None:
        return levels
    asked = list(dict.fromkeys([concurrency] if isinstance(concurrency, int) else concurrency))
    axis = level_axis(cells)
    if axis.open:  # its levels are the rates' positions (or a replay): a concurrency would be read as one of them
        shares = ",".join(f"{w}={v:.4g}" for w, v in mix.items())
        raise ConfigError(
            "--max-concurrency names concurrency levels, and this run is an open loop (its levels are request rates "
            "or a trace's replay)",
            found=f"--max-concurrency {','.join(map(str, asked))} on a run measured at "
            + ", ".join(axis.label(lev) for lev in levels),
            expected="advise on every rate the run measured (no --max-concurrency)",
            fix=f"{command} --mix {shares}",
        )
    unmeasured = [lev for lev in asked if lev not in levels]
    if unmeasured:
        near = [lev if lev in levels else min(levels, key=lambda m: (abs(m - lev), m)) for lev in asked]
        shares = ",".join(f"{w}={v:.4g}" for w, v in mix.items())
        raise ConfigError(
            f"concurrency {', '.join(map(str, unmeasured))} was not measured",
            found=", ".join(map(str, unmeasured)),
            expected=", ".join(map(str, levels)),
            fix=f"{command} --mix {shares} --max-concurrency {','.join(map(str, dict.fromkeys(near)))}",
        )
    return sorted(asked)


def _level_mix_scope(cells: Sequence[CellSummary], level_mix: Mapping[int, float], command: str) -> None:
    """Raises ConfigError for a level mix on an open-loop run (its levels are request rates or a trace, not
    concurrency), or naming every level of ``level_mix`` the run did not measure (one correction fixes all)."""
    axis = level_axis(cells)
    if axis.open:
        what = ", ".join(axis.label(lev) for lev in sorted({c.concurrency for c in cells}))
        raise ConfigError(
            "--level-mix is shares of wall time per concurrency level, and this run is an open loop",
            found=f"--level-mix {', '.join(f'{k}={v:g}' for k, v in level_mix.items())} on a run measured at {what}",
            expected="--level-mix on a run measured with --max-concurrency (--mix picks per rate here)",
            fix=f"{command} --mix {equal_mix(sorted(workloads_of(cells)))}",
        )
    levels = sorted({c.concurrency for c in cells})
    unmeasured = [lev for lev in level_mix if lev not in levels]
    if unmeasured:
        raise ConfigError(
            f"concurrency {', '.join(map(str, unmeasured))} of the --level-mix was not measured",
            found=", ".join(f"{k}={v:g}" for k, v in level_mix.items()),
            expected="levels among " + ", ".join(map(str, levels)),
            fix=f"{command} --level-mix {equal_mix(levels)}",
        )


def advise(  # noqa: PLR0913 - the library entry point behind `specscope advise`, one argument per option
    summaries: Iterable[CellSummary],
    traffic: Traffic | Mapping[str, float] | None = None,
    *,
    baseline: str = "base",
    concurrency: int | Sequence[int] | None = None,
    acceptance: float | None = None,
    acceptance_config: str | None = None,
    server_facts: RunFacts | None = None,
    min_effect: float = DEFAULT_MIN_EFFECT,
    command: str = "specscope advise RUN",
    finished: bool = True,
) -> Advice:
    """The picks for a traffic mix (or a measured acceptance) at each level and overall (module docstring).

    Args:
        traffic: the mix (token shares per workload summing to 1, :func:`specscope.stats.mix.parse_mix`), level mix
            (:func:`specscope.stats.mix.parse_level_mix`), SLO and notes (:class:`specscope.stats.choices.Traffic`),
            or just a mix; with a level mix alone, or nothing, equal token shares over the run's workloads (as
            ``report``; a note says so).
        concurrency: advise at this measured level (or these) only.
        command: the command line (``specscope advise runs/run-1``) an error's fix completes.
        finished: False for a run that stopped before its last cell (its manifest's ``finished``): a missing
            config is then finished with ``bench --resume``.
        command: the command line so far (``specscope advise runs/run-1``), which the fixes of its errors complete.

    Raises:
        ConfigError: a mix workload, the concurrency or a level-mix level not in
            the run; a bad acceptance.
    """
    t = traffic if isinstance(traffic, Traffic) else Traffic(mix=traffic)
    cells = list(summaries)
    measured = [c for c in cells if not c.config.endswith(SENTINEL_SUFFIX)]
    candidates = [c for c in measured if not is_control(c.config)]
    placement = None
    mix = t.mix
    if acceptance is not None:
        placement = place_acceptance(candidates, acceptance, acceptance_config, baseline, command)
        mix = placement.mix if mix is None else mix
    workloads = list(dict.fromkeys(c.workload for c in measured))
    assumed = not mix and t.level_mix is None  # report's default: equal token shares over the run's workloads
    shares = dict(mix) if mix else {w: 1.0 / len(workloads) for w in workloads}
    levels = _scope(measured, shares, concurrency, command)
    if t.level_mix is not None:
        _level_mix_scope(measured, t.level_mix, command)
    facts = server_facts or RunFacts()
    t = replace(t, mix=shares, levels=levels)
    # every cell, sentinels included: they are what confirms a drift (one judgement of the run, as report's)
    methods, pools = methods_of(facts) or None, log_pools_of(facts)
    j = judge(cells, baseline, min_effect=min_effect, methods=methods, traffic=t, log_pools=pools)
    if j.choices is None:
        raise ConfigError(
            f"the run has no config to compare with its baseline {baseline!r}",
            found=", ".join(dict.fromkeys(c.config for c in measured)),
            expected="the baseline and at least one other config",
            fix=_second_config_fix(list(dict.fromkeys(c.config for c in measured)), baseline, facts, command)
            if finished
            else f"specscope bench --resume {_run_of(command)} (the run stopped before its last cell)",
        )
    out_notes = []
    if assumed:
        out_notes.append(
            f"no --mix, --level-mix or --acceptance: equal token shares over the run's workloads "
            f"(as report assumes: --mix {equal_mix(sorted(workloads))}); pass --mix for your traffic"
        )
    if any(lv.comparison is not None and lv.comparison.rounds < 6 for lv in j.choices.levels):
        out_notes.append("fewer than 6 rounds: intervals are wide (each names the rounds it rests on)")
    alarms = run_alarms(j, facts, cells)  # the run's, as report renders them
    ks = config_ks([c for c in dict.fromkeys(x.config for x in candidates) if c != baseline], facts)
    return Advice(j, j.choices, list(j.crossovers), placement, out_notes, alarms, ks)


def config_ks(configs: Iterable[str], facts: RunFacts) -> dict[str, int | None]:
    """k (draft tokens per step) of each config from :func:`specscope.stats.server_spec.spec_k`, None when nothing
    says: what ``advise`` and ``report`` print in their picks (unknown shows as —, never 0)."""
    return {c: spec_k(c, facts.of(c)) for c in configs}


def _run_of(command: str) -> str:
    """The run folder of ``specscope advise RUN`` as a shell word (RUN quoted there), else ``RUN``."""
    try:
        words = shlex.split(command)
    except ValueError:
        return "RUN"
    if words[:2] == ["specscope", "advise"] and len(words) > 2 and not words[2].startswith("-"):
        return shell_word(words[2])
    return "RUN"


def _second_config_fix(configs: Sequence[str], baseline: str, facts: RunFacts, command: str) -> str:
    """A command that measures the run again with a second config beside its one, so that advise has something to
    compare: ``bench --like RUN`` with the run's server and a second one (servers the user runs), or with
    ``--configs base,CONFIG`` (servers specscope starts: ``base,ngram`` when the one config is ``base``)."""
    run = _run_of(command)
    only = configs[0] if configs else baseline
    mine = facts.of(only)
    then = "; then advise the run folder it prints"
    if mine.kind == "external" and mine.base_url:
        other, what = ("base", "without") if only != "base" else ("spec", "with")
        return (
            f"specscope bench --like {run} --server {only}={mine.base_url} --server {other}=URL --baseline base "
            f"(URL: a server of the same model {what} speculative decoding){then}"
        )
    pair = f"base,{only}" if only != "base" else "base,ngram"
    return f"specscope bench --like {run} --configs {pair} --baseline base{then}"


def _gain(m: MixComparison | None) -> Cell:
    return units.speedup(1.0 if m is None else m.speedup)


def _interval(m: MixComparison | None) -> Cell:
    if m is None or m.low is None or m.high is None:
        return units.missing()
    return text_cell(f"[{ratio_text(m.low)}, {ratio_text(m.high)}] ({m.rounds} rounds)")


def _pick_row(lv: LevelChoice, label: Cell, k: int | None) -> list[Cell]:
    m = lv.comparison
    return [
        label,
        text_cell(lv.config),
        units.count(k),
        _gain(m),
        _interval(m),
        text_cell("baseline" if m is None else verdict_text(m.verdict)),
        text_cell(lv.reason),
        text_cell(", ".join(f"{w}: {c}" for w, c in lv.per_workload.items()) or units.DASH),
    ]


def no_pick_reason(c: Choices) -> str:
    """Why no level has a pick: the choice's own reason, else the usual one (no paired round on every workload)."""
    return c.no_pick or "no level has a paired round on every workload of the mix"


def choices_tables(
    choices: Choices, ks: Mapping[str, int | None] | None = None, axis: LevelAxis | None = None
) -> list[Table]:
    """The picks as tables: per level and overall, every candidate's mix comparison, and the level mix; ``ks``:
    each config's k (:func:`config_ks`; absent or None: unknown, —); ``axis``: what the levels are."""
    ks = ks or {}
    axis = axis or LevelAxis()
    mix = ", ".join(f"{w}={m:.2f}" for w, m in choices.mix.items())
    rows = [_pick_row(lv, units.level(axis, lv.level), ks.get(lv.config)) for lv in choices.levels]
    if choices.overall is not None:
        rows.append(_pick_row(choices.overall, text_cell("overall"), ks.get(choices.overall.config)))
    cols = [
        units.level_column(axis),
        Column("pick"),
        Column("k"),
        Column("mix speedup", "x"),
        Column("interval"),
        Column("verdict"),
        Column("why"),
        Column("per workload"),
    ]
    # a table with no rows prints its title and note only: the note says why it is empty
    none = "" if choices.levels else f"No pick: {no_pick_reason(choices)}. "
    picks = Table(
        "choices",
        f"Picks vs {choices.baseline} for the mix {mix}",
        cols,
        rows,
        none
        + "Mix speedup: the token-weighted rate over the baseline's (harmonic in the shares), per round, with its 95% "
        "t-interval on log ratios; a pick must be faster than the baseline by the comparisons' rule. Overall: the "
        "same time at each level, averaged on tok/s.",
    )
    cand_rows = [
        [
            units.level(axis, lv.level),
            text_cell(m.config),
            units.speedup(m.speedup),
            _interval(m),
            text_cell(verdict_text(m.verdict)),
            text_cell(m.why or units.DASH),
            text_cell("no (A/A control)" if m.control else "yes" if m.eligible else "no (SLO)"),
        ]
        for lv in choices.levels
        for m in lv.candidates
    ]
    candidates = Table(
        "candidates",
        "Every candidate on the mix, per level",
        [
            units.level_column(axis),
            Column("config"),
            Column("mix speedup", "x"),
            Column("interval"),
            Column("verdict"),
            Column("why"),
            Column("eligible"),
        ],
        cand_rows,
        none.strip(),
    )
    return [picks, candidates, *_level_mix_tables(choices), *_unjudged_tables(choices, axis)]


def flip_lines(c: Choices, crossovers: Sequence[Crossover], axis: LevelAxis) -> list[str]:
    """Where the pick flips between measured levels, and each judged crossover (the judgement's, so ``advise`` and
    ``report`` print the same sentences)."""
    lines = [
        f"the pick flips from {f['from_config']} to {f['to_config']} between {axis.label(f['below_level'])} and "
        f"{axis.label(f['above_level'])}"
        for f in c.flips
    ]
    for x in crossovers:
        what = "the mix" if x.workload is None else x.workload
        lines.append(
            f"{x.config} on {what}: {x.direction} near {x.at:.1f} {x.unit} (between {axis.label(x.below_level)} and "
            f"{axis.label(x.above_level)})"
        )
    return lines


def unjudged_lines(choices: Choices, axis: LevelAxis) -> list[str]:
    """The picks by point estimate as sentences, each labelled unjudged (:mod:`specscope.stats.unjudged`); none when
    every comparison could be judged."""
    u = choices.unjudged
    if u is None:
        return []
    base = choices.baseline
    per = ", ".join(
        f"{axis.label(p.level)} {p.config} {units.tok_s(p.tok_s).text} tok/s"
        + ("" if p.config == base or p.baseline_tok_s is None else f" ({base} {units.tok_s(p.baseline_tok_s).text})")
        for p in u.levels
    )
    out = [f"unjudged (point estimates, no verdict; to judge them: {u.needs}): best per level: {per}"]
    if u.static is not None and u.static_tok_s is not None:
        rest = (
            "" if u.static == base or u.baseline_tok_s is None else f" ({base}: {units.tok_s(u.baseline_tok_s).text})"
        )
        out.append(
            f"unjudged static policy: {u.static} at {units.tok_s(u.static_tok_s).text} tok/s time-weighted{rest}"
        )
    if u.dynamic and u.dynamic_tok_s is not None:
        policy = ", ".join(f"{axis.label(lev)} -> {cfg}" for lev, cfg in u.dynamic.items())
        out.append(f"unjudged dynamic policy: {policy}: {units.tok_s(u.dynamic_tok_s).text} tok/s time-weighted")
    return out


def _unjudged_tables(choices: Choices, axis: LevelAxis) -> list[Table]:
    u = choices.unjudged
    if u is None:
        return []
    rows = [
        [units.level(axis, p.level), text_cell(p.config), units.tok_s(p.tok_s), units.tok_s(p.baseline_tok_s)]
        for p in u.levels
    ]
    cols = [units.level_column(axis), Column("best by point estimate"), Column("its rate", "tok/s")]
    cols.append(Column(f"{choices.baseline}", "tok/s"))
    note = "Unjudged: " + ("; ".join(unjudged_lines(choices, axis)[1:]) or "no level mix given") + "."
    return [Table("unjudged", f"Unjudged picks (to judge them: {u.needs})", cols, rows, note)]


def _level_mix_tables(choices: Choices) -> list[Table]:
    lm = choices.level_mix
    if lm is None:
        return []
    shares = ", ".join(f"N={lev} {100 * w:.0f}%" for lev, w in lm.level_mix.items())
    judged = {m.config: m for m in lm.candidates}
    rows = [
        [
            text_cell(cfg),
            units.tok_s(rate),
            units.tok_s(lm.per_user.get(cfg)),
            units.speedup(1.0)
            if cfg == choices.baseline
            else units.speedup(judged[cfg].speedup)
            if cfg in judged
            else units.missing(),  # not judged on the level mix: absent, never the baseline's 1.00x
            _interval(judged.get(cfg)),
            text_cell(
                "baseline"
                if cfg == choices.baseline
                else verdict_text(judged[cfg].verdict)
                if cfg in judged
                else "not judged (a level of the mix without paired rounds)"
            ),
            text_cell("static pick" if cfg == lm.choice else ""),
        ]
        for cfg, rate in sorted(lm.static.items(), key=lambda kv: -kv[1])
    ]
    policy = ", ".join(f"N={lev} -> {cfg}" for lev, cfg in lm.dynamic.items())
    dyn = f"{policy}: {units.tok_s(lm.dynamic_tok_s).text} tok/s"
    if not lm.dynamic:  # no level has a pick: no policy and no rate to show (it printed ": — tok/s")
        dyn = f"none, no level of the level mix has a pick ({no_pick_reason(choices)})"
    gain = "" if lm.dynamic_gain is None else f" ({100 * lm.dynamic_gain:+.1f}% vs the static pick)"
    u = choices.unjudged  # the judged picks never stand alone where the table's own figures rank another first
    also = (
        "" if u is None or u.static in (None, lm.choice) else f" (judged; unjudged, the figures rank {u.static} first)"
    )
    if u is not None and u.dynamic and dict(u.dynamic) != dict(lm.dynamic):
        unjudged_policy = ", ".join(f"N={lev} -> {cfg}" for lev, cfg in u.dynamic.items())
        gain += f" (judged; unjudged, by the figures: {unjudged_policy}: {units.tok_s(u.dynamic_tok_s).text} tok/s)"
    return [
        Table(
            "level_mix",
            f"Level mix ({shares} of wall time): static pick {lm.choice}{also}",
            [
                Column("config"),
                Column("time-weighted", "tok/s"),
                Column("per user", "tok/s"),
                Column("vs baseline", "x"),
                Column("interval"),
                Column("verdict"),
                Column("pick"),
            ],
            rows,
            f"Dynamic policy (each level's pick): {dyn}{gain}. Time-weighted: sum over levels of the "
            "share of wall time x the mix rate (tok/s); per user: each level's median stream rate weighted by its "
            "share of time (a point estimate, no verdict).",
        )
    ]


def _figure(label: str, m: MixComparison | None) -> str:
    """``label`` and a judged mix figure as a verdict line says it: ``, LABEL 1.16x [1.04x, 1.30x] (3 rounds,
    faster)``; "" without one. The overall (equal time at each level) and the level mix (its own shares of time) are
    two weightings of the same judged rates: each line names its own."""
    if m is None:
        return ""
    out = f"{label} {units.speedup(m.speedup).text}"
    if m.verdict != "faster":  # the baseline is the pick: the figure is the best other candidate's, named
        out = f"{label} of the best other, {m.config}, {units.speedup(m.speedup).text}"
    if m.low is not None and m.high is not None:
        out += f" [{ratio_text(m.low)}, {ratio_text(m.high)}] ({m.interval}, {verdict_text(m.verdict)})"
    return out


def advice_section(adv: Advice) -> Section:
    """The advice as a report section (rendered by the report's text, Markdown, JSON and HTML renderers)."""
    lines = []
    if adv.placement is not None:
        lines.append(adv.placement.text)
    c = adv.choices
    axis = adv.judgement.axis
    if c.overall is not None:
        gain = _figure(", equal-time mix speedup", c.overall.comparison)
        lines.append(f"overall: {c.overall.config}{gain}; {c.overall.reason}")
    if c.level_mix is not None:
        also = (
            ""
            if c.unjudged is None or c.unjudged.static in (None, c.level_mix.choice)
            else (f" (judged); unjudged, the figures rank {c.unjudged.static} first")
        )
        shares = ", ".join(f"N={lev} {100 * w:.0f}%" for lev, w in c.level_mix.level_mix.items())
        gain = _figure(", time-weighted speedup", c.level_mix.comparison)
        lines.append(f"level mix ({shares} of wall time): static pick {c.level_mix.choice}{also}{gain}")
    lines += unjudged_lines(c, axis)
    lines += flip_lines(c, adv.crossovers, axis)
    notes = [*c.notes, *adv.notes, *cold_start_notes(adv.judgement)]  # the rounds the picks leave out, as report
    if not c.levels:
        notes.append(f"no recommendation: {no_pick_reason(c)}")
    return Section(
        "advice",
        f"Advice vs {adv.baseline} (min effect {adv.judgement.min_effect:.1%})",
        choices_tables(c, adv.ks, axis),
        lines,
        notes,
        list(adv.alarms),
    )
