"""The edit corpus: 64 distinct, valid, runnable modules of 40-80 lines, and well-defined renames."""

from __future__ import annotations

import ast
import contextlib
import io
import keyword
import re

import pytest

from specscope.errors import ConfigError
from specscope.workload import load_pack
from specscope.workload.edit_corpus import apply_rename, edit_modules, rename_candidates, rename_task

MODULES = edit_modules()


class _Rename(ast.NodeTransformer):
    """Reference rename on the syntax tree (independent of the textual rename under test)."""

    def __init__(self, old: str, new: str):
        self.old, self.new = old, new

    def _fix(self, node, attr):
        if getattr(node, attr) == self.old:
            setattr(node, attr, self.new)

    def generic_visit(self, node):
        for cls, attr in (
            (ast.Name, "id"),
            (ast.Attribute, "attr"),
            (ast.FunctionDef, "name"),
            (ast.ClassDef, "name"),
            (ast.arg, "arg"),
            (ast.keyword, "arg"),
        ):
            if isinstance(node, cls):
                self._fix(node, attr)
        return super().generic_visit(node)


def _run_main(text: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(text, "<edit module>", "exec"), {"__name__": "__main__"})  # noqa: S102 - our own corpus
    return out.getvalue()


def test_corpus_has_64_distinct_modules_with_distinct_file_names():
    assert len(MODULES) == 64
    assert [m.index for m in MODULES] == list(range(64))
    assert len({m.text for m in MODULES}) == 64
    assert len({m.name for m in MODULES}) == 64
    assert all(m.name.endswith(".py") for m in MODULES)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.name)
def test_module_is_valid_python_of_40_to_80_lines_and_runs(module):
    text = module.text
    assert text.endswith("\n") and not text.endswith("\n\n")
    n_lines = len(text.splitlines())
    assert 40 <= n_lines <= 80
    tree = ast.parse(text)
    defined = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert defined[0] == module.cls and defined[-1] == "main"
    assert set(module.functions) <= set(defined)
    assert len(module.functions) >= 1
    assert _run_main(text).strip() != ""  # main() prints something, without raising


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.name)
def test_every_candidate_rename_is_well_defined(module):
    candidates = rename_candidates(module)
    assert len(candidates) >= 3
    for old, new in candidates:
        assert new.isidentifier() and not keyword.iskeyword(new)
        assert re.search(rf"\b{new}\b", module.text) is None
        occurrences = len(re.findall(rf"\b{old}\b", module.text))
        assert occurrences >= 2
        renamed = apply_rename(module.text, old, new)
        # the textual rename equals the syntax-tree rename, and nothing else changed
        assert ast.dump(ast.parse(renamed)) == ast.dump(_Rename(old, new).visit(ast.parse(module.text)))
        before, after = module.text.split("\n"), renamed.split("\n")
        assert len(before) == len(after)
        changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
        assert changed == [i for i, line in enumerate(before) if re.search(rf"\b{old}\b", line)]
        assert 0 not in changed  # the prefill line never changes
        assert len(re.findall(rf"\b{new}\b", renamed)) == occurrences


@pytest.mark.parametrize("seed", [0, 1])
def test_pack_rename_runs_the_same_as_the_original(seed):
    for p in load_pack("edit", seed=seed):
        module = MODULES[p.meta["index"]]
        old, new = p.meta["rename"]
        assert (old, new) in rename_candidates(module)
        assert p.meta["occurrences"] == len(re.findall(rf"\b{old}\b", module.text))
        out_old, out_new = _run_main(module.text), _run_main(p.expected_output)
        # a renamed record class shows its new name in dataclass reprs; nothing else may differ
        assert out_new == (apply_rename(out_old, old, new) if old == module.cls else out_old)


def test_seed_changes_which_identifier_is_renamed():
    tasks0 = [rename_task(i, seed=0) for i in range(64)]
    tasks1 = [rename_task(i, seed=1) for i in range(64)]
    assert sum(a.old != b.old for a, b in zip(tasks0, tasks1, strict=True)) >= 32
    assert rename_task(5, seed=0) == tasks0[5]


def test_rename_task_index_out_of_range_is_a_config_error():
    with pytest.raises(ConfigError) as info:
        rename_task(64, seed=0)
    assert info.value.found == 64
    assert info.value.expected == "0..63"
