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

AIPerf's ``MooncakeTraceDatasetLoader._group_traces`` (``mooncake_trace.py`` @0308411c) groups its rows by
``session_id`` the same way (a row without one a session of its own); ``_infer_context_mode`` gives a session of
``messages`` rows ``MESSAGE_ARRAY_WITH_RESPONSES`` (each row's messages sent as recorded, verbatim, after the answer to
the row before, which it does not carry: :attr:`Prompt.follow_up_messages`, as an AA-RWLT step's), a
session of ``text_input`` rows no mode of its own (``base_trace_loader.py`` @0308411c: the default chat,
``DELTAS_WITHOUT_RESPONSES``), and refuses a session that mixes the two; a ``context_mode`` on every row of a session
(the same on each, else refused) sets it: ``message_array_with_responses`` each row alone, ``deltas_without_responses``
a chat (refused for ``messages`` rows, as AIPerf does), another mode refused by line (specscope always sends the
server's answers in a chat's history).

AIPerf's ``AARWLTDatasetLoader.load_dataset`` (``aa_rwlt.py`` @24c6c28c, ``AARWLTEntry`` in ``models.py``
@24c6c28c) groups rows by ``conversation_id``, sorts each group by ``conversation_idx`` and refuses a gap or a repeat;
``convert_to_conversations`` makes each trajectory one conversation (``session_id`` its ``conversation_id``), a
``Turn(raw_messages=messages, delay=0)`` per step and ``discard_assistant_response=True``: the steps are sent one after
another with no delay, each step's cumulative ``messages`` as recorded and the server's answer discarded. specscope
sends a trajectory so: one conversation named by its ``conversation_id``, step 0's messages first, then each later
step's recorded messages after the answer to the step before (:attr:`Prompt.follow_up_messages`), at the place of its
first line in the file (AIPerf's groups keep the order in which ids first appear). Nothing of the timing is lost: the
loader sets no delay between steps, and specscope sends the next step when the answer ends.

Each turn of a session is sent with its own row's output length (AIPerf's per-turn ``max_tokens``; a row without one:
``--max-tokens``; :func:`set_turn_lengths`); a later row that opens with a system message, or a session mixing
single- and multi-turn rows, is refused by line.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path
from typing import Any

from specscope.values import article
from specscope.workload.census import MOONCAKE_MESSAGES_MARKS, MULTI_TURN_ROW_KEYS, RECORDED_BODY_MARK
from specscope.workload.prompt import Prompt, message_text
from specscope.workload.userfile_fields import bad_row

__all__ = [
    "SESSION_KEY",
    "TRAJECTORY_KEY",
    "aa_rwlt_step",
    "aiperf_session",
    "join_sessions",
    "OPENAI_CHAT_ROLES",
    "recorded_messages",
    "sent_as_recorded",
    "sent_verbatim",
    "set_turn_lengths",
]

#: ``Prompt.meta`` key, while a file is read, of the AIPerf session a row belongs to (removed by :func:`join_sessions`)
SESSION_KEY = "aiperf_session"
#: ``Prompt.meta`` key, while a file is read, of an AA-RWLT row's ``(conversation_id, conversation_idx)``
TRAJECTORY_KEY = "aa_rwlt_step"
#: the roles of OpenAI's chat messages (its Chat Completions API reference), which a message sent verbatim must name
OPENAI_CHAT_ROLES = ("system", "developer", "user", "assistant", "tool")
#: the AIPerf row kinds that share a ``session_id``, by the field that tells them apart, and how each is named
_KINDS = (
    ("turns", "multi_turn", "multi-turn rows (`turns`)"),
    ("text", "single_turn", "single-turn rows"),
    ("texts", "single_turn", "single-turn rows"),
    ("text_input", "mooncake_text", "mooncake_trace `text_input` rows"),
    ("messages", "mooncake_messages", "mooncake_trace `messages` rows"),
)
_KIND_NAMES = {kind: name for _, kind, name in _KINDS}
#: kinds whose later rows are sent alone (``MESSAGE_ARRAY_WITH_RESPONSES``), not after the session's history
_SELF_CONTAINED = ("single_turn", "mooncake_messages")


#: a mooncake_trace row's ``context_mode`` values specscope follows (AIPerf's ``ConversationContextMode``, any case)
_CHAT_MODE, _ALONE_MODE = "deltas_without_responses", "message_array_with_responses"


def aiperf_session(record: dict[str, Any]) -> tuple[str, str, object] | None:
    """``(session_id, kind, context_mode)`` of an AIPerf row that joins a session: single-turn (``text`` /
    ``texts``), multi-turn (``turns``) or mooncake_trace (``text_input`` / ``messages``, with its row's
    ``context_mode`` or None), with no ``id`` or ``question_id`` of another layout, else None."""
    sid = record.get("session_id")
    if isinstance(sid, bool) or not isinstance(sid, str | int) or "id" in record or "question_id" in record:
        return None
    kind = next((kind for key, kind, _ in _KINDS if key in record), None)
    if kind is None:
        return None
    mode = record.get("context_mode") if kind.startswith("mooncake") else None
    return str(sid), kind, mode.lower() if isinstance(mode, str) else mode


def sent_as_recorded(record: dict[str, Any]) -> bool:
    """Whether a row's ``messages`` are sent as recorded, a trailing assistant turn included: an AIPerf
    ``mooncake_trace`` row (``messages`` and a ``MooncakeTrace`` field, :data:`MOONCAKE_MESSAGES_MARKS`), whose
    messages ``MooncakeTraceDatasetLoader._build_turn`` (``mooncake_trace.py`` @0308411c) sends verbatim as the turn's
    ``raw_messages``. Another chat row's trailing assistant turn is its recorded answer (not sent)."""
    return isinstance(record.get("messages"), list) and any(k in record for k in MOONCAKE_MESSAGES_MARKS)


def _mode_self_contained(where: str, sid: str, kind: str, modes: list[object], rows: int) -> bool:
    """Whether a mooncake_trace session's later rows are sent alone, from its rows' ``context_mode`` as AIPerf's
    ``MooncakeTraceDatasetLoader._infer_context_mode`` (@0308411c) resolves it; a mode it refuses, or one specscope
    cannot send, refused by ``where`` (the line of the row that names it)."""
    declared = {m for m in modes if m is not None}
    if len(set(modes)) > 1:
        raise bad_row(where, f"rows of session {sid!r} declare different context_mode ({sorted(map(str, declared))}, "
                      f"{'or none' if None in modes else 'one each'})", "one context_mode on every row of a session, "
                      "or none (AIPerf refuses a session whose rows differ)")  # fmt: skip
    mode = next(iter(declared), None)
    if mode is None:
        return kind in _SELF_CONTAINED
    if kind == "mooncake_messages" and mode != _ALONE_MODE:
        raise bad_row(where, f"a `messages` row of session {sid!r} with context_mode {mode!r:.60}",
                      f"context_mode {_ALONE_MODE} or none (AIPerf refuses another for `messages` rows)")  # fmt: skip
    if mode in (_CHAT_MODE, _ALONE_MODE):
        return mode == _ALONE_MODE
    if rows == 1:
        return True  # one row is sent alone whatever its mode
    raise bad_row(where, f"session {sid!r} with context_mode {mode!r:.60}",
                  f"context_mode {_CHAT_MODE} (a chat, the server's answers in the history) or {_ALONE_MODE} (each "
                  "row alone)", "specscope does not send a session's rows without the server's answers: set one of "
                  "those modes, or write the session's history into each row's `messages`")  # fmt: skip


def aa_rwlt_step(record: dict[str, Any]) -> tuple[str, int, bool] | None:
    """``(conversation_id, conversation_idx, ends with an assistant turn)`` of an AA-RWLT row (``AARWLTEntry``: both
    and ``messages``), else None."""
    cid, idx, messages = record.get("conversation_id"), record.get("conversation_idx"), record.get("messages")
    if not isinstance(cid, str) or isinstance(idx, bool) or not isinstance(idx, int) or not isinstance(messages, list):
        return None
    last = messages[-1] if messages else None
    return cid, idx, isinstance(last, dict) and last.get("role") == "assistant"


def sent_verbatim(record: dict[str, Any]) -> bool:
    """Whether a row's ``messages`` are sent verbatim, every key of every message as recorded: an AA-RWLT step
    (:func:`aa_rwlt_step`) or an AIPerf mooncake_trace ``messages`` row (:func:`sent_as_recorded`), which AIPerf sends
    as the turn's ``raw_messages`` (``ChatEndpoint.format_payload``, ``openai_chat.py`` @24c6c28c: the payload's
    ``messages`` is ``raw_messages`` itself), or a recorded request body (an ``inputs.json`` payload, a SageMaker
    capture: :data:`~specscope.workload.census.RECORDED_BODY_MARK`)."""
    return aa_rwlt_step(record) is not None or sent_as_recorded(record) or bool(record.get(RECORDED_BODY_MARK))


def recorded_messages(where: str, raw: list[Any]) -> list[dict[str, Any]]:
    """A row's recorded messages, kept verbatim (a deep copy: ``content`` null, a string or content parts,
    ``tool_calls``, ``tool_call_id``, ``name``, ... as recorded; ``developer`` stays ``developer``).

    Raises:
        ConfigError: a message that is not an object, has no ``role``, or a role outside OpenAI's chat roles
            (:data:`OPENAI_CHAT_ROLES`), naming ``where`` (the row's line) and the message's 0-based index.
    """
    expected = f"message objects of roles {', '.join(OPENAI_CHAT_ROLES)} (OpenAI's chat roles)"
    fix = ("write each message as an object with its `role` (AIPerf sends them as recorded; a `function` message is "
           "OpenAI's deprecated form of a `tool` message with its `tool_call_id`)")  # fmt: skip
    for i, m in enumerate(raw):
        what = f"message {i} of `messages` (0-based)"
        if not isinstance(m, dict):
            raise bad_row(where, f"{what} is {article(type(m).__name__)}, not an object", expected, fix)
        if "role" not in m:
            raise bad_row(where, f"{what} has no role (keys: {sorted(m)!s:.80})", expected, fix)
        if m["role"] not in OPENAI_CHAT_ROLES:
            raise bad_row(where, f"{what} has role {m['role']!r:.40}", expected, fix)
    return copy.deepcopy(raw)


def _join_trajectories(path: Path, prompts: list[Prompt]) -> list[Prompt]:
    """``prompts`` with each AA-RWLT trajectory one conversation at its first line's place: its steps sorted by
    ``conversation_idx``, step 0 sent first and each later step's recorded messages after the answer to the step
    before (:attr:`Prompt.follow_up_messages`), as AIPerf sends them (see the module docstring).

    Raises:
        ConfigError: a step that ends with an assistant turn, or a gap or a repeat in a trajectory's steps (by line).
    """
    steps: dict[str, list[Prompt]] = {}
    out: list[Prompt | str] = []
    for p in prompts:
        found = p.meta.pop(TRAJECTORY_KEY, None)
        if found is None:
            out.append(p)
            continue
        if found[2]:
            raise bad_row(f"{path}:{p.meta['line']}", f"AA-RWLT trajectory {found[0]!r} step {found[1]} ends with an "
                          "assistant turn", "a step that ends with the turn the model answers",
                          "AIPerf sends a step's messages as recorded, the assistant turn included, where specscope "
                          "drops a trailing answer: remove that turn, or add the user turn it answers")  # fmt: skip
        if found[0] not in steps:
            steps[found[0]] = []
            out.append(found[0])
        steps[found[0]].append(replace(p, meta={**p.meta, "step": found[1]}))
    for cid, rows in steps.items():
        rows.sort(key=lambda p: int(p.meta["step"]))
        for want, p in enumerate(rows):
            if p.meta["step"] != want:
                raise bad_row(f"{path}:{p.meta['line']}",
                              f"AA-RWLT trajectory {cid!r} step conversation_idx {p.meta['step']}, where step "
                              f"{want} comes next", "conversation_idx 0, 1, 2, ... once each per trajectory "
                              "(AIPerf's AA-RWLT loader refuses a gap or a repeat)")  # fmt: skip
    return [x if isinstance(x, Prompt) else _trajectory(steps[x]) for x in out]


def _trajectory(rows: list[Prompt]) -> Prompt:
    """One trajectory's steps (sorted, checked) as one conversation: step 0's row, each later step's recorded
    messages a follow-up sent as recorded; ``session_lines`` the steps' lines in step order."""
    first = rows[0]
    meta = {k: v for k, v in first.meta.items() if k != "step"}
    if len(rows) == 1:
        return replace(first, meta=meta)
    for key in ("timing_fields", "unsent_fields", "unread_length_fields", "unused_columns", "unread_fields"):
        names = [n for p in rows for n in p.meta.get(key, ())]
        if names:
            meta[key] = tuple(dict.fromkeys(names))
    meta["session_lines"] = [p.meta["line"] for p in rows]
    later = rows[1:]
    return replace(
        first,
        meta=meta,
        follow_ups=tuple(message_text(p.messages[-1]) for p in later),
        follow_up_messages=tuple(tuple(p.messages) for p in later),
    )


def join_sessions(path: Path, prompts: list[Prompt], *, join: bool = True) -> list[Prompt]:
    """``prompts`` with the rows of each AIPerf session joined into one session at its first row's place
    (``join``: the file is JSON Lines, as AIPerf reads it; otherwise each row stays a row).

    Raises:
        ConfigError: a later row of a session opens with a system message, or is of the other AIPerf layout
            (naming its line).
    """
    prompts = _join_trajectories(path, prompts)
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


def set_turn_lengths(meta: dict[str, Any], lengths: list[tuple[int, str] | None]) -> None:
    """Record per-turn output lengths in ``meta``: one for every turn is the conversation's ``max_tokens``; lengths
    that differ (or a turn without one beside turns with one) are ``turn_max_tokens``, one entry per turn (None:
    ``--max-tokens``), turn 1's also its ``max_tokens``."""
    found = [v for v in lengths if v is not None]
    if not found:
        return
    meta["output_length_field"] = found[0][1]
    values = [v[0] if v is not None else None for v in lengths]
    if len(set(values)) == 1:
        meta["max_tokens"] = values[0]
        return
    meta["turn_max_tokens"] = tuple(values)
    if values[0] is not None:
        meta["max_tokens"] = values[0]
    else:
        meta.pop("max_tokens", None)


def _row_turn_lengths(p: Prompt) -> list[tuple[int, str] | None]:
    """The output length of each turn of row ``p`` (its ``turn_max_tokens``, else its ``max_tokens`` for every
    turn) with the field that gave it, for :func:`set_turn_lengths`."""
    field = str(p.meta.get("output_length_field", ""))
    per_turn = p.meta.get("turn_max_tokens") or (p.meta.get("max_tokens"),) * p.turns
    return [(v, field) if v is not None else None for v in per_turn]


def _join(path: Path, sid: str, rows: list[Prompt]) -> Prompt:
    first = rows[0]
    kind = first.meta[SESSION_KEY][1]
    modes = [p.meta[SESSION_KEY][2] for p in rows]
    differs = next((p for p in rows if p.meta[SESSION_KEY][2] != modes[0]), first)
    self_contained = _mode_self_contained(f"{path}:{differs.meta['line']}", sid, kind, modes, len(rows))
    first.meta.pop(SESSION_KEY)
    if len(rows) == 1:
        return first
    meta = dict(first.meta)
    follow_ups = list(first.follow_ups)
    recorded: list[tuple[dict[str, Any], ...]] = []
    lengths = _row_turn_lengths(first)
    for p in rows[1:]:
        where = f"{path}:{p.meta['line']}"
        other = p.meta.pop(SESSION_KEY)[1]
        if other != kind:
            raise bad_row(where, f"session {sid!r} mixes AIPerf {_KIND_NAMES[kind]} and {_KIND_NAMES[other]}",
                          "one kind of row per session (AIPerf reads a file with one loader; its mooncake_trace "
                          "loader refuses a session mixing `messages` rows with others)")  # fmt: skip
        if kind == "mooncake_messages":
            recorded.append(tuple(p.messages))  # AIPerf's raw_messages: sent verbatim, whatever they hold
        elif p.messages[0]["role"] != "user" or len(p.messages) != 1:
            raise bad_row(where, f"a later row of session {sid!r} opens with {article(p.messages[0]['role'])} turn",
                          "the session's later rows: user turns (AIPerf hoists a system turn only when it opens "
                          "the session)")  # fmt: skip
        lengths += _row_turn_lengths(p)  # each turn sent with its own (AIPerf: Turn.max_tokens per row)
        follow_ups += [message_text(p.messages[-1]), *p.follow_ups]
        for key in ("timing_fields", "unsent_fields", "unread_length_fields", "unused_columns", "unread_fields"):
            if p.meta.get(key):
                meta[key] = tuple(dict.fromkeys((*meta.get(key, ()), *p.meta[key])))
    meta.pop("max_tokens", None)
    meta.pop("turn_max_tokens", None)
    set_turn_lengths(meta, lengths)
    meta["session_lines"] = [p.meta["line"] for p in rows]
    if self_contained:
        meta["turns_self_contained"] = True  # each row sent alone, after the answer to the one before
    return replace(first, meta=meta, follow_ups=tuple(follow_ups), follow_up_messages=tuple(recorded))


def multi_turn_row_turns(record: object) -> tuple[str, ...] | None:
    """The user turns of a row in the multi-turn benchmark's layout (census ``vllm.multi_turn``: exactly
    :data:`~specscope.workload.census.MULTI_TURN_ROW_KEYS`, ``messages`` of ``{"role", "content"}`` strings alternating
    user / assistant from a user turn, two user turns or more, none empty), in order; None for any other row. Only a
    row of one JSON array file is read so (:func:`specscope.workload.userfile.load_prompt_rows`), as that benchmark's
    reader takes the file."""
    if not isinstance(record, dict) or {k for k, v in record.items() if v is not None} != set(MULTI_TURN_ROW_KEYS):
        return None
    messages = record["messages"]
    if not isinstance(messages, list):
        return None
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or set(m) != {"role", "content"} or not isinstance(m["content"], str):
            return None
        if m["role"] != ("user" if i % 2 == 0 else "assistant"):
            return None
    turns = tuple(m["content"] for m in messages[::2])
    return turns if len(turns) >= 2 and all(t.strip() for t in turns) else None
