"""What ``specscope counters BEFORE AFTER`` prints: the deltas of two ``/metrics`` scrapes, per engine.

The document is a plain JSON-able dict (keys below); :func:`counters_text` renders it for a terminal.
Rules (restart per engine, series absent before start from 0, consistency checks) are those of
:mod:`specscope.stats.counters`.

JSON keys: ``acceptance_rate`` (accepted / draft tokens), ``acceptance_length`` (1 + accepted / drafts,
tokens per verify step), ``acceptance_per_position`` (accepted at position i / drafts), ``k`` (draft tokens
per draft when whole), ``deltas`` (``drafts``, ``draft_tokens``, ``accepted_tokens``,
``accepted_per_position``, ``generation_tokens``, ``prompt_tokens``: counts in tokens, drafts in verify
steps) of the engines that did not restart, ``engines`` (per engine label: ``reset`` and its own
``deltas``; one entry ``""`` when the server has no ``engine`` label), ``reasons`` (codes), ``engine_kind``,
``state`` / ``statement`` (not configured, idle, vanished, accepting nothing, gauge only, drafting, reset: issue 26),
``warnings`` (``GAUGE_NOT_WINDOW``, ``UNREAD_SPEC_FIELD``, ``SERIES_VANISHED``, ``ACCEPTING_NOTHING`` ...),
``problems`` (what makes ``specscope counters`` exit 1: the window's alarm, ``ACCEPTING_NOTHING``, and the
inconsistencies of a counted window, :data:`specscope.stats.counters.INCONSISTENCIES`, such as more tokens accepted
than drafted). A count with no counter behind it is null, never 0.
"""

from __future__ import annotations

from typing import Any

from specscope.records import SpecCounters
from specscope.stats.counters import INCONSISTENCIES, counter_checks, counters_delta, spec_window

__all__ = ["counters_doc", "counters_text"]


def _deltas(d: SpecCounters) -> dict[str, Any]:
    return {
        "drafts": d.drafts,
        "draft_tokens": d.draft_tokens,
        "accepted_tokens": d.accepted_tokens,
        "accepted_per_position": list(d.accepted_per_position),
        "generation_tokens": d.generation_tokens,
        "prompt_tokens": d.prompt_tokens,
    }


def counters_doc(before: SpecCounters, after: SpecCounters) -> dict[str, Any]:
    """The deltas, acceptance and checks of two snapshots (see the module doc for the keys)."""
    delta = counters_delta(before, after)
    reasons: list[str] = []
    if delta.reset:
        reasons.append("COUNTER_RESET")
    elif delta.reset_engines:
        reasons.append("ENGINE_RESET(" + ", ".join(delta.reset_engines) + ")")
    checks = counter_checks(delta)
    reasons += checks.reasons
    engines = delta.engines or {"": delta}
    counted = not delta.reset and "spec" in delta.present
    window = spec_window(before, after)
    return {
        "engine_kind": window.engine_kind,
        "state": window.state,
        "statement": window.statement,
        "warnings": [w for w in window.warnings if w not in reasons],
        "acceptance_rate": delta.acceptance_rate if counted else None,
        "acceptance_length": delta.acceptance_length if counted else None,
        "acceptance_per_position": list(delta.acceptance_per_position) if counted else [],
        "k": checks.k,
        "deltas": _deltas(delta),
        "engines": {e: {"reset": d.reset, "deltas": _deltas(d)} for e, d in engines.items()},
        "reasons": reasons,
        "problems": ([window.alarm] if window.alarm else [])
        + ([r for r in checks.reasons if r.split("(")[0] in INCONSISTENCIES] if counted else []),
    }


def _num(x: float | None, fmt: str = "g") -> str:
    return "—" if x is None else format(x, fmt)


def counters_text(doc: dict[str, Any]) -> str:
    """The document as terminal lines: one per engine, then the acceptance of the engines that did not restart."""
    lines = []
    for e, eng in doc["engines"].items():
        d = eng["deltas"]
        name = f"engine {e}" if e else "server"
        tail = "(left out: restarted between the scrapes)" if eng["reset"] and e else ""
        lines.append(
            f"{name}: reset: {str(eng['reset']).lower()}  drafts {_num(d['drafts'])}  draft tokens "
            f"{_num(d['draft_tokens'])}  accepted {_num(d['accepted_tokens'])}  generation "
            f"{_num(d['generation_tokens'])}  prompt {_num(d['prompt_tokens'])} {tail}".rstrip()
        )
    valid = [e for e, eng in doc["engines"].items() if not eng["reset"]]
    who = f" (engines {', '.join(valid)})" if doc["engines"].keys() != {""} else ""
    lines.append(
        f"acceptance{who}: rate {_num(doc['acceptance_rate'], '.3f')}  length "
        f"{_num(doc['acceptance_length'], '.2f')}  k {_num(doc['k'])}"
    )
    per_pos = doc["acceptance_per_position"]
    lines.append("per position: " + (" ".join(f"{r:.3f}" for r in per_pos) if per_pos else "—"))
    lines.append("reasons: " + (", ".join(doc["reasons"]) if doc["reasons"] else "none"))
    lines.append(f"speculation: {doc['state']}: {doc['statement']}")
    if doc["warnings"]:
        lines.append("warnings: " + ", ".join(doc["warnings"]))
    if doc["problems"]:
        lines.append("problems: " + ", ".join(doc["problems"]))
    return "\n".join(lines)
