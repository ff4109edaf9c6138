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
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["StatsSample", "parse_log_stats", "LineFact", "line_facts"]

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
    return out
