"""The run's own noise floor: the A/A control and the drift check, and the verdicts they overrule.

* **A/A control.** ``BASELINE-again`` (``bench --aa``) is the baseline measured a second time like any config.
  Its speedup over the baseline should be 1; its interval's reach, ``spread = max(|low - 1|, |high - 1|)``
  (fraction), is the noise floor of that workload x N (the largest over the run where a group has none). A config
  is only called ``wins`` / ``loses`` when its interval excludes 1 *and* its effect ``|speedup - 1|`` exceeds the
  spread; the A/A comparison itself is never a win or a loss.
* **Drift.** The baseline cells (and its A/A and sentinel cells) of each workload x N, in time order, early half
  against late half: ``drift = mean(late) / mean(early) - 1`` (aggregate tok/s). The run's drift is the largest
  ``|drift|`` over groups; the run is flagged when it is at least as large as an effect it reports, and such an
  effect is not called a win or a loss.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from specscope.config import AA_SUFFIX, SENTINEL_SUFFIX
from specscope.stats.speedup import Speedup, paired_speedups
from specscope.stats.summary import CellSummary

__all__ = ["DriftCheck", "aa_spreads", "drift_check", "gate_verdict", "apply_noise_floor", "judged_speedups"]


def aa_spreads(speedups: Sequence[Speedup], baseline: str) -> dict[tuple[str, int], float]:
    """(workload, N) -> the A/A spread (fraction) where the A/A control has an interval."""
    out = {}
    for s in speedups:
        if s.config == baseline + AA_SUFFIX and s.ci_low is not None and s.ci_high is not None:
            out[(s.workload, s.concurrency)] = max(abs(s.ci_low - 1.0), abs(s.ci_high - 1.0))
    return out


@dataclass(frozen=True)
class DriftCheck:
    """Drift of the baseline between the early and the late half of the run.

    Attributes:
        drift: the largest |late / early - 1| over workload x N groups (fraction), None without two cells.
        group: the (workload, N) it was found in.
        cells: number of baseline-side cells it rests on.
    """

    drift: float | None
    group: tuple[str, int] | None
    cells: int

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
    for g, pts in groups.items():
        if len(pts) < 2:
            continue
        pts.sort()
        half = len(pts) // 2
        early = float(np.mean([p[1] for p in pts[:half]]))
        late = float(np.mean([p[1] for p in pts[len(pts) - half :]]))
        d = abs(late / early - 1.0) if early > 0 else 0.0
        n += len(pts)
        if best is None or d > best[0]:
            best = (d, g)
    return DriftCheck(None, None, 0) if best is None else DriftCheck(best[0], best[1], n)


def _pct(x: float) -> str:
    return f"{x * 100:.1f} %"


def _aa_verdict(s: Speedup, spread: float | None) -> Speedup:
    """The A/A control is never a win or a loss: it is the noise floor."""
    if s.verdict == "undetermined" or spread is None:
        return s
    why = f"A/A control (the baseline measured twice): the noise floor is +-{_pct(spread)}"
    if not (s.ci_low or 0.0) <= 1.0 <= (s.ci_high or 0.0):
        why += "; its interval excludes 1, so the run is noisier than its intervals say"
    return replace(s, verdict="within noise", why=why)


def gate_verdict(verdict: str, effect: float | None, spread: float | None, drift: DriftCheck) -> tuple[str, str | None]:
    """(verdict, why): a ``wins`` / ``loses`` whose ``effect`` (speedup - 1, fraction) is inside the A/A ``spread``
    (fraction) or no larger than the run's drift becomes ``within noise``, ``why`` saying which; else unchanged."""
    if verdict not in ("wins", "loses") or effect is None:
        return verdict, None
    if spread is not None and abs(effect) <= spread:
        return "within noise", f"effect {effect * 100:+.1f} % is inside the A/A spread +-{_pct(spread)}"
    if drift.flags(effect):
        why = f"effect {effect * 100:+.1f} % is no larger than the run's drift {_pct(drift.drift or 0.0)}"
        return "within noise", why
    return verdict, None


def _gated(s: Speedup, spread: float | None, drift: DriftCheck) -> Speedup:
    """A win / loss inside the A/A spread or the run's drift becomes ``within noise``, saying which."""
    _, why = gate_verdict(s.verdict, s.gain, spread, drift)
    return s if why is None else replace(s, verdict="within noise", why=why)


def apply_noise_floor(speedups: Sequence[Speedup], baseline: str, drift: DriftCheck) -> list[Speedup]:
    """The speedups with the A/A and drift rules applied to their verdicts and ``why``."""
    spreads = aa_spreads(speedups, baseline)
    run_spread = max(spreads.values()) if spreads else None
    out = []
    for s in speedups:
        spread = spreads.get((s.workload, s.concurrency), run_spread)
        out.append(_aa_verdict(s, spread) if s.config == baseline + AA_SUFFIX else _gated(s, spread, drift))
    return out


def judged_speedups(cells: Sequence[CellSummary], baseline: str) -> tuple[list[Speedup], DriftCheck]:
    """Paired speedups of every config over ``baseline`` (sentinel cells left out) with the A/A and drift rules
    applied, and the drift check they were judged against."""
    cells = [c for c in cells if not c.config.endswith(SENTINEL_SUFFIX)]
    drift = drift_check(cells, baseline)
    return apply_noise_floor(paired_speedups(cells, baseline=baseline), baseline, drift), drift
