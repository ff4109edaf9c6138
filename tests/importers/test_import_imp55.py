"""Issues 36/38 (imp55): peer tools' files imported and judged the same way.

Fixtures: tests/data/imports (SOURCES.md); each file is built inside its test from one with the field under test
changed."""

from __future__ import annotations

import json
from pathlib import Path

from clirun import cli
from paths import DATA

IMPORTS = DATA / "imports"


def test_separate_vllm_files_of_both_loop_kinds_are_refused_naming_both_and_the_fix(tmp_path, capsys, monkeypatch):
    """``vllm bench serve`` at ``--request-rate inf --max-concurrency 2`` (closed loop, vllm_base_r1.json) and at
    2 req/s, named together: a run has one level axis (concurrency or request rate), so they cannot be cells of one
    run. The refusal named only the second file ("record 1 cannot join this run"), not the file it clashed with nor
    how to import both: now both files and one --out per kind."""
    doc = json.loads((IMPORTS / "vllm_base_r0.json").read_text())
    rate = tmp_path / "rate.json"
    rate.write_text(json.dumps({**doc, "request_rate": 2.0}))
    closed = IMPORTS / "vllm_base_r1.json"
    run = tmp_path / "run"
    code, _, err = cli(["import", closed, rate, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)
    err = " ".join(err.split())
    assert code == 2, err
    assert (
        f"{rate} record 1 (an open loop: 2 req/s poisson (max 2 in flight)) and {closed} record 1 (a closed loop: "
        "N=2) cannot be cells of one run" in err
    ), err
    assert (
        f"fix: import each loop kind into its own run: {closed} with --out {run}-closed, {rate} with --out "
        f"{run}-rate; nothing was written" in err
    ), err
    assert not run.exists()


def _guidellm_throughput(tmp_path: Path, profile_cap: int | None) -> Path:
    """guidellm_sweep_base_r0.json (GuideLLM 0.8.1) cut to its throughput benchmark (8 requests), as
    ``guidellm benchmark run --profile throughput`` writes it: the scenario's ``spec.profile`` of kind throughput with
    the user's ``max_concurrency`` (None: no --rate), the strategy's ``max_concurrency`` the worker group's limit
    (``min(strategy, backend requests_limit) or settings.max_concurrency``: 10240 with
    GUIDELLM__MAX_CONCURRENCY=10240)."""
    doc = json.loads((IMPORTS / "guidellm_sweep_base_r0.json").read_text())
    bench = doc["benchmarks"][1]
    bench["config"]["strategy"]["max_concurrency"] = profile_cap or 10240
    doc["benchmarks"] = [bench]
    doc["config"]["spec"]["profile"] = {"kind": "throughput", "rampup_duration": 0.0, "max_concurrency": profile_cap}
    path = tmp_path / f"throughput_{profile_cap}.json"
    path.write_text(json.dumps(doc))
    return path


def test_guidellm_throughput_without_a_cap_is_every_request_at_once(tmp_path, capsys, monkeypatch):
    """``--profile throughput`` with no rate: the strategy's max_concurrency (10240) is GuideLLM's own worker limit,
    not a level the client ran at; it was imported as N=10240 (cell c10240). An uncapped run sends every request at
    once, as vLLM's ``--request-rate inf`` without ``--max-concurrency`` does (imported as N = its prompts): N=8
    (the 8 requests sent), and a warning names the limit not taken."""
    run = tmp_path / "run"
    code, out, err = cli(
        ["import", _guidellm_throughput(tmp_path, None), "--config", "base", "--out", run], capsys, monkeypatch,
        tmp_path,
    )  # fmt: skip
    text = " ".join((out + err).split())
    assert code == 0, text
    assert "base/imported/c8/r0" in text and "c10240" not in text, text
    assert (
        "throughput with no cap (the scenario's profile max_concurrency is null): every request sent at once, "
        "N=8 (the requests sent); the strategy's max_concurrency 10240 is GuideLLM's own worker limit, not a level"
        in text
    ), text
    doc = json.loads((run / "manifest.json").read_text())
    assert [e["load"] for e in doc["imports"]] == ["N=8"]


def test_guidellm_throughput_with_a_cap_keeps_its_cap(tmp_path, capsys, monkeypatch):
    """``--profile throughput --rate 4``: the user's cap 4 is the level, as before."""
    run = tmp_path / "run"
    code, out, err = cli(
        ["import", _guidellm_throughput(tmp_path, 4), "--config", "base", "--out", run], capsys, monkeypatch, tmp_path
    )
    assert code == 0 and "base/imported/c4/r0" in out and "no cap" not in out + err, out + err


VLLM_WINDOW = (
    "INFO 05-01 12:00:00 [metrics.py:80] SpecDecoding metrics: Mean acceptance length: 2.50, Accepted throughput: "
    "1.20 tokens/s, Drafted throughput: 3.00 tokens/s, Accepted: 12 tokens, Drafted: 16 tokens, Per-position "
    "acceptance rate: {rates}, Avg Draft acceptance rate: 75.0%\n"
)
LLAMA_REQUEST = (
    "slot print_timing: id  0 | task {t} | draft acceptance = 0.75000 (    3 accepted /   4 generated), mean len = "
    " 1.75, acceptance rate per position = ({rates})\n"
)


def _parse_log(tmp_path: Path, text: str, capsys, monkeypatch) -> dict:
    path = tmp_path / "server.log"
    path.write_text(text)
    code, out, err = cli(["serve", "--parse-log", path, "--format", "json"], capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err
    return json.loads(out)


def test_a_vllm_window_with_an_unreadable_per_position_list_keeps_its_counts(tmp_path, capsys, monkeypatch):
    """vLLM prints each rate ``f"{p:.3f}"``: ``1e400`` in the list dropped the whole window (its 12 accepted of 16
    drafted tokens too), pooling 1 window of 16 drafted. Now the window's counts and length are read, and only its
    per-position list is named absent: 2 windows, 32 drafted, 24 accepted; the per-position rates from line 2."""
    text = VLLM_WINDOW.format(rates="1e400, 0.500") + VLLM_WINDOW.format(rates="0.750, 0.250")
    facts = _parse_log(tmp_path, text, capsys, monkeypatch)
    warnings = [w for w in facts["engine_logs"][0]["warnings"] if w.startswith("LOG_LINE_UNREADABLE")]
    assert warnings == [
        "LOG_LINE_UNREADABLE(line 1: per_position_acceptance_rates '1e400, 0.500' is not a number as the engine "
        "prints it (fixed-point digits); only the per-position rates are absent, the line's other figures are read)"
    ]
    pooled = facts["spec_decoding_pooled"]
    assert (pooled["windows"], pooled["draft_tokens"], pooled["accepted_tokens"]) == (2, 32, 24)
    assert [s["per_position"] for s in facts["engine_logs"][0]["stats"]] == [[], [0.75, 0.25]]


def test_a_llamacpp_request_with_an_unreadable_per_position_list_keeps_its_counts(tmp_path, capsys, monkeypatch):
    """llama.cpp prints ``acceptance rate per position = (%.3f, ...)``: ``1e400`` dropped the request's 3 accepted of
    4 drafted tokens. Now the request is kept (2 requests, 8 drafted, 6 accepted) with its per-position list absent."""
    text = LLAMA_REQUEST.format(t=0, rates="1e400, 0.500") + LLAMA_REQUEST.format(t=1, rates="0.750, 0.500")
    facts = _parse_log(tmp_path, text, capsys, monkeypatch)
    warnings = [w for w in facts["engine_logs"][0]["warnings"] if w.startswith("LOG_LINE_UNREADABLE")]
    assert warnings == [
        "LOG_LINE_UNREADABLE(line 1: acceptance rate per position '1e400, 0.500' is not a number as the engine "
        "prints it (fixed-point digits); only the per-position rates are absent, the line's other figures are read)"
    ]
    stats = facts["engine_logs"][0]["stats"]
    assert [(s["line_number"], s["draft_tokens"], s["accepted_tokens"], s["per_position"]) for s in stats] == [
        (1, 4, 3, []),
        (2, 4, 3, [0.75, 0.5]),
    ]


def test_an_aiperf_sweep_aggregate_is_refused_by_name_with_the_files_to_give(tmp_path, capsys, monkeypatch):
    """AIPerf's sweep aggregate ``profile_export_aiperf_sweep.json`` (ai-dynamo/aiperf
    src/aiperf/exporters/aggregate/aggregate_sweep_json_exporter.py @ 4f2a10ab: ``aggregation_type`` "sweep",
    ``num_profile_runs``, ``num_successful_runs``, ``failed_runs``, ``metadata``, ``per_combination_metrics`` of
    ``{parameters, metrics}``, ``best_configurations``, ``pareto_optimal``) holds per-combination means over trials,
    no run's own totals. It was refused as a file of no known shape listing its keys; now by name, with the files to
    import instead."""
    doc = {
        "aggregation_type": "sweep",
        "num_profile_runs": 4,
        "num_successful_runs": 4,
        "failed_runs": [],
        "metadata": {"sweep_parameters": [{"name": "concurrency", "values": [1, 2]}], "num_combinations": 2},
        "per_combination_metrics": [
            {"parameters": {"concurrency": n}, "metrics": {"output_token_throughput": {"mean": t, "unit": "tok/s"}}}
            for n, t in ((1, 10.0), (2, 18.0))
        ],
        "best_configurations": {},
        "pareto_optimal": [],
    }  # fmt: skip
    path = tmp_path / "profile_export_aiperf_sweep.json"
    path.write_text(json.dumps(doc))
    code, _, err = cli(["import", path, "--config", "base", "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path)
    err = " ".join(err.split())
    assert code == 2, err
    assert (
        "looks like AIPerf's sweep aggregate (aggregation_type sweep, 4 runs): per-combination means over its "
        "trials, no run's own totals; import each run's own profile_export_aiperf.json instead (one per "
        "combination and trial, in that run's artifact folder), each config's runs with its --config" in err
    ), err
    assert not (tmp_path / "run").exists()


def test_an_aiperf_confidence_aggregate_is_refused_by_name(tmp_path, capsys, monkeypatch):
    """AIPerf's multi-run confidence aggregate ``profile_export_aiperf_aggregate.json``
    (aggregate_confidence_json_exporter.py @ 008358d8: ``schema_version``, ``aiperf_version``, ``metadata`` with
    ``aggregation_type`` "confidence" and ``num_profile_runs``, ``metrics`` of mean / std / ci per metric) was named
    as AIPerf's per-request record export lacking request_start_ns; it is named as what it is."""
    doc = {
        "schema_version": "1.0",
        "aiperf_version": "0.6.0",
        "metadata": {"aggregation_type": "confidence", "num_profile_runs": 3, "num_successful_runs": 3},
        "metrics": {"output_token_throughput": {"mean": 10.0, "std": 0.5, "unit": "tokens/sec"}},
    }
    path = tmp_path / "profile_export_aiperf_aggregate.json"
    path.write_text(json.dumps(doc))
    code, _, err = cli(["import", path, "--config", "base", "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path)
    err = " ".join(err.split())
    assert code == 2 and "request_start_ns" not in err, err
    assert "looks like AIPerf's confidence aggregate (aggregation_type confidence, 3 runs): " in err, err
