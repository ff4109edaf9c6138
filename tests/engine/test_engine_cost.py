"""The cost probe times a real model on the embedded engine; no import circle through engine.draft."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytest.importorskip("xllamacpp")

import specscope.engine  # noqa: E402
from specscope.engine import find_model_file, measure_token_cost_ns  # noqa: E402


def test_cost_probe_measures_a_positive_cost_per_token() -> None:
    cost_ns = measure_token_cost_ns(find_model_file(), threads=1, n_tokens=8)
    assert cost_ns > 1e4  # more than 10 us per token (a few ms here): nanoseconds, not ms or s; load only adds


@pytest.mark.timing  # a wall-clock bound: a loaded machine stretches each token's decode time
def test_cost_probe_of_a_135m_model_is_under_10_s_per_token() -> None:
    """SmolLM2-135M on one thread decodes a token in a few ms on the 2-core dev machine: 10 s is a margin of over
    1,000x, there to catch a figure in the wrong unit (x1,000 or x10^6), not a slow machine."""
    assert measure_token_cost_ns(find_model_file(), threads=1, n_tokens=8) < 1e10


def _engine_imports() -> dict[str, set[str]]:
    """specscope.engine module -> the engine modules it imports anywhere (also inside functions)."""
    root = Path(specscope.engine.__file__).parent
    graph: dict[str, set[str]] = {}
    for path in root.glob("*.py"):
        name = f"specscope.engine.{path.stem}"
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("specscope.engine."):
                targets.add(node.module)
            elif isinstance(node, ast.Import):
                targets |= {a.name for a in node.names if a.name.startswith("specscope.engine.")}
        graph[name] = targets
    return graph


def test_engine_modules_form_no_import_circle() -> None:
    graph = _engine_imports()
    assert "specscope.engine.server" not in graph["specscope.engine.cost"]
    assert graph["specscope.engine.child"] == {"specscope.engine.config"}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph.get(start, set()) - seen:
            if nxt == goal or reaches(nxt, goal, seen | {nxt}):
                return True
        return False

    circles = [m for m in graph if m != "specscope.engine" and reaches(m, m, set())]
    assert circles == []
