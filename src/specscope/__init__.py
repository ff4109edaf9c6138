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

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # errors and records
    "SpecscopeError": "specscope.errors",
    "ConfigError": "specscope.errors",
    "StoreError": "specscope.errors",
    "CellKey": "specscope.records",
    "CellResult": "specscope.records",
    "SpecCounters": "specscope.records",
    "StreamRecord": "specscope.records",
    "CellSummary": "specscope.stats.summary",
    # bench
    "BenchOptions": "specscope.config",
    "run_bench": "specscope.bench",
    "plan_cells": "specscope.bench",
    "open_run": "specscope.store",
    "load_pack": "specscope.workload",
    "chat_request": "specscope.workload",
    "run_fixed_concurrency": "specscope.client",
    "ClientSettings": "specscope.client",
    "parse_metrics": "specscope.client",
    "counters_delta": "specscope.stats",
    "summarize_cell": "specscope.stats.cells",
    "summarize_run": "specscope.stats.cells",
    # servers
    "EmbeddedServer": "specscope.engine",
    "named_configs": "specscope.engine",
    "VllmServer": "specscope.launch",
    "load_recipes": "specscope.launch",
    "parse_vllm_log": "specscope.launch",
    "TruthServer": "specscope.truth",
    # report, advise, predict
    "load_run_report": "specscope.report.build",
    "paired_speedups": "specscope.stats.speedup",
    "advise": "specscope.report.advice",
    "predict_run": "specscope.stats.predict_run",
    # checkpoints
    "load_checkpoint": "specscope.checkpoint",
    "audit_checkpoint": "specscope.audit",
    "byte_census": "specscope.audit",
    "plan_graft": "specscope.surgery",
    "plan_quantize_draft": "specscope.surgery",
    "apply_plan": "specscope.surgery",
    "compare_checkpoints": "specscope.surgery",
    # gate
    "run_gate_suite": "specscope.gate",
}

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
