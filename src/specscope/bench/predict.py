"""What ``specscope predict`` computes: the single-stream bandwidth model, from flags, a checkpoint's byte
census and (optionally) a run folder.

Byte sizes parse with :func:`specscope.stats.quantities.parse_bytes` (``17.61GB``), bandwidths with
:func:`specscope.audit.census.parse_bandwidth` (``273GB/s`` or a device name); the roofline is
:func:`specscope.stats.predict.roofline_tok_s` and the fit on a run
:func:`specscope.stats.predict_run.predict_run`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specscope.audit.census import parse_bandwidth
from specscope.audit.run import audit_checkpoint
from specscope.bench.predict_bytes import census_bytes, census_source
from specscope.errors import ConfigError
from specscope.facts import RunFacts
from specscope.stats.cells import summarize_run
from specscope.stats.judgement import check_baseline, judge
from specscope.stats.predict import roofline_tok_s
from specscope.stats.predict_calibrate import Calibration, parse_k_rates
from specscope.stats.predict_holdout import HoldoutRow, holdout_errors
from specscope.stats.predict_published import PublishedPrediction, parse_rates, predict_published
from specscope.stats.predict_run import RunPrediction, predict_run
from specscope.stats.quantities import parse_bytes
from specscope.stats.server_spec import methods_of
from specscope.stats.summary import CellSummary
from specscope.stats.verdict import min_effect_of
from specscope.store import open_run
from specscope.store.manifest import manifest_record
from specscope.values import STEP_BYTES_BOUNDS, apply_only

__all__ = [
    "PredictInputs",
    "predict_inputs",
    "predict_on_run",
    "roofline_only",
    "predict_from_published",
    "published_calibration",
    "holdout_on_run",
]


@dataclass(frozen=True)
class PredictInputs:
    """Bytes read per target decode step (bytes), per drafted token (bytes), memory bandwidth (bytes/s), and where
    the target's bytes come from (a phrase that ``predict`` prints beside the figure)."""

    target_bytes: float | None
    draft_bytes_per_token: float | None
    bandwidth_bytes_s: float | None
    target_bytes_source: str = "--bytes-per-step"


def predict_inputs(
    *,
    bytes_per_step: str | None = None,
    draft_bytes: str | None = None,
    bandwidth: str | None = None,
    checkpoint: str | None = None,
    draft: str | None = None,
) -> PredictInputs:
    """Parse the size flags; with ``checkpoint``, fill what the flags leave open from its byte census
    (``target_bytes_per_token``, ``draft_bytes_per_step``).

    Raises:
        ConfigError: an unreadable size or bandwidth, or a checkpoint without readable tensors.
    """
    target = parse_bytes(bytes_per_step, "--bytes-per-step", bounds=STEP_BYTES_BOUNDS) if bytes_per_step else None
    dbytes = parse_bytes(draft_bytes, "--draft-bytes", allow_zero=True) if draft_bytes else None  # 0: n-gram
    bw = parse_bandwidth(bandwidth) if bandwidth else None
    if checkpoint:
        census = audit_checkpoint(checkpoint, draft=draft).census
        if census is None:
            raise ConfigError("the checkpoint has no readable tensors", found=checkpoint, expected="a byte census")
        dbytes = dbytes if dbytes is not None else (float(census.draft_bytes_per_step or 0) or None)
        if target is None and census.target_bytes_per_token:  # absent for a draft audited alone
            name = Path(checkpoint).name or checkpoint
            return PredictInputs(float(census.target_bytes_per_token), dbytes, bw, census_source(name, checkpoint))
    return PredictInputs(target, dbytes, bw)


def roofline_only(inputs: PredictInputs, measured_tok_s: float | None = None) -> dict[str, Any]:
    """The roofline without a run: ``target_bytes``, ``bandwidth_bytes_s``, ``roofline_tok_s`` (tokens/s),
    ``measured_tok_s`` and ``efficiency`` (measured / roofline, or None).

    Raises:
        ConfigError: the target bytes or the bandwidth is missing.
    """
    target, bw = inputs.target_bytes, inputs.bandwidth_bytes_s
    if target is None or bw is None:
        raise ConfigError(
            "without RUN, predict needs --bytes-per-step (or --checkpoint) and --bandwidth",
            found="missing inputs: "
            + ", ".join(n for n, v in (("--bytes-per-step", target), ("--bandwidth", bw)) if v is None),
            expected="--bytes-per-step 17.61GB --bandwidth 273GB/s",
            fix="specscope predict --bytes-per-step 17.61GB --bandwidth 273GB/s (your model's and device's), "
            "or specscope predict RUN for a run folder",
        )
    roof = roofline_tok_s(target, bw)
    _require_under_roofline(measured_tok_s, roof, target, bw)
    return {
        "target_bytes": target,
        "bandwidth_bytes_s": bw,
        "roofline_tok_s": roof,
        "measured_tok_s": measured_tok_s,
        "efficiency": None if measured_tok_s is None else measured_tok_s / roof,
    }


def _require_under_roofline(measured_tok_s: float | None, roof_tok_s: float, target: float, bw: float) -> None:
    """Refuse a measured no-draft rate (tokens/s) above the roofline ``roof_tok_s``: reading ``target`` bytes per
    token at ``bw`` bytes/s cannot go faster, so the bytes or the bandwidth are wrong (or the rate is not no-draft).

    Raises:
        ConfigError: ``measured_tok_s`` > ``roof_tok_s``.
    """
    if measured_tok_s is not None and measured_tok_s > roof_tok_s * (1 + 1e-9):
        raise ConfigError(
            "--measured is above the roofline: no-draft decode cannot read the weights faster than the bandwidth",
            found=f"{measured_tok_s:g} tok/s",
            expected=f"<= roofline {roof_tok_s:.2f} tok/s ({target / 1e9:.2f} GB per token at {bw / 1e9:g} GB/s)",
            fix="check --bytes-per-step / --bandwidth, and that --measured is the no-draft (base) decode rate",
        )


def _fit_run(
    run: Path, inputs: PredictInputs, *, baseline: str | None, max_k: int = 8
) -> tuple[RunPrediction, list[CellSummary]]:
    """``predict_run`` on the run folder ``run`` for k = 1..``max_k``, and the run's cells; ``baseline`` None: the
    run's own (its manifest's, as ``report`` reads it), else ``base``.

    Raises:
        StoreError: ``run`` is not a run folder.
    """
    with open_run(run) as r:
        cells, facts, manifest = summarize_run(r), r.server_facts, manifest_record(r.manifest)
    baseline = (manifest.baseline or "base") if baseline is None else baseline
    check_baseline(cells, baseline)  # before the bytes: an unknown baseline has no model to count
    inputs, facts, notes = _census_of_run(inputs, facts, baseline)
    pred = predict_run(
        cells,
        model_bytes=manifest.model_bytes,
        server_facts=facts,
        baseline=baseline,
        max_k=max_k,
        target_bytes=inputs.target_bytes,
        draft_bytes_per_token=inputs.draft_bytes_per_token,
        bandwidth_bytes_s=inputs.bandwidth_bytes_s,
        run=str(run),
    )
    source = pred.target_bytes_source if inputs.target_bytes is None else inputs.target_bytes_source
    pred = dataclasses.replace(pred, notes=[*notes, *pred.notes], target_bytes_source=source)
    if baseline in {c.config for c in cells}:  # the measured speedups, as the report judges them
        effect = min_effect_of(manifest.stored_options())
        j = judge(cells, baseline, min_effect=effect, methods=methods_of(facts) or None, picks=False)
        one = [] if j.axis.open else [c.to_dict() for c in j.comparisons if c.level == 1]  # open loop: 1 req/s
        pred = dataclasses.replace(pred, measured=one)
    return pred, cells


def _census_of_run(inputs: PredictInputs, facts: RunFacts, baseline: str) -> tuple[PredictInputs, RunFacts, list[str]]:
    """What the flags leave open, from the byte census of the run's own GGUF files (see
    :mod:`specscope.bench.predict_bytes`): the baseline's model gives the target's bytes per step, each config's
    llama.cpp draft its ``draft_bytes_per_token`` (set in a copy of ``facts``). Returns the inputs, the facts and a
    note per draft figure's source."""
    if inputs.target_bytes is None:
        found = census_bytes(facts.of(baseline).stored.get("model"))
        if found is not None:
            inputs = dataclasses.replace(
                inputs, target_bytes=float(found.bytes_per_step), target_bytes_source=found.source
            )
    if inputs.draft_bytes_per_token is not None:
        return inputs, facts, []
    by_config, by_source = dict(facts.items()), dict[str, list[str]]()
    for cfg, cfacts in facts.items():
        entry = cfacts.stored.get("draft")
        if cfacts.draft is None or not cfacts.draft.path or not isinstance(entry, dict):
            continue
        draft = census_bytes(entry, as_draft=True)
        if draft is None:
            by_source.setdefault("the draft file's size (the file is not there as the run served it)", []).append(cfg)
            continue
        by_config[cfg] = dataclasses.replace(cfacts, draft_bytes_per_token=float(draft.bytes_per_step))
        by_source.setdefault(f"{draft.bytes_per_step / 1e9:.4f} GB, {draft.source}", []).append(cfg)
    notes = [f"draft bytes per drafted token of {', '.join(cfgs)}: {src}" for src, cfgs in by_source.items()]
    return inputs, RunFacts(by_config), notes


def predict_on_run(run: Path, inputs: PredictInputs, *, baseline: str | None = None, max_k: int = 8) -> RunPrediction:
    """Fit the model on the run folder ``run`` and predict k = 1..``max_k`` (see ``predict_run``).

    Raises:
        StoreError: ``run`` is not a run folder.
    """
    return _fit_run(run, inputs, baseline=baseline, max_k=max_k)[0]


def predict_from_published(
    inputs: PredictInputs,
    per_position: str,
    *,
    lm_head_bytes: str | None = None,
    measured_tok_s: float | None = None,
    max_k: int = 8,
    calibration: Calibration | None = None,
) -> PublishedPrediction:
    """The run-less k table from ``--per-position`` rates, bytes and bandwidth (see
    :func:`specscope.stats.predict_published.predict_published`); ``calibration`` from
    :func:`published_calibration`.

    Raises:
        ConfigError: bad rates, or the target bytes, draft bytes or bandwidth missing.
    """
    rates = parse_rates(per_position)
    target, dbytes, bw = inputs.target_bytes, inputs.draft_bytes_per_token, inputs.bandwidth_bytes_s
    if target is None or dbytes is None or bw is None:
        given = {"--bytes-per-step": target, "--draft-bytes": dbytes, "--bandwidth": bw}
        missing = [flag for flag, v in given.items() if v is None]
        examples = {"--bytes-per-step": "17.61GB", "--draft-bytes": "0.85GB", "--bandwidth": "273GB/s"}
        raise ConfigError(
            f"--per-position needs {' and '.join(missing)} too",
            found="no " + ", no ".join(missing),
            expected="--bytes-per-step, --draft-bytes (0 for n-gram drafting) and --bandwidth, or --checkpoint "
            "for the bytes",
            fix="add " + " ".join(f"{flag} {examples[flag]}" for flag in missing) + " (your model's and device's)",
        )
    _require_under_roofline(measured_tok_s, roofline_tok_s(target, bw), target, bw)
    return predict_published(
        rates,
        target_bytes=target,
        draft_bytes_per_token=dbytes,
        bandwidth_bytes_s=bw,
        lm_head_bytes=parse_bytes(lm_head_bytes, "--lm-head-bytes") if lm_head_bytes else 0.0,
        measured_tok_s=measured_tok_s,
        max_k=max_k,
        calibration=calibration,
    )


def published_calibration(
    overhead_ms: float | None = None,
    fit_k: str | None = None,
    compare: str | None = None,
    *,
    run: Path | None = None,
    per_position: bool = True,
) -> Calibration:
    """The run-less draft overhead from ``--overhead`` (ms per drafted token) or ``--fit-k 1=20.00,2=26.48``
    (published tok/s by k), and the ``--compare`` rates (see :mod:`specscope.stats.predict_calibrate`).
    ``run`` (the RUN folder given, None without) and ``per_position`` (whether ``--per-position`` was given): these
    options serve only the run-less mode (no RUN, ``--per-position``); the refusal names what was found instead (the
    RUN folder, else no ``--per-position``).

    Raises:
        ConfigError: an unreadable ``--fit-k`` / ``--compare``, both ``--overhead`` and ``--fit-k``, or any of
        the three outside the run-less mode.
    """
    given = [n for n, v in (("--overhead", overhead_ms), ("--fit-k", fit_k), ("--compare", compare)) if v is not None]
    if given and (run is not None or not per_position):
        raise ConfigError(
            apply_only(given, "to the run-less prediction"),
            found=f"a RUN folder ({run})" if run is not None else "no --per-position",
            expected="predict --per-position U1,U2,... --bytes-per-step ... --draft-bytes ... --bandwidth ...",
            fix="with RUN the overhead is fitted on the run itself (use --holdout to check it out of sample)"
            if run is not None
            else "give the published per-position acceptance rates: --per-position U1,U2,...",
        )
    return Calibration(
        None if overhead_ms is None else overhead_ms / 1e3,
        parse_k_rates(fit_k, "--fit-k"),
        parse_k_rates(compare, "--compare"),
    )


def holdout_on_run(
    run: Path, inputs: PredictInputs, holdout: str, *, baseline: str | None = None
) -> tuple[RunPrediction, list[HoldoutRow]]:
    """The run's fit and the out-of-sample errors of the k in ``holdout`` (``"3,4,6"``), fitted on the other k
    (see :mod:`specscope.stats.predict_holdout`).

    Raises:
        StoreError: not a run folder. ConfigError: a bad ``--holdout`` or no held-out k in the run.
    """
    from specscope.kaxis import parse_k_list

    ks = parse_k_list(holdout, "--holdout")
    pred, cells = _fit_run(run, inputs, baseline=baseline)
    return pred, holdout_errors(pred, cells, ks)
