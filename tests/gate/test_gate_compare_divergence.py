"""The base-vs-speculative verdict on divergences shaped like public bug reports (greedy output that changes with
speculation on, a request that fails mid-gate, sampling at temperature > 0)."""

from rich.console import Console

from specscope.gate import checks
from specscope.gate.model import GateRun, Probe, ProbeOutput, ProbeResult
from specscope.gate.profile import GateProfile
from specscope.gate.render import render_gate_markdown, render_gate_table, summary_line
from specscope.gate.runner import SEQUENTIAL_ONLY, check_output, decide

PROBE = Probe(gate="compare", id="cmp-37x24", messages=(), expected={"answer": "888"})


def _results(outs: dict[str, ProbeOutput], profile: GateProfile) -> list[ProbeResult]:
    return [ProbeResult(cfg, "compare", PROBE.id, {}, o, check_output(PROBE, o, profile)) for cfg, o in outs.items()]


def test_the_first_differing_token_is_named():
    """Greedy output changed by speculation (a token swapped mid-answer, as in the ngram reports): the verdict names
    the probe, the position and both tokens there."""
    base = ProbeOutput(text="37*24 = 888\nAnswer: 888", tokens=("37", "*", "24", " =", " 888"))
    spec = ProbeOutput(text="37*24 = 898\nAnswer: 898", tokens=("37", "*", "24", " =", " 898"))
    c = checks.compare_outputs(PROBE, "base", base, "ngram", spec)
    assert c.first_divergence == 4
    assert (c.base_at, c.spec_at) == (" 888", " 898")
    (v,) = decide(_results({"base": base, "ngram": spec}, GateProfile()), [c], GateProfile())
    assert not v.passed
    assert "first divergence cmp-37x24 at token 4 (base ' 888', ngram ' 898')" in v.why


def test_a_longer_speculative_output_names_the_end_of_the_base():
    base = ProbeOutput(text="Answer: 888")
    spec = ProbeOutput(text="Answer: 888 888 888")
    c = checks.compare_outputs(PROBE, "base", base, "ngram", spec)
    assert c.first_divergence == 11 and c.base_at == "" and c.spec_at == " 888 888 888"[:8]


def test_a_failed_request_is_not_a_divergence():
    """A server that errors mid-gate: no first divergence is made up at position 0; the verdict says which request
    failed and why, and the pair fails (nothing was compared)."""
    base = ProbeOutput(text="Answer: 888", tokens=("Answer", ":", " 888"))
    spec = ProbeOutput(error="http 503: overloaded", http_status=503)
    c = checks.compare_outputs(PROBE, "base", base, "ngram", spec)
    assert c.first_divergence is None and not c.identical and c.error == "ngram: http 503: overloaded"
    (v,) = decide(_results({"base": base, "ngram": spec}, GateProfile()), [c], GateProfile())
    assert not v.passed
    assert "cmp-37x24 not compared (ngram: http 503: overloaded)" in v.why
    assert "first divergence" not in v.why


def test_sampling_at_temperature_above_zero_is_not_judged():
    """At temperature > 0 speculation keeps only the distribution: different samples are not a bug, so the pair is
    not failed; the verdict says it was not judged and why."""
    profile = GateProfile().with_overrides(request={"temperature": 0.7})
    base = ProbeOutput(text="Answer: 888")
    spec = ProbeOutput(text="Answer: 887")
    c = checks.compare_outputs(PROBE, "base", base, "ngram", spec)
    (v,) = decide(_results({"base": base, "ngram": spec}, profile), [c], profile)
    assert v.passed and v.metrics["judged"] is False
    assert v.why.startswith("sampled at temperature 0.7, so base and speculative outputs may differ by chance")
    run = GateRun(({"name": "base"}, {"name": "ngram"}), (), (c,), (v,), profile.model_dump())
    assert "not judged" in summary_line(run)
    assert "| base vs ngram | NOT JUDGED |" in render_gate_markdown(run)
    console = Console(width=300, record=True)
    console.print(render_gate_table(run))
    shown = console.export_text()
    assert "NOT JUDGED sampled at temperature 0.7" in shown and "set [request] temperature = 0 to compare" in shown


def test_identical_outputs_without_a_number_are_the_same_answer():
    """Both servers answer the same words and no number (a model that cannot do the sum): speculation changed
    nothing, so the pair passes (1/1 identical, 1/1 same answer); the missing number is the arithmetic's failure on
    each config, not the comparison's."""
    base = ProbeOutput(text="I do not know.", tokens=("I", " do", " not", " know", "."))
    spec = ProbeOutput(text="I do not know.", tokens=("I", " do", " not", " know", "."))
    c = checks.compare_outputs(PROBE, "base", base, "ngram", spec)
    assert c.identical and c.same_answer and c.base_answer is None
    (v,) = decide(_results({"base": base, "ngram": spec}, GateProfile()), [c], GateProfile())
    assert v.passed and v.why == f"1/1 identical sequences, 1/1 same answer; {SEQUENTIAL_ONLY}"


def test_the_probe_whose_answer_changed_is_named():
    """The first divergence may be a harmless rewording (same answer); the verdict also names the probe whose answer
    speculation changed, which is what fails the pair."""
    other = Probe(gate="compare", id="cmp-sum-odd", messages=(), expected={"answer": "25"})
    reworded = checks.compare_outputs(
        PROBE, "base", ProbeOutput(text="So: Answer: 888"), "ngram", ProbeOutput(text="Thus Answer: 888")
    )
    changed = checks.compare_outputs(
        other, "base", ProbeOutput(text="So: Answer: 25"), "ngram", ProbeOutput(text="So: Answer: 52")
    )
    (v,) = decide([], [reworded, changed], GateProfile())
    assert not v.passed
    assert v.why == (
        "0/2 identical sequences, 1/2 same answer; answer changed on cmp-sum-odd (base 25, ngram 52); "
        "first divergence cmp-37x24 at char 0 (base 'So: Answ', ngram 'Thus Ans')"
    )
