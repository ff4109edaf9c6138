"""Log facts for servers specscope did not launch: a log the user captured (``--server-log NAME=FILE``).

:func:`server_log_facts` returns the same ``{"log_facts": ...}`` shape a launched vLLM records in the run's server
facts (:meth:`specscope.launch.process.VllmServer.describe`), so the report's KV table, the failure signatures and
capacity work the same for an external server. ``bench`` stores it per config; ``report`` (or any caller) can merge
it into a run's server facts itself. :func:`loaded_vs_census` compares vLLM's "Model loading took X GiB" with the
audit's byte census (seed 004: "Model loading took 20.24 GiB (not 20.8). If it reads 20.8 the packed tensors were
skipped and you are running the BF16 draft").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from specscope.errors import ConfigError, require_one_of
from specscope.launch.logfacts import read_vllm_log

__all__ = ["parse_server_log_specs", "server_log_facts", "merge_server_logs", "loaded_vs_census", "LOADED_TOLERANCE"]

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
                raise ConfigError(
                    "--server-log needs NAME=FILE when there are several servers",
                    found=spec,
                    expected=f"one of {', '.join(server_names) or '(no --server given)'}=FILE",
                    fix="e.g. --server mtp=http://127.0.0.1:8000 --server-log mtp=vllm.log",
                )
            name, path = server_names[0], spec
        require_one_of(
            name,
            server_names,
            f"--server-log names no --server {name!r}",
            found=spec,
            expected="one of {}",
            empty="(no --server given)",
            fix="use the NAME of a --server NAME=URL",
        )
        if name in out:
            raise ConfigError("--server-log names a server twice", found=name, expected="one log per server")
        if not Path(path).is_file():
            raise ConfigError(
                "--server-log file not found",
                found=path,
                expected="the server's captured log (e.g. docker logs CONTAINER > vllm.log)",
                fix="check the path",
            )
        out[name] = Path(path)
    return out


def server_log_facts(path: str | Path) -> dict[str, Any]:
    """``{"log": path, "log_facts": LogFacts dump, "log_source": "user"}`` for a captured vLLM log.

    Raises:
        ConfigError: the file does not exist.
    """
    facts = read_vllm_log(path)
    return {"log": str(path), "log_facts": facts.model_dump(), "log_source": "user (--server-log)"}


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
