"""docs/truth-script.md, the layout of ``specscope truth-server --script FILE``, is generated from the script's own
declaration (:mod:`specscope.truth.scriptdoc`: the pydantic models' fields, types, defaults and the attributes of
their docstrings), so a field added or reworded fails this test until ``python scripts/gen_truth_script_doc.py``
runs (mend 63 item 5). Its example is served in tests/cli/test_doc_examples.py."""

from __future__ import annotations

from paths import ROOT
from specscope.truth.script import MetricsPlan, ResponsePlan, TruthScript
from specscope.truth.scriptdoc import field_rows, render


def test_the_committed_page_is_the_generated_one():
    page = (ROOT / "docs" / "truth-script.md").read_text("utf-8")
    assert render() == page, "docs/truth-script.md is stale: run python scripts/gen_truth_script_doc.py"


def test_every_field_is_a_row_with_its_meaning():
    for model in (TruthScript, ResponsePlan, MetricsPlan):
        rows = field_rows(model)
        assert [r.name for r in rows] == list(model.model_fields), model.__name__
        assert [r.name for r in rows if not r.meaning] == [], model.__name__
    by_name = {r.name: r for r in field_rows(ResponsePlan)}
    assert by_name["ttft_ms"].default == "`0.0`" and by_name["output_tokens"].default == "`16`"
    assert by_name["drafts"].meaning.startswith("added to the server's spec-decode counters")
    assert by_name["usage"].kind == "`final_chunk`, `last_choice_chunk` or `absent`"
