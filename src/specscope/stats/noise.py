"""The run's own noise: cold starts, the drift of the baseline, and the A/A noise floor.

* **Cold start.** A server's first cells can run slower than the same cells later (a cold engine: weights paged
  in, caches cold; the load was 0.65). On a fresh clone ``make bench`` measured the baseline's first two cells at
  22.6 and 21.2 tok/s and the same workload x N later at 33-34 tok/s. What a cold engine changes is the time of its
  forward passes: the first token (prefill) and each token after it (decode), not how many tokens a round's prompts
  ask for or get. So the rule reads each cell's per-request timing, TTFT p50 and TPOT p50, and prices it at the
  first cell's own token counts (:func:`cold_starts`): for a cell ``c`` among a server's first :data:`WARMUP_CELLS`
  cells (in time), with ``P`` its mean prompt tokens and ``T`` its output tokens per ok stream, each cell ``d`` of
  the same config, workload x N (``c`` itself, and each later one) would serve such a request in
  ``t_d = TTFT_d x P / P_d + (T - 1) x TPOT_d`` seconds (the time to first token scaled by prompt length, ``P_d``
  being ``d``'s mean prompt tokens; unscaled where either is unknown), a rate of ``T / t_d`` tok/s per request.
  ``c`` is a **cold start** when its own rate is more than :data:`COLD_DROP` below every later cell's (below each,
  not their median: a config whose prompts alternate between a fast and a slow one is not cold on its first slow
  one): it is named, and left out of the comparisons and of the drift (it is not what the server does once warm).
  Why not the cell's tok/s: the rounds take different prompts (:func:`specscope.workload.schedule.schedule`), and a
  round whose prompt the model answers in 26 tokens instead of 128 (SmolLM2 at EOS) has a lower tok/s at the same
  per-token times, because its TTFT weighs more: the 03:03 run of benchmarks/RESULTS.md (``repeat`` at 128 tokens)
  left every server's round 0 of ``repeat`` out on it, the baseline's at 26.9 tok/s against 51.1-52.4 later, at TTFT
  583 ms and TPOT 14.7 ms against 530-560 ms and 15.1-15.4 ms later (repeat-052 stopped after 26 tokens). A cell
  without TTFT or TPOT is not judged (nothing says it was cold). Under an open loop the TTFT holds the queueing a
  Poisson schedule offers, a different load each round (not a cold engine), so the rate read there is decode tok/s
  (1 / TPOT p50, :func:`specscope.stats.groups.speed_value`), which no answer length changes either.
* **Drift.** The baseline's ok cells of each workload x N after warm-up, in time order, early half against late
  half: ``drift = mean(late) / mean(early) - 1`` (of the rate below, signed), the figure the report prints; and the
  trend ``slope`` of log tok/s over time (least squares, fraction per second). The rate is the cold-start rule's, for
  the same reason (each round takes other prompts, whose answers end at other lengths: a machine that did not change
  must not read as drift): tok/s per request ``T / (TTFT_d x P / P_d + (T - 1) x TPOT_d)`` at one reference request
  of the group, ``P`` and ``T`` the mean prompt tokens and output tokens per ok stream of the baseline's cells there;
  the A/A and sentinel cells are read at the same reference. Where a cell lacks TTFT or TPOT, and under an open loop,
  it is the cell's speed figure for its load (:func:`specscope.stats.groups.speed_value`): aggregate output tok/s
  under a closed loop, decode tok/s (1 / TPOT p50) under an open loop, where the output tok/s is the offered rate (a
  Poisson schedule's next round offers a different load: not drift). The A/A control ``BASELINE-again``
  and the sentinel cells ``BASELINE~sentinel`` are further baseline measurements on their own schedule: their drift,
  computed the same way, **confirms** the baseline's when it has the same sign and at least half its size. A drift
  they do not show is the baseline server's own (a warm-up the cold-start rule did not catch, one outlier) and is
  reported, never used to judge. What a confirmed drift can do to a comparison is bias it by
  ``slope x (mean time between each config cell and its paired baseline cell)``
  (:meth:`DriftCheck.bias`): in an interleaved run the configs alternate and each cell is paired with the baseline
  cell nearest in time, so the machine's drift is shared by both sides of a pair and the bias is small; in
  counterbalanced blocks (one server at a time) the pairs are a block apart and it is not. A verdict whose effect is
  no larger than that bias is ``undetermined`` (reason ``DRIFT``). A run without A/A or sentinel cells reports its
  drift and never blocks a verdict by it.
* **A/A noise floor.** ``BASELINE-again`` is the baseline measured a second time like any config, on its own
  server; its speedup over the baseline should be 1. A comparison's floor is ``|speedup - 1|`` of the A/A control in
  its own workload x N (:func:`aa_floor`): how far two identical servers read apart there, the part of a difference
  that pairing in time does not remove (which server got which core, one server's own warm-up). A config is only
  called faster or slower when its effect exceeds it. Why its own group's and not the run's largest: the largest over
  30 groups is the noisiest group's random error, which that group's own interval already carries; on the seed
  card's shape it blocked real effects of 7-11 % in quiet groups (benchmarks/adaptive_simulated.py --aa). The A/A
  control rides along with its group in an adaptive run, so the floor rests on the same rounds as the comparisons
  it judges. The run's floor, printed by the report, is the largest over the groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median

import numpy as np

from specscope.config import AA_SUFFIX, SENTINEL_SUFFIX
from specscope.stats.groups import METRIC_WORDS, speed_metric, speed_value
from specscope.stats.summary import CellSummary

__all__ = [
    "WARMUP_CELLS",
    "COLD_DROP",
    "COLD_METRIC_WORDS",
    "ColdStart",
    "GroupDrift",
    "DriftCheck",
    "NoiseFloor",
    "cold_starts",
    "drift_check",
    "aa_floor",
]

WARMUP_CELLS = 2  # a server's first cells (in time) that may be a cold start
COLD_DROP = 0.15  # fraction below each of the later cells that makes one of a server's first cells a cold start
#: how a cold-start note names the rate it was read on (module docstring)
COLD_METRIC_WORDS = {
    "request_tok_s": "tok/s per request (TTFT + (tokens - 1) x TPOT, the later cells' at its prompt and answer "
    "lengths)",
    "decode_tok_s": METRIC_WORDS["decode_tok_s"],
}

Group = tuple[str, int]


@dataclass(frozen=True)
class ColdStart:
    """A cell left out as a cold start: its rate ``tok_s``, the median of its group's later cells' at its own token
    counts (tokens/s) and the drop (fraction); ``metric``: which rate (:data:`COLD_METRIC_WORDS`: ``request_tok_s``
    under a closed loop, ``decode_tok_s`` under an open one); ``place``: the workload and level as the run names them
    (``prose 4 req/s``; "" : ``workload N=level``)."""

    config: str
    workload: str
    level: int
    repeat: int
    tok_s: float
    later_tok_s: float
    metric: str = "request_tok_s"
    place: str = ""

    @property
    def drop(self) -> float:
        return 1.0 - self.tok_s / self.later_tok_s

    @property
    def key(self) -> tuple[str, str, int, int]:
        return (self.config, self.workload, self.level, self.repeat)

    @property
    def text(self) -> str:
        place = self.place or f"{self.workload} N={self.level}"
        figure = COLD_METRIC_WORDS.get(self.metric, self.metric)
        return (
            f"{self.config} {place} round {self.repeat}: {self.tok_s:.1f} {figure} against "
            f"{self.later_tok_s:.1f} in the same cells later ({self.drop * 100:.0f} % slower), among the server's "
            f"first {WARMUP_CELLS} cells: a cold start, left out"
        )


def _timed_ok(cells: Sequence[CellSummary]) -> list[CellSummary]:
    """The ok cells with instants and a speed figure, in time order."""
    return sorted(
        (c for c in cells if c.status == "ok" and speed_value(c) and c.started_at_s is not None),
        key=lambda c: c.started_at_s or 0.0,
    )


def _request_rate(d: CellSummary, prompt_tokens: float | None, out_tokens: float) -> float | None:
    """``T / t_d`` of the module docstring: tok/s per request that cell ``d``'s TTFT p50 and TPOT p50 give a request of
    ``prompt_tokens`` in and ``out_tokens`` out; None without either timing (or a non-positive time)."""
    if d.ttft_p50_s is None or d.tpot_p50_s is None:
        return None
    scale = prompt_tokens / d.prompt_tokens_mean if prompt_tokens and d.prompt_tokens_mean else 1.0
    t = d.ttft_p50_s * scale + (out_tokens - 1.0) * d.tpot_p50_s
    return out_tokens / t if t > 0 else None


def _cold_rates(c: CellSummary, later: Sequence[CellSummary]) -> tuple[float, list[float], str] | None:
    """A first cell's rate, its later cells' at its own token counts, and which rate (:data:`COLD_METRIC_WORDS`), per
    the module docstring; None when a figure it needs is absent."""
    if speed_metric([c]) == "decode_tok_s":  # an open loop: decode tok/s, 1 / TPOT p50
        v, ref = speed_value(c), [speed_value(d) for d in later]
        return None if v is None or None in ref else (v, [r or 0.0 for r in ref], "decode_tok_s")
    if not c.streams_ok:
        return None
    out = c.rated_output_tokens / c.streams_ok
    v, ref = _request_rate(c, c.prompt_tokens_mean, out), [_request_rate(d, c.prompt_tokens_mean, out) for d in later]
    return None if v is None or None in ref else (v, [r or 0.0 for r in ref], "request_tok_s")


def cold_starts(cells: Sequence[CellSummary]) -> tuple[ColdStart, ...]:
    """The cold-start cells of every server (module docstring); none for a run without cell instants."""
    out = []
    by_config: dict[str, list[CellSummary]] = {}
    for c in _timed_ok(cells):
        by_config.setdefault(c.config, []).append(c)
    for mine in by_config.values():
        for i, c in enumerate(mine[:WARMUP_CELLS]):
            later = [d for d in mine[i + 1 :] if (d.workload, d.concurrency) == (c.workload, c.concurrency)]
            rates = _cold_rates(c, later) if later else None
            if rates is None:
                continue
            v, ref, metric = rates
            if v < min(ref) * (1.0 - COLD_DROP):
                out.append(ColdStart(c.config, c.workload, c.concurrency, c.repeat, v, median(ref), metric))
    return tuple(out)


def _halves_drift(values: Sequence[float]) -> float | None:
    """mean(late half) / mean(early half) - 1 of time-ordered values (signed fraction); None with < 2 values."""
    if len(values) < 2:
        return None
    half = len(values) // 2
    early, late = float(np.mean(values[:half])), float(np.mean(values[len(values) - half :]))
    return late / early - 1.0 if early > 0 else None


@dataclass(frozen=True)
class GroupDrift:
    """The drift of one workload x N: the baseline's (signed fraction between the halves, on ``cells`` cells; its
    trend ``slope_per_s``, fraction per second) and the A/A and sentinel cells' (None without two of them);
    ``confirmed`` when they show it (module docstring); ``control_cells``: the A/A and sentinel cells the run has in
    this group, ok ones, cold starts included (so a note can tell "none" from "too few once the cold starts are left
    out"); ``metric``: the rate it was read on (:data:`COLD_METRIC_WORDS`, or the speed figure's
    :data:`specscope.stats.groups.METRIC_WORDS` key where a cell lacks the per-request timing)."""

    group: Group
    drift: float
    cells: int
    control_drift: float | None
    slope_per_s: float = 0.0
    control_cells: int = 0
    metric: str = "request_tok_s"

    @property
    def figure(self) -> str:
        """The rate in words, as a note names it."""
        if self.metric == "request_tok_s":
            return "tok/s per request (at one prompt and answer length)"
        return "tok/s" if self.metric == "output_tok_s" else METRIC_WORDS.get(self.metric, self.metric)

    @property
    def confirmed(self) -> bool:
        c = self.control_drift
        return c is not None and c * self.drift > 0 and abs(c) >= 0.5 * abs(self.drift)


@dataclass(frozen=True)
class DriftCheck:
    """The baseline's drift per workload x N after warm-up, and the largest (``largest``, None without a group of
    two baseline cells)."""

    by_group: tuple[GroupDrift, ...] = ()

    @property
    def largest(self) -> GroupDrift | None:
        return max(self.by_group, key=lambda g: abs(g.drift), default=None)

    @property
    def cells(self) -> int:
        return sum(g.cells for g in self.by_group)

    def of(self, group: Group) -> GroupDrift | None:
        """The drift of one workload x N group, None when it has fewer than two baseline cells."""
        return next((g for g in self.by_group if g.group == group), None)

    def bias(self, group: Group, offset_s: float | None) -> float | None:
        """How far a confirmed drift can move a comparison in ``group`` whose config cells ran ``offset_s`` seconds
        (mean, signed) from their paired baseline cells: ``|slope| x |offset_s|`` (fraction); None when the group's
        drift is not confirmed or the cells carry no instants."""
        g = self.of(group)
        if g is None or not g.confirmed or offset_s is None:
            return None
        return abs(g.slope_per_s * offset_s)


def _slope_per_s(points: Sequence[tuple[float, float]]) -> float:
    """Least-squares slope of log tok/s over time (fraction per second) of (instant s, tok/s) points."""
    t = np.array([p[0] for p in points])
    if len(points) < 2 or float(np.ptp(t)) == 0.0:
        return 0.0
    return float(np.polyfit(t - t[0], np.log([p[1] for p in points]), 1)[0])


def _fixed_request(cells: Sequence[CellSummary]) -> tuple[float | None, float] | None:
    """The group's reference request of the drift (module docstring): the baseline cells' mean prompt tokens (None
    when a cell does not say) and mean output tokens per ok stream; None when a cell lacks TTFT, TPOT or ok streams,
    or the load is an open loop (then the speed figure is read)."""
    if speed_metric(cells) == "decode_tok_s":
        return None
    if any(c.ttft_p50_s is None or c.tpot_p50_s is None or not c.streams_ok for c in cells):
        return None
    prompts = [c.prompt_tokens_mean for c in cells]
    prompt = None if None in prompts else float(np.mean([p or 0.0 for p in prompts]))
    return prompt, float(np.mean([c.rated_output_tokens / (c.streams_ok or 1) for c in cells]))  # all > 0 above


def _drift_values(cells: Sequence[CellSummary], ref: tuple[float | None, float] | None) -> tuple[list[float], str]:
    """Each cell's rate for the drift and which (module docstring): tok/s per request at the reference request
    ``ref`` (:func:`_request_rate`), else the cell's speed figure (:func:`speed_value`) for every cell."""
    if ref is not None:
        rates = [_request_rate(c, ref[0], ref[1]) for c in cells]
        if None not in rates:
            return [r or 0.0 for r in rates], "request_tok_s"
    return [speed_value(c) or 0.0 for c in cells], speed_metric(list(cells))


def drift_check(cells: Sequence[CellSummary], baseline: str, cold: Sequence[ColdStart] = ()) -> DriftCheck:
    """The drift of ``baseline``'s ok cells per workload x N, cold starts left out, with the A/A and sentinel cells'
    drift beside it, each read at the baseline cells' own reference request (module docstring)."""
    left_out = {c.key for c in cold}
    controls = {baseline + AA_SUFFIX, baseline + SENTINEL_SUFFIX}
    base: dict[Group, list[CellSummary]] = {}
    ctl: dict[Group, list[CellSummary]] = {}
    ctl_seen: dict[Group, int] = {}
    for c in _timed_ok(cells):
        if c.config in controls:
            ctl_seen[(c.workload, c.concurrency)] = ctl_seen.get((c.workload, c.concurrency), 0) + 1
        if (c.config, c.workload, c.concurrency, c.repeat) in left_out:
            continue
        if c.config == baseline:
            base.setdefault((c.workload, c.concurrency), []).append(c)
        elif c.config in controls:
            ctl.setdefault((c.workload, c.concurrency), []).append(c)
    out = []
    for g, mine in base.items():
        ref = _fixed_request(mine)
        values, metric = _drift_values(mine, ref)
        d = _halves_drift(values)
        if d is not None:
            points = [(c.started_at_s or 0.0, v) for c, v in zip(mine, values, strict=True)]
            theirs = ctl.get(g, [])
            control = _halves_drift(_drift_values(theirs, ref)[0]) if theirs else None
            out.append(GroupDrift(g, d, len(points), control, _slope_per_s(points), ctl_seen.get(g, 0), metric))
    return DriftCheck(tuple(out))


@dataclass(frozen=True)
class NoiseFloor:
    """An A/A noise floor: ``value`` (fraction), measured on ``workload`` at ``level`` over ``rounds`` rounds;
    ``place``: that workload and level as the run names them (``prose at 4 req/s``; "": ``workload at N=level``)."""

    value: float
    workload: str
    level: int
    rounds: int
    place: str = ""


def aa_floor(aa: Sequence[tuple[str, int, int, float]], group: tuple[str, int] | None) -> NoiseFloor | None:
    """The noise floor of the workload x N ``group`` from the A/A control's (workload, level, rounds, speedup) per
    group (module docstring); ``group`` None: the run's floor, the largest over the groups. None without an A/A
    figure there on at least 2 rounds."""
    usable = [a for a in aa if a[2] >= 2 and (group is None or (a[0], a[1]) == group)]
    if not usable:
        return None
    w, n, r, s = max(usable, key=lambda a: abs(a[3] - 1.0))
    return NoiseFloor(abs(s - 1.0), w, n, r)
