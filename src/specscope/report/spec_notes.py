"""What the engines said about speculation that is not a figure: the named warnings and the drafting as run (issue 26).

Each cell summary carries its speculative warnings among its reasons (added after its status, like
``CAPACITY_LIMITED``: they do not make an ok cell degraded), its ``/metrics`` window reading (``spec_window``: the state
of speculation, the accepting-nothing alarm) and the drafting it did (``drafting``). This module turns them into the
report's notes (one per config and warning, with the cells it was seen on) and alarms; it computes no figure.

Warnings noted (their meaning is in docs/engines.md): ``GAUGE_NOT_WINDOW``, ``UNREAD_SPEC_FIELD``, ``SERIES_VANISHED``,
``REQUEST_WRONG_TYPE``, ``REQUEST_SPEC_IDENTITY``, ``REQUEST_SGLANG_FILLED_ZERO`` ...; drafting findings
``ACCEPT_LENGTH_ABOVE_K`` / ``DRAFT_ABOVE_K`` against the configured k of the server facts.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from specscope.facts import RunFacts
from specscope.records import SpecCounters
from specscope.report.document import Alarm
from specscope.report.server_facts import spec_k
from specscope.stats.alarms import acceptance_method
from specscope.stats.low_acceptance import accepting_nothing_advice
from specscope.stats.server_spec import methods_of
from specscope.stats.spec_pool import drafting_as_run
from specscope.stats.summary import CellSummary

__all__ = ["spec_alarms", "spec_notes"]

_NAMED = ("GAUGE_NOT_WINDOW", "UNREAD_SPEC_FIELD", "SERIES_VANISHED", "V0_ACCEPTED_ANY_POSITION", "REQUEST_")
_MEANING = {
    "GAUGE_NOT_WINDOW": "a gauge holds a current mean and is not differenced over a cell; no figure is read from it",
    "UNREAD_SPEC_FIELD": "a speculative field this specscope does not understand; it is shown, never read as a figure",
    "SERIES_VANISHED": "speculative series present before a cell were gone after it; that window has no figure",
    "V0_ACCEPTED_ANY_POSITION": "the acceptance rate is V0's own count of matching positions, at or above the "
    "accepted-prefix rate other servers' figures give",
}


def spec_notes(cells: Sequence[CellSummary], facts: RunFacts | None = None) -> list[str]:
    """One note per config and named warning (with how many cells), then per config the drafting findings."""
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    for c in cells:
        for r in c.reasons:
            if r.startswith(_NAMED):
                seen[c.config][r] += 1
    notes = []
    for config in sorted(seen):
        for reason, n in seen[config].items():
            code = reason.split("(")[0]
            meaning = _MEANING.get(code, "the server's per-response speculative fields did not read cleanly")
            notes.append(f"{config}: {reason} on {n} cell{'s' if n != 1 else ''} ({meaning}).")
    notes += _drafting_notes(cells, facts or RunFacts())
    return notes


def _drafting_notes(cells: Sequence[CellSummary], facts: RunFacts) -> list[str]:
    """Per config: the pooled counters against the configured k (server facts), as :func:`drafting_as_run` says."""
    out = []
    by_config: dict[str, list[CellSummary]] = defaultdict(list)
    for c in cells:
        if c.status == "ok":
            by_config[c.config].append(c)
    for config, group in sorted(by_config.items()):
        k = spec_k(config, facts.of(config))
        counted = [x for x in (c.counters for c in group) if x is not None and x.drafts]
        if k is None or not counted:
            continue
        pooled = SpecCounters(
            drafts=sum(float(x.drafts or 0) for x in counted),
            draft_tokens=sum(float(x.draft_tokens or 0) for x in counted),
            accepted_tokens=sum(float(x.accepted_tokens or 0) for x in counted),
            accepted_per_position=max((x.accepted_per_position for x in counted), key=len),
        )
        found = drafting_as_run(k, counters=pooled)
        out += [f"{config}: {f}" for f in found["findings"]]
    return out


def spec_alarms(cells: Sequence[CellSummary], facts: RunFacts | None = None) -> list[Alarm]:
    """``ACCEPTING_NOTHING`` per config x workload whose ok cells' windows drafted and accepted nothing; its cause and
    checks follow the config's method (``facts``, else its name: :func:`specscope.stats.alarms.acceptance_method`), as
    :func:`specscope.stats.low_acceptance.accepting_nothing_advice` gives them (an n-gram drafter has no head to
    audit)."""
    hits: dict[tuple[str, str], list[str]] = defaultdict(list)
    for c in cells:
        window = c.spec_window or {}
        if window.get("alarm") == "ACCEPTING_NOTHING":
            hits[(c.config, c.workload)].append(str(window.get("statement")))
    methods = methods_of(facts or RunFacts())
    out = []
    for (config, workload), statements in sorted(hits.items()):
        cause, checks = accepting_nothing_advice(acceptance_method(config, methods))
        found = f"{len(statements)} cell(s) drafted and accepted nothing ({statements[0]})"
        out.append(Alarm("ACCEPTING_NOTHING", config, workload, found, cause, checks))
    return out
