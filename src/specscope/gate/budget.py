"""Token budgets of a gate run: the profile's ``max_tokens`` and long-context filler after the command line's
caps and, on the embedded engine, after fitting one server slot; each change comes with a one-line note that
the command prints before the first probe and stores in the run's manifest.

Why the embedded engine gets its own budgets: the packaged profile's budgets come from seed 002 (a 16,384-token
thinking budget, 8,192-token long-context filler) and seed 003 (1,500-token prose), sized for thinking models on
accelerators. The embedded engine serves SmolLM2-135M in a 4,096-token slot (``EngineConfig.ctx_per_slot_tokens``)
at about 20 output tokens/s on a busy 2-core machine: with those budgets one looping thinking probe ran 376 s
and the default ``base,ngram`` run had not finished after 9 min 40 s. :data:`EMBEDDED_MAX_TOKENS` holds what the
probes need from a model that does not think (a worked answer, a short function, one tool call, a code, a short
story), so the default run takes a few minutes; a user profile that sets a gate's ``max_tokens`` keeps it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from specscope.engine import get_config
from specscope.errors import ConfigError
from specscope.gate.model import GATES
from specscope.gate.profile import GateProfile, default_profile_text, load_profile
from specscope.readfile import SETTINGS_FILE_MAX_BYTES, read_text_limited, toml_loads
from specscope.targets import TargetPlan
from specscope.values import parse_token_count
from specscope.workload.context import MAX_CONTEXT_TOKENS

__all__ = [
    "DEFAULT_EMBEDDED_CONFIGS",
    "EMBEDDED_CONTEXT_TOKENS",
    "EMBEDDED_MAX_TOKENS",
    "SLOT_MARGIN_TOKENS",
    "GATE_MIN_CONTEXT_TOKENS",
    "budget_profile",
    "parse_gate_context_tokens",
    "run_file_text",
]

#: The embedded configs gated when ``--configs`` is not given: the baseline and one speculative method.
DEFAULT_EMBEDDED_CONFIGS = ("base", "ngram")

#: Per-gate ``max_tokens`` on the embedded engine when the user's profile does not set one, tokens.
EMBEDDED_MAX_TOKENS: dict[str, int] = {
    "thinking": 256,
    "arithmetic": 256,
    "code": 384,
    "tool_call": 128,
    "long_context": 64,
    "repetition": 256,
    "compare": 256,
}
#: Long-context filler on the embedded engine when neither ``--context-tokens`` nor the profile sets it, tokens:
#: reading a slot-filling ~3,800-token prompt took 73 s per config on a busy 2-core machine (about 50 prompt
#: tokens/s on one compute thread), 2,048 tokens about half of that.
EMBEDDED_CONTEXT_TOKENS = 2048
#: Tokens kept free in an embedded slot beside a prompt and its answer (chat template, the question), tokens.
SLOT_MARGIN_TOKENS = 256


def _user_set(path: Path | None, key: str) -> set[str]:
    """Gates whose ``key`` the user's profile file sets (the file was validated by ``load_profile``)."""
    if path is None:
        return set()
    data = toml_loads(read_text_limited(path, SETTINGS_FILE_MAX_BYTES))  # validated by load_profile already
    return {g for g in GATES if isinstance(data.get(g), dict) and key in data[g]}


def _embedded_budgets(
    prof: GateProfile, user_set: set[str], slot_tokens: int, cap: int | None
) -> tuple[dict[str, int], list[str]]:
    """Per-gate max_tokens on the embedded engine (only the changed ones, and not those that ``--max-tokens``
    ``cap`` cuts further) and the note saying so."""
    fit = slot_tokens - SLOT_MARGIN_TOKENS
    changed: dict[str, int] = {}
    for g in GATES:
        want = prof.section(g).max_tokens if g in user_set else EMBEDDED_MAX_TOKENS[g]
        want = min(want, fit)
        if want != prof.section(g).max_tokens and (cap is None or want < cap):
            changed[g] = want
    if not changed:
        return changed, []
    listed = ", ".join(f"{g} {prof.section(g).max_tokens}->{n}" for g, n in changed.items())
    return changed, [
        f"embedded engine: max_tokens per gate {listed} tokens (the profile's budgets are for thinking models; "
        f"a slot holds {slot_tokens} tokens; set [GATE] max_tokens in --run-file to change)"
    ]


def _caps(prof: GateProfile, limit: int | None, max_tokens: int | None, changed: dict[str, int]) -> list[str]:
    notes = []
    if max_tokens is not None:
        capped = [g for g in GATES if changed.get(g, prof.section(g).max_tokens) > max_tokens]
        if capped:
            notes.append(f"--max-tokens {max_tokens}: every gate's max_tokens is at most {max_tokens} tokens")
            changed.update(dict.fromkeys(capped, max_tokens))
    if limit is not None:
        notes.append(f"--limit {limit}: at most {limit} probe(s) per gate")
    return notes


#: the shortest long-context prompt the gate builds, tokens: below it the needle and its filler do not fit.
GATE_MIN_CONTEXT_TOKENS = 64


def parse_gate_context_tokens(text: str | None) -> int | None:
    """gate's ``--context-tokens`` (``8k`` = 8192) by the one token-count parser, :data:`GATE_MIN_CONTEXT_TOKENS`
    to bench's :data:`~specscope.workload.context.MAX_CONTEXT_TOKENS`; None when not given."""
    if text is None:
        return None
    bounds = (GATE_MIN_CONTEXT_TOKENS, MAX_CONTEXT_TOKENS)
    return parse_token_count(text, "--context-tokens", bounds, "8k", "no model's context is longer")


def _check_context_tokens(context_tokens: int | None) -> None:
    if context_tokens is not None and context_tokens > MAX_CONTEXT_TOKENS:  # bench's bound (parse_context)
        raise ConfigError(
            "--context-tokens takes token counts",
            found=str(context_tokens),
            expected=f"64 to {MAX_CONTEXT_TOKENS // 1024}k tokens (no model's context is longer)",
            fix="pass --context-tokens 8192",
        )


def _command_line_overrides(
    prof: GateProfile, limit: int | None, max_tokens: int | None, context_tokens: int | None, changed: dict[str, int]
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The profile overrides of the command line's caps (``--max-tokens`` over ``changed``, the gates' budgets
    changed so far, ``--limit`` on every gate) and one note per cap; ``--context-tokens`` checked (the caller applies
    it: the embedded engine may cut it to a slot)."""
    notes = _caps(prof, limit, max_tokens, changed)
    overrides: dict[str, dict[str, Any]] = {g: {"max_tokens": n} for g, n in changed.items()}
    for g in GATES if limit is not None else ():
        overrides.setdefault(g, {})["limit"] = limit
    _check_context_tokens(context_tokens)
    return overrides, notes


def run_file_text(
    path: Path | None,
    *,
    limit: int | None = None,
    max_tokens: int | None = None,
    context_tokens: int | None = None,
) -> str:
    """What ``gate --print-run-file`` prints: the packaged, commented default profile when nothing is given;
    otherwise the profile ``path`` (merged over the defaults) with the command line's caps applied, as TOML that
    ``--run-file`` reads back to the same profile. The embedded engine's budgets are not in it: they depend on
    the configs served and are applied (with a note) when the run starts.

    Raises:
        ConfigError: an invalid profile file or cap.
    """
    import tomli_w

    if path is None and limit is None and max_tokens is None and context_tokens is None:
        return default_profile_text()
    prof = load_profile(path)
    overrides, _notes = _command_line_overrides(prof, limit, max_tokens, context_tokens, {})
    if context_tokens is not None:
        overrides.setdefault("long_context", {})["context_tokens"] = context_tokens
    if overrides:
        prof = prof.with_overrides(**overrides)
    source = f"{path} merged over the default profile" if path is not None else "the default profile"
    head = f"# The gate profile of specscope: {source}, with the command line's caps; --run-file reads it back\n"
    data = {name: {k: v for k, v in section.items() if v is not None} for name, section in prof.model_dump().items()}
    return head + tomli_w.dumps(data)


def budget_profile(
    plan: TargetPlan,
    path: Path | None = None,
    *,
    limit: int | None = None,
    max_tokens: int | None = None,
    context_tokens: int | None = None,
) -> tuple[GateProfile, list[str]]:
    """The gate profile (``path`` or the packaged one) with the command line's caps and the embedded engine's
    budgets applied, and one note per change (printed at the start of the run, stored in the manifest).

    Args:
        limit: at most this many probes per gate. max_tokens: cap on every gate's ``max_tokens``, tokens.
        context_tokens: the long-context filler length, tokens. On the embedded engine the filler is also
            cut to fit one slot of the smallest configured context (slot - answer budget - 256 tokens).

    Raises:
        ConfigError: an invalid profile file.
    """
    prof = load_profile(path)
    notes: list[str] = []
    changed: dict[str, int] = {}
    slot = None
    if plan.kind == "embedded":
        slot = min(get_config(n).ctx_per_slot_tokens for n in plan.names(DEFAULT_EMBEDDED_CONFIGS))
        changed, notes = _embedded_budgets(prof, _user_set(path, "max_tokens"), slot, max_tokens)
    overrides, caps_notes = _command_line_overrides(prof, limit, max_tokens, context_tokens, changed)
    notes += caps_notes
    lc_tokens = context_tokens if context_tokens is not None else prof.long_context.context_tokens
    if slot is not None and context_tokens is None and "long_context" not in _user_set(path, "context_tokens"):
        if lc_tokens > EMBEDDED_CONTEXT_TOKENS:
            notes.append(
                f"long_context: filler {lc_tokens}->{EMBEDDED_CONTEXT_TOKENS} tokens on the embedded engine "
                "(reading a slot-filling prompt takes over a minute per config on 2 cores; --context-tokens N "
                "sets it, up to what fits the slot)"
            )
            lc_tokens = EMBEDDED_CONTEXT_TOKENS
    if slot is not None:
        answer = changed.get("long_context", prof.long_context.max_tokens)
        room = max(64, slot - answer - SLOT_MARGIN_TOKENS)
        if lc_tokens > room:
            notes.append(
                f"long_context: filler cut from {lc_tokens} to {room} tokens to fit the embedded engine's "
                f"{slot}-token slot (with max_tokens {answer} + {SLOT_MARGIN_TOKENS} for the template and question)"
            )
            lc_tokens = room
    if lc_tokens != prof.long_context.context_tokens:
        overrides.setdefault("long_context", {})["context_tokens"] = lc_tokens
    return (prof.with_overrides(**overrides) if overrides else prof), notes
