"""Counters of a cell read from a Prometheus server that already scrapes the replicas (``bench --prometheus``).

Prometheus HTTP API, ``GET /api/v1/query?query=Q&time=T`` (instant vector, documented at the Prometheus
project's "HTTP API" page; plain httpx: no maintained Python client of that API installs here) and
``GET /api/v1/targets`` (each active target's ``scrapeInterval``). No client library is needed for two GETs.

Method (one config = one label selector, e.g. ``{job="base"}``):

1. The scrape interval ``I`` is the largest ``scrapeInterval`` of the active targets the selector matches.
2. Before the cell: after the warm-up, wait ``1.5 I`` with the server idle, so Prometheus has scraped at
   least once after the warm-up ended; the "before" values are the instant vector at the cell's start.
3. After the cell: wait ``1.5 I`` with the server idle, then read the instant vector at that moment: the last
   sample is one taken after the cell ended. The window is thus padded by a scrape interval on each side.
4. The series are grouped by their ``instance`` label (one replica each) and each group is read with the
   same parser as a direct scrape (:func:`specscope.client.metrics.parse_metrics`, the served model's series
   alone where they carry ``model_name``), then combined with
   per-replica reset detection (:func:`specscope.bench.counters_source.combine_replicas`).

A cell shorter than ``MIN_INTERVALS`` scrape intervals is flagged (``PROM_WINDOW_SHORT``): few samples lie
inside it, so a restart between samples could go unseen. What Prometheus cannot see: anything between two
scrapes (a replica that restarts and serves less than one interval is missed), and series it was not told
to scrape.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from typing import Any, TypeVar

import httpx

from specscope.errors import MetricsUnavailable, ServerError
from specscope.records import SpecCounters
from specscope.seam.answers import PromAnswer, PromSample, PromTargetsAnswer, PromVectorAnswer, read_answer

__all__ = ["MIN_INTERVALS", "PrometheusSource", "parse_duration_s", "series_query"]

MIN_INTERVALS = 3
P = TypeVar("P", bound=PromAnswer)  # one Prometheus answer shape


def parse_duration_s(text: str) -> float:
    """A Prometheus duration (``1s``, ``500ms``, ``1m``, ``1m30s``) in seconds, read by the one duration parser
    (:func:`specscope.values.parse_duration_s`, which reads Prometheus's combined form too)."""
    from specscope.values import parse_duration_s as parse

    return parse(text, "the Prometheus scrape interval")


def series_query(selector: str) -> str:
    """The PromQL selecting every counter and gauge the adapters declare read
    (:func:`specscope.adapters.names.query_names`: each engine's own names), inside ``selector`` (``{job="base"}`` or
    empty). The names hold only ``[A-Za-z0-9_:]``, so they need no escaping inside the regular expression."""
    from specscope.adapters.names import query_names

    inner = selector.strip().removeprefix("{").removesuffix("}").strip()
    name = f'__name__=~"{"|".join(query_names())}"'
    return "{" + (f"{inner}, {name}" if inner else name) + "}"


def _as_text(series: list[PromSample]) -> str:
    """Instant-vector series as Prometheus text lines (``name{labels} value``), for the direct-scrape parser."""
    lines = []
    for s in series:
        labels = {k: v for k, v in s.metric.items() if k not in ("__name__", "instance", "job")}
        inner = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
        lines.append(f"{s.metric['__name__']}{{{inner}}} {s.value[1]}")
    return "\n".join(lines) + "\n"


class PrometheusSource:
    """The before / after counters of one config's cells, read from Prometheus.

    Args:
        url: the Prometheus server's root (``http://host:9090``).
        selector: the config's label selector (``{job="base"}``); every matching ``instance`` is a replica.
        model: the served model (named by ``/v1/models``): where a replica's series carry ``model_name``, another
            model's are not read, as in a direct scrape (:func:`specscope.client.metrics.parse_metrics`); None: all.
    """

    def __init__(self, url: str, selector: str, model: str | None = None):
        self.url = url.rstrip("/")
        self.selector = selector
        self.model = model or None
        self.interval_s: float | None = None
        self._start_s = 0.0

    async def _get(self, http: httpx.AsyncClient, path: str, params: dict[str, Any], shape: type[P]) -> P:
        """``GET path`` read by the one answer reader (:func:`specscope.seam.answers.read_answer`) as ``shape``: a
        body of another shape (a list, HTML, JSON 100,000 brackets deep) is a :class:`MetricsUnavailable` naming it.
        """
        try:
            r = await http.get(self.url + path, params=params)
        except httpx.HTTPError as exc:
            raise MetricsUnavailable(
                "the Prometheus server cannot be read",
                found=f"GET {self.url}{path}: {type(exc).__name__}: {exc}"[:300],
                expected="a Prometheus server answering its HTTP API",
                fix="check --prometheus (scheme, host, port)",
            ) from None
        try:
            answer = read_answer(shape, r.content, path=path, fix="")
        except ServerError as exc:
            raise MetricsUnavailable(
                "the Prometheus server's answer cannot be read",
                found=f"GET {self.url}{path} -> HTTP {r.status_code}: {exc.message}; {exc.found}"[:300],
                expected=f"{exc.expected} (the Prometheus HTTP API)",
                fix="check --prometheus (scheme, host, port): it names a Prometheus server's root",
            ) from None
        if r.status_code != 200 or answer.status != "success":
            raise MetricsUnavailable(
                "the Prometheus query failed",
                found=f"GET {self.url}{path} -> HTTP {r.status_code}: {answer.error}"[:300],
                expected="status success",
                fix="check the --prometheus-selector of this config (PromQL label matchers)",
            )
        return answer

    async def interval(self, http: httpx.AsyncClient) -> float:
        """The largest scrape interval of the active targets (s); cached."""
        if self.interval_s is None:
            targets = await self._get(http, "/api/v1/targets", {"state": "active"}, PromTargetsAnswer)
            found = [parse_duration_s(t) for t in targets.intervals]
            self.interval_s = max([f for f in found if f > 0], default=15.0)
        return self.interval_s

    async def snapshot(self, http: httpx.AsyncClient, at_s: float) -> SpecCounters:
        """The counters at Unix time ``at_s``: one replica per ``instance`` label, combined."""
        from specscope.bench.counters_source import combine_replicas
        from specscope.client.metrics import parse_metrics

        params = {"query": series_query(self.selector), "time": f"{at_s:.3f}"}
        vector = await self._get(http, "/api/v1/query", params, PromVectorAnswer)
        groups: dict[str, list[PromSample]] = defaultdict(list)
        for s in vector.series:
            groups[s.metric.get("instance", "")].append(s)
        if not groups:
            raise MetricsUnavailable(
                "Prometheus has no speculative-decoding or token counters for this config",
                found=f"{series_query(self.selector)} at {at_s:.3f}: no series",
                expected="an engine's counters (docs/engines.md) scraped from the config's replicas",
                fix="check the --prometheus-selector and that Prometheus scrapes the replicas",
            )
        return combine_replicas([(inst, parse_metrics(_as_text(groups[inst]), self.model)) for inst in sorted(groups)])

    async def before(self, http: httpx.AsyncClient) -> SpecCounters:
        """Wait 1.5 scrape intervals (idle), then the counters at this instant, the cell's start."""
        await asyncio.sleep(1.5 * await self.interval(http))
        self._start_s = time.time()
        return await self.snapshot(http, self._start_s)

    async def after(self, http: httpx.AsyncClient) -> SpecCounters:
        """Wait 1.5 scrape intervals (idle) after the cell, then the counters at that instant."""
        await asyncio.sleep(1.5 * await self.interval(http))
        return await self.snapshot(http, time.time())

    def facts(self, cell_s: float) -> tuple[dict[str, Any], tuple[str, ...]]:
        """The cell's counter-source facts and its reasons (``PROM_WINDOW_SHORT`` for a short cell)."""
        interval = self.interval_s or 0.0
        facts = {"kind": "prometheus", "url": self.url, "selector": self.selector, "scrape_interval_s": interval}
        short = cell_s < MIN_INTERVALS * interval
        reason = f"PROM_WINDOW_SHORT(cell {cell_s:.2f} s < {MIN_INTERVALS} x scrape interval {interval:g} s)"
        return facts, (reason,) if short else ()
