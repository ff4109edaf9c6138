"""What is not a workload is refused by ``specscope bench`` in one line (found / expected / fix), exit 2, before
anything is sent (the truth server's log stays empty and no run folder is made); with ``--drop-bad-rows`` the run
goes on and the report names the rows refused and where the prompts came from (issue 28)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dataset_files import (
    placeholder_row,
    qid,
    speed_row,
    write_speed_parquet,
    write_speed_throughput_parquet,
)
from hangguard import HANG_S
from sent_rows import assert_rows_sent, only_run
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration


def _bench(url: str, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "specscope", "bench", "--server", f"mtp={url}", "--out", str(out), *args]
    load = [] if "--request-rate" in args else ["--max-concurrency", "1"]  # one load shape: the two exclude each other
    cmd += [*load, "--repeats", "1", "--max-tokens", "4"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=HANG_S)


def _refused(res: subprocess.CompletedProcess[str], out: Path) -> str:
    assert res.returncode == 2, res.stderr[-2000:]
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("error: ") and "found: " in line and "expected: " in line and "fix: " in line
    assert not out.exists() or not any(out.iterdir())  # no run folder
    return line


def test_refusals_are_one_line_exit_2_and_send_nothing(tmp_path: Path) -> None:
    bad = write_speed_parquet(tmp_path / "bad.parquet", [speed_row("coding", 0), placeholder_row()])
    no_cat = write_speed_parquet(tmp_path / "nocat.parquet", [speed_row("coding", 0)], drop=("category",))
    tp = write_speed_throughput_parquet(tmp_path / "tp.parquet")
    out = tmp_path / "runs"
    with TruthServer(TruthScript(metrics=MetricsPlan())) as ts:
        line = _refused(_bench(ts.base_url, out, "--dataset", "speed-bench", "--dataset-path", str(bad)), out)
        assert f"row {qid('summarization-7')} is not a workload" in line
        line = _refused(_bench(ts.base_url, out, "--dataset", "speed-bench", "--dataset-path", str(no_cat)), out)
        assert "column 'category' is missing" in line and "found: columns difficulty, multiturn, question_id" in line
        line = _refused(
            _bench(ts.base_url, out, "--dataset", "speed-bench:qualitative", "--dataset-path", str(tp)), out
        )
        assert "a throughput split given as qualitative" in line
        args = ["--dataset", "speed-bench:throughput_1k", "--dataset-path", str(tp), "--context-tokens", "2k"]
        line = _refused(_bench(ts.base_url, out, *args), out)
        assert (
            "tiers do not match the requested context axis" in line and "found: tiers 1k, --context-tokens 2k" in line
        )
        conv = tmp_path / "conv.parquet"
        write_speed_parquet(conv, [speed_row("coding", 0, ["Write a loop.", "Now unroll it."])])
        args = ["--dataset", "speed-bench", "--dataset-path", str(conv), "--request-rate", "1"]
        line = _refused(_bench(ts.base_url, out, *args), out)
        assert "open-loop rates cannot send conversations" in line
        assert ts.served() == []  # nothing was sent, not even a warm-up


def test_drop_bad_rows_runs_without_them_and_reports_them(tmp_path: Path) -> None:
    rows = [speed_row("coding", 0), speed_row("coding", 1), placeholder_row()]
    write_speed_parquet(tmp_path / "qualitative" / "test-00000-of-00001.parquet", rows)
    plan = ResponsePlan(output_tokens=4)
    with TruthServer(TruthScript(default=plan, metrics=MetricsPlan())) as ts:
        args = ["--dataset", "speed-bench@487aa718", "--dataset-path", str(tmp_path), "--drop-bad-rows", "-f", "json"]
        res = _bench(ts.base_url, tmp_path / "runs", *args)
        log = ts.served()
        served = [r for r in log if not str(r["prompt"]).startswith("Warm-up")]
        prompts = {str(r["prompt"]) for r in log}
    assert res.returncode == 0, res.stderr[-2000:]
    assert not any("FULL BENCHMARK DATA" in p for p in prompts)  # the placeholder was never sent
    doc = json.loads(res.stdout)
    (section,) = doc["sections"]
    tables = {t["key"]: t for t in section["tables"]}
    (src,) = tables["workload_sources"]["rows"]
    assert src[:3] == ["speed-bench", "qualitative", "487aa718"]
    assert src[3].startswith("test-00000-of-00001.parquet sha256:") and src[4:7] == ["3", "2", "1 placeholder"]
    assert src[8] == "2" == str(len(served))  # sent per repeat (1 repeat) = what the server received
    cells_sent = sorted(row for c in doc["cells"] for row in c["client"]["rows_sent"])
    assert cells_sent == sorted([qid("coding-0"), qid("coding-1")])
    texts = {qid(f"coding-{i}"): f"coding question {i}: explain step {i} briefly." for i in (0, 1)}
    assert assert_rows_sent(only_run(tmp_path / "runs"), log, texts) == {"mtp/speed-bench.coding/c1/r0": 2}
    note = tables["workload_sources"]["note"]  # coding and the placeholder row's summarization were read
    assert "speed-bench:qualitative@487aa718 holds 2 of its 11 categories; missing: humanities, math, " in note
    (refused,) = tables["rows_refused"]["rows"]
    assert refused[:3] == ["speed-bench:qualitative@487aa718", qid("summarization-7"), "placeholder"]
    assert "abisee/cnn_dailymail" in refused[3]
