"""Build the facts of a cell (a CellResult) whose derived figures are given, for tests that store a run.

The store keeps facts only, so a test that wants a run with known throughput / acceptance stores streams and
counter scrapes that give those figures when ``specscope.stats.cells.summarize_run`` derives them.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

from specscope.records import CellKey, CellResult, SpecCounters, StreamRecord

NS = 1_000_000_000
DATA_RUNS = Path(__file__).resolve().parent / "data" / "runs"


def schema1_run(tmp_path: Path) -> Path:
    """The committed schema-1 fixture (tests/data/runs/schema1, see tests/data/SOURCES.md) as a run folder."""
    folder = tmp_path / "old"
    folder.mkdir()
    shutil.copy(DATA_RUNS / "schema1" / "manifest.json", folder / "manifest.json")
    db = sqlite3.connect(folder / "run.sqlite")
    db.executescript((DATA_RUNS / "schema1" / "run.sql").read_text())
    db.close()
    return folder


def cell_facts(
    config: str,
    workload: str,
    concurrency: int,
    repeat: int,
    tok_s: float,
    *,
    tokens_per_stream: int = 64,
    ttft_s: float = 0.1,
    decode_tok_s: float | None = None,
    counters: dict[str, Any] | None = None,
    reasons: tuple[str, ...] = (),
) -> CellResult:
    """One cell: ``concurrency`` streams sent together at 0, each of ``tokens_per_stream`` usage tokens.

    Derived figures: ``output_tok_s`` = ``tok_s`` (to the nanosecond of the end instant), ``achieved_concurrency``
    = ``concurrency``, ``ttft_p50_s`` = ``ttft_s``, ``tpot_p50_s`` = 1 / ``decode_tok_s`` when given.
    ``counters`` is the spec-decode counter delta over the cell (``drafts``, ``draft_tokens``,
    ``accepted_tokens``, ``accepted_per_position``, optionally ``generation_tokens``), stored as a scrape of zeros
    before and these after.
    """
    end_ns = round(tokens_per_stream * concurrency / tok_s * NS)
    first_ns = round(ttft_s * NS)
    last_ns = end_ns if decode_tok_s is None else first_ns + round((tokens_per_stream - 1) / decode_tok_s * NS)
    assert first_ns < last_ns <= end_ns, "the stream must end after its last token"
    streams = tuple(
        StreamRecord(
            f"{workload}-{i:03d}",
            0,
            0,
            first_ns,
            first_ns,
            last_ns,
            end_ns,
            tokens_per_stream,
            0,
            tokens_per_stream,
            16,
            "usage",
            "length",
            "ok",
            None,
            200,
        )
        for i in range(concurrency)
    )
    before = after = None
    if counters is not None:
        present = frozenset(
            {"spec"}
            | ({"per_pos"} if counters.get("accepted_per_position") else set())
            | ({"generation"} if "generation_tokens" in counters else set())
        )
        before = SpecCounters(present=present)
        after = SpecCounters(
            drafts=counters["drafts"],
            draft_tokens=counters["draft_tokens"],
            accepted_tokens=counters["accepted_tokens"],
            accepted_per_position=tuple(counters.get("accepted_per_position") or ()),
            generation_tokens=counters.get("generation_tokens"),
            present=present,
        )
    return CellResult(
        CellKey(config, workload, concurrency, repeat), streams, 0, end_ns, before, after, reasons=reasons
    )
