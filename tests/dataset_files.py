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
