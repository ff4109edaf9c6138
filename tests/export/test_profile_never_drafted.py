"""``export --to profile``: positions never drafted are not written as measured 0.0 rates (an n-gram config whose
only draft was 13 tokens long, its per-position counter 64 long: positions 14..64 were never drafted)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from clirun import cli
from paths import DATA
from quickrun import _streams
from specscope.records import CellKey, CellResult, SpecCounters
from specscope.store import create_run

SCHEMA = json.loads((DATA / "profile" / "speculation_profile.schema.json").read_text())
NS = 1_000_000_000
K = 64


def _run(path: Path) -> Path:
    run = create_run(
        path,
        {
            "kind": "bench",
            "created": "2026-12-02T10:00:00+00:00",
            "engine": "embedded",
            "baseline": "base",
            "options": {"configs": ["base", "ngram"], "workloads": ["edit"], "levels": [1], "repeats": 2},
            "cells_total": 4,
            "finished": True,
        },
    )
    zero = (0.0,) * K
    t = 0
    for r in range(2):
        for c in ("base", "ngram"):
            streams = _streams("edit", 1, t, 30.0, 1.0)
            end = max(s.end_ns for s in streams)
            if c == "base":
                gen = frozenset({"generation"})
                before = SpecCounters(generation_tokens=0.0, present=gen)
                after = SpecCounters(generation_tokens=48.0, present=gen)
            else:  # one draft of 13 tokens in round 0, none in round 1; 5 accepted (positions 1..5)
                present = frozenset({"spec", "per_pos", "generation"})
                per = (1.0,) * 5 + (0.0,) * (K - 5) if r == 0 else zero
                drafts, drafted, accepted = (1.0, 13.0, 5.0) if r == 0 else (0.0, 0.0, 0.0)
                before = SpecCounters(
                    drafts=0.0, draft_tokens=0.0, accepted_tokens=0.0, accepted_per_position=zero,
                    generation_tokens=0.0, present=present,
                )  # fmt: skip
                after = SpecCounters(
                    drafts=drafts, draft_tokens=drafted, accepted_tokens=accepted, accepted_per_position=per,
                    generation_tokens=48.0, present=present,
                )  # fmt: skip
            run.save_cell(CellResult(CellKey(c, "edit", 1, r), streams, t, end, before, after))
            t = end + 5 * NS
    run.close()
    return path


def test_positions_never_drafted_are_not_written_as_zero_rates(tmp_path, capsys, monkeypatch):
    run = _run(tmp_path / "run")
    target = tmp_path / "p.json"
    code, _, err = cli(["export", run, "--to", "profile", "-o", target], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    profile = json.loads(target.read_text())
    jsonschema.validate(profile, SCHEMA)
    # positions 14..64 were never drafted (13 draft tokens in 1 draft): the rates stop at position 13
    assert len(profile["marginal_accept_rates"]) == len(profile["conditional_accept_rates"]) == 13
    assert profile["marginal_accept_rates"][:5] == [1.0] * 5
    (entry,) = json.loads((tmp_path / "p.specscope.json").read_text())["profiles"]
    assert entry["positions_never_drafted"] == [14, K]
    assert "positions 14..64 were never drafted" in err
