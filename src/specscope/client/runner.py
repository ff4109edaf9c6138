"""Fixed-concurrency load (closed loop) and the concurrency actually achieved on the wire.

:func:`run_fixed_concurrency` starts N streams at once from N distinct requests and starts the next request
the moment one ends, until the list is exhausted. While streams are in flight the event loop timestamps bytes and
parses each stream in folds of at most :data:`~specscope.client.parse.FOLD_BYTES` (about 0.1 ms each; a stream's
memory stays bounded, and a runaway is cut); the records are built after every stream has ended. The hot phase itself
(:func:`~specscope.client.capture.capture_fixed_concurrency`) and :func:`~specscope.client.capture.run_sync` live in
:mod:`specscope.client.capture`, which the worker processes (:mod:`specscope.client.workers`) use too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from specscope.client.capture import _check_concurrency, capture_fixed_concurrency, run_sync
from specscope.client.checks import CheckThresholds, ClientCheck, ClientMonitor
from specscope.client.parse import parse_capture
from specscope.client.settings import ClientSettings
from specscope.client.workers import resolve_workers, run_in_workers
from specscope.records import StreamRecord

__all__ = [
    "run_fixed_concurrency",
    "run_fixed_concurrency_checked",
    "capture_fixed_concurrency",
    "run_sync",
]


async def run_fixed_concurrency(
    base_url: str, requests: Sequence[tuple[str, dict[str, Any]]], concurrency: int, settings: ClientSettings
) -> list[StreamRecord]:
    """Run ``requests`` with ``concurrency`` streams in flight until the list is exhausted.

    Args:
        base_url: server root or OpenAI base (``http://127.0.0.1:8000`` or ``.../v1``).
        requests: ``(prompt_id, chat-completions body)``; ``stream`` and ``include_usage`` are forced on.
        concurrency: streams kept in flight (N); the first N requests start together.
        settings: connection limit (must be >= N, else a hidden pool queue would lower the load, case C16),
            timeouts, and ``workers``: with W > 1 (explicit, or ``"auto"`` by
            :func:`specscope.client.workers.auto_workers`) the N slots and the requests are split over W spawned
            client processes (:func:`specscope.client.workers.run_in_workers`), records merged in request order.

    Returns:
        One :class:`StreamRecord` per request, in the order of ``requests`` (failures included, never raised).

    Raises:
        ConfigError: ``concurrency`` < 1, or ``settings.connection_limit`` < ``concurrency``.
        ClientWorkerError: with W > 1, a worker process failed to start, died or ran past its time bound.
    """
    _check_concurrency(concurrency, settings)
    w = resolve_workers(settings, concurrency, len(requests))
    if w > 1:
        records, _ = await run_in_workers(base_url, requests, concurrency, settings, w, check=False)
        return records
    raws = await capture_fixed_concurrency(base_url, requests, concurrency, settings)
    return [parse_capture(r) for r in raws]


async def run_fixed_concurrency_checked(
    base_url: str,
    requests: Sequence[tuple[str, dict[str, Any]]],
    concurrency: int,
    settings: ClientSettings,
    *,
    thresholds: CheckThresholds | None = None,
) -> tuple[list[StreamRecord], ClientCheck]:
    """:func:`run_fixed_concurrency` with the client self-checks (:mod:`specscope.client.checks`) running
    while streams are in flight; the folds that parse streams as they grow run inside the monitored phase (each
    about 0.1 ms), the building of the records after it.

    Returns:
        ``(records, check)``; ``check.limited_reason()`` is ``"CLIENT_LIMITED(...)"`` or ``None``. With W > 1
        worker processes, ``check.workers == W`` and its lag statistics pool every worker's samples.

    Raises:
        ConfigError, ClientWorkerError: as :func:`run_fixed_concurrency`.
    """
    _check_concurrency(concurrency, settings)
    w = resolve_workers(settings, concurrency, len(requests))
    if w > 1:
        records, check = await run_in_workers(base_url, requests, concurrency, settings, w, thresholds=thresholds)
        assert check is not None
        return records, check
    async with ClientMonitor(settings, thresholds) as mon:
        raws = await capture_fixed_concurrency(base_url, requests, concurrency, settings)
    records = [parse_capture(r) for r in raws]
    return records, mon.result(records)
