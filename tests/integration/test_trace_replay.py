"""``bench --trace``: a request trace replayed open loop on its own clock against the truth server (issue 28).

The scheduled instants are checked exactly (each request's ``intended_ns`` is the trace's offset x scale after the
first), the requests carry the trace's output lengths, the report gives goodput and the send error against the
trace; the wall-clock bound (send error p99 <= 2 ms over 200 requests) is a ``timing`` test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dataset_files import write_jsonl
from hangguard import HANG_S
from specscope.store import open_run
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration


def _trace(path: Path, n: int, gap_ms: int) -> Path:
    """Mooncake layout: a request every ``gap_ms`` (every 7th one 3 ms later), 3-5 output tokens."""
    rows = [
        {"timestamp": i * gap_ms + (3 if i % 7 == 0 else 0), "input_length": 40 + i, "output_length": 3 + i % 3}
        for i in range(n)
    ]
    return write_jsonl(path, rows)


def _bench(trace: Path, url: str, out: Path, *extra: str) -> dict:
    args = ["bench", "--server", f"base={url}", "--trace", str(trace), "--repeats", "1", "--slo", "ttft=10s"]
    args += ["-f", "json", "--out", str(out), *extra]
    res = subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout)


def _tables(doc: dict) -> dict[str, dict]:
    (section,) = doc["sections"]
    return {t["key"]: t for t in section["tables"]}


def test_trace_is_replayed_on_its_own_clock_with_its_lengths(tmp_path: Path) -> None:
    trace = _trace(tmp_path / "trace.jsonl", n=20, gap_ms=30)
    script = TruthScript(default=ResponsePlan(output_tokens=None, ttft_ms=2.0), metrics=MetricsPlan())
    with TruthServer(script) as ts:
        doc = _bench(trace, ts.base_url, tmp_path / "runs", "--trace-scale", "0.5")
        served = [r for r in ts.served() if not str(r["prompt"]).startswith("Warm-up")]
    run_dir = Path(doc["runs"][0]["path"]) if "runs" in doc else next((tmp_path / "runs").iterdir())
    with open_run(run_dir) as run:
        (cell,) = run.cells()
        manifest = run.manifest
    # offsets from the earliest arrival (row 0, at 3 ms), times the scale 0.5
    offsets_ns = [(i * 30 + (3 if i % 7 == 0 else 0) - 3) * 1_000_000 // 2 for i in range(20)]
    first = cell.streams[0].intended_ns
    assert [s.intended_ns - first for s in cell.streams] == offsets_ns
    assert [s.output_tokens for s in cell.streams] == [3 + i % 3 for i in range(20)]
    assert sorted(r["output_tokens"] for r in served) == sorted(3 + i % 3 for i in range(20))
    assert manifest["trace"]["format"] == "mooncake" and manifest["trace"]["time_scale"] == 0.5
    assert manifest["trace"]["units"].startswith("words")  # the truth server has no tokenizer endpoint
    tables = _tables(doc)
    (row,) = tables["trace_replay"]["rows"]
    assert row[:6] == ["base", "0", "20", "20", "0.5", f"{0.2835:.3f} s"]  # span: (19 x 30 - 3) ms x 0.5
    (rate,) = tables["open_loop"]["rows"]
    met, goodput, achieved = rate[-2], rate[-1], rate[4]
    assert met == "20" and goodput == achieved  # every request within TTFT 10 s: goodput = achieved rate


@pytest.mark.timing
def test_two_hundred_requests_replayed_within_2ms_of_the_trace(tmp_path: Path) -> None:
    trace = _trace(tmp_path / "trace.jsonl", n=200, gap_ms=20)
    script = TruthScript(default=ResponsePlan(output_tokens=None, ttft_ms=1.0), metrics=MetricsPlan())
    with TruthServer(script) as ts:
        doc = _bench(trace, ts.base_url, tmp_path / "runs")
    tables = _tables(doc)
    (row,) = tables["trace_replay"]["values"]
    requests, ok, p99_ms = row[2], row[3], row[8]
    assert (requests, ok) == (200, 200)
    assert p99_ms <= 2.0, f"send error p99 {p99_ms:.3f} ms against the trace"
    (rate,) = tables["open_loop"]["values"]
    assert rate[-2] == 200 and rate[-1] is not None and rate[-1] > 0  # goodput reported


def test_burstgpt_csv_replays_its_good_rows_and_reports_the_failed_one(tmp_path: Path) -> None:
    # HPMLL/BurstGPT README @e92f533: Timestamp in s; Response tokens 0 marks a failed request, which is refused by
    # line (not sent, not a file error) and listed in the report's "Rows refused"
    trace = tmp_path / "BurstGPT_1.csv"
    trace.write_text(
        "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
        "5,ChatGPT,40,3,43,Conversation log\n"
        "5.02,ChatGPT,50,0,50,Conversation log\n"
        "5.04,GPT-4,60,4,64,API log\n"
    )
    script = TruthScript(default=ResponsePlan(output_tokens=None, ttft_ms=1.0), metrics=MetricsPlan())
    with TruthServer(script) as ts:
        doc = _bench(trace, ts.base_url, tmp_path / "runs")
    run_dir = next((tmp_path / "runs").iterdir())
    with open_run(run_dir) as run:
        (cell,) = run.cells()
        manifest = run.manifest
    first = cell.streams[0].intended_ns
    assert [(s.intended_ns - first, s.output_tokens) for s in cell.streams] == [(0, 3), (40_000_000, 4)]
    assert manifest["trace"]["format"] == "burstgpt" and manifest["trace"]["rows_used"] == 2
    (refused,) = _tables(doc)["rows_refused"]["rows"]
    assert refused == ["trace", "line 3", "zero_output", "Response tokens is 0"]


@pytest.mark.parametrize(
    ("name", "text", "fmt"),
    [
        # docs/workloads.md "Traces": specscope's own layout, arrival_s in seconds
        (
            "own.jsonl",
            '{"arrival_s": 0, "input_tokens": 40, "output_tokens": 3}\n'
            '{"arrival_s": 0.04, "input_tokens": 50, "output_tokens": 4}\n',
            "specscope",
        ),
        # Azure/AzurePublicDataset AzureLLMInferenceTrace_conv.csv (2023): 7-digit fractions of a second
        (
            "AzureLLMInferenceTrace_conv.csv",
            "TIMESTAMP,ContextTokens,GeneratedTokens\n"
            "2023-11-16 18:15:46.6805900,40,3\n"
            "2023-11-16 18:15:46.7205900,50,4\n",
            "azure",
        ),
        # the 2024 _1week files: a UTC offset, and no fraction on a whole second
        (
            "AzureLLMInferenceTrace_code_1week.csv",
            "TIMESTAMP,ContextTokens,GeneratedTokens\n"
            "2024-05-10 00:00:00+00:00,40,3\n"
            "2024-05-10 00:00:00.040000+00:00,50,4\n",
            "azure",
        ),
    ],
    ids=["specscope", "azure-2023", "azure-2024"],
)
def test_each_trace_layout_of_the_table_is_replayed(tmp_path: Path, name: str, text: str, fmt: str) -> None:
    """Each layout docs/workloads.md's Traces table lists, through ``bench --trace``: both rows sent 40 ms apart with
    their output lengths, the format named in the manifest."""
    trace = tmp_path / name
    trace.write_text(text)
    script = TruthScript(default=ResponsePlan(output_tokens=None, ttft_ms=1.0), metrics=MetricsPlan())
    with TruthServer(script) as ts:
        _bench(trace, ts.base_url, tmp_path / "runs")
    run_dir = next((tmp_path / "runs").iterdir())
    with open_run(run_dir) as run:
        (cell,) = run.cells()
        manifest = run.manifest
    first = cell.streams[0].intended_ns
    assert [(s.intended_ns - first, s.output_tokens) for s in cell.streams] == [(0, 3), (40_000_000, 4)]
    assert manifest["trace"]["format"] == fmt and manifest["trace"]["rows_used"] == 2
