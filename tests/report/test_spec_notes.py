"""Report notes of issue 26: the drafting as run beside the configured k (the embedded llama.cpp n-gram config ran
k = 8 and measured 11.67 tokens per step over 13 positions: more than k + 1 allows), named warnings per config, and
the accepting-nothing alarm."""

from __future__ import annotations

from cells import summary as make_cell

from serverfacts import run_facts
from specscope.report.spec_notes import spec_alarms, spec_notes


def _ngram_cell(repeat: int):
    # 3 cells x 100 drafts, 1067 accepted over 13 positions: acceptance length 1 + 3201 / 300 = 11.67
    per_pos = [100.0] * 10 + [67.0, 0.0, 0.0]
    counters = {
        "drafts": 100.0,
        "draft_tokens": 1300.0,
        "accepted_tokens": sum(per_pos),
        "accepted_per_position": per_pos,
    }
    return make_cell("ngram", "edit", 1, repeat, 10.0, counters=counters)


def test_acceptance_length_above_configured_k_is_a_finding() -> None:
    cells = [_ngram_cell(r) for r in range(3)]
    notes = spec_notes(cells, run_facts({"ngram": {"k": 8}}))
    assert any(n.startswith("ngram: ACCEPT_LENGTH_ABOVE_K(acceptance length 11.67 > configured k 8 + 1") for n in notes)
    assert any(
        n.startswith("ngram: DRAFT_ABOVE_K(the server drafted or counted 13 positions, configured k 8)") for n in notes
    )
    assert not spec_notes(cells, run_facts({"ngram": {"k": 16}}))  # within k: nothing to say


def test_named_warnings_are_noted_per_config_and_the_alarm_is_raised() -> None:
    warned = make_cell("sgl", "prose", 1, 0, 5.0, reasons=("GAUGE_NOT_WINDOW(sglang:spec_accept_rate)",))
    dead = make_cell(
        "mtp",
        "code",
        1,
        0,
        5.0,
        spec_window={
            "state": "accepting_nothing",
            "alarm": "ACCEPTING_NOTHING",
            "statement": "1,500 drafts and none accepted",
        },
    )
    notes = spec_notes([warned, warned, dead])
    assert notes == [
        "sgl: GAUGE_NOT_WINDOW(sglang:spec_accept_rate) on 2 cells (a gauge holds a current mean and is not "
        "differenced over a cell; no figure is read from it)."
    ]
    (alarm,) = spec_alarms([warned, dead])
    assert (alarm.code, alarm.config, alarm.workload) == ("ACCEPTING_NOTHING", "mtp", "code")
    assert "1,500 drafts and none accepted" in alarm.found
