"""llama.cpp's per-response speculative fields, read into the engine-neutral :class:`~specscope.records.SpecRequest`
(issues 16, 26; docs/engines.md has the field-by-field table).

``timings.draft_n`` / ``draft_n_accepted`` on the final chunk (``llama-server`` b9251); verify steps are not reported
(a decode step without a draft emits one token, so ``predicted_n - draft_n_accepted`` counts decode steps). No queue
wait is reported, and nothing is derived in its place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from specscope.adapters.per_response import Reader, spec_record
from specscope.records import SpecRequest

__all__ = ["KEYS", "ROOT_KEYS", "read_payload", "read_root"]

#: the ``timings`` keys it reads; any other ``draft*`` key there is ``UNREAD_SPEC_FIELD``
KEYS = frozenset({"draft_n", "draft_n_accepted"})
#: the top-level keys it reads
ROOT_KEYS = frozenset({"timings"})


def read_payload(payload: Mapping[str, Any], path: str) -> SpecRequest:
    """The ``timings`` object at ``path``."""
    r = Reader(payload, path)
    for key in payload:
        if key.startswith("draft") and key not in KEYS:
            r.warnings.append(f"UNREAD_SPEC_FIELD({path}.{key})")
    return spec_record(
        "llamacpp",
        "llamacpp.timings",
        r,
        accepted_tokens=r.count("draft_n_accepted"),
        draft_tokens=r.count("draft_n"),
        histogram=(),
    )


def read_root(obj: Mapping[str, Any]) -> list[SpecRequest]:
    """Top-level ``timings`` when it holds a ``draft*`` key (no draft model: no ``draft_n``, no reading)."""
    timings = obj.get("timings")
    if isinstance(timings, dict) and any(k.startswith("draft") for k in timings):
        return [read_payload(timings, "timings")]
    return []
