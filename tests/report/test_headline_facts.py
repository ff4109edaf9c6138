"""The headline is one judgement, said the same everywhere (issue 38 item 4): an unfinished run says so first, in
every format and in ``advise``; no two lines say competing things; its reason counts add up to its verdict counts;
text, Markdown, HTML and JSON give the same headline for one run, and ``advise`` the same picks as ``report``."""

from __future__ import annotations

import html
import json
import re

from clirun import cli
from quickrun import make_quick_run
from serverfacts import manifest

FORMATS = ("text", "markdown", "html", "json")


def _headlines(run, capsys, monkeypatch, tmp_path, command: str = "report", extra: tuple[str, ...] = ()):
    """The headline lines of ``specscope COMMAND RUN`` in each format, their markup taken off."""
    out = {}
    for fmt in FORMATS:
        code, text, err = cli(
            [command, run, *extra, "-f", fmt, "--width", "1000"]
            if fmt == "text"
            else [command, run, *extra, "-f", fmt],
            capsys,
            monkeypatch,
            tmp_path,
        )
        assert code in (0, 1), err
        if fmt == "json":
            out[fmt] = json.loads(text)["headline"]
        elif fmt == "text":
            out[fmt] = [ln.removeprefix("headline: ") for ln in text.splitlines() if ln.startswith("headline: ")]
        elif fmt == "markdown":
            out[fmt] = [ln[len("**headline: ") : -2] for ln in text.splitlines() if ln.startswith("**headline: ")]
            out[fmt] = [re.sub(r"\\(.)", r"\1", ln) for ln in out[fmt]]  # Markdown's escapes
        else:
            found = re.findall(r'<p class="headline"><strong>headline: (.*?)</strong></p>', text)
            out[fmt] = [html.unescape(ln) for ln in found]
    return out


def test_an_unfinished_run_says_so_first_in_every_format_and_in_advise(tmp_path, capsys, monkeypatch):
    """A bench stopped after 30 of its 48 planned cells (manifest: finished false, cells_total 48): the report's
    headline gave its verdicts as if the run were whole; the run table alone said INCOMPLETE."""
    run = make_quick_run(tmp_path / "run", stop_after=30)
    first = f"unfinished run: 30 of 48 planned cells measured; `specscope bench --resume {run}` measures the other 18"
    for fmt, lines in _headlines(run, capsys, monkeypatch, tmp_path).items():
        assert lines and lines[0] == first, fmt
    advised = _headlines(run, capsys, monkeypatch, tmp_path, "advise", ("--mix", "prose=0.5,code=0.3,edit=0.2"))
    for fmt, lines in advised.items():
        assert lines and lines[0] == first, fmt


def test_failed_cells_name_retry_failed(tmp_path, capsys, monkeypatch):
    """Every cell failed (a server answering 503): plain --resume measures nothing again, --retry-failed does."""
    run = make_quick_run(tmp_path / "run", failed=True)
    doc = json.loads(cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)[1])
    assert doc["headline"][0] == (
        f"unfinished run: 0 of 48 planned cells measured, 48 failed; `specscope bench --resume {run} --retry-failed`"
        " measures the failed ones again"
    )


def test_a_finished_run_has_no_unfinished_line(tmp_path, capsys, monkeypatch):
    run = make_quick_run(tmp_path / "run")
    doc = json.loads(cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)[1])
    assert not any("unfinished" in line for line in doc["headline"])


def test_reason_counts_add_up_to_the_verdict_count(tmp_path, capsys, monkeypatch):
    """The unfinished quick run: 11 undetermined comparisons, two of which carry two reasons; the headline said
    '11 undetermined (TOO_FEW_ROUNDS 10, ROUNDS_DROPPED 2, INTERVAL_INCLUDES_ONE 1)', 13 reasons for 11."""
    run = make_quick_run(tmp_path / "run", stop_after=30)
    doc = json.loads(cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)[1])
    undetermined = [c for c in doc["comparisons"] if c["verdict"] == "undetermined" and not c.get("control")]
    several = sum(1 for c in undetermined if len({r["code"] for r in c["reasons"]}) > 1)
    assert len(undetermined) == 11 and several == 2
    (line,) = [ln for ln in doc["headline"] if "undetermined (" in ln]
    assert "11 undetermined (TOO_FEW_ROUNDS 10, ROUNDS_DROPPED 2, INTERVAL_INCLUDES_ONE 1; 2 have two reasons)" in line


def test_no_pick_and_point_estimates_are_one_statement(tmp_path, capsys, monkeypatch):
    """One repeat: every comparison is undetermined (too few rounds). The headline said 'nothing beats the baseline
    base: ...' on one line and 'unjudged ...: the figures rank first N=1 ngram, ...' on the next, two competing
    answers; now one line says that nothing is judged faster and what the point estimates alone rank first."""
    run = make_quick_run(tmp_path / "run", repeats=1)
    doc = json.loads(cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)[1])
    (line,) = doc["headline"]
    assert line.startswith("nothing is judged to beat the baseline base: of 12 comparisons: 12 undetermined")
    assert (
        "; unjudged (too few rounds to judge at N=1, N=2; point estimates only): the figures rank first N=1 ngram"
        in line
    )


def test_the_mix_line_does_not_contradict_a_workload_pick(tmp_path, capsys, monkeypatch):
    """Quick run: ngram is judged faster on edit at N=2, the mix picks the baseline there. The mix line read
    'N=2 base: no config is faster' under 'edit N=2: ngram ... faster'."""
    run = make_quick_run(tmp_path / "run")
    doc = json.loads(cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)[1])
    assert doc["headline"][1].endswith("; N=2 base: no config is judged faster on the mix")


def test_point_estimates_join_the_level_statement_they_qualify(tmp_path, capsys, monkeypatch):
    """Stopped after 40 of 48 cells: N=2's second round is partly missing. The headline said 'pick for the mix ...:
    ...; N=2 base: no config is faster on the mix' and, on a line of its own, 'unjudged (too few rounds to judge at
    N=2 ...): the figures rank first N=2 ngram', two answers for N=2; now the second qualifies the first."""
    run = make_quick_run(tmp_path / "run", stop_after=40)
    doc = json.loads(cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)[1])
    unfinished, workloads, mix = doc["headline"]
    assert unfinished.startswith("unfinished run: 40 of 48 planned cells measured")
    assert workloads.startswith("pick per workload vs base: edit N=1: ngram 1.28x")
    # ngram on edit at N=2 lacks its second round (undetermined, not slower): 'judged', never 'no config is faster'
    assert workloads.endswith("(code N=1, prose N=1, code N=2, edit N=2, prose N=2) base: no config is judged faster")
    assert mix.startswith("pick for the mix code=0.33, edit=0.33, prose=0.33 vs base: N=1 ngram 1.11x")
    assert mix.endswith(
        "; N=2 base: no config is judged faster on the mix; unjudged (too few rounds to judge at N=2; point estimates"
        " only): the figures rank first N=2 ngram, overall ngram (1.09x; the judged overall pick is base)"
    )


def test_every_format_and_advise_give_the_same_headline(tmp_path, capsys, monkeypatch):
    for name, kw in {"quick": {}, "unfinished": {"stop_after": 30}, "one": {"repeats": 1}}.items():
        run = make_quick_run(tmp_path / name, **kw)
        got = _headlines(run, capsys, monkeypatch, tmp_path)
        assert got["json"] and all(lines == got["json"] for lines in got.values()), (name, got)
        # advise with the report's own mix (equal shares) picks what the report's headline picks
        advised = _headlines(run, capsys, monkeypatch, tmp_path, "advise", ("--mix", "code=1,edit=1,prose=1"))
        assert all(lines == got["json"] for lines in advised.values()), (name, advised, got)
        rep = json.loads(cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)[1])["choices"]
        argv = ["advise", run, "--mix", "code=1,edit=1,prose=1", "-f", "json"]
        adv = json.loads(cli(argv, capsys, monkeypatch, tmp_path)[1])["choices"]
        for key in ("levels", "overall", "unjudged"):
            assert rep[key] == adv[key], (name, key)


def test_runs_with_nothing_to_compare_say_why(tmp_path, capsys, monkeypatch):
    """One config, or configs without the baseline: the report had no headline at all."""
    one = make_quick_run(tmp_path / "one", only=("draft",))
    doc = json.loads(cli(["report", one, "-f", "json"], capsys, monkeypatch, tmp_path)[1])
    assert doc["headline"] == ["no comparison: the run's one config draft is not its baseline base"]
    two = make_quick_run(tmp_path / "two", only=("ngram", "draft"))
    doc = json.loads(cli(["report", two, "-f", "json"], capsys, monkeypatch, tmp_path)[1])
    assert doc["headline"] == ["no comparison: the baseline base is not among the run's configs (draft, ngram)"]
    base = make_quick_run(tmp_path / "base", only=("base",))
    doc = json.loads(cli(["report", base, "-f", "json"], capsys, monkeypatch, tmp_path)[1])
    assert doc["headline"] == ["no comparison: the run has only its baseline base"]


def test_the_unfinished_line_from_the_manifest_alone():
    """The line's counts: a manifest without ``cells_total`` (a run from before bench wrote it at the start) gives
    the measured count alone; more cells stored than planned (adaptive rounds past the first ones, one failed) never
    reads 'the other -1'; a finished or unsaid run has no line."""
    from specscope.report.headline import unfinished

    assert unfinished(manifest(finished=True, cells_total=4), ["ok"], "r") is None
    assert unfinished(manifest(), ["ok"], "r") is None
    assert unfinished(manifest(finished=False), ["ok", "ok"], "r") == (
        "unfinished run: 2 cells measured; `specscope bench --resume r` measures the rest"
    )
    assert unfinished(manifest(finished=False, cells_total=4), ["ok"] * 4 + ["failed"], "r") == (
        "unfinished run: 4 of 4 planned cells measured, 1 failed; `specscope bench --resume r --retry-failed` "
        "measures the failed ones again"
    )


def test_the_resume_command_can_be_pasted():
    """A run folder with a space in its name: the command is quoted for a shell (it read `bench --resume my runs/r`)."""
    from specscope.report.headline import unfinished

    line = unfinished(manifest(finished=False, cells_total=2), ["ok"], "my runs/r")
    assert (
        line
        == "unfinished run: 1 of 2 planned cells measured; `specscope bench --resume 'my runs/r'` measures the other 1"
    )
