"""The audit's family line says its count is the family's required tensors (user62): a head that stores more than
its main layer mirrors (a Qwen3.6 MTP head with q/k norms over a main layer without them) printed "12 tensors" beside
the census's "the head's 15 own tensors", two counts of one head under one word."""

from __future__ import annotations

from pathlib import Path

from clirun import cli

from . import qwen36 as q


def test_the_family_line_names_required_tensors(tmp_path: Path, capsys, monkeypatch):
    ck = q.build(tmp_path / "q36")
    code, out, err = cli(["audit", ck, "--width", "200"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "MTP head: Qwen3.5 / Qwen3.6 MTP, 1 layer(s), 15 required tensors" in out
    assert "the head's 15 own tensors once per draft step" in out
