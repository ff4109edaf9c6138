"""``specscope counters BEFORE AFTER`` across a restart of a two-engine data-parallel vLLM server (issue 35, item 5).

Files: tests/data/counters (SOURCES.md there). Before: engines 0 and 1 (drafts 1000 / 800, draft tokens 4000 / 3200,
accepted 2600 / 2000, process start 1785538740 s). After both restarted (process start 1785542340 s, every
``*_created`` later): engine 0 counted 200 drafts, 800 draft tokens, 520 accepted (per position 180 / 160 / 110 /
70) since its restart, engine 1 100 / 400 / 300 (100 / 90 / 70 / 40). Each engine's window is partial (what ran
before the restart is lost); the pool of partial windows: 300 drafts, 1200 draft tokens, 820 accepted, so rate
820 / 1200 = 0.683, length 1 + 820 / 300 = 3.73, per position 280 / 300, 250 / 300, 180 / 300, 110 / 300.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from specscope.cli import app

DATA = Path(__file__).parent.parent / "data" / "counters"
BEFORE = str(DATA / "vllm_dp2_before_with_start.prom")
BOTH = str(DATA / "vllm_dp2_after_both_restarted.prom")
SPEC_OFF = str(DATA / "vllm_dp2_after_restart_spec_off.prom")
CLOCKS = "process start time moved forward (1785538740 -> 1785542340 s); every _created moved forward"


def run(*args: str):
    return CliRunner().invoke(app, ["counters", *args])


def test_both_engines_restarted_give_their_post_restart_windows_marked_partial():
    res = run(BEFORE, BOTH)
    assert res.exit_code == 0, res.output
    assert res.output.splitlines() == [
        "engine 0: reset: true  drafts 200  draft tokens 800  accepted 520  generation 1000  prompt — "
        "(partial window: restarted between the scrapes, counts since the restart)",
        "engine 1: reset: true  drafts 100  draft tokens 400  accepted 300  generation 600  prompt — "
        "(partial window: restarted between the scrapes, counts since the restart)",
        "acceptance (engines 0, 1, partial windows): rate 68.3%  length 3.73  k 4",
        "per position: 93.3% 83.3% 60.0% 36.7%",
        "reasons: COUNTER_RESET",  # no LoRA gauge in the scrapes: no word about adapters
        f"speculation: restarted: every engine left restarted between the scrapes ({CLOCKS}): the counts since "
        "each restart are a partial window (what ran before the restart is lost)",
    ]
    doc = json.loads(run(BEFORE, BOTH, "-f", "json").output)
    assert (doc["window"], doc["pooled_engines"], doc["clocks"]) == ("partial", ["0", "1"], CLOCKS)
    assert {e: v["window"] for e, v in doc["engines"].items()} == {"0": "partial", "1": "partial"}
    d = doc["deltas"]
    assert (d["drafts"], d["draft_tokens"], d["accepted_tokens"], d["generation_tokens"]) == (300, 1200, 820, 1600)
    assert d["accepted_per_position"] == [280, 250, 180, 110]
    assert doc["acceptance_rate"] == 820 / 1200 and doc["acceptance_length"] == 1 + 820 / 300
    assert doc["acceptance_per_position"] == [280 / 300, 250 / 300, 180 / 300, 110 / 300]


def test_one_engine_restarted_the_other_gives_its_full_window():
    res = run(str(DATA / "vllm_dp2_before.prom"), str(DATA / "vllm_dp2_after_engine1_restarted.prom"), "-f", "json")
    doc = json.loads(res.output)
    assert {e: v["window"] for e, v in doc["engines"].items()} == {"0": "full", "1": "partial"}
    assert (doc["window"], doc["pooled_engines"]) == ("full", ["0"])
    assert doc["engines"]["1"]["deltas"]["drafts"] == 100  # engine 1's own counts since its restart, shown
    assert doc["deltas"]["drafts"] == 1000 and doc["acceptance_rate"] == 2500 / 4000


def test_a_restart_that_switched_speculation_off_is_named_not_refused_as_swapped():
    res = run(BEFORE, SPEC_OFF)
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[2] == "acceptance (engines 0, 1, partial windows): rate —  length —  k —"
    assert lines[-1] == (
        f"speculation: vanished: speculation switched off at a restart ({CLOCKS}): the speculative series are gone "
        "after the window, generation is still counted"
    )
    doc = json.loads(run(BEFORE, SPEC_OFF, "-f", "json").output)
    assert doc["deltas"]["generation_tokens"] == 700 + 500 and doc["deltas"]["drafts"] is None
    assert doc["state"] == "vanished" and doc["acceptance_rate"] is None


def test_swap_is_suggested_only_when_the_clocks_say_swap(capsys):
    from specscope.cli import main

    with pytest.raises(SystemExit) as ei:  # AFTER from the earlier process: its start and every _created earlier
        main(["counters", BOTH, BEFORE])
    (err,) = capsys.readouterr().err.splitlines()  # one line, exit 2
    assert ei.value.code == 2
    assert "the AFTER scrape comes from an earlier server process than BEFORE" in err
    assert "process start time moved back (1785542340 -> 1785538740 s); every _created moved back" in err
    assert f"fix: the files are swapped: run specscope counters {BEFORE} {BOTH};" in err


def test_an_engine_whose_every_series_vanished_is_named(tmp_path):
    after = tmp_path / "after.prom"
    text = (DATA / "vllm_dp2_after_engine1_restarted.prom").read_text(encoding="utf-8")
    after.write_text("\n".join(x for x in text.splitlines() if 'engine="1"' not in x) + "\n", encoding="utf-8")
    res = run(str(DATA / "vllm_dp2_before.prom"), str(after))
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[1] == "engine 1: vanished: no series in the after scrape (left out; not a restart)"
    assert lines[2] == "acceptance (engines 0): rate 62.5%  length 3.50  k 4"
    assert lines[-1] == "vanished: model unloaded or engine stopped (1: every series gone after the window)"


def test_an_engine_restarted_to_higher_counts_shows_its_counts_since_the_restart() -> None:
    """Engine 1 restarted (its ``_created`` moved) and counted more since than it had before: its partial window is
    its AFTER counts (8000 / 24000 / 5000), not AFTER - BEFORE (3000 / 9000 / 1000, what it said before 2026-12-05)."""
    data = Path(__file__).parent.parent / "data" / "counters"
    before, after = data / "vllm_dp2_before_b.prom", data / "vllm_dp2_after_engine1_restarted_higher.prom"
    r = run(str(before), str(after), "--format", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    e1 = doc["engines"]["1"]
    assert e1["reset"] is True
    d = e1["deltas"]
    assert (e1["window"], d["drafts"], d["draft_tokens"], d["accepted_tokens"]) == ("partial", 8000, 24000, 5000)
    assert d["accepted_per_position"] == [2500, 1600, 900]
    assert doc["acceptance_rate"] == 300000 / 600000  # engine 0 alone: the partial window is left out of the pool
