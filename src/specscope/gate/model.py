"""Records of the gate suite: a probe (what we ask), its output (what the server said), a check (the verdict).

Frozen dataclasses, converted to plain dicts for ``gate.json``. Token counts come from the server
(``usage``, ``/tokenize``), never from counting stream chunks.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from specscope.errors import ConfigError

__all__ = [
    "GATES",
    "check_gate",
    "Probe",
    "ProbeOutput",
    "Check",
    "ProbeResult",
    "Comparison",
    "GateVerdict",
    "GateRun",
]

#: Gate names in report order (issue 7's list; ``compare`` is the base-vs-speculative comparison).
GATES: tuple[str, ...] = ("thinking", "arithmetic", "code", "tool_call", "long_context", "repetition", "compare")


def check_gate(name: str) -> str:
    """``name`` when it is a gate (``--gate NAME``).

    Raises:
        ConfigError: ``invalid value for --gate`` (the one wording of a value outside an option's choices).
    """
    if name not in GATES:
        raise ConfigError.invalid_value("--gate", name, f"one of {', '.join(GATES)}", choices=GATES)
    return name


@dataclass(frozen=True, slots=True)
class Probe:
    """One prompt of a gate.

    Attributes:
        gate: one of :data:`GATES`.
        id: stable id, e.g. ``"thinking-17x19"``.
        messages: OpenAI chat messages sent as-is.
        expected: what the checker needs (``answer``, ``function``, ``tests``, ``tool``, ``arguments``...).
        extra: extra request fields (``tools``, ``tool_choice``, ``chat_template_kwargs``).
    """

    gate: str
    id: str
    messages: tuple[dict[str, Any], ...]
    expected: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ProbeOutput:
    """What a server answered to one probe request.

    Attributes:
        text: the ``content`` of the answer (may still hold an inline ``<think>`` block).
        reasoning_text: the separate ``reasoning`` / ``reasoning_content`` field, ``""`` when absent.
        output_tokens: ``usage.completion_tokens`` (includes reasoning tokens); ``None`` without usage.
        prompt_tokens: ``usage.prompt_tokens``; ``None`` without usage.
        finish_reason: ``stop``, ``length``, ``tool_calls``... or ``None``.
        tool_calls: the raw ``message.tool_calls`` list.
        tokens: the generated token strings from ``logprobs.content`` when the server returned them.
        reasoning_tokens: thinking length in tokens, ``None`` when it could not be counted.
        reasoning_tokens_source: ``usage_details``, ``tokenize``, ``all_output``, ``none`` or ``unknown``.
        http_status: HTTP status, ``None`` when no response arrived.
        error: why the request failed (``None`` when it did not).
        elapsed_ns: wall time of the request (``perf_counter_ns`` difference), ns.
    """

    text: str = ""
    reasoning_text: str = ""
    output_tokens: int | None = None
    prompt_tokens: int | None = None
    finish_reason: str | None = None
    tool_calls: tuple[dict[str, Any], ...] = ()
    tokens: tuple[str, ...] | None = None
    reasoning_tokens: int | None = None
    reasoning_tokens_source: str = "unknown"
    http_status: int | None = None
    error: str | None = None
    elapsed_ns: int = 0


@dataclass(frozen=True, slots=True)
class Check:
    """A checker's verdict: ``passed``, a one-line ``why`` and the numbers it looked at (units in keys)."""

    passed: bool
    why: str
    metrics: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """One probe run against one config: the request, the full output and the verdict."""

    config: str
    gate: str
    probe_id: str
    request: dict[str, Any]
    output: ProbeOutput
    check: Check

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["output"]["tool_calls"] = list(self.output.tool_calls)
        d["output"]["tokens"] = None if self.output.tokens is None else list(self.output.tokens)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ProbeResult:
        out = dict(d["output"])
        out["tool_calls"] = tuple(out.get("tool_calls") or ())
        out["tokens"] = None if out.get("tokens") is None else tuple(out["tokens"])
        return cls(
            config=d["config"],
            gate=d["gate"],
            probe_id=d["probe_id"],
            request=d["request"],
            output=ProbeOutput(**out),
            check=Check(**d["check"]),
        )


@dataclass(frozen=True, slots=True)
class Comparison:
    """The same greedy prompt on a baseline config and a speculative config.

    Attributes:
        probe_id: the compare probe.
        base_config / spec_config: the two config names.
        identical: the two generated sequences are the same.
        first_divergence: index of the first differing token (or character), ``None`` when identical.
        unit: ``"tokens"`` when both servers returned logprob tokens, else ``"chars"``.
        base_answer / spec_answer: the extracted final numbers (strings), ``None`` when absent.
        same_answer: both answers were found and are equal (the semantic match), or the outputs are identical.
        expected_answer: the right answer, for the report.
        base_at / spec_at: what each output holds at ``first_divergence`` (the token, or up to 8 characters;
            ``""`` past the end of the shorter one), ``None`` when identical.
        error: ``"<config>: <error>"`` when a request failed, so nothing was compared (``first_divergence`` ``None``).
    """

    probe_id: str
    base_config: str
    spec_config: str
    identical: bool
    first_divergence: int | None
    unit: str
    base_answer: str | None
    spec_answer: str | None
    same_answer: bool
    expected_answer: str | None = None
    base_at: str | None = None
    spec_at: str | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class GateVerdict:
    """One gate on one config (or, for ``compare``, one config pair): counts and the pass/fail decision."""

    gate: str
    config: str
    passed_probes: int
    total_probes: int
    passed: bool
    why: str
    metrics: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class GateRun:
    """A whole gate run: configs, per-probe results, base-vs-spec comparisons and verdicts."""

    configs: tuple[dict[str, Any], ...]
    results: tuple[ProbeResult, ...]
    comparisons: tuple[Comparison, ...]
    verdicts: tuple[GateVerdict, ...]
    profile: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """True when every gate verdict passed (and there was at least one)."""
        return bool(self.verdicts) and all(v.passed for v in self.verdicts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "configs": list(self.configs),
            "verdicts": [v.to_dict() for v in self.verdicts],
            "comparisons": [c.to_dict() for c in self.comparisons],
            "results": [r.to_dict() for r in self.results],
            "profile": self.profile,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GateRun:
        return cls(
            configs=tuple(d.get("configs") or ()),
            results=tuple(ProbeResult.from_dict(r) for r in d.get("results") or ()),
            comparisons=tuple(Comparison(**c) for c in d.get("comparisons") or ()),
            verdicts=tuple(GateVerdict(**v) for v in d.get("verdicts") or ()),
            profile=d.get("profile") or {},
        )
