"""Trace replays read back: how far the achieved schedule drifted from the trace, per cell.

For every request of a trace cell (:mod:`specscope.bench.trace_cell`), ``intended_ns`` is the trace's arrival on the
client's clock (the cell's start + offset x time scale) and ``send_ns`` the instant its bytes left, so the send
error ``send_ns - intended_ns`` (ns, >= 0: the dispatcher never sends early) is the drift of the replay from the
trace, request by request. Percentiles are numpy's linear ones. Goodput is the open-loop cells' figure
(:mod:`specscope.stats.goodput`), the trace's mean rate standing for the scheduled one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from specscope.records import CellResult

__all__ = ["TraceReplay", "trace_replays"]


@dataclass(frozen=True)
class TraceReplay:
    """One trace cell's replay.

    Attributes:
        config, repeat: the cell; requests / ok: sent, and ended ok.
        time_scale: the arrival offsets' factor; scheduled_span_s: last scheduled arrival after the first (s);
        achieved_span_s: last send after the first send (s).
        send_error_p50_ms / _p99_ms / _max_ms: ``send_ns - intended_ns`` over the requests (ms).
        input_tokens_trace_mean: the trace's input lengths (tokens; None for text rows);
        prompt_tokens_mean: the server's ``usage.prompt_tokens`` (tokens; None when it gave none).
    """

    config: str
    repeat: int
    requests: int
    ok: int
    time_scale: float
    scheduled_span_s: float
    achieved_span_s: float
    send_error_p50_ms: float
    send_error_p99_ms: float
    send_error_max_ms: float
    input_tokens_trace_mean: float | None
    prompt_tokens_mean: float | None


def trace_replays(cells: Iterable[CellResult]) -> list[TraceReplay]:
    """The trace cells among ``cells`` (client facts with ``trace``), in (config, repeat) order."""
    out = []
    for c in cells:
        facts = c.client.trace
        if facts is None or c.crashed or not c.streams:
            continue
        err_ms = np.array([(s.send_ns - s.intended_ns) / 1e6 for s in c.streams], dtype=np.float64)  # (n,)
        sends = [s.send_ns for s in c.streams]
        prompt = [s.prompt_tokens for s in c.streams if s.prompt_tokens is not None]
        out.append(
            TraceReplay(
                c.key.config,
                c.key.repeat,
                len(c.streams),
                sum(s.status == "ok" for s in c.streams),
                facts.time_scale,
                facts.scheduled_span_s,
                (max(sends) - min(sends)) / 1e9,
                float(np.percentile(err_ms, 50)),
                float(np.percentile(err_ms, 99)),
                float(err_ms.max()),
                facts.input_tokens_mean,
                float(np.mean(prompt)) if prompt else None,
            )
        )
    return sorted(out, key=lambda r: (r.config, r.repeat))
