"""The rows of a file or dataset workload in a run (issue 35, "what was sent is what is reported"): which rows a
cell sends, the counts the manifest records per workload, and the lines ``bench`` prints at the start.

Every row of a ``--workload`` file or ``--dataset`` category is sent once per repeat, at a fixed concurrency or an
open-loop rate alike (``--sample-rows N``: N of them; :mod:`specscope.workload.rows`); packs keep their one prompt
per stream (:func:`specscope.workload.schedule.schedule`).
"""

from __future__ import annotations

from typing import Any

from specscope.bench.workloads import base_prompts, dataset_loads
from specscope.config import BenchOptions
from specscope.workload.census import (
    INSTRUCTION_INPUT_NOTE,
    PASSAGE_NOTE,
    RECORDED_HISTORY_NOTE,
    SHAREGPT_OPENING_NOTE,
    SHAREGPT_TURNS_NOTE,
)
from specscope.workload.labels import parse_label
from specscope.workload.prompt import Prompt
from specscope.workload.userfile_fields import unused_column_notes
from specscope.workload.userfile_instructions import CHOICES_NOTE, SHARED_INSTRUCTION_NOTE

__all__ = ["cell_prompts", "rows_manifest", "rows_notice"]


def rows_manifest(options: BenchOptions, prepared: dict[str, list[Prompt]] | None = None) -> dict[str, Any]:
    """Base workload -> the row counts of a file or dataset workload (:func:`specscope.workload.rows.row_counts`):
    rows read, refused, skipped (not sampled), sent per repeat; ``prepared`` (label -> prompts after the context
    check) counts the rows left, else the rows as read. Packs and a trace have none."""
    from specscope.workload import PACK_NAMES
    from specscope.workload.rows import row_counts

    if options.trace or all(w in PACK_NAMES for w in options.workloads):
        return {}
    read, _ = base_prompts(options, lambda w: w)
    out: dict[str, Any] = {}
    for w in options.workloads:
        if w in PACK_NAMES:
            continue
        keys = [k for k in read if k == w or k.startswith(w + "@")]
        n_kept = sum(len(read[k]) for k in keys)
        left = n_kept
        if prepared is not None:
            labels = [k for k in prepared if parse_label(k).base == w]
            left = min((len(prepared[k]) for k in labels), default=n_kept)
        n_read = n_kept + len(file_refused(options, w))  # rows --drop-bad-rows left out of a --workload file
        out[w] = row_counts(n_read, n_read - left, left, options.sample_rows)
    return out


def file_refused(options: BenchOptions, workload: str) -> list[dict[str, str]]:
    """The rows of a ``--workload`` file that ``--drop-bad-rows`` runs without (``{"row_id", "reason"}``: an empty
    conversation, a chat with no user turn), else none."""
    if not options.drop_bad_rows or workload not in options.workload_files:
        return []
    from specscope.workload.userfile import load_prompt_rows

    return load_prompt_rows(workload, options.workload_files[workload], drop_bad_rows=True)[1]


def rows_notice(options: BenchOptions) -> list[str]:
    """Lines ``bench`` prints at the start about file and dataset rows: rows whose length is their recorded answer's
    token count (:mod:`specscope.bench.answer_lengths`), warnings naming the fields of a file's rows that are read but
    not acted on (arrival times, request-body fields), what each cell sends (every row, or the ``--sample-rows``
    sample, named when used) and, per dataset, its categories present against its full list."""
    from specscope.workload.datasets import dataset_categories

    lines = []
    read, _ = base_prompts(options, lambda w: w) if options.workload_files else ({}, {})
    for w in options.workload_files:
        answered = sum(1 for p in read.get(w, []) if "recorded_answer" in p.meta and "max_tokens" not in p.meta)
        if answered:
            lines.append(
                f"rows: {w}: {'1 row ends' if answered == 1 else f'{answered} rows end'} with a recorded answer and "
                "name no output length: each asks for the answer's token count by the server's tokenizer, as vLLM's "
                f"ShareGPT reader does (a server without /tokenize: --max-tokens {options.max_tokens}; the manifest "
                "says which)"
            )
        zeros = [p for p in read.get(w, []) if p.meta.get("zero_output_fields") and "max_tokens" not in p.meta]
        if zeros:
            names = ", ".join(dict.fromkeys(k for p in zeros for k in p.meta["zero_output_fields"]))
            lines.append(
                f"rows: {w}: {'1 row has' if len(zeros) == 1 else f'{len(zeros)} rows have'} an output count of 0 "
                f"({names}), which GuideLLM reads as no count: sent with --max-tokens {options.max_tokens}, as "
                "GuideLLM sends its default"
            )
        lines += _ignored_fields(w, read.get(w, []))
        refused = file_refused(options, w)
        if refused:
            shown = "; ".join(f"{r['row_id']}: {r['reason']}" for r in refused[:3]) + (
                "; ..." if len(refused) > 3 else ""
            )
            lines.append(f"rows: {w}: {len(refused)} refused by --drop-bad-rows (not workloads): {shown}")
    for w, counts in rows_manifest(options).items():
        sent, usable = counts["rows_sent_per_repeat"], counts["rows_sent_per_repeat"] + counts["rows_skipped"]
        how = (
            f"a sample of {sent} of {usable} rows (--sample-rows {options.sample_rows})"
            if counts["rows_skipped"]
            else f"every row ({sent})"
        )
        lines.append(f"rows: {w}: {how} per cell, once per repeat")
    for load in dataset_loads(options):
        cats = dataset_categories(load)
        if cats is not None and cats["missing"]:
            lines.append(
                f"categories: {load.spec.label()} holds {len(cats['present'])} of its {len(cats['full_list'])} "
                f"categories ({', '.join(cats['present'])}); missing: {', '.join(cats['missing'])}"
            )
    return lines


def _ignored_fields(w: str, prompts: list[Prompt]) -> list[str]:
    """Warnings naming the fields of a file's rows that are read but not acted on: arrival times (never replayed)
    and request-body fields (never sent), each with the count of rows that carry them."""
    out = []
    for key, what, why in (
        ("timing_fields", "arrival times", "not replayed: each cell sends the rows at its concurrency or rate; to "
         "replay arrivals pass a trace with --trace FILE (rows of timestamp (ms), text_input, output_length)"),
        ("unsent_fields", "request-body fields", "not sent: specscope sends the messages, tools and max_tokens only"),
        ("unsent_text_columns", "text columns besides the one sent", "not sent: GuideLLM's column mapper sends a "
         "row's first text column only, in the file's column order, and so does specscope; to send them, join them "
         "into that column"),
        ("unread_length_fields", "output-length look-alikes", "not read as the output length (--max-tokens applies): "
         "name it output_length (or max_tokens) to send it"),
        ("recorded_history_fields", "chat turns with recorded answers", RECORDED_HISTORY_NOTE),
        ("instruction_system_fields", "an `instruction` shared by rows with different inputs", SHARED_INSTRUCTION_NOTE),
        ("unsent_choice_fields", "multiple-choice options", CHOICES_NOTE),
        ("unsent_passage_fields", "passages", PASSAGE_NOTE),
        ("instruction_input_fields", "an `instruction` with its `input`", INSTRUCTION_INPUT_NOTE),
        ("sharegpt_turns_fields", "ShareGPT conversations of several human turns", SHAREGPT_TURNS_NOTE),
        ("opening_answer_fields", "ShareGPT conversations that open with an assistant turn", SHAREGPT_OPENING_NOTE),
        ("unanswered_fields", "ShareGPT conversations without a recorded answer", "sent with --max-tokens as the "
         "output length: the census's ShareGPT readers skip such rows (fewer than 2 turns)"),
    ):  # fmt: skip
        found = [p.meta[key] for p in prompts if p.meta.get(key)]
        if found:
            names = ", ".join(dict.fromkeys(k for fields in found for k in fields))
            rows = "1 row carries" if len(found) == 1 else f"{len(found)} rows carry"
            out.append(f"warning: rows: {w}: {rows} {what} ({names}) that are {why}")
    found = [p.meta["unused_columns"] for p in prompts if p.meta.get("unused_columns")]
    if found:
        notes = "; ".join(unused_column_notes(dict.fromkeys(k for fields in found for k in fields)))
        rows = "1 row carries" if len(found) == 1 else f"{len(found)} rows carry"
        out.append(f"warning: rows: {w}: {rows} GuideLLM columns that specscope ignores: {notes}")
    by_layout: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for p in prompts:
        if p.meta.get("unread_fields"):
            by_layout.setdefault(tuple(p.meta["unread_layouts"]), []).append(p.meta["unread_fields"])
    for layouts, found in by_layout.items():  # once per file and layout, never per row
        names = ", ".join(dict.fromkeys(k for fields in found for k in fields))
        rows = "1 row carries" if len(found) == 1 else f"{len(found)} rows carry"
        out.append(
            f"warning: rows: {w}: {rows} fields that specscope does not read as {' / '.join(layouts)} ({names}): "
            "ignored, never sent; check their names against docs/workloads.md 'Fields read per layout'"
        )
    return out


def cell_prompts(
    options: BenchOptions,
    label: str,
    repeat: int,
    concurrency: int,
    prompts: list[Prompt],
    n_requests: int | None = None,
) -> list[Prompt]:
    """The prompts one cell sends, in send order: a file or dataset workload's rows, every one once per repeat (or
    the ``--sample-rows`` sample; :func:`specscope.workload.rows.repeat_rows`), at a fixed concurrency or an open-loop
    rate alike; a pack's ``concurrency`` distinct prompts, or ``n_requests`` (an open loop's request count:
    ``rate x --rate-window``) of them (:func:`specscope.workload.schedule`).
    """
    from specscope.workload import PACK_NAMES, schedule
    from specscope.workload.rows import repeat_rows

    if parse_label(label).base not in PACK_NAMES:  # at fixed concurrency or an open-loop rate alike
        return repeat_rows(prompts, repeat=repeat, seed=options.seed, sample_rows=options.sample_rows)
    return schedule(prompts, n_requests or concurrency, repeat=repeat, seed=options.seed)
