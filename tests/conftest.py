"""Fixtures shared across test folders."""

from __future__ import annotations

import fcntl
import os
import signal
from pathlib import Path

import pytest

from hangguard import HANG_S
from specscope.client.workers import run_in_workers
from specscope.engine.server import EmbeddedServer
from specscope.truth.process import TruthServer
from specscope.truth.router import Router

# The ground-truth server and router wait 30 s for their child's LISTENING line (a user's limit). Under three
# `make test` runs at once a child's Python start-up took longer (2026-12-07, at nice 19, load 15: "the ground-truth
# server not healthy after 30 s; found: no LISTENING line after 30 s"), so in the suite their default limit is the
# hang guard (issue 37); a test that passes its own start_timeout_s keeps it.
TruthServer.__init__.__kwdefaults__["start_timeout_s"] = HANG_S
Router.__init__.__kwdefaults__["start_timeout_s"] = HANG_S
# The same for the embedded engine's start (120 s: llama.cpp loading a model) and the client's spawned workers'
# start (120 s: spawn and imports), for the tests and the in-process bench runs that take their defaults.
EmbeddedServer.__init__.__kwdefaults__["start_timeout_s"] = HANG_S
run_in_workers.__kwdefaults__["start_timeout_s"] = HANG_S

# A shell that starts the suite in the background (`make test &`) ignores SIGINT, and every child process inherits
# that: the tests that press Ctrl-C on a subprocess would see nothing happen. A caught disposition here resets to the
# default in each child at exec, so their Python installs its KeyboardInterrupt handler as in a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def embedded_run(tmp_path_factory) -> Path:
    """One tiny matrix on the real embedded engine (llama.cpp via xllamacpp, SmolLM2-135M), shared by the
    bench, report and advise tests that need a real run: base and draft x prose and edit (its 2 shortest modules) x
    N=1,2 x 2 repeats."""
    pytest.importorskip("xllamacpp")
    from specscope.bench import run_bench
    from specscope.config import BenchOptions

    # Built once per test session, also under pytest-xdist (`make test` runs two workers): the workers share the
    # session's base folder, and the first to take the lock builds the run while the other waits for it.
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out = shared / "embedded-runs"
    run_dir = out / "embedded"
    with open(shared / "embedded-runs.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / "built").exists():
            options = BenchOptions(  # edit: its 2 shortest modules (prefill-bound cells; CI 2026-12-05: 577 s)
                configs=("base", "draft"),
                workloads=("prose", "edit"),
                levels=(1, 2),
                repeats=2,
                max_tokens=32,
                edit_shortest=2,
            )
            out.mkdir(parents=True, exist_ok=True)
            run_bench(options, out=out, run_dir=run_dir)
            (out / "built").touch()
    return run_dir
