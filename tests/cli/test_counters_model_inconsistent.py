"""`counters` of a scrape of several models: a model whose own counters contradict each other gets no figure.

New-user finding (2026-12-06): with two models in one scrape and the second's accepted tokens (120) below the sum of
its per-position counts (900), `counters` withheld the pooled headline for PER_POSITION_SUM but still printed
"model org/other: rate 10.0%  length 1.30" from the same contradictory counts, a figure the one-model screen never
gives (it says "withheld: the counters contradict each other").
"""

from __future__ import annotations

import json

from clirun import cli


def _scrape(model_counts):
    lines = []
    for model, (drafts, drafted, accepted, pos) in model_counts.items():
        labels = f'engine="0",model_name="{model}"'
        lines += [
            f"vllm:spec_decode_num_drafts_total{{{labels}}} {drafts}",
            f"vllm:spec_decode_num_draft_tokens_total{{{labels}}} {drafted}",
            f"vllm:spec_decode_num_accepted_tokens_total{{{labels}}} {accepted}",
            *(
                f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{{labels},position="{i}"}} {p}'
                for i, p in enumerate(pos)
            ),
        ]
    return "\n".join(lines) + "\n"


def test_a_model_whose_counters_contradict_each_other_gets_no_rate(tmp_path, capsys, monkeypatch):
    zero = (0, 0, 0, (0, 0, 0))
    before = _scrape({"org/model": zero, "org/other": zero})
    after = _scrape({"org/model": (400, 1200, 900, (320, 300, 280)), "org/other": (400, 1200, 120, (320, 300, 280))})
    (tmp_path / "b.prom").write_text(before)
    (tmp_path / "a.prom").write_text(after)
    code, out, err = cli(["counters", tmp_path / "b.prom", tmp_path / "a.prom"], capsys, monkeypatch, tmp_path)
    assert code == 1, err
    assert "model org/model: rate 75.0%  length 3.25" in out
    assert "model org/other: withheld: its counters contradict each other (INCONSISTENT below)" in out, out
    code, out, _ = cli(
        ["counters", tmp_path / "b.prom", tmp_path / "a.prom", "-f", "json"], capsys, monkeypatch, tmp_path
    )
    other = json.loads(out)["models"]["org/other"]
    assert other["acceptance_rate"] is None and other["acceptance_length"] is None
    assert other["acceptance_per_position"] == [] and other["accepted_tokens"] == 120
