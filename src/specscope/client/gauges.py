"""Sample the server's running / waiting request gauges while a cell runs, off the client's hot path.

A :class:`GaugeSampler` runs :mod:`specscope.client.gauge_child` in a child process (standard library only, started
by path) that GETs ``/metrics`` every ``interval_s`` seconds (a few Hz) and prints ``(perf_counter_ns before the
request, running, waiting, queue sum, queue count)``; the parent reads its lines when the cell is over. A process, not
a thread: measured on the ground-truth server (N=1 and 4, 20 ms between chunks, 8 cells, 2 cores at load ~10), a
sampling thread in the client raised the median cell's event-loop lag p99 from 4.1 / 7.8 ms (no sampler) to 12.5 /
11.0 ms (it competes for the GIL with the hot path); with this child process it read 2.9 / 4.7 ms against 2.7 / 6.1
ms without a sampler.

Gauges read (summed over every label set, e.g. the ``engine`` label of a data-parallel server, except copies: one
series per copy group of the labels an adapter declares in ``COPY_LABELS``, the lowest ranks'): every engine's
running and waiting gauges and queue-time histogram sum / count as its adapter declares them
(:func:`specscope.adapters.names.gauge_slots` and :func:`~specscope.adapters.names.gauge_copies`, handed to the child
on its command line); the queue-time histogram is
observed per finished request: one reading before the cell's requests and one after they all ended bound its delta.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from specscope.adapters.names import gauge_copies, gauge_slots
from specscope.client.gauge_child import sums
from specscope.client.metrics import metrics_url
from specscope.records import GaugeSample

__all__ = ["GaugeSampler", "parse_gauges", "parse_sample", "DEFAULT_INTERVAL_S"]

DEFAULT_INTERVAL_S = 0.2  # 5 Hz
_CHILD = str(Path(__file__).with_name("gauge_child.py"))


def parse_gauges(text: str) -> tuple[float, float] | None:
    """``(running, waiting)`` summed over label sets (copies once) from Prometheus text, or None when neither gauge is
    there."""
    running, waiting, _, _ = sums(text, gauge_slots(), gauge_copies())
    return None if running is None and waiting is None else (running or 0.0, waiting or 0.0)


def parse_sample(text: str, t_ns: int) -> GaugeSample | None:
    """A :class:`GaugeSample` at ``t_ns`` from Prometheus text (with vLLM's queue-time histogram sum and count
    when present), or None when neither gauge is there."""
    running, waiting, q_sum, q_count = sums(text, gauge_slots(), gauge_copies())
    if running is None and waiting is None:
        return None
    return GaugeSample(t_ns, running or 0.0, waiting or 0.0, q_sum, q_count)


def _sample(line: str) -> GaugeSample | None:
    """One line of the child (``t_ns running waiting queue_sum_s queue_count``, ``-`` for none), or None (``x``)."""
    parts = line.split()
    if len(parts) != 5:
        return None
    t_ns, running, waiting, q_sum, q_count = parts
    opt = [None if v == "-" else float(v) for v in (running, waiting, q_sum, q_count)]
    return GaugeSample(int(t_ns), opt[0] or 0.0, opt[1] or 0.0, opt[2], opt[3])


class GaugeSampler:
    """Reads the running / waiting gauges of one server every ``interval_s`` seconds in a child process.

    Usage: ``s = GaugeSampler(base_url); s.start(); ...; samples = s.stop()``. ``start`` returns once the first
    reading is done; a failed or gauge-less reading is skipped (counted in ``failures``); ``stop`` makes the child
    read once more and returns every sample, in time order.

    Args:
        base_url: the server root or its OpenAI base (``.../v1``).
        interval_s: seconds between the starts of two readings (default 0.2 s, 5 Hz).
        timeout_s: the timeout of one reading, seconds.
    """

    def __init__(self, base_url: str, interval_s: float = DEFAULT_INTERVAL_S, timeout_s: float = 2.0):
        self.url = metrics_url(base_url)
        self.interval_s = interval_s
        self.timeout_s = timeout_s
        self.samples: list[GaugeSample] = []
        self.failures = 0
        self._proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        """Start the child and wait for its first reading (before the cell's requests)."""
        names = ",".join(f"{name}={slot}" for name, slot in sorted(gauge_slots().items()))
        copies = ",".join(f"{name}={'/'.join(labels)}" for name, labels in sorted(gauge_copies().items()))
        argv = [sys.executable, "-I", "-S", _CHILD, self.url, repr(self.interval_s), repr(self.timeout_s), names]
        argv += [copies] if copies else []
        self._proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self._proc.stdout is not None
        self._take(self._proc.stdout.readline())

    def stop(self) -> tuple[GaugeSample, ...]:
        """Close the child's stdin (it reads once more and exits) and return the samples, in time order."""
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                out, _ = proc.communicate(timeout=self.timeout_s + 5.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
            for line in out.splitlines():
                self._take(line)
        return tuple(sorted(self.samples, key=lambda g: g.t_ns))

    def _take(self, line: str) -> None:
        sample = _sample(line)
        if sample is None:
            self.failures += 1
        else:
            self.samples.append(sample)

    def __enter__(self) -> GaugeSampler:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
