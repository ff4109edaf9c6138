"""``bench --dry-run`` (a user checking a workload file without a server): the workloads are read exactly as a run
reads them and printed per workload (the census layout with its source, the row count, the first rows' messages and
output lengths), as text or JSON; nothing is started, contacted or written, and a bad file is the run's own exit-2
refusal."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from clirun import cli
from specscope.workload.census import layout

ROWS = [
    {"session_id": "t1", "text_input": "Trace text one.", "output_length": 11},
    {"messages": [{"role": "user", "content": "Asked."}, {"role": "assistant", "content": "Recorded."}],
     "output_length": 5},
    {"session_id": "t1", "text_input": "Trace text two.", "output_length": 11},
    {"text_input": "No length."},
]  # fmt: skip


def _closed_port() -> str:
    """A URL nothing listens on: a run would fail to reach it (exit 2); a dry run never tries."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def _argv(tmp_path: Path, *extra: str) -> list[str]:
    path = tmp_path / "trace.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), "utf-8")
    return ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"mine={path}", "--max-tokens", "32",
            "--out", str(tmp_path / "runs"), "--dry-run", *extra]  # fmt: skip


def test_dry_run_prints_layout_rows_and_first_rows_as_text(tmp_path, capsys, monkeypatch) -> None:
    code, out, err = cli(_argv(tmp_path), capsys, monkeypatch, tmp_path)
    assert code == 0, err
    source = layout("aiperf.mooncake_trace").source
    assert f"workload mine: {tmp_path / 'trace.jsonl'}: 3 rows" in out
    assert f"layout (3 rows): aiperf.mooncake_trace (AIPerf: {source})" in out
    assert "row t1: max_tokens 11 from output_length\n    user: Trace text one.\n    then user: Trace text two." in out
    assert "row line 2: max_tokens 5 from output_length\n    user: Asked.\n    assistant: Recorded." in out
    assert "row line 4: max_tokens 32 from --max-tokens\n    user: No length." in out
    assert not (tmp_path / "runs").exists()  # no run folder


def test_dry_run_json(tmp_path, capsys, monkeypatch) -> None:
    code, out, err = cli(_argv(tmp_path, "-f", "json"), capsys, monkeypatch, tmp_path)
    assert code == 0, err
    (w,) = json.loads(out)["workloads"]
    assert (w["workload"], w["rows"], w["rows_refused"]) == ("mine", 3, 0)
    assert w["layouts"] == [{"census": [{"layout": "aiperf.mooncake_trace", "tool": "AIPerf",
                                         "source": layout("aiperf.mooncake_trace").source}], "rows": 3}]  # fmt: skip
    first = w["first_rows"][0]
    assert first["messages"] == [{"role": "user", "content": "Trace text one."}]
    assert (first["follow_ups"], first["max_tokens"], first["max_tokens_from"]) == (["Trace text two."], 11,
                                                                                    "output_length")  # fmt: skip


def test_a_bad_file_is_the_runs_own_refusal(tmp_path, capsys, monkeypatch) -> None:
    argv = _argv(tmp_path)
    (tmp_path / "trace.jsonl").write_text('{"text_input": "fine"}\n{"prompt": \n', "utf-8")
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    run_code, _, run_err = cli([a for a in argv if a != "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == run_code == 2 and out == ""
    assert err == run_err and f"{tmp_path / 'trace.jsonl'}:2: invalid JSON" in err


def test_dry_run_refuses_a_format_it_does_not_print(tmp_path, capsys, monkeypatch) -> None:
    code, _, err = cli(_argv(tmp_path, "-f", "html"), capsys, monkeypatch, tmp_path)
    assert code == 2 and "--dry-run prints text or json" in err


def test_a_bare_file_is_named_by_its_file_name_and_an_unread_length_field_is_named(tmp_path, capsys, monkeypatch):
    """A user's first try is `--workload FILE` (new-user check, 2026-12-05: refused as "takes NAME=FILE"); the
    workload is named by the file name without suffixes. A row's `max_new_tokens` is no field any census reader takes
    as the output length: --max-tokens applies and the warning names it (never dropped silently, issue 36)."""
    path = tmp_path / "chat.prompts.jsonl"
    rows = '{"prompt": "hello there", "max_new_tokens": 12}\n{"prompt": "second", "max_new_tokens": 5}\n'
    path.write_text(rows, "utf-8")
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", str(path), "--max-tokens", "32",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert f"workload chat: {path}: 2 rows" in out
    assert "max_tokens 32 from --max-tokens" in out
    assert "2 rows carry output-length look-alikes (max_new_tokens) that are not read as the output length" in out + err
    prose = tmp_path / "prose.jsonl"
    prose.write_text('{"prompt": "x"}\n', "utf-8")
    code, _, err = cli([*argv[:4], str(prose), *argv[5:]], capsys, monkeypatch, tmp_path)
    assert code == 2 and "workload name 'prose' is a built-in workload's name" in err
    assert f"--workload mine={prose}" in err


def test_a_sharegpt_conversation_without_its_answer_is_named(tmp_path, capsys, monkeypatch) -> None:
    """A ShareGPT item of one human turn: vLLM's (ShareGPTDataset) and SGLang's (sample_sharegpt_requests) readers
    skip a conversation of fewer than 2 turns, having no answer to size the output by; specscope sends it with
    --max-tokens, and said nothing (hunt of 2026-12-06). The row is named in a warning; a row with its answer is not."""
    path = tmp_path / "sg.json"
    path.write_text(
        '[{"id": "one", "conversations": [{"from": "human", "value": "Q?"}]}, {"id": "two", "conversations": '
        '[{"from": "human", "value": "Q2?"}, {"from": "gpt", "value": "An answer."}]}]',
        "utf-8",
    )
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"sg={path}", "--max-tokens", "32",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "row one: max_tokens 32 from --max-tokens" in out
    assert (
        "warning: rows: sg: 1 row carries ShareGPT conversations without a recorded answer (conversations) that are "
        "sent with --max-tokens as the output length: the census's ShareGPT readers skip such rows (fewer than 2 turns)"
    ) in out + err


def test_a_sharegpt_conversation_of_several_turns_is_named_with_what_its_readers_send(
    tmp_path, capsys, monkeypatch
) -> None:
    """A ShareGPT item of two human / gpt exchanges: vLLM's ShareGPTDataset (datasets.py @0056b87f) and SGLang's
    sample_sharegpt_requests send conversations[0] alone and size the output by conversations[1]; AIPerf's
    ShareGPTLoader sends each human turn. specscope sends the turns up to the last human turn with the recorded
    answers as history, sized by the last answer, and said nothing (issue 36). The row is named; a single exchange is
    not."""
    path = tmp_path / "sg.json"
    two = [
        {"from": "human", "value": "First?"},
        {"from": "gpt", "value": "One."},
        {"from": "human", "value": "Second?"},
        {"from": "gpt", "value": "Two."},
    ]
    rows = [{"id": "multi", "conversations": two}, {"id": "single", "conversations": two[:2]}]
    path.write_text(json.dumps(rows), "utf-8")
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"sg={path}", "--max-tokens", "32",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "user: First?\n    assistant: One.\n    user: Second?" in out
    assert (
        "warning: rows: sg: 1 row carries ShareGPT conversations of several human turns (conversations) that are "
        "sent as one request per row: the turns up to the last human turn, the recorded answers before it as "
        "history, the output sized by the last answer; vLLM's and SGLang's ShareGPT readers send the first turn "
        "alone, sized by the first answer, and AIPerf's sends each human turn after the server's own answer: to "
        "send as vLLM and SGLang do, keep each conversation's first two turns; to send every turn, write the rows "
        "as {id, messages} (census layout vllm.multi_turn)"
    ) in out + err


def test_an_aa_rwlt_trajectory_of_several_steps_is_printed_step_by_step(tmp_path, capsys, monkeypatch) -> None:
    """Issue 36: a three-step AIPerf AA-RWLT trajectory was refused at its second line; it is one conversation, each
    later step's recorded messages sent as recorded (AIPerf's ``discard_assistant_response``), in step order."""
    steps = [[{"role": "user", "content": "List the files."}]]
    steps.append([*steps[0], {"role": "assistant", "content": "a.py b.py"}, {"role": "user", "content": "Open a.py."}])
    steps.append([*steps[1], {"role": "assistant", "content": "def f(): pass"},
                  {"role": "user", "content": "Rename f to g."}])  # fmt: skip
    path = tmp_path / "rwlt.jsonl"
    rows = [{"conversation_id": "traj", "conversation_idx": i, "messages": steps[i]} for i in (2, 0, 1)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"mine={path}", "--max-tokens", "32",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert (
        "row traj: max_tokens 32 from --max-tokens\n    user: List the files.\n"
        "    then 3 recorded messages (the server's answer discarded), ending user: Open a.py.\n"
        "    then 5 recorded messages (the server's answer discarded), ending user: Rename f to g.\n"
    ) in out
    code, out, err = cli([*argv, "-f", "json"], capsys, monkeypatch, tmp_path)
    (first,) = json.loads(out)["workloads"][0]["first_rows"]
    assert first["messages"] == steps[0] and first["follow_up_messages"] == steps[1:]


def test_an_aa_rwlt_tool_calling_step_is_printed_verbatim(tmp_path, capsys, monkeypatch) -> None:
    """A step holding an assistant turn of ``content: null`` and ``tool_calls`` and the ``tool`` turn that answers it
    was refused ("turn 1 content is None"); it is printed as sent: the JSON form holds the messages verbatim, the
    text form names the functions a turn without text calls."""
    call = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    steps = [[{"role": "user", "content": "List the files."},
              {"role": "assistant", "content": None, "tool_calls": [call]},
              {"role": "tool", "tool_call_id": "c1", "content": "a.py b.py"}]]  # fmt: skip
    steps.append([*steps[0], {"role": "assistant", "content": "Two files."}, {"role": "user", "content": "Open a.py."}])
    path = tmp_path / "rwlt.jsonl"
    rows = [{"conversation_id": "traj", "conversation_idx": i, "messages": steps[i]} for i in (0, 1)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"mine={path}", "--max-tokens", "32",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert (
        "row traj: max_tokens 32 from --max-tokens\n    user: List the files.\n    assistant: [tool calls: ls]\n"
        "    tool: a.py b.py\n"
        "    then 5 recorded messages (the server's answer discarded), ending user: Open a.py.\n"
    ) in out
    assert "warning" not in err, err
    code, out, err = cli([*argv, "-f", "json"], capsys, monkeypatch, tmp_path)
    (first,) = json.loads(out)["workloads"][0]["first_rows"]
    assert first["messages"] == steps[0] and first["follow_up_messages"] == steps[1:]


def test_a_mooncake_messages_session_prints_each_later_row_as_recorded(tmp_path, capsys, monkeypatch) -> None:
    """A later row of an AIPerf mooncake_trace ``messages`` session is sent verbatim after the answer to the row
    before (``raw_messages``); it was printed (and sent) as a plain user turn."""
    path = tmp_path / "mooncake.jsonl"
    rows = [
        {"session_id": "m", "messages": [{"role": "user", "content": "One."}], "output_length": 4},
        {"session_id": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "Two."}]}]},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"mine={path}", "--max-tokens", "32",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "    user: One.\n    then 1 recorded message (the server's answer discarded), ending user: Two.\n" in out


@pytest.mark.parametrize("rate", ["1e-300", "1e-9", "1e308", "1e6", "0", "-1", "inf", "nan", "2,1e-300"])
def test_an_absurd_request_rate_is_refused_with_its_range(rate: str, tmp_path, capsys, monkeypatch) -> None:
    """``--request-rate 1e-300`` (the second request 1e300 s out) or 1e308 was taken, even printed by a dry run;
    0, negative, inf and nan were refused without the range. Now every rate outside 0.001 .. 100,000 per second is
    refused by the option's value parser (exit 2) with the range and why."""
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workloads", "prose", "--request-rate", rate, "--dry-run"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2, out
    read = rate not in ("0", "-1", "inf", "nan")  # a positive rate, out of bounds: the one wording of a bound
    wording = "error: invalid value for --request-rate; " if read else "error: --request-rate takes a positive rate"
    assert wording in err
    assert "from 0.001 (one request per 1000 s) to 100,000 (ten times what the client can send)" in err


@pytest.mark.parametrize("command", ["bench", "gate"])
def test_a_context_past_any_models_window_is_refused(command: str, tmp_path, capsys, monkeypatch) -> None:
    """``--context-tokens 99999999999999`` was taken (bench would build a prompt of ~4e14 characters; gate's
    option had only a floor). Both refuse past 10240k tokens, the longest context window of any served model."""
    argv = [command, "--server", _closed_port(), "--context-tokens", "99999999999999", "--out", tmp_path / "o"]
    argv += ["--workloads", "prose", "--dry-run"] if command == "bench" else ["--gate", "long_context"]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "error: invalid value for --context-tokens; found: 99999999999999; " in err
    assert "10240k" in err


def test_the_longest_context_is_taken(tmp_path, capsys, monkeypatch) -> None:
    argv = ["bench", "--server", _closed_port(), "--workloads", "prose", "--dry-run", "--context-tokens", "10240k"]
    assert cli(argv, capsys, monkeypatch, tmp_path)[0] == 0


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("--temperatures", "0,0", "temperatures repeat: [0.0, 0.0]"),
        ("--temperatures", "0,nan", "temperatures must be from 0 to 2 (as --temperature): [0.0, nan]"),
        ("--temperatures", "0,-5", "temperatures must be from 0 to 2 (as --temperature): [0.0, -5.0]"),
        ("--temperatures", "0,1e308", "temperatures must be from 0 to 2 (as --temperature): [0.0, 1e+308]"),
        ("--context-tokens", "2k,2048", "context lengths repeat: [2048, 2048]"),
    ],
)
def test_an_axis_value_out_of_range_or_twice_is_refused(option, value, expected, tmp_path, capsys, monkeypatch):
    """``--temperatures 0,0`` (or ``--context-tokens 2k,2048``) made the matrix's workload labels twice
    (``prose@t0``, ``prose@t0``: two cells of one key); ``--temperatures`` took nan, -5 and 1e308 where
    ``--temperature`` takes 0..2. Both are refused (exit 2) with the values."""
    argv = ["bench", "--server", _closed_port(), "--workloads", "prose", option, value, "--dry-run"]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2
    assert f"error: invalid value for {option}; " in err and f"expected: {expected};" in err


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("::::", "Relative URLs cannot have a path starting with ':'"),
        ("ftp://h:1", "not an http(s) URL with a host"),
        ("http://[::zz]", "Invalid IPv6 address: '[::zz]'"),
    ],
)
def test_a_prometheus_url_that_is_none_is_refused_when_read(url, problem, tmp_path, capsys, monkeypatch) -> None:
    """``bench --prometheus ::::`` started the run and crashed its first cell (exit 3: httpx InvalidURL at the
    first query). The URL is checked where the option is read, as --server's (exit 2, before anything starts)."""
    argv = ["bench", "--server", _closed_port(), "--workloads", "prose", "--prometheus", url, "--dry-run"]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2
    assert f"error: --prometheus URL is not valid; found: {url}: {problem}; " in err
    assert "fix: e.g. --prometheus http://127.0.0.1:9090" in err


def _chat_rows(tmp_path: Path, name: str, text: str) -> list[str]:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    return ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"mine={path}", "--max-tokens", "32",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip


_Q1, _A1 = {"role": "user", "content": "First?"}, {"role": "assistant", "content": "Rec one."}
_Q2, _A2 = {"role": "user", "content": "Second?"}, {"role": "assistant", "content": "Rec two."}
MULTI = [{"id": "c1", "messages": [_Q1, _A1, _Q2, _A2]}]


def test_a_multi_turn_benchmark_array_is_read_as_conversations(tmp_path, capsys, monkeypatch) -> None:
    """vLLM's benchmarks/multi_turn converter writes one JSON array of exactly {id, messages}, messages alternating
    user / assistant from a user turn; its benchmark sends every user turn with the server's own answers. It was one
    request per row: the last user turn with the recorded answers as history."""
    code, out, err = cli(_chat_rows(tmp_path, "conv.json", json.dumps(MULTI, indent=2)), capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert f"layout (1 row): vllm.multi_turn (vLLM: {layout('vllm.multi_turn').source})" in out
    assert "row c1: max_tokens 32 from --max-tokens\n    user: First?\n    then user: Second?" in out
    assert "Rec one." not in out and "recorded answers" not in out + err


def test_chat_rows_with_recorded_answers_in_their_history_are_named(tmp_path, capsys, monkeypatch) -> None:
    """The same rows as JSON Lines (or with a system turn, or other keys) are one request per row, the recorded
    answers sent as history: named in a warning, with the layout that sends them turn by turn."""
    text = "".join(json.dumps(r) + "\n" for r in MULTI)
    code, out, err = cli(_chat_rows(tmp_path, "conv.jsonl", text), capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "user: First?\n    assistant: Rec one.\n    user: Second?" in out
    assert "1 row carries chat turns with recorded answers (messages)" in out + err
    assert "vllm.multi_turn" in out + err


def test_each_turn_s_own_output_length_is_printed(tmp_path, capsys, monkeypatch) -> None:
    """Issue 36: an AIPerf multi-turn row's turns asking for 3 then 5 tokens were refused; each is sent with its own,
    and the dry run prints each later turn's."""
    path = tmp_path / "mt.jsonl"
    row = {"session_id": "a", "turns": [{"text": "A one.", "output_length": 3}, {"text": "A two.", "output_length": 5}]}
    path.write_text(json.dumps(row) + "\n", "utf-8")
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"mt={path}", "--max-tokens", "32",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "row a: max_tokens 3 from output_length\n    user: A one.\n    then user (max_tokens 5): A two." in out


def test_guidellm_columns_specscope_ignores_are_named_with_what_they_are(tmp_path, capsys, monkeypatch):
    """GuideLLM's mapper reads `tool_response`, `model`, `requeue_delay`, `duration`, `conversation_turns`,
    `prompt_tokens_count` (mappers.py @0016f762 defaults); specscope uses none of them, and they were dropped with no
    word (issue 36 trial). Each is named once, with what GuideLLM does with it, as GuideLLM's pattern spells it."""
    path = tmp_path / "g.jsonl"
    rows = [
        {"prompt": "Say hi", "output_tokens_count": 8, "tool_response": "ok", "Model": "m", "requeue_delay": 1.0,
         "duration": 2.0, "conversation_turns": 1, "prompt_tokens_count": 5},
        {"prompt": "Say bye", "output_tokens_count": 8, "Model": "m"},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"mine={path}", "--max-tokens", "16",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    text = out + err
    assert "warning: rows: mine: 2 rows carry GuideLLM columns that specscope ignores: tool_response (the tool " in text
    for part in ("; Model (the model GuideLLM names", "; requeue_delay (the time GuideLLM waits",
                 "; duration (a request duration", "; conversation_turns (a conversation graph",
                 "; prompt_tokens_count (GuideLLM's prompt token count"):  # fmt: skip
        assert part in text, part


def test_a_cp1252_csv_is_named_by_its_byte_with_the_conversion(tmp_path, capsys, monkeypatch):
    """An Excel CSV with `é` as byte 0xE9 (CP1252) was refused as "not UTF-8 text (byte 30)" with the fix "check the
    --workload path" (issue 36 trial): the byte and encoding are named, and the fix is the iconv command."""
    path = tmp_path / "excel.csv"
    path.write_bytes(b"prompt,output_tokens_count\nCaf\xe9 au lait?,8\n")
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"mine={path}", "--max-tokens", "16",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and "Traceback" not in err
    assert f"found: {path}: not UTF-8 text (byte 30: 0xE9, 'é' in CP1252 / Latin-1" in err
    assert (
        f"fix: convert it to UTF-8 and pass the new file: iconv -f cp1252 -t utf-8 {path} > {tmp_path}/excel.utf8.csv"
        in err
    )


def test_a_guidellm_column_neither_tool_reads_is_named(tmp_path, capsys, monkeypatch):
    """A column of a GuideLLM row that no name of GuideLLM's mapper matches (mappers.py @0016f762 defaults) and that
    specscope does not read was dropped with no word (issue 36 trial); it is named. Columns either tool reads are
    not (`Prompt` and `Output_Tokens_Count` by GuideLLM's pattern, `id` by specscope)."""
    path = tmp_path / "g.jsonl"
    path.write_text('{"Prompt": "hi", "Output_Tokens_Count": 4, "id": "a", "frobnicate": 3, "notes": "x"}\n', "utf-8")
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"mine={path}", "--max-tokens", "16",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert (
        "warning: rows: mine: 1 row carries fields that specscope does not read as guidellm.jsonl (frobnicate, "
        "notes): ignored, never sent; check their names against docs/workloads.md 'Fields read per layout'"
    ) in out + err


def test_a_text_row_with_a_guidellm_column_is_guidellms_and_its_unread_columns_are_named(tmp_path, capsys, monkeypatch):
    """A `text` row was taken for AIPerf's single_turn / random_pool as well as GuideLLM's, so its columns got no
    warning (issue 36 leftover). `output_tokens_count` is GuideLLM's column (mappers.py @0016f762
    GenerativeColumnMapper) and no field of AIPerf's SingleTurn (models.py @0109a64e): the row is GuideLLM's, and
    `frobnicate`, which neither tool reads, is named. A bare `text` row stays either tool's; its unknown column is
    named too, while AIPerf's own `role` is not."""
    path = tmp_path / "g.jsonl"
    path.write_text('{"text": "hi", "output_tokens_count": 4, "frobnicate": 3}\n', "utf-8")
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"mine={path}", "--max-tokens", "16",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    source = layout("guidellm.jsonl").source
    assert f"layout (1 row): guidellm.jsonl (GuideLLM: {source})\n" in out
    warned = (
        "warning: rows: mine: 1 row carries fields that specscope does not read as {} (frobnicate): ignored, never "
        "sent; check their names against docs/workloads.md 'Fields read per layout'"
    )
    assert warned.format("guidellm.jsonl") in out + err
    bare = tmp_path / "b.jsonl"
    bare.write_text('{"text": "hi", "role": "user", "frobnicate": 3}\n', "utf-8")
    argv[4] = f"mine={bare}"
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "aiperf.single_turn" in out and "guidellm.jsonl" in out
    assert warned.format("aiperf.single_turn / aiperf.random_pool / guidellm.jsonl") in out + err


def test_an_aiperf_single_turn_rows_unread_column_is_named(tmp_path, capsys, monkeypatch):
    """A `text` row with AIPerf's `output_length` is AIPerf's SingleTurn alone (models.py @0109a64e; no GuideLLM
    column), so its other columns got no warning: `foo` was dropped with no word (fresh-user check, 2026-12-06).
    AIPerf's base model lets unknown fields through unused; specscope names them as for a GuideLLM row."""
    path = tmp_path / "st.jsonl"
    path.write_text('{"text": "x", "output_length": 3, "foo": 1, "session_id": null}\n', "utf-8")
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"mine={path}", "--max-tokens", "16",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "layout (1 row): aiperf.single_turn (AIPerf: " in out
    assert (
        "warning: rows: mine: 1 row carries fields that specscope does not read as aiperf.single_turn / "
        "aiperf.random_pool (foo): ignored, never sent; check their names against docs/workloads.md 'Fields read per "
        "layout'"
    ) in out + err


def test_a_guidellm_turn_count_is_named_by_its_column(tmp_path, capsys, monkeypatch):
    """`prompt_0`, `prompt_1` with `output_tokens_count_0`, `_1` (GuideLLM's turn suffixes, mappers.py @0016f762): the
    dry run said "from output_length", AIPerf's field, which the file does not hold (fresh-user check, 2026-12-06);
    it names GuideLLM's column, the turn's own count still sent with its turn."""
    path = tmp_path / "g.jsonl"
    row = {"prompt_0": "t0", "prompt_1": "t1", "output_tokens_count_0": 3, "output_tokens_count_1": 4}
    path.write_text(json.dumps(row) + "\n", "utf-8")
    argv = ["bench", "--server", f"mtp={_closed_port()}", "--workload", f"g={path}", "--max-tokens", "32",
            "--out", str(tmp_path / "runs"), "--dry-run"]  # fmt: skip
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "row line 1: max_tokens 3 from output_tokens_count\n    user: t0\n    then user (max_tokens 4): t1" in out
