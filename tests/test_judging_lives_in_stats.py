"""The judging rules live in ``stats/`` (issue 33): an AST walk of ``src/specscope`` that fails where code outside
``stats/`` (any package: the screens, bench, gate, client, launch, ...) compares a figure with a judging threshold,
computes a statistic (mean, median, percentile, a fit; ``sum(xs) / len(xs)`` too), or does arithmetic on a judged
figure (a speedup, its interval, an acceptance rate) beyond unit conversion.

Allowed (rendering): multiplying or dividing by a power of ten (a fraction as a percent, ns as s) and rounding; and
the one entry of :data:`ALLOWED`, with its reason.
:data:`TO_MOVE` names what is still outside ``stats/`` (file, function, kind): the test fails on anything new, and on
an entry that no longer occurs (so the list only shrinks).
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "specscope"

#: names of the judging rule's numbers (stats/verdict.py, stats/low_acceptance.py, stats/noise.py, stats/speedup.py)
THRESHOLDS = {
    "DEFAULT_MIN_EFFECT",
    "MIN_VERDICT_ROUNDS",
    "NEAR_ZERO",
    "FAR_BELOW",
    "MIN_DRAFTS",
    "COLD_DROP",
    "WARMUP_CELLS",
    "CONFIDENCE",
    "min_effect",
}
#: judged figures: attributes that hold a verdict's numbers
JUDGED = {"speedup", "low", "high", "gain", "acceptance_rate", "acceptance_length", "config_mean", "baseline_mean"}
#: statistics that belong in stats/ wherever they are computed (every package but stats/ is walked)
STATISTICS = {"mean", "median", "percentile", "quantile", "fmean", "geometric_mean", "polyfit", "stdev", "std"}
#: the short allow-list: (file, function, kind) -> why it is not stats/' work
ALLOWED: dict[tuple[str, str, str], str] = {
    ("client/checks.py", "lag_stats", "statistic"): "the client's self-check of its own event loop (p50/p99 of wake-up"
    " lag), measured on the hot path; client/ sits below stats/ in the layers and never reads a judged figure",
}
ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)

#: (file relative to src/specscope, function, kind) -> occurrences still outside stats/: work left (issue 33). Empty:
#: the report's descriptive tables and charts render :mod:`specscope.stats.descriptive` (means, medians, per-stream
#: quantiles) and :func:`specscope.stats.stopping.design_cost`. Nothing may be added here.
TO_MOVE: Counter[tuple[str, str, str]] = Counter()


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript):
        return _name(node.value)
    if isinstance(node, ast.Call):
        return _name(node.func)
    return None


def _attr(node: ast.AST) -> str | None:
    """The attribute a figure is read from (``c.speedup`` -> ``speedup``), None for a bare name."""
    return node.attr if isinstance(node, ast.Attribute) else None


def _power_of_ten(node: ast.AST) -> bool:
    if not isinstance(node, ast.Constant) or not isinstance(node.value, int | float):
        return False
    v = abs(float(node.value))
    return v in (10.0, 100.0, 1e3, 1e6, 1e9, 1024.0, 2.0**20, 2.0**30)


def _hand_made_mean(node: ast.AST) -> bool:
    """``sum(xs) / len(xs)``: a mean written out by hand."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)):
        return False
    return all(isinstance(s, ast.Call) and _name(s.func) == f for s, f in ((node.left, "sum"), (node.right, "len")))


def _findings(path: Path) -> Counter[tuple[str, str, str]]:
    rel = path.relative_to(SRC).as_posix()
    out: Counter[tuple[str, str, str]] = Counter()
    tree = ast.parse(path.read_text())
    from_stats = {  # a statistic imported from stats/ is stats/' work, called here
        a.asname or a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("specscope.stats")
        for a in n.names
    }
    for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)] + [tree]:
        where = getattr(fn, "name", "<module>")
        body = fn.body if isinstance(fn, ast.Module) else [fn]
        nodes = [n for b in body for n in ast.walk(b)] if isinstance(fn, ast.Module) else list(ast.walk(fn))
        for node in nodes:
            if isinstance(fn, ast.Module) and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                break
            ordered = isinstance(node, ast.Compare) and any(isinstance(o, ORDER) for o in node.ops)
            if isinstance(node, ast.Compare) and ordered:
                sides = (node.left, *node.comparators)
                if {_name(s) for s in sides} & THRESHOLDS or {_attr(s) for s in sides} & JUDGED:
                    out[(rel, where, "threshold")] += 1
            imported = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in from_stats
            if isinstance(node, ast.Call) and _name(node.func) in STATISTICS and not imported:
                out[(rel, where, "statistic")] += 1
            if _hand_made_mean(node):
                out[(rel, where, "statistic")] += 1
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult | ast.Div):
                sides = (node.left, node.right)
                if {_attr(s) for s in sides} & JUDGED and not any(_power_of_ten(s) for s in sides):
                    out[(rel, where, "arithmetic")] += 1
    return out


def _all() -> Counter[tuple[str, str, str]]:
    found: Counter[tuple[str, str, str]] = Counter()
    for path in sorted(SRC.rglob("*.py")):
        if path.relative_to(SRC).parts[0] != "stats":
            found += _findings(path)
    return found


def test_no_judging_outside_stats_beyond_the_named_work_left():
    found = _all()
    for key in ALLOWED:
        assert found.pop(key, 0) > 0, f"allowed but no longer there: take it out of ALLOWED: {key}"
    new = {k: v for k, v in found.items() if v > TO_MOVE.get(k, 0)}
    assert not new, f"judging outside stats/ (move it into stats/, or render the judgement's figure): {new}"
    gone = {k: v for k, v in TO_MOVE.items() if found.get(k, 0) < v}
    assert not gone, f"moved into stats/: take these out of TO_MOVE: {gone}"


def test_the_walk_sees_a_threshold_a_statistic_and_arithmetic(tmp_path, monkeypatch):
    """The walk is not blind: a screen module comparing a speedup with the minimum effect, taking a mean (by name
    and by hand) and dividing two speedups is found four times."""
    screen = tmp_path / "report"
    screen.mkdir()
    (screen / "bad.py").write_text(
        "def f(c, xs, min_effect):\n"
        "    if c.speedup - 1 > min_effect:\n"
        "        return mean(xs) + sum(xs) / len(xs)\n"
        "    return c.speedup * 100\n"
    )
    monkeypatch.setattr(__import__(__name__), "SRC", tmp_path)
    found = Counter({("report/bad.py", "f", "threshold"): 1, ("report/bad.py", "f", "arithmetic"): 1})
    assert _findings(screen / "bad.py") == found + Counter({("report/bad.py", "f", "statistic"): 2})
