"""Nothing in ``stats/`` or ``report/`` reads a foreign dict (issue 37, "typed records past every edge").

A cell's counters and its client facts enter as typed records (:class:`~specscope.records.SpecCounters`,
:class:`~specscope.records.ClientFacts` and its parts), validated where they are stored or read back; the statistics
and the report read their attributes. An AST walk of every module of ``src/specscope/stats`` and
``src/specscope/report`` fails on a dict read of one of them:

* ``X.get(...)``, ``X[...]``, ``"key" in X`` and ``X.items() / keys() / values()``, where ``X`` is
* an attribute named in :data:`FOREIGN` (``c.client``, ``c.counters``, ``c.client.open_loop``...), also behind
  ``(X or {})``, ``X or {}`` and ``dict(X)``, or spelled ``getattr(c, "client")``;
* a local name bound from one of those in the same function (``facts = c.client`` then ``facts.get(...)``), or a
  parameter named like one (``def f(counters): counters.get(...)``).

A second check reads the annotations: the fields themselves are records, not ``dict`` / ``Mapping``.
"""

from __future__ import annotations

import ast
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest

import specscope
from specscope.records import CellResult, ClientFacts
from specscope.stats.summary import CellSummary

SRC = Path(specscope.__file__).resolve().parent
SCANNED = ("stats", "report")

#: attribute names that hold a foreign record (a cell's counters, its client facts and their typed parts)
FOREIGN = frozenset({"client", "counters", "open_loop", "clock", "trace", "conversations", "imported"})
#: the methods of a dict that read it
DICT_READS = frozenset({"get", "items", "keys", "values", "setdefault", "pop"})


def _foreign(node: ast.expr, tainted: set[str]) -> bool:
    """True when ``node`` evaluates to one of the foreign records (module docstring)."""
    if isinstance(node, ast.Attribute):
        return node.attr in FOREIGN
    if isinstance(node, ast.Name):
        return node.id in tainted
    if isinstance(node, ast.BoolOp):  # (c.client or {})
        return any(_foreign(v, tainted) for v in node.values)
    if isinstance(node, ast.IfExp):
        return _foreign(node.body, tainted) or _foreign(node.orelse, tainted)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in ("dict", "Mapping") and node.args:  # dict(c.client)
            return _foreign(node.args[0], tainted)
        if node.func.id == "getattr" and len(node.args) >= 2:  # getattr(c, "client")
            name = node.args[1]
            return isinstance(name, ast.Constant) and name.value in FOREIGN
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DICT_READS:
        return _foreign(node.func.value, tainted)  # (c.client or {}).get("open_loop"): a part of it
    if isinstance(node, ast.Subscript):
        return _foreign(node.value, tainted)
    if isinstance(node, ast.GeneratorExp | ast.ListComp | ast.SetComp):  # (c.counters for c in cells)
        return _foreign(node.elt, tainted)
    return False


def _targets(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Tuple | ast.List):
        for elt in node.elts:
            yield from _targets(elt)


def _tainted(fn: ast.AST) -> set[str]:
    """The local names of ``fn`` bound from a foreign expression (assignment, walrus, for), to a fixpoint, and its
    parameters named like a foreign record (``def pool(counters): counters.get(...)``)."""
    args = getattr(fn, "args", None)
    every = [] if args is None else [*args.posonlyargs, *args.args, *args.kwonlyargs]
    tainted: set[str] = {a.arg for a in every if a.arg in FOREIGN}
    while True:
        before = len(tainted)
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and _foreign(node.value, tainted):
                for t in node.targets:
                    tainted.update(_targets(t))
            elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value and _foreign(node.value, tainted):
                tainted.update(_targets(node.target))
            elif isinstance(node, ast.For | ast.comprehension) and _foreign(node.iter, tainted):
                tainted.update(_targets(node.target))
        if len(tainted) == before:
            return tainted


def dict_reads(source: str) -> list[tuple[int, str]]:
    """``(line, code)`` of every dict read of a foreign record in ``source`` (module docstring)."""
    tree = ast.parse(source)
    found: dict[tuple[int, str], None] = {}
    scopes = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)]
    for scope in [tree, *scopes]:
        tainted = _tainted(scope) if scope is not tree else set()
        for node in ast.walk(scope):
            hit: ast.expr | None = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DICT_READS:
                hit = node.func.value
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                hit = node.value
            elif isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
                hit = next((c for c in node.comparators if _foreign(c, tainted)), None)
            if hit is not None and _foreign(hit, tainted):
                found[(node.lineno, ast.unparse(node)[:80])] = None
    return sorted(found)


def _modules() -> list[Path]:
    return sorted(p for d in SCANNED for p in (SRC / d).rglob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_no_dict_read_of_a_foreign_record(path: Path) -> None:
    found = dict_reads(path.read_text())
    assert not found, f"{path.relative_to(SRC)} reads a foreign record as a dict: {found}"


@pytest.mark.parametrize(
    "code",
    [
        "def f(c):\n    return c.client.get('open_loop')",
        "def f(c):\n    return (c.client or {}).get('open_loop')",
        "def f(c):\n    return getattr(c, 'client').get('open_loop')",
        "def f(c):\n    facts = c.client\n    return facts.get('open_loop')",
        "def f(c):\n    facts = (c.client or {}).get('trace')\n    return facts['time_scale']",
        "def f(c):\n    client = dict(c.client)\n    return client.get('clock') or {}",
        "def f(c):\n    return c.counters['drafts']",
        "def f(cells):\n    return [k.get('drafts') for k in (c.counters for c in cells)]",
        "def f(c):\n    return 'open_loop' in c.client",
        "def f(c):\n    return [v for conv in c.client.get('conversations') or () for v in conv.values()]",
        "def f(c):\n    if (k := c.counters) is not None:\n        return k.get('drafts')",
        "def f(counters=None):\n    c = counters or {}\n    return c.get('drafts')",
    ],
)
def test_the_scan_sees_the_dodges(code: str) -> None:
    assert dict_reads(code), code


@pytest.mark.parametrize(
    "code",
    [
        "def f(c):\n    return c.client.open_loop.rate_per_s",
        "def f(c):\n    return None if c.counters is None else c.counters.drafts",
        "def f(d):\n    return d.get('x')",
    ],
)
def test_the_scan_passes_attribute_reads(code: str) -> None:
    assert not dict_reads(code), code


def _is_mapping(tp: object) -> bool:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, __import__("types").UnionType):
        return any(_is_mapping(a) for a in typing.get_args(tp))
    from collections.abc import Mapping

    return tp is dict or origin in (dict, Mapping) or tp is Mapping


@pytest.mark.parametrize(("cls", "name"), [(CellSummary, "counters"), (CellSummary, "client"), (CellResult, "client")])
def test_the_fields_are_records(cls: type, name: str) -> None:
    hint = typing.get_type_hints(cls)[name]
    assert not _is_mapping(hint), f"{cls.__name__}.{name} is {hint}: a foreign dict, not a record"


@pytest.mark.parametrize("name", ["clock", "open_loop", "trace", "conversations", "imported"])
def test_the_client_facts_parts_are_records(name: str) -> None:
    hint = typing.get_type_hints(ClientFacts)[name]
    assert not _is_mapping(hint), f"ClientFacts.{name} is {hint}"
