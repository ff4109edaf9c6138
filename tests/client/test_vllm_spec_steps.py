"""specscope reads vLLM 0.32.0's ``--per-request-spec-decode-metrics detailed`` per-step arrays under vLLM's names
(``per_step_drafted`` / ``per_step_accepted``, vllm/v1/metrics/stats.py:397-422) from the final usage chunk."""

from __future__ import annotations

import json

from specscope.client.parse import RawCapture, parse_capture


def _capture(spec: dict) -> RawCapture:
    tok = {"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": "length"}]}
    usage = {"choices": [], "usage": {"completion_tokens": 10, "prompt_tokens": 3}}
    usage["metrics"] = {"speculative_decoding": spec}
    body = f"data: {json.dumps(tok)}\n\ndata: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode()
    return RawCapture("p", 0, 0, http_status=200, max_tokens=10, chunks=[(1, body)], end_ns=2)


DETAILED = {
    "mean_acceptance_length": 2.5,
    "draft_acceptance_rate": 0.5,
    "acceptance_histogram": [1, 1, 1, 1],
    "num_spec_steps": 4,
    "num_accepted_draft_tokens": 6,
    "num_draft_tokens": 12,
    "num_spec_tokens": 3,
    "per_step_accepted": [3, 2, 1, 0],
    "per_step_drafted": [3, 3, 3, 3],
}


def test_detailed_per_step_arrays_read_under_vllm_names():
    rec = parse_capture(_capture(DETAILED))
    assert (rec.server_draft_tokens, rec.server_accepted_tokens) == (12, 6)
    assert rec.draft_per_step == (3, 3, 3, 3)
    assert rec.accepted_per_step == (3, 2, 1, 0)


def test_summary_has_no_per_step_arrays():
    summary = {k: v for k, v in DETAILED.items() if not k.startswith("per_step_")}
    rec = parse_capture(_capture(summary))
    assert (rec.server_draft_tokens, rec.server_accepted_tokens) == (12, 6)
    assert (rec.draft_per_step, rec.accepted_per_step) == ((), ())
