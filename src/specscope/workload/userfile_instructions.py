"""Alpaca-named rows whose ``instruction`` is a system prompt, and a quiz row's choices (issue 36, third new-user
hunt).

cognitivecomputations/dolphin publishes rows of Alpaca's field names (``instruction``, ``input``, ``output``) in
which ``instruction`` is one of a few system prompts (Orca's), each shared by many rows, and ``input`` is the user's
request. Alpaca's instructions are each unique (tatsu-lab/stanford_alpaca ``datasheet.md``: "Each of the 52K
instructions is unique"), so the rule that tells the two apart is the file's: an ``instruction`` shared by rows
with different non-empty inputs is read as the system message and each row's input as its user message (``bench``
names these rows, :data:`SHARED_INSTRUCTION_NOTE`); an instruction found once keeps Alpaca's join (the instruction,
a blank line, the input, in one user message). No peer tool reads the layout as Dolphin means it: GuideLLM's column
mapper sends the first text column, ``instruction``, alone.

A ``question`` row's multiple-choice ``options`` (TIGER-Lab/MMLU-Pro) or ``choices`` (cais/mmlu) are not sent, as
GuideLLM's mapper (the one peer reader of the row) sends the question alone; ``bench`` names them with the jq that
joins them into the question (:data:`CHOICES_NOTE`). A ``question`` row's ``passage`` (ucinlp/drop, google/boolq: the
text the question is about) is not sent either: no peer reader has a column for it; ``bench`` names it with the jq
that prepends it (:data:`~specscope.workload.census.PASSAGE_NOTE`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from specscope.workload.census import EACH_ROW, PASSAGE_FIELDS
from specscope.workload.prompt import Prompt
from specscope.workload.userfile_fields import first_text_field

__all__ = [
    "CHOICES_NOTE",
    "CHOICE_FIELDS",
    "SHARED_INSTRUCTION_NOTE",
    "instruction_meta",
    "shared_instructions",
    "unsent_choices",
    "unsent_passages",
]

#: the ``meta`` key of a row's Alpaca parts, ``(instruction, input)``, while a file is read
_PARTS = "instruction_input"
#: what ``bench`` says of the rows read as a system prompt and their input (meta ``instruction_system_fields``)
SHARED_INSTRUCTION_NOTE = (
    "read as a system prompt (Dolphin, cognitivecomputations/dolphin: a few system prompts over many rows): sent as "
    "the system message, the input as the user message; Alpaca's instructions are each unique "
    "(tatsu-lab/stanford_alpaca datasheet.md): one found once is sent before its input in one user message"
)


def instruction_meta(record: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    """``{"instruction_input": (instruction, input)}`` for a row read by Alpaca's join (its messages are the one user
    message of the instruction, a blank line and the input; no history, no system message), else ``{}``."""
    instruction, extra = record.get("instruction"), record.get("input", record.get("context"))
    if not (isinstance(instruction, str) and isinstance(extra, str) and instruction.strip() and extra.strip()):
        return {}
    if messages != [{"role": "user", "content": f"{instruction}\n\n{extra}"}]:
        return {}
    return {_PARTS: (instruction, extra)}


def shared_instructions(prompts: list[Prompt]) -> list[Prompt]:
    """``prompts`` with each row whose instruction is shared by rows of different inputs sent as a system message
    and a user message (meta ``instruction_system_fields``: ``("instruction",)``), each other row of Alpaca's join
    marked (meta ``instruction_input_fields``: named by ``bench`` with
    :data:`~specscope.workload.census.INSTRUCTION_INPUT_NOTE`); the parts' meta key removed."""
    inputs: dict[str, set[str]] = {}
    for p in prompts:
        if (parts := p.meta.get(_PARTS)) is not None:
            inputs.setdefault(parts[0], set()).add(parts[1])
    out = []
    for p in prompts:
        parts = p.meta.pop(_PARTS, None)
        if parts is not None and len(inputs[parts[0]]) > 1:
            messages = [{"role": "system", "content": parts[0]}, {"role": "user", "content": parts[1]}]
            p = replace(p, messages=messages, meta={**p.meta, "instruction_system_fields": ("instruction",)})
        elif parts is not None:  # Alpaca's order, which InstructCoder's reader does not send (INSTRUCTION_INPUT_NOTE)
            p = replace(p, meta={**p.meta, "instruction_input_fields": ("instruction", "input")})
        out.append(p)
    return out


#: multiple-choice fields of a ``question`` row: TIGER-Lab/MMLU-Pro's ``options``, cais/mmlu's ``choices`` (lists of
#: strings), allenai/ai2_arc's ``choices`` (an object of ``text`` and ``label`` lists)
CHOICE_FIELDS = ("options", "choices")
#: what ``bench`` says of them (meta ``unsent_choice_fields``); the jq joins them into the question as "A. ..." lines
CHOICES_NOTE = (
    "not sent: GuideLLM's column mapper, the peer reader of a `question` row, has no column for them and sends the "
    f"question alone, and so does specscope; to send them, join them into the question: jq -c '{EACH_ROW}"
    '.question += "\\n\\n" '
    '+ ([.options | to_entries[] | "\\([.key + 65] | implode). \\(.value)"] | join("\\n")) | del(.options)\' FILE '
    "> OUT.jsonl (a `choices` row: the same with .choices); an ARC `choices` object of `text` and `label` lists "
    f"(allenai/ai2_arc): jq -c '{EACH_ROW}"
    '.question += "\\n\\n" + ([.choices.label, .choices.text] | transpose | map("\\(.[0]). '
    '\\(.[1])") | join("\\n")) | del(.choices)\' FILE > OUT.jsonl'
)


def unsent_choices(record: dict[str, Any]) -> tuple[str, ...]:
    """The multiple-choice fields (:data:`CHOICE_FIELDS`, a non-empty list of strings) of a row that carries a
    ``question``: not sent (GuideLLM's mapper @ee7a7745 has no choices column), named by ``bench`` with the jq that
    joins them into the question."""
    if not isinstance(record.get("question"), str):
        return ()
    return tuple(
        k for k in CHOICE_FIELDS if _strings(record.get(k)) or (k == "choices" and _arc_choices(record.get(k)))
    )


def _strings(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(x, str) for x in value)


def _arc_choices(value: object) -> bool:
    """allenai/ai2_arc's ``choices``: ``{"text": [...], "label": [...]}``, two lists of strings of one length."""
    if not isinstance(value, dict):
        return False
    text, label = value.get("text"), value.get("label")
    return _strings(text) and _strings(label) and isinstance(text, list) and len(text) == len(label or ())


def unsent_passages(record: dict[str, Any]) -> tuple[str, ...]:
    """The passage fields (:data:`~specscope.workload.census.PASSAGE_FIELDS`, a non-empty string) of a row whose
    sent column is ``question``: not sent, named by ``bench`` with the jq that prepends them."""
    if first_text_field(record) != "question":
        return ()
    found = tuple(k for k in PASSAGE_FIELDS if isinstance(record.get(k), str) and record[k].strip())
    return (*found, "context") if _hotpotqa_context(record.get("context")) else found


def _hotpotqa_context(value: object) -> bool:
    """hotpotqa/hotpot_qa's ``context``: ``{"title": [...], "sentences": [[...], ...]}`` on the hub, or
    ``[[title, [sentence, ...]], ...]`` in the published JSON (hotpot_dev_distractor_v1.json), not empty."""
    if isinstance(value, dict):
        paragraphs = value.get("sentences")
        return _strings(value.get("title")) and isinstance(paragraphs, list) and all(map(_strings, paragraphs))
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and _strings(p[1]) for p in value)
    )
