"""What a user reads is words: no Python ``None`` on screen, no "positions 6" that reads as a count of six."""

from __future__ import annotations

from clirun import cli, vllm_import_run
from paths import DATA

ROOFLINE = ["predict", "--bytes-per-step", "17.61GB", "--bandwidth", "273GB/s", "--draft-bytes", "0.85GB"]


def test_predict_names_the_one_extrapolated_draft_position(tmp_path, capsys, monkeypatch):
    code, out, err = cli([*ROOFLINE, "--per-position", "0.8,0.6", "--max-k", "3"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "note: draft position 3 has no published rate: extrapolated with the last conditional rate to 0.450" in out
    assert "positions 3" not in out and "k=3 extrapolated" not in out
    assert "per-position rates published for k=1..2; k=3 has none (extrapolated)" in out, out


def test_predict_names_a_range_of_extrapolated_draft_positions(tmp_path, capsys, monkeypatch):
    code, out, err = cli([*ROOFLINE, "--per-position", "0.8,0.6", "--max-k", "4"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert (
        "note: draft positions 3 to 4 have no published rate: extrapolated with the last conditional rate to 0.450, "
        in out
    )
    assert "k=3 to 4 have none (extrapolated)" in out, out


def test_advise_with_no_pick_says_so_in_words(tmp_path, capsys, monkeypatch):
    run = vllm_import_run(tmp_path, capsys, monkeypatch)
    sglang = DATA / "imports" / "sglang_base.jsonl"
    assert cli(["import", sglang, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    code, out, err = cli(["advise", run, "--level-mix", "2=0.6,4=0.4"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    text = " ".join(out.split())
    assert "None" not in text, out
