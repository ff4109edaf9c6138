"""`specscope report GATE_RUN` prints what `specscope gate` printed for the same run.

New-user finding (2026-12-06): `specscope gate --server base=URL --server mtp=URL --gate arithmetic` printed the
quality-gate table only, but `specscope report` of the same run folder printed it followed by an empty
"Thinking termination" table (a header and no row) for a gate that never ran.
"""

from __future__ import annotations

from clirun import cli
from specscope.gate import write_gate_run
from specscope.gate.model import GateRun, GateVerdict


def _arithmetic_only(tmp_path):
    verdicts = (
        GateVerdict("arithmetic", "base", 0, 2, False, "0 of 2 answers right"),
        GateVerdict("arithmetic", "mtp", 0, 2, False, "0 of 2 answers right"),
    )
    return write_gate_run(GateRun(({"name": "base"}, {"name": "mtp"}), (), (), verdicts), tmp_path / "g")


def test_report_of_a_gate_run_without_thinking_probes_has_no_thinking_table(tmp_path, capsys, monkeypatch):
    folder = _arithmetic_only(tmp_path)
    code, out, err = cli(["report", folder], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "Arithmetic word problems" in out and "FAIL 0/2" in out
    assert "Thinking termination" not in out, out
