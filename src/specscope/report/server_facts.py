"""Tables from what the servers said about themselves: the seed card's KV table (vLLM start-up log),
failure signatures found in a log, and the embedded engine's draft model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from specscope.report.tables import DASH, ReportTable

__all__ = ["server_tables"]


def _pct(x: float | None) -> str:
    return "" if x is None else f" ({x * 100:+.0f}%)"


def server_tables(facts: Mapping[str, dict[str, Any]], baseline: str = "base") -> list[ReportTable]:
    """KV table (configs launched by specscope with a parsed vLLM log), failures, and draft models."""
    tables: list[ReportTable] = []
    logs = {c: f["log_facts"] for c, f in facts.items() if isinstance(f.get("log_facts"), dict)}
    if logs:
        from specscope.launch.kv_table import kv_table
        from specscope.launch.logfacts import LogFacts

        rows = []
        for r in kv_table({c: LogFacts.model_validate(v) for c, v in logs.items()}, base=baseline):
            rows.append(
                [
                    r.config,
                    DASH if r.weights_loaded_gib is None else f"{r.weights_loaded_gib:.2f} GiB",
                    DASH
                    if r.kv_cache_size_tokens is None
                    else f"{r.kv_cache_size_tokens:,}" + _pct(r.kv_tokens_change_vs_base),
                    DASH
                    if r.max_concurrency_requests is None
                    else f"{r.max_concurrency_requests:.2f}x" + _pct(r.max_concurrency_change_vs_base),
                    DASH if r.max_concurrency_at_len_tokens is None else f"{r.max_concurrency_at_len_tokens:,}",
                ]
            )
        tables.append(
            ReportTable(
                "KV cache (from the vLLM start-up log)",
                ["config", "weights loaded", "KV cache tokens", "max concurrency", "at tokens per request"],
                rows,
                f"Read from each server's log at load time (structural, not timed); changes against {baseline}.",
                key="kv",
            )
        )
        rows = [
            [c, f.get("code", ""), f"line {f.get('line_number')}: {f.get('explanation', '')} Fix: {f.get('fix', '')}"]
            for c, v in logs.items()
            for f in v.get("failures") or []
        ]
        if rows:
            tables.append(
                ReportTable(
                    "Failure signatures in server logs", ["config", "signature", "meaning"], rows, key="failures"
                )
            )
    drafts = {c: f["draft"] for c, f in facts.items() if isinstance(f.get("draft"), dict)}
    if drafts:
        rows = []
        for c, d in drafts.items():
            cost = d.get("cost_ns_per_token")
            rows.append(
                [
                    c,
                    str(d.get("quant")),
                    f"{d.get('size_bytes', 0) / 1e6:.1f} MB",
                    DASH if cost is None else f"{cost / 1e6:.2f} ms",
                ]
            )
        tables.append(
            ReportTable(
                "Draft models (embedded engine)",
                ["config", "type", "size", "cost per token"],
                rows,
                "Derived once from the target by re-quantization; cost measured running the draft alone.",
                key="drafts",
            )
        )
    return tables
