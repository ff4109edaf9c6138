"""One config's cells: build each request, measure a cell (warm-up, scrapes, N streams, gauges, clock), store it.

The cell protocol is described in :mod:`specscope.bench.runner`; this module holds the per-cell half so that the
runner keeps the matrix (order, servers, resume) and this one the measurement.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from specscope.bench.client_choice import ClientHistory, choose_settings
from specscope.bench.clock import clock_facts, mark
from specscope.bench.counters_source import counter_source
from specscope.bench.crash_trials import CrashTrials, Restart, known_ceilings
from specscope.bench.openloop_cell import rate_requests, run_rate_cell
from specscope.bench.order import server_config
from specscope.bench.targets import ServerTarget
from specscope.config import BenchOptions
from specscope.errors import MetricsUnavailable, ServerUnreachable, SpecscopeError
from specscope.records import (
    CRASH_REASON,
    CellKey,
    CellResult,
    ClientFacts,
    ConversationFacts,
    GaugeSample,
    SpecCounters,
    StreamRecord,
)
from specscope.stats.cells import summarize_cell
from specscope.stats.summary import CellSummary
from specscope.store import Run
from specscope.workload.prompt import Prompt

if TYPE_CHECKING:
    from specscope.client.metrics import MetricsKinds
    from specscope.client.settings import ClientSettings

__all__ = ["BenchProgress", "ConfigRun", "Tally", "cache_salt", "pack_name", "run_cells"]


IDLE_WAIT_S = 5.0
# The warm-up of a server's later cells of a workload (:func:`measure_cell`): ~30 prompt tokens with a chat
# template, so it costs ~0.3 s of one-thread prefill on the embedded engine where the prose pack's warm-up (~80
# tokens) costs ~0.7 s; its ``warmup_max_tokens`` decode steps read every weight (and the draft model's) again.
# Shares no prefix with any pack prompt; it asks for a long answer, so the decode runs all ``warmup_max_tokens`` steps
# (a one-word reply ended at EOS after 7 of 8).
SHORT_WARMUP = Prompt(
    "short-warmup", "warmup", [{"role": "user", "content": "Warm-up, not measured: count from one to fifty in words."}],
    meta={"warmup": True},
)  # fmt: skip


@dataclass
class BenchProgress:
    """What a progress display needs after each cell: counts, the cell, run totals (tokens, s since the start),
    ``cell_s`` (s since the previous cell ended, warm-up and scrapes included), the cells left per config and
    ``label``, the cell as a person reads it (:func:`specscope.bench.openloop_cell.cell_label`; "": ``key.label()``)."""

    done: int
    total: int
    key: CellKey
    summary: CellSummary
    #: the run's rated output tokens so far (:attr:`CellSummary.rated_output_tokens`: failed streams' usage left out)
    total_output_tokens: int
    elapsed_s: float
    cell_s: float = 0.0
    left_by_config: dict[str, int] = field(default_factory=dict)
    label: str = ""

    def cell_label(self) -> str:
        """The cell's name in progress output (``base/prose/2req/s/r0`` in a rate run)."""
        return self.label or self.key.label()


def cache_salt(run_name: str, key: CellKey, prompt_id: str) -> str:
    """A per-request prefix-cache salt: 32 hex characters (vLLM accepts at most 128 and no '@', '/', '\\')."""
    return hashlib.sha256(f"{run_name}|{key.label()}|{prompt_id}".encode()).hexdigest()[:32]


def pack_name(workload: str, edit_form: str) -> str:
    """The prompt pack behind a workload name: ``edit`` is the pre-filled pack when ``edit_form == "prefill"``."""
    return "edit-prefill" if workload == "edit" and edit_form == "prefill" else workload


class BenchServer(ServerTarget, Protocol):
    """What a cell needs of a running server: a target of :mod:`specscope.bench.targets` and its request dialect."""

    server_kind: str


@dataclass
class Tally:
    """Running totals behind the progress callback (counts of cells; ``tokens``: the cells' rated output tokens,
    :attr:`CellSummary.rated_output_tokens`, as the rates count them; ``t0_ns`` is perf_counter_ns)."""

    on_cell: Callable[[BenchProgress], None] | None
    total: int
    done: int
    t0_ns: int
    tokens: int
    left: dict[str, int] = field(default_factory=dict)
    last_ns: int = 0
    label_of: Callable[[CellKey], str] | None = None

    def add(self, key: CellKey, summary: CellSummary) -> None:
        self.done += 1
        self.tokens += summary.rated_output_tokens  # what the rates count: not the failed streams' usage
        self.left[key.config] = max(0, self.left.get(key.config, 0) - 1)
        now = time.perf_counter_ns()
        cell_s = (now - (self.last_ns or self.t0_ns)) / 1e9
        self.last_ns = now
        if self.on_cell is not None:
            elapsed_s = (now - self.t0_ns) / 1e9
            label = self.label_of(key) if self.label_of is not None else ""
            self.on_cell(
                BenchProgress(
                    self.done, self.total, key, summary, self.tokens, elapsed_s, cell_s, dict(self.left), label
                )
            )


def _metrics_kinds() -> MetricsKinds:
    from specscope.client.metrics import MetricsKinds

    return MetricsKinds()


@dataclass(frozen=True)
class ConfigRun:
    """Everything the cells of one config share: the run, its server, the matrix options and the tallies."""

    run: Run
    server: BenchServer
    options: BenchOptions
    settings: ClientSettings
    tally: Tally
    warmed: set[tuple[str, str]] = field(default_factory=set)  # (server URL, workload) that had a full warm-up
    history: ClientHistory = field(default_factory=ClientHistory)
    restart: Restart | None = None  # starts a fresh server of the config (crash trials); None: it cannot be
    kinds: MetricsKinds = field(default_factory=_metrics_kinds)  # each /metrics URL's first kind


def chat_body(c: ConfigRun, key: CellKey, prompt: Any, max_tokens: int) -> dict[str, Any]:
    """The chat-completions body of one request of cell ``key`` (cache salt per cell and prompt when defeating)."""
    from specscope.bench.workloads import cell_request
    from specscope.workload import chat_request

    o = c.options
    salt = cache_salt(c.run.path.name, key, prompt.prompt_id) if o.prefix_cache == "defeat" else None
    return chat_request(
        prompt,
        model=c.server.model_name,
        server_kind=c.server.server_kind,
        cache_salt=salt,
        **cell_request(o, key.workload, prompt, max_tokens),
    )


async def measure_cell(c: ConfigRun, http: httpx.AsyncClient, key: CellKey, packs: Any, warm: Any) -> CellResult:
    """Warm up, scrape, run the N streams of ``key``, scrape again; a server that died gives a crashed cell.

    Warm-up: a server's first cell of a workload is preceded by ``warm``, that workload's full-shape warm-up (the
    server's cold start: first buffers, first long prefill); its later cells of the workload by :data:`SHORT_WARMUP`
    (``warmup_max_tokens`` of decode), which reads every weight again after the server sat idle while other configs
    ran. A full-shape ``edit`` warm-up is a ~900-token prefill: measured 2026-12-01 on the embedded engine (1 thread),
    11-14 s per edit cell under load ~7, as long as the cell itself; the short one takes well under a second.
    ``warmup_prompt_id`` in the cell's client facts names the one it got."""
    from specscope.bench.workload_rows import cell_prompts as cell_prompts_of
    from specscope.client import run_fixed_concurrency
    from specscope.client.gauges import GaugeSampler
    from specscope.workload.rows import row_id

    if (c.server.base_url, key.workload) in c.warmed:  # by URL: a fresh server after a crash gets a full one
        warm = SHORT_WARMUP
    c.warmed.add((c.server.base_url, key.workload))

    base = c.server.base_url
    if c.options.trace:  # a trace replay sends every row, in arrival order
        cell_prompts = list(packs[key.workload])
    else:  # a file's or dataset's rows: every row once per repeat (issue 35); a pack: one prompt per stream
        n = rate_requests(c.options, key) if c.options.rates else None  # a pack's open-loop draw; rows: all
        cell_prompts = cell_prompts_of(c.options, key.workload, key.repeat, key.concurrency, packs[key.workload], n)
    facts = ClientFacts()
    drains = getattr(c.server, "metrics_drains", None)  # what /metrics was at start: engine detection is there only
    counters = counter_source(c.options, key.config, base, IDLE_WAIT_S, drains, c.server.model_name, c.kinds)
    streams: list[StreamRecord] = []
    start_ns = end_ns = time.perf_counter_ns()
    before = after = None
    crashed = False
    gauges: tuple[GaugeSample, ...] = ()
    unread: dict[str, str] = {}
    try:
        warm_req = [(warm.prompt_id, chat_body(c, key, warm, c.options.warmup_max_tokens))]
        await run_fixed_concurrency(base, warm_req, 1, c.settings)
        before, unread = await _scrape(counters.before, http, "before")
        t0 = mark(getattr(c.server, "pid", None))
        start_ns = time.perf_counter_ns()
        reqs = [(p.prompt_id, chat_body(c, key, p, c.options.max_tokens)) for p in cell_prompts]
        # the server's running / waiting gauges, from a child process; not where /metrics drains on read (its reads
        # would take the cell's iterations from the counters)
        sampler = None if getattr(counters, "drains", False) else GaugeSampler(base)
        if sampler is not None:
            sampler.start()
        try:
            streams, check, facts = await _send(c, key, reqs, cell_prompts, start_ns)
        finally:
            gauges = await asyncio.to_thread(sampler.stop) if sampler is not None else ()
        end_ns = time.perf_counter_ns()
        client_clock = clock_facts(t0, mark(getattr(c.server, "pid", None)))
        after, unread_after = await _scrape(counters.after, http, "after")
        unread.update(unread_after)
    except SpecscopeError:
        if c.server.alive():
            raise
        crashed = True
    if crashed or not c.server.alive():
        client = ClientFacts(client_settings=c.settings.describe())
        return CellResult(
            key,
            tuple(streams),
            start_ns,
            time.perf_counter_ns(),
            before,
            None,
            client,
            True,
            (CRASH_REASON,),
            gauges=gauges,
        )
    caps = [int(b.get("max_completion_tokens") or b.get("max_tokens") or 0) for _, b in reqs]
    caps += [v for p in cell_prompts for v in p.meta.get("turn_max_tokens", ()) if v is not None]  # later turns' own
    source, flags = counters.facts((end_ns - start_ns) / 1e9)
    client = replace(  # the mode's facts (open loop, trace, conversations, client decision) and the cell's own
        facts,
        client_settings=c.settings.describe(),
        warmup_prompt_id=warm.prompt_id,
        clock=client_clock,
        max_tokens=max(caps),
        self_check=check.to_dict(),
        # a file's or dataset's rows: the ids sent, in send order
        rows_sent=tuple(row_id(p) for p in cell_prompts) if any("row_id" in p.meta for p in cell_prompts) else None,
        counter_source=source,
        metrics_unreadable=unread or None,
    )
    limited = check.limited_reason()
    reasons = ((limited,) if limited else ()) + tuple(f"METRICS_UNREADABLE({w})" for w in unread) + flags
    return CellResult(key, tuple(streams), start_ns, end_ns, before, after, client, reasons=reasons, gauges=gauges)


async def _scrape(
    read: Callable[[httpx.AsyncClient], Awaitable[SpecCounters]], http: httpx.AsyncClient, when: str
) -> tuple[SpecCounters | None, dict[str, str]]:
    """One counter scrape of a cell; a body that is not metrics text (a proxy's error page mid-run) gives the cell
    the reason ``METRICS_UNREADABLE(when)`` (``when``: ``before`` / ``after``) and no snapshot, so the cell's counter
    figures are absent and the run goes on (issue 37); what was found is in the cell's client facts. So does a scrape
    that nothing answered (a connection dropped twice, a timeout): the caller tells a crash from such a hiccup by
    asking whether the server is alive after the cell (CI 2026-12-06: a dropped scrape ended a run)."""
    try:
        return await read(http), {}
    except (MetricsUnavailable, ServerUnreachable) as exc:
        return None, {when: " ".join(f"{exc} (found: {exc.found})".split())[:300]}


async def _send(
    c: ConfigRun, key: CellKey, reqs: list[tuple[str, dict[str, Any]]], prompts: Sequence[Prompt], start_ns: int
) -> tuple[list[StreamRecord], Any, ClientFacts]:
    """Send the cell's requests as its mode says; ``(streams, client check, client facts of the mode)``: a trace
    replay (``open_loop``, ``trace``), open-loop rates (``open_loop``), conversations (``conversations``) or N
    streams at once (``client_decision``)."""
    from specscope.client import run_fixed_concurrency_checked

    if c.options.trace:
        from specscope.bench.trace_cell import run_trace_cell

        return await run_trace_cell(c.server.base_url, reqs, prompts, c.options, c.settings)
    if c.options.rates:
        streams, check, open_loop = await run_rate_cell(c.server.base_url, reqs, c.options, key, c.settings)
        return streams, check, ClientFacts(open_loop=open_loop)
    if any(p.follow_ups for p in prompts):  # conversations: turn k+1 after turn k's answer
        streams, check, conversations = await _conversations(c, key, reqs, prompts)
        return streams, check, ClientFacts(conversations=conversations)
    settings, decision = choose_settings(c.settings, key.concurrency, len(reqs), c.history)
    streams, check = await run_fixed_concurrency_checked(c.server.base_url, reqs, key.concurrency, settings)
    c.history.record(streams, time.perf_counter_ns() - start_ns, settings.workers, check.limited_reason())
    return streams, check, ClientFacts(client_decision=decision)


async def _conversations(
    c: ConfigRun, key: CellKey, reqs: Sequence[tuple[str, dict[str, Any]]], prompts: Sequence[Prompt]
) -> tuple[list[StreamRecord], Any, tuple[ConversationFacts, ...]]:
    """The cell's N conversations, ``key.concurrency`` at a time (:mod:`specscope.client.conversation`)."""
    from specscope.client.conversation import Conversation, run_conversations_checked

    convs = [
        Conversation(
            pid,
            body,
            p.follow_ups,
            bool(p.meta.get("turns_self_contained")),
            p.follow_up_messages,
            tuple(c.options.max_tokens if v is None else v for v in p.meta.get("turn_max_tokens", ())),
        )
        for (pid, body), p in zip(reqs, prompts, strict=True)
    ]
    streams, check, outcomes = await run_conversations_checked(c.server.base_url, convs, key.concurrency, c.settings)
    return streams, check, tuple(ConversationFacts(o.conv_id, o.turns_planned, o.turns_sent) for o in outcomes)


async def run_cells(
    runs: dict[str, ConfigRun], todo: Sequence[CellKey], more: Callable[[], list[CellKey]] | None = None
) -> None:
    """Measure and store ``todo`` in order, each on its config's server, then the rounds ``more`` asks for (adaptive
    repeats) until it asks for none; a server crash stores that cell and, per the run's ``crash_trials``, confirms
    it on fresh servers and goes on below its level, or skips the config's remaining cells
    (:mod:`specscope.bench.crash_trials`)."""
    from specscope.bench.workloads import prepare_workloads

    first = next(iter(runs.values()))
    o = first.options
    crashed: set[str] = set()
    queue = list(todo)
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as http:
        # prompts of an exact token length are counted with the (first) server's own tokenizer
        packs, warmups, notes = await prepare_workloads(o, lambda w: pack_name(w, o.edit_form), http, first.server)
        if notes:  # what preparing the prompts found out (trace text units, rows refused for their length)
            first.run.update_manifest(**notes)
        first.tally.last_ns = time.perf_counter_ns()  # server starts and prompt building are not a cell's time
        trials = CrashTrials(http, packs, warmups, ceilings=known_ceilings(first.run.manifest))
        with trials.stack:  # stops the servers started after a crash
            await _drain(runs, queue, more, crashed, trials)


async def _drain(
    runs: dict[str, ConfigRun],
    queue: list[CellKey],
    more: Callable[[], list[CellKey]] | None,
    crashed: set[str],
    trials: CrashTrials,
) -> None:
    """Measure and store the cells of ``queue`` (then of ``more``) in order; crashes go to ``trials``."""
    while queue:
        key = queue.pop(0)
        owner = key.config if key.config in runs else server_config(key.config)
        if owner not in crashed and trials.allows(key, runs):
            c = trials.config_run(owner, runs)
            result = await measure_cell(c, trials.http, key, trials.packs, trials.warmups[key.workload])
            c.run.save_cell(result)
            if result.crashed:
                c.run.update_manifest(crashes={**(c.run.manifest.get("crashes") or {}), owner: key.label()})
                queue, goes_on = await trials.after_crash(runs, owner, key, queue)
                if not goes_on:
                    crashed.add(owner)
            else:
                c.tally.add(key, summarize_cell(result))
        if not queue and more is not None:
            queue = [k for k in more() if server_config(k.config) not in crashed and trials.allows(k, runs)]
