"""Cells of several configs at the same time (``bench --parallel-configs``).

Each config keeps its own server and its own shuffled cell order; the configs' sweeps run as tasks of one
event loop (so the run store, a single SQLite connection, is written from one thread), and the whole matrix
takes about as long as its longest config rather than the sum. The run's options record
``parallel_configs``, and the report says the configs ran side by side: their comparison shares the time,
not the hardware.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass
from typing import Any

__all__ = ["SideJob", "sweep_side_by_side"]


@dataclass(frozen=True)
class SideJob:
    """One config's sweep.

    Attributes:
        ctx: the server context (entered before any cell runs, left after all configs finished).
        cells: given the running server, the coroutine that measures and stores the config's cells.
        facts: called with the running server before the cells and again after them (server facts).
    """

    ctx: AbstractContextManager[Any]
    cells: Callable[[Any], Awaitable[None]]
    facts: Callable[[Any], None]


def sweep_side_by_side(jobs: Sequence[SideJob]) -> None:
    """Start every job's server, then run all jobs' cells concurrently; servers stop when all are done.

    Raises:
        the first error of a job (the other jobs' tasks are cancelled; the cells they stored are kept).
    """
    from specscope.client import run_sync

    async def _all(servers: list[Any]) -> None:
        await asyncio.gather(*(j.cells(s) for j, s in zip(jobs, servers, strict=True)))

    with ExitStack() as stack:
        servers = [stack.enter_context(j.ctx) for j in jobs]
        for j, s in zip(jobs, servers, strict=True):
            j.facts(s)
        try:
            run_sync(_all(servers))
        finally:
            for j, s in zip(jobs, servers, strict=True):
                j.facts(s)
