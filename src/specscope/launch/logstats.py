"""More facts from a vLLM log: the scheduler stats time series and the KV pool's block layout.

Wordings, with their sources:

- the periodic stats line of vllm/v1/metrics/loggers.py: ``Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg
  generation throughput: 35.2 tokens/s, Running: 21 reqs, Waiting: 21 reqs, GPU KV cache usage: 97.2%, Prefix cache
  hit rate: 0.0%`` (seed 000 quotes ``Running: 21 reqs, Waiting: 21 reqs, GPU KV cache usage: 97.2%`` as its capacity
  evidence); older builds say ``Pending: N reqs`` and ``GPU KV cache usage: 0.5%`` without the engine prefix.
- ``Setting attention block size to 1584 tokens to ensure that attention page size is >= mamba page size`` (hybrid
  models; fixture vllm_startup_qwen3_6_27b_nvfp4_mtp_v0.20.0.log, seed 003 quotes 1568) and ``block_size`` in the
  non-default args.
- ``Mamba cache mode is set to 'align'`` (same fixture) and ``Padding mamba page size by 0.51%`` (a hybrid pool).
- ``# GPU blocks: 2345, # CPU blocks: 512`` (V0 engines) / ``num_gpu_blocks=N`` overrides: the pool in blocks.
- The ``INFO 05-01 16:50:43`` time stamp vLLM puts after the level (``MM-DD HH:MM:SS``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

__all__ = [
    "CumulativeSpecTotal",
    "LineFact",
    "PooledSpecWindows",
    "StatsSample",
    "cumulative_spec_total",
    "line_facts",
    "parse_log_stats",
    "pooled_spec_windows",
]

#: One row of a table of facts read from a log line: a regex, and per capturing group that can match (an alternation's
#: groups count once) the field it fills and how its text becomes the value.
LineFact = tuple[re.Pattern[str], tuple[tuple[str, Callable[[str], Any]], ...]]

_RE_STATS = re.compile(r"Running: (\d+) reqs?, (?:Waiting|Pending): (\d+) reqs?.*?(?:GPU )?KV cache usage: ([\d.]+)%")
_RE_PROMPT_TPUT = re.compile(r"Avg prompt throughput: ([\d.]+) tokens/s")
_RE_GEN_TPUT = re.compile(r"Avg generation throughput: ([\d.]+) tokens/s")
_RE_STAMP = re.compile(r"\b(?:INFO|WARNING|ERROR|DEBUG) (\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)")
_RE_HYBRID = re.compile(r"Mamba cache mode is set to|Padding mamba page size by")  # a mamba/linear-attention pool
_LAYOUT: tuple[LineFact, ...] = (  # the KV pool's block layout; the last line that says it wins
    (re.compile(r"Setting attention block size to (\d+) tokens"), (("block_size_tokens", int),)),
    (re.compile(r"Mamba cache mode is set to '(\w+)'"), (("mamba_cache_mode", str),)),
    (re.compile(r"# (?:GPU|cuda|CUDA) blocks: (\d+)|num_gpu_blocks_override=(\d+)"), (("gpu_blocks", int),)),
)


def line_facts(rows: Sequence[LineFact], line: str) -> dict[str, Any]:
    """Field -> value for every row of ``rows`` whose regex matches ``line``: the row's fields take, in order, the
    groups that matched (an alternation's other groups are None and skipped), each through its converter."""
    out: dict[str, Any] = {}
    for regex, fields in rows:
        if m := regex.search(line):
            matched = [g for g in m.groups() if g is not None]
            out.update((name, convert(text)) for (name, convert), text in zip(fields, matched, strict=True))
    return out


class StatsSample(BaseModel):
    """One periodic scheduler stats line. ``t_s``: seconds since the first sample (None without a time stamp).
    ``kv_cache_usage_percent`` is vLLM's "GPU KV cache usage" (0..100); throughputs are tokens/s as logged."""

    model_config = ConfigDict(extra="forbid")

    line_number: int
    t_s: float | None = None
    running_reqs: int
    waiting_reqs: int
    kv_cache_usage_percent: float
    prompt_throughput_tokens_per_s: float | None = None
    generation_throughput_tokens_per_s: float | None = None


def _stamp_s(line: str) -> float | None:
    m = _RE_STAMP.search(line)
    if m is None:
        return None
    month, day, h, mi, s = (int(x) for x in m.groups())
    return ((month * 31 + day) * 24 + h) * 3600.0 + mi * 60 + s  # monotonic within a year; only differences count


def parse_log_stats(lines: list[str]) -> dict[str, Any]:
    """LogFacts fields from ``lines``: ``stats`` (list of StatsSample), ``block_size_tokens``, ``mamba_cache_mode``,
    ``hybrid_kv`` (a mamba/linear-attention pool shares the blocks) and ``gpu_blocks`` (pool size when logged)."""
    out: dict[str, Any] = {"stats": [], "block_size_tokens": None, "mamba_cache_mode": None, "hybrid_kv": False}
    out["gpu_blocks"] = None
    t0: float | None = None
    for index, line in enumerate(lines):
        try:  # a line whose number cannot be read (5,000 digits, "1.2.3") gives no fact, never a crash
            if m := _RE_STATS.search(line):
                t = _stamp_s(line)
                if t is not None and t0 is None:
                    t0 = t
                sample = StatsSample(
                    line_number=index + 1,
                    t_s=None if t is None or t0 is None else t - t0,
                    running_reqs=int(m.group(1)),
                    waiting_reqs=int(m.group(2)),
                    kv_cache_usage_percent=float(m.group(3)),
                )
                if p := _RE_PROMPT_TPUT.search(line):
                    sample.prompt_throughput_tokens_per_s = float(p.group(1))
                if g := _RE_GEN_TPUT.search(line):
                    sample.generation_throughput_tokens_per_s = float(g.group(1))
                out["stats"].append(sample)
            out.update(line_facts(_LAYOUT, line))
            if _RE_HYBRID.search(line):
                out["hybrid_kv"] = True
        except ValueError:
            continue
    return out


class SpecWindowLine(Protocol):
    """What :func:`pooled_spec_windows` reads of one ``SpecDecoding metrics:`` line (``SpecDecodingSample``)."""

    line_number: int
    mean_acceptance_length: float | None
    accepted_tokens: int | None
    drafted_tokens: int | None
    per_position_acceptance_rates: list[float]


class PooledSpecWindows(BaseModel):
    """Every SpecDecoding window of a log pooled by its counts (issue 26).

    ``accepted_tokens`` / ``draft_tokens`` are the windows' exact counts summed (windows lacking them are not counted:
    ``windows_without_counts``); ``drafts`` (verify steps) is not printed by vLLM and is derived per window: drafted / k
    when that count prints as the window's two-decimal mean length (exact for fixed-k methods, where accepted / (mean
    length - 1) is only bracketed by the rounding: 1,234 accepted at "2.54" is 799 to 803 drafts), else accepted /
    (mean acceptance length - 1) rounded to a whole number, or drafted / k when nothing was accepted or the line has no
    mean length (vLLM 0.8.0-0.8.4); k is the window's positions or else the log's configured k, used only when it
    divides. None when a window tells neither, so the pooled draft count is unknown, never guessed; ``acceptance_rate``
    = accepted / drafted (exact), ``acceptance_length`` = 1 + accepted / drafts, ``acceptance_per_position`` = sum of
    rate_i x drafts / drafts.
    ``alarm``: :func:`specscope.stats.low_acceptance.low_acceptance_alarm` of the pooled rate over the drafts.
    """

    model_config = ConfigDict(extra="forbid")

    windows: int
    windows_without_counts: int
    drafts: int | None
    draft_tokens: int | None
    accepted_tokens: int | None
    acceptance_rate: float | None
    acceptance_length: float | None
    acceptance_per_position: list[float]
    alarm: str | None = None


def _prints_as(printed: float, value: float) -> bool:
    """Whether ``value`` is printed as ``printed`` by vLLM's ``%.2f`` (half a hundredth either way, a float's slack)."""
    return abs(value - printed) <= 0.005 + 1e-9


def _window_drafts(w: SpecWindowLine, configured_k: int | None) -> int | None:
    """Verify steps of one window (see :class:`PooledSpecWindows`), None when the line does not tell them."""
    acc, drafted, k = w.accepted_tokens, w.drafted_tokens, len(w.per_position_acceptance_rates) or configured_k
    if acc is None:
        return None
    length = w.mean_acceptance_length
    if acc > 0 and length is not None and length > 1.0:
        if drafted is not None and k and drafted % k == 0 and _prints_as(length, 1.0 + acc / (drafted // k)):
            return drafted // k  # a fixed-k window: exact, where the two-decimal length only brackets the count
        return round(acc / (length - 1.0))
    if drafted is not None and k and drafted % k == 0:
        return drafted // k
    return None


def pooled_spec_windows(
    windows: Sequence[SpecWindowLine], method: str | None = None, configured_k: int | None = None
) -> PooledSpecWindows:
    """Pool ``windows`` (in log order); ``method`` (the log's speculative method, if it says) selects the alarm rule;
    ``configured_k`` (the log's num_speculative_tokens) gives the draft count of windows that do not print it."""
    from specscope.stats.low_acceptance import low_acceptance_alarm

    counted = [w for w in windows if w.accepted_tokens is not None and w.drafted_tokens is not None]
    accepted = sum(w.accepted_tokens or 0 for w in counted) if counted else None
    drafted = sum(w.drafted_tokens or 0 for w in counted) if counted else None
    per_window = [(w, _window_drafts(w, configured_k)) for w in counted]
    known = per_window and all(d is not None for _, d in per_window)
    drafts = sum(d or 0 for _, d in per_window) if known else None
    n_pos = max((len(w.per_position_acceptance_rates) for w in counted), default=0)
    per_pos: list[float] = []
    if drafts:
        for i in range(n_pos):
            rates = [(w.per_position_acceptance_rates, d or 0) for w, d in per_window]
            hits = sum(r[i] * d for r, d in rates if i < len(r))
            per_pos.append(hits / drafts)
    rate = accepted / drafted if accepted is not None and drafted else None
    return PooledSpecWindows(
        windows=len(windows),
        windows_without_counts=len(windows) - len(counted),
        drafts=drafts,
        draft_tokens=drafted,
        accepted_tokens=accepted,
        acceptance_rate=rate,
        acceptance_length=1.0 + accepted / drafts if drafts and accepted is not None else None,
        acceptance_per_position=per_pos,
        alarm=low_acceptance_alarm(method, rate, drafts),
    )


class SpecCumulativeLine(Protocol):
    """What :func:`cumulative_spec_total` reads of one V0 ``Speculative metrics:`` line (``SpecCumulativeSample``)."""

    line_number: int
    draft_acceptance_rate: float | None
    system_efficiency: float | None
    num_spec_tokens: int | None
    accepted_tokens: int | None
    draft_tokens: int | None
    emitted_tokens: int | None


class CumulativeSpecTotal(BaseModel):
    """The run's speculative total from V0's cumulative lines: the last line, never a sum of lines.

    ``drafts`` (verify steps) = draft tokens / k (V0 drafts k tokens per step; None unless k divides);
    ``acceptance_rate`` = accepted / drafted; ``logged_acceptance_rate`` and ``logged_system_efficiency`` are V0's own
    figures as printed. No acceptance length is derived: V0's accepted and emitted counts do not give one by vLLM's V1
    formula. ``counts_went_down``: a later line holds a smaller count than an earlier one (the engine restarted in
    between; only the last run's total is here). ``alarm``: the low-acceptance rule over ``drafts``.
    """

    model_config = ConfigDict(extra="forbid")

    lines: int
    line_number: int
    num_spec_tokens: int | None
    draft_tokens: int | None
    accepted_tokens: int | None
    emitted_tokens: int | None
    drafts: int | None
    acceptance_rate: float | None
    logged_acceptance_rate: float | None
    logged_system_efficiency: float | None
    counts_went_down: bool
    alarm: str | None = None


def cumulative_spec_total(
    lines: Sequence[SpecCumulativeLine], method: str | None = None, configured_k: int | None = None
) -> CumulativeSpecTotal | None:
    """The total of V0's cumulative lines (the last one; see :class:`CumulativeSpecTotal`); None without any."""
    from specscope.stats.low_acceptance import low_acceptance_alarm

    if not lines:
        return None
    last = lines[-1]
    k = last.num_spec_tokens or configured_k
    drafted, accepted = last.draft_tokens, last.accepted_tokens
    drafts = drafted // k if drafted is not None and k and drafted % k == 0 else None
    rate = accepted / drafted if accepted is not None and drafted else None
    went_down = any(
        (a.draft_tokens or 0) > (b.draft_tokens or 0) or (a.accepted_tokens or 0) > (b.accepted_tokens or 0)
        for a, b in zip(lines, lines[1:], strict=False)
    )
    return CumulativeSpecTotal(
        lines=len(lines),
        line_number=last.line_number,
        num_spec_tokens=k,
        draft_tokens=drafted,
        accepted_tokens=accepted,
        emitted_tokens=last.emitted_tokens,
        drafts=drafts,
        acceptance_rate=rate,
        logged_acceptance_rate=last.draft_acceptance_rate,
        logged_system_efficiency=last.system_efficiency,
        counts_went_down=went_down,
        alarm=low_acceptance_alarm(method, rate, drafts),
    )


def _num(x: float | None, fmt: str) -> str:
    return "—" if x is None else format(x, fmt)


def cumulative_lines(total: CumulativeSpecTotal) -> list[tuple[str, str]]:
    """The V0 cumulative total as (label, value) rows for a terminal table."""
    restart = "; counts went down between lines (a restart): the last run's total" if total.counts_went_down else ""
    return [
        (
            "spec_decoding_cumulative",
            f"V0 cumulative total at line {total.line_number} (the last of {total.lines} lines, not summed){restart}",
        ),
        (
            "spec_decoding_drafted_accepted",
            f"{_num(total.draft_tokens, ',')} drafted, {_num(total.accepted_tokens, ',')} accepted over "
            f"{_num(total.drafts, ',')} drafts (k={_num(total.num_spec_tokens, 'd')}); "
            f"{_num(total.emitted_tokens, ',')} emitted",
        ),
        ("spec_decoding_acceptance_rate", _num(total.acceptance_rate, ".3f")),
        ("spec_decoding_system_efficiency", f"{_num(total.logged_system_efficiency, '.3f')} (as V0 logged it)"),
        ("spec_decoding_alarm", total.alarm or "none"),
    ]


def pooled_lines(pooled: PooledSpecWindows) -> list[tuple[str, str]]:
    """The pooled windows as (label, value) rows for a terminal table."""
    num = _num
    per_pos = ", ".join(f"{r:.3f}" for r in pooled.acceptance_per_position) or "—"
    windows = f"pooled over {pooled.windows} windows ({pooled.windows_without_counts} without counts)"
    counts = f"{num(pooled.draft_tokens, ',')} drafted, {num(pooled.accepted_tokens, ',')} accepted"
    return [
        ("spec_decoding_windows", windows),
        ("spec_decoding_drafted_accepted", f"{counts} over {num(pooled.drafts, ',')} drafts"),
        ("spec_decoding_acceptance_rate", num(pooled.acceptance_rate, ".3f")),
        ("spec_decoding_acceptance_length", num(pooled.acceptance_length, ".2f")),
        ("spec_decoding_per_position", per_pos),
        ("spec_decoding_alarm", pooled.alarm or "none"),
    ]
