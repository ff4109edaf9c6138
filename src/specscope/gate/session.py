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
from typing import Any

from specscope.engine import get_config
from specscope.errors import ConfigError
from specscope.gate.model import GATES, GateRun, ProbeResult
from specscope.gate.profile import GateProfile, load_profile
from specscope.gate.runner import Target, run_gate_suite
from specscope.gate.store import write_gate_run
from specscope.launch.recipes import load_recipes
from specscope.targets import TargetPlan, open_target

__all__ = ["DEFAULT_EMBEDDED_CONFIGS", "gate_profile", "gate_targets", "run_gate"]

#: The embedded configs gated when ``--configs`` is not given: the baseline and one speculative method.
DEFAULT_EMBEDDED_CONFIGS = ("base", "ngram")
# tokens kept free in an embedded slot beside the long-context prompt and its answer (chat template, question)
_SLOT_MARGIN_TOKENS = 256


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
    """The gate profile (``path`` or the packaged one) with the command line's caps applied.

    Args:
        limit: at most this many probes per gate. max_tokens: cap on every gate's ``max_tokens``.
        context_tokens: the long-context filler length, tokens. On the embedded engine the filler is also
            cut to fit one slot of the smallest configured context (slot - answer budget - 256 tokens).
    """
    prof = load_profile(path)
    overrides: dict[str, dict[str, Any]] = {}
    for g in GATES:
        o: dict[str, Any] = {}
        if limit is not None:
            o["limit"] = limit
        if max_tokens is not None and prof.section(g).max_tokens > max_tokens:
            o["max_tokens"] = max_tokens
        if o:
            overrides[g] = o
    if context_tokens is not None:
        overrides.setdefault("long_context", {})["context_tokens"] = context_tokens
    if plan.kind == "embedded":
        slots = [get_config(n).ctx_per_slot_tokens for n in plan.names(DEFAULT_EMBEDDED_CONFIGS)]
        room = min(slots) - prof.long_context.max_tokens - _SLOT_MARGIN_TOKENS
        lc = overrides.setdefault("long_context", {})
        lc["context_tokens"] = max(64, min(lc.get("context_tokens", prof.long_context.context_tokens), room))
    return prof.with_overrides(**overrides) if overrides else prof


def check_gates(gates: list[str] | None) -> list[str] | None:
    """``gates`` unchanged when every name is a gate, ``None`` when empty.

    Raises:
        ConfigError: an unknown gate name.
    """
    for g in gates or ():
        if g not in GATES:
            raise ConfigError("unknown gate", found=g, expected=", ".join(GATES), fix="pick a gate from the list")
    return list(gates) if gates else None


def run_gate(
    plan: TargetPlan,
    profile: GateProfile,
    out: Path,
    *,
    gates: list[str] | None = None,
    on_result: Callable[[ProbeResult], None] | None = None,
    preflight: dict[str, dict[str, object]] | None = None,
) -> tuple[GateRun, Path]:
    """Gate every config of ``plan`` and store the run in a new folder ``out/gate-YYYYmmdd-HHMMSS``.

    Returns:
        the run and its folder (manifest.json with kind ``gate`` + gate.json).
    """
    gates = check_gates(gates)
    run_dir = out / f"gate-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}"
    targets = gate_targets(plan, run_dir)
    if plan.kind != "external":
        run_dir.mkdir(parents=True, exist_ok=True)
    run = run_gate_suite(targets, profile, gates=gates, on_result=on_result)
    names = [t.name for t in targets]
    extra: dict[str, object] = {
        "launch": plan.kind,
        "embedded": plan.kind == "embedded",
        "recipes": names if plan.kind == "vllm" else [],
        "preflight": preflight or {},
    }
    write_gate_run(run, run_dir, extra_manifest=extra)
    return run, run_dir
