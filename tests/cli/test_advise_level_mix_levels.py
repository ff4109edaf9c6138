"""``advise --level-mix`` with ``--max-concurrency``: a level given time outside the advised levels is refused
(it was still used: the dynamic policy advised at level 4 under --max-concurrency 1)."""

from __future__ import annotations

from clirun import cli
from paths import DATA

CSV = DATA / "advise" / "one_repeat.csv"


def test_a_level_mix_level_outside_max_concurrency_is_refused(tmp_path, capsys, monkeypatch):
    argv = ["advise", "--from-csv", CSV, "--level-mix", "1=0.6,4=0.4", "--max-concurrency", "1"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and "--level-mix gives time to level 4, outside --max-concurrency 1" in err
    assert "fix: add 4 to --max-concurrency" in err and not out


def test_a_zero_share_outside_max_concurrency_is_fine(tmp_path, capsys, monkeypatch):
    argv = ["advise", "--from-csv", CSV, "--level-mix", "1=1,4=0", "--max-concurrency", "1", "-f", "json"]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
