"""A file of both loop kinds: GuideLLM's default profile ``sweep`` (a synchronous and a throughput benchmark, then
request rates; guidellm/benchmark/profiles/sweep.py of 0.8.1) and vLLM's ``--append-result`` at several rates. The
whole file was refused ("record 3 cannot join this run"): now its request rates are imported and each closed loop is
left out, named (or the reverse with ``--closed-loop``).

Fixture: tests/data/imports/guidellm_sweep_base_r0.json (SOURCES.md: guidellm_base_r0.json's benchmark under a
sweep's four strategies, hand-built); the other sweeps are built here the same way from the other 0.8.1 reports."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

from clirun import cli
from paths import DATA
from report_cli import report_json

IMPORTS = DATA / "imports"
SWEEP = IMPORTS / "guidellm_sweep_base_r0.json"

CLOSED_LEFT_OUT = (
    "a closed loop in a file whose request-rate records are imported: one run holds one loop kind (import the "
    "file with --closed-loop into another --out run for these)"
)
OPEN_LEFT_OUT = (
    "an open loop in a file whose closed-loop records are imported: one run holds one loop kind (import the file "
    "without --closed-loop into another --out run for these)"
)


def _sweep(tmp_path: Path, source: str, rates: tuple[float, float]) -> Path:
    """The sweep fixture's four strategies (synchronous, throughput at 512, constant at ``rates``) over the benchmark
    of tests/data/imports/guidellm_{source}.json."""
    skeleton = json.loads(SWEEP.read_text())
    doc = json.loads((IMPORTS / f"guidellm_{source}.json").read_text())
    doc["config"]["spec"]["profile"] = skeleton["config"]["spec"]["profile"]
    bench = doc["benchmarks"][0]
    doc["benchmarks"] = []
    for i, theirs in enumerate(skeleton["benchmarks"]):
        b = copy.deepcopy(bench)
        b["config"]["strategy"] = dict(theirs["config"]["strategy"])
        b["config"]["run_index"] = i
        if "rate" in b["config"]["strategy"]:
            b["config"]["strategy"]["rate"] = rates[i - 2]
        doc["benchmarks"].append(b)
    path = tmp_path / f"sweep_{source}.json"
    path.write_text(json.dumps(doc))
    return path


def _import(tmp_path, capsys, monkeypatch, files, config, run, *extra) -> tuple[str, str]:
    code, out, err = cli(["import", *files, "--config", config, "--out", run, *extra], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    return out, " ".join(err.split())


def test_a_guidellm_sweep_imports_its_request_rates_and_names_each_closed_loop_left_out(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    out, err = _import(tmp_path, capsys, monkeypatch, [SWEEP], "base", run)
    assert (
        "base/imported/c1/r0 <- " in " ".join(out.split()) and "(guidellm benchmark, 2 req/s constant (max 512" in out
    )
    assert "base/imported/c2/r0" in out and "4 req/s constant" in out and "2 cells imported" in out
    for record, load in ((1, "N=1"), (2, "N=512")):
        line = f"{SWEEP} record {record} (guidellm-benchmarks-report, {load}) left out: {CLOSED_LEFT_OUT}"
        assert f"warning: {line}" in err, err
    assert "record 3 (guidellm-benchmarks-report): its request rates are derived from this report's own" in err
    doc = report_json(run)
    cells = sorted(
        (c["concurrency"], c["client"]["open_loop"], c["client"]["imported"]["benchmark"], c["streams_ok"])
        for c in doc["cells"]
    )
    open_loop = {"arrival": "constant", "max_concurrency": 512}
    assert cells == [(1, {"rate_per_s": 2.0, **open_loop}, 3, 8), (2, {"rate_per_s": 4.0, **open_loop}, 4, 8)]
    imports = doc["manifest"]["imports"]
    assert [(e["record"], e["cell"], e["load"], e.get("left_out")) for e in imports] == [
        (1, None, "N=1", CLOSED_LEFT_OUT),
        (2, None, "N=512", CLOSED_LEFT_OUT),
        (3, "base/imported/c1/r0", "2 req/s constant (max 512 in flight)", None),
        (4, "base/imported/c2/r0", "4 req/s constant (max 512 in flight)", None),
    ]


def test_closed_loop_imports_a_sweeps_synchronous_and_throughput_benchmarks(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    out, err = _import(tmp_path, capsys, monkeypatch, [SWEEP], "base", run, "--closed-loop")
    assert "base/imported/c1/r0" in out and "base/imported/c512/r0" in out and "2 cells imported" in out
    for record, load in ((3, "2 req/s constant (max 512 in flight)"), (4, "4 req/s constant (max 512 in flight)")):
        assert f"{SWEEP} record {record} (guidellm-benchmarks-report, {load}) left out: {OPEN_LEFT_OUT}" in err
    assert "derived from this report's own" not in err  # the rates' note goes with the rates
    doc = report_json(run)
    assert sorted(c["concurrency"] for c in doc["cells"]) == [1, 512]
    # a second sweep follows the run's kind without --closed-loop
    other = _sweep(tmp_path, "spec_r0", (2.0, 4.0))
    out, err = _import(tmp_path, capsys, monkeypatch, [other], "spec", run)
    assert "spec/imported/c1/r0" in out and "spec/imported/c512/r0" in out and OPEN_LEFT_OUT in err


def test_two_configs_sweeps_are_compared_with_an_interval_at_each_rate_both_measured(tmp_path, capsys, monkeypatch):
    """base's sweeps ran 2 and 4 req/s, spec's 2 and 8 (hand-set: a real sweep derives its rates from its own
    measurements, so two sweeps share none). At 2 req/s both have two rounds: paired by import order, compared with
    an interval; 4 and 8 req/s have no pair, and spec's 8 req/s is named."""
    run = tmp_path / "run"
    base = [_sweep(tmp_path, f"base_r{i}", (2.0, 4.0)) for i in (0, 1)]
    spec = [_sweep(tmp_path, f"spec_r{i}", (2.0, 8.0)) for i in (0, 1)]
    _import(tmp_path, capsys, monkeypatch, base, "base", run)
    _, err = _import(tmp_path, capsys, monkeypatch, spec, "spec", run)
    assert "spec/imported/c3 has no cell of the baseline base to be compared with" in err
    doc = report_json(run)
    assert [r["rate_per_s"] for r in doc["axis"]["rates"]] == [2.0, 4.0, 8.0]
    (cmp,) = doc["comparisons"]
    assert (cmp["config"], cmp["level"], cmp["rounds"], cmp["method"]) == ("spec", 1, 2, "t_log_ratio")
    assert isinstance(cmp["low"], float) and isinstance(cmp["high"], float) and cmp["low"] < cmp["high"]
    assert cmp["metric"] == "decode_tok_s" and math.isfinite(cmp["low"]) and math.isfinite(cmp["high"])
    assert cmp["low"] < cmp["speedup"] < cmp["high"]


def _legacy_sweep(tmp_path: Path, strategies: list[dict[str, Any]]) -> Path:
    """GuideLLM's earlier schema (benchmark.py @ 47ce2924): one benchmark per strategy under ``args.strategy``."""
    doc = json.loads((IMPORTS / "guidellm_legacy_base_r0.json").read_text())
    bench = doc["benchmarks"][0]
    doc["benchmarks"] = []
    for s in strategies:
        b = copy.deepcopy(bench)
        b["args"]["strategy"] = s
        doc["benchmarks"].append(b)
    path = tmp_path / "legacy_sweep.json"
    path.write_text(json.dumps(doc))
    return path


def test_an_uncapped_throughput_benchmark_is_left_out_named_and_alone_still_refused(tmp_path, capsys, monkeypatch):
    """A throughput benchmark of the earlier schema with ``max_concurrency`` null whose ``args.profile`` is neither
    a throughput nor a sweep profile (the fixture's is ``concurrent``) says nothing of its cap: no level. Beside
    others it is left out, named; a report of nothing else is refused. (A real 0.2-0.3 sweep's or throughput
    profile's is read uncapped: tests/importers/test_import_imp61.py.)"""
    sync = {"type_": "synchronous"}
    throughput = {"type_": "throughput", "max_concurrency": None}
    constant = {"type_": "constant", "max_concurrency": None, "rate": 3.0, "initial_burst": True}
    path = _legacy_sweep(tmp_path, [sync, throughput, constant])
    run = tmp_path / "run"
    out, err = _import(tmp_path, capsys, monkeypatch, [path], "base", run)
    assert "1 cell imported" in out and "3 req/s constant" in out
    why = "throughput with no max_concurrency: as many requests in flight as the client sends, no level to name"
    assert f"{path} record 2 (guidellm-benchmarks-report, no level) left out: {why}" in err
    assert f"{path} record 1 (guidellm-benchmarks-report, N=1) left out: {CLOSED_LEFT_OUT}" in err
    imports = report_json(run)["manifest"]["imports"]
    assert [(e["cell"], e.get("left_out")) for e in imports] == [
        (None, CLOSED_LEFT_OUT),
        (None, why),
        ("base/imported/c1/r0", None),
    ]
    alone = _legacy_sweep(tmp_path, [throughput])
    code, _, err = cli(["import", alone, "--config", "b", "--out", tmp_path / "r2"], capsys, monkeypatch, tmp_path)
    err = " ".join(err.split())
    assert code == 2 and "benchmark 1: a GuideLLM benchmark of strategy 'throughput' has no level" in err, err
    assert "found: " in err and "expected: " in err and "fix: " in err and not (tmp_path / "r2").exists()


def test_files_of_both_loop_kinds_are_still_refused(tmp_path, capsys, monkeypatch):
    """Two files the user named, one of each kind: refused as before (they chose both)."""
    run = tmp_path / "run"
    files = [IMPORTS / "guidellm_base_r0.json", _sweep(tmp_path, "base_r1", (2.0, 4.0))]
    code, _, err = cli(
        ["import", *files, "--config", "base", "--out", run, "--closed-loop"], capsys, monkeypatch, tmp_path
    )
    assert code == 0, err  # --closed-loop: the sweep's closed loops join the concurrency file's
    code, _, err = cli(
        ["import", IMPORTS / "guidellm_spec_r0.json", _sweep(tmp_path, "spec_r1", (2.0, 4.0)), "--config", "spec",
         "--out", tmp_path / "r2"], capsys, monkeypatch, tmp_path
    )  # fmt: skip
    err = " ".join(err.split())
    assert code == 2 and "sweep_spec_r1.json record 3 (an open loop: 2 req/s constant (max 512 in flight)) and " in err
    assert "guidellm_spec_r0.json record 1 (a closed loop: N=2) cannot be cells of one run" in err, err


def test_a_vllm_append_result_file_at_several_rates_imports_its_rates(tmp_path, capsys, monkeypatch):
    """``vllm bench serve --append-result`` appends one line per run: a file run at ``--request-rate inf`` with
    ``--max-concurrency 2`` (a closed loop) and then at 2 and 4 req/s holds both kinds; it was refused whole."""
    doc = json.loads((IMPORTS / "vllm_base_r0.json").read_text())
    lines = [
        doc,
        {**doc, "request_rate": 2.0, "max_concurrency": None},
        {**doc, "request_rate": 4.0, "max_concurrency": None},
    ]
    path = tmp_path / "appended.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in lines))
    out, err = _import(tmp_path, capsys, monkeypatch, [path], "base", tmp_path / "run")
    assert "2 cells imported" in out and "2 req/s" in out and "4 req/s" in out
    assert f"{path} record 1 (vllm-bench-serve, N=2) left out: {CLOSED_LEFT_OUT}" in err, err
