"""Engine-shaped speculative-decoding figures of the ground-truth server: per-response fields and SGLang's
``/metrics`` (issue 16: one schema across vLLM, SGLang and llama.cpp, tested against exact shapes).

Per-response fields (on the chunk that carries ``usage``), chosen by ``ResponsePlan.per_request_spec``:

- ``llamacpp``: ``timings: {predicted_n, draft_n, draft_n_accepted}`` (llama.cpp server, xllamacpp 2026.10);
- ``vllm``: ``metrics: {speculative_decoding: {num_drafts, num_draft_tokens, num_accepted_draft_tokens}}`` (the
  per-request object of vLLM's ``--per-request-spec-decode-metrics``, the names specscope's client reads);
- ``sglang``: ``meta_info: {completion_tokens, spec_verify_ct, spec_draft_token_num, spec_accept_token_num,
  spec_accept_length}`` (SGLang's request meta info; ``spec_verify_ct`` counts verify steps, and
  ``spec_accept_length = completion_tokens / spec_verify_ct``).

SGLang's Prometheus names (sgl-project/sglang ``python/sglang/srt/metrics/collector.py``, commit 00ae9c15, 2026):
counters ``sglang:generation_tokens_total`` and ``sglang:prompt_tokens_total``; gauges
``sglang:num_running_reqs``, ``sglang:num_queue_reqs`` and the batch averages ``sglang:spec_accept_length``
and ``sglang:spec_accept_rate``. SGLang exposes no speculative counters, so its acceptance can only come from
the per-response fields.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from specscope.truth.script import ResponsePlan

__all__ = ["per_request_fields", "sglang_families"]


def per_request_fields(plan: ResponsePlan, sent_tokens: int) -> dict[str, Any]:
    """The top-level fields the plan's engine puts on its usage chunk (``{}`` when none)."""
    accepted = sum(plan.accepted_per_position)
    shape = "llamacpp" if plan.llamacpp_timings else plan.per_request_spec
    if shape == "llamacpp":
        return {"timings": {"predicted_n": sent_tokens, "draft_n": plan.draft_tokens, "draft_n_accepted": accepted}}
    if shape == "vllm":
        spec = {"num_drafts": plan.drafts, "num_draft_tokens": plan.draft_tokens, "num_accepted_draft_tokens": accepted}
        return {"metrics": {"speculative_decoding": spec}}
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
