"""Open-loop cells read back: achieved rate, requests in flight and goodput, derived from stored facts.

Definitions (per cell; instants are the client's ``perf_counter_ns``):

- window: the cell's measured span, ``end_ns - start_ns`` of the stored cell (s).
- achieved rate: ``(n - 1) / (last send - first send)`` over the cell's requests (requests per second; the
  client's sending rate, to set beside the scheduled one).
- in flight: requests between their send and their end; the mean is the time-weighted average over the
  window, the max the largest count at any instant.
- TTFT for the SLO: ``first_token_ns - intended_ns``, from the *scheduled* send, so time a request waited in
  the client counts against it (no coordinated omission); TPOT: ``(last_token_ns - first_token_ns) /
  (output_tokens - 1)`` (s per token; 0 for a one-token answer).
- goodput: requests per second that meet every SLO target given (vLLM's ``--goodput`` and DistServe's
  definition): the achieved rate times the fraction of the cell's requests that are ok and meet the targets, so it
  can never exceed the achieved rate (``met / window`` when fewer than 2 requests give no achieved rate).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from specscope.config import RunOptions
from specscope.records import CellResult, OpenLoopFacts, StreamRecord
from specscope.values import duration_text

__all__ = ["SLO_NAMES", "RateCell", "SloTargets", "in_flight", "meets_slo", "rate_cells"]


#: the names ``--slo`` takes, in every command (``bench``, ``advise``).
SLO_NAMES = ("ttft", "tpot")


@dataclass(frozen=True, slots=True)
class SloTargets:
    """The SLO targets of ``--slo ttft=2s,tpot=50ms`` (s; None: no target), one meaning for every command: a
    request's TTFT and its time per output token after the first. ``bench`` counts the requests that meet them
    (goodput, :func:`meets_slo`); ``advise`` requires a pick's p95 of each, at every level it is picked for, to
    meet them (:mod:`specscope.stats.choices`)."""

    ttft_s: float | None = None
    tpot_s: float | None = None

    @classmethod
    def of(cls, figures: Mapping[str, float]) -> SloTargets | None:
        """``{"ttft": 2.0, "tpot": 0.05}`` (s, as ``--slo`` is read) -> the targets; None when none is given."""
        out = cls(figures.get("ttft"), figures.get("tpot"))
        return None if out.ttft_s is None and out.tpot_s is None else out

    def text(self) -> str:
        """``"TTFT <= 2 s, TPOT <= 50 ms"``: the targets given, as a sentence names them."""
        parts = [
            f"{n} <= {duration_text(v)}" for n, v in (("TTFT", self.ttft_s), ("TPOT", self.tpot_s)) if v is not None
        ]
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class RateCell:
    """One open-loop cell's load figures. Rates in requests per second, times in s.

    Attributes:
        config, workload, repeat: the cell.
        rate_per_s: the scheduled rate.
        requests: requests sent; ok: those that ended ok; met_slo: ok ones within every SLO target.
        window_s: the cell's measured span.
        achieved_rate_per_s: requests actually sent per second (``None`` below 2 requests).
        in_flight_mean / in_flight_max: requests in flight (time-weighted mean over the window, max).
        goodput_per_s: ``achieved_rate_per_s * met_slo / requests`` (``met_slo / window_s`` below 2 requests;
            ``None`` when no SLO was given, or when a request's verdict is unknown: a TPOT target and no token
            count, :func:`meets_slo`).
        client_decision: the client's own words on its process count (from the cell's facts).
    """

    config: str
    workload: str
    repeat: int
    rate_per_s: float
    requests: int
    ok: int
    met_slo: int
    window_s: float
    achieved_rate_per_s: float | None
    in_flight_mean: float
    in_flight_max: int
    goodput_per_s: float | None
    client_decision: str


def in_flight(spans_ns: Sequence[tuple[int, int]], start_ns: int, end_ns: int) -> tuple[float, int]:
    """``(time-weighted mean, max)`` of overlapping ``(send_ns, end_ns)`` spans inside ``[start_ns, end_ns]``."""
    events = sorted([(max(a, start_ns), 1) for a, _ in spans_ns] + [(min(b, end_ns), -1) for _, b in spans_ns])
    level = peak = 0
    area_ns = 0
    last = start_ns
    for t, d in events:
        area_ns += level * (t - last)
        last = t
        level += d
        peak = max(peak, level)
    window = end_ns - start_ns
    return (area_ns / window if window > 0 else 0.0), peak


def meets_slo(s: StreamRecord, ttft_s: float | None, tpot_s: float | None) -> bool | None:
    """True when the ok stream ``s`` has TTFT (from its scheduled send) and TPOT within the given targets; None when
    that is unknown: a TPOT target, TTFT met, and no token count (no usage: its TPOT cannot be had)."""
    if s.status != "ok" or s.first_token_ns is None:
        return False
    if ttft_s is not None and (s.first_token_ns - s.intended_ns) / 1e9 > ttft_s:
        return False
    if tpot_s is None:
        return True
    if s.output_tokens is None or s.last_token_ns is None:
        return None
    if s.output_tokens > 1 and (s.last_token_ns - s.first_token_ns) / 1e9 / (s.output_tokens - 1) > tpot_s:
        return False
    return True


def _rate_cell(r: CellResult, facts: OpenLoopFacts, ttft_s: float | None, tpot_s: float | None) -> RateCell:
    streams = r.streams
    window_s = (r.end_ns - r.start_ns) / 1e9
    sends = sorted(s.send_ns for s in streams)
    span_s = (sends[-1] - sends[0]) / 1e9 if len(sends) > 1 else 0.0
    mean, peak = in_flight([(s.send_ns, s.end_ns) for s in streams], r.start_ns, r.end_ns)
    verdicts = [meets_slo(s, ttft_s, tpot_s) for s in streams]
    met = sum(v is True for v in verdicts)
    has_slo = ttft_s is not None or tpot_s is not None
    achieved = (len(sends) - 1) / span_s if span_s > 0 else None
    goodput = None
    if has_slo and None not in verdicts:  # a request whose verdict is unknown leaves the goodput unknown
        goodput = achieved * met / len(streams) if achieved is not None else (met / window_s if window_s > 0 else None)
    return RateCell(
        r.key.config,
        r.key.workload,
        r.key.repeat,
        float(facts.rate_per_s or 0.0),
        len(streams),
        sum(s.status == "ok" for s in streams),
        met if has_slo else 0,
        window_s,
        achieved,
        mean,
        peak,
        goodput,
        facts.client_decision or "",
    )


def rate_cells(cells: Iterable[CellResult], options: RunOptions) -> list[RateCell]:
    """The open-loop cells among ``cells`` (those whose client facts have ``open_loop``), read with the SLO
    targets of the run's ``options`` (``slo_ttft_s``, ``slo_tpot_s``; s)."""
    ttft_s, tpot_s = options.slo_ttft_s, options.slo_tpot_s
    out = []
    for r in cells:
        facts = r.client.open_loop
        if facts is not None and facts.rate_per_s is not None and not r.crashed:
            out.append(_rate_cell(r, facts, ttft_s, tpot_s))
    return out
