"""Logs of every engine (issue 34 item 4) through the user commands: `serve --parse-log FILE [-f json]` and
`bench --server-log`. Each log in tests/data/engines/logs (sources in SOURCES.md there) is read by its engine's adapter
(specscope/adapters/<engine>/logs.py), pooled as Σaccepted / Σdrafted, and the low-acceptance alarm runs on the pool;
a log in which no engine's lines are recognised exits 2 naming the engines and forms tried, before any request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clirun import cli
from specscope.adapters.logs import forms_tried
from specscope.cli import app
from specscope.store import open_run
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

LOGS = Path(__file__).parent.parent / "data" / "engines" / "logs"


def parse_log(name: str, *args: str):
    return CliRunner().invoke(app, ["serve", "--parse-log", str(LOGS / name), *args], env={"COLUMNS": "200"})


def only_pool(name: str) -> tuple[int, dict]:
    r = parse_log(name, "-f", "json")
    (pool,) = json.loads(r.output)["log_pools"]
    return r.exit_code, pool


def test_llamacpp_request_line_with_statistics_gives_steps_length_and_positions() -> None:
    """PR #24536's own log: one request, 167 of 259 drafted accepted over 87 verify steps (the statistics line)."""
    code, pool = only_pool("llamacpp_pr24536_eagle3_request.log")
    assert code == 0
    assert (pool["engine"], pool["method"], pool["forms"]) == ("llamacpp", "eagle3", ["draft acceptance", "statistics"])
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (259, 167, 87)
    assert pool["acceptance_rate"] == 167 / 259 and pool["acceptance_length"] == 1 + 167 / 87
    assert pool["acceptance_per_position"] == [0.805 * 87 / 87, 0.632 * 87 / 87, 0.483 * 87 / 87]
    assert pool["alarm"] is None
    text = parse_log("llamacpp_pr24536_eagle3_request.log")
    assert text.exit_code == 0 and "server log facts (llamacpp)" in text.output
    assert "259 drafted, 167 accepted over 87 steps" in text.output and "64.5%" in text.output


def test_llamacpp_requests_pool_by_counts_not_by_printed_rates() -> None:
    """The docs' two requests: (171 + 90) / (297 + 128), not the mean of 0.57576 and 0.70312; the statistics lines of
    several implementations do not match one request's drafted count, so the steps are only bounded (1 a request)."""
    code, pool = only_pool("llamacpp_docs_rate_and_statistics.log")
    assert code == 0 and pool["forms"] == ["draft acceptance rate", "statistics"]
    assert pool["statistics"] == 2 and pool["acceptance_rate"] == 261 / 425
    assert pool["acceptance_rate"] != (0.57576 + 0.70312) / 2
    assert (pool["verify_steps"], pool["verify_steps_at_least"], pool["acceptance_length"]) == (None, 2, None)
    assert pool["method"] is None  # ngram and draft implementations in one log: no single method


def test_llamacpp_draft_model_accepting_nothing_raises_the_alarm() -> None:
    """The embedded engine's wording (mean len), two slots: steps from each slot's cumulative statistics differenced
    (60 + 40 + (90 - 60)); 0 of 1,040 drafted tokens over 130 steps."""
    code, pool = only_pool("llamacpp_embedded_draft_zero_accept.log")
    assert code == 1
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (1040, 0, 130)
    alarm = "LOW_ACCEPTANCE(draft_model accepts 0.0% of drafted tokens over 130 drafts, < 5%)"
    assert pool["alarm"] == alarm
    text = parse_log("llamacpp_embedded_draft_zero_accept.log")
    assert text.exit_code == 1 and f"ALARM {alarm}" in " ".join(text.output.split())  # the console wraps lines


def test_vllm_v0_tokens_tokens_spelling_is_read_and_alarms() -> None:
    """vLLM 0.5's "Number of draft tokens tokens: N": 12,000 drafted over 2,400 steps (k = 5), nothing accepted."""
    code, pool = only_pool("vllm_051_v0_tokens_tokens_zero_accept.log")
    assert code == 1
    assert (pool["draft_tokens"], pool["verify_steps"], pool["accepted_tokens"]) == (12000, 2400, 0)
    assert pool["alarm"] == "LOW_ACCEPTANCE(draft_model accepts 0.0% of drafted tokens over 2,400 drafts, < 5%)"
    doc = json.loads(parse_log("vllm_051_v0_tokens_tokens_zero_accept.log", "-f", "json").output)
    total = doc["spec_decoding_cumulative_total"]
    assert (total["draft_tokens"], total["emitted_tokens"], total["acceptance_length"]) == (12000, 2400, 1.0)


def test_vllm_v0_gives_the_acceptance_length_and_a_v1_comparable_rate() -> None:
    """0.6.3: V0 counts 8,547 accepted (every matching position); the accepted prefix V1 counts is emitted - steps =
    10,616 - 4,437; the acceptance length emitted / steps."""
    code, pool = only_pool("vllm_063_v0_cumulative_spec.log")
    assert code == 0 and pool["scopes"] == ["difference"]
    assert (pool["draft_tokens"], pool["verify_steps"], pool["accepted_tokens"]) == (13311, 4437, 10616 - 4437)
    assert pool["acceptance_rate"] == (10616 - 4437) / 13311 and pool["acceptance_length"] == 1 + 6179 / 4437
    doc = json.loads(parse_log("vllm_063_v0_cumulative_spec.log", "-f", "json").output)
    total = doc["spec_decoding_cumulative_total"]
    assert total["acceptance_rate"] == 8547 / 13311 and total["acceptance_rate_v1_comparable"] == 6179 / 13311
    assert total["acceptance_length"] == 10616 / 4437
    text = parse_log("vllm_063_v0_cumulative_spec.log")
    assert "46.4% (V1-comparable" in text.output and "64.2% (V0's own count)" in text.output


def test_vllm_v1_windows_pool_the_same_through_the_adapter() -> None:
    code, pool = only_pool("vllm_083_eagle_zero_accept.log")
    assert code == 1
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (9000, 0, 3000)
    assert pool["alarm"] == "LOW_ACCEPTANCE(eagle accepts 0.0% of drafted tokens over 3,000 drafts, < 5%)"
    text = parse_log("vllm_083_eagle_zero_accept.log")
    assert text.output.count("ALARM LOW_ACCEPTANCE") == 1  # the windows' alarm and the pool's are one alarm


def test_trtllm_iteration_log_is_recognised_and_says_it_has_no_acceptance() -> None:
    code, pool = only_pool("trtllm_iter_log.log")
    assert code == 0 and pool["engine"] == "trtllm" and pool["forms"] == ["iteration log"]
    assert pool["acceptance_rate"] is None and pool["statistics"] == 0
    said = "NO_ACCEPTANCE_IN_LOG(TensorRT-LLM logs no drafted or accepted counts; read its /metrics)"
    assert pool["warnings"] == [said]


def test_an_unrecognised_log_exits_2_naming_every_engine_and_form_tried(capsys, monkeypatch, tmp_path: Path) -> None:
    code, out, err = cli(["serve", "--parse-log", LOGS / "not_a_server_log.log"], capsys, monkeypatch, tmp_path)
    assert code == 2 and out == "" and err.count("\n") == 1  # one line
    assert "holds no server-log line specscope recognises" in err
    for form in forms_tried():
        assert f"{form.engine} {form.name}" in err
    assert {f.engine for f in forms_tried()} == {"vllm", "sglang", "llamacpp", "trtllm"}


def test_bench_refuses_an_unrecognised_server_log_before_the_first_request(capsys, monkeypatch, tmp_path: Path) -> None:
    out_dir = tmp_path / "runs"
    args = ["bench", "--server", "a=http://127.0.0.1:9", "--server-log", f"a={LOGS / 'not_a_server_log.log'}"]
    code, _, err = cli([*args, "--workloads", "prose", "--out", out_dir], capsys, monkeypatch, tmp_path)
    assert code == 2 and "holds no server-log line specscope recognises" in err
    assert "llamacpp draft acceptance rate" in err
    assert not out_dir.exists() or not any(out_dir.iterdir())  # no run folder left behind


@pytest.mark.integration
def test_bench_records_the_pooled_llamacpp_log_with_its_alarm(tmp_path: Path) -> None:
    plan = ResponsePlan(output_tokens=8, tokens_per_chunk=4)
    log = LOGS / "llamacpp_embedded_draft_zero_accept.log"
    with TruthServer(TruthScript(default=plan, metrics=MetricsPlan())) as ts:
        args = ["bench", "--server", f"dm={ts.base_url}", "--server-log", f"dm={log}", "--workloads", "prose"]
        args += ["--max-concurrency", "1", "--repeats", "1", "--max-tokens", "8", "--out", str(tmp_path)]
        r = CliRunner().invoke(app, [*args, "-f", "json"])
    # exit 1: the report judges the stored log's LOW_ACCEPTANCE as its own alarm (stats.alarms.log_pool_alarms),
    # and bench exits on the report's judgement, as `report RUN` and `serve --parse-log FILE` exit 1 on it (was 0
    # before 2026-12-06, when the report read no stored log pool)
    assert r.exit_code == 1, r.output
    said = (
        "server log dm (llamacpp: draft acceptance, statistics): 1,040 drafted, 0 accepted (0.0%) over 130 verify "
        "steps; ALARM LOW_ACCEPTANCE(draft_model accepts 0.0% of drafted tokens over 130 drafts, < 5%)"
    )
    assert said in r.stderr  # bench says what the captured log says
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    with open_run(run_dir) as run:
        (pool,) = run.server_facts.of("dm").stored["log_pools"]
    assert (pool["engine"], pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (
        "llamacpp",
        1040,
        0,
        130,
    )
    assert pool["alarm"] == "LOW_ACCEPTANCE(draft_model accepts 0.0% of drafted tokens over 130 drafts, < 5%)"


def test_sglang_windows_print_no_counts_so_the_pool_is_a_bound() -> None:
    """sglang issue #11948's EAGLE3 log: five windows print only two-decimal means; no counts to pool, so the pooled
    rate is bounded by the largest printed rate + 0.005 over at least five verify steps; no pooled figure."""
    r = parse_log("sglang_issue11948_eagle3_windows.log", "-f", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    (pool,) = doc["log_pools"]
    assert (pool["engine"], pool["statistics"], pool["without_counts"]) == ("sglang", 5, 5)
    assert pool["acceptance_rate"] is None and pool["draft_tokens"] is None and pool["alarm"] is None
    summary = doc["sglang_spec_summary"]
    assert summary["acceptance_rate_at_most"] == 0.54 + 0.005 and summary["verify_steps_at_least"] == 5
    assert (summary["accept_length_min"], summary["accept_length_max"], summary["ranks"]) == (1.80, 2.17, ["TP0"])
    # the decode batches are capacity lines too (sglang adapter): running, queued, token usage x 100, seconds
    stats = doc["stats"]
    assert [(s["line_number"], s["t_s"], s["running_reqs"], s["waiting_reqs"]) for s in stats] == [
        (2, 0.0, 1, 0),
        (3, 0.0, 1, 0),
        (4, 1.0, 1, 0),
        (5, 1.0, 1, 0),
        (6, 1.0, 1, 0),
    ]
    assert [s["generation_throughput_tokens_per_s"] for s in stats] == [0.39, 178.86, 165.41, 188.68, 165.59]
    assert all(s["kv_cache_usage_percent"] == 0.0 for s in stats)
    text = parse_log("sglang_issue11948_eagle3_windows.log")
    assert "server log facts (sglang)" in text.output and "vllm_version" not in text.output
    assert "stats_samples" in text.output


def _mangled(text: str, rnd) -> str:
    """``text`` with about a third of its numbers replaced by one a log should not hold."""
    import re

    swaps = ["9" * 400, "nan", "1e400", "-3", "", "0", "447,637"]
    return re.sub(r"\d+(?:\.\d+)?", lambda m: rnd.choice(swaps) if rnd.random() < 0.3 else m.group(0), text)


def test_mangled_numbers_in_every_form_give_no_crash() -> None:
    """Each engine's lines with their numbers replaced (400 digits, nan, 1e400, negative, empty): the adapters skip
    what they cannot read and the pool never raises (a line's count beyond 64 bits is unreadable, never a figure)."""
    import random

    from specscope.adapters.logs import MAX_COUNT, read_engine_logs, split_log_lines
    from specscope.launch.logpool import log_pool, log_pool_lines

    texts = [p.read_text() for p in sorted(LOGS.glob("*.log"))]
    for i in range(150):
        rnd = random.Random(f"engine-logs:{i}")
        for reading in read_engine_logs(split_log_lines(_mangled(rnd.choice(texts), rnd))):
            pool = log_pool(reading)
            log_pool_lines(pool)
            assert pool.draft_tokens is None or 0 <= pool.draft_tokens <= MAX_COUNT * max(1, pool.statistics)


def test_vllm_v0_restart_counts_from_zero_and_is_said(tmp_path: Path) -> None:
    """A V0 count that goes down is a restart: that line is its own difference (3,000 drafted, 900 emitted over 600
    steps of k = 5), added to the first run's 12,000 / 2,400, never subtracted."""
    line = (
        "INFO 07-10 09:14:{s} metrics.py:316] Speculative metrics: Draft acceptance rate: 0.000, System efficiency: "
        "0.167, Number of speculative tokens: 5, Number of accepted tokens: {a}, Number of draft tokens tokens: {d}, "
        "Number of emitted tokens tokens: {e}."
    )
    log = tmp_path / "v0_restart.log"
    log.write_text(
        "\n".join(
            line.format(s=s, a=a, d=d, e=e)
            for s, a, d, e in (("05", 0, 6000, 1200), ("10", 0, 12000, 2400), ("15", 450, 3000, 900))
        )
    )
    r = CliRunner().invoke(app, ["serve", "--parse-log", str(log), "-f", "json"])
    assert r.exit_code == 1  # 2 % over 3,000 steps, method not in the log: treated as a head
    (pool,) = json.loads(r.output)["log_pools"]
    assert (pool["draft_tokens"], pool["verify_steps"], pool["accepted_tokens"]) == (15000, 3000, 300)
    assert pool["alarm"] == "LOW_ACCEPTANCE(unknown method accepts 2.0% of drafted tokens over 3,000 drafts, < 5%)"
    assert pool["warnings"] == ["COUNTS_WENT_DOWN(line 3: the engine restarted; counted from zero)"]
    total = json.loads(r.output)["spec_decoding_cumulative_total"]
    assert total["counts_went_down"] is True and total["accepted_tokens"] == 450 and total["emitted_tokens"] == 3300


@pytest.mark.parametrize(
    ("name", "rate"),
    [("vllm_0102_throughput_dp2.log", "88.8%"), ("vllm_063_v0_cumulative_spec.log", "46.4%")],
)
def test_the_terminal_screen_shows_each_pooled_figure_once(name: str, rate: str) -> None:
    """A vLLM log's acceptance is pooled once (the engine-neutral pool) and shown once: before, the legacy vLLM rows
    (spec_decoding_*) repeated the pool's rate, length and alarm beside vllm_log_*; V0 keeps its own count apart."""
    r = parse_log(name)
    assert r.exit_code == 0, r.output
    rows = [line for line in r.output.splitlines() if "acceptance_rate" in line]
    assert len(rows) == 1 and rate in rows[0], rows
    assert r.output.count("_alarm") == 1
    assert "spec_decoding_acceptance" not in r.output and "spec_decoding_alarm" not in r.output
    assert ("V0's own count" in r.output) is ("v0" in name)  # the V0 row holds both counts, named
    values = [line.split("│")[2] for line in r.output.splitlines() if line.count("│") == 3]
    assert values and all(v.strip() for v in values)  # no empty row for a fact the log does not state


def test_a_v0_restart_is_told_by_the_engine_start_line_when_the_counts_do_not_fall() -> None:
    """The engine restarted between cumulative lines and already counted 900 drafted (above the 600 before): each run
    is counted from its start (1,800 drafted, 930 accepted over 600 steps), not 1,200 / 610 over 400 as before."""
    code, pool = only_pool("vllm_063_v0_restart_counts_higher.log")
    assert code == 0
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (1800, 930, 600)
    assert pool["acceptance_rate"] == 930 / 1800 and pool["acceptance_length"] == 1 + 930 / 600
    assert any(w.startswith("ENGINE_RESTARTED(line 6") for w in pool["warnings"])


def test_a_gzipped_log_is_read_as_written_and_a_damaged_one_named(tmp_path: Path, capsys, monkeypatch) -> None:
    """A rotated log (logrotate's compress) reads like the plain one; a truncated gzip is exit 2 saying so (it said
    'no server-log line specscope recognises')."""
    import gzip

    plain = json.loads(parse_log("vllm_0102_throughput_dp2.log", "-f", "json").output)["log_pools"]
    packed = tmp_path / "vllm.log.gz"
    packed.write_bytes(gzip.compress((LOGS / "vllm_0102_throughput_dp2.log").read_bytes()))
    r = CliRunner().invoke(app, ["serve", "--parse-log", str(packed), "-f", "json"])
    assert r.exit_code == 0 and json.loads(r.output)["log_pools"] == plain
    damaged = tmp_path / "cut.log.gz"
    damaged.write_bytes(packed.read_bytes()[:60])
    code, _, err = cli(["serve", "--parse-log", damaged], capsys, monkeypatch, tmp_path)
    assert code == 2 and "a damaged gzip file" in err


def test_facts_a_log_does_not_state_are_absent_not_false() -> None:
    """An SGLang log says nothing of vLLM's drafter-loading line or KV layout: drafter_loaded and hybrid_kv are absent
    (null), never False (fresh-user finding, 2026-12-05); a vLLM log whose engine line says no speculation is False."""
    doc = json.loads(parse_log("sglang_issue11948_eagle3_windows.log", "-f", "json").output)
    assert doc["drafter_loaded"] is None and doc["hybrid_kv"] is None
    text = parse_log("sglang_issue11948_eagle3_windows.log").output
    assert "drafter_loaded" not in text and "hybrid_kv" not in text


@pytest.mark.integration
def test_bench_says_the_sglang_windows_bound_and_its_alarm_as_serve_does(tmp_path: Path) -> None:
    """An SGLang log prints no counts, so `serve --parse-log` alarms on the windows' bound (tests/launch/
    test_sglang_log.py); `bench --server-log` said "no counts printed" with no alarm and a pool of >= 0 verify steps."""
    log = LOGS / "sglang_pre23530_bonus_rate_zero_accept.log"
    r = parse_log(log.name, "-f", "json")
    assert r.exit_code == 1, r.output
    doc = json.loads(r.output)
    (pool,) = doc["log_pools"]
    assert pool["verify_steps_at_least"] == 60  # each printed window divided by at least one verify step
    assert pool["acceptance_rate_at_most"] == (1.00 + 0.005 - 1) / 3 and pool["acceptance_rate"] is None
    assert pool["alarm"] == doc["sglang_spec_summary"]["alarm"]  # one rule, one wording: said once
    assert parse_log(log.name).output.count("ALARM") == 1
    plan = ResponsePlan(output_tokens=8, tokens_per_chunk=4)
    with TruthServer(TruthScript(default=plan, metrics=MetricsPlan())) as ts:
        args = ["bench", "--server", f"e3={ts.base_url}", "--server-log", f"e3={log}", "--workloads", "prose"]
        args += ["--max-concurrency", "1", "--repeats", "1", "--max-tokens", "8", "--out", str(tmp_path)]
        b = CliRunner().invoke(app, [*args, "-f", "json"])
    assert b.exit_code == 1, b.output  # the report's alarm now (stats.alarms.log_pool_alarms), as serve's exit 1
    assert "server log e3 (sglang: " in b.stderr and f"ALARM {pool['alarm']}" in b.stderr
    assert "no counts printed; at most 0.2% of drafted tokens accepted over >= 60 verify steps" in b.stderr


def test_a_v1_window_with_accepted_tokens_but_none_drafted_is_no_crash(tmp_path: Path) -> None:
    """A damaged V1 line (accepted > 0, drafted 0) crashed window_steps with a division by zero (exit 3)."""
    log = tmp_path / "v1.log"
    log.write_text(
        "INFO 06-01 10:01:00 [metrics.py:86] SpecDecoding metrics: Mean acceptance length: 0.00, Accepted throughput: "
        "4.37 tokens/s, Drafted throughput: 0.00 tokens/s, Accepted: 262 tokens, Drafted: 0 tokens, Per-position "
        "acceptance rate: 0.000, 0.949, Avg Draft acceptance rate: 0.0%\n",
        encoding="utf-8",
    )
    r = CliRunner().invoke(app, ["serve", "--parse-log", str(log), "-f", "json"])
    assert r.exit_code in (0, 1), r.output
    (pool,) = json.loads(r.output)["log_pools"]
    assert pool["draft_tokens"] == 0 and pool["acceptance_rate"] is None  # 262 / 0: no rate, never a figure


def test_a_vllm_log_written_by_its_json_formatter_is_read_as_its_text_form() -> None:
    """vLLM 0.32's `--logging-config.formatter json` writes one JSON object per record (asctime, levelname, name,
    processName, process, message, vllm_process_name). The windows were found inside the objects, but the
    non-default args (read to the line's end) were lost: an n-gram drafter was an "unknown method" whose low
    acceptance raised LOW_ACCEPTANCE (exit 1), and the version was read as '0.32.0"'."""
    r = parse_log("vllm_0320_json_formatter_ngram.log", "-f", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["vllm_version"] == "0.32.0" and doc["max_model_len_tokens"] == 8192
    assert doc["speculative_config"]["method"] == "ngram"
    (pool,) = doc["log_pools"]
    assert (pool["method"], pool["draft_tokens"], pool["accepted_tokens"], pool["verify_steps"]) == (
        "ngram",
        1200,
        2,
        400,
    )
    assert pool["alarm"] is None  # an n-gram drafter accepting little is not a broken head
    assert doc["stats"][0]["running_reqs"] == 4 and doc["stats"][0]["line_number"] == 5  # line numbers kept


def test_llamacpp_trace_line_of_per_position_rates_is_read(tmp_path: Path) -> None:
    """llama-server prints each request's per-position rates on a line of its own at trace level
    (tools/server/server-context.cpp: ``SLT_TRC(..., "     acc per pos = (%s)\\n", ...)`` after the ``draft acceptance =
    ..., mean len = ...`` line; public copy index id 60244858927): it was left unread (per position "—")."""
    log = tmp_path / "llama.log"
    log.write_text(
        "slot print_timing: id  0 | task 12 | draft acceptance = 0.50000 (  150 accepted /   300 generated), "
        "mean len =  3.00\n"
        "slot print_timing: id  0 | task 12 |      acc per pos = (0.800, 0.600, 0.400, 0.200, 0.000)\n"
        "slot print_timing: id  1 | task 13 | draft acceptance = 0.25000 (   50 accepted /   200 generated), "
        "mean len =  2.25\n"
        "slot print_timing: id  1 | task 13 |      acc per pos = (0.700, 0.400, 0.150, 0.000, 0.000)\n",
        encoding="utf-8",
    )
    r = CliRunner().invoke(app, ["serve", "--parse-log", str(log), "-f", "json"])
    assert r.exit_code == 0, r.output
    (pool,) = json.loads(r.output)["log_pools"]
    assert pool["verify_steps"] == 75 + 40  # 150 / (3.00 - 1), 50 / (2.25 - 1)
    want = [(a * 75 + b * 40) / 115 for a, b in zip((0.8, 0.6, 0.4, 0.2, 0.0), (0.7, 0.4, 0.15, 0.0, 0.0), strict=True)]
    assert pool["acceptance_per_position"] == pytest.approx(want, abs=1e-12)
