"""The speedup-by-k table of a run that swept the draft length (``bench --k``, issue 16; seed 003's shape).

Configs named ``NAME-kK`` (:mod:`specscope.kaxis`) are grouped by ``NAME``; per workload and concurrency the
table gives each k's paired speedup over the baseline with its interval and verdict (the run's judgement,
:mod:`specscope.stats.judgement`: the same figures as the speedup table) and marks the judgement's best k
(:mod:`specscope.stats.best_k`); a k with no round
paired with an ok baseline round shows no speedup and 0 rounds.

Where the server log gave them (the run's stored server facts, ``log_facts`` of
:class:`specscope.launch.logfacts.LogFacts`: vLLM's ``GPU KV cache size: N tokens`` and ``Maximum concurrency for
L tokens per request: X.XXx``), each k also shows its KV pool (tokens) and maximum concurrency (requests of L
tokens), with the change against the baseline's: a larger k reserves more lookahead slots (seed 003, a fixed 14 GiB:
447,637 tokens with no draft, 414,553 at k=1, 386,698 at k=5, 380,252 at k=6).
"""

from __future__ import annotations

from collections.abc import Sequence

from specscope.facts import RunFacts
from specscope.kaxis import k_name, split_k_name
from specscope.report import units
from specscope.report.document import Cell, Column, Table, text_cell
from specscope.report.tables import speedup_cell
from specscope.stats.judgement import Judgement
from specscope.stats.summary import CellSummary
from specscope.stats.verdict import Comparison
from specscope.values import ratio_text

__all__ = ["k_table"]


def _k_speedups(
    cells: Sequence[CellSummary], speedups: Sequence[Comparison]
) -> list[tuple[str, int, str, int, Comparison | None]]:
    """(method, k, workload, N, comparison or None) of every config on the k axis, one per workload and N it ran;
    None when no round pairs with the baseline (degraded or missing cells). Configs not named ``NAME-kK`` are
    left out. ``speedups``: the run's comparisons (the judgement's, the report's one source of them)."""
    groups = sorted({(c.config, c.workload, c.concurrency) for c in cells if split_k_name(c.config)[1] is not None})
    found = {(s.config, s.workload, s.level): s for s in speedups}
    out = []
    for config, workload, level in groups:
        method, k = split_k_name(config)
        out.append((method, k or 0, workload, level, found.get((config, workload, level))))
    return out


def _kv(facts: RunFacts, config: str) -> tuple[int | None, float | None, int | None]:
    """KV pool (tokens), maximum concurrency (requests) and its request length (tokens) from ``config``'s log (its
    :class:`specscope.facts.LogFacts`: ``kv_cache_size_tokens``, ``max_concurrency_requests``,
    ``max_concurrency_at_len_tokens``)."""
    logs = facts.of(config).log_facts
    if logs is None:
        return None, None, None
    return logs.kv_cache_size_tokens, logs.max_concurrency_requests, logs.max_concurrency_at_len_tokens


def _change(value: float | None, ref: float | None) -> str:
    return units.change(None if value is None or not ref else value / ref - 1.0)


def _kv_cells(facts: RunFacts, config: str, baseline: str) -> list[Cell]:
    """The KV pool (with the change against ``baseline``'s) and maximum concurrency cells of ``config``."""
    tokens, conc, _ = _kv(facts, config)
    ref_tokens = _kv(facts, baseline)[0]
    pool = units.count(tokens)
    pool = pool if tokens is None else Cell(pool.value, pool.text + _change(tokens, ref_tokens))
    return [pool, units.missing() if conc is None else Cell(conc, ratio_text(conc))]


def _kv_note(facts: RunFacts, configs: Sequence[str], baseline: str) -> str:
    """Where the KV figures come from, the request length(s) of the concurrency, and the baseline's figures."""
    lengths = sorted({at for c in [baseline, *configs] if (at := _kv(facts, c)[2]) is not None})
    note = (
        " KV pool and max concurrency: from each config's vLLM start-up log (GPU/CPU KV cache size, Maximum "
        "concurrency for L tokens per request)"
    )
    if lengths:
        note += f" at L = {' / '.join(f'{n:,}' for n in lengths)} tokens per request"
    tokens, conc, _ = _kv(facts, baseline)
    if tokens is not None or conc is not None:
        pool = "—" if tokens is None else f"{tokens:,} tokens"
        most = "—" if conc is None else ratio_text(conc)
        note += f"; {baseline} (no draft): {pool}, {most}; the pool's change against it in brackets"
    return note + "; — where the log gave none."


def k_table(
    cells: Sequence[CellSummary],
    baseline: str,
    server_facts: RunFacts | None = None,
    judgement: Judgement | None = None,
) -> list[Table]:
    """``[Table]`` of speedup by k, or ``[]`` when the run has no ``NAME-kK`` config.

    ``server_facts`` (config -> stored facts): when any k config's log gave its KV pool or maximum concurrency, the
    table gains those two columns (see the module doc). ``judgement``: the run's (None: the run has no baseline and
    another config), whose comparisons and best k (:func:`specscope.stats.best_k.best_k`) this table shows.
    """
    rows = _k_speedups(cells, () if judgement is None else judgement.comparisons)
    if not rows:
        return []
    facts = server_facts or RunFacts()
    k_configs = sorted({c.config for c in cells if split_k_name(c.config)[1] is not None})
    with_kv = any(_kv(facts, c)[:2] != (None, None) for c in k_configs)
    best = {} if judgement is None else dict(judgement.best_k)
    rows.sort(key=lambda r: (r[2], r[3], r[0], r[1]))
    table_rows = []
    for method, k, workload, level, s in rows:
        mark = "best" if best.get((method, workload, level)) == k else ""
        speed = speedup_cell(s)
        table_rows.append(
            [
                text_cell(workload),
                units.count(level),
                text_cell(method),
                units.count(k),
                speed,
                units.count(s.rounds if s is not None else 0),
                text_cell(mark),
                *(_kv_cells(facts, k_name(method, k), baseline) if with_kv else []),
            ]
        )
    columns = [
        Column("workload"),
        Column("N", "streams"),
        Column("method"),
        Column("k", "tokens"),
        Column(f"speedup vs {baseline}", "x"),
        Column("rounds"),
        Column("best k"),
    ]
    note = (
        "Speedup: geometric mean of the paired per-round ratios of output tok/s with its 95% t-interval on log "
        "ratios and verdict (rounds: each row's count); best k: the highest speedup per workload, N and method."
    )
    if with_kv:
        columns += [Column("KV pool", "tokens"), Column("max concurrency", "x")]
        note += _kv_note(facts, k_configs, baseline)
    return [Table("speedup-by-k", "Speedup by draft length k", columns, table_rows, note)]
