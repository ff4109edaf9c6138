"""``bench --server-log NAME=FILE`` says the log's warnings, not only stores them (issue 37).

A stored server log with lines whose numbers cannot be read gave ``LOG_LINE_UNREADABLE`` warnings that bench stored
in the run and never printed: :func:`specscope.bench.server_logs.server_log_lines` said counts, alarms and
inconsistencies only. Now each warning is one ``warning:`` line on stderr, the first five of a log, then a count.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clirun import cli
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

HEAD = "INFO 05-01 12:00:00 [metrics.py:80] SpecDecoding metrics: "


def _line(accepted: str = "12") -> str:
    return (
        f"{HEAD}Mean acceptance length: 2.50, Accepted throughput: 1.20 tokens/s, Drafted throughput: 3.00 "
        f"tokens/s, Accepted: {accepted} tokens, Drafted: 16 tokens, Per-position acceptance rate: 0.750, 0.250, "
        "Avg Draft acceptance rate: 75.0%\n"
    )


def _bench(tmp_path: Path, log: Path, capsys, monkeypatch) -> str:
    plan = ResponsePlan(output_tokens=8, tokens_per_chunk=4, drafts=2, draft_tokens=4, accepted_per_position=[2, 1])
    with TruthServer(TruthScript(default=plan, metrics=MetricsPlan())) as ts:
        args = ["bench", "--server", f"base={ts.base_url}", "--server-log", f"base={log}", "--workloads", "prose"]
        args += ["--max-concurrency", "1", "--repeats", "1", "--max-tokens", "8", "--out", tmp_path / "runs"]
        code, _, err = cli(args, capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err
    return err


@pytest.mark.integration
def test_bench_says_each_unreadable_log_line(tmp_path: Path, capsys, monkeypatch) -> None:
    log = tmp_path / "server.log"
    log.write_text(_line(accepted="1x2") + _line())
    err = _bench(tmp_path, log, capsys, monkeypatch)
    said = [x for x in err.splitlines() if "LOG_LINE_UNREADABLE" in x]
    assert said == [
        "warning: server log base: LOG_LINE_UNREADABLE(line 1: accepted_tokens '1x2' is not a number as the engine "
        "prints it; the line gives no statistic)"
    ], err


@pytest.mark.integration
def test_bench_caps_many_log_warnings_with_a_count(tmp_path: Path, capsys, monkeypatch) -> None:
    log = tmp_path / "server.log"
    log.write_text(_line(accepted="1x2") * 8 + _line())
    err = _bench(tmp_path, log, capsys, monkeypatch)
    said = [x for x in err.splitlines() if x.startswith("warning: server log base:")]
    assert len(said) == 6, err
    assert [x.split("(line ")[1].split(":")[0] for x in said[:5]] == ["1", "2", "3", "4", "5"]
    assert said[5] == "warning: server log base: 3 more warnings of this log (stored in the run)", err
