"""The server's per-response speculative fields, read into one engine-neutral :class:`SpecRequest` (issues 16, 26).

:func:`read_spec` takes one decoded JSON object of a response (a streamed chunk or a whole body) and returns what it
says about speculation, or None when it says nothing; :func:`merge_spec` folds a stream's readings together (the
fields ride one chunk; a later reading replaces an earlier one, warnings add up). Nothing here raises on a foreign
shape: a wrong-typed field is a named reason (``WRONG_TYPE``) and the count is None. docs/engines.md has the
field-by-field table (read / derived / ignored with the reason) and the sources.

The readers are the engines' adapters (``specscope.adapters.<engine>.per_response``, each with the shapes it reads
and their sources, listed by :func:`specscope.adapters.per_response.readers`): the top-level readings of every
adapter in registry order, then per choice each adapter's reading of it, merged in that order. A top-level key with
``spec`` or ``draft`` in it that no adapter reads is named (``UNREAD_SPEC_FIELD``, engine ``unknown``).

The queue wait of one response (:func:`per_response_queue_s`): the first adapter's that reports one (vLLM's
``metrics.queue_time_ms`` under ``--enable-per-request-metrics``); an engine without one gives None, and nothing is
derived in its place.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from specscope.adapters.per_response import SPEC_WORDS, readers, unread_paths
from specscope.records import SpecRequest

__all__ = ["int_or_none", "merge_spec", "per_response_queue_s", "read_spec"]


def int_or_none(x: Any) -> int | None:
    """``x`` as an int when it is a JSON number (not a bool), else None."""
    return int(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def per_response_queue_s(obj: dict[str, Any]) -> float | None:
    """The queue wait the chunk reports (s), read by the first adapter that reports one; None when the chunk has
    none."""
    for reader in readers():
        if reader.queue_s is not None and (found := reader.queue_s(obj)) is not None:
            return found
    return None


def _choices(obj: Mapping[str, Any]) -> list[tuple[int, Mapping[str, Any]]]:
    raw = obj.get("choices")
    return [(i, ch) for i, ch in enumerate(raw) if isinstance(ch, dict)] if isinstance(raw, list) else []


@cache
def _choice_readers() -> tuple[Callable[[int, Mapping[str, Any]], list[SpecRequest]], ...]:
    """Each adapter's reader of one choice, in the order its readings merge (``choice_order``, then registry)."""
    ordered = sorted(readers(), key=lambda r: r.choice_order)
    return tuple(r.read_choice for r in ordered if r.read_choice is not None)


def _found_in_choices(obj: Mapping[str, Any]) -> list[SpecRequest]:
    return [rec for i, ch in _choices(obj) for read in _choice_readers() for rec in read(i, ch)]


def _found_at_root(obj: Mapping[str, Any]) -> list[SpecRequest]:
    return [rec for reader in readers() if reader.read_root is not None for rec in reader.read_root(obj)]


@cache
def _root_read() -> frozenset[str]:
    """The top-level keys read: the response's own (``choices``, ``usage``) and every adapter's."""
    return frozenset({"choices", "usage"}).union(*(r.root_keys for r in readers()))


def _unknown_at_root(obj: Mapping[str, Any]) -> SpecRequest | None:
    known = _root_read()
    names = [k for k in obj if k not in known and any(w in k.lower() for w in SPEC_WORDS)]
    if not names:
        return None
    return SpecRequest("unknown", "unknown", source_fields=tuple(names), warnings=unread_paths(names))


def read_spec(obj: Mapping[str, Any]) -> SpecRequest | None:
    """What one decoded response object (a stream chunk or a whole body) says about speculation.

    Args:
        obj: the chunk's top-level JSON object (already decoded; any shape is accepted).

    Returns:
        The engine-neutral reading, with the paths it read and its named reasons; None when the object carries no
        speculative field at all. Several engines' fields in one object are merged (:func:`merge_spec`), the last
        one found winning, with ``SPEC_SHAPES_MIXED``.
    """
    if not isinstance(obj, Mapping):
        return None
    found: SpecRequest | None = None
    for rec in [*_found_at_root(obj), *_found_in_choices(obj)]:
        found = merge_spec(found, rec)
    return merge_spec(found, _unknown_at_root(obj))


def _counts(rec: SpecRequest) -> bool:
    return any(v is not None for v in (rec.accepted_tokens, rec.draft_tokens, rec.verify_steps)) or bool(rec.histogram)


def merge_spec(a: SpecRequest | None, b: SpecRequest | None) -> SpecRequest | None:
    """Fold a later reading ``b`` of the same response into ``a``: ``b``'s counts replace ``a``'s when it has any
    (the engines send them once, on one chunk); warnings and read paths add up; two engines' shapes in one response
    add ``SPEC_SHAPES_MIXED`` (SGLang's ``meta_info`` and ``sglext`` in one response are one engine's)."""
    if a is None or b is None:
        return a if b is None else b
    first, second = (a, b) if _counts(b) or not _counts(a) else (b, a)
    warnings = list(dict.fromkeys(a.warnings + b.warnings))
    if _counts(a) and _counts(b) and a.engine != b.engine:
        warnings.append(f"SPEC_SHAPES_MIXED({a.shape}, {b.shape})")
    return dataclasses.replace(
        second,
        warnings=tuple(warnings),
        source_fields=tuple(dict.fromkeys(first.source_fields + second.source_fields)),
    )
