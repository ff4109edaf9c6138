"""End to end on the embedded engine (SmolLM2-135M via llama.cpp): base vs ngram, one probe per gate, short
budgets. The 135M model fails most capability probes; the run must finish, store, and say so plainly."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def _gate(tmp_path: Path, args: list[str]) -> tuple[subprocess.CompletedProcess, Path]:
    """Run ``specscope gate ARGS --out tmp_path/runs`` in ``tmp_path``; exit 0 (all pass) or 1 (a gate failed).
    Returns the process and its one run folder."""
    argv = [sys.executable, "-m", "specscope", "gate", *args]
    r = subprocess.run(
        [*argv, "--out", str(tmp_path / "runs")], capture_output=True, text=True, cwd=tmp_path, timeout=600
    )
    assert r.returncode in (0, 1), r.stderr[-2000:]
    (folder,) = list((tmp_path / "runs").iterdir())
    return r, folder


def test_embedded_base_vs_ngram(tmp_path):
    pytest.importorskip("xllamacpp")
    r, folder = _gate(
        tmp_path,
        ["--configs", "base,ngram", "--limit", "1", "--max-tokens", "32", "--context-tokens", "512"]
        + ["--format", "markdown"],
    )
    manifest = json.loads((folder / "manifest.json").read_text())
    data = json.loads((folder / "gate.json").read_text())
    assert manifest["kind"] == "gate" and [c["name"] for c in manifest["configs"]] == ["base", "ngram"]
    assert manifest["gates_total"] == 13  # 6 gates x 2 configs + the base-vs-ngram comparison
    assert r.returncode == (0 if manifest["passed"] else 1)
    # every probe got an answer from the server (no transport error), 7 probes per config
    assert len(data["results"]) == 14
    assert all(x["output"]["error"] is None for x in data["results"]), [x["output"]["error"] for x in data["results"]]
    assert all(x["output"]["output_tokens"] is not None and x["output"]["output_tokens"] <= 32 for x in data["results"])
    (cmp,) = data["comparisons"]
    assert cmp["base_config"] == "base" and cmp["spec_config"] == "ngram" and cmp["unit"] == "tokens"
    lc = [x for x in data["results"] if x["gate"] == "long_context"]
    assert all(450 <= x["output"]["prompt_tokens"] <= 800 for x in lc)  # 512-token filler + needle + question
    # the report says plainly what happened, whatever the tiny model managed
    first = r.stdout.splitlines()[2]
    if manifest["passed"]:
        assert first.startswith("**PASSED")
    else:
        assert first.startswith("**FAILED:") and "Do not trust this deployment's speed numbers" in first
        if any(not v["passed"] for v in data["verdicts"] if v["config"] == "base"):
            assert "on the baseline 'base': that is the model's own capability" in first


def test_embedded_run_folder_first_notes_and_the_limit_that_cut(tmp_path):
    """`--gate long_context --limit 1 --max-tokens 16` on one config: the run folder and the budget notes come
    before the first probe, the probe line is printed whole, and a cut answer names max_tokens as the cause."""
    pytest.importorskip("xllamacpp")
    r, folder = _gate(
        tmp_path,
        ["--configs", "base", "--gate", "long_context", "--limit", "1"]
        + ["--max-tokens", "16", "--context-tokens", "512"],
    )
    lines = r.stderr.splitlines()
    assert lines[0] == f"run folder: {folder} (written after every probe)"
    assert lines[1:3] == [
        "note: --max-tokens 16: every gate's max_tokens is at most 16 tokens",
        "note: --limit 1: at most 1 probe(s) per gate",
    ]
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["complete"] is True and manifest["notes"] == [x[len("note: ") :] for x in lines[1:3]]
    (res,) = json.loads((folder / "gate.json").read_text())["results"]
    assert res["request"]["max_tokens"] == 16
    mark = "pass" if res["check"]["passed"] else "FAIL"
    assert f"base long_context longctx-vault-code       {mark} {res['check']['why']}" in r.stderr
    if res["output"]["finish_reason"] == "length" and not res["check"]["passed"]:
        assert res["output"]["output_tokens"] == 16
        assert res["check"]["why"].endswith("(output cut by max_tokens (16 tokens))")
