"""Log facts for servers specscope did not launch: a log the user captured (``--server-log NAME=FILE``).

:func:`server_log_facts` returns the same ``{"log_facts": ...}`` shape a launched vLLM records in the run's server
facts (:meth:`specscope.launch.process.VllmServer.describe`), so the report's KV table, the failure signatures and
capacity work the same for an external server. ``bench`` stores it per config; ``report`` (or any caller) can merge
it into a run's server facts itself. :func:`loaded_vs_census` compares vLLM's "Model loading took X GiB" with the
audit's byte census (seed 004: "Model loading took 20.24 GiB (not 20.8). If it reads 20.8 the packed tensors were
skipped and you are running the BF16 draft").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from specscope.adapters.logs import EngineLog, forms_tried, other_outputs_in, read_engine_logs, split_log_lines
from specscope.errors import ConfigError
from specscope.launch.logfacts import LogFacts, log_text, parse_log_facts
from specscope.launch.logpool import LogPool, log_pool
from specscope.readfile import FileKind, read_user_file
from specscope.textsafe import shell_word

__all__ = [
    "LOADED_TOLERANCE",
    "ServerLog",
    "loaded_vs_census",
    "merge_server_logs",
    "parse_server_log_specs",
    "read_server_log",
    "server_log_facts",
]


class ServerLog(NamedTuple):
    """A server log read whole: ``facts`` (start-up, KV-cache, stats and failure lines, :class:`LogFacts`),
    ``readings`` (each engine whose speculative forms are in it, registry order) and ``pools`` (one per reading)."""

    facts: LogFacts
    readings: list[EngineLog]
    pools: list[LogPool]


def _refuse_unrecognised(path: Path, lines: Sequence[str]) -> ConfigError:
    """The refusal of a log with no line any engine's adapter reads; when it holds another tool's speculative output
    (an engine's ``OTHER_OUTPUTS``), the refusal says so and how to get the server's log instead."""
    tried = "; ".join(f"{f.engine} {f.name} ({f.example})" for f in forms_tried())
    fix = "pass the server's own output (docker logs CONTAINER > server.log), captured while it served"
    found = "no speculative statistics, start-up, KV-cache, stats or failure line of any engine"
    if others := other_outputs_in(lines):
        found = "; ".join(f"{o.name} ({o.source}), not a server's log" for o in others)
        fix = "; ".join(o.fix for o in others)
    return ConfigError(
        f"{path} holds no server-log line specscope recognises",
        found=found,
        expected=f"a server log; tried the failure signatures and {tried}",
        fix=fix,
    )


#: the most a server log may hold (bytes), as a file and, gzipped, once decompressed (a bound on a gzip bomb too).
#: Reading holds about 7x the text in memory and runs at about 2.5 MB/s on one core (a 40 MB vLLM log of request
#: and stats lines: 290 MB resident, 16 s), so 1 GiB is ~7 GiB and ~7 minutes: past it, the user cuts the log.
LOG_MAX_BYTES = 1 << 30


#: a server log's words in a user error (:func:`specscope.readfile.read_user_file`)
_LOG_FILE = FileKind(
    "the server log",
    expected="a readable server log file",
    fix="pass the path of a file holding the server's stdout/stderr",
    limit=f"at most {LOG_MAX_BYTES >> 30} GiB ({LOG_MAX_BYTES:,} bytes; reading holds ~7x that in memory)",
    limit_fix="cut the log to the span you measured, e.g. tail -c 500M LOG > part.log (or grep the engine's lines)",
    too_large="is too large to read",
    missing="server log not found",
)


def read_server_log(path: str | Path) -> ServerLog:
    """Read a server log of any engine (UTF-8, undecodable bytes replaced, or UTF-16 by its byte-order mark:
    :func:`log_text`; the file is never modified).

    Raises:
        ConfigError: the file does not exist, is not a regular file (a FIFO, a device, a folder: named), or no
            engine's lines are recognised in it (the message names every engine and form tried).
    """
    p = Path(path)
    # a rotated log is often gzipped (logrotate's compress): read as it was written; a FIFO, device or folder is
    # refused by its kind before any read, a file (or gunzipped text) above LOG_MAX_BYTES before it is read
    text = log_text(read_user_file(p, _LOG_FILE, LOG_MAX_BYTES, gzip=True))
    facts = parse_log_facts(text)
    lines = split_log_lines(text)
    readings = read_engine_logs(lines)
    services = _services(lines, readings)
    if len(services) > 1:
        raise _refuse_services(p, services)
    if not facts.stats:  # another engine's capacity lines (SGLang's decode batches), read by its adapter
        facts.stats = next((r.capacity for r in readings if r.capacity), [])
    if not readings and not any(v not in (None, [], {}, False, "") for v in facts.model_dump().values()):
        raise _refuse_unrecognised(p, lines)
    return ServerLog(facts, readings, [log_pool(r) for r in readings])


#: the prefix a log collector puts before each line of one container: ``docker compose logs`` (``vllm-eagle-1  | ``)
#: and ``kubectl logs --prefix`` (``[pod/vllm-0/vllm] ``). Both are read through (the engines' line forms are found
#: anywhere in a line); what they name is checked by :func:`_services`.
_SERVICE_PREFIX = re.compile(r"^(?:([\w.-]+) +\| |\[(pod/[^\]\s]+)\] )")


def _services(lines: list[str], readings: list[EngineLog]) -> list[str]:
    """The services (compose) or pods (kubectl) whose lines carry the speculative statistics read, sorted: more than one
    means one file holds several servers, whose windows and per-position rates must not be pooled as one engine's.
    Lines of other containers (a proxy, a database) do not count: only the statistics' own lines are looked at."""
    names = set()
    for reading in readings:
        for stat in reading.stats:
            m = _SERVICE_PREFIX.match(lines[stat.line_number - 1]) if 0 < stat.line_number <= len(lines) else None
            if m:
                names.add(m.group(1) or m.group(2))
    return sorted(names)


def _refuse_services(path: Path, services: list[str]) -> ConfigError:
    first = services[0]
    fix = (
        "kubectl logs {0} -c {1} > {0}.log, one pod per log".format(*first.removeprefix("pod/").split("/", 1))
        if first.startswith("pod/")
        else f"docker compose logs --no-log-prefix {first.rsplit('-', 1)[0]} > {first}.log, one service per log"
    )
    return ConfigError(
        "the log holds the speculative statistics of several servers",
        found=f"{path}: statistics lines of {len(services)} containers: {', '.join(services)}",
        expected="one server's log (its windows are pooled into one acceptance figure)",
        fix=fix,
    )


#: relative difference between "Model loading took" and the census above which the build is suspect
LOADED_TOLERANCE = 0.02
_GIB = 1 << 30


def parse_server_log_specs(specs: list[str], server_names: list[str] | tuple[str, ...]) -> dict[str, Path]:
    """``["mtp=vllm.log"]`` -> {"mtp": Path("vllm.log")}; a bare ``FILE`` goes to the only server.

    Raises:
        ConfigError: an entry names no known server, a name repeats, or the file does not exist.
    """
    out: dict[str, Path] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep:
            if len(server_names) != 1:
                names = ", ".join(server_names)
                raise ConfigError(
                    "--server-log needs NAME=FILE when there are several servers",
                    found=spec,
                    expected=f"NAME=FILE with NAME one of {names}"
                    if names
                    else "NAME=FILE with NAME a --server's name (no --server given)",
                    fix="name the server the log is of: "
                    + " or ".join(f"--server-log {shell_word(f'{n}={spec}')}" for n in server_names)
                    if names
                    else "e.g. --server mtp=http://127.0.0.1:8000 --server-log mtp=vllm.log",
                )
            name, path = server_names[0], spec
        if name not in server_names:
            raise ConfigError.invalid_value(
                "--server-log",
                spec,
                f"NAME=FILE with NAME one of {', '.join(server_names) or '(no --server given)'}",
                choices=server_names,
                fix="use the NAME of a --server NAME=URL",
            )
        if name in out:
            raise ConfigError.invalid_value(
                "--server-log", spec, f"one log per server ({name} has {out[name]})", fix="drop one of the two"
            )
        if not Path(path).exists():  # a FIFO, a device or a folder: refused by its kind in read_server_log
            raise ConfigError(
                "--server-log file not found",
                found=path,
                expected="the server's captured log (e.g. docker logs CONTAINER > vllm.log)",
                fix="check the path",
            )
        read_server_log(path)  # refused here, before the first request, when no engine's lines are in it
        out[name] = Path(path)
    return out


def server_log_facts(path: str | Path) -> dict[str, Any]:
    """``{"log": path, "log_facts": LogFacts dump, "log_pools": [LogPool dump per engine], "log_source": "user"}`` for
    a captured server log: the pools carry the pooled acceptance and the low-acceptance alarm.

    Raises:
        ConfigError: the file does not exist or no engine's lines are recognised in it.
    """
    log = read_server_log(path)
    pools = [pool.model_dump() for pool in log.pools]
    return {
        "log": str(path),
        "log_facts": log.facts.model_dump(),
        "log_pools": pools,
        "log_source": "user (--server-log)",
    }


def merge_server_logs(server_facts: dict[str, dict[str, Any]], logs: dict[str, Path]) -> dict[str, dict[str, Any]]:
    """A copy of a run's server facts (config -> facts) with each captured log's facts merged in: what
    ``report --server-log NAME=FILE`` needs before it builds its tables (parse the option with
    :func:`parse_server_log_specs` against the run's config names)."""
    out = {name: dict(facts) for name, facts in server_facts.items()}
    for name, path in logs.items():
        out[name] = {**out.get(name, {}), **server_log_facts(path)}
    return out


def loaded_vs_census(weights_loaded_gib: float | None, census_bytes: int | None) -> dict[str, Any] | None:
    """Compare "Model loading took X GiB" (GiB = 2**30 bytes) with the audit census of the same checkpoint.

    Returns None when either side is unknown, else ``{"loaded_gib", "census_gib", "difference_gib",
    "difference_fraction", "agrees"}``; ``agrees`` is False beyond :data:`LOADED_TOLERANCE` (a different build,
    skipped packed tensors, or a drafter counted in).
    """
    if weights_loaded_gib is None or not census_bytes:
        return None
    census_gib = census_bytes / _GIB
    diff = weights_loaded_gib - census_gib
    frac = diff / census_gib
    return {
        "loaded_gib": weights_loaded_gib,
        "census_gib": round(census_gib, 4),
        "difference_gib": round(diff, 4),
        "difference_fraction": round(frac, 4),
        "agrees": abs(frac) <= LOADED_TOLERANCE,
    }
