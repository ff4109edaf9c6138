"""The compare gate's progress lines do not mark a probe FAIL while its gate passes (user61: `gate --server
base=URL --server spec=URL` against two truth servers printed "base compare cmp-37x24 FAIL no numeric answer" for
both configs, then "Base vs speculative ... PASS 1/1 identical sequences" in the table). A compare probe is judged only
as a pair, base against speculative; its line says that it was sent and what its answer was, never pass or FAIL."""

from __future__ import annotations

import pytest

from clirun import cli
from specscope.truth.process import TruthServer
from specscope.truth.script import TruthScript

pytestmark = pytest.mark.integration


def test_compare_probe_lines_are_not_marked_fail_when_the_pair_passes(tmp_path, capsys, monkeypatch):
    with TruthServer(TruthScript()) as base, TruthServer(TruthScript()) as spec:
        argv = ["gate", "--server", f"base={base.base_url}", "--server", f"spec={spec.base_url}"]
        argv += ["--gate", "compare", "--limit", "1", "--out", tmp_path / "runs", "-f", "json"]
        code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err  # the same answer on both: the one check (base vs spec) passes
    lines = [line.split() for line in err.splitlines() if " compare " in line]
    assert [(w[0], w[1], w[2], w[3]) for w in lines] == [
        ("base", "compare", "cmp-37x24", "sent"),
        ("spec", "compare", "cmp-37x24", "sent"),
    ], err
    assert "FAIL" not in err and err.count("judged as a pair with the baseline") == 2
