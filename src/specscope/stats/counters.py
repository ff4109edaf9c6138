"""Counter deltas between two ``/metrics`` snapshots of one server, per engine, with restarts detected.

Pure arithmetic over :class:`specscope.records.SpecCounters`; the scraping and parsing live in
``specscope.client.metrics``.

Rules (issue 14, "Counters"; per series since the federated-scrape defect):

- Deltas are taken per *series set* before summing, as Prometheus does: ``increase()`` / ``rate()`` work on each
  series (each unique label set) of a range vector, and a decrease of a series is a reset whose increase is then the
  value after it (``promql/functions.go``, ``extrapolatedRate``: "Handle counter resets", at
  ``prometheus/prometheus`` e6540751); its documentation says to take ``rate()`` first and aggregate after, or resets
  are lost. A series set (``specscope.client.metrics``) is one full label set minus the labels that are the metric's
  own dimension (``position``, ``le``, ``quantile``): one vLLM data-parallel engine (``engine``), one replica of a
  federation or router (``instance`` / ``job`` / ``pod`` / ``model_name`` / ``dp_rank`` ... beside ``engine="0"``).
  So a restart of one series set is seen even when the sum still rises. Series sets are matched between the scrapes
  by name (a function of their own labels: label order does not matter); on the delta a set is named by the labels
  that tell the sets of both scrapes apart (``{instance="b:8000"}``; ``"5"`` when ``engine`` alone does). One set
  only before and one only after that differ by nothing but ``instance`` / ``job`` (the target labels Prometheus
  attaches at scrape: one file saved from Prometheus, the other from the server) are the same series, paired one to
  one.
- A series set restarted between the scrapes when one of its counters went down or its ``*_created`` time
  moved (compared only while the same counter families are there: a family that vanished takes its ``_created``
  with it). Its window is left out (listed in ``reset_engines``, ``ENGINE_RESET(name)``) rather than counted from its
  value after (Prometheus' increase would add it): the count before the restart and inside the window is lost, so
  the cell's figure is the sum over the series sets that did not restart. ``reset`` is set only when no series set is
  left to count and some restarted.
- A series set whose series are all gone after the window vanished (``vanished_engines``, ``ENGINE_VANISHED``): left
  out too, but nothing says it restarted; a family gone from a set that still reports others (the speculative series
  gone, generation still rising) is a vanished series, not a restart.
- A series set absent before and present after is new. It counts from 0 when its ``*_created`` is later than every
  ``*_created`` of the before scrape (the only clock a scrape's text holds: the before scrape was taken after each of
  them); else (no ``*_created``, or one no later) its start is unknown: it may have existed, uncounted, at the before
  scrape (a federation that missed it, a router that added a running backend), so it is left out and named
  (``unknown_start_engines``, ``ENGINE_UNKNOWN_START``), as a vanished one is. A window with no series set left that
  spans both scrapes is ``no_window``.
- Within a series set, a family absent before and present after starts from 0 (llama.cpp creates its speculative and
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
from typing import Any

from specscope.records import SpecCounters, SpecWindow, series_labels, series_selector

__all__ = [
    "INCONSISTENCIES",
    "CounterChecks",
    "count_violations",
    "counter_checks",
    "counters_delta",
    "series_reasons",
    "SERVER_SET",
    "named_by_model",
    "short_series_names",
    "spec_window",
    "sum_counters",
    "window_counts",
]

#: the codes of :func:`counter_checks`: counters that contradict each other (a window with one is not a measurement);
#: ``PER_POSITION_RATE`` is said of a server log's printed per-position rates (:func:`count_violations`).
INCONSISTENCIES = frozenset(
    {
        "PER_POSITION_SUM",
        "DRAFT_TOKENS_OVER_K",
        "DRAFT_TOKENS_WITHOUT_DRAFTS",
        "SPEC_IDENTITY",
        "ACCEPTED_OVER_DRAFTED",
        "ACCEPTED_OVER_GENERATED",
        "PER_POSITION_RATE",
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
    # a series created again between the scrapes counts from 0 since then: its increase is ``after``, even when after
    # is above before (the old counts are gone, not part of it)
    since = SpecCounters() if reset else before
    vals: dict[str, float | None] = {}
    for name in _COUNTS:
        vals[name], r = _diff(getattr(since, name), getattr(after, name))
        reset |= r
    per_pos: list[float] = []
    if "per_pos" in after.present or after.accepted_per_position:  # gone after: no per-position delta, no fall to 0
        n = max(len(since.accepted_per_position), len(after.accepted_per_position))
        b = since.accepted_per_position + (0.0,) * (n - len(since.accepted_per_position))  # (n,)
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
        caveats=after.caveats,
    )


def _add_opt(x: float | None, y: float | None) -> float | None:
    return y if x is None else x if y is None else x + y


def sum_counters(parts: Sequence[SpecCounters]) -> SpecCounters:
    """The sum of several engines' deltas or snapshots (per position padded with 0; the ``running`` / ``waiting``
    gauges summed, as replicas at one moment); ``present`` is the union; None stays None (silence is never 0).

    Per position is summed only when every part that drafted has per-position counts: one part without them (a
    replica of an older release, a set whose series are missing) beside one with them leaves the sum without per
    position, never one part's counts over every part's drafts (which reads as a per-position rate too low).
    """
    out = SpecCounters()
    drafted_without_pos = any(p.drafts and not p.accepted_per_position for p in parts)
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
            caveats=tuple(sorted(set(out.caveats) | set(p.caveats))),
        )
    if drafted_without_pos and out.accepted_per_position:
        out = dataclasses.replace(out, accepted_per_position=())
    return out


def _series(snap: SpecCounters) -> dict[str, SpecCounters]:
    """A snapshot's series sets by name; one without named sets is one set named ``""`` (none when it is empty)."""
    if snap.engines:
        return snap.engines
    return {"": snap} if snap.present or snap.spec_gauges or snap.unread else {}


#: the name of a scrape's one series set beside the named sets of the other scrape (BEFORE unlabelled, AFTER per
#: engine): the server's series as a whole, as the text of a delta without named sets calls it
SERVER_SET = "server"
_ENGINE_LABELS = frozenset({"engine", "model_name"})  # vLLM's own labels: such a set is named by its engine
_TARGET_LABELS = frozenset({"instance", "job"})  # what Prometheus attaches to every series it scrapes from a target


def short_series_names(names: set[str]) -> dict[str, str]:
    """Each series set's name in a delta: the labels of its selector name that tell the sets of both scrapes apart
    (a label with one value on every set, ``job`` or ``model_name`` of one target, is dropped); a set told apart by
    ``engine`` alone, or the one set of a server that labels ``engine`` and ``model_name`` alone, is named by its
    engine (``"5"``). A replica's set (``REPLICA/{selector}``, :func:`specscope.bench.counters_source.combine_replicas`)
    is named so among its replica's sets (``h:1/0``, as one server's ``0``). Other names (an engine index, a replica)
    are kept. The one set of a scrape without named sets (``""``) is :data:`SERVER_SET`, never an empty name."""
    replicas: dict[str, set[str]] = {}
    for n in names:
        cut = n.find("/{")
        if cut > 0 and series_labels(n[cut + 1 :]) is not None:
            replicas.setdefault(n[:cut], set()).add(n[cut + 1 :])
    if replicas:
        named = {n: n for n in names}
        for replica, selectors in replicas.items():
            named |= {f"{replica}/{sel}": f"{replica}/{s}" for sel, s in short_series_names(selectors).items()}
        return named if len(set(named.values())) == len(named) else {n: n for n in names}
    labels = {n: ls for n in names if (ls := series_labels(n)) is not None}
    keys = {k for ls in labels.values() for k in ls}
    # a target label (instance, job) one set lacks is no difference: that set's scrape was the server's own
    same = {
        k for k in keys if len({ls.get(k) for ls in labels.values()} - ({None} if k in _TARGET_LABELS else set())) == 1
    }
    out = {n: n or SERVER_SET for n in names}
    for n, ls in labels.items():
        rest = sorted((k, v) for k, v in ls.items() if k not in same)
        if not rest and "engine" in ls and set(ls) <= _ENGINE_LABELS:
            rest = [("engine", ls["engine"])]
        out[n] = rest[0][1] if [k for k, _ in rest] == ["engine"] else series_selector(rest) if rest else n
    return out if len(set(out.values())) == len(out) else {n: n for n in names}


def _target_free(name: str) -> tuple[tuple[str, str], ...] | None:
    """A series set's labels when it has none of Prometheus' target labels, else those labels less the target ones,
    tagged; an engine-named set (its ``model_name`` unseen) and a set told apart by ``engine`` among vLLM's own labels
    are ``(("engine", e),)``; None for the unnamed set."""
    labels = series_labels(name)
    if labels is None:
        return (("engine", name),) if name else None
    rest = {k: v for k, v in labels.items() if k not in _TARGET_LABELS}
    if "engine" in rest and set(rest) <= {"engine", "model_name"}:
        return (("engine", rest["engine"]),)
    return tuple(sorted(rest.items()))


def _same_target(before: dict[str, SpecCounters], after: dict[str, SpecCounters]) -> dict[str, SpecCounters]:
    """``before`` with a set that is only there renamed to the after scrape's name of the same series, when the two
    differ only in that one of them carries the target labels (``instance``, ``job``) Prometheus attaches at scrape:
    one scrape saved from Prometheus, the other from the server itself; or in that one is named by its engine index
    alone (a snapshot keyed so before series sets were keyed by their selector). Paired one to one only; anything
    ambiguous, or two sets that both carry target labels, stays apart."""

    def targeted(name: str) -> bool | None:
        labels = series_labels(name)
        return None if labels is None else bool(set(labels) & _TARGET_LABELS)

    only_b = [n for n in before if n not in after]
    only_a = [n for n in after if n not in before]
    keys_b = [_target_free(n) for n in only_b]
    keys_a = [_target_free(n) for n in only_a]
    out = dict(before)
    for name, key in zip(only_b, keys_b, strict=True):
        if key is None or keys_b.count(key) != 1 or keys_a.count(key) != 1:
            continue
        other = only_a[keys_a.index(key)]
        if targeted(name) != targeted(other):
            out[other] = out.pop(name)
    return out


def _started_in_window(new: SpecCounters, before: SpecCounters) -> bool:
    """A series set absent before counts from 0 only when its ``*_created`` is later than every one of the before
    scrape (which was taken after each of them)."""
    return new.created is not None and before.created is not None and new.created > before.created


def named_by_model(snap: SpecCounters, models: frozenset[str], others: frozenset[str]) -> SpecCounters:
    """``snap`` with its one unnamed series set named by its model (``{model_name="m"}``) when its scrape names one
    model and the other scrape names models, none of them this one: another model's counters are no continuation of
    this one's, so a count lower after is no restart and no swap: this model's set vanished, the other's is new
    (:func:`counters_delta`). Any other snapshot as it is."""
    if snap.engines or len(models) != 1 or not others or models & others:
        return snap
    return dataclasses.replace(snap, engines={series_selector([("model_name", next(iter(models)))]): snap})


def counters_delta(before: SpecCounters, after: SpecCounters) -> SpecCounters:
    """The counters' increase between two snapshots of the same server (rules in the module doc).

    Without named series sets, one set: a counter that went down (or a ``*_created`` that moved) means the server
    restarted: ``reset=True`` and, for that counter, the value after the restart (Prometheus' ``increase()``
    convention), which is NOT the cell's true count; callers must mark such a cell. With named sets (``engines``),
    each set's delta is in ``engines`` with its own ``reset``; the restarted ones are listed in ``reset_engines`` and
    the top-level figures sum the others (``reset`` only when no set is left and some restarted). A set absent after
    vanished (``vanished_engines``), one absent before is counted from 0 or, its start unknown, left out
    (``unknown_start_engines``). Gauges (``running``, ``waiting``) are ``None`` on a delta.

    Args:
        before: snapshot taken before the cell.
        after: snapshot taken after the cell.

    Returns:
        A :class:`SpecCounters` delta (counts in tokens, ``drafts`` in verify steps).
    """
    if not before.engines and not after.engines:
        return _delta_one(before, after)
    sets_after = _series(after)
    sets_before = _same_target(_series(before), sets_after)
    per: dict[str, SpecCounters] = {}
    left_out: dict[str, list[str]] = {"vanished": [], "unknown": []}
    for e in sorted(set(sets_before) | set(sets_after)):
        b, a = sets_before.get(e), sets_after.get(e)
        if a is None or (b is None and not _started_in_window(a, before)):
            left_out["vanished" if a is None else "unknown"].append(e)
            per[e] = SpecCounters()
        else:
            per[e] = _delta_one(b or SpecCounters(), a)
    out = {e for names in left_out.values() for e in names}
    valid = [d for e, d in per.items() if not d.reset and e not in out]
    restarted = tuple(e for e, d in per.items() if d.reset)
    if valid:
        total = sum_counters(valid)
    elif restarted:
        total = _delta_one(before, after)
    else:
        total = SpecCounters()
    short = short_series_names(set(per))
    return dataclasses.replace(
        total,
        engines={short[e]: d for e, d in per.items()},
        reset_engines=tuple(short[e] for e in restarted),
        vanished_engines=tuple(short[e] for e in left_out["vanished"]),
        unknown_start_engines=tuple(short[e] for e in left_out["unknown"]),
        reset=not valid and bool(restarted),
    )


def window_counts(delta: SpecCounters) -> SpecCounters:
    """A cell's delta with only counts of its window: a series set that restarted between the scrapes holds its values
    since the restart (:func:`counters_delta`'s ``increase()`` convention, e.g. 0.0 for a scrape of zeros: issue 37),
    which no window of the cell holds, so its counts are absent (``None``, per position empty): the restarted sets'
    rows where some restarted (``ENGINE_RESET``), and the top level's too where every set did (``COUNTER_RESET``); the
    flags and the reasons stay. Any other delta as it is."""
    if not delta.reset and not any(d.reset for d in delta.engines.values()):
        return delta
    absent: dict[str, Any] = {name: None for name in _COUNTS}
    engines = {
        e: dataclasses.replace(d, **absent, accepted_per_position=()) if d.reset else d
        for e, d in delta.engines.items()
    }
    if not delta.reset:
        return dataclasses.replace(delta, engines=engines)
    return dataclasses.replace(delta, **absent, accepted_per_position=(), engines=engines)


def series_reasons(delta: SpecCounters) -> list[str]:
    """The named reasons of a delta's series sets: ``COUNTER_RESET`` (no set left, some restarted), else
    ``ENGINE_RESET(names)`` (restarted, left out), then ``ENGINE_VANISHED(names)`` and ``ENGINE_UNKNOWN_START(names)``
    (left out, not restarts)."""
    reasons = []
    if delta.reset:
        reasons.append("COUNTER_RESET")
    elif delta.reset_engines:
        reasons.append("ENGINE_RESET(" + ", ".join(delta.reset_engines) + ")")
    if delta.vanished_engines:
        reasons.append("ENGINE_VANISHED(" + ", ".join(delta.vanished_engines) + ")")
    if delta.unknown_start_engines:
        reasons.append("ENGINE_UNKNOWN_START(" + ", ".join(delta.unknown_start_engines) + ")")
    return reasons


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

    A delta of several series sets (data-parallel engines, models, replicas behind a federation) is checked set by
    set, each reason naming its set (``PER_POSITION_SUM({engine="0",...}: ...)``): two models with different k, or
    a set without per-position counters beside one with them, are consistent each on its own, and their sum is no
    single engine's count. Sets left out of the delta (restarted, vanished, unknown start) are not checked.

    Args:
        delta: from :func:`counters_delta` (counts in tokens, ``drafts`` in verify steps).
    """
    left_out = set(delta.reset_engines) | set(delta.vanished_engines) | set(delta.unknown_start_engines)
    sets = {name: d for name, d in delta.engines.items() if name not in left_out}
    k = _whole_k(delta)
    if len(sets) < 2:
        return CounterChecks(k, tuple(count_violations(delta)))
    return CounterChecks(k, tuple(r for name, d in sets.items() for r in count_violations(d, name)))


def _whole_k(delta: SpecCounters) -> int | None:
    """Draft tokens per draft when it is a whole number, else None."""
    drafts, drafted = delta.drafts, delta.draft_tokens
    if drafts and drafted is not None and drafted % drafts == 0:
        return int(drafted // drafts)
    return None


def count_violations(delta: SpecCounters, name: str | None = None, rates: Sequence[float | None] = ()) -> list[str]:
    """The rules of :func:`counter_checks` on one series set (or a delta without sets), each reason naming ``name``
    when given (``ACCEPTED_OVER_DRAFTED(line 4: ...)``); a server log's statistics go through the same rules
    (:mod:`specscope.launch.logpool`). ``rates``: per-position acceptance rates as a log prints them (accepted at
    position i / verify steps), None where it printed no number (``nan``): a rate that is no number or outside
    [0, 1] is ``PER_POSITION_RATE`` (no position accepts more than once per step, none less than never); a log prints
    rates, not counts, so they are not summed against the accepted count."""
    reasons = _violations(delta) + _rate_violations(rates)
    if name is None:
        return reasons
    return [f"{code}({name}: {detail}" for code, _, detail in (r.partition("(") for r in reasons)]


def _rate_violations(rates: Sequence[float | None]) -> list[str]:
    """``PER_POSITION_RATE`` naming each position (1-based) whose rate is no number or outside [0, 1]."""
    bad = [
        f"position {i} rate {'nan' if r is None or r != r else f'{r:g} > 1' if r > 1 else f'{r:g} < 0'}"
        for i, r in enumerate(rates, start=1)
        if r is None or r != r or not 0.0 <= r <= 1.0
    ]
    return [f"PER_POSITION_RATE({'; '.join(bad)})"] if bad else []


def _violations(delta: SpecCounters) -> list[str]:
    """The count rules of :func:`counter_checks` on one series set (or a delta without sets)."""
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
    return reasons


def _state(before: SpecCounters, after: SpecCounters, delta: SpecCounters) -> tuple[str, str]:
    """(state, statement) of one window; see :class:`specscope.records.SpecWindow`."""
    if delta.reset:
        gone = f" ({', '.join(delta.vanished_engines)} vanished)" if delta.vanished_engines else ""
        return "reset", f"every engine left restarted between the scrapes{gone}: no window to count"
    if "spec" in after.present and "spec" not in delta.present and delta.unknown_start_engines:
        return "no_window", (
            "no series set spans both scrapes (each vanished or started at an unknown point): no window to count"
        )
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
    ``ENGINE_RESET``, ``ENGINE_VANISHED``, ``ENGINE_UNKNOWN_START``, and the checks of :func:`counter_checks`)."""
    delta = counters_delta(before, after)
    state, statement = _state(before, after, delta)
    warnings = [r for r in series_reasons(delta) if r != "COUNTER_RESET"]
    if state == "vanished":
        warnings.append("SERIES_VANISHED(" + ", ".join(sorted((before.present - after.present) & _COUNTED)) + ")")
    if after.spec_gauges:
        warnings.append("GAUGE_NOT_WINDOW(" + ", ".join(after.spec_gauges) + ")")
    if after.unread:
        warnings.append("UNREAD_SPEC_FIELD(" + ", ".join(after.unread) + ")")
    if state == "drafting":
        warnings.extend(after.caveats)
        warnings.extend(counter_checks(delta).reasons)
    alarm = "ACCEPTING_NOTHING" if state == "accepting_nothing" else None
    if alarm:
        warnings.append(f"ACCEPTING_NOTHING({statement})")
    kind = after.engine_kind or before.engine_kind
    return SpecWindow(kind, delta, state, statement, alarm, tuple(warnings))
