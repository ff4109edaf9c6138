"""The "server capacity" table from hand-made cell summaries: exact display values in every format."""

from __future__ import annotations

from cells import summary
from rich.console import Console

from serverfacts import manifest
from specscope.report.build import RunData, build_document
from specscope.report.capacity import capacity_table, stream_timing_table
from specscope.report.html import render_document_html
from specscope.report.render import json_document, markdown_document, print_document
from specscope.report.tables import RunCells

LIMITED = "CAPACITY_LIMITED(ceiling=22, requested=64)"  # a cell's own reason


def _cells():
    common = dict(gauge_samples=12, gauge_window="offered", decode_tok_s=(18.0, 20.0, 22.0), ttfo_p50_s=0.5)
    return [
        summary("base", "prose", 64, 0, 900.0, running_concurrency=64.0, waiting_mean=0.0, running_max=64.0, **common),
        summary(
            "dflash",
            "prose",
            64,
            0,
            300.0,
            running_concurrency=21.5,
            waiting_mean=42.5,
            running_max=22.0,
            capacity_limited=LIMITED,
            reasons=(LIMITED,),  # an ok cell's reason (specscope.stats.cells)
            queue_mean_s=138.0,
            queue_p50_s=120.0,
            **common,
        ),
        summary(
            "dflash",
            "prose",
            64,
            1,
            310.0,
            running_concurrency=22.0,
            waiting_mean=41.5,
            running_max=21.0,
            capacity_limited=None,
            queue_mean_s=136.0,
            queue_p50_s=110.0,
            **common,
        ),
        summary("dflash", "prose", 64, 2, 5.0, status="degraded", reasons=("X",), running_concurrency=1.0, **common),
    ]


def test_capacity_rows_exact_ok_cells_only():
    table = capacity_table(RunCells.of(_cells(), "base"))
    assert table is not None and table.key == "capacity"
    assert table.headers == [
        "config",
        "workload",
        "N (requested)",
        "client (streams)",
        "running (requests)",
        "waiting (requests)",
        "ceiling (requests)",
        "queue p50 (s)",
        "capacity",
    ]
    base, dflash = table.rows
    assert base == ["base", "prose", "64", "64.00", "64.00", "0.00", "64", "—", "reached"]
    # means over the two ok rounds (the degraded one is left out); the ceiling is the highest of them
    # queue p50: the mean of the rounds' medians (120 and 110 s); the reason as the cell carries it
    assert dflash == [
        "dflash",
        "prose",
        "64",
        "64.00",
        "21.75",
        "42.00",
        "22",
        "115.000 s",
        f"{LIMITED} in 1 of 2 rounds",
    ]


def test_stream_timing_rows_exact():
    table = stream_timing_table(RunCells.of(_cells(), "base"))
    assert table is not None and table.headers == [
        "config",
        "workload",
        "N (requested)",
        "TTFT p50 (s)",
        "TTFO p50 (s)",
        "queue (s)",
        "decode p50 (tok/s)",
        "e2e p50 (tok/s)",
    ]
    base, dflash = table.rows
    # e2e: median of the cells' stream_tok_s (900 / 64 x (0.9 .. 7.2) for base)
    assert base[3:] == ["3.200 s", "0.500 s", "—", "20.0", "57.0"]
    # queue: mean of 138 and 136 s; decode: median of every stream of the ok rounds
    assert dflash[3:] == ["3.200 s", "0.500 s", "137.000 s", "20.0", "19.3"]


def test_no_table_without_gauges_and_same_text_in_every_format():
    plain = [summary("base", "prose", 1, 0, 10.0)]
    assert capacity_table(RunCells.of(plain, "base")) is None
    doc = build_document([RunData("r", manifest(baseline="base"), _cells())])
    console = Console(record=True, width=400)
    print_document(doc, console)
    texts = [console.export_text(), markdown_document(doc), json_document(doc), render_document_html(doc)]
    for text in texts:
        assert f"{LIMITED} in 1 of 2 rounds" in text and "21.75" in text and "137.000 s" in text


def test_the_notes_name_what_the_adapters_declare():
    """The gauges, the queue-time histogram and the response's queue field are named from the adapters' declarations
    (issue 34): every engine whose running / waiting gauges are sampled is named, SGLang's and TensorRT-LLM's too."""
    rc = RunCells.of(_cells(), "base")
    capacity, timing = capacity_table(rc), stream_timing_table(rc)
    assert capacity is not None and timing is not None
    gauges = (
        "the server's gauges (vllm:num_requests_running / vllm:num_requests_waiting, sglang:num_running_reqs /"
        " sglang:num_queue_reqs, llamacpp:requests_processing / llamacpp:requests_deferred,"
        " trtllm_num_requests_running / trtllm_num_requests_waiting, summed over engines)"
    )
    assert gauges in capacity.note
    assert "(vLLM metrics.queue_time_ms with --enable-per-request-metrics; other servers report none)" in capacity.note
    assert "queue-time histogram over the cell (vllm:request_queue_time_seconds; other servers report none)" in (
        timing.note
    )
