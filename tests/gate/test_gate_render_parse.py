from rich.console import Console

from specscope.gate.backend import parse_chat_response
from specscope.gate.model import GateRun, GateVerdict
from specscope.gate.render import render_gate_table, summary_line


def _run(verdicts):
    return GateRun(configs=({"name": "base"}, {"name": "mtp"}), results=(), comparisons=(), verdicts=tuple(verdicts))


def test_summary_line_separates_model_from_speculation():
    run = _run(
        [
            GateVerdict("code", "base", 1, 4, False, "1/4"),
            GateVerdict("code", "mtp", 1, 4, False, "1/4"),
            GateVerdict("thinking", "base", 5, 5, True, "5/5"),
            GateVerdict("thinking", "mtp", 0, 5, False, "0/5"),
        ]
    )
    assert summary_line(run) == (
        "FAILED: 3 of 4 gate checks failed (code on base, code on mtp, thinking on mtp). Do not trust this "
        "deployment's speed numbers until these pass. code also fails on the baseline 'base': that is the model's "
        "own capability, not something speculation broke. Failing only with speculation: thinking."
    )
    assert summary_line(_run([GateVerdict("code", "base", 4, 4, True, "4/4")])) == "PASSED: all 1 gate checks passed."
    assert summary_line(_run([])) == "NO GATES RAN: nothing was checked."


def test_gate_table_cells():
    run = _run([GateVerdict("code", "base", 4, 4, True, "4/4"), GateVerdict("code", "mtp", 1, 4, False, "1/4")])
    console = Console(width=200, record=True)
    console.print(render_gate_table(run))
    text = console.export_text()
    assert "Code (tests in a sandbox)" in text and "PASS 4/4" in text and "FAIL 1/4" in text


def test_parse_vllm_style_body():
    body = {
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "323", "reasoning": "17*19 = 323", "tool_calls": []},
                "logprobs": {"content": [{"token": "32", "logprob": -0.1}, {"token": "3", "logprob": -0.2}]},
            }
        ],
        "usage": {"prompt_tokens": 20, "completion_tokens": 9, "completion_tokens_details": {"reasoning_tokens": 7}},
    }
    out = parse_chat_response(body, 200, 5)
    assert (out.text, out.reasoning_text, out.finish_reason) == ("323", "17*19 = 323", "stop")
    assert (out.output_tokens, out.prompt_tokens, out.reasoning_tokens) == (9, 20, 7)
    assert out.reasoning_tokens_source == "usage_details" and out.tokens == ("32", "3")
    empty = parse_chat_response({"choices": []}, 200, 1)
    assert empty.error == "response has no choices"
    older = parse_chat_response(
        {"choices": [{"message": {"content": None, "reasoning_content": "hmm"}, "finish_reason": "length"}]}, 200, 1
    )
    assert older.reasoning_text == "hmm" and older.text == "" and older.output_tokens is None
