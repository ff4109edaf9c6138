"""The ``ACCEPTING_NOTHING`` alarm's fix depends on the drafter: an n-gram drafter has no head to audit (its prompts
held nothing to copy), a draft model or MTP head is audited. A real bench against the truth server, whose /metrics
count drafts and no accepted token, then ``report``."""

from __future__ import annotations

import json

import pytest

from clirun import cli
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

PLAN = ResponsePlan(
    output_tokens=12, tokens_per_chunk=1, finish_reason="length", drafts=4, draft_tokens=12, accepted_per_position=[]
)


def _report(name: str, tmp_path, capsys, monkeypatch) -> str:
    with TruthServer(TruthScript(default=PLAN, metrics=MetricsPlan())) as ts:
        argv = ["bench", "--server", f"{name}={ts.base_url}", "--workloads", "edit", "--max-concurrency", "1"]
        argv += [
            "--repeats",
            "1",
            "--max-tokens",
            "12",
            "--out",
            tmp_path / "runs",
            "-f",
            "json",
            "-o",
            tmp_path / "b.json",
        ]
        code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err
    (run,) = (tmp_path / "runs").iterdir()
    code, out, err = cli(["report", run], capsys, monkeypatch, tmp_path)
    assert "ACCEPTING_NOTHING" in out, out + err
    return " ".join(out.split())


def test_an_ngram_drafter_accepting_nothing_is_not_sent_to_audit(tmp_path, capsys, monkeypatch):
    text = _report("ngram-k8", tmp_path, capsys, monkeypatch)
    assert "specscope audit MODEL" not in text and "draft head" not in text, text
    assert "Check: a workload whose prompts repeat text (--workloads repeat or edit)" in text
    assert (
        "Likely cause: ngram has no weights to check: it drafts by copying what the prompt or the answer already holds"
        in text
    ), text


def test_a_draft_head_accepting_nothing_is_sent_to_audit(tmp_path, capsys, monkeypatch):
    text = _report("mtp", tmp_path, capsys, monkeypatch)
    assert "specscope audit MODEL" in text, text
    assert "n-gram" not in text


def test_advise_prints_the_alarms_report_prints(tmp_path, capsys, monkeypatch):
    # 2026-12-07 (a new user's fresh clone): report and bench printed ACCEPTING_NOTHING for ngram-k8 and exited 1,
    # advise printed only the judgement's alarms and exited 0 (the counters' alarm was added by report alone)
    base = ResponsePlan(output_tokens=12, tokens_per_chunk=1, finish_reason="length")
    with (
        TruthServer(TruthScript(default=base)) as b,
        TruthServer(TruthScript(default=PLAN, metrics=MetricsPlan())) as n,
    ):
        argv = ["bench", "--server", f"base={b.base_url}", "--server", f"ngram-k8={n.base_url}"]
        argv += ["--workloads", "edit", "--max-concurrency", "1", "--repeats", "1", "--max-tokens", "12"]
        code, _, err = cli([*argv, "--out", tmp_path / "runs"], capsys, monkeypatch, tmp_path)
    assert code in (0, 1), err
    (run,) = (tmp_path / "runs").iterdir()
    codes = {}
    for command in ("report", "advise"):
        code, out, err = cli([command, run, "-f", "json"], capsys, monkeypatch, tmp_path)
        doc = json.loads(out)
        codes[command] = (code, sorted(a["code"] for a in doc["alarms"]) if "alarms" in doc else doc)
    assert codes["report"] == codes["advise"], codes
    assert codes["advise"][0] == 1 and "ACCEPTING_NOTHING" in codes["advise"][1]
