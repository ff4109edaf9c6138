"""benchmarks/_results.py: a benchmark replaces only its own section of RESULTS.md (issue 30, benchmark hygiene)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "_results", Path(__file__).resolve().parents[1] / "benchmarks" / "_results.py"
)
assert _spec is not None and _spec.loader is not None
results = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(results)


def test_a_section_is_appended_then_replaced_and_nothing_else_moves(tmp_path):
    p = tmp_path / "RESULTS.md"
    head = "# Benchmark results\n\nhand-written notes\n"
    p.write_text(head)
    results.write_section(p, "alpha", "## Alpha\n\n| a |\n")
    results.write_section(p, "beta", "## Beta\n")
    before = p.read_text()
    assert before.startswith(head)
    results.write_section(p, "alpha", "## Alpha, again\n")
    after = p.read_text()
    assert after == before.replace("## Alpha\n\n| a |\n", "## Alpha, again\n")
    assert results.read_section(p, "alpha") == "## Alpha, again\n"
    assert results.read_section(p, "beta") == "## Beta\n"
    assert results.read_section(p, "gamma") is None
    assert sorted(x.name for x in tmp_path.iterdir()) == ["RESULTS.md"]  # no temp file left


def test_refusals(tmp_path):
    p = tmp_path / "RESULTS.md"
    with pytest.raises(ValueError, match="section names"):
        results.write_section(p, "Bad Name", "x")
    with pytest.raises(ValueError, match="marker"):
        results.write_section(p, "a", "<!-- /results: a -->")
    p.write_text("<!-- /results: a -->\n<!-- results: a -->\n")  # markers out of order: never guess
    with pytest.raises(ValueError, match="exactly one"):
        results.write_section(p, "a", "x")
    assert p.read_text() == "<!-- /results: a -->\n<!-- results: a -->\n"


def test_the_repository_results_file_has_the_client_overhead_section_once():
    text = results.RESULTS.read_text()
    assert text.count("<!-- results: client_overhead -->\n") == 1
    assert text.count("<!-- /results: client_overhead -->") == 1


def test_every_benchmark_section_is_marked_once():
    """quantize_draft.py, predict_holdout.py and fuzz_deep.py write their own sections too (issue 30)."""
    text = results.RESULTS.read_text()
    for name in ("quantize_draft", "predict_holdout", "fuzz_deep"):
        assert text.count(f"<!-- results: {name} -->\n") == 1, name
        assert text.count(f"<!-- /results: {name} -->") == 1, name
