"""Fit the step-time model of :mod:`specscope.stats.predict` on a run and compare it with the cells.

Inputs come from the run where it knows them and from the user otherwise:

* target bytes per step: ``target_bytes`` argument (``--bytes-per-step``, or the byte census of the run's own GGUF
  that :mod:`specscope.bench.predict_bytes` reads as ``specscope audit`` does, which the caller then names),
  else the first of :data:`TARGET_BYTES_KEYS` the baseline's server facts record, else the manifest's ``model_bytes``
  (``model_bytes`` argument), else the embedded engine's model ``size_bytes`` (the GGUF file's size: header included,
  an upper bound);
  ``RunPrediction.target_bytes_source`` says which;
* draft bytes per drafted token, per config: ``draft_bytes_per_token`` argument, else
  the first of :data:`DRAFT_BYTES_KEYS` that config's server facts record, else its draft's ``size_bytes``;
  0 when the config has no draft model (n-gram drafting reads no weights); its draft passes per verify step that do
  not grow with k: :func:`specscope.stats.server_spec.draft_passes_per_step` (1 for llama.cpp's ``draft-simple``);
* draft length k per config: :func:`specscope.stats.server_spec.run_k` (the one place k is derived: the recipe,
  the vLLM log, the server facts, llama.cpp's ``draft_n_max_tokens``, the name's ``-kK``
  (:func:`specscope.kaxis.split_k_name`)), so ``predict``, ``report`` and ``advise`` agree; when nothing says, k is
  unknown (None, shown as —) and the model is fitted with the k the counters drafted when every draft round drafted
  the same whole number of tokens (draft_tokens / drafts: then tokens/step is the report's acceptance length,
  1 + accepted / drafts), else over the per-position rates the server's counters reported, with a note saying which.

* the fraction of verify steps that drafted, per config x workload: :func:`draft_fraction` (drafts / verify steps,
  :func:`specscope.stats.verify_steps.verify_steps`: generated - accepted tokens - requests, each request's first
  token coming from prefill; 1 where they do not say, with a note where only the request count is missing), so a
  drafter that drafts only where the context matches (n-gram) is fitted, compared and projected with the steps it
  really drafted on; a config x workload whose acceptance rests on fewer than :data:`FEW_DRAFT_ROUNDS` draft rounds
  gets a note with the count and the rate's interval.

Only closed-loop concurrency-1 cells are used (the model is single-stream; an open loop's level 1 is 1 request/s with
any number of streams in flight, and a run that is all open loop is refused). The measured rate is the decode
rate ``1 / tpot_p50_s`` where the cell has it (the model has no prefill), else ``output_tok_s``.
Errors are in-sample: the overhead is fitted on the same cells it is compared with.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
from scipy.stats import binomtest

from specscope.config import AA_SUFFIX, SENTINEL_SUFFIX
from specscope.errors import ConfigError
from specscope.facts import RunFacts, ServerFacts
from specscope.stats.acceptance import AcceptanceView, pooled_acceptance
from specscope.stats.groups import group_cells, level_axis, metric_value, open_loop, usable
from specscope.stats.predict import (
    OVERHEAD_HELD_AT_ZERO,
    StepModel,
    extend_positions,
    fit_overhead_s,
    match_share,
    positions_from_rate,
    roofline_tok_s,
    tokens_per_step,
)
from specscope.stats.server_spec import draft_passes_per_step, run_k, spec_k
from specscope.stats.summary import CellSummary
from specscope.stats.verify_steps import first_token_requests, verify_steps
from specscope.textsafe import shell_word

__all__ = [
    "TARGET_BYTES_KEYS",
    "DRAFT_BYTES_KEYS",
    "FEW_DRAFT_ROUNDS",
    "CellPrediction",
    "RunPrediction",
    "draft_fraction",
    "predict_run",
]

TARGET_BYTES_KEYS = ("bytes_per_step", "model_bytes", "model_file_bytes")
DRAFT_BYTES_KEYS = ("draft_bytes_per_token", "draft_bytes", "draft_file_bytes")
# Fewer draft rounds than this behind a config x workload's acceptance: its per-position rates (and every curve built
# on them) rest on too little to project, and a note gives the count and the rate's 95 % interval.
FEW_DRAFT_ROUNDS = 30


@dataclass(frozen=True)
class CellPrediction:
    """Predicted vs measured for one config x workload at concurrency 1.

    Attributes:
        config, workload, k: the cell group and its draft length (0 for the baseline; None when nothing says:
            :func:`specscope.stats.server_spec.spec_k`).
        repeats: usable repeats averaged into ``measured_tok_s``.
        measured_tok_s, predicted_tok_s: decode rates (tokens/s).
        error: predicted / measured - 1 (fraction).
        tokens_per_step: 1 + f x sum of u_i used (tokens), f = ``draft_fraction``.
        rate_source: ``decode`` (1/tpot) or ``output`` (output_tok_s).
        draft_fraction: fraction of verify steps that drafted (:func:`draft_fraction`; 1 where the counters do not
            say, and for the baseline, which drafts nothing: its k is 0).
    """

    config: str
    workload: str
    k: int | None
    repeats: int
    measured_tok_s: float
    predicted_tok_s: float
    error: float
    tokens_per_step: float
    rate_source: str
    draft_fraction: float = 1.0


@dataclass(frozen=True)
class RunPrediction:
    """The fitted model(s) of a run, the per-cell comparison and the k = 1..max_k curves.

    Attributes:
        target_bytes, nominal_bandwidth_bytes_s, effective_bandwidth_bytes_s: see StepModel.
        target_bytes_source: where ``target_bytes`` comes from (a phrase: a flag, a census, a recorded key); a
            caller that passes ``target_bytes`` from elsewhere than ``--bytes-per-step`` replaces it.
        roofline_tok_s: nominal bandwidth / target bytes (tokens/s) or None without a bandwidth.
        efficiency: effective / nominal bandwidth or None.
        models: per config the fitted StepModel (as dict).
        cells: per config x workload, predicted vs measured.
        curves: ``{config: {workload: [{"k", "tokens_per_step", "tok_s", "speedup"} ...]}}``.
        notes: caveats (missing inputs, extrapolated positions, in-sample fit).
        measured: the run's judged comparisons at concurrency 1 (``Comparison.to_dict`` of
            :mod:`specscope.stats.judgement`: measured speedup, interval, verdict), beside the predictions.
    """

    target_bytes: float
    nominal_bandwidth_bytes_s: float | None
    effective_bandwidth_bytes_s: float
    roofline_tok_s: float | None
    efficiency: float | None
    models: dict[str, dict[str, Any]]
    cells: list[CellPrediction]
    curves: dict[str, dict[str, list[dict[str, float]]]]
    notes: list[str] = field(default_factory=list)
    measured: list[dict[str, Any]] = field(default_factory=list)
    target_bytes_source: str = "--bytes-per-step"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _target_bytes(
    target_bytes: float | None, baseline_facts: ServerFacts, model_bytes: float | None
) -> tuple[float, str | None]:
    """Bytes read per decode step and where they come from: given (source None: the caller's), else a recorded
    :data:`TARGET_BYTES_KEYS` fact of the baseline server, else the manifest's ``model_bytes``, else the model
    file's size."""
    if target_bytes is not None:
        return float(target_bytes), None
    if baseline_facts.recorded_target_bytes is not None:
        value, key = baseline_facts.recorded_target_bytes
        return float(value), f"the baseline's server facts ({key})"
    if model_bytes is not None:
        return float(model_bytes), "the run's manifest (model_bytes)"
    size = baseline_facts.model.size_bytes if baseline_facts.model is not None else None
    if size is None:
        raise ConfigError(
            "bytes read per decode step are unknown",
            found="no model size in the run",
            expected="--bytes-per-step",
            fix="pass --bytes-per-step (e.g. 17.61GB; `specscope audit MODEL` prints the target's bytes per step)",
        )
    return float(size), "the model file's size (not its bytes per step: `specscope audit MODEL` gives those)"


def _measured_rates(cells: list[CellSummary]) -> dict[tuple[str, str], tuple[float, int, str]]:
    """(config, workload) -> (mean decode tok/s over repeats, repeats, ``"decode"`` or ``"output"`` source)."""
    rates: dict[tuple[str, str], tuple[float, int, str]] = {}
    for key, by_rep in group_cells(cells).items():
        dec = [metric_value(c, "decode_tok_s") for c in by_rep.values()]
        src = "decode"
        if any(v is None for v in dec):
            dec, src = [metric_value(c, "output_tok_s") for c in by_rep.values()], "output"
        vals = [v for v in dec if v is not None]
        if vals:
            rates[(key.config, key.workload)] = (float(np.mean(vals)), len(vals), src)
    return rates


def _output_rate_note(rates: Mapping[tuple[str, str], tuple[float, int, str]]) -> list[str]:
    """The note for the configs whose rate is aggregate output tok/s (:func:`_measured_rates`: a cell without a time
    per output token, as answers of one token have): prefill is in it, so neither the effective bandwidth nor the
    model's decode step is what it measures. Empty when every rate is a decode rate."""
    configs = list(dict.fromkeys(cfg for (cfg, _), (_, _, src) in rates.items() if src == "output"))
    if not configs:
        return []
    return [
        f"{', '.join(configs)}: no time per output token in some cells (answers of one token, or no token timing), "
        "so their rate is aggregate output tok/s, prefill (TTFT) included, not decode: the effective bandwidth and "
        "the fit are not a decode step's; bench with --max-tokens 2 or more"
    ]


def draft_fraction(cells: Iterable[CellSummary], config: str, workload: str) -> float | None:
    """Fraction of verify steps that drafted: summed counter ``drafts`` / verify steps
    (:func:`specscope.stats.verify_steps.verify_steps`: generated - accepted tokens - the requests that produced a
    first token, which prefill samples) over the usable cells of ``config`` on ``workload``; None when the counters
    lack a count, the request count is not known, or they show no step. Capped at 1.

    A drafter that drafts only where the context has a match (n-gram, suffix) drafts on a fraction of the steps; its
    acceptance per draft round says nothing about the steps that drafted nothing, so every figure built on tokens per
    verify step (the fit, the cell's prediction, the k curve) carries this fraction."""
    drafts = steps = 0.0
    for c in cells:
        if c.config != config or c.workload != workload or not usable(c):
            continue
        n = verify_steps(c)
        if n is None or c.counters is None or c.counters.drafts is None:
            return None  # no generated-token counter, no counters, or an unknown request count: unknown
        drafts += float(c.counters.drafts)
        steps += n
    if not (math.isfinite(drafts) and math.isfinite(steps)) or steps <= 0:
        return None  # a count that is no number (a hand-edited run): unknown, never a fraction
    return min(1.0, drafts / steps)


def _unknown_requests(cells: Iterable[CellSummary], cfg: str, wl: str) -> str | None:
    """The note for a config x workload whose verify steps are unknown only because a cell does not say how many of
    its requests produced a first token (failed streams that carried tokens, or an older record); None otherwise."""
    mine = [c for c in cells if c.config == cfg and c.workload == wl and usable(c)]
    if not any(first_token_requests(c) is None for c in mine):
        return None
    return (
        f"{cfg}/{wl}: the fraction of verify steps that drafted is unknown (a cell does not say how many requests "
        "produced a first token, which prefill samples, not a verify step); taken as 1"
    )


def _few_rounds_note(cfg: str, wl: str, view: AcceptanceView | None) -> str | None:
    """The note for a config x workload whose acceptance rests on fewer than :data:`FEW_DRAFT_ROUNDS` draft rounds:
    the rounds, the drafted and accepted tokens and the acceptance rate's Wilson 95 % interval (``scipy.stats``
    ``binomtest``; tokens of one round are not independent, so the true uncertainty is wider). None otherwise."""
    if view is None or not view.drafts_known:
        return None
    counts = (view.drafts, view.draft_tokens, view.accepted_tokens)
    if not all(math.isfinite(x) for x in counts) or view.drafts >= FEW_DRAFT_ROUNDS or view.draft_tokens <= 0:
        return None  # a count that is no number (a hand-edited run) is named where the counters are read
    drafted, accepted = round(view.draft_tokens), round(view.accepted_tokens)
    ci = binomtest(min(accepted, drafted), drafted).proportion_ci(confidence_level=0.95, method="wilson")
    rounds = round(view.drafts)
    return (
        f"{cfg}/{wl}: acceptance rests on {rounds} draft round{'s' if rounds != 1 else ''} ({accepted} of {drafted} "
        f"drafted tokens accepted; 95 % interval of the rate {ci.low:.2f}-{ci.high:.2f}, at least), fewer than "
        f"{FEW_DRAFT_ROUNDS}: its per-position rates and its k curve are not a projection to rely on; bench more "
        "tokens or a workload where it drafts"
    )


def _positions_of(
    cfg: str,
    workloads: list[str],
    cells: list[CellSummary],
    accept: Mapping[tuple[str, str | None], Any],
    k_known: int | None,
    notes: list[str],
) -> dict[tuple[str, str], tuple[float, ...]]:
    """Per-position acceptance of ``cfg`` per workload: measured, else derived from the mean acceptance rate over
    ``k_known`` positions (the config's k, :func:`_config_k`)."""
    positions: dict[tuple[str, str], tuple[float, ...]] = {}
    for wl in workloads:
        view = accept.get((cfg, wl))
        if view is not None and view.unconditional:
            positions[(cfg, wl)] = view.unconditional
            continue
        cells_here = [c for c in cells if c.config == cfg and c.workload == wl and c.acceptance_rate is not None]
        k_guess = k_known
        if cells_here and k_guess:
            # the pooled rate (accepted / drafted over the cells), as report's acceptance tables give it; a mean of
            # the cells' own rates only where the counts cannot be pooled
            pooled = None if view is None else view.acceptance_rate
            rate = float(pooled) if pooled is not None else float(np.mean([c.acceptance_rate for c in cells_here]))
            positions[(cfg, wl)] = positions_from_rate(rate, k_guess)
            notes.append(f"{cfg}/{wl}: per-position rates derived from mean acceptance {rate:.3f} over k={k_guess}")
    return positions


def _config_k(
    cfg: str,
    cfacts: ServerFacts,
    accept: Mapping[tuple[str, str | None], AcceptanceView],
    notes: list[str],
    draftings: Iterable[Mapping[str, Any] | None] = (),
) -> int | None:
    """The draft length k of ``cfg``: what its recipe, log, server facts or name say, or the one bound its responses
    stated (:func:`specscope.stats.server_spec.run_k`), else its counters' drafted tokens per draft round
    (draft_tokens / drafts) when every workload's pooled counts give the same whole number: a server that drafts a
    fixed k (vLLM's ``num_speculative_tokens``, llama.cpp at a fixed draft length) drafts k tokens every round. None
    otherwise (no counted draft rounds, or rounds of varying length: a mean is no k)."""
    said, _ = run_k(cfg, cfacts, draftings)
    if said is not None:
        return said
    per_round = {
        view.draft_tokens / view.drafts
        for (c2, _), view in accept.items()
        if c2 == cfg and view.drafts_known and view.drafts > 0
    }
    if len(per_round) != 1:
        return None
    (mean,) = per_round
    k = round(float(mean))
    if k < 1 or abs(mean - k) > 1e-9 * k:
        return None
    notes.append(
        f"{cfg}: k unknown (no recipe, log, server fact or name says it); the model is fitted with the {k} tokens its "
        "counters drafted per draft round (the same in every workload)"
    )
    return k


def _fit_config(
    cfg: str,
    base_model: StepModel,
    measured: list[tuple[tuple[float, ...], float, float]],
    cfacts: ServerFacts,
    known: int | None,
    draft_bytes_per_token: float | None,
    notes: list[str],
) -> tuple[StepModel, int, int | None, bool]:
    """The step model of ``cfg`` (its draft bytes, its overhead fitted to its cells), the k it was fitted with, the
    config's k (None when unknown: fitted over the positions its counters reported, and a note says so) and whether
    an overhead was fitted (False: predicted as a plain decode step).

    ``measured``: per workload with per-position rates, (u_1..u_m, fraction of verify steps that drafted, measured
    decode rate in tokens/s)."""
    n_pos = max((len(pos) for pos, _, _ in measured), default=0)
    k = known if known is not None else n_pos
    if known is None and n_pos:
        notes.append(
            f"{cfg}: k unknown (no recipe, log, server fact or name says it); the model is fitted over the {n_pos} "
            "per-position rates its counters reported"
        )
    if draft_bytes_per_token is not None:
        dbytes = float(draft_bytes_per_token)
    else:
        size = cfacts.draft.size_bytes if cfacts.draft is not None else None
        dbytes = float(cfacts.recorded_draft_bytes or size or 0.0)
    model = replace(base_model, draft_bytes_per_token=dbytes, draft_passes_per_step=draft_passes_per_step(cfacts))
    pts = [(k, tokens_per_step(pos, k, f), tok_s, f) for pos, f, tok_s in measured]
    if k >= 1 and pts:
        overhead_s = fit_overhead_s(model, pts)
        if overhead_s == 0.0:
            notes.append(f"{cfg}: {OVERHEAD_HELD_AT_ZERO}")
        return replace(model, draft_overhead_s=overhead_s), k, known, True
    return model, k, known, False


def _not_fitted(cfg: str, known: int | None, accept: Mapping[tuple[str, str | None], AcceptanceView]) -> str:
    """The note for a config predicted as a plain decode step: what was missing (acceptance, k or both)."""
    measured = any(c2 == cfg and v.acceptance_rate is not None for (c2, _), v in accept.items())
    if measured and known is None:
        return (
            f"{cfg}: acceptance measured but k unknown (no recipe, log, server fact or name says it, and its counters "
            "drafted varying lengths per round); predicted as a plain decode step: name the config with its k "
            f"(e.g. {cfg}-k4) or run with per-position acceptance counters"
        )
    if known is not None and not measured:
        return f"{cfg}: k = {known} but no acceptance measured; predicted as a plain decode step"
    if measured:
        return f"{cfg}: k = {known} and acceptance measured, but no rate to fit on; predicted as a plain decode step"
    return f"{cfg}: no acceptance or k known; predicted as a plain decode step"


def _model_dict(model: StepModel, fitted: bool) -> dict[str, Any]:
    """The model as JSON; ``draft_overhead_s`` (s per drafted token) is None when nothing was fitted (no acceptance or
    k known: the config is predicted as a plain decode step), never a 0 that reads as a measured cost."""
    d = model.to_dict()
    if not fitted:
        d["draft_overhead_s"] = None
    return d


def _curves(
    positions: Mapping[tuple[str, str], tuple[float, ...]],
    fractions: Mapping[tuple[str, str], float],
    models: Mapping[str, StepModel],
    ks: Mapping[str, int],
    max_k: int,
    notes: list[str],
) -> dict[str, dict[str, list[dict[str, float]]]]:
    """config -> workload -> predicted tokens/step, tok/s and speedup for k = 1..max_k (the fraction of verify steps
    that draft at each k carried from the workload's measured one at the config's k, ``fractions`` and ``ks``, by the
    match share: :func:`specscope.stats.predict.match_share`)."""
    curves: dict[str, dict[str, list[dict[str, float]]]] = {}
    for (cfg, wl), pos in positions.items():
        f = fractions[(cfg, wl)]
        share = match_share(f, sum(extend_positions(pos, ks[cfg]))) if ks.get(cfg) else None  # None: f at every k
        m = replace(models[cfg], draft_fraction=f, match_share=share)
        if any(kk > len(pos) for kk in range(1, max_k + 1)):
            notes.append(f"{cfg}/{wl}: positions beyond {len(pos)} extrapolated with the last conditional rate")
        curves.setdefault(cfg, {})[wl] = [
            {
                "k": kk,
                "tokens_per_step": tokens_per_step(pos, kk, m.fraction_at(pos, kk)),
                "tok_s": m.tok_s(pos, kk),
                "speedup": m.speedup(pos, kk),
            }
            for kk in range(1, max_k + 1)
        ]
    return curves


def _levels(cells: list[CellSummary]) -> str:
    """The levels of ``cells`` as report names them (``N=2``, ``2 req/s``), in order."""
    axis = level_axis(cells)
    return ", ".join(dict.fromkeys(axis.label(c.concurrency) for c in cells))


def _one_stream_fix(cells: list[CellSummary], run: str | None) -> str:
    """The commands that measure ``run``'s configs at one stream: bench's own options again, or for a run of
    imported cells (``token_source`` ``imported``: bench has no options of it) the import of one-stream files."""
    if cells and all(c.token_source == "imported" for c in cells):
        return (
            "import each config's result files measured at one stream (`vllm bench serve --max-concurrency 1 "
            "--save-result`; SGLang bench_serving --max-concurrency 1), `specscope import FILE... --config NAME --out "
            "NEW_RUN`, then `specscope predict NEW_RUN`"
        )
    return f"`specscope bench --like {'RUN' if run is None else shell_word(run)} --max-concurrency 1`, then " + (
        "`specscope predict NEW_RUN`"
    )


def predict_run(  # noqa: PLR0913 - the library entry point behind `specscope predict RUN`, one argument per input
    summaries: Iterable[CellSummary],
    *,
    model_bytes: float | None = None,
    server_facts: RunFacts | None = None,
    target_bytes: float | None = None,
    draft_bytes_per_token: float | None = None,
    bandwidth_bytes_s: float | None = None,
    baseline: str = "base",
    max_k: int = 8,
    run: str | None = None,
) -> RunPrediction:
    """Fit and compare (see the module docstring). ``run``: the run folder's path, named in a fix's command line
    (None: the placeholder ``RUN``).

    Raises:
        ConfigError: no target byte count, no usable concurrency-1 baseline cell, or no speculative config at
            concurrency 1 (only the baseline and its A/A or sentinel controls: nothing to fit or predict).
    """
    facts = server_facts or RunFacts()
    every = list(summaries)
    # one stream: a closed-loop cell at concurrency 1; an open loop's level 1 is 1 request/s, any number in flight
    cells = [c for c in every if c.concurrency == 1 and open_loop(c) is None]
    if not cells and any(open_loop(c) is not None for c in every):
        raise ConfigError(
            "predict models one stream, and this run is an open loop (requests sent at a rate, any number in flight)",
            found=f"levels {_levels(every)}",
            expected="closed-loop cells at one stream (bench --max-concurrency 1)",
            fix=f"`specscope bench --like {'RUN' if run is None else shell_word(run)} --max-concurrency 1` (its "
            "configs and workloads at one stream), then `specscope predict NEW_RUN`",
        )
    rates = _measured_rates(cells)
    notes = [
        "errors are in-sample: the draft overhead is fitted on the cells it is compared with",
        *_output_rate_note(rates),
    ]
    base_rates = [v[0] for (cfg, _), v in rates.items() if cfg == baseline]
    if not base_rates:
        # the baseline's cells that are there but unusable say why (a failed cell's reasons), else the configs found
        unusable = [
            f"{c.workload} r{c.repeat} {c.status}: {'; '.join(c.reasons)}"
            for c in cells
            if c.config == baseline and c.status != "ok" and c.reasons
        ]
        raise ConfigError(
            f"no usable concurrency-1 cell of the baseline {baseline!r}",
            found=" | ".join(unusable[:3])
            if unusable
            else f"configs at concurrency 1: {', '.join(sorted({c.config for c in cells}))}"
            if cells
            else f"no concurrency-1 cells (the run's levels: {_levels(every)})",
            expected=f"{baseline} at concurrency 1",
            # the cells are there but none is ok: measuring them again helps, not a different matrix
            fix="measure again on a quieter machine (a run like this one: "
            f"`specscope bench --like {'RUN' if run is None else shell_word(run)}`); a degraded or failed cell enters "
            "no figure"
            if unusable
            else f"bench with --max-concurrency 1 and the {baseline!r} config"
            if cells
            else _one_stream_fix(every, run),
        )
    plain = {baseline, baseline + AA_SUFFIX, baseline + SENTINEL_SUFFIX}  # the baseline and its controls: no draft
    if all(cfg in plain for cfg, _ in rates):
        raise ConfigError(
            "no speculative config to predict",
            found=f"configs at concurrency 1: {', '.join(dict.fromkeys(cfg for cfg, _ in rates))} (the baseline "
            "and its controls draft nothing)",
            expected=f"a config that drafts beside {baseline!r} at concurrency 1",
            fix="bench one beside the baseline, e.g. `specscope bench --configs base,ngram --max-concurrency 1`",
        )
    # after the cells' checks: a run with no cell to fit is told so first, not asked for a byte count it cannot use
    target_bytes, recorded = _target_bytes(target_bytes, facts.of(baseline), model_bytes)
    base_tok_s = float(np.mean(base_rates))  # tokens/s, averaged over workloads (decode is content-blind)
    effective_bw = target_bytes * base_tok_s  # bytes/s
    base_model = StepModel(target_bytes, 0.0, effective_bw, bandwidth_bytes_s)
    accept = pooled_acceptance(cells)
    models: dict[str, StepModel] = {}
    positions: dict[tuple[str, str], tuple[float, ...]] = {}
    ks: dict[str, int] = {}
    fractions: dict[tuple[str, str], float] = {}  # fraction of verify steps that drafted, per config x workload
    known: dict[str, int | None] = {}
    fitted: set[str] = set()
    for cfg in dict.fromkeys(c.config for c in cells if c.config not in plain):
        cfacts = facts.of(cfg)
        k_cfg = _config_k(cfg, cfacts, accept, notes, [c.drafting for c in cells if c.config == cfg])
        workloads = [wl for (c2, wl) in rates if c2 == cfg]
        positions.update(_positions_of(cfg, workloads, cells, accept, k_cfg, notes))
        for wl in workloads:
            f = draft_fraction(cells, cfg, wl)
            fractions[(cfg, wl)] = 1.0 if f is None else f
            if f is not None and f < 1.0 and (cfg, wl) in positions:  # no positions: predicted as plain decode
                notes.append(
                    f"{cfg}/{wl}: drafted on {f:.1%} of its verify steps (counters: drafts / (generated - "
                    "accepted tokens - requests)); tokens per step and the draft cost are weighted by it"
                )
            unknown = _unknown_requests(cells, cfg, wl) if f is None and (cfg, wl) in positions else None
            notes.extend([unknown] if unknown else [])
            few = _few_rounds_note(cfg, wl, accept.get((cfg, wl)))
            notes.extend([few] if few else [])
        measured = [
            (positions[(cfg, wl)], fractions[(cfg, wl)], rates[(cfg, wl)][0])
            for wl in workloads
            if (cfg, wl) in positions
        ]
        models[cfg], ks[cfg], _, did_fit = _fit_config(
            cfg, base_model, measured, cfacts, k_cfg, draft_bytes_per_token, notes
        )
        if not did_fit:
            notes.append(_not_fitted(cfg, k_cfg, accept))
        known[cfg] = spec_k(cfg, cfacts)  # the k column: what report's and advise's picks print (— when none says)
        fitted |= {cfg} if did_fit else set()
    out_cells: list[CellPrediction] = []
    for (cfg, wl), (meas, n, src) in rates.items():
        shown: int | None
        f = fractions.get((cfg, wl), 1.0)
        if cfg in plain:
            pred, shown, tps = base_model.tok_s((), 0), 0, 1.0
        else:
            k = ks[cfg] if (cfg, wl) in positions else 0
            shown = known[cfg]
            tps = tokens_per_step(positions.get((cfg, wl), ()), k, f)
            pred = tps / replace(models[cfg], draft_fraction=f).step_time_s(k)
        out_cells.append(CellPrediction(cfg, wl, shown, n, meas, pred, pred / meas - 1.0, tps, src, f))
    curves = _curves(positions, fractions, models, ks, max_k, notes)
    roof = roofline_tok_s(target_bytes, bandwidth_bytes_s) if bandwidth_bytes_s else None
    return RunPrediction(
        target_bytes=target_bytes,
        nominal_bandwidth_bytes_s=bandwidth_bytes_s,
        effective_bandwidth_bytes_s=effective_bw,
        roofline_tok_s=roof,
        efficiency=base_model.efficiency,
        models={k: _model_dict(v, k in fitted) for k, v in models.items()},
        cells=sorted(out_cells, key=lambda c: (c.config != baseline, c.config, c.workload)),
        curves=curves,
        notes=list(dict.fromkeys(notes)),
        target_bytes_source=recorded or "--bytes-per-step",
    )
