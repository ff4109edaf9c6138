"""Small dataset and trace files laid out exactly like the published ones (same columns, same nesting, same
placeholder text), written by the tests; nothing is downloaded.

Sources (also in tests/data/SOURCES.md):

* SPEED-Bench: the dataset card's ``dataset_info`` of ``nvidia/SPEED-Bench`` @487aa718 (question_id 32-hex str,
  category, sub_category, turns: list of str, source, src_id, difficulty, multiturn: bool; split ``test``); the
  placeholder text and the prepared ``messages`` layout of NeMo-Skills ``speed-bench/prepare.py`` @aeda1da4; the
  throughput entropy tiers of AIPerf's ``SpeedBenchLoader``.
* Spec-Bench / MT-Bench: FastChat's ``question.jsonl`` records (``question_id`` int, ``category``, ``turns``;
  MT-Bench math rows carry ``reference``), the layout hemingkx/Spec-Bench ``evaluation/eval.py`` reads.
* Blazedit / InstructCoder: the columns vLLM's ``benchmarks/datasets.py`` reads.
* Mooncake trace: ``FAST25-release/traces/*.jsonl`` of kvcache-ai/Mooncake (``timestamp`` ms, ``input_length``,
  ``output_length``, ``hash_ids``); Azure LLM inference trace: ``AzureLLMInferenceTrace_conv.csv`` of
  Azure/AzurePublicDataset (``TIMESTAMP``, ``ContextTokens``, ``GeneratedTokens``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SPEED_CATEGORIES = ("coding", "math", "writing")
PLACEHOLDER = "FULL BENCHMARK DATA SHOULD BE FETCHED FROM THE SOURCE USING SPECDEC_BENCH"


def qid(text: str) -> str:
    """A SPEED-Bench style question id: 32 hex characters."""
    return hashlib.md5(text.encode()).hexdigest()


def _speed_schema() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("question_id", pa.string()),
            ("category", pa.string()),
            ("sub_category", pa.string()),
            ("turns", pa.list_(pa.string())),
            ("source", pa.string()),
            ("src_id", pa.string()),
            ("difficulty", pa.string()),
            ("multiturn", pa.bool_()),
        ]
    )


def speed_row(category: str, i: int, turns: Sequence[str] | None = None, **over: Any) -> dict[str, Any]:
    """One qualitative-split row; its first turn is ``"<category> question <i>: explain step <i> briefly."``."""
    turns = list(turns) if turns is not None else [f"{category} question {i}: explain step {i} briefly."]
    row = {
        "question_id": qid(f"{category}-{i}"),
        "category": category,
        "sub_category": "general",
        "turns": turns,
        "source": "generated",
        "src_id": str(i),
        "difficulty": "easy",
        "multiturn": len(turns) > 1,
    }
    return {**row, **over}


def write_speed_parquet(path: Path, rows: Sequence[dict[str, Any]], drop: Sequence[str] = ()) -> Path:
    """Rows in the card's schema (columns in ``drop`` left out, to test a file that lacks them)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = _speed_schema()
    keep = pa.schema([f for f in schema if f.name not in drop])
    table = pa.Table.from_pylist([{k: v for k, v in r.items() if k not in drop} for r in rows], schema=keep)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    return path


def write_speed_bench_parquet(path: Path, per_category: int = 3) -> Path:
    """A qualitative-split parquet: ``per_category`` single-turn rows for each of :data:`SPEED_CATEGORIES`."""
    return write_speed_parquet(path, [speed_row(c, i) for c in SPEED_CATEGORIES for i in range(per_category)])


def placeholder_row(category: str = "summarization", i: int = 7) -> dict[str, Any]:
    """A row as the release ships it where the source forbids redistribution: the placeholder, a blank line, then
    the template the prepare step fills (the CNN/DailyMail rows of the summarization category)."""
    text = f"{PLACEHOLDER}\n\nSummarize the following article in three sentences.\n\n{{article}}"
    return speed_row(category, i, [text], source="abisee/cnn_dailymail", src_id="a1b2c3")


def write_speed_throughput_parquet(path: Path, per_tier: int = 2) -> Path:
    """A ``throughput_*`` parquet: its category column holds the entropy tiers, one long single turn per row."""
    rows = []
    for tier in ("low_entropy", "mixed", "high_entropy"):
        for i in range(per_tier):
            text = f"{tier} document {i}: " + " ".join(f"word{j}" for j in range(40)) + "\nAnswer now please."
            rows.append(speed_row(tier, i, [text], sub_category=tier, src_id=f"hle_{i}"))
    return write_speed_parquet(path, rows)


def write_speed_prepared_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    """The layout SPEED-Bench's prepare step writes: ``turns`` replaced by ``messages`` of user turns."""
    out = []
    for r in rows:
        r = dict(r)
        r["messages"] = [{"role": "user", "content": t} for t in r.pop("turns")]
        out.append(r)
    path.write_text("".join(json.dumps(r) + "\n" for r in out), "utf-8")
    return path


SPEC_BENCH_RECORDS = [
    {"question_id": 81, "category": "writing", "turns": ["Write a haiku about rain.", "Now make it about snow."]},
    {"question_id": 82, "category": "coding", "turns": ["Write add(a, b) in Python.", "Add type hints to it."]},
    {"question_id": 161, "category": "translation", "turns": ["Translate to English: bonjour le monde"]},
    {"question_id": 162, "category": "translation", "turns": ["Translate to English: guten Morgen"]},
    {"question_id": 241, "category": "qa", "turns": ["Who wrote Hamlet?"]},
]


def write_spec_bench_jsonl(path: Path, records: Sequence[dict[str, Any]] = SPEC_BENCH_RECORDS) -> Path:
    """A ``question.jsonl`` of Spec-Bench: two two-turn MT-Bench rows, two translation rows and one qa row."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


MT_BENCH_RECORDS = [
    {"question_id": 81, "category": "writing", "turns": ["Compose a travel blog post.", "Rewrite it, A-words only."]},
    {
        "question_id": 111,
        "category": "math",
        "turns": ["What is 3 + 4?", "And times 2?"],
        "reference": ["7", "14"],
    },
]


def write_mt_bench_jsonl(path: Path) -> Path:
    """FastChat's MT-Bench ``question.jsonl``: two-turn rows, ``reference`` on the math row."""
    path.write_text("".join(json.dumps(r) + "\n" for r in MT_BENCH_RECORDS), "utf-8")
    return path


def write_blazedit_parquet(path: Path) -> Path:
    """A Blazedit-shaped parquet (``code``, ``change_request``, ``norm_distance``): one small and two large edits."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [
        {"code": "def f(x):\n    return x\n", "change_request": "Rename f to g.", "norm_distance": 0.05},
        {"code": "x = 1\n", "change_request": "Rewrite as a class.", "norm_distance": 0.8},
        {"code": "y = 2\n", "change_request": "Add type hints.", "norm_distance": 0.3},
    ]
    schema = pa.schema([("code", pa.string()), ("change_request", pa.string()), ("norm_distance", pa.float64())])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


def write_instructcoder_jsonl(path: Path) -> Path:
    """An InstructCoder-shaped JSONL (``instruction``, ``input``, ``output``) of two records."""
    records = [
        {"instruction": "Add a docstring.", "input": "def f():\n    pass", "output": 'def f():\n    """F."""'},
        {"instruction": "Use a list comprehension.", "input": "out = []\nfor i in r: out.append(i)", "output": ""},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


# Mooncake (kvcache-ai/Mooncake FAST25-release/traces/toolagent_trace.jsonl, its first rows' shape): timestamp in
# ms, input_length / output_length in tokens, hash_ids one per 512-token block (ceil(6758 / 512) = 14 ids).
MOONCAKE_LINES = [
    {"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": list(range(14))},
    {"timestamp": 0, "input_length": 7322, "output_length": 490, "hash_ids": [0, *range(14, 28)]},
    {"timestamp": 27, "input_length": 2290, "output_length": 316, "hash_ids": [0, 42, 43, 44, 45]},
    {"timestamp": 1003, "input_length": 9013, "output_length": 3, "hash_ids": list(range(46, 64))},
]


def write_jsonl(path: Path, records: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


def write_azure_csv(path: Path, rows: Sequence[tuple[str, int, int]]) -> Path:
    """``AzureLLMInferenceTrace_conv.csv``'s layout: TIMESTAMP with 7 fraction digits, ContextTokens,
    GeneratedTokens."""
    lines = ["TIMESTAMP,ContextTokens,GeneratedTokens", *(f"{t},{c},{g}" for t, c, g in rows)]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path
