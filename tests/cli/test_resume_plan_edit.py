"""``bench --resume`` refuses a run whose manifest plans another matrix than the cells it stores (a hand-edited
``options``), naming what differs, exit 2, nothing written.

Finding (2026-12-07): a finished quick run with ``options.repeats`` set to 4 and ``levels`` to [1] resumed with
progress "[19/12]", and its report mixed the old cells with the new plan.
"""

from __future__ import annotations

import json

from clirun import cli, one_error
from quickrun import make_quick_run


def _snapshot(folder):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_resume_refuses_a_manifest_whose_plan_no_longer_holds_the_stored_cells(tmp_path, capsys, monkeypatch):
    run = make_quick_run(tmp_path / "run")
    manifest = run / "manifest.json"
    m = json.loads(manifest.read_text())
    m["options"] |= {"repeats": 4, "levels": [1]}
    manifest.write_text(json.dumps(m, indent=1))
    before = _snapshot(run)
    code, out, err = cli(["bench", "--resume", run], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2, err
    assert "plans another matrix than the cells it stores" in line, line
    found = "found: 48 planned cells (levels 1, repeats 4); 24 of the 48 stored cells are outside the plan, e.g. "
    assert found + "base/code/c2/r0;" in line, line
    assert f"start a new run for the new plan, or restore {manifest}" in line, line
    assert _snapshot(run) == before


def test_a_resume_refuses_a_plan_grown_past_the_one_the_run_started_with(tmp_path, capsys, monkeypatch):
    run = make_quick_run(tmp_path / "run")
    manifest = run / "manifest.json"
    m = json.loads(manifest.read_text())
    m["options"]["repeats"] = 4  # every stored cell is in the plan; the plan is not the run's
    manifest.write_text(json.dumps(m, indent=1))
    before = _snapshot(run)
    code, out, err = cli(["bench", "--resume", run], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2, err
    assert "found: 96 planned cells (levels 1,2, repeats 4) where the run started with 48;" in line, line
    assert _snapshot(run) == before


def test_a_resume_of_an_unedited_finished_run_has_nothing_to_run(tmp_path, capsys, monkeypatch):
    run = make_quick_run(tmp_path / "run")
    code, out, err = cli(["bench", "--resume", run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "nothing to run: 48 of 48 planned cells are measured" in out + err


def test_a_hand_edited_cells_total_does_not_hide_a_grown_plan(tmp_path, capsys, monkeypatch):
    """Mend 63: the edit that also set ``cells_total`` to the new plan's size (and kept every stored cell inside it)
    resumed: the check trusted the stored total. The plan the run started with is derived from the options it was
    given (``run_options``: the quick profile, 2 repeats), never read from ``cells_total``."""
    run = make_quick_run(tmp_path / "run")
    manifest = run / "manifest.json"
    m = json.loads(manifest.read_text())
    m["options"]["repeats"] = 4
    m["cells_total"] = 96
    manifest.write_text(json.dumps(m, indent=1))
    before = _snapshot(run)
    code, out, err = cli(["bench", "--resume", run], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2, err
    assert "found: 96 planned cells (levels 1,2, repeats 4) where the run started with 48;" in line, line
    assert _snapshot(run) == before


def test_a_stored_total_that_disagrees_with_an_unedited_plan_is_not_a_refusal(tmp_path, capsys, monkeypatch):
    """The other way round: only ``cells_total`` edited (a cache of the plan's size, not the plan): the run's own
    plan is finished, nothing to run."""
    run = make_quick_run(tmp_path / "run")
    manifest = run / "manifest.json"
    m = json.loads(manifest.read_text())
    m["cells_total"] = 7
    manifest.write_text(json.dumps(m, indent=1))
    code, out, err = cli(["bench", "--resume", run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "nothing to run: 48 of 48 planned cells are measured" in out + err
