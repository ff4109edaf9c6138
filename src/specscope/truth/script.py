"""What the ground-truth server does for each request: a pydantic script, chosen per request.

A :class:`TruthScript` holds a ``default`` :class:`ResponsePlan`, optional plans keyed by the exact text of
the request's last user message (``by_prompt``), and the ``/metrics`` settings. A request can also carry its
own plan in the body under the key ``"specscope_truth"`` (a dict of :class:`ResponsePlan` fields, merged
over the chosen plan); real servers never see this key because specscope's workloads never send it.

Wire format served (OpenAI chat-completions streaming, as vLLM serves it, see
``vllm/entrypoints/openai/serving_chat.py``): a role chunk, token chunks whose ``delta`` carries
``content`` or a reasoning field, a chunk with ``finish_reason``, then (with ``usage="final_chunk"``) a chunk
with empty ``choices`` and ``usage``, then ``data: [DONE]``. Each SSE event is ``data: <json>\\n\\n``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from specscope.adapters.openai.endpoints import EndpointPath
from specscope.records import INT_BOUND

__all__ = ["ResponsePlan", "MetricsPlan", "TruthScript"]

#: the longest scripted delay (ms): a day. Past it (1e308, inf, NaN) the delay could not be made a number of ns
#: and each request ended in a traceback after the server had started (probe of 2026-12-06).
MAX_DELAY_MS = 86_400_000.0
#: the most tokens one response carries: its chunk sizes are listed before the first is sent, so 10**15 held the
#: event loop (and SIGTERM) for good.
MAX_OUTPUT_TOKENS = 10_000_000
#: a delay in ms: finite, 0..MAX_DELAY_MS.
DelayMs = Annotated[float, Field(ge=0, le=MAX_DELAY_MS, allow_inf_nan=False)]
#: a count or a chunk index: a whole number from 0 to below the records' bound (10**400 prompt tokens were served,
#: then every /metrics answer was a 500: a counter past a float's range cannot be written).
Count = Annotated[int, Field(ge=0, le=INT_BOUND - 1)]


class ResponsePlan(BaseModel):
    """The programmed behaviour of one streamed response. Times in ms, counts in tokens.

    Attributes:
        status: HTTP status; anything but 200 sends a JSON error body and no stream (e.g. 503).
        error_message: that body's ``error.message`` (vLLM's ``ErrorResponse`` shape).
        ttft_ms: delay from the request's arrival to the first token chunk (the role chunk goes first,
            after ``role_ms``).
        role_ms: delay from arrival to the role-only chunk (``delta: {role, content: ""}``); ``None``: no role chunk.
        output_tokens: tokens generated; ``None`` means the request's ``max_tokens`` (finish ``length``).
        tokens_per_chunk: tokens carried by each token chunk (several = speculation flushing a step);
            a list is cycled.
        inter_chunk_ms: delay between consecutive token chunks; a list is cycled.
        reasoning_tokens: the first N tokens are sent as reasoning deltas (field ``reasoning_field``).
        reasoning_field: the delta field those reasoning tokens go out in: ``reasoning`` (vLLM's current name) or
            ``reasoning_content`` (its earlier one, and DeepSeek's API).
        answer_field: the chat answer's tokens go out as ``content`` text or as ``tool_calls`` argument fragments
            (a tool-call-only answer, :func:`specscope.truth.dialects.tool_call_delta`); set ``finish_reason``
            ``tool_calls`` for vLLM's finish of such an answer.
        finish_reason: sent in the chunk after the last token; ``None`` sends none.
        usage: ``final_chunk`` (chunk with empty ``choices``, as vLLM with ``include_usage``),
            ``last_choice_chunk`` (usage on the finish chunk, as llama.cpp) or ``absent``.
        usage_completion_tokens: override the reported ``completion_tokens`` (to serve a lie); ``None``: truth.
        send_done: send ``data: [DONE]`` at the end.
        drop_after_chunks: close the connection abruptly after this many token chunks.
        stall_after_chunks: after this many token chunks, wait ``stall_ms`` before going on.
        stall_ms: the stall length.
        hang_ms: delay after the last token chunk before the finish chunk, usage, ``[DONE]`` or the close
            (a stream that hangs, then stops).
        llamacpp_timings: add llama.cpp's ``timings`` object (``draft_n``, ``draft_n_accepted``) to the last chunk.
        per_request_spec: the engine shape of the per-response speculative fields (:mod:`specscope.truth.spec_shapes`):
            ``vllm`` (root ``metrics.speculative_decoding``), ``vllm_choice`` (the earlier per-choice
            ``speculative_decoding_stats``), ``sglang`` (``meta_info``, current names), ``sglang_059`` (``meta_info``,
            the names of 0.5.9), ``sglang_sglext`` (``sglext.spec_tokens_details``), ``trtllm`` (per-choice
            ``speculative_decoding``), ``llamacpp`` (``timings``), ``unknown`` (a speculative field no engine
            documents); ``none``: none.
        per_request_metrics: add vLLM's per-request timing fields (``--enable-per-request-metrics``:
            ``metrics.queue_time_ms`` and the others, :func:`specscope.truth.spec_shapes.vllm_timing_metrics`) to
            the usage chunk, from the server's own instants: ``queue_time_ms`` is the wait for a ``max_running``
            slot (exactly 0 for a response that got one at once).
        drafts / draft_tokens / accepted_per_position: added to the server's spec-decode counters when the
            response finishes (accepted tokens = sum of ``accepted_per_position``).
        unstreamed: answer one JSON body (``chat.completion``, ``text_completion`` or ``response``, Content-Type
            ``application/json``) after ``ttft_ms``, whatever the request's ``stream`` says: a server that ignores
            ``stream: true`` (:func:`specscope.truth.dialects.unstreamed_body`).
        engine: the ``engine`` label whose counters this request adds to.
        prompt_tokens: reported ``usage.prompt_tokens`` and added to the prompt counter.
        spec_steps_accepted: per-step accepted draft tokens (each step drafts ``draft_tokens // drafts``),
            served as per-request per-step data with the reasoning boundary (:mod:`specscope.truth.spec_steps`).
        inject_events: ``(k, text)`` pairs: once ``k`` token chunks are out, ``text`` is written verbatim (e.g.
            ``'data: {"choices":"x"}\n\n'``, an event of the wrong shape, or SSE bytes of any kind); pairs with
            ``k`` at or past the response's chunk count go out after the last token chunk. Not in firehose mode.
    """

    model_config = ConfigDict(extra="forbid")

    status: int = Field(default=200, ge=200, le=599)  # a status line HTTP clients read (0, 99, 10**20 are not)
    error_message: str = "scripted failure"
    ttft_ms: DelayMs = 0.0
    role_ms: DelayMs | None = 0.0
    output_tokens: Annotated[int, Field(le=MAX_OUTPUT_TOKENS)] | None = 16
    tokens_per_chunk: int | list[int] = 1
    inter_chunk_ms: DelayMs | Annotated[list[DelayMs], Field(min_length=1)] = 0.0
    reasoning_tokens: Count = 0
    spec_steps_accepted: list[Count] | None = None
    reasoning_field: Literal["reasoning", "reasoning_content"] = "reasoning"
    answer_field: Literal["content", "tool_calls"] = "content"
    finish_reason: str | None = "stop"
    usage: Literal["final_chunk", "last_choice_chunk", "absent"] = "final_chunk"
    usage_completion_tokens: int | None = None
    send_done: bool = True
    drop_after_chunks: Count | None = None
    stall_after_chunks: Count | None = None
    stall_ms: DelayMs = 0.0
    hang_ms: DelayMs = 0.0
    llamacpp_timings: bool = False
    per_request_spec: Literal[
        "none", "llamacpp", "vllm", "vllm_choice", "sglang", "sglang_059", "sglang_sglext", "trtllm", "unknown"
    ] = "none"
    per_request_metrics: bool = False
    drafts: Count = 0
    draft_tokens: Count = 0
    accepted_per_position: list[Count] = Field(default_factory=list)
    inject_events: list[tuple[Count, str]] = Field(default_factory=list)
    unstreamed: bool = False
    engine: str = "0"
    prompt_tokens: Count = 8

    @model_validator(mode="after")
    def _check(self) -> ResponsePlan:
        tpc = self.tokens_per_chunk if isinstance(self.tokens_per_chunk, list) else [self.tokens_per_chunk]
        if not tpc or min(tpc) < 1:
            raise ValueError("tokens_per_chunk must be >= 1")
        if self.output_tokens is not None and self.output_tokens < 0:
            raise ValueError("output_tokens must be >= 0")
        return self

    def chunk_sizes(self, total_tokens: int) -> list[int]:
        """Tokens per token chunk for a response of ``total_tokens`` tokens (the last chunk may be short)."""
        cyc = self.tokens_per_chunk if isinstance(self.tokens_per_chunk, list) else [self.tokens_per_chunk]
        sizes: list[int] = []
        left = total_tokens
        i = 0
        while left > 0:
            k = min(cyc[i % len(cyc)], left)
            sizes.append(k)
            left -= k
            i += 1
        return sizes

    def gap_ms(self, i: int) -> float:
        """Programmed delay before token chunk ``i`` (i >= 1) after chunk ``i - 1``; ms."""
        g = self.inter_chunk_ms
        return g[(i - 1) % len(g)] if isinstance(g, list) else g


class MetricsPlan(BaseModel):
    """How ``/metrics`` is served.

    Attributes:
        enabled: serve ``/metrics`` (False: 404, like a llama.cpp server started without ``--metrics``).
        style: metric name prefix and names: ``vllm``, ``llamacpp``, ``sglang`` (the verify-step counter and the
            speculative gauges), ``sglang_gauges`` (the gauges alone) or ``trtllm`` (``/prometheus/metrics`` names:
            draft / accepted token counters, no drafts counter); :mod:`specscope.truth.spec_shapes`; or ``trtllm_json``
            (trtllm-serve's JSON iteration stats at ``/metrics`` and ``/perf_metrics``, drained on read:
            :mod:`specscope.truth.drained`).
        engines: the ``engine`` label values exposed (counters start at 0 on each).
        per_position: expose vLLM's ``..._per_pos_total{position}`` family.
        model_name: the ``model_name`` label.
        created: expose each counter's ``*_created`` sample per engine (prometheus_client does so for vLLM);
            an engine reset moves it by 1000 s.
        created_s: the first ``*_created`` value (Unix time, s).
        slots_n_max: serve llama-server's ``GET /slots`` with this ``speculative.n_max`` on every slot (one slot per
            ``max_running``, at least one); None: 404, as a server that has no such endpoint.
    """

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    style: Literal["vllm", "llamacpp", "sglang", "sglang_gauges", "trtllm", "trtllm_json"] = "vllm"
    engines: list[str] = Field(default_factory=lambda: ["0"])
    per_position: bool = True
    model_name: str = "truth"
    created: bool = False
    created_s: float = 1767225600.0
    slots_n_max: int | None = None


class TruthScript(BaseModel):
    """The whole programme of a ground-truth server (load from JSON with ``TruthScript.model_validate_json``; the
    file ``specscope truth-server --script`` reads, documented in docs/truth-script.md from these attributes).

    Attributes:
        default: the plan of every request no ``by_prompt`` entry matches.
        by_prompt: plans keyed by the exact text of the request's last user message (a completions ``prompt``, a
            Responses ``input``).
        metrics: how ``/metrics`` is served (:class:`MetricsPlan`).
        record: keep a truth log of every response (False: none).
        firehose: serve the ``default`` plan's tokens with no delays from a raw asyncio server
            (:mod:`specscope.truth.firehose`), to measure clients.
        firehose_events_per_write: SSE events per socket write and stream in each round-robin pass (1 = one
            ``send`` per event, which profiled at ~72% of the server's core in the ``write`` syscall at ~60k
            events/s, so the server, not the client, was the limit).
        exit_after_chunks: the process exits right after writing that many token chunks in total over all requests
            (a crash at an exact point; not in firehose mode).
        crash_above_running: the process exits (code 3, no goodbye, like vLLM's illegal memory access at 128
            concurrent requests while stable at 96) when a chat request arrives while this many are already being
            served, i.e. as soon as more than this many are in flight at once; ``None``: never.
        log_stats_kv_percent: at each chat request's arrival, print vLLM's periodic scheduler stats line to stdout
            (the wording of vllm/v1/metrics/loggers.py: ``Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg
            generation throughput: 0.0 tokens/s, Running: R reqs, Waiting: 0 reqs, GPU KV cache usage: P%, Prefix
            cache hit rate: 0.0%``, R the requests now in flight, P this value), so a launched stand-in leaves the
            log a vLLM would; ``None``: no such line.
        max_running: at most K responses of one ``engine`` generate at once (like vLLM's ``max_num_seqs`` or
            llama.cpp's slots); the others wait first in, first out, and a plan's timings (role, TTFT, gaps) start
            when its response gets a slot, so queueing shows as longer TTFT with unchanged decode rates. The running
            and waiting responses are the gauges ``vllm:num_requests_running`` / ``vllm:num_requests_waiting``
            (``llamacpp:requests_processing`` / ``llamacpp:requests_deferred``); ``None``: no cap.
        garbage: per path (``/metrics``, ``/v1/models``, ``/tokenize``), the 0-based numbers of that path's
            requests answered with HTTP 200 and a proxy's HTML error page instead of the real body (a bad answer on
            some requests, issue 37); ``/v1/models`` and ``/tokenize`` otherwise answer as vLLM does (``{"data":
            [{"id", "max_model_len"}]}``, ``{"count", "tokens", "max_model_len"}`` with one token per
            whitespace-separated word of the messages, and ``POST /detokenize`` joins the words back with single
            spaces).
        garbage_body: per path, the body its ``garbage`` requests get instead of the proxy page
            (``application/json`` when it parses as JSON, e.g. JSON of the wrong shape; else ``text/html``).
        garbage_status: the HTTP status of every ``garbage`` answer (200, or 500 / 503 as a failing proxy sends).
        hangup: per path, the 0-based numbers (counted with ``garbage``'s) of that path's requests whose connection
            is closed with no byte of response (a proxy or server dropping the connection: the client sees "Server
            disconnected without sending a response").
        serve_models: answer ``GET /v1/models`` (off: 404, so a client falls back to the served name ``default``).
        serve_tokenizer: answer ``POST /tokenize`` and ``/detokenize`` (off: 404, a server with no tokenizer
            endpoints, so token-exact prompts fall back to words).
        apis: the APIs served (``/v1/chat/completions``, ``/v1/completions``, ``/v1/responses``; None: all three,
            :mod:`specscope.truth.dialects`); a request to another is refused with ``refuse_status``.
        refuse_status: 404 (a server without that route, e.g. a Responses-only one) or 400 (vLLM's answer to chat
            on a base model with no chat template), each with the JSON body vLLM sends.
    """

    model_config = ConfigDict(extra="forbid")

    default: ResponsePlan = Field(default_factory=ResponsePlan)
    by_prompt: dict[str, ResponsePlan] = Field(default_factory=dict)
    metrics: MetricsPlan = Field(default_factory=MetricsPlan)
    record: bool = True
    firehose: bool = False
    firehose_events_per_write: int = Field(default=16, ge=1, le=4096)
    exit_after_chunks: int | None = Field(default=None, ge=1)
    crash_above_running: int | None = Field(default=None, ge=1)
    log_stats_kv_percent: float | None = Field(default=None, ge=0, le=100)
    max_running: int | None = Field(default=None, ge=1)
    garbage: dict[Literal["/metrics", "/v1/models", "/tokenize"], list[int]] = Field(default_factory=dict)
    garbage_body: dict[Literal["/metrics", "/v1/models", "/tokenize"], str] = Field(default_factory=dict)
    garbage_status: int = Field(default=200, ge=200, le=599)
    hangup: dict[Literal["/metrics", "/v1/models", "/tokenize"], list[int]] = Field(default_factory=dict)
    serve_models: bool = False
    serve_tokenizer: bool = False
    apis: list[EndpointPath] | None = None
    refuse_status: Literal[400, 404] = 404

    def plan_for(self, body: dict[str, Any]) -> ResponsePlan:
        """The plan for one request body: ``by_prompt`` on the last user message (a completions ``prompt``, a
        Responses ``input``: :func:`specscope.truth.dialects.prompt_text`), else ``default``, then the body's own
        ``specscope_truth`` overrides."""
        from specscope.truth.dialects import prompt_text

        plan = self.default
        text = prompt_text(body)
        if isinstance(text, str) and text in self.by_prompt:
            plan = self.by_prompt[text]
        override = body.get("specscope_truth")
        if isinstance(override, dict) and override:
            plan = ResponsePlan.model_validate({**plan.model_dump(), **override})
        return plan
