"""specscope.client: streaming chat completions (raw asyncio+httptools or aiohttp hot path; each stream parsed in
folds as it grows, through the typed SSE event boundary (msgspec), within per-stream budgets), fixed-concurrency and
open-loop runners, client worker processes (several cores, one clock), client self-checks (CLIENT_LIMITED) and
Prometheus /metrics scraping."""

from specscope.client.checks import CheckThresholds, ClientCheck, ClientMonitor
from specscope.client.metrics import parse_metrics, scrape
from specscope.client.openloop import (
    OpenLoopSchedule,
    SweepPoint,
    arrival_offsets_ns,
    run_open_loop,
    run_open_loop_checked,
    run_rate_sweep,
)
from specscope.client.parse import parse_capture
from specscope.client.runner import (
    run_fixed_concurrency,
    run_fixed_concurrency_checked,
    run_sync,
)
from specscope.client.settings import ClientSettings
from specscope.client.stream import make_session, stream_chat
from specscope.client.workers import ClientWorkerError, auto_workers, run_in_workers

__all__ = [
    "parse_metrics",
    "scrape",
    "run_fixed_concurrency",
    "run_fixed_concurrency_checked",
    "run_sync",
    "ClientSettings",
    "make_session",
    "stream_chat",
    "parse_capture",
    "CheckThresholds",
    "ClientCheck",
    "ClientMonitor",
    "OpenLoopSchedule",
    "run_open_loop",
    "run_open_loop_checked",
    "run_rate_sweep",
    "SweepPoint",
    "arrival_offsets_ns",
    "auto_workers",
    "run_in_workers",
    "ClientWorkerError",
]
