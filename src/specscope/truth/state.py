"""The ground-truth server's state: the script, exact speculative-decoding counters per ``engine`` label and the
served-truth log; it is also the ``prometheus_client`` collector that ``GET /metrics`` renders (vLLM names with
``engine`` and ``model_name`` labels, or llama.cpp names without labels)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterator
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

from specscope.truth.drained import DrainedLogs
from specscope.truth.script import ResponsePlan, TruthScript
from specscope.truth.spec_shapes import sglang_families, trtllm_families

__all__ = ["TruthState"]


class TruthState:
    """Counters, the script and the served-truth log of one server process.

    ``created[engine]`` is the engine's counter creation time (Unix s, exposed as ``*_created`` when the
    script's ``metrics.created`` is set); resetting one engine moves it, as a restarted vLLM engine does.
    ``running[engine]`` / ``waiting[engine]`` are the responses generating / waiting for a slot (the script's
    ``max_running`` cap, first in first out: :meth:`acquire`, :meth:`release`); resets leave them alone.
    """

    def __init__(self, script: TruthScript):
        self.script = script
        self.log: list[dict[str, Any]] = []
        self.path_requests: dict[str, int] = {}  # requests seen per path (the script's ``garbage`` numbers)
        self.vocab: dict[str, int] = {}  # /tokenize: one token per whitespace-separated word, ids in first-seen order
        self.n_requests = 0
        self.chunks_sent = 0
        self.in_flight = 0  # chat requests being served now (the script's crash_above_running)
        self.counters: dict[str, dict[str, Any]] = {}
        self.running: dict[str, int] = {}
        self.waiting: dict[str, int] = {}
        self._queues: dict[str, deque[asyncio.Future[None]]] = {}
        self.epochs: dict[str, int] = {}
        self.queue: dict[str, tuple[float, int]] = {}  # per engine: (sum of queue times s, finished responses)
        self.created: dict[str, float] = {}
        self.births: dict[str, int] = {}
        self.drained = DrainedLogs()  # the drain-on-read endpoints (``/metrics`` style ``trtllm_json``)
        self.reset_counters()

    def reset_counters(self, engine: str | None = None) -> None:
        """All counters to 0 (``engine=None``), or only that engine's, as if it alone had restarted.

        The engine's gauges start again at 0 too, as after a real restart: responses still in flight or waiting
        stop counting (their slot is no longer the engine's; an epoch number keeps their end from driving a gauge
        below 0), and waiting ones go on at once (issue 17: gauges stay consistent across resets)."""
        names = list(self.counters) if engine is None else [engine]
        if engine is None:
            self.counters, self.created, self.queue = {}, {}, {}
        else:
            self.counters.pop(engine, None)
            self.queue.pop(engine, None)
        for e in names:
            self.epochs[e] = self.epochs.get(e, 0) + 1
            self.running[e] = self.waiting[e] = 0
            for fut in self._queues.pop(e, deque()):
                if not fut.done():
                    fut.set_result(None)
        for e in self.script.metrics.engines if engine is None else [engine]:
            self.engine(e)

    def engine(self, name: str) -> dict[str, Any]:
        if name not in self.counters:
            self.counters[name] = {
                "drafts": 0,
                "draft_tokens": 0,
                "accepted": 0,
                "per_pos": [],
                "generation": 0,
                "prompt": 0,
            }
            self.running.setdefault(name, 0)
            self.waiting.setdefault(name, 0)
            self.births[name] = self.births.get(name, -1) + 1  # each restart moves created by 1000 s
            self.created[name] = self.script.metrics.created_s + 1000.0 * self.births[name]
        return self.counters[name]

    async def acquire(self, engine: str) -> tuple[bool, int]:
        """Take a generation slot of ``engine``, waiting first in first out while ``max_running`` are taken.

        Returns:
            ``(waited, epoch)``: whether the response had to wait (its timings then start now, not at its
            arrival), and the engine's reset epoch to hand back to :meth:`release`.
        """
        self.engine(engine)
        epoch = self.epochs.setdefault(engine, 0)
        cap = self.script.max_running
        queue = self._queues.setdefault(engine, deque())
        if cap is None or (self.running[engine] < cap and not queue):
            self.running[engine] += 1
            return False, epoch
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue.append(fut)
        self.waiting[engine] += 1
        try:
            await fut  # release() hands its slot over: running stays as it is
        except asyncio.CancelledError:
            if fut in queue:
                queue.remove(fut)
            elif fut.done() and not fut.cancelled():
                self.release(engine, epoch)  # handed a slot while being cancelled: pass it on
            raise
        finally:
            if self.epochs[engine] == epoch:
                self.waiting[engine] -= 1
        return True, epoch

    def release(self, engine: str, epoch: int) -> None:
        """Give ``engine``'s slot to the first waiting response, or free it (a slot of an epoch before the
        engine's last reset is not counted any more)."""
        if self.epochs.get(engine, 0) != epoch:
            return
        queue = self._queues.get(engine) or deque()
        while queue:
            fut = queue.popleft()
            if not fut.done():
                fut.set_result(None)
                return
        self.running[engine] -= 1

    def add(self, plan: ResponsePlan, output_tokens: int, request_id: str = "") -> None:
        c = self.engine(plan.engine)
        gauges = (sum(self.running.values()), sum(self.waiting.values()))
        self.drained.record(request_id, plan.drafts, plan.draft_tokens, sum(plan.accepted_per_position), gauges)
        c["drafts"] += plan.drafts
        c["draft_tokens"] += plan.draft_tokens
        c["accepted"] += sum(plan.accepted_per_position)
        pp = c["per_pos"]
        pp.extend([0] * (len(plan.accepted_per_position) - len(pp)))
        for i, a in enumerate(plan.accepted_per_position):
            pp[i] += a
        c["generation"] += output_tokens
        c["prompt"] += plan.prompt_tokens

    def observe_queue(self, engine: str, queue_s: float) -> None:
        """A finished response waited ``queue_s`` seconds for its slot (vLLM's ``request_queue_time_seconds``)."""
        total, n = self.queue.get(engine, (0.0, 0))
        self.queue[engine] = (total + queue_s, n + 1)

    def _queue_family(self) -> HistogramMetricFamily:
        """``vllm:request_queue_time_seconds`` per engine: one ``+Inf`` bucket, its sum (s) and count."""
        m = self.script.metrics
        fam = HistogramMetricFamily(
            "vllm:request_queue_time_seconds", "truth: queue time of finished requests", labels=["engine", "model_name"]
        )
        for e in sorted(self.counters):
            total, n = self.queue.get(e, (0.0, 0))
            fam.add_metric([e, m.model_name], [("+Inf", n)], total)
        return fam

    # -- prometheus_client collector protocol
    def collect(self) -> Iterator[Any]:
        m = self.script.metrics
        if m.style in ("sglang", "sglang_gauges"):
            yield from sglang_families(
                self.counters, (self.running, self.waiting), m.model_name, verify=m.style == "sglang"
            )
            return
        if m.style == "trtllm":
            yield from trtllm_families(self.counters, (self.running, self.waiting), m.model_name)
            return
        if m.style == "vllm":
            p, lab = "vllm:", ["engine", "model_name"]
            names = {
                "drafts": "spec_decode_num_drafts",
                "draft_tokens": "spec_decode_num_draft_tokens",
                "accepted": "spec_decode_num_accepted_tokens",
                "generation": "generation_tokens",
                "prompt": "prompt_tokens",
            }
            gauges = {"running": "num_requests_running", "waiting": "num_requests_waiting"}
        else:
            p, lab = "llamacpp:", []
            names = {
                "drafts": "spec_decode_num_drafts",
                "draft_tokens": "spec_decode_num_draft_tokens",
                "accepted": "spec_decode_num_accepted_tokens",
                "generation": "tokens_predicted",
                "prompt": "prompt_tokens",
            }
            gauges = {"running": "requests_processing", "waiting": "requests_deferred"}
        engines = sorted(self.counters)
        for key, name in names.items():
            fam = CounterMetricFamily(p + name, f"truth: {key}", labels=lab)
            if lab:
                for e in engines:
                    created = self.created[e] if m.created else None
                    fam.add_metric([e, m.model_name], self.counters[e][key], created=created)
            else:
                fam.add_metric([], sum(self.counters[e][key] for e in engines))
            yield fam
        if m.per_position:
            fam = CounterMetricFamily(
                p + "spec_decode_num_accepted_tokens_per_pos", "truth: per position", labels=lab + ["position"]
            )
            for e in engines:
                for i, v in enumerate(self.counters[e]["per_pos"]):
                    fam.add_metric(([e, m.model_name] if lab else []) + [str(i)], v)
            yield fam
        for key, name in gauges.items():
            gauge = GaugeMetricFamily(p + name, f"truth: {key}", labels=lab)
            vals = {e: (self.running if key == "running" else self.waiting).get(e, 0) for e in engines}
            if lab:
                for e in engines:
                    gauge.add_metric([e, m.model_name], vals[e])
            else:
                gauge.add_metric([], sum(vals.values()))
            yield gauge
        if m.style == "vllm":
            yield self._queue_family()
