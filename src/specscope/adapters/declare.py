"""What an adapter declares of its engine, field by field: the one place an engine's names live.

Each ``specscope.adapters.<engine>.metrics`` module holds ``PREFIXES`` (the sample-name prefixes its Prometheus
exposition uses, e.g. ``("vllm:",)``) and ``ROWS``, a tuple of :class:`Row`: every field the engine writes that
specscope knows, with its status (read / derived / ignored), the engine-neutral field it fills (or the reason it is
not a figure), the source file and release it was written from, and, for a row marked read, the node id of the test
that reaches it through a user command (``tests/...py::test_name``). The readers (``client/metrics.py``,
``bench/prometheus_source.py``, ``client/gauges.py``) build their name tables from these rows through
:mod:`specscope.adapters.names`; docs/engines.md is generated from them (``python -m specscope.adapters.doc``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Detail", "Role", "Row", "Status", "Surface"]

Status = Literal["read", "derived", "ignored"]
#: where the field is written: Prometheus text ``/metrics``, TensorRT-LLM's JSON ``/metrics`` (iteration stats),
#: its ``/perf_metrics`` (per request).
Surface = Literal["prometheus", "iteration-json", "perf-json"]
#: what a Prometheus sample is to the reader: a counter into a ``SpecCounters`` field, the per-position counter, a
#: running / waiting gauge, the queue-time histogram's sum / count, a speculative gauge (a current mean, never a window
#: figure), a known name that is not read (``ignored``: every sample whose name starts with it), or one whose presence
#: says what the read counts mean (``caveat``: not read either; ``into`` is the named reason, ``CODE(text)``, that the
#: window reading then gives).
Role = Literal["counter", "per_pos", "gauge", "queue_sum", "queue_count", "spec_gauge", "ignored", "caveat", "json"]


@dataclass(frozen=True)
class Row:
    """One field an engine writes, as its adapter declares it.

    Attributes:
        surface: where it is written (:data:`Surface`).
        name: the name as written, without the adapter's prefix for a Prometheus sample
            (``spec_decode_num_drafts_total``), or a JSON path (``specDecodingStats.numDraftTokens``).
        role: what the reader does with it (:data:`Role`).
        status: read / derived / ignored.
        into: for ``read``, the engine-neutral field it fills (``drafts``, ``running`` ...); otherwise the reason.
        source: the source file and release the name was written from.
        test: for ``read``, the node id of a test that reaches the row through a user command; "" otherwise.
    """

    surface: Surface
    name: str
    role: Role
    status: Status
    into: str
    source: str
    test: str = ""


@dataclass(frozen=True)
class Detail:
    """One rule of how an engine's windows or log lines are read, beyond its field rows: a row of docs/engines.md's
    window rules or log details (an adapter's ``WINDOW_RULES`` / ``LOG_DETAILS``; the engine-neutral ones in
    :mod:`specscope.adapters.names` and :mod:`specscope.adapters.logs`).

    Attributes:
        version: the engine release or source the rule was written from.
        what: the series or line it concerns.
        status: read / derived / ignored / alarm / warning / check ... (what specscope does).
        fact: what it gives, or why not.
        tests: node ids of the tests that pin it; at least one reaches it through a user command
            (``tests/test_engines_doc.py`` fails otherwise).
        engines: the engines it holds for, where a neutral rule names several ("" = the adapter's own, or "any").
    """

    version: str
    what: str
    status: str
    fact: str
    tests: tuple[str, ...]
    engines: str = ""
