"""Small dataset files shaped exactly like the published ones (same columns, same nesting), written by the tests.

SPEED-Bench columns: the dataset card's ``dataset_info`` (question_id, category, sub_category, turns: list of
str, source, src_id, difficulty, multiturn: bool), split ``test``. Spec-Bench: ``question.jsonl`` records of
``question_id`` (int), ``category``, ``turns`` (list of str).
"""

from __future__ import annotations

import json
from pathlib import Path

SPEED_CATEGORIES = ("coding", "math", "writing")


def write_speed_bench_parquet(path: Path, per_category: int = 3) -> Path:
    """A qualitative-split parquet: ``per_category`` rows for each of :data:`SPEED_CATEGORIES`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = []
    for category in SPEED_CATEGORIES:
        for i in range(per_category):
            rows.append(
                {
                    "question_id": f"{category}-{i}",
                    "category": category,
                    "sub_category": "general",
                    "turns": [f"{category} question {i}: explain step {i} briefly.", "And a follow-up?"],
                    "source": "generated",
                    "src_id": str(i),
                    "difficulty": "easy",
                    "multiturn": True,
                }
            )
    schema = pa.schema(
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
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


def write_spec_bench_jsonl(path: Path) -> Path:
    """A ``question.jsonl`` with two translation and one qa record."""
    records = [
        {"question_id": 81, "category": "translation", "turns": ["Translate: bonjour"]},
        {"question_id": 82, "category": "translation", "turns": ["Translate: danke"]},
        {"question_id": 83, "category": "qa", "turns": ["Who wrote Hamlet?"]},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
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
