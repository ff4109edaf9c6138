"""Strict JSON output (RFC 8259): no ``NaN`` / ``Infinity`` token ever printed or written by a ``-f json``.

Python's ``json.dumps`` writes ``NaN``, ``Infinity`` and ``-Infinity`` for non-finite floats by default; those are
not JSON, and strict parsers (``jq``, JavaScript's ``JSON.parse``, Go, Rust serde) refuse the whole document.
:func:`dumps_strict` writes each non-finite float as ``null`` and says why: a top-level object gains
``"non_finite": [{"path": "deltas.drafts", "value": "NaN", "reason": ...}]`` (in a top-level list, each object
element that holds one gains it), then serialises with ``allow_nan=False``, so a value missed here is an error, not
invalid output.

Reading, :func:`loads` is ``json.loads`` for text from outside (a file, a server's answer): JSON nested deeper than
Python's parser goes (a line 5,000 brackets deep) raises ``json.JSONDecodeError`` like any other malformed JSON,
never ``RecursionError`` (which is no ``ValueError`` and ended commands with exit 3, issue 37 T1); so does an
integer longer than Python converts (``sys.get_int_max_str_digits()``, 4,300 digits), whose plain ``ValueError``
slipped past every ``except json.JSONDecodeError`` (``import`` of a JSONL line holding one exited 3).

This module imports nothing of specscope (a bottom layer beside :mod:`specscope.fsio`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

__all__ = ["dumps_strict", "loads", "lone_surrogate", "NON_FINITE_KEY", "finite_or_none", "DuplicateKey", "NESTED"]

#: the ``msg`` of the ``json.JSONDecodeError`` :func:`loads` raises for JSON nested past the parser's depth
NESTED = "nested too deep"


class DuplicateKey(Exception):
    """An object of ``loads(..., unique_keys=True)`` that holds ``key`` twice (``first``, then ``again``): Python keeps
    the last silently, so a hand-edited or joined file read one value of two. Not a ``ValueError``: the text is
    JSON, and a caller that tries another reading on malformed JSON must not take it for that."""

    def __init__(self, key: str, first: Any, again: Any) -> None:
        super().__init__(f"key {key!r} twice")
        self.key, self.first, self.again = key, first, again


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key, out[key], value)
        out[key] = value
    return out


def loads(text: str | bytes, *, unique_keys: bool = False, parse_int: Callable[[str], Any] | None = None) -> Any:
    """``json.loads(text, parse_int=parse_int)``; nesting past the parser's depth (:data:`NESTED`) and an integer of
    more digits than Python converts ("an integer of too many digits") are a ``json.JSONDecodeError`` like any
    malformed JSON. With ``unique_keys`` an object holding a key twice raises :class:`DuplicateKey` (its first and its
    second value)."""
    try:
        return json.loads(text, object_pairs_hook=_unique if unique_keys else None, parse_int=parse_int)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise
    except (RecursionError, ValueError) as exc:
        doc = text if isinstance(text, str) else text.decode("utf-8", "replace")
        what = NESTED if isinstance(exc, RecursionError) else "an integer of too many digits"
        raise json.JSONDecodeError(what, doc[:100], 0) from None


_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(value: Any) -> str | None:
    """The escape (``\\ud800``) of the first lone UTF-16 surrogate in a string or key of a loaded JSON value, else
    None. ``json.loads`` reads ``"\\ud800"`` without its pair as a str holding half a character: no UTF-8 writer
    and no strict JSON reader (pydantic's among them) takes it back, so a record stored with one cannot be read."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if m := _SURROGATE.search(v):
                return f"\\u{ord(m.group()):04x}"
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return None


NON_FINITE_KEY = "non_finite"
_REASON = "not a finite number (from the input or a division by zero); written as null"


def _spelled(x: float) -> str:
    return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")


def finite_or_none(value: Any, path: str = "", found: list[dict[str, str]] | None = None) -> Any:
    """A copy of the JSON-like ``value`` with each non-finite float replaced by None; each one is appended to
    ``found`` as ``{"path", "value", "reason"}`` (``path``: dotted keys and ``[i]`` indexes)."""
    if isinstance(value, float) and not math.isfinite(value):
        if found is not None:
            found.append({"path": path or "$", "value": _spelled(value), "reason": _REASON})
        return None
    if isinstance(value, dict):
        return {k: finite_or_none(v, f"{path}.{k}" if path else str(k), found) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite_or_none(v, f"{path}[{i}]", found) for i, v in enumerate(value)]
    return value


def _with_reasons(value: Any) -> Any:
    found: list[dict[str, str]] = []
    if isinstance(value, list):
        out = []
        for item in value:
            here: list[dict[str, str]] = []
            clean = finite_or_none(item, "", here)
            if here and isinstance(clean, dict):
                clean = {**clean, NON_FINITE_KEY: here}
            out.append(clean)
        return out
    clean = finite_or_none(value, "", found)
    if found and isinstance(clean, dict):
        clean = {**clean, NON_FINITE_KEY: found}
    return clean


def dumps_strict(value: Any, *, default: Callable[[Any], Any] | None = None, **kw: Any) -> str:
    """``json.dumps(value, **kw)`` with non-finite floats as ``null`` and their reasons (see the module doc).

    ``default`` converts what JSON cannot hold (as ``json.dumps``); its results are made finite too.

    Raises:
        TypeError / ValueError: an object neither JSON nor ``default`` can write.
    """
    if default is not None:
        value = json.loads(json.dumps(value, default=default, allow_nan=True))
    return json.dumps(_with_reasons(value), allow_nan=False, **kw)
