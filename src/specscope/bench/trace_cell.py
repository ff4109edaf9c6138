"""Trace replay cells (``bench --trace FILE``): a production trace's requests sent open loop on its own clock.

Request i is sent at ``start + offset_i x time_scale`` (``--trace-scale``; 0.5 replays twice as fast), whatever the
server's pace, through the open-loop dispatcher (:func:`specscope.client.openloop.capture_open_loop`): its
``intended_ns`` is that instant, so TTFT for goodput counts from the trace's arrival (no coordinated omission) and
``send_ns - intended_ns`` is how far the achieved schedule drifted from the trace (``stats.trace``). The matrix is
configs x the one workload ``trace`` x level 1 x repeats; each repeat replays the whole trace (``--trace-rows N``:
its first N arrivals). The cell's client facts carry ``open_loop`` (the mean rate, so the open-loop table shows
achieved rate and goodput) and ``trace`` (format, scale, requests, scheduled span).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from specscope.config import BenchOptions
from specscope.errors import ConfigError
from specscope.records import ClientFacts, OpenLoopFacts, StreamRecord, TraceFacts
from specscope.stats.timeline import mean
from specscope.workload.prompt import Prompt

if TYPE_CHECKING:
    from specscope.workload.trace import Trace

__all__ = ["trace_overrides", "trace_manifest", "trace_offsets_ns", "run_trace_cell"]


def trace_overrides(trace: str | None, scale: float | None, rows: int | None) -> dict[str, Any]:
    """``profile_options`` overrides of ``--trace FILE [--trace-scale X] [--trace-rows N]`` (none without a trace).

    That ``--trace-scale`` / ``--trace-rows`` come with ``--trace`` is the option spec's rule
    (:func:`specscope.bench.spec.check_combinations`); without a trace they are not read here.

    Raises:
        ConfigError: a scale <= 0, rows < 1, or a file that is not a trace.
    """
    if trace is None:
        return {}
    from specscope.workload.trace import load_trace

    if (scale is not None and not scale > 0) or (rows is not None and rows < 1):
        raise ConfigError(
            "--trace-scale takes a factor > 0 and --trace-rows a count >= 1",
            found=f"scale={scale}, rows={rows}",
            expected="e.g. --trace-scale 0.5 --trace-rows 200",
            fix="pass positive numbers",
        )
    loaded = load_trace(trace)
    _require_replay_span(loaded, 1.0 if scale is None else scale, rows)
    out: dict[str, Any] = {"trace": loaded.path}  # the workload and level follow (BenchOptions)
    return out | ({"trace_scale": scale} if scale is not None else {}) | ({"trace_rows": rows} if rows else {})


def _require_replay_span(trace: Trace, scale: float, rows: int | None) -> None:
    """Refuse a replay longer than :data:`~specscope.workload.trace.MAX_REPLAY_SPAN_S` (its last send, after the
    scale and the row limit).

    Raises:
        ConfigError: the span, with the ``--trace-rows`` or ``--trace-scale`` that would fit.
    """
    from specscope.workload.trace import MAX_REPLAY_SPAN_S

    used = trace.requests[: rows or None]
    span_s = used[-1].offset_ns * scale / 1e9 if used else 0.0
    if span_s <= MAX_REPLAY_SPAN_S:
        return
    fit = sum(1 for r in used if r.offset_ns * scale / 1e9 <= MAX_REPLAY_SPAN_S)
    raise ConfigError(
        f"the trace would take {span_s / 86400:,.1f} days to replay",
        found=f"{trace.path}: last arrival {span_s:,.6g} s after the first (scale {scale:g}, {len(used)} rows)",
        expected=f"a replay of at most {MAX_REPLAY_SPAN_S / 86400:g} days",
        fix=f"replay its first {fit} rows (--trace-rows {fit}) or faster (--trace-scale "
        f"{MAX_REPLAY_SPAN_S / (used[-1].offset_ns / 1e9):.3g}), or check the file's arrival column",
    )


def trace_manifest(options: BenchOptions) -> dict[str, Any] | None:
    """The manifest's ``trace`` at the run's creation (file, format, SHA-256, rows, scale); None without one."""
    if not options.trace:
        return None
    from specscope.workload.trace import load_trace

    return load_trace(options.trace).provenance(options.trace_scale, options.trace_rows)


@contextlib.contextmanager
def _no_gc_pauses() -> Iterator[None]:
    """No cyclic garbage collection while the trace is dispatched: the objects alive before are frozen out of it
    (``gc.freeze``) and collection is off until the replay ends, so a collection pass never holds a send back.
    The replay allocates only its captures (bounded by the trace's rows); collection resumes afterwards."""
    was = gc.isenabled()
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()
        if was:
            gc.enable()


def trace_offsets_ns(prompts: Sequence[Prompt], scale: float) -> np.ndarray:
    """Send instants of the trace prompts relative to the first, scaled; ns, int64, shape (n,)."""
    offsets = np.array([int(p.meta["offset_ns"]) for p in prompts], dtype=np.float64) * scale  # (n,)
    out: np.ndarray = np.rint(offsets - offsets[0]).astype(np.int64)
    return out


async def run_trace_cell(
    base_url: str, requests: Sequence[tuple[str, dict[str, Any]]], prompts: Sequence[Prompt], options: BenchOptions,
    settings: Any,
) -> tuple[list[StreamRecord], Any, ClientFacts]:  # fmt: skip
    """Replay ``requests`` (the trace's prompts, in arrival order) on the trace's clock; ``(streams, client check,
    client facts)``."""
    from specscope.client.checks import ClientMonitor
    from specscope.client.openloop import capture_open_loop
    from specscope.client.parse import parse_capture

    offsets = trace_offsets_ns(prompts, options.trace_scale)
    with _no_gc_pauses():
        async with ClientMonitor(settings) as mon:
            raws = await capture_open_loop(base_url, requests, offsets, settings)
    streams = [parse_capture(r) for r in raws]
    check = mon.result(streams)
    span_s = float(offsets[-1]) / 1e9
    rate = (len(offsets) - 1) / span_s if span_s > 0 else float(len(offsets))
    lag = check.limited_reasons()
    open_loop = OpenLoopFacts(
        rate_per_s=rate,
        arrival="trace",
        requests=len(requests),
        client_processes=1,
        client_decision=(
            f"one process fell behind ({'; '.join(lag)}): the cell measured the client"
            if lag
            else f"one process kept up (send lag p99 {check.send_lag_p99_ns / 1e6:.1f} ms)"
        ),
    )
    lengths = [p.meta["trace_input_tokens"] for p in prompts if p.meta.get("trace_input_tokens") is not None]
    trace = TraceFacts(options.trace_scale, len(requests), span_s, mean(lengths))
    return streams, check, ClientFacts(open_loop=open_loop, trace=trace)
