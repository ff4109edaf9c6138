"""The headline says whether its picks are per workload or the traffic mix's, and names the mix's pick where it
differs (judge2 probe finding 1): on the quick run ngram wins edit alone at N=2, while the mix of the three workloads
picks the baseline there; a user reading only the headline must not ship ngram for the mix at N=2."""

from __future__ import annotations

import json
import subprocess
import sys

from quickrun import make_quick_run


def _report_json(run: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "specscope", "report", run, "-f", "json"], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_the_headline_says_its_picks_are_per_workload_and_names_the_mix_pick(tmp_path):
    doc = _report_json(str(make_quick_run(tmp_path / "quick")))
    levels = {lv["level"]: lv for lv in doc["choices"]["levels"]}
    assert levels[1]["config"] == "ngram" and levels[2]["config"] == "base"
    first, mix = doc["headline"][:2]
    assert first.startswith("pick per workload vs base: edit N=1: ngram ")
    assert "edit N=2: ngram" in first
    assert mix.startswith("pick for the mix code=0.33, edit=0.33, prose=0.33 vs base: N=1 ngram 1.11x [")
    assert mix.endswith("; N=2 base: no config is judged faster on the mix")


def test_a_mix_judged_faster_where_no_workload_alone_is_gets_its_pick_in_the_headline():
    """judge2 probe, found by reading the code: the mix line was added only beside a per-workload pick, so a mix
    judged faster while each workload alone was undetermined read "nothing beats the baseline" above a Picks table
    naming a pick. Three rounds, baseline 100 tok/s everywhere; mtp on prose 100/106/103, on code 106/100/103: each
    workload's interval includes 1, the mix's rounds (harmonic, equal shares) are all about 1.03."""
    from cellsummary import make_cell
    from specscope.report.advice import advise
    from specscope.report.headline import headline
    from specscope.stats.choices import Traffic

    cells = []
    for r, (p, c) in enumerate(((100.0, 106.0), (106.0, 100.0), (103.0, 103.0))):
        shape = {"output_tokens": 512, "duration_s": 10.0, "ttft_p50_s": 0.2, "ttft_p95_s": 0.3}
        cells += [make_cell("base", "prose", 1, r, 100.0, **shape), make_cell("base", "code", 1, r, 100.0, **shape)]
        cells += [make_cell("mtp", "prose", 1, r, p, **shape), make_cell("mtp", "code", 1, r, c, **shape)]
    adv = advise(cells, Traffic(mix={"prose": 0.5, "code": 0.5}))
    j = adv.judgement
    assert {c.verdict for c in j.comparisons if c.config == "mtp"} == {"undetermined"}
    (lv,) = j.choices.levels
    assert lv.config == "mtp" and lv.comparison.verdict == "faster"
    lines = headline(j)
    assert lines[0] == "pick per workload vs base: none (no workload alone is judged faster)"
    assert lines[1].startswith("pick for the mix prose=0.50, code=0.50 vs base: N=1 mtp 1.03x [")
    assert not any(line.startswith("nothing is judged to beat") for line in lines)


def test_a_config_faster_on_one_workload_of_two_but_unmeasured_on_the_other_is_no_nothing_beats():
    """New-user finding (2026-12-05): vLLM results for base and mtp imported as one workload, an AIPerf result for
    base as another; mtp is judged faster where it was measured, but the mix of both workloads has no paired round for
    it, so no level has a pick. The headline said "nothing beats the baseline base: of 1 comparison: 1 faster"."""
    from cellsummary import make_cell
    from specscope.report.advice import advise
    from specscope.report.headline import headline
    from specscope.stats.choices import Traffic

    shape = {"output_tokens": 512, "duration_s": 10.0, "ttft_p50_s": 0.2, "ttft_p95_s": 0.3}
    cells = [make_cell("base", "main", 2, 0, 50.0, **shape)]
    for r, (b, m) in enumerate(((100.0, 160.0), (102.0, 165.0), (99.0, 158.0))):
        cells += [make_cell("base", "chat", 2, r, b, **shape), make_cell("mtp", "chat", 2, r, m, **shape)]
    j = advise(cells, Traffic(mix={"chat": 0.5, "main": 0.5})).judgement
    assert j.choices.levels == ()
    lines = headline(j)
    assert lines[0] == (
        "no pick for the mix chat=0.50, main=0.50 vs base: no level has a paired round on every workload of the mix"
    )
    assert lines[1].startswith("faster where measured: mtp on chat at N=2 1.6") and lines[1].endswith(" faster")
    assert not any(line.startswith("nothing is judged to beat") for line in lines)


def test_a_config_not_judged_on_the_level_mix_shows_no_ratio_and_no_baseline_verdict():
    """New-user finding (2026-12-05): `advise RUN --level-mix 1=0.6,2=0.4` listed ngram and draft, which had no
    paired round at N=2, as "1.00x ... baseline" beside the real baseline. Their ratio is absent, their verdict says
    why; the "why" of a pick never prints an absent speedup as 0.00x."""
    from cellsummary import make_cell
    from specscope.report.advice import advice_section, advise
    from specscope.stats.choices import Traffic

    shape = {"output_tokens": 512, "duration_s": 10.0, "ttft_p50_s": 0.2, "ttft_p95_s": 0.3}
    cells = []
    for r in range(3):
        cells += [make_cell("base", "chat", n, r, 100.0 * n + r, **shape) for n in (1, 2)]
        cells.append(make_cell("ngram", "chat", 1, r, 101.0 * 1 + r, **shape))
        cells.append(make_cell("ngram", "chat", 2, r + 5, 150.0, **shape))  # repeats the baseline lacks: no pair
    adv = advise(cells, Traffic(mix={"chat": 1.0}, level_mix={1: 0.6, 2: 0.4}))
    (table,) = [t for t in advice_section(adv).tables if t.key == "level_mix"]
    rows = {r[0].text: [c.text for c in r] for r in table.cells}
    assert rows["base"][3:6] == ["1.00x", "—", "baseline"]
    assert rows["ngram"][3:6] == ["—", "—", "not judged (a level of the mix without paired rounds)"]
    assert "0.00x" not in json.dumps(adv.to_dict())
