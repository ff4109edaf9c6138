"""Tables from what the servers said about themselves, read from the run's stored server facts.

* the seed card's KV table (seed 000, "The KV cost nobody mentions": config, weights loaded, KV cache
  tokens, KV cache GiB, max concurrency at the max model length, changes against base), from the
  ``log_facts`` that ``specscope.launch`` parsed out of each vLLM start-up log (field names and units
  are those of ``specscope.launch.logfacts.LogFacts``: ``*_gib`` GiB, ``*_tokens`` tokens);
* failure signatures found in a log;
* the embedded engine's draft models;
* a facts table per config (engine, model, speculative method and k, URL, command line) instead of a
  raw JSON dump.
"""

from __future__ import annotations

from collections.abc import Mapping

from specscope.facts import LogFacts, RunFacts, ServerFacts
from specscope.report import units
from specscope.report.document import Cell, Column, Table, text_cell
from specscope.stats.server_spec import served_model, spec_k, spec_method
from specscope.values import ratio_text

__all__ = ["server_tables", "commands_table", "facts_table", "spec_method", "spec_k"]


def _rel(value: float | None, ref: float | None) -> float | None:
    return None if value is None or ref is None or ref == 0 else value / ref - 1.0


def kv_table(facts: RunFacts, baseline: str) -> Table:
    """One row per config with a parsed vLLM log; changes are against ``baseline`` when it has a log."""
    ref = facts.of(baseline).log_facts
    rows = []
    for c, f in _logs(facts):
        is_ref = c == baseline or ref is None
        tokens, conc = f.kv_cache_size_tokens, f.max_concurrency_requests
        t_cell = units.count(tokens)
        c_cell = units.missing() if conc is None else Cell(float(conc), ratio_text(conc))
        if not is_ref and ref is not None:
            t_cell = Cell(t_cell.value, t_cell.text + units.change(_rel(tokens, ref.kv_cache_size_tokens)))
            c_cell = Cell(c_cell.value, c_cell.text + units.change(_rel(conc, ref.max_concurrency_requests)))
        rows.append(
            [
                text_cell(c),
                units.gib(f.weights_loaded_gib),
                t_cell,
                units.gib(f.available_kv_cache_memory_gib),
                c_cell,
                units.count(f.max_concurrency_at_len_tokens),
            ]
        )
    return Table(
        "kv",
        "KV cache (from the vLLM start-up log)",
        [
            Column("config"),
            Column("weights loaded", "GiB"),
            Column("KV cache tokens", "tokens"),
            Column("KV cache", "GiB"),
            Column("max concurrency", "x"),
            Column("at tokens per request", "tokens"),
        ],
        rows,
        f"Read from each server's log at load time (structural, not timed); changes against {baseline}.",
    )


def _logs(facts: RunFacts) -> list[tuple[str, LogFacts]]:
    """(config, its parsed log's facts) of the configs whose servers' logs were parsed."""
    return [(c, f.log_facts) for c, f in facts.items() if f.log_facts is not None]


def _failures_table(facts: RunFacts, stable: Mapping[str, int] | None = None) -> Table | None:
    """One row per failure signature in a config's log; its fix names the case at hand: the highest concurrency
    at which this run measured the config without a failed cell (``stable``), when there is one."""
    rows = [
        [
            text_cell(c),
            text_cell(f.code),
            text_cell(f"line {f.line_number}: {f.explanation} Fix: {f.fix}{_seen(c, stable)}"),
        ]
        for c, v in _logs(facts)
        for f in v.failures
    ]
    if not rows:
        return None
    return Table(
        "failures",
        "Failure signatures in server logs",
        [Column("config"), Column("signature"), Column("meaning")],
        rows,
    )


def _drafts_table(facts: RunFacts) -> Table | None:
    drafts = {c: d for c, f in facts.items() if (d := f.draft) is not None and (d.path or d.quant or d.size_bytes)}
    if not drafts:
        return None
    rows = []
    for c, d in drafts.items():
        cost_ns = d.cost_ns_per_token
        size = d.size_bytes or 0
        rows.append(
            [
                text_cell(c),
                text_cell(str(d.quant)),
                Cell(size, f"{size / 2**20:.1f} MiB"),
                units.missing() if cost_ns is None else units.seconds(cost_ns / 1e9, digits=5),
            ]
        )
    return Table(
        "drafts",
        "Draft models (embedded engine)",
        [Column("config"), Column("type"), Column("size", "MiB"), Column("cost per token", "s")],
        rows,
        "Derived once from the target by re-quantization; cost measured running the draft alone (s per token it "
        "drafts by itself, when derived; a verify step costs more: `specscope predict RUN`'s overhead per drafted "
        "token also carries the target's wider verify batch).",
    )


def _model_name(f: ServerFacts) -> str:
    return served_model(f) or units.DASH


def facts_table(facts: RunFacts) -> Table | None:
    """One row per config: server kind, model, speculative method and k, URL (the command lines: :func:`commands_table`,
    a table of their own so that a long command wraps at the page's width, not in the last of seven columns)."""
    if not facts:
        return None
    rows = []
    for c, f in facts.items():
        rows.append(
            [
                text_cell(c),
                text_cell(str(f.kind or f.engine or units.DASH)),
                text_cell(_model_name(f)),
                text_cell(spec_method(c, f) or units.DASH),
                units.count(spec_k(c, f)),
                text_cell(str(f.base_url or units.DASH)),
            ]
        )
    return Table(
        "server_facts",
        "Servers",
        [
            Column("config"),
            Column("server"),
            Column("model"),
            Column("speculative method"),
            Column("k", "tokens"),
            Column("URL"),
        ],
        rows,
        "What each server said about itself when it started; the full record is in the JSON report.",
    )


def commands_table(facts: RunFacts) -> Table | None:
    """One row per config whose server's command line is known: the config and its command line."""
    rows = [[text_cell(c), text_cell(f.command_line)] for c, f in facts.items() if f.command_line]
    if not rows:
        return None
    return Table(
        "server_commands",
        "Server command lines",
        [Column("config"), Column("command line")],
        rows,
        "The command each server was started with, as the run stored it.",
    )


def _seen(config: str, stable: Mapping[str, int] | None) -> str:
    level = (stable or {}).get(config)
    return "" if level is None else f" (this run measured {config} without a failed cell up to N={level})"


def server_tables(facts: RunFacts, baseline: str = "base", stable: Mapping[str, int] | None = None) -> list[Table]:
    """KV table (configs with a parsed vLLM log), failure signatures (``stable``: config -> the highest level with
    every cell measured, named in the fix), draft models, the facts table, then the command lines."""
    tables = [
        kv_table(facts, baseline) if _logs(facts) else None,
        _failures_table(facts, stable),
        _drafts_table(facts),
        facts_table(facts),
        commands_table(facts),
    ]
    return [t for t in tables if t is not None]
