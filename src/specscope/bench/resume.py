"""Honest resume (issue 17, part 4): what a resumed run re-measures and when a run is ``finished``.

- A run is ``finished`` only when every planned cell is stored with a measured status (``ok`` or ``degraded``);
  a ``failed`` or ``server_crash`` cell, or a planned cell never measured, leaves it unfinished.
- ``--resume --retry-failed`` measures again the stored cells whose status is ``failed`` or ``server_crash``
  (plain ``--resume`` only measures the cells never stored).
- Matrix options given together with ``--resume`` must equal the run's stored options: a difference is a
  :class:`~specscope.errors.ConfigError` naming each option (found / expected / fix), never silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from specscope.config import BenchOptions
from specscope.errors import ConfigError
from specscope.records import CellKey

if TYPE_CHECKING:
    from specscope.client.settings import ClientSettings
    from specscope.stats.summary import CellSummary

__all__ = [
    "MEASURED",
    "RETRIED",
    "RunControls",
    "check_resume_options",
    "resumed_client",
    "cells_to_skip",
    "is_finished",
]

MEASURED = frozenset({"ok", "degraded"})  # a cell with one of these statuses is a result; it is never redone
RETRIED = frozenset({"failed", "server_crash"})  # what --retry-failed measures again


@dataclass(frozen=True)
class RunControls:
    """How a bench run talks to its servers and resumes; nothing here is stored as a run option.

    Attributes:
        client: the HTTP client's settings (``--read-timeout``, ``--stall-timeout``, ``--api-key``); None: defaults.
        retry_failed: with ``--resume``, measure ``failed`` and ``server_crash`` cells again.
        given: matrix options given on the command line with ``--resume`` (name -> value, unset ones omitted);
            each must equal the stored option.
        on_start: called with the run folder once it exists (created or opened), before the first cell.
        busy_poll_given: ``--busy-poll`` (True) / ``--no-busy-poll`` (False) as typed, None when not given; with
            ``--resume`` the run's own mode applies and a different one is refused (:func:`resumed_client`).
    """

    client: ClientSettings | None = None
    retry_failed: bool = False
    given: Mapping[str, Any] = field(default_factory=dict)
    on_start: Callable[[Path], None] | None = None
    busy_poll_given: bool | None = None


def check_resume_options(stored: Mapping[str, Any], given: Mapping[str, Any], run: Path) -> None:
    """Refuse options given with ``--resume`` that differ from the run's stored ``options``.

    Each given value is normalized as :class:`BenchOptions` would store it (e.g. ``--levels 2,1`` equals the
    stored ``[1, 2]``) before it is compared.

    Raises:
        ConfigError: one or more options differ; the message names them with the stored and the given value.
    """
    differ: list[str] = []
    for name, value in given.items():
        if value is None:
            continue
        if name == "profile":
            differ += _profile_differs(stored, value)
            continue
        if name == "baseline":  # the run's baseline as it resolved (None: its first config)
            have_base = BenchOptions(**stored).baseline_config()
            if value != have_base:
                differ.append(_differ(name, value, have_base))
            continue
        try:
            wanted = getattr(BenchOptions(**{**stored, name: value}), name)
        except (ValidationError, TypeError):
            wanted = value
        have = getattr(BenchOptions(**stored), name)
        if wanted != have:
            differ.append(_differ(name, wanted, have))
    if differ:
        raise _refused(
            differ,
            "no matrix options with --resume, or the run's own values",
            f"drop them to finish {run} as it was planned, or start a new run",
        )


def _profile_differs(stored: Mapping[str, Any], profile: str) -> list[str]:
    """``--profile NAME`` given with ``--resume``: refused when a field the profile sets differs from the run's."""
    from specscope.config import PROFILES

    have = BenchOptions(**stored)
    fields = PROFILES.get(profile)
    if fields is None:
        return [f"--profile {profile} (no such profile; run has its own options)"]
    try:
        wanted = BenchOptions(**{**stored, **fields})
    except (ValidationError, TypeError):
        return [f"--profile {profile} (its options do not fit the run)"]
    names = [n for n in fields if getattr(wanted, n) != getattr(have, n)]
    if not names:
        return []
    shown = ", ".join(f"{n.replace('_', '-')} {_show(getattr(have, n))}" for n in names)
    return [f"--profile {profile} (run has {shown})"]


def resumed_client(stored_client: Mapping[str, Any], controls: RunControls, run: Path) -> ClientSettings:
    """The client settings for the rest of a resumed run: the command line's, with the run's own ``busy_poll``
    (its manifest's ``client``; False for runs stored before it existed), so that every cell of a run is measured
    with one client mode and the manifest stays true.

    Raises:
        ConfigError: ``--busy-poll`` / ``--no-busy-poll`` given and different from the run's.
    """
    from specscope.client.settings import ClientSettings

    have = bool(stored_client.get("busy_poll", False))
    given = controls.busy_poll_given
    if given is not None and given != have:
        raise _refused(
            [_differ("busy_poll", given, have)],
            "the run's own client mode (a run's cells are measured with one)",
            f"drop it to finish {run} as it was measured, or start a new run",
        )
    return (controls.client or ClientSettings()).model_copy(update={"busy_poll": have})


def _refused(differ: list[str], expected: str, fix: str) -> ConfigError:
    """The one error for options given with ``--resume`` that differ from the run's (``differ``: :func:`_differ`)."""
    return ConfigError(
        f"options given with --resume differ from the run's: {'; '.join(differ)}",
        found=", ".join(d.split(" ")[0] for d in differ),
        expected=expected,
        fix=fix,
    )


def _differ(name: str, wanted: Any, have: Any) -> str:
    """``--levels 8 (run has 1,2)``; a switch is spelled as its flag: ``--no-aa (run has --aa)``."""
    flag = "--" + name.replace("_", "-")
    if isinstance(wanted, bool) and isinstance(have, bool):
        return f"{_flag(flag, wanted)} (run has {_flag(flag, have)})"
    return f"{flag} {_show(wanted)} (run has {_show(have)})"


def _flag(flag: str, on: bool) -> str:
    return flag if on else "--no-" + flag[2:]


def _show(value: Any) -> str:
    if isinstance(value, tuple | list):
        return ",".join(map(str, value))
    return str(value)


def cells_to_skip(summaries: Iterable[CellSummary], retry_failed: bool) -> set[CellKey]:
    """The stored cells a resumed run does not measure again: all of them, or (``retry_failed``) the measured ones."""
    return {_key(s) for s in summaries if not retry_failed or s.status not in RETRIED}


def is_finished(plan: Iterable[CellKey], summaries: Iterable[CellSummary]) -> bool:
    """True when every planned cell is stored with a measured status (``ok`` / ``degraded``)."""
    measured = {_key(s) for s in summaries if s.status in MEASURED}
    return all(k in measured for k in plan)


def _key(s: CellSummary) -> CellKey:
    return CellKey(s.config, s.workload, s.concurrency, s.repeat)
