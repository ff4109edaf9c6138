"""One row of a standard dataset -> a conversation (category, user turns) or a refusal with its reason.

The readers follow the published definitions of :mod:`specscope.workload.dataset_defs`; what they refuse, each
with the row's id:

* ``placeholder``: a turn that holds SPEED-Bench's ``TURNS_PLACEHOLDER`` (the release ships it where the source
  forbids redistribution; it must be filled from that source first, as NeMo-Skills' ``prepare.py`` does);
* ``empty``: a turn, code or instruction that is empty or whitespace;
* ``not_text``: a turn that is not a string, or no turns at all;
* ``duplicate``: a row id seen before in the same file set (the later row is refused).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from specscope.workload.dataset_defs import SPEC_BENCH_TASKS, SPEED_PLACEHOLDER

__all__ = ["DatasetRow", "Refusal", "row_reader", "BLAZEDIT_TEMPLATE", "BLAZEDIT_SIZES", "INSTRUCTCODER_SUFFIX"]

#: Blazedit's prompt (``ise-uiuc/blazedit`` ``dataset/create_refined_dataset.py`` @7765137e; vLLM sends it too).
BLAZEDIT_TEMPLATE = (
    "Given a code file, please apply the change requests and generate the new file.\n\n"
    "Original file:\n```python\n{code}\n```\n\nChange request:\n{change}\n\n"
    'Please generate the new code file in the "New file" section below.'
)
#: Blazedit edit-size categories: upper bound of ``norm_distance`` (exclusive) -> category.
BLAZEDIT_SIZES = ((0.1, "small"), (0.3, "medium"), (float("inf"), "large"))
#: What vLLM's InstructCoderDataset appends after the instruction.
INSTRUCTCODER_SUFFIX = " Just output the code, do not include any explanation."


@dataclass(frozen=True)
class DatasetRow:
    """A usable row: its id, its category (the workload's last part), its user turns in order and details."""

    row_id: str
    category: str
    turns: tuple[str, ...]
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Refusal:
    """A row that is not a workload: its id, the kind (``placeholder``, ``empty``, ``not_text``, ``duplicate``,
    ``too_long``) and the reason in words."""

    row_id: str
    kind: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"row": self.row_id, "kind": self.kind, "reason": self.reason}


def _check_turns(row_id: str, turns: object) -> tuple[str, ...] | Refusal:
    if not isinstance(turns, list | tuple) or not turns:
        return Refusal(row_id, "not_text", f"turns is {type(turns).__name__}, not a non-empty list of strings")
    for k, t in enumerate(turns, 1):
        if not isinstance(t, str):
            return Refusal(row_id, "not_text", f"turn {k} is {type(t).__name__}, not a string")
        if SPEED_PLACEHOLDER in t:
            return Refusal(row_id, "placeholder", f"turn {k} is the SPEED-Bench placeholder {t[:40]!r}...")
        if not t.strip():
            return Refusal(row_id, "empty", f"turn {k} is empty")
    return tuple(turns)


def _turns_of(row: Mapping[str, Any]) -> object:
    """``turns``, or the user contents of ``messages`` (the layout SPEED-Bench's prepare step writes)."""
    if "turns" in row and row["turns"] is not None:
        return row["turns"]
    msgs = row.get("messages")
    if not isinstance(msgs, list):
        return msgs
    return [
        m.get("content") if isinstance(m, dict) else m
        for m in msgs
        if not isinstance(m, dict) or m.get("role") == "user"
    ]


def _speed_bench(row: Mapping[str, Any], index: int) -> DatasetRow | Refusal:
    row_id = str(row.get("question_id"))
    turns = _check_turns(row_id, _turns_of(row))
    if isinstance(turns, Refusal):
        if turns.kind == "placeholder":
            src = row.get("source") or "its source dataset"
            return Refusal(row_id, "placeholder", f"{turns.reason} (to be filled from {src})")
        return turns
    meta = {k: row[k] for k in ("sub_category", "difficulty") if row.get(k) is not None}
    return DatasetRow(row_id, str(row.get("category")), turns, meta)


def _spec_bench(row: Mapping[str, Any], index: int) -> DatasetRow | Refusal:
    row_id = str(row.get("question_id"))
    turns = _check_turns(row_id, row.get("turns"))
    if isinstance(turns, Refusal):
        return turns
    category = str(row.get("category"))
    return DatasetRow(row_id, SPEC_BENCH_TASKS.get(category, category), turns, {"row_category": category})


def _mt_bench(row: Mapping[str, Any], index: int) -> DatasetRow | Refusal:
    row_id = str(row.get("question_id"))
    turns = _check_turns(row_id, row.get("turns"))
    return turns if isinstance(turns, Refusal) else DatasetRow(row_id, str(row.get("category")), turns)


def _text(row_id: str, row: Mapping[str, Any], col: str) -> str | Refusal:
    value = row.get(col)
    if not isinstance(value, str):
        return Refusal(row_id, "not_text", f"{col} is {type(value).__name__}, not a string")
    return value if value.strip() else Refusal(row_id, "empty", f"{col} is empty")


def _blazedit(row: Mapping[str, Any], index: int) -> DatasetRow | Refusal:
    row_id = str(index)
    code, change = _text(row_id, row, "code"), _text(row_id, row, "change_request")
    for v in (code, change):
        if isinstance(v, Refusal):
            return v
    dist = row.get("norm_distance")
    if isinstance(dist, bool) or not isinstance(dist, int | float):
        return Refusal(row_id, "not_text", f"norm_distance is {dist!r}, not a number")
    category = next(c for bound, c in BLAZEDIT_SIZES if dist < bound)
    prompt = BLAZEDIT_TEMPLATE.format(code=code, change=change)
    return DatasetRow(row_id, category, (prompt,), {"norm_distance": float(dist)})


def _instructcoder(row: Mapping[str, Any], index: int) -> DatasetRow | Refusal:
    row_id = str(index)
    instruction, code = _text(row_id, row, "instruction"), _text(row_id, row, "input")
    for v in (instruction, code):
        if isinstance(v, Refusal):
            return v
    return DatasetRow(row_id, "edit", (f"{code}\n\n{instruction}{INSTRUCTCODER_SUFFIX}",))


_READERS: dict[str, Callable[[Mapping[str, Any], int], DatasetRow | Refusal]] = {
    "speed-bench": _speed_bench,
    "spec-bench": _spec_bench,
    "mt-bench": _mt_bench,
    "blazedit": _blazedit,
    "instructcoder": _instructcoder,
}


def row_reader(name: str) -> Callable[[Mapping[str, Any], int], DatasetRow | Refusal]:
    """The row reader of dataset ``name`` (a key of :data:`specscope.workload.dataset_defs.DATASETS`)."""
    return _READERS[name]
