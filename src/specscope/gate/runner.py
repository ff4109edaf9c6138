"""Run the gate suite against one or more server configs and decide every gate.

Flow: for each target config, send every probe of every enabled gate (greedy, the profile's budgets), count
thinking tokens, check each output with :mod:`specscope.gate.checks`; with two or more targets, send the
``compare`` probes to each (with logprobs) and compare every later target with the first (the baseline).
Gate verdicts use the profile's ``min_pass_fraction`` (and, for ``compare``, the identical / same-answer
fractions) following seed 002's P2 gate table.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from specscope.gate import checks
from specscope.gate.backend import ChatBackend, HttpxChat
from specscope.gate.model import GATES, Check, Comparison, GateRun, GateVerdict, Probe, ProbeOutput, ProbeResult
from specscope.gate.probes import DEFAULT_CHARS_PER_TOKEN, load_suite
from specscope.gate.profile import GateProfile
from specscope.stats.timeline import mean

__all__ = ["Target", "build_request", "check_output", "decide", "run_gate_suite"]


@dataclass(frozen=True, slots=True)
class Target:
    """One server config to gate: a display name, its base URL and (optionally) the model to ask for.

    ``launch``, when given, starts the server only while this target is gated (one server at a time, as
    for vLLM recipes that each take most of the accelerator): a callable returning a context manager that
    yields ``(base_url, model)``; ``base_url`` may then be empty.
    """

    name: str
    base_url: str = ""
    model: str | None = None
    launch: Callable[[], AbstractContextManager[tuple[str, str]]] | None = None


def build_request(probe: Probe, model: str, profile: GateProfile, *, logprobs: bool = False) -> dict[str, Any]:
    """The chat-completions body for ``probe``: greedy, non-streaming, the gate's ``max_tokens``."""
    section = profile.section(probe.gate)
    req: dict[str, Any] = {
        "model": model,
        "messages": [dict(m) for m in probe.messages],
        "max_tokens": section.max_tokens,
        "temperature": profile.request.temperature,
        "stream": False,
    }
    if profile.request.seed is not None:
        req["seed"] = profile.request.seed
    if logprobs:
        req["logprobs"] = True
    req.update(probe.extra)
    return req


def check_output(probe: Probe, out: ProbeOutput, profile: GateProfile) -> Check:
    """Dispatch ``out`` to the checker of ``probe.gate`` with the profile's thresholds; a failing output cut
    with finish ``length`` says which limit cut it (:func:`checks.length_cause`), except on the repetition gate,
    whose prose is meant to run to its budget (seed 003)."""
    check = _check(probe, out, profile)
    cause = checks.length_cause(out, profile.section(probe.gate).max_tokens)
    if check.passed or cause is None or "cut by" in check.why or probe.gate == "repetition":
        return check
    return Check(False, f"{check.why} (output {cause})", check.metrics)


def _check(probe: Probe, out: ProbeOutput, profile: GateProfile) -> Check:
    exp = probe.expected
    max_tokens = profile.section(probe.gate).max_tokens
    if probe.gate == "thinking":
        return checks.check_thinking(
            out, exp["answer"], require_reasoning=profile.thinking.require_reasoning, max_tokens=max_tokens
        )
    if probe.gate in ("arithmetic", "compare"):
        return checks.check_arithmetic(out, exp["answer"], max_tokens=max_tokens)
    if probe.gate == "code":
        return checks.check_code(out, exp["function"], exp["tests"], timeout_s=profile.code.timeout_s)
    if probe.gate == "tool_call":
        return checks.check_tool_call(out, exp["tool_definition"], exp["arguments"])
    if probe.gate == "long_context":
        return checks.check_long_context(out, exp["answer"])
    if probe.gate == "repetition":
        r = profile.repetition
        return checks.check_repetition(
            out,
            n=r.n,
            max_repeated_ngram_count=r.max_repeated_ngram_count,
            min_unique_word_ratio=r.min_unique_word_ratio,
        )
    raise ValueError(f"no checker for gate {probe.gate!r}")


def _with_reasoning_tokens(out: ProbeOutput, backend: ChatBackend, base_url: str, model: str) -> ProbeOutput:
    """Fill ``reasoning_tokens`` when the server did not report them."""
    from dataclasses import replace

    if out.reasoning_tokens is not None:
        return out
    reasoning, answer, closed = checks.final_content(out)
    if closed is None or not reasoning:
        return replace(out, reasoning_tokens=0, reasoning_tokens_source="none")
    if not answer.strip() and out.output_tokens is not None:  # the whole output is thinking
        return replace(out, reasoning_tokens=out.output_tokens, reasoning_tokens_source="all_output")
    n = backend.count_tokens(base_url, model, reasoning)
    if n is None:
        return out
    return replace(out, reasoning_tokens=n, reasoning_tokens_source="tokenize")


def decide(
    results: Sequence[ProbeResult], comparisons: Sequence[Comparison], profile: GateProfile
) -> list[GateVerdict]:
    """Gate verdicts: one per (gate, config) present in ``results`` (``compare`` probes excluded) and one
    per compared config pair.

    A gate passes when at least ``min_pass_fraction`` of its probes passed (and it had probes). The compare
    gate passes when the identical-sequence and same-answer fractions reach their minimums and every request was
    answered; at temperature > 0 it is not judged (``metrics["judged"]`` False: samples may differ by chance).
    """
    verdicts: list[GateVerdict] = []
    configs = list(dict.fromkeys(r.config for r in results))
    for gate in GATES:
        if gate == "compare":
            continue
        for cfg in configs:
            rs = [r for r in results if r.gate == gate and r.config == cfg]
            if not rs:
                continue
            ok = sum(r.check.passed for r in rs)
            need = profile.section(gate).min_pass_fraction
            passed = ok / len(rs) >= need
            metrics: dict[str, Any] = {}
            if gate == "thinking":
                metrics["thinking_tokens"] = {r.probe_id: r.output.reasoning_tokens for r in rs}
            if gate == "repetition":
                ratios = [r.check.metrics.get("unique_word_ratio") for r in rs]
                metrics["mean_unique_word_ratio"] = mean(ratios)
                metrics["max_repeated_ngram_count"] = max(
                    r.check.metrics.get("max_repeated_ngram_count", 0) for r in rs
                )
            if gate == "long_context":
                metrics["prompt_tokens"] = rs[0].output.prompt_tokens
            why = f"{ok}/{len(rs)} passed" + ("" if passed else f" (need {need:.0%})")
            failing = [r for r in rs if not r.check.passed]
            if failing:
                why += f"; {failing[0].probe_id}: {failing[0].check.why}"
            verdicts.append(GateVerdict(gate, cfg, ok, len(rs), passed, why, metrics))
    pairs = list(dict.fromkeys((c.base_config, c.spec_config) for c in comparisons))
    for base, spec in pairs:
        cs = [c for c in comparisons if (c.base_config, c.spec_config) == (base, spec)]
        identical = sum(c.identical for c in cs)
        same = sum(c.same_answer for c in cs)
        p = profile.compare
        counts = f"{identical}/{len(cs)} identical sequences, {same}/{len(cs)} same answer"
        cmetrics: dict[str, Any] = {"identical": identical, "same_answer": same, "total": len(cs), "judged": True}
        temperature = profile.request.temperature
        failed = [c for c in cs if c.error is not None]
        if temperature > 0 and not failed:
            # speculation keeps the distribution, not the sample: two samples that differ are no evidence of a bug
            passed, cmetrics["judged"] = True, False
            why = (
                f"sampled at temperature {temperature:g}, so base and speculative outputs may differ by chance "
                f"({counts}); set [request] temperature = 0 to compare"
            )
        else:
            passed = (
                not failed
                and identical / len(cs) >= p.min_identical_fraction
                and same / len(cs) >= p.min_same_answer_fraction
            )
            why = counts
            if failed:
                why += f"; {failed[0].probe_id} not compared ({failed[0].error})"
            changed = [c for c in cs if not c.same_answer and c.error is None and (c.base_answer or c.spec_answer)]
            if changed:
                ch = changed[0]
                answers = f"{base} {ch.base_answer or 'none'}, {spec} {ch.spec_answer or 'none'}"
                why += f"; answer changed on {ch.probe_id} ({answers})"
            diverged = [c for c in cs if c.first_divergence is not None]
            if diverged:
                d = diverged[0]
                why += f"; first divergence {d.probe_id} at {d.unit[:-1]} {d.first_divergence}"
                if d.base_at is not None and d.spec_at is not None:
                    why += f" ({base} {d.base_at!r}, {spec} {d.spec_at!r})"
            if passed:  # what a pass rests on: the probes go one at a time
                why += f"; {SEQUENTIAL_ONLY}"
        verdicts.append(
            GateVerdict(
                "compare",
                f"{base} vs {spec}",
                same,
                len(cs),
                passed,
                why,
                cmetrics,
            )
        )
    return verdicts


#: the conditions a passed base-vs-speculative comparison rests on (the suite sends its probes one at a time)
SEQUENTIAL_ONLY = (
    "probed one request at a time: outputs that change only under concurrent batching or a prefix-cache hit are not "
    "probed"
)


def run_gate_suite(
    targets: Sequence[Target],
    profile: GateProfile | None = None,
    *,
    gates: list[str] | None = None,
    backend: ChatBackend | None = None,
    on_result: Callable[[ProbeResult], None] | None = None,
    api_key: str | None = None,
) -> GateRun:
    """Run every enabled gate against every target and decide.

    Args:
        targets: configs to gate; the first is the baseline of the ``compare`` gate (which needs two or more).
        profile: thresholds and budgets (default: the packaged profile).
        gates: only these gates (``None``: every enabled gate).
        backend: the transport (default :class:`HttpxChat` with the profile's request timeout).
        on_result: called after each probe (progress display).
        api_key: the bearer token of the default backend (never stored).

    Returns:
        :class:`GateRun` with per-probe records, comparisons and verdicts.

    Raises:
        ServerUnreachable: a target's ``/v1/models`` does not answer (only when its model is not given); a target
            with no ``launch`` is asked before the first probe.
        ConfigError: an unknown gate name.
    """
    profile = profile or GateProfile()
    own = backend is None
    backend = backend or HttpxChat(timeout_s=profile.request.timeout_s, api_key=api_key)
    try:
        models: dict[str, str] = {}
        urls: dict[str, str] = {}
        suite: dict[str, list[Probe]] | None = None
        results: list[ProbeResult] = []
        compare_outputs: dict[str, dict[str, ProbeOutput]] = {}
        # every server already up is asked before the first probe: a wrong second URL is not found after the baseline
        known = {t.name: t.model or backend.model_name(t.base_url) for t in targets if t.launch is None}
        for t in targets:
            live = t.launch() if t.launch is not None else contextlib.nullcontext((t.base_url, known[t.name]))
            with live as (base_url, model):
                model = model or backend.model_name(base_url)
                models[t.name], urls[t.name] = model, base_url
                if suite is None:  # size the long-context filler with the first server's tokenizer when it has one
                    cpt = DEFAULT_CHARS_PER_TOKEN
                    if "long_context" in load_suite(profile, gates):
                        sample = load_suite(profile, ["long_context"], cpt)["long_context"][0].messages[0]["content"]
                        n = backend.count_tokens(base_url, model, sample)
                        if n:
                            cpt = len(sample) / n
                    suite = load_suite(profile, gates, cpt)
                for gate, probes in suite.items():
                    if gate == "compare" and len(targets) < 2:
                        continue
                    for probe in probes:
                        req = build_request(probe, model, profile, logprobs=(gate == "compare"))
                        out = backend.complete(base_url, req)
                        if gate == "thinking" and out.error is None:
                            out = _with_reasoning_tokens(out, backend, base_url, model)
                        if gate == "compare":
                            compare_outputs.setdefault(probe.id, {})[t.name] = out
                        res = ProbeResult(t.name, gate, probe.id, req, out, check_output(probe, out, profile))
                        results.append(res)
                        if on_result:
                            on_result(res)
        suite = suite or {}
        comparisons: list[Comparison] = []
        if len(targets) >= 2:
            base = targets[0].name
            for probe in suite.get("compare", []):
                outs = compare_outputs[probe.id]
                for t in targets[1:]:
                    comparisons.append(checks.compare_outputs(probe, base, outs[base], t.name, outs[t.name]))
        verdicts = decide(results, comparisons, profile)
        configs = tuple(
            {"name": t.name, "base_url": urls.get(t.name, t.base_url), "model": models.get(t.name)} for t in targets
        )
        return GateRun(configs, tuple(results), tuple(comparisons), tuple(verdicts), profile.model_dump())
    finally:
        if own:
            backend.close()  # type: ignore[attr-defined]
