"""Issue 37 ("typed at every edge"): a server log's counts go through the same consistency rules as ``counters``
(:func:`specscope.stats.counters.count_violations`, one home). A fresh-clone trial gave ``serve --parse-log`` a vLLM
window with 900 accepted of 600 drafted and per-position rates ``1.700, nan, 0.300``: it printed 150.0%, ``[1.7]``
(the nan and the position after it dropped), ``alarm none``, exit 0. Now each violated check is named by its code and
line, the impossible figure stays shown but marked, a nan position stays absent at its index, and the exit is 1 as
``counters`` exits on counters that contradict each other. ``bench --server-log`` says the same of the log it stores.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clirun import cli
from specscope.cli import app
from specscope.launch.serverlog import read_server_log
from specscope.store import open_run
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

LOGS = Path(__file__).parent.parent / "data" / "engines" / "logs"

# vllm_pr24127_ngram_k5_throughput_window.log's line form, its numbers changed to impossible ones
V1_BAD = (
    "INFO 12-01 10:00:00 [metrics.py:100] SpecDecoding metrics: Mean acceptance length: 2.50, Accepted throughput: "
    "9.00 tokens/s, Drafted throughput: 6.00 tokens/s, Accepted: 900 tokens, Drafted: 600 tokens, Per-position "
    "acceptance rate: 1.700, nan, 0.300, Avg Draft acceptance rate: 150.0%\n"
)
# llamacpp_docs_rate_and_statistics.log's request lines, the counts swapped: 30 accepted of 20 drafted
LLAMA_BAD = "slot print_timing: id  0 | task 0 | \ndraft acceptance rate = 1.50000 (   30 accepted /    20 generated)\n"

V1_OVER = "ACCEPTED_OVER_DRAFTED(line 1: accepted 900 > draft tokens 600)"
V1_RATE = "PER_POSITION_RATE(line 1: position 1 rate 1.7 > 1; position 2 rate nan)"
LLAMA_OVER = "ACCEPTED_OVER_DRAFTED(line 2: accepted 30 > draft tokens 20)"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad.log"
    path.write_text(text, encoding="utf-8")
    return path


def _rows(out: str) -> dict[str, list[str]]:
    """The table's rows, label -> values (a label may repeat)."""
    rows: dict[str, list[str]] = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if len(cells) == 2:
            rows.setdefault(cells[0], []).append(cells[1])
    return rows


def test_v1_window_accepting_more_than_drafted_is_named_marked_and_exits_1(capsys, monkeypatch, tmp_path) -> None:
    log = _write(tmp_path, V1_BAD)
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = cli(["serve", "--parse-log", log], capsys, monkeypatch, tmp_path)
    assert code == 1, out + err
    rows = _rows(out)
    assert rows["vllm_log_acceptance_rate"] == ["150.0% (INCONSISTENT: ACCEPTED_OVER_DRAFTED)"]
    assert rows["vllm_log_per_position"] == ["170.0%, —, 30.0% (INCONSISTENT: PER_POSITION_RATE)"]
    assert rows["vllm_log_inconsistency"] == [V1_OVER, V1_RATE]
    assert rows["vllm_log_alarm"] == ["none"]
    assert f"INCONSISTENT vllm {V1_OVER}" in out and f"INCONSISTENT vllm {V1_RATE}" in out


def test_v1_window_json_keeps_the_figure_and_the_nan_position_absent(capsys, monkeypatch, tmp_path) -> None:
    log = _write(tmp_path, V1_BAD)
    code, out, _ = cli(["serve", "--parse-log", log, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 1
    doc = json.loads(out)
    (window,) = doc["spec_decoding"]
    assert window["per_position_acceptance_rates"] == [1.7, None, 0.3]  # position 3 kept at its index
    (pool,) = doc["log_pools"]
    assert pool["inconsistencies"] == [V1_OVER, V1_RATE]
    assert (pool["draft_tokens"], pool["accepted_tokens"], pool["acceptance_rate"]) == (600, 900, 1.5)
    assert pool["acceptance_per_position"] == [pytest.approx(1.7), None, pytest.approx(0.3)]
    assert doc["spec_decoding_pooled"]["inconsistencies"] == [V1_OVER, V1_RATE]
    assert doc["spec_decoding_pooled"]["acceptance_per_position"] == [pytest.approx(1.7), None, pytest.approx(0.3)]


def test_llamacpp_request_accepting_more_than_drafted_is_named_and_exits_1(capsys, monkeypatch, tmp_path) -> None:
    log = _write(tmp_path, LLAMA_BAD)
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = cli(["serve", "--parse-log", log], capsys, monkeypatch, tmp_path)
    assert code == 1
    rows = _rows(out)
    assert rows["llamacpp_log_acceptance_rate"] == ["150.0% (INCONSISTENT: ACCEPTED_OVER_DRAFTED)"]
    assert rows["llamacpp_log_inconsistency"] == [LLAMA_OVER]
    code, out, _ = cli(["serve", "--parse-log", log, "-f", "json"], capsys, monkeypatch, tmp_path)
    (pool,) = json.loads(out)["log_pools"]
    assert code == 1 and pool["inconsistencies"] == [LLAMA_OVER] and pool["acceptance_rate"] == 1.5


# vLLM main's line (vllm/v1/spec_decode/metrics.py: "Rejected: %d tokens, Effective tokens/forward: %.2f, ..."):
# 600 drafted of k=3 is 200 steps, 500 accepted (length 3.50, per position 0.9 + 0.8 + 0.8 = 2.5 per step)
V1_MAIN = (
    "INFO 12-01 10:00:00 [metrics.py:100] SpecDecoding metrics: Mean acceptance length: 3.50, Accepted throughput: "
    "50.00 tokens/s, Drafted throughput: 60.00 tokens/s, Accepted: 500 tokens, Drafted: 600 tokens, Rejected: {} "
    "tokens, Effective tokens/forward: 3.50, Proposer latency: 0.010000 s, Verification latency: 0.020000 s, "
    "Per-position acceptance rate: 0.900, 0.800, 0.800, Avg Draft acceptance rate: 83.3%\n"
)


def test_v1_rejected_count_is_cross_checked(capsys, monkeypatch, tmp_path) -> None:
    """The "Rejected" count docs/engines.md calls a cross-check of drafted - accepted is one: ``SPEC_IDENTITY``."""
    for rejected, code_expected, said in (
        (50, 1, ["SPEC_IDENTITY(line 1: rejected 50 != drafted 600 - accepted 500)"]),
        (100, 0, []),
    ):
        log = _write(tmp_path, V1_MAIN.format(rejected))
        code, out, _ = cli(["serve", "--parse-log", log, "-f", "json"], capsys, monkeypatch, tmp_path)
        (pool,) = json.loads(out)["log_pools"]
        assert (code, pool["inconsistencies"], pool["acceptance_rate"]) == (code_expected, said, 500 / 600)


def test_no_log_of_the_corpus_is_inconsistent() -> None:
    """The real logs (idle windows printing nan among them) contradict nothing: the rules raise no false alarm."""
    for path in sorted(LOGS.glob("*.log")):
        if path.name.startswith("not_a_server_log"):  # refused by design (another tool's output among them)
            continue
        log = read_server_log(path)
        assert [r for p in log.pools for r in p.inconsistencies] == [], path.name


@pytest.mark.integration
def test_bench_server_log_names_the_same_inconsistency(tmp_path: Path) -> None:
    log = _write(tmp_path, LLAMA_BAD)
    plan = ResponsePlan(output_tokens=8, tokens_per_chunk=4)
    with TruthServer(TruthScript(default=plan, metrics=MetricsPlan())) as ts:
        args = ["bench", "--server", f"dm={ts.base_url}", "--server-log", f"dm={log}", "--workloads", "prose"]
        args += ["--max-concurrency", "1", "--repeats", "1", "--max-tokens", "8", "--out", str(tmp_path / "runs")]
        r = CliRunner().invoke(app, [*args, "-f", "json"])
    said = (
        "server log dm (llamacpp: draft acceptance rate): 20 drafted, 30 accepted (150.0%) over >= 1 steps; "
        f"INCONSISTENT {LLAMA_OVER}"
    )
    assert said in r.stderr, r.stderr
    (run_dir,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    with open_run(run_dir) as run:
        (pool,) = run.server_facts.of("dm").stored["log_pools"]
    assert pool["inconsistencies"] == [LLAMA_OVER]
