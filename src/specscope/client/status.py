"""A stream's status and reason, from what its events said and how its transport ended (issues 2, 14, 17, 29).

Rules: ``failed`` when no token arrived and something went wrong (HTTP error, connect failure, timeout, drop, or only
events that did not fit the typed boundary), and on two clean HTTP 200 closes with no terminal event
(:func:`terminal_event_seen`: a finish reason or ``[DONE]``, never usage): ``EMPTY_STREAM`` (no token at all and no
finish, e.g. nothing but ``data: [DONE]``, or a role chunk, usage saying 0 tokens and ``[DONE]``) and
``STOPPED_EARLY`` (tokens, then the stream closed with no finish and no ``[DONE]``); ``failed`` too when the server
sent an error event in an HTTP 200 stream, whatever came before it (``server error: <its message>``, then
``no [DONE]`` if it is missing), or ended with an abort finish reason (``ABORTED(finish_reason abort)``,
:data:`ABORT_REASONS`): the generation did not complete, so its partial tokens and
short latency are no measurement of a request (vllm-project/vllm PR #57519, sgl-project/sglang PR #38868 found both
benchmark clients counting such a request a success); ``degraded`` when tokens arrived but: the transport failed
(``timeout``, ``connection dropped``), events did not fit the typed boundary (``BAD_EVENT(n events; first: <msgspec's
description with the JSON path>)``, :mod:`specscope.client.events`), no ``[DONE]`` (a Responses stream: ``no terminal
response event``), no ``usage`` on a stream that did
not finish normally (``no usage``), the stream stopped short of ``max_tokens`` without a ``stop`` finish (``short
without stop``), or with a ``length`` finish (``SERVER_LENGTH_LIMIT(finish_reason length at N of max_tokens M: ...)``:
the server's own length limit cut the answer; vLLM's ``check_stop``, vllm/v1/core/sched/utils.py, ends a request
``FINISHED_LENGTH_CAPPED`` when ``num_output_tokens >= max_tokens`` *or* ``num_tokens >= max_model_len``, prompt
plus answer at the context length; llama.cpp's server when a slot's context is full), or it ended with a finish
reason no engine is known to send (``UNKNOWN_FINISH(finish_reason X)``, :data:`KNOWN_FINISH_REASONS`), or its usage
contradicted the stream (``USAGE_CONTRADICTED(...)``: 0 completion tokens after token events, a usage after the
finish below an earlier one, or more reasoning than completion tokens; its output tokens absent,
:mod:`specscope.client.parse`). A stream that finished normally (stop finish and ``[DONE]``) without usage is ``ok``
with unknown tokens (``token_source="missing"``); the cell may take them from the server's counter delta. Reasons
are joined with ``"; "``. First token = first non-empty ``content`` or ``reasoning`` / ``reasoning_content`` delta; a
role-only chunk does not count (cases C13, C14). Always ``failed`` whatever came before: ``STALLED`` (no byte for
``stall_timeout_s`` once the response started) and ``RUNAWAY(...)`` (cut past a budget, :mod:`specscope.client.parse`).
"""

from __future__ import annotations

from typing import Protocol

from specscope.records import StreamStatus

__all__ = ["ABORT_REASONS", "KNOWN_FINISH_REASONS", "STOP_REASONS", "Seen", "stream_status", "terminal_event_seen"]

#: finish reasons of a finished answer. ``repetition``: vLLM's repetition detector ended the generation, a rule the
#: request asked for (``SamplingParams.repetition_detection``; ``check_stop`` in vllm/v1/core/sched/utils.py sets
#: ``FINISHED_REPETITION`` -> ``FinishReason.REPETITION``, vllm/v1/request.py ``_FINISHED_REASON_MAP``), as ``stop``.
STOP_REASONS = frozenset({"stop", "tool_calls", "function_call", "eos", "repetition"})
#: finish reasons of a generation the server cut off: vLLM's ``abort`` (vllm/v1/request.py ``_FINISHED_REASON_MAP``:
#: ``FINISHED_ABORTED`` -> ``FinishReason.ABORT``, sent at HTTP 200 with usage and ``[DONE]``, vllm-project/vllm
#: issue #57082; SGLang's ``abort`` too) and ``error`` (``FINISHED_ERROR`` -> ``FinishReason.ERROR``, a request-level
#: internal error); a stream that ends with one is a failed request, ``ABORTED(finish_reason abort)``.
ABORT_REASONS = frozenset({"abort", "error"})
#: every finish reason an engine is known to send (``length``: at ``max_tokens``, or before it at the server's own
#: limit, ``SERVER_LENGTH_LIMIT``); another one
#: is named, ``UNKNOWN_FINISH(finish_reason X)`` (degraded), not read as a short answer
KNOWN_FINISH_REASONS = STOP_REASONS | ABORT_REASONS | {"length"}


class Seen(Protocol):
    """What the rules read of a stream's parse (:class:`specscope.client.parse.StreamParser`)."""

    first_token: int | None
    finish: str | None
    output_tokens: int | None
    done: bool
    server_error: str | None
    bad_events: int
    first_bad: str | None
    runaway: str | None
    unstreamed: str | None
    usage_contradiction: str | None

    @property
    def end_event(self) -> str: ...


def terminal_event_seen(seen: Seen) -> bool:
    """Whether the stream sent its terminal event: the one place that decides it (a ``finish_reason`` or ``[DONE]``).
    Usage is not a terminal event: vLLM with ``--enable-force-include-usage`` and ``continuous_usage_stats`` sends
    cumulative usage on every chunk, so a stream cut mid-way has usage and is still failed (issue 26)."""
    return seen.finish is not None or seen.done


def _reasons_200(error: str | None, max_tokens: int | None, seen: Seen) -> list[str]:
    """Reasons of an HTTP 200 stream; ``EMPTY_STREAM`` / ``STOPPED_EARLY`` alone when the stream ended cleanly
    with no answer / with no terminal event (no finish reason, no ``[DONE]``): both are failed requests."""
    if not error and not seen.server_error:
        if seen.first_token is None and seen.finish is None and not seen.output_tokens:
            return ["EMPTY_STREAM"]  # nothing, a [DONE] alone, or a role, usage 0 and [DONE] (issue 35)
        if not terminal_event_seen(seen):
            return ["STOPPED_EARLY"]
    reasons = []
    if not seen.done:
        reasons.append(f"no {seen.end_event}")
    finished = seen.finish in STOP_REASONS or (max_tokens is None and seen.finish == "length")
    if seen.output_tokens is None and not (finished and seen.done) and not seen.usage_contradiction:
        # finished without usage: ok, tokens unknown; a usage contradicted is named as such
        reasons.append("no usage")
    reached = max_tokens is not None and seen.output_tokens is not None and seen.output_tokens >= max_tokens
    if seen.finish is not None and seen.finish not in KNOWN_FINISH_REASONS:
        reasons.append(f"UNKNOWN_FINISH(finish_reason {seen.finish[:40]})")
    elif seen.finish == "length" and not reached:
        if seen.output_tokens is not None and max_tokens is not None:  # unknown count: "no usage" says it
            reasons.append(
                f"SERVER_LENGTH_LIMIT(finish_reason length at {seen.output_tokens} of max_tokens {max_tokens}: "
                "the server's own length limit cut the answer, e.g. prompt + answer at its context length)"
            )
    elif not finished and not reached:
        reasons.append("short without stop")
    return reasons


def stream_status(
    http_status: int | None, error: str | None, max_tokens: int | None, seen: Seen, *, http_note: str | None = None
) -> tuple[StreamStatus, str | None]:
    """The stream's status and reason (the rules in the module doc).

    Args:
        http_status: the response's status, None when no response arrived.
        error: the transport problem the hot path recorded (``timeout``, ``STALLED``, ``RUNAWAY(...)``...), or None.
        max_tokens: the request's token limit (None if unset).
        seen: what the stream's events said.
        http_note: with a non-200 status, what follows ``http N`` (:func:`specscope.adapters.openai.endpoints.
            refusal_note`: the endpoint, the server's own message, the endpoints to try).
    """
    reasons: list[str] = []
    if http_status is not None and http_status != 200:
        reasons.append(f"http {http_status}" + (f" {http_note}" if http_note else ""))
    if error == "STALLED":  # no byte for stall_timeout_s mid-stream: a failed request whatever came before
        return "failed", "STALLED"
    runaway = seen.runaway or (error if error and error.startswith("RUNAWAY") else None)
    if runaway:  # cut past a budget: a failed request whatever came before
        return "failed", runaway
    if error:
        reasons.append(error)
    if seen.server_error:
        reasons.append(f"server error: {seen.server_error}")
    if seen.bad_events:
        reasons.append(f"BAD_EVENT({seen.bad_events} events; first: {seen.first_bad})")
    if seen.usage_contradiction:
        reasons.append(seen.usage_contradiction)
    if http_status == 200 and (seen.server_error or seen.finish in ABORT_REASONS):  # the generation did not complete
        if seen.finish in ABORT_REASONS:
            reasons.append(f"ABORTED(finish_reason {seen.finish})")
        return "failed", "; ".join(reasons + ([] if seen.done else [f"no {seen.end_event}"]))
    if http_status == 200 and seen.unstreamed and not reasons:  # one JSON answer: no stream, no token timed
        return "failed", f"NOT_STREAMED(one {seen.unstreamed} body, no event stream)"
    if http_status == 200:
        tail = _reasons_200(error, max_tokens, seen)
        if tail and tail[0] in ("EMPTY_STREAM", "STOPPED_EARLY") and not reasons:
            return "failed", tail[0]
        reasons += tail
    elif http_status is None and not error:
        reasons.append("no response")
    if not reasons:
        return "ok", None
    failed = seen.first_token is None and (http_status != 200 or bool(error) or seen.bad_events > 0)
    return ("failed" if failed else "degraded"), "; ".join(reasons)
