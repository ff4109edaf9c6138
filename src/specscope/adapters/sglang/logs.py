"""SGLang's speculative log lines (issue 26), read into the engine-neutral :class:`~specscope.adapters.logs.EngineLog`.

With ``--log-requests`` SGLang also prints one ``Finish: obj=..., out={... 'meta_info': {...}}`` line per finished
request (or its JSON form): read by :mod:`specscope.adapters.sglang.finish` as request statistics with exact counts,
which are the figure where they are in the log (:func:`read_log`). The decode-batch windows:

Wordings, with their sources (SGLang ``scheduler_metrics_mixin.py`` ``log_decode_stats``, public copies at index ids
135019089, 327244334 and 61864081288; ``server_args.py``'s ``ServerArgs`` repr):

- ``[2025-10-10 12:00:01 TP0] Decode batch. #running-req: 4, #token: 2048, token usage: 0.01, accept len: 2.85,
  cuda graph: True, gen throughput (token/s): 312.45, #queue-req: 0`` (older builds; ``Decode batch,`` in newer ones,
  a ``DPn`` rank before ``TPn`` under data-parallel attention, each rank logging its own line; pasted excerpts keep
  the ranks without the time stamp, ``[DP0 TP0] Decode batch, ...``, sglang PR #16974). Newer builds add
  ``accept rate: 0.62`` after the length. Only a line with ``accept len`` is a window (no speculation: no field).
- ``accept len`` = accepted tokens / verify steps of the window (the bonus token included: SGLang's
  ``spec_num_accept_tokens / spec_num_forward_ct``); ``accept rate`` = (accepted - verify steps) / (verify steps x
  (``speculative_num_draft_tokens`` - 1)). Both are printed with two decimals and the window's counts are reset after
  each line, which prints **no count**: windows cannot be pooled (an unweighted mean of window means is the mistake
  vllm issue #42508 traces to SpecForge), so no pooled figure is given, only each window and their range.
- The line divides by the window's verify steps without a guard, so every printed window had at least one: the log
  bounds the pooled rate from above (every window's printed rate + 0.005, or (length + 0.005 - 1) / k without a rate)
  over at least as many verify steps as windows. The one low-acceptance rule (:mod:`specscope.stats.low_acceptance`)
  is applied to those bounds, so its alarm is sound (never raised on a head that accepts enough).
- ``accept rate`` counted the bonus token until PR #23530 (merged 2026-04-23): (accepted drafts + verify steps) /
  (verify steps x (``speculative_num_steps`` + 1)), from PR #13212 (2025-11) x ``speculative_num_draft_tokens``; a head
  accepting nothing printed ``accept len: 1.00, accept rate: 0.25`` at 4 draft tokens. ``accept len`` means the same in
  every build (accepted drafts per verify step = length - 1), so each window's rate of drafted tokens is bounded by
  the smaller of its printed rate + 0.005 and (length + 0.005 - 1) / k (k >= 1 when the log does not say it), and a
  printed rate above what the length allows is named as one that counts the bonus token (:func:`rate_counts_bonus`).
- ``server_args=ServerArgs(... speculative_algorithm='EAGLE', ... speculative_num_steps=3, speculative_eagle_topk=1,
  speculative_num_draft_tokens=4 ...)``: the method (``NEXTN`` is SGLang's MTP, ``STANDALONE`` a draft model) and
  k = num_draft_tokens - 1 (SGLang's own drafted tokens per verify step; wrong under ``speculative_adaptive``, which
  varies it: then no k is taken).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict

from specscope.adapters.declare import Detail
from specscope.adapters.logs import (
    FIXED,
    MAX_COUNT,
    EngineLog,
    LineFact,
    LogField,
    LogForm,
    LogSpecStat,
    StatsSample,
    count,
    fixed,
    line_facts,
    line_unreadable,
    read_as,
    unreadable_line_number,
)
from specscope.adapters.sglang.finish import FINISH, FINISH_JSON, finish_stats
from specscope.adapters.sglang.log_unread import unread_decode_fields

__all__ = [
    "PRINTED_HALF",
    "LOG_DETAILS",
    "BONUS_RATE",
    "BONUS_RATE_UNTIL",
    "FORMS",
    "LOG_FIELDS",
    "METHODS",
    "SglangSpecWindow",
    "capacity_samples",
    "decode_windows",
    "dp_ranks",
    "rate_bound",
    "rate_counts_bonus",
    "rate_reading",
    "read_log",
    "sglang_log_facts",
]

_MIXIN = "python/sglang/srt/managers/scheduler_metrics_mixin.py"
_ARGS_SRC = "python/sglang/srt/server_args.py"
_TOKENIZER = "python/sglang/srt/managers/tokenizer_manager.py"
_REQUEST_LOGGER = "python/sglang/srt/utils/request_logger.py"
DECODE = "Decode batch accept len"
CAPACITY = "Decode batch capacity"
# command-level tests of the rows marked read (tests/test_engines_doc.py checks each)
_TEST_0 = "tests/launch/test_engine_logs.py::test_sglang_windows_print_no_counts_so_the_pool_is_a_bound"
_TEST_1 = "tests/launch/test_sglang_finish_log.py::test_bench_says_the_finish_lines_exact_counts"
_TEST_2 = "tests/launch/test_sglang_finish_log.py::test_the_json_request_log_is_read_with_its_histogram"
_TEST_3 = "tests/launch/test_engine_logs.py::test_bench_says_the_sglang_windows_bound_and_its_alarm_as_serve_does"
_TEST_4 = "tests/launch/test_sglang_log_imp61.py::test_unknown_decode_batch_fields_are_named_once"
FORMS: tuple[LogForm, ...] = (
    LogForm(
        "sglang",
        DECODE,
        "Decode batch. #running-req: N, ..., accept len: L[, accept rate: R]",
        _MIXIN,
        "0.4.0",
        test=_TEST_0,
    ),
    LogForm(
        "sglang",
        CAPACITY,
        "Decode batch, #running-req: N, ..., token usage: U, ..., #queue-req: Q",
        _MIXIN,
        "0.4",
        test=_TEST_0,
    ),
    LogForm(
        "sglang",
        FINISH,
        "Finish: obj=GenerateReqInput(...), out={... 'meta_info': {... 'spec_verify_ct': V, ...}}",
        f"{_TOKENIZER}; later {_REQUEST_LOGGER}",
        "--log-requests; spec_verify_ct from PR #3152",
        test=_TEST_1,
    ),
    LogForm(
        "sglang",
        FINISH_JSON,
        '{"timestamp": ..., "event": "request.finished", "rid": ..., "obj": {...}, "out": {"meta_info": {...}}}',
        f"{_REQUEST_LOGGER} (log_utils.log_json)",
        "--log-requests-format json",
        test=_TEST_2,
    ),
)
LOG_FIELDS: tuple[LogField, ...] = (
    LogField("accept len", "read", _MIXIN, "0.4.0", "per window, two decimals; no counts printed", test=_TEST_0),
    LogField(
        "accept rate",
        "read",
        _MIXIN,
        "0.5.0",
        "per window; counted the bonus token before PR #23530: told by the figures, else the log's date, else named",
        test=_TEST_0,
    ),
    LogField("#running-req", "read", _MIXIN, "0.4.0", "the window's running requests", test=_TEST_0),
    LogField("accepted / drafted tokens", "ignored", _MIXIN, "0.4.0", "not printed: reset after each line"),
    LogField("pooled rate upper bound", "derived", _MIXIN, "0.4.0", "max over windows of rate or length bound"),
    LogField("speculative_algorithm", "read", _ARGS_SRC, "0.4.0", "the method (NEXTN is MTP)", test=_TEST_3),
    LogField("speculative_num_draft_tokens", "read", _ARGS_SRC, "0.4.0", "k = num_draft_tokens - 1", test=_TEST_3),
    LogField(
        "#running-req / #queue-req", "read", _MIXIN, "0.4.0", "capacity: running and waiting requests", test=_TEST_0
    ),
    LogField(
        "token usage", "read", _MIXIN, "0.4.0", "capacity: KV pool share in use, x 100 as a percent", test=_TEST_0
    ),
    LogField("gen throughput (token/s)", "read", _MIXIN, "0.4.0", "capacity: tokens/s as logged", test=_TEST_0),
    LogField("#token / cuda graph", "ignored", _MIXIN, "0.4.0", "not a capacity or speculative figure"),
    LogField("mamba usage / swa token usage", "ignored", _MIXIN, "PR #30047", "UNREAD_POOL_USAGE: named, not read"),
    LogField(
        "decode-batch fields log_decode_stats does not print",
        "ignored",
        _MIXIN,
        "any (forks, later builds)",
        "UNREAD_LOG_FIELD: named once over the log (sglang/log_unread.py)",
        test=_TEST_4,
    ),
    LogField(
        "Finish meta_info spec fields",
        "read",
        _TOKENIZER,
        "PR #3152",
        "per request, exact: per-response reader",
        test=_TEST_1,
    ),
    LogField(
        "Finish meta_info.completion_tokens",
        "read",
        _TOKENIZER,
        "PR #3152",
        "length = completion / verify ct",
        test=_TEST_1,
    ),
    LogField("Finish accepted (no count printed)", "derived", _TOKENIZER, "PR #3152", "completion - spec_verify_ct"),
    LogField("Finish drafted (no count printed)", "derived", _TOKENIZER, "PR #3152", "spec_verify_ct x k"),
    LogField("Finish obj / text / output_ids", "ignored", _REQUEST_LOGGER, "PR #3152", "the request, not a count"),
)
_RE_DECODE = re.compile(r"Decode batch\b")
# each figure captured whole (FIXED) and read as SGLang prints it, fixed-point ({:.2f}): 2.5e3 is no prefix 2.5
_RE_LEN = re.compile(rf"\baccept len: {FIXED}")
_RE_RATE = re.compile(rf"\baccept rate: {FIXED}")
_WINDOW_FIGURES: tuple[LineFact, ...] = ((_RE_LEN, (("accept_length", fixed),)), (_RE_RATE, (("accept_rate", fixed),)))
_RE_RUNNING = re.compile(r"#running-req: (\d+)")
_RE_RANK = re.compile(
    r"\[(?:\d{4}-\d\d-\d\d [\d:.]+ ([A-Z][A-Z_]*\d+(?: [A-Z][A-Z_]*\d+)*)|((?:DP|TP|PP|EP)\d+(?: [A-Z][A-Z_]*\d+)*))\]"
)
_RE_QUEUE = re.compile(r"#queue-req: (\d+)")
_RE_USAGE = re.compile(rf"\btoken usage: {FIXED}")
_RE_GEN = re.compile(rf"gen throughput \(token/s\): {FIXED}")
# a hybrid model's other pools on the decode-batch line (sglang PR #30047: "full token usage: 0.74, mamba num: 160,
# mamba usage: 0.80"): "token usage" reads the full-attention pool; these shares are named, never dropped
_RE_OTHER_POOL = re.compile(rf"\b((?:mamba|swa token) usage): {FIXED}")
_RE_STAMP = re.compile(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")
_RE_SERVER_ARGS = re.compile(r"server_args=ServerArgs\(")
_ARGS = {
    "algorithm": re.compile(r"\bspeculative_algorithm=(?:'(\w+)'|None)"),
    "num_draft_tokens": re.compile(r"\bspeculative_num_draft_tokens=(\d+)"),
    "num_steps": re.compile(r"\bspeculative_num_steps=(\d+)"),
    "eagle_topk": re.compile(r"\bspeculative_eagle_topk=(\d+)"),
    "adaptive": re.compile(r"\bspeculative_adaptive=(True|False)"),
}
# SGLang's algorithm names -> specscope's method vocabulary (stats/low_acceptance.py's heads)
METHODS = {"EAGLE": "eagle", "EAGLE3": "eagle3", "NEXTN": "mtp", "STANDALONE": "draft_model", "NGRAM": "ngram"}


#: half the last printed digit of a "%.2f" figure: what a printed rate or length may have been rounded by
PRINTED_HALF = _HALF = 0.005
#: how a printed rate that counts the bonus token is named
BONUS_RATE = "counts the bonus token, as SGLang's accept rate did before PR #23530"
#: the day PR #23530 was merged: a line dated before it comes from a build whose rate counts the bonus token
BONUS_RATE_UNTIL = "2026-04-23"


def rate_reading(windows: Sequence[SglangSpecWindow], k: int | None) -> tuple[bool, str | None]:
    """(whether the printed rates count the bonus token, the words that say how that is known or that it is not).

    The figures decide where they can (:func:`rate_counts_bonus`): a rate above its length's bound counts it; with
    k a rate within the bound is read as printed (nothing said). Without k the figures bound nothing, so the log's
    date does: lines dated before :data:`BONUS_RATE_UNTIL` count it; a later log is named as ambiguous (an older
    build may run after the merge). ``(False, None)`` without a printed rate."""
    if not any(w.accept_rate is not None for w in windows):
        return False, None
    if any(rate_counts_bonus(w, k) for w in windows):
        return True, BONUS_RATE
    if k is not None:
        return False, None
    dates = sorted(w.date for w in windows if w.date)
    if dates and dates[-1] < BONUS_RATE_UNTIL:
        return True, (
            f"counts the bonus token: the log's lines are dated {dates[-1]}, before SGLang PR #23530 (merged "
            f"{BONUS_RATE_UNTIL}) made it accepted drafts / drafted"
        )
    return False, (
        f"may count the bonus token, as SGLang's did before PR #23530 (merged {BONUS_RATE_UNTIL}): the log names no k "
        "(server_args) to tell by its figures and is " + ("dated after it" if dates else "not dated")
    )


class SglangSpecWindow(BaseModel):
    """One SGLang decode-batch line with speculation: ``accept_length`` (tokens per verify step, bonus included) and
    ``accept_rate`` (fraction of drafted tokens; None before the builds that print it) as printed (two decimals);
    ``rank`` the log prefix's ranks (``TP0``, ``DP1 TP0``), None without the prefix; ``date`` the line's time stamp
    date (``YYYY-MM-DD``), None without one."""

    model_config = ConfigDict(extra="forbid")

    line_number: int
    rank: str | None = None
    running_reqs: int | None = None
    accept_length: float
    accept_rate: float | None = None
    date: str | None = None


def _length_bound(w: SglangSpecWindow, k: int | None) -> float:
    """The largest rate of drafted tokens the window's printed length allows: (length + 0.005 - 1) / k, k >= 1, and
    never above 1 (no more drafted tokens are accepted than were drafted: without k a length of 2.90 allows any rate,
    not one of 190.5 %)."""
    return min(1.0, max(0.0, w.accept_length + _HALF - 1.0) / (k or 1))


def method_and_k(spec: dict[str, Any] | None) -> tuple[str | None, int | None]:
    """The speculative method (:data:`METHODS`) and k of a ``server_args`` line's facts: k = ``num_draft_tokens`` - 1
    (SGLang counts the verified root among its draft tokens), None for an adaptive length or when not stated."""
    spec = spec or {}
    algorithm = spec.get("algorithm")
    method = METHODS.get(str(algorithm).upper(), str(algorithm).lower()) if algorithm else None
    n_draft = spec.get("num_draft_tokens")
    readable = isinstance(n_draft, int) and 1 < n_draft <= MAX_COUNT  # 400 digits: unreadable, never a k
    k = n_draft - 1 if isinstance(n_draft, int) and readable and not spec.get("adaptive") else None
    return method, k


def rate_bound(w: SglangSpecWindow, k: int | None) -> float:
    """The largest pooled-rate contribution the window allows (module doc): the smaller of its printed rate + 0.005
    and its length's bound, so a rate that counts the bonus token never loosens it."""
    by_length = _length_bound(w, k)
    return by_length if w.accept_rate is None else min(w.accept_rate + _HALF, by_length)


def rate_counts_bonus(w: SglangSpecWindow, k: int | None) -> bool:
    """Whether the window's printed rate is above any rate of drafted tokens its printed length allows: SGLang's rate
    that counts the bonus token (before PR #23530). Without k only a rate above length - 1 is sure to be one."""
    return w.accept_rate is not None and w.accept_rate - _HALF > _length_bound(w, k) + 1e-9


def dp_ranks(windows: Sequence[SglangSpecWindow]) -> list[str]:
    """The data-parallel ranks (``DP0 TP0``, ``DP1 TP1``) whose windows are in ``windows``, sorted; empty unless two
    or more. Under data-parallel attention each DP rank runs its own scheduler with its own draft worker and logs its
    own windows (sglang PRs #6081, #16974), so each is an engine of its own whose acceptance a pooled bound can hide;
    TP ranks of one DP group share one batch and are not."""
    ranks = sorted({w.rank for w in windows if w.rank and w.rank.startswith("DP")})
    return ranks if len(ranks) >= 2 else []


def sglang_log_facts(lines: Sequence[str]) -> tuple[list[SglangSpecWindow], dict[str, Any] | None]:
    """(the speculative decode-batch windows in log order, the last ``server_args`` line's speculative fields or None).

    The fields are ``algorithm`` (str or None: no speculation), ``num_draft_tokens``, ``num_steps``, ``eagle_topk``
    (int or None), ``adaptive`` (bool or None)."""
    windows, _ = decode_windows(lines)
    spec: dict[str, Any] | None = None
    for line in lines:
        if _RE_SERVER_ARGS.search(line):
            spec = {}
            for name, regex in _ARGS.items():
                a = regex.search(line)
                text = a.group(1) if a else None
                spec[name] = (
                    (text == "True")
                    if name == "adaptive" and text
                    else (int(text) if text and text.isdigit() else text)
                )
    return windows, spec


def decode_windows(lines: Sequence[str]) -> tuple[list[SglangSpecWindow], list[str]]:
    """The speculative decode-batch windows of ``lines`` in log order, and ``LOG_LINE_UNREADABLE`` per such line
    whose number cannot be read (it gives no window; the rest of the log is read)."""
    windows: list[SglangSpecWindow] = []
    unreadable: list[str] = []
    for index, line in enumerate(lines):
        if not (_RE_DECODE.search(line) and _RE_LEN.search(line)):
            continue
        running = _RE_RUNNING.search(line)
        rank = _RE_RANK.search(line)
        stamp = _RE_STAMP.search(line)
        try:
            windows.append(
                SglangSpecWindow(
                    line_number=index + 1,
                    rank=(rank.group(1) or rank.group(2)) if rank else None,
                    running_reqs=int(running.group(1)) if running else None,
                    date=stamp.group(1)[:10] if stamp else None,
                    **line_facts(_WINDOW_FIGURES, line),
                )
            )
        except ValueError as exc:  # a number that cannot be read gives no window, named; never a crash
            unreadable.append(line_unreadable(index + 1, exc))
    return windows, unreadable


def _unread_pools(lines: Sequence[str]) -> list[str]:
    """``UNREAD_POOL_USAGE`` per pool share a decode-batch line states besides ``token usage`` (a hybrid model's mamba
    or sliding-window pool): its fullest line, named, since the capacity figure is the full-attention pool's."""
    fullest: dict[str, tuple[float, str, int]] = {}
    for index, line in enumerate(lines):
        if not _RE_DECODE.search(line):
            continue
        for m in _RE_OTHER_POOL.finditer(line):
            try:
                value = fixed(m.group(2))
            except ValueError:  # not a share as SGLang prints it ({:.2f}): still named, as written, below any share
                value = -1.0
            if m.group(1) not in fullest or value > fullest[m.group(1)][0]:
                fullest[m.group(1)] = (value, m.group(2), index + 1)
    return [
        f"UNREAD_POOL_USAGE({name}: {text} (line {line}, the fullest): a hybrid model's other pool, not read; the KV "
        "usage figures are the full-attention pool's 'token usage')"
        for name, (_, text, line) in fullest.items()
    ]


def _percent(share: str) -> float:
    """A printed share (``{:.2f}``, fixed-point) x 100 in decimal: 0.29 is 29.0 %, never float noise
    (28.999999999999996). Raises ValueError on a share not printed so."""
    fixed(share)
    return float(Decimal(share) * 100)


def _stamp(text: str) -> datetime:
    """A ``YYYY-MM-DD HH:MM:SS`` prefix's time. Raises ValueError (worded for a warning) on a date that is none."""
    try:
        return datetime.strptime(text, "%Y-%m-%d %H:%M:%S")
    except ValueError:
        raise ValueError("not a date (YYYY-MM-DD HH:MM:SS)") from None


def capacity_samples(lines: Sequence[str]) -> tuple[list[StatsSample], list[str]]:
    """The capacity of every ``Decode batch`` line (speculative or not): running, queued, token usage x 100 and the
    generation throughput; ``t_s`` from the ``[YYYY-MM-DD HH:MM:SS`` prefix, since the first sample. And
    ``LOG_LINE_UNREADABLE`` per such line whose figure is not printed SGLang's way ({:.2f}): it gives no sample."""
    out: list[StatsSample] = []
    unreadable: list[str] = []
    t0: datetime | None = None
    for index, line in enumerate(lines):
        if not _RE_DECODE.search(line):
            continue
        running, queue, usage = _RE_RUNNING.search(line), _RE_QUEUE.search(line), _RE_USAGE.search(line)
        if not (running and queue and usage):
            continue
        try:
            stamp = _RE_STAMP.search(line)
            t = read_as("time stamp", _stamp, stamp.group(1)) if stamp else None
            gen = _RE_GEN.search(line)
            sample = StatsSample(
                line_number=index + 1,
                t_s=None,
                running_reqs=read_as("#running-req", count, running.group(1)),
                waiting_reqs=read_as("#queue-req", count, queue.group(1)),
                kv_cache_usage_percent=read_as("token usage", _percent, usage.group(1)),
                generation_throughput_tokens_per_s=read_as("gen throughput", fixed, gen.group(1)) if gen else None,
            )
        except ValueError as exc:  # a figure or a date that cannot be read gives no sample, named; never a crash
            unreadable.append(line_unreadable(index + 1, exc))
            continue
        t0 = t0 or t
        sample.t_s = None if t is None or t0 is None else (t - t0).total_seconds()
        out.append(sample)
    return out, unreadable


def read_log(lines: Sequence[str]) -> EngineLog | None:
    """SGLang's statistics of ``lines``, None without any of its forms: the per-request Finish lines' exact counts
    (:mod:`specscope.adapters.sglang.finish`) and the decode-batch windows, which print no counts.

    Where Finish lines with counts are in the log the exact counts are the figure: the windows of the same period are
    left out of the statistics (``WINDOWS_NOT_POOLED``; their ranges and bound stay in the SGLang summary), since a
    bound beside the counts adds nothing but a looser figure. Finish lines may cover fewer requests than the windows
    (``SGLANG_LOG_REQUEST_EXCEEDED_MS`` logs only slow requests; aborted requests print no speculative fields)."""
    _, spec = sglang_log_facts(lines)
    windows, unreadable = decode_windows(lines)
    capacity, capacity_unreadable = capacity_samples(lines)
    method, k = method_and_k(spec)
    requests, finish_forms, warnings = finish_stats(lines, k)
    if not windows and not capacity and not finish_forms and not unreadable and not capacity_unreadable:
        return None
    # a line unreadable as a window and as a capacity sample is named once, as the window
    named = {w.split(":", 1)[0] for w in unreadable}
    both = unreadable + [w for w in capacity_unreadable if w.split(":", 1)[0] not in named]
    warnings = sorted(both, key=unreadable_line_number) + warnings + _unread_pools(lines) + unread_decode_fields(lines)
    stats = [
        LogSpecStat(
            engine="sglang",
            form=DECODE,
            scope="window",
            line_number=w.line_number,
            rank=w.rank,
            accept_length=w.accept_length,
            accept_rate=w.accept_rate,
            accept_rate_at_most=rate_bound(w, k),
            verify_steps_at_least=1,  # the line divides by the window's verify steps unguarded: at least one
        )
        for w in windows
    ]
    seen_forms = ((DECODE, windows or unreadable), (CAPACITY, capacity or capacity_unreadable))
    forms = [f for f, seen in seen_forms if seen] + finish_forms
    if any(s.draft_tokens is not None and s.accepted_tokens is not None for s in requests):
        if windows:
            warnings.append(
                f"WINDOWS_NOT_POOLED({len(windows)} decode-batch windows beside {len(requests)} Finish lines: the "
                "Finish lines' exact counts are the figure; the windows' bound is in the SGLang summary)"
            )
        stats, windows = [], []
    return EngineLog(
        engine="sglang",
        forms=forms,
        method=method,
        configured_k=k,
        stats=stats + requests,
        warnings=warnings,
        capacity=capacity,
        ranks_are_engines=bool(dp_ranks(windows)),
    )


#: How this engine's log lines are read beyond its forms and fields (docs/engines.md's log details; each rule
#: names the tests that pin it, at least one through a command).
LOG_DETAILS: tuple[Detail, ...] = (
    Detail(
        "`scheduler_metrics_mixin.py` `log_decode_stats` (public copies, index ids 135019089, 61864081288)",
        "`Decode batch[.,] #running-req: N, ... accept len: X[, accept rate: Y], ...` (a `DPn TPn` prefix per rank)",
        "read",
        "`sglang_spec_windows`; never pooled: the windows print no counts (a mean of window means is the error "
        "vllm issue #42508 traces); range per window, pooled rate bounded by the larger over windows of the "
        "smaller of each window's printed rate + 0.005 and (length + 0.005 - 1) / k (k >= 1 when not said) over "
        ">= one verify step per window (the line divides by them unguarded)",
        (
            "tests/launch/test_sglang_log.py::test_a_head_accepting_nothing_in_every_window_alarms_and_exits_1",
            "tests/launch/test_engine_logs.py::test_sglang_windows_print_no_counts_so_the_pool_is_a_bound",
            "tests/launch/test_sglang_log.py::test_windows_are_read_with_their_ranks_and_never_pooled",
        ),
    ),
    Detail(
        "before PR #23530 (2026-04; PR #13212 changed the denominator in 2025-11)",
        "`accept rate` = (accepted + verify steps) / (verify steps x draft tokens): the bonus token counted, "
        "0.25 for a head accepting nothing at 4 draft tokens",
        "read, flagged",
        "bounded by the length instead; `accept_rate_counts_bonus` and the range row say so; the alarm still fires",
        (
            "tests/launch/test_sglang_log.py::test_a_rate_counting_the_bonus_token_does_not_hide_a_head_accepting_nothing",
        ),
    ),
    Detail(
        "same",
        "a head accepting nothing in every window",
        "alarm",
        'the one low-acceptance rule on those bounds (`LOW_ACCEPTANCE`, exit 1; 60 windows of "accept rate: '
        '0.00" alarm, 10 do not); the engine-neutral pool carries the same bound (`acceptance_rate_at_most`, '
        "each window >= 1 verify step) and alarm, so `bench --server-log` says them too",
        (
            "tests/launch/test_sglang_log.py::test_a_head_accepting_nothing_in_every_window_alarms_and_exits_1",
            "tests/launch/test_sglang_log.py::test_too_few_windows_to_bound_the_verify_steps_do_not_alarm",
            "tests/launch/test_engine_logs.py::test_bench_says_the_sglang_windows_bound_and_its_alarm_as_serve_does",
        ),
    ),
    Detail(
        "`--log-requests` (`tokenizer_manager.py`, later `utils/request_logger.py` `log_finished_request`; index "
        "ids 325668100, 70859615664)",
        "`Finish: obj=GenerateReqInput(...)[, headers={...}], out={... 'meta_info': {...}}` as "
        "`dataclass_to_string_truncated` prints it (level 2: a list or string over 2,048 printed `head ... "
        'tail`, no literal: skipped); `--log-requests-format json`: `{"timestamp", "event": "request.finished", '
        '"rid", "obj", "out"}` (`log_utils.log_json`)',
        "read",
        "one request statistic per line with a verify step; `meta_info` through the per-response reader "
        "(`read_payload`: three generations of names, histogram, derived fields checked); the dict split "
        "quote-aware and each value `ast.literal_eval`'d, 8 MiB a line, 64 KiB a value; `FINISH_LINE_UNREADABLE` "
        "(cut), `FINISH_FIELD_UNREADABLE`, `FINISH_LINE_TOO_LONG`; pooled Σaccepted / Σdrafted, per position "
        "from the histogram",
        (
            "tests/launch/test_sglang_finish_log.py::test_a_finish_line_with_0_5_names_pools_its_exact_counts",
            "tests/launch/test_sglang_finish_log.py::test_the_json_request_log_is_read_with_its_histogram",
            "tests/launch/test_sglang_finish_log.py::test_a_cut_or_malformed_finish_line_is_named_never_a_crash",
            "tests/launch/test_sglang_finish_log.py::test_a_line_beyond_the_bound_is_named_not_read",
        ),
    ),
    Detail(
        "PR #3152 to PR #11144 (`spec_verify_ct` without counts)",
        "no accepted / drafted count in `meta_info`",
        "derived",
        "accepted = `completion_tokens` - `spec_verify_ct` (SGLang's `spec_accept_length = completion_tokens / "
        "spec_verify_ct`, bonus included; one token per request high where the prefill's token is no verify "
        "step: PR #13754's 200 - 188 - 1 = 11, so an upper bound), `ACCEPTED_FROM_LENGTH`; drafted = "
        "`spec_verify_ct` x k (SGLang's own `spec_draft_token_num`), `DRAFTED_FROM_K`, none without k "
        "(`NO_DRAFTED_COUNT`)",
        (
            "tests/launch/test_sglang_finish_log.py::test_verify_count_only_lines_derive_accepted_and_drafted_and_win_over_the_windows",
        ),
    ),
    Detail(
        "Finish lines beside decode-batch windows",
        "the same period, counts and bounds",
        "read",
        "the Finish lines' exact counts are the pool (`WINDOWS_NOT_POOLED`); the window summary stays, its "
        "figure labelled `sglang_windows_acceptance_bound`, its alarm still run (Finish lines may cover fewer "
        "requests: `SGLANG_LOG_REQUEST_EXCEEDED_MS`, aborts)",
        (
            "tests/launch/test_sglang_finish_log.py::test_the_window_summary_says_the_finish_counts_are_the_figure",
            "tests/launch/test_sglang_finish_log.py::test_bench_says_the_finish_lines_exact_counts",
        ),
    ),
    Detail(
        "`ServerArgs` repr (`server_args=ServerArgs(...)`)",
        "`speculative_algorithm`, `speculative_num_draft_tokens`, `speculative_num_steps`, "
        "`speculative_eagle_topk`, `speculative_adaptive`",
        "read",
        "`sglang_speculative`; method `NEXTN` -> mtp, `STANDALONE` -> draft_model; k = num_draft_tokens - 1, "
        "none when adaptive",
        ("tests/launch/test_sglang_finish_log.py::test_the_server_args_algorithm_is_on_both_screens_without_windows",),
    ),
)
