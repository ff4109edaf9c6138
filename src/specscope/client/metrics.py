"""Prometheus ``/metrics`` scraping: speculative-decoding and generation counters, read by each engine's names.

Text is parsed with ``prometheus_client.parser.text_string_to_metric_families`` and matched on the
*sample* names (so an exposition that lacks ``# TYPE`` lines, like trimmed excerpts, still works). Which names mean
what is each engine's adapter's declaration (``specscope.adapters.<engine>.metrics``, through
:func:`specscope.adapters.names.prometheus_tables`; the generated table: docs/engines.md): a sample's prefix names its
engine; its name is a counter into a ``SpecCounters`` field (``drafts`` = verify steps that carried a draft,
``draft_tokens``, ``accepted_tokens``, ``rejected_tokens``, ``generation_tokens``, ``prompt_tokens``), the per-position
counter (``accepted_per_position[i]`` from its ``position`` label), a running / waiting gauge, a speculative gauge, or
a known name not read. A count the exposition has no counter for stays ``None`` (silence is never 0).

Speculative *gauges* hold a current mean and cannot be differenced over a window: they go to ``spec_gauges``
(``GAUGE_NOT_WINDOW`` in the window reading), never into a figure. Any other sample name with ``spec`` or ``draft`` in
it is listed in ``unread`` (``UNREAD_SPEC_FIELD``) under the name the exposition wrote (prometheus_client adds
``_total`` to a counter's sample that lacks it; the name is given back as written).

A body that is JSON rather than Prometheus text is offered to the adapters' JSON readers
(:func:`specscope.adapters.names.json_readers`): an endpoint that drains on read gives a slice, a delta since the
previous GET, which :class:`DrainPool` turns into running totals (disjoint slices pooled), so two readings difference
like two scrapes.

Every value is summed over all labels other than ``position`` (``engine``, ``model_name``...), so a data-parallel server
with two engines reports one total; except another model's series, where the reader names the served model
(``parse_metrics(text, model)``: bench does) and a series carries it as ``model_name``, and copies: labels an adapter
declares in ``COPY_LABELS`` (ranks of one replica that each write the same count, such as the tensor- and
pipeline-parallel ranks of one data-parallel group) make the samples of one name that differ only in them one copy
group, of which the lowest ranks' sample alone is read (rank 0 of the group, the one the engine writes when a single
rank reports); copies whose values differ are named (``RANK_COPIES_DIFFER``, a caveat) and the dropped copies make no
series set.

Each *series set* is kept too (``SpecCounters.engines``), with its ``*_created`` time, so that deltas are taken per
series before summing (``specscope.stats.counters``): a series set is the samples that share one full label set once the
labels that are a metric's own dimension (``position``, ``le``, ``quantile``) and empty-valued labels (Prometheus'
absent label) are set aside; label order does not matter. An engine that labels every series ``model_name`` and
``engine`` (data parallel); a scrape that mixes replicas or sources (a federation, an aggregator, a router) adds
``instance`` / ``job`` / ``pod`` / ``dp_rank`` ... A series set is keyed by its Prometheus selector, labels sorted
(``{engine="0",model_name="m"}``, ``{engine="0",instance="b:8000",job="j",model_name="m"}``): a function of the set's
own labels alone, so the same series has one key in both scrapes whatever else came or went between them; the shorter
name a delta shows (``"0"`` for an engine) is :mod:`specscope.stats.counters`'. A scrape of one series set labelled
``model_name`` at most keeps ``engines`` empty. Only samples read into a count or gauge make a series set (a
histogram's or an unread family's own labels make none).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from typing import Any

import httpx

from specscope.adapters.drained import DrainedSlice, pool_slices
from specscope.adapters.names import EngineNames, adapter_metrics, json_readers, prometheus_tables
from specscope.client.gauge_child import rank_order
from specscope.errors import MetricsUnavailable, ServerUnreachable
from specscope.readfile import SCRAPE_MAX_BYTES
from specscope.records import INT_BOUND, SpecCounters, series_selector
from specscope.seam.answers import quote_body

__all__ = [
    "NOT_PROMETHEUS_TEXT",
    "MAX_SCRAPE_BYTES",
    "MAX_SCRAPE_SAMPLES",
    "DrainPool",
    "MetricsKinds",
    "enable_metrics_hint",
    "metrics_url",
    "parse_metrics",
    "read_json_body",
    "scrape",
]

#: the most bytes one scrape may hold (:data:`specscope.readfile.SCRAPE_MAX_BYTES`, also ``counters``' default):
#: a server answering more is refused by this limit, named in the error and the cell's reason.
MAX_SCRAPE_BYTES = SCRAPE_MAX_BYTES
#: the most samples one scrape may hold (a vLLM scrape with histograms for a few models is some thousands).
MAX_SCRAPE_SAMPLES = 100_000
_FIX_TOO_BIG = (
    "point --server (or --metrics NAME=URL) at the engine's own /metrics, not a federation or aggregation endpoint"
)

_PRESENT = {
    "drafts": "spec",
    "draft_tokens": "spec",
    "accepted_tokens": "spec",
    "rejected_tokens": "spec",
    "generation_tokens": "generation",
    "prompt_tokens": "prompt",
    "running": "running",
    "waiting": "waiting",
}


#: the message of a body the exposition-format parser refuses (a sample it parsed but specscope cannot use has its own)
NOT_PROMETHEUS_TEXT = "the /metrics body is not Prometheus text"


def _bad_sample(message: str, found: str, expected: str) -> MetricsUnavailable:
    """A /metrics sample specscope cannot use (``found`` cut to 200 characters: fuzzed names run long); to raise."""
    fix = "report this server's /metrics output to specscope"
    return MetricsUnavailable(message, found=found[:200], expected=expected, fix=fix)


def _sample_float(sample: Any) -> float:
    """A sample's value as a float; an integer beyond float range (found by fuzzing) is MetricsUnavailable."""
    try:
        return float(sample.value)
    except OverflowError:
        digits = f"{sample.name}: an integer of {len(str(sample.value))} digits"
        raise _bad_sample(
            "a /metrics sample value is out of range", digits, "a counter or gauge value below 1.8e308"
        ) from None


class _Engine:
    """Sums of one ``engine`` label's samples while parsing."""

    def __init__(self) -> None:
        self.sums: dict[str, float] = {}
        self.per_pos: dict[int, float] = {}
        self.present: set[str] = set()
        self.created: float | None = None
        self.kinds: dict[str, int] = {}
        self.spec_gauges: dict[str, float] = {}
        self.unread: set[str] = set()
        self.caveats: set[str] = set()

    def counters(self) -> SpecCounters:
        n_pos = max(self.per_pos) + 1 if self.per_pos else 0
        sums = self.sums
        return SpecCounters(
            drafts=sums.get("drafts"),
            draft_tokens=sums.get("draft_tokens"),
            accepted_tokens=sums.get("accepted_tokens"),
            accepted_per_position=tuple(self.per_pos.get(i, 0.0) for i in range(n_pos)),  # (n_pos,)
            generation_tokens=sums.get("generation_tokens"),
            prompt_tokens=sums.get("prompt_tokens"),
            running=sums.get("running"),
            waiting=sums.get("waiting"),
            present=frozenset(self.present),
            created=self.created,
            engine_kind=max(self.kinds, key=lambda k: self.kinds[k]) if self.kinds else None,
            rejected_tokens=sums.get("rejected_tokens"),
            spec_gauges=dict(sorted(self.spec_gauges.items())),
            unread=tuple(sorted(self.unread)),
            caveats=tuple(sorted(self.caveats)),
        )


def _position(name: str, labels: dict[str, str]) -> int:
    raw = labels.get("position", "")
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 6):  # fuzz: 5,000-digit and non-ASCII digits
        raise _bad_sample(
            "a per-position acceptance sample has no usable position label", f"{name}{labels}", 'position="0", "1", ...'
        )
    return int(raw)


def _require_count(name: str, labels: dict[str, str], value: float, text: str) -> None:
    """A counter's sample is a finite number from 0 to below :data:`~specscope.records.INT_BOUND` (Prometheus text
    allows ``NaN``, ``+Inf``, negatives and ``1e308`` in any sample; no engine's speculative or token counter holds
    one, and ``1e308`` printed "draft tokens 1e+308" as a measurement); else MetricsUnavailable naming its line of
    ``text`` as written (``1e400`` overflows the float: named as written, never as the ``inf`` it was read as)."""
    if not (math.isfinite(value) and 0 <= value < INT_BOUND):
        where = _line_of(text, name, labels) or f"{name}{labels or ''}"
        found = f"{where} (not a count: a counter is a finite number from 0 to below 2**63)"
        raise _bad_sample("a /metrics counter holds no count", found, "a finite number from 0 to below 2**63")


def _take(eng: _Engine, name: str, short: str, names: EngineNames, labels: dict[str, str], value: float) -> None:
    """Add one sample (its name without the prefix is ``short``, its engine's names ``names``) to its engine's sums."""
    counters = names.counters
    if short.endswith("_created"):
        base = short[: -len("_created")] + "_total"
        if base in counters or base in names.per_pos:
            eng.created = value if eng.created is None else max(eng.created, value)
        return
    if short in names.spec_gauges:
        eng.spec_gauges[name] = value
        return
    caveat = next((why for k, why in names.caveats.items() if short.startswith(k)), None)
    if caveat is not None:
        eng.caveats.add(caveat)
        return
    if any(short.startswith(k) for k in names.ignored):
        return
    if short not in counters and short not in names.per_pos and ("spec" in short or "draft" in short):
        eng.unread.add(name)
        return
    if short in names.per_pos:
        pos = _position(name, labels)
        eng.per_pos[pos] = eng.per_pos.get(pos, 0.0) + value
        eng.present.add("per_pos")
        return
    field_name = counters.get(short) or names.gauges.get(short)
    if field_name is not None:
        eng.sums[field_name] = eng.sums.get(field_name, 0.0) + value
        eng.present.add(_PRESENT[field_name])


def _what(exc: Exception, prefix: str, limit: int) -> str:
    """``prefix`` + the exception's type and message, cut to ``limit`` characters (an error's ``found``)."""
    return f"{prefix}{type(exc).__name__}: {exc}"[:limit]


def _bounded_families(families: Any) -> list[Any]:
    """The families parsed, refused once their samples pass :data:`MAX_SCRAPE_SAMPLES`.

    Raises:
        MetricsUnavailable: more samples than one scrape may hold.
    """
    out, samples = [], 0
    for fam in families:
        samples += len(fam.samples)
        if samples > MAX_SCRAPE_SAMPLES:
            raise MetricsUnavailable(
                "the /metrics answer holds more samples than one scrape may",
                found=f"more than {MAX_SCRAPE_SAMPLES:,} samples",
                expected=f"at most {MAX_SCRAPE_SAMPLES:,} samples per scrape (an engine's own holds some thousands)",
                fix=_FIX_TOO_BIG,
            )
        out.append(fam)
    return out


def _first_bad_line(text: str) -> str | None:
    """``line N: 'the line' (the parser's complaint)`` for the first line the exposition parser refuses on its own,
    or None when each line parses alone (the fault lies between lines); run only after the whole text was refused."""
    from prometheus_client.parser import text_string_to_metric_families

    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            for _ in text_string_to_metric_families(line + "\n"):
                pass
        except (ValueError, TypeError, IndexError, OverflowError) as exc:
            return f"line {n}: {line[:120]!r} ({' '.join(str(exc).split())[:100] or type(exc).__name__})"
    return None


def _line_of(text: str, name: str, labels: dict[str, str]) -> str | None:
    """``line N: 'the line'`` of the sample ``name{labels}`` in ``text``, as :func:`_first_bad_line` names a line;
    None when no line holds it. Run only on the way to an error: each candidate line is parsed alone."""
    from prometheus_client.parser import text_string_to_metric_families

    written = {name, name.removesuffix("_total")}  # the parser adds _total to a counter's sample that lacks it
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("#") or re.split(r"[{\s]", line.strip(), maxsplit=1)[0] not in written:
            continue
        try:
            if any(
                s.name == name and s.labels == labels
                for f in text_string_to_metric_families(line + "\n")
                for s in f.samples
            ):
                return f"line {n}: {line[:120]!r}"
        except (ValueError, TypeError, IndexError, OverflowError):
            continue
    return None


def parse_metrics(text: str, model: str | None = None) -> SpecCounters:
    """Parse one Prometheus text exposition into a :class:`SpecCounters` snapshot.

    Args:
        text: the body of ``GET /metrics`` (Prometheus text format 0.0.4).
        model: the served model: when a series of the engines' names carries ``model_name="<model>"``, the series
            labelled with another ``model_name`` are not read (another model's, e.g. one loaded mid-run, is neither a
            vanishing nor a new start of the served one: issue 37); None, or no series of it: every series is read.

    Returns:
        A snapshot summed over all engines; counters absent from the text stay ``None`` (never 0), and ``present``
        names the families seen (``spec``, ``per_pos``, ``generation``, ``prompt``, ``running``, ``waiting``);
        ``engine_kind``, ``spec_gauges`` and ``unread`` as in the module doc. ``engines`` holds each series set's own
        snapshot under its name (module doc) with its ``created`` time (largest ``*_created``); empty for a scrape of
        one series set labelled ``model_name`` at most.

    Raises:
        MetricsUnavailable: the text is not Prometheus exposition format, or a ``position`` label
            is not a non-negative integer.
    """
    from prometheus_client.parser import text_string_to_metric_families

    try:
        families = _bounded_families(text_string_to_metric_families(text))
    except (ValueError, TypeError, IndexError, OverflowError) as exc:  # OverflowError: a value past float range
        raise MetricsUnavailable(
            NOT_PROMETHEUS_TEXT,
            found=_first_bad_line(text) or _what(exc, "", 200),
            expected="Prometheus text exposition format (name{labels} value lines)",
            fix="point --server at the server's own metrics page and check what it serves",
        ) from exc
    total = _Engine()
    taken: list[tuple[_Identity, str, str, EngineNames, dict[str, str], float]] = []
    read_ids: set[_Identity] = set()  # series sets that hold a count or a gauge
    tables = prometheus_tables()
    seen: set[tuple[str, frozenset[tuple[str, str]]]] = set()  # each series once (the exposition format's rule)
    ours: list[_Sample] = []
    for fam in families:
        for sample in fam.samples:
            prefix = next((p for p in tables if sample.name.startswith(p)), None)
            if prefix is None:
                continue
            series = (sample.name, frozenset(sample.labels.items()))
            if series in seen:  # two bodies concatenated (a proxy): summing would double every count
                raise _bad_sample(
                    "a /metrics series is written twice",
                    f"{sample.name}{sample.labels or ''} twice in one scrape",
                    "each series (name and labels) once, as the exposition format writes it",
                )
            seen.add(series)
            ours.append((sample.name, len(prefix), tables[prefix], sample.labels, _sample_float(sample)))
    if model is not None and any(labels.get("model_name") == model for *_, labels, _v in ours):
        ours = [s for s in ours if s[3].get("model_name", model) == model]
    kept, differ = _one_per_copy_group(ours)
    total.caveats.update(differ)
    for name, cut, table, labels, value in kept:
        short = name[cut:]
        total.kinds[table.kind] = total.kinds.get(table.kind, 0) + 1
        if short in table.counters or short in table.per_pos:
            _require_count(name, labels, value, text)
        _take(total, name, short, table, labels, value)
        ident = _identity(labels)
        if _reads(short, table):
            read_ids.add(ident)
        taken.append((ident, name, short, table, labels, value))
    snap = total.counters()
    if snap.unread:
        snap = dataclasses.replace(snap, unread=_as_written(snap.unread, text))
    names = series_keys(read_ids)
    if not names:
        return snap
    groups = {ident: _Engine() for ident in names}
    for ident, name, short, table, labels, value in taken:
        eng = groups.get(ident)
        if eng is not None:
            eng.kinds = total.kinds
            _take(eng, name, short, table, labels, value)
    per = {names[i]: g.counters() for i, g in groups.items()}
    per = {e: dataclasses.replace(c, unread=_as_written(c.unread, text)) if c.unread else c for e, c in per.items()}
    return dataclasses.replace(snap, engines=dict(sorted(per.items())))


_Identity = tuple[tuple[str, str], ...]
#: one sample of an engine's names: full name, its prefix's length, its engine's names, labels, value
_Sample = tuple[str, int, EngineNames, dict[str, str], float]


def scrape_models(text: str) -> frozenset[str]:
    """The ``model_name`` values on the engine samples of a scrape (the names :func:`parse_metrics` reads); empty when
    none carries one or the text is no Prometheus text (:func:`parse_metrics` says why)."""
    from prometheus_client.parser import text_string_to_metric_families

    prefixes = tuple(prometheus_tables())
    try:
        families = _bounded_families(text_string_to_metric_families(text))
    except (ValueError, TypeError, IndexError, OverflowError, MetricsUnavailable):
        return frozenset()
    return frozenset(
        model
        for fam in families
        for sample in fam.samples
        if sample.name.startswith(prefixes) and (model := sample.labels.get("model_name")) is not None
    )


def _one_per_copy_group(samples: list[_Sample]) -> tuple[list[_Sample], list[str]]:
    """The samples to read, in scrape order, and the named reasons (``RANK_COPIES_DIFFER``) for copies that disagree.

    An engine whose adapter declares ``COPY_LABELS`` writes one count from several ranks of one replica (each rank's
    series labelled with its rank): the samples of one name whose labels differ only in those labels are a copy
    group, and only the one of the lowest ranks (rank 0 of the group: the series the engine writes when one rank
    reports) is read; every other label (a data-parallel rank, an engine index, a model) marks a replica, summed as
    before. Copies whose values differ are named, each name once: ``name: label="rank" value, ...`` over the labels
    that vary, the lowest rank's read.
    """
    groups: dict[tuple[str, frozenset[tuple[str, str]]], list[int]] = {}
    for i, (name, _cut, table, labels, _value) in enumerate(samples):
        copies = table.copy_labels
        if copies and any(k in labels for k in copies):
            rest = frozenset((k, v) for k, v in labels.items() if k not in copies)
            groups.setdefault((name, rest), []).append(i)
    dropped: set[int] = set()
    differ: dict[str, str] = {}
    for (name, _rest), members in groups.items():
        if len(members) < 2:
            continue
        copies = samples[members[0]][2].copy_labels
        members.sort(key=lambda i: rank_order(samples[i][3], copies))
        dropped.update(members[1:])
        if name not in differ and len({samples[i][4] for i in members}) > 1:
            varying = [k for k in copies if len({samples[i][3].get(k, "") for i in members}) > 1]
            ranks = ", ".join(
                ",".join(f'{k}="{samples[i][3].get(k, "")}"' for k in varying) + f" {samples[i][4]:g}" for i in members
            )
            differ[name] = f"RANK_COPIES_DIFFER({name}: {ranks}; the lowest rank's is read)"
    kept = [s for i, s in enumerate(samples) if i not in dropped]
    return kept, [differ[n] for n in sorted(differ)]


#: labels that are a metric's own dimension (per-position counters, histogram buckets, summary quantiles): kept inside
#: a series set, never a series set of their own.
_DIMENSIONS = frozenset({"position", "le", "quantile"})


def _identity(labels: dict[str, str]) -> _Identity:
    """A sample's series-set identity: its labels, sorted, without the metric's own dimensions and empty values."""
    return tuple(sorted((k, v) for k, v in labels.items() if k not in _DIMENSIONS and v != ""))


def _reads(short: str, names: EngineNames) -> bool:
    """Whether a sample (name without prefix ``short``) is read into a count or a gauge (not ``_created``)."""
    return short in names.counters or short in names.per_pos or short in names.gauges


def series_keys(idents: set[_Identity]) -> dict[_Identity, str]:
    """Each series set's key, its selector (module doc); empty when the scrape is one set labelled ``model_name`` at
    most. A function of the set's own labels alone, so one series has one key in every scrape (a key that hung on the
    other sets of its scrape, such as its engine index while one model is served, named one series two ways when a
    second model came up between the scrapes)."""
    if len(idents) == 1 and not {k for k, _ in next(iter(idents))} - {"model_name"}:
        return {}
    return {i: series_selector(i) for i in idents}


def _as_written(names: tuple[str, ...], text: str) -> tuple[str, ...]:
    """Each unread sample name as the exposition wrote it: prometheus_client gives a counter family's sample the
    ``_total`` suffix even where the text has none, so a name the text lacks is given back without it."""
    out = []
    written = set(re.findall(r"(?m)^([^\s{#]+)[{\s]", text)) if names else set()  # one pass over the text
    for name in names:
        if name.endswith("_total") and name not in written:
            name = name[: -len("_total")]
        out.append(name)
    return tuple(sorted(set(out)))


def metrics_url(base_url: str) -> str:
    """``/metrics`` of the server at ``base_url`` (an OpenAI base such as ``http://h:8000/v1`` is accepted)."""
    root = base_url.rstrip("/")
    if root.endswith("/v1"):
        root = root[: -len("/v1")]
    return root + "/metrics"


def read_json_body(text: str) -> DrainedSlice | None:
    """The drained slice of a JSON metrics body (an adapter's ``read_json_metrics``), or None when ``text`` is not
    JSON (then it is read as Prometheus text).

    Raises:
        MetricsUnavailable: JSON of no shape any adapter reads (what was found, the shapes tried).
    """
    if not text.lstrip().startswith(("[", "{")):
        return None
    try:
        body = json.loads(text)
    except ValueError:
        return None
    except RecursionError:  # nesting deeper than the interpreter's limit: no engine writes that
        raise MetricsUnavailable(
            "the metrics body is JSON nested too deeply to read",
            found=f"JSON of {len(text):,} characters opening with {text.lstrip()[:20]!r}",
            expected="an engine's JSON metrics (a list of flat objects)",
            fix="save the server's own metrics page unchanged (curl -s URL > FILE)",
        ) from None
    readers = json_readers()
    for _engine, reader, _shapes in readers:
        got = reader(body)
        if got is not None:
            return got
    head = type(body).__name__ + (f" of {len(body)} items" if isinstance(body, (list, dict)) else "")
    raise MetricsUnavailable(
        "the metrics body is JSON that no engine adapter reads",
        found=f"JSON {head}: {text.strip()[:120]}",
        expected="Prometheus text, or " + "; ".join(shapes for _e, _r, shapes in readers),
        fix="save the server's own metrics page unchanged (curl -s URL > FILE)",
    )


class MetricsKinds:
    """What each ``/metrics`` URL of a run answered at its first read: JSON that drains on read (True) or Prometheus
    text (False). Engine detection is at start only (issue 37): :func:`scrape` records a URL's kind at its first read
    (a server's own start-up check, :meth:`record`, comes first) and holds every later body to it, so a ``[]`` mid-run
    from a URL that answered Prometheus text is unreadable, never an empty drained slice; one home for every scrape
    source (a config's server, its ``--metrics`` replicas, a server specscope launched)."""

    def __init__(self) -> None:
        self._drains: dict[str, bool] = {}

    def of(self, base_url: str) -> bool | None:
        """The kind recorded for ``base_url``'s ``/metrics``; None: not read yet."""
        return self._drains.get(metrics_url(base_url))

    def record(self, base_url: str, drains: bool) -> None:
        """Record ``base_url``'s kind unless one is recorded (the first reading stands)."""
        self._drains.setdefault(metrics_url(base_url), drains)


class DrainPool:
    """Running totals of one endpoint that drains on read: every slice read from it since this pool was made,
    pooled (:func:`specscope.adapters.drained.pool_slices`), so two readings difference like two scrapes; the slices'
    reasons (iterations lost between or inside slices, idle iterations, ``WRONG_TYPE`` ...) in :attr:`reasons`."""

    def __init__(self) -> None:
        self.slices: list[DrainedSlice] = []

    def add(self, piece: DrainedSlice) -> SpecCounters:
        """Pool ``piece``; the running totals of every slice so far (gauges: the last slice's)."""
        self.slices.append(piece)
        return pool_slices(self.slices)[0]

    @property
    def reasons(self) -> tuple[str, ...]:
        return pool_slices(self.slices)[1]

    @property
    def endpoint(self) -> str | None:
        return self.slices[-1].endpoint if self.slices else None


def enable_metrics_hint() -> str:
    """How each engine turns its metrics on, from the adapters (``ENABLE_METRICS``), for an error's fix."""
    return (
        "enable metrics ("
        + "; ".join(f"{e}: {mod.ENABLE_METRICS}" for e, mod in adapter_metrics() if getattr(mod, "ENABLE_METRICS", ""))
        + ")"
    )


async def _get_bounded(client: httpx.AsyncClient, url: str) -> tuple[httpx.Response, bytes]:
    """GET ``url``: the response and its body (bounded); an HTTP status other than 200 is ``MetricsUnavailable``.

    A request that went out on a kept-alive connection the server closed without a byte of response is sent once more
    (RFC 9112 section 9.3.1: an idempotent request may be retried): httpx keeps an idle connection 5 s and uvicorn
    (vLLM's, SGLang's server) closes one after 5 s idle, so a scrape between two cells can meet a closing connection
    (CI 2026-12-06). A second such answer, or any other transport error, is raised.
    """
    try:
        return await _get_once(client, url)
    except httpx.RemoteProtocolError as exc:
        if "without sending a response" not in str(exc):  # httpcore's words for a close before the status line
            raise
    return await _get_once(client, url)


async def _get_once(client: httpx.AsyncClient, url: str) -> tuple[httpx.Response, bytes]:
    """One GET of :func:`_get_bounded`."""
    async with client.stream("GET", url) as resp:
        if resp.status_code != 200:
            raise MetricsUnavailable(
                "the server has no usable /metrics endpoint",
                found=f"GET {url} -> HTTP {resp.status_code}",
                expected="HTTP 200 with Prometheus text or an engine's JSON metrics",
                fix=enable_metrics_hint(),
            )
        return resp, await _read_bounded(resp, url)


async def scrape(
    client: httpx.AsyncClient,
    base_url: str,
    pool: DrainPool | None = None,
    drains: bool | None = None,
    model: str | None = None,
    kinds: MetricsKinds | None = None,
) -> SpecCounters:
    """GET ``/metrics`` and parse it.

    Args:
        client: an open ``httpx.AsyncClient`` (its timeouts apply).
        base_url: the server root or its OpenAI base (``.../v1``).
        pool: the running totals of this URL when its body drains on read (JSON iteration stats); without one, such
            a body is refused (a slice alone is no snapshot).
        drains: what the server's ``/metrics`` was at start (True: JSON that drains on read, False: Prometheus text;
            None: unknown): a body of the other kind is refused, never read as another engine (issue 37: a ``[]``
            mid-run read as an empty drained slice, every series "vanished").
        model: the served model, whose series alone are read where they are labelled (:func:`parse_metrics`).
        kinds: the run's kinds of each URL (:class:`MetricsKinds`): with ``drains`` None, the kind recorded for this
            URL is the one held to, and a first read records it.

    Returns:
        The snapshot (see :func:`parse_metrics`), or the pool's running totals for a drained body.

    Raises:
        ServerUnreachable: nothing answered (connection refused, DNS failure, timeout).
        MetricsUnavailable: HTTP 404 / another error status, or a body that is neither Prometheus text nor a JSON body
            an adapter reads.
    """
    url = metrics_url(base_url)
    try:
        resp, body = await _get_bounded(client, url)
    except httpx.TransportError as exc:  # connect errors, timeouts, protocol errors
        raise ServerUnreachable(
            "nothing answered at the server URL",
            found=_what(exc, f"{url}: ", 300),
            expected="a running OpenAI-compatible server",
            fix="start the server or correct its URL (--server, or --metrics for a replica: scheme, host, port)",
        ) from exc
    text = body.decode(resp.charset_encoding or "utf-8", errors="replace")
    if drains is None and kinds is not None:
        drains = kinds.of(base_url)
    piece = None if drains is False else read_json_body(text)
    if (drains is False and _json_text(text)) or (drains and piece is None):
        raise MetricsUnavailable(
            NOT_PROMETHEUS_TEXT if not drains else "the /metrics body is not the JSON it answered at start",
            found=f"GET {url}: {quote_body(text)}",
            expected=("JSON that drains on read" if drains else "Prometheus text") + ", as /metrics answered at start",
            fix="check what answers at the server's /metrics (a proxy in front of it?)",
        )
    if piece is None:
        snap = parse_metrics(text, model)  # raises on a body that is no metrics at all: no kind is recorded from it
        if kinds is not None:
            kinds.record(base_url, False)
        return snap
    if kinds is not None:
        kinds.record(base_url, True)
    if pool is None:
        raise MetricsUnavailable(
            "the /metrics body drains on read and this reader keeps no running totals",
            found=f"GET {url}: {piece.endpoint}, {piece.items} items",
            expected="Prometheus text",
            fix="read it through bench --server (which pools the slices)",
        )
    return pool.add(piece)


def _json_text(text: str) -> bool:
    """Whether ``text`` is JSON (an array or an object), which no Prometheus text is."""
    if not text.lstrip().startswith(("[", "{")):
        return False
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


async def _read_bounded(resp: httpx.Response, url: str) -> bytes:
    """The body of ``resp``, read until :data:`MAX_SCRAPE_BYTES` is passed (then refused, the rest never read).

    Raises:
        MetricsUnavailable: a body above the limit.
    """
    body = bytearray()
    async for chunk in resp.aiter_bytes():
        body += chunk
        if len(body) > MAX_SCRAPE_BYTES:
            raise MetricsUnavailable(
                "the /metrics answer is larger than one scrape may be",
                found=f"GET {url}: more than {MAX_SCRAPE_BYTES:,} bytes",
                expected=f"at most {MAX_SCRAPE_BYTES // 2**20} MiB ({MAX_SCRAPE_BYTES:,} bytes) of Prometheus text "
                "per scrape",
                fix=_FIX_TOO_BIG,
            )
    return bytes(body)
