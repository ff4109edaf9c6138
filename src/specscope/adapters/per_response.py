"""Per-response speculative fields: the engine-neutral parts the adapters' readers share, and the list of readers
(through the registry) that :mod:`specscope.client.spec_fields` dispatches to.

Each adapter with a ``per_response`` module (``specscope.adapters.<engine>.per_response``) exposes what it reads of
one decoded response object (a streamed chunk or a whole body):

- ``ROOT_KEYS``: the top-level keys it reads (a key with ``spec`` or ``draft`` in it that no adapter reads is named
  ``UNREAD_SPEC_FIELD`` by the dispatch), and ``WHERE``: where its responses carry the fields, as a note names it;
- ``read_root(obj) -> list[SpecRequest]`` (optional): its readings of the object's top level;
- ``read_choice(i, choice) -> list[SpecRequest]`` (optional) and ``CHOICE_ORDER`` (its place among the readers of one
  choice: a later reading wins a merge, so the order is part of what a response reads as);
- ``queue_s(obj) -> float | None`` (optional): the queue wait the object reports (s), None when it reports none,
  with ``QUEUE_FIELD`` (where it reads it, as a note names it);
- the key sets of the payloads it reads (what it knows; any other speculative key is ``UNREAD_SPEC_FIELD``).

Every reading is one :class:`~specscope.records.SpecRequest`; nothing raises on a foreign shape: a wrong-typed field
is a named reason (``WRONG_TYPE``) and the count is None.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, NamedTuple

from specscope.adapters.registry import display, engine_modules
from specscope.records import SpecRequest

__all__ = [
    "SPEC_WORDS",
    "Reader",
    "NEUTRAL_FIELDS",
    "ResponseField",
    "ResponseReader",
    "identities",
    "queue_fields_text",
    "sources_text",
    "readers",
    "spec_record",
    "unread_paths",
]

#: a key holding one of these words is speculative: read by an adapter, or named as unread
SPEC_WORDS = ("spec", "draft")


class Reader:
    """Reads one payload's fields, noting each path it read and each named reason."""

    def __init__(self, payload: Mapping[str, Any], path: str) -> None:
        self.payload, self.path = payload, path
        self.read: list[str] = []
        self.warnings: list[str] = []

    def count(self, *names: str) -> int | None:
        """The first of ``names`` present, as a non-negative whole number; ``WRONG_TYPE`` otherwise."""
        for name in names:
            if name not in self.payload or self.payload[name] is None:
                continue
            v = self.payload[name]
            self.read.append(f"{self.path}.{name}")
            finite = isinstance(v, int) or (isinstance(v, float) and math.isfinite(v))  # int(inf) raises
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not finite or v < 0 or v != int(v):
                shown = reprlib.repr(v) if isinstance(v, list | dict) else str(v)  # reprlib: bounded depth
                self.warnings.append(f"WRONG_TYPE({self.path}.{name}: {type(v).__name__} {shown[:20]})")
                return None
            return int(v)
        return None

    def ints(self, name: str) -> tuple[int, ...]:
        """A list of non-negative whole numbers, () when absent or malformed (``WRONG_TYPE``)."""
        v = self.payload.get(name)
        if v is None:
            return ()
        self.read.append(f"{self.path}.{name}")
        if isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v):
            return tuple(v)
        self.warnings.append(f"WRONG_TYPE({self.path}.{name}: not a list of counts)")
        return ()

    def histogram(self, *names: str) -> tuple[tuple[int, int], ...]:
        """A dense list (index = accepted drafts) or a map with whole-number keys, as sorted sparse pairs."""
        for name in names:
            v = self.payload.get(name)
            if v is None:
                continue
            self.read.append(f"{self.path}.{name}")
            pairs: list[tuple[int, int]] | None = None
            if isinstance(v, list) and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in v):
                pairs = [(j, n) for j, n in enumerate(v)]
            elif isinstance(v, dict) and all(str(k).isdigit() and isinstance(n, int) and n >= 0 for k, n in v.items()):
                pairs = [(int(k), n) for k, n in v.items()]
            if pairs is None:
                self.warnings.append(f"WRONG_TYPE({self.path}.{name}: not a histogram of counts)")
                return ()
            return tuple(sorted((j, n) for j, n in pairs if n))
        return ()

    def unread(self, known: frozenset[str]) -> None:
        """``UNREAD_SPEC_FIELD`` for each key of the payload this reader does not know."""
        for key in self.payload:
            if key not in known:
                self.warnings.append(f"UNREAD_SPEC_FIELD({self.path}.{key})")


def identities(
    accepted: int | None,
    drafted: int | None,
    steps: int | None,
    hist: tuple[tuple[int, int], ...],
    k: int | None = None,
) -> list[str]:
    """``SPEC_IDENTITY`` for each identity the counts break: accepted <= drafted, histogram sums to the steps, the
    histogram's accepted total is the accepted count; with the configured k (drafted tokens per verify step at most):
    drafted <= steps x k (a proposer may draft fewer, never more: vLLM 0.32.0 ``v1/spec_decode/ngram_proposer.py``)
    and no histogram bucket above k (a step accepts at most its k drafts)."""
    out = []
    if accepted is not None and drafted is not None and accepted > drafted:
        out.append(f"SPEC_IDENTITY(accepted {accepted} > drafted {drafted})")
    if hist and steps is not None and sum(n for _, n in hist) != steps:
        out.append(f"SPEC_IDENTITY(histogram sums to {sum(n for _, n in hist)}, steps {steps})")
    if hist and accepted is not None and sum(j * n for j, n in hist) != accepted:
        out.append(f"SPEC_IDENTITY(histogram accepts {sum(j * n for j, n in hist)}, accepted {accepted})")
    if k is not None and drafted is not None and steps is not None and drafted > steps * k:
        out.append(f"SPEC_IDENTITY(drafted {drafted} > {steps} steps x k {k})")
    if k is not None and hist and hist[-1][0] > k:
        out.append(f"SPEC_IDENTITY(histogram bucket {hist[-1][0]} > k {k})")
    return out


def spec_record(engine: str, shape: str, r: Reader, **counts: Any) -> SpecRequest:
    """The reading of ``r``'s payload: ``counts`` (the :class:`SpecRequest` fields), the paths ``r`` read, its named
    reasons and the identities the counts break (:func:`identities`)."""
    warnings = r.warnings + identities(
        counts.get("accepted_tokens"),
        counts.get("draft_tokens"),
        counts.get("verify_steps"),
        counts["histogram"],
        counts.get("configured_k"),
    )
    return SpecRequest(engine=engine, shape=shape, source_fields=tuple(r.read), warnings=tuple(warnings), **counts)


def unread_paths(paths: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """``UNREAD_SPEC_FIELD(path)`` for each path: seen, not understood, so never read as a figure."""
    return tuple(f"UNREAD_SPEC_FIELD({p})" for p in paths)


class ResponseField(NamedTuple):
    """One per-response field an adapter declares (its ``FIELDS``), as docs/engines.md's per-response table shows it
    (Markdown): ``version`` the release or source it was written from (``same``: the row above's), ``field`` its path,
    ``status`` read / derived / ignored (with a word where the reading is special: ``read, caveat``, ``derived,
    checked``, ``not sent``), ``into`` the :class:`~specscope.records.SpecRequest` field or the reason, ``test`` the
    case id of ``tests/data/engines/per_request_cases.json`` or the test that pins it."""

    version: str
    field: str
    status: str
    into: str
    test: str


class ResponseReader(NamedTuple):
    """One adapter's per-response reader (module doc): ``engine``, its ``root_keys``, ``read_root`` /
    ``read_choice`` / ``queue_s`` (None where the adapter has none), ``choice_order``, ``queue_field`` (where
    ``queue_s`` reads, "" without one) and ``where`` (where its responses carry the fields)."""

    engine: str
    root_keys: frozenset[str]
    read_root: Callable[[Mapping[str, Any]], list[SpecRequest]] | None
    read_choice: Callable[[int, Mapping[str, Any]], list[SpecRequest]] | None
    choice_order: int
    queue_s: Callable[[Mapping[str, Any]], float | None] | None
    queue_field: str = ""
    where: str = ""


@cache
def readers() -> tuple[ResponseReader, ...]:
    """Every registered engine's per-response reader, in registry order (the order the top-level readings merge)."""
    return tuple(
        ResponseReader(
            engine,
            frozenset(mod.ROOT_KEYS),
            getattr(mod, "read_root", None),
            getattr(mod, "read_choice", None),
            int(getattr(mod, "CHOICE_ORDER", 0)),
            getattr(mod, "queue_s", None),
            str(getattr(mod, "QUEUE_FIELD", "")),
            str(getattr(mod, "WHERE", "")),
        )
        for engine, mod in engine_modules("per_response")
    )


def sources_text() -> str:
    """Where each adapter reads a response's speculative fields, as a note names it: ``DISPLAY WHERE`` per engine,
    comma-separated in registry order."""
    return ", ".join(f"{display(r.engine)} {r.where}" for r in readers() if r.where)


def queue_fields_text() -> str:
    """Where each adapter that reads a response's queue wait reads it, as a note names it: ``DISPLAY FIELD`` per
    engine, semicolon-separated in registry order; "none" when no adapter reads one."""
    return "; ".join(f"{display(r.engine)} {r.queue_field}" for r in readers() if r.queue_s) or "none"


#: what the dispatch itself declares (any engine), after the adapters' rows
NEUTRAL_FIELDS: tuple[ResponseField, ...] = (
    ResponseField(
        "—",
        "another top-level key with `spec` or `draft` in it",
        "ignored",
        "`UNREAD_SPEC_FIELD(key)`, engine `unknown`",
        "unit: unknown fields; integration unknown-field server",
    ),
)
