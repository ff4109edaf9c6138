"""Sample the server's running / waiting request gauges while a cell runs, off the client's hot path.

A :class:`GaugeSampler` is a daemon thread with its own ``httpx.Client`` that GETs ``/metrics`` every
``interval_s`` seconds (a few Hz) and keeps ``(perf_counter_ns before the request, running, waiting)``. The streams
of a cell run on the asyncio loop of the main thread (or in worker processes); this thread only wakes to send one
small request and read four gauge lines, so it does not share the loop, its connections or its timers.

Gauges read (Prometheus text exposition, ``name{labels} value [timestamp]``), summed over every label set (the
``engine`` label of a data-parallel vLLM): running ``vllm:num_requests_running`` / ``llamacpp:requests_processing``,
waiting ``vllm:num_requests_waiting`` / ``llamacpp:requests_deferred``. The lines are picked out by name without the
full parser (``specscope.client.metrics``), which costs more than the sampling itself. vLLM's queue-time histogram
(``vllm:request_queue_time_seconds_sum`` / ``_count``, observed per finished request) is read with them; one reading
before the cell's requests and one after they all ended bound its delta.
"""

from __future__ import annotations

import threading
import time

import httpx

from specscope.client.metrics import metrics_url
from specscope.records import GaugeSample

__all__ = ["GaugeSampler", "parse_gauges", "parse_sample", "DEFAULT_INTERVAL_S"]

DEFAULT_INTERVAL_S = 0.2  # 5 Hz
_NAMES = {
    "vllm:num_requests_running": 0,
    "llamacpp:requests_processing": 0,
    "vllm:num_requests_waiting": 1,
    "llamacpp:requests_deferred": 1,
    "vllm:request_queue_time_seconds_sum": 2,
    "vllm:request_queue_time_seconds_count": 3,
}


def _sums(text: str) -> list[float | None]:
    """Per slot of :data:`_NAMES` (running, waiting, queue sum, queue count), the sum over label sets, or None."""
    sums: list[float | None] = [None, None, None, None]
    for line in text.splitlines():
        if not line or line[0] == "#":
            continue
        brace, space = line.find("{"), line.find(" ")
        cut = brace if 0 <= brace < space or (brace >= 0 and space < 0) else space
        slot = _NAMES.get(line[:cut])
        if slot is None:
            continue
        rest = line[line.rfind("}") + 1 :] if brace >= 0 else line[cut:]
        try:
            sums[slot] = (sums[slot] or 0.0) + float(rest.split()[0])
        except (IndexError, ValueError):
            continue
    return sums


def parse_gauges(text: str) -> tuple[float, float] | None:
    """``(running, waiting)`` summed over label sets from Prometheus text, or None when neither gauge is there."""
    running, waiting, _, _ = _sums(text)
    return None if running is None and waiting is None else (running or 0.0, waiting or 0.0)


def parse_sample(text: str, t_ns: int) -> GaugeSample | None:
    """A :class:`GaugeSample` at ``t_ns`` from Prometheus text (with vLLM's queue-time histogram sum and count
    when present), or None when neither gauge is there."""
    running, waiting, q_sum, q_count = _sums(text)
    if running is None and waiting is None:
        return None
    return GaugeSample(t_ns, running or 0.0, waiting or 0.0, q_sum, q_count)


class GaugeSampler:
    """Reads the running / waiting gauges of one server every ``interval_s`` seconds in a background thread.

    Usage: ``s = GaugeSampler(base_url); s.start(); ...; samples = s.stop()``. A failed or gauge-less scrape is
    skipped (the server may be busy or lack the gauges); ``stop`` returns what was read, in time order.

    Args:
        base_url: the server root or its OpenAI base (``.../v1``).
        interval_s: seconds between the starts of two scrapes (default 0.2 s, 5 Hz).
        timeout_s: the timeout of one scrape, seconds.
    """

    def __init__(self, base_url: str, interval_s: float = DEFAULT_INTERVAL_S, timeout_s: float = 2.0):
        self.url = metrics_url(base_url)
        self.interval_s = interval_s
        self.timeout_s = timeout_s
        self.samples: list[GaugeSample] = []
        self.failures = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Read once now (before the cell's requests: the base of the queue-time delta), then every ``interval_s``."""
        with httpx.Client(timeout=self.timeout_s) as http:
            self._read(http)
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="specscope-gauges", daemon=True)
        self._thread.start()

    def stop(self) -> tuple[GaugeSample, ...]:
        """Stop sampling (waits for a scrape in flight), read once more and return the samples read."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self.timeout_s + 1.0)
            self._thread = None
            with httpx.Client(timeout=self.timeout_s) as http:
                self._read(http)  # after every request finished: the end of the queue-time delta
        return tuple(self.samples)

    def __enter__(self) -> GaugeSampler:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _loop(self) -> None:
        with httpx.Client(timeout=self.timeout_s) as http:
            next_s = time.monotonic()
            while not self._stop.is_set():
                self._read(http)
                next_s += self.interval_s
                self._stop.wait(max(0.0, next_s - time.monotonic()))

    def _read(self, http: httpx.Client) -> None:
        t0 = time.perf_counter_ns()
        try:
            resp = http.get(self.url)
        except httpx.HTTPError:
            self.failures += 1
            return
        sample = parse_sample(resp.text, t0) if resp.status_code == 200 else None
        if sample is None:
            self.failures += 1
            return
        self.samples.append(sample)
