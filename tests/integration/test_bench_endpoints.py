"""``bench --endpoint``: servers that serve only ``/v1/completions`` or only ``/v1/responses`` are measured exactly,
as a user runs it (the ``specscope`` command against ground-truth servers taught those streams); a refused API gives
its status, the server's own message (redacted) and the endpoints to try; requests that cannot be sent are refused
before the run folder exists.

Each truth server serves one API (``TruthScript.apis``) and refuses the others like vLLM: 400 with vLLM's
no-chat-template ``ErrorResponse`` (a base model), or FastAPI's 404 (a route it lacks)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hangguard import HANG_S
from specscope.records import CellKey
from specscope.stats.cells import summarize_run
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer
from specscope.truth.dialects import NO_CHAT_TEMPLATE

pytestmark = pytest.mark.integration

SRC = str(Path(__file__).resolve().parents[2] / "src")
MS = 1_000_000
# 12 tokens in 3 chunks of 4, the first 150 ms after arrival, then one every 60 ms; the lifecycle events of a
# Responses stream (response.created ...) go out at arrival: TTFT must be at the first text, 150 ms later
PLAN = ResponsePlan(
    output_tokens=12, tokens_per_chunk=4, ttft_ms=150, inter_chunk_ms=60, role_ms=0, finish_reason="length"
)
TOKENS = 12


def _bench(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    env.pop("SPECSCOPE_DEBUG", None)
    cmd = [sys.executable, "-m", "specscope", "bench", "--workloads", "prose", "--repeats", "1"]
    cmd += ["--max-tokens", str(TOKENS), "--no-aa", "-f", "json", "--out", str(tmp_path / "runs"), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)


def _run_dir(tmp_path: Path) -> Path:
    (run_dir,) = (tmp_path / "runs").iterdir()
    return run_dir


def _clean(c) -> bool:
    """ok, or flagged only by the client's own self-check (a busy 2-core machine)."""
    return c.status == "ok" or (c.status == "degraded" and all(r.startswith("CLIENT_LIMITED") for r in c.reasons))


def _check_exact(run_dir: Path, served: list[dict], path: str) -> tuple[Any, list[int]]:
    """Every cell: tokens exact from usage (and equal to the server's counter delta); the N=1 stream's TTFT at the
    server's first text write (never at a lifecycle event), its TPOT between the server's write instants."""
    with open_run(run_dir) as run:
        cells = summarize_run(run)
        assert [(c.concurrency, c.streams) for c in cells] == [(1, 1), (2, 2)]
        for c in cells:
            assert _clean(c), c.reasons
            assert (c.output_tokens, c.token_source) == (TOKENS * c.concurrency, "usage")
            assert c.server_generation_tokens == TOKENS * c.concurrency
        (s,) = run.streams(CellKey("x", "prose", 1, 0))
        assert run.manifest["client"]["endpoint"] == path
        assert run.manifest["run_options"]["endpoint"] == path
    assert (s.status, s.reason, s.output_tokens, s.token_source, s.finish_reason) == ("ok", None, 12, "usage", "length")
    assert s.content_chunks == 3 and s.http_status == 200
    assert {r["path"] for r in served} == {path}
    (truth,) = [r for r in served if s.send_ns <= r["arrival_ns"] <= s.end_ns]
    assert truth["output_tokens"] == 12
    text = [t for t, kind, *_ in truth["writes"] if kind == "content"]
    assert len(text) == 3
    # the first token is seen after the server wrote the first text (that it was read before the next one was
    # written, 60 ms later, is test_the_first_text_is_read_before_the_next_is_written's: timing, issue 37)
    assert text[0] <= s.first_token_ns
    assert text[2] <= s.last_token_ns <= s.end_ns
    assert s.ttft_ns >= 150 * MS
    lifecycle = [t for t, kind, *_ in truth["writes"] if kind == "role"]
    if path.endswith("responses"):  # response.created & co. went out at arrival, 150 ms before the first text
        assert lifecycle and text[0] - lifecycle[0] >= 140 * MS
    else:
        assert lifecycle == []  # a completions stream has no role chunk
    assert s.tpot_ns == (s.last_token_ns - s.first_token_ns) / 11
    assert s.tpot_ns < (s.end_ns - text[0]) / 11  # within the span from the first text to the stream's end
    return s, text


def test_a_completions_only_server_is_measured_exactly_on_v1_completions(tmp_path):
    script = TruthScript(default=PLAN, apis=["/v1/completions"], refuse_status=400)
    with TruthServer(script) as ts:
        res = _bench(
            tmp_path, "--server", f"x={ts.base_url}", "--max-concurrency", "1,2", "--endpoint", "/v1/completions"
        )
        served = ts.served()
    assert res.returncode == 0, res.stderr
    _check_exact(_run_dir(tmp_path), served, "/v1/completions")
    body = served[-1]["body"]  # the completions dialect: one prompt string, no chat fields
    assert isinstance(body["prompt"], str) and body["prompt"]
    assert "messages" not in body and "chat_template_kwargs" not in body
    assert (body["max_tokens"], body["stream"], body["stream_options"]) == (12, True, {"include_usage": True})


def test_a_responses_only_server_is_measured_exactly_on_v1_responses(tmp_path):
    script = TruthScript(default=PLAN, apis=["/v1/responses"])
    with TruthServer(script) as ts:
        res = _bench(
            tmp_path, "--server", f"x={ts.base_url}", "--max-concurrency", "1,2", "--endpoint", "/v1/responses"
        )
        served = ts.served()
    assert res.returncode == 0, res.stderr
    # every stream ended response.incomplete for max_output_tokens: a success at the length limit
    _check_exact(_run_dir(tmp_path), served, "/v1/responses")
    body = served[-1]["body"]
    assert body["input"][-1]["role"] == "user" and body["max_output_tokens"] == 12
    assert "messages" not in body and "stream_options" not in body and "max_tokens" not in body


@pytest.mark.timing  # each read within 60 ms of its write: a loaded machine's scheduling gaps are longer
def test_the_first_text_is_read_before_the_next_is_written(tmp_path):
    """The N=1 stream's TTFT is the first text write's (not a lifecycle event's, 150 ms earlier, nor the next text's,
    60 ms later), and its TPOT lies between the server's write instants. On a free machine a read follows its write
    by well under a millisecond: the 60 ms between writes is the margin."""
    with TruthServer(TruthScript(default=PLAN, apis=["/v1/responses"])) as ts:
        res = _bench(
            tmp_path, "--server", f"x={ts.base_url}", "--max-concurrency", "1,2", "--endpoint", "/v1/responses"
        )
        served = ts.served()
    assert res.returncode == 0, res.stderr
    s, text = _check_exact(_run_dir(tmp_path), served, "/v1/responses")
    assert text[0] <= s.first_token_ns < text[1]
    assert (text[2] - text[1]) / 11 < s.tpot_ns < (s.end_ns - text[0]) / 11


def _failure_line(res: subprocess.CompletedProcess[str]) -> str:
    (line,) = [x for x in res.stderr.splitlines() if x.startswith("error: no cell with figures")]
    return line


def test_chat_on_a_base_model_server_shows_its_400_message_and_the_endpoints_to_try(tmp_path):
    script = TruthScript(default=PLAN, apis=["/v1/completions"], refuse_status=400)
    with TruthServer(script) as ts:
        res = _bench(tmp_path, "--server", f"x={ts.base_url}", "--max-concurrency", "1")
    assert res.returncode == 1, res.stderr
    reason = f"http 400 on /v1/chat/completions: {NO_CHAT_TEMPLATE}; try --endpoint /v1/completions or /v1/responses"
    assert f"STREAM_DEGRADED(failed:{reason})" in _failure_line(res)  # shown
    with open_run(_run_dir(tmp_path)) as run:  # and stored with the cell's streams
        (s,) = run.streams(CellKey("x", "prose", 1, 0))
    assert (s.status, s.http_status, s.reason) == ("failed", 400, reason)


def test_chat_on_a_responses_only_server_shows_404_and_the_endpoints_to_try(tmp_path):
    with TruthServer(TruthScript(default=PLAN, apis=["/v1/responses"])) as ts:
        res = _bench(tmp_path, "--server", f"x={ts.base_url}", "--max-concurrency", "1")
    assert res.returncode == 1, res.stderr
    reason = "http 404 on /v1/chat/completions: Not Found; try --endpoint /v1/completions or /v1/responses"
    assert f"STREAM_DEGRADED(failed:{reason})" in _failure_line(res)
    report = json.loads(res.stdout)
    assert report["cells"][0]["status"] == "failed"
    assert f"STREAM_DEGRADED(failed:{reason})" in report["cells"][0]["reasons"]


def test_a_servers_message_is_redacted_and_bounded(tmp_path):
    secret = "sk-" + "a1B2" * 8
    words = " ".join(["overloaded"] * 40)
    plan = ResponsePlan(status=503, error_message=f"upstream key {secret} rejected: {words}")
    with TruthServer(TruthScript(default=plan)) as ts:
        res = _bench(
            tmp_path, "--server", f"x={ts.base_url}", "--max-concurrency", "1", "--endpoint", "/v1/completions"
        )
    assert res.returncode == 1, res.stderr
    assert secret not in res.stderr and secret not in res.stdout
    with open_run(_run_dir(tmp_path)) as run:
        (s,) = run.streams(CellKey("x", "prose", 1, 0))
    head = "http 503 on /v1/completions: "
    assert s.reason is not None and s.reason.startswith(head + "upstream key *** rejected: overloaded overloaded")
    message = s.reason[len(head) :]
    assert len(message) == 200 and message.endswith("...")  # bounded; 503 is no refused API: no endpoints named
    assert secret not in (_run_dir(tmp_path) / "run.sqlite").read_bytes().decode("latin-1")


def test_resume_keeps_the_runs_endpoint_and_refuses_another(tmp_path):
    script = TruthScript(default=PLAN, apis=["/v1/completions"], refuse_status=400)
    with TruthServer(script) as ts:
        res = _bench(
            tmp_path, "--server", f"x={ts.base_url}", "--max-concurrency", "1,2", "--endpoint", "/v1/completions"
        )
        assert res.returncode == 0, res.stderr
        run_dir = _run_dir(tmp_path)
        other = _bench(tmp_path, "--resume", str(run_dir), "--endpoint", "/v1/responses")
        assert other.returncode == 2
        assert "--endpoint /v1/responses (run has /v1/completions)" in other.stderr
        with open_run(run_dir, writable=True) as run:  # forget one cell, as if the run had been killed
            run._db.execute("DELETE FROM cells WHERE concurrency = 2")
            run._db.execute("DELETE FROM streams WHERE concurrency = 2")
            run._db.commit()
            run.update_manifest(finished=False)
        ts.clear_log()
        again = _bench(tmp_path, "--resume", str(run_dir))
        served = ts.served()
    assert again.returncode == 0, again.stderr
    assert served and {r["path"] for r in served} == {"/v1/completions"}  # the run's own endpoint, not chat
    like = subprocess.run(
        [sys.executable, "-m", "specscope", "bench", "--like", str(run_dir), "--print-run-file"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": SRC},
        timeout=HANG_S,
    )
    assert 'endpoint = "/v1/completions"' in like.stdout.splitlines()  # --like repeats it
    with open_run(run_dir) as run:
        assert run.manifest["finished"] is True
        assert all(_clean(c) for c in summarize_run(run))
