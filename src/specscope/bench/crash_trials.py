"""Confirm a server crash under load (issue 14, "Crashes under load"): restart the server, run the level again.

A crash that happens only at some level (a public report: stable at 96 concurrent requests, an illegal memory
access at 128 in 3 of 3 trials, KV cache usage at 12 %) is a property of the config at that level, not a reason to
drop the whole sweep. When a server dies during cell (config, workload, N, repeat):

1. the cell is stored as ``server_crash`` (as before: it never enters an average);
2. with ``crash_trials`` T > 0 and a server specscope launched (``--launch vllm`` or the embedded engine), T trials
   follow, each on a freshly started server (log ``logs/CONFIG.crash-trial-I.log``): one warm-up, the scrapes and
   the cell's N streams (:func:`specscope.bench.cell.measure_cell`), then the server is stopped. A trial is never
   stored as a cell, so it never enters a latency or throughput figure; per trial the manifest keeps the requests
   ok / failed / not sent, whether the server died, and its last engine stats before the end (the last running /
   waiting gauge sample, and the last periodic stats line of a vLLM log: running, waiting, KV cache usage);
3. the config's cells not yet run at level N or above are not run (each level listed, with the reason), neither in
   a later block of the sweep nor on ``--resume`` (``--retry-failed`` runs them again); with T > 0 its cells below
   N go on, on one more fresh server (log ``logs/CONFIG.after-crash.log``);
4. with T = 0, or a server the user started (``--server``: specscope cannot restart it), the config's sweep stops
   there, as before, and the record says why.

The records (manifest ``crash_trials[CONFIG]``, a list: one per crash of the config) hold ``cell`` (label),
``workload``, ``level`` (N), ``trials`` (per trial: ``trial``, ``crashed``, ``planned`` / ``ok`` / ``failed`` /
``not_sent`` requests, ``last_engine_stats``, ``log``; or ``error`` when its server did not start), ``crashed_in`` /
``of`` (trials in which the server died / trials run), ``levels_not_run`` (``[{"level", "cells", "why"}]``) and
``note``.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from specscope.bench.openloop_cell import rate_requests
from specscope.bench.order import server_config
from specscope.errors import SpecscopeError
from specscope.records import CellKey, CellResult

if TYPE_CHECKING:
    import httpx

    from specscope.bench.cell import ConfigRun

__all__ = ["CrashTrials", "Restart", "known_ceilings", "log_name", "trial_counts"]

#: tag -> a context manager that starts a fresh server of the config (log named after the tag) and stops it on exit
Restart = Callable[[str], AbstractContextManager[Any]]


def log_name(config: str, tag: str) -> str:
    """The log file (in the run's ``logs/``) of a server started for a crash: ``CONFIG.TAG.log``."""
    return f"{config}.{tag}.log"


def known_ceilings(manifest: dict[str, Any]) -> dict[str, int]:
    """Per config, the lowest level it crashed at in this run so far (manifest ``crash_trials``): a later block of
    the sweep, or a ``--resume``, does not run that level or above again (``--retry-failed`` clears the records)."""
    records = manifest.get("crash_trials") or {}
    return {config: min(r["level"] for r in recs) for config, recs in records.items() if recs}


def trial_counts(result: CellResult, planned: int) -> dict[str, int]:
    """Requests of one cell or trial: ``planned``, ``ok``, ``failed`` (every stream that is not ok) and ``not_sent``."""
    ok = sum(1 for s in result.streams if s.status == "ok")
    sent = len(result.streams)
    return {"planned": planned, "ok": ok, "failed": sent - ok, "not_sent": max(planned - sent, 0)}


def last_engine_stats(result: CellResult, facts: dict[str, Any]) -> dict[str, Any] | None:
    """The server's last engine stats before the end of a cell: the last gauge sample (running / waiting requests)
    and the last periodic stats line of its log (vLLM: running, waiting, KV cache usage %); None when neither."""
    out: dict[str, Any] = {}
    if result.gauges:
        g = result.gauges[-1]
        out |= {"running": g.running, "waiting": g.waiting}
    stats = (facts.get("log_facts") or {}).get("stats") or []
    if stats:
        out["log"] = stats[-1]
    return out or None


@dataclass
class CrashTrials:
    """The crash handling of one :func:`specscope.bench.cell.run_cells` call: the servers it started (stopped by
    ``stack``), the configs that go on on one of them (``replaced``: config -> its :class:`ConfigRun` on the fresh
    server; the sweep's own record of the first server is left alone) and, per config, the lowest level it crashed
    at (cells at that level or above are not run)."""

    http: httpx.AsyncClient
    packs: Any
    warmups: Any
    stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)
    ceilings: dict[str, int] = field(default_factory=dict)
    replaced: dict[str, ConfigRun] = field(default_factory=dict)

    def config_run(self, owner: str, runs: dict[str, ConfigRun]) -> ConfigRun:
        """The :class:`ConfigRun` measuring ``owner``'s cells now: on a fresh server after a crash, else ``runs``'."""
        return self.replaced.get(owner) or runs[owner]

    def allows(self, key: CellKey, runs: dict[str, Any]) -> bool:
        """False for a cell at or above the crash level of the config whose server runs it (``runs``: by config)."""
        ceiling = self.ceilings.get(_owner(key, runs))
        return ceiling is None or key.concurrency < ceiling

    async def after_crash(
        self, runs: dict[str, ConfigRun], owner: str, key: CellKey, queue: Sequence[CellKey]
    ) -> tuple[list[CellKey], bool]:
        """Run the trials of the crash of ``owner`` at ``key``, record them, and drop the cells not run from
        ``queue``. Returns the new queue and whether ``owner`` goes on (on a fresh server: :meth:`config_run`)."""
        c = self.config_run(owner, runs)
        level = key.concurrency
        wanted = c.options.crash_trials
        trials = [await self._trial(c, owner, key, i) for i in range(1, wanted + 1)] if wanted and c.restart else []
        mine = [k for k in queue if _owner(k, runs) == owner]
        goes_on = False
        below = [k for k in mine if k.concurrency < level]
        if trials and below:
            goes_on = self._restart(c, owner)
        self.ceilings[owner] = min(level, self.ceilings.get(owner, level))
        not_run = [k for k in mine if k.concurrency >= level or not goes_on]
        record = {
            "cell": key.label(),
            "workload": key.workload,
            "level": level,
            "trials": trials,
            "crashed_in": sum(1 for t in trials if t["crashed"]),
            "of": len(trials),
            "levels_not_run": _levels_not_run(not_run, level),
            "note": _note(c, wanted, goes_on, bool(below)),
        }
        run = c.run
        earlier = run.manifest.get("crash_trials") or {}
        run.update_manifest(crash_trials={**earlier, owner: [*earlier.get(owner, []), record]})
        return [k for k in queue if k not in not_run], goes_on

    async def _trial(self, c: ConfigRun, owner: str, key: CellKey, i: int) -> dict[str, Any]:
        """One trial: a fresh server, the cell's level once more, the server stopped; never stored as a cell."""
        from specscope.bench.cell import measure_cell

        planned = rate_requests(c.options, key) if c.options.rates else key.concurrency
        tag = f"crash-trial-{i}"
        log = f"logs/{log_name(owner, tag)}"
        assert c.restart is not None
        try:
            with c.restart(tag) as server:
                result = await measure_cell(
                    dataclasses.replace(c, server=server), self.http, key, self.packs, self.warmups[key.workload]
                )
                facts = server.describe()
        except SpecscopeError as exc:  # the server did not start, or failed in a way that is not a crash
            return {"trial": i, "crashed": False, "error": exc.one_line(), "log": log}
        return {
            "trial": i,
            "crashed": result.crashed,
            **trial_counts(result, planned),
            "last_engine_stats": last_engine_stats(result, facts),
            "log": log,
        }

    def _restart(self, c: ConfigRun, owner: str) -> bool:
        """Start ``owner``'s server afresh for its cells below the crash level; False if it does not start."""
        assert c.restart is not None
        try:
            server = self.stack.enter_context(c.restart("after-crash"))
        except SpecscopeError:
            return False
        self.replaced[owner] = dataclasses.replace(c, server=server)
        return True


def _owner(key: CellKey, runs: dict[str, Any]) -> str:
    return key.config if key.config in runs else server_config(key.config)


def _levels_not_run(keys: Sequence[CellKey], level: int) -> list[dict[str, Any]]:
    """Per level (ascending) the cells not run and why."""
    out = []
    for n in sorted({k.concurrency for k in keys}):
        cells = sum(1 for k in keys if k.concurrency == n)
        if n > level:
            why = f"above the crash level N={level}"
        elif n == level:
            why = f"the crash level N={level}"
        else:
            why = f"the sweep stopped at the crash at N={level}"
        out.append({"level": n, "cells": cells, "why": why})
    return out


def _note(c: ConfigRun, wanted: int, goes_on: bool, below: bool) -> str:
    if wanted and c.restart is None:
        return "specscope cannot restart this server (started with --server, or run side by side): the sweep stopped"
    if not wanted:
        return "no crash trials (--crash-trials 0): the sweep of this config stopped"
    if goes_on:
        return "the cells below the crash level ran on a freshly started server"
    if not below:
        return "every level below the crash level was measured before it (levels run in ascending order)"
    return "the sweep of this config stopped"
