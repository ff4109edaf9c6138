"""The one exception tree of specscope.

Every error a user can cause (bad input, unreachable server, a folder that is not a run, a malformed
checkpoint) is a :class:`SpecscopeError`. Each carries what was *found*, what was *expected* and the
*fix*, so the CLI can print one clear line and exit non-zero without a traceback (set
``SPECSCOPE_DEBUG=1`` to see tracebacks).

Tree::

    SpecscopeError                      exit code 2 unless noted
    ├── ConfigError                     bad option, unknown config / workload / recipe name
    ├── ServerError                     a server that cannot be used
    │   ├── ServerUnreachable           nothing answers at the URL
    │   ├── MetricsUnavailable          no Prometheus /metrics endpoint
    │   └── ServerStartError            an engine we launched did not become healthy
    ├── ClientWorkerError               a client worker process failed to start, died or overran
    ├── EngineError                     embedded engine: model file or draft cannot be prepared
    ├── StoreError                      a run folder that is not a run, or a run that cannot resume
    ├── CheckpointError                 a checkpoint that cannot be read at all (audit exit 2)
    │   └── HeaderError                 a safetensors header that violates the format
    └── SurgeryError                    a surgery plan that fails validation (nothing was written)
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "did_you_mean",
    "SpecscopeError",
    "ConfigError",
    "ServerError",
    "ServerUnreachable",
    "MetricsUnavailable",
    "ServerStartError",
    "ClientWorkerError",
    "EngineError",
    "StoreError",
    "CheckpointError",
    "HeaderError",
    "SurgeryError",
    "require_at_least",
    "require_one_of",
    "require_path",
    "plain_bound",
    "value_fix",
]


class SpecscopeError(Exception):
    """Root of all specscope errors.

    Args:
        message: one line saying what went wrong.
        found: what specscope found (a value, a file, a status).
        expected: what it expected instead.
        fix: what the user can do about it.
    """

    exit_code: int = 2

    def __init__(self, message: str, *, found: object = None, expected: object = None, fix: str | None = None):
        super().__init__(message)
        self.message = message
        self.found = found
        self.expected = expected
        self.fix = fix

    def one_line(self) -> str:
        """The message with found / expected / fix folded into one line for the terminal."""
        parts = [self.message]
        if self.found is not None:
            parts.append(f"found: {self.found}")
        if self.expected is not None:
            parts.append(f"expected: {self.expected}")
        if self.fix:
            parts.append(f"fix: {self.fix}")
        return "; ".join(parts)

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.one_line()


class ConfigError(SpecscopeError):
    """An option, recipe, config name or workload name that specscope does not accept."""

    @classmethod
    def unknown(cls, what: str, value: object, choices: Iterable[object], *, fix: str) -> ConfigError:
        """``unknown <what> '<value>'`` with the known choices as ``expected``; for ``raise``."""
        names = [str(c) for c in choices]
        fix = _with_hint(did_you_mean(value, names), fix)
        return cls(f"unknown {what} {value!r}", found=value, expected=f"one of {', '.join(names)}", fix=fix)

    @classmethod
    def invalid_value(
        cls,
        flag: str,
        found: object,
        expected: str,
        *,
        choices: Iterable[object] = (),
        fallback: str = "",
        fix: str | None = None,
    ) -> ConfigError:
        """``invalid value for FLAG`` (a value outside an option's choices or bounds): the one wording of it in
        every command, whether typer checked the option (:func:`specscope.cli.crash.usage_parts`) or bench's
        option spec did (:mod:`specscope.bench.spec`, :func:`specscope.config.profile_options`). ``expected`` is
        the plain words (:func:`plain_bound`, ``one of a, b``); the fix is an example of the first of ``choices``
        (unless one is close to ``found``), else follows from ``expected`` (:func:`value_fix`), else
        ``fallback`` (default: the command's ``--help``); a ``fix`` given is used as it is. ``choices``: the
        names the option takes, when it takes names (the caller's own list, never read back out of ``expected``):
        the closest to ``found`` is suggested (:func:`did_you_mean`)."""
        choices = tuple(choices)
        hint = did_you_mean(found, choices)  # a close name is the example: no second, unrelated one beside it
        fix = fix or value_fix(flag, expected, fallback or f"`--help` says what {flag} takes", () if hint else choices)
        fix = _with_hint(hint, fix)
        return cls(f"invalid value for {flag}", found=found, expected=expected, fix=fix)

    @classmethod
    def out_of_bounds(cls, what: str, message: str, *, found: object, expected: str, fix: str) -> ConfigError:
        """A value read but outside its bounds: :meth:`invalid_value` when ``what`` is an option (``--timeout``),
        else ``message`` (a run file's or a record's field, which has no flag to name)."""
        if what.startswith("-"):
            return cls.invalid_value(what, found, expected, fix=fix)
        return cls(message, found=found, expected=expected, fix=fix)


class ServerError(SpecscopeError):
    """A server that cannot be benchmarked."""


class ServerUnreachable(ServerError):
    """Nothing answered at the given URL (connection refused, DNS failure, timeout)."""


class MetricsUnavailable(ServerError):
    """The server has no Prometheus ``/metrics`` endpoint, so acceptance cannot be measured."""


class ServerStartError(ServerError):
    """A server that specscope launched exited or never became healthy; ``log_tail`` holds its last lines."""

    def __init__(
        self,
        message: str,
        *,
        log_tail: str = "",
        found: object = None,
        expected: object = None,
        fix: str | None = None,
    ) -> None:
        super().__init__(message, found=found, expected=expected, fix=fix)
        self.log_tail = log_tail


class ClientWorkerError(SpecscopeError):
    """A client worker process failed to start, died, or ran past its time bound (exit code 2)."""


class EngineError(SpecscopeError):
    """The embedded engine cannot be prepared (model file not installed, draft derivation failed)."""


class StoreError(SpecscopeError):
    """A run folder that is not a run, is from an incompatible version, or cannot be resumed."""


class CheckpointError(SpecscopeError):
    """A checkpoint that cannot be read at all (missing folder, unreadable index, hub failure)."""


class HeaderError(CheckpointError):
    """A safetensors header that violates the format (length bound, JSON, offsets, dtype x shape)."""


class SurgeryError(SpecscopeError):
    """A surgery plan that failed validation; nothing was written."""


def require_one_of(
    value: object,
    choices: Iterable[object],
    message: str,
    *,
    fix: str,
    found: object = None,
    expected: str = "{}",
    empty: str = "",
) -> None:
    """Raise :class:`ConfigError` (``message``; ``found``, default the value) unless ``value`` is among ``choices``.

    ``expected`` is a template whose ``{}`` is the choices comma-separated, or ``empty`` when there are none
    (``"one of the run's configs: {}"``, ``"none (no cells)"``).

    Raises:
        ConfigError: ``value`` is not among ``choices``.
    """
    options = tuple(choices)
    if value not in options:
        listed = ", ".join(map(str, options)) or empty
        raise ConfigError(message, found=value if found is None else found, expected=expected.format(listed), fix=fix)


def require_at_least(value: float, low: float, message: str, *, expected: str, fix: str) -> None:
    """Raise :class:`ConfigError` (``message``, ``found`` the value) when ``value`` < ``low`` (same units).

    Raises:
        ConfigError: ``value`` is below ``low``.
    """
    if value < low:
        raise ConfigError(message, found=value, expected=expected, fix=fix)


def require_path(path: str | Path, message: str, *, expected: str, fix: str, folder: bool = False) -> Path:
    """``path`` as a :class:`~pathlib.Path` if it is an existing regular file (a folder with ``folder=True``).

    Raises:
        ConfigError: nothing of that kind at ``path`` (``found`` the path; the other fields as given).
    """
    p = Path(path)
    if not (p.is_dir() if folder else p.is_file()):
        raise ConfigError(message, found=str(p), expected=expected, fix=fix)
    return p


_PYDANTIC_BOUNDS = {
    "Input should be greater than or equal to ": ">= ",
    "Input should be greater than ": "> ",
    "Input should be less than or equal to ": "<= ",
    "Input should be less than ": "< ",
}


def plain_bound(msg: str) -> str:
    """pydantic's bound message ("Input should be greater than or equal to 0") as the user's words ("a value >= 0"):
    the one wording of a bound, for bench's options (:func:`specscope.config.profile_options`) and for every other
    command's options, which typer checks with pydantic (:func:`specscope.cli.crash.usage_parts`)."""
    if msg.startswith("Input should be a valid integer"):  # bench's own words for a number that is not whole
        return "a whole number"
    if msg.startswith("Input should be a valid number"):
        return "a number"
    for prefix, sign in _PYDANTIC_BOUNDS.items():
        if msg.startswith(prefix):
            return f"a value {sign}{msg.removeprefix(prefix)}"
    return msg


#: the ``-kK`` draft-length suffix of a config name (``ngram-k8``): matched on its base, kept in the suggestion
_K_SUFFIX = re.compile(r"^(.+?)(-k[0-9]+)$")


def did_you_mean(found: object, choices: Iterable[object]) -> str | None:
    """``did you mean NAME?`` for a name refused against a known list: per comma-separated item of ``found`` (the
    ``NAME`` of a ``NAME=VALUE``), the closest of ``choices`` (difflib, ratio >= 0.6; a config's ``-kK`` suffix
    matched on its base and kept), items with none left out; None when no item has one. The one place a refused
    name gets its suggestion (:meth:`ConfigError.unknown`, :meth:`ConfigError.invalid_value`)."""
    known = [str(c) for c in choices]
    if not known or not isinstance(found, str):
        return None
    hints: list[str] = []
    for item in (x.strip().partition("=")[0].strip() for x in found.split(",")):
        if not item or item in known:
            continue
        m = _K_SUFFIX.match(item)
        base, suffix = (m.group(1), m.group(2)) if m and m.group(1) not in known else (item, "")
        close = difflib.get_close_matches(base, known, n=1, cutoff=0.6)
        if close:
            hints.append(close[0] + suffix)
    return f"did you mean {', '.join(dict.fromkeys(hints))}?" if hints else None


def _with_hint(hint: str | None, fix: str) -> str:
    return fix if hint is None or fix.startswith("did you mean") else f"{hint} ({fix})"


def value_fix(flag: str, expected: str, fallback: str, choices: Iterable[object] = ()) -> str:
    """The fix for a value ``flag`` refused: with ``choices`` (the caller's own list of the values it takes), an
    example of the first (``e.g. --format text``), never read back out of the ``one of a, b`` wording; else from what
    it expects (pydantic's and click's words: ``greater than or equal to 1``, ``less than 64``, or the plain ``a value
    >= 0``; ``from 1 to 4096``, ``a valid integer``); else ``fallback``."""
    first = next((str(c) for c in choices), None)
    if first is not None:
        return f"e.g. {flag} {first}"
    if m := re.search(r"(less|greater) than or equal to (\S+)|([<>])= (\S+)", expected):
        less = (m.group(1) or ("less" if m.group(3) == "<" else "greater")) == "less"
        return f"give {flag} {m.group(2) or m.group(4)} or {'less' if less else 'more'}"
    if m := re.search(r"(less|greater) than (\S+)|([<>]) (\S+)", expected):
        less = (m.group(1) or ("less" if m.group(3) == "<" else "greater")) == "less"
        return f"give {flag} a value {'below' if less else 'above'} {m.group(2) or m.group(4)}"
    if m := re.search(r"from (-?[0-9][^\s,;:()]*) to (-?[0-9][^\s,;:()]*)", expected):
        return f"give {flag} a value from {m.group(1)} to {m.group(2)}"
    if "integer" in expected or "whole number" in expected:
        return f"give {flag} a whole number, e.g. {flag} 2"
    if "number" in expected:
        return f"give {flag} a number, e.g. {flag} 0.5"
    return fallback
