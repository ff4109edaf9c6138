"""Every ``specscope ...`` example of README.md and docs/ is run, not only parsed: against a run of the shape
``make bench`` makes (tests/quickrun.py; a k sweep for the examples that need one), the cases' checkpoints, the
counter and log fixtures. An example that would start servers or a matrix runs as far as it can without them:
``bench`` with ``--print-run-file`` (every option read and checked by the spec, nothing started). Exit 0 or 1 (a
command that ran and found a problem) passes; 2 or 3 fails, with the error line."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from fixcommands import ROOT, doc_lines, extract
from paths import CASES, DATA, FIXTURES
from quickrun import make_quick_run
from specscope.cli import main

#: placeholders this test fills (see _argv)
_FILLED = {"RUN", "RUN...", "[RUN]", "NEW_FOLDER", "MODEL", "TARGET", "FOLDER", "FILE", "RECIPE", "KEY"}
#: examples that start a server or block until Ctrl-C: parsed by test_fix_commands, not run here
NOT_RUN = ("truth-server", "gate")


def _examples() -> list[tuple[str, str]]:
    """``(command line, where)`` of the examples: fenced code lines and inline code spans that start a command."""
    out, fenced = [], False
    for line, where in doc_lines():
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        spans = [line] if fenced else re.findall(r"`(specscope [^`]+)`", line)
        for span in spans:
            out += [(s.line, where) for s in extract(span, where)]
    return out


EXAMPLES = _examples()


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("doc-examples")
    return {
        "run": make_quick_run(root / "quick"),
        "k": make_quick_run(root / "ksweep", k_sweep=True),
        "root": root,
    }


def _runs_here(words: list[str]) -> bool:
    """False for an example that starts a server or the gates, or holds a placeholder only the user can fill
    (``BF16_ORIGINAL``): those are parsed by test_fix_commands, not run."""
    if any(w.split(".")[0].isupper() and w not in _FILLED and len(w) > 2 for w in words):
        return False
    return words[0] not in NOT_RUN and (words[0] != "serve" or bool({"--print", "--list", "--parse-log"} & set(words)))


def _argv(line: str, fx: dict[str, Path], tmp: Path) -> list[str] | None:
    """The example's words with its placeholders filled; None when it cannot run here."""
    words = shlex.split(line)
    if not _runs_here(words):
        return None
    run = fx["k"] if "--holdout" in words or "--k" in words else fx["run"]
    if "--resume" in words:  # resume a copy: a finished run measures nothing more, prints its report
        run = Path(shutil.copytree(run, tmp / "resumed"))
    fill = {
        "RUN": run,
        "RUN...": run,
        "[RUN]": run,
        "NEW_FOLDER": tmp / "new-folder",
        "MODEL": CASES / "C06" / "checkpoint",
        "TARGET": CASES / "C06" / "checkpoint",
        "FOLDER": CASES / "C06" / "checkpoint",
        "BEFORE.prom": DATA / "counters" / "llamacpp_after.prom",
        "AFTER.prom": DATA / "counters" / "llamacpp_after.prom",
        "FILE": FIXTURES / "vllm_startup_qwen3_6_27b_nvfp4_mtp_v0.20.0.log",
        "RECIPE": "cpu-base",
        "card.toml": tmp / "card.toml",
    }
    out = [str(fill.get(w, run if re.fullmatch(r"runs/run-\d{8}-\d{6}", w) else w)) for w in words]
    out = [str(ROOT / w) if w.startswith("tests/data/") else w for w in out]  # the repository's own fixtures
    if out[0] == "counters":
        out[1] = str(DATA / "counters" / "vllm_dp2_before.prom")
        out[2] = str(DATA / "counters" / "vllm_dp2_after_engine1_restarted.prom")
    if out[0] == "bench" and "--resume" not in words:
        if "--run-file" in words:
            (tmp / "card.toml").write_text('profile = "card"\n')
        out += ["--print-run-file"]
    if out[0] == "bench":
        out += ["--out", str(tmp / "runs")]
    return out


def test_the_examples_are_found(capsys) -> None:
    with capsys.disabled():
        runnable = sum(1 for line, _ in EXAMPLES if _runs_here(shlex.split(line)))
        print(f"\ndoc examples: {len(EXAMPLES)} found, {runnable} run by this test")
    assert len(EXAMPLES) >= 25


@pytest.mark.parametrize(("line", "where"), EXAMPLES, ids=[f"{w}: {line[:60]}" for line, w in EXAMPLES])
def test_every_doc_example_runs(line: str, where: str, fixtures, tmp_path, capsys, monkeypatch) -> None:
    argv = _argv(line, fixtures, tmp_path)
    if argv is None:
        pytest.skip("starts a server or gates, or needs a value only the user has: parsed by test_fix_commands")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as ran:
        main(argv)
    err = capsys.readouterr().err
    errors = [e for e in err.splitlines() if e.startswith(("error:", "warning:"))]
    assert ran.value.code in (0, 1, None) and not errors, (where, argv, err[-2000:])


def test_the_truth_script_example_serves_what_it_says(tmp_path) -> None:
    """docs/truth-script.md's example: its JSON script saved as truth.json and its ``specscope truth-server`` line
    run as written (in a process of its own: it serves until stopped), then one streamed chat request answered as
    the script says (mend 63 item 5)."""
    import json
    import os
    import subprocess
    import sys
    import time

    import httpx

    from hangguard import HANG_S

    page = (ROOT / "docs" / "truth-script.md").read_text("utf-8")
    script = re.search(r"```json\n(.*?)```", page, re.S)
    line = re.search(r"^specscope (truth-server .*)$", page, re.M)
    assert script and line, "docs/truth-script.md has no example script and command"
    (tmp_path / "truth.json").write_text(script[1], "utf-8")
    plan = json.loads(script[1])["default"]
    import specscope

    argv = [sys.executable, "-m", "specscope", *shlex.split(line[1])]
    env = {**os.environ, "PYTHONPATH": str(Path(specscope.__file__).parents[1])}  # this checkout's, from any folder
    p = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url_file, deadline = tmp_path / "url.json", time.monotonic() + HANG_S
        while not url_file.exists() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert url_file.exists(), p.communicate()[1] if p.poll() is not None else "no url.json"
        base = json.loads(url_file.read_text())["base_url"]
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True,
                "stream_options": {"include_usage": True}}  # fmt: skip
        with httpx.Client(timeout=HANG_S) as client:
            events = [
                json.loads(ln[6:])
                for ln in client.post(f"{base}/v1/chat/completions", json=body).text.splitlines()
                if ln.startswith("data: {")
            ]
            metrics = client.get(f"{base}/metrics").text
    finally:
        p.terminate()
        p.communicate(timeout=HANG_S)
    tokens = [e for e in events if e["choices"] and e["choices"][0]["delta"].get("content")]
    assert len(tokens) == plan["output_tokens"] // plan["tokens_per_chunk"]
    assert events[-1]["usage"]["completion_tokens"] == plan["output_tokens"]
    drafted = [
        ln.rpartition(" ")[2] for ln in metrics.splitlines() if ln.startswith("vllm:spec_decode_num_draft_tokens")
    ]
    assert [float(x) for x in drafted] == [plan["draft_tokens"]], metrics
