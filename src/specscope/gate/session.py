"""A gate run from a command line's choices: targets from a :class:`~specscope.targets.TargetPlan`, the
profile with its command-line overrides, the run folder.

Targets are built from the same plan as ``bench`` (``--configs``, ``--server NAME=URL``, ``--launch
embedded|vllm``); the embedded engine is the default, with configs ``base`` and ``ngram``. Launched
servers (embedded engine or vLLM) start only while their config is gated, one at a time, with their log
in the run folder (``engine-NAME.log`` / ``vllm-NAME.log``).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
from collections.abc import Callable, Iterator
from pathlib import Path

from specscope.config import same_server_notes
from specscope.engine import get_config
from specscope.errors import ConfigError
from specscope.gate.budget import DEFAULT_EMBEDDED_CONFIGS, budget_profile
from specscope.gate.model import GATES, GateRun, ProbeResult, check_gate
from specscope.gate.profile import GateProfile
from specscope.gate.runner import Target, decide, run_gate_suite
from specscope.gate.store import write_gate_run
from specscope.launch.recipes import load_recipes
from specscope.store.run import refuse_non_folder
from specscope.targets import TargetPlan, open_target

__all__ = ["DEFAULT_EMBEDDED_CONFIGS", "gate_profile", "gate_targets", "run_gate"]


def _log_name(plan: TargetPlan, name: str) -> str:
    return f"{'vllm' if plan.kind == 'vllm' else 'engine'}-{name}.log"


@contextlib.contextmanager
def _serve(plan: TargetPlan, name: str, log_path: Path) -> Iterator[tuple[str, str]]:
    """Start the server of config ``name`` while its gates run; yields ``(base_url, model)``."""
    with open_target(plan, name, log_path) as target:
        yield target.base_url, target.model_name


def gate_targets(plan: TargetPlan, run_dir: Path) -> list[Target]:
    """One :class:`Target` per config of ``plan``; the first is the baseline of the compare gate.

    Unknown configs or recipes fail here, before any server starts.

    Raises:
        ConfigError: an unknown embedded config, recipe, or a ``--configs`` name without a ``--server``.
    """
    names = plan.names(DEFAULT_EMBEDDED_CONFIGS if plan.kind == "embedded" else ())
    if plan.kind == "external":
        missing = [n for n in names if n not in plan.servers]
        if missing:
            raise ConfigError(
                f"config {missing[0]!r} has no --server",
                found=missing,
                expected=f"one of {', '.join(plan.servers)}",
                fix="name each server with --server NAME=URL",
            )
        return [Target(n, plan.servers[n]) for n in names]
    if not names:
        raise ConfigError(
            "--launch vllm needs recipe names", found="no --configs", expected="--configs RECIPE[,RECIPE]"
        )
    if plan.kind == "vllm":
        book = load_recipes(plan.recipes)
        for n in names:
            book.get(n)  # an unknown recipe fails before anything starts
    else:
        for n in names:
            get_config(n)
    return [Target(n, launch=functools.partial(_serve, plan, n, run_dir / _log_name(plan, n))) for n in names]


def gate_profile(
    plan: TargetPlan,
    path: Path | None = None,
    *,
    limit: int | None = None,
    max_tokens: int | None = None,
    context_tokens: int | None = None,
) -> GateProfile:
    """The gate profile of :func:`specscope.gate.budget.budget_profile`, without its notes."""
    return budget_profile(plan, path, limit=limit, max_tokens=max_tokens, context_tokens=context_tokens)[0]


def check_gates(gates: list[str] | None) -> list[str] | None:
    """``gates`` unchanged when every name is a gate, ``None`` when empty.

    Raises:
        ConfigError: an unknown gate name.
    """
    for g in gates or ():
        check_gate(g)
    return list(gates) if gates else None


def _check_something_runs(profile: GateProfile, gates: list[str] | None, names: list[str]) -> None:
    """Refuse a run that would check nothing: every gate disabled, or only ``compare`` with one config.

    Raises:
        ConfigError: no gate would run.
    """
    wanted = [g for g in GATES if (g in gates if gates is not None else profile.section(g).enabled)]
    if not wanted:
        raise ConfigError(
            "no gate to run",
            found="every gate disabled (enabled = false in each section of the run file)",
            expected="at least one enabled gate",
            fix="set enabled = true in a section of the run file, or pass --gate NAME",
        )
    if wanted == ["compare"] and len(names) < 2:
        raise ConfigError(
            "the compare gate needs two configs",
            found=f"{len(names)} config ({', '.join(names)})",
            expected="a baseline and a speculative config",
            fix="pass --server base=URL --server spec=URL (the first is the baseline)",
        )


def run_gate(  # noqa: PLR0913 - the one library entry point behind `specscope gate`
    plan: TargetPlan,
    profile: GateProfile,
    out: Path,
    *,
    gates: list[str] | None = None,
    on_result: Callable[[ProbeResult], None] | None = None,
    preflight: dict[str, dict[str, object]] | None = None,
    notes: list[str] | None = None,
    on_start: Callable[[Path], None] | None = None,
    api_key: str | None = None,
) -> tuple[GateRun, Path]:
    """Gate every config of ``plan`` and store the run in a new folder ``out/gate-YYYYmmdd-HHMMSS``.

    The folder is written after every probe (manifest ``"complete": false``, verdicts of the probes done so
    far), so an interrupted run leaves what it measured; the last write has ``"complete": true``.

    Args:
        notes: one line per budget change (:func:`specscope.gate.budget.budget_profile`), kept in the manifest;
            lines are added to this list (the same server given twice) before ``on_start`` is called.
        api_key: sent as ``Authorization: Bearer`` to every server (``--api-key`` / ``OPENAI_API_KEY``), never stored.
        on_start: called with the run folder once the configs are checked, before the first server starts
            (for ``--server`` targets: once the first probe has an answer, so a wrong URL stays one error line).

    Returns:
        the run and its folder (manifest.json with kind ``gate`` + gate.json).

    Raises:
        StoreError: ``out`` exists and is not a folder.
    """
    gates = check_gates(gates)
    refuse_non_folder(out)  # before any server starts: a file at --out was a traceback after the first probe
    run_dir = out / f"gate-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}"
    targets = gate_targets(plan, run_dir)
    _check_something_runs(profile, gates, [t.name for t in targets])
    notes = notes if notes is not None else []  # the caller's list: its on_start prints what is added here
    notes += same_server_notes({t.name: t.base_url for t in targets if t.launch is None})  # a port not changed
    started = [plan.kind != "external"]  # a user's server: start once it has answered (bad URL = one error line)
    if started[0]:
        run_dir.mkdir(parents=True, exist_ok=True)
        if on_start:
            on_start(run_dir)
    names = [t.name for t in targets]
    extra: dict[str, object] = {
        "launch": plan.kind,
        "embedded": plan.kind == "embedded",
        "recipes": names if plan.kind == "vllm" else [],
        "preflight": preflight or {},
        "notes": list(notes or ()),
    }
    done: list[ProbeResult] = []

    def keep(r: ProbeResult) -> None:
        if not started[0] and on_start:
            on_start(run_dir)
        started[0] = True
        done.append(r)
        partial = GateRun(
            tuple({"name": n} for n in names), tuple(done), (), tuple(decide(done, [], profile)), profile.model_dump()
        )
        write_gate_run(partial, run_dir, extra_manifest={**extra, "complete": False})
        if on_result:
            on_result(r)

    run = run_gate_suite(targets, profile, gates=gates, on_result=keep, api_key=api_key)
    write_gate_run(run, run_dir, extra_manifest={**extra, "complete": True})
    return run, run_dir
