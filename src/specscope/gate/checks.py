"""Checkers: one function per gate, from a recorded :class:`~specscope.gate.model.ProbeOutput` to a verdict.

All are pure functions of their arguments except :func:`check_code`, which runs the given tests in a separate
process through :mod:`specscope.gate.sandbox`. Gate definitions and thresholds come from seed 002 (thinking
termination: the reasoning closes by itself, finish ``stop``, right answer; capability gates: GSM8K-style
arithmetic, HumanEval-style code, a JSON tool call, long-context retrieval; base-vs-speculative comparison)
and seed 003 (repetition: maximum repeated 8-gram count and unique-word ratio).
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from specscope import strictjson
from specscope.gate.model import Check, Comparison, Probe, ProbeOutput
from specscope.gate.sandbox import extract_code, run_code_tests
from specscope.gate.text_metrics import (
    extract_final_number,
    first_divergence,
    numbers_equal,
    split_think,
    unique_word_ratio,
    words,
)
from specscope.gate.text_metrics import (
    max_repeated_ngram_count as ngram_max_count,
)

__all__ = [
    "length_cause",
    "final_content",
    "check_thinking",
    "check_arithmetic",
    "check_code",
    "check_tool_call",
    "check_long_context",
    "check_repetition",
    "compare_outputs",
]


def final_content(out: ProbeOutput) -> tuple[str, str, bool | None]:
    """Separate thinking from the answer.

    Returns ``(reasoning, answer, closed)``: ``closed`` is True when thinking was present and closed (the
    server moved from the reasoning field to content, or an inline ``</think>`` appeared), False when
    thinking started and never closed, and ``None`` when the output carries no thinking at all.
    """
    inline_reasoning, after, inline_closed = split_think(out.text)
    if out.reasoning_text:
        # The server's reasoning parser split it: thinking closed iff an answer followed it.
        answer = after if inline_reasoning is not None else out.text
        return out.reasoning_text, answer, bool(answer.strip())
    if inline_reasoning is not None:
        return inline_reasoning, after, inline_closed
    return "", out.text, None


def length_cause(out: ProbeOutput, max_tokens: int | None) -> str | None:
    """Which limit cut an output that ended with finish reason ``length``; ``None`` when it was not cut.

    Servers say ``length`` both when ``max_tokens`` ran out and when the prompt plus the output filled the
    context (llama.cpp: the slot's ``n_ctx``, reported as ``truncated``). ``usage.completion_tokens`` tells
    them apart: fewer output tokens than ``max_tokens`` means the context ran out first.
    """
    if out.finish_reason != "length":
        return None
    n = out.output_tokens
    if max_tokens is None or n is None:
        return "cut by max_tokens or by the server's context limit (output tokens unknown)"
    if n >= max_tokens:
        return f"cut by max_tokens ({max_tokens} tokens)"
    used = f"{out.prompt_tokens} prompt + {n} output tokens" if out.prompt_tokens is not None else f"{n} output tokens"
    return f"cut by the server's context limit ({used} filled it; max_tokens {max_tokens} was not reached)"


def _short(value: object, width: int = 24) -> str:
    """A number as text for a one-line message: at most ``width`` characters (a looping model writes
    1.6666... for hundreds of digits); the full value stays in the check's metrics."""
    text = str(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _request_failed(out: ProbeOutput) -> Check | None:
    if out.error is not None:
        return Check(False, f"request failed: {out.error}", {"http_status": out.http_status})
    return None


def _answer(out: ProbeOutput) -> tuple[Check | None, str]:
    """``(the failing Check of a failed request or None, the final answer text after any thinking)``."""
    return _request_failed(out), final_content(out)[1]


def check_thinking(
    out: ProbeOutput, expected_answer: str | int, *, require_reasoning: bool = False, max_tokens: int | None = None
) -> Check:
    """Thinking-termination gate (seed 002): thinking closes by itself, finish ``stop``, right final answer.

    A run cut by ``max_tokens`` or the context (finish ``length``) fails even when its partial text holds the
    number; ``max_tokens`` (the request's, tokens) lets the message say which limit cut it.
    Metrics: ``thinking_tokens`` (from the output record), ``closed``, ``finish_reason``, ``answer``.
    """
    failed = _request_failed(out)
    if failed:
        return failed
    _, answer_text, closed = final_content(out)
    found = extract_final_number(answer_text)
    metrics = {
        "thinking_tokens": out.reasoning_tokens,
        "closed": closed,
        "finish_reason": out.finish_reason,
        "answer": None if found is None else str(found),
        "expected": str(expected_answer),
    }
    problems = []
    if closed is False:
        problems.append("thinking never closed")
    elif closed is None and require_reasoning:
        problems.append("no thinking emitted")
    if out.finish_reason != "stop":
        cause = length_cause(out, max_tokens)
        problems.append(f"finish reason {out.finish_reason!r}, expected 'stop'" + (f" ({cause})" if cause else ""))
    if found is None:
        problems.append("no final answer")
    elif not numbers_equal(found, expected_answer):
        problems.append(f"answer {_short(found)}, expected {expected_answer}")
    if problems:
        return Check(False, "; ".join(problems), metrics)
    note = (
        " (no thinking emitted)"
        if closed is None
        else f" after {out.reasoning_tokens} thinking tokens"
        if out.reasoning_tokens is not None
        else ""
    )
    return Check(True, f"closed and answered {found}{note}", metrics)


def check_arithmetic(out: ProbeOutput, expected_answer: str | int, *, max_tokens: int | None = None) -> Check:
    """Word-problem gate: the final number of the answer (after any thinking) equals the expected value.

    ``max_tokens`` (the request's, tokens) lets a cut answer's message say which limit cut it."""
    failed, answer_text = _answer(out)
    if failed:
        return failed
    found = extract_final_number(answer_text)
    metrics = {
        "answer": None if found is None else str(found),
        "expected": str(expected_answer),
        "finish_reason": out.finish_reason,
    }
    if found is None:
        cause = length_cause(out, max_tokens)
        return Check(False, "no numeric answer" + (f" ({cause})" if cause else ""), metrics)
    if not numbers_equal(found, expected_answer):
        return Check(False, f"answer {_short(found)}, expected {expected_answer}", metrics)
    return Check(True, f"answered {found}", metrics)


def check_code(out: ProbeOutput, function: str, tests: str, *, timeout_s: float = 10.0) -> Check:
    """Code gate: extract the answer's Python, run ``tests`` against it in a sandboxed child process.

    Metrics: ``returncode``, ``timed_out``, ``elapsed_ns``.
    """
    failed, answer_text = _answer(out)
    if failed:
        return failed
    code = extract_code(answer_text, function)
    if code is None:
        return Check(False, "no code in the answer", {"function": function})
    run = run_code_tests(code, tests, timeout_s=timeout_s)
    metrics = {
        "function": function,
        "returncode": run.returncode,
        "timed_out": run.timed_out,
        "elapsed_ns": run.elapsed_ns,
    }
    if run.passed:
        return Check(True, f"{function}: tests passed", metrics)
    if run.timed_out:
        return Check(False, f"{function}: tests timed out after {timeout_s:g} s", metrics)
    lines = [ln for ln in run.stderr_tail.strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else f"exit status {run.returncode}"
    return Check(False, f"{function}: tests failed: {last[:200]}", metrics)


def _same_value(found: Any, wanted: Any) -> bool:
    if isinstance(wanted, str) and isinstance(found, str):
        return " ".join(found.split()).casefold() == " ".join(wanted.split()).casefold()
    return bool(found == wanted)


def check_tool_call(out: ProbeOutput, tool: dict[str, Any], expected_arguments: dict[str, Any]) -> Check:
    """Tool-call gate: a ``tool_calls`` entry naming the tool, JSON arguments valid against its schema
    (``jsonschema``), and the expected argument values (strings compared case- and space-insensitively).

    Args:
        tool: the OpenAI tool definition sent (``{"type": "function", "function": {name, parameters}}``).
        expected_arguments: argument values the prompt determines.
    """
    failed = _request_failed(out)
    if failed:
        return failed
    name = tool["function"]["name"]
    schema = tool["function"].get("parameters") or {"type": "object"}
    metrics: dict[str, Any] = {"tool_calls": len(out.tool_calls), "finish_reason": out.finish_reason}
    if not out.tool_calls:
        return Check(False, "no tool_calls in the answer", metrics)
    call = out.tool_calls[0]
    fn = call.get("function") or {}
    if fn.get("name") != name:
        return Check(False, f"called {fn.get('name')!r}, expected {name!r}", metrics)
    raw = fn.get("arguments")
    try:
        args = strictjson.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError as exc:
        return Check(False, f"arguments are not JSON: {exc.msg}", metrics)
    metrics["arguments"] = args
    if not isinstance(args, dict):
        return Check(False, f"arguments are a JSON {type(args).__name__}, expected an object", metrics)
    validator_cls = jsonschema.validators.validator_for(schema)
    errors = sorted(validator_cls(schema).iter_errors(args), key=lambda e: list(e.path))
    if errors:
        where = "/".join(str(p) for p in errors[0].path) or "(root)"
        return Check(False, f"arguments violate the schema at {where}: {errors[0].message}", metrics)
    for key, wanted in expected_arguments.items():
        if key not in args or not _same_value(args[key], wanted):
            return Check(False, f"argument {key}={args.get(key)!r}, expected {wanted!r}", metrics)
    return Check(True, f"{name} called with valid arguments", metrics)


def check_long_context(out: ProbeOutput, needle_answer: str) -> Check:
    """Long-context gate: the planted fact's answer appears in the final answer (case-insensitive)."""
    failed, answer_text = _answer(out)
    if failed:
        return failed
    metrics = {"prompt_tokens": out.prompt_tokens, "finish_reason": out.finish_reason}
    if needle_answer.casefold() in answer_text.casefold():
        return Check(True, f"retrieved {needle_answer!r} from a {out.prompt_tokens}-token prompt", metrics)
    shown = " ".join(answer_text.split())
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return Check(False, f"answer does not contain {needle_answer!r}: {shown!r}", metrics)


def check_repetition(
    out: ProbeOutput, *, n: int = 8, max_repeated_ngram_count: int = 1, min_unique_word_ratio: float = 0.528
) -> Check:
    """Repetition gate (seed 003): the answer's largest repeated word n-gram count is at most the threshold
    and its unique-word ratio at least the threshold. Thinking text is not scored.

    Metrics: ``max_repeated_ngram_count``, ``unique_word_ratio``, ``words``.
    """
    failed, answer_text = _answer(out)
    if failed:
        return failed
    count = ngram_max_count(answer_text, n)
    ratio = unique_word_ratio(answer_text)
    metrics = {
        "max_repeated_ngram_count": count,
        "unique_word_ratio": ratio,
        "words": len(words(answer_text)),
        "n": n,
        "output_tokens": out.output_tokens,
    }
    problems = []
    if ratio is None:
        problems.append("no prose in the answer")
    if count > max_repeated_ngram_count:
        problems.append(f"a {n}-gram repeats {count} times (max {max_repeated_ngram_count})")
    if ratio is not None and ratio < min_unique_word_ratio:
        problems.append(f"unique-word ratio {ratio:.3f} < {min_unique_word_ratio:.3f}")
    if problems:
        return Check(False, "; ".join(problems), metrics)
    return Check(True, f"max {n}-gram count {count}, unique-word ratio {ratio:.3f}", metrics)


def compare_outputs(
    probe: Probe, base_config: str, base: ProbeOutput, spec_config: str, spec: ProbeOutput
) -> Comparison:
    """Base vs speculative on one greedy prompt: identical sequence, first divergence, same final number.

    Token sequences come from logprobs when both outputs carry them (unit ``tokens``); otherwise the full
    texts (reasoning + content) are compared character by character (unit ``chars``). A failed request is no
    divergence: ``error`` names it and nothing is compared.
    """
    if base.tokens is not None and spec.tokens is not None:
        a: list[str] | str = list(base.tokens)
        b: list[str] | str = list(spec.tokens)
        unit = "tokens"
    else:
        a, b = base.reasoning_text + base.text, spec.reasoning_text + spec.text
        unit = "chars"
    failed = next((f"{cfg}: {o.error}" for cfg, o in ((base_config, base), (spec_config, spec)) if o.error), None)
    div = None if failed else first_divergence(a, b)
    ans_a = extract_final_number(final_content(base)[1]) if base.error is None else None
    ans_b = extract_final_number(final_content(spec)[1]) if spec.error is None else None
    identical = div is None and failed is None
    # identical outputs hold the same answer, found or not: a missing number is the model's, not speculation's
    same = identical or (ans_a is not None and ans_b is not None and ans_a == ans_b)
    expected = probe.expected.get("answer")
    return Comparison(
        probe_id=probe.id,
        base_config=base_config,
        spec_config=spec_config,
        identical=identical,
        first_divergence=div,
        unit=unit,
        base_answer=None if ans_a is None else str(ans_a),
        spec_answer=None if ans_b is None else str(ans_b),
        same_answer=same,
        expected_answer=None if expected is None else str(expected),
        base_at=None if div is None else _at(a, div),
        spec_at=None if div is None else _at(b, div),
        error=failed,
    )


def _at(seq: list[str] | str, i: int) -> str:
    """What a compared sequence holds at position ``i``: the token, or up to 8 characters; ``""`` past its end."""
    if isinstance(seq, str):
        return seq[i : i + 8]
    return seq[i] if i < len(seq) else ""
