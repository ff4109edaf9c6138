"""AIPerf's custom-dataset rows that share a ``session_id`` are one session, sent in file order (issue 36).

AIPerf's ``SingleTurnDatasetLoader.load_dataset`` (ai-dynamo/aiperf ``src/aiperf/dataset/loader/single_turn.py``
@39545f68) and ``MultiTurnDatasetLoader.load_dataset`` (``multi_turn.py`` @13b4567a) collect a file's rows into a
mapping of session id to rows, in the order sessions first appear, each session's rows in file order; a row without
a ``session_id`` is a session of its own. What a session's later turns carry differs:

- single-turn rows: ``ConversationContextMode.MESSAGE_ARRAY_WITH_RESPONSES`` ("self-contained prompts ... sent
  as-is"; ``SingleTurn.session_id`` in ``models.py`` @0109a64e: "sent sequentially ... no history accumulation"):
  each row is sent alone, after the answer to the row before it in its session;
- multi-turn rows: the default chat mode, a row's ``turns`` continuing the session's turns before it, each carrying
  the turns before it and the server's answers; a leading system turn is hoisted only for the session's first turn.

specscope sends a session with one ``max_tokens``, so a session whose rows ask for different output lengths is
refused by the line of the row that differs (as an AIPerf multi-turn row's turns are); a later row that opens with a
system message, or a session mixing single- and multi-turn rows, is refused by line too.
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


def aiperf_session(record: dict[str, Any]) -> tuple[str, bool] | None:
    """``(session_id, self_contained)`` of an AIPerf single-turn row (``text`` / ``texts``: self-contained) or
    multi-turn row (``turns``), with no ``id`` or ``question_id`` of another layout, else None."""
    sid = record.get("session_id")
    if isinstance(sid, bool) or not isinstance(sid, str | int) or "id" in record or "question_id" in record:
        return None
    return (str(sid), "turns" not in record) if any(k in record for k in _AIPERF_ROW) else None


def join_sessions(path: Path, prompts: list[Prompt], *, join: bool = True) -> list[Prompt]:
    """``prompts`` with the rows of each AIPerf session joined into one session at its first row's place
    (``join``: the file is JSON Lines, as AIPerf reads it; otherwise each row stays a row).

    Raises:
        ConfigError: a later row of a session asks for another output length than the session's, opens with a
            system message, or is of the other AIPerf layout (naming its line).
    """
    groups: dict[str, list[Prompt]] = {}
    out: list[Prompt | str] = []
    for p in prompts:
        found = p.meta.get(SESSION_KEY)
        if found is None or not join:
            p.meta.pop(SESSION_KEY, None)
            out.append(p)
            continue
        sid = found[0]  # the key is removed by _join
        if sid not in groups:
            groups[sid] = []
            out.append(sid)
        groups[sid].append(p)
    return [x if isinstance(x, Prompt) else _join(path, x, groups[x]) for x in out]


def _join(path: Path, sid: str, rows: list[Prompt]) -> Prompt:
    first = rows[0]
    self_contained = first.meta.pop(SESSION_KEY)[1]
    if len(rows) == 1:
        return first
    meta = dict(first.meta)
    follow_ups = list(first.follow_ups)
    lengths = [first.meta.get("max_tokens")]
    for p in rows[1:]:
        where = f"{path}:{p.meta['line']}"
        if p.meta.pop(SESSION_KEY)[1] != self_contained:
            raise bad_row(where, f"session {sid!r} mixes AIPerf single-turn rows and multi-turn rows (`turns`)",
                          "one layout per file, as AIPerf reads a file with one loader")  # fmt: skip
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
    if self_contained:
        meta["turns_self_contained"] = True  # each row sent alone, after the answer to the one before
    return replace(first, meta=meta, follow_ups=tuple(follow_ups))
