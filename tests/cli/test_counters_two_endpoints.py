"""`counters BEFORE AFTER` with BEFORE saved from trtllm-serve's JSON /metrics (iteration stats) and AFTER from
/perf_metrics (requests): two endpoints, no window. Refused by name (exit 2), not pooled into "drafts 0" beside 36
draft tokens and an INCONSISTENT alarm (exit 1). Bodies written here in the shapes of docs/engines.md's TensorRT-LLM
rows (serve/openai_server.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.cli import main

_ITERATIONS = [
    {
        "iter": 10,
        "numActiveRequests": 2,
        "numQueuedRequests": 0,
        "iterLatencyMS": 12.0,
        "specDecodingStats": {"numDraftTokens": 6, "numAcceptedTokens": 3, "numRequestsWithDraftTokens": 2},
    }
]
_REQUESTS = [
    {
        "request_id": 1,
        "perf_metrics": {"speculative_decoding": {"total_accepted_draft_tokens": 12, "total_draft_tokens": 24}},
    },
    {
        "request_id": 2,
        "perf_metrics": {"speculative_decoding": {"total_accepted_draft_tokens": 3, "total_draft_tokens": 12}},
    },
]


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], before: object, after: object) -> tuple[int, str, str]:
    b, a = tmp_path / "before.json", tmp_path / "after.json"
    b.write_text(json.dumps(before))
    a.write_text(json.dumps(after))
    with pytest.raises(SystemExit) as ei:
        main(["counters", str(b), str(a)])
    out = capsys.readouterr()
    return int(ei.value.code or 0), out.out, out.err


def test_iteration_stats_then_perf_metrics_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(tmp_path, capsys, _ITERATIONS, _REQUESTS)
    assert code == 2
    assert err.splitlines() == [
        "error: BEFORE and AFTER are bodies of two different endpoints; found: "
        f"{tmp_path / 'before.json'}: iteration stats; {tmp_path / 'after.json'}: per-request perf metrics; "
        "expected: two readings of the same endpoint; "
        "fix: save both from the same URL (curl -s URL > before.json, then > after.json after the load)"
    ]


def test_an_empty_before_still_opens_either_window(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(tmp_path, capsys, [], _REQUESTS)  # an empty body: the server ran nothing since the GET
    assert code == 0
    assert "draft tokens 36  accepted 15" in out and "rate 41.7%" in out  # 15 / 36
