"""The embedded engine end to end: real llama.cpp servers (xllamacpp) serving SmolLM2-135M on 127.0.0.1.

One streamed chat completion per config; the client's ``usage.completion_tokens`` must equal the server's
``llamacpp:tokens_predicted_total`` delta, and llama.cpp's per-request ``timings.draft_n`` /
``draft_n_accepted`` must equal the ``llamacpp:spec_decode_*`` counter deltas.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx
import pytest
from httpx_sse import connect_sse
from prometheus_client.parser import text_string_to_metric_families

pytest.importorskip("xllamacpp")
pytest.importorskip("gguf")

from hangguard import HANG_S
from specscope.engine import EmbeddedServer, get_config  # noqa: E402

pytestmark = pytest.mark.integration

EDIT_PROMPT = (
    "Copy this Python code exactly, changing nothing:\n\n"
    "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\n"
    "def mul(a, b):\n    return a * b\n"
)


def _scrape(base_url: str) -> dict[str, float]:
    """Every sample of /metrics, keyed ``name`` or ``name{label=value,...}``."""
    text = httpx.get(f"{base_url}/metrics", timeout=HANG_S).text
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            out[f"{s.name}{{{labels}}}" if labels else s.name] = s.value
    return out


def _delta(after: dict[str, float], before: dict[str, float], key: str) -> float:
    return after.get(key, 0.0) - before.get(key, 0.0)


def _stream_chat(server: EmbeddedServer, prompt: str, max_tokens: int) -> tuple[str, dict]:
    body = {
        "model": server.model_name,
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": max_tokens,
        "temperature": 0.0,
        "stream": True,
        "stream_options": {"include_usage": True},
        "chat_template_kwargs": {"enable_thinking": False},
    }
    text: list[str] = []
    final: dict | None = None
    done = False
    with httpx.Client(timeout=httpx.Timeout(HANG_S), trust_env=False) as client:
        with connect_sse(client, "POST", f"{server.base_url}/v1/chat/completions", json=body) as events:
            assert events.response.status_code == 200
            for sse in events.iter_sse():
                if sse.data == "[DONE]":
                    done = True
                    break
                chunk = json.loads(sse.data)
                for choice in chunk.get("choices", []):
                    text.append(choice.get("delta", {}).get("content") or "")
                if chunk.get("usage"):
                    final = chunk
    assert done, "stream ended without [DONE]"
    assert final is not None, "no usage chunk"
    assert final["choices"] == []  # usage arrives in a chunk of its own
    return "".join(text), final


@pytest.fixture(scope="module")
def draft_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("draft-cache")


def test_base_config_one_request(tmp_path: Path) -> None:
    cfg = get_config("base").with_updates(n_parallel=1, ctx_per_slot_tokens=1024)
    with EmbeddedServer(cfg, tmp_path / "base.log") as server:
        before = _scrape(server.base_url)
        assert before["llamacpp:requests_processing"] == 0
        text, final = _stream_chat(server, "Write one sentence about the sea.", 24)
        after = _scrape(server.base_url)
        port = int(server.base_url.rsplit(":", 1)[1])
    n = final["usage"]["completion_tokens"]
    assert 1 <= n <= 24 and text
    assert final["timings"]["predicted_n"] == n
    assert "draft_n" not in final["timings"]
    assert _delta(after, before, "llamacpp:tokens_predicted_total") == n
    for name in ("drafts", "draft_tokens", "accepted_tokens"):
        assert _delta(after, before, f"llamacpp:spec_decode_num_{name}_total") == 0
    assert after["llamacpp:requests_processing"] == 0
    assert not any(k.startswith("llamacpp:spec_decode_num_accepted_tokens_per_pos_total") for k in after)
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0  # stopped


def test_draft_config_derives_and_drafts(tmp_path: Path, draft_cache: Path) -> None:
    cfg = get_config("draft").with_updates(n_parallel=1, ctx_per_slot_tokens=1024, draft_cache_dir=draft_cache)
    with EmbeddedServer(cfg, tmp_path / "draft.log") as server:
        info = server.describe()["draft"]
        before = _scrape(server.base_url)
        _, final = _stream_chat(server, EDIT_PROMPT, 32)
        after = _scrape(server.base_url)
        command_line = server.command_line
    assert info["quant"] == "Q4_0" and info["method"] == "gguf" and info["cached"] is False
    assert 0 < info["size_bytes"] < server.model_path.stat().st_size
    assert info["cost_ns_per_token"] > 0 and info["cost_tokens"] == 32
    assert f"-md {info['path']}" in command_line and "--spec-type draft-simple" in command_line

    n = final["usage"]["completion_tokens"]
    t = final["timings"]
    assert t["draft_n"] > 0
    assert _delta(after, before, "llamacpp:tokens_predicted_total") == n
    drafted = _delta(after, before, "llamacpp:spec_decode_num_draft_tokens_total")
    accepted = _delta(after, before, "llamacpp:spec_decode_num_accepted_tokens_total")
    drafts = _delta(after, before, "llamacpp:spec_decode_num_drafts_total")
    assert drafted == t["draft_n"]
    assert accepted == t["draft_n_accepted"]
    assert drafts * 8 >= drafted  # at most n_max=8 tokens per draft
    per_pos = [
        _delta(after, before, f"llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position={i}}}")
        for i in range(8)
    ]
    assert sum(per_pos) == accepted
    assert per_pos == sorted(per_pos, reverse=True)  # position i accepted only after i-1
    assert after["llamacpp:requests_processing"] == 0


def test_synth_rates_counters(tmp_path: Path) -> None:
    cfg = get_config("synth").with_updates(n_parallel=1, ctx_per_slot_tokens=1024)
    with EmbeddedServer(cfg, tmp_path / "synth.log") as server:
        before = _scrape(server.base_url)
        _, final = _stream_chat(server, "Write a story about a fox.", 16)
        after = _scrape(server.base_url)
    assert "synthetic acceptance: n_max = 3" in (tmp_path / "synth.log").read_text()
    drafts = _delta(after, before, "llamacpp:spec_decode_num_drafts_total")
    drafted = _delta(after, before, "llamacpp:spec_decode_num_draft_tokens_total")
    accepted = _delta(after, before, "llamacpp:spec_decode_num_accepted_tokens_total")
    per_pos = [
        _delta(after, before, f"llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position={i}}}")
        for i in range(3)
    ]
    assert drafts > 0 and drafted <= 3 * drafts
    assert drafted == final["timings"]["draft_n"] and accepted == final["timings"]["draft_n_accepted"]
    assert sum(per_pos) == accepted
    assert per_pos[0] >= per_pos[1] >= per_pos[2]
    assert _delta(after, before, "llamacpp:tokens_predicted_total") == final["usage"]["completion_tokens"]
