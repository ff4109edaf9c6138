"""A refused value of a NAME=VALUE option (``--slo``) is named with its NAME, and the fix's example is a value the
option accepts.

Finding (2026-12-07): `bench --server x=URL --slo tpot=0 --dry-run` said "fix: give --slo a duration above zero,
e.g. --slo 30s", which --slo refuses (it takes NAME=DURATION items).
"""

from __future__ import annotations

import re

import pytest

from clirun import cli, one_error


@pytest.mark.parametrize("slo", ["tpot=0", "ttft=1ns", "tpot=-2s", "tpot=abc"])
def test_the_fix_of_a_refused_slo_is_an_accepted_slo(slo, tmp_path, capsys, monkeypatch):
    argv = ["bench", "--server", "x=http://127.0.0.1:9", "--out", tmp_path / "runs", "--dry-run"]
    code, _, err = cli([*argv, "--slo", slo], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and f"found: {slo}" in line, line
    suggested = re.search(r"fix: .*e\.g\. --slo ([^\s)]+)\)?$", line)
    assert suggested, line
    assert suggested.group(1).startswith(slo.split("=")[0] + "="), line
    code, out, err = cli([*argv, "--slo", suggested.group(1)], capsys, monkeypatch, tmp_path)
    assert code == 0, err
