"""llama.cpp server's speculative log lines, read into the engine-neutral :class:`~specscope.adapters.logs.EngineLog`.

Forms, with their sources (tools/server/server-context.cpp ``server_slot::print_timings``, formerly
examples/server/server.cpp; common/speculative.cpp ``common_speculative_print_stats``):

- one line per finished request, printed when it drafted: ``draft acceptance rate = 0.57576 (  171 accepted /   297
  generated)`` (server speculative decoding, PR #10455, to early 2026; printed after a ``slot print_timing: id  0 |
  task 5 |`` prefix line of its own, or as a continuation), then ``draft acceptance = 0.57576 (  171 accepted /   297
  generated)`` on the slot's own ``slot print_timing: id  N | task T |`` line; the embedded engine's release (xllamacpp
  2026.10, checked against the format strings in its binary) adds ``, mean len =  2.31`` and PR #24536 (2026-06)
  ``, mean acceptance length =  2.92, acceptance rate per position = (0.805, 0.632, 0.483)``; builds that print
  ``mean len`` give the per-position rates at trace level on a line of their own after it, ``acc per pos =
  (0.805, 0.632, 0.483)`` on the same slot's prefix, read into that request. The counts are the
  request's: ``accepted`` draft tokens and ``generated`` (drafted) tokens, so requests pool exactly; the mean length is
  1 + accepted / verify steps (``n_draft_verif_steps``).
- after it, per speculative implementation: ``statistics draft-eagle3: #calls(b,g,a) = 1 87 87, #gen drafts = 87,
  #acc drafts = 70, #gen tokens = 259, #acc tokens = 167, ...`` (older builds ``#calls = 15, ...``): counts of the
  slot's speculative state since it was created, so the request's verify steps are the difference of ``#gen drafts``
  between two of the slot's lines (or the line itself for its first request), taken only when ``#gen tokens`` differs
  by exactly the request's drafted tokens.
- at ``-v`` (debug), once per verify step on the slot's ``slot update_slots: id  N | task T |`` prefix:
  ``accepted 3/4 draft tokens, new n_tokens = 702`` (``new n_past = N`` in older builds; tools/server/server-context.cpp
  ``SLT_DBG``): the step's accepted draft tokens, then its drafted tokens, printed 0 before PR #18211 (2025-12), which
  cleared the draft before printing it. A request's steps give it its exact verify steps when they sum to its request
  line's counts (else ``STEPS_DISAGREE``, steps not taken); steps with no request line after them (a log cut, a
  request still running) are that request's statistic, named (``REQUEST_FROM_STEPS``); a drafted count printed 0
  leaves the drafted tokens absent, named (``DRAFTED_PRINTED_ZERO``): a step cannot accept 11 of 0.

A request without such a line drafted nothing and is absent (never a request with 0). Verify steps come from the
statistics line, else from the printed two-decimal mean length when something was accepted: exact when one count fits
accepted / (length +- 0.005 - 1), else accepted / (length - 1) rounded, an estimate with the range's low end as its
bound (:func:`~specscope.adapters.logs.steps_in_length`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from specscope.adapters.logs import (
    FIXED,
    EngineLog,
    LogField,
    LogForm,
    LogSpecStat,
    OtherOutput,
    count,
    fixed,
    line_unreadable,
    part_unreadable,
    read_as,
    steps_in_length,
)

__all__ = ["FORMS", "LOG_FIELDS", "OTHER_OUTPUTS", "read_log"]

_SERVER = "tools/server/server-context.cpp"
_SPEC = "common/speculative.cpp"
RATE = "draft acceptance rate"
ACCEPTANCE = "draft acceptance"
STATISTICS = "statistics"
STEP = "per-step (debug)"
# command-level tests of the rows marked read (tests/test_engines_doc.py checks each)
_TEST_0 = "tests/launch/test_engine_logs.py::test_llamacpp_requests_pool_by_counts_not_by_printed_rates"
_TEST_1 = "tests/launch/test_engine_logs.py::test_llamacpp_trace_line_of_per_position_rates_is_read"
_TEST_2 = "tests/launch/test_engine_logs.py::test_bench_records_the_pooled_llamacpp_log_with_its_alarm"
_TEST_4 = (
    "tests/launch/test_log_public_threads5.py::"
    "test_per_step_lines_without_a_request_line_are_read_as_the_requests_rounds"
)
_TEST_3 = (
    "tests/launch/test_engine_logs.py::test_llamacpp_request_line_with_statistics_gives_steps_length_and_positions"
)
FORMS: tuple[LogForm, ...] = (
    LogForm(
        "llamacpp",
        RATE,
        "draft acceptance rate = R (A accepted / G generated)",
        _SERVER,
        "PR #10455 (b4200)",
        test=_TEST_0,
    ),
    LogForm(
        "llamacpp",
        ACCEPTANCE,
        "draft acceptance = R (A accepted / G generated), mean len = L",
        _SERVER,
        "2026",
        test=_TEST_1,
    ),
    LogForm(
        "llamacpp",
        STATISTICS,
        "statistics IMPL: ... #gen drafts = N, ... #gen tokens = N",
        _SPEC,
        "2025-12",
        test=_TEST_2,
    ),
    LogForm(
        "llamacpp", STEP, "accepted A/D draft tokens, new n_tokens = N", _SERVER, "PR #18211 (2025-12)", test=_TEST_4
    ),
)
LOG_FIELDS: tuple[LogField, ...] = (
    LogField("accepted", "read", _SERVER, "PR #10455", "the request's accepted draft tokens", test=_TEST_1),
    LogField("generated", "read", _SERVER, "PR #10455", "the request's drafted tokens", test=_TEST_1),
    LogField("draft acceptance rate", "ignored", _SERVER, "PR #10455", "accepted / generated, recomputed exactly"),
    LogField(
        "mean len / mean acceptance length", "read", _SERVER, "2026", "gives steps when nothing else does", test=_TEST_1
    ),
    LogField(
        "acceptance rate per position", "read", _SERVER, "PR #24536", "per verify step, pooled by steps", test=_TEST_3
    ),
    LogField(
        "acc per pos (trace line)", "read", _SERVER, "2026", "the request's per-position rates, as above", test=_TEST_1
    ),
    LogField(
        "#gen drafts", "read", _SPEC, "2025-12", "slot-cumulative; differenced into the request's steps", test=_TEST_2
    ),
    LogField(
        "#gen tokens",
        "read",
        _SPEC,
        "2025-12",
        "slot-cumulative; checks the difference against generated",
        test=_TEST_2,
    ),
    LogField("#acc drafts", "ignored", _SPEC, "2025-12", "drafts with any token accepted: not a token count"),
    LogField("#acc tokens", "ignored", _SPEC, "2025-12", "the same count as the request line's accepted"),
    LogField("#calls / dur(b,g,a)", "ignored", _SPEC, "2025-12", "call counts and timings, not acceptance"),
    LogField(
        "verify steps", "derived", _SPEC, "2025-12", "per-step lines, else Δ#gen drafts, else accepted / (mean len - 1)"
    ),
    LogField(
        "accepted A/D draft tokens", "read", _SERVER, "PR #18211", "one verify step: accepted, drafted", test=_TEST_4
    ),
    LogField("new n_tokens / new n_past", "ignored", _SERVER, "PR #18211", "the slot's context length, not acceptance"),
)

#: llama.cpp's speculative output that is no server log: the summary of its speculative example (examples/speculative
#: ``llama-speculative``: ``n_draft   = N``, ``n_predict = N``, ``n_drafted = N``, ``n_accept  = N``, ``accept    =
#: X%``), printed for one prompt
OTHER_OUTPUTS = (
    OtherOutput(
        "llamacpp",
        "llama.cpp's speculative example summary",
        r"\bn_(?:drafted|accept) += +\d+\s*$",
        "examples/speculative/speculative.cpp",
        "serve the models with llama-server (-md DRAFT or --spec-type ...) and pass its log",
    ),
)

_RE_SLOT = re.compile(r"\bslot +\w+: id +(\d+) \| task (-?\d+)")
_RE_REQUEST = re.compile(
    rf"\bdraft acceptance( rate)? = {FIXED} \( *(\d+) accepted / *(\d+) generated\)"
    rf"(?:, mean (?:len|acceptance length) = *{FIXED})?"
    r"(?:, acceptance rate per position = \(([^)]*)\))?"
)
# the per-position rates captured whole and read as printed (%.3f each, ", " between): a list holding 1e-1 is named
# unreadable, never left absent unnamed
# one verify step at -v: accepted draft tokens / the step's drafted tokens (0 before PR #18211); older builds print the
# slot's n_past where later ones print n_tokens
_RE_STEP = re.compile(r"\baccepted +(\d+)/ *(\d+) draft tokens, new n_(?:tokens|past) = *\d+")
_RE_ACC_PER_POS = re.compile(r"\bacc per pos = \(([^)]*)\)")


def _positions(text: str) -> list[float]:
    """A printed per-position list (``0.805, 0.632, 0.483``), each rate read as llama.cpp prints it (:func:`fixed`).

    Raises:
        ValueError: a rate not printed so.
    """
    return [fixed(x.strip()) for x in text.split(",") if x.strip()]


_RE_STATS = re.compile(
    r"\bstatistics +([\w-]+): .*?#gen drafts = *(\d+), #acc drafts = *(\d+), #gen tokens = *(\d+), #acc tokens = *(\d+)"
)
# llama.cpp's speculative implementation names (common_speculative_type_to_str) -> specscope's method vocabulary
_METHODS = (("eagle3", "eagle3"), ("eagle", "eagle"), ("mtp", "mtp"), ("dflash", "dflash"), ("ngram", "ngram"))


def _method(impl: str) -> str:
    """specscope's method for a llama.cpp implementation name (``draft``: a draft model)."""
    return next((method for key, method in _METHODS if key in impl.lower()), "draft_model")


def _steps_from_length(stat: LogSpecStat) -> None:
    """Give ``stat`` the verify steps its printed two-decimal mean length allows (something accepted; at most one
    step per drafted token): exact when one count fits, else an estimate with its sound lower bound."""
    acc, length, drafted = stat.accepted_tokens, stat.accept_length, stat.draft_tokens
    if acc and length is not None and length > 1.0:
        steps, at_least, exact = steps_in_length(acc, length, 1, drafted)
        stat.verify_steps, stat.verify_steps_at_least, stat.verify_steps_exact = steps, at_least, exact


def _attach_statistics(stat: LogSpecStat | None, counts: tuple[int, int], before: tuple[int, int] | None) -> None:
    """Give ``stat`` (the slot's last request) the verify steps of a statistics line: ``counts`` (#gen drafts,
    #gen tokens) as printed, ``before`` the slot's previous line of the same implementation (None for its first)."""
    if stat is None or stat.verify_steps is not None or stat.draft_tokens is None:
        return
    drafts, tokens = counts
    if before is not None and tokens - before[1] == stat.draft_tokens and drafts >= before[0]:
        stat.verify_steps = drafts - before[0]
    elif tokens == stat.draft_tokens:  # the slot's first request (or a build whose counts are per request)
        stat.verify_steps = drafts


#: one request's per-step lines: (line number, accepted, drafted) each, in log order
_Steps = list[tuple[int, int, int]]


def _where(key: tuple[str | None, str | None], steps: _Steps) -> str:
    """``slot 3 task 0: 5 verify steps at lines 1-5`` for a request's per-step lines."""
    slot, task = key
    who = " ".join(x for x in (slot, f"task {task}" if task is not None else None) if x) or "no slot"
    return f"{who}: {len(steps)} verify steps at lines {steps[0][0]}-{steps[-1][0]}"


def _steps_to_request(stat: LogSpecStat, key: tuple[str | None, str | None], steps: _Steps) -> list[str]:
    """Give ``stat`` (a request line) the exact verify steps of its per-step lines when they sum to its counts (the
    drafted sum only where every step printed it); a named warning when they do not (the steps not taken)."""
    accepted, drafted = sum(a for _, a, _ in steps), sum(d for _, _, d in steps)
    printed = all(d > 0 for _, _, d in steps)
    if accepted == stat.accepted_tokens and (not printed or drafted == stat.draft_tokens):
        stat.verify_steps, stat.verify_steps_exact = len(steps), True
        return []
    return [
        f"STEPS_DISAGREE({_where(key, steps)} sum to {accepted} accepted / {drafted} drafted, its request line at "
        f"line {stat.line_number} says {stat.accepted_tokens} / {stat.draft_tokens}: steps not taken)"
    ]


def _request_from_steps(key: tuple[str | None, str | None], steps: _Steps) -> tuple[LogSpecStat, str]:
    """A request's statistic from its per-step lines alone (no request line followed them), with the warning that
    says so; the drafted tokens absent when a step printed 0 drafted (before PR #18211)."""
    accepted, drafted = sum(a for _, a, _ in steps), sum(d for _, _, d in steps)
    printed = all(d > 0 for _, _, d in steps)
    stat = LogSpecStat(
        engine="llamacpp",
        form=STEP,
        scope="request",
        line_number=steps[0][0],
        rank=key[0],
        draft_tokens=drafted if printed else None,
        accepted_tokens=accepted,
        verify_steps=len(steps),
    )
    if printed:
        return stat, (
            f"REQUEST_FROM_STEPS({_where(key, steps)}, {accepted} accepted / {drafted} drafted; no draft acceptance "
            f"line followed them (a log cut, or a request still running): the request counted from its steps)"
        )
    return stat, (
        f"DRAFTED_PRINTED_ZERO({_where(key, steps)}, {accepted} accepted; drafted printed 0 (llama.cpp before PR "
        f"#18211 cleared the draft before printing it): drafted tokens unknown, no rate)"
    )


def read_log(lines: Sequence[str]) -> EngineLog | None:
    """llama.cpp's per-request draft statistics of ``lines`` (log order), None without any request line."""
    stats: list[LogSpecStat] = []
    forms: list[str] = []
    slot: str | None = None
    task: str | None = None
    steps: dict[tuple[str | None, str | None], _Steps] = {}
    last_by_slot: dict[str | None, LogSpecStat] = {}
    seen_stats: dict[tuple[str | None, str], tuple[int, int]] = {}
    impls: list[str] = []
    # LOG_LINE_UNREADABLE per recognised line whose number cannot be read; what the per-step lines said
    unreadable: list[str] = []
    for index, line in enumerate(lines):
        try:
            if m := _RE_SLOT.search(line):
                slot, task = f"slot {int(m.group(1))}", str(int(m.group(2)))
            if m := _RE_STEP.search(line):
                step = (index + 1, read_as("accepted", count, m.group(1)), read_as("drafted", count, m.group(2)))
                steps.setdefault((slot, task), []).append(step)
                forms += [STEP] if STEP not in forms else []
            elif m := _RE_REQUEST.search(line):
                form = RATE if m.group(1) else ACCEPTANCE
                per_pos = "acceptance rate per position"
                draft_tokens = read_as("generated", count, m.group(4))  # the counts first: an unreadable list
                accepted_tokens = read_as("accepted", count, m.group(3))  # below leaves them read (named)
                accept_rate = read_as("draft acceptance", fixed, m.group(2))
                accept_length = read_as("mean len", fixed, m.group(5)) if m.group(5) else None
                try:
                    positions = read_as(per_pos, _positions, m.group(6)) if m.group(6) else []
                except ValueError as exc:
                    unreadable.append(part_unreadable(index + 1, exc))
                    positions = []
                stat = LogSpecStat(
                    engine="llamacpp",
                    form=form,
                    scope="request",
                    line_number=index + 1,
                    rank=slot,
                    draft_tokens=draft_tokens,
                    accepted_tokens=accepted_tokens,
                    accept_rate=accept_rate,
                    accept_length=accept_length,
                    per_position=positions,
                )
                if mine := steps.pop((slot, task), None):
                    unreadable += _steps_to_request(stat, (slot, task), mine)
                stats.append(stat)
                last_by_slot[slot] = stat
                forms += [form] if form not in forms else []
            elif (m := _RE_ACC_PER_POS.search(line)) and (last := last_by_slot.get(slot)) and not last.per_position:
                last.per_position = read_as("acc per pos", _positions, m.group(1))
            elif m := _RE_STATS.search(line):
                impl, counts = (
                    m.group(1),
                    (read_as("#gen drafts", count, m.group(2)), read_as("#gen tokens", count, m.group(4))),
                )
                impls += [impl] if impl not in impls else []
                _attach_statistics(last_by_slot.get(slot), counts, seen_stats.get((slot, impl)))
                seen_stats[(slot, impl)] = counts
                forms += [STATISTICS] if STATISTICS not in forms else []
        except ValueError as exc:  # a number that cannot be read gives no statistic, named; never a crash
            unreadable.append(line_unreadable(index + 1, exc))
            if not _RE_ACC_PER_POS.search(line):  # a trace line of rates is its request's form, already seen
                seen = (RATE if r.group(1) else ACCEPTANCE) if (r := _RE_REQUEST.search(line)) else STATISTICS
                seen = STEP if _RE_STEP.search(line) else seen
                forms += [seen] if seen not in forms else []
    for key, mine in steps.items():
        stat, said = _request_from_steps(key, mine)
        stats.append(stat)
        unreadable.append(said)
    stats.sort(key=lambda s: s.line_number)
    if not stats and not unreadable:
        return None
    for stat in stats:
        if stat.verify_steps is None:
            _steps_from_length(stat)
    methods = {_method(impl) for impl in impls}
    method = methods.pop() if len(methods) == 1 else None
    return EngineLog(engine="llamacpp", forms=forms, method=method, configured_k=None, stats=stats, warnings=unreadable)
