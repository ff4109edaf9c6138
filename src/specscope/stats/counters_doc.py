"""What ``specscope counters BEFORE AFTER`` prints: the deltas of two ``/metrics`` scrapes, per engine.

The document is a plain JSON-able dict (keys below); :func:`counters_text` renders it for a terminal.
Rules (restart per engine, series absent before start from 0, consistency checks) are those of
:mod:`specscope.stats.counters`.

JSON keys: ``acceptance_rate`` (accepted / draft tokens), ``acceptance_length`` (1 + accepted / drafts,
tokens per verify step), ``acceptance_per_position`` (accepted at position i / drafts; these three null / empty
when the window has an inconsistency: counters that contradict each other are no measurement), ``k`` (draft tokens
per draft when whole), ``deltas`` (``drafts``, ``draft_tokens``, ``accepted_tokens``,
``accepted_per_position``, ``generation_tokens``, ``prompt_tokens``: counts in tokens, drafts in verify
steps) of the series sets that did not restart, vanish or start at an unknown point, ``engines`` (per series set,
named by its engine or by its label selector (:mod:`specscope.stats.counters`): ``reset``, ``vanished`` (all its
series gone after), ``unknown_start`` (absent before and not shown created after it), both left out and not restarts,
and its own ``deltas``; one entry ``""`` when the scrapes have no named series sets), ``reasons`` (codes:
``COUNTER_RESET``, ``ENGINE_RESET(e)``, ``ENGINE_VANISHED(e)``, ``ENGINE_UNKNOWN_START(e)``, the checks),
``engine_kind``, ``state`` / ``statement`` (not configured, idle, vanished, accepting nothing, gauge only, unread,
drafting, reset, no window: issue 26; ``restarted`` and a vanished series named for its evidence: issue 35,
:mod:`specscope.stats.counters_window`), ``clocks`` (what the process start times and ``*_created`` say, or null),
``window`` (``full``, ``partial`` or ``none``: what the pooled ``deltas`` and acceptance hold) with
``pooled_engines``, each engine's ``window`` (``full``, ``partial``: its counts since its restart, ``vanished``,
``unknown_start``), ``vanished`` (what the evidence says made series vanish, or null),
``warnings`` (``GAUGE_NOT_WINDOW``, ``UNREAD_SPEC_FIELD``, ``SERIES_VANISHED``,
``ACCEPTING_NOTHING`` ...), ``alarms`` (``ACCEPTING_NOTHING(...)``, else the one low-acceptance rule of
:mod:`specscope.stats.low_acceptance` over the window, the method unknown: a ``LOW_ACCEPTANCE(...)``, as
``serve --parse-log`` gives for a log; without one, that rule on each pooled series set of two or more, named
``engine 1: LOW_ACCEPTANCE(...)``: a pool can hide one engine accepting nothing), ``inconsistencies`` (the checks
of a counted window that show counters contradicting each other, :data:`specscope.stats.counters.INCONSISTENCIES`:
more tokens accepted than drafted ...).
``models`` (two or more ``model_name`` values: each model's own figures and alarms, null with ``inconsistent`` where its
counters contradict each other; the headline acceptance null and
``SEVERAL_MODELS`` under reasons: :mod:`specscope.stats.counters_models`), ``inside`` (what the engine counts without
labelling it apart, from its adapter; null when it says nothing). Alarms and inconsistencies make ``specscope
counters`` exit 1. A count with no counter behind it is null, never 0.
"""

from __future__ import annotations

from typing import Any

from specscope.records import SpecCounters, SpecWindow
from specscope.stats.counters import INCONSISTENCIES, counter_checks, counters_delta, series_reasons, spec_window
from specscope.stats.counters_models import model_figures, series_alarms, series_label, unlabelled_traffic
from specscope.stats.counters_window import clock_evidence, engine_window, pool_window, vanished_cause
from specscope.stats.low_acceptance import low_acceptance_alarm
from specscope.values import percent_text

__all__ = ["INCONSISTENT_FIX", "counters_doc", "counters_text"]

#: what to check when a window's counters contradict each other.
INCONSISTENT_FIX = (
    "check that both scrapes are of one server and one engine kind (an exporter that sums several servers, or a "
    "router, mixes their counters)"
)


def _deltas(d: SpecCounters) -> dict[str, Any]:
    return {
        "drafts": d.drafts,
        "draft_tokens": d.draft_tokens,
        "accepted_tokens": d.accepted_tokens,
        "accepted_per_position": list(d.accepted_per_position),
        "generation_tokens": d.generation_tokens,
        "prompt_tokens": d.prompt_tokens,
    }


def _alarms(window: SpecWindow, engines: list[str]) -> list[str]:
    """The window's alarms: accepting nothing, else the one low-acceptance rule (method unknown: a counter does not
    say which drafter ran, and an unknown method is judged as a head, as for a log without its config line), else
    that rule on each pooled series set of two or more (:func:`series_alarms`: a pool can hide one engine)."""
    if window.alarm:
        return [f"{window.alarm}({window.statement})"]
    d = window.delta
    low = low_acceptance_alarm(None, window.acceptance_rate, d.drafts if d.drafts is not None else None)
    return [low] if low else series_alarms(window.delta, engines)


def _statement(window: SpecWindow, pool_kind: str, cause: str | None, clocks_said: str) -> tuple[str, str]:
    """(state, statement): the window's own, except for a pool of partial windows (``restarted``) and a vanished
    series named by its evidence (issue 35)."""
    if cause is not None and window.state in ("vanished", "reset", "not_configured"):
        return "vanished", cause
    if pool_kind == "partial":
        why = f" ({clocks_said})" if clocks_said else ""
        return "restarted", (
            f"every engine left restarted between the scrapes{why}: the counts since each restart are a partial "
            "window (what ran before the restart is lost)"
        )
    return window.state, window.statement


def counters_doc(
    before: SpecCounters,
    after: SpecCounters,
    start_s: tuple[float | None, float | None] = (None, None),
    *,
    drained: bool = False,
) -> dict[str, Any]:
    """The deltas, acceptance and checks of two snapshots (see the module doc for the keys); ``start_s``: the
    process start times of the two scrapes (Unix s, None when absent), evidence of a restart; ``drained``: the two
    are drained JSON slices (``inside`` in that format's terms)."""
    delta = counters_delta(before, after)
    reasons = series_reasons(delta)
    pool = pool_window(delta)
    checks = counter_checks(pool.delta)
    reasons += checks.reasons
    engines = delta.engines or {"": delta}
    counted = pool.window != "none" and "spec" in pool.delta.present
    window = spec_window(before, after)
    clocks = clock_evidence(before, after, start_s)
    cause = vanished_cause(before, after, delta, clocks)
    state, statement = _statement(window, pool.window, cause, clocks.said)
    inconsistencies = [r for r in checks.reasons if r.split("(")[0] in INCONSISTENCIES] if counted else []
    measured = counted and not inconsistencies  # counters that contradict each other give no acceptance figure
    models = model_figures(delta)  # several models: their own figures, no pooled headline (counters_models)
    if models:
        measured = False
        reasons.append(f"SEVERAL_MODELS({', '.join(models)}: figures per model, no pooled headline)")
    d = pool.delta
    return {
        "engine_kind": window.engine_kind,
        "state": state,
        "statement": statement,
        "clocks": clocks.said or None,
        "vanished": cause,
        "warnings": [w for w in window.warnings if w not in reasons],
        "alarms": [a for m in models.values() for a in m["alarms"]] if models else _alarms(window, list(pool.engines)),
        "models": models,
        "inside": unlabelled_traffic(window.engine_kind, (*before.caveats, *after.caveats), drained),
        "window": pool.window,
        "pooled_engines": list(pool.engines),
        "acceptance_rate": d.acceptance_rate if measured else None,
        "acceptance_length": d.acceptance_length if measured else None,
        "acceptance_per_position": list(d.acceptance_per_position) if measured else [],
        "k": checks.k,
        "deltas": _deltas(d),
        "engines": {
            e: {
                "reset": x.reset,
                "window": engine_window(e, x, delta),
                "vanished": e in delta.vanished_engines,
                "unknown_start": e in delta.unknown_start_engines,
                "deltas": _deltas(x),
            }
            for e, x in engines.items()
        },
        "reasons": reasons,
        "inconsistencies": inconsistencies,
    }


def _num(x: float | None, fmt: str = "g") -> str:
    return "—" if x is None else format(x, fmt)


def counters_text(doc: dict[str, Any]) -> str:
    """The document as terminal lines: one per engine, then the acceptance of the engines that did not restart."""
    lines = []
    for e, eng in doc["engines"].items():
        d = eng["deltas"]
        name = series_label(e) if e else "server"
        if eng.get("vanished"):
            lines.append(f"{name}: vanished: no series in the after scrape (left out; not a restart)")
            continue
        if eng.get("unknown_start"):
            lines.append(f"{name}: new, start unknown: absent before, not created after it (left out; not a restart)")
            continue
        tail = ""
        if eng["reset"]:
            tail = "(partial window: restarted between the scrapes, counts since the restart"
            tail += "; left out of the pool)" if doc["window"] == "full" else ")"
        lines.append(
            f"{name}: reset: {str(eng['reset']).lower()}  drafts {_num(d['drafts'])}  draft tokens "
            f"{_num(d['draft_tokens'])}  accepted {_num(d['accepted_tokens'])}  generation "
            f"{_num(d['generation_tokens'])}  prompt {_num(d['prompt_tokens'])} {tail}".rstrip()
        )
    valid = doc["pooled_engines"]
    who = ""
    if doc["engines"].keys() != {""} and not valid:  # every set vanished, restarted or new: none pooled
        who = " (no series set counted over the window)"
    elif doc["engines"].keys() != {""}:
        kind = "series" if any(e.startswith("{") for e in valid) else "engines"
        who = f" ({kind} {', '.join(valid)}" + (", partial windows" if doc["window"] == "partial" else "") + ")"
    elif doc["window"] == "partial":
        who = " (partial window: since the restart)"
    if doc.get("inconsistencies"):
        lines.append(
            f"acceptance{who}: withheld: the counters contradict each other (INCONSISTENT below)  k {_num(doc['k'])}"
        )
    else:
        lines.append(
            f"acceptance{who}: rate {percent_text(doc['acceptance_rate'])}  length "
            f"{_num(doc['acceptance_length'], '.2f')}  k {_num(doc['k'])}"
        )
    per_pos = doc["acceptance_per_position"]
    lines.append("per position: " + (" ".join(percent_text(r) for r in per_pos) if per_pos else "—"))
    for model, m in doc.get("models", {}).items():
        figures = (
            "withheld: its counters contradict each other (INCONSISTENT below)"
            if m.get("inconsistent")
            else f"rate {percent_text(m['acceptance_rate'])}  length {_num(m['acceptance_length'], '.2f')}"
        )
        lines.append(
            f"model {model}: {figures}  drafts {_num(m['drafts'])}  draft tokens {_num(m['draft_tokens'])}  "
            f"accepted {_num(m['accepted_tokens'])}"
        )
    lines.append("reasons: " + (", ".join(doc["reasons"]) if doc["reasons"] else "none"))
    if doc.get("inside"):
        lines.append(f"inside each figure: {doc['inside']}")
    lines.append(f"speculation: {doc['state']}: {doc['statement']}")
    if doc.get("vanished") and doc["vanished"] != doc["statement"]:
        lines.append(f"vanished: {doc['vanished']}")
    if doc["warnings"]:
        lines.append("warnings: " + ", ".join(doc["warnings"]))
    lines += [f"ALARM {a}" for a in doc.get("alarms", [])]
    lines += [f"INCONSISTENT {r}" for r in doc.get("inconsistencies", [])]
    if doc.get("inconsistencies"):
        lines.append(f"fix: {INCONSISTENT_FIX}")
    return "\n".join(lines)
