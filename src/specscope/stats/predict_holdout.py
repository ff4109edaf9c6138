"""Out-of-sample check of the step-time model (``predict RUN --holdout 3,4,6``, issue 16).

A run that swept k (configs ``NAME-kK``, :mod:`specscope.kaxis`) is split: the configs whose k is held out are
not used to fit. Per method ``NAME`` one per-drafted-token overhead is fitted by least squares on the other k
(:func:`specscope.stats.predict.fit_overhead_s`); each held-out k is then predicted from the fitted overhead,
the per-position acceptance of the largest fitted k (extended with its last conditional rate), the config's draft
passes per verify step that do not grow with k (1 for llama.cpp's draft-simple: a property of the drafter's code,
read from the server facts and not fitted, see :mod:`specscope.stats.predict`) and the fraction of verify steps that
drafted there (``draft_fraction`` = drafts / verify steps, :func:`specscope.stats.verify_steps.verify_steps`; 1 when
they do not say), carried to the held-out k through the match share (:func:`specscope.stats.predict.match_share`: a
larger k drafts on fewer steps), and compared with what was measured. The error is
``predicted / measured - 1`` (fraction); no held-out figure enters the fit. Single stream, bandwidth bound (see
:mod:`specscope.stats.predict_published`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from specscope.errors import ConfigError
from specscope.kaxis import split_k_name
from specscope.stats.acceptance import pooled_acceptance
from specscope.stats.predict import (
    StepModel,
    extend_positions,
    fit_overhead_s,
    match_share,
    positions_from_rate,
    tokens_per_step,
)
from specscope.stats.predict_run import CellPrediction, RunPrediction, draft_fraction
from specscope.stats.summary import CellSummary

__all__ = ["HoldoutRow", "holdout_errors"]


@dataclass(frozen=True)
class HoldoutRow:
    """One held-out config x workload: k (tokens), measured and predicted decode rates (tokens/s), error
    (fraction), the fitted k it was predicted from, the overhead fitted without it (s per drafted token), the
    fraction of verify steps assumed to draft at this k (from the match share measured at the largest fitted k; 1
    when unknown), the tokens per verify step the prediction assumed (tokens) and the draft passes per verify step
    that do not grow with k (passes: :func:`specscope.stats.server_spec.draft_passes_per_step`)."""

    config: str
    workload: str
    k: int
    measured_tok_s: float
    predicted_tok_s: float
    error: float
    fitted_on: tuple[int, ...]
    draft_overhead_s: float
    draft_fraction: float = 1.0
    tokens_per_step: float = 1.0
    draft_passes_per_step: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _positions(cells: list[CellSummary], config: str, workload: str, k: int) -> tuple[float, ...]:
    """Measured u_i of ``config`` on ``workload`` (pooled counters), else derived from its acceptance rate."""
    view = pooled_acceptance(cells).get((config, workload))
    if view is not None and view.unconditional:
        return view.unconditional
    rates = [c.acceptance_rate for c in cells if c.config == config and c.workload == workload]
    known = [r for r in rates if r is not None]
    return positions_from_rate(sum(known) / len(known), k) if known and k else ()


def _k(c: CellPrediction) -> int:
    """The k of a swept config's prediction (holdout only takes configs whose k is known: a ``-kN`` name)."""
    assert c.k is not None
    return c.k


def _fit_method(
    model: StepModel, fit: list[CellPrediction], cells: list[CellSummary], workload: str
) -> tuple[StepModel, tuple[float, ...], tuple[int, ...]]:
    """The method's model with the overhead fitted on ``fit`` (each point with its own acceptance and draft
    fraction), and the positions and draft fraction of its largest k on ``workload``."""
    points = []
    for c in fit:
        f = draft_fraction(cells, c.config, c.workload) or 1.0
        points.append(
            (_k(c), tokens_per_step(_positions(cells, c.config, c.workload, _k(c)), _k(c), f), c.measured_tok_s, f)
        )
    here = [c for c in fit if c.workload == workload] or fit
    top = max(here, key=lambda c: _k(c))
    positions = _positions(cells, top.config, top.workload, _k(top))
    f_top = draft_fraction(cells, top.config, top.workload) or 1.0
    fitted = replace(
        model,
        draft_overhead_s=fit_overhead_s(model, points),
        draft_fraction=f_top,
        match_share=match_share(f_top, sum(extend_positions(positions, _k(top)))) if positions else None,
    )
    return fitted, positions, tuple(sorted({_k(c) for c in fit}))


def holdout_errors(prediction: RunPrediction, cells: Iterable[CellSummary], holdout: Iterable[int]) -> list[HoldoutRow]:
    """Predict every held-out k of every swept method from the other k (see the module doc).

    Args:
        prediction: :func:`specscope.stats.predict_run.predict_run` of the whole run (k, measured rates, bytes).
        cells: the run's cell summaries (for per-position acceptance).
        holdout: the k to hold out (tokens).

    Raises:
        ConfigError: no held-out k in the run, or a method with held-out k and no other k to fit on.
    """
    held = set(holdout)
    cells = [c for c in cells if c.concurrency == 1]
    by_method: dict[str, list[CellPrediction]] = {}
    for c in prediction.cells:
        method, k = split_k_name(c.config)
        if k is not None and c.k is not None and c.k >= 1:
            by_method.setdefault(method, []).append(c)
    rows: list[HoldoutRow] = []
    for method, preds in by_method.items():
        test = [c for c in preds if _k(c) in held]
        fit = [c for c in preds if _k(c) not in held]
        if not test:
            continue
        if not fit:
            raise ConfigError(
                f"every k of {method!r} is held out: nothing to fit on",
                found=sorted({_k(c) for c in preds}),
                expected="at least one k outside --holdout",
                fix="hold out fewer k, e.g. fit on k<=2 and hold out 3,4,6",
            )
        base = _base_model(prediction, fit[0].config)
        for c in test:
            fitted_model, positions, fitted_on = _fit_method(base, fit, cells, c.workload)
            model = fitted_model.at(positions, _k(c))  # the fraction of steps drafting at this k, from the match share
            predicted = model.tok_s(positions, _k(c))
            rows.append(
                HoldoutRow(
                    c.config,
                    c.workload,
                    _k(c),
                    c.measured_tok_s,
                    predicted,
                    predicted / c.measured_tok_s - 1.0,
                    fitted_on,
                    model.draft_overhead_s,
                    model.draft_fraction,
                    tokens_per_step(positions, _k(c), model.draft_fraction),
                    model.draft_passes_per_step,
                )
            )
    if not rows:
        raise ConfigError(
            "no held-out k in the run",
            found=sorted(held),
            expected="k of configs named NAME-kK at concurrency 1 (bench --k)",
            fix="pick --holdout among the run's k",
        )
    return sorted(rows, key=lambda r: (r.config, r.workload))


def _base_model(prediction: RunPrediction, config: str) -> StepModel:
    """The byte model of ``config`` (target bytes, its draft bytes per token, effective bandwidth, its draft passes
    per step that do not grow with k), no overhead."""
    m: Mapping[str, Any] = prediction.models.get(config) or {}
    return StepModel(
        prediction.target_bytes,
        float(m.get("draft_bytes_per_token") or 0.0),
        prediction.effective_bandwidth_bytes_s,
        prediction.nominal_bandwidth_bytes_s,
        draft_passes_per_step=float(m.get("draft_passes_per_step") or 0.0),
    )
