"""End to end: stream shapes from public bug reports that would fool a benchmark client, served by the truth server
and read by ``specscope bench``; every figure checked against what the server wrote (its own log of each write, on the
same monotonic clock as the client).

- ``empty``: chunks whose content is ``""`` before the first token (vllm-project/vllm issue #5708: with chunked
  prefill "the first few responses may contain zero tokens ... an empty string"): no first token, TTFT at the first
  real token.
- ``logprobs``: a chunk that carries logprobs and no text (sgl-project/sglang issue #26778, logprobs on their own
  chunks): no token.
- ``running``: cumulative usage on chunks mid-stream (vllm-project/vllm PR #6652 / #9357, continuous_usage_stats):
  the final usage counts, and usage is no terminal event.
- ``twice``: the final usage sent twice (langchain-ai/langchainjs PR #11457: a repeated cumulative snapshot must not
  be added): counted once.
- ``nodone``: no ``[DONE]`` after the finish and usage (mistralai/client-ts issue #75: the last chunks of a stream
  missing): tokens kept, the stream degraded ``no [DONE]``.
- ``tools``: a tool-call-only answer (``delta.tool_calls`` fragments, finish ``tool_calls``): TTFT at the first
  fragment, TTFO absent (no content).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

SRC = str(Path(__file__).resolve().parents[2] / "src")
EMPTY = 'data: {"choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]}\n\n'
LOGPROBS = (
    'data: {"choices":[{"index":0,"delta":{},"logprobs":{"content":[{"token":"x","logprob":-0.5}]},'
    '"finish_reason":null}]}\n\n'
)


def _usage(n: int) -> str:
    return f'data: {{"choices":[],"usage":{{"prompt_tokens":8,"completion_tokens":{n},"total_tokens":{8 + n}}}}}\n\n'


BASE = {"output_tokens": 6, "finish_reason": "stop", "ttft_ms": 40, "inter_chunk_ms": 5}
PLANS = {
    "empty": ResponsePlan(**BASE, inject_events=[(0, EMPTY), (0, EMPTY)]),
    "logprobs": ResponsePlan(**BASE, inject_events=[(3, LOGPROBS)]),
    "running": ResponsePlan(**BASE, inject_events=[(i, _usage(i)) for i in range(1, 6)]),
    "twice": ResponsePlan(**BASE, inject_events=[(6, _usage(6))]),
    "nodone": ResponsePlan(**BASE, send_done=False),
    "tools": ResponsePlan(**(BASE | {"finish_reason": "tool_calls"}), answer_field="tool_calls"),
}


def test_public_stream_shapes_are_read_to_the_token(tmp_path):
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("".join(f"{p}\n" for p in PLANS))
    out = tmp_path / "runs"
    env = {**os.environ, "PYTHONPATH": SRC}
    env.pop("SPECSCOPE_DEBUG", None)
    with TruthServer(TruthScript(default=ResponsePlan(**BASE), by_prompt=PLANS)) as truth:
        cmd = [sys.executable, "-m", "specscope", "bench", "--server", f"base={truth.base_url}"]
        cmd += ["--workload", f"mine={prompts}", "--levels", "1", "--repeats", "1", "--max-tokens", "8"]
        cmd += ["--no-aa", "-f", "json", "--out", str(out)]
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        log = {r["prompt"]: r for r in truth.served()}
    assert "Traceback" not in res.stderr, res.stderr
    (run_dir,) = out.iterdir()
    from specscope.store import open_run

    with open_run(run_dir) as run:
        (key,) = run.done_keys()
        streams = {s.prompt_id: s for s in run.streams(key)}
    got = {name: streams[f"mine-{no:04d}"] for no, name in enumerate(PLANS, start=1)}
    for name, s in got.items():
        writes = log[name]["writes"]
        tokens = [w for w in writes if w[1] in ("content", "reasoning")]
        assert len(tokens) == 6, (name, writes)
        # the client reads each token after the server wrote it, and before the next one was written; an empty or
        # logprobs-only chunk written earlier is no token
        assert tokens[0][0] <= s.first_token_ns, name
        assert s.last_token_ns is not None and tokens[-1][0] <= s.last_token_ns, name
        assert s.output_tokens == 6 and s.token_source == "usage", (name, s.output_tokens)
        assert s.finish_reason == ("tool_calls" if name == "tools" else "stop")
        if name == "tools":
            assert (s.content_chunks, s.first_content_ns) == (0, None)
        else:
            assert (s.content_chunks, s.first_content_ns) == (6, s.first_token_ns), name
    assert (got["nodone"].status, got["nodone"].reason) == ("degraded", "no [DONE]")
    assert {n: (s.status, s.reason) for n, s in got.items() if n != "nodone"} == dict.fromkeys(
        [n for n in PLANS if n != "nodone"], ("ok", None)
    )
