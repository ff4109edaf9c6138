"""specscope's own JSON files passed to ``import`` (user61: the chain bench -> report -f json / export --to profile ->
import of that file): the refusal listed their keys ("record 1: alarms, axis, best_k, ...") as for any unknown file.
It now says what the file is and what to do instead: a report's run folder is a run already; a speculation profile
(Model-Optimizer specdec_bench's schema, which ``export --to profile`` writes) holds acceptance per position and no
timing, so no cell."""

from __future__ import annotations

from clirun import cli, one_error, vllm_import_run


def test_own_report_json_and_profile_are_named_in_the_refusal(tmp_path, capsys, monkeypatch):
    run = vllm_import_run(tmp_path, capsys, monkeypatch)
    report = tmp_path / "report.json"
    code, _, err = cli(["report", run, "-o", report], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    code, _, err = cli(["import", report, "--config", "x", "--out", tmp_path / "again"], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2
    assert "looks like specscope's own report (report -f json, schema specscope.report/" in line
    assert f"its run folder {run} is a run already: `specscope report {run}`" in line
    profile = tmp_path / "speculation_profile.json"
    code, _, err = cli(["export", run, "--to", "profile", "-o", tmp_path / "profiles"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    (profile,) = sorted(p for p in (tmp_path / "profiles").iterdir() if p.name != "specscope.json")
    code, _, err = cli(["import", profile, "--config", "x", "--out", tmp_path / "again"], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2
    assert "looks like a speculation profile (speculation_profile.json" in line and "no cell" in line
