"""Client self-checks: is the client, not the server, the limit of a run? (issue 8, "Client self-checks").

Three lags are measured while a cell runs, all in ns on ``time.perf_counter_ns`` (CLOCK_MONOTONIC on Linux,
one clock for every process of the machine):

- **send lag**, per request: ``send_ns - intended_ns``, how late the request's bytes went out after the
  schedule wanted them (open loop: the arrival instant; closed loop: the hand-over to the client). It
  includes a connection-pool wait and opening a TCP connection.
- **loop lag**, from a sampler task: it sleeps ``interval`` and records how much later than asked it woke
  (``actual - (start + interval)``, clipped at 0). A loop busy parsing, or a process without a CPU, wakes late.
- **read lag**, from a probe: a tiny child process writes its ``perf_counter_ns()`` reading as 8 bytes to a
  socket pair every ``interval``; the client's event loop reads them with a reader callback and records
  ``read instant - written instant``. This is how long bytes wait in the kernel before the client's loop
  picks them up, sampled uniformly in time (the probe never waits for the client), which the loop sampler
  is not: a starved loop takes fewer samples exactly while it is starved.

A cell is CLIENT_LIMITED when any p99 exceeds its threshold in :class:`CheckThresholds` (defaults: 10 ms
for loop and read lag, 20 ms for send lag, which includes opening a TCP connection). The defaults come from
measurement on a 2-core machine shared with other test suites (load average ~6): an otherwise idle uvloop's
1 ms sleeps woke with p50 0.09 ms and p99 4-12 ms late, a client streaming from a slow server (8 streams)
saw loop / read lag p99 of 5-12 ms and first-wave send lags of 3-5 ms. A client under the thresholds adds at
most that much to a latency p99; above them the cell measures the client, so it must not be reported as
server performance. Pass stricter :class:`CheckThresholds` (e.g. 2 ms) on a quiet, pinned machine. The
client's CPU share (process CPU time / wall time) is recorded but not used for the flag.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from time import perf_counter_ns
from typing import Any

import numpy as np

from specscope.client.settings import ClientSettings
from specscope.records import StreamRecord

__all__ = ["CheckThresholds", "ClientCheck", "ClientMonitor", "lag_stats", "SampleSpan", "check_from_samples"]

MS = 1_000_000

# The probe child: writes an 8-byte little-endian perf_counter_ns reading every interval until the socket
# closes (EPIPE) or it is killed. Only the standard library, started with -S -I so it is up in ~20 ms.
_PROBE_CODE = (
    "import os,sys,time,struct\n"
    "fd=int(sys.argv[1]);iv=int(sys.argv[2])/1e9;pk=struct.Struct('<q').pack;now=time.perf_counter_ns\n"
    "while True:\n"
    "    try:\n"
    "        os.write(fd,pk(now()))\n"
    "    except OSError:\n"
    "        break\n"
    "    time.sleep(iv)\n"
)
_I64 = struct.Struct("<q")


@dataclass(frozen=True, slots=True)
class CheckThresholds:
    """p99 lags above which a cell is CLIENT_LIMITED; ns. See the module docstring for the defaults' source."""

    loop_lag_p99_ns: int = 10 * MS
    read_lag_p99_ns: int = 10 * MS
    send_lag_p99_ns: int = 20 * MS


def lag_stats(samples_ns: Sequence[int] | np.ndarray) -> tuple[int, int, int, int]:
    """``(count, p50_ns, p99_ns, max_ns)`` of lag samples (numpy's linear percentile); zeros when empty."""
    a = np.asarray(samples_ns, dtype=np.int64)  # (n,) ns
    if a.size == 0:
        return 0, 0, 0, 0
    p50, p99 = np.percentile(a, [50, 99])
    return int(a.size), int(p50), int(p99), int(a.max())


@dataclass(frozen=True, slots=True)
class ClientCheck:
    """The client's self-check for one cell. Lags in ns (p50 / p99 / max), counts in samples.

    Attributes:
        requests: requests in the cell (send-lag samples).
        send_lag_*_ns: ``send_ns - intended_ns`` over requests.
        loop_lag_samples / loop_lag_*_ns: the sampler's wake-up lateness.
        read_lag_samples / read_lag_*_ns: the probe's bytes-to-read delay (0 samples: probe unavailable).
        wall_ns: the cell's wall time (monitor start to stop).
        client_cpu_ns: this process's CPU time over the same span (``time.process_time_ns``).
        sample_interval_ns: the sampler's and the probe's interval.
        thresholds: the :class:`CheckThresholds` in force.
        settings: the connection limit, timeouts and HTTP library in force (``ClientSettings.describe()``).
        workers: client processes that ran the cell (:mod:`specscope.client.workers`); with more than one,
            the lag statistics are over every worker's samples pooled, ``wall_ns`` is the longest worker's
            and ``client_cpu_ns`` the sum over workers.
    """

    requests: int
    send_lag_p50_ns: int
    send_lag_p99_ns: int
    send_lag_max_ns: int
    loop_lag_samples: int
    loop_lag_p50_ns: int
    loop_lag_p99_ns: int
    loop_lag_max_ns: int
    read_lag_samples: int
    read_lag_p50_ns: int
    read_lag_p99_ns: int
    read_lag_max_ns: int
    wall_ns: int
    client_cpu_ns: int
    sample_interval_ns: int
    thresholds: CheckThresholds = field(default_factory=CheckThresholds)
    settings: dict[str, Any] = field(default_factory=dict)
    workers: int = 1

    @property
    def client_cpu_fraction(self) -> float:
        """Client CPU time / wall time (1.0 = one core saturated; can exceed 1 with threads)."""
        return self.client_cpu_ns / self.wall_ns if self.wall_ns > 0 else 0.0

    def limited_reasons(self) -> list[str]:
        """Every threshold exceeded, e.g. ``["loop lag p99 12.3 ms > 10 ms"]``; empty when the client kept up."""
        t = self.thresholds
        out = []
        for name, val, lim in (
            ("send lag", self.send_lag_p99_ns, t.send_lag_p99_ns),
            ("loop lag", self.loop_lag_p99_ns, t.loop_lag_p99_ns),
            ("read lag", self.read_lag_p99_ns, t.read_lag_p99_ns),
        ):
            if val > lim:
                out.append(f"{name} p99 {val / MS:.1f} ms > {lim / MS:g} ms")
        return out

    def limited_reason(self) -> str | None:
        """``"CLIENT_LIMITED(loop lag p99 12.3 ms > 10 ms)"`` (reasons joined with ``"; "``) or ``None``."""
        r = self.limited_reasons()
        return f"CLIENT_LIMITED({'; '.join(r)})" if r else None

    def to_dict(self) -> dict[str, Any]:
        """All fields (thresholds nested, ns), plus ``client_cpu_fraction`` and ``client_limited`` (reason or None)."""
        d = asdict(self)
        d["client_cpu_fraction"] = self.client_cpu_fraction
        d["client_limited"] = self.limited_reason()
        return d


class ClientMonitor:
    """Runs the loop-lag sampler and the read-lag probe around a cell (an async context manager).

    Usage::

        async with ClientMonitor(settings) as mon:
            records = await run_fixed_concurrency(...)
        check = mon.result(records)

    Args:
        settings: recorded in the result.
        thresholds: the CLIENT_LIMITED rule.
        interval_ns: sampler sleep and probe period (default 1 ms).
        probe: start the read-lag probe child (``False``: read lag has 0 samples and never flags).
    """

    def __init__(
        self,
        settings: ClientSettings | None = None,
        thresholds: CheckThresholds | None = None,
        *,
        interval_ns: int = MS,
        probe: bool = True,
    ):
        self.settings = settings or ClientSettings()
        self.thresholds = thresholds or CheckThresholds()
        self.interval_ns = interval_ns
        self.probe = probe
        self.loop_lags_ns: list[int] = []
        self.read_lags_ns: list[int] = []
        self._task: asyncio.Task[None] | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._buf = b""
        self._t0 = self._t1 = self._cpu0 = self._cpu1 = 0

    async def __aenter__(self) -> ClientMonitor:
        self.start()
        await self.ready()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def start(self) -> None:
        """Start the sampler task (and the probe) on the running loop; see :meth:`ready`."""
        loop = asyncio.get_running_loop()
        self._first = loop.create_future()
        if self.probe:
            self._start_probe()
        else:
            self._first.set_result(None)
        self._t0 = perf_counter_ns()
        self._cpu0 = time.process_time_ns()
        self._task = loop.create_task(self._sample())

    async def ready(self, timeout_s: float = 5.0) -> None:
        """Wait until the probe child has started (its first bytes arrived; ~20-50 ms), so its start-up does not
        compete with the cell, then restart the samples and the clocks. A probe that never answers is dropped
        (read lag then has 0 samples)."""
        try:
            await asyncio.wait_for(asyncio.shield(self._first), timeout_s)
        except TimeoutError:
            self._stop_probe()
        await asyncio.sleep(self.interval_ns / 1e9)
        self.restart()

    def restart(self) -> None:
        """Drop the samples taken so far and restart the wall and CPU clocks (a worker process calls this when
        the parent says go, so that waiting for the other workers is not part of its cell)."""
        self.loop_lags_ns.clear()
        self.read_lags_ns.clear()
        self._t0 = perf_counter_ns()
        self._cpu0 = time.process_time_ns()

    async def _sample(self) -> None:
        iv_s = self.interval_ns / 1e9
        iv = self.interval_ns
        out = self.loop_lags_ns
        sleep = asyncio.sleep
        while True:
            t = perf_counter_ns()
            await sleep(iv_s)
            lag = perf_counter_ns() - t - iv
            out.append(lag if lag > 0 else 0)

    def _start_probe(self) -> None:
        parent, child = socket.socketpair()
        parent.setblocking(False)
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-S", "-I", "-c", _PROBE_CODE, str(child.fileno()), str(self.interval_ns)],
                pass_fds=(child.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except OSError:
            parent.close()
            child.close()
            self._first.set_result(None)
            return
        child.close()
        self._sock = parent
        asyncio.get_running_loop().add_reader(parent.fileno(), self._on_probe)

    def _on_probe(self) -> None:
        now = perf_counter_ns()
        try:
            data = self._sock.recv(65536)  # type: ignore[union-attr]
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            asyncio.get_running_loop().remove_reader(self._sock.fileno())  # type: ignore[union-attr]
            return
        if not self._first.done():
            self._first.set_result(None)
        buf = self._buf + data
        n = len(buf) // 8
        out = self.read_lags_ns
        for (t,) in _I64.iter_unpack(buf[: n * 8]):
            out.append(now - t if now > t else 0)
        self._buf = buf[n * 8 :]

    async def stop(self) -> None:
        """Stop the sampler and the probe (kills only the probe child this monitor started)."""
        self._t1 = perf_counter_ns()
        self._cpu1 = time.process_time_ns()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        self._stop_probe()

    def _stop_probe(self) -> None:
        if self._sock is not None:
            try:
                asyncio.get_running_loop().remove_reader(self._sock.fileno())
            except (ValueError, OSError):
                pass
            self._sock.close()
            self._sock = None
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait(5)
            self._proc = None

    def result(self, records: Sequence[StreamRecord]) -> ClientCheck:
        """The :class:`ClientCheck` of the monitored span for these records (call after the context exits)."""
        return check_from_samples(
            records,
            self.loop_lags_ns,
            self.read_lags_ns,
            SampleSpan(
                wall_ns=max(self._t1 - self._t0, 0),
                client_cpu_ns=max(self._cpu1 - self._cpu0, 0),
                interval_ns=self.interval_ns,
            ),
            thresholds=self.thresholds,
            settings=self.settings,
        )


@dataclass(frozen=True, slots=True)
class SampleSpan:
    """The span a set of lag samples covers.

    Attributes:
        wall_ns: wall time of the span (ns; with several workers, the longest worker's).
        client_cpu_ns: client CPU time over the span (ns; with several workers, their sum).
        interval_ns: the sampler's and the probe's interval (ns).
        workers: client processes whose samples are pooled.
    """

    wall_ns: int
    client_cpu_ns: int
    interval_ns: int
    workers: int = 1


def check_from_samples(
    records: Sequence[StreamRecord],
    loop_lags_ns: Sequence[int],
    read_lags_ns: Sequence[int],
    span: SampleSpan,
    *,
    thresholds: CheckThresholds,
    settings: ClientSettings,
) -> ClientCheck:
    """A :class:`ClientCheck` from raw samples: send lag from ``records`` (``send_ns - intended_ns``), loop and
    read lag from the given samples (ns) over ``span``. Merging worker processes pools their samples here, so
    the merged p99 is the p99 of every sample, not a mean of p99s."""
    send = [r.send_ns - r.intended_ns for r in records]
    lags: dict[str, int] = {}
    # (the ClientCheck field counting the samples, the lag's field prefix, the samples in ns)
    for count, lag, samples in (
        ("requests", "send_lag", send),
        ("loop_lag_samples", "loop_lag", loop_lags_ns),
        ("read_lag_samples", "read_lag", read_lags_ns),
    ):
        n, p50, p99, most = lag_stats(samples)
        lags |= {count: n, f"{lag}_p50_ns": p50, f"{lag}_p99_ns": p99, f"{lag}_max_ns": most}
    return ClientCheck(
        **lags,
        wall_ns=span.wall_ns,
        client_cpu_ns=span.client_cpu_ns,
        sample_interval_ns=span.interval_ns,
        thresholds=thresholds,
        settings=settings.describe(),
        workers=span.workers,
    )
