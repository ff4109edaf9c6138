"""One record of another tool's result file, as the importers read it (:mod:`specscope.importers`).

A :class:`Imported` is what one JSON record says, in specscope's units and names: the facts a cell stores
(``CellResult.client["imported"]``, the shape of :mod:`specscope.stats.imported`) and the load it was measured at.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Imported", "Load", "num", "seconds_list", "tokens_list"]


@dataclass(frozen=True)
class Load:
    """The load a record was measured at: a closed loop of ``concurrency`` streams, or an open loop of ``rate_per_s``
    requests per second (``arrival``: ``poisson``, ``constant`` or the tool's own word), optionally capped at
    ``concurrency`` streams."""

    concurrency: int | None = None
    rate_per_s: float | None = None
    arrival: str | None = None

    @property
    def open_loop(self) -> bool:
        return self.rate_per_s is not None

    def label(self) -> str:
        if self.rate_per_s is not None:
            cap = f" (max {self.concurrency} in flight)" if self.concurrency else ""
            return f"{self.rate_per_s:g} req/s {self.arrival}{cap}"
        return f"N={self.concurrency}"


@dataclass(frozen=True)
class Imported:
    """One record: ``tool`` and ``shape`` (the shape's name), its ``load``, the ``facts`` to store, the workload
    name the file gives (``workload``, None when it names none) and the model it names (``model``)."""

    tool: str
    shape: str
    load: Load
    facts: dict[str, Any]
    workload: str | None = None
    model: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)


def num(doc: Mapping[str, Any], key: str) -> float | None:
    """``doc[key]`` when it is a finite number (not a bool), else None."""
    v = doc.get(key)
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        return None
    return float(v)


def seconds_list(doc: Mapping[str, Any], key: str, scale: float = 1.0) -> list[float | None] | None:
    """``doc[key]`` as a list of seconds (each value times ``scale``; a non-number is None), None when absent."""
    raw = doc.get(key)
    if not isinstance(raw, list):
        return None
    return [
        float(v) * scale if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) else None
        for v in raw
    ]


def tokens_list(doc: Mapping[str, Any], key: str) -> list[int | None] | None:
    """``doc[key]`` as a list of token counts (a non-integer is None), None when absent."""
    raw = doc.get(key)
    if not isinstance(raw, list):
        return None
    return [int(v) if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None for v in raw]
