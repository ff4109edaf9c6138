"""A cell of 200,000 gauge samples (a long cell sampled a few times a second, or a hand-made run): its capacity
figures are exact, and the run is summarised in bounded time (issue 37: 200,000 samples in one cell made
``specscope report`` take 11 s; the summary walked them in Python several times, sorted them as objects and looped
over them for the time weights; it now reads them into arrays once)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from test_running_capacity import stream

from factmaker import cell_facts
from specscope.config import BenchOptions
from specscope.records import GaugeSample
from specscope.stats.capacity import capacity, queue_mean_s
from specscope.stats.cells import summarize_run
from specscope.store import create_run, open_run

N = 200_000
MS = 1_000_000


def _samples() -> tuple[GaugeSample, ...]:
    """N samples 1 ms apart from t=0, stored in reverse order: running alternates 0 and 2 (mean 1 exactly), waiting 3
    on every fourth (mean 0.75); the queue histogram grows by 0.5 s and 1 request per sample."""
    return tuple(GaugeSample(i * MS, 2.0 * (i % 2), 3.0 * (i % 4 == 0), 0.5 * i, float(i)) for i in reversed(range(N)))


def test_capacity_of_200000_samples_is_exact():
    # one stream 0..N ms, requested 1: the offered window is the last send + 20 ms to the first end - 20 ms
    cap = capacity(_samples(), [stream(0, N)], requested=1)
    assert cap is not None and cap.window == "offered"
    assert cap.samples == N - 40 + 1  # 20 ms .. N-20 ms, both ends inside
    assert (cap.running_concurrency, cap.waiting_mean) == (1.0, 0.75)
    assert (cap.running_max, cap.waiting_max) == (2.0, 3.0)
    assert queue_mean_s(_samples()) == 0.5


def _run(path: Path) -> Path:
    opts = BenchOptions(configs=("base",), workloads=("prose",), levels=(1,), repeats=1)
    run = create_run(path, {"kind": "bench", "options": opts.model_dump(mode="json"), "baseline": "base"})
    c = cell_facts("base", "prose", 1, 0, 100.0)
    end = max(s.end_ns for s in c.streams)
    gauges = tuple(GaugeSample(i * (end // N), float(i % 3), 0.0) for i in range(N))
    run.save_cell(c.__class__(**{**{f: getattr(c, f) for f in c.__dataclass_fields__}, "gauges": gauges}))
    run.close()
    return path


@pytest.mark.timing
def test_a_cell_of_200000_samples_is_summarised_in_bounded_time(tmp_path):
    """Measured 1.3 s on a loaded 2-core machine (2.4 s before the change); the bound is 8 s."""
    with open_run(_run(tmp_path / "r")) as run:
        t0 = time.perf_counter()
        (cell,) = summarize_run(run)
        took = time.perf_counter() - t0
    assert (cell.config, cell.concurrency) == ("base", 1) and cell.gauge_samples
    assert took < 8.0, f"{took:.1f} s"
