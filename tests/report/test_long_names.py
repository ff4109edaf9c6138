"""A config name of 100,000 characters (issue 37): ``bench`` and ``import`` refuse a name over 64 characters (exit 2,
the error line naming its length with the name clipped, not echoed twice in full), and a run that already holds such
a name (written by hand or by an older specscope) still reports: the text report clips every run of more than 200
characters without a space, where rich's repr highlighter on the whole line took ~20 s (and wrapping the name in
full into the tables wrote 14 MB); Markdown and JSON keep it whole."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from clirun import cli, one_error
from run_damage import small_run

LONG = "n" * 100_000
DATA = Path(__file__).parent.parent / "data" / "imports"


def _long_name_run(path: Path) -> Path:
    """small_run with its config ``ngram`` renamed to :data:`LONG` in every table and in the manifest."""
    small_run(path)
    with sqlite3.connect(path / "run.sqlite") as db:
        for table in ("cells", "streams", "gauges", "server_facts"):
            db.execute(f"UPDATE {table} SET config=? WHERE config='ngram'", (LONG,))
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["options"]["configs"] = ["base", LONG]
    (path / "manifest.json").write_text(json.dumps(manifest))
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "--configs", f"base,{LONG}", "--dry-run"],
        ["bench", "--server", f"{LONG}=http://127.0.0.1:9", "--dry-run"],
        ["import", str(DATA / "vllm_base_r0.json"), "--config", LONG, "--out", "{tmp}/imp"],
    ],
)
def test_a_long_name_is_refused_in_one_short_line(argv, capsys, monkeypatch, tmp_path):
    code, _, err = cli([a.replace("{tmp}", str(tmp_path)) for a in argv], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and "has 100000 characters" in line and "(+99,936 characters)" in line
    assert len(err) < 2_000, len(err)


def test_a_stored_long_name_is_clipped_in_the_text_report(capsys, monkeypatch, tmp_path):
    run = _long_name_run(tmp_path / "r")
    code, out, err = cli(["report", run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "n" * 200 + "…(+99,800characters)" in "".join(out.split())  # tables fold it; spaces dropped here
    assert "n" * 201 not in "".join(out.split()).replace("n" * 200 + "…", "")
    assert len(out) < 100_000, len(out)
    code, out, err = cli(["report", run, "-f", "markdown"], capsys, monkeypatch, tmp_path)
    assert code == 0 and LONG in out


@pytest.mark.timing
def test_a_stored_long_name_renders_in_under_2_s(tmp_path):
    from rich.console import Console

    from specscope.report.build import load_document
    from specscope.report.render import print_document

    doc = load_document([_long_name_run(tmp_path / "r")])
    t0 = time.perf_counter()
    print_document(doc, Console(file=__import__("io").StringIO(), width=120))
    took = time.perf_counter() - t0
    assert took < 2.0, f"{took:.1f} s (measured 0.3 s once clipped; ~20 s with rich's highlighter)"


def test_a_long_name_is_clipped_in_chart_labels():
    """The HTML report's charts drew the 100,000-character name as a legend entry (65 s for ``report -f html``)."""
    pytest.importorskip("matplotlib")
    from specscope.report.charts import draw_chart
    from specscope.report.document import ChartData, Panel, Series

    series = (Series("base", (1.0, 2.0), (1.0, 2.0)), Series(LONG, (1.0, 2.0), (1.3, 2.6)))
    chart = ChartData("c", "t", "lines", (Panel(f"speedup of {LONG}", "N", "x", series),))
    svg = draw_chart(chart).svg
    assert "n" * 48 + "…(+99,952 characters)" in svg and "n" * 49 not in svg  # matplotlib keeps each text as a comment
