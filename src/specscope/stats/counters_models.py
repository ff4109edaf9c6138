"""Figures per model of a counters delta whose series sets carry several ``model_name`` values (two servers read
through one Prometheus ``/federate`` answer, an aggregator): acceptance is a property of one target and its drafter,
so a scrape of several models gives each model's own figures and no pooled headline (issue 34).

A series set's model is its ``model_name`` label, read from its name in the delta (a selector such as
``{instance="a:8000",model_name="m"}``: :func:`specscope.records.series_labels`); a set whose name carries no
``model_name`` (an engine index, one target) has no model, and a delta with fewer than two models gives no per-model
figures. Traffic an engine does not label apart (LoRA adapters served on one base model, every request of a server
without labels) is inside its model's figure: the engine's adapter says what (``UNLABELLED_TRAFFIC``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from specscope.records import SpecCounters, series_labels
from specscope.stats.counters import INCONSISTENCIES, SERVER_SET, counter_checks, sum_counters
from specscope.stats.low_acceptance import low_acceptance_alarm

__all__ = ["model_figures", "series_alarms", "series_label", "unlabelled_traffic"]


def _models(delta: SpecCounters) -> dict[str, list[str]]:
    """model -> the names of its counted series sets (not restarted, vanished or of unknown start)."""
    out: dict[str, list[str]] = defaultdict(list)
    left_out = set(delta.reset_engines) | set(delta.vanished_engines) | set(delta.unknown_start_engines)
    for name in delta.engines:
        model = (series_labels(name) or {}).get("model_name")
        if model is not None and name not in left_out:
            out[model].append(name)
    return dict(sorted(out.items()))


def series_label(name: str) -> str:
    """``engine 0`` for a set named by its engine, ``series {k="v",...}`` for one named by its labels, ``server`` for
    a scrape's one unnamed set (:data:`~specscope.stats.counters.SERVER_SET`)."""
    if name == SERVER_SET:
        return name
    return f"series {name}" if name.startswith("{") else f"engine {name}"


def series_alarms(delta: SpecCounters, names: Sequence[str]) -> list[str]:
    """The low-acceptance rule on each of two or more series sets' own counts (``engine 1: LOW_ACCEPTANCE(...)``),
    empty for one set (its alarm is the pool's): data-parallel engines and the servers of one model each draft with
    their own head, and a pooled rate can hide one that accepts nothing (as ``serve --parse-log`` says per engine)."""
    if len(names) < 2:
        return []
    out = []
    for name in names:
        d = delta.engines[name]
        if low := low_acceptance_alarm(None, d.acceptance_rate, d.drafts):
            out.append(f"{series_label(name)}: {low}")
    return out


def model_figures(delta: SpecCounters) -> dict[str, dict[str, Any]]:
    """Per model (two or more, else empty): its series sets, counts, acceptance rate / length / per position, and the
    low-acceptance alarm on its own counts (the rule of :mod:`specscope.stats.low_acceptance`, method unknown). A
    model whose series contradict each other (:data:`~specscope.stats.counters.INCONSISTENCIES`, named under the
    reasons) is ``inconsistent``: its counts stay, its acceptance figures and alarm are absent."""
    models = _models(delta)
    if len(models) < 2:
        return {}
    out = {}
    for model, names in models.items():
        d = sum_counters([delta.engines[n] for n in names])
        # counters that contradict each other give no figure, as the one-model headline withholds its own
        bad = any(r.split("(")[0] in INCONSISTENCIES for n in names for r in counter_checks(delta.engines[n]).reasons)
        alarm = None if bad else low_acceptance_alarm(None, d.acceptance_rate, d.drafts)
        alarms = [alarm] if alarm else [] if bad else series_alarms(delta, names)
        out[model] = {
            "series": names,
            "drafts": d.drafts,
            "draft_tokens": d.draft_tokens,
            "accepted_tokens": d.accepted_tokens,
            "generation_tokens": d.generation_tokens,
            "inconsistent": bad,
            "acceptance_rate": None if bad else d.acceptance_rate,
            "acceptance_length": None if bad else d.acceptance_length,
            "acceptance_per_position": [] if bad else list(d.acceptance_per_position),
            "alarms": alarms,
        }
    return out


def unlabelled_traffic(engine_kind: str | None, caveats: Sequence[str] = (), drained: bool = False) -> str | None:
    """What an engine counts inside one series set without labelling it apart (its adapter's ``UNLABELLED_TRAFFIC``;
    for a pair of drained JSON bodies, ``drained``, its ``DRAINED_UNLABELLED_TRAFFIC`` where it has one: that format
    has no labels), or None (no adapter, or it says nothing). An adapter whose ``UNLABELLED_TRAFFIC_SIGN`` names the
    caveat that shows such traffic (``LORA_ADAPTERS``: a LoRA gauge in the scrape) says it only when ``caveats`` (the
    scrapes') hold that caveat: no sign of LoRA adapters, no word about them."""
    from specscope.adapters.names import adapter_metrics

    module = next((m for e, m in adapter_metrics() if e == engine_kind), None)
    sign = getattr(module, "UNLABELLED_TRAFFIC_SIGN", None)
    if sign is not None and not any(c.startswith(f"{sign}(") for c in caveats):
        return None
    own = getattr(module, "DRAINED_UNLABELLED_TRAFFIC", None) if drained else None
    return own or getattr(module, "UNLABELLED_TRAFFIC", None)
