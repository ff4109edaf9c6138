"""Every checker on recorded outputs, passing and failing (issue 7's done-when list)."""

import json

from hangguard import HANG_S
from paths import CASES
from specscope.gate import checks
from specscope.gate.model import Probe, ProbeOutput
from specscope.gate.probes import load_probes

WEATHER_TOOL = load_probes("tool_call")[0].expected["tool_definition"]


# ---- thinking termination ---------------------------------------------------------------------------------


def test_thinking_closed_with_reasoning_field_passes():
    out = ProbeOutput(
        text="17 x 19 = 323\n323",
        reasoning_text="17*20 = 340, minus 17 is 323.",
        finish_reason="stop",
        output_tokens=40,
        reasoning_tokens=28,
    )
    c = checks.check_thinking(out, "323")
    assert c.passed, c.why
    assert c.metrics["closed"] is True and c.metrics["answer"] == "323" and c.metrics["thinking_tokens"] == 28


def test_thinking_inline_tags_pass():
    out = ProbeOutput(text="<think>248+175: 200+100=300, 48+75=123</think>\nThe sum is 423.", finish_reason="stop")
    assert checks.check_thinking(out, "423").passed


def test_thinking_cut_by_max_tokens_fails():
    # seed 002's FP8-KV failure: all reasoning, no answer, stopped by the budget
    out = ProbeOutput(
        text="",
        reasoning_text="Let me compute 17 times 19. 17 times 19 is 323. Wait, let me check " * 50,
        finish_reason="length",
        output_tokens=16384,
        reasoning_tokens=16384,
    )
    c = checks.check_thinking(out, "323", max_tokens=16384)
    assert not c.passed
    assert c.why == (
        "thinking never closed; finish reason 'length', expected 'stop' (cut by max_tokens (16384 tokens)); "
        "no final answer"
    )


def test_thinking_cut_by_the_context_says_so_not_max_tokens():
    """The new user's run: SmolLM2-135M in a 4,096-token slot stopped at 4,036 output tokens with
    max_tokens 16,384 and finish 'length': the slot's context cut it, not max_tokens."""
    out = ProbeOutput(text="17 times 19 is " * 400, finish_reason="length", output_tokens=4036, prompt_tokens=59)
    c = checks.check_thinking(out, "323", max_tokens=16384)
    assert c.why == (
        "finish reason 'length', expected 'stop' (cut by the server's context limit (59 prompt + 4036 output "
        "tokens filled it; max_tokens 16384 was not reached)); answer 19, expected 323"
    )


def test_a_looping_answer_is_shortened_in_the_message():
    out = ProbeOutput(text="144 / 12 = 1." + "6" * 300, finish_reason="stop")
    c = checks.check_thinking(out, "12")
    assert c.why == "answer 1.6666666666666666666..., expected 12" and c.metrics["answer"] == "1." + "6" * 300


def test_length_cause_tells_max_tokens_from_context():
    cut = ProbeOutput(finish_reason="length", output_tokens=16, prompt_tokens=3600)
    assert checks.length_cause(cut, 16) == "cut by max_tokens (16 tokens)"
    ctx = ProbeOutput(finish_reason="length", output_tokens=40)
    assert checks.length_cause(ctx, 64) == (
        "cut by the server's context limit (40 output tokens filled it; max_tokens 64 was not reached)"
    )
    assert checks.length_cause(ProbeOutput(finish_reason="length"), 64) == (
        "cut by max_tokens or by the server's context limit (output tokens unknown)"
    )
    assert checks.length_cause(ProbeOutput(finish_reason="stop", output_tokens=16), 16) is None


def test_thinking_inline_never_closed_fails_even_with_number():
    out = ProbeOutput(text="<think>17*19 is 323, so the answer is 323", finish_reason="length")
    c = checks.check_thinking(out, "323")
    assert not c.passed and c.metrics["closed"] is False


def test_thinking_wrong_answer_fails():
    out = ProbeOutput(text="Answer: 324", reasoning_text="17*19 ...", finish_reason="stop")
    c = checks.check_thinking(out, "323")
    assert not c.passed and c.why == "answer 324, expected 323"


def test_thinking_no_reasoning_passes_unless_required():
    out = ProbeOutput(text="144 / 12 = 12", finish_reason="stop")
    assert checks.check_thinking(out, "12").passed
    c = checks.check_thinking(out, "12", require_reasoning=True)
    assert not c.passed and c.why == "no thinking emitted"


def test_thinking_case_c14_reasoning_only_length_stream_fails():
    """C14 stream B: reasoning-only, finish 'length' -> a thinking run cut by max_tokens must fail."""
    import httpx_sse

    raw = (CASES / "C14" / "B_reasoning_only_length.sse").read_text(encoding="utf-8")
    decoder = httpx_sse._decoders.SSEDecoder()
    events = []
    for line in raw.splitlines():
        ev = decoder.decode(line)
        if ev is not None:
            events.append(ev)
    reasoning, content, finish, completion_tokens = "", "", None, None
    for ev in events:
        if ev.data == "[DONE]":
            break
        chunk = json.loads(ev.data)
        for ch in chunk.get("choices") or []:
            delta = ch.get("delta") or {}
            reasoning += delta.get("reasoning_content") or delta.get("reasoning") or ""
            content += delta.get("content") or ""
            finish = ch.get("finish_reason") or finish
        if chunk.get("usage"):
            completion_tokens = chunk["usage"]["completion_tokens"]
    assert finish == "length" and completion_tokens == 32 and content == ""
    out = ProbeOutput(
        text=content,
        reasoning_text=reasoning,
        finish_reason=finish,
        output_tokens=completion_tokens,
        reasoning_tokens=completion_tokens,
    )
    c = checks.check_thinking(out, "323")
    assert not c.passed
    assert c.metrics["closed"] is False and c.metrics["finish_reason"] == "length"


def test_request_error_fails_with_reason():
    c = checks.check_thinking(ProbeOutput(error="http 500: boom", http_status=500), "1")
    assert not c.passed and c.why == "request failed: http 500: boom"


# ---- arithmetic ------------------------------------------------------------------------------------------


def test_arithmetic_pass_and_fail():
    ok = ProbeOutput(text="14*12 = 168 rolls. 168 - 150 = 18.\nAnswer: 18", finish_reason="stop")
    assert checks.check_arithmetic(ok, "18").passed
    wrong = ProbeOutput(text="14*12 = 168. Answer: 168", finish_reason="stop")
    c = checks.check_arithmetic(wrong, "18")
    assert not c.passed and c.why == "answer 168, expected 18"
    none = ProbeOutput(text="Let me think about the rolls", finish_reason="length", output_tokens=256)
    assert (
        checks.check_arithmetic(none, "18", max_tokens=256).why == "no numeric answer (cut by max_tokens (256 tokens))"
    )


def test_arithmetic_ignores_numbers_in_thinking():
    out = ProbeOutput(text="<think>maybe 18</think>Answer: 20", finish_reason="stop")
    assert not checks.check_arithmetic(out, "18").passed


# ---- code (real subprocess) ------------------------------------------------------------------------------

RUNNING_MAX = next(p for p in load_probes("code") if p.id == "code-running-max")


def test_code_correct_answer_passes():
    text = (
        "Here you go:\n```python\ndef running_max(xs):\n    out, best = [], None\n    for x in xs:\n"
        "        best = x if best is None or x > best else best\n        out.append(best)\n    return out\n```\n"
    )
    # the limit is the hang guard: a loaded machine may take more than the default 10 s to run the tests (issue 37)
    c = checks.check_code(
        ProbeOutput(text=text, finish_reason="stop"), "running_max", RUNNING_MAX.expected["tests"], timeout_s=HANG_S
    )
    assert c.passed, c.why
    assert c.metrics["returncode"] == 0


def test_code_wrong_answer_fails():
    text = "```python\ndef running_max(xs):\n    return sorted(xs)\n```"
    c = checks.check_code(ProbeOutput(text=text), "running_max", RUNNING_MAX.expected["tests"], timeout_s=HANG_S)
    assert not c.passed and c.why == "running_max: tests failed: AssertionError"


def test_code_infinite_loop_times_out():
    text = "```python\ndef running_max(xs):\n    while True:\n        pass\n```"
    c = checks.check_code(ProbeOutput(text=text), "running_max", RUNNING_MAX.expected["tests"], timeout_s=1.0)
    assert not c.passed and c.metrics["timed_out"] is True
    assert c.why == "running_max: tests timed out after 1 s"


def test_code_no_code_fails():
    c = checks.check_code(ProbeOutput(text="I cannot help with that."), "running_max", "assert True")
    assert not c.passed and c.why == "no code in the answer"


# ---- tool call ------------------------------------------------------------------------------------------


def _tool_out(args) -> ProbeOutput:
    raw = args if isinstance(args, str) else json.dumps(args)
    return ProbeOutput(
        finish_reason="tool_calls",
        tool_calls=(
            {"id": "call_1", "type": "function", "function": {"name": "get_current_weather", "arguments": raw}},
        ),
    )


def test_tool_call_valid_passes():
    c = checks.check_tool_call(
        _tool_out({"city": "lisbon", "unit": "celsius"}), WEATHER_TOOL, {"city": "Lisbon", "unit": "celsius"}
    )
    assert c.passed, c.why


def test_tool_call_schema_violation_fails():
    c = checks.check_tool_call(
        _tool_out({"city": "Lisbon", "unit": "kelvin"}), WEATHER_TOOL, {"city": "Lisbon", "unit": "celsius"}
    )
    assert not c.passed
    assert c.why == "arguments violate the schema at unit: 'kelvin' is not one of ['celsius', 'fahrenheit']"


def test_tool_call_wrong_argument_value_fails():
    c = checks.check_tool_call(
        _tool_out({"city": "Porto", "unit": "celsius"}), WEATHER_TOOL, {"city": "Lisbon", "unit": "celsius"}
    )
    assert not c.passed and c.why == "argument city='Porto', expected 'Lisbon'"


def test_tool_call_missing_required_and_bad_json_and_no_call():
    c = checks.check_tool_call(_tool_out({"city": "Lisbon"}), WEATHER_TOOL, {"city": "Lisbon"})
    assert not c.passed and c.why == "arguments violate the schema at (root): 'unit' is a required property"
    c = checks.check_tool_call(_tool_out('{"city": "Lisbon",'), WEATHER_TOOL, {})
    assert not c.passed and c.why.startswith("arguments are not JSON")
    c = checks.check_tool_call(ProbeOutput(text="It is sunny in Lisbon."), WEATHER_TOOL, {})
    assert not c.passed and c.why == "no tool_calls in the answer"


def test_tool_call_arguments_that_are_not_an_object_fail():
    c = checks.check_tool_call(_tool_out('["Lisbon", "celsius"]'), WEATHER_TOOL, {"city": "Lisbon"})
    assert not c.passed and c.why == "arguments are a JSON list, expected an object"


# ---- long context ----------------------------------------------------------------------------------------


def test_long_context():
    assert checks.check_long_context(ProbeOutput(text="The code is 7394.", prompt_tokens=8340), "7394").passed
    c = checks.check_long_context(ProbeOutput(text="I do not know.", prompt_tokens=8340), "7394")
    assert not c.passed and c.why == "answer does not contain '7394': 'I do not know.'"
    long = ProbeOutput(text="The blue vault of the harbour office has an access code that " * 3, prompt_tokens=8340)
    why = checks.check_long_context(long, "7394").why
    assert why == "answer does not contain '7394': 'The blue vault of the harbour office has an access code t...'"


# ---- repetition ------------------------------------------------------------------------------------------

HEALTHY = (
    "The keeper climbed the stairs before dawn, counting the steps out of habit. Outside, the sea was "
    "grey and restless, and a gull watched him from the railing. He trimmed the wick, wiped the lens, and "
    "wrote the wind direction in the log."
)
LOOP = "The keeper climbed the stairs and looked at the sea. " * 30


def test_repetition_healthy_passes():
    c = checks.check_repetition(ProbeOutput(text=HEALTHY, finish_reason="length"))
    assert c.passed, c.why
    assert c.metrics["max_repeated_ngram_count"] == 1


def test_repetition_loop_fails():
    c = checks.check_repetition(ProbeOutput(text=LOOP, finish_reason="length"))
    assert not c.passed
    # 10 words per sentence x 30 = 300 words; the 8-gram starting at word 0 starts at 0, 10, ..., 290: 30 times
    assert c.metrics["max_repeated_ngram_count"] == 30
    # distinct words: the, keeper, climbed, stairs, and, looked, at, sea = 8 of 300
    assert c.metrics["unique_word_ratio"] == 8 / 300
    assert c.metrics["words"] == 300
    assert c.why.startswith("a 8-gram repeats 30 times (max 1); unique-word ratio 0.027 < 0.528")


# ---- base vs speculative --------------------------------------------------------------------------------


def test_compare_outputs_tokens_and_answers():
    probe = Probe(gate="compare", id="cmp-37x24", messages=(), expected={"answer": "888"})
    base = ProbeOutput(text="37*24 = 888\nAnswer: 888", tokens=("37", "*", "24", " =", " 888"))
    same = ProbeOutput(text="37*24 = 888\nAnswer: 888", tokens=("37", "*", "24", " =", " 888"))
    c = checks.compare_outputs(probe, "base", base, "ngram", same)
    assert c.identical and c.first_divergence is None and c.unit == "tokens" and c.same_answer
    other = ProbeOutput(text="37 times 24 is 888. Answer: 888", tokens=("37", " times", " 24"))
    c = checks.compare_outputs(probe, "base", base, "ngram", other)
    assert not c.identical and c.first_divergence == 1 and c.same_answer and c.spec_answer == "888"
    wrong = ProbeOutput(text="Answer: 887")  # no tokens -> chars
    c = checks.compare_outputs(probe, "base", base, "ngram", wrong)
    assert c.unit == "chars" and c.first_divergence == 0 and not c.same_answer


def test_code_ended_by_the_cpu_limit_is_a_time_out():
    """RLIMIT_CPU ends a child with SIGXCPU (soft) or SIGKILL (hard); either is the time limit, not a crash.

    The child sends itself each signal, so the mapping is checked without racing the wall clock.
    """
    for sig in ("SIGXCPU", "SIGKILL"):
        text = f"```python\nimport os, signal\ndef running_max(xs):\n    os.kill(os.getpid(), signal.{sig})\n```"
        c = checks.check_code(ProbeOutput(text=text), "running_max", RUNNING_MAX.expected["tests"], timeout_s=30.0)
        assert not c.passed
        assert c.metrics["timed_out"] is True, sig
        assert c.metrics["returncode"] is None
        assert c.why == "running_max: tests timed out after 30 s"
