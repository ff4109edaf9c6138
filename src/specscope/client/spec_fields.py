"""SGLang's per-response speculative fields (issue 16), read from a streamed chunk.

SGLang puts ``meta_info`` (top level, or on a choice) with ``spec_verify_ct`` (verify steps),
``spec_draft_token_num`` (drafted tokens) and ``spec_accept_token_num`` (accepted drafted tokens); see
:mod:`specscope.truth.spec_shapes` for the source file and version.
"""

from __future__ import annotations

from typing import Any

__all__ = ["sglang_spec_fields"]


def _int(x: Any) -> int | None:
    return int(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def sglang_spec_fields(obj: dict[str, Any]) -> tuple[int | None, int | None] | None:
    """(drafted tokens, accepted drafted tokens) from the chunk's SGLang ``meta_info``, None when it has none."""
    metas = [obj.get("meta_info")] + [ch.get("meta_info") for ch in obj.get("choices") or () if isinstance(ch, dict)]
    for meta in metas:
        if isinstance(meta, dict) and "spec_draft_token_num" in meta:
            return _int(meta.get("spec_draft_token_num")), _int(meta.get("spec_accept_token_num"))
    return None
