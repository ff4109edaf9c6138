"""Achieved concurrency of imported cells (issue 38 item 1): the time-weighted number of requests in flight,
sum of latencies / (last end - first start) over the successful requests, from the per-request start instants a
tool's file carries (vLLM ``--save-result --save-detailed``: ``start_times`` beside ``latencies``), the same
definition as a measured cell's (:mod:`specscope.stats.concurrency`); absent (never 0) without start instants."""

from __future__ import annotations

import json
import math

from clirun import cli
from paths import DATA
from report_cli import report_json

IMPORTS = DATA / "imports"


def _vllm(starts: list[float] | None, lats: list[float], errors: list[str], **extra: object) -> dict[str, object]:
    n = len(lats)
    doc: dict[str, object] = {
        "date": "20261206-120000",
        "endpoint_type": "openai-chat",
        "backend": "openai-chat",
        "model_id": "m",
        "num_prompts": n,
        "request_rate": "inf",
        "burstiness": 1.0,
        "max_concurrency": 2,
        "duration": 2.0,
        "completed": sum(1 for e in errors if not e),
        "failed": sum(1 for e in errors if e),
        "total_input_tokens": 8 * n,
        "total_output_tokens": 10 * sum(1 for e in errors if not e),
        "output_throughput": 20.0,
        "input_lens": [8] * n,
        "output_lens": [0 if e else 10 for e in errors],
        "ttfts": [0.0 if e else 0.1 for e in errors],
        "itls": [[] if e else [0.1] * 9 for e in errors],
        "latencies": lats,
        "errors": errors,
        **extra,
    }
    if starts is not None:
        doc["start_times"] = starts
    return doc


def _cells(tmp_path, capsys, monkeypatch, doc: dict[str, object]) -> list[dict[str, object]]:
    f = tmp_path / "r.json"
    f.write_text(json.dumps(doc))
    run = tmp_path / "run"
    code, _, err = cli(["import", f, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    return report_json(run)["cells"]


def test_start_times_give_the_time_weighted_requests_in_flight(tmp_path, capsys, monkeypatch):
    # in flight: [100, 101], [100, 101], [101, 102], [101.5, 102]: 3.5 s of requests over 2 s = 1.75
    doc = _vllm([100.0, 100.0, 101.0, 101.5], [1.0, 1.0, 1.0, 0.5], ["", "", "", ""])
    (cell,) = _cells(tmp_path, capsys, monkeypatch, doc)
    assert cell["achieved_concurrency"] == 1.75
    assert any(r.startswith("CONCURRENCY_FROM(") and "start_times" in r for r in cell["reasons"])


def test_a_failed_request_is_not_in_flight(tmp_path, capsys, monkeypatch):
    # the failed request (vLLM leaves its latency 0.0) is left out, as a measured cell's failed streams are:
    # [10, 12] and [11, 12] over [10, 12] = 3 / 2
    doc = _vllm([10.0, 10.5, 11.0], [2.0, 0.0, 1.0], ["", "refused", ""])
    (cell,) = _cells(tmp_path, capsys, monkeypatch, doc)
    assert cell["achieved_concurrency"] == 1.5


def test_no_start_times_leave_it_absent_never_zero(tmp_path, capsys, monkeypatch):
    doc = _vllm(None, [1.0, 1.0], ["", ""])
    (cell,) = _cells(tmp_path, capsys, monkeypatch, doc)
    assert cell["achieved_concurrency"] is None
    assert not any(r.startswith("CONCURRENCY_FROM(") for r in cell["reasons"])
    code, out, _ = cli(["report", tmp_path / "run", "--format", "markdown"], capsys, monkeypatch, tmp_path)
    assert code == 0 and "a dash where the file holds neither" in out


def test_a_request_with_no_start_time_leaves_it_absent(tmp_path, capsys, monkeypatch):
    doc = _vllm([1.0, None], [1.0, 1.0], ["", ""])
    (cell,) = _cells(tmp_path, capsys, monkeypatch, doc)
    assert cell["achieved_concurrency"] is None


def test_a_file_vllm_wrote_shows_its_concurrency_in_the_report(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    for config in ("base", "mtp"):
        files = [IMPORTS / f"vllm_cpu_{config}_r{i}.json" for i in (0, 1)]
        code, _, err = cli(["import", *files, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)
        assert code == 0, err
    cells = report_json(run)["cells"]
    d = json.loads((IMPORTS / "vllm_cpu_base_r0.json").read_text())
    ok = [(s, lat) for s, lat, e in zip(d["start_times"], d["latencies"], d["errors"], strict=True) if not e]
    want = sum(lat for _, lat in ok) / (max(s + lat for s, lat in ok) - min(s for s, _ in ok))
    base0 = next(c for c in cells if (c["config"], c["repeat"]) == ("base", 0))
    assert math.isclose(base0["achieved_concurrency"], want, rel_tol=1e-12)
    assert 1.0 < base0["achieved_concurrency"] <= 2.0  # max_concurrency 2
    code, out, _ = cli(["report", run], capsys, monkeypatch, tmp_path)
    assert code == 0
    section = out[out.index("Achieved / requested concurrency") :][:1500]
    assert "start_times" in section
    assert f"{want:.2f} / 2" in section


def _guidellm_want(doc: dict) -> float:
    t = [r["info"]["timings"] for r in doc["benchmarks"][0]["requests"]["successful"]]
    return sum(x["request_end"] - x["request_start"] for x in t) / (
        max(x["request_end"] for x in t) - min(x["request_start"] for x in t)
    )


def test_a_guidellm_report_holding_every_request_gives_it_from_their_timings(tmp_path, capsys, monkeypatch):
    # GuideLLM 0.8.1 keeps each request's info.timings.request_start / request_end; when its sample holds every
    # successful request (8 of 8 here), the concurrency is derived from them like a measured cell's
    doc = json.loads((IMPORTS / "guidellm_base_r0.json").read_text())
    (cell,) = _cells(tmp_path, capsys, monkeypatch, doc)
    assert math.isclose(cell["achieved_concurrency"], _guidellm_want(doc), rel_tol=1e-12)
    assert 1.0 < cell["achieved_concurrency"] <= 2.0


def test_a_guidellm_sample_short_of_the_successful_requests_leaves_it_absent(tmp_path, capsys, monkeypatch):
    doc = json.loads((IMPORTS / "guidellm_base_r0.json").read_text())
    doc["benchmarks"][0]["requests"]["successful"].pop()  # 7 kept of the 8 it counted: a sample
    (cell,) = _cells(tmp_path, capsys, monkeypatch, doc)
    assert cell["achieved_concurrency"] is None


def test_a_bench_serving_line_gives_the_tools_own_concurrency_named_not_recomputed(tmp_path, capsys, monkeypatch):
    # SGLang's bench_serving writes `concurrency` = sum of the successful requests' e2e latencies / the benchmark
    # duration (calculate_metrics); its file holds no start instants, so the tool's own figure is stored as written
    run = tmp_path / "run"
    argv = ["import", IMPORTS / "sglang_base.jsonl", "--config", "base", "--out", run]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    cells = report_json(run)["cells"]
    assert [c["achieved_concurrency"] for c in cells] == [3.9, 3.9, 3.9]
    (reason,) = [r for r in cells[0]["reasons"] if r.startswith("CONCURRENCY_FROM(")]
    assert "the tool's own" in reason and "not recomputed" in reason and "concurrency" in reason


def test_a_bench_serving_line_without_concurrency_leaves_it_absent(tmp_path, capsys, monkeypatch):
    doc = json.loads((IMPORTS / "sglang_base.jsonl").read_text().splitlines()[0])
    del doc["concurrency"]
    (cell,) = _cells(tmp_path, capsys, monkeypatch, doc)
    assert cell["achieved_concurrency"] is None
    assert not any(r.startswith("CONCURRENCY_FROM(") for r in cell["reasons"])


def test_an_aiperf_summary_holds_no_concurrency_figure_and_stays_absent(tmp_path, capsys, monkeypatch):
    # AIPerf 0.10.0's profile_export_aiperf.json has no metric of requests in flight (no effective_concurrency): absent
    doc = json.loads((IMPORTS / "aiperf_0.10.0_chatbot_c4.json").read_text())
    (cell,) = _cells(tmp_path, capsys, monkeypatch, doc)
    assert cell["achieved_concurrency"] is None


def test_a_newer_aiperf_summary_gives_its_effective_concurrency_named_not_recomputed(tmp_path, capsys, monkeypatch):
    # AIPerf 0.13.0's summary writes effective_concurrency {"unit": "requests", "avg": 1.7268517955469342, ...}; it
    # holds no start instants, so the tool's own figure is stored as written and named (issue absent52 item 1)
    doc = json.loads((IMPORTS / "aiperf_spec_r0.json").read_text())
    (cell,) = _cells(tmp_path, capsys, monkeypatch, doc)
    assert cell["achieved_concurrency"] == 1.7268517955469342
    (reason,) = [r for r in cell["reasons"] if r.startswith("CONCURRENCY_FROM(")]
    assert "not recomputed" in reason and "effective_concurrency" in reason


def test_an_aiperf_effective_concurrency_in_another_unit_is_left_out(tmp_path, capsys, monkeypatch):
    doc = json.loads((IMPORTS / "aiperf_spec_r0.json").read_text())
    doc["effective_concurrency"]["unit"] = "percent"
    (cell,) = _cells(tmp_path, capsys, monkeypatch, doc)
    assert cell["achieved_concurrency"] is None


def test_an_aiperf_effective_concurrency_in_another_unit_is_named(tmp_path, capsys, monkeypatch):
    """Issue 37 (round 53): a unit other than ``requests`` left the figure absent without a word; the import names the
    unit found and that the figure is left absent."""
    doc = json.loads((IMPORTS / "aiperf_spec_r0.json").read_text())
    doc["effective_concurrency"]["unit"] = "percent"
    f = tmp_path / "a.json"
    f.write_text(json.dumps(doc))
    code, _, err = cli(["import", f, "--config", "base", "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert [line for line in err.splitlines() if "effective_concurrency" in line] == [
        f'warning: {f} record 1 (aiperf-profile-export): effective_concurrency in unit "percent", not '
        "requests: the tool's mean requests in flight is left absent"
    ]
