"""``specscope report RUN`` names the rounds it drops as cold starts by the one rule (:mod:`specscope.stats.noise`),
and every screen shows that one result.

The run is the quick profile's (:func:`quickrun.make_quick_run`, 3 rounds, cells with their instants). A round whose
answers stop after 8 tokens at the same TTFT and time per token (round 0 of prose and code, every config) used to be
named a cold start on every server (8 notes: ``base prose N=1 round 0: 22.3 tok/s against 27.8 in the same cells
later (20 % slower)``, its TTFT weighing more in 8 tokens than in 48) and left out; it is no cold start now. A server
whose round 0 has twice the TTFT and time per token (ngram, a cold engine) still is, on its first two cells.
"""

from __future__ import annotations

import html
import json

import pytest

from clirun import cli
from quickrun import make_quick_run

WIDTH = ["--width", "1000"]


def _note(config: str, workload: str, own: float, later: float) -> str:
    return (
        f"cold start: {config} {workload} N=1 round 0: {own:.1f} tok/s per request (TTFT + (tokens - 1) x TPOT, the "
        f"later cells' at its prompt and answer lengths) against {later:.1f} in the same cells later "
        f"({(1 - own / later) * 100:.0f} % slower), among the server's first 2 cells: a cold start, left out"
    )


def _rate(tok_s: float, jitter: float, slow: float = 1.0) -> float:
    """tok/s per request of a quick-run stream: 48 tokens after a TTFT of 0.12 s, decoded in 48 / (tok_s x jitter) s,
    both ``slow`` times as long (:func:`quickrun._streams`)."""
    return 48 / (0.12 * slow + 48 / (tok_s * jitter) * slow)


def test_short_answers_in_round_0_are_no_cold_start_on_any_screen(tmp_path, capsys, monkeypatch):
    run = make_quick_run(tmp_path / "run", repeats=3, clocked=True, tokens={(0, "prose"): 8, (0, "code"): 8})
    code, out, _ = cli(["report", run, *WIDTH], capsys, monkeypatch, tmp_path)
    assert code == 0 and "cold start" not in out
    code, out, _ = cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    doc = json.loads(out)
    assert doc["noise"]["cold_starts"] == []
    rounds = {(c["config"], c["workload"], c["level"]): c["rounds"] for c in doc["comparisons"]}
    assert rounds[("ngram", "prose", 1)] == rounds[("draft", "code", 1)] == 3


def test_a_cold_engine_is_named_alike_on_every_screen(tmp_path, capsys, monkeypatch):
    run = make_quick_run(tmp_path / "run", repeats=3, clocked=True, slow={("ngram", 0): 2.0})
    # ngram's jitter at N=1 (quickrun): round 0 and 2 1.01, round 1 0.98; prose 29.5 tok/s a stream, code 31.0
    expected = {
        w: (_rate(v, 1.01, 2.0), (_rate(v, 0.98) + _rate(v, 1.01)) / 2) for w, v in (("prose", 29.5), ("code", 31.0))
    }
    assert [round(x, 2) for pair in expected.values() for x in pair] == [13.86, 27.35, 14.52, 28.64]
    notes = [_note("ngram", w, *v) for w, v in expected.items()]
    code, out, _ = cli(["report", run, *WIDTH], capsys, monkeypatch, tmp_path)
    assert code == 0 and [ln for ln in out.splitlines() if "cold start:" in ln] == [f"note: {n}" for n in notes]
    code, md, _ = cli(["report", run, "-f", "markdown"], capsys, monkeypatch, tmp_path)
    assert code == 0 and all(n in md for n in notes) and md.count("cold start: ") == 2
    code, page, _ = cli(["report", run, "-f", "html"], capsys, monkeypatch, tmp_path)
    assert code == 0 and all(html.escape(n) in page for n in notes) and page.count("cold start: ") == 2
    code, out, _ = cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    doc = json.loads(out)
    got = [(c["config"], c["workload"], c["level"], c["repeat"], c["metric"]) for c in doc["noise"]["cold_starts"]]
    assert got == [("ngram", "prose", 1, 0, "request_tok_s"), ("ngram", "code", 1, 0, "request_tok_s")]
    for c, (own, later) in zip(doc["noise"]["cold_starts"], expected.values(), strict=True):
        assert (c["tok_s"], c["later_tok_s"]) == (pytest.approx(own, rel=1e-6), pytest.approx(later, rel=1e-6))
    rounds = {(c["config"], c["workload"], c["level"]): c["rounds"] for c in doc["comparisons"]}
    assert (rounds[("ngram", "prose", 1)], rounds[("ngram", "code", 1)], rounds[("ngram", "edit", 1)]) == (2, 2, 3)
    # advise renders the same judgement: its picks are the report's, resting on the same rounds
    code, adv, _ = cli(["advise", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0 and json.loads(adv)["choices"] == doc["choices"]


def test_advise_names_the_cold_starts_the_report_names(tmp_path, capsys, monkeypatch):
    """``advise RUN`` rests its picks on the rounds the judgement kept (ngram prose/code N=1: 2 of 3) and said only
    "(2 rounds)": it now carries the judgement's cold starts as the report does, in its notes and its JSON."""
    run = make_quick_run(tmp_path / "run", repeats=3, clocked=True, slow={("ngram", 0): 2.0})
    expected = {
        w: (_rate(v, 1.01, 2.0), (_rate(v, 0.98) + _rate(v, 1.01)) / 2) for w, v in (("prose", 29.5), ("code", 31.0))
    }
    notes = [f"note: {_note('ngram', w, *v)}" for w, v in expected.items()]
    assert notes[0] == (
        "note: cold start: ngram prose N=1 round 0: 13.9 tok/s per request (TTFT + (tokens - 1) x TPOT, the later "
        "cells' at its prompt and answer lengths) against 27.3 in the same cells later (49 % slower), among the "
        "server's first 2 cells: a cold start, left out"
    )
    code, rep, _ = cli(["report", run, *WIDTH], capsys, monkeypatch, tmp_path)
    assert code == 0 and [ln for ln in rep.splitlines() if "cold start:" in ln] == notes
    code, adv, _ = cli(["advise", run, *WIDTH], capsys, monkeypatch, tmp_path)
    assert code == 0 and [ln for ln in adv.splitlines() if "cold start:" in ln] == notes
    code, rep, _ = cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    code2, adv, _ = cli(["advise", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == code2 == 0
    cold = json.loads(rep)["noise"]["cold_starts"]
    assert [(c["config"], c["workload"], c["repeat"]) for c in cold] == [("ngram", "prose", 0), ("ngram", "code", 0)]
    assert json.loads(adv)["cold_starts"] == cold
