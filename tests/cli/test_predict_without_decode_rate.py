"""``predict RUN`` on answers of one token (user61: `bench --max-tokens 1`, then `predict RUN`): no cell has a time
per output token, so the model was fitted on aggregate output tok/s (prefill included) and printed an "effective
bandwidth" of 0.09 GB/s for a 0.1 GB model at ~40 decode tok/s, with no word that its rows were not decode figures.
The rows say ``output`` and one note names them and why."""

from __future__ import annotations

import json

from clirun import cli
from quickrun import make_quick_run

WORKLOADS = ("prose", "code", "edit")


def test_rows_without_a_decode_rate_are_named_in_a_note(tmp_path, capsys, monkeypatch):
    run = make_quick_run(tmp_path / "run", tokens={(r, w): 1 for r in (0, 1) for w in WORKLOADS})
    code, out, err = cli(["predict", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    doc = json.loads(out)
    assert {c["rate_source"] for c in doc["cells"]} == {"output"}
    (note,) = [n for n in doc["notes"] if "no time per output token" in n]
    assert note.startswith("base, base-again, draft, ngram: no time per output token")
    assert "prefill (TTFT) included" in note and "--max-tokens 2" in note


def test_a_run_with_decode_rates_has_no_such_note(tmp_path, capsys, monkeypatch):
    code, out, err = cli(["predict", make_quick_run(tmp_path / "run"), "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    doc = json.loads(out)
    assert {c["rate_source"] for c in doc["cells"]} == {"decode"}
    assert not [n for n in doc["notes"] if "no time per output token" in n]
