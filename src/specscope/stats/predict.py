"""A bandwidth model of single-stream speculative decoding: predicted tok/s for k = 1..8.

Model (single stream, decode only; the seed-003 recipe's reasoning made explicit):

* Without a draft every token re-reads the target's weights, so decode is bandwidth bound:
  ``roofline_tok_s = bandwidth_bytes_s / target_bytes_per_step``. Seed 003: 273 GB/s / 17.61 GB
  = 15.50 tok/s, and the measured 12.14 tok/s is 78 % of it.
* A verify step with a k-token draft reads the target once and the draft k times (seed 004: "read
  five times per accepted step"), plus a per-drafted-token cost the bytes do not show (draft
  sampling, kernel launches, the wider verify batch):

      step_time_s(k) = (target_bytes + (k + q) * draft_bytes_per_token) / effective_bandwidth_bytes_s
                       + k * draft_overhead_s

  q = ``draft_passes_per_step``: draft forward passes per verify step that do not grow with k. 0 for a
  drafter whose first drafting pass consumes the verified tokens (vLLM's MTP head, seed 003's setting: k
  passes for k tokens) and wherever no adapter states one. 1 for llama.cpp's ``draft-simple``
  (:func:`specscope.stats.server_spec.draft_passes_per_step`): its draft model
  mirrors every target batch (the verify batch) in one pass of its own (``process()``) and then drafts
  from the target's sampled token (``draft()``: one pass for it and one per drafted token but the
  last), k + 1 passes in all (llama.cpp ``common/speculative.cpp``; the build inside xllamacpp 2026.10
  carries that code: its strings include ``process()``'s messages). Fitted through the origin with
  q = 0, the per-drafted-token overhead absorbs that pass at k = 1, 2 and over-charges larger k.
* The target's verify step grows with the k + 1 tokens it carries where decode is compute bound (a CPU):
  ``benchmarks/verify_cost.py`` measured 11.1 / 18.1 / 32.3 / 67.2 / 124.2 ms for 1 / 2 / 4 / 9 / 17 tokens
  (SmolLM2-135M Q4_1, one core): 7.0-7.1 ms per added token, linear in k, so ``draft_overhead_s`` (per
  drafted token) carries it and no term of its own is needed.

* It emits ``tokens_per_step(k) = 1 + sum_{i<=k} u_i`` tokens, u_i the unconditional per-position
  acceptance (see :mod:`specscope.stats.acceptance`), so ``tok_s(k) = tokens_per_step(k) / step_time_s(k)``.
* A drafter that does not draft on every step (llama.cpp's n-gram drafters draft only where the context has a
  match; 3-6 drafts in 64 tokens of an edit stream, measured) is described by ``draft_fraction`` f = drafts /
  verify steps (steps = generated - accepted tokens - requests, each step emitting 1 + its accepted tokens and
  each request's first token coming from prefill: :func:`specscope.stats.verify_steps.verify_steps`): a step
  drafts with probability f, so ``tokens_per_step = 1 + f * sum u_i`` and the per-drafted-token terms of
  ``step_time_s`` are weighted by f: (target_bytes + (f k + q) draft_bytes_per_token) / effective_bandwidth_bytes_s
  + f k draft_overhead_s (q is per verify step: llama.cpp mirrors every target batch on its draft, drafted or not).
  f = 1 (the default) is the model above: vLLM's MTP drafts on every step.
* f is measured at one k and does not carry over to another: where the context has a match, a step at a larger k
  emits more tokens, so the matched stretch of the output takes fewer (drafting) steps while the unmatched stretch
  takes as many (one token each), and f falls as k grows. What does not move with k is the **match share** m, the
  fraction of output tokens generated inside matched stretches (S_k = sum_{i<=k} u_i): tokens per step
  = 1 / ((1 - m) + m / (1 + S_k)), so f_k = m / ((1 - m)(1 + S_k) + m) and m = f (1 + S) / (1 + f S) from the f
  and S measured at one k (:func:`match_share`, :func:`draft_fraction_at`). f = 1 gives m = 1 and f_k = 1 at every
  k. Checked on the embedded k sweep in benchmarks/RESULTS.md (n-gram on edit; S_k from its tokens-per-step column,
  S_2 about 1.9): from f = 12 % at k = 2 it gives f = 9.4 %, 7.8 %, 5.9 % at k = 3, 4, 6 (measured 9 %, 8 %, 6 %)
  and 1.26, 1.31 tokens per step at k = 3, 6 (measured 1.26, 1.31), where a constant f assumed 12 %, 1.34 and 1.64.

Two free parameters, fitted on a run: ``efficiency`` (effective / nominal bandwidth) from the
no-draft cells, and ``draft_overhead_s`` per config by least squares (``numpy.linalg.lstsq``) on
that config's cells. Assumptions, stated so a user can judge them: u_i at position i does not
depend on k; positions beyond the measured ones keep the last measured conditional rate (geometric
decay); a server that reports only an acceptance rate over k positions (llama.cpp) is given the
constant conditional rate that reproduces that mean (``scipy.optimize.brentq``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
from scipy.optimize import brentq

from specscope.errors import ConfigError
from specscope.stats.acceptance import conditional_rates
from specscope.stats.roofline import roofline_tok_s

__all__ = [
    "roofline_tok_s",
    "extend_positions",
    "positions_from_rate",
    "tokens_per_step",
    "StepModel",
    "fit_overhead_s",
    "OVERHEAD_HELD_AT_ZERO",
    "match_share",
    "draft_fraction_at",
]


def extend_positions(unconditional: Sequence[float], k: int) -> tuple[float, ...]:
    """u_1..u_k: the measured rates, continued with the last measured conditional rate.

    Args:
        unconditional: measured u_i (fractions), length m >= 1.
        k: positions wanted (>= 0).

    Returns:
        length-k tuple; the first min(k, m) entries are the measured ones.
    """
    u = [float(x) for x in unconditional]
    if k <= len(u):
        return tuple(u[:k])
    if not u:
        raise ConfigError(
            "no per-position acceptance to extend",
            found="0 positions",
            expected=">= 1 position",
            fix="use a run whose server reports per-position or mean acceptance",
        )
    alpha = conditional_rates(u)[-1] or 0.0  # a_m, the last measured conditional rate
    while len(u) < k:
        u.append(u[-1] * alpha)
    return tuple(u)


def positions_from_rate(rate: float, k: int) -> tuple[float, ...]:
    """u_i = a^i with the constant a for which mean(u_1..u_k) equals ``rate`` (accepted / drafted).

    For servers that report only draft / accepted totals (llama.cpp ``draft_n``/``draft_n_accepted``).

    Raises:
        ConfigError: rate outside [0, 1] or k < 1.
    """
    if not 0.0 <= rate <= 1.0 or k < 1:
        raise ConfigError(
            "acceptance rate must be in [0, 1] over k >= 1 positions",
            found=f"rate {rate}, k {k}",
            expected="0 <= rate <= 1, k >= 1",
        )
    if rate in (0.0, 1.0):
        return tuple([rate] * k)

    def mean_minus_rate(a: float) -> float:
        return float(np.mean(a ** np.arange(1, k + 1))) - rate  # [k] -> scalar

    a = brentq(mean_minus_rate, 0.0, 1.0, xtol=1e-12)
    return tuple(float(a**i) for i in range(1, k + 1))


def tokens_per_step(unconditional: Sequence[float], k: int, draft_fraction: float = 1.0) -> float:
    """Expected tokens emitted per verify step with a k-token draft: 1 + f * sum_{i<=k} u_i (tokens), f the
    fraction of steps that draft (1: every step)."""
    return 1.0 + draft_fraction * float(sum(extend_positions(unconditional, k))) if k > 0 else 1.0


def match_share(draft_fraction: float, accepted_per_draft: float) -> float:
    """m = f (1 + S) / (1 + f S): the fraction of output tokens generated inside matched stretches (module doc), from
    the fraction f of verify steps that drafted and S = sum u_i, the tokens a drafting step accepts on average
    (tokens), both measured at one k. f = 1 gives 1; f = 0 gives 0."""
    f, s = draft_fraction, accepted_per_draft
    return f * (1.0 + s) / (1.0 + f * s)


def draft_fraction_at(share: float, accepted_per_draft: float) -> float:
    """f_k = m / ((1 - m)(1 + S_k) + m): the fraction of verify steps that draft at a k whose drafting steps accept
    S_k tokens on average (tokens), for match share m (:func:`match_share`; module doc)."""
    m, s = share, accepted_per_draft
    return m / ((1.0 - m) * (1.0 + s) + m) if m > 0.0 else 0.0


@dataclass(frozen=True)
class StepModel:
    """Fitted step-time model (see the module docstring).

    Attributes:
        target_bytes: bytes read from the target per verify step (bytes).
        draft_bytes_per_token: bytes read from the draft per drafted token (bytes; 0 for n-gram).
        effective_bandwidth_bytes_s: bandwidth the no-draft decode achieves (bytes/s)
            = target_bytes x measured no-draft tok/s.
        nominal_bandwidth_bytes_s: the machine's quoted bandwidth (bytes/s) or None when unknown.
        draft_overhead_s: fitted seconds per drafted token beyond the bytes (s).
        draft_fraction: fraction of verify steps that draft (1: every step; see the module docstring).
        draft_passes_per_step: draft forward passes per verify step that do not grow with k (passes; q in the
            module docstring: 1 for llama.cpp's ``draft-simple``, 0 otherwise).
        match_share: the fraction of output tokens inside matched stretches (:func:`match_share`); when set, the
            fraction of steps that draft at each k is derived from it (:meth:`fraction_at`) instead of
            ``draft_fraction``; None: ``draft_fraction`` at every k.
    """

    target_bytes: float
    draft_bytes_per_token: float
    effective_bandwidth_bytes_s: float
    nominal_bandwidth_bytes_s: float | None = None
    draft_overhead_s: float = 0.0
    draft_fraction: float = 1.0
    draft_passes_per_step: float = 0.0
    match_share: float | None = None

    @property
    def efficiency(self) -> float | None:
        """effective / nominal bandwidth (fraction of the roofline reached), None without nominal."""
        if not self.nominal_bandwidth_bytes_s:
            return None
        return self.effective_bandwidth_bytes_s / self.nominal_bandwidth_bytes_s

    def step_time_s(self, k: int) -> float:
        """Expected seconds per verify step with a k-token draft (k = 0: a plain decode step): (target_bytes +
        (f k + q) draft_bytes_per_token) / effective_bandwidth_bytes_s + f k draft_overhead_s (module doc)."""
        if k <= 0:
            return self.target_bytes / self.effective_bandwidth_bytes_s
        drafted = self.draft_fraction * k  # tokens drafted per step on average
        passes = drafted + self.draft_passes_per_step  # draft forward passes per step
        bytes_read = self.target_bytes + passes * self.draft_bytes_per_token  # bytes
        return bytes_read / self.effective_bandwidth_bytes_s + drafted * self.draft_overhead_s

    def fraction_at(self, unconditional: Sequence[float], k: int) -> float:
        """The fraction of verify steps that draft at k: from :attr:`match_share` when set (f_k of the module doc),
        else :attr:`draft_fraction`."""
        if self.match_share is None or k <= 0:
            return self.draft_fraction
        return draft_fraction_at(self.match_share, float(sum(extend_positions(unconditional, k))))

    def at(self, unconditional: Sequence[float], k: int) -> StepModel:
        """This model with the fraction of steps that draft at k (:meth:`fraction_at`) as ``draft_fraction``."""
        return replace(self, draft_fraction=self.fraction_at(unconditional, k))

    def tok_s(self, unconditional: Sequence[float], k: int) -> float:
        """Predicted single-stream decode rate (tokens/s) with a k-token draft."""
        here = self.at(unconditional, k)
        return tokens_per_step(unconditional, k, here.draft_fraction) / here.step_time_s(k)

    def speedup(self, unconditional: Sequence[float], k: int) -> float:
        """Predicted tok_s(k) / tok_s(0) (dimensionless)."""
        return self.tok_s(unconditional, k) / self.tok_s((), 0)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["efficiency"] = self.efficiency
        return d


def fit_overhead_s(
    model: StepModel, points: Sequence[tuple[int, float, float] | tuple[int, float, float, float]]
) -> float:
    """Least-squares per-drafted-token overhead from measured speculative points.

    Each point is (k, tokens_per_step, measured tok/s) or (k, tokens_per_step, measured tok/s, draft_fraction f;
    default ``model.draft_fraction``). The measured step time is tokens_per_step / tok/s; after removing the byte
    term (target_bytes + (f_j k_j + q) draft_bytes_per_token) / effective_bandwidth_bytes_s, q =
    ``model.draft_passes_per_step``, the remainder r_j is modelled as f_j k_j x c (the tokens drafted per step), so
    c = argmin sum (r_j - f_j k_j c)^2 (``numpy.linalg.lstsq``), held at 0 where the least-squares c is negative
    (non-negative least squares in one unknown: a draft costs no less than nothing; a negative c would predict
    negative step times, rates below zero, for larger k). A result of exactly 0 means the measured rates are at or
    above what the byte term allows with a free draft (:data:`OVERHEAD_HELD_AT_ZERO` says so).

    Raises:
        ConfigError: no point with k >= 1 and a positive rate.
    """
    pts = [(p[0], p[1], p[2], p[3] if len(p) > 3 else model.draft_fraction) for p in points if p[0] >= 1 and p[2] > 0]
    if not pts:
        raise ConfigError(
            "no speculative cell to fit the draft overhead on",
            found="0 usable cells",
            expected="concurrency-1 cells of a config with a draft",
        )
    ks = np.array([[f * k] for k, _, _, f in pts])  # [n, 1] tokens drafted per step
    q = model.draft_passes_per_step
    resid_s = np.array(
        [
            t / m - (model.target_bytes + (f * k + q) * model.draft_bytes_per_token) / model.effective_bandwidth_bytes_s
            for k, t, m, f in pts
        ]
    )  # [n] seconds not explained by bytes
    sol, *_ = np.linalg.lstsq(ks, resid_s, rcond=None)
    return max(0.0, float(sol[0]))


#: the note beside a fitted overhead of 0 (:func:`fit_overhead_s` held a negative least-squares value at 0).
OVERHEAD_HELD_AT_ZERO = (
    "the draft overhead is held at 0: the measured rates are at or above what the bytes and the bandwidth allow with "
    "a free draft (least squares gave a negative cost); check the bytes, the bandwidth and the rates"
)
