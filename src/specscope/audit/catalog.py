"""The text of every audit finding, keyed by code, and :func:`finding`, the one constructor the rules call.

A rule states the facts it measured (counts, names, byte sizes); the words around them are written once per code in
``findings.toml`` beside this module: ``message`` (what is wrong), ``found`` / ``expected``, ``consequence`` (what it
does at serving time) and ``fix``, each a :meth:`str.format` template filled with the facts. A fact that reads as a
phrase (a word chosen by a comparison, a joined list) is worded by the rule. A key ``CODE/variant`` is the same code
worded for one case (``QUANT_CONFIG_MISMATCH/kv``); its finding's code is ``CODE``.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any

from specscope.audit.findings import Finding, Severity
from specscope.textsafe import shell_word

__all__ = ["finding_texts", "finding", "arg", "with_target"]

_TEXTS_FILE = "findings.toml"
_TEMPLATES = ("message", "found", "expected", "consequence", "fix")  # the Finding fields the table words, message first


def arg(text: str) -> str:
    """``text`` as one shell word, for the command lines fix texts give (a path with spaces stays one argument)."""
    return shell_word(text)


@cache
def finding_texts() -> dict[str, dict[str, str]]:
    """Key (``CODE`` or ``CODE/variant``) -> ``severity`` and the templates of :data:`_TEMPLATES` it gives, read once
    from ``findings.toml``. An entry with ``base = "KEY"`` keeps that entry's fields (and its base's) unless it gives
    them again.

    Raises:
        ValueError: an entry has a field :class:`Finding` does not word, no ``message``, or an unknown severity (the
            file ships with the package: this is a bug, not user input).
    """
    raw = tomllib.loads(resources.files(__package__).joinpath(_TEXTS_FILE).read_text(encoding="utf-8"))
    out: dict[str, dict[str, str]] = {}
    for key, entry in raw.items():
        text, seen = dict(entry), {key}
        while "base" in text and text["base"] not in seen:  # a chain of bases: the nearest one's fields win
            seen.add(text["base"])
            text = {**raw[text.pop("base")], **text}
        text.pop("base", None)
        unknown = set(text) - {"severity", *_TEMPLATES}
        if unknown or "message" not in text:
            raise ValueError(
                f"{_TEXTS_FILE} [{key}]: fields {sorted(text)}; expected severity, {', '.join(_TEMPLATES)}"
            )
        Severity(text["severity"])
        out[key] = text
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
    values = {"file": file, "tensor": tensor, "checkpoint": "{checkpoint}", **facts}  # filled by with_target
    words = {name: text[name].format(**values) if name in text else None for name in _TEMPLATES[1:]}
    return Finding(
        severity or Severity(text["severity"]),
        key.partition("/")[0],
        text["message"].format(**values),
        file=file,
        tensor=tensor,
        details=details or {},
        **words,
    )


def with_target(findings: list[Finding], target: object) -> list[Finding]:
    """``findings`` whose ``fix`` names the audited checkpoint: ``{checkpoint}`` left in a fix template by a rule
    that did not state it (a command line the user can run, e.g. ``specscope surgery reindex {checkpoint} --out
    NEW_FOLDER``) becomes ``target``, one shell word (:func:`arg`)."""
    from dataclasses import replace

    name, key = arg(str(target)), "{checkpoint}"
    return [replace(f, fix=f.fix.replace(key, name)) if f.fix and key in f.fix else f for f in findings]
