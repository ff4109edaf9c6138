"""SGLang's file datasets of ``bench_serving`` beside ShareGPT (issue 36, census rows ``sglang.custom``,
``sglang.openai``), written in the readers' own field names:

* sgl-project/sglang ``python/sglang/benchmark/datasets/custom.py`` @3c1efe01 ``sample_custom_requests``
  (``--dataset-name custom``): JSON Lines of ``conversations`` (or ``conversation``); turn 0 is the prompt and turn 1
  the answer, each turn's text under ``content``, else ``value``; the roles are not read. specscope refused a turn
  ``{"from": "human", "content": ...}`` ("turn 0 value is None") and role-less turns ("turn 0 has role None").
* ``python/sglang/benchmark/datasets/openai_dataset.py`` @38ff0b64 ``sample_openai_requests``
  (``--dataset-name openai``): JSON Lines of request bodies: ``messages``, ``max_tokens`` and every other field
  (``temperature``, ``top_p``, ...) passed through into the request body. specscope read the messages and dropped the
  sampling fields without a word; they are now named in the warning of fields not sent.
"""

from __future__ import annotations

import json
from pathlib import Path

from specscope.workload.userfile import load_prompt_file


def _jsonl(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


def test_custom_turn_text_under_content_or_value(tmp_path: Path) -> None:
    rows = [
        {"conversations": [{"from": "human", "content": "Q one"}, {"from": "gpt", "content": "A one here"}]},
        {"conversation": [{"from": "human", "value": "Q two"}, {"from": "gpt", "value": "A two"}]},
        {"conversations": [{"content": "Q three"}, {"content": "A three"}]},
    ]
    got = [(p.messages, p.meta.get("recorded_answer")) for p in load_prompt_file("s", _jsonl(tmp_path, rows))]
    assert got == [
        ([{"role": "user", "content": "Q one"}], "A one here"),
        ([{"role": "user", "content": "Q two"}], "A two"),
        ([{"role": "user", "content": "Q three"}], "A three"),
    ]


def test_openai_rows_name_the_request_body_fields_not_sent(tmp_path: Path) -> None:
    rows = [
        {"messages": [{"role": "user", "content": "q"}], "max_tokens": 64, "temperature": 0.7, "top_p": 0.9},
        {"messages": [{"role": "user", "content": "r"}], "model": "m"},
    ]
    first, second = load_prompt_file("s", _jsonl(tmp_path, rows))
    assert first.meta["max_tokens"] == 64
    assert first.meta["unsent_fields"] == ("temperature", "top_p")
    assert "unsent_fields" not in second.meta


def test_a_request_body_row_keeps_max_completion_tokens(tmp_path: Path) -> None:
    """AIPerf ``raw_payload`` rows (ai-dynamo/aiperf ``src/aiperf/dataset/loader/raw_payload.py`` @0e136169: each line
    a request body sent verbatim) and GuideLLM's chat bodies carry the cap as ``max_completion_tokens``; it was
    dropped and ``--max-tokens`` sent instead."""
    rows = [
        {"messages": [{"role": "user", "content": "raw"}], "max_completion_tokens": 64, "model": "m", "stream": True}
    ]
    (p,) = load_prompt_file("s", _jsonl(tmp_path, rows))
    assert (p.meta["max_tokens"], p.meta["output_length_field"]) == (64, "max_completion_tokens")
    assert "unsent_fields" not in p.meta


def test_autobench_output_len_wins_over_max_tokens(tmp_path: Path) -> None:
    """SGLang autobench (autobench.py @3f56497e ``sample_autobench_requests``): ``output_len``, else ``max_tokens``,
    else ``max_completion_tokens``, else ``completion_tokens``. A row with ``output_len`` 50 and ``max_tokens`` 100
    was sent with ``max_tokens`` 100 (specscope tried ``max_tokens`` first)."""
    rows = [
        {"prompt": "hello there", "output_len": 50, "max_tokens": 100},
        {"prompt": "second", "completion_tokens": 7, "max_completion_tokens": 9, "output_len": 30},
        {"prompt": "third", "max_tokens": 12, "completion_tokens": 40},
    ]
    got = [(p.meta["max_tokens"], p.meta["output_length_field"]) for p in load_prompt_file("s", _jsonl(tmp_path, rows))]
    assert got == [(50, "output_len"), (30, "output_len"), (12, "max_tokens")]
