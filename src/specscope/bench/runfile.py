"""The options a bench run was given, from three layers: a stored run (``--like``), a TOML run file
(``--run-file``) and the command line, each read by the one spec (:data:`specscope.bench.spec.BENCH_SPEC`).

Later layers win: ``--like RUN`` gives the run's own options, ``--run-file F`` overrides them, and an option on the
command line overrides both. The result, canonical values by option name (:meth:`Opt.parse`), is what the manifest
records as ``run_options`` and what ``--print-run-file`` prints (TOML, tomli-w). A run file is TOML with one key
per option, spelled as the flag without its dashes (``max-concurrency = [1, 2]``) or with underscores; an unknown
key is refused naming the closest option (difflib).
"""

from __future__ import annotations

import difflib
import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from specscope.bench.spec import BENCH_SPEC, Opt, by_flag
from specscope.errors import ConfigError

__all__ = ["dump_run_file", "given_options", "read_like", "read_run_file"]


def _file_keys(spec: tuple[Opt, ...]) -> dict[str, Opt]:
    """Run-file keys -> option: recorded options plus the output ones (``out``, ``format`` ...)."""
    return {k: o for k, o in by_flag(spec).items() if (o.record or o.group == "output") and not k.startswith("--")}


def read_run_file(path: Path, spec: tuple[Opt, ...] = BENCH_SPEC) -> dict[str, Any]:
    """The options of a TOML run file, canonical by option name.

    Raises:
        ConfigError: the file cannot be read or is not TOML; a key that is not an option (the closest named); a
            value its option does not take.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            "cannot read the run file",
            found=f"{path}: {getattr(exc, 'strerror', None) or exc}",
            expected="a TOML file of bench options",
            fix="write one with: specscope bench --print-run-file > run.toml",
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path} is not TOML", found=str(exc), expected="key = value lines", fix="fix the line named"
        ) from None
    keys = _file_keys(spec)
    out: dict[str, Any] = {}
    for key, value in data.items():
        opt = keys.get(key)
        if opt is None:
            close = difflib.get_close_matches(key, [k for k in keys if "_" not in k], n=1, cutoff=0.5)
            raise ConfigError(
                f"unknown option {key!r} in run file {path}",
                found=key,
                expected="a bench option name (`specscope bench --print-run-file` lists them)",
                fix=f"did you mean {close[0]!r}?" if close else "remove the key",
            )
        out[opt.name] = opt.parse(value)
    return out


def read_like(run: Path) -> dict[str, Any]:
    """The options a stored run was given (its manifest's ``run_options``).

    Raises:
        StoreError: not a run folder.
        ConfigError: a run made before specscope recorded the options it was given.
    """
    from specscope.store import open_run

    with open_run(run) as stored:
        manifest = stored.manifest
    if manifest.get("kind") != "bench":
        raise ConfigError(f"{run} is not a bench run", found=manifest.get("kind"), expected="a bench run folder")
    record = manifest.get("run_options")
    if record is None:
        raise ConfigError(
            f"{run} does not record the options it was given (made before run records)",
            found="no run_options in its manifest.json",
            expected="a run made by this specscope",
            fix=f"repeat it by hand: its options are in {run / 'manifest.json'} (options, command)",
        )
    return dict(record)


def given_options(
    cli: Mapping[str, Any],
    *,
    run_file: Mapping[str, Any] | None = None,
    like: Mapping[str, Any] | None = None,
    spec: tuple[Opt, ...] = BENCH_SPEC,
) -> dict[str, Any]:
    """Canonical values of the options given, by name: ``like`` < ``run_file`` < ``cli`` (None / False for a
    one-way switch: not given).

    Raises:
        ConfigError: a value an option does not take.
    """
    opts = {o.name: o for o in spec}
    out: dict[str, Any] = {k: v for k, v in (like or {}).items() if k in opts}
    out |= dict(run_file or {})
    for name, raw in cli.items():
        opt = opts[name]
        if raw is None or (raw is False and not opt.negative) or raw == []:
            continue
        out[name] = opt.parse(raw)
    return out


def record_of(values: Mapping[str, Any], spec: tuple[Opt, ...] = BENCH_SPEC) -> dict[str, Any]:
    """The manifest's ``run_options``: the recorded options among ``values`` (JSON round-trip: lists, not tuples)."""
    keep = {o.name for o in spec if o.record}
    return json.loads(json.dumps({k: v for k, v in values.items() if k in keep}))


def dump_run_file(values: Mapping[str, Any], spec: tuple[Opt, ...] = BENCH_SPEC) -> str:
    """``values`` as a TOML run file: a comment per group, keys spelled as the flags; options whose value is a
    table (``slo``) come last, so no later key lands inside a table."""
    import tomli_w

    from specscope.bench.spec import GROUPS

    keys = {o.name for o in _file_keys(spec).values()}
    lines: list[str] = []
    tables: dict[str, Any] = {}
    for group, title in GROUPS.items():
        chunk: dict[str, Any] = {}
        for o in spec:
            if o.group == group and o.name in keys and o.name in values:
                (tables if isinstance(values[o.name], dict) else chunk)[o.flag[2:]] = values[o.name]
        if chunk:
            lines += [f"# {title}", tomli_w.dumps(chunk).rstrip(), ""]
    if tables:
        lines += ["# options whose value is a table", tomli_w.dumps(tables).rstrip(), ""]
    return "\n".join(lines)
