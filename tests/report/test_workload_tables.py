"""Acceptance by dataset category, context length and temperature, and the thinking note, from cell summaries."""

from __future__ import annotations

from cellsummary import counters_of
from specscope.report.workload_tables import thinking_notes, workload_axis_tables
from specscope.stats.summary import CellSummary


def _cell(workload: str, drafted: int, accepted: int, *, prompt: float | None = None, reasoning: int = 0):
    counters = counters_of({"drafts": drafted / 4, "draft_tokens": drafted, "accepted_tokens": accepted})
    return CellSummary(
        config="draft",
        workload=workload,
        concurrency=1,
        repeat=0,
        status="ok",
        reasons=(),
        streams=1,
        streams_ok=1,
        output_tokens=10,
        token_source="usage",
        duration_s=2.0,
        output_tok_s=5.0,
        stream_tok_s=(5.0,),
        ttft_p50_s=0.1,
        ttft_p95_s=0.1,
        tpot_p50_s=0.1,
        achieved_concurrency=1.0,
        acceptance_rate=accepted / drafted,
        acceptance_length=1 + accepted / (drafted / 4),
        acceptance_per_position=(),
        acceptance_source="counter_delta",
        counters=counters,
        server_generation_tokens=10.0,
        prompt_tokens_mean=prompt,
        reasoning_chunks=reasoning,
    )


def test_category_rows_pool_counters():
    cells = [
        _cell("speed-bench.coding", 40, 30),
        _cell("speed-bench.coding", 60, 20),  # pooled: 50 / 100
        _cell("speed-bench.math", 80, 20),
        _cell("prose", 10, 10),  # not a dataset category: not in the table
    ]
    (table,) = workload_axis_tables(cells)
    assert table.key == "acceptance_by_category"
    assert table.rows == [
        ["draft", "speed-bench", "coding", "50.0%", "3.00", "100"],
        ["draft", "speed-bench", "math", "25.0%", "2.00", "80"],
    ]


def test_context_and_temperature_tables():
    cells = [
        _cell("prose@2k@t0", 40, 20, prompt=2049.0),
        _cell("prose@2k@t0.6", 40, 10, prompt=2047.0),
        _cell("prose@512@t0", 40, 30, prompt=512.0),
    ]
    ctx, temp = workload_axis_tables(cells)
    assert ctx.key == "acceptance_by_context"
    assert ctx.rows[0][:5] == ["draft", "prose", "512", "512", "75.0%"]
    assert ctx.rows[1][:5] == ["draft", "prose", "2,048", "2,048", "37.5%"]
    assert temp.rows == [
        ["draft", "prose", "0", "62.5%", "3.50", "80"],
        ["draft", "prose", "0.6", "25.0%", "2.00", "40"],
    ]


def test_thinking_note_says_no_reasoning_phase_was_seen():
    notes = thinking_notes([_cell("mine@think", 4, 2), _cell("mine", 4, 2)])
    assert notes == [
        "draft: thinking was on, but no reasoning phase was seen (the server streamed no reasoning deltas); "
        "acceptance is shown overall only."
    ]
    assert thinking_notes([_cell("mine", 4, 2)]) == []
