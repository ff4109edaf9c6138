"""Honest resume (issue 17, part 4): what a resumed run re-measures and when a run is ``finished``.

- A run is ``finished`` only when every planned cell is stored with a measured status (``ok`` or ``degraded``);
  a ``failed`` or ``server_crash`` cell, or a planned cell never measured, leaves it unfinished.
- ``--resume --retry-failed`` measures again the stored cells whose status is ``failed`` or ``server_crash``
  (plain ``--resume`` only measures the cells never stored).
- Options given together with ``--resume`` must equal the run's (the spec says which: matrix, servers, load,
  statistics; client limits and output may differ): a difference is a :class:`~specscope.errors.ConfigError`
  naming each option (found / expected / fix), never silently ignored. The check is generated from the option
  spec (:data:`specscope.bench.spec.BENCH_SPEC`), so a new option is checked as soon as it is declared.
- The files the run read its prompts from (``--workload``, ``--trace``, ``--dataset`` files) must hold the bytes
  it read: their SHA-256, recorded in the manifest when the run started, is compared on resume (issue 37).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from specscope.bench.spec import BENCH_SPEC, Opt
from specscope.config import BenchOptions
from specscope.errors import ConfigError
from specscope.records import CellKey
from specscope.redact import MASK, redact
from specscope.stats.summary import MEASURED

if TYPE_CHECKING:
    from specscope.client.settings import ClientSettings
    from specscope.stats.summary import CellSummary

__all__ = [
    "MEASURED",
    "RETRIED",
    "RunControls",
    "check_like_servers",
    "check_plan_matches",
    "check_resume_options",
    "refuse_imported",
    "resumed_servers",
    "check_sources_unchanged",
    "resumed_client",
    "cells_to_skip",
    "is_finished",
]

RETRIED = frozenset({"failed", "server_crash"})  # what --retry-failed measures again


@dataclass(frozen=True)
class RunControls:
    """How a bench run talks to its servers and resumes; nothing here is a matrix option.

    Attributes:
        client: the HTTP client's settings (``--read-timeout``, ``--stall-timeout``, ``--api-key``); None: defaults.
        retry_failed: with ``--resume``, measure ``failed`` and ``server_crash`` cells again.
        given: the options given (command line, ``--run-file``, ``--like``), canonical by option name
            (:func:`specscope.bench.runfile.given_options`); a new run records the recorded ones in its manifest
            (``run_options``), a resumed run refuses those that differ from its own (:func:`check_resume_options`).
        on_start: called with the run folder once it exists (created or opened), before the first cell.
        record: what a new run's manifest records as ``run_options`` (the given options with the spec's defaults,
            :func:`specscope.bench.setup.bench_setup`); None: a run made from the library, with no command line.
        spec: the option spec ``given`` was read with (what the resume check compares).
        on_note: called with a line the user should see before the cells (e.g. a resumed run with nothing left to
            measure); None: not said.
    """

    client: ClientSettings | None = None
    retry_failed: bool = False
    given: Mapping[str, Any] = field(default_factory=dict)
    on_start: Callable[[Path], None] | None = None
    record: Mapping[str, Any] | None = None
    spec: tuple[Opt, ...] = BENCH_SPEC
    on_note: Callable[[str], None] | None = None


def refuse_imported(manifest: Mapping[str, Any], run: Path) -> None:
    """Refuse to resume a run ``specscope import`` made: bench did not measure it, so it has no matrix to finish.

    Raises:
        ConfigError: the manifest lists imported records.
    """
    if manifest.get("imports"):
        raise ConfigError(
            f"{run} is an imported run: it cannot be resumed (bench did not measure it)",
            found=f"{len(manifest['imports'])} imported records (specscope import), no bench matrix",
            expected="--resume RUN: a run folder `specscope bench` wrote and did not finish",
            fix=f"add more result files with `specscope import FILE... --out {run}` (naming their config, as when the "
            "run was made)",
        )


def check_resume_options(
    manifest: Mapping[str, Any], given: Mapping[str, Any], run: Path, spec: tuple[Opt, ...] = BENCH_SPEC
) -> None:
    """Refuse options given with ``--resume`` that differ from the run's, generated from the option spec.

    Each option whose spec says ``resume="same"`` is compared with the run's value: its record in the manifest's
    ``run_options`` when it was given there; else the value the run's options or client settings have in force
    (both normalized as :class:`BenchOptions` stores them: ``--max-concurrency 2,1`` equals the stored ``[1, 2]``,
    ``--baseline base`` equals a run whose baseline is ``base`` by default); else the option's default. A
    ``resume="never"`` option (``--like``) is refused outright.

    Raises:
        ConfigError: one or more options differ (each named with the given and the run's value), or cannot be
            checked against a run made before run records; or a file the run read prompts from changed
            (:func:`check_sources_unchanged`).
    """
    stored = dict(manifest.get("options") or {})
    record = manifest.get("run_options")
    client = dict(manifest.get("client") or {})
    differ: list[str] = []
    for name, value in given.items():
        opt = next((o for o in spec if o.name == name), None)
        if opt is None or opt.resume == "free":
            continue
        if opt.resume == "never":
            differ.append(f"{opt.flag} (not with --resume)")
            continue
        have = _run_value(opt, record, stored, client)
        if have is _UNKNOWN:
            differ.append(f"{_show_opt(opt, value)} (run made before run records: cannot check)")
        elif (opt.normal(have, stored) if record and name in record else have) != opt.normal(redact(value), stored):
            # the run stores a URL's credentials masked: the given value is compared masked the same way
            differ.append(_differ(opt, opt.normal(redact(value), stored), have))
    if differ:
        raise ConfigError(
            f"options given with --resume differ from the run's: {'; '.join(differ)}",
            found=", ".join(d.split(" ")[0] for d in differ),
            expected="no options with --resume but the run's own values (or limits such as --read-timeout)",
            fix=f"drop them to finish {run} as it was planned, or start a new run (--like {run} repeats it)",
        )
    check_sources_unchanged(manifest, run)


#: the fields of a run's matrix whose values the options it was given (``run_options``) decide on their own: the
#: plan it started with is its stored matrix with these as the given options make them (:func:`started_matrix`).
_GIVEN_SIZE = ("repeats", "levels")


def started_matrix(manifest: Mapping[str, Any], options: BenchOptions) -> BenchOptions:
    """The matrix a run started with: its stored ``options`` with the fields of :data:`_GIVEN_SIZE` as the options
    it was given (``run_options``, under its profile: :func:`specscope.bench.setup.matrix_in_force`) make them, so
    that a hand edit of ``options`` (``repeats`` 2 -> 4) shows against the record, whatever ``cells_total`` says.
    ``options`` itself where the record is absent, cannot be read, or gives a rate axis (levels are the rates')."""
    from specscope.bench.setup import matrix_in_force
    from specscope.errors import SpecscopeError

    record = manifest.get("run_options")
    if not isinstance(record, Mapping) or record.get("request_rate") or record.get("trace"):
        return options
    try:
        made = matrix_in_force(record)
    except (SpecscopeError, ValidationError, KeyError, TypeError, ValueError):
        return options
    return options.model_copy(update={f: getattr(made, f) for f in _GIVEN_SIZE})


def check_plan_matches(
    manifest: Mapping[str, Any],
    options: BenchOptions,
    plan: Sequence[CellKey],
    stored: Iterable[CellKey],
    run: Path,
    started: int | None = None,
) -> None:
    """Refuse to resume a run whose manifest now plans another matrix than the one its cells were measured under
    (a hand-edited ``options``: ``repeats`` 4 and ``levels`` [1] resumed with progress "[19/12]" and a report mixing
    old cells with the new plan).

    ``plan``: the cells ``options`` (the manifest's) plan now; ``stored``: the keys of the cells the run holds;
    ``started``: the size of the plan the run started with, derived from the options it was given
    (:func:`started_matrix`), never read from the manifest's ``cells_total`` (a cache a hand edit can set to the new
    plan's size; None: not compared). The plan differs when a stored cell is outside it (an adaptive run,
    ``target_ci``, adds rounds past ``repeats``: its cells count by config, workload and concurrency), or when its
    size differs from ``started``.

    Raises:
        ConfigError: the plan differs (what differs, the stored cells, the fix: a new run or the manifest restored).
    """
    keys = list(stored)
    if options.target_ci:
        cover = {(k.config, k.workload, k.concurrency) for k in plan}
        outside = [k for k in keys if (k.config, k.workload, k.concurrency) not in cover]
    else:
        planned = set(plan)
        outside = [k for k in keys if k not in planned]
    total = started
    resized = total is not None and total != len(plan)
    if not outside and not resized:
        return
    found = f"{len(plan)} planned cells (levels {_show(options.levels)}, repeats {options.repeats})"
    found += f" where the run started with {total}" if resized else ""
    if outside:
        found += f"; {len(outside)} of the {len(keys)} stored cells are outside the plan, e.g. {outside[0].label()}"
    raise ConfigError(
        f"{run}'s manifest plans another matrix than the cells it stores: resuming would mix the two",
        found=found,
        expected=f"the plan the run's {len(keys)} stored cells were measured under"
        + (f" ({total} cells)" if isinstance(total, int) else ""),
        fix=f"start a new run for the new plan, or restore {run / 'manifest.json'}'s options to finish this one",
    )


def resumed_servers(
    stored: Mapping[str, str] | None, given: Mapping[str, str] | None, run: Path
) -> dict[str, str] | None:
    """The servers a resumed run talks to: those given again (``--server``, equal to the run's once masked: see
    :func:`check_resume_options`), else the run's own. A run stores a URL's credentials masked
    (``http://***@host``), so a stored URL holding the mask is never sent: it must be given again.

    Raises:
        ConfigError: a stored URL holds masked credentials and ``--server`` does not give it again.
    """
    if given:
        return {**(stored or {}), **given}
    masked = sorted(name for name, url in (stored or {}).items() if f"{MASK}@" in url)
    if masked:
        raise credentials_not_stored(masked, dict(stored or {}), run)
    return dict(stored) if stored else None


def check_like_servers(given: Mapping[str, Any], run: Path) -> None:
    """Refuse ``--like RUN`` when a server URL it takes from the run holds masked credentials (``--server`` given
    on the command line replaces the run's, and is never masked).

    Raises:
        ConfigError: naming the servers to give again.
    """
    pairs = [str(p).partition("=") for p in given.get("server") or []]
    masked = {name: url for name, _, url in pairs if f"{MASK}@" in url}
    if masked:
        raise credentials_not_stored(sorted(masked), masked, run)


def credentials_not_stored(names: list[str], servers: Mapping[str, str], run: Path) -> ConfigError:
    """The error of a run (``--resume`` / ``--like``) whose server URLs held credentials, which it never stores."""
    shown = ", ".join(f"{n}={servers[n]}" for n in names)
    return ConfigError(
        f"the server URL of {run} held credentials, which a run never stores",
        found=shown,
        expected="the URL with its user and password",
        fix="give it again, user and password included: " + " ".join(f"--server {n}=URL" for n in names),
    )


def source_files(manifest: Mapping[str, Any]) -> list[tuple[str, str, str, bool]]:
    """``(what, path, sha256, required)`` of every file a run read prompts from, as its manifest records them:
    ``packs[W]`` of form ``file`` (``--workload``), ``trace`` (``--trace``), each ``datasets[i].files[j]``
    (``--dataset``; not required: a hub cache may have been cleared, and the dataset is fetched again at its
    revision)."""
    out: list[tuple[str, str, str, bool]] = []
    for name, pack in (manifest.get("packs") or {}).items():
        if isinstance(pack, dict) and pack.get("form") == "file" and pack.get("sha256") and pack.get("path"):
            out.append((f"workload {name}", str(pack["path"]), str(pack["sha256"]), True))
    trace = manifest.get("trace")
    if isinstance(trace, dict) and trace.get("sha256") and trace.get("path"):
        out.append(("trace", str(trace["path"]), str(trace["sha256"]), True))
    for d in manifest.get("datasets") or ():
        for f in (d.get("files") if isinstance(d, dict) else None) or ():
            if isinstance(f, dict) and f.get("sha256") and f.get("path"):
                out.append((f"dataset {d.get('spec')}", str(f["path"]), str(f["sha256"]), False))
    return out


def _sha256_of(path: str) -> str | None:
    """SHA-256 (hex) of the regular file ``path``, read in 1 MiB pieces; None when it is missing or not a regular
    file (a FIFO is never opened for reading: it could block)."""
    p = Path(path)
    try:
        if not p.is_file():
            return None
        h = hashlib.sha256()
        with open(p, "rb") as fh:
            while chunk := fh.read(1 << 20):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def check_sources_unchanged(manifest: Mapping[str, Any], run: Path) -> None:
    """Refuse to resume a run whose workload, trace or dataset files changed since it started (the new prompts
    would be measured into the old run's cells): each file's bytes are hashed and compared with the SHA-256 its
    manifest recorded.

    Raises:
        ConfigError: naming each file that changed or (for a workload or trace file) is gone.
    """
    changed = []
    for what, path, recorded, required in source_files(manifest):
        now = _sha256_of(path)
        if now is None and required:
            changed.append(f"{what} {path} (gone, or not a regular file)")
        elif now is not None and now != recorded:
            changed.append(f"{what} {path} (SHA-256 {now[:12]}..., the run read {recorded[:12]}...)")
    if changed:
        raise ConfigError(
            f"the files {run} read its prompts from changed since it started: {'; '.join(changed)}",
            found=", ".join(c.split(" (")[0] for c in changed),
            expected="the same bytes the run read (their SHA-256 is in its manifest.json)",
            fix=f"restore the files to finish {run}, or start a new run with them (--like {run})",
        )


_UNKNOWN = object()


def _run_value(opt: Opt, record: Mapping[str, Any] | None, stored: Mapping[str, Any], client: Mapping[str, Any]) -> Any:
    """The value ``opt`` has in a stored run: recorded, else in force, else its default (``_UNKNOWN``: no record)."""
    if record is not None and opt.name in record:
        return record[opt.name]
    if opt.client is not None:  # a run stored before the setting existed had its default
        from specscope.client.settings import ClientSettings

        return client.get(opt.client, ClientSettings.model_fields[opt.client].default)
    if opt.field is not None or opt.effective is not None:
        try:
            return opt.in_force(BenchOptions(**stored))
        except (ValidationError, TypeError):
            return _UNKNOWN
    return _UNKNOWN if record is None else opt.default


def resumed_client(stored_client: Mapping[str, Any], controls: RunControls) -> ClientSettings:
    """The client settings for the rest of a resumed run: the command line's, with the run's own ``busy_poll``
    and ``endpoint`` (its manifest's ``client``; False and ``/v1/chat/completions`` for runs stored before they
    existed), so that every cell of a run is measured with one client mode on one API and the manifest stays true
    (a different ``--busy-poll`` or ``--endpoint`` is refused by :func:`check_resume_options`)."""
    from specscope.client.settings import ClientSettings

    have = bool(stored_client.get("busy_poll", False))
    endpoint = stored_client.get("endpoint") or ClientSettings.model_fields["endpoint"].default
    return (controls.client or ClientSettings()).model_copy(update={"busy_poll": have, "endpoint": endpoint})


def _differ(opt: Opt, wanted: Any, have: Any) -> str:
    """``--max-concurrency 8 (run has 1,2)``; a switch is spelled as its flag: ``--no-aa (run has --aa)``."""
    if isinstance(wanted, bool) and isinstance(have, bool):
        return f"{_flag(opt.flag, wanted)} (run has {_flag(opt.flag, have)})"
    return f"{opt.flag} {_show(wanted)} (run has {_show(have)})"


def _show_opt(opt: Opt, value: Any) -> str:
    return _flag(opt.flag, value) if isinstance(value, bool) else f"{opt.flag} {_show(value)}"


def _flag(flag: str, on: bool) -> str:
    return flag if on else "--no-" + flag[2:]


def _show(value: Any) -> str:
    if value is None or value in ([], (), {}):
        return "none"
    if isinstance(value, tuple | list):
        return ",".join(map(_show, value))
    if isinstance(value, dict):
        return ",".join(f"{k}={_show(v)}" for k, v in value.items())
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def cells_to_skip(summaries: Iterable[CellSummary], retry_failed: bool) -> set[CellKey]:
    """The stored cells a resumed run does not measure again: all of them, or (``retry_failed``) the measured ones."""
    return {_key(s) for s in summaries if not retry_failed or s.status not in RETRIED}


def nothing_left_line(plan: Sequence[CellKey], summaries: Iterable[CellSummary], retry_failed: bool) -> str | None:
    """What a resumed run whose every planned cell is stored says before reporting (a finished run resumed printed
    its report with no word that nothing ran): the measured count, and the failed cells ``--retry-failed`` would
    measure again; None when a planned cell is left to measure."""
    stored = list(summaries)
    done = cells_to_skip(stored, retry_failed)
    if any(k not in done for k in plan):
        return None
    planned = set(plan)
    measured = sum(1 for s in stored if _key(s) in planned and s.status in MEASURED)
    failed = sum(1 for s in stored if _key(s) in planned and s.status in RETRIED)
    retry = f"; {failed} failed: --retry-failed measures them again" if failed else ""
    return f"nothing to run: {measured} of {len(plan)} planned cells are measured{retry}"


def is_finished(plan: Iterable[CellKey], summaries: Iterable[CellSummary]) -> bool:
    """True when every planned cell is stored with a measured status (``ok`` / ``degraded``)."""
    measured = {_key(s) for s in summaries if s.status in MEASURED}
    return all(k in measured for k in plan)


def _key(s: CellSummary) -> CellKey:
    return CellKey(s.config, s.workload, s.concurrency, s.repeat)
