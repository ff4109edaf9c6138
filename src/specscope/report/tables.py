"""The seed-card tables of a bench run, as plain data (:class:`ReportTable`) that every renderer shares.

Only cells with status ``ok`` enter averages; degraded, failed and crashed cells are listed in their own
table and never averaged in silently. Means are over repeats. Acceptance is pooled over cells
(sum accepted / sum drafted, from the counter deltas), not a mean of ratios.
Display units are chosen here (tok/s, s, %); the stored figures carry their units in their names.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from specscope.stats.speedup import coefficient_of_variation
from specscope.stats.summary import CellSummary

__all__ = ["ReportTable", "bench_tables", "BASELINE"]

BASELINE = "base"
DASH = "—"


@dataclass
class ReportTable:
    """One table: a title, column names, rows of display strings, and an optional note under it."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    note: str = ""
    key: str = ""
    data: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"key": self.key, "title": self.title, "columns": self.columns, "rows": self.rows, "note": self.note}


def _ordered(values: Sequence[str]) -> list[str]:
    seen: dict[str, None] = {}
    for v in values:
        seen.setdefault(v, None)
    return list(seen)


def _mean(xs: Sequence[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return float(np.mean(vals)) if vals else None


def _fmt(x: float | None, spec: str = ".1f") -> str:
    return DASH if x is None else format(x, spec)


def _pct(x: float | None) -> str:
    return DASH if x is None else f"{x:+.1f}%"


def _pooled_acceptance(cells: Sequence[CellSummary]) -> tuple[float | None, float | None]:
    """(rate, length) pooled over cells: sum accepted / sum draft tokens, 1 + sum accepted / sum drafts."""
    acc = dt = drafts = 0.0
    per_req_acc = per_req_dt = 0
    for c in cells:
        if c.acceptance_source == "counter_delta" and c.counters:
            acc += c.counters["accepted_tokens"]
            dt += c.counters["draft_tokens"]
            drafts += c.counters["drafts"]
        elif c.acceptance_source == "per_request":
            per_req_acc += c.per_request_accepted_tokens or 0
            per_req_dt += c.per_request_draft_tokens or 0
    if dt > 0:
        return acc / dt, (1 + acc / drafts) if drafts else None
    if per_req_dt > 0:
        return per_req_acc / per_req_dt, None
    return None, None


def bench_tables(summaries: Sequence[CellSummary], baseline: str = BASELINE) -> list[ReportTable]:
    """All tables of a bench run, in reading order; speedups are against the config ``baseline``."""
    BASE = baseline
    ok = [s for s in summaries if s.status == "ok"]
    configs = _ordered([s.config for s in summaries])
    workloads = _ordered([s.workload for s in summaries])
    levels = sorted({s.concurrency for s in summaries})
    by: dict[tuple[str, str, int], list[CellSummary]] = defaultdict(list)
    for s in ok:
        by[(s.config, s.workload, s.concurrency)].append(s)
    tables: list[ReportTable] = []

    # 1. acceptance by config x workload
    rows = []
    for c in configs:
        cells_c = [s for s in ok if s.config == c]
        drafted = any(s.acceptance_source or (s.counters or {}).get("drafts", 0) > 0 for s in cells_c)
        if not cells_c or not any(s.counters or s.acceptance_source for s in cells_c) or (c == BASE and not drafted):
            continue
        row = [c]
        for w in workloads:
            here = [s for s in cells_c if s.workload == w]
            rate, length = _pooled_acceptance(here)
            if rate is not None:
                row.append(f"{rate:.3f}" + (f" (len {length:.2f})" if length else ""))
            elif here and all(s.counters and s.counters.get("drafts", 0) == 0 for s in here):
                row.append("0 drafts")
            else:
                row.append(DASH)
        rows.append(row)
    tables.append(
        ReportTable(
            "Acceptance rate by config x workload (accepted / drafted; acceptance length in brackets)",
            ["config", *workloads],
            rows,
            "From the server's spec-decode counter deltas around each cell, pooled over ok cells. "
            "Acceptance rate excludes the bonus token; acceptance length = 1 + accepted / drafts includes it.",
            key="acceptance",
        )
    )

    # 2. aggregate throughput per workload
    others = [c for c in configs if c != BASE]
    for w in workloads:
        cols = ["N"] + ([BASE] if BASE in configs else [])
        for c in others:
            cols += [c] + ([f"{c} vs {BASE}"] if BASE in configs else [])
        rows = []
        for n in levels:
            base = _mean([s.output_tok_s for s in by.get((BASE, w, n), [])])
            row = [str(n)] + ([_fmt(base)] if BASE in configs else [])
            for c in others:
                v = _mean([s.output_tok_s for s in by.get((c, w, n), [])])
                row.append(_fmt(v))
                if BASE in configs:
                    row.append(_pct(None if v is None or not base else (v / base - 1) * 100))
            rows.append(row)
        tables.append(
            ReportTable(
                f"Aggregate output tok/s — {w}",
                cols,
                rows,
                "Sum of usage.completion_tokens / (last stream end - first send), mean over ok repeats.",
                key=f"throughput:{w}",
            )
        )

    # 2b. paired speedup with its bootstrap interval and verdict
    if BASE in configs and len(configs) > 1:
        from specscope.stats.speedup import few_repeats_note, paired_speedups

        sp = paired_speedups(summaries, baseline=BASE)
        by_sp = {(x.config, x.workload, x.concurrency): x for x in sp}
        rows = []
        for w in workloads:
            for n in levels:
                row = [w, str(n)]
                for c in others:
                    x = by_sp.get((c, w, n))
                    if x is None or x.speedup is None:
                        row.append(DASH)
                    elif x.ci_low is None:
                        row.append(f"{x.speedup:.2f}x (undetermined)")
                    else:
                        row.append(f"{x.speedup:.2f}x [{x.ci_low:.2f}, {x.ci_high:.2f}] {x.verdict}")
                rows.append(row)
        n_rounds = min((x.repeats for x in sp), default=0)
        tables.append(
            ReportTable(
                f"Speedup vs {BASE} (aggregate tok/s, 95% paired bootstrap CI over repeats, verdict)",
                ["workload", "N", *others],
                rows,
                "An interval containing 1.0 is within noise, never a win. " + few_repeats_note(n_rounds),
                key="speedup",
            )
        )

    # 3. per-stream spread at the highest level
    top = levels[-1] if levels else None
    if top is not None:
        rows = []
        for w in workloads:
            row = [w]
            for c in configs:
                cells = by.get((c, w, top), [])
                qs = [np.percentile(s.stream_tok_s, [0, 5, 50, 95, 100]) for s in cells if s.stream_tok_s]
                row.append(DASH if not qs else " / ".join(f"{v:.2f}" for v in np.mean(qs, axis=0)))
            rows.append(row)
        tables.append(
            ReportTable(
                f"Per-stream tok/s at N={top} (min / p05 / p50 / p95 / max, mean over repeats)",
                ["workload", *configs],
                rows,
                "Each stream's usage tokens over its own send-to-end time.",
                key="stream_spread",
            )
        )

    # 4. median TTFT
    rows = []
    for w in workloads:
        for n in levels:
            rows.append(
                [w, str(n)] + [_fmt(_mean([s.ttft_p50_s for s in by.get((c, w, n), [])]), ".3f") for c in configs]
            )
    tables.append(
        ReportTable(
            "Median TTFT (s)",
            ["workload", "N", *configs],
            rows,
            "First content or reasoning token; role-only chunks do not count.",
            key="ttft",
        )
    )

    # 5. achieved vs requested concurrency
    rows = []
    for c in configs:
        for w in workloads:
            row = [c, w]
            for n in levels:
                a = _mean([s.achieved_concurrency for s in by.get((c, w, n), [])])
                row.append(DASH if a is None else f"{a:.2f} / {n}")
            rows.append(row)
    tables.append(
        ReportTable(
            "Achieved / requested concurrency",
            ["config", "workload", *[f"N={n}" for n in levels]],
            rows,
            "Time-weighted streams in flight between first send and last end, from the wire instants.",
            key="concurrency",
        )
    )

    # 6. coefficient of variation across repeats
    rows = []
    for c in configs:
        for w in workloads:
            row = [c, w]
            for n in levels:
                cv = coefficient_of_variation([s.output_tok_s for s in by.get((c, w, n), []) if s.output_tok_s])
                row.append(DASH if cv is None else f"{cv * 100:.1f}%")
            rows.append(row)
    tables.append(
        ReportTable(
            "Coefficient of variation of aggregate tok/s across repeats",
            ["config", "workload", *[f"N={n}" for n in levels]],
            rows,
            "Differences smaller than this spread are not meaningful.",
            key="cv",
        )
    )

    # 7. server crashes: the sweep of that config stopped; name the highest stable concurrency
    crashed = [s for s in summaries if s.status == "server_crash"]
    if crashed:
        rows = []
        for s in crashed:
            stable = sorted({x.concurrency for x in ok if x.config == s.config and x.concurrency < s.concurrency})
            rows.append([s.config, s.workload, str(s.concurrency), str(s.repeat), str(stable[-1]) if stable else DASH])
        tables.append(
            ReportTable(
                "Server crashes",
                ["config", "workload", "N", "repeat", "highest stable N"],
                rows,
                "The server died during this cell; the rest of that config's sweep was not run.",
                key="crashes",
            )
        )

    # 8. cells not ok
    bad = [s for s in summaries if s.status != "ok"]
    if not summaries:
        tables.append(
            ReportTable(
                "No cells",
                ["config", "workload", "N", "repeat", "status", "reasons"],
                [],
                "This run has no finished cell yet.",
                key="not_ok",
            )
        )
        return tables
    rows = [[s.config, s.workload, str(s.concurrency), str(s.repeat), s.status, "; ".join(s.reasons)] for s in bad]
    tables.append(
        ReportTable(
            f"Cells not ok ({len(bad)} of {len(summaries)})",
            ["config", "workload", "N", "repeat", "status", "reasons"],
            rows,
            "Excluded from every average above." if bad else "Every cell was ok.",
            key="not_ok",
        )
    )
    return tables
