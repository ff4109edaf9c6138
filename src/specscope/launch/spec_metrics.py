"""vLLM's per-request speculative-decoding metrics, and their reconciliation with counter deltas.

Format source: vLLM PR #48915 (``--per-request-spec-decode-metrics``), as quoted in llama-swap issue #1032;
fixture ../shared/fixtures/vllm_per_request_spec_decode_metrics_example.json. A response carries::

    {"metrics": {"speculative_decoding": {
        "mean_acceptance_length": 1.2325581395348837,   # 1 + accepted / spec steps
        "draft_acceptance_rate": 0.07751937984496124,   # accepted / drafted
        "acceptance_histogram": [39, 1, 0, 3],          # steps with 0..k drafts accepted, length k + 1
        "num_spec_steps": 43, "num_accepted_draft_tokens": 10, "num_draft_tokens": 129, "num_spec_tokens": 3}}}

The server-wide counters ``vllm:spec_decode_num_draft_tokens_total`` / ``..._num_accepted_tokens_total`` /
``..._num_drafts_total`` should move by the sums of these over the requests of a cell.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from specscope.errors import ConfigError

__all__ = [
    "PerRequestSpecDecode",
    "SpecDecodeReconciliation",
    "read_per_request_spec_decode",
    "reconcile_with_counters",
]


class PerRequestSpecDecode(BaseModel):
    """One request's ``metrics.speculative_decoding`` object (field names as vLLM writes them).

    ``acceptance_histogram[i]`` = number of spec steps in which exactly i draft tokens were accepted.
    """

    model_config = ConfigDict(extra="ignore")

    mean_acceptance_length: float
    draft_acceptance_rate: float
    acceptance_histogram: list[int]
    num_spec_steps: int
    num_accepted_draft_tokens: int
    num_draft_tokens: int
    num_spec_tokens: int

    def inconsistencies(self) -> list[str]:
        """Internal checks that must hold for a well-formed object; returns a message per violation.

        drafted <= steps * k (vLLM's n-gram proposer may draft fewer than k tokens in a step, and drafts a grammar
        invalidates are not counted: vllm/v1/spec_decode/ngram_proposer.py, v1/core/sched/scheduler.py in 0.32.0);
        sum(histogram) = steps; sum(i * histogram[i]) = accepted; histogram length k + 1.
        """
        problems: list[str] = []
        if self.num_draft_tokens > self.num_spec_steps * self.num_spec_tokens:
            problems.append(
                f"num_draft_tokens {self.num_draft_tokens} > num_spec_steps {self.num_spec_steps} "
                f"* num_spec_tokens {self.num_spec_tokens}"
            )
        if sum(self.acceptance_histogram) != self.num_spec_steps:
            problems.append(
                f"sum(acceptance_histogram) {sum(self.acceptance_histogram)} != num_spec_steps {self.num_spec_steps}"
            )
        weighted = sum(i * n for i, n in enumerate(self.acceptance_histogram))
        if weighted != self.num_accepted_draft_tokens:
            problems.append(
                f"sum(i*histogram[i]) {weighted} != num_accepted_draft_tokens {self.num_accepted_draft_tokens}"
            )
        if len(self.acceptance_histogram) != self.num_spec_tokens + 1:
            problems.append(f"len(acceptance_histogram) {len(self.acceptance_histogram)} != num_spec_tokens + 1")
        return problems


def read_per_request_spec_decode(payload: Mapping[str, Any]) -> PerRequestSpecDecode | None:
    """Find and validate the per-request spec-decode object in a response body or final stream chunk.

    Accepts the whole response (``{"metrics": {"speculative_decoding": {...}}}``), the ``metrics`` object,
    or the ``speculative_decoding`` object itself.

    Returns:
        The parsed object, or None when the payload carries no such metrics (server started without
        ``--per-request-spec-decode-metrics``, or no speculation).

    Raises:
        ConfigError: the object is present but malformed (missing field, wrong type).
    """
    obj: Any = payload
    if isinstance(obj, Mapping) and "metrics" in obj:
        obj = obj["metrics"]
    if isinstance(obj, Mapping) and "speculative_decoding" in obj:
        obj = obj["speculative_decoding"]
    if not isinstance(obj, Mapping) or "num_draft_tokens" not in obj:
        return None
    try:
        return PerRequestSpecDecode.model_validate(dict(obj))
    except ValidationError as exc:
        raise ConfigError(
            "malformed per-request spec-decode metrics",
            found=str(exc.errors()[0]),
            expected="metrics.speculative_decoding with vLLM's fields (PR #48915)",
            fix="check the server's vLLM version; drop --per-request-spec-decode-metrics if it is not vLLM's format",
        ) from None


class SpecDecodeReconciliation(BaseModel):
    """Sums over a cell's requests next to the counter deltas, and whether they agree exactly.

    ``*_tokens`` are token counts; ``drafts`` are spec steps (vLLM's ``num_drafts``). A counter delta of None
    means the counter was not scraped; its ``*_match`` is then None.
    """

    model_config = ConfigDict(extra="forbid")

    requests: int
    drafted_tokens: int
    accepted_tokens: int
    drafts: int
    counter_drafted_tokens: int | None
    counter_accepted_tokens: int | None
    counter_drafts: int | None
    drafted_match: bool | None
    accepted_match: bool | None
    drafts_match: bool | None


# (reconciliation total, the per-request field summed into it, its *_match field); counter deltas: counter_<total>
_RECONCILED = (
    ("drafted_tokens", "num_draft_tokens", "drafted_match"),
    ("accepted_tokens", "num_accepted_draft_tokens", "accepted_match"),
    ("drafts", "num_spec_steps", "drafts_match"),
)


def reconcile_with_counters(
    per_request: Iterable[PerRequestSpecDecode],
    *,
    counter_drafted_tokens: int | None,
    counter_accepted_tokens: int | None,
    counter_drafts: int | None = None,
) -> SpecDecodeReconciliation:
    """Compare the per-request sums of a cell with the deltas of vLLM's spec-decode counters.

    Args:
        per_request: the cell's per-request objects (one per finished request).
        counter_drafted_tokens: delta of ``vllm:spec_decode_num_draft_tokens_total`` over the cell.
        counter_accepted_tokens: delta of ``vllm:spec_decode_num_accepted_tokens_total``.
        counter_drafts: delta of ``vllm:spec_decode_num_drafts_total``.
    """
    items = list(per_request)
    deltas = (counter_drafted_tokens, counter_accepted_tokens, counter_drafts)
    facts: dict[str, Any] = {"requests": len(items)}
    for (total_name, field, match_name), delta in zip(_RECONCILED, deltas, strict=True):
        total = sum(getattr(r, field) for r in items)
        facts |= {
            total_name: total,
            f"counter_{total_name}": delta,
            match_name: None if delta is None else total == delta,
        }
    return SpecDecodeReconciliation(**facts)
