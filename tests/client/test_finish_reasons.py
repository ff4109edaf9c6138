"""Each finish reason the engines send, read by name through a real stream from the truth server.

vLLM's finish reasons (``vllm/v1/request.py`` ``_FINISHED_REASON_MAP``; ``FinishReason`` in
``vllm/v1/engine/__init__.py``: STOP, LENGTH, ABORT, ERROR, REPETITION, lower-cased on the wire): ``stop``, ``length``,
``abort``, ``error`` and ``repetition`` (``SamplingParams.repetition_detection``: ``check_stop`` in
``vllm/v1/core/sched/utils.py`` ends the request ``FINISHED_REPETITION``); the chat layer adds ``tool_calls``. SGLang
sends ``stop``, ``length`` and ``abort``; llama.cpp's server ``stop``, ``length`` and ``tool_calls``.
"""

from __future__ import annotations

import pytest

from specscope.client.runner import run_fixed_concurrency, run_sync
from specscope.client.settings import ClientSettings
from specscope.truth import ResponsePlan, TruthScript, TruthServer


def _one(finish: str | None, output_tokens: int = 5) -> tuple[str, str | None, int | None, str | None]:
    plan = ResponsePlan(output_tokens=output_tokens, finish_reason=finish, role_ms=0, prompt_tokens=3)
    body = {"model": "m", "max_tokens": 16, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with TruthServer(TruthScript(default=plan)) as ts:
        (rec,) = run_sync(run_fixed_concurrency(ts.base_url, [("p", body)], 1, ClientSettings(workers=1)))
    return rec.status, rec.reason, rec.output_tokens, rec.finish_reason


@pytest.mark.parametrize(
    ("finish", "want"),
    [
        # vLLM's repetition detector ended the generation, a rule the request asked for: a finished answer, as
        # ``stop`` (before: degraded, "short without stop")
        ("repetition", ("ok", None, 5, "repetition")),
        # vLLM's FINISHED_ERROR: a request-level internal error; the generation did not complete (as ``abort``)
        ("error", ("failed", "ABORTED(finish_reason error)", 5, "error")),
        ("abort", ("failed", "ABORTED(finish_reason abort)", 5, "abort")),
        # a finish reason no engine is known to send is named, not read as a short answer
        ("content_filter", ("degraded", "UNKNOWN_FINISH(finish_reason content_filter)", 5, "content_filter")),
        ("stop", ("ok", None, 5, "stop")),
        ("length", ("degraded", "short without stop", 5, "length")),  # length before max_tokens (16)
    ],
)
def test_each_known_finish_reason_is_read_by_name(finish: str, want: tuple) -> None:
    assert _one(finish) == want
