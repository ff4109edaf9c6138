"""A llama-server specscope did not start states its draft length k on ``GET /slots`` (``params["speculative.n_max"]``
per slot, tools/server/server.cpp b9251): `bench --server` asks the adapters' facts endpoints at its server check and
stores the answer, and `report` shows k from it (issue 34: the /slots reader was reached by no command)."""

from __future__ import annotations

import json

import pytest

from clirun import cli
from specscope.store import open_run
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

PLAN = ResponsePlan(
    output_tokens=8,
    tokens_per_chunk=4,
    finish_reason="length",
    drafts=2,
    draft_tokens=6,
    accepted_per_position=[2, 1, 0],
)


def test_bench_stores_the_slots_k_and_report_shows_it(tmp_path, capsys, monkeypatch) -> None:
    script = TruthScript(default=PLAN, metrics=MetricsPlan(style="llamacpp", slots_n_max=3), max_running=2)
    with TruthServer(script) as ts:
        argv = ["bench", "--server", f"lcpp={ts.base_url}", "--workloads", "edit", "--levels", "1", "--repeats", "1"]
        argv += ["--max-tokens", "8", "--no-aa", "--out", tmp_path / "runs"]
        code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err
    (run_dir,) = (tmp_path / "runs").iterdir()
    with open_run(run_dir) as run:
        slots = run.server_facts.of("lcpp").stored["endpoints"]["/slots"]
    assert slots == {"slots": 2, "speculative": [True, True], "n_max": [3, 3], "types": [None, None], "reasons": []}
    code, out, err = cli(["report", run_dir, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    tables = [t for s in json.loads(out)["sections"] for t in s["tables"] if t["key"] == "server_facts"]
    (row,) = tables[0]["rows"]
    assert row[0] == "lcpp" and row[4] == "3"
