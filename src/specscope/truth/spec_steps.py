"""Per-request, per-step speculative data the truth server serves (``ResponsePlan.spec_steps_accepted``).

The shape follows vLLM's ``--per-request-spec-decode-metrics detailed`` (docs page "Per-Request Acceptance
Metrics": ``metrics.speculative_decoding`` on the response, with the per-request sums plus ordered per-step
arrays). The per-step array names specscope reads, ``num_draft_tokens_per_step`` and
``num_accepted_tokens_per_step``, are this project's reading and are to be checked against a live vLLM.
The reasoning/answer boundary goes out as ``usage.completion_tokens_details.reasoning_tokens`` (OpenAI's
usage form), so a client can split acceptance by phase exactly.
"""

from __future__ import annotations

from typing import Any

__all__ = ["spec_step_fields"]


def spec_step_fields(
    accepted_per_step: list[int], draft_per_step: int, reasoning_tokens: int, usage: dict[str, Any]
) -> dict[str, Any]:
    """The ``metrics`` field for the usage chunk, and ``usage`` given its reasoning-token detail (mutated)."""
    usage["completion_tokens_details"] = {"reasoning_tokens": reasoning_tokens}
    drafts = [draft_per_step] * len(accepted_per_step)
    return {
        "metrics": {
            "speculative_decoding": {
                "num_spec_steps": len(accepted_per_step),
                "num_draft_tokens": sum(drafts),
                "num_accepted_draft_tokens": sum(accepted_per_step),
                "num_draft_tokens_per_step": drafts,
                "num_accepted_tokens_per_step": list(accepted_per_step),
            }
        }
    }
