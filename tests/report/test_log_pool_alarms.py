"""A server log's pooled alarm and its inconsistencies reach the report (every format) and its exit code.

Before 2026-12-06 ``bench --server-log dm=FILE`` stored the log's pool (``log_pools``: its ``LOW_ACCEPTANCE`` alarm,
the counts that contradict each other) and said it once on stderr, but ``specscope report RUN`` read nothing of it:
a llama.cpp draft model accepting 0 of 1,040 drafted tokens was reported with no alarm and exit 0, while ``serve
--parse-log`` of the same file exits 1. The report now carries each pool's alarm and inconsistencies as alarms of
the config, and exits 1 on them as on the run's own low-acceptance alarm.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clirun import cli
from specscope.cli import app
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

LOGS = Path(__file__).parent.parent / "data" / "engines" / "logs"
# llamacpp_docs_rate_and_statistics.log's request lines, the counts swapped: 30 accepted of 20 drafted
LLAMA_BAD = "slot print_timing: id  0 | task 0 | \ndraft acceptance rate = 1.50000 (   30 accepted /    20 generated)\n"

LOW = "LOW_ACCEPTANCE(draft_model accepts 0.0% of drafted tokens over 130 drafts, < 5%)"
OVER = "ACCEPTED_OVER_DRAFTED(line 2: accepted 30 > draft tokens 20)"

pytestmark = pytest.mark.integration


def _bench(log: Path, out: Path) -> tuple[int, str, Path]:
    plan = ResponsePlan(output_tokens=8, tokens_per_chunk=4)
    with TruthServer(TruthScript(default=plan, metrics=MetricsPlan())) as ts:
        args = ["bench", "--server", f"dm={ts.base_url}", "--server-log", f"dm={log}", "--workloads", "prose"]
        args += ["--max-concurrency", "1", "--repeats", "1", "--max-tokens", "8", "--out", str(out), "-f", "json"]
        r = CliRunner().invoke(app, args)
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return r.exit_code, r.output, run_dir


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str, Path]]:
    root = tmp_path_factory.mktemp("logpool")
    bad = root / "bad.log"
    bad.write_text(LLAMA_BAD, encoding="utf-8")
    return {
        "zero": _bench(LOGS / "llamacpp_embedded_draft_zero_accept.log", root / "zero"),
        "bad": _bench(bad, root / "bad"),
    }


def _alarms(run_dir: Path, capsys, monkeypatch, tmp_path) -> tuple[int, list[dict[str, object]]]:
    code, out, _ = cli(["report", run_dir, "-f", "json"], capsys, monkeypatch, tmp_path)
    return code, [a for s in json.loads(out)["sections"] for a in s["alarms"]]


def test_the_logs_low_acceptance_alarm_is_the_reports_and_exits_1(runs, capsys, monkeypatch, tmp_path) -> None:
    code, alarms = _alarms(runs["zero"][2], capsys, monkeypatch, tmp_path)
    log = [a for a in alarms if a["code"] == "LOW_ACCEPTANCE"]
    assert [(a["config"], a["workload"]) for a in log] == [("dm", None)]
    assert f"server log (llamacpp: draft acceptance, statistics): {LOW}" in str(log[0]["found"])
    assert code == 1
    assert runs["zero"][0] == 1  # bench exits on the report's judgement: the same alarm


def test_the_logs_inconsistencies_are_the_reports_and_exit_1(runs, capsys, monkeypatch, tmp_path) -> None:
    code, alarms = _alarms(runs["bad"][2], capsys, monkeypatch, tmp_path)
    log = [a for a in alarms if a["code"] == "INCONSISTENT"]
    assert [(a["config"], a["workload"]) for a in log] == [("dm", None)]
    assert OVER in str(log[0]["found"])
    assert code == 1
    assert runs["bad"][0] == 1


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_every_format_says_the_logs_alarm(runs, fmt, capsys, monkeypatch, tmp_path) -> None:
    code, out, _ = cli(["report", runs["zero"][2], "-f", fmt], capsys, monkeypatch, tmp_path)
    assert "ALARM LOW_ACCEPTANCE (dm)" in " ".join(out.split()) and code == 1
    code, out, _ = cli(["report", runs["bad"][2], "-f", fmt], capsys, monkeypatch, tmp_path)
    assert "ALARM INCONSISTENT (dm)" in " ".join(out.split()) and code == 1
