"""Public dataset rows of a recognisable shape that no benchmark client's file reader takes, or that one would send
wrong, refused by name with the jq that converts them (issue 36, the wl59 hunt): transcripts in a text column
(Anthropic HH, Guanaco), other vendors' chat rows (Gemini ``contents``, Bedrock's conversation schema, Cohere's
roles), SQuAD's published JSON, and ShareGPT turns under ``messages`` or of a tool call. The names, sources and fixes
live in :mod:`specscope.workload.census`; this module tells the shapes."""

from __future__ import annotations

from typing import Any

from specscope.workload.census import (
    ASR_REFUSAL,
    BEDROCK_CONVERSATION_REFUSAL,
    COHERE_ROLES,
    COHERE_ROLES_REFUSAL,
    COQA_FILE_REFUSAL,
    DATASET_VIEWER_REFUSAL,
    EMBEDDING_FIELDS,
    EMBEDDING_REFUSAL,
    GEMINI_CONTENTS_REFUSAL,
    GUANACO_REFUSAL,
    GUANACO_TRANSCRIPT,
    HH_TRANSCRIPT,
    HH_TRANSCRIPT_REFUSAL,
    LLAVA_ONEVISION_REFUSAL,
    MESSAGES_FIELDS,
    SHAREGPT_FIELDS,
    SHAREGPT_MESSAGES_REFUSAL,
    SHAREGPT_TOOL_REFUSAL,
    SHAREGPT_TOOL_TAGS,
    SQUAD_REFUSAL,
    TABLE_TO_JSON_LINES,
    VISION_ARENA_REFUSALS,
)
from specscope.workload.userfile_fields import bad_row, first_text_field, is_csv

__all__ = ["refuse_public_shape"]


def refuse_public_shape(where: str, record: object) -> None:
    """Refuse a row of one of this module's shapes by its name, before any field of it is read as another layout's.

    Raises:
        ConfigError: what the row is, its source, and the jq that converts it.
    """
    if not isinstance(record, dict):
        return
    for told, (what, fix) in (
        (_gemini_contents, GEMINI_CONTENTS_REFUSAL),
        (_bedrock_conversation, BEDROCK_CONVERSATION_REFUSAL),
        (_cohere_roles, COHERE_ROLES_REFUSAL),
    ):
        if told(record):
            raise bad_row(where, what, "OpenAI `messages` of `role` / `content`", fix)
    if (field := _hh_transcript_field(record)) is not None:
        what, fix = (part.replace("FIELD", field) for part in HH_TRANSCRIPT_REFUSAL)
        raise bad_row(where, what, "a prompt or messages per row", fix + _table_note(where))
    if _guanaco_transcript(record):
        fix = GUANACO_REFUSAL[1] + _table_note(where)
        raise bad_row(where, GUANACO_REFUSAL[0], "a prompt or messages per row", fix)
    articles = record.get("data")
    if isinstance(articles, list) and any(isinstance(a, dict) and "paragraphs" in a for a in articles):
        raise bad_row(where, SQUAD_REFUSAL[0], "a prompt or messages per row", SQUAD_REFUSAL[1])
    if isinstance(articles, list) and any(isinstance(a, dict) and {"story", "questions"} <= a.keys() for a in articles):
        raise bad_row(where, COQA_FILE_REFUSAL[0], "a prompt or messages per row", COQA_FILE_REFUSAL[1])
    pages = record.get("rows")
    if isinstance(pages, list) and pages and all(isinstance(r, dict) and {"row_idx", "row"} <= r.keys() for r in pages):
        raise bad_row(where, DATASET_VIEWER_REFUSAL[0], "a prompt or messages per row", DATASET_VIEWER_REFUSAL[1])
    if _embedding_request(record):
        raise bad_row(where, EMBEDDING_REFUSAL[0], "a prompt or messages per row", EMBEDDING_REFUSAL[1])
    if _sharegpt_messages(record):
        raise bad_row(
            where, SHAREGPT_MESSAGES_REFUSAL[0], "`messages` of `role` / `content`", SHAREGPT_MESSAGES_REFUSAL[1]
        )
    audio = record.get("audio")
    if isinstance(audio, dict) and ("array" in audio or "sampling_rate" in audio):
        raise bad_row(where, ASR_REFUSAL[0], "a prompt or messages per row", ASR_REFUSAL[1])
    if _llava_onevision(record):
        raise bad_row(where, LLAVA_ONEVISION_REFUSAL[0], "text only", LLAVA_ONEVISION_REFUSAL[1])
    if (turns := _vision_arena_turns(record)) is not None:
        what, fix = VISION_ARENA_REFUSALS[turns]
        raise bad_row(where, what, "text only", fix)
    if (tag := _sharegpt_tool_tag(record)) is not None:
        what = SHAREGPT_TOOL_REFUSAL[0].format(tag=tag)
        raise bad_row(where, what, "text turns (human, gpt, system)", SHAREGPT_TOOL_REFUSAL[1])


def _table_note(where: str) -> str:
    """:data:`TABLE_TO_JSON_LINES` for a row of a CSV / TSV file (``where`` is ``PATH:LINE``), else ``""``: a jq
    fix reads JSON only."""
    path = where.rsplit(":", 1)[0]
    if not is_csv(path):
        return ""
    tab = path.lower().removesuffix(".gz").endswith(".tsv")
    return TABLE_TO_JSON_LINES.replace("DELIM", "\\t" if tab else ",")


def _gemini_contents(record: dict[str, Any]) -> bool:
    """True for Gemini ``contents`` (:data:`GEMINI_CONTENTS_REFUSAL`): a list of turns that carry ``parts``."""
    turns = record.get("contents")
    return isinstance(turns, list) and bool(turns) and all(isinstance(t, dict) and "parts" in t for t in turns)


def _bedrock_conversation(record: dict[str, Any]) -> bool:
    """True for Bedrock's conversation schema (:data:`BEDROCK_CONVERSATION_REFUSAL`): its ``schemaVersion``, or a
    message ``content`` list of ``{text}`` parts with no ``type``."""
    if record.get("schemaVersion") == "bedrock-conversation-2024":
        return True
    turns = record.get("messages")
    return isinstance(turns, list) and any(
        isinstance(t, dict)
        and isinstance(t.get("content"), list)
        and any(isinstance(p, dict) and "text" in p and "type" not in p for p in t["content"])
        for t in turns
    )


def _cohere_roles(record: dict[str, Any]) -> bool:
    """True for ``messages`` with Cohere's chat roles (:data:`COHERE_ROLES`)."""
    turns = record.get("messages")
    return isinstance(turns, list) and any(
        isinstance(t, dict) and isinstance(t.get("role"), str) and t["role"] in COHERE_ROLES for t in turns
    )


def _hh_transcript_field(record: dict[str, Any]) -> str | None:
    """The row's prompt column when it holds an Anthropic HH transcript (:data:`HH_TRANSCRIPT`: it opens with
    ``Human:`` and carries a ``\\n\\nAssistant:``), with no messages or conversations beside it; else None."""
    if any(k in record for k in (*MESSAGES_FIELDS, *SHAREGPT_FIELDS)):
        return None
    field = first_text_field(record)
    text = record.get(field) if field is not None else None
    human, assistant = HH_TRANSCRIPT
    if isinstance(text, str) and text.lstrip().startswith(human) and assistant in text:
        return field
    return None


def _guanaco_transcript(record: dict[str, Any]) -> bool:
    """True for a row whose prompt column is ``text`` holding a Guanaco transcript (:data:`GUANACO_TRANSCRIPT`: it
    opens with the user's marker and carries an answer's), with no messages or conversations beside it."""
    if any(k in record for k in (*MESSAGES_FIELDS, *SHAREGPT_FIELDS)) or first_text_field(record) != "text":
        return False
    text = record["text"]
    human, assistant = GUANACO_TRANSCRIPT
    return isinstance(text, str) and text.lstrip().startswith(human) and assistant in text


def _sharegpt_messages(record: dict[str, Any]) -> bool:
    """True for ``messages`` whose turns are all ShareGPT's ``{from, value}`` with no ``role``
    (:data:`SHAREGPT_MESSAGES_REFUSAL`)."""
    turns = record.get("messages")
    return (
        isinstance(turns, list)
        and bool(turns)
        and all(isinstance(t, dict) and "from" in t and "value" in t and "role" not in t for t in turns)
    )


def _sharegpt_tool_tag(record: dict[str, Any]) -> str | None:
    """The first ShareGPT ``from`` tag of a tool call or result (:data:`SHAREGPT_TOOL_TAGS`) in the row's
    conversations, else None."""
    for field in SHAREGPT_FIELDS:
        turns = record.get(field)
        if isinstance(turns, list):
            for turn in turns:
                if isinstance(turn, dict) and isinstance(turn.get("from"), str) and turn["from"] in SHAREGPT_TOOL_TAGS:
                    return str(turn["from"])
    return None


def _embedding_request(record: dict[str, Any]) -> bool:
    """True for an embeddings request row (:data:`EMBEDDING_REFUSAL`): ``input`` beside an embeddings field, or an
    ``input`` list of texts (an OpenAI Evals ``input`` list holds message objects)."""
    texts = record.get("input")
    if isinstance(texts, list) and texts and all(isinstance(t, str) for t in texts):
        return True
    return "input" in record and any(k in record for k in EMBEDDING_FIELDS)


def _llava_onevision(record: dict[str, Any]) -> bool:
    """True for a LLaVA-OneVision row (:data:`LLAVA_ONEVISION_REFUSAL`): ``image`` a Hugging Face Image value (an
    object of ``bytes`` / ``path``) beside a ShareGPT ``conversations`` list."""
    image = record.get("image")
    image_value = isinstance(image, dict) and bool({"bytes", "path"} & image.keys())
    return image_value and isinstance(record.get("conversations"), list)


def _vision_arena_turns(record: dict[str, Any]) -> str | None:
    """The field of a VisionArena row's turns (:data:`VISION_ARENA_REFUSALS`: ``conversation`` or ``turns``, whose
    first turn is a list of message objects) beside its ``images``, else None."""
    if not record.get("images"):
        return None
    for field in VISION_ARENA_REFUSALS:
        turns = record.get(field)
        if isinstance(turns, list) and turns and isinstance(turns[0], list) and turns[0]:
            if isinstance(turns[0][0], dict):
                return field
    return None
