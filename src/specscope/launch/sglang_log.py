"""Speculative facts of an SGLang server log (issue 26): the decode-batch windows and the speculative server args.

Wordings, with their sources (SGLang ``scheduler_metrics_mixin.py`` ``log_decode_stats``, public copies at index ids
135019089, 327244334 and 61864081288; ``server_args.py``'s ``ServerArgs`` repr):

- ``[2025-10-10 12:00:01 TP0] Decode batch. #running-req: 4, #token: 2048, token usage: 0.01, accept len: 2.85,
  cuda graph: True, gen throughput (token/s): 312.45, #queue-req: 0`` (older builds; ``Decode batch,`` in newer ones,
  a ``DPn`` rank before ``TPn`` under data-parallel attention, each rank logging its own line). Newer builds add
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
- ``server_args=ServerArgs(... speculative_algorithm='EAGLE', ... speculative_num_steps=3, speculative_eagle_topk=1,
  speculative_num_draft_tokens=4 ...)``: the method (``NEXTN`` is SGLang's MTP, ``STANDALONE`` a draft model) and
  k = num_draft_tokens - 1 (SGLang's own drafted tokens per verify step; wrong under ``speculative_adaptive``, which
  varies it: then no k is taken).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["SglangSpecSummary", "SglangSpecWindow", "sglang_log_facts", "sglang_spec_lines", "sglang_spec_summary"]

_RE_DECODE = re.compile(r"Decode batch\b")
_RE_LEN = re.compile(r"\baccept len: ([\d.]+)")
_RE_RATE = re.compile(r"\baccept rate: ([\d.]+)")
_RE_RUNNING = re.compile(r"#running-req: (\d+)")
_RE_RANK = re.compile(r"\[\d{4}-\d\d-\d\d [\d:.]+ ([A-Z][A-Z_]*\d+(?: [A-Z][A-Z_]*\d+)*)\]")
_RE_SERVER_ARGS = re.compile(r"server_args=ServerArgs\(")
_ARGS = {
    "algorithm": re.compile(r"\bspeculative_algorithm=(?:'(\w+)'|None)"),
    "num_draft_tokens": re.compile(r"\bspeculative_num_draft_tokens=(\d+)"),
    "num_steps": re.compile(r"\bspeculative_num_steps=(\d+)"),
    "eagle_topk": re.compile(r"\bspeculative_eagle_topk=(\d+)"),
    "adaptive": re.compile(r"\bspeculative_adaptive=(True|False)"),
}
# SGLang's algorithm names -> specscope's method vocabulary (stats/low_acceptance.py's heads)
_METHODS = {"EAGLE": "eagle", "EAGLE3": "eagle3", "NEXTN": "mtp", "STANDALONE": "draft_model", "NGRAM": "ngram"}
_HALF = 0.005  # half the last printed digit of a "%.2f" figure


class SglangSpecWindow(BaseModel):
    """One SGLang decode-batch line with speculation: ``accept_length`` (tokens per verify step, bonus included) and
    ``accept_rate`` (fraction of drafted tokens; None before the builds that print it) as printed (two decimals);
    ``rank`` the log prefix's ranks (``TP0``, ``DP1 TP0``), None without the prefix."""

    model_config = ConfigDict(extra="forbid")

    line_number: int
    rank: str | None = None
    running_reqs: int | None = None
    accept_length: float
    accept_rate: float | None = None


class SglangSpecSummary(BaseModel):
    """The windows of an SGLang log, never pooled (no counts are printed; see the module doc).

    ``method`` in specscope's vocabulary (None when no ``server_args`` line says); ``draft_tokens_per_step`` the k of
    the server args (None when adaptive or not said); ``*_min`` / ``*_max`` the printed range over the windows;
    ``acceptance_rate_at_most`` the sound upper bound of the pooled rate and ``verify_steps_at_least`` (one per window)
    its lower bound of verify steps; ``alarm`` the low-acceptance rule applied to those bounds.
    """

    model_config = ConfigDict(extra="forbid")

    windows: int
    ranks: list[str]
    algorithm: str | None
    method: str | None
    draft_tokens_per_step: int | None
    accept_length_min: float
    accept_length_max: float
    accept_rate_min: float | None
    accept_rate_max: float | None
    acceptance_rate_at_most: float | None
    verify_steps_at_least: int
    alarm: str | None = None


def sglang_log_facts(lines: Sequence[str]) -> tuple[list[SglangSpecWindow], dict[str, Any] | None]:
    """(the speculative decode-batch windows in log order, the last ``server_args`` line's speculative fields or None).

    The fields are ``algorithm`` (str or None: no speculation), ``num_draft_tokens``, ``num_steps``, ``eagle_topk``
    (int or None), ``adaptive`` (bool or None)."""
    windows: list[SglangSpecWindow] = []
    spec: dict[str, Any] | None = None
    for index, line in enumerate(lines):
        try:
            if _RE_DECODE.search(line) and (m := _RE_LEN.search(line)):
                rate = _RE_RATE.search(line)
                running = _RE_RUNNING.search(line)
                rank = _RE_RANK.search(line)
                windows.append(
                    SglangSpecWindow(
                        line_number=index + 1,
                        rank=rank.group(1) if rank else None,
                        running_reqs=int(running.group(1)) if running else None,
                        accept_length=float(m.group(1)),
                        accept_rate=float(rate.group(1)) if rate else None,
                    )
                )
            elif _RE_SERVER_ARGS.search(line):
                spec = {}
                for name, regex in _ARGS.items():
                    a = regex.search(line)
                    text = a.group(1) if a else None
                    spec[name] = (
                        (text == "True")
                        if name == "adaptive" and text
                        else (int(text) if text and text.isdigit() else text)
                    )
        except ValueError:  # a number that cannot be read gives no window, never a crash
            continue
    return windows, spec


def _rate_bound(w: SglangSpecWindow, k: int | None) -> float | None:
    """The largest pooled-rate contribution this window allows: its printed rate + 0.005, else from its length."""
    if w.accept_rate is not None:
        return w.accept_rate + _HALF
    return None if not k else max(0.0, w.accept_length + _HALF - 1.0) / k


def sglang_spec_summary(windows: Sequence[SglangSpecWindow], spec: dict[str, Any] | None) -> SglangSpecSummary | None:
    """Summarise the windows (None without any); see :class:`SglangSpecSummary`."""
    from specscope.stats.low_acceptance import NEAR_ZERO, low_acceptance_alarm

    if not windows:
        return None
    spec = spec or {}
    algorithm = spec.get("algorithm")
    method = _METHODS.get(str(algorithm).upper(), str(algorithm).lower()) if algorithm else None
    n_draft = spec.get("num_draft_tokens")
    k = n_draft - 1 if isinstance(n_draft, int) and n_draft > 1 and not spec.get("adaptive") else None
    bounds = [_rate_bound(w, k) for w in windows]
    at_most = None if any(b is None for b in bounds) else max(b or 0.0 for b in bounds)
    rates = [w.accept_rate for w in windows if w.accept_rate is not None]
    lengths = [w.accept_length for w in windows]
    alarm = None
    if low_acceptance_alarm(method, at_most, len(windows)) is not None and at_most is not None:
        who = method or "unknown method"
        alarm = (
            f"LOW_ACCEPTANCE({who} accepts at most {at_most:.1%} of drafted tokens in every one of {len(windows)} "
            f"SGLang windows (at least {len(windows)} verify steps), < {NEAR_ZERO:.0%})"
        )
    return SglangSpecSummary(
        windows=len(windows),
        ranks=sorted({w.rank for w in windows if w.rank}),
        algorithm=algorithm,
        method=method,
        draft_tokens_per_step=k,
        accept_length_min=min(lengths),
        accept_length_max=max(lengths),
        accept_rate_min=min(rates) if rates else None,
        accept_rate_max=max(rates) if rates else None,
        acceptance_rate_at_most=at_most,
        verify_steps_at_least=len(windows),
        alarm=alarm,
    )


def sglang_spec_lines(summary: SglangSpecSummary) -> list[tuple[str, str]]:
    """The summary as (label, value) rows for a terminal table."""

    def rng(lo: float | None, hi: float | None) -> str:
        return "—" if lo is None or hi is None else f"{lo:.2f} to {hi:.2f}"

    ranks = f" on {', '.join(summary.ranks)}" if summary.ranks else ""
    k = "k unknown" if summary.draft_tokens_per_step is None else f"k = {summary.draft_tokens_per_step}"
    bound = "—" if summary.acceptance_rate_at_most is None else f"<= {summary.acceptance_rate_at_most:.3f}"
    return [
        ("sglang_speculative", f"{summary.algorithm or 'not in the log'} ({summary.method or '—'}, {k})"),
        ("sglang_spec_windows", f"{summary.windows} decode-batch windows{ranks}; SGLang prints no counts: not pooled"),
        ("sglang_accept_length_range", rng(summary.accept_length_min, summary.accept_length_max)),
        ("sglang_accept_rate_range", rng(summary.accept_rate_min, summary.accept_rate_max)),
        ("sglang_pooled_acceptance_rate", f"{bound} over >= {summary.verify_steps_at_least} verify steps (bounds)"),
        ("sglang_spec_alarm", summary.alarm or "none"),
    ]
