"""Budgets of a gate run: the embedded engine's max_tokens, the command line's caps, the long-context fit, and
the notes that say so; and a failing probe cut with finish 'length' naming the limit that cut it."""

from specscope.gate.budget import EMBEDDED_MAX_TOKENS, budget_profile
from specscope.gate.model import ProbeOutput
from specscope.gate.probes import build_long_context_probe
from specscope.gate.profile import GateProfile
from specscope.gate.runner import check_output
from specscope.targets import parse_targets


def _embedded(configs=None):
    return parse_targets(configs=configs, servers=None, launch="embedded", recipes=None)


def test_embedded_default_budgets_fit_the_slot_and_are_stated():
    prof, notes = budget_profile(_embedded())
    assert {g: prof.section(g).max_tokens for g in EMBEDDED_MAX_TOKENS} == EMBEDDED_MAX_TOKENS
    assert prof.thinking.max_tokens == 256 and prof.repetition.max_tokens == 256
    assert prof.long_context.context_tokens == 2048
    assert notes == [
        "embedded engine: max_tokens per gate thinking 16384->256, arithmetic 2048->256, code 2048->384, "
        "tool_call 1024->128, long_context 256->64, repetition 1500->256, compare 512->256 tokens (the profile's "
        "budgets are for thinking models; a slot holds 4096 tokens; set [GATE] max_tokens in --run-file to change)",
        "long_context: filler 8192->2048 tokens on the embedded engine (reading a slot-filling prompt takes over "
        "a minute per config on 2 cores; --context-tokens N sets it, up to what fits the slot)",
    ]


def test_user_profile_max_tokens_kept_on_embedded_but_fitted_to_the_slot(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text("[thinking]\nmax_tokens = 16384\n[code]\nmax_tokens = 1000\n[long_context]\ncontext_tokens = 3000\n")
    prof, notes = budget_profile(_embedded(), f)
    assert prof.thinking.max_tokens == 3840  # the user's 16384 cannot fit: slot 4096 - 256
    assert prof.code.max_tokens == 1000 and prof.arithmetic.max_tokens == 256
    assert "thinking 16384->3840" in notes[0] and "code" not in notes[0]
    assert prof.long_context.context_tokens == 3000 and len(notes) == 1


def test_max_tokens_cap_and_long_context_fit_use_the_capped_answer_budget():
    """`--max-tokens 16 --context-tokens 8192`: the filler is cut to fit a slot beside a 16-token answer (the new
    user saw 8192 -> 3584 only in gate.json), and both are said."""
    prof, notes = budget_profile(_embedded(["base"]), limit=1, max_tokens=16, context_tokens=8192)
    assert all(prof.section(g).max_tokens == 16 for g in EMBEDDED_MAX_TOKENS)
    assert prof.long_context.context_tokens == 4096 - 16 - 256
    assert notes == [
        "--max-tokens 16: every gate's max_tokens is at most 16 tokens",
        "--limit 1: at most 1 probe(s) per gate",
        "long_context: filler cut from 8192 to 3824 tokens to fit the embedded engine's 4096-token slot "
        "(with max_tokens 16 + 256 for the template and question)",
    ]


def test_max_tokens_cap_above_some_embedded_budgets_lists_only_those():
    prof, notes = budget_profile(_embedded(), max_tokens=300)
    assert [prof.section(g).max_tokens for g in ("thinking", "code", "tool_call", "repetition")] == [256, 300, 128, 256]
    assert notes[0].startswith(
        "embedded engine: max_tokens per gate thinking 16384->256, arithmetic 2048->256, tool_call 1024->128, "
        "long_context 256->64, repetition 1500->256, compare 512->256 tokens"
    )
    assert notes[1] == "--max-tokens 300: every gate's max_tokens is at most 300 tokens"


def test_external_server_keeps_the_profile_budgets():
    plan = parse_targets(configs=None, servers=["base=http://127.0.0.1:9"], launch="embedded", recipes=None)
    prof, notes = budget_profile(plan, context_tokens=2000)
    assert prof.thinking.max_tokens == 16384 and prof.long_context.context_tokens == 2000 and notes == []


def test_failing_probe_cut_by_max_tokens_says_so():
    """The new user's `--max-tokens 16` long-context FAIL: the answer was cut before the code."""
    prof = GateProfile().with_overrides(long_context={"max_tokens": 16})
    probe = build_long_context_probe(context_tokens=512)
    out = ProbeOutput(
        text="According to the text above, the access code for the blue vault",
        finish_reason="length",
        output_tokens=16,
        prompt_tokens=3600,
    )
    c = check_output(probe, out, prof)
    assert c.why == (
        "answer does not contain '7394': 'According to the text above, the access code for the blue...' "
        "(output cut by max_tokens (16 tokens))"
    )
    ok = ProbeOutput(text="7394", finish_reason="length", output_tokens=16, prompt_tokens=3600)
    assert check_output(probe, ok, prof).why == "retrieved '7394' from a 3600-token prompt"


def test_repetition_prose_at_its_budget_is_not_called_cut():
    from specscope.gate.probes import load_probes

    probe = load_probes("repetition")[0]
    # 160 words alternating "the sea": 153 8-grams of two kinds (77 + 76), 2 unique words of 160 = 0.0125
    out = ProbeOutput(text="the sea the sea the sea the sea " * 20, finish_reason="length", output_tokens=256)
    why = check_output(probe, out, GateProfile().with_overrides(repetition={"max_tokens": 256})).why
    assert why == "a 8-gram repeats 77 times (max 1); unique-word ratio 0.013 < 0.528"
