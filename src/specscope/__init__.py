"""specscope: trustworthy speculative-decoding benchmarks, checkpoint audits and draft-head surgery.

The public API is re-exported here and loaded lazily (``import specscope`` stays cheap for the CLI);
``tests/test_public_api.py`` checks that every name in ``__all__`` resolves.

Stages (docs/DESIGN.md): config -> workload -> client -> store -> stats -> report; checkpoint -> audit | surgery;
engine / launch give servers; bench runs the matrix; gate runs quality probes.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# module -> the public names it defines
_MODULES: dict[str, tuple[str, ...]] = {
    # errors and records
    "specscope.errors": ("SpecscopeError", "ConfigError", "StoreError"),
    "specscope.records": ("CellKey", "CellResult", "SpecCounters", "StreamRecord"),
    "specscope.stats.summary": ("CellSummary",),
    # bench
    "specscope.config": ("BenchOptions",),
    "specscope.bench": ("run_bench", "plan_cells"),
    "specscope.store": ("open_run",),
    "specscope.workload": ("load_pack", "chat_request"),
    "specscope.client": ("run_fixed_concurrency", "ClientSettings", "parse_metrics"),
    "specscope.stats": ("counters_delta",),
    "specscope.stats.cells": ("summarize_cell", "summarize_run"),
    # servers
    "specscope.engine": ("EmbeddedServer", "named_configs"),
    "specscope.launch": ("VllmServer", "load_recipes", "parse_vllm_log"),
    "specscope.truth": ("TruthServer",),
    # report, advise, predict
    "specscope.report.build": ("load_run_report",),
    "specscope.stats.judgement": ("judge",),
    "specscope.report.advice": ("advise",),
    "specscope.stats.predict_run": ("predict_run",),
    # checkpoints
    "specscope.checkpoint": ("load_checkpoint",),
    "specscope.audit": ("audit_checkpoint", "byte_census"),
    "specscope.surgery": ("plan_graft", "plan_quantize_draft", "apply_plan", "compare_checkpoints"),
    # gate
    "specscope.gate": ("run_gate_suite",),
}
# public name -> module that defines it
_EXPORTS: dict[str, str] = {name: module for module, names in _MODULES.items() for name in names}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'specscope' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
