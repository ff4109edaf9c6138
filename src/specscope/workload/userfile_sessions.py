"""AIPerf's custom-dataset rows that share a ``session_id`` are one conversation (issue 36).

AIPerf's ``SingleTurnDatasetLoader.load_dataset`` (ai-dynamo/aiperf ``src/aiperf/dataset/loader/single_turn.py``
@39545f68) and ``MultiTurnDatasetLoader.load_dataset`` (``multi_turn.py`` @13b4567a) collect a file's rows into a
mapping of session id to rows, in the order sessions first appear, each session's rows in file order; a row without
a ``session_id`` is a session of its own. Each session is one conversation: a single-turn row is one turn, a
multi-turn row's ``turns`` follow the turns before it, and every turn after the first carries the answers before it
(``MESSAGE_ARRAY_WITH_RESPONSES``). A leading system turn is hoisted only for the session's first turn.

specscope sends a conversation with one ``max_tokens``, so a session whose rows ask for different output lengths is
refused by the line of the row that differs (as an AIPerf multi-turn row's turns are); a later row that opens with a
system message has no place in the conversation (AIPerf would send it as a turn of role system) and is refused too.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from specscope.workload.prompt import Prompt
from specscope.workload.userfile_fields import bad_row

__all__ = ["SESSION_KEY", "aiperf_session", "join_sessions"]

#: ``Prompt.meta`` key, while a file is read, of the AIPerf session a row belongs to (removed by :func:`join_sessions`)
SESSION_KEY = "aiperf_session"
#: the fields of an AIPerf custom-dataset row (``SingleTurn`` / ``MultiTurn``)
_AIPERF_ROW = ("text", "texts", "turns")


def aiperf_session(record: dict[str, Any]) -> str | None:
    """The ``session_id`` of an AIPerf single- or multi-turn row (its text under ``text`` / ``texts`` / ``turns``,
    no ``id`` or ``question_id`` of another layout), else None."""
    sid = record.get("session_id")
    if isinstance(sid, bool) or not isinstance(sid, str | int) or "id" in record or "question_id" in record:
        return None
    return str(sid) if any(k in record for k in _AIPERF_ROW) else None


def join_sessions(path: Path, prompts: list[Prompt], *, join: bool = True) -> list[Prompt]:
    """``prompts`` with the rows of each AIPerf session joined into one conversation at its first row's place
    (``join``: the file is JSON Lines, as AIPerf reads it; otherwise each row stays a row).

    Raises:
        ConfigError: a later row of a session asks for another output length than the session's, or opens with a
            system message (naming its line).
    """
    groups: dict[str, list[Prompt]] = {}
    out: list[Prompt | str] = []
    for p in prompts:
        sid = p.meta.pop(SESSION_KEY, None)
        if sid is None or not join:
            out.append(p)
            continue
        if sid not in groups:
            groups[sid] = []
            out.append(sid)
        groups[sid].append(p)
    return [x if isinstance(x, Prompt) else _join(path, x, groups[x]) for x in out]


def _join(path: Path, sid: str, rows: list[Prompt]) -> Prompt:
    first = rows[0]
    if len(rows) == 1:
        return first
    meta = dict(first.meta)
    follow_ups = list(first.follow_ups)
    lengths = [first.meta.get("max_tokens")]
    for p in rows[1:]:
        where = f"{path}:{p.meta['line']}"
        if p.messages[0]["role"] != "user" or len(p.messages) != 1:
            raise bad_row(where, f"a later row of session {sid!r} opens with a {p.messages[0]['role']} turn",
                          "the session's later rows: user turns (AIPerf hoists a system turn only when it opens "
                          "the session)")  # fmt: skip
        length = p.meta.get("max_tokens")
        known = {v for v in lengths if v is not None}
        if length is not None and known and length not in known:
            found = f"rows of session {sid!r} ask for different output_length ({sorted({*known, length})})"
            raise bad_row(where, found, "one output_length for every turn of a conversation (one max_tokens)")
        lengths.append(length)
        if length is not None and "max_tokens" not in meta:
            meta["max_tokens"], meta["output_length_field"] = length, p.meta["output_length_field"]
        follow_ups += [p.messages[0]["content"], *p.follow_ups]
        for key in ("timing_fields", "unsent_fields"):
            if p.meta.get(key):
                meta[key] = tuple(dict.fromkeys((*meta.get(key, ()), *p.meta[key])))
    meta["session_lines"] = [p.meta["line"] for p in rows]
    return replace(first, meta=meta, follow_ups=tuple(follow_ups))
