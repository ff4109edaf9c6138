"""The engines' metric names as the readers use them, built from the adapters' declarations (one home per name:
``specscope.adapters.<engine>.metrics``, found through :func:`specscope.adapters.registry.engine_modules`).

- :func:`prometheus_tables` -> ``{prefix: EngineNames}`` for the Prometheus text reader (``client/metrics.py``).
- :func:`query_names` -> every full sample name read into a count or gauge, for ``bench --prometheus``'s PromQL.
- :func:`gauge_slots` -> full name -> slot (0 running, 1 waiting, 2 queue-time sum s, 3 queue-time count) for the
  gauge sampler's child (``client/gauge_child.py``, which takes them on its command line); :func:`gauge_copies` ->
  full name -> the labels that mark copies of it (the adapter's ``COPY_LABELS``), for the same child.
- :func:`json_readers` -> the adapters' readers of JSON metrics bodies (``read_json_metrics``).
- :func:`gauge_names_text` / :func:`queue_histograms_text` -> those names as the report's notes write them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import Any

from specscope.adapters.declare import Detail, Row
from specscope.adapters.drained import DrainedSlice
from specscope.adapters.registry import engine_modules

__all__ = [
    "NEUTRAL_WINDOW_RULES",
    "EngineNames",
    "adapter_metrics",
    "gauge_names_text",
    "gauge_copies",
    "gauge_slots",
    "json_readers",
    "prometheus_tables",
    "query_names",
    "queue_histograms_text",
]

_SLOTS = {"gauge:running": 0, "gauge:waiting": 1, "queue_sum": 2, "queue_count": 3}


@dataclass(frozen=True)
class EngineNames:
    """One engine's Prometheus names, without its prefix: ``counters`` (sample name -> ``SpecCounters`` field),
    ``per_pos`` (the per-position counter's sample names), ``gauges`` (name -> ``running`` / ``waiting``),
    ``spec_gauges`` (current means, never a window figure), ``ignored`` (name prefixes known and not read), ``caveats``
    (name prefix -> the named reason its presence gives: known, not read, and saying what the read counts mean),
    ``copy_labels`` (the adapter's ``COPY_LABELS``: labels whose values mark copies of one count written by several
    ranks of one replica, never replicas to be summed)."""

    kind: str
    counters: dict[str, str] = field(default_factory=dict)
    per_pos: frozenset[str] = frozenset()
    gauges: dict[str, str] = field(default_factory=dict)
    spec_gauges: frozenset[str] = frozenset()
    ignored: tuple[str, ...] = ()
    caveats: dict[str, str] = field(default_factory=dict)
    copy_labels: tuple[str, ...] = ()


@cache
def adapter_metrics() -> tuple[tuple[str, ModuleType], ...]:
    """``(engine, its metrics module)`` for every registered engine with one, in registry order."""
    return tuple(engine_modules("metrics"))


def _names(kind: str, rows: tuple[Row, ...], copy_labels: tuple[str, ...] = ()) -> EngineNames:
    prom = [r for r in rows if r.surface == "prometheus"]
    return EngineNames(
        kind,
        counters={r.name: r.into for r in prom if r.role == "counter" and r.status == "read"},
        per_pos=frozenset(r.name for r in prom if r.role == "per_pos" and r.status == "read"),
        gauges={r.name: r.into for r in prom if r.role == "gauge" and r.status == "read"},
        spec_gauges=frozenset(r.name for r in prom if r.role == "spec_gauge"),
        ignored=tuple(r.name for r in prom if r.role == "ignored"),
        caveats={r.name: r.into for r in prom if r.role == "caveat"},
        copy_labels=copy_labels,
    )


@cache
def prometheus_tables() -> dict[str, EngineNames]:
    """``{sample-name prefix: that engine's names}`` over every adapter (a prefix names one engine)."""
    out: dict[str, EngineNames] = {}
    for engine, mod in adapter_metrics():
        names = _names(engine, mod.ROWS, tuple(getattr(mod, "COPY_LABELS", ())))
        out.update({p: names for p in mod.PREFIXES})
    return out


def query_names() -> tuple[str, ...]:
    """Every full sample name read into a count or gauge (prefix + name), sorted: what a PromQL query selects."""
    out: set[str] = set()
    for _engine, mod in adapter_metrics():
        for r in mod.ROWS:
            if r.surface == "prometheus" and r.status == "read" and r.role in ("counter", "per_pos", "gauge"):
                out.update(p + r.name for p in mod.PREFIXES)
    return tuple(sorted(out))


@cache
def gauge_slots() -> dict[str, int]:
    """Full sample name -> the gauge sampler's slot (module doc), over every adapter."""
    out: dict[str, int] = {}
    for _engine, mod in adapter_metrics():
        for r in mod.ROWS:
            key = f"gauge:{r.into}" if r.role == "gauge" else r.role
            if r.surface == "prometheus" and r.status == "read" and key in _SLOTS:
                out.update({p + r.name: _SLOTS[key] for p in mod.PREFIXES})
    return out


@cache
def gauge_copies() -> dict[str, tuple[str, ...]]:
    """Full sample name of :func:`gauge_slots` -> the labels its adapter declares as marking copies (``COPY_LABELS``),
    for the adapters that declare some."""
    out: dict[str, tuple[str, ...]] = {}
    slots = gauge_slots()
    for _engine, mod in adapter_metrics():
        copies = tuple(getattr(mod, "COPY_LABELS", ()))
        if copies:
            out.update({name: copies for name in slots if name.startswith(mod.PREFIXES)})
    return out


def json_readers() -> tuple[tuple[str, Callable[[Any], DrainedSlice | None], str], ...]:
    """``(engine, read_json_metrics, JSON_SHAPES)`` of the adapters that read a JSON metrics body."""
    mods = adapter_metrics()
    return tuple((e, mod.read_json_metrics, mod.JSON_SHAPES) for e, mod in mods if hasattr(mod, "read_json_metrics"))


def _read_prometheus(mod: ModuleType, role: str) -> list[Row]:
    return [r for r in mod.ROWS if r.surface == "prometheus" and r.status == "read" and r.role == role]


def gauge_names_text() -> str:
    """Every adapter's running / waiting gauges as a note names them, in registry order: per engine ``RUNNING /
    WAITING`` (full names under the adapter's first prefix), engines comma-separated."""
    out = []
    for _engine, mod in adapter_metrics():
        gauges = {r.into: mod.PREFIXES[0] + r.name for r in _read_prometheus(mod, "gauge")}
        out.append(" / ".join(gauges[k] for k in ("running", "waiting") if k in gauges))
    return ", ".join(t for t in out if t)


def queue_histograms_text() -> str:
    """The queue-time histograms the adapters read (their ``queue_sum`` rows, without ``_sum``), comma-separated in
    registry order, "none" when no adapter reads one."""
    names = [
        mod.PREFIXES[0] + r.name.removesuffix("_sum")
        for _engine, mod in adapter_metrics()
        for r in _read_prometheus(mod, "queue_sum")
    ]
    return ", ".join(names) or "none"


#: Window-reading rules that hold for every engine's names (docs/engines.md).
NEUTRAL_WINDOW_RULES: tuple[Detail, ...] = (
    Detail(
        "—",
        "an unread sample of a counter family written without `_total`",
        "ignored",
        "`UNREAD_SPEC_FIELD(name as written)` (prometheus_client adds the suffix)",
        ("tests/stats/test_windows_newuser.py::test_counters_names_an_unread_series_as_the_file_has_it",),
        engines="any",
    ),
)
