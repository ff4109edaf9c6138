"""Assemble a report document for one or more runs (the data behind every output format)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from specscope.report.server_facts import server_tables
from specscope.report.tables import ReportTable, bench_tables
from specscope.store import Run, open_run

__all__ = ["RunReport", "load_run_report"]


class RunReport:
    """One run's report: manifest, cell summaries, server facts and tables."""

    def __init__(self, run: Run):
        self.path = run.path
        self.manifest = run.manifest
        self.summaries = run.summaries()
        self.server_facts = run.server_facts
        baseline = self.manifest.get("baseline") or "base"
        self.tables: list[ReportTable] = (
            [run_table(self.manifest, self.server_facts, len(self.summaries), self.path)]
            + bench_tables(self.summaries, baseline=baseline)
            + server_tables(self.server_facts, baseline=baseline)
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "run": str(self.path),
            "manifest": self.manifest,
            "server_facts": self.server_facts,
            "cells": [s.to_dict() for s in self.summaries],
            "tables": [t.to_dict() for t in self.tables],
        }


def run_table(manifest: dict[str, Any], facts: dict[str, dict[str, Any]], cells_stored: int, path: Path) -> ReportTable:
    """What was run: engine, model per config, request options, progress of the matrix, machine."""
    opts = manifest.get("options") or {}
    planned = manifest.get("cells_total")
    finished = manifest.get("finished")
    crashes = manifest.get("crashes") or {}
    if planned is None:
        progress = f"{cells_stored} cells stored"
    else:
        progress = f"{cells_stored} of {planned} cells" + (
            "" if finished else f" — INCOMPLETE: finish it with `specscope bench --resume {path}`"
        )
    if crashes:
        progress += f"; sweeps stopped by a server crash: {', '.join(crashes)}"
    models = sorted(
        {
            str((f.get("model") or {}).get("name") if isinstance(f.get("model"), dict) else f.get("model"))
            for f in facts.values()
            if f.get("model")
        }
    )
    machine = manifest.get("machine") or {}
    rows = [
        ["engine", str(manifest.get("engine"))],
        ["model", ", ".join(models) or "—"],
        ["configs", ", ".join(opts.get("configs", []))],
        ["baseline", str(manifest.get("baseline"))],
        ["workloads", ", ".join(f"{w} ({p.get('form', '')})" for w, p in (manifest.get("packs") or {}).items())],
        ["levels x repeats", f"{opts.get('levels')} x {opts.get('repeats')}"],
        ["max_tokens / temperature", f"{opts.get('max_tokens')} / {opts.get('temperature')}"],
        ["prefix cache", str(opts.get("prefix_cache", "allow"))],
        ["cells", progress],
        ["machine", f"{machine.get('cpu', '')} ({machine.get('cpu_count')} cores)"],
        ["created", str(manifest.get("created"))],
    ]
    return ReportTable(
        "Run",
        ["what", "value"],
        rows,
        "Tokens from usage.completion_tokens; acceptance from /metrics counter deltas around each cell.",
        key="run",
    )


def load_run_report(path: Path | str) -> RunReport:
    """Open a run folder and build its report. Raises StoreError when the folder is not a run."""
    run = open_run(path)
    try:
        return RunReport(run)
    finally:
        run.close()
