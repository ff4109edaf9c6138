"""The text of every audit finding, keyed by code, and :func:`finding`, the one constructor the rules call.

A rule states the facts it measured (counts, names, byte sizes); the words around them are written once per code in
``findings.toml`` beside this module: ``message`` (what is wrong), ``found`` / ``expected``, ``consequence`` (what it
does at serving time) and ``fix``, each a :meth:`str.format` template filled with the facts. A fact that reads as a
phrase (a word chosen by a comparison, a joined list) is worded by the rule. A key ``CODE/variant`` is the same code
worded for one case (``QUANT_CONFIG_MISMATCH/kv``); its finding's code is ``CODE``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from functools import cache
from importlib import resources
from typing import Any

from specscope.audit.findings import Finding, Severity

__all__ = ["FindingText", "finding_texts", "finding"]

_TEXTS_FILE = "findings.toml"


@dataclass(frozen=True)
class FindingText:
    """The words of one finding: its default severity and :meth:`str.format` templates (None: the field is absent)."""

    severity: Severity
    message: str
    found: str | None = None
    expected: str | None = None
    consequence: str | None = None
    fix: str | None = None


@cache
def finding_texts() -> dict[str, FindingText]:
    """Key (``CODE`` or ``CODE/variant``) -> :class:`FindingText`, read once from ``findings.toml``.

    An entry with ``base = "KEY"`` keeps that entry's fields unless it gives them again.
    """
    raw = tomllib.loads(resources.files(__package__).joinpath(_TEXTS_FILE).read_text(encoding="utf-8"))
    names = {f.name for f in fields(FindingText)}
    out: dict[str, FindingText] = {}
    for key, entry in raw.items():
        base = raw[entry["base"]] if "base" in entry else {}
        values = {**base, **entry}
        values.pop("base", None)
        unknown = set(values) - names
        if unknown:  # the file ships with the package: a typo here is a bug, not user input
            raise ValueError(f"{_TEXTS_FILE} [{key}]: unknown fields {sorted(unknown)}; known: {sorted(names)}")
        out[key] = FindingText(**{**values, "severity": Severity(values["severity"])})
    return out


def finding(
    key: str,
    *,
    file: str | None = None,
    tensor: str | None = None,
    severity: Severity | None = None,
    details: dict[str, Any] | None = None,
    **facts: Any,
) -> Finding:
    """The finding ``key`` (a code, or ``CODE/variant``) with its templates filled from ``facts``.

    ``file`` and ``tensor`` are recorded on the finding and may be named in the templates too; ``severity``
    overrides the table's (a code whose weight depends on the file, e.g. ``VL_PROCESSOR_CONFIG_MISSING``).

    Raises:
        KeyError: ``key`` is not in the table, or a template names a fact that was not given (a bug in the rule).
    """
    text = finding_texts()[key]
    values = {"file": file, "tensor": tensor, **facts}

    def fill(template: str | None) -> str | None:
        return None if template is None else template.format(**values)

    return Finding(
        severity or text.severity,
        key.partition("/")[0],
        text.message.format(**values),
        file=file,
        tensor=tensor,
        found=fill(text.found),
        expected=fill(text.expected),
        consequence=fill(text.consequence),
        fix=fill(text.fix),
        details=details or {},
    )
