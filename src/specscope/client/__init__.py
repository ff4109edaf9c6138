"""specscope.client: streaming chat completions (aiohttp hot path, httpx-sse parsing), the fixed-concurrency
runner, achieved concurrency, and Prometheus /metrics scraping."""

from specscope.client.metrics import counters_delta, parse_metrics, scrape
from specscope.client.runner import achieved_concurrency, client_view_concurrency, run_fixed_concurrency, run_sync
from specscope.client.settings import ClientSettings
from specscope.client.stream import make_session, parse_capture, stream_chat

__all__ = ["parse_metrics", "counters_delta", "scrape", "run_fixed_concurrency", "achieved_concurrency",
           "client_view_concurrency", "run_sync", "ClientSettings", "make_session", "stream_chat", "parse_capture"]
