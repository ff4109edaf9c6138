"""One record of another tool's result file, as the importers read it (:mod:`specscope.importers`).

A :class:`Imported` is what one JSON record says, in specscope's units and names: the facts a cell stores
(``CellResult.client.imported``, the shape of :mod:`specscope.stats.imported`) and the load it was measured at.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from specscope.records import INT_BOUND, finite_float

__all__ = [
    "BadFigure",
    "Imported",
    "Load",
    "count",
    "gamma_arrival",
    "latencies_from_itls",
    "level",
    "not_understood",
    "warning_notes",
    "numbers",
    "num",
    "rate",
    "seconds",
    "seconds_list",
    "tokens_list",
    "tool_percentiles",
]

#: the longest duration a cell stores (its end, in integer nanoseconds, is below 2**63): ~292 years.
MAX_SECONDS = (INT_BOUND - 1) / 1e9


class BadFigure(ValueError):
    """A figure the file holds that is not what its field means (NaN, a string, a fraction of a request...):
    ``field`` (its path in the document), the ``value`` as found and what was ``expected``. The shape reader turns
    it into a :class:`~specscope.errors.ConfigError` naming the file and record (:mod:`specscope.importers.shapes`).
    """

    def __init__(self, field: str, value: Any, expected: str):
        super().__init__(f"{field} = {spelled(value)}")
        self.field = field
        self.value = value
        self.expected = expected


def spelled(value: Any) -> str:
    """``value`` as the file wrote it (JSON: ``NaN``, ``Infinity``, ``"64"``), at most 60 characters."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _whole(value: Any) -> int | None:
    """``value`` as an int when it is a whole number in [0, 2**63) (an int, or a float like 64.0), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        return None
    return int(value) if 0 <= value < INT_BOUND else None


def count(value: Any, field: str, unit: str = "requests") -> int | None:
    """A count (requests, tokens) the tool wrote: None when absent (null), else a whole number >= 0.

    Raises:
        BadFigure: NaN, Infinity, a fraction, a negative number, a string, or 2**63 and more.
    """
    if value is None:
        return None
    n = _whole(value)
    if n is None:
        raise BadFigure(field, value, f"a whole number of {unit} (0 or more, below 2**63), or null when not recorded")
    return n


def level(value: Any, field: str) -> int | None:
    """A number of streams in flight (a closed loop's N, an open loop's cap): None when absent, else a whole
    number >= 1.

    Raises:
        BadFigure: anything else (0, a negative number, a fraction, NaN, a string, 2**63 and more).
    """
    if value is None:
        return None
    n = _whole(value)
    if n is None or n < 1:
        raise BadFigure(field, value, "a whole number of streams (1 or more, below 2**63), or null when not set")
    return n


def seconds(value: Any, field: str, scale: float = 1.0) -> float | None:
    """A duration the tool wrote (times ``scale`` to seconds): None when absent, else a positive finite number of
    seconds a cell can store (below :data:`MAX_SECONDS`).

    Raises:
        BadFigure: NaN, Infinity, zero, a negative number, a string, or a duration past :data:`MAX_SECONDS`.
    """
    if value is None:
        return None
    f = finite_float(value)
    if f is None or not 0 < f * scale <= MAX_SECONDS:
        raise BadFigure(
            field, value, f"a positive number of seconds (at most {MAX_SECONDS:,.0f}), or null when not recorded"
        )
    return f * scale


def rate(value: Any, field: str) -> float | None:
    """A request rate (req/s): None when absent or infinite (``"inf"``, JSON ``Infinity``: every request at once),
    else a positive finite number.

    Raises:
        BadFigure: NaN, zero, a negative number, or a string other than ``"inf"``.
    """
    if value is None or value == "inf" or (isinstance(value, float) and value == math.inf):
        return None
    f = finite_float(value)
    if f is None or f <= 0:
        raise BadFigure(field, value, 'a positive number of requests per second, or "inf" (all at once)')
    return f


def gamma_arrival(value: Any, field: str) -> str:
    """The arrival process of a gamma shape parameter as the tool wrote it: vLLM's ``burstiness``
    (vllm/benchmarks/serve.py @009e6d4a ``get_request``: gamma inter-arrival times of shape ``burstiness`` and mean
    1 / rate; ``inf`` a constant 1 / rate) and AIPerf's ``arrival_smoothness`` (its ``--vllm-burstiness``, "same value
    = same distribution": src/aiperf/common/config/loadgen_config.py @199d8a36). None or 1 is ``poisson`` (shape 1:
    exponential gaps), Infinity ``constant``, another positive number ``gamma(burstiness=B)``: one name for one
    process, whichever tool wrote it.

    Raises:
        BadFigure: NaN, zero, a negative number or a string.
    """
    if value is None:
        return "poisson"
    if isinstance(value, float) and value == math.inf:
        return "constant"
    shape = finite_float(value)
    if shape is None or shape <= 0:
        raise BadFigure(field, value, "a positive number (1: Poisson arrivals; Infinity: constant), or null")
    return "poisson" if shape == 1.0 else f"gamma(burstiness={shape:g})"


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
    name the file gives (``workload``, None when it names none), the model it names (``model``) and the draft tokens
    per verify step its own metadata records (``k``, None when nothing in it does; ``k_source``: what recorded it),
    and the server's speculative config it records (``server_spec``: vLLM's ``speculative_config`` keys ``method`` and
    ``num_speculative_tokens``, as read; None when it records none), stored with the config's server facts.

    ``left_out``: why the record is not stored as a cell (None: it is): a benchmark of no level beside others that
    have one (:mod:`specscope.importers.guidellm_report`), or one of the loop kind not imported from a file that
    holds both (:func:`specscope.importers.write.import_files`). It is named in a warning and in the manifest's
    ``imports``, never dropped silently."""

    tool: str
    shape: str
    load: Load
    facts: dict[str, Any]
    workload: str | None = None
    model: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    k: int | None = None
    k_source: str | None = None
    server_spec: Mapping[str, Any] | None = None
    left_out: str | None = None


def num(doc: Mapping[str, Any], key: str) -> float | None:
    """``doc[key]`` when it is a finite number (not a bool), else None."""
    return finite_float(doc.get(key))


def seconds_list(doc: Mapping[str, Any], key: str, scale: float = 1.0) -> list[float | None] | None:
    """``doc[key]`` as a list of seconds (each value times ``scale``; a non-number is None), None when absent."""
    raw = doc.get(key)
    if not isinstance(raw, list):
        return None
    return [None if (f := finite_float(v)) is None else f * scale for v in raw]


def tokens_list(doc: Mapping[str, Any], key: str) -> list[int | None] | None:
    """``doc[key]`` as a list of token counts (a non-integer is None), None when absent."""
    raw = doc.get(key)
    if not isinstance(raw, list):
        return None
    return [int(v) if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None for v in raw]


def _finite(v: Any) -> bool:
    return finite_float(v) is not None


def numbers(value: Any) -> list[float] | None:
    """``value`` as a list of finite numbers, or None when it is anything else (a scalar, a list holding a null,
    NaN or a string): a per-position list is never compacted, since the positions after a gap would shift."""
    if not isinstance(value, list) or not all(_finite(v) for v in value):
        return None
    return [float(v) for v in value]


def latencies_from_itls(ttfts: list[Any], itls: list[Any], not_recorded: list[str]) -> list[float | None]:
    """Each request's latency as ``ttft + sum(itls)`` (vLLM's timeline plot and SGLang's e2e figure), None for a
    request whose TTFT or any ITL is not a finite number; the count of those is added to ``not_recorded``."""
    out: list[float | None] = []
    for t, i in zip(ttfts, itls, strict=False):
        gaps = numbers(i)
        out.append(float(t) + sum(gaps) if _finite(t) and gaps is not None else None)
    bad = sum(1 for i in itls if numbers(i) is None)
    if bad:
        not_recorded.append(f"latency of {bad} of {len(itls)} requests (a non-number in its itls)")
    return out


#: the per-request arrays the bench_serving readers line up by index (each tool writes one entry per request)
PER_REQUEST_ARRAYS = ("ttfts", "itls", "latencies", "output_lens", "input_lens", "errors", "start_times")


def uneven_arrays(doc: Mapping[str, Any], read: Iterable[str]) -> str | None:
    """``ttfts 4, itls 3, ...``: each of the arrays ``read`` (of :data:`PER_REQUEST_ARRAYS`, in that order) that the
    record holds as a list, with its length, when their lengths differ; None when they agree. Arrays of uneven
    lengths cannot be lined up by request: which entry is missing, the file does not say."""
    wanted = set(read)
    lengths = {k: len(doc[k]) for k in PER_REQUEST_ARRAYS if k in wanted and isinstance(doc.get(k), list)}
    if len(set(lengths.values())) <= 1:
        return None
    return ", ".join(f"{k} {n}" for k, n in lengths.items())


def uneven_arrays_left_out(lengths: str, facts: dict[str, Any], doc: Mapping[str, Any]) -> str:
    """For a record whose per-request arrays do not agree (:func:`uneven_arrays`): its per-request facts absent, named
    not recorded, the tool's own aggregates read instead (:func:`tool_percentiles`); returns the warning note."""
    for key in ("ttfts_s", "latencies_s", "output_lens_tokens", "input_lens_tokens", "start_times_s", "errors"):
        facts.pop(key, None)
    facts["not_recorded"].append(f"per-request figures (arrays of uneven lengths: {lengths})")
    tool_percentiles(doc, facts)
    return f"per-request arrays of uneven lengths ({lengths}): per-request figures left out"


def not_understood(
    keys: Iterable[str], known: frozenset[str], also: Callable[[str], bool] = lambda _: False, at: str = ""
) -> list[str]:
    """The ``keys`` of a document that are neither ``known`` (read, or left out knowingly: each shape module's
    docstring says which and why) nor accepted by ``also`` (a family: ``mean_ttft_ms``...), sorted, each prefixed with
    ``at`` (``benchmarks[0].``): a field the tool's releases read do not write, named in a warning, never dropped
    silently."""
    return sorted(f"{at}{k}" for k in keys if k not in known and not also(k))


def warning_notes(fields: list[str]) -> tuple[str, ...]:
    """The record's notes for the fields :func:`not_understood` found (none: no note)."""
    return (f"fields not understood, left out: {', '.join(fields)}",) if fields else ()


#: the tool's aggregate percentiles read where it wrote no per-request arrays: (fact, its key in ms, its name)
TOOL_PERCENTILES = (
    ("ttft_p50_s", "median_ttft_ms", "TTFT p50"),
    ("ttft_p95_s", "p95_ttft_ms", "TTFT p95"),
    ("tpot_p50_s", "median_tpot_ms", "TPOT p50"),
    ("tpot_p95_s", "p95_tpot_ms", "TPOT p95"),
)


def tool_percentiles(doc: Mapping[str, Any], facts: dict[str, Any]) -> None:
    """The tool's TTFT / TPOT percentiles (``median_ttft_ms``... in ms: vLLM's and SGLang's names) into ``facts`` in
    seconds; those the file lacks (a percentile the run did not ask for, a metric left out) named in
    ``facts["not_recorded"]``, never filled."""
    missing: list[tuple[str, str]] = []
    for ours, theirs, name in TOOL_PERCENTILES:
        v = num(doc, theirs)
        if v is None:
            missing.append((name, theirs))
        else:
            facts[ours] = v / 1000.0
    if missing:
        names, keys = ", ".join(n for n, _ in missing), ", ".join(k for _, k in missing)
        facts["not_recorded"].append(f"{names} (not among the tool's percentiles: {keys} absent)")
