"""Capacity planning from a vLLM start-up log: the KV pool in blocks, what one request costs, what speculation adds.

vLLM's own arithmetic (vllm/v1/core/kv_cache_utils.py, ``get_max_concurrency_for_kv_cache_config`` and
``report_kv_cache_config``; the per-group charges are each KV spec's ``max_memory_usage_bytes``):

- the pool is ``num_blocks`` blocks shared by ``G`` KV-cache groups (1 for a plain transformer; a hybrid model such
  as Qwen3.6 has one full-attention group plus ``G - 1`` mamba / linear-attention groups of the same layer count);
- ``GPU KV cache size: T tokens`` = ``num_blocks // G * block_size``;
- a request of ``L`` tokens takes ``ceil(L / block_size)`` blocks in the full-attention group and, per mamba group,
  ``2 + num_speculative_blocks`` blocks in ``align`` cache mode (``1 + ...`` otherwise): the speculative scratch;
- ``Maximum concurrency for L tokens per request: C x`` = ``num_blocks / blocks_per_request(L)``;
- while decoding, the scheduler also allocates ``num_speculative_tokens`` lookahead slots per running request.

When the log does not print ``num_blocks`` it is reconstructed: the ``G`` and ``num_blocks`` (within the
``T // block_size`` bracket) that reproduce the reported concurrency to two decimals. A figure that no choice
reproduces is listed in ``mismatches`` with both values. Check on the real v0.20.0 log (fixture): block size 1584,
T 36,432 = 23 x 1584, 4 groups, 93 blocks, 42 + 3 x (2 + 1) = 51 blocks per 65,536-token request, 93 / 51 = 1.82x.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from specscope.errors import ConfigError
from specscope.launch.logfacts import LogFacts

__all__ = ["KvCapacity", "CapacityPlan", "kv_capacity", "plan_capacity", "parse_plan_spec"]

_GIB = 1 << 30
DEFAULT_BLOCK_SIZE_TOKENS = 16  # vLLM's default --block-size on CUDA
DEFAULT_MAX_NUM_SEQS = 256  # vLLM's default --max-num-seqs (V1 on GPU)


class KvCapacity(BaseModel):
    """The KV pool of one server as the log gives it and as reconstructed from blocks (units in the names)."""

    model_config = ConfigDict(extra="forbid")

    block_size_tokens: int
    block_size_source: str
    kv_groups: int
    mamba_groups: int
    mamba_blocks_per_request: int
    num_speculative_tokens: int
    pool_blocks: int | None
    pool_blocks_source: str
    kv_cache_bytes: int | None
    block_bytes: int | None
    reported_kv_tokens: int | None
    reconstructed_kv_tokens: int | None
    concurrency_at_len_tokens: int | None
    reported_max_concurrency: float | None
    reconstructed_max_concurrency: float | None
    blocks_per_request_at_len: int | None
    spec_scratch_blocks_per_request: int
    mismatches: list[str] = Field(default_factory=list)


class CapacityPlan(BaseModel):
    """Do ``requests`` requests of ``tokens`` tokens fit at once, with and without the speculative reservation?"""

    model_config = ConfigDict(extra="forbid")

    requests: int
    tokens: int
    max_num_seqs: int
    max_num_seqs_source: str
    blocks_per_request_without_spec: int
    blocks_per_request_with_spec: int
    fit_without_spec: int
    fit_with_spec: int
    fits_with_spec: bool
    fits_without_spec: bool
    limited_by: str
    capacity_cost_of_speculation_percent: float | None


def _blocks_per_request(cap: KvCapacity, tokens: int, *, spec: bool) -> int:
    k = cap.num_speculative_tokens if spec else 0
    lookahead = k if spec else 0
    return math.ceil((tokens + lookahead) / cap.block_size_tokens) + cap.mamba_groups * (
        cap.mamba_blocks_per_request + k
    )


def _reported_bpr(bs: int, length: int, mamba_groups: int, per_mamba: int, k: int) -> int:
    """vLLM's own per-request charge for its "Maximum concurrency" line (no lookahead slots)."""
    return math.ceil(length / bs) + mamba_groups * (per_mamba + k)


def _search_pool(facts: LogFacts, bs: int, k: int, per_mamba: int, groups: list[int]) -> tuple[int, int, bool]:
    """(G, num_blocks, reproduced?) that reproduce the reported KV tokens and concurrency."""
    t = (facts.kv_cache_size_tokens or 0) // bs
    length, conc = facts.max_concurrency_at_len_tokens, facts.max_concurrency_requests
    for g in groups:
        pools = [facts.gpu_blocks] if facts.gpu_blocks else range(g * t, g * t + g)
        for p in pools:
            if length and conc is not None and round(p / _reported_bpr(bs, length, g - 1, per_mamba, k), 2) == conc:
                return g, p, True
    g = groups[0]
    return g, facts.gpu_blocks or g * t, False


def kv_capacity(facts: LogFacts, *, kv_groups: int | None = None) -> KvCapacity:
    """Reconstruct the KV pool of ``facts`` in blocks (see the module docstring).

    Args:
        facts: a parsed start-up log.
        kv_groups: the number of KV-cache groups when known (e.g. from the model config); searched otherwise
            (1 for a plain model, 2..8 for a hybrid one).

    Raises:
        ConfigError: the log has no ``GPU KV cache size`` line (nothing to plan from).
    """
    if facts.kv_cache_size_tokens is None:
        raise ConfigError(
            "the log has no KV cache size line to plan from",
            found="no 'GPU KV cache size: N tokens'",
            expected="a vLLM start-up log that reached the KV cache allocation",
            fix="pass the log of a server that started (the lines before 'Starting vLLM API server')",
        )
    bs = facts.block_size_tokens or DEFAULT_BLOCK_SIZE_TOKENS
    spec = facts.speculative_config or {}
    k = int(spec.get("num_speculative_tokens") or 0)
    per_mamba = 2 if facts.mamba_cache_mode == "align" else 1
    groups = [kv_groups] if kv_groups else (list(range(2, 9)) if facts.hybrid_kv else [1])
    g, pool, reproduced = _search_pool(facts, bs, k, per_mamba, groups)
    mamba = g - 1 if facts.hybrid_kv else 0
    length = facts.max_concurrency_at_len_tokens
    bpr = _reported_bpr(bs, length, mamba, per_mamba, k) if length else None
    kv_bytes = round(facts.available_kv_cache_memory_gib * _GIB) if facts.available_kv_cache_memory_gib else None
    cap = KvCapacity(
        block_size_tokens=bs,
        block_size_source="log" if facts.block_size_tokens else f"assumed: vLLM default {DEFAULT_BLOCK_SIZE_TOKENS}",
        kv_groups=g,
        mamba_groups=mamba,
        mamba_blocks_per_request=per_mamba if mamba else 0,
        num_speculative_tokens=k,
        pool_blocks=pool,
        pool_blocks_source="log"
        if facts.gpu_blocks
        else ("reconstructed from KV tokens and max concurrency" if reproduced else "KV tokens / block size"),
        kv_cache_bytes=kv_bytes,
        block_bytes=kv_bytes // pool if kv_bytes and pool else None,
        reported_kv_tokens=facts.kv_cache_size_tokens,
        reconstructed_kv_tokens=pool // g * bs,
        concurrency_at_len_tokens=length,
        reported_max_concurrency=facts.max_concurrency_requests,
        reconstructed_max_concurrency=round(pool / bpr, 4) if bpr else None,
        blocks_per_request_at_len=bpr,
        spec_scratch_blocks_per_request=mamba * k,
    )
    if cap.reconstructed_kv_tokens != cap.reported_kv_tokens:
        cap.mismatches.append(
            f"KV tokens: log {cap.reported_kv_tokens:,}, blocks give {cap.reconstructed_kv_tokens:,} "
            f"({pool} blocks // {g} groups x {bs} tokens)"
        )
    rc, rep = cap.reconstructed_max_concurrency, cap.reported_max_concurrency
    if rc is not None and rep is not None and round(rc, 2) != rep:
        cap.mismatches.append(f"max concurrency at {length:,} tokens: log {rep:.2f}x, blocks give {rc:.2f}x")
    return cap


def plan_capacity(cap: KvCapacity, *, requests: int, tokens: int, max_num_seqs: int | None = None) -> CapacityPlan:
    """How many of ``requests`` concurrent requests of ``tokens`` tokens (prompt + output) the pool and
    ``max_num_seqs`` admit, with the speculative reservation (as the log's server runs) and without it.

    ``capacity_cost_of_speculation_percent`` = (fit without - fit with) / fit without x 100.
    """
    if cap.pool_blocks is None:
        raise ConfigError("no pool size to plan from", found="no blocks", expected="a start-up log")
    seqs = max_num_seqs or DEFAULT_MAX_NUM_SEQS
    without = _blocks_per_request(cap, tokens, spec=False)
    with_spec = _blocks_per_request(cap, tokens, spec=True)
    fit_without = min(seqs, cap.pool_blocks // without)
    fit_with = min(seqs, cap.pool_blocks // with_spec)
    return CapacityPlan(
        requests=requests,
        tokens=tokens,
        max_num_seqs=seqs,
        max_num_seqs_source="plan" if max_num_seqs else f"assumed: vLLM default {DEFAULT_MAX_NUM_SEQS}",
        blocks_per_request_without_spec=without,
        blocks_per_request_with_spec=with_spec,
        fit_without_spec=fit_without,
        fit_with_spec=fit_with,
        fits_with_spec=requests <= fit_with,
        fits_without_spec=requests <= fit_without,
        limited_by="max-num-seqs" if fit_with == seqs else "KV pool",
        capacity_cost_of_speculation_percent=(fit_without - fit_with) / fit_without * 100 if fit_without else None,
    )


_PLAN_KEYS = {"requests": "requests", "tokens": "tokens", "max-num-seqs": "max_num_seqs", "kv-groups": "kv_groups"}


def parse_plan_spec(spec: str) -> dict[str, int]:
    """``"requests=20,tokens=32768,max-num-seqs=20[,kv-groups=4]"`` -> {"requests": 20, ...}.

    Raises:
        ConfigError: an unknown key, a value that is not a positive integer, or requests / tokens missing.
    """
    out: dict[str, int] = {}
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        key, _, value = part.partition("=")
        if key not in _PLAN_KEYS or not value.isdigit() or int(value) < 1:
            raise ConfigError(
                "--plan takes KEY=positive integer pairs",
                found=part,
                expected=", ".join(f"{k}=N" for k in _PLAN_KEYS),
                fix="e.g. --plan requests=20,tokens=32768,max-num-seqs=20",
            )
        out[_PLAN_KEYS[key]] = int(value)
    missing = [k for k in ("requests", "tokens") if k not in out]
    if missing:
        raise ConfigError(
            "--plan needs requests and tokens",
            found=spec,
            expected="requests=N,tokens=N[,max-num-seqs=N][,kv-groups=N]",
            fix="e.g. --plan requests=20,tokens=32768,max-num-seqs=20",
        )
    return out


def capacity_from_log(facts: LogFacts, spec: str | None = None) -> tuple[KvCapacity, CapacityPlan | None]:
    """:func:`kv_capacity` of ``facts`` and, when ``spec`` (``--plan`` text) is given, :func:`plan_capacity`.

    ``max-num-seqs`` defaults to the log's own ``max_num_seqs`` (non-default args), then vLLM's default.
    """
    values = parse_plan_spec(spec) if spec is not None else {}
    cap = kv_capacity(facts, kv_groups=values.get("kv_groups"))
    if spec is None:
        return cap, None
    logged = (facts.non_default_args or {}).get("max_num_seqs")
    seqs = values.get("max_num_seqs") or (logged if isinstance(logged, int) else None)
    return cap, plan_capacity(cap, requests=values["requests"], tokens=values["tokens"], max_num_seqs=seqs)


def capacity_lines(cap: KvCapacity, plan: CapacityPlan | None) -> list[str]:
    """The capacity section as plain text lines (the terminal form of ``serve --parse-log FILE --plan``)."""
    gib = f"{cap.kv_cache_bytes / _GIB:.2f} GiB" if cap.kv_cache_bytes else "unknown"
    block = f"{cap.block_bytes / (1 << 20):.2f} MiB" if cap.block_bytes else "unknown"
    out = [
        f"KV pool: {cap.pool_blocks} blocks x {block} per block = {gib} ({cap.pool_blocks_source})",
        f"block size: {cap.block_size_tokens} tokens ({cap.block_size_source}); KV-cache groups: {cap.kv_groups}"
        + (f" (1 attention + {cap.mamba_groups} mamba)" if cap.mamba_groups else ""),
        f"speculative scratch: {cap.spec_scratch_blocks_per_request} blocks per request "
        f"(k={cap.num_speculative_tokens}) plus {cap.num_speculative_tokens} lookahead slots",
    ]
    if cap.concurrency_at_len_tokens:
        out.append(
            f"per-request charge at {cap.concurrency_at_len_tokens:,} tokens: {cap.blocks_per_request_at_len} blocks; "
            f"max concurrency: log {cap.reported_max_concurrency}x, "
            f"from blocks {cap.reconstructed_max_concurrency:.2f}x"
        )
    out.append(f"KV tokens: log {cap.reported_kv_tokens:,}, from blocks {cap.reconstructed_kv_tokens:,}")
    out += [f"MISMATCH {m}" for m in cap.mismatches]
    if plan is not None:
        verdict = "fit" if plan.fits_with_spec else "do NOT fit"
        cost = plan.capacity_cost_of_speculation_percent
        out += [
            f"plan: {plan.requests} requests x {plan.tokens:,} tokens, max-num-seqs {plan.max_num_seqs} "
            f"({plan.max_num_seqs_source}): {verdict}",
            f"  with the speculative reservation: {plan.fit_with_spec} at once "
            f"({plan.blocks_per_request_with_spec} blocks each; limited by {plan.limited_by})",
            f"  without it: {plan.fit_without_spec} at once ({plan.blocks_per_request_without_spec} blocks each)",
            "  capacity cost of speculation: " + ("n/a" if cost is None else f"{cost:.1f}%"),
        ]
    return out
