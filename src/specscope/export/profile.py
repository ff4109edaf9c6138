"""A run's acceptance as speculation profiles (``specscope export RUN --to profile -o FILE``).

Schema: ``speculation_profile.json`` as NVIDIA Model-Optimizer's specdec_bench writes it,
``examples/specdec_bench/specdec_bench/speculation_profile.py`` ``build_profile`` (commit
edf879d3daf7879acdeb2dab9f54a591837da7b0, schema_version ``"1.0"``; NVIDIA/Model-Optimizer#2247): per draft
position ``i`` (0-based) ``marginal_accept_rates[i]`` = P(the first i+1 drafts all accepted) and
``conditional_accept_rates[i]`` = marginal[i] / marginal[i-1] (0.0 after a 0); ``mean_accept_length`` is the
per-step mean tokens emitted (bonus token included); ``acceptance_length_histogram`` maps a step's acceptance length
(tokens emitted, ``"1"`` = no draft accepted) to its count of steps; ``validation`` holds the producer's two checks
(``mean_consistency``: ``1 + sum(marginal)`` against the mean within 0.02; ``marginal_monotonicity``).

Our figures: one profile per speculative config x workload x level x phase (``all``; ``reasoning`` and ``answer``
when the run split them, :mod:`specscope.stats.phases`), pooled over the ok cells by the report's own
:func:`specscope.stats.acceptance.pooled_acceptance` (sum accepted at each position / sum verify steps: vLLM's
per-position counters are marginal, since a position counts only after every earlier one was accepted) and
:func:`specscope.stats.acceptance_dist.accepted_length_histogram`. ``measurement_conditions`` names the run, config,
workload, load and phase. A draft position never drafted (past ``draft_tokens - drafts + 1``, the longest any draft
can have been) gets no rate: the rates stop at the last position that may have been drafted, the positions left out
are named in the sidecar (``positions_never_drafted``: first, last) and on stderr. What the schema has no field for
(drafted and accepted tokens, acceptance rate, the figures' source and flags) goes in a sidecar file beside the
profiles, never into them. A figure we did not measure (``mean_accept_length_per_request``: no per-request acceptance
length is kept) is null.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specscope.config import is_control
from specscope.errors import ConfigError
from specscope.facts import ServerFacts
from specscope.report import units
from specscope.report.build import RunData, run_cells_of
from specscope.stats.acceptance import AcceptanceView, acceptance_view, cell_drafts, pooled_acceptance
from specscope.stats.acceptance_dist import accepted_length_histogram
from specscope.stats.groups import usable
from specscope.stats.judgement import speculative_configs
from specscope.stats.server_spec import methods_of, run_k, served_model
from specscope.stats.summary import CellSummary

__all__ = ["SCHEMA_VERSION", "SCHEMA_SOURCE", "Profile", "is_folder_target", "run_profiles"]

SCHEMA_VERSION = "1.0"
SCHEMA_SOURCE = (
    "NVIDIA/Model-Optimizer examples/specdec_bench/specdec_bench/speculation_profile.py "
    "build_profile @ edf879d3daf7879acdeb2dab9f54a591837da7b0"
)
#: methods whose draft at k is a prefix of their draft at k+1 (the producer's ``_CHAIN_DRAFTING_METHODS``).
CHAIN_METHODS = frozenset({"eagle", "eagle1", "eagle2", "eagle3", "draft_model"})
MEAN_TOLERANCE = 0.02  # the producer's mean_consistency tolerance (tokens per step)


@dataclass(frozen=True)
class Profile:
    """One profile (``body``: the schema's object) and what goes beside it (``beside``), with its key."""

    config: str
    workload: str
    level: int
    phase: str
    body: dict[str, Any]
    beside: dict[str, Any]

    def suffix(self) -> str:
        return f"{self.config}-{self.workload}-{self.level}-{self.phase}"


def _r(x: float) -> float:
    return round(float(x), 6)


def _histogram(view: AcceptanceView, per_position: Sequence[float]) -> dict[str, int | float] | None:
    """Steps by acceptance length (``"1"``: no draft accepted), from the pooled per-position counts."""
    counts = accepted_length_histogram(view.drafts, per_position)
    if not counts:
        return None
    return {str(j + 1): int(n) if float(n).is_integer() else n for j, n in enumerate(counts)}


def _k(config: str, facts: ServerFacts, cells: Sequence[CellSummary], positions: int) -> tuple[int, str]:
    """The k the config drafted with and its source: :func:`specscope.stats.server_spec.run_k` (the one place k is
    derived, as ``predict`` does) when it covers the positions measured, else the per-position counters' length
    (``"positions measured"``)."""
    k, source = run_k(config, facts, (c.drafting for c in cells))
    if k is not None and k >= positions:
        return k, source
    return positions, "positions measured"


def _last_drafted(view: AcceptanceView, k: int) -> int:
    """The last draft position (1-based) that may have been drafted: no draft was longer than ``draft_tokens -
    (drafts - 1)`` tokens (every other draft held at least one), and a position with accepts was drafted; else k."""
    if view.drafts < 1 or view.draft_tokens < view.drafts:
        return k
    longest = int(view.draft_tokens - view.drafts + 1 + 1e-9)
    accepted = max((i + 1 for i, u in enumerate(view.unconditional) if u > 0), default=1)
    return max(1, min(k, max(longest, accepted)))


def _body(view: AcceptanceView, per_position: Sequence[float], k: int, method: str | None) -> dict[str, Any]:
    """The schema's object; the rates stop at the last position that may have been drafted (:func:`_last_drafted`):
    a position never drafted has no rate, and the schema takes fewer rates than ``num_speculative_tokens``."""
    marginal = [*view.unconditional, *[0.0] * (k - len(view.unconditional))][: _last_drafted(view, k)]
    conditional, prev = [], 1.0
    for m in marginal:
        conditional.append(m / prev if prev > 0 else 0.0)
        prev = m
    mean = view.acceptance_length
    implied = 1.0 + sum(marginal)
    violations = [
        {"position": i, "value": _r(marginal[i]), "previous": _r(marginal[i - 1])}
        for i in range(1, len(marginal))
        if marginal[i] > marginal[i - 1] + 1e-9
    ]
    return {
        "schema_version": SCHEMA_VERSION,
        "measured": True,
        "method": method,
        "draft_checkpoint": None,
        "target_model": None,
        "num_speculative_tokens": k,
        "block_size": None,
        "max_supported_k": k,
        "verification_method": "longest_prefix",
        "conditional_accept_rates": [_r(x) for x in conditional],
        "marginal_accept_rates": [_r(x) for x in marginal],
        "mean_accept_length": None if mean is None else _r(mean),
        "mean_accept_length_per_request": None,
        "accept_length_model": "chain_analytic" if method and method.lower() in CHAIN_METHODS else "measured_per_k",
        "accept_length_by_k": {} if mean is None else {str(k): _r(mean)},
        "acceptance_length_histogram": _histogram(view, per_position),
        "per_category": None,
        "measurement_conditions": None,
        "validation": None
        if mean is None
        else {
            "mean_consistency": {
                "implied_mean_accept_length": _r(implied),
                "reported_mean_accept_length": _r(mean),
                "abs_delta": _r(abs(implied - mean)),
                "tolerance": MEAN_TOLERANCE,
                "passed": abs(implied - mean) <= MEAN_TOLERANCE,
            },
            "marginal_monotonicity": {"passed": not violations, "violations": violations},
        },
    }


def _phase_views(cells: Sequence[CellSummary]) -> dict[str, tuple[AcceptanceView, list[float]]]:
    """Per phase (``reasoning``, ``answer``) the pooled view of the cells' split acceptance, when any cell split."""
    out: dict[str, tuple[AcceptanceView, list[float]]] = {}
    for phase in ("reasoning", "answer"):
        parts = [p[phase] for c in cells if isinstance(p := c.phase_acceptance, Mapping) and phase in p]
        if not parts or not sum(int(p["drafts"]) for p in parts):
            continue
        pos: list[float] = []
        for p in parts:
            per = list(p.get("accepted_per_position") or ())
            pos.extend([0.0] * (len(per) - len(pos)))
            for i, v in enumerate(per):
                pos[i] += float(v)
        view = acceptance_view(
            sum(float(p["drafts"]) for p in parts),
            sum(float(p["draft_tokens"]) for p in parts),
            sum(float(p["accepted_tokens"]) for p in parts),
            pos,
        )
        out[phase] = (view, pos)
    return out


def _pooled_positions(cells: Sequence[CellSummary]) -> list[float]:
    pos: list[float] = []
    for c in cells:
        per = list(c.counters.accepted_per_position if c.counters is not None else ())
        pos.extend([0.0] * (len(per) - len(pos)))
        for i, v in enumerate(per):
            pos[i] += float(v)
    return pos


def _partial(ok: Sequence[CellSummary], label: str, view: AcceptanceView | None) -> list[str]:
    """``LABEL: 1 of 2 ok cells carry per-position counts (round 1 none)`` for a group some of whose ok cells carry
    per-position counts and others none: pooled, it has no per-position figure (the report's dash), so no profile;
    [] otherwise."""
    if view is not None and view.unconditional:
        return []
    has = [c for c in ok if c.counters is not None and c.counters.accepted_per_position]
    if not has or len(has) == len(ok):
        return []
    lacking = [str(c.repeat) for c in ok if c not in has]
    rounds = f"round{'s' if len(lacking) > 1 else ''} {', '.join(lacking)}"
    return [f"{label}: {len(has)} of {len(ok)} ok cells carry per-position counts ({rounds} none)"]


def _unpositioned(ok: Sequence[CellSummary], label: str, view: AcceptanceView | None) -> list[str]:
    """``LABEL: acceptance 55.0% over 30 verify steps, no per-position counts`` for a group whose pooled acceptance
    was measured but none of whose ok cells carries per-position counts (a server without that counter): no profile;
    [] otherwise (a profile, a partial group: :func:`_partial`, or no acceptance: :func:`_idle`)."""
    if view is None or view.unconditional or view.acceptance_rate is None:
        return []
    if any(c.counters is not None and c.counters.accepted_per_position for c in ok):
        return []
    steps = f" over {int(view.drafts):,} verify steps" if view.drafts_known else ""
    return [f"{label}: acceptance {units.rate(view.acceptance_rate).text}{steps}, no per-position counts"]


def _idle(label: str, ok: Sequence[CellSummary]) -> str:
    """Why a speculative config's group has no profile: its server reported 0 drafts (:func:`cell_drafts`) in some
    ok cells and no draft count in the others, or no draft count at all (absent is unknown, never 0)."""
    zero = sum(1 for c in ok if cell_drafts(c) == 0)
    if zero:
        return f"{label}: no profile: its server reported 0 drafts in {zero} of {len(ok)} ok cells (it did not draft)"
    return f"{label}: no profile: none of its {len(ok)} ok cells carries a draft count"


def run_profiles(data: RunData) -> tuple[list[Profile], list[str]]:
    """Every profile of the run (module docstring), in config, workload, level, phase order, and a note for each
    group of a speculative config (:func:`specscope.stats.judgement.speculative_configs`) left without a profile
    because its ok cells hold no draft (its server reported 0 drafts, or no draft count: nothing to profile).

    Raises:
        ConfigError: no config of the run has per-position acceptance (nothing to profile).
    """
    rc = run_cells_of(data)
    methods = methods_of(data.server_facts)
    speculative = speculative_configs(methods, rc.cells)
    out: list[Profile] = []
    partial: list[str] = []
    idle: list[str] = []
    for config in rc.configs:
        if is_control(config):
            continue
        for workload in rc.workloads:
            for level in rc.levels:
                cells = [c for c in rc.cells if (c.config, c.workload, c.concurrency) == (config, workload, level)]
                ok = [c for c in cells if usable(c)]
                views = {"all": (pooled_acceptance(ok).get((config, workload)), _pooled_positions(ok))}
                views.update(_phase_views(ok))
                label = f"{config} / {workload} / {rc.axis.label(level)}"
                partial.extend(_partial(ok, label, views["all"][0]))
                partial.extend(_unpositioned(ok, label, views["all"][0]))
                if ok and views["all"][0] is None and config in speculative:
                    idle.append(_idle(label, ok))
                for phase, (view, pos) in views.items():
                    if view is None or not view.unconditional:
                        continue
                    out.append(
                        _profile(data, rc.axis.label(level), ok, (config, workload, level, phase), view, pos, methods)
                    )
    if not out:
        raise ConfigError(
            f"the run {data.path or data.name} has no per-position acceptance to profile",
            found="; ".join(partial + idle)
            if partial or idle
            else "no ok cell of a speculative config with per-position acceptance counters",
            expected="a run whose server counted accepted tokens per draft position (vLLM /metrics, llama.cpp)",
            fix="profile a run of a speculative config on an engine that reports per-position acceptance",
        )
    return out, idle


def _described(name: str | None) -> dict[str, str] | None:
    """The schema's ``target_model`` / ``draft_checkpoint``: ``build_profile`` takes "dicts describing what was
    measured" and leaves their keys to its caller; its ``checkpoint_id`` keeps a path's last two components
    (``org/model``) so a published profile carries no local layout. So: ``{"id": org/model}``, None when the server
    did not say."""
    if not name:
        return None
    parts = [p for p in name.replace("\\", "/").split("/") if p]
    return {"id": "/".join(parts[-2:])} if parts else None


def _profile(
    data: RunData,
    load: str,
    cells: Sequence[CellSummary],
    key: tuple[str, str, int, str],
    view: AcceptanceView,
    pos: Sequence[float],
    methods: Mapping[str, str | None],
) -> Profile:
    config, workload, level, phase = key
    method = methods.get(config)
    facts = data.server_facts.of(config)
    k, k_from = _k(config, facts, cells, len(view.unconditional))
    body = _body(view, pos, k, method)
    body["target_model"] = _described(served_model(facts))  # what the server said it served; None: it did not say
    body["draft_checkpoint"] = _described(served_model(facts, "draft"))
    opts = data.options
    body["measurement_conditions"] = {
        "producer": "specscope",
        "run": str(data.path or data.name),
        "config": config,
        "workload": workload,
        "load": load,
        "phase": phase,
        "engine": data.manifest.engine,
        "max_tokens": _max_tokens_sent(cells, opts.max_tokens),
        "temperature": opts.temperature,
        "cells": len(cells),
    }
    beside = {
        "config": config,
        "workload": workload,
        "level": level,
        "load": load,
        "phase": phase,
        "drafts": view.drafts,
        "draft_tokens": view.draft_tokens,
        "accepted_tokens": view.accepted_tokens,
        "acceptance_rate": view.acceptance_rate,
        "acceptance_length": view.acceptance_length,
        "positions_measured": len(view.unconditional),
        "positions_never_drafted": None if (last := _last_drafted(view, k)) >= k else [last + 1, k],
        "k_from": k_from,
        "source": view.source,
        "flags": list(view.flags),
    }
    return Profile(config, workload, level, phase, body, beside)


def _max_tokens_sent(cells: Sequence[CellSummary], option: int | None) -> int | None:
    """The ``max_tokens`` the group's requests were sent with (tokens): each cell's stored largest
    (``ClientFacts.max_tokens``; a pack or file row with its own length, such as ``repeat``'s
    :data:`~specscope.workload.packs.REPEAT_MAX_TOKENS`, sends that in place of ``--max-tokens``), the largest of
    them; ``option`` (the run's ``--max-tokens``) only for cells stored before the requests' own was."""
    sent = [c.client.max_tokens for c in cells if c.client is not None and c.client.max_tokens is not None]
    return max(sent) if sent else option


def is_folder_target(target: Path) -> bool:
    """``-o`` names a folder: an existing one, or a new name without a suffix (``-o profiles``)."""
    return target.is_dir() or not (target.suffix or target.exists() or target.is_symlink())


def profile_paths(target: Path, profiles: Sequence[Profile]) -> list[Path]:
    """Where each profile is written: the schema holds one profile per file, so ``-o FOLDER`` holds one
    ``CONFIG-WORKLOAD-LEVEL-PHASE.json`` per profile, and ``-o FILE`` is the one profile's file.

    Raises:
        ConfigError: ``target`` is a file and the run has several profiles (no file holds them all).
    """
    if is_folder_target(target):
        return [target / f"{p.suffix()}.json" for p in profiles]
    if len(profiles) == 1:
        return [target]
    keys = ", ".join(f"{p.config} / {p.workload} / {p.beside['load']} / {p.phase}" for p in profiles)
    raise ConfigError(
        f"the run has {len(profiles)} profiles and a speculation_profile.json holds one",
        found=f"-o {target}: {keys}",
        expected="-o FILE.json for a run of one profile, -o FOLDER for several (one CONFIG-WORKLOAD-LEVEL-PHASE.json"
        " each)",
        fix=f"pass -o {target.with_suffix('')}",
    )


def sidecar_path(target: Path) -> Path:
    """The file beside the profiles holding what the schema has no field for: ``FOLDER/specscope.json``, or
    ``STEM.specscope.json`` beside ``-o FILE``."""
    if is_folder_target(target):
        return target / "specscope.json"
    return target.with_name(f"{target.stem}.specscope.json")
