"""The seeds' KV table: what speculation costs in KV pool, per server config, read from each config's log.

Shape from seed 000 ("The KV cost nobody mentions"): config, weights loaded, KV cache tokens, max concurrency
at the max model length, and the change of max concurrency against the base config (MTP -10%, DFlash -40% in
that seed). Rows are data; rendering (GiB with two decimals, "7.02x (-10%)") belongs to the report.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict

from specscope.launch.logfacts import LogFacts

__all__ = ["KvRow", "kv_table"]


class KvRow(BaseModel):
    """One config's KV facts. ``*_change_vs_base`` are fractions (-0.10 = 10 % less than base), None for the
    base row itself, when there is no base, or when either side lacks the number."""

    model_config = ConfigDict(extra="forbid")

    config: str
    weights_loaded_gib: float | None
    kv_cache_size_tokens: int | None
    max_concurrency_requests: float | None
    max_concurrency_at_len_tokens: int | None
    kv_tokens_change_vs_base: float | None
    max_concurrency_change_vs_base: float | None


def _change(value: float | None, base: float | None) -> float | None:
    if value is None or base is None or base == 0:
        return None
    return value / base - 1.0


def kv_table(facts_by_config: Mapping[str, LogFacts], base: str = "base") -> list[KvRow]:
    """One row per config, in the mapping's order; changes are relative to the config named ``base``.

    Args:
        facts_by_config: config name -> LogFacts parsed from that config's server log.
        base: the name of the no-speculation config (no changes are computed when it is absent).
    """
    ref = facts_by_config.get(base)
    ref_kv_tokens = None if ref is None else ref.kv_cache_size_tokens
    ref_concurrency = None if ref is None else ref.max_concurrency_requests
    rows = []
    for name, f in facts_by_config.items():
        is_ref = name == base or ref is None
        rows.append(
            KvRow(
                config=name,
                weights_loaded_gib=f.weights_loaded_gib,
                kv_cache_size_tokens=f.kv_cache_size_tokens,
                max_concurrency_requests=f.max_concurrency_requests,
                max_concurrency_at_len_tokens=f.max_concurrency_at_len_tokens,
                kv_tokens_change_vs_base=None if is_ref else _change(f.kv_cache_size_tokens, ref_kv_tokens),
                max_concurrency_change_vs_base=(
                    None if is_ref else _change(f.max_concurrency_requests, ref_concurrency)
                ),
            )
        )
    return rows
