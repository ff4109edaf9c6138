"""Per-request, per-step speculative data the truth server serves (``ResponsePlan.spec_steps_accepted``).

The shape is vLLM's ``--per-request-spec-decode-metrics detailed``: ``metrics.speculative_decoding`` at the top
level of the final usage chunk, the summary fields plus the ordered per-step arrays ``per_step_accepted`` and
``per_step_drafted`` (vLLM 0.32.0 ``vllm/v1/metrics/stats.py:397-422``; see :mod:`specscope.truth.spec_shapes`
for the source and where vLLM puts it in a stream). The reasoning/answer boundary goes out as
``usage.completion_tokens_details.reasoning_tokens`` (OpenAI's usage form), so a client can split acceptance by
phase exactly.
"""

from __future__ import annotations

from typing import Any

from specscope.truth.spec_shapes import vllm_speculative_decoding

__all__ = ["spec_step_fields"]


def spec_step_fields(
    accepted_per_step: list[int], draft_per_step: int, reasoning_tokens: int, usage: dict[str, Any]
) -> dict[str, Any]:
    """The ``metrics`` field for the usage chunk, and ``usage`` given its reasoning-token detail (mutated)."""
    usage["completion_tokens_details"] = {"reasoning_tokens": reasoning_tokens}
    drafts = [draft_per_step] * len(accepted_per_step)
    k = max([draft_per_step, *accepted_per_step])  # vLLM's num_spec_tokens: the histogram has k + 1 buckets
    histogram = [0] * (k + 1)
    for a in accepted_per_step:
        histogram[a] += 1
    spec = vllm_speculative_decoding(histogram, sum(drafts), k, (list(accepted_per_step), drafts))
    return {"metrics": {"speculative_decoding": spec}}
