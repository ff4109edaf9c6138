"""One synthetic workload file per census layout (:data:`specscope.workload.census.CENSUS`), built from the reader's
own field names, and what the server must receive from it, row by row.

``LAYOUT_FILES[key]()`` -> :class:`LayoutFile`: the file's name and text, and either ``sent`` (one :class:`SentRow`
per row, in file order: its row id and every request of its conversation, all turns, with its ``max_tokens``, None
meaning ``--max-tokens``) or ``refused`` (a piece of the one-line refusal: the layout's source and the fix), and the
lines ``bench`` must print at the start about the file (``notices``). Sources: the census rows themselves.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from specscope.workload.census import OUTPUT_LENGTH_FIELDS, SYSTEM_FIELDS, TEXT_FIELDS

Messages = list[dict[str, Any]]
#: what the truth server streams for a turn when its script says ``output_tokens=2`` (the history of the next turn)
REPLY = " x x"
#: the start of the warning ``bench`` prints for rows that carry arrival times (never replayed)
TIMING_WARNING = "warning: rows: mine: {rows} arrival times ({names}) that are not replayed"
ONE = "1 row carries"


@dataclass(frozen=True)
class SentRow:
    """One row as the server must receive it: ``requests[k]`` is the messages of the conversation's k-th request."""

    row_id: str
    requests: tuple[Messages, ...]
    max_tokens: int | None = None
    #: each request's own max_tokens where turns carry their own (None: --max-tokens); empty: ``max_tokens`` for all
    turn_max_tokens: tuple[int | None, ...] = ()

    def cap(self, k: int) -> int | None:
        """The max_tokens the k-th request asks for (None: the run's --max-tokens)."""
        return self.turn_max_tokens[k] if self.turn_max_tokens else self.max_tokens


@dataclass(frozen=True)
class LayoutFile:
    name: str
    text: str
    sent: list[SentRow] | None = None
    refused: str | None = None
    notices: tuple[str, ...] = ()  # lines bench prints at the start (rows sent with --max-tokens, arrival times)


def _user(text: str) -> Messages:
    return [{"role": "user", "content": text}]


def _conv(*turns: str, history: Messages | None = None) -> tuple[Messages, ...]:
    """The requests of a conversation of user ``turns``: turn k+1 carries turn k and the server's :data:`REPLY`."""
    out: list[Messages] = []
    sent: Messages = list(history or [])
    for turn in turns:
        sent = [*sent, *_user(turn)]
        out.append(sent)
        sent = [*sent, {"role": "assistant", "content": REPLY}]
    return tuple(out)


def _row(row_id: str, text: str, max_tokens: int | None = None) -> SentRow:
    return SentRow(row_id, _conv(text), max_tokens)


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def _sharegpt(key: str = "conversations") -> LayoutFile:
    """Two one-question rows and one whose history holds a recorded answer (sent; the trailing one is not); each
    asks for its trailing answer's token count (the truth server's tokenizer: one token per word)."""
    human = lambda text: {"from": "human", "value": text}  # noqa: E731
    gpt = lambda text: {"from": "gpt", "value": text}  # noqa: E731
    rows = [
        {"id": "sg1", key: [human("ShareGPT one?"), gpt("Answer one.")]},
        {"id": "sg2", key: [gpt("An opening answer."), human("ShareGPT two?"), gpt("Answer two is five words.")]},
        {key: [human("First question."), gpt("First answer."), human("Follow-up?"), gpt("Three word answer.")]},
    ]
    history = [*_user("First question."), {"role": "assistant", "content": "First answer."}]
    sent = [_row("sg1", "ShareGPT one?", 2), _row("sg2", "ShareGPT two?", 5),
            SentRow("item 3", _conv("Follow-up?", history=history), 3)]  # fmt: skip
    notice = "rows: mine: 3 rows end with a recorded answer and name no output length: each asks for the answer's token"
    turns = f"warning: rows: mine: 1 row carries ShareGPT conversations of several human turns ({key}) that are sent"
    opening = f"warning: rows: mine: 1 row carries ShareGPT conversations that open with an assistant turn ({key})"
    return LayoutFile("sharegpt.json", json.dumps(rows, indent=1), sent, notices=(notice, turns, opening))


def _sglang_custom() -> LayoutFile:
    """SGLang's custom dataset: turn text under `content` (with `from` roles) or `value`, and turns naming no role;
    each asks for its answer's token count."""
    rows = [
        {"conversations": [{"from": "human", "content": "Custom one?"}, {"from": "gpt", "content": "Two words."}]},
        {"conversation": [{"value": "Custom two?"}, {"value": "Now three words."}]},
    ]
    sent = [_row("line 1", "Custom one?", 2), _row("line 2", "Custom two?", 3)]
    notice = "rows: mine: 2 rows end with a recorded answer and name no output length: each asks for the answer's token"
    return LayoutFile("custom.jsonl", _jsonl(rows), sent, notices=(notice,))


def _sglang_openai() -> LayoutFile:
    """SGLang's openai dataset: request bodies whose sampling fields SGLang passes through (named, not sent)."""
    first = [{"role": "system", "content": "Be short."}, *_user("OpenAI row one.")]
    rows = [{"messages": first, "max_tokens": 5, "temperature": 0.2, "model": "m"},
            {"messages": _user("OpenAI row two.")}]  # fmt: skip
    sent = [SentRow("line 1", (first,), 5), _row("line 2", "OpenAI row two.")]
    unsent = "warning: rows: mine: 1 row carries request-body fields (temperature) that are not sent"
    return LayoutFile("openai.jsonl", _jsonl(rows), sent, notices=(unsent,))


def _sglang_autobench() -> LayoutFile:
    """SGLang autobench rows (autobench.py @3f56497e): a `prompt` string or `messages`, the output length from
    `output_len`, else `max_tokens` ... `completion_tokens`; `output_len` was sent as --max-tokens."""
    rows = [{"prompt": "Autobench one.", "output_len": 20, "routing_key": "r1"},
            {"messages": [{"role": "system", "content": "Be short."}, *_user("Autobench two.")],
             "completion_tokens": 9},
            {"prompt": "Autobench three.", "max_tokens": 4, "routing_key": "r3",
             "param_send": {"temperature": 0.1}},
            {"messages": json.dumps(_user("Autobench four, messages as JSON text.")), "output_len": 6}]  # fmt: skip
    system = [{"role": "system", "content": "Be short."}]
    sent = [
        _row("line 1", "Autobench one.", 20),
        SentRow("line 2", _conv("Autobench two.", history=system), 9),
        _row("line 3", "Autobench three.", 4),
        _row("line 4", "Autobench four, messages as JSON text.", 6),
    ]
    notice = "warning: rows: mine: 1 row carries request-body fields (param_send)"
    return LayoutFile("autobench.jsonl", _jsonl(rows), sent, notices=(notice,))


def _mlperf() -> LayoutFile:
    """MLPerf inference rows as vLLM's MLPerfDataset reads them (@0056b87f): system prompt and question sent, each
    asking for its reference ``output``'s token count (the truth server's tokenizer: one token per word)."""
    rows = [{"system_prompt": "Be short.", "question": "MLPerf one?", "output": "Reference of four words."},
            {"system_prompt": "", "question": "MLPerf two?", "output": "Two words."}]  # fmt: skip
    system = [{"role": "system", "content": "Be short."}]
    sent = [SentRow("line 1", _conv("MLPerf one?", history=system), 4), _row("line 2", "MLPerf two?", 2)]
    notice = "rows: mine: 2 rows end with a recorded answer and name no output length: each asks for the answer's token"
    return LayoutFile("mlperf.jsonl", _jsonl(rows), sent, notices=(notice,))


def _longbench_v2() -> LayoutFile:
    """THUDM/LongBench-v2 rows in their own column order (the question before the context): SGLang's longbench_v2
    reader sends its template (longbench_v2.py @5d2c83e6); the row was sent as its question alone."""
    row = {"_id": "66f36490821e116aacb2cc22", "domain": "Single-Document QA", "sub_domain": "Financial",
           "difficulty": "easy", "length": "short", "question": "Which year had the highest revenue?",
           "choice_A": "2019", "choice_B": "2020", "choice_C": "2021", "choice_D": "2022", "answer": "C",
           "context": "Revenue was 1 in 2019, 2 in 2020, 5 in 2021 and 3 in 2022."}  # fmt: skip
    text = ("Revenue was 1 in 2019, 2 in 2020, 5 in 2021 and 3 in 2022.\n\nQuestion: Which year had the highest "
            "revenue?\nA. 2019\nB. 2020\nC. 2021\nD. 2022\nAnswer:")  # fmt: skip
    return LayoutFile("longbench_v2.jsonl", _jsonl([row]), [_row("66f36490821e116aacb2cc22", text)])


def _sglang_dynamic() -> LayoutFile:
    """An SGLang dynamic workload plan (dynamic.py @ef169ddc): generated requests, no prompts."""
    plan = {"prompt_pool_size": 8, "phases": [
        {"name": "warm", "duration": 10, "request_rate": 2, "input_len": 512, "output_len": 64},
        {"name": "burst", "duration": 5, "request_rate": 8, "input_len": 2048, "output_len": 128}]}  # fmt: skip
    return LayoutFile("plan.json", json.dumps(plan, indent=2), refused="an SGLang dynamic workload plan")


def _sglang_token_trace() -> LayoutFile:
    rows = [
        {"input_tokens": [101, 102, 103], "output_tokens": [7, 8], "ts": 0.5},
        {"input_tokens": [9], "num_output_tokens": 4},
    ]
    return LayoutFile("token_trace.jsonl", _jsonl(rows), refused="an SGLang token trace row")


def _sglang_agentic_trace() -> LayoutFile:
    """SGLang's agentic trace (agentic_trace.py @3666ee97; agentic.py @1cb4d970 writes the same JSON): each
    conversation's rounds, the first a system and a user message (OpenHands' text-part content), later rounds one user
    message each, sent after the server's own answer; a turn without messages skipped, as SGLang does."""
    turn = lambda *m: {"messages": list(m), "prompt_tokens": 10}  # noqa: E731
    parts = [{"role": "user", "content": [{"type": "text", "text": "Fix the bug."}]}]
    conv = [turn({"role": "system", "content": "Agent."}, *parts), {"prompt_tokens": 11}, turn(*_user("Tests pass?"))]
    doc = {"metadata": {"source": "openhands"}, "conversations": [conv, [turn(*_user("Second agent task."))]]}
    system = [{"role": "system", "content": "Agent."}]
    sent = [SentRow("conversation 1", _conv("Fix the bug.", "Tests pass?", history=system)),
            SentRow("conversation 2", _conv("Second agent task."))]  # fmt: skip
    return LayoutFile("agentic.json", json.dumps(doc), sent)


def _guidellm_otel() -> LayoutFile:
    """A span per line and a session per line of OpenTelemetry GenAI spans (GuideLLM trace_otel.py @121fb66d)."""
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(_user("Span question.")),
             "gen_ai.usage.input_tokens": 3, "gen_ai.usage.output_tokens": 5}  # fmt: skip
    span = {"trace_id": "t1", "span_id": "s1", "name": "chat m", "start_time": 1700000000.0, "attributes": attrs}
    return LayoutFile("otel.jsonl", _jsonl([span, {"trace_id": "t2", "spans": [span]}]), refused="OpenTelemetry GenAI")


def _raw_payload() -> LayoutFile:
    """AIPerf raw_payload: request bodies, the cap as max_completion_tokens or max_tokens, a sampling field named."""
    first = [*_user("Raw body one."), {"role": "assistant", "content": "Recorded."}, *_user("Raw body two.")]
    rows = [{"model": "m", "messages": first, "max_completion_tokens": 7, "stream": True},
            {"messages": _user("Raw body three."), "max_tokens": 3, "top_p": 0.5}]  # fmt: skip
    sent = [SentRow("line 1", (first,), 7), _row("line 2", "Raw body three.", 3)]
    unsent = "warning: rows: mine: 1 row carries request-body fields (top_p) that are not sent"
    return LayoutFile("payloads.jsonl", _jsonl(rows), sent, notices=(unsent,))


def _vllm_custom() -> LayoutFile:
    rows = [{"prompt": "Capital of India?", "output_tokens": 7}, {"prompt": "Capital of Iran?"}]
    sent = [_row("line 1", "Capital of India?", 7), _row("line 2", "Capital of Iran?")]
    return LayoutFile("custom.jsonl", _jsonl(rows), sent)


def _spec_bench() -> LayoutFile:
    rows = [{"question_id": 1, "category": "qa", "turns": ["Who wrote Hamlet?"]},
            {"question_id": 2, "category": "writing", "turns": ["Write a haiku.", "Now a limerick."]}]  # fmt: skip
    sent = [_row("1", "Who wrote Hamlet?"), SentRow("2", _conv("Write a haiku.", "Now a limerick."))]
    return LayoutFile("question.jsonl", _jsonl(rows), sent)


def _vllm_multi_turn() -> LayoutFile:
    """vLLM's multi-turn benchmark file (benchmarks/multi_turn/convert_sharegpt_to_openai.py writes one JSON array of
    {id, messages}, messages alternating user / assistant from a user turn): every user turn is sent in order, the
    server's own answer in place of the recorded one (benchmark_serving_multi_turn.py send_turn). Before, each row was
    one request: its last user turn with the recorded answers as history."""
    user = lambda text: {"role": "user", "content": text}  # noqa: E731
    bot = lambda text: {"role": "assistant", "content": text}  # noqa: E731
    rows = [
        {"id": "hiWPlMD", "messages": [user("Hello there?"), bot("Recorded one."), user("And then?"), bot("Rec two.")]},
        {"id": "c2", "messages": [user("Q one?"), bot("R one."), user("Q two?"), bot("R two."), user("Q three?")]},
    ]
    sent = [
        SentRow("hiWPlMD", _conv("Hello there?", "And then?")),
        SentRow("c2", _conv("Q one?", "Q two?", "Q three?")),
    ]
    return LayoutFile("sharegpt_conv_128.json", json.dumps(rows, indent=2), sent)


def _sonnet() -> LayoutFile:
    lines = ["From fairest creatures we desire increase,", "That thereby beauty's rose might never die,"]
    return LayoutFile(
        "sonnet.txt", "".join(f"{x}\n" for x in lines), [_row(f"line {i}", x) for i, x in enumerate(lines, 1)]
    )


def _burstgpt() -> LayoutFile:
    text = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,GPT-4,472,18,490,Conversation log\n"
    return LayoutFile("burst.csv", text, refused="--trace FILE")


def _mooncake() -> LayoutFile:
    rows = [{"timestamp": 0, "input_length": 600, "output_length": 20, "hash_ids": [0, 1]}]
    return LayoutFile("mooncake.jsonl", _jsonl(rows), refused="--trace FILE")


def _single_turn() -> LayoutFile:
    """AIPerf single-turn rows; the rows of session s1 are one session (AIPerf joins a session's rows, in file order,
    at its first row's place), each row sent alone after the answer to the one before (no history)."""
    rows = [{"text": "AIPerf single one.", "output_length": 5, "session_id": "s1", "delay": 250},
            {"texts": ["Part A.", "Part B."], "output_length": 9, "session_id": "s2", "extra": {"top_k": 5}},
            {"text": "No length given.", "timestamp": 100},
            {"text": "AIPerf single two.", "session_id": "s1"}]  # fmt: skip
    sent = [SentRow("s1", (_user("AIPerf single one."), _user("AIPerf single two.")), 5, (5, None)),
            _row("s2", "Part A.\nPart B.", 9), _row("line 3", "No length given.")]  # fmt: skip
    warning = TIMING_WARNING.format(rows="2 rows carry", names="delay, timestamp")
    unsent = "warning: rows: mine: 1 row carries request-body fields (extra) that are not sent"
    return LayoutFile("single_turn.jsonl", _jsonl(rows), sent, notices=(warning, unsent))


def _multi_turn() -> LayoutFile:
    """Two conversations; the first opens with a system turn, which AIPerf hoists into every turn's system message,
    and goes on in a later row of its session (AIPerf joins them)."""
    rows = [{"session_id": "m1", "turns": [{"role": "system", "text": "Answer briefly."},
                                           {"text": "First turn.", "output_length": 6},
                                           {"text": "Second turn.", "output_length": 6, "delay": 500}]},
            {"session_id": "m2", "turns": [{"texts": ["Only turn."], "output_length": 3}]},
            {"session_id": "m1", "turns": [{"text": "Third turn."}]}]  # fmt: skip
    system = [{"role": "system", "content": "Answer briefly."}]
    sent = [SentRow("m1", _conv("First turn.", "Second turn.", "Third turn.", history=system), 6, (6, 6, None)),
            _row("m2", "Only turn.", 3)]  # fmt: skip
    return LayoutFile("multi_turn.jsonl", _jsonl(rows), sent, notices=(TIMING_WARNING.format(rows=ONE, names="delay"),))


def _random_pool() -> LayoutFile:
    rows = [{"text": "Pool entry one."}, {"texts": ["Pool entry two."]}]
    return LayoutFile(
        "pool.jsonl", _jsonl(rows), [_row("line 1", "Pool entry one."), _row("line 2", "Pool entry two.")]
    )


#: a recorded chat that ends with the model's turn (AIPerf sends a mooncake_trace row's messages as recorded)
_ANSWERED = [*_user("Recorded question."), {"role": "assistant", "content": "Recorded answer."}]
#: a mooncake_trace ``messages`` row of tool calls, sent verbatim (AIPerf's ``raw_messages``): a ``developer`` turn
#: stays one, ``content: null`` and a list of content parts are sent as recorded, with ``tool_calls`` / ``tool_call_id``
_TOOL_TURNS = [{"role": "developer", "content": "Use the tools."},
               {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
               {"role": "assistant", "content": None,
                "tool_calls": [{"id": "w1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]},
               {"role": "tool", "tool_call_id": "w1", "content": "Sunny."}]  # fmt: skip


def _mooncake_trace() -> LayoutFile:
    """A ``text_input`` session of two rows (AIPerf groups a session's rows: one chat), a ``messages`` row that ends
    with an assistant turn (sent as recorded, that turn too), a ``messages`` session of two rows (each sent as
    recorded after the answer to the row before; its third row, of tool calls, verbatim) and a ``messages`` row of tool
    calls (sent verbatim)."""
    system = [{"role": "system", "content": "Be brief."}]
    rows = [{"session_id": "t1", "timestamp": 0, "text_input": "Trace text one.", "output_length": 11},
            {"messages": [{"role": "user", "content": "Trace messages."}], "output_length": 4},
            {"messages": _ANSWERED, "output_length": 5},
            {"session_id": "t1", "timestamp": 0, "text_input": "Trace text two.", "output_length": 11},
            {"session_id": "m1", "messages": [*system, *_user("Recorded one.")]},
            {"session_id": "m1", "messages": _user("Recorded two.")},
            {"messages": _TOOL_TURNS, "output_length": 3},
            {"session_id": "m1", "messages": _TOOL_TURNS}]  # fmt: skip
    sent = [SentRow("t1", _conv("Trace text one.", "Trace text two."), 11), _row("line 2", "Trace messages.", 4),
            SentRow("line 3", (_ANSWERED,), 5),
            SentRow("m1", ([*system, *_user("Recorded one.")], _user("Recorded two."), _TOOL_TURNS)),
            SentRow("line 7", (_TOOL_TURNS,), 3)]  # fmt: skip
    return LayoutFile(
        "mooncake_text.jsonl",
        _jsonl(rows),
        sent,
        notices=(TIMING_WARNING.format(rows=ONE, names="timestamp"),),
    )


def _aa_rwlt() -> LayoutFile:
    """AA-RWLT trajectories, written out of file order by id and by step: a three-step tool-calling trajectory is one
    conversation, each step's recorded messages sent verbatim as AIPerf sends them (``Turn(raw_messages=...)``): an
    assistant turn of ``content: null`` and ``tool_calls``, a ``tool`` turn with its ``tool_call_id`` and ``name``, a
    ``developer`` turn and a list of content parts as recorded (its recorded answers, never the server's
    :data:`REPLY`), in ``conversation_idx`` order; a one-step trajectory its step's messages."""
    step = [*_user("Find the file."), {"role": "assistant", "content": "Which one?"}, *_user("The README.")]
    call = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    steps: list[Messages] = [[{"role": "developer", "content": "Use the tools."}, *_user("List the files.")]]
    steps.append(
        [
            *steps[0],
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "name": "ls", "content": "a.py b.py"},
        ]
    )
    steps.append([*steps[1], {"role": "assistant", "content": "a.py and b.py."},
                  {"role": "user", "content": [{"type": "text", "text": "Rename f to g."}]}])  # fmt: skip
    traj = lambda idx: {"conversation_id": "traj-c", "conversation_idx": idx, "messages": steps[idx]}  # noqa: E731
    rows = [{"conversation_id": "traj-b", "conversation_idx": 0, "messages": step}, traj(1),
            {"conversation_id": "traj-a", "conversation_idx": 0, "messages": _user("One step.")},
            traj(0), traj(2)]  # fmt: skip
    sent = [SentRow("traj-b", (step,)), SentRow("traj-c", tuple(steps)), _row("traj-a", "One step.")]
    return LayoutFile("rwlt.jsonl", _jsonl(rows), sent)


def _bailian() -> LayoutFile:
    rows = [{"chat_id": 159, "parent_chat_id": -1, "timestamp": 61.114, "input_length": 521, "output_length": 132,
             "type": "text", "turn": 1, "hash_ids": [1089, 1090]}]  # fmt: skip
    return LayoutFile("bailian.jsonl", _jsonl(rows), refused="convert it to a Mooncake trace")


def _dag_jsonl() -> LayoutFile:
    rows = [{"session_id": "root", "turns": [{"messages": _user("Plan it."), "max_tokens": 8, "spawns": ["leaf"]}]},
            {"session_id": "leaf", "turns": [{"messages": _user("Do a part."), "max_tokens": 4}]}]  # fmt: skip
    return LayoutFile("dag.jsonl", _jsonl(rows), refused="an AIPerf dag_jsonl session")


def _baseten() -> LayoutFile:
    """Baseten's columns written as JSON Lines (AIPerf reads them from Parquet): it was sent as a `prompt` row."""
    rows = [{"timestamp_start_unix_ms": 1700000000000, "prompt": "Baseten prompt.", "input_tokens": 3,
             "output_tokens": 9, "total_hashes": [1], "provided_session_id": "b1"}]  # fmt: skip
    return LayoutFile("baseten.jsonl", _jsonl(rows), refused="a Baseten trace row")


def _weka() -> LayoutFile:
    doc = {"id": "w1", "models": ["m"], "block_size": 64, "hash_id_scope": "local",
           "requests": [{"t": 0.0, "type": "n", "model": "m", "in": 100, "out": 10, "hash_ids": [1, 2]}]}  # fmt: skip
    return LayoutFile("weka_trace.json", json.dumps(doc, indent=2), refused="convert its requests to a Mooncake trace")


def _tracelab() -> LayoutFile:
    rows = [{"session_id": "s1", "round_index": 0, "input_tokens_total": 100, "prefix_tokens": 0,
             "newly_append_tokens": 100, "timing_events": [], "output_tokens": 10}]  # fmt: skip
    return LayoutFile("tracelab.jsonl", _jsonl(rows), refused="a TraceLab trace row")


def _sagemaker() -> LayoutFile:
    """SageMaker data capture: one captured body as JSON, one as BASE64 (AIPerf's default encoding)."""
    import base64

    first = [{"role": "system", "content": "Be short."}, *_user("Captured one.")]

    def capture(body: dict[str, Any], event: str, encoding: str) -> dict[str, Any]:
        data = json.dumps(body)
        data = base64.b64encode(data.encode()).decode() if encoding == "BASE64" else data
        return {
            "captureData": {"endpointInput": {"mode": "INPUT", "data": data, "encoding": encoding}},
            "eventMetadata": {"eventId": event, "inferenceTime": "2024-01-01T00:00:00Z"},
            "eventVersion": "0",
        }

    rows = [
        capture({"model": "m", "messages": first, "max_tokens": 6, "temperature": 0.3}, "ev-1", "JSON"),
        capture({"messages": _user("Captured two."), "max_completion_tokens": 4}, "ev-2", "BASE64"),
    ]
    sent = [SentRow("ev-1", (first,), 6), _row("ev-2", "Captured two.", 4)]
    timing = TIMING_WARNING.format(rows="2 rows carry", names="inferenceTime")
    unsent = "warning: rows: mine: 1 row carries request-body fields (temperature) that are not sent"
    return LayoutFile("capture.jsonl", _jsonl(rows), sent, notices=(timing, unsent))  # fmt: skip


def _dynamo_trace() -> LayoutFile:
    rows = [{"schema": "dynamo.request.trace.v1", "event_type": "request_end", "agent_context": {"agent": "a"}}]
    return LayoutFile("dynamo.jsonl", _jsonl(rows), refused="a Dynamo request trace event")


def _inputs_json() -> LayoutFile:
    """AIPerf's inputs.json: a session of two request bodies (the second carrying the first's recorded answer) and a
    session of one with a system prompt; a sampling field other than the sent ones is named in a warning."""
    first = _user("Inputs turn one.")
    second = [*first, {"role": "assistant", "content": "Recorded reply."}, *_user("Inputs turn two.")]
    only = [{"role": "system", "content": "Be short."}, *_user("Session B only.")]
    doc = {"data": [{"session_id": "s-a", "payloads": [
                        {"model": "m", "messages": first, "max_tokens": 6, "stream": True},
                        {"model": "m", "messages": second, "max_completion_tokens": 4, "temperature": 0.7}]},
                    {"session_id": "s-b", "payloads": [{"messages": only}]}]}  # fmt: skip
    sent = [SentRow("s-a turn 1", (first,), 6), SentRow("s-a turn 2", (second,), 4), SentRow("s-b turn 1", (only,))]
    unsent = "warning: rows: mine: 1 row carries request-body fields (temperature) that are not sent"
    return LayoutFile("inputs.json", json.dumps(doc, indent=2), sent, notices=(unsent,))


def _aiperf_sharegpt() -> LayoutFile:
    return _sharegpt()


def _guidellm_jsonl() -> LayoutFile:
    """One row per GuideLLM text column name (and each output-count name in turn), the system prefix on one, an
    arrival time on one."""
    rows: list[dict[str, Any]] = []
    sent: list[SentRow] = []
    counts = [k for k in OUTPUT_LENGTH_FIELDS if k.endswith("_count")]
    for i, field in enumerate(TEXT_FIELDS):
        text = f"GuideLLM {field} row."
        row: dict[str, Any] = {field: text, counts[i % len(counts)]: 10 + i}
        history: Messages = []
        if i == 0:
            row[SYSTEM_FIELDS[0]] = "You are terse."
            row["relative_timestamp"] = 0.5
            history = [{"role": "system", "content": "You are terse."}]
        rows.append(row)
        sent.append(SentRow(f"line {i + 1}", _conv(text, history=history), 10 + i))
    rows.append({"chat_messages": [{"role": "user", "content": "Chat messages row."}], "output_tokens_count": 2})
    sent.append(_row(f"line {len(rows)}", "Chat messages row.", 2))
    warning = TIMING_WARNING.format(rows=ONE, names="relative_timestamp")
    return LayoutFile("guidellm.jsonl", _jsonl(rows), sent, notices=(warning,))


def _guidellm_csv() -> LayoutFile:
    text = 'prompt,output_tokens_count,system\n"Hello, CSV row one.",12,\nCSV row two.,3,Be brief.\n'
    system = [{"role": "system", "content": "Be brief."}]
    sent = [_row("line 2", "Hello, CSV row one.", 12), SentRow("line 3", _conv("CSV row two.", history=system), 3)]
    return LayoutFile("guidellm.csv", text, sent)


def _guidellm_txt() -> LayoutFile:
    sent = [_row("line 1", "GuideLLM text line one."), _row("line 2", "GuideLLM text line two.")]
    return LayoutFile("prompts.txt", "GuideLLM text line one.\nGuideLLM text line two.\n", sent)


def _guidellm_binary() -> LayoutFile:
    return LayoutFile("rows.parquet", "PAR1 not really parquet", refused="convert it to JSON Lines")


def _guidellm_synthetic() -> LayoutFile:
    """GuideLLM's synthetic data config (``SyntheticTextDatasetConfig``) in YAML: its lines were sent as prompts."""
    return LayoutFile("synthetic.yaml", "prompt_tokens: 256\noutput_tokens: 128\n", refused="--context-tokens N")


def _guidellm_columns() -> LayoutFile:
    """GuideLLM's column names as its ``column_name_pattern`` matches them (``re.I``, plural, turn suffix): a header in
    other case, a plural system column, and two turn columns that make the second row a conversation."""
    text = (
        "Prompt,prompt_1,Output_Tokens_Count_0,Output_Tokens_Count_1,Systems\n"
        "Cased header row.,,7,,Be brief.\n"
        "Turn zero.,Turn one.,5,5,\n"
    )
    system = [{"role": "system", "content": "Be brief."}]
    sent = [SentRow("line 2", _conv("Cased header row.", history=system), 7), SentRow("line 3",
            _conv("Turn zero.", "Turn one."), 5)]  # fmt: skip
    return LayoutFile("columns.csv", text, sent)


#: files of a census layout in a spelling its tool accepts besides the plain one (each sent row by row, as above)
def _guidellm_zero_count() -> LayoutFile:
    """GuideLLM reads an output count of 0 as no count (its formatters sum the truthy counts): the default length."""
    rows = [{"prompt": "Counted.", "output_tokens_count": 4}, {"prompt": "Zero count.", "output_tokens_count": 0}]
    sent = [_row("line 1", "Counted.", 4), _row("line 2", "Zero count.")]
    notice = "rows: mine: 1 row has an output count of 0 (output_tokens_count), which GuideLLM reads as no count"
    return LayoutFile("zero.jsonl", _jsonl(rows), sent, notices=(notice,))


def _guidellm_column_order() -> LayoutFile:
    """GuideLLM reads the first matching column in the file's column order (``mappers.py`` @ee7a7745)."""
    rows = [{"context": "Context first.", "question": "Not sent.", "completion_tokens_count": 3,
             "output_tokens_count": 9},
            {"question": "Question first.", "prompt": "Not sent either."}]  # fmt: skip
    # the text columns past the one sent are named (newuser50: a LongBench row's context went unmentioned)
    unsent = "warning: rows: mine: 2 rows carry text columns besides the one sent (question, prompt) that are not sent"
    sent = [_row("line 1", "Context first.", 3), _row("line 2", "Question first.")]
    return LayoutFile("order.jsonl", _jsonl(rows), sent, notices=(unsent,))


def _mt_bench_prompts() -> LayoutFile:
    """A JSON Lines export of HuggingFaceH4/mt_bench_prompts (AIPerf ``spec_al_mtbench``): each row's ``prompt`` list
    one conversation (MTBenchDatasetLoader, sqjian/aiperf mt_bench.py @90651162), row id ``prompt_id``."""
    rows = [{"prompt": ["Compose a blog post.", "Rewrite it."], "prompt_id": 81, "category": "writing",
             "reference": []},
            {"prompt": ["Solve 2+2."], "prompt_id": 111, "category": "math", "reference": ["4"]}]  # fmt: skip
    sent = [SentRow("81", _conv("Compose a blog post.", "Rewrite it.")), _row("111", "Solve 2+2.")]
    return LayoutFile("mt_bench_prompts.jsonl", _jsonl(rows), sent)


def _mt_bench_101() -> LayoutFile:
    """MT-Bench-101 (opencompass mtbench101.py @a75fa253 MTBench101Dataset: `history` of {user, bot}, each turn asked
    with the recorded answers before it): the last question with the recorded history, the trailing answer's token
    count the output length. Was refused: "no messages/conversations/turns/... field"."""
    rows = [{"task": "CM", "id": 7, "history": [{"user": "My name is Ada.", "bot": "Hi Ada."},
                                                {"user": "What is my name?", "bot": "It is Ada."}]}]  # fmt: skip
    history = [*_user("My name is Ada."), {"role": "assistant", "content": "Hi Ada."}]
    sent = [SentRow("7", _conv("What is my name?", history=history), 3)]
    notice = "rows: mine: 1 row ends with a recorded answer and name no output length: each asks for the answer's token"
    return LayoutFile("mtbench101.jsonl", _jsonl(rows), sent, notices=(notice,))


def _quoted_lines() -> LayoutFile:
    """JSON Lines of JSON strings, one quoted prompt a line: each line was sent with its quotes (`"What is 2+2?"`);
    GuideLLM's JSON builder and AIPerf's line models refuse such a line, and so does specscope, by line."""
    return LayoutFile("quoted.jsonl", '"What is 2+2?"\n"Name a colour."\n',
                      refused='quoted.jsonl:1: a JSON string ("What is 2+2?"), not an object')  # fmt: skip


def _csv_repeated_column() -> LayoutFile:
    """A header naming `prompt` twice: the second cell was sent, the first dropped (pandas, GuideLLM's reader, keeps
    the first): refused at line 1."""
    return LayoutFile("dup.csv", "prompt,prompt,output_tokens_count\nFirst col,Second col,4\n",
                      refused="dup.csv:1: the header names `prompt` 2 times (columns 1, 2)")  # fmt: skip


def _text_and_texts() -> LayoutFile:
    """An AIPerf single_turn row with both `text` and `texts` (AIPerf refuses it): `texts` was sent, `text` dropped."""
    return LayoutFile("both.jsonl", _jsonl([{"text": "Both", "texts": ["x"], "output_length": 3}]),
                      refused="both.jsonl:1: both `text` and `texts`")  # fmt: skip


def _csv_bom_crlf() -> LayoutFile:
    """GuideLLM CSV as Excel writes it: a byte-order mark, CRLF, a quoted prompt over two lines, a comma inside quotes,
    an empty count cell (the default length), a blank line: the header is never a prompt, each row is named by the
    line it starts on (the two-line row was "line 3")."""
    text = '\ufeffprompt,output_tokens_count\r\n"Line one\r\nline two",12\r\n\r\n"Has, comma",3\r\nPlain one,\r\n'
    sent = [_row("line 2", "Line one\r\nline two", 12), _row("line 5", "Has, comma", 3), _row("line 6", "Plain one")]
    return LayoutFile("excel.csv", text, sent)


def _ids_naming_no_row() -> LayoutFile:
    """An empty id (a dataset export's missing id) was the row id ""; a blank one gives way to `question_id`."""
    rows = [{"id": "", "prompt": "Empty id", "output_tokens_count": 2},
            {"id": " ", "question_id": "q2", "prompt": "Blank id"}]  # fmt: skip
    return LayoutFile("ids.jsonl", _jsonl(rows), [_row("line 1", "Empty id", 2), _row("q2", "Blank id")])


def _csv_without_suffix() -> LayoutFile:
    """A GuideLLM CSV saved without its suffix: read line by line, its header was the first prompt and each row was
    sent with its count glued on ("Hello there,5") and the default length. A header is never a prompt: refused."""
    return LayoutFile("prompts", "prompt,output_tokens_count\nHello there,5\n",
                      refused="prompts:1: a table header (`prompt`, `output_tokens_count`)")  # fmt: skip


#: The one row joined in Alpaca's order (line 4 of dolphin, line 2 of platypus) is named with the order vLLM's
#: InstructCoder reader sends instead (census.INSTRUCTION_INPUT_NOTE: the same fields, a file cannot say which).
_ALPACA_ORDER = (
    "warning: rows: mine: 1 row carries an `instruction` with its `input` (instruction, input) that are sent in "
    "Alpaca's order"
)


def _dolphin() -> LayoutFile:
    """cognitivecomputations/dolphin rows (Alpaca's names, ``instruction`` a system prompt shared by many rows): the
    shared instruction was sent as user text before the input; it is the system message, the input the user message,
    an instruction found once keeps Alpaca's join, an empty one sends the input alone (it was refused)."""
    system = "You are an AI assistant. Answer briefly."
    rows = [{"instruction": system, "input": "Name a bird.", "output": "Robin."},
            {"instruction": system, "input": "Name a fish.", "output": "Cod."},
            {"instruction": "", "input": "Name a tree.", "output": "Oak."},
            {"instruction": "Translate to French.", "input": "Good night.", "output": "Bonne nuit."}]  # fmt: skip
    sent = [SentRow("line 1", _conv("Name a bird.", history=[{"role": "system", "content": system}])),
            SentRow("line 2", _conv("Name a fish.", history=[{"role": "system", "content": system}])),
            _row("line 3", "Name a tree."), _row("line 4", "Translate to French.\n\nGood night.")]  # fmt: skip
    notice = "warning: rows: mine: 2 rows carry an `instruction` shared by rows with different inputs (instruction)"
    return LayoutFile("dolphin.jsonl", _jsonl(rows), sent, notices=(notice, _ALPACA_ORDER))


def _mmlu_pro() -> LayoutFile:
    """TIGER-Lab/MMLU-Pro rows: the question alone, as GuideLLM's mapper sends it; ``options`` named as unsent choices
    with the jq that joins them in, the other fields as unread."""
    rows = [{"question_id": 70, "question": "Which gas is most of the air?", "options": ["Oxygen", "Nitrogen"],
             "answer": "B", "answer_index": 1, "cot_content": "", "category": "chemistry", "src": "ori"}]  # fmt: skip
    choices = "warning: rows: mine: 1 row carries multiple-choice options (options) that are not sent"
    unread = "warning: rows: mine: 1 row carries fields that specscope does not read as guidellm.jsonl (answer,"
    return LayoutFile("mmlu_pro.jsonl", _jsonl(rows), [_row("70", "Which gas is most of the air?")],
                      notices=(choices, unread))  # fmt: skip


def _evals_text_input() -> LayoutFile:
    """openai/evals samples whose ``input`` is a string, beside ``ideal``: the input the user message, ``ideal`` never
    sent nor named as unknown (it was, as a guidellm.jsonl row)."""
    rows = [{"input": "Capital of France?", "ideal": "Paris"}, {"input": "2+2=", "ideal": ["4", "four"]}]
    return LayoutFile("evals.jsonl", _jsonl(rows), [_row("line 1", "Capital of France?"), _row("line 2", "2+2=")])


def _open_platypus() -> LayoutFile:
    """garage-bAInd/Open-Platypus's column order (``input``, ``output``, ``instruction``): read as Alpaca's row (the
    mostly empty ``input`` was taken as the prompt and the row refused)."""
    rows = [{"input": "", "output": "42", "instruction": "What is 6 times 7?", "data_source": "scibench"},
            {"input": "x + 2 = 5", "output": "x = 3", "instruction": "Solve for x.",
             "data_source": "MATH"}]  # fmt: skip
    sent = [_row("line 1", "What is 6 times 7?"), _row("line 2", "Solve for x.\n\nx + 2 = 5")]
    unread = "warning: rows: mine: 2 rows carry fields that specscope does not read as specscope.alpaca (data_source)"
    return LayoutFile("platypus.jsonl", _jsonl(rows), sent, notices=(_ALPACA_ORDER, unread))


def _capybara() -> LayoutFile:
    """LDJnr/Capybara's ``conversation`` of {input, output} pairs: refused by name with the jq to ShareGPT."""
    rows = [{"source": "Know-Logic", "conversation": [{"input": "Name a river.", "output": "Nile."}]}]
    return LayoutFile("capybara.jsonl", _jsonl(rows),
                      refused="capybara.jsonl:1: a `conversation` of {input, output} pairs (Capybara")  # fmt: skip


VARIANT_FILES: dict[str, Callable[[], LayoutFile]] = {
    "alpaca dolphin shared instruction": _dolphin,
    "mmlu-pro options": _mmlu_pro,
    "openai evals text input": _evals_text_input,
    "capybara pairs": _capybara,
    "alpaca open-platypus column order": _open_platypus,
    "guidellm.csv without its suffix": _csv_without_suffix,
    "jsonl quoted prompts": _quoted_lines,
    "guidellm.csv repeated column": _csv_repeated_column,
    "aiperf.single_turn text and texts": _text_and_texts,
    "guidellm.csv excel bom crlf": _csv_bom_crlf,
    "row ids naming no row": _ids_naming_no_row,
    "aiperf spec_al_mtbench export": _mt_bench_prompts,
    "mt-bench-101 history": _mt_bench_101,
    "guidellm.csv columns": _guidellm_columns,
    "guidellm.jsonl zero count": _guidellm_zero_count,
    "guidellm.jsonl column order": _guidellm_column_order,
}


LAYOUT_FILES: dict[str, Callable[[], LayoutFile]] = {
    "vllm.sharegpt": _sharegpt,
    "vllm.custom": _vllm_custom,
    "vllm.spec_bench": _spec_bench,
    "vllm.mlperf": _mlperf,
    "vllm.multi_turn": _vllm_multi_turn,
    "vllm.sonnet": _sonnet,
    "vllm.burstgpt": _burstgpt,
    "sglang.sharegpt": lambda: _sharegpt("conversation"),
    "sglang.mooncake": _mooncake,
    "sglang.custom": _sglang_custom,
    "sglang.openai": _sglang_openai,
    "sglang.autobench": _sglang_autobench,
    "sglang.longbench_v2": _longbench_v2,
    "sglang.dynamic": _sglang_dynamic,
    "sglang.token_trace": _sglang_token_trace,
    "sglang.agentic_trace": _sglang_agentic_trace,
    "aiperf.raw_payload": _raw_payload,
    "aiperf.single_turn": _single_turn,
    "aiperf.multi_turn": _multi_turn,
    "aiperf.random_pool": _random_pool,
    "aiperf.mooncake_trace": _mooncake_trace,
    "aiperf.bailian_trace": _bailian,
    "aiperf.inputs_json": _inputs_json,
    "aiperf.aa_rwlt": _aa_rwlt,
    "aiperf.sharegpt": _aiperf_sharegpt,
    "aiperf.dag_jsonl": _dag_jsonl,
    "aiperf.baseten_trace": _baseten,
    "aiperf.weka_trace": _weka,
    "aiperf.tracelab_trace": _tracelab,
    "aiperf.burst_gpt": _burstgpt,
    "aiperf.sagemaker_data_capture": _sagemaker,
    "aiperf.dynamo_trace": _dynamo_trace,
    "guidellm.jsonl": _guidellm_jsonl,
    "guidellm.csv": _guidellm_csv,
    "guidellm.txt": _guidellm_txt,
    "guidellm.binary": _guidellm_binary,
    "guidellm.synthetic": _guidellm_synthetic,
    "guidellm.otel_trace": _guidellm_otel,
}
