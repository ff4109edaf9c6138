"""A draft that runs at the target's token positions, against the target's context length.

EAGLE, EAGLE-3 and DFlash drafts (and the EAGLE drafts for Llama 4 and DeepSeek) read the target's hidden states at
the target's positions, and each engine builds the draft from the draft's own ``config.json``: vLLM v0.24.0
``llama_eagle3.py`` builds it from the draft's hf_config, whose ``max_position_embeddings`` sizes the draft's rotary
``cos_sin_cache`` (``rotary_embedding/base.py``); past that many tokens the gather reads out of bounds, a device-side
assert under torch.compile and garbage drafts in eager mode (vllm-project/vllm issue #48894:
``yuhuili/EAGLE3-LLaMA3.1-Instruct-8B`` ships 2048 for a 131072-token Llama-3.1 target). vLLM PR #49343 (and #57941
for DFlash) raises the draft's value to the target's ``max_model_len`` for the eagle, eagle3 and dflash methods only,
with a log line; an independent draft model keeps its own limit
(``tests/config/test_speculative_draft_max_position_embeddings.py`` @1a73b2e0). SGLang keeps the draft's value:
acceptance past the draft's window falls below the no-speculation baseline (sgl-project/sglang issue #6783, open,
``lmsys/sglang-EAGLE3-LLaMA3.3-Instruct-70B`` with 2048).

RoPE scaling is not compared: published drafts are trained with RoPE other than the target's (the same
``yuhuili/EAGLE3-LLaMA3.1-Instruct-8B`` declares neither ``rope_theta`` nor the target's llama3 ``rope_scaling``), so
the config alone cannot tell a draft trained that way from one whose converter dropped the key (vllm-project/speculators
PR #574).

Codes: ``DRAFT_CONTEXT_SHORTER`` (WARNING).
"""

from __future__ import annotations

from typing import Any

from specscope.audit.architectures import DraftLayout, config_int
from specscope.audit.catalog import finding
from specscope.audit.findings import Finding

__all__ = ["POSITIONAL_DRAFTS", "check_positions"]

#: draft families whose layers run at the target's positions (vLLM methods eagle, eagle3 and dflash)
POSITIONAL_DRAFTS = ("eagle", "eagle3", "dflash", "eagle_llama4", "eagle_deepseek", "eagle3_deepseek", "eagle_mistral")


def check_positions(draft_cfg: dict[str, Any], layout: DraftLayout | None, target_cfg: dict[str, Any]) -> list[Finding]:
    """``DRAFT_CONTEXT_SHORTER`` for a draft of :data:`POSITIONAL_DRAFTS` whose ``max_position_embeddings`` is below
    its target's (text) config's; nothing for other drafts, whose positions are their own."""
    if layout is None or layout.family.key not in POSITIONAL_DRAFTS:
        return []
    out: list[Finding] = []
    family = layout.family.title
    draft_len, target_len = (config_int(c, "max_position_embeddings") for c in (draft_cfg, target_cfg))
    if draft_len is not None and target_len is not None and draft_len < target_len:
        out.append(
            finding(
                "DRAFT_CONTEXT_SHORTER",
                file="config.json",
                family=family,
                draft=draft_len,
                target=target_len,
                details={"draft_max_position_embeddings": draft_len, "target_max_position_embeddings": target_len},
            )
        )
    return out
