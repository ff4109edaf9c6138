"""Counter deltas between two ``/metrics`` snapshots of one server, per engine, with restarts detected.

Pure arithmetic over :class:`specscope.records.SpecCounters`; the scraping and parsing live in
``specscope.client.metrics``.

Rules (issue 14, "Counters"):

- Deltas are taken per ``engine`` label *before* summing (vLLM data parallel), so a restart of one engine
  is seen even when the sum still rises.
- An engine restarted between the scrapes when one of its counters went down or its ``*_created`` time
  moved (compared only while the same counter families are there: a family that vanished takes its ``_created``
  with it). Its window is left out (listed in ``reset_engines``); the cell's figure is the sum over the engines that
  did not restart. ``reset`` is set only when no engine is left to count and some restarted.
- An engine whose series are all gone after the window vanished (``vanished_engines``, ``ENGINE_VANISHED``): left out
  too, but nothing says it restarted; a family gone from an engine that still reports others (the speculative series
  gone, generation still rising) is a vanished series, not a restart.
- A series absent before and present after starts from 0 (llama.cpp creates its speculative and
  per-position series only after its first speculative request); ``present`` is the "after" scrape's.
- A counter absent after the window is ``None`` on the delta: silence is never 0 (issue 26); per-position series
  absent after give no per-position delta (never a fall to 0).

:func:`spec_window` turns the two scrapes into one engine-neutral window reading (:class:`SpecWindow`): the state of
speculation (not configured / idle / vanished / accepting nothing / gauge only / unread / drafting / reset: silences
that read alike as zeros are different statements, the accepting-nothing one an alarm) and the named warnings.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from specscope.records import SpecCounters, SpecWindow

__all__ = [
    "INCONSISTENCIES",
    "CounterChecks",
    "counter_checks",
    "counters_delta",
    "spec_window",
    "sum_counters",
]

#: the codes of :func:`counter_checks`: counters that contradict each other (a window with one is not a measurement).
INCONSISTENCIES = frozenset(
    {
        "PER_POSITION_SUM",
        "DRAFT_TOKENS_OVER_K",
        "DRAFT_TOKENS_WITHOUT_DRAFTS",
        "SPEC_IDENTITY",
        "ACCEPTED_OVER_DRAFTED",
        "ACCEPTED_OVER_GENERATED",
    }
)

_COUNTED = frozenset({"spec", "per_pos", "generation", "prompt"})  # SpecCounters.present families that are counters
_COUNTS = ("drafts", "draft_tokens", "accepted_tokens", "rejected_tokens", "generation_tokens", "prompt_tokens")


def _diff(before: float | None, after: float | None) -> tuple[float | None, bool]:
    """after - before for one counter; absent before: from 0; on a decrease, a restart: the increase is
    ``after`` (Prometheus ``increase()`` rule)."""
    if after is None:
        return None, False
    if before is None:
        return after, False
    if after < before:
        return after, True
    return after - before, False


def _delta_one(before: SpecCounters, after: SpecCounters) -> SpecCounters:
    """The delta of one series set (one engine, or the whole server when there are no engine labels)."""
    same_families = before.present & _COUNTED == after.present & _COUNTED
    created = before.created is not None and after.created is not None
    reset = same_families and created and before.created != after.created
    vals: dict[str, float | None] = {}
    for name in _COUNTS:
        vals[name], r = _diff(getattr(before, name), getattr(after, name))
        reset |= r
    per_pos: list[float] = []
    if "per_pos" in after.present or after.accepted_per_position:  # gone after: no per-position delta, no fall to 0
        n = max(len(before.accepted_per_position), len(after.accepted_per_position))
        b = before.accepted_per_position + (0.0,) * (n - len(before.accepted_per_position))  # (n,)
        a = after.accepted_per_position + (0.0,) * (n - len(after.accepted_per_position))  # (n,)
        for x, y in zip(b, a, strict=True):
            v, r = _diff(x, y)
            per_pos.append(v or 0.0)
            reset |= r
    return SpecCounters(
        drafts=vals["drafts"],
        draft_tokens=vals["draft_tokens"],
        accepted_tokens=vals["accepted_tokens"],
        accepted_per_position=tuple(per_pos),
        generation_tokens=vals["generation_tokens"],
        prompt_tokens=vals["prompt_tokens"],
        present=after.present,
        reset=reset,
        engine_kind=after.engine_kind or before.engine_kind,
        rejected_tokens=vals["rejected_tokens"],
        spec_gauges=dict(after.spec_gauges),
        unread=after.unread,
    )


def _add_opt(x: float | None, y: float | None) -> float | None:
    return y if x is None else x if y is None else x + y


def sum_counters(parts: Sequence[SpecCounters]) -> SpecCounters:
    """The sum of several engines' deltas or snapshots (per position padded with 0; the ``running`` / ``waiting``
    gauges summed, as replicas at one moment); ``present`` is the union; None stays None (silence is never 0)."""
    out = SpecCounters()
    for p in parts:
        n = max(len(out.accepted_per_position), len(p.accepted_per_position))
        pos = [0.0] * n
        for seq in (out.accepted_per_position, p.accepted_per_position):
            for i, v in enumerate(seq):
                pos[i] += v
        out = SpecCounters(
            drafts=_add_opt(out.drafts, p.drafts),
            draft_tokens=_add_opt(out.draft_tokens, p.draft_tokens),
            accepted_tokens=_add_opt(out.accepted_tokens, p.accepted_tokens),
            accepted_per_position=tuple(pos),
            generation_tokens=_add_opt(out.generation_tokens, p.generation_tokens),
            prompt_tokens=_add_opt(out.prompt_tokens, p.prompt_tokens),
            running=_add_opt(out.running, p.running),
            waiting=_add_opt(out.waiting, p.waiting),
            present=out.present | p.present,
            engine_kind=out.engine_kind or p.engine_kind,
            rejected_tokens=_add_opt(out.rejected_tokens, p.rejected_tokens),
            spec_gauges={**out.spec_gauges, **p.spec_gauges},
            unread=tuple(sorted(set(out.unread) | set(p.unread))),
        )
    return out


def counters_delta(before: SpecCounters, after: SpecCounters) -> SpecCounters:
    """The counters' increase between two snapshots of the same server.

    Without ``engine`` labels, one series set: a counter that went down (or a ``*_created`` that moved)
    means the server restarted: ``reset=True`` and, for that counter, the value after the restart
    (Prometheus' ``increase()`` convention), which is NOT the cell's true count; callers must mark such a
    cell. With ``engine`` labels, each engine's delta is in ``engines`` with its own ``reset``; the
    restarted ones are listed in ``reset_engines`` and the top-level figures sum the others (``reset`` only
    when no engine is left and some restarted). An engine absent before starts from 0; one absent after vanished
    (``vanished_engines``: left out, not a restart). Gauges (``running``, ``waiting``) are ``None`` on a delta.

    Args:
        before: snapshot taken before the cell.
        after: snapshot taken after the cell.

    Returns:
        A :class:`SpecCounters` delta (counts in tokens, ``drafts`` in verify steps).
    """
    if not before.engines and not after.engines:
        return _delta_one(before, after)
    per: dict[str, SpecCounters] = {}
    vanished: list[str] = []
    for e in sorted(set(before.engines) | set(after.engines)):
        b = before.engines.get(e, SpecCounters())
        a = after.engines.get(e)
        if a is None:
            vanished.append(e)
            per[e] = SpecCounters()
        else:
            per[e] = _delta_one(b, a)
    valid = [d for e, d in per.items() if not d.reset and e not in vanished]
    restarted = tuple(e for e, d in per.items() if d.reset)
    if valid:
        total = sum_counters(valid)
    elif restarted:
        total = _delta_one(before, after)
    else:
        total = SpecCounters()
    return dataclasses.replace(
        total,
        engines=per,
        reset_engines=restarted,
        vanished_engines=tuple(vanished),
        reset=not valid and bool(restarted),
    )


@dataclass(frozen=True, slots=True)
class CounterChecks:
    """Consistency of one delta: ``k`` = draft tokens per draft when it is a whole number (fixed-k methods,
    e.g. MTP / EAGLE with ``num_speculative_tokens=k``), else ``None``; ``reasons`` lists the violations."""

    k: int | None
    reasons: tuple[str, ...]


def counter_checks(delta: SpecCounters) -> CounterChecks:
    """Check a delta: the per-position accepted counts sum to the accepted total (``PER_POSITION_SUM``),
    no more draft tokens were proposed than ``drafts`` x the number of positions (``DRAFT_TOKENS_OVER_K``), a
    drafts counter that says 0 has no drafted tokens beside it (``DRAFT_TOKENS_WITHOUT_DRAFTS``: every draft holds at
    least one token), rejected = drafted - accepted where all three are exported (``SPEC_IDENTITY``), no more tokens
    were accepted than drafted (``ACCEPTED_OVER_DRAFTED``: every accepted token was a draft token), and no more than
    the output tokens allow (``ACCEPTED_OVER_GENERATED``). An accepted token is an output token, except in a
    request's last step: vLLM counts a step's accepted tokens before the stop check cuts the tokens after EOS or
    ``max_tokens`` (``vllm/v1/core/sched/scheduler.py``, ``update_from_output``: ``make_spec_decoding_stats`` before
    ``_update_request_with_output``), so a window may hold up to k more accepted tokens per finished request than
    generated ones; each request generates at least one, hence the sound bound accepted <= generated x (1 + k), k
    the number of positions (else drafted / drafts). Every code is one of :data:`INCONSISTENCIES`.

    Args:
        delta: from :func:`counters_delta` (counts in tokens, ``drafts`` in verify steps).
    """
    reasons: list[str] = []
    per_pos = delta.accepted_per_position
    drafts, drafted, accepted = delta.drafts, delta.draft_tokens, delta.accepted_tokens
    if drafts == 0 and drafted:
        reasons.append(f"DRAFT_TOKENS_WITHOUT_DRAFTS(draft tokens {drafted:g} over 0 drafts)")
    if per_pos and accepted is not None and abs(sum(per_pos) - accepted) > 1e-9:
        reasons.append(f"PER_POSITION_SUM(sum {sum(per_pos):g} != accepted {accepted:g})")
    if per_pos and drafts is not None and drafted is not None and drafted > drafts * len(per_pos):
        reasons.append(f"DRAFT_TOKENS_OVER_K(draft tokens {drafted:g} > drafts x {len(per_pos)})")
    if accepted is not None and drafted is not None and accepted > drafted:
        reasons.append(f"ACCEPTED_OVER_DRAFTED(accepted {accepted:g} > draft tokens {drafted:g})")
    generated = delta.generation_tokens
    k_max = len(per_pos) or (drafted / drafts if drafts and drafted is not None else None)
    if accepted is not None and generated is not None and k_max is not None and accepted > generated * (1 + k_max):
        reasons.append(
            f"ACCEPTED_OVER_GENERATED(accepted {accepted:g} > generation tokens {generated:g} x (1 + k {k_max:g}))"
        )
    rejected = delta.rejected_tokens
    if rejected is not None and drafted is not None and accepted is not None and rejected != drafted - accepted:
        reasons.append(f"SPEC_IDENTITY(rejected {rejected:g} != drafted {drafted:g} - accepted {accepted:g})")
    k = None
    if drafts and drafted is not None and drafted % drafts == 0:
        k = int(drafted // drafts)
    return CounterChecks(k, tuple(reasons))


def _state(before: SpecCounters, after: SpecCounters, delta: SpecCounters) -> tuple[str, str]:
    """(state, statement) of one window; see :class:`specscope.records.SpecWindow`."""
    if delta.reset:
        gone = f" ({', '.join(delta.vanished_engines)} vanished)" if delta.vanished_engines else ""
        return "reset", f"every engine left restarted between the scrapes{gone}: no window to count"
    if "spec" in before.present and "spec" not in after.present:
        return "vanished", "the speculative series were there before the window and gone after it"
    if "spec" not in after.present:
        if after.unread:
            return "unread", (
                "speculative series present but not read (names specscope does not know): no figure; see "
                "UNREAD_SPEC_FIELD"
            )
        if after.spec_gauges:
            return "gauge_only", "the server shows speculative gauges only (a current mean, not a window count)"
        return "not_configured", "no speculative series: speculation is not configured (or not exposed)"
    drafts, drafted, accepted = delta.drafts, delta.draft_tokens, delta.accepted_tokens
    if (drafts == 0 and not drafted) or (drafts is None and drafted == 0):
        return "idle", "speculation is configured and drafted nothing in the window (a counter says 0)"
    if accepted == 0 and (drafts or drafted):
        n = drafts if drafts is not None else drafted
        unit = "drafts" if drafts is not None else "drafted tokens"
        return "accepting_nothing", f"{n:,.0f} {unit} and none accepted"
    return "drafting", "speculation drafted in the window"


def spec_window(before: SpecCounters, after: SpecCounters) -> SpecWindow:
    """Read one window of one server: its deltas (:func:`counters_delta`), the state of speculation, the statement
    and the named warnings (``GAUGE_NOT_WINDOW``, ``UNREAD_SPEC_FIELD``, ``SERIES_VANISHED``, ``ACCEPTING_NOTHING``,
    ``ENGINE_RESET``, ``ENGINE_VANISHED``, and the checks of :func:`counter_checks`)."""
    delta = counters_delta(before, after)
    state, statement = _state(before, after, delta)
    warnings: list[str] = []
    if delta.reset_engines and not delta.reset:
        warnings.append("ENGINE_RESET(" + ", ".join(delta.reset_engines) + ")")
    if delta.vanished_engines:
        warnings.append("ENGINE_VANISHED(" + ", ".join(delta.vanished_engines) + ")")
    if state == "vanished":
        warnings.append("SERIES_VANISHED(" + ", ".join(sorted((before.present - after.present) & _COUNTED)) + ")")
    if after.spec_gauges:
        warnings.append("GAUGE_NOT_WINDOW(" + ", ".join(after.spec_gauges) + ")")
    if after.unread:
        warnings.append("UNREAD_SPEC_FIELD(" + ", ".join(after.unread) + ")")
    if state == "drafting":
        warnings.extend(counter_checks(delta).reasons)
    alarm = "ACCEPTING_NOTHING" if state == "accepting_nothing" else None
    if alarm:
        warnings.append(f"ACCEPTING_NOTHING({statement})")
    kind = after.engine_kind or before.engine_kind
    return SpecWindow(kind, delta, state, statement, alarm, tuple(warnings))
