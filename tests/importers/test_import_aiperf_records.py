"""AIPerf's per-request record export ``profile_export.jsonl`` (issue 38): one ``MetricRecordInfo`` per line
(ai-dynamo/aiperf record_models.py @ 96ebaea), imported as one cell: per-request TTFT, latency, tokens and start
instants, so the achieved concurrency is derived here (:func:`specscope.stats.concurrency.in_flight`) like a
measured cell's; the load comes from ``profile_export_aiperf.json`` beside it. It was refused, pointing at the
summary."""

from __future__ import annotations

import json
import math
import shutil

from clirun import cli
from paths import DATA
from report_cli import report_json

FOLDER = DATA / "imports" / "aiperf_records"


def _copy(tmp_path, summary: bool = True):
    d = tmp_path / "artifacts"
    d.mkdir()
    shutil.copy(FOLDER / "profile_export.jsonl", d)
    if summary:
        shutil.copy(FOLDER / "profile_export_aiperf.json", d)
    return d / "profile_export.jsonl"


def _import(path, run, capsys, monkeypatch, tmp_path):
    return cli(["import", path, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)


def test_the_per_request_export_is_one_cell_with_its_own_concurrency(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    code, out, err = _import(FOLDER / "profile_export.jsonl", run, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "base/main/c2/r0" in out and "warning" not in err
    (cell,) = report_json(run)["cells"]
    assert (cell["status"], cell["streams"], cell["streams_ok"], cell["output_tokens"]) == ("ok", 8, 8, 192)
    # two streams of 150 ms requests: 1200 ms in flight over 640 ms (the warm-up request left out)
    assert math.isclose(cell["achieved_concurrency"], 1.875, rel_tol=1e-6)
    assert math.isclose(cell["duration_s"], 0.64, rel_tol=1e-6)
    assert math.isclose(cell["output_tok_s"], 300.0, rel_tol=1e-6)
    assert math.isclose(cell["ttft_p50_s"], 0.0355, rel_tol=1e-9)
    assert any(r.startswith("CONCURRENCY_FROM(") and "start_times" in r for r in cell["reasons"])


def test_a_failed_request_is_counted_and_left_out_of_the_figures(tmp_path, capsys, monkeypatch):
    path = _copy(tmp_path)
    lines = path.read_text().splitlines()
    doc = json.loads(lines[-1])  # the last request of stream B fails
    doc["error"] = {"code": 503, "type": "Service Unavailable", "message": "overloaded"}
    doc["metrics"] = {"error_isl": {"value": 8, "unit": "tokens"}}
    lines[-1] = json.dumps(doc)
    path.write_text("\n".join(lines) + "\n")
    code, _, err = _import(path, tmp_path / "run", capsys, monkeypatch, tmp_path)
    assert code == 0, err
    (cell,) = report_json(tmp_path / "run")["cells"]
    assert (cell["streams"], cell["streams_ok"], cell["output_tokens"]) == (8, 7, 168)
    assert "STREAM_DEGRADED(failed:1)" in cell["reasons"]
    # the 7 successful requests: 1050 ms in flight over 0..630 ms
    assert math.isclose(cell["achieved_concurrency"], 1050 / 630, rel_tol=1e-6)


def test_without_the_summary_beside_it_it_is_refused_naming_it(tmp_path, capsys, monkeypatch):
    path = _copy(tmp_path, summary=False)
    code, _, err = _import(path, tmp_path / "run", capsys, monkeypatch, tmp_path)
    assert code == 2 and "profile_export_aiperf.json" in err and "records no load" in err
    assert not (tmp_path / "run").exists()


def test_a_token_count_of_2_63_is_refused_as_no_count(tmp_path, capsys, monkeypatch):
    """Issue 37: a request's output_sequence_length of 2**63 tokens was read as a count (the per-request reader
    checked only sign and wholeness); now the one import count rule refuses it, naming the field and the value."""
    path = _copy(tmp_path)
    lines = path.read_text().splitlines()
    doc = json.loads(lines[-1])
    tag = next(t for t in doc["metrics"] if t.endswith("sequence_length") and t.startswith("output"))
    doc["metrics"][tag]["value"] = 2**63
    lines[-1] = json.dumps(doc)
    path.write_text("\n".join(lines) + "\n")
    code, _, err = _import(path, tmp_path / "run", capsys, monkeypatch, tmp_path)
    assert code == 2, err
    assert (
        f"metrics.{tag}.value = 9.223372036854776e+18; expected: a whole number of tokens (0 or more, below 2**63)"
        in err
    )
    assert not (tmp_path / "run").exists()
