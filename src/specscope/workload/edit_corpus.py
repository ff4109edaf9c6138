"""The edit pack's corpus: 64 distinct, valid Python modules and a well-defined rename task for each.

Each module (40 to 80 lines) is assembled from one domain of ``data/edit_domains.txt`` and a subset of
the function templates in :mod:`specscope.workload.edit_templates`. The corpus itself is fixed: the
choice of functions and sample values comes from a per-domain ``random.Random`` seeded with a constant,
so module ``i`` is the same text on every machine and every Python >= 3.11. The pack *seed* only picks
which identifier to rename, and to what.

A rename is *well defined* when the identifier:

* occurs at least twice, and every whole-word occurrence in the text is a code identifier (counted on
  the AST: names, attributes, definitions, arguments, keywords), so none hides in a string or comment;
* is not an attribute or keyword argument of code outside the module (``.values()``, ``sorted(key=)``);
* is not part of any other identifier in the module (``items`` inside ``top_items`` would make a
  textual rename ambiguous), and does not occur on the module's first line (the prefill line);
* has a replacement that is a valid, non-keyword identifier and occurs nowhere in the module.

Then the expected answer is the module with every whole-word occurrence replaced; every other line is
byte-for-byte the original.

Source: specscope's own content; task shape from seeds/000 ("rename every occurrence of ... every other
line must come back byte-for-byte identical").
"""

from __future__ import annotations

import ast
import keyword
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from specscope.errors import ConfigError
from specscope.workload import edit_templates as T

__all__ = ["EditModule", "RenameTask", "edit_modules", "rename_candidates", "rename_task", "apply_rename"]

MIN_LINES = 40
MAX_LINES = 80
_CORPUS_SEED = "specscope-edit-corpus-v1"

# Renames a refactoring would plausibly ask for: exact local names, then function-name prefixes.
_LOCAL_RENAMES = {
    "records": "entries",
    "parsed": "collected",
    "buckets": "groups",
    "ranked": "ordered",
    "index": "lookup",
    "problems": "issues",
    "totals": "sums",
    "grand_total": "overall",
    "lines": "csv_lines",
    "values": "amounts",
    "merged": "combined",
    "factor": "multiplier",
    "threshold": "cutoff",
    "limit": "max_count",
    "start": "offset",
    "key": "ident",
    "members": "group_members",
    "SAMPLE_ROWS": "EXAMPLE_ROWS",
    "below_threshold": "under_threshold",
    "to_csv_lines": "as_csv_lines",
}
_PREFIX_RENAMES = (
    ("total_", "sum_"),
    ("group_by_", "bucket_by_"),
    ("top_", "best_"),
    ("index_by_", "lookup_by_"),
    ("validate_", "check_"),
    ("share_by_", "fraction_by_"),
    ("merge_", "combine_"),
    ("scale_", "rescale_"),
    ("page_of_", "slice_of_"),
    ("parse_", "read_"),
)


@dataclass(frozen=True)
class EditModule:
    """One module of the corpus: ``index`` in 0..63, file ``name`` (``stem.py``), ``text`` (ends in ``\\n``),
    ``cls`` its record class, ``method`` and ``const`` names (``const`` is None when unused)."""

    index: int
    name: str
    text: str
    cls: str
    method: str
    const: str | None
    functions: tuple[str, ...]


@dataclass(frozen=True)
class RenameTask:
    """Rename ``old`` to ``new`` in ``module``; ``expected`` is the exact renamed text."""

    module: EditModule
    old: str
    new: str
    expected: str
    occurrences: int


def _domains() -> list[list[str]]:
    text = resources.files("specscope.workload").joinpath("data/edit_domains.txt").read_text("utf-8")
    rows = [line.split("|") for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return rows


def _imports(needed: set[tuple[str, str]]) -> list[str]:
    by_module: dict[str, set[str]] = {}
    for module, name in needed:
        by_module.setdefault(module, set()).add(name)
    return [f"from {m} import {', '.join(sorted(by_module[m]))}" for m in sorted(by_module)]


def _build(index: int, row: list[str]) -> EditModule:
    stem, cls, s, plural, id_f, grp, amt, cnt, method, const_def, title, groups = row
    const_name, const_value = const_def.split("=")
    group_a, group_b = groups.split(",")
    rng = random.Random(f"{_CORPUS_SEED}:{index}")
    prefix = "".join(part[0] for part in stem.split("_")).upper()
    samples = []  # 3 rows of (id, group, amount, count)
    for k in range(3):
        samples.append(
            (
                f"{prefix}-{rng.randint(100, 999)}",
                (group_a, group_b, group_a)[k],
                round(rng.uniform(0.5, 90.0), 2),
                rng.randint(1, 40),
            )
        )
    subst = dict(C=cls, s=s, P=plural, id=id_f, grp=grp, amt=amt, cnt=cnt, method=method, CONST=const_name)

    use_parse = rng.random() < 0.5
    pool = list(T.FUNCTION_TEMPLATES)
    rng.shuffle(pool)
    target = rng.randint(3, 6)

    def assemble(chosen: list[T.FunctionTemplate]) -> str:
        needed: set[tuple[str, str]] = {("dataclasses", "dataclass")}
        for ft in chosen:
            needed.update(ft.imports)
        if use_parse:
            needed.update({("typing", "Iterable"), ("typing", "Mapping")})
        parts = [f'"""{title}."""', "", "from __future__ import annotations", "", *_imports(needed)]
        consts: list[str] = []
        if any(ft.uses_const for ft in chosen):
            consts.append(f"{const_name} = {const_value}")
        if use_parse:
            cells = [
                "{" + f'"{id_f}": "{i}", "{grp}": "{g}", "{amt}": "{a:.2f}", "{cnt}": "{c}"' + "}"
                for i, g, a, c in samples
            ]
            consts.append(T.SAMPLE_ROWS_TEMPLATE.substitute(row0=cells[0], row1=cells[1], row2=cells[2]))
        if consts:
            parts += ["", "\n\n".join(consts)]
        blocks = [T.CLASS_TEMPLATE.substitute(subst)]
        if use_parse:
            blocks.append(T.PARSE_TEMPLATE.substitute(subst))
        blocks += [ft.code.substitute(subst) for ft in chosen]
        if use_parse:
            head = T.MAIN_HEAD_PARSED.substitute(subst)
        else:
            lits = [f'"{i}", "{g}", {a!r}, {c}' for i, g, a, c in samples]
            head = T.MAIN_HEAD_LITERAL.substitute(subst, row0=lits[0], row1=lits[1], row2=lits[2])
        blocks.append("\n".join([head, *(ft.demo.substitute(subst) for ft in chosen)]))
        blocks.append('if __name__ == "__main__":\n    main()')
        return "\n".join(parts) + "\n\n\n" + "\n\n\n".join(blocks) + "\n"

    chosen: list[T.FunctionTemplate] = []
    for ft in pool:
        trial = assemble([*chosen, ft])
        if trial.count("\n") > MAX_LINES:
            continue
        if len(chosen) >= target and assemble(chosen).count("\n") >= MIN_LINES:
            break
        chosen.append(ft)
    text = assemble(chosen)
    n_lines = text.count("\n")
    if not MIN_LINES <= n_lines <= MAX_LINES:  # pragma: no cover - corpus is fixed; guarded by tests
        raise AssertionError(f"edit module {stem} has {n_lines} lines")
    functions = tuple(ft.code.substitute(subst).split("(", 1)[0].removeprefix("def ") for ft in chosen)
    const = const_name if any(ft.uses_const for ft in chosen) else None
    return EditModule(index, f"{stem}.py", text, cls, method, const, functions)


@lru_cache(maxsize=1)
def edit_modules() -> tuple[EditModule, ...]:
    """The 64 modules of the edit corpus, in corpus order (``index`` 0..63). Deterministic; cached."""
    return tuple(_build(i, row) for i, row in enumerate(_domains()))


def _ast_identifier_counts(tree: ast.AST) -> dict[str, int]:
    counts: dict[str, int] = {}

    def bump(name: str | None) -> None:
        if name:
            counts[name] = counts.get(name, 0) + 1

    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            bump(node.id)
        elif isinstance(node, ast.Attribute):
            bump(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bump(node.name)
        elif isinstance(node, ast.arg):
            bump(node.arg)
        elif isinstance(node, ast.keyword):
            bump(node.arg)
        elif isinstance(node, ast.alias):
            bump(node.name)
            bump(node.asname)
    return counts


def _foreign_names(tree: ast.Module) -> set[str]:
    """Names that belong to code outside the module: attributes that are not members of a class defined
    here (``.values()`` on a dict), and keyword arguments to functions not defined here
    (``sorted(key=...)``). Renaming one of those would change what the program calls."""
    own_functions = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    members: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    members.add(item.target.id)
                elif isinstance(item, ast.FunctionDef):
                    members.add(item.name)
    foreign: set[str] = set()
    for sub in ast.walk(tree):
        if isinstance(sub, ast.Attribute) and sub.attr not in members:
            foreign.add(sub.attr)
        elif isinstance(sub, ast.Call):
            if not (isinstance(sub.func, ast.Name) and sub.func.id in own_functions):
                foreign.update(k.arg for k in sub.keywords if k.arg)
    return foreign


def _new_name(old: str, module: EditModule) -> str | None:
    if old == module.cls:
        return old.removesuffix("Record") + ("Entry" if old.endswith("Record") else "Record")
    if old == module.method:
        return f"get_{old}"
    if old == module.const:
        return f"DEFAULT_{old}"
    if old in _LOCAL_RENAMES:
        return _LOCAL_RENAMES[old]
    for before, after in _PREFIX_RENAMES:
        if old.startswith(before):
            return after + old[len(before) :]
    if old.endswith("_range"):
        return old.removesuffix("_range") + "_bounds"
    return None


def _word_count(name: str, text: str) -> int:
    return len(re.findall(rf"\b{re.escape(name)}\b", text))


def rename_candidates(module: EditModule) -> list[tuple[str, str]]:
    """All well-defined ``(old, new)`` renames for ``module`` (see the module docstring), sorted by ``old``."""
    return list(_candidates(module))


@lru_cache(maxsize=128)
def _candidates(module: EditModule) -> tuple[tuple[str, str], ...]:
    tree = ast.parse(module.text)
    counts = _ast_identifier_counts(tree)
    foreign = _foreign_names(tree)
    identifiers = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", module.text))
    first_line = module.text.split("\n", 1)[0]
    found: list[tuple[str, str]] = []
    for old, n_ast in sorted(counts.items()):
        new = _new_name(old, module)
        if new is None or n_ast < 2 or _word_count(old, module.text) != n_ast or old in foreign:
            continue
        if any(old in other and other != old for other in identifiers):
            continue
        if _word_count(old, first_line) or _word_count(new, module.text):
            continue
        if not new.isidentifier() or keyword.iskeyword(new):
            continue
        found.append((old, new))
    return tuple(found)


def apply_rename(text: str, old: str, new: str) -> str:
    """``text`` with every whole-word ``old`` replaced by ``new`` (exact for a well-defined rename)."""
    return re.sub(rf"\b{re.escape(old)}\b", new, text)


def rename_task(index: int, *, seed: int) -> RenameTask:
    """The rename task for corpus module ``index`` under pack ``seed``: one candidate chosen by
    ``random.Random(f"edit:{seed}:{index}")``. Raises ConfigError for an index outside the corpus."""
    modules = edit_modules()
    if not 0 <= index < len(modules):
        raise ConfigError(
            "edit module index out of range",
            found=index,
            expected=f"0..{len(modules) - 1}",
            fix="ask for at most 64 edit prompts",
        )
    module = modules[index]
    candidates = rename_candidates(module)
    old, new = random.Random(f"edit:{seed}:{index}").choice(candidates)
    return RenameTask(module, old, new, apply_rename(module.text, old, new), _word_count(old, module.text))
