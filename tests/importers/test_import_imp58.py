"""imp58: a peer tool's file that does not record how many requests completed imports with that count absent (None,
"—"), never 0 streams and never a failed cell; the cell is judged on the figures it has, the gap named.

Fixtures: tests/data/imports (SOURCES.md); the AIPerf summary is copied with its counts deleted."""

from __future__ import annotations

import json

import pytest

from clirun import cli
from paths import DATA

IMPORTS = DATA / "imports"
NOTE = "NOT_RECORDED(how many requests completed"


def _without(tmp_path, name: str, *keys: str):
    doc = json.loads((IMPORTS / name).read_text())
    for k in keys:
        assert k in doc, k
        del doc[k]
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _import_and_report(tmp_path, capsys, monkeypatch, path, *fmt: str) -> tuple[str, dict]:
    run = tmp_path / "run"
    code, out, err = cli(["import", path, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 0, out + err
    code, out, err = cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    doc = json.loads(out)
    code, text, err = cli(["report", run, *fmt], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    return text, doc


def test_aiperf_summary_without_request_counts_has_no_stream_count_and_is_not_failed(tmp_path, capsys, monkeypatch):
    """AIPerf's profile_export_aiperf.json without ``request_count`` and ``error_request_count``: was streams 0,
    status failed; now streams/streams_ok null, status ok (192 tokens over the recorded duration), the gap named."""
    path = _without(tmp_path, "aiperf_spec_r0.json", "request_count")
    text, doc = _import_and_report(tmp_path, capsys, monkeypatch, path)
    (cell,) = doc["cells"]
    assert cell["streams"] is None and cell["streams_ok"] is None
    assert cell["status"] == "ok", cell["reasons"]
    assert cell["output_tokens"] == 192
    assert any(r.startswith(NOTE) for r in cell["reasons"]), cell["reasons"]


@pytest.mark.parametrize("fmt", [("-f", "markdown"), ("-f", "html"), ("--width", "400")])  # text: one line per row
def test_unrecorded_stream_count_renders_absent_on_every_screen(tmp_path, capsys, monkeypatch, fmt):
    path = _without(tmp_path, "aiperf_spec_r0.json", "request_count")
    text, _ = _import_and_report(tmp_path, capsys, monkeypatch, path, *fmt)
    assert "how many requests completed" in text, text


def test_guidellm_without_a_successful_total_has_no_stream_count_and_is_not_failed(tmp_path, capsys, monkeypatch):
    """GuideLLM 0.8 report whose ``metrics.request_totals`` lacks ``successful``: streams absent, not failed."""
    doc = json.loads((IMPORTS / "guidellm_spec_r0.json").read_text())
    del doc["benchmarks"][0]["metrics"]["request_totals"]["successful"]
    path = tmp_path / "guidellm.json"
    path.write_text(json.dumps(doc))
    _, doc = _import_and_report(tmp_path, capsys, monkeypatch, path)
    (cell,) = doc["cells"]
    assert cell["streams"] is None and cell["streams_ok"] is None, cell
    assert cell["status"] != "failed", cell["reasons"]
    assert any(r.startswith(NOTE) for r in cell["reasons"]), cell["reasons"]


@pytest.mark.parametrize(("name", "key"), [("vllm_mtp_r0.json", "completed")])
def test_vllm_bench_without_completed_is_refused_by_name_not_imported_as_zero(tmp_path, capsys, monkeypatch, name, key):
    """vLLM ``bench serve`` always writes ``completed`` (``vllm/benchmarks/serve.py``): a file without it is not a
    result file of that shape, refused by name (exit 2), never a cell of 0 streams. (SGLang's ``completed`` is
    required the same way.)"""
    path = _without(tmp_path, name, key)
    code, out, err = cli(["import", path, "--config", "base", "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "lacks: completed" in err, out + err
