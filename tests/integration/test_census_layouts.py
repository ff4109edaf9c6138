"""Issue 36 (3, 5): ``bench --workload FILE`` for every census layout sends what the truth server logs as the right
messages and output lengths, row by row: each row's every request (all turns of a conversation, the server's answer
in the history of the next) with its ``max_tokens``, matched to the row id the run records for it; the lines bench
prints at the start name rows sent with ``--max-tokens`` and arrival times not replayed. A layout specscope does not
send as a workload is refused in one line (exit 2) naming its source and the fix, before anything is sent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from census_files import LAYOUT_FILES, VARIANT_FILES, LayoutFile
from hangguard import HANG_S
from specscope.store import open_run
from specscope.truth import ResponsePlan, TruthScript, TruthServer
from specscope.workload.census import CENSUS

pytestmark = pytest.mark.integration

DEFAULT_MAX_TOKENS = 16
WARMUP_MARKS = ("Warm-up request, not measured.", "Warm-up, not measured:")
#: the lines bench prints at the start about a file's rows, besides "every row (N) per cell"
NOTICE_STARTS = ("warning: rows:", "rows: mine: ")


@pytest.fixture(scope="module")
def truth():
    with TruthServer(TruthScript(default=ResponsePlan(output_tokens=2), serve_tokenizer=True)) as ts:
        yield ts


def _bench(truth: TruthServer, tmp_path: Path, made: LayoutFile, *extra: str) -> subprocess.CompletedProcess[str]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / made.name
    path.write_text(made.text, "utf-8")
    cmd = [sys.executable, "-m", "specscope", "bench", "--server", f"mtp={truth.base_url}", "--out",
           str(tmp_path / "runs"), "--workload", f"mine={path}", "--max-concurrency", "1", "--repeats", "1",
           "--max-tokens", str(DEFAULT_MAX_TOKENS), "--seed", "0", *extra]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=HANG_S)


def _rows_sent(runs: Path) -> list[str]:
    """The row ids the run recorded, in send order (its one cell's client facts)."""
    (run_dir,) = [d for d in runs.iterdir() if d.is_dir()]
    with open_run(run_dir) as run:
        (cell,) = run.cells()
        rows: list[str] = list(cell.client.rows_sent or ())
    return rows


def _measured(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in log if not any(str(m.get("content")).startswith(WARMUP_MARKS) for m in r["messages"])]


@pytest.mark.parametrize("key", [lay.key for lay in CENSUS])
def test_census_layout_sent_row_by_row(truth, tmp_path: Path, key: str) -> None:
    _check_sent(truth, tmp_path, LAYOUT_FILES[key]())


@pytest.mark.parametrize("key", list(VARIANT_FILES))
def test_layout_variant_sent_row_by_row(truth, tmp_path: Path, key: str) -> None:
    """A layout in another spelling its tool reads (GuideLLM: ``Prompt``, ``Systems``, ``prompt_1``) is sent as the
    tool sends it; it was refused at line 2, or sent without its output lengths and system prefix."""
    _check_sent(truth, tmp_path, VARIANT_FILES[key]())


def _check_sent(truth: TruthServer, tmp_path: Path, made: LayoutFile) -> None:
    truth.clear_log()
    res = _bench(truth, tmp_path, made)
    log = _measured(truth.served())
    if made.refused is not None:
        assert res.returncode == 2, res.stderr[-2000:]
        (line,) = res.stderr.strip().splitlines()
        assert made.refused in line and line.startswith("error: ")
        assert log == []
        return
    assert res.returncode == 0, res.stderr[-2000:]
    assert made.sent is not None
    printed = [x for x in res.stderr.splitlines() if x.startswith(NOTICE_STARTS) and "every row" not in x]
    assert [x[: len(n)] for x, n in zip(printed, made.notices, strict=False)] == list(made.notices), printed
    assert len(printed) == len(made.notices), printed
    want = {row.row_id: row for row in made.sent}
    order = _rows_sent(tmp_path / "runs")
    assert sorted(order) == sorted(want)  # every row once
    # at concurrency 1 the server receives each row's requests together, in the order the run recorded the rows
    got = [(r["messages"], r["max_tokens"]) for r in log]
    expected = [(m, DEFAULT_MAX_TOKENS if want[i].cap(k) is None else want[i].cap(k))
                for i in order for k, m in enumerate(want[i].requests)]  # fmt: skip
    assert got == expected


def test_sharegpt_items_that_are_no_conversation_with_drop_bad_rows(truth, tmp_path: Path) -> None:
    """The published ShareGPT file holds items with an empty ``conversations`` or no human turn, which vLLM, SGLang and
    AIPerf skip: the file was refused at the first one. Without ``--drop-bad-rows`` it still is (exit 2, naming the
    option); with it the other rows are sent, and the manifest counts the refused ones."""
    import json

    human = lambda text: {"from": "human", "value": text}  # noqa: E731
    rows = [{"id": "a1", "conversations": [human("Kept one?"), {"from": "gpt", "value": "Two words."}]},
            {"id": "a2", "conversations": []},
            {"id": "a3", "conversations": [{"from": "gpt", "value": "an answer alone"}]},
            {"id": "a4", "conversations": [human("Kept four?")]}]  # fmt: skip
    made = LayoutFile("sharegpt.json", json.dumps(rows, indent=1), [])
    truth.clear_log()
    refused = _bench(truth, tmp_path / "plain", made)
    assert refused.returncode == 2 and "--drop-bad-rows" in refused.stderr, refused.stderr[-2000:]
    assert _measured(truth.served()) == []
    res = _bench(truth, tmp_path / "drop", made, "--drop-bad-rows")
    assert res.returncode == 0, res.stderr[-2000:]
    assert "rows: mine: 2 refused by --drop-bad-rows (not workloads): a2: conversations is empty" in res.stderr
    assert sorted(_rows_sent(tmp_path / "drop" / "runs")) == ["a1", "a4"]
    got = [(r["messages"], r["max_tokens"]) for r in _measured(truth.served())]
    assert sorted(m[0]["content"] for m, _ in got) == ["Kept four?", "Kept one?"]
    (run_dir,) = [d for d in (tmp_path / "drop" / "runs").iterdir() if d.is_dir()]
    counts = json.loads((run_dir / "manifest.json").read_text())["packs"]["mine"]
    assert (counts["rows_read"], counts["rows_refused"], counts["rows_sent_per_repeat"]) == (4, 2, 2)
