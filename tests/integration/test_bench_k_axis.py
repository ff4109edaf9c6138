"""Issue 16's k sweep on the real embedded engine: base and draft at k = 1, 2, 4 make four configs."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

pytest.importorskip("xllamacpp")

from specscope.cli import app  # noqa: E402
from specscope.report.build import load_run_report  # noqa: E402
from specscope.stats.cells import summarize_run  # noqa: E402
from specscope.store import open_run  # noqa: E402

pytestmark = pytest.mark.integration


@pytest.mark.slow  # ~5 min of embedded-engine cells (CI 2026-12-05: 317 s): `pytest -m slow tests/integration`
def test_bench_k_1_2_4_runs_four_configs_and_prints_speedup_by_k(tmp_path):
    args = ["bench", "--configs", "base,draft", "--k", "1,2,4", "--workloads", "edit", "--max-concurrency", "1"]
    args += ["--repeats", "2", "--max-tokens", "24", "--out", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    (run_dir,) = [p for p in tmp_path.iterdir() if (p / "manifest.json").is_file()]
    with open_run(run_dir) as run:
        cells = summarize_run(run)
        facts = {c: dict(f.stored) for c, f in run.server_facts.items()}  # as stored
    assert sorted({c.config for c in cells}) == ["base", "draft-k1", "draft-k2", "draft-k4"]
    assert len(cells) == 4 * 2
    for k in (1, 2, 4):
        assert f"--spec-draft-n-max {k}" in facts[f"draft-k{k}"]["command_line"]
        drafted = [c for c in cells if c.config == f"draft-k{k}"]
        # every draft is at most k tokens long: the server really drafted at this length
        assert all(c.counters.draft_tokens <= k * c.counters.drafts for c in drafted)
    assert "Speedup by draft length k" in result.output
    (table,) = [t for t in load_run_report(run_dir).tables if t.key == "speedup-by-k"]
    assert [(row[0].text, row[1].value, row[2].text, row[3].value) for row in table.cells] == [
        ("edit", 1, "draft", 1),
        ("edit", 1, "draft", 2),
        ("edit", 1, "draft", 4),
    ]
