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
        self.tables: list[ReportTable] = bench_tables(self.summaries, baseline=baseline) + server_tables(
            self.server_facts, baseline=baseline
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "run": str(self.path),
            "manifest": self.manifest,
            "server_facts": self.server_facts,
            "cells": [s.to_dict() for s in self.summaries],
            "tables": [t.to_dict() for t in self.tables],
        }


def load_run_report(path: Path | str) -> RunReport:
    """Open a run folder and build its report. Raises StoreError when the folder is not a run."""
    run = open_run(path)
    try:
        return RunReport(run)
    finally:
        run.close()
