"""The ground-truth server's state: the script, exact speculative-decoding counters per ``engine`` label and the
served-truth log; it is also the ``prometheus_client`` collector that ``GET /metrics`` renders (vLLM names with
``engine`` and ``model_name`` labels, or llama.cpp names without labels)."""

from __future__ import annotations

from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from specscope.truth.script import ResponsePlan, TruthScript
from specscope.truth.spec_shapes import sglang_families

__all__ = ["TruthState"]


class TruthState:
    """Counters, the script and the served-truth log of one server process.

    ``created[engine]`` is the engine's counter creation time (Unix s, exposed as ``*_created`` when the
    script's ``metrics.created`` is set); resetting one engine moves it, as a restarted vLLM engine does.
    """

    def __init__(self, script: TruthScript):
        self.script = script
        self.log: list[dict[str, Any]] = []
        self.n_requests = 0
        self.chunks_sent = 0
        self.counters: dict[str, dict[str, Any]] = {}
        self.running: dict[str, int] = {}
        self.created: dict[str, float] = {}
        self.births: dict[str, int] = {}
        self.reset_counters()

    def reset_counters(self, engine: str | None = None) -> None:
        """All counters to 0 (``engine=None``), or only that engine's, as if it alone had restarted."""
        if engine is None:
            self.counters, self.running, self.created = {}, {}, {}
            for e in self.script.metrics.engines:
                self.engine(e)
            return
        self.counters.pop(engine, None)
        self.running.pop(engine, None)
        self.engine(engine)

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
            self.running[name] = 0
            self.births[name] = self.births.get(name, -1) + 1  # each restart moves created by 1000 s
            self.created[name] = self.script.metrics.created_s + 1000.0 * self.births[name]
        return self.counters[name]

    def add(self, plan: ResponsePlan, output_tokens: int) -> None:
        c = self.engine(plan.engine)
        c["drafts"] += plan.drafts
        c["draft_tokens"] += plan.draft_tokens
        c["accepted"] += sum(plan.accepted_per_position)
        pp = c["per_pos"]
        pp.extend([0] * (len(plan.accepted_per_position) - len(pp)))
        for i, a in enumerate(plan.accepted_per_position):
            pp[i] += a
        c["generation"] += output_tokens
        c["prompt"] += plan.prompt_tokens

    # -- prometheus_client collector protocol
    def collect(self):
        m = self.script.metrics
        if m.style == "sglang":
            yield from sglang_families(self.counters, self.running, m.model_name)
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
            fam = GaugeMetricFamily(p + name, f"truth: {key}", labels=lab)
            vals = {e: (self.running[e] if key == "running" else 0) for e in engines}
            if lab:
                for e in engines:
                    fam.add_metric([e, m.model_name], vals[e])
            else:
                fam.add_metric([], sum(vals.values()))
            yield fam
