"""specscope.gate: quality gates a speculative deployment must pass before its speed is trusted.

Public API::

    load_profile(path=None) -> GateProfile
    load_suite(profile, gates=None) -> dict[str, list[Probe]]
    run_gate_suite(targets: list[Target], profile=None, *, gates=None, backend=None, on_result=None) -> GateRun
    write_gate_run(run, folder) -> Path          # manifest.json ("kind": "gate") + gate.json
    load_gate_run(path) -> GateRun
    render_gate_table(run) -> rich.table.Table
    render_thinking_table(run) -> rich.table.Table
    render_gate_markdown(run) -> str
    summary_line(run) -> str

Checkers (pure, on recorded outputs) live in :mod:`specscope.gate.checks`; the code sandbox in
:mod:`specscope.gate.sandbox`.
"""

from specscope.gate.model import GATES, Check, Comparison, GateRun, GateVerdict, Probe, ProbeOutput, ProbeResult
from specscope.gate.probes import load_suite
from specscope.gate.profile import GateProfile, load_profile
from specscope.gate.render import render_gate_markdown, render_gate_table, render_thinking_table, summary_line
from specscope.gate.runner import Target, run_gate_suite
from specscope.gate.store import load_gate_run, write_gate_run

__all__ = [
    "GATES",
    "Check",
    "Comparison",
    "GateRun",
    "GateVerdict",
    "Probe",
    "ProbeOutput",
    "ProbeResult",
    "GateProfile",
    "load_profile",
    "load_suite",
    "Target",
    "run_gate_suite",
    "write_gate_run",
    "load_gate_run",
    "render_gate_table",
    "render_thinking_table",
    "render_gate_markdown",
    "summary_line",
]
