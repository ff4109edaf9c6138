"""The options a bench run was given, from three layers: a stored run (``--like``), a TOML run file
(``--run-file``) and the command line, each read by the one spec (:data:`specscope.bench.spec.BENCH_SPEC`).

Later layers win: ``--like RUN`` gives the run's own options, ``--run-file F`` overrides them, and an option on the
command line overrides both. The result, canonical values by option name (:meth:`Opt.parse`), is what the manifest
records as ``run_options`` and what ``--print-run-file`` prints (TOML, tomli-w). A run file is TOML with one key
per option, spelled as the flag without its dashes (``max-concurrency = [1, 2]``) or with underscores; an old name
(``levels``) is read as its current one with one deprecation line (the caller passes the alias table of
:mod:`specscope.cli.vocab`, the same one its flags use); an unknown key is refused naming the closest real key
(difflib), or saying where an option that is not a run-file key belongs (``resume``: the command line).

An option given in a later layer replaces the options it excludes from an earlier one (``--request-rate`` on the
command line over a run file's ``max-concurrency``), with a note naming both; within one layer they are refused
(:func:`specscope.bench.spec.check_combinations`).
"""

from __future__ import annotations

import difflib
import json
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from specscope.bench.spec import BENCH_SPEC, Opt, by_flag, check_combinations, excluded_by
from specscope.config import BenchOptions
from specscope.errors import ConfigError, SpecscopeError
from specscope.readfile import SETTINGS_FILE_MAX_BYTES, FileKind, read_user_file, settings_or_refuse, toml_loads

__all__ = ["dump_run_file", "given_options", "in_force_values", "read_like", "read_run_file", "stored_options"]

#: a run file's words in a user error (:func:`specscope.readfile.read_user_file`)
_RUN_FILE = FileKind(
    "the run file",
    expected="a TOML file of bench options",
    fix="write one with: specscope bench --print-run-file > run.toml",
    limit_fix="a run file is a few KiB of TOML: write one with: specscope bench --print-run-file > run.toml",
)


def _file_keys(spec: tuple[Opt, ...]) -> dict[str, Opt]:
    """Run-file keys -> option: recorded options plus the output ones (``out``, ``format`` ...)."""
    return {k: o for k, o in by_flag(spec).items() if o.in_run_file() and not k.startswith("--")}


def _unknown_key(
    key: str, path: Path, keys: Mapping[str, Opt], spec: tuple[Opt, ...], aliases: Mapping[str, str] | None
) -> ConfigError:
    """The error for a run-file key that names no option: the closest real key, or where the option belongs."""
    listing = "`specscope bench --print-run-file` prints every key"
    elsewhere = by_flag(spec).get(key)
    if elsewhere is not None:  # an option, but not one a run file sets
        return ConfigError(
            f"{key!r} is not a run-file key (run file {path})",
            found=key,
            expected="the options that decide a run (" + listing + ")",
            fix=f"remove it from the file and give it on the command line as {elsewhere.flag}"
            + (f" {elsewhere.metavar}" if elsewhere.metavar else ""),
        )
    names = {k: k for k in keys if "_" not in k} | {old: new for old, new in (aliases or {}).items() if new in keys}
    close = difflib.get_close_matches(key.replace("_", "-"), sorted(names), n=1, cutoff=0.75)
    return ConfigError(
        f"unknown option {key!r} in run file {path}",
        found=key,
        expected=f"a bench option name ({listing})",
        fix=f"did you mean {names[close[0]]!r}?" if close else f"remove the key ({listing})",
    )


def read_run_file(
    path: Path,
    spec: tuple[Opt, ...] = BENCH_SPEC,
    *,
    aliases: Mapping[str, str] | None = None,
    warn: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The options of a TOML run file, canonical by option name.

    ``aliases``: old key -> current key (``levels`` -> ``max-concurrency``), each used key printing one
    deprecation line through ``warn``.

    Raises:
        ConfigError: the file cannot be read or is not TOML; a key that is not an option (the closest named); a
            value its option does not take (naming the key and the file).
    """
    text = read_user_file(path, _RUN_FILE, SETTINGS_FILE_MAX_BYTES, text=True)
    try:
        data = toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path} is not TOML", found=str(exc), expected="key = value lines", fix="fix the line named"
        ) from None
    settings_or_refuse(data, path, _RUN_FILE.name, f"drop --run-file for the defaults, or {_RUN_FILE.fix}")
    keys = _file_keys(spec)
    out: dict[str, Any] = {}
    for key, value in data.items():
        new = (aliases or {}).get(key.replace("_", "-"))
        if new is not None and new in keys:
            if warn is not None:
                warn(f"warning: run file key {key!r} is deprecated: use {new!r} ({path})")
            key = new
        opt = keys.get(key)
        if opt is None:
            raise _unknown_key(key, path, keys, spec, aliases)
        if opt.name in out:
            raise ConfigError(
                f"option {opt.file_key!r} is given twice in run file {path}",
                found=key,
                expected="each option once",
                fix=f"keep one {opt.file_key!r} line",
            )
        try:
            out[opt.name] = opt.parse(value)
        except SpecscopeError as exc:
            exc.message = f"run file {path}, key {key!r}: {exc.message}"
            raise
    return out


def read_like(run: Path) -> dict[str, Any]:
    """The options a stored run was given (its manifest's ``run_options``).

    Raises:
        StoreError: not a run folder.
        ConfigError: a run made before specscope recorded the options it was given.
    """
    return stored_options(run)[0]


def stored_options(run: Path) -> tuple[dict[str, Any], BenchOptions]:
    """``(run_options, options)`` of a stored bench run: the options it was given and the matrix they made.

    Raises:
        StoreError: not a run folder.
        ConfigError: not a bench run, an imported run (``specscope import``: no bench options), or a run made before
            specscope recorded the options it was given.
    """
    from specscope.store import open_run
    from specscope.store.manifest import stored_bench_options

    with open_run(run) as stored:
        manifest = stored.manifest
    if manifest.get("kind") != "bench":
        raise ConfigError(f"{run} is not a bench run", found=manifest.get("kind"), expected="a bench run folder")
    if manifest.get("imports"):  # a run `specscope import` made: tools' result files, no options of bench's
        configs = [str(c) for c in (manifest.get("options") or {}).get("configs") or ()]
        raise ConfigError(
            f"{run} is an imported run: it has no bench options to repeat (bench did not measure it)",
            found=f"{len(manifest['imports'])} imported records (specscope import) of configs {', '.join(configs)}, "
            "no bench matrix",
            expected="a run folder `specscope bench` wrote",
            fix="measure the configs with bench: `specscope bench "
            + " ".join(f"--server {c}=URL" for c in configs)
            + "` (URL: each config's server)",
        )
    record = manifest.get("run_options")
    if record is None:
        raise ConfigError(
            f"{run} does not record the options it was given (made before run records)",
            found="no run_options in its manifest.json",
            expected="a run made by this specscope",
            fix=f"repeat it by hand: its options are in {run / 'manifest.json'} (options, command)",
        )
    return dict(record), stored_bench_options(manifest, run / "manifest.json")


def given_options(
    cli: Mapping[str, Any],
    *,
    run_file: Mapping[str, Any] | None = None,
    like: Mapping[str, Any] | None = None,
    spec: tuple[Opt, ...] = BENCH_SPEC,
    note: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Canonical values of the options given, by name: ``like`` < ``run_file`` < ``cli`` (None / False for a
    one-way switch: not given). An option of a later layer replaces the options it excludes from earlier layers
    (``note`` gets one line for each); then :func:`~specscope.bench.spec.check_combinations` refuses what is left.

    Raises:
        ConfigError: a value an option does not take; options that need another or exclude each other.
    """
    opts = {o.name: o for o in spec}
    parsed: dict[str, Any] = {}
    for name, raw in cli.items():
        opt = opts[name]
        if raw is None or (raw is False and not opt.negative) or raw == []:
            continue
        parsed[name] = opt.parse(raw)
    layers = [
        ("the stored run (--like)", {k: v for k, v in (like or {}).items() if k in opts}),
        ("the run file", dict(run_file or {})),
        ("the command line", parsed),
    ]
    out: dict[str, Any] = {}
    source: dict[str, str] = {}
    for where, values in layers:
        for name in values:
            for other in sorted(excluded_by(name, spec) & set(out)):
                if source[other] != where:
                    del out[other]
                    if note is not None:
                        note(f"note: {opts[name].flag} ({where}) replaces {opts[other].flag} of {source[other]}")
        out |= values
        source |= dict.fromkeys(values, where)
    check_combinations(out, spec)
    return out


def in_force_values(
    given: Mapping[str, Any], options: BenchOptions, spec: tuple[Opt, ...] = BENCH_SPEC
) -> dict[str, Any]:
    """Every option that decides the run, canonical by name: ``given`` plus the value in force in ``options`` (the
    profile's, or the default) of each matrix option that was not given (``configs`` and ``workloads`` too), except
    those whose ``needs`` are not given, those a given option excludes (``max-concurrency`` under
    ``--request-rate``) and ``workloads`` under ``--workload`` / ``--dataset`` (which name them): what
    ``--print-run-file`` prints, so that the file repeats the run whatever the profile or a default becomes."""
    out = dict(given)
    for o in spec:
        if (o.field is None and o.effective is None) or not o.in_run_file() or o.name in out:
            continue
        if any(not out.get(n) for n in o.needs) or excluded_by(o.name, spec) & {k for k, v in out.items() if v}:
            continue
        if o.name == "workloads" and (out.get("workload") or out.get("dataset")):
            continue  # the files' names and the datasets' categories are the workloads: read back, packs would join
        value = o.in_force(options)
        if value is not None and value != [] and value != {}:
            out[o.name] = value
    return out


def record_of(values: Mapping[str, Any], spec: tuple[Opt, ...] = BENCH_SPEC) -> dict[str, Any]:
    """The manifest's ``run_options``: the recorded options among ``values`` (JSON round-trip: lists, not tuples)."""
    keep = {o.name for o in spec if o.record}
    record: dict[str, Any] = json.loads(json.dumps({k: v for k, v in values.items() if k in keep}))
    return record


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
