"""Issues 36/38 (imp55): peer tools' files imported and judged the same way.

Fixtures: tests/data/imports (SOURCES.md); each file is built inside its test from one with the field under test
changed."""

from __future__ import annotations

import json
from pathlib import Path

from clirun import cli
from paths import DATA

IMPORTS = DATA / "imports"


def test_separate_vllm_files_of_both_loop_kinds_are_refused_naming_both_and_the_fix(tmp_path, capsys, monkeypatch):
    """``vllm bench serve`` at ``--request-rate inf --max-concurrency 2`` (closed loop, vllm_base_r1.json) and at
    2 req/s, named together: a run has one level axis (concurrency or request rate), so they cannot be cells of one
    run. The refusal named only the second file ("record 1 cannot join this run"), not the file it clashed with nor
    how to import both: now both files and one --out per kind."""
    doc = json.loads((IMPORTS / "vllm_base_r0.json").read_text())
    rate = tmp_path / "rate.json"
    rate.write_text(json.dumps({**doc, "request_rate": 2.0}))
    closed = IMPORTS / "vllm_base_r1.json"
    run = tmp_path / "run"
    code, _, err = cli(["import", closed, rate, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)
    err = " ".join(err.split())
    assert code == 2, err
    assert (
        f"{rate} record 1 (an open loop: 2 req/s poisson (max 2 in flight)) and {closed} record 1 (a closed loop: "
        "N=2) cannot be cells of one run" in err
    ), err
    assert (
        f"fix: import each loop kind into its own run: {closed} with --out {run}-closed, {rate} with --out "
        f"{run}-rate; nothing was written" in err
    ), err
    assert not run.exists()

