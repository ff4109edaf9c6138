"""`specscope serve`: --print, --list, --parse-log, errors and exit codes (run as a real subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hangguard import HANG_S
from paths import FIXTURES


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "specscope", "serve", *args], capture_output=True, text=True, cwd=cwd, timeout=HANG_S
    )


def test_print_exact_command(tmp_path):
    (tmp_path / "r.toml").write_text(
        '[recipes.ng]\nmodel = "org/m"\nmethod = "ngram"\nnum_speculative_tokens = 4\n'
        'prompt_lookup_min = 2\nprompt_lookup_max = 5\nenv = { VLLM_CPU_KVCACHE_SPACE = "2" }\n'
    )
    p = _run("ng", "--recipes", "r.toml", "--print", "--port", "8011", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == (
        "VLLM_CPU_KVCACHE_SPACE=2 vllm serve org/m --host 127.0.0.1 --port 8011 --speculative-config "
        """'{"method":"ngram","num_speculative_tokens":4,"prompt_lookup_min":2,"prompt_lookup_max":5}'"""
    )
    j = _run("ng", "--recipes", "r.toml", "--print", "--port", "8011", "--format", "json", cwd=tmp_path)
    doc = json.loads(j.stdout)
    assert doc["argv"][:3] == ["vllm", "serve", "org/m"]
    assert doc["speculative_config"] == {
        "method": "ngram",
        "num_speculative_tokens": 4,
        "prompt_lookup_min": 2,
        "prompt_lookup_max": 5,
    }
    d = _run("ng", "--recipes", "r.toml", "--print", "--docker", "--port", "8011", cwd=tmp_path)
    assert d.stdout.startswith("docker run --rm --name specscope-ng-8011 --gpus all --ipc=host -p 127.0.0.1:8011:8000 ")


def test_list_default_recipes_json(tmp_path):
    p = _run("--list", "--format", "json", cwd=tmp_path)
    assert p.returncode == 0
    doc = json.loads(p.stdout)
    assert doc["mtp2"]["num_speculative_tokens"] == 2 and doc["cpu-ngram"]["method"] == "ngram"


def test_parse_log_json_and_exit_codes(tmp_path):
    p = _run(
        "--parse-log",
        str(FIXTURES / "vllm_startup_qwen3_6_27b_nvfp4_mtp_v0.20.0.log"),
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["kv_cache_size_tokens"] == 36432
    assert doc["architectures"] == ["Qwen3_5ForConditionalGeneration", "Qwen3_5MTP"]
    # the start-up lines docs/engines.md's log table marks read: "Setting attention block size to 1584 tokens",
    # "Model loading took 18.41 GiB memory and 10.177328 seconds", "Available KV cache memory: 4.8 GiB"
    assert doc["block_size_tokens"] == 1584
    assert (doc["weights_loaded_gib"], doc["model_loading_s"]) == (18.41, 10.177328)
    assert doc["available_kv_cache_memory_gib"] == 4.8
    failing = _run("--parse-log", str(FIXTURES / "vllm_log_line_variants.log"), "--format", "json", cwd=tmp_path)
    assert failing.returncode == 1  # failure signatures found
    assert [f["code"] for f in json.loads(failing.stdout)["failures"]] == [
        "kv_too_small_for_max_len",
        "negative_kv_memory",
        "no_cache_memory",
    ]


def test_user_errors_are_one_line_exit_2(tmp_path):
    missing = _run("--parse-log", str(tmp_path / "none.log"), cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.strip().startswith("error: server log not found;")
    assert "Traceback" not in missing.stderr
    unknown = _run("nope", "--print", cwd=tmp_path)
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == (
        "error: invalid value for RECIPE; found: nope; expected: a recipe of the file: base, cpu-base, cpu-ngram, "
        "cpu-ngram-per-request, dflash15, eagle3, mtp2, mtp2-checked, ngram4, suffix8; fix: pick one of those; or "
        "write [recipes.nope] in a TOML file of your own and run `specscope serve nope --recipes FILE`"
    )
    nothing = _run(cwd=tmp_path)
    assert nothing.returncode == 2 and "no recipe given" in nothing.stderr
