"""Request traces read from files in their published layouts (tests/dataset_files.py names the sources), and the
prompts a replay sends for them."""

from __future__ import annotations

import asyncio
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
