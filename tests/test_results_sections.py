"""benchmarks/_results.py: a benchmark replaces only its own section of RESULTS.md (issue 30: client_overhead.py used
to overwrite the whole file)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from paths import ROOT


def _module():
    spec = importlib.util.spec_from_file_location("bench_results", ROOT / "benchmarks" / "_results.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_section_is_replaced_and_every_other_byte_kept(tmp_path: Path) -> None:
    r = _module()
    f = tmp_path / "RESULTS.md"
    before = (
        "# Results\n\nhand-written notes\n\n<!-- results: a -->\n## A\n\nold a\n<!-- /results: a -->\n\n## B\n\nb\n"
    )
    f.write_text(before)
    r.write_section(f, "a", "## A\n\nnew a, two\nlines")
    assert f.read_text() == before.replace("old a", "new a, two\nlines")
    assert r.read_section(f, "a") == "## A\n\nnew a, two\nlines\n"
    r.write_section(f, "c", "## C\n\nc")  # absent: appended at the end, the rest untouched
    assert (
        f.read_text()
        == before.replace("old a", "new a, two\nlines") + "\n<!-- results: c -->\n## C\n\nc\n<!-- /results: c -->\n"
    )
    assert r.read_section(f, "missing") is None


def test_the_repository_results_file_has_one_pair_of_markers_per_section() -> None:
    text = (ROOT / "benchmarks" / "RESULTS.md").read_text()
    for name in ("fuzz_deep",):
        assert text.count(f"<!-- results: {name} -->\n") == 1 and text.count(f"<!-- /results: {name} -->") == 1


@pytest.mark.parametrize("name,body", [("Bad Name", "x"), ("ok", "<!-- /results: ok -->")])
def test_bad_names_and_marker_lines_in_a_body_are_refused(tmp_path: Path, name: str, body: str) -> None:
    with pytest.raises(ValueError):
        _module().write_section(tmp_path / "R.md", name, body)
