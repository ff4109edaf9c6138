"""The run's own noise floor: the A/A control and the drift check, and the verdicts they overrule.

* **A/A control.** ``BASELINE-again`` (``bench --aa``) is the baseline measured a second time like any config.
  Its speedup over the baseline should be 1; its interval's reach, ``spread = max(|low - 1|, |high - 1|)``
  (fraction), is the A/A spread of that workload x N. The run's **noise floor** is the largest spread over its
  workload x N groups (:func:`noise_floor`; in an adaptive run, over the groups measured on at least the
  comparison's rounds): a config is only called ``wins`` / ``loses`` when its interval excludes 1
  *and* its effect ``|speedup - 1|`` exceeds the noise floor; the A/A comparison itself is never a win or a loss.
  Why the largest and not each group's own: the noise is the machine's, and one group's spread from 2-6 A/A rounds
  is itself noise. On the embedded engine (quiet 2-core machine, 2026-12-02, benchmarks/RESULTS.md) the same
  group's spread ranged +-0.6 % to +-25 % after 2 rounds and +-5 % to +-14 % after 6, and a 2-round group whose two
  A/A rounds agreed to 0.6 % let a -2 % effect be called a loss.
* **Drift.** The baseline cells (and its A/A and sentinel cells) of each workload x N, in time order, early half
  against late half: ``drift = mean(late) / mean(early) - 1`` (aggregate tok/s). A comparison is judged against the
  drift of its own workload x N (:meth:`DriftCheck.of`): an effect no larger than it is not called a win or a loss.
  A drift elsewhere in the run does not bias it (the configs alternate in time and each cell is paired with the
  baseline cell nearest in time), and the largest over groups is a maximum of noisy estimates, larger still in an
  adaptive run whose settled groups stopped after 2 rounds. The run's drift (the largest over groups) is what the
  report prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from specscope.config import AA_SUFFIX, SENTINEL_SUFFIX
from specscope.stats.speedup import Speedup, paired_speedups
from specscope.stats.summary import CellSummary

__all__ = [
    "DriftCheck",
    "aa_spreads",
    "noise_floor",
    "drift_check",
    "gate_verdict",
    "apply_noise_floor",
    "judged_speedups",
]


def aa_spreads(speedups: Sequence[Speedup], baseline: str) -> dict[tuple[str, int], float]:
    """(workload, N) -> the A/A spread (fraction) where the A/A control has an interval."""
    out = {}
    for s in speedups:
        if s.config == baseline + AA_SUFFIX and s.ci_low is not None and s.ci_high is not None:
            out[(s.workload, s.concurrency)] = max(abs(s.ci_low - 1.0), abs(s.ci_high - 1.0))
    return out


def _aa_with_interval(speedups: Sequence[Speedup], baseline: str) -> list[Speedup]:
    """The A/A control's speedups that have an interval."""
    return [s for s in speedups if s.config == baseline + AA_SUFFIX and s.ci_low is not None and s.ci_high is not None]


def noise_floor(speedups: Sequence[Speedup], baseline: str, rounds: int) -> tuple[float, tuple[str, int]] | None:
    """The noise floor for a comparison on ``rounds`` paired rounds: the largest A/A spread (fraction) over the
    workload x N groups whose A/A control rests on at least ``rounds`` rounds (over all groups where none does), and
    the (workload, N) it was measured on; None without an A/A control with an interval.

    In a fixed design every group has the same rounds, so this is the run's largest spread. In an adaptive run a
    spread from fewer rounds than the comparison's is a coarser measure of the noise than the comparison needs (the
    6-round spread was 0.49-0.77 of the 2-round one, benchmarks/RESULTS.md): a 6-round comparison is judged against
    the 6-round groups, not against a group that stopped after 2 rounds.
    """
    aa = _aa_with_interval(speedups, baseline)
    enough = [s for s in aa if s.repeats >= rounds] or aa
    if not enough:
        return None
    spreads = aa_spreads(enough, baseline)
    group = max(spreads, key=lambda g: spreads[g])
    return spreads[group], group


@dataclass(frozen=True)
class DriftCheck:
    """Drift of the baseline between the early and the late half of the run.

    Attributes:
        drift: the largest |late / early - 1| over workload x N groups (fraction), None without two cells.
        group: the (workload, N) it was found in.
        cells: number of baseline-side cells it rests on.
        by_group: ((workload, N), drift, cells) of every group with at least two baseline-side cells.
    """

    drift: float | None
    group: tuple[str, int] | None
    cells: int
    by_group: tuple[tuple[tuple[str, int], float, int], ...] = ()

    def of(self, group: tuple[str, int]) -> DriftCheck:
        """The drift of one workload x N group's own baseline-side cells (the run's where the group has fewer than
        two)."""
        for g, d, n in self.by_group:
            if g == group:
                return DriftCheck(d, g, n, self.by_group)
        return self

    def flags(self, effect: float | None) -> bool:
        """True when the drift is at least as large as ``effect`` (fraction, sign ignored)."""
        return self.drift is not None and effect is not None and self.drift >= abs(effect)


def drift_check(cells: Sequence[CellSummary], baseline: str) -> DriftCheck:
    """The drift check over ok cells of ``baseline``, ``BASELINE-again`` and ``BASELINE~sentinel``."""
    names = {baseline, baseline + AA_SUFFIX, baseline + SENTINEL_SUFFIX}
    groups: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for c in cells:
        if c.config in names and c.status == "ok" and c.output_tok_s and c.started_at_s is not None:
            groups.setdefault((c.workload, c.concurrency), []).append((c.started_at_s, c.output_tok_s))
    best: tuple[float, tuple[str, int]] | None = None
    n = 0
    each: list[tuple[tuple[str, int], float, int]] = []
    for g, pts in groups.items():
        if len(pts) < 2:
            continue
        pts.sort()
        half = len(pts) // 2
        early = float(np.mean([p[1] for p in pts[:half]]))
        late = float(np.mean([p[1] for p in pts[len(pts) - half :]]))
        d = abs(late / early - 1.0) if early > 0 else 0.0
        n += len(pts)
        each.append((g, d, len(pts)))
        if best is None or d > best[0]:
            best = (d, g)
    return DriftCheck(None, None, 0) if best is None else DriftCheck(best[0], best[1], n, tuple(each))


def _pct(x: float) -> str:
    return f"{x * 100:.1f} %"


def _aa_verdict(s: Speedup, spread: float | None, floor: tuple[float, str] | None) -> Speedup:
    """The A/A control is never a win or a loss: it is the noise floor. ``floor``: (spread, where) that comparisons
    on as many rounds are judged against (``_floor_for``; where "" = this group's own spread)."""
    if s.verdict == "undetermined" or spread is None:
        return s
    if floor is None or not floor[1]:  # its own spread is the floor
        why = f"A/A control (the baseline measured twice): the noise floor is +-{_pct(spread)}"
    else:
        why = (
            f"A/A control (the baseline measured twice): its spread is +-{_pct(spread)}; comparisons on "
            f"{s.repeats} rounds are judged against +-{_pct(floor[0])} ({floor[1]})"
        )
    if not (s.ci_low or 0.0) <= 1.0 <= (s.ci_high or 0.0):
        why += "; its interval excludes 1, so the run is noisier than its intervals say"
    return replace(s, verdict="within noise", why=why)


def gate_verdict(
    verdict: str, effect: float | None, spread: float | None, drift: DriftCheck, spread_of: str = ""
) -> tuple[str, str | None]:
    """(verdict, why): a ``wins`` / ``loses`` whose ``effect`` (speedup - 1, fraction) is inside the A/A ``spread``
    (fraction; ``spread_of`` says where it was measured) or no larger than ``drift`` (its group's) becomes
    ``within noise``, ``why`` saying which; else unchanged."""
    if verdict not in ("wins", "loses") or effect is None:
        return verdict, None
    if spread is not None and abs(effect) <= spread:
        where = f" ({spread_of})" if spread_of else ""
        return "within noise", f"effect {effect * 100:+.1f} % is inside the A/A spread +-{_pct(spread)}{where}"
    if drift.flags(effect):
        g = drift.group if len(drift.by_group) > 1 else None  # one group: its drift is the run's
        whose, where = ("the run's", "") if g is None else ("its baseline's", f" ({g[0]} at N={g[1]})")
        return (
            "within noise",
            f"effect {effect * 100:+.1f} % is no larger than {whose} drift {_pct(drift.drift or 0.0)}{where}",
        )
    return verdict, None


def _floor_for(speedups: Sequence[Speedup], baseline: str, s: Speedup) -> tuple[float, str] | None:
    """(the noise floor for ``s`` (fraction), where it was measured); None without an A/A control. Where: "" when it
    is ``s``'s own group's spread; "the run's largest, W at N=n" when every A/A group counts (a fixed design, or none
    has ``s``'s rounds); "the largest on at least R rounds, W at N=n" when groups with fewer rounds were left out."""
    floor = noise_floor(speedups, baseline, s.repeats)
    if floor is None:
        return None
    spread, (w, n) = floor
    if (w, n) == (s.workload, s.concurrency):
        return spread, ""
    aa = _aa_with_interval(speedups, baseline)
    some_left_out = any(a.repeats < s.repeats for a in aa) and any(a.repeats >= s.repeats for a in aa)
    which = f"the largest on at least {s.repeats} rounds" if some_left_out else "the run's largest"
    return spread, f"{which}, {w} at N={n}"


def _gated(s: Speedup, floor: tuple[float, str] | None, drift: DriftCheck) -> Speedup:
    """A win / loss inside the noise floor (``_floor_for``) or its group's drift becomes ``within noise``, saying
    which."""
    spread, of = (None, "") if floor is None else floor
    _, why = gate_verdict(s.verdict, s.gain, spread, drift.of((s.workload, s.concurrency)), of)
    return s if why is None else replace(s, verdict="within noise", why=why)


def apply_noise_floor(speedups: Sequence[Speedup], baseline: str, drift: DriftCheck) -> list[Speedup]:
    """The speedups with the A/A and drift rules applied to their verdicts and ``why``."""
    spreads = aa_spreads(speedups, baseline)
    out = []
    for s in speedups:
        if s.config == baseline + AA_SUFFIX:
            out.append(_aa_verdict(s, spreads.get((s.workload, s.concurrency)), _floor_for(speedups, baseline, s)))
        else:
            out.append(_gated(s, _floor_for(speedups, baseline, s), drift))
    return out


def judged_speedups(cells: Sequence[CellSummary], baseline: str) -> tuple[list[Speedup], DriftCheck]:
    """Paired speedups of every config over ``baseline`` (sentinel cells left out) with the A/A and drift rules
    applied, and the drift check they were judged against."""
    cells = [c for c in cells if not c.config.endswith(SENTINEL_SUFFIX)]
    drift = drift_check(cells, baseline)
    return apply_noise_floor(paired_speedups(cells, baseline=baseline), baseline, drift), drift
