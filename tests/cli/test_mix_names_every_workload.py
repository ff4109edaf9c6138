"""``--mix`` with several workloads the run lacks names every one of them in the error's first line, for report
and advise alike (before: ``workload 'foo' of the --mix is not in the run``, ``bar`` only in the ``found`` part)."""

from __future__ import annotations

import pytest

from clirun import cli
from quickrun import make_quick_run


@pytest.mark.parametrize("command", ["report", "advise"])
def test_every_unknown_workload_of_the_mix_is_named(command: str, tmp_path, capsys, monkeypatch) -> None:
    run = make_quick_run(tmp_path / "run")
    code, _, err = cli([command, run, "--mix", "prose=1,foo=1,bar=2"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "error: workloads 'foo', 'bar' of the --mix are not in the run; found: foo, bar" in err
    assert "expected: workloads of the run: code, edit, prose" in err


def test_one_unknown_workload_is_named_alone(tmp_path, capsys, monkeypatch) -> None:
    run = make_quick_run(tmp_path / "run")
    code, _, err = cli(["report", run, "--mix", "prose=1,foo=1"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "error: workload 'foo' of the --mix is not in the run; found: foo" in err
