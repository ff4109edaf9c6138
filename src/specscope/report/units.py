"""The report's one unit convention: every figure becomes a :class:`Cell` here, nowhere else.

Speedups ``2.27x`` (dimensionless ratio), rates ``47.5%`` (fractions shown in %: acceptance rates,
coefficients of variation), times ``0.105 s``, throughput ``11.0`` under a ``tok/s`` column,
acceptance length ``3.00`` tokens per verify step, sizes ``1.23 GiB`` (2**30 bytes, as vLLM prints
them). A missing figure is ``—``.
"""

from __future__ import annotations

import math

from specscope.report.document import Cell, Column
from specscope.stats.groups import LevelAxis
from specscope.values import percent_text, ratio_text

__all__ = [
    "DASH",
    "missing",
    "tok_s",
    "seconds",
    "rate",
    "speedup",
    "change",
    "length",
    "gib",
    "count",
    "concurrency",
    "ratio_ci",
    "requests",
    "level",
    "level_column",
]

DASH = "—"


def missing() -> Cell:
    return Cell(None, DASH)


def _ok(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


def tok_s(x: float | None) -> Cell:
    """Tokens per second, one decimal (the column carries ``tok/s``)."""
    return Cell(float(x), f"{x:.1f}") if x is not None and _ok(x) else missing()


def seconds(x: float | None, digits: int = 3) -> Cell:
    """A time in seconds, ``digits`` decimals (3 unless a figure needs more), with ``s``."""
    return Cell(float(x), f"{x:.{digits}f} s") if x is not None and _ok(x) else missing()


def rate(x: float | None, digits: int = 1) -> Cell:
    """A fraction shown in % (acceptance rate, CV); ``value`` stays the fraction."""
    return Cell(float(x), percent_text(x, digits)) if x is not None and _ok(x) else missing()


def speedup(x: float | None) -> Cell:
    """A ratio against the baseline, two decimals, with ``x``."""
    return Cell(float(x), ratio_text(x)) if x is not None and _ok(x) else missing()


def change(x: float | None) -> str:
    """A relative change (fraction) as a signed whole percentage in brackets, e.g. ``" (-10%)"``; "" when None."""
    return "" if x is None else f" ({x * 100:+.0f}%)"


def length(x: float | None) -> Cell:
    """Acceptance length (tokens per verify step), two decimals."""
    return Cell(float(x), f"{x:.2f}") if x is not None and _ok(x) else missing()


def gib(x: float | None) -> Cell:
    """GiB (2**30 bytes), two decimals, with ``GiB``."""
    return Cell(float(x), f"{x:.2f} GiB") if x is not None and _ok(x) else missing()


def count(x: float | int | None, suffix: str = "") -> Cell:
    """A whole count with thousands separators (tokens, requests)."""
    return Cell(int(x), f"{int(x):,}{suffix}") if x is not None else missing()


def concurrency(achieved: float | None, requested: int) -> Cell:
    """Achieved (time-weighted streams in flight) over requested, e.g. ``1.95 / 2``; value is the achieved."""
    return Cell(float(achieved), f"{achieved:.2f} / {requested}") if achieved is not None else missing()


def ratio_ci(x: float | None, low: float | None, high: float | None, verdict: str) -> Cell:
    """A speedup with its interval and verdict: ``2.27x [2.00x, 2.50x] wins``."""
    if x is None or not _ok(x):
        return missing()
    if low is None or high is None:
        return Cell(float(x), f"{ratio_text(x)} ({verdict})")
    return Cell(float(x), f"{ratio_text(x)} [{ratio_text(low)}, {ratio_text(high)}] {verdict}")


def requests(x: float | None) -> Cell:
    """A mean number of requests (a server gauge averaged over time), two decimals."""
    return Cell(float(x), f"{x:.2f}") if x is not None and _ok(x) else missing()


def level(axis: LevelAxis, n: int) -> Cell:
    """A level as its column shows it (:meth:`specscope.stats.groups.LevelAxis.value`: streams, req/s, ``replay``);
    the value is the requested streams, or the scheduled rate."""
    r = axis.rate(n)
    return Cell(r if r is not None else n, axis.value(n))


def level_column(axis: LevelAxis) -> Column:
    """The column a level goes in: ``N (streams)``, ``rate (req/s)`` or ``load``."""
    return Column(axis.name, axis.unit)
