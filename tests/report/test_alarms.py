"""Acceptance alarms: near zero, far below the same method elsewhere, and the cases that must stay quiet."""

from __future__ import annotations

from test_html import _summary

from serverfacts import run_facts
from specscope.report.alarms import judgement_alarms


def acceptance_alarms(cells, facts=None):
    """The alarms of a run too small to judge (no baseline): the acceptance rule alone, as report renders it."""
    return judgement_alarms(None, facts, cells)


def _cell(cfg: str, wl: str, drafts: float, rate: float, rep: int = 0):
    counters = {"drafts": drafts, "draft_tokens": 2 * drafts, "accepted_tokens": 2 * drafts * rate}
    return _summary(cfg, wl, 1, rep, 10.0, counters=counters)


def test_far_below_the_same_method_on_another_workload():
    cells = [_cell("mtp", "prose", 100, 0.06), _cell("mtp", "edit", 100, 0.8)]
    (alarm,) = acceptance_alarms(cells)
    assert (alarm.code, alarm.config, alarm.workload) == ("ACCEPTANCE_FAR_BELOW", "mtp", "prose")
    assert (
        alarm.found == "mtp acceptance 6.0% over 100 verify steps, under a tenth of the 80.0% that mtp on edit reaches"
    )
    assert alarm.fixes[0] == (  # no server facts: the user names the model
        "specscope audit MODEL (MODEL: the checkpoint folder or hub repo id that mtp's server loads)"
    )


def test_quiet_for_ngram_few_verify_steps_degraded_cells_and_healthy_heads():
    cells = [
        _cell("ngram", "prose", 500, 0.01),  # n-gram drafting is legitimately low on fresh text
        _cell("mtp", "prose", 40, 0.01),  # 40 verify steps: too few to call
        _cell("mtp", "edit", 100, 0.5),
        _cell("mtp", "code", 100, 0.3),  # 0.3 is not under a tenth of 0.5
    ]
    bad = _cell("eagle", "prose", 1000, 0.0, rep=1)
    cells.append(_summary("eagle", "prose", 1, 1, 10.0, counters=bad.counters, status="degraded", reasons=("X",)))
    assert acceptance_alarms(cells) == []


def test_near_zero_names_the_model_from_the_server_facts():
    facts = run_facts({"draft": {"model": {"name": "m", "path": "/models/m-NVFP4"}, "draft": {"quant": "Q4_0"}}})
    (alarm,) = acceptance_alarms([_cell("draft", "prose", 60, 0.02)], facts)
    assert alarm.code == "ACCEPTANCE_NEAR_ZERO" and alarm.fixes[0] == "specscope audit /models/m-NVFP4"
    found = "draft acceptance 2.0% over 60 verify steps"
    assert alarm.text.startswith(f"ALARM ACCEPTANCE_NEAR_ZERO (draft on prose): {found}")


def test_an_unknown_method_accepting_1_percent_of_800_drafts_alarms_as_the_counters_rule_does():
    from specscope.stats.low_acceptance import low_acceptance_alarm

    (alarm,) = acceptance_alarms([_cell("fast", "prose", 800, 0.01)])  # a name that says no method: unknown
    assert alarm.code == "ACCEPTANCE_NEAR_ZERO" and alarm.found.startswith("unknown method acceptance 1.0% over 800")
    assert low_acceptance_alarm(None, 0.01, 800) is not None  # the log / counters screen says the same
