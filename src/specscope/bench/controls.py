"""The CLI's client and resume options turned into :class:`~specscope.bench.resume.RunControls` (issue 17)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from specscope.bench.resume import RunControls
from specscope.bench.spec import BENCH_SPEC, Opt
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
    client: Mapping[str, Any],
    retry_failed: bool,
    given: Mapping[str, Any],
    record: Mapping[str, Any] | None = None,
    spec: tuple[Opt, ...] = BENCH_SPEC,
) -> RunControls:
    """Client settings from the ``client`` options of the spec (``read_timeout_s`` / ``stall_timeout_s``: s, already
    read by the one duration parser; ``api_key``; ``busy_poll``: off for a new run, the run's own with
    ``--resume``; ``endpoint``: the API, the run's own with ``--resume``), plus the resume choices, the given
    options and the manifest's record of them.

    Raises:
        ConfigError: a client setting the client refuses.
    """
    from specscope.client.settings import ClientSettings

    values: dict[str, Any] = {"api_key": client.get("api_key") or None, "busy_poll": bool(client.get("busy_poll"))}
    values |= {k: v for k in ("read_timeout_s", "stall_timeout_s", "endpoint") if (v := client.get(k)) is not None}
    try:
        settings = ClientSettings(**values)
    except ValidationError as exc:
        from specscope.errors import value_fix

        first = exc.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else ""
        flag = next((o.flag for o in spec if o.client == field), field)
        raise ConfigError(
            f"invalid client setting {flag}",
            found=first.get("input"),
            expected=str(first["msg"]),
            fix=value_fix(flag, str(first["msg"]), f"`specscope bench --help` says what {flag} takes"),
        ) from None
    return RunControls(client=settings, retry_failed=retry_failed, given=dict(given), record=record, spec=spec)
