"""Result files written by hand to the writers' field sets at releases other than tests/data/imports' (issue 38
item 2): each imports into a run whose report judges it with a numeric interval, or is refused naming the shapes
tried (exit 2). Field sets: vLLM ``benchmarks/benchmark_serving.py`` v0.6 (no ``endpoint_type``, ``failed``,
``burstiness``, ``max_concurrency`` or ``latencies``; ``request_rate`` inf written as JSON ``Infinity``) and SGLang
``bench_serving.py`` without ``--output-details`` (its totals and aggregates only, ``max_concurrency`` null)."""

from __future__ import annotations

import json
import math

import pytest

from clirun import cli
from paths import DATA
from report_cli import report_json


def _vllm_v06(speed: float, error: bool) -> dict[str, object]:
    n = 6
    ttfts = [0.05] * n
    itls: list[list[float]] = [[speed] * 19 for _ in range(n)]
    errors = [""] * n
    if error:
        errors[2], ttfts[2], itls[2] = "ServerDisconnectedError", 0.0, []
    out = [0 if e else 20 for e in errors]
    return {
        "date": "20240901-101010",
        "backend": "vllm",
        "model_id": "m",
        "tokenizer_id": "m",
        "best_of": 1,
        "use_beam_search": False,
        "num_prompts": n,
        "request_rate": math.inf,
        "duration": 20 * speed * 3,
        "completed": sum(1 for e in errors if not e),
        "total_input_tokens": 60,
        "total_output_tokens": sum(out),
        "request_throughput": 1.0,
        "output_throughput": 1.0,
        "input_lens": [10] * n,
        "output_lens": out,
        "ttfts": ttfts,
        "itls": itls,
        "generated_texts": ["x"] * n,
        "errors": errors,
        "mean_ttft_ms": 50.0,
        "median_ttft_ms": 50.0,
        "p99_ttft_ms": 60.0,
    }


def _import(run, files, config, capsys, monkeypatch, tmp_path):
    code, _, err = cli(["import", *files, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 0, err


def test_vllm_v06_files_with_an_errored_request_are_judged_on_the_rounds_left(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    for config, speed in (("base", 0.02), ("spec", 0.01)):
        files = []
        for i, jitter in enumerate((1.0, 1.03, 0.98)):
            f = tmp_path / f"{config}_r{i}.json"
            f.write_text(json.dumps(_vllm_v06(speed * jitter, error=i == 1)))  # Infinity, as Python's json writes inf
            files.append(f)
        _import(run, files, config, capsys, monkeypatch, tmp_path)
    doc = report_json(run)
    cells = {(c["config"], c["repeat"]): c for c in doc["cells"]}
    assert cells[("spec", 1)]["status"] == "degraded" and cells[("spec", 0)]["concurrency"] == 6
    assert cells[("spec", 0)]["achieved_concurrency"] is None  # no start_times in a v0.6 file
    (cmp,) = doc["comparisons"]
    assert (cmp["rounds"], cmp["dropped"]) == (2, 1)
    assert cmp["low"] is not None and cmp["low"] <= cmp["speedup"] <= cmp["high"]


def test_sglang_lines_without_details_at_an_infinite_rate_are_judged(tmp_path, capsys, monkeypatch):
    def line(duration: float) -> str:
        return json.dumps(
            {
                "backend": "sglang",
                "dataset_name": "random",
                "request_rate": math.inf,
                "max_concurrency": None,
                "duration": duration,
                "completed": 16,
                "total_input_tokens": 160,
                "total_output_tokens": 640,
                "total_output_tokens_retokenized": 640,
                "output_throughput": 640 / duration,
                "median_ttft_ms": 20.0,
                "median_tpot_ms": 10.0,
                "concurrency": 15.2,
                "accept_length": None,
            }
        )

    run = tmp_path / "run"
    for config, durations in (("base", (10.0, 10.3, 9.9)), ("spec", (6.0, 6.2, 5.8))):
        f = tmp_path / f"{config}.jsonl"
        f.write_text("".join(line(d) + "\n" for d in durations))
        _import(run, [f], config, capsys, monkeypatch, tmp_path)
    doc = report_json(run)
    (cmp,) = doc["comparisons"]
    assert (cmp["level"], cmp["rounds"], cmp["verdict"]) == (16, 3, "faster")
    ratios = [10.0 / 6.0, 10.3 / 6.2, 9.9 / 5.8]
    assert math.isclose(cmp["speedup"], math.exp(sum(map(math.log, ratios)) / 3))
    assert cmp["low"] < cmp["speedup"] < cmp["high"]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("empty_list.json", "[]"),
        ("empty_object.json", "{}"),
        ("numbers.json", "[1, 2, 3]"),
        ("table.csv", "a,b\n1,2\n"),
        ("null.json", "null"),
        ("objects.jsonl", "{}\n{}\n"),
        ("empty.json", ""),
    ],
)
def test_json_of_no_known_shape_is_refused_naming_the_shapes_tried(tmp_path, capsys, monkeypatch, name, text):
    f = tmp_path / name
    f.write_text(text)
    run = tmp_path / "run"
    code, _, err = cli(["import", f, "--config", "a", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 2 and "shapes tried" in err
    assert all(s in err for s in ("vllm-bench-serve", "sglang-bench-serving", "aiperf-profile-export"))
    assert "Traceback" not in err and not run.exists()


def test_an_aiperf_fixed_schedule_replay_is_refused_as_having_no_single_level(tmp_path, capsys, monkeypatch):
    """AIPerf 0.1.1 (``aiperf/common/config/user_config.py`` ``validate_timing_mode``) replays a trace at its own
    timestamps when ``input.fixed_schedule`` is set, and then sets no concurrency: the summary's ``input_config`` holds
    ``input.fixed_schedule: true`` and no ``loadgen``. The import called it a closed loop of 1 (N=1). Right: refused,
    as a trace replay of the other tools is (no single level)."""
    path = DATA / "imports" / "aiperf_0.1.1_fixed_schedule.json"
    code, _, err = cli(["import", path, "--config", "base", "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path)
    assert code == 2, err
    assert "a trace replay has no single level" in err and "input.fixed_schedule" in err
    assert not (tmp_path / "run").exists()


def test_an_sglang_line_at_an_infinite_rate_sends_num_prompts_at_once(tmp_path, capsys, monkeypatch):
    """A 2024 bench_serving line (``timestampe``, ``num_prompts`` 100, ``request_rate`` Infinity, no
    ``max_concurrency``, no per-request arrays) sent all 100 prompts at once; 98 completed. The import took the level
    from ``completed`` (N=98), a count of successes, not of what was sent. Right: N=100, as vLLM's ``num_prompts`` is
    read."""
    path = DATA / "imports" / "sglang_2024_num_prompts_inf.jsonl"
    run = tmp_path / "run"
    code, out, err = cli(["import", path, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "N=100" in out
    (cell,) = report_json(run)["cells"]
    assert cell["concurrency"] == 100
