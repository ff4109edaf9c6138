"""The one verdict rule: a speedup and its interval in, a verdict from a closed set and its reasons out.

Verdicts (:data:`VERDICTS`):

* ``not_engaged`` - a speculative config whose server reported 0 drafts (a counter that says 0; an absent counter
  is unknown and never read as 0) in every cell of the comparison: it did not speculate, so its speed says nothing
  about its method;
* ``undetermined`` - fewer than :data:`MIN_VERDICT_ROUNDS` paired rounds (no interval), no figure that means speed
  for the load (``NO_SPEED_FIGURE``: open-loop cells without a TPOT; their output tok/s is the offered load and is
  never judged), or none of the three below holds;
* ``equivalent`` - the whole interval lies within ``1 +- min_effect`` (an equivalence test at the interval's
  level: any difference is smaller than the smallest one that matters);
* ``faster`` / ``slower`` - the interval excludes 1 *and* the effect ``|speedup - 1|`` exceeds the minimum
  practical effect ``min_effect`` (``--min-effect``, default :data:`DEFAULT_MIN_EFFECT`), the run's A/A noise floor
  (:func:`specscope.stats.noise.aa_floor`) and the bias a drift the A/A or sentinel cells confirm can give its
  paired rounds (:meth:`specscope.stats.noise.DriftCheck.bias`).

The A/A control itself is never faster or slower: ``equivalent`` or ``undetermined`` (its interval excluding 1 says
the run is noisier than its intervals claim: ``AA_EXCLUDES_ONE``).

:data:`MIN_VERDICT_ROUNDS` is the smallest n at which ``benchmarks/verdict_coverage.py`` found the interval's
coverage at least 93 % (nominal 95 %) and false faster/slower on A/A at most 5 % over CV 0.3-5 % with slow drift
(benchmarks/RESULTS.md, "Verdict coverage"). Every reason is a code with its figure (:class:`Reason`); the
sentence is rendered here from them, and nothing reads a sentence back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from specscope.config import RunOptions
from specscope.stats.noise import NoiseFloor
from specscope.stats.speedup import Interval, PairedRounds
from specscope.stats.summary import CellSummary
from specscope.values import count_noun, ratio_text

__all__ = [
    "Verdict",
    "VERDICTS",
    "DEFAULT_MIN_EFFECT",
    "MIN_VERDICT_ROUNDS",
    "Reason",
    "Judged",
    "Comparison",
    "decide",
    "side_reasons",
    "verdict_text",
    "min_effect_of",
]

Verdict = Literal["faster", "slower", "equivalent", "undetermined", "not_engaged"]
VERDICTS: tuple[Verdict, ...] = ("faster", "slower", "equivalent", "undetermined", "not_engaged")
DEFAULT_MIN_EFFECT = 0.02  # fraction: the smallest speedup change that matters unless --min-effect says otherwise
MIN_VERDICT_ROUNDS = 2  # from benchmarks/verdict_coverage.py (module docstring)


def min_effect_of(options: RunOptions | None, given: float | None = None) -> float:
    """The minimum effect a stored run is judged with: ``given`` (``--min-effect``), else the one recorded in its
    manifest's options (``options``: None for no run), else :data:`DEFAULT_MIN_EFFECT` (runs stored before it was
    recorded)."""
    if given is not None:
        return given
    stored = options.min_effect if options is not None else None
    return float(stored) if stored is not None else DEFAULT_MIN_EFFECT


def verdict_text(verdict: str) -> str:
    """The verdict as printed: ``not engaged`` for ``not_engaged``, the others as they are."""
    return verdict.replace("_", " ")


def _pct(x: float) -> str:
    return f"{x * 100:.1f} %"


@dataclass(frozen=True)
class Reason:
    """One reason a verdict is what it is: a ``code``, its ``figure`` (a fraction, a count or a bound; units in
    :data:`REASON_CODES`) and the sentence rendered from them."""

    code: str
    figure: float | int | None
    text: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: code -> what its figure is.
REASON_CODES: dict[str, str] = {
    "TOO_FEW_ROUNDS": "paired rounds (count)",
    "INTERVAL_INCLUDES_ONE": "the interval's half-width on the log scale (fraction)",
    "BELOW_MIN_EFFECT": "the effect |speedup - 1| (fraction)",
    "AA_FLOOR": "the A/A noise floor (fraction)",
    "DRIFT": "the bias a confirmed drift can give the comparison's pairs (fraction)",
    "ROUNDS_DROPPED": "rounds dropped (count)",
    "COLD_START": "cells left out as cold starts (count)",
    "NOT_INTERLEAVED": "imported cells whose rounds were paired by order, not measured interleaved (count)",
    "NO_DRAFTS": "cells whose server reported 0 drafts (count)",
    "CAPACITY_LIMITED": "cells where the server ran fewer requests than asked (count)",
    "CLIENT_LIMITED": "cells dropped because the client fell behind (count)",
    "AA_EXCLUDES_ONE": "the A/A control's effect (fraction)",
    "NO_SPEED_FIGURE": "open-loop cells with no TPOT to judge speed on (count)",
}


class Judged:
    """What every judged figure (a comparison, a mix's) derives from its ``speedup`` and ``reasons``."""

    speedup: float | None
    reasons: tuple[Reason, ...]

    @property
    def gain(self) -> float | None:
        """speedup - 1 (fraction; 0.323 means +32.3 %)."""
        return None if self.speedup is None else self.speedup - 1.0

    @property
    def why(self) -> str:
        """The reasons as one sentence ("" when none)."""
        return "; ".join(r.text for r in self.reasons)

    def has(self, code: str) -> bool:
        return any(r.code == code for r in self.reasons)

    def to_dict(self) -> dict[str, Any]:
        """Every field, the reasons as dicts, and the gain."""
        d = asdict(self)  # type: ignore[call-overload]
        d["reasons"] = [r.to_dict() for r in self.reasons]
        d["gain"] = self.gain
        return dict(d)


@dataclass(frozen=True)
class Comparison(Judged):
    """One config against the baseline at one workload x level: everything its verdict rests on.

    Attributes:
        config, baseline, workload, level: the comparison (level = requested concurrency, or the rate's position
            for open-loop rate runs: :class:`specscope.stats.groups.LevelAxis` names it).
        metric: the figure compared, the speed figure of the load (:func:`specscope.stats.groups.speed_metric`):
            ``output_tok_s`` (closed loop) or ``decode_tok_s`` (open loop: 1 / TPOT p50).
        rounds: paired rounds it rests on; ``dropped``: rounds stored but not paired (unusable, unpaired, cold).
        config_mean, baseline_mean: means of the figure over those rounds (tokens/s).
        speedup: geometric mean of the paired ratios; ``low``/``high`` its interval (None without one);
            ``method`` the interval's method id, ``interval`` its words.
        verdict: one of :data:`VERDICTS`; ``reasons``: why (codes with figures).
        config_cv, baseline_cv: coefficient of variation over the rounds (fraction), None with < 2.
        control: the A/A control (never faster or slower).
        drafts: what the config's server reported of its drafting over its cells (:func:`specscope.stats.acceptance.
            cell_drafts`: verify steps with a draft, or drafted tokens where only the responses say), None when no
            cell said.
    """

    config: str
    baseline: str
    workload: str
    level: int
    metric: str
    rounds: int
    dropped: int
    config_mean: float | None
    baseline_mean: float | None
    speedup: float | None
    low: float | None
    high: float | None
    method: str
    interval: str
    verdict: Verdict
    reasons: tuple[Reason, ...] = field(default=())
    config_cv: float | None = None
    baseline_cv: float | None = None
    control: bool = False
    drafts: float | None = None


def _decided(
    iv: Interval, min_effect: float, floor: NoiseFloor | None, drift: float | None, control: bool
) -> tuple[Verdict, list[Reason]]:
    """The verdict of an interval (module docstring), for a comparison that has one."""
    assert iv.point is not None and iv.low is not None and iv.high is not None
    effect = iv.point - 1.0
    within = 1.0 - min_effect <= iv.low and iv.high <= 1.0 + min_effect
    excludes = iv.low > 1.0 or iv.high < 1.0
    bounds = f"[{ratio_text(iv.low, 3)}, {ratio_text(iv.high, 3)}]"
    if within:
        return "equivalent", []
    if control:
        if excludes:
            text = (
                f"the A/A interval {bounds} excludes 1: two identical servers differ by {effect * 100:+.1f} %, "
                "so the run is noisier than its intervals say"
            )
            return "undetermined", [Reason("AA_EXCLUDES_ONE", abs(effect), text)]
        return "undetermined", [_includes_one(iv, bounds, min_effect)]
    if not excludes:
        return "undetermined", [_includes_one(iv, bounds, min_effect)]
    reasons = []
    if abs(effect) <= min_effect:
        text = f"effect {effect * 100:+.1f} % is not beyond the minimum effect +-{_pct(min_effect)}"
        reasons.append(Reason("BELOW_MIN_EFFECT", abs(effect), text + f", nor is its interval {bounds} within it"))
    if floor is not None and abs(effect) <= floor.value:
        where = (floor.place or floor.workload + (f" at N={floor.level}" if floor.level else "")) + (
            f", {count_noun(floor.rounds, 'round')}"
        )
        text = f"effect {effect * 100:+.1f} % is inside the A/A noise floor +-{_pct(floor.value)} ({where})"
        reasons.append(Reason("AA_FLOOR", floor.value, text))
    if drift is not None and abs(effect) <= drift:
        text = (
            f"effect {effect * 100:+.1f} % is no larger than the {_pct(drift)} its baseline's drift (confirmed by "
            "the A/A or sentinel cells) can move pairs this far apart in time"
        )
        reasons.append(Reason("DRIFT", drift, text))
    if reasons:
        return "undetermined", reasons
    return ("faster" if effect > 0 else "slower"), []


def _includes_one(iv: Interval, bounds: str, min_effect: float) -> Reason:
    half = iv.half_width
    assert half is not None
    text = f"the interval {bounds} contains 1 and reaches beyond +-{_pct(min_effect)}"
    return Reason("INTERVAL_INCLUDES_ONE", half, text)


def decide(
    iv: Interval,
    *,
    min_effect: float = DEFAULT_MIN_EFFECT,
    floor: NoiseFloor | None = None,
    drift: float | None = None,
    control: bool = False,
    zero_draft_cells: int = 0,
    engaged: bool | None = None,
    no_figure: int = 0,
) -> tuple[Verdict, tuple[Reason, ...]]:
    """The verdict and its reasons (module docstring).

    Args:
        iv: the speedup and its interval (:func:`specscope.stats.speedup.log_ratio_interval`).
        min_effect: the minimum practical effect (fraction).
        floor: the A/A noise floor for this comparison (None: no A/A control).
        drift: the bias a confirmed drift can give its pairs (fraction; None: none confirmed).
        control: the comparison is the A/A control.
        zero_draft_cells: cells of the config whose server reported 0 drafts.
        engaged: False when the config is speculative and every cell that reported a draft count reported 0.
        no_figure: open-loop cells stored but without a speed figure (no TPOT): with no paired round, the verdict is
            ``undetermined`` for that reason (their output tok/s is the offered load, never a speed).
    """
    if engaged is False:
        text = f"the server reported 0 drafts in {zero_draft_cells} cell{'s' if zero_draft_cells != 1 else ''}"
        return "not_engaged", (Reason("NO_DRAFTS", zero_draft_cells, text + ": it did not speculate"),)
    if no_figure and iv.rounds == 0:
        text = (
            f"open loop: {no_figure} cell{'s' if no_figure != 1 else ''} without a TPOT (time per output token), and "
            "the output tok/s of an open loop is the offered load, not the server's speed: no speed verdict"
        )
        return "undetermined", (Reason("NO_SPEED_FIGURE", no_figure, text),)
    if iv.low is None or iv.high is None or iv.point is None or iv.rounds < MIN_VERDICT_ROUNDS:
        text = (
            f"{iv.rounds} paired round{'s' if iv.rounds != 1 else ''}: a verdict needs at least {MIN_VERDICT_ROUNDS} "
            "(run more repeats)"
        )
        return "undetermined", (Reason("TOO_FEW_ROUNDS", iv.rounds, text),)
    verdict, reasons = _decided(iv, min_effect, floor, drift, control)
    return verdict, tuple(reasons)


def side_reasons(
    pr: PairedRounds,
    asked: Sequence[CellSummary],
    config_cells: Sequence[CellSummary],
    *,
    zero_drafts: int = 0,
    counted_cells: int = 0,
) -> list[Reason]:
    """The reasons that explain a comparison's rounds without deciding its verdict (codes in
    :data:`REASON_CODES`): ``pr`` the paired rounds, ``asked`` every cell of the comparison's group (both sides),
    ``config_cells`` the config's own; ``zero_drafts`` of ``counted_cells`` (cells with a draft count) reported 0
    drafts where that did not make the config ``not_engaged`` (0: no ``NO_DRAFTS`` reason)."""
    out = []
    client = sum(1 for c in asked if any(r.startswith("CLIENT_LIMITED") for r in c.reasons))
    other = pr.dropped - pr.cold - client
    if pr.cold:
        out.append(Reason("COLD_START", pr.cold, f"{pr.cold} cell(s) left out as cold starts"))
    if client:
        out.append(Reason("CLIENT_LIMITED", client, f"{client} cell(s) dropped: the client fell behind"))
    if other > 0:
        out.append(Reason("ROUNDS_DROPPED", other, f"{other} round(s) dropped as degraded, failed or unpaired"))
    imported = sum(1 for c in asked if any(r.startswith("IMPORTED(") for r in c.reasons))
    if imported:  # measured by another tool (specscope import): rounds paired by order, not by time
        out.append(
            Reason("NOT_INTERLEAVED", imported, f"{imported} imported cell(s): rounds paired by order, not interleaved")
        )
    limited = sum(1 for c in config_cells if c.capacity_limited)
    if limited:
        out.append(
            Reason("CAPACITY_LIMITED", limited, f"{limited} cell(s) where the server ran fewer requests than asked")
        )
    if zero_drafts:
        out.append(
            Reason("NO_DRAFTS", zero_drafts, f"the server reported 0 drafts in {zero_drafts} of {counted_cells} cells")
        )
    return out
