"""What the judgement adds around the run's picks: where a verdict flips between measured levels (decided once, in
:func:`specscope.stats.judgement.judge`, as ``Judgement.crossovers``), and placing a measured acceptance between the
run's workloads (``advise --acceptance``).

The picks themselves (mix speedups, their intervals and verdicts) are the run's judgement
(:mod:`specscope.stats.choices`); units: shares and acceptance as fractions, concurrency in requested streams.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from specscope.config import is_control
from specscope.errors import ConfigError
from specscope.stats.acceptance import pooled_acceptance
from specscope.stats.choices import Choices
from specscope.stats.groups import LevelAxis
from specscope.stats.summary import CellSummary
from specscope.stats.verdict import Comparison

__all__ = ["Crossover", "Placement", "find_crossovers", "judged_crossovers", "place_acceptance"]


@dataclass(frozen=True)
class Crossover:
    """Where ``config``'s verdict against the baseline flips between ``faster`` and ``slower`` (``workload`` None: the
    mix): between the measured levels ``below_level`` and ``above_level``, near ``at`` (``unit``: streams, or
    requests/s on a rate axis) where its speedup crosses 1.0."""

    config: str
    workload: str | None
    below_level: int
    above_level: int
    at: float
    unit: str
    direction: str  # "faster->slower" or "slower->faster" (the verdicts)


@dataclass(frozen=True)
class Placement:
    """A measured acceptance placed between the run's workloads for one config."""

    config: str
    acceptance: float
    workload_acceptance: dict[str, float]
    nearest: str
    mix: dict[str, float]
    text: str


def _interp_log2(c0: float, s0: float, c1: float, s1: float) -> float:
    t = (s0 - 1.0) / (s0 - s1)
    return float(2 ** (math.log2(c0) + t * (math.log2(c1) - math.log2(c0))))


#: the verdicts a crossover is between (:mod:`specscope.stats.verdict`)
DECIDED = ("faster", "slower")


def find_crossovers(
    series: Iterable[tuple[int, float, str]], config: str, workload: str | None, axis: LevelAxis | None = None
) -> list[Crossover]:
    """The flips of a (level, speedup, verdict) series (any order of levels): between two consecutive levels whose
    verdicts are ``faster`` and ``slower`` (levels without such a verdict are passed over: a sign change inside the
    noise is not a crossover), placed where the speedup crosses 1.0, linear in log2 of the axis' values."""
    axis = axis or LevelAxis()
    pts = sorted(p for p in series if p[2] in DECIDED)
    out = []
    for (c0, s0, v0), (c1, s1, v1) in zip(pts, pts[1:], strict=False):
        if v0 == v1:
            continue
        x0, x1 = axis.rate(c0) or float(c0), axis.rate(c1) or float(c1)
        out.append(Crossover(config, workload, c0, c1, _interp_log2(x0, s0, x1, s1), axis.unit, f"{v0}->{v1}"))
    return out


def place_acceptance(
    summaries: Sequence[CellSummary],
    acceptance: float,
    config: str | None = None,
    baseline: str = "base",
    command: str = "specscope advise RUN",
) -> Placement:
    """Place a measured acceptance rate between the run's workloads (see the module docstring); ``command``: the
    command line (``specscope advise runs/run-1``) an error's fix completes.

    Raises:
        ConfigError: acceptance outside [0, 1]; no config with acceptance counters; ``config`` not
            given while several configs draft; the config measured on fewer than one workload.
    """
    if not 0.0 <= acceptance <= 1.0:
        raise ConfigError(
            "--acceptance is a fraction",
            found=acceptance,
            expected="0..1 (accepted / drafted tokens)",
            fix=f"{command} --acceptance 0.47",
        )
    views = pooled_acceptance(summaries)
    drafting = list(dict.fromkeys(c for c, _ in views if c != baseline))
    if not drafting:
        rates_only = sorted({c.config for c in summaries if c.acceptance_rate is not None and c.config != baseline})
        raise ConfigError(
            "the run has no acceptance counters",
            found=(
                f"acceptance rates without drafted / accepted counts ({', '.join(rates_only)}: a CSV's acceptance "
                "column or an imported file states a rate only)"
                if rates_only
                else "no config drafted"
            ),
            expected="drafted and accepted token counts per cell, which --acceptance places a rate between",
            fix="bench a draft config with /metrics (or per-request acceptance), then run advise on that run",
        )
    if config is None:
        if len(drafting) > 1:
            raise ConfigError(
                "say which config the acceptance was measured with",
                found=", ".join(drafting),
                expected="--acceptance-config NAME",
                fix=f"{command} --acceptance {acceptance:g} --acceptance-config {drafting[0]}",
            )
        config = drafting[0]
    if config not in drafting:
        raise ConfigError(
            f"config {config!r} has no acceptance in the run",
            found=config,
            expected=", ".join(drafting),
            fix=f"{command} --acceptance {acceptance:g} --acceptance-config {drafting[0]}",
        )
    by_wl = {
        str(wl): v.acceptance_rate for (c, wl), v in views.items() if c == config and v.acceptance_rate is not None
    }
    order = sorted(by_wl.items(), key=lambda kv: kv[1])
    nearest = min(order, key=lambda kv: abs(kv[1] - acceptance))[0]
    if acceptance <= order[0][1]:
        mix = {order[0][0]: 1.0}
    elif acceptance >= order[-1][1]:
        mix = {order[-1][0]: 1.0}
    else:
        (lo_w, lo_a), (hi_w, hi_a) = next(
            (a, b) for a, b in zip(order, order[1:], strict=False) if a[1] <= acceptance <= b[1]
        )
        t = (acceptance - lo_a) / (hi_a - lo_a) if hi_a > lo_a else 1.0
        mix = {k: v for k, v in ((lo_w, 1.0 - t), (hi_w, t)) if v > 0}
    listing = ", ".join(f"{w} {a:.2f}" for w, a in order)
    text = f"acceptance {acceptance:.2f} on {config} is {nearest}-like (run: {listing})"
    return Placement(config, acceptance, dict(order), nearest, mix, text)


def judged_crossovers(choices: Choices, comparisons: Sequence[Comparison], axis: LevelAxis) -> tuple[Crossover, ...]:
    """Every candidate's crossovers (:func:`find_crossovers`): on the picks' mix (its mix comparisons per level) and
    per workload of the mix (the run's comparisons), candidates in name order."""
    out: list[Crossover] = []
    candidates = sorted({m.config for lv in choices.levels for m in lv.candidates if not is_control(m.config)})
    for cfg in candidates:
        mixed = [
            (m.level or 0, m.speedup, m.verdict)
            for lv in choices.levels
            for m in lv.candidates
            if m.config == cfg and m.speedup is not None
        ]
        out += find_crossovers(mixed, cfg, None, axis)
        for w in choices.mix:
            here = [
                (c.level, c.speedup, c.verdict)
                for c in comparisons
                if c.config == cfg and c.workload == w and c.speedup is not None
            ]
            out += find_crossovers(here, cfg, w, axis)
    return tuple(out)
