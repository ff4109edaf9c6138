"""A cell without a positive output rate (judge2 probe finding 2): the quick run's k sweep once built draft-k6 cells
whose streams ended before they started, summarized as ``ok`` with no tok/s, so the k table said "— 0 rounds" while
the report said "Every cell was ok". Such a cell (a hand-edited or damaged run) is not ok: it is absent with a named
reason, and the k table and the not-ok table agree."""

from __future__ import annotations

import json
import subprocess
import sys

from quickrun import NS, _streams, make_quick_run
from specscope.records import CellKey, CellResult, ClientFacts
from specscope.stats.cells import summarize_run
from specscope.store import create_run, open_run


def _report(run: str, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "specscope", "report", run, *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=True)


def test_the_k_sweep_fixture_builds_cells_with_a_positive_rate(tmp_path):
    run = open_run(make_quick_run(tmp_path / "k", k_sweep=True))
    cells = summarize_run(run)
    assert all(c.status == "ok" and c.output_tok_s is not None and c.output_tok_s > 0 for c in cells)


def test_a_cell_whose_streams_end_before_they_start_is_not_ok_and_named(tmp_path):
    run = create_run(tmp_path / "r", {"kind": "bench", "baseline": "base"})
    t = 0
    for rep in range(2):
        for cfg, tok_s in (("base", 30.0), ("mtp-k2", 36.0), ("mtp-k4", -5.0 if rep == 0 else 38.0)):
            streams = _streams("prose", 1, t, tok_s, 1.0)
            end = max(s.end_ns for s in streams)
            run.save_cell(CellResult(CellKey(cfg, "prose", 1, rep), streams, t, max(end, t + NS), None, None))
            t = max(end, t) + 5 * NS
    run.close()
    doc = json.loads(_report(str(tmp_path / "r"), "-f", "json").stdout)
    (bad,) = [c for c in doc["cells"] if c["config"] == "mtp-k4" and c["repeat"] == 0]
    assert bad["status"] == "failed" and bad["output_tok_s"] is None
    assert any(r.startswith("NO_RATE(") for r in bad["reasons"])
    text = _report(str(tmp_path / "r"), "--width", "300").stdout
    assert "Every cell was ok" not in text and "Cells not ok (1 of 6)" in text
    assert "NO_RATE(" in text
    # the k table agrees: k=4 rests on the one round whose cell is ok, the other is the not-ok table's
    (k4,) = [c for c in doc["comparisons"] if c["config"] == "mtp-k4"]
    assert k4["rounds"] == 1
    (row,) = [ln for ln in text.splitlines() if "│    mtp │" in ln and "│          4 │" in ln]
    assert row.rstrip(" │").split("│")[-2].strip() == "1"


def test_an_imported_cell_with_a_damaged_duration_is_not_ok():
    from specscope.stats.imported import IMPORTED_KEY, summarize_imported

    facts = {"tool": "vllm-bench", "completed": 10, "failed": 0, "output_tokens": 1000}
    for duration in (-5.0, 0.0):
        cell = CellResult(
            CellKey("mtp", "chat", 1, 0),
            (),
            0,
            NS,
            None,
            None,
            client=ClientFacts.from_dict({IMPORTED_KEY: facts | {"duration_s": duration}}),
        )
        s = summarize_imported(cell)
        assert s.status == "failed" and s.output_tok_s is None
        why = ": the tool's recorded duration is not positive"
        assert f"NO_RATE(output_tokens=1000, duration_s={duration:.3g}{why})" in s.reasons
    # a duration the tool's file does not hold is named by NOT_RECORDED, as before: not a damaged figure
    cell = CellResult(
        CellKey("mtp", "chat", 1, 0), (), 0, NS, None, None, client=ClientFacts.from_dict({IMPORTED_KEY: facts})
    )
    assert not any(r.startswith("NO_RATE") for r in summarize_imported(cell).reasons)
