"""Capacity planning from a vLLM start-up log: the KV pool, what one request costs, what speculation reserves.

Everything comes from the engine's own statements (issue 26); nothing is assumed. vLLM's arithmetic
(vllm/v1/core/kv_cache_utils.py ``get_max_concurrency_for_kv_cache_config``, ``report_kv_cache_config``;
vllm/v1/core/kv_cache_manager.py ``allocate_slots``):

- ``Maximum concurrency for L tokens per request: C x`` = ``num_blocks / blocks_per_request(L)``, L the max model
  length; it already holds each request's per-group state, including a hybrid model's mamba speculative scratch
  (``2 + num_speculative_blocks`` blocks per mamba group in ``align`` mode, ``1 + ...`` otherwise).
- ``GPU KV cache size: T tokens`` is ``num_blocks x block_size`` up to the 0.2x releases (PR #13596; a hybrid model:
  ``num_blocks // G x block_size``, G the KV-cache groups) and ``int(C x L)`` in current builds (issue #54662, @
  22df3a3): a derived figure, so T / L rounds to C; a plain model's T / L rounds to C in both forms.
- ``# GPU blocks: N`` (V0, and V1 0.7) is the pool; with T (V0 ``... can be stored in KV cache (T)``) or with C at L
  it gives the block size: T / N, or C x L / N. Hybrid models log ``Setting attention block size to B tokens``;
  ``--block-size`` shows in the non-default args. Otherwise the block size is not in the log and is not assumed.
- while decoding, each running request holds ``min(tokens + k, max_model_len)`` slots: the k lookahead slots of
  speculation, capped at the max model length (the plan says how many of the k it adds). k is the configured
  ``num_speculative_tokens``, else the width of the SpecDecoding windows' per-position rates (V1 logs one rate per
  draft position), else 0 where a config line says there is no speculation; otherwise unknown, and nothing is
  decided with speculation (never k = 0).
- data parallelism (``data_parallel_size``, or the ``EngineCore_DPn`` ranks that logged a KV pool): each engine has
  its own pool and its own ``max_num_seqs``, and a request runs on one engine; the figures are per engine and a plan
  admits that many on each engine.
- a request longer than ``max_model_len`` never fits: vLLM refuses it.

A plan of R requests of L' tokens: at L' = L, vLLM's own concurrency (T / L when it rounds to C, more digits than
C) gives how many fit; otherwise blocks per request from the block size (``ceil(min(L' + k, L) / B)`` plus the hybrid
groups' state), or, with no block size, tokens against T (``approximate``: block rounding not counted).
``mismatches`` lists only two of the engine's own statements that disagree: T / L against C for a plain pool, N x B
against T, or a hybrid pool whose logged block size reproduces neither.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from specscope.errors import ConfigError
from specscope.launch.logfacts import LogFacts
from specscope.textsafe import shell_word
from specscope.values import parse_pairs, parse_token_count, ratio_text
from specscope.workload.context import MAX_CONTEXT_TOKENS

__all__ = ["KvCapacity", "CapacityPlan", "kv_capacity", "plan_capacity", "parse_plan_spec"]

_GIB = 1 << 30
DEFAULT_MAX_NUM_SEQS = 256  # vLLM's default --max-num-seqs (V1 on GPU)
_C_TOL = 0.005 + 1e-9  # C is printed with two decimals


class KvCapacity(BaseModel):
    """The KV pool of one server as its log states it (units in the names; None where the log does not say)."""

    model_config = ConfigDict(extra="forbid")

    block_size_tokens: int | None
    block_size_source: str
    kv_groups: int
    mamba_groups: int
    mamba_blocks_per_request: int
    num_speculative_tokens: int | None
    num_speculative_tokens_source: str
    spec_lookahead_tokens_per_request: int | None
    data_parallel_engines: int
    data_parallel_source: str
    max_model_len_tokens: int | None
    pool_blocks: int | None
    pool_blocks_source: str
    kv_cache_bytes: int | None
    block_bytes: int | None
    reported_kv_tokens: int | None
    reconstructed_kv_tokens: int | None
    concurrency_at_len_tokens: int | None
    reported_max_concurrency: float | None
    exact_max_concurrency: float | None
    reconstructed_max_concurrency: float | None
    blocks_per_request_at_len: int | None
    spec_scratch_blocks_per_request: int
    mismatches: list[str] = Field(default_factory=list)


class CapacityPlan(BaseModel):
    """Do ``requests`` requests of ``tokens`` tokens fit at once, with and without the speculative reservation?

    ``fit_*`` count the whole server (``fit_*_per_engine`` x ``data_parallel_engines``); ``fit_with_spec`` and
    ``fits_with_spec`` are None when k is unknown. The log's KV pool (and vLLM's "Maximum concurrency" line) was
    sized at the log's own ``max_num_seqs`` (``pool_max_num_seqs``; vLLM sizes the pool after a profiling run of
    that many sequences): at another max-num-seqs every ``fit*`` is None (unknown, issue 35) and
    ``fit_with_spec_at_pool_max_num_seqs`` gives the log's own answer. ``basis`` / ``basis_without_spec``: the
    figure each answer rests on. ``lookahead_slots_with_spec``: the lookahead slots the k adds to
    one request of ``tokens`` after the cap at ``max_model_len``. ``refusal``: why no request fits at all (longer
    than max_model_len), else None.
    """

    model_config = ConfigDict(extra="forbid")

    requests: int
    tokens: int
    max_num_seqs: int
    max_num_seqs_source: str
    data_parallel_engines: int
    blocks_per_request_without_spec: int | None
    blocks_per_request_with_spec: int | None
    lookahead_slots_with_spec: int | None
    fit_without_spec_per_engine: int | None
    fit_with_spec_per_engine: int | None
    fit_without_spec: int | None
    fit_with_spec: int | None
    fits_with_spec: bool | None
    fits_without_spec: bool | None
    limited_by: str
    basis: str
    approximate: bool
    capacity_cost_of_speculation_percent: float | None
    refusal: str | None = None
    basis_without_spec: str = ""
    pool_max_num_seqs: int | None = None
    pool_max_num_seqs_source: str = "not in the log (the server's own, unstated)"
    fit_with_spec_at_pool_max_num_seqs: int | None = None


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
            if length and conc is not None and abs(p / _reported_bpr(bs, length, g - 1, per_mamba, k) - conc) < _C_TOL:
                return g, p, True
    g = groups[0]
    return g, facts.gpu_blocks or g * t, False


def _block_size(facts: LogFacts) -> tuple[int | None, str]:
    """The block size and where the log says it; (None, why) when it does not."""
    if facts.block_size_tokens:
        return facts.block_size_tokens, "log (attention block size line or --block-size)"
    n, t = facts.gpu_blocks, facts.kv_cache_size_tokens
    if n and t and t % n == 0:
        return t // n, f"log (KV tokens {t:,} / # GPU blocks {n:,})"
    length, conc = facts.max_concurrency_at_len_tokens, facts.max_concurrency_requests
    if n and length and conc:
        bs = round(conc * length / n)
        if bs > 0 and abs(n * bs / length - conc) < _C_TOL:
            return bs, f"log (max concurrency {conc}x x {length:,} tokens / # GPU blocks {n:,})"
    return None, "not in the log (no block-size line, no --block-size, no # GPU blocks)"


def _kv_tokens(facts: LogFacts, bs: int | None) -> int | None:
    if facts.kv_cache_size_tokens:
        return facts.kv_cache_size_tokens
    return facts.gpu_blocks * bs if facts.gpu_blocks and bs else None


def _spec_k(facts: LogFacts) -> tuple[int | None, str]:
    """The k the server runs with and where the log says it; (None, why) when it does not."""
    spec = facts.speculative_config
    k = (spec or {}).get("num_speculative_tokens")
    if isinstance(k, int) and not isinstance(k, bool) and k >= 0:
        return k, f"log ({facts.speculative_config_source or 'speculative config'})"
    widths = [len(w.per_position_acceptance_rates) for w in facts.spec_decoding if w.per_position_acceptance_rates]
    if widths:
        return max(widths), f"SpecDecoding windows ({max(widths)} per-position rates)"
    if spec is None and facts.speculative_config_source is not None and not facts.spec_decoding:
        return 0, f"log ({facts.speculative_config_source}: no speculative config)"
    return None, "not in the log"


def _dp_engines(facts: LogFacts) -> tuple[int, str]:
    """Data-parallel engines, each with its own KV pool, and where the log says so."""
    seen = len(facts.kv_dp_ranks)
    if facts.data_parallel_size and facts.data_parallel_size >= seen:
        return facts.data_parallel_size, "log (data_parallel_size in the non-default args)"
    if seen > 1:
        return seen, f"log ({seen} EngineCore_DP ranks logged a KV pool)"
    return 1, "one engine (no data parallelism in the log)"


def kv_capacity(
    facts: LogFacts, *, kv_groups: int | None = None, engines: tuple[str, ...] = (), log: str = "LOG"
) -> KvCapacity:
    """The KV pool of ``facts`` from the engine's own statements (see the module docstring).

    Args:
        facts: a parsed start-up log.
        kv_groups: the number of KV-cache groups when known (e.g. from the model config); searched otherwise
            (1 for a plain model, 2..8 for a hybrid one).
        engines: the engines whose lines the log holds (``EngineLog.engine``), named in the refusal of a log of
            another engine than vLLM (its KV-cache lines are vLLM's), with ``log`` (the file's path) in the fix.

    Raises:
        ConfigError: the log states no KV capacity at all (nothing to plan from).
    """
    bs, bs_source = _block_size(facts)
    tokens = _kv_tokens(facts, bs)
    others = [e for e in engines if e != "vllm"]
    if tokens is None and facts.gpu_blocks is None and others and "vllm" not in engines:
        raise ConfigError(
            "the log has no KV cache size line to plan from",
            found=f"the log is {others[0]}'s: --plan reads vLLM's KV-cache start-up lines only "
            "('GPU KV cache size: N tokens', '# GPU blocks: N')",
            expected="a vLLM start-up log that reached the KV cache allocation",
            fix=f"`specscope serve --parse-log {shell_word(log)}` without --plan (the log's facts and acceptance); "
            "--plan takes a vLLM log",
        )
    if tokens is None and facts.gpu_blocks is None:
        raise ConfigError(
            "the log has no KV cache size line to plan from",
            found="no 'GPU KV cache size: N tokens' and no '# GPU blocks: N'",
            expected="a vLLM start-up log that reached the KV cache allocation",
            fix="pass the log of a server that started (the lines before 'Starting vLLM API server')",
        )
    k, k_source = _spec_k(facts)
    dp, dp_source = _dp_engines(facts)
    common = {
        "num_speculative_tokens": k,
        "num_speculative_tokens_source": k_source,
        "spec_lookahead_tokens_per_request": k,
        "data_parallel_engines": dp,
        "data_parallel_source": dp_source,
    }
    length, conc = facts.max_concurrency_at_len_tokens, facts.max_concurrency_requests
    max_len = facts.max_model_len_tokens or length
    if facts.hybrid_kv and bs:
        return _hybrid(facts, bs, bs_source, max_len, kv_groups, common)
    exact = tokens / length if tokens and length else None
    cap = KvCapacity(
        **common,
        block_size_tokens=bs,
        block_size_source=bs_source,
        kv_groups=1,
        mamba_groups=0,
        mamba_blocks_per_request=0,
        max_model_len_tokens=max_len,
        pool_blocks=facts.gpu_blocks or (tokens // bs if tokens and bs else None),
        pool_blocks_source="log (# GPU blocks)"
        if facts.gpu_blocks
        else ("KV tokens / block size" if bs else "unknown"),
        kv_cache_bytes=_kv_bytes(facts),
        block_bytes=None,
        reported_kv_tokens=facts.kv_cache_size_tokens,
        reconstructed_kv_tokens=facts.gpu_blocks * bs if facts.gpu_blocks and bs else None,
        concurrency_at_len_tokens=length,
        reported_max_concurrency=conc,
        exact_max_concurrency=exact if exact is not None and (conc is None or abs(exact - conc) < _C_TOL) else None,
        reconstructed_max_concurrency=None,
        blocks_per_request_at_len=math.ceil(length / bs) if length and bs else None,
        spec_scratch_blocks_per_request=0,
    )
    cap.block_bytes = cap.kv_cache_bytes // cap.pool_blocks if cap.kv_cache_bytes and cap.pool_blocks else None
    if exact is not None and conc is not None and abs(exact - conc) >= _C_TOL:
        cap.mismatches.append(
            f"KV tokens {tokens:,} / {length:,} tokens per request = {ratio_text(exact)}, "
            f"the log says {ratio_text(conc)}"
        )
    rt = cap.reconstructed_kv_tokens
    if rt is not None and facts.kv_cache_size_tokens and rt != facts.kv_cache_size_tokens:
        cap.mismatches.append(f"KV tokens: log {facts.kv_cache_size_tokens:,}, # GPU blocks x {bs} give {rt:,}")
    return cap


def _kv_bytes(facts: LogFacts) -> int | None:
    gib = facts.available_kv_cache_memory_gib
    return round(gib * _GIB) if gib else None


def _hybrid(
    facts: LogFacts, bs: int, bs_source: str, max_len: int | None, kv_groups: int | None, common: dict[str, Any]
) -> KvCapacity:
    """A hybrid (mamba / linear-attention) pool: G groups share the blocks; reconstruct G and the pool (an unknown k
    reconstructs with no speculative scratch)."""
    k = common["num_speculative_tokens"] or 0
    per_mamba = 2 if facts.mamba_cache_mode == "align" else 1
    groups = [kv_groups] if kv_groups else list(range(2, 9))
    g, pool, reproduced = _search_pool(facts, bs, k, per_mamba, groups)
    mamba = g - 1
    length = facts.max_concurrency_at_len_tokens
    bpr = _reported_bpr(bs, length, mamba, per_mamba, k) if length else None
    kv_bytes = _kv_bytes(facts)
    cap = KvCapacity(
        **common,
        block_size_tokens=bs,
        block_size_source=bs_source,
        kv_groups=g,
        mamba_groups=mamba,
        mamba_blocks_per_request=per_mamba,
        max_model_len_tokens=max_len,
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
        exact_max_concurrency=pool / bpr if bpr and reproduced else None,
        reconstructed_max_concurrency=round(pool / bpr, 4) if bpr else None,
        blocks_per_request_at_len=bpr,
        spec_scratch_blocks_per_request=mamba * k,
    )
    rc, rep = cap.reconstructed_max_concurrency, cap.reported_max_concurrency
    if not reproduced and rc is not None and rep is not None:  # the logged block size fits neither statement
        cap.mismatches.append(
            f"max concurrency at {length:,} tokens: log {ratio_text(rep)}, blocks give {ratio_text(rc)}"
        )
    return cap


def _lookahead(cap: KvCapacity, tokens: int, *, spec: bool) -> int | None:
    """Lookahead slots one running request of ``tokens`` holds: k, capped so that tokens + slots <= max_model_len
    (``kv_cache_manager.allocate_slots``); 0 without speculation, None when k is unknown and matters (a request
    at max_model_len gets no lookahead slot whatever k is, unless a hybrid pool's scratch blocks depend on it)."""
    if not spec:
        return 0
    k = cap.num_speculative_tokens
    if k is None:
        at_cap = cap.max_model_len_tokens is not None and tokens >= cap.max_model_len_tokens
        return 0 if at_cap and not cap.mamba_groups else None
    if cap.max_model_len_tokens is None:
        return k
    return max(0, min(k, cap.max_model_len_tokens - tokens))


def _blocks_per_request(cap: KvCapacity, tokens: int, slots: int, *, spec: bool) -> int | None:
    """Blocks one running request of ``tokens`` holds with ``slots`` lookahead slots (plus the hybrid groups' state)."""
    if cap.block_size_tokens is None:
        return None
    scratch = (cap.num_speculative_tokens or 0) if spec else 0
    return math.ceil((tokens + slots) / cap.block_size_tokens) + cap.mamba_groups * (
        cap.mamba_blocks_per_request + scratch
    )


def _fit(cap: KvCapacity, tokens: int, *, spec: bool) -> tuple[int | None, int | None, str, bool]:
    """(requests that fit on one engine or None when k is unknown, blocks each or None, basis, approximate)."""
    slots = _lookahead(cap, tokens, spec=spec)
    if slots is None:
        return None, None, "k is not in the log: the speculative reservation is unknown", False
    at_len = tokens == cap.concurrency_at_len_tokens and cap.max_model_len_tokens == tokens
    # vLLM's concurrency holds a hybrid pool's speculative scratch, so without speculation it serves plain pools only
    plain = not cap.mamba_groups or not cap.num_speculative_tokens
    if at_len and cap.exact_max_concurrency is not None and (spec or plain):
        basis = f"vLLM's own concurrency at {tokens:,} tokens ({cap.exact_max_concurrency:.4f}x)"
        return math.floor(cap.exact_max_concurrency + 1e-9), cap.blocks_per_request_at_len, basis, False
    bpr = _blocks_per_request(cap, tokens, slots, spec=spec)
    if bpr is not None and cap.pool_blocks:
        return cap.pool_blocks // bpr, bpr, f"{cap.pool_blocks} blocks / {bpr} blocks per request", False
    pool_tokens = cap.reported_kv_tokens or 0
    need = tokens + slots
    basis = f"{pool_tokens:,} KV tokens / {need:,} tokens per request (block size not in the log)"
    return pool_tokens // need, None, basis, True


def _borrowed(cap: KvCapacity, requests: int, tokens: int, seqs: int, pool_seqs: int) -> CapacityPlan:
    """The plan at a max-num-seqs other than the one the log's pool was sized at: unknown, with the log's own
    answer at its own max_num_seqs beside it (never the log's pool stretched to ``seqs`` sequences)."""
    own = plan_capacity(cap, requests=requests, tokens=tokens, max_num_seqs=pool_seqs, log_max_num_seqs=pool_seqs)
    why = (
        f"the log's KV pool was sized at its own max_num_seqs {pool_seqs} (vLLM profiles a batch of max_num_seqs "
        f"sequences before it sizes the pool): at max-num-seqs {seqs} the pool is not in this log"
    )
    unknown = ("fit_without_spec_per_engine", "fit_with_spec_per_engine", "fit_without_spec", "fit_with_spec")
    return own.model_copy(
        update={
            "max_num_seqs": seqs,
            "max_num_seqs_source": "plan",
            **dict.fromkeys((*unknown, "fits_with_spec", "fits_without_spec"), None),
            "capacity_cost_of_speculation_percent": None,
            "limited_by": "unknown",
            "basis": why,
            "basis_without_spec": why,
            "approximate": False,
            "fit_with_spec_at_pool_max_num_seqs": own.fit_with_spec,
        }
    )


def plan_capacity(
    cap: KvCapacity,
    *,
    requests: int,
    tokens: int,
    max_num_seqs: int | None = None,
    log_max_num_seqs: int | None = None,
) -> CapacityPlan:
    """How many of ``requests`` concurrent requests of ``tokens`` tokens (prompt + output) the pools and
    ``max_num_seqs`` admit, with the speculative reservation (as the log's server runs) and without it.

    Each data-parallel engine has its own pool and ``max_num_seqs``: the per-engine figure times the engines.
    A request longer than ``max_model_len`` fits nowhere. ``capacity_cost_of_speculation_percent`` = (fit without -
    fit with) / fit without x 100 (None when k is unknown). ``log_max_num_seqs``: the max_num_seqs the log
    states its server ran with (its pool was sized at it); a plan at another one is unknown (:func:`_borrowed`).
    """
    seqs = max_num_seqs or log_max_num_seqs or DEFAULT_MAX_NUM_SEQS
    if log_max_num_seqs is not None and seqs != log_max_num_seqs:
        return _borrowed(cap, requests, tokens, seqs, log_max_num_seqs)
    dp = cap.data_parallel_engines
    refusal = None
    if cap.max_model_len_tokens is not None and tokens > cap.max_model_len_tokens:
        refusal = f"a request of {tokens:,} tokens is longer than max_model_len {cap.max_model_len_tokens:,}"
    kv_without: int | None
    kv_with: int | None
    if refusal is not None:
        kv_without = kv_with = 0
        without = with_spec = None
        basis, approx, approx_without = f"{refusal}: vLLM refuses it", False, False
        basis_without = basis
        slots: int | None = _lookahead(cap, tokens, spec=True) if cap.num_speculative_tokens is not None else None
    else:
        kv_without, without, basis_without, approx_without = _fit(cap, tokens, spec=False)
        kv_with, with_spec, basis, approx = _fit(cap, tokens, spec=True)
        slots = _lookahead(cap, tokens, spec=True)
    kv_without = kv_without or 0
    per_without = min(seqs, kv_without)
    per_with = None if kv_with is None else min(seqs, kv_with)
    fit_without = per_without * dp
    fit_with = None if per_with is None else per_with * dp
    if refusal is not None:
        limited_by = "max_model_len"
    elif per_with is not None and kv_with is not None and per_with == seqs and kv_with > seqs:
        limited_by = "max-num-seqs"
    else:
        limited_by = "KV pool"
    cost = (fit_without - fit_with) / fit_without * 100 if fit_without and fit_with is not None else None
    if max_num_seqs:
        seqs_source = "plan"
    else:
        seqs_source = "log (non-default args)" if log_max_num_seqs else f"assumed: vLLM default {DEFAULT_MAX_NUM_SEQS}"
    return CapacityPlan(
        requests=requests,
        tokens=tokens,
        max_num_seqs=seqs,
        max_num_seqs_source=seqs_source,
        basis_without_spec=basis_without,
        pool_max_num_seqs=log_max_num_seqs,
        pool_max_num_seqs_source="log (non-default args)"
        if log_max_num_seqs
        else CapacityPlan.model_fields["pool_max_num_seqs_source"].default,
        data_parallel_engines=dp,
        blocks_per_request_without_spec=without,
        blocks_per_request_with_spec=with_spec,
        lookahead_slots_with_spec=slots,
        fit_without_spec_per_engine=per_without,
        fit_with_spec_per_engine=per_with,
        fit_without_spec=fit_without,
        fit_with_spec=fit_with,
        fits_with_spec=None if fit_with is None else requests <= fit_with,
        fits_without_spec=requests <= fit_without,
        limited_by=limited_by,
        basis=basis,
        approximate=approx or approx_without,
        capacity_cost_of_speculation_percent=cost,
        refusal=refusal,
    )


_PLAN_KEYS = {"requests": "requests", "tokens": "tokens", "max-num-seqs": "max_num_seqs", "kv-groups": "kv_groups"}


def parse_plan_spec(spec: str) -> dict[str, int]:
    """``"requests=20,tokens=32768,max-num-seqs=20[,kv-groups=4]"`` -> {"requests": 20, ...}, read by the one
    NAME=VALUE parser (:func:`specscope.values.parse_pairs`: no empty item, each name once).

    Raises:
        ConfigError: an empty item, a key given twice, an unknown key, a value that is not a positive integer (ASCII
            digits: ``str.isdigit`` took ``³`` and ``int`` raised; ``tokens`` is a token count, ``32k`` = 32768, read
            by :func:`specscope.values.parse_token_count`), or requests / tokens missing.
    """
    example = "requests=20,tokens=32k,max-num-seqs=20"
    out: dict[str, int] = {}
    for key, value in parse_pairs(spec, "--plan", example, str).items():
        if key == "tokens":  # a token count, read as --context-tokens reads one (2k = 2048)
            out["tokens"] = _plan_tokens(value, example)
        elif key not in _PLAN_KEYS or not (value.isascii() and value.isdigit()) or int(value) < 1:
            raise ConfigError(
                "--plan takes KEY=positive integer pairs",
                found=f"{key}={value}",
                expected=", ".join(f"{k}=N" for k in _PLAN_KEYS),
                fix=f"e.g. --plan {example}",
            )
        else:
            out[_PLAN_KEYS[key]] = int(value)
    missing = [k for k in ("requests", "tokens") if k not in out]
    if missing:
        raise ConfigError(
            "--plan needs requests and tokens",
            found=spec,
            expected="requests=N,tokens=N[,max-num-seqs=N][,kv-groups=N]",
            fix=f"e.g. --plan {example}",
        )
    return out


def _plan_tokens(value: str, example: str) -> int:
    """``--plan``'s ``tokens=`` value by the one token-count parser (``32k`` = 32768); its refusal names the pair."""
    try:
        return parse_token_count(value, "--plan tokens", (1, MAX_CONTEXT_TOKENS), "32k", "no model's context is longer")
    except ConfigError as e:
        raise ConfigError(
            "--plan's tokens takes a token count",
            found=f"tokens={value}",
            expected=e.expected,
            fix=f"e.g. --plan {example}",
        ) from None


def capacity_from_log(
    facts: LogFacts, spec: str | None = None, *, engines: tuple[str, ...] = (), log: str = "LOG"
) -> tuple[KvCapacity, CapacityPlan | None]:
    """:func:`kv_capacity` of ``facts`` and, when ``spec`` (``--plan`` text) is given, :func:`plan_capacity`.

    ``max-num-seqs`` defaults to the log's own ``max_num_seqs`` (non-default args), then vLLM's default; a plan at
    another max-num-seqs than the log's own is unknown (the pool was sized at the log's). ``engines`` and ``log``:
    as :func:`kv_capacity` takes them.
    """
    values = parse_plan_spec(spec) if spec is not None else {}
    cap = kv_capacity(facts, kv_groups=values.get("kv_groups"), engines=engines, log=log)
    if spec is None:
        return cap, None
    logged = (facts.non_default_args or {}).get("max_num_seqs")
    own = logged if isinstance(logged, int) and not isinstance(logged, bool) and logged > 0 else None
    plan = plan_capacity(
        cap,
        requests=values["requests"],
        tokens=values["tokens"],
        max_num_seqs=values.get("max_num_seqs"),
        log_max_num_seqs=own,
    )
    return cap, plan


def _k_text(cap: KvCapacity) -> str:
    k = cap.num_speculative_tokens
    source = cap.num_speculative_tokens_source
    return f"k unknown: {source}" if k is None else f"k={k}, {source}"


def _borrowed_lines(plan: CapacityPlan) -> list[str]:
    """A plan at another max-num-seqs than the log's: unknown, the log's own answer beside it, and the fix."""
    own, seqs = plan.fit_with_spec_at_pool_max_num_seqs, plan.pool_max_num_seqs
    return [
        f"plan: {plan.requests} requests x {plan.tokens:,} tokens, max-num-seqs {plan.max_num_seqs} (plan): unknown",
        f"  {plan.basis}",
        f"  at the log's own max_num_seqs {seqs}: "
        + ("unknown (k not in the log)" if own is None else f"{own} at once with the speculative reservation"),
        f"  fix: start the server with --max-num-seqs {plan.max_num_seqs} and parse its log, or plan at "
        f"max-num-seqs={seqs}",
        "  capacity cost of speculation: unknown",
    ]


def _plan_lines(cap: KvCapacity, plan: CapacityPlan) -> list[str]:
    """The plan's verdict, per-engine counts, the figure each answer rests on, and what the lookahead adds."""
    if plan.limited_by == "unknown":
        return _borrowed_lines(plan)
    if plan.fits_with_spec is None:
        verdict = ("fit" if plan.fits_without_spec else "do NOT fit") + " without speculation; with speculation unknown"
        verdict += " (k not in the log)"
    else:
        verdict = "fit" if plan.fits_with_spec else "do NOT fit"
    dp = plan.data_parallel_engines

    def at_once(total: int | None, per: int | None) -> str:
        if total is None:
            return "unknown (k not in the log)"
        return f"{total} at once" + (f" ({per} per engine x {dp} data-parallel engines)" if dp > 1 else "")

    with_bpr = plan.blocks_per_request_with_spec
    each_with = "" if with_bpr is None else f"{with_bpr} blocks each; "
    each_without = (
        "" if plan.blocks_per_request_without_spec is None else f" ({plan.blocks_per_request_without_spec} blocks each)"
    )
    cost = plan.capacity_cost_of_speculation_percent
    out = [
        f"plan: {plan.requests} requests x {plan.tokens:,} tokens, max-num-seqs {plan.max_num_seqs} "
        f"({plan.max_num_seqs_source}{', per engine' if dp > 1 else ''}): {verdict}"
        + (" (approximate)" if plan.approximate else ""),
    ]
    if plan.refusal:
        out.append(f"  {plan.refusal}: vLLM refuses it, so none fits")
    pool = (
        f"the KV pool sized at max_num_seqs {plan.pool_max_num_seqs} (log, non-default args)"
        if plan.pool_max_num_seqs
        else "the KV pool sized at the server's own max_num_seqs, which the log does not state"
    )
    limit = f"max-num-seqs {plan.max_num_seqs}" if plan.limited_by == "max-num-seqs" else plan.limited_by
    out += [
        f"  with the speculative reservation: {at_once(plan.fit_with_spec, plan.fit_with_spec_per_engine)} "
        f"({each_with}limited by {limit})",
        f"  without it: {at_once(plan.fit_without_spec, plan.fit_without_spec_per_engine)}{each_without}",
        f"  basis with it: {plan.basis}; without it: {plan.basis_without_spec}; {pool}",
    ]
    k, slots, max_len = cap.num_speculative_tokens, plan.lookahead_slots_with_spec, cap.max_model_len_tokens
    if k and slots is not None and slots < k and max_len is not None:
        capped = f"(capped at max_model_len {max_len:,})"
        out.append(f"  lookahead: k={k} adds {slots} slots at {plan.tokens:,} tokens {capped}")
    elif k and slots is not None:
        out.append(f"  lookahead: k={k} adds {slots} slots per request")
    out.append("  capacity cost of speculation: " + ("n/a" if cost is None else f"{cost:.1f}%"))
    return out


def capacity_lines(cap: KvCapacity, plan: CapacityPlan | None) -> list[str]:
    """The capacity section as plain text lines (the terminal form of ``serve --parse-log FILE [--plan ...]``).
    With data-parallel engines every pool figure is one engine's."""
    gib = f"{cap.kv_cache_bytes / _GIB:.2f} GiB" if cap.kv_cache_bytes else "unknown"
    block = f"{cap.block_bytes / (1 << 20):.2f} MiB" if cap.block_bytes else "unknown"
    bs = "unknown" if cap.block_size_tokens is None else f"{cap.block_size_tokens} tokens"
    pool = "unknown" if cap.pool_blocks is None else f"{cap.pool_blocks} blocks"
    dp = cap.data_parallel_engines
    per_engine = f" per engine ({dp} data-parallel engines, each its own pool)" if dp > 1 else ""
    lookahead = "unknown" if cap.spec_lookahead_tokens_per_request is None else cap.spec_lookahead_tokens_per_request
    out = [
        f"KV pool: {pool} x {block} per block = {gib} ({cap.pool_blocks_source}){per_engine}",
        f"block size: {bs} ({cap.block_size_source}); KV-cache groups: {cap.kv_groups}"
        + (f" (1 attention + {cap.mamba_groups} mamba)" if cap.mamba_groups else ""),
        f"speculative reservation per request ({_k_text(cap)}): {lookahead}"
        f" lookahead slots (capped at the max model length) + {cap.spec_scratch_blocks_per_request} scratch blocks",
    ]
    if cap.concurrency_at_len_tokens:
        rc = cap.reconstructed_max_concurrency
        out.append(
            f"max concurrency at {cap.concurrency_at_len_tokens:,} tokens: log {cap.reported_max_concurrency}x"
            + ("" if rc is None else f", from blocks {ratio_text(rc)} ({cap.blocks_per_request_at_len} blocks each)")
            + (" per engine" if dp > 1 else "")
        )
    reported = "unknown" if cap.reported_kv_tokens is None else f"{cap.reported_kv_tokens:,}"
    rebuilt = "" if cap.reconstructed_kv_tokens is None else f", from blocks {cap.reconstructed_kv_tokens:,}"
    out.append(f"KV tokens: log {reported}{rebuilt}{per_engine}")
    out += [f"MISMATCH {m}" for m in cap.mismatches]
    if plan is not None:
        out += _plan_lines(cap, plan)
    return out
