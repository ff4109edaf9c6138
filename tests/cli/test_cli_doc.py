"""docs/cli.md's table of every option is the app's own declarations (issue 37): regenerated here and compared,
so an option added, renamed or reworded in the code fails this test until `python scripts/gen_cli_doc.py` runs."""

from __future__ import annotations

from paths import ROOT
from specscope.cli.clidoc import option_rows, render


def test_the_committed_option_table_is_the_generated_one():
    page = (ROOT / "docs" / "cli.md").read_text("utf-8")
    assert render(page) == page, "docs/cli.md is stale: run python scripts/gen_cli_doc.py"


def test_every_visible_option_of_every_command_is_a_row_and_no_alias_is():
    rows = option_rows()
    by_command = {}
    for command, flags, value, meaning in rows:
        by_command.setdefault(command, []).append((flags, value, meaning))
    assert {"bench", "report", "advise", "surgery graft", "import", "export"} <= set(by_command)
    assert ("`--slo`", "`NAME=DURATION`") in [(f, v) for f, v, _ in by_command["advise"]]
    assert not any("--levels" in f for f, _, _ in by_command["bench"])  # an old name: a hidden alias
    assert all(meaning for _, _, _, meaning in rows), [r for r in rows if not r[3]]
