"""A cell's gauge samples are stored as facts beside its streams and come back exactly; runs without them still
open (a schema-1 run, a schema-2 cell stored without samples)."""

from __future__ import annotations

import dataclasses

from factmaker import cell_facts, schema1_run
from specscope.records import GaugeSample
from specscope.stats.cells import summarize_run
from specscope.store import create_run, open_run


def test_gauge_samples_round_trip_and_give_the_summary_figures(tmp_path):
    samples = (GaugeSample(1_000, 3.0, 5.0), GaugeSample(2_000, 3.0, 4.0), GaugeSample(3_000_000_001, 2.0, 0.0))
    with create_run(tmp_path / "r", {"kind": "bench"}) as run:
        run.save_cell(dataclasses.replace(cell_facts("base", "prose", 8, 0, 100.0), gauges=samples))
        run.save_cell(cell_facts("base", "prose", 8, 1, 100.0))
    with open_run(tmp_path / "r") as run:
        cells = run.cells()
        summaries = summarize_run(run)
    assert [c.gauges for c in cells] == [samples, ()]
    assert summaries[0].running_max == 3.0 and summaries[0].waiting_max == 5.0 and summaries[0].gauge_samples == 3
    assert summaries[1].running_concurrency is None and summaries[1].gauge_samples == 0


def test_resaving_a_cell_replaces_its_samples(tmp_path):
    facts = dataclasses.replace(cell_facts("base", "prose", 2, 0, 100.0), gauges=(GaugeSample(5, 1.0, 0.0),))
    with create_run(tmp_path / "r", {"kind": "bench"}) as run:
        run.save_cell(facts)
        run.save_cell(dataclasses.replace(facts, gauges=()))
        assert run.cells()[0].gauges == ()


def test_a_schema1_run_reads_without_samples(tmp_path):
    with open_run(schema1_run(tmp_path)) as run:
        cells = run.cells()
    assert cells and all(c.gauges == () for c in cells)
