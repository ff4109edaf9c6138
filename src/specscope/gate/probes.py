"""The probe suite: small data files shipped in the package (``data/*.json``, ``data/filler.txt``).

All prompts were written for specscope. Each JSON file holds one gate's probes
(``{"gate", "about", "suffix"?, "probes": [{"id", "prompt", "expected", ...}]}``); this module turns them into
:class:`~specscope.gate.model.Probe` records, applying the profile's per-gate ``limit`` and ``enabled`` and
building the long-context prompt (filler of a chosen length with a fact planted at a chosen depth).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from specscope.errors import ConfigError
from specscope.gate.model import GATES, Probe, check_gate
from specscope.gate.profile import GateProfile

__all__ = ["load_probes", "build_long_context_probe", "load_suite", "DEFAULT_CHARS_PER_TOKEN"]

#: English prose averages about 4 characters per token for common BPE tokenizers (an estimate; the
#: runner replaces it with a value measured through the server's ``/tokenize`` when it can).
DEFAULT_CHARS_PER_TOKEN = 4.0


def _data(name: str) -> str:
    return resources.files("specscope.gate").joinpath(f"data/{name}").read_text(encoding="utf-8")


def _load_file(gate: str) -> dict[str, Any]:
    check_gate(gate)
    data: dict[str, Any] = json.loads(_data(f"{gate}.json"))
    return data


def load_probes(gate: str, profile: GateProfile | None = None) -> list[Probe]:
    """The probes of one file-based gate (every gate but ``long_context``), in file order.

    Raises:
        ConfigError: ``gate`` is not a known gate.
    """
    profile = profile or GateProfile()
    doc = _load_file(gate)
    suffix = doc.get("suffix", "")
    probes = []
    for p in doc["probes"]:
        if gate == "long_context":
            raise ConfigError(
                "long_context probes are built, not loaded",
                found=gate,
                expected="build_long_context_probe()",
                fix="call build_long_context_probe",
            )
        extra: dict[str, Any] = {}
        if gate == "thinking" and profile.thinking.chat_template_kwargs:
            extra["chat_template_kwargs"] = dict(profile.thinking.chat_template_kwargs)
        if gate == "tool_call":
            extra["tools"] = p["tools"]
            extra["tool_choice"] = "auto"
        expected = dict(p.get("expected", {}))
        if gate == "tool_call":
            expected["tool_definition"] = p["tools"][0]
        messages = ({"role": "user", "content": p["prompt"] + suffix},)
        probes.append(Probe(gate=gate, id=p["id"], messages=messages, expected=expected, extra=extra))
    return probes


def build_long_context_probe(
    context_tokens: int = 8192, depth_fraction: float = 0.5, chars_per_token: float = DEFAULT_CHARS_PER_TOKEN
) -> Probe:
    """The long-context probe: filler paragraphs cycled to about ``context_tokens`` tokens, with the
    needle sentence inserted at the paragraph boundary nearest ``depth_fraction`` of the filler.

    Args:
        context_tokens: target filler length, tokens (approximate; ``usage.prompt_tokens`` is the truth).
        depth_fraction: 0.0 = the fact opens the text, 1.0 = it closes it.
        chars_per_token: characters per token used to size the filler.
    """
    spec = _load_file("long_context")["probes"][0]
    paragraphs = [p.strip() for p in _data("filler.txt").split("\n\n") if p.strip()]
    target_chars = int(context_tokens * chars_per_token)
    body: list[str] = []
    size = 0
    i = 0
    while size < target_chars:
        para = paragraphs[i % len(paragraphs)]
        body.append(para)
        size += len(para) + 2
        i += 1
    at = round(depth_fraction * len(body))  # paragraph index, 0..len(body)
    body.insert(at, spec["needle"])
    text = "Read the following text carefully.\n\n" + "\n\n".join(body) + "\n\n" + spec["question"]
    expected = dict(spec["expected"])
    expected.update(
        {
            "context_tokens": context_tokens,
            "depth_fraction": depth_fraction,
            "needle_paragraph": at,
            "paragraphs": len(body),
        }
    )
    return Probe(gate="long_context", id=spec["id"], messages=({"role": "user", "content": text},), expected=expected)


def load_suite(
    profile: GateProfile, gates: list[str] | None = None, chars_per_token: float = DEFAULT_CHARS_PER_TOKEN
) -> dict[str, list[Probe]]:
    """Every enabled gate's probes (``compare`` included), limited by each section's ``limit``.

    Args:
        gates: run only these gates (``None``: every enabled gate).

    Raises:
        ConfigError: an unknown gate name.
    """
    for g in gates or ():
        check_gate(g)
    suite: dict[str, list[Probe]] = {}
    for gate in GATES:
        section = profile.section(gate)
        if (gates is not None and gate not in gates) or (gates is None and not section.enabled):
            continue
        if gate == "long_context":
            lc = profile.long_context
            probes = [build_long_context_probe(lc.context_tokens, lc.depth_fraction, chars_per_token)]
        else:
            probes = load_probes(gate, profile)
        suite[gate] = probes[: section.limit] if section.limit else probes
    return suite
