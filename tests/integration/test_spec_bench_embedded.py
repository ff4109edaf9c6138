"""``bench --dataset spec-bench --dataset-path DIR`` on the embedded engine (issue 28): one workload per Spec-Bench
task, the MT-Bench rows as two-turn conversations, acceptance per category and per turn index in the report, and a
row longer than the model's context refused by id (here dropped with --drop-bad-rows and reported). Kept small:
three tasks, one row each plus the long one, 12 tokens, one level, one repeat."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dataset_files import write_spec_bench_jsonl

pytestmark = pytest.mark.integration

ROWS = [
    {"question_id": 81, "category": "writing", "turns": ["Write one line about rain.", "Now one about snow."]},
    {"question_id": 161, "category": "translation", "turns": ["Translate to English: bonjour le monde"]},
    {"question_id": 241, "category": "qa", "turns": ["Who wrote Hamlet?"]},
    # ~6,000 tokens: above the embedded engine's 4,096-token slot context
    {"question_id": 242, "category": "qa", "turns": ["Summarize: " + "the river runs past the mill. " * 1000]},
]


def _bench_not_client_limited(
    args: list[str], tmp_path: Path, judged: set[str], attempts: int = 3
) -> dict[str, object]:
    """The JSON report of ``specscope ARGS --out``, benched again (up to ``attempts`` times, each in its own folder)
    while a cell of a config in ``judged`` (the configs whose tables the test reads) was flagged by the client's own
    self-check (``CLIENT_LIMITED``: a loaded machine delayed the client, and the cell is rightly left out of the
    statistics this test checks). A flagged cell of another config changes nothing the test reads: a fresh clone's
    make test at load 7 (2026-12-06) flagged a base cell in each of 3 benches. Any other reason is the test's to
    judge."""
    seen: list[object] = []
    for attempt in range(attempts):
        out = ["--out", str(tmp_path / f"runs{attempt}")]
        res = subprocess.run(
            [sys.executable, "-m", "specscope", *args, *out], capture_output=True, text=True, timeout=900
        )
        assert res.returncode == 0, res.stderr[-2000:]
        doc: dict[str, object] = json.loads(res.stdout)
        cells = doc["cells"]
        assert isinstance(cells, list)
        limited = [
            (c["config"], c["workload"], c.get("reasons"))
            for c in cells
            if c["config"] in judged and any(str(r).startswith("CLIENT_LIMITED") for r in c.get("reasons") or ())
        ]
        if not limited:
            return doc
        seen.append(limited)
    pytest.fail(f"every one of {attempts} benches had a CLIENT_LIMITED cell (a loaded machine): {seen}")


# timing (issue 37): every table read is built from the self-draft cells the client's self-check did not flag, and a
# starved client flags them: at load 7 a cell was flagged in each of 3 benches (2026-12-06), three `make test` runs
# at once load the 2-core machine to 10-13.
@pytest.mark.timing
def test_spec_bench_on_the_embedded_engine(tmp_path: Path) -> None:
    pytest.importorskip("xllamacpp")
    (tmp_path / "data").mkdir()
    write_spec_bench_jsonl(tmp_path / "data" / "question.jsonl", ROWS)
    args = ["bench", "--configs", "base,self-draft", "--no-aa", "--dataset", "spec-bench"]
    args += ["--dataset-path", str(tmp_path / "data"), "--drop-bad-rows", "--max-concurrency", "1", "--repeats", "1"]
    args += ["--max-tokens", "12", "-f", "json"]
    doc = _bench_not_client_limited(args, tmp_path, judged={"self-draft"})  # every table read below is self-draft's
    workloads = sorted({c["workload"] for c in doc["cells"]})
    assert workloads == ["spec-bench.mt_bench", "spec-bench.qa", "spec-bench.translation"]
    (section,) = doc["sections"]
    tables = {t["key"]: t for t in section["tables"]}
    by_cat = {(r[0], r[2]): r for r in tables["acceptance_by_category"]["rows"]}
    statuses = [(c["config"], c["workload"], c["status"], c.get("reasons")) for c in doc["cells"]]
    assert {k[1] for k in by_cat if k[0] == "self-draft"} == {"mt_bench", "qa", "translation"}, statuses
    assert all(by_cat[("self-draft", c)][3].endswith("%") for c in ("mt_bench", "qa", "translation"))
    turns = [r for r in tables["acceptance_by_turn"]["rows"] if r[0] == "self-draft"]
    assert [(r[1], r[2], r[3]) for r in turns] == [("spec-bench.mt_bench", "1", "1"), ("spec-bench.mt_bench", "2", "1")]
    assert all(r[6].endswith("%") for r in turns)  # llama.cpp's per-response draft_n / draft_n_accepted
    assert int(turns[1][5].replace(",", "")) > int(turns[0][5].replace(",", ""))  # turn 2 carries turn 1's answer
    (src,) = tables["workload_sources"]["rows"]
    assert src[4:7] == ["4", "3", "1 too_long"]
    assert src[7].startswith("every row checked against the server's context of 4096 tokens")
    (refused,) = tables["rows_refused"]["rows"]
    assert refused[1:3] == ["242", "too_long"]
