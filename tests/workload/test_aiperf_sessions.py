"""AIPerf joins the rows of a custom dataset that share a ``session_id`` into one session, turns in file order, at the
place of the session's first row (``SingleTurnDatasetLoader.load_dataset`` @39545f68 and
``MultiTurnDatasetLoader.load_dataset`` @13b4567a: a dict of session id -> rows, in first-appearance order). A
single-turn session's rows are self-contained (``MESSAGE_ARRAY_WITH_RESPONSES``: each sent alone, after the answer to
the row before); a multi-turn session is one chat, each turn with the turns and answers before it. specscope sent
each row as a request of its own, in any order its concurrency gave."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specscope.errors import ConfigError
from specscope.workload.userfile import load_prompt_file


def _load(tmp_path: Path, rows: list[dict[str, object]]) -> list:  # type: ignore[type-arg]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return load_prompt_file("mine", path)


def test_single_turn_rows_of_one_session_are_one_conversation_in_file_order(tmp_path: Path) -> None:
    rows = [{"session_id": "a", "text": "A first", "output_length": 3},
            {"session_id": "b", "text": "B only"},
            {"text": "No session"},
            {"session_id": "a", "texts": ["A second"], "output_length": 3, "delay": 200},
            {"session_id": "a", "text": "A third"}]  # fmt: skip
    a, b, free = _load(tmp_path, rows)
    assert a.messages == [{"role": "user", "content": "A first"}]
    assert a.follow_ups == ("A second", "A third")
    assert a.meta["row_id"] == "a" and a.meta["max_tokens"] == 3
    assert a.meta["session_lines"] == [1, 4, 5]
    assert a.meta["timing_fields"] == ("delay",)
    assert a.meta["turns_self_contained"] is True
    assert (b.meta["row_id"], b.follow_ups) == ("b", ())
    assert (free.meta["row_id"], free.follow_ups) == ("line 3", ())


def test_multi_turn_rows_of_one_session_are_joined_and_keep_the_hoisted_system_message(tmp_path: Path) -> None:
    rows = [{"session_id": "m", "turns": [{"role": "system", "text": "Be brief."}, {"text": "One"}, {"text": "Two"}]},
            {"session_id": "m", "turns": [{"text": "Three"}]}]  # fmt: skip
    (conv,) = _load(tmp_path, rows)
    assert conv.messages == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "One"}]
    assert conv.follow_ups == ("Two", "Three")
    assert "turns_self_contained" not in conv.meta


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"session_id": "a", "text": "x"},
          {"session_id": "a", "turns": [{"role": "system", "text": "late"}, {"text": "y"}]}],
         "FILE:2: session 'a' mixes AIPerf single-turn rows and multi-turn rows (`turns`)"),
        ([{"session_id": "a", "turns": [{"text": "x"}]},
          {"session_id": "a", "turns": [{"role": "system", "text": "late"}, {"text": "y"}]}],
         "FILE:2: a later row of session 'a' opens with a system turn"),
    ],
)  # fmt: skip
def test_a_session_that_cannot_be_one_conversation_is_refused_by_line(
    tmp_path: Path, rows: list[dict[str, object]], message: str
) -> None:
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, rows)
    assert err.value.message.replace(str(tmp_path / "rows.jsonl"), "FILE").startswith(message), err.value.message


def test_rows_with_a_shared_id_of_other_layouts_stay_rows(tmp_path: Path) -> None:
    """Only AIPerf's custom rows are joined: a repeated ``id`` stays a row of its own, named by its line."""
    one, two = _load(tmp_path, [{"id": "q", "prompt": "x"}, {"id": "q", "prompt": "y"}])
    assert (one.meta["row_id"], two.meta["row_id"]) == ("q (line 1)", "q (line 2)")


def test_mooncake_text_input_rows_of_one_session_are_one_chat_in_file_order(tmp_path: Path) -> None:
    """AIPerf's ``MooncakeTraceDatasetLoader._group_traces`` (mooncake_trace.py @0308411c) groups rows by
    ``session_id``; ``text_input`` rows get no context mode of their own, so the session is the default chat
    (``DELTAS_WITHOUT_RESPONSES``): each row a user turn after the server's answer to the one before."""
    rows = [{"session_id": "t", "text_input": "a", "output_length": 4},
            {"text_input": "free"},
            {"session_id": "t", "text_input": "b", "delay": 20}]  # fmt: skip
    conv, free = _load(tmp_path, rows)
    assert conv.messages == [{"role": "user", "content": "a"}]
    assert conv.follow_ups == ("b",)
    assert (conv.meta["row_id"], conv.meta["max_tokens"], conv.meta["session_lines"]) == ("t", 4, [1, 3])
    assert "turns_self_contained" not in conv.meta
    assert (free.meta["row_id"], free.follow_ups) == ("line 2", ())


def test_mooncake_messages_rows_of_one_session_are_sent_as_recorded_one_after_another(tmp_path: Path) -> None:
    """A ``messages`` session is ``MESSAGE_ARRAY_WITH_RESPONSES`` (AIPerf ``_infer_context_mode``): each row sent
    as recorded, after the answer to the row before; a later row of one user message is such a turn."""
    rows = [{"session_id": "m", "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "a"}]},
            {"session_id": "m", "messages": [{"role": "user", "content": "b"}]}]  # fmt: skip
    (conv,) = _load(tmp_path, rows)
    assert conv.messages == rows[0]["messages"]
    assert conv.follow_ups == ("b",)
    assert conv.follow_up_messages == (tuple(rows[1]["messages"]),)
    assert conv.meta["turns_self_contained"] is True


def test_a_later_mooncake_messages_row_is_sent_verbatim_whatever_it_holds(tmp_path: Path) -> None:
    """AIPerf sends every row of a ``messages`` session as its ``raw_messages`` (``mooncake_trace.py`` @0308411c
    ``_build_turn``). specscope refused a later row of more than one message ("holds 3 messages") and sent a later
    row's one message as a plain user turn (its content parts joined, its other keys dropped); now each later row's
    messages are sent as recorded (:attr:`Prompt.follow_up_messages`)."""
    call = [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]
    later = [{"role": "user", "content": "a"}, {"role": "assistant", "content": None, "tool_calls": call},
             {"role": "tool", "tool_call_id": "c1", "content": "a.py"}]  # fmt: skip
    parts = [{"role": "user", "content": [{"type": "text", "text": "b"}], "name": "ann"}]
    rows = [{"session_id": "m", "messages": [{"role": "user", "content": "a"}]},
            {"session_id": "m", "messages": later}, {"session_id": "m", "messages": parts}]  # fmt: skip
    (conv,) = _load(tmp_path, rows)
    assert conv.follow_up_messages == (tuple(later), tuple(parts))
    assert conv.follow_ups == ("a.py", "b")


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"session_id": "m", "text_input": "a"}, {"session_id": "m", "messages": [{"role": "user", "content": "b"}]}],
         "FILE:2: session 'm' mixes AIPerf mooncake_trace `text_input` rows and mooncake_trace `messages` rows"),
    ],
)  # fmt: skip
def test_a_mooncake_session_that_cannot_be_followed_is_refused_by_line(
    tmp_path: Path, rows: list[dict[str, object]], message: str
) -> None:
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, rows)
    assert err.value.message.replace(str(tmp_path / "rows.jsonl"), "FILE").startswith(message), err.value.message


def test_a_mooncake_context_mode_on_every_row_sets_how_the_session_is_sent(tmp_path: Path) -> None:
    """``_infer_context_mode``: a mode declared on every row of a session is the session's (any case)."""
    alone = [{"session_id": "s", "text_input": "a", "context_mode": "MESSAGE_ARRAY_WITH_RESPONSES"},
             {"session_id": "s", "text_input": "b", "context_mode": "message_array_with_responses"}]  # fmt: skip
    (conv,) = _load(tmp_path, alone)
    assert (conv.follow_ups, conv.meta.get("turns_self_contained")) == (("b",), True)
    chat = [{**r, "context_mode": "deltas_without_responses"} for r in alone]
    (conv,) = _load(tmp_path, chat)
    assert (conv.follow_ups, "turns_self_contained" in conv.meta) == (("b",), False)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"session_id": "s", "text_input": "a", "context_mode": "deltas_without_responses"},
          {"session_id": "s", "text_input": "b"}],
         "FILE:2: rows of session 's' declare different context_mode (['deltas_without_responses'], or none)"),
        ([{"session_id": "s", "text_input": "a", "context_mode": "deltas_with_responses"},
          {"session_id": "s", "text_input": "b", "context_mode": "deltas_with_responses"}],
         "FILE:1: session 's' with context_mode 'deltas_with_responses'"),
        ([{"session_id": "s", "messages": [{"role": "user", "content": "a"}],
           "context_mode": "deltas_without_responses"}],
         "FILE:1: a `messages` row of session 's' with context_mode 'deltas_without_responses'"),
    ],
)  # fmt: skip
def test_a_mooncake_context_mode_aiperf_refuses_or_specscope_cannot_send_is_refused_by_line(
    tmp_path: Path, rows: list[dict[str, object]], message: str
) -> None:
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, rows)
    assert err.value.message.replace(str(tmp_path / "rows.jsonl"), "FILE").startswith(message), err.value.message


_ANSWERED = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "Recorded answer."}]


@pytest.mark.parametrize(
    "row",
    [
        {"messages": _ANSWERED, "output_length": 4},
        {"messages": _ANSWERED, "timestamp": 100},
        {"messages": _ANSWERED, "delay": 5},
        {"session_id": "m", "messages": _ANSWERED},
        {"session_id": "m", "context_mode": "message_array_with_responses", "messages": _ANSWERED},
    ],
)
def test_mooncake_messages_row_ending_in_an_assistant_turn_is_sent_as_recorded(
    tmp_path: Path, row: dict[str, object]
) -> None:
    """AIPerf's ``MooncakeTraceDatasetLoader._build_turn`` (ai-dynamo/aiperf ``mooncake_trace.py`` @0308411c) puts
    a ``messages`` row's list into the turn's ``raw_messages``, sent verbatim: a trailing assistant turn is sent,
    and the row's ``output_length`` (else the default) is its length, never the recorded answer's token count.
    specscope dropped that turn as a recorded answer."""
    (prompt,) = _load(tmp_path, [row])
    assert prompt.messages == _ANSWERED
    assert "recorded_answer" not in prompt.meta
    assert prompt.meta.get("max_tokens") == row.get("output_length")


def test_a_chat_row_of_no_mooncake_field_still_drops_its_recorded_answer(tmp_path: Path) -> None:
    """An OpenAI / HF chat row (no MooncakeTrace field) ends with its recorded answer: not sent, its length counted."""
    (prompt,) = _load(tmp_path, [{"messages": _ANSWERED}])
    assert prompt.messages == _ANSWERED[:1]
    assert prompt.meta["recorded_answer"] == "Recorded answer."


@pytest.mark.parametrize("key", ["text", "text_input"])
def test_rows_of_one_session_keep_their_own_output_length(tmp_path: Path, key: str) -> None:
    """Issue 36: rows of one session asking for different ``output_length`` were refused ("one max_tokens"); AIPerf
    sends each row's turn with its own ``max_tokens``, and so does specscope: (3, 5), (3, None -> --max-tokens)."""
    rows = [{"session_id": "a", key: "x", "output_length": 3}, {"session_id": "a", key: "y", "output_length": 5},
            {"session_id": "b", key: "z", "output_length": 3}, {"session_id": "b", key: "w"}]  # fmt: skip
    a, b = _load(tmp_path, rows)
    assert (a.meta["turn_max_tokens"], a.meta["max_tokens"], a.follow_ups) == ((3, 5), 3, ("y",))
    assert (b.meta["turn_max_tokens"], b.meta["max_tokens"]) == ((3, None), 3)
