"""The run-less prediction: published per-position acceptance, bytes and bandwidth in, a k table out.

Validity range (the model of :mod:`specscope.stats.predict`): one stream, decode only, bandwidth bound (every
verify step reads the target's weights once and the draft's once per drafted token). It says nothing about
batches, prefill or compute-bound steps, and it assumes the published u_i do not depend on k.

Draft bytes per drafted token include the ``lm_head`` the draft shares with the target: an MTP / EAGLE head
ships no ``lm_head`` of its own, yet it projects every drafted token through the target's (seed 004: the
``mtp.*`` head alone is 0.791 GiB, "~25 GiB per step at k=5" only adds up with the shared ``lm_head`` read per
drafted token). Pass it with ``lm_head_bytes`` (``--lm-head-bytes``); it is added to ``draft_bytes_per_token``.

Without a measured no-draft rate the effective bandwidth is the nominal one (efficiency 1); with one
(``--measured``) it is ``target_bytes x measured_tok_s`` (seed 003: 12.14 tok/s x 17.61 GB = 78 % of 273 GB/s).

The per-drafted-token overhead is 0 (pure bandwidth) unless a :class:`~specscope.stats.predict_calibrate.Calibration`
gives it (``--overhead``) or fits it on published measured rates (``--fit-k``); each row then says whether it was
``fitted`` or ``predicted`` and, against ``--compare`` rates, its error (see :mod:`specscope.stats.predict_calibrate`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from specscope.errors import ConfigError
from specscope.stats.predict import StepModel, extend_positions, tokens_per_step
from specscope.stats.predict_calibrate import Calibration, calibration_note, fitted_overhead_s
from specscope.stats.roofline import roofline_tok_s
from specscope.values import csv_items

__all__ = ["VALIDITY", "KRow", "PublishedPrediction", "predict_published", "parse_rates"]

#: The model's validity range, printed with every prediction.
VALIDITY = "valid for one stream, decode only, bandwidth bound; u_i assumed independent of k"


@dataclass(frozen=True)
class KRow:
    """One k of the table: tokens per verify step (tokens), predicted decode rate (tokens/s), speedup (x); the
    published measured rate (tokens/s) and the error ``tok_s / measured_tok_s - 1`` (fraction) when one was given;
    ``role`` ``fitted`` (the overhead was fitted on this k: in-sample) or ``predicted``."""

    k: int
    tokens_per_step: float
    tok_s: float
    speedup: float
    measured_tok_s: float | None = None
    error: float | None = None
    role: str = "predicted"


@dataclass(frozen=True)
class PublishedPrediction:
    """Roofline (tokens/s), effective bandwidth (bytes/s), draft bytes per drafted token (bytes), draft overhead
    (seconds per drafted token; 0: pure bandwidth), the k it was fitted on, the validity range, the k rows."""

    target_bytes: float
    draft_bytes_per_token: float
    bandwidth_bytes_s: float
    effective_bandwidth_bytes_s: float
    roofline_tok_s: float
    measured_tok_s: float | None
    per_position: tuple[float, ...]
    rows: list[KRow]
    notes: list[str] = field(default_factory=list)
    draft_overhead_s: float = 0.0
    fitted_k: tuple[int, ...] = ()
    validity: str = VALIDITY

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_rates(text: str) -> tuple[float, ...]:
    """``"0.8,0.6,0.4"`` -> ``(0.8, 0.6, 0.4)``: unconditional per-position acceptance u_i (fractions).

    Raises:
        ConfigError: an entry that is not a number in [0, 1], or rates that rise with position.
    """
    items = csv_items(text, "--per-position", "0.8,0.6,0.4")
    try:
        rates = tuple(float(p) for p in items)
    except ValueError:
        rates = ()
    if not rates or any(not 0.0 <= r <= 1.0 for r in rates):
        raise ConfigError(
            "--per-position takes acceptance fractions",
            found=text,
            expected="comma-separated numbers in [0, 1], position 1 first",
            fix="e.g. --per-position 0.936,0.815,0.681,0.581,0.484",
        )
    if any(b > a for a, b in zip(rates, rates[1:], strict=False)):
        raise ConfigError(
            "--per-position rates rise with position",
            found=text,
            expected="u_1 >= u_2 >= ... (drafts are accepted as a prefix: unconditional rates)",
            fix="pass unconditional rates (vLLM's per_pos / num_drafts), not conditional ones",
        )
    return rates


def _row(model: StepModel, per_position: Sequence[float], k: int, cal: Calibration) -> KRow:
    """Row k of the table, with the published measured rate and the error where ``cal`` has one."""
    tok_s = model.tok_s(per_position, k)
    measured = cal.measured(k)
    return KRow(
        k,
        tokens_per_step(per_position, k),
        tok_s,
        model.speedup(per_position, k),
        measured,
        None if measured is None else tok_s / measured - 1.0,
        "fitted" if k in cal.fit_tok_s else "predicted",
    )


def _span(first: int, last: int) -> str:
    """``3`` or ``3 to 8``: the draft positions (or k) a note names, in words (``positions 6`` read as six)."""
    return str(first) if first == last else f"{first} to {last}"


def _validity(n_positions: int, max_k: int, cal: Calibration) -> str:
    """The range the table holds in: :data:`VALIDITY`, the k with published rates, the k the overhead came from."""
    parts = [VALIDITY, f"per-position rates published for k=1..{n_positions}"]
    if max_k > n_positions:
        parts.append(
            f"k={_span(n_positions + 1, max_k)} {'has' if max_k == n_positions + 1 else 'have'} none (extrapolated)"
        )
    if cal.fit_tok_s:
        parts.append(f"overhead fitted on k={','.join(map(str, sorted(cal.fit_tok_s)))}")
    elif cal.overhead_s is None:
        parts.append("no draft overhead (pure bandwidth: an upper bound)")
    return "; ".join(parts)


#: A fitted row whose in-sample error exceeds this (fraction) gets a warning note: the model does not explain it.
FIT_WARN_ERROR = 0.10


def _check_ks(cal: Calibration, max_k: int, n_positions: int) -> None:
    """Refuse a ``--fit-k`` / ``--compare`` k outside the table's rows 1..``max_k`` (rows beyond the published
    ``n_positions`` are extrapolated, so any k up to ``max_k`` has a row; none beyond it).

    Raises:
        ConfigError: a k < 1 or > ``max_k``.
    """
    for option, rates in (("--fit-k", cal.fit_tok_s), ("--compare", cal.compare_tok_s)):
        outside = sorted(k for k in rates if not 1 <= k <= max_k)
        if outside:
            raise ConfigError(
                f"{option} names a k the table has no row for",
                found=", ".join(f"k={k}" for k in outside),
                expected=f"k in 1..{max_k} (--max-k {max_k}; rates published for k=1..{n_positions}, "
                "higher k extrapolated)",
                fix=f"drop k={outside[0]} from {option}, or raise --max-k to {max(outside)}",
            )


def _fit_warning(rows: Sequence[KRow]) -> str | None:
    """A warning note when a fitted row misses its measured rate by more than :data:`FIT_WARN_ERROR`; else None."""
    bad = [r for r in rows if r.role == "fitted" and r.error is not None and abs(r.error) > FIT_WARN_ERROR]
    if not bad:
        return None
    errors = ", ".join(f"k={r.k} {100 * (r.error or 0.0):+.1f}%" for r in bad)
    return (
        f"warning: the fit misses its own measured rates by more than {100 * FIT_WARN_ERROR:.0f}% ({errors} "
        "in-sample): the bandwidth model does not explain these rates; check --per-position, the bytes and "
        "the bandwidth, and that the rates are single-stream decode"
    )


def predict_published(
    per_position: Sequence[float],
    *,
    target_bytes: float,
    draft_bytes_per_token: float,
    bandwidth_bytes_s: float,
    lm_head_bytes: float = 0.0,
    measured_tok_s: float | None = None,
    max_k: int = 8,
    calibration: Calibration | None = None,
) -> PublishedPrediction:
    """Predicted single-stream tok/s and speedup for k = 1..``max_k`` from published inputs (see the module doc).

    ``calibration`` gives or fits the per-drafted-token overhead and the measured rates to compare with; None: the
    pure bandwidth model (overhead 0).

    Raises:
        ConfigError: a non-positive byte count or bandwidth (from the roofline), max_k < 1, or a ``calibration`` k
            outside 1..max_k.
    """
    if max_k < 1:
        raise ConfigError("--max-k must be at least 1", found=max_k, expected=">= 1")
    cal = calibration or Calibration()
    _check_ks(cal, max_k, len(per_position))
    roof = roofline_tok_s(target_bytes, bandwidth_bytes_s)
    effective = target_bytes * measured_tok_s if measured_tok_s else bandwidth_bytes_s
    dbytes = float(draft_bytes_per_token) + float(lm_head_bytes)
    model = StepModel(float(target_bytes), dbytes, effective, bandwidth_bytes_s)
    overhead_s = fitted_overhead_s(model, per_position, cal.fit_tok_s) if cal.fit_tok_s else cal.overhead_s or 0.0
    model = StepModel(model.target_bytes, dbytes, effective, bandwidth_bytes_s, overhead_s)
    rows = [_row(model, per_position, k, cal) for k in range(1, max_k + 1)]
    notes = [n for n in [calibration_note(cal, overhead_s, max_k), _fit_warning(rows)] if n]
    if max_k > len(per_position):
        extended = extend_positions(per_position, max_k)[len(per_position) :]
        one = len(extended) == 1
        notes.append(
            f"draft position{'' if one else 's'} {_span(len(per_position) + 1, max_k)} {'has' if one else 'have'} "
            "no published rate: extrapolated with the last conditional rate to "
            + ", ".join(f"{u:.3f}" for u in extended)
        )
    if not lm_head_bytes:
        notes.append("no --lm-head-bytes: a draft that shares the target's lm_head reads it per drafted token too")
    if cal.fit_tok_s and not measured_tok_s:
        notes.append("no --measured: the effective bandwidth is the nominal one, the fitted overhead absorbs the rest")
    return PublishedPrediction(
        float(target_bytes),
        dbytes,
        float(bandwidth_bytes_s),
        float(effective),
        roof,
        measured_tok_s,
        tuple(float(u) for u in per_position),
        rows,
        notes,
        overhead_s,
        tuple(sorted(cal.fit_tok_s)),
        _validity(len(per_position), max_k, cal),
    )
