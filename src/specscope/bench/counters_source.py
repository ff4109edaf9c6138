"""Where a config's counters come from: its server's own ``/metrics`` or, behind a router, every replica's.

``bench --server base=ROUTER --metrics base=R1 --metrics base=R2`` sends requests to the router and scrapes
R1 and R2 around each cell. Their snapshots are combined into one :class:`~specscope.records.SpecCounters`:
the figures are summed over the replicas, and every replica (and, inside a replica, every ``engine`` label)
is kept as its own series in ``engines`` under ``"<host:port>"`` or ``"<host:port>/<engine>"``. So
:func:`specscope.stats.counters.counters_delta` detects a restart of one replica by itself (a counter that
went down, or a ``*_created`` that moved) and leaves only that replica's window out of the cell's figures.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx

from specscope.errors import ConfigError
from specscope.records import SpecCounters
from specscope.stats.counters import sum_counters

if TYPE_CHECKING:
    from specscope.client.metrics import MetricsKinds

__all__ = ["ScrapeSource", "combine_replicas", "counter_source", "idle_scrape", "parse_metrics_specs", "replica_label"]


@dataclass(frozen=True)
class _NamedOption:
    """A repeatable ``NAME=VALUE`` option whose NAME is a config: its words for errors and its value check."""

    option: str
    form: str
    example: str
    fix: str
    unknown_fix: str
    clean: Callable[[str], str]
    valid: Callable[[str, str], bool]

    def split(self, spec: str, configs: Sequence[str]) -> tuple[str, str]:
        """``spec`` -> ``(name, cleaned value)``.

        Raises:
            ConfigError: ``spec`` is not ``NAME=VALUE`` with a valid value, or NAME is not one of ``configs``.
        """
        name, sep, value = spec.partition("=")
        name, value = name.strip(), self.clean(value)
        if not sep or not self.valid(name, value):
            raise ConfigError(
                f"{self.option} takes {self.form}",
                found=spec,
                expected=f"e.g. {self.option} {self.example}",
                fix=self.fix,
            )
        if name not in configs:
            raise ConfigError.invalid_value(
                self.option,
                spec,
                f"{self.form} with NAME one of {', '.join(configs)}",
                choices=configs,
                fix=self.unknown_fix,
            )
        return name, value


_METRICS = _NamedOption(
    "--metrics",
    "NAME=URL",
    "base=http://127.0.0.1:8001 (one per replica)",
    "name the config and give the replica's http(s) URL",
    "use a name given to --configs/--server",
    lambda url: url.strip().rstrip("/").removesuffix("/metrics"),
    lambda name, url: bool(name) and url.startswith(("http://", "https://")),
)
_SELECTOR = _NamedOption(
    "--prometheus-selector",
    "NAME={label matchers}",
    'base={job="vllm-base"}',
    "name the config and give a PromQL selector in braces",
    "use a config name",
    str.strip,
    lambda _name, sel: sel.startswith("{") and sel.endswith("}"),
)


def parse_metrics_specs(specs: Iterable[str], configs: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """``["base=http://h:8001", "base=http://h:8002"]`` -> ``{"base": ("http://h:8001", "http://h:8002")}``.

    Args:
        specs: the ``--metrics NAME=URL`` entries (repeatable; each URL is a replica's server root or its
            ``/metrics`` page).
        configs: the config names of the run (every NAME must be one of them).

    Raises:
        ConfigError: an entry is not ``NAME=URL`` with an http(s) URL, NAME is not a config, or a URL repeats.
    """
    from specscope.targets.plan import url_problem

    out: dict[str, list[str]] = {}
    for spec in specs:
        name, url = _METRICS.split(spec, configs)
        if (problem := url_problem(url)) is not None:  # http://h:99999 was refused at the first scrape as --server's
            raise ConfigError(
                "--metrics URL is not valid",
                found=f"{url}: {problem}",
                expected="NAME=URL with the replica's http(s)://HOST:PORT (port 1 to 65535)",
                fix="e.g. --metrics base=http://127.0.0.1:8001",
            )
        if url in out.setdefault(name, []):
            raise ConfigError(
                "a --metrics URL repeats", found=spec, expected="each replica once", fix="drop the repeated entry"
            )
        out[name].append(url)
    return {name: tuple(urls) for name, urls in out.items()}


def replica_label(url: str) -> str:
    """The series name of a replica: its ``host:port`` plus any path (``http://h:8001`` -> ``h:8001``)."""
    parts = urlsplit(url)
    return parts.netloc + parts.path.rstrip("/")


def combine_replicas(snaps: Sequence[tuple[str, SpecCounters]]) -> SpecCounters:
    """One snapshot of several replicas: the sum, with each replica's (or replica engine's) own series.

    Args:
        snaps: ``(replica label, snapshot)`` pairs, one per replica (see :func:`replica_label`).

    Returns:
        The summed snapshot; ``engines`` maps ``label`` (a replica without ``engine`` labels) or
        ``label/engine`` to that series' snapshot, so deltas are taken per replica before summing.
    """
    if len(snaps) == 1:
        return snaps[0][1]
    engines: dict[str, SpecCounters] = {}
    for label, snap in snaps:
        if snap.engines:
            engines.update({f"{label}/{e}": s for e, s in snap.engines.items()})
        else:
            engines[label] = snap
    return dataclasses.replace(sum_counters([s for _, s in snaps]), engines=engines)


async def _scrape_all(
    http: httpx.AsyncClient,
    urls: Sequence[str],
    pools: Sequence[Any] | None,
    kinds: MetricsKinds | None,
    model: str | None,
) -> SpecCounters:
    from specscope.client.metrics import scrape

    reads = (scrape(http, u, pools[i] if pools else None, None, model, kinds) for i, u in enumerate(urls))
    snaps = await asyncio.gather(*reads)
    return combine_replicas([(replica_label(u), s) for u, s in zip(urls, snaps, strict=True)])


async def idle_scrape(
    http: httpx.AsyncClient,
    urls: Sequence[str],
    wait_s: float,
    pools: Sequence[Any] | None = None,
    kinds: MetricsKinds | None = None,
    model: str | None = None,
) -> SpecCounters:
    """A combined snapshot of ``urls``, waiting up to ``wait_s`` seconds for no request to be running on any.

    Args:
        pools: one :class:`specscope.client.metrics.DrainPool` per URL, the running totals of a body that drains on
            read (its slices pooled); None: such a body is refused.
        kinds: what each URL's ``/metrics`` answered at its first read of the run
            (:class:`specscope.client.metrics.MetricsKinds`): a body of the other kind is unreadable; None: either
            kind is read.
        model: the served model: where series carry ``model_name``, only its own are read (another model's series
            are not this config's: :func:`specscope.client.metrics.parse_metrics`).

    Raises:
        ServerUnreachable / MetricsUnavailable: a replica's ``/metrics`` cannot be read
            (:func:`specscope.client.metrics.scrape`).
    """
    deadline = time.monotonic() + wait_s
    snap = await _scrape_all(http, urls, pools, kinds, model)
    while (snap.running or 0) > 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        snap = await _scrape_all(http, urls, pools, kinds, model)
    return snap


class ScrapeSource:
    """The before / after counters of one config's cells, scraped directly from ``urls`` (its server's own
    ``/metrics``, or every replica's). A URL whose body drains on read (an engine's JSON iteration stats) keeps a
    :class:`~specscope.client.metrics.DrainPool`: its slices are pooled into running totals, so the cell's window is
    every slice read after ``before``; :attr:`drains` then says that no other reader may GET it during the cell (a
    gauge sampler's reads would take the cell's iterations). ``kinds``: what each URL's ``/metrics`` answered at its
    first read of the run (:class:`specscope.client.metrics.MetricsKinds`, shared by the run's cells); engine
    detection is at start only. ``model``: the served model, whose series alone are read where series carry
    ``model_name``."""

    def __init__(
        self,
        urls: Sequence[str],
        wait_s: float,
        kinds: MetricsKinds | None = None,
        model: str | None = None,
    ):
        from specscope.client.metrics import DrainPool, MetricsKinds

        self.urls = tuple(urls)
        self.wait_s = wait_s
        self.kinds = kinds if kinds is not None else MetricsKinds()
        self.model = model or None
        self.pools = tuple(DrainPool() for _ in self.urls)

    @property
    def drains(self) -> bool:
        """Whether a URL's body drains on read (known after :meth:`before`)."""
        return any(p.slices for p in self.pools)

    async def before(self, http: httpx.AsyncClient) -> SpecCounters:
        return await idle_scrape(http, self.urls, self.wait_s, self.pools, self.kinds, self.model)

    async def after(self, http: httpx.AsyncClient) -> SpecCounters:
        return await idle_scrape(http, self.urls, self.wait_s, self.pools, self.kinds, self.model)

    def facts(self, cell_s: float) -> tuple[dict[str, Any], tuple[str, ...]]:
        """The cell's counter-source facts (``kind``, ``urls``; for a body that drains on read, ``drained``: the
        endpoint, slices and iterations read) and the pooled slices' reasons (``ITERATIONS_LOST``, idle iterations,
        ``WRONG_TYPE`` ...)."""
        facts: dict[str, Any] = {"kind": "scrape", "urls": list(self.urls)}
        reasons: list[str] = []
        for url, pool in zip(self.urls, self.pools, strict=True):
            if pool.slices:
                its = sum(len(s.iterations) for s in pool.slices)
                facts.setdefault("drained", {})[url] = {
                    "endpoint": pool.endpoint,
                    "slices": len(pool.slices),
                    "iterations": its,
                    "idle_iterations": sum(s.idle for s in pool.slices),
                }
                reasons.extend(r for r in pool.reasons if not r.startswith("IDLE_ITERATIONS"))
        return facts, tuple(reasons)


def counter_source(
    options: Any,
    config: str,
    base_url: str,
    wait_s: float,
    drains: bool | None = None,
    model: str | None = None,
    kinds: MetricsKinds | None = None,
) -> Any:
    """Where ``config``'s counters come from: ``--prometheus`` (with the config's selector, default
    ``{job="CONFIG"}``), else its ``--metrics`` URLs, else its server's own ``/metrics`` (``drains``: whether it
    answered JSON that drains on read when the server was checked, False: Prometheus text, None: not known;
    ``model``: the served model, whose series alone are read where series carry ``model_name``; ``kinds``: the run's
    record of what each URL answered first, :class:`specscope.client.metrics.MetricsKinds`, shared by its cells so
    a later body of the other kind is unreadable; None: this source's own)."""
    if options.prometheus:
        from specscope.bench.prometheus_source import PrometheusSource

        selector = options.prometheus_selectors.get(config) or f'{{job="{config}"}}'
        return PrometheusSource(options.prometheus, selector, model)
    from specscope.client.metrics import MetricsKinds

    kinds = kinds if kinds is not None else MetricsKinds()
    if drains is not None:  # the server's start-up check read its /metrics first
        kinds.record(base_url, drains)
    return ScrapeSource(options.metrics.get(config) or (base_url,), wait_s, kinds, model)


def parse_selectors(specs: Iterable[str], configs: Sequence[str]) -> dict[str, str] | None:
    """``['base={job="base"}']`` -> ``{"base": '{job="base"}'}`` (``--prometheus-selector``); None when empty.

    Raises:
        ConfigError: an entry is not ``NAME={...}`` or NAME is not a config.
    """
    out: dict[str, str] = {}
    for spec in specs:
        name, sel = _SELECTOR.split(spec, configs)
        out[name] = sel
    return out or None
