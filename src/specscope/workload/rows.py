"""Which rows of a user's file or a dataset category a cell sends, and the counts a run records about them.

Issue 35 ("what was sent is what is reported"): a file or dataset workload is not a pack to draw streams from;
by default every row is sent once per repeat, ``concurrency`` at a time, so a cell's request count is the
workload's row count (a conversation row is one row, however many turns it has). ``--sample-rows N`` sends
``N`` of them per repeat instead (a window of a seeded order that moves with the repeat, as
:func:`specscope.workload.schedule.schedule` takes it; repeats ``0 .. rows // N - 1`` send disjoint rows).

Every prompt of a file or dataset carries its row id in ``Prompt.meta["row_id"]`` (a dataset's ``question_id``,
a file's ``id`` / ``question_id`` / ``session_id``, else ``"line N"`` / ``"item N"``); a cell records the ids it
sent, in send order (``rows_sent`` in its client facts, which the JSON report's ``cells`` carry).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from specscope.workload.prompt import Prompt
from specscope.workload.schedule import schedule

__all__ = ["row_id", "rows_per_repeat", "repeat_rows", "row_counts"]


def row_id(prompt: Prompt) -> str:
    """The id of the file or dataset row behind ``prompt`` (its ``prompt_id`` for a pack prompt)."""
    return str(prompt.meta.get("row_id", prompt.prompt_id))


def rows_per_repeat(n_rows: int, sample_rows: int | None) -> int:
    """Rows a cell sends: every row, or the sample size when it is smaller than the workload."""
    return n_rows if sample_rows is None else min(sample_rows, n_rows)


def repeat_rows(prompts: Sequence[Prompt], *, repeat: int, seed: int, sample_rows: int | None) -> list[Prompt]:
    """The rows one cell of repeat ``repeat`` sends, in send order (every row unless ``sample_rows``).

    Raises:
        ConfigError: no rows, a negative repeat, or repeated prompt ids (:func:`schedule`).
    """
    return schedule(prompts, rows_per_repeat(len(prompts), sample_rows), repeat=repeat, seed=seed)


def row_counts(n_read: int, n_refused: int, n_usable: int, sample_rows: int | None) -> dict[str, Any]:
    """The manifest's counts for one workload: rows read from the source, refused (not workloads: placeholder,
    empty, duplicate, too long), skipped (usable but not sampled), and sent per repeat (= what the server receives
    per cell; ``rows_read == rows_refused + rows_skipped + rows_sent_per_repeat``)."""
    sent = rows_per_repeat(n_usable, sample_rows)
    return {
        "rows_read": n_read,
        "rows_refused": n_refused,
        "rows_skipped": n_usable - sent,
        "rows_sent_per_repeat": sent,
        "sample_rows": sample_rows,
    }
