"""`specscope import` says, when it is done, which of the run's cells have no baseline cell to be compared with.

New-user finding (2026-12-06): `import base_r*.json --config base --workload chat --out RUN`, then
`import mtp_r*.json --config mtp --out RUN` (no --workload: the files name none, so `imported`) printed two cells
imported and exit 0; `report RUN` then said only "nothing is judged to beat the baseline base: no comparison has a
paired round", and nothing said that the two configs sit on different workloads.
"""

from __future__ import annotations

from clirun import cli
from paths import DATA

MTP = [DATA / "imports" / f"vllm_mtp_r{i}.json" for i in (0, 1)]
BASE = [DATA / "imports" / f"vllm_base_r{i}.json" for i in (0, 1)]


def test_a_config_on_a_workload_the_baseline_lacks_is_named_with_the_fix(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    argv = ["import", *BASE, "--config", "base", "--workload", "chat", "--out", run]
    assert cli(argv, capsys, monkeypatch, tmp_path)[0] == 0
    code, out, err = cli(["import", *MTP, "--config", "mtp", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert warnings == [
        "warning: mtp/imported/c2 has no cell of the baseline base to be compared with: report will judge no "
        "speedup for it; found: base/chat/c2; expected: base/imported/c2; fix: import both configs' files into a new "
        "--out with one --workload (e.g. --workload chat for both)"
    ], err


def test_matching_imports_warn_nothing(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    assert cli(["import", *BASE, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    code, _, err = cli(["import", *MTP, "--config", "mtp", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 0 and "warning:" not in err, err


def test_report_says_why_the_comparisons_table_is_empty(tmp_path, capsys, monkeypatch):
    """The same run's `report` printed "Comparisons with base (cells paired nearest in time)" over no row: no pairing
    took place, and the run's cells were imported, not measured in time."""
    run = tmp_path / "run"
    argv = ["import", *BASE, "--config", "base", "--workload", "chat", "--out", run]
    assert cli(argv, capsys, monkeypatch, tmp_path)[0] == 0
    assert cli(["import", *MTP, "--config", "mtp", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    code, out, err = cli(["report", run, "--width", "200"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "Comparisons with base (none: no other config has cells at a workload and level of the baseline's)" in out
    assert "paired nearest in time" not in out
