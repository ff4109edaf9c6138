"""The Run table's max_tokens says that the repeat pack sends its own answer length (fresh-user finding: a run with
--max-tokens 16 --workloads repeat read "max_tokens 16" while every repeat answer was 128 tokens long)."""

from __future__ import annotations

import json

from clirun import cli
from quickrun import make_quick_run


def test_run_table_names_the_repeat_packs_own_length(tmp_path, capsys, monkeypatch):
    run = make_quick_run(tmp_path / "run")
    _, plain, _ = cli(["report", str(run), "-f", "markdown"], capsys, monkeypatch, tmp_path)
    assert "| max_tokens / temperature | 48 / — |" in plain  # no repeat pack: the option alone
    manifest = run / "manifest.json"
    doc = json.loads(manifest.read_text())
    doc["packs"] = {"repeat": {"form": "prefill", "name": "repeat", "seed": 0, "n_prompts": 64}}
    manifest.write_text(json.dumps(doc))
    code, out, err = cli(["report", str(run), "-f", "markdown"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "| max_tokens / temperature | 48 (repeat: 128, its own length) / — |" in out
