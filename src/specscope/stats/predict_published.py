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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from specscope.errors import ConfigError
from specscope.stats.predict import StepModel, extend_positions, tokens_per_step
from specscope.stats.roofline import roofline_tok_s

__all__ = ["VALIDITY", "KRow", "PublishedPrediction", "predict_published", "parse_rates"]

#: The model's validity range, printed with every prediction.
VALIDITY = "valid for one stream, decode only, bandwidth bound; u_i assumed independent of k"


@dataclass(frozen=True)
class KRow:
    """One k of the table: tokens per verify step (tokens), predicted decode rate (tokens/s), speedup (x)."""

    k: int
    tokens_per_step: float
    tok_s: float
    speedup: float


@dataclass(frozen=True)
class PublishedPrediction:
    """Roofline (tokens/s), effective bandwidth (bytes/s), draft bytes per drafted token (bytes), the k rows."""

    target_bytes: float
    draft_bytes_per_token: float
    bandwidth_bytes_s: float
    effective_bandwidth_bytes_s: float
    roofline_tok_s: float
    measured_tok_s: float | None
    per_position: tuple[float, ...]
    rows: list[KRow]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_rates(text: str) -> tuple[float, ...]:
    """``"0.8,0.6,0.4"`` -> ``(0.8, 0.6, 0.4)``: unconditional per-position acceptance u_i (fractions).

    Raises:
        ConfigError: an entry that is not a number in [0, 1], or rates that rise with position.
    """
    try:
        rates = tuple(float(p) for p in text.split(",") if p.strip())
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


def predict_published(
    per_position: Sequence[float],
    *,
    target_bytes: float,
    draft_bytes_per_token: float,
    bandwidth_bytes_s: float,
    lm_head_bytes: float = 0.0,
    measured_tok_s: float | None = None,
    max_k: int = 8,
) -> PublishedPrediction:
    """Predicted single-stream tok/s and speedup for k = 1..``max_k`` from published inputs (see the module doc).

    Raises:
        ConfigError: a non-positive byte count or bandwidth (from the roofline), or max_k < 1.
    """
    if max_k < 1:
        raise ConfigError("--max-k must be at least 1", found=max_k, expected=">= 1")
    roof = roofline_tok_s(target_bytes, bandwidth_bytes_s)
    effective = target_bytes * measured_tok_s if measured_tok_s else bandwidth_bytes_s
    dbytes = float(draft_bytes_per_token) + float(lm_head_bytes)
    model = StepModel(float(target_bytes), dbytes, effective, bandwidth_bytes_s)
    rows = [
        KRow(k, tokens_per_step(per_position, k), model.tok_s(per_position, k), model.speedup(per_position, k))
        for k in range(1, max_k + 1)
    ]
    notes = [VALIDITY]
    if max_k > len(per_position):
        extended = extend_positions(per_position, max_k)[len(per_position) :]
        notes.append(
            f"positions {len(per_position) + 1}..{max_k} extrapolated with the last conditional rate: "
            + ", ".join(f"{u:.3f}" for u in extended)
        )
    if not lm_head_bytes:
        notes.append("no --lm-head-bytes: a draft that shares the target's lm_head reads it per drafted token too")
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
    )
