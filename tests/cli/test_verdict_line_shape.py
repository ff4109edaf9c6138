"""Every verdict line of ``specscope report RUN`` has one shape, in every format (mend 63 item 1).

The headline had two: ``verdict: A/A control base-again on code at N=1: 0.99x [...] undetermined (...)`` and
``verdict: undetermined: ngram code N=1 1.03x [...]; code N=2 ...``. Each now reads
``CONFIG on WHERE: FIGURE VERDICT (WHY)``, from the one formatter (:mod:`specscope.report.verdicts`), whether it
answers for one comparison or for a config's many with one verdict.
"""

from __future__ import annotations

import json
import re

from clirun import cli
from quickrun import make_quick_run

#: ``[A/A control ]CONFIG on WHERE: FIGURE VERDICT[ (WHY)]``
SHAPE = re.compile(
    r"^(A/A control )?[\w.-]+ on (\w+ at N=\d+|\d+ comparisons \(.+\)): \S.* "
    r"(faster|slower|equivalent|undetermined|not engaged)( \(.+\))?$"
)


def test_every_verdict_line_has_one_shape(tmp_path, capsys, monkeypatch):
    run = make_quick_run(tmp_path / "run")
    code, out, _ = cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0
    lines = json.loads(out)["sections"][0]["verdicts"]
    comparisons = [v for v in lines if not v.startswith("the pick flips")]
    assert len(comparisons) == 18, lines  # 14 lines (A/A, faster, slower), then ngram's 4 undetermined ones, one each
    assert [v for v in comparisons if not SHAPE.match(v)] == []
    assert "ngram on code at N=1: 1.03x [0.92x, 1.16x] undetermined" in comparisons
    assert "draft on code at N=1: 0.87x [0.78x, 0.99x] slower" in comparisons
    # the text screen prints the same lines, each after "verdict: "
    code, text, _ = cli(["report", run, "--width", "400"], capsys, monkeypatch, tmp_path)
    printed = [line.removeprefix("verdict: ").rstrip() for line in text.splitlines() if line.startswith("verdict: ")]
    assert printed == lines
    # markdown and html, too
    for fmt, prefix in (("markdown", "- verdict: "), ("html", "<li>")):
        code, doc, _ = cli(["report", run, "-f", fmt], capsys, monkeypatch, tmp_path)
        assert code == 0 and f"{prefix}ngram on code at N=1: 1.03x [0.92x, 1.16x] undetermined" in doc


def test_many_comparisons_of_one_verdict_group_in_the_same_shape(tmp_path, capsys, monkeypatch):
    run = make_quick_run(tmp_path / "run", repeats=1)
    code, out, _ = cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    lines = json.loads(out)["sections"][0]["verdicts"]
    assert (
        "ngram on 6 comparisons (code N=1,2; edit N=1,2; prose N=1,2): 0.98x to 1.29x undetermined (TOO_FEW_ROUNDS 6)"
        in lines
    )
    assert [v for v in lines if not v.startswith("the pick flips") and not SHAPE.match(v)] == []
