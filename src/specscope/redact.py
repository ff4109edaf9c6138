"""Secret redaction for everything specscope writes (manifest, run.sqlite, logs, reports): issue 17, part 5.

What counts as a secret (the rules, applied to any JSON-like value, recursively):
- credentials in a URL's authority (``scheme://user:password@host``): the ``user:password`` part;
- the value of a mapping key that looks like a credential (``*_TOKEN``, ``*_KEY``, ``*SECRET*``,
  ``*PASSWORD*``, ``api_key``, ``authorization``), e.g. a recipe's ``env = {HF_TOKEN = ...}``;
- the argument after a command-line flag that carries a credential (``--api-key``, ``--hf-token``,
  ``--token``, ``--*-key``, ``--*-token``) and the value of ``--flag=value`` forms of them;
- any string that looks like an API key by itself (``sk-...``, ``hf_...``, ``Bearer ...``).

A redacted secret becomes :data:`MASK`. This module has no dependencies (a low layer beside
:mod:`specscope.fsio`), so the store and the log writers can call it.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MASK", "redact", "redact_text", "redact_argv", "is_secret_name"]

MASK = "***"

_URL_CREDS = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/@\s:]*(?::[^/@\s]*)?@")
_KEYLIKE = re.compile(r"\b(?:sk-[A-Za-z0-9_-]{6,}|hf_[A-Za-z0-9]{8,}|Bearer\s+[A-Za-z0-9._~+/=-]{6,})")
_SECRET_NAME = re.compile(r"(?i)(?:^|[_-])(?:token|key|secret|password|passwd|authorization|api[_-]?key)$")
_PER_UNIT = re.compile(r"(?i)per[_-]token$")  # a rate such as cost_ns_per_token, not a credential
_SECRET_FLAG = re.compile(r"(?i)^--?(?:[a-z0-9]+-)*(?:token|key|secret|password|api-key)$")
_FLAG_ASSIGN = re.compile(r"(?i)^(--?(?:[a-z0-9]+-)*(?:token|key|secret|password|api-key))=(.*)$", re.S)
_FLAG_IN_TEXT = re.compile(r"(?i)(--(?:[a-z0-9]+-)*(?:token|key|secret|password))(\s+|=)(?!-)([^\s\"',]+)")
_ENV_ASSIGN = re.compile(r"(?i)\b([A-Z0-9_]*(?:TOKEN|_KEY|SECRET|PASSWORD))=([^\s\"']+)")


def is_secret_name(name: str) -> bool:
    """True for a mapping key or environment variable name that holds a credential (``HF_TOKEN``, ``api_key``)."""
    return bool(_SECRET_NAME.search(name)) and not _PER_UNIT.search(name)


def redact_text(text: str) -> str:
    """``text`` with URL credentials, key-like strings, ``--api-key VALUE`` / ``--hf-token=VALUE`` (a command line
    in a log) and ``NAME_TOKEN=value`` assignments masked."""
    if not text:
        return text
    text = _URL_CREDS.sub(lambda m: f"{m.group('scheme')}{MASK}@", text)
    text = _KEYLIKE.sub(MASK, text)
    text = _FLAG_IN_TEXT.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    return _ENV_ASSIGN.sub(lambda m: f"{m.group(1)}={MASK}", text)


def redact_argv(argv: list[Any]) -> list[Any]:
    """A command line with the values of credential flags (``--api-key sk-..``, ``--hf-token=..``) masked."""
    out: list[Any] = []
    mask_next = False
    for arg in argv:
        if not isinstance(arg, str):
            out.append(redact(arg))
            mask_next = False
            continue
        if mask_next:
            out.append(MASK)
            mask_next = False
            continue
        m = _FLAG_ASSIGN.match(arg)
        if m:
            out.append(f"{m.group(1)}={MASK}")
            continue
        mask_next = bool(_SECRET_FLAG.match(arg))
        out.append(redact_text(arg))
    return out


def redact(value: Any) -> Any:
    """A copy of a JSON-like ``value`` (dicts, lists, tuples, strings, numbers) with every secret masked."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        # a credential is a string: numbers under such names (``cost_ns_per_token``) are measurements
        return {
            k: (MASK if isinstance(k, str) and is_secret_name(k) and isinstance(v, str) and v else redact(v))
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        items = redact_argv(list(value)) if any(isinstance(x, str) and x.startswith("-") for x in value) else value
        return type(value)(redact(x) if not isinstance(x, str) else redact_text(x) for x in items)
    return value
