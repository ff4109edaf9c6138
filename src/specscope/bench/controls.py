"""The CLI's client and resume options turned into :class:`~specscope.bench.resume.RunControls` (issue 17)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from specscope.bench.resume import RunControls
from specscope.errors import ConfigError

__all__ = ["client_controls"]


def client_controls(
    read_timeout_s: float | None,
    stall_timeout_s: float | None,
    api_key: str | None,
    retry_failed: bool,
    given: Mapping[str, Any],
) -> RunControls:
    """Client settings from ``--read-timeout`` / ``--stall-timeout`` (s) / ``--api-key``, plus the resume choices.

    Raises:
        ConfigError: a timeout that is not a positive number of seconds.
    """
    from specscope.client.settings import ClientSettings

    values: dict[str, Any] = {"api_key": api_key or None}
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
        client=client, retry_failed=retry_failed, given={k: v for k, v in given.items() if v is not None}
    )
