"""Make the AIPerf and GuideLLM result files of tests/data/imports with the tools themselves (issue 38).

Two ground-truth servers on 127.0.0.1 (:class:`specscope.truth.process.TruthServer`): ``base`` (one token per chunk)
and ``spec`` (three tokens per chunk, the same gaps), 24 tokens per request. Each tool runs twice against each, at
concurrency 2 with 8 requests, alternating base / spec, and its own result file is copied unchanged into ``--out``
as ``TOOL_CONFIG_rN.json``. The tools come from their cached venvs (``~/.cache/specscope/bench-venvs/NAME``, as
benchmarks/client_overhead.py installs them); both count tokens with a local word-level tokenizer where ``x`` is one
token (written into the cache; no downloads).

Usage: ``.venv/bin/python scripts/peer_results.py --tool aiperf --out tests/data/imports``
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from specscope.truth.process import TruthServer
from specscope.truth.script import ResponsePlan, TruthScript

CACHE = Path.home() / ".cache" / "specscope" / "bench-venvs"
TOKENS = 24


def tokenizer_dir() -> Path:
    """A word-level tokenizer where ``x`` is one token (tokenizer.json + config), in the cache."""
    d = CACHE / "tokenizer-x"
    if (d / "tokenizer.json").exists():
        return d
    d.mkdir(parents=True, exist_ok=True)
    vocab = {"[UNK]": 0, "x": 1, **{f"w{i}": i + 2 for i in range(1000)}}
    unk = {"id": 0, "content": "[UNK]", "single_word": False, "lstrip": False, "rstrip": False, "normalized": False}
    tok = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [{**unk, "special": True}],
        "normalizer": None, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None, "decoder": None,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
    }  # fmt: skip
    (d / "tokenizer.json").write_text(json.dumps(tok))
    (d / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "[UNK]", "model_max_length": 1 << 20})
    )
    (d / "config.json").write_text(json.dumps({"model_type": "llama", "max_position_embeddings": 1 << 20}))
    return d


def run_aiperf(url: str, work: Path, venv: Path) -> Path:
    cmd = [str(venv / "bin" / "aiperf"), "profile", "--model", "truth", "--url", url, "--endpoint-type", "chat"]
    cmd += ["--streaming", "--concurrency", "2", "--request-count", "8", "--synthetic-input-tokens-mean", "8"]
    cmd += ["--output-tokens-mean", str(TOKENS)]
    cmd += ["--tokenizer", str(tokenizer_dir()), "--artifact-dir", str(work), "--ui-type", "none"]
    subprocess.run(cmd, check=True, cwd=work, timeout=900)
    return next(work.rglob("profile_export_aiperf.json"))


def run_guidellm(url: str, work: Path, venv: Path) -> Path:
    """GuideLLM 0.8.1's ``guidellm run`` (option groups ``kind=...``), its JSON report."""
    cmd = [str(venv / "bin" / "guidellm"), "run", "--backend", f"kind=openai_http,target={url},model=truth"]
    cmd += ["--profile", "kind=concurrent,streams=2", "--constraint", "kind=max_requests,count=8"]
    cmd += ["--data", f"kind=synthetic_text,prompt_tokens=8,output_tokens={TOKENS}"]
    cmd += ["--tokenizer", f"kind=hf_auto,model={tokenizer_dir()}", "--output", f"kind=json,path={work / 'r.json'}"]
    cmd += ["--disable-console-interactive"]
    subprocess.run(cmd, check=True, cwd=work, timeout=900)
    return work / "r.json"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", choices=("aiperf", "guidellm"), required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--venv", type=Path, help="the tool's venv (default: ~/.cache/specscope/bench-venvs/TOOL)")
    a = ap.parse_args()
    venv = a.venv or CACHE / a.tool
    run = run_aiperf if a.tool == "aiperf" else run_guidellm
    plans = {
        "base": ResponsePlan(ttft_ms=20, output_tokens=None, inter_chunk_ms=15),
        "spec": ResponsePlan(ttft_ms=20, output_tokens=None, inter_chunk_ms=15, tokens_per_chunk=3),
    }
    with TruthServer(TruthScript(default=plans["base"])) as base, TruthServer(TruthScript(default=plans["spec"])) as sp:
        for r in range(2):
            for name, server in (("base", base), ("spec", sp)):
                with tempfile.TemporaryDirectory(prefix=f"{a.tool}-") as tmp:
                    found = run(server.base_url, Path(tmp), venv)
                    dest = a.out / f"{a.tool}_{name}_r{r}.json"
                    shutil.copyfile(found, dest)
                    print(dest)


if __name__ == "__main__":
    main()
