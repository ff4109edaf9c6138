"""The CLI's client and resume options turned into :class:`~specscope.bench.resume.RunControls` (issue 17)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from specscope.bench.resume import RunControls
from specscope.errors import ConfigError
from specscope.fsio import write_bytes_atomic
from specscope.redact import redact_text

__all__ = ["client_controls", "redacted_log"]


@contextlib.contextmanager
def redacted_log(path: Path) -> Iterator[None]:
    """On exit (the server stopped), rewrite the server log at ``path`` with its secrets masked (a launched
    server may print its command line, ``--api-key`` included). Bytes that are not UTF-8 are kept as they are."""
    try:
        yield
    finally:
        if path.is_file():
            data = path.read_bytes()
            clean = redact_text(data.decode("utf-8", errors="surrogateescape")).encode("utf-8", "surrogateescape")
            if clean != data:
                write_bytes_atomic(path, clean)


def client_controls(
    read_timeout_s: float | None,
    stall_timeout_s: float | None,
    api_key: str | None,
    retry_failed: bool,
    given: Mapping[str, Any],
    *,
    busy_poll: bool | None = None,
) -> RunControls:
    """Client settings from ``--read-timeout`` / ``--stall-timeout`` (s) / ``--api-key`` / ``--busy-poll``, plus the
    resume choices. ``busy_poll``: ``--busy-poll`` / ``--no-busy-poll`` as typed (None: not given: off for a new run,
    the run's own with ``--resume``).

    Raises:
        ConfigError: a timeout that is not a positive number of seconds.
    """
    from specscope.client.settings import ClientSettings

    values: dict[str, Any] = {"api_key": api_key or None, "busy_poll": bool(busy_poll)}
    for name, value in (("read_timeout_s", read_timeout_s), ("stall_timeout_s", stall_timeout_s)):
        if value is not None:
            if not value > 0 or value == float("inf"):
                flag = "--" + name.removesuffix("_s").replace("_", "-")
                raise ConfigError(f"{flag} must be a positive number of seconds", found=value, expected="e.g. 30")
            values[name] = value
    try:
        client = ClientSettings(**values)
    except ValidationError as exc:  # pragma: no cover - the checks above cover the fields set here
        raise ConfigError("invalid client setting", found=str(exc.errors()[0]["msg"]), expected="see --help") from None
    return RunControls(
        client=client,
        retry_failed=retry_failed,
        given={k: v for k, v in given.items() if v is not None},
        busy_poll_given=busy_poll,
    )
