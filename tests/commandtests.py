"""Whether a test node id names a test that reaches specscope through a user command (issue 36: documented means
reachable). A generated doc row names such a node; :func:`command_test_problem` says why a node does not qualify
("" when it does). Shared by the doc tests of docs/engines.md, docs/workloads.md and docs/architectures.md."""

from __future__ import annotations

import ast
import re

from paths import ROOT

__all__ = ["calls", "runs_specscope", "command_test_problem"]


def calls(func: ast.FunctionDef, module: dict[str, ast.FunctionDef], seen: set[str]) -> set[str]:
    """The names ``func`` calls, following calls into the module's own functions."""
    out: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            out.add(name)
            if name in module and name not in seen:
                seen.add(name)
                out |= calls(module[name], module, seen)
    return out


def runs_specscope(tree: ast.Module, text: str, func: ast.FunctionDef) -> bool:
    """Whether ``func`` runs a specscope command as a user does: the in-process CLI (``clirun.cli`` /
    ``specscope.cli.main``, typer's runner, tests/parselog.py's ``serve --parse-log``) or the console script in a
    child process."""
    module = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    called = calls(func, module, {func.name})
    aliases = dict(re.findall(r"from parselog import (parse_log\w*) as (\w+)", text))
    called |= {real for real, alias in aliases.items() if alias in called}
    in_process = "from clirun import cli" in text or "from specscope.cli import" in text
    parselog = "from parselog import" in text and called & {"parse_log", "parse_log_json"}
    child = "specscope" in text and ({"run", "Popen"} & called)
    return bool(in_process and called & {"cli", "main", "invoke"}) or bool(parselog) or bool(child)


def _data_files_named(text: str) -> str:
    """The text of the tests/data files (``*.json``, ``*.toml``) a test module names: where its cases come from."""
    names = set(re.findall(r"[\w.-]+\.(?:json|toml)\b", text))
    return "".join(p.read_text(encoding="utf-8") for n in sorted(names) for p in sorted((ROOT / "tests/data").rglob(n)))


def command_test_problem(node: str) -> str:
    """Why ``node`` (``tests/PATH.py::test_NAME`` or ``...::test_NAME[CASE]``) is not a test that runs a specscope
    command: no such file, no such test, no such case (CASE must be written as a string in the file or in a tests/data
    JSON / TOML file it names), or a test that runs no command. "" when it is one."""
    if not node:
        return "no test named"
    m = re.fullmatch(r"(tests/[\w/]+\.py)::(test_\w+)(?:\[([^\]]+)\])?", node)
    if m is None:
        return f"{node!r}: not a node id tests/PATH.py::test_NAME[CASE]"
    path, name, case = m.groups()
    file = ROOT / path
    if not file.is_file():
        return f"{node}: no such test file"
    text = file.read_text(encoding="utf-8")
    tree = ast.parse(text)
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    if name not in funcs:
        return f"{node}: no such test"
    if case and f'"{case}"' not in text + _data_files_named(text):
        return f"{node}: no case {case!r} in {path} or the data files it names"
    if not runs_specscope(tree, text, funcs[name]):
        return f"{node}: runs no specscope command"
    return ""
