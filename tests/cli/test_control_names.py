"""A config named like a control (``BASE-again``, the A/A control of baseline BASE; ``BASE~sentinel``) was taken:
``bench --server base=URL --server base-again=URL2`` judged the user's second server as the A/A control, mixed with
the control's own cells ("two identical servers differ by -99.8 %"), and ``import --config base-again`` made a run
whose headline named base-again as both its baseline and its control (fresh-user finding, user59). Such a name is
refused where a config is named (``specscope.config.check_not_control``), exit 2, before anything runs or is
written."""

from __future__ import annotations

import pytest

from clirun import cli, one_error
from paths import DATA


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (
            ["bench", "--server", "base=http://127.0.0.1:9", "--server", "base-again=http://127.0.0.1:9", "--dry-run"],
            "--server",
        ),
        (["bench", "--configs", "base,ngram-again", "--dry-run"], "--configs"),
        (["gate", "--server", "base=http://127.0.0.1:9", "--server", "base-again=http://127.0.0.1:9"], "--server"),
    ],
)
def test_a_config_named_like_the_aa_control_is_refused(argv, flag, tmp_path, capsys, monkeypatch):
    code, _, err = cli([*argv, "--out", tmp_path / "out"], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2, err
    assert f"of {flag} is the name of a control" in line, line
    assert "-again is the A/A control of the baseline" in line
    assert "fix: rename it, e.g. " in line
    assert not (tmp_path / "out").exists()


def test_import_refuses_a_control_name_and_writes_nothing(tmp_path, capsys, monkeypatch):
    out = tmp_path / "imp"
    argv = ["import", DATA / "imports" / "vllm_base_r0.json", "--config", "base-again", "--out", out]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and "the config name 'base-again' of --config is the name of a control" in line, line
    assert line.endswith(
        "fix: rename it, e.g. --config base2 (the A/A control itself is bench's --aa: it adds base-again on base's "
        "server)"
    )
    assert not out.exists()
