"""``report`` reads a run's stored cells once (issue 37): for a run with request rates, a trace or datasets,
``run_data`` read every stream record and gauge sample of the run again for each of its tables (up to five
times), so a cell of 200,000 gauge samples was decoded five times."""

from __future__ import annotations

import json

from run_damage import small_run
from specscope.report.build import load_document
from specscope.store.run import Run


def test_a_rates_run_is_read_once(tmp_path, monkeypatch):
    run_dir = small_run(tmp_path / "r")
    path = run_dir / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["options"].update(rates=[1.0, 2.0], datasets=["speed-bench:qualitative"])
    path.write_text(json.dumps(manifest))
    reads = []
    cells = Run.cells
    monkeypatch.setattr(Run, "cells", lambda self: reads.append(1) or cells(self))
    load_document([run_dir])
    assert len(reads) == 1
