"""``export --to profile`` records the max_tokens the requests were sent with: a run of ``--workloads repeat
--max-tokens 16`` sent 128 (the repeat pack's own length, ``specscope.workload.packs.REPEAT_MAX_TOKENS``), and each
cell stored 128 (``ClientFacts.max_tokens``); the profile said 16, the option."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from clirun import cli
from quickrun import _streams
from specscope.records import CellKey, CellResult, ClientFacts, SpecCounters
from specscope.store import create_run
from specscope.workload.packs import REPEAT_MAX_TOKENS

NS = 1_000_000_000
K = 3


def _run(path: Path) -> Path:
    run = create_run(
        path,
        {
            "kind": "bench",
            "created": "2026-12-02T10:00:00+00:00",
            "engine": "embedded",
            "baseline": "base",
            "options": {
                "configs": ["base", "ngram"], "workloads": ["repeat"], "levels": [1], "repeats": 2, "max_tokens": 16,
            },
            "cells_total": 4,
            "finished": True,
        },
    )  # fmt: skip
    zero = (0.0,) * K
    present = frozenset({"spec", "per_pos", "generation"})
    t = 0
    for r in range(2):
        for c in ("base", "ngram"):
            streams = _streams("repeat", 1, t, 30.0, 1.0)
            end = max(s.end_ns for s in streams)
            gen = frozenset({"generation"})
            before = SpecCounters(generation_tokens=0.0, present=gen)
            after = SpecCounters(generation_tokens=48.0, present=gen)
            if c == "ngram":
                before = SpecCounters(
                    drafts=0.0, draft_tokens=0.0, accepted_tokens=0.0, accepted_per_position=zero,
                    generation_tokens=0.0, present=present,
                )  # fmt: skip
                after = SpecCounters(
                    drafts=8.0, draft_tokens=24.0, accepted_tokens=12.0, accepted_per_position=(6.0, 4.0, 2.0),
                    generation_tokens=48.0, present=present,
                )  # fmt: skip
            cell = CellResult(CellKey(c, "repeat", 1, r), streams, t, end, before, after)
            run.save_cell(replace(cell, client=ClientFacts(max_tokens=REPEAT_MAX_TOKENS)))
            t = end + 5 * NS
    run.close()
    return path


def test_the_profile_records_the_max_tokens_the_requests_were_sent_with(tmp_path, capsys, monkeypatch):
    run = _run(tmp_path / "run")
    target = tmp_path / "p.json"
    code, _, err = cli(["export", run, "--to", "profile", "-o", target], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    conditions = json.loads(target.read_text())["measurement_conditions"]
    assert conditions["workload"] == "repeat" and conditions["max_tokens"] == 128
