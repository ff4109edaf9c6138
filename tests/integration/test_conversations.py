"""A multi-turn dataset row is one conversation (issue 28): against the truth server, a two-turn row gives two
requests, the second sent after the first answer and carrying it in its messages (as the server received them),
and the report gives acceptance per turn index exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from dataset_files import write_spec_bench_jsonl
from sent_rows import assert_rows_sent
from specscope.bench import run_bench
from specscope.config import BenchOptions
from specscope.records import split_turn
from specscope.report.build import load_document
from specscope.stats.turns import turn_rows
from specscope.store import open_run
from specscope.truth import MetricsPlan, ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

ROWS = [
    {"question_id": 81, "category": "writing", "turns": ["Write a haiku about rain.", "Now make it about snow."]},
    {"question_id": 82, "category": "coding", "turns": ["Write add(a, b) in Python.", "Add type hints to it."]},
]


def _plan(accepted: list[int]) -> ResponsePlan:
    # 4 tokens; llama.cpp's per-response timings: draft_n = 4, draft_n_accepted = sum(accepted)
    return ResponsePlan(
        output_tokens=4, drafts=2, draft_tokens=4, accepted_per_position=accepted, llamacpp_timings=True
    )


def test_two_turn_row_sends_the_first_answer_with_the_second_turn(tmp_path: Path) -> None:
    path = write_spec_bench_jsonl(tmp_path / "question.jsonl", ROWS)
    first = {r["turns"][0]: _plan([1, 0]) for r in ROWS}  # turn 1: 1 of 4 drafted tokens accepted
    second = {r["turns"][1]: _plan([2, 1]) for r in ROWS}  # turn 2: 3 of 4
    script = TruthScript(default=_plan([0, 0]), by_prompt={**first, **second}, metrics=MetricsPlan())
    opts = BenchOptions(
        configs=("mtp",),
        workloads=("spec-bench.mt_bench",),
        datasets=("spec-bench",),
        dataset_path=str(path),
        levels=(2,),
        repeats=1,
        max_tokens=6,
    )
    with TruthServer(script) as ts:
        run_dir = run_bench(opts, servers={"mtp": ts.base_url}, run_dir=tmp_path / "run")
        log = ts.served()
        served = [r for r in log if not str(r["prompt"]).startswith("Warm-up")]
    assert len(served) == 4  # two conversations x two turns
    assert assert_rows_sent(run_dir, log, {"81": ROWS[0]["turns"][0], "82": ROWS[1]["turns"][0]}) == {
        "mtp/spec-bench.mt_bench/c2/r0": 2
    }
    by_last = {r["messages"][-1]["content"]: r for r in served}
    for row in ROWS:
        t1, t2 = row["turns"]
        assert by_last[t1]["messages"] == [{"role": "user", "content": t1}]
        assert by_last[t2]["messages"] == [
            {"role": "user", "content": t1},
            {"role": "assistant", "content": " x x x x"},  # what the server streamed for turn 1
            {"role": "user", "content": t2},
        ]
        assert by_last[t2]["arrival_ns"] > by_last[t1]["end_ns"]  # sent after the first answer ended
    with open_run(run_dir) as run:
        (cell,) = run.cells()
    turns = sorted(split_turn(s.prompt_id)[1] or 0 for s in cell.streams)
    assert turns == [1, 1, 2, 2]
    assert all(s.text == " x x x x" for s in cell.streams)
    assert sorted((c.turns_planned, c.turns_sent) for c in cell.client.conversations or ()) == [(2, 2), (2, 2)]
    rows = turn_rows([cell], lambda k: True)
    assert [(r.turn, r.streams, r.draft_tokens, r.accepted_tokens, r.acceptance_rate) for r in rows] == [
        (1, 2, 8, 2, 0.25),
        (2, 2, 8, 6, 0.75),
    ]
    tables = {t.key: t for t in load_document([run_dir]).tables}
    # a loaded machine may flag the cell CLIENT_LIMITED (the client's self-check): the report then leaves it out
    if cell.reasons and all(r.startswith("CLIENT_LIMITED") for r in cell.reasons):
        assert "acceptance_by_turn" not in tables
        return
    table = tables["acceptance_by_turn"]
    assert [r[:8] for r in table.rows] == [
        ["mtp", "spec-bench.mt_bench", "1", "2", "2", "8", "25.0%", "8"],
        ["mtp", "spec-bench.mt_bench", "2", "2", "2", "8", "75.0%", "8"],
    ]
    assert "2 conversations, 0 ended early" in table.note


def test_a_failed_turn_ends_its_conversation(tmp_path: Path) -> None:
    path = write_spec_bench_jsonl(tmp_path / "question.jsonl", ROWS[:1])
    script = TruthScript(by_prompt={ROWS[0]["turns"][0]: ResponsePlan(status=503)}, metrics=MetricsPlan())
    opts = BenchOptions(
        configs=("mtp",), workloads=("spec-bench.mt_bench",), datasets=("spec-bench",), dataset_path=str(path),
        levels=(1,), repeats=1, max_tokens=4,
    )  # fmt: skip
    with TruthServer(script) as ts:
        run_dir = run_bench(opts, servers={"mtp": ts.base_url}, run_dir=tmp_path / "run")
        log = ts.served()
        served = [r for r in log if not str(r["prompt"]).startswith("Warm-up")]
    assert [r["messages"][-1]["content"] for r in served] == [ROWS[0]["turns"][0]]  # turn 2 never sent
    assert assert_rows_sent(run_dir, log, {"81": ROWS[0]["turns"][0]}) == {"mtp/spec-bench.mt_bench/c1/r0": 1}
    with open_run(run_dir) as run:
        (cell,) = run.cells()
    assert [c.to_dict() for c in cell.client.conversations or ()] == [
        {"id": "spec-bench.mt_bench-0000", "turns_planned": 2, "turns_sent": 1}
    ]


@pytest.mark.parametrize(("level", "repeats"), [(1, 1), (2, 2)])
def test_a_user_file_of_turns_rows_is_sent_as_conversations(tmp_path: Path, level: int, repeats: int) -> None:
    # AIPerf's multi-turn input ({"session_id", "turns": [{"text"}]}) and FastChat's question.jsonl rows given with
    # --workload: the same conversations as a dataset's, turn 2 after the server's own answer to turn 1
    import json

    path = tmp_path / "sessions.jsonl"
    rows = [
        {"session_id": "s1", "turns": [{"text": "Hello there.", "delay": 0}, {"text": "Tell me more.", "delay": 500}]},
        {"question_id": 81, "category": "writing", "turns": ["Write a haiku.", "Now in French."]},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    script = TruthScript(default=_plan([1, 0]), metrics=MetricsPlan())
    opts = BenchOptions(
        configs=("mtp",),
        workloads=("mine",),
        workload_files={"mine": str(path)},
        levels=(level,),
        repeats=repeats,
        max_tokens=6,
    )
    with TruthServer(script) as ts:
        run_dir = run_bench(opts, servers={"mtp": ts.base_url}, run_dir=tmp_path / "run")
        log = ts.served()
        served = [r for r in log if not str(r["prompt"]).startswith("Warm-up")]
    by_last = {r["messages"][-1]["content"]: r["messages"] for r in served}
    assert len(served) == 4 * repeats
    per_cell = assert_rows_sent(run_dir, log, {"s1": "Hello there.", "81": "Write a haiku."})
    assert per_cell == {f"mtp/mine/c{level}/r{r}": 2 for r in range(repeats)}
    assert by_last["Tell me more."] == [
        {"role": "user", "content": "Hello there."},
        {"role": "assistant", "content": " x x x x"},
        {"role": "user", "content": "Tell me more."},
    ]
    assert by_last["Now in French."][0] == {"role": "user", "content": "Write a haiku."}


def test_a_tool_call_answer_goes_back_as_a_tool_call_with_its_tool_message(tmp_path: Path) -> None:
    # turn 1 is answered with a tool call only (vLLM's DeltaToolCall fragments); before, turn 2 carried
    # {"role": "assistant", "content": ""}: the call was lost. OpenAI's chat API wants the assistant message's
    # tool_calls (id, type, function name and the concatenated arguments) and one tool message per call id.
    row = ROWS[0]
    t1, t2 = row["turns"]
    tool = ResponsePlan(output_tokens=4, answer_field="tool_calls", finish_reason="tool_calls")
    script = TruthScript(default=_plan([0, 0]), by_prompt={t1: tool})
    path = write_spec_bench_jsonl(tmp_path / "question.jsonl", [row])
    opts = BenchOptions(
        configs=("mtp",),
        workloads=("spec-bench.mt_bench",),
        datasets=("spec-bench",),
        dataset_path=str(path),
        levels=(1,),
        repeats=1,
        max_tokens=6,
    )
    with TruthServer(script) as ts:
        run_bench(opts, servers={"mtp": ts.base_url}, run_dir=tmp_path / "run")
        served = [r for r in ts.served() if not str(r["prompt"]).startswith("Warm-up")]
    by_last = {r["messages"][-1]["content"]: r for r in served}
    user1, assistant, tool_msg, user2 = by_last[t2]["messages"]
    assert (user1, user2) == ({"role": "user", "content": t1}, {"role": "user", "content": t2})
    (call,) = assistant["tool_calls"]
    assert assistant["role"] == "assistant" and assistant["content"] == ""
    assert call["id"].startswith("chatcmpl-tool-") and call["type"] == "function"
    assert call["function"] == {"name": "lookup", "arguments": " x x x x"}  # the four fragments, in order
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == call["id"]
    assert isinstance(tool_msg["content"], str) and tool_msg["content"]


def test_each_turn_is_sent_with_its_own_output_length(tmp_path: Path) -> None:
    """Issue 36: AIPerf's multi-turn rows carry an ``output_length`` per turn (``Turn.max_tokens``, sent with that
    turn), and single-turn rows of one ``session_id`` one each; specscope refused turns that differ ("specscope sends
    one max_tokens"). Each turn is now sent with its own: 3 then 5, 7 then --max-tokens (6) for a turn without one."""
    import json

    path = tmp_path / "sessions.jsonl"
    rows = [
        {"session_id": "a", "turns": [{"text": "A one.", "output_length": 3}, {"text": "A two.", "output_length": 5}]},
        {"session_id": "b", "text": "B one.", "output_length": 7},
        {"session_id": "b", "text": "B two."},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    script = TruthScript(default=_plan([1, 0]), metrics=MetricsPlan())
    opts = BenchOptions(
        configs=("mtp",), workloads=("mine",), workload_files={"mine": str(path)}, levels=(1,), repeats=1, max_tokens=6
    )
    with TruthServer(script) as ts:
        run_bench(opts, servers={"mtp": ts.base_url}, run_dir=tmp_path / "run")
        served = [r for r in ts.served() if not str(r["prompt"]).startswith("Warm-up")]
    assert {r["messages"][-1]["content"]: r["max_tokens"] for r in served} == {
        "A one.": 3,
        "A two.": 5,
        "B one.": 7,
        "B two.": 6,
    }
