"""Every window case of tests/data/engines/window_cases.json (the engines' public /metrics shapes) through the command a
user runs: ``specscope counters BEFORE AFTER -f json`` gives the case's engine, counter deltas, state, acceptance and
named warnings (tests/stats/test_window_cases.py checks the same on the reader itself). docs/engines.md's rules of
the window reading name these cases."""

from __future__ import annotations

import json
from typing import Any

import pytest

from clirun import cli
from paths import DATA

CASES = json.loads((DATA / "engines" / "window_cases.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_counters_reads_each_window_case(case: dict[str, Any], tmp_path, capsys, monkeypatch) -> None:
    before, after = tmp_path / "before.txt", tmp_path / "after.txt"
    before.write_text(case["before"], encoding="utf-8")
    after.write_text(case["after"], encoding="utf-8")
    code, out, err = cli(["counters", str(before), str(after), "-f", "json"], capsys, monkeypatch, tmp_path)
    want = case["expected"]
    assert code in (0, 1), err
    doc = json.loads(out)
    d = doc["deltas"]
    assert doc["engine_kind"] == want["engine_kind"]
    assert (d["drafts"], d["draft_tokens"], d["accepted_tokens"]) == (
        want["drafts"], want["draft_tokens"], want["accepted_tokens"])  # fmt: skip
    assert doc["state"] == want["state"]
    assert (doc["acceptance_rate"], doc["acceptance_length"]) == (want["acceptance_rate"], want["acceptance_length"])
    assert [w.split("(")[0] for w in doc["warnings"]] == want["warnings"], doc["warnings"]
    assert code == (1 if doc["alarms"] else 0)
