"""Request traces read from files in their published layouts (tests/dataset_files.py names the sources), and the
prompts a replay sends for them."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from dataset_files import MOONCAKE_LINES, write_azure_csv, write_jsonl
from specscope.errors import ConfigError
from specscope.workload.trace import load_trace
from specscope.workload.trace_prompts import trace_prompts


def test_mooncake_layout(tmp_path: Path) -> None:
    t = load_trace(write_jsonl(tmp_path / "toolagent_trace.jsonl", MOONCAKE_LINES))
    assert t.format == "mooncake" and t.rows_total == 4 and not t.reordered
    assert [r.offset_ns for r in t.requests] == [0, 0, 27_000_000, 1_003_000_000]
    assert [(r.input_tokens, r.output_tokens, len(r.hash_ids)) for r in t.requests] == [
        (6758, 500, 14), (7322, 490, 15), (2290, 316, 5), (9013, 3, 18),
    ]  # fmt: skip
    assert len(t.sha256) == 64 and t.span_s() == 1.003


def test_azure_csv_timestamps_are_read_to_the_nanosecond(tmp_path: Path) -> None:
    rows = [
        ("2023-11-16 18:15:46.6805900", 374, 44),
        ("2023-11-16 18:15:50.9951690", 396, 109),
        ("2023-11-16 18:15:47.0000001", 879, 6),  # out of order in the file: replayed in arrival order
    ]
    t = load_trace(write_azure_csv(tmp_path / "AzureLLMInferenceTrace_conv.csv", rows))
    assert t.format == "azure" and t.reordered
    assert [r.offset_ns for r in t.requests] == [0, 319_410_100, 4_314_579_000]
    assert [(r.line, r.input_tokens, r.output_tokens) for r in t.requests] == [(2, 374, 44), (4, 879, 6), (3, 396, 109)]


def test_specscope_layout_with_text_rows(tmp_path: Path) -> None:
    recs = [
        {"arrival_s": 0.0, "text": "Summarize: the cat sat.", "output_tokens": 8},
        {"arrival_s": 0.25, "input_tokens": 300, "output_tokens": 16},
    ]
    t = load_trace(write_jsonl(tmp_path / "t.jsonl", recs))
    assert t.format == "specscope"
    assert [(r.offset_ns, r.text, r.input_tokens) for r in t.requests] == [
        (0, "Summarize: the cat sat.", None), (250_000_000, None, 300),
    ]  # fmt: skip


def test_unknown_layout_names_the_columns_found(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [{"time": 1, "prompt_len": 5}])
    with pytest.raises(ConfigError) as e:
        load_trace(path)
    assert e.value.found == "columns prompt_len, time"
    assert "mooncake (timestamp" in str(e.value.expected)


def test_a_malformed_row_names_its_line(tmp_path: Path) -> None:
    recs = [MOONCAKE_LINES[0], {"timestamp": 5, "input_length": -3, "output_length": 4}]
    with pytest.raises(ConfigError, match=r"t.jsonl:2: not a trace row; found: input_length=-3"):
        load_trace(write_jsonl(tmp_path / "t.jsonl", recs))
    bad = write_azure_csv(tmp_path / "a.csv", [("2023-11-16 18:15:46.68059001234", 1, 1)])
    with pytest.raises(ConfigError, match=r"a.csv:2: .*at most 9 fraction digits"):
        load_trace(bad)


def test_mooncake_prompts_share_text_where_hash_ids_share_blocks(tmp_path: Path) -> None:
    t = load_trace(write_jsonl(tmp_path / "t.jsonl", MOONCAKE_LINES))
    prompts, made = asyncio.run(trace_prompts(t, None))  # no server: units are words
    assert made["units"].startswith("words")
    words = [p.first_user_text.split(" ") for p in prompts]
    assert [len(w) for w in words] == [6758, 7322, 2290, 9013]  # one word per token of the row
    assert words[0][:512] == words[1][:512] == words[2][:512]  # hash id 0: the same first block
    assert words[0][512:1024] != words[1][512:1024]  # ids 1 and 14 differ
    assert words[3][:512] != words[0][:512]
    assert [(p.meta["max_tokens"], p.meta["ignore_eos"]) for p in prompts] == [
        (500, True),
        (490, True),
        (316, True),
        (3, True),
    ]


# Layouts of the public traces as published (round 3 of issue 28): each test writes the rows in the source's own
# columns; the sources are named in tests/data/SOURCES.md.


def test_azure_2024_week_timestamps_with_utc_offset_and_no_fraction(tmp_path: Path) -> None:
    # AzureLLMInferenceTrace_{code,conv}_1week.csv (Azure/AzurePublicDataset AzureLLMInferenceDataset2024.md):
    # TIMESTAMP is written with a UTC offset, 6 fraction digits, and none on a whole second (readers of it parse
    # with pandas' format="mixed"); an offset other than +00:00 is converted, never dropped.
    rows = [
        ("2024-05-10 00:00:00.009930+00:00", 4808, 10),
        ("2024-05-10 00:00:01+00:00", 200, 5),
        ("2024-05-10 02:00:01.5+02:00", 300, 7),  # = 00:00:01.5 UTC
    ]
    t = load_trace(write_azure_csv(tmp_path / "AzureLLMInferenceTrace_code_1week.csv", rows))
    assert t.format == "azure" and not t.reordered
    assert [r.offset_ns for r in t.requests] == [0, 990_070_000, 1_490_070_000]


def test_azure_csv_with_bom_and_crlf(tmp_path: Path) -> None:
    # a CSV saved by a spreadsheet: UTF-8 BOM before TIMESTAMP, CRLF line ends
    path = tmp_path / "AzureLLMInferenceTrace_conv.csv"
    body = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n2023-11-16 18:15:46.6805900,374,44\r\n"
    path.write_bytes(b"\xef\xbb\xbf" + (body + "2023-11-16 18:15:50.9951690,396,109\r\n").encode())
    t = load_trace(path)
    assert t.format == "azure"
    assert [(r.offset_ns, r.input_tokens, r.output_tokens) for r in t.requests] == [
        (0, 374, 44), (4_314_579_000, 396, 109),
    ]  # fmt: skip


def test_rows_that_generated_nothing_are_refused_by_line_and_recorded(tmp_path: Path) -> None:
    # GeneratedTokens 0 occurs in the Azure traces (failed or cancelled requests); it is no request to replay
    rows = [("2023-11-16 18:15:46.6805900", 374, 44), ("2023-11-16 18:15:47.0", 500, 0)]
    t = load_trace(write_azure_csv(tmp_path / "a.csv", rows))
    assert [r.line for r in t.requests] == [2] and t.rows_total == 2
    prov = t.provenance(1.0, None)
    assert prov["rows_used"] == 1
    assert prov["rows_refused"] == [{"row": "line 3", "kind": "zero_output", "reason": "GeneratedTokens is 0"}]


def test_burstgpt_csv_both_releases(tmp_path: Path) -> None:
    # HPMLL/BurstGPT README @e92f533: Timestamp (s from 0:00 of the first day), Model, Request tokens,
    # Response tokens (0 = a failed request), Total tokens, Log Type; BurstGPT_3 adds Session ID and Elapsed time.
    six = tmp_path / "BurstGPT_1.csv"
    six.write_text(
        "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
        "5,ChatGPT,472,18,490,Conversation log\n"
        "45,ChatGPT,1087,0,1087,Conversation log\n"
        "118.5,GPT-4,417,276,693,API log\n"
    )
    t = load_trace(six)
    assert t.format == "burstgpt" and t.rows_total == 3
    assert [(r.line, r.offset_ns, r.input_tokens, r.output_tokens) for r in t.requests] == [
        (2, 0, 472, 18), (4, 113_500_000_000, 417, 276),
    ]  # fmt: skip
    assert t.provenance(1.0, None)["rows_refused"][0]["kind"] == "zero_output"
    eight = tmp_path / "BurstGPT_3.csv"
    eight.write_text(
        "Timestamp,Session ID,Elapsed time,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
        "0.0,,1.2,GPT-4,100,20,120,API log\n"
        "2.25,abc,3.0,ChatGPT,50,10,60,Conversation log\n"
    )
    t = load_trace(eight)
    assert [(r.offset_ns, r.input_tokens, r.output_tokens) for r in t.requests] == [
        (0, 100, 20),
        (2_250_000_000, 50, 10),
    ]


def test_mooncake_jsonl_with_bom_and_gzip(tmp_path: Path) -> None:
    import gzip

    text = "".join(json.dumps(r) + "\n" for r in MOONCAKE_LINES)
    bom = tmp_path / "conversation_trace.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert load_trace(bom).format == "mooncake"
    gz = tmp_path / "conversation_trace.jsonl.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    t = load_trace(gz)
    assert t.format == "mooncake" and [r.offset_ns for r in t.requests] == [0, 0, 27_000_000, 1_003_000_000]


def test_a_prompt_list_without_arrival_times_is_not_a_trace(tmp_path: Path) -> None:
    # AIPerf's mooncake_trace rows may hold text_input and output_length without timestamp (docs/tutorials/
    # trace-benchmarking.md): nothing to replay on a clock, so the error says how to run them instead
    path = write_jsonl(tmp_path / "q.jsonl", [{"text_input": "What is the capital of France?", "output_length": 20}])
    with pytest.raises(ConfigError) as e:
        load_trace(path)
    assert "no arrival time" in str(e.value) and "--workload" in str(e.value.fix)


def test_a_line_nested_past_the_parser_is_refused_by_line(tmp_path: Path) -> None:
    # issue 37 T1: a trace line nested 5,000 deep was a RecursionError, exit 3
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(MOONCAKE_LINES[0]) + "\n" + '{"timestamp": ' + "[" * 5000 + "]" * 5000 + "}\n")
    with pytest.raises(ConfigError, match=r"t.jsonl:2: not a trace row; found: JSON nested too deep"):
        load_trace(path)


def test_a_folder_or_fifo_given_as_the_trace_is_named_not_called_missing(tmp_path: Path) -> None:
    """``load_trace`` asked ``is_file()`` first, so a folder or a FIFO read as "trace file not found"."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    tail = "expected: a UTF-8 trace file (JSONL or CSV), gzip-compressed or not; fix: pass the trace file itself"
    for path, kind in ((tmp_path, "a folder"), (fifo, "a FIFO")):
        with pytest.raises(ConfigError) as e:
            load_trace(path)
        assert e.value.one_line() == f"cannot read the trace file; found: {path}: {kind}, not a regular file; {tail}"
    with pytest.raises(ConfigError) as e:
        load_trace(tmp_path / "none.jsonl")
    assert e.value.one_line() == f"trace file not found; found: {tmp_path / 'none.jsonl'}; {tail}"
