"""Issue 37: ``stats/`` and ``report/`` read server facts, the run manifest and its bench options through typed
records (:class:`specscope.facts.ServerFacts` / ``RunFacts``, :class:`specscope.store.manifest.RunManifest`,
:class:`specscope.config.RunOptions`), never by key.

The scan (AST, every module of ``src/specscope/stats`` and ``src/specscope/report``) fails on a ``.get(...)`` call or a
subscript whose receiver is one of these values or was taken from one, however it is spelled:

* a name that holds one: ``manifest``, ``options``, ``opts``, ``cfacts``, ``*_facts``, or a parameter annotated
  with a facts / manifest / options type, or with ``Mapping[str, Mapping[str, Any]]`` (the untyped per-config facts);
* an attribute that reaches one: ``x.manifest``, ``x.options``, ``x.server_facts``, ``x.facts``, ``x.stored``,
  ``x.by_config``, ``x.log_facts``, ``x.run_options``;
* anything derived from those through ``or`` / ``if``-``else``, an attribute, a subscript, ``list()`` / ``dict()`` /
  ``sorted()``..., ``.items()`` / ``.values()`` / ``.get()``, a ``{**spread}``, a comprehension or a ``for`` loop,
  and any local assigned from such an expression: ``(x.facts or {}).get(k)``, ``m = data.manifest; m.get(k)``,
  ``for e in manifest.datasets: e[k]``.

What the typed records do not type yet (sub-records the manifest keeps as the writers' dicts) is listed in
:data:`ALLOWED` with its exact count per module, so that a new read fails and a removed one asks for the count to
shrink.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "specscope"
SCANNED = ("stats", "report")

#: names that hold server facts, the manifest or its options wherever they appear in stats/ and report/
NAMES = frozenset({"manifest", "options", "opts", "server_facts", "cfacts"})
#: attributes that reach one of them (on any object)
ATTRS = frozenset({"manifest", "options", "server_facts", "facts", "stored", "by_config", "log_facts", "run_options"})
#: an annotation naming one of these types makes the parameter or local hold foreign-edge data
TYPES = (
    "ServerFacts",
    "RunFacts",
    "LogFacts",
    "RunManifest",
    "RunOptions",
    "BenchOptions",
    "CrashRecord",
    "CrashTrial",
    "ImportRecord",
    "Mapping[str, Mapping[str, Any]]",
)
#: calls through which a value stays what it was
PASS_CALLS = frozenset({"list", "dict", "tuple", "sorted", "set", "frozenset", "reversed", "iter", "next", "enumerate"})
PASS_METHODS = frozenset({"items", "values", "keys", "get", "copy", "of"})

#: (module, reads) still made on sub-records the manifest keeps as the writers' dicts: none left (the ``--dataset`` /
#: ``--trace`` provenance, the machine and the packs are typed in :mod:`specscope.store.manifest`). Exact counts: a
#: new read fails, a typed one asks for the count to shrink.
ALLOWED: dict[str, int] = {}


def _annotated(node: ast.expr | None) -> bool:
    text = ast.unparse(node) if node is not None else ""
    return any(t in text for t in TYPES)


class _Scope:
    """The names tainted in one function (or the module), and the reads found there."""

    def __init__(self, tainted: set[str]):
        self.tainted = set(tainted)

    def holds(self, node: ast.AST | None) -> bool:
        """Whether ``node`` is (derived from) server facts, the manifest or its options."""
        if node is None:
            return False
        if isinstance(node, ast.Name):
            return node.id in NAMES or node.id.endswith("_facts") or node.id in self.tainted
        if isinstance(node, ast.Attribute):
            return node.attr in ATTRS or self.holds(node.value)
        if isinstance(node, ast.Subscript | ast.Starred):
            return self.holds(node.value)
        if isinstance(node, ast.BoolOp):
            return any(self.holds(v) for v in node.values)
        if isinstance(node, ast.IfExp):
            return self.holds(node.body) or self.holds(node.orelse)
        if isinstance(node, ast.NamedExpr):
            return self.holds(node.value)
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in PASS_CALLS:
                return any(self.holds(a) for a in node.args)
            return isinstance(f, ast.Attribute) and f.attr in PASS_METHODS and self.holds(f.value)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):  # (facts, manifest) looped over
            return any(self.holds(e) for e in node.elts)
        if isinstance(node, ast.Dict):  # a copy spread from one: {**facts.stored, ...}
            return any(k is None and self.holds(v) for k, v in zip(node.keys, node.values, strict=True))
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            return self.holds(node.elt)
        if isinstance(node, ast.DictComp):
            return self.holds(node.value)
        return False

    def taint(self, target: ast.AST) -> bool:
        names = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)} - self.tainted
        self.tainted |= names
        return bool(names)

    def spread(self, body: list[ast.stmt]) -> None:
        """Taint every local assigned, looped or bound from a tainted value (to a fixed point)."""
        nodes = [n for stmt in body for n in _walk_here(stmt)]
        changed = True
        while changed:
            changed = False
            for n in nodes:
                if isinstance(n, ast.Assign) and self.holds(n.value):
                    changed |= any(self.taint(t) for t in n.targets)
                elif (
                    isinstance(n, ast.AnnAssign)
                    and n.value is not None
                    and (self.holds(n.value) or _annotated(n.annotation))
                ):
                    changed |= self.taint(n.target)
                elif isinstance(n, ast.NamedExpr) and self.holds(n.value):
                    changed |= self.taint(n.target)
                elif isinstance(n, ast.For | ast.AsyncFor | ast.comprehension) and self.holds(n.iter):
                    changed |= self.taint(n.target)
                elif isinstance(n, ast.withitem) and n.optional_vars is not None and self.holds(n.context_expr):
                    changed |= self.taint(n.optional_vars)


def _walk_here(node: ast.AST) -> list[ast.AST]:
    """``node`` and what it holds, without descending into functions or classes (their own scopes)."""
    if isinstance(node, _SCOPES):
        return [node]
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        out.append(n)
        todo += [c for c in ast.iter_child_nodes(n) if not isinstance(c, _SCOPES)]
    return out


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def foreign_reads(tree: ast.Module) -> list[tuple[int, str]]:
    """``(line, source)`` of every ``.get(...)`` / subscript on server facts, the manifest or its options."""
    found: list[tuple[int, str]] = []

    def visit(body: list[ast.stmt], scope: _Scope, args: ast.arguments | None) -> None:
        if args is not None:
            for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if a is not None and (a.arg in NAMES or a.arg.endswith("_facts") or _annotated(a.annotation)):
                    scope.tainted.add(a.arg)
        scope.spread(body)
        for stmt in body:
            for n in _walk_here(stmt):
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef):
                    visit(n.body, _Scope(scope.tainted), n.args)
                elif isinstance(n, ast.ClassDef):
                    visit(n.body, _Scope(scope.tainted), None)
                elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get":
                    if scope.holds(n.func.value):
                        found.append((n.lineno, ast.unparse(n)))
                elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and scope.holds(n.value):
                    found.append((n.lineno, ast.unparse(n)))

    visit(tree.body, _Scope(set()), None)
    return sorted(set(found))


def _scan() -> dict[str, list[tuple[int, str]]]:
    out = {}
    for package in SCANNED:
        for path in sorted((SRC / package).rglob("*.py")):
            reads = foreign_reads(ast.parse(path.read_text(encoding="utf-8")))
            if reads:
                out[f"{package}/{path.relative_to(SRC / package).as_posix()}"] = reads
    return out


def test_stats_and_report_read_no_foreign_dict() -> None:
    found = _scan()
    counts = {module: len(reads) for module, reads in found.items()}
    wanted = {module: n for module, n in ALLOWED.items() if n}
    listing = "\n".join(f"{m}:{line}: {src}" for m, reads in found.items() for line, src in reads)
    assert counts == wanted, f"reads of server facts / the manifest / its options by key:\n{listing}"


def _reads(source: str) -> list[str]:
    return [src for _line, src in foreign_reads(ast.parse(source))]


def test_the_scan_sees_through_spellings() -> None:
    """Each way a foreign dict can be read is caught; reads of the typed records' attributes are not."""
    assert _reads("def f(x):\n    return (x.facts or {}).get('k')") == ["(x.facts or {}).get('k')"]
    assert _reads("def f(data):\n    m = data.manifest\n    return m.get('k')") == ["m.get('k')"]
    assert _reads("def f(run):\n    return run.manifest['options']") == ["run.manifest['options']"]
    assert _reads("def f(opts):\n    return opts['slo_ttft_s']") == ["opts['slo_ttft_s']"]
    loop = "def f(manifest):\n    for e in list(manifest.datasets or []):\n        e.get('rows')"
    assert _reads(loop) == ["e.get('rows')"]
    comp = "def f(facts: RunFacts):\n    return [f['log_facts'] for _c, f in facts.items()]"
    assert _reads(comp) == ["f['log_facts']"]
    mapping = "def f(facts: Mapping[str, Mapping[str, Any]], c):\n    return (facts.get(c) or {}).get('model')"
    assert _reads(mapping) == ["(facts.get(c) or {}).get('model')", "facts.get(c)"]
    walrus = "def f(s: ServerFacts):\n    if (d := s.stored):\n        return d['draft']"
    assert _reads(walrus) == ["d['draft']"]
    nested = "def f(manifest):\n    def g():\n        return manifest.get('x')\n    return g()"
    assert _reads(nested) == ["manifest.get('x')"]
    typed = "def f(facts: RunFacts, c):\n    return facts.of(c).model, facts.of(c).log_facts"
    assert _reads(typed) == []
    pair = "def f(baseline_facts, manifest):\n    for src in (baseline_facts, manifest):\n        src.get('bytes')"
    assert _reads(pair) == ["src.get('bytes')"]
    client = "def f(c):\n    return (c.client or {}).get('open_loop')"  # cell client facts: their own scan
    assert _reads(client) == []
