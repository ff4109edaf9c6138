"""Every ``specscope ...`` command line the code can print or the docs show, collected for the fix-command tests.

Sources: the fix of every audit finding (``audit/findings.toml``, templates filled with sample facts), every vLLM
failure signature (``launch/failures.toml``), every string and f-string in ``src/specscope`` (error messages,
alarms, help: an f-string's ``{...}`` becomes a sample value named after its expression), and every line of
README.md and docs/*.md. A command starts at ``specscope COMMAND``; inside backticks it ends at the closing
backtick, in prose at the first ``;``, ``)``, `` (``, ``, ``, `` or `` or the end of the line.
"""

from __future__ import annotations

import ast
import re
import string
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "specscope"
COMMANDS = (
    "bench", "report", "audit", "surgery", "serve", "gate", "advise", "predict", "truth-server", "counters", "version"
)  # fmt: skip
_START = re.compile(rf"(`?)specscope ((?:{'|'.join(map(re.escape, COMMANDS))})\b[^\n`]*)")
_STOP = re.compile(r";|\)|\s\(|,\s|\sor\s|\sthen\s|\sand\s|\s#|\s\|\s|\s>\s|$")


@dataclass(frozen=True)
class Suggested:
    """One command line: its words after ``specscope`` and where it came from (file and line or key)."""

    line: str
    where: str


def extract(text: str, where: str) -> list[Suggested]:
    """The ``specscope ...`` command lines in ``text`` (see the module doc)."""
    out = []
    for m in _START.finditer(text):
        if text[: m.start()].endswith(("the ", "The ")) or re.match(r"\w+(?::|'s)", m.group(2)):
            continue  # a name, not a command: "the specscope gate sandbox", "specscope report: RUN"
        body = m.group(2)
        if not m.group(1):
            body = body[: _STOP.search(body).start()]  # type: ignore[union-attr]
        out.append(Suggested(body.strip().rstrip(".:"), where))
    return out


def _sample(expr: str) -> str:
    """A sample value for an f-string's ``{expr}``, by what its name says."""
    e = expr.lower()
    for words, value in (
        (("planned", "run", "folder", "path", "dir", "out", "target", "log", "file", "ckpt", "checkpoint", "source",
          " a", " b"), "runs/run-1"),
        (("subcommand",), "reindex"),
        (("config", "name", "recipe", "drafting"), "base"),
        (("level", "stable", "max", "k", "n", "hi", "lo"), "2"),
    ):  # fmt: skip
        if any(w.strip() in re.split(r"\W+", e) for w in words):
            return value
    return "x"


def _fstring(node: ast.JoinedStr) -> str:
    parts = []
    for v in node.values:
        if isinstance(v, ast.Constant):
            parts.append(str(v.value))
        elif isinstance(v, ast.FormattedValue):
            parts.append(_sample(ast.unparse(v.value)))
    return "".join(parts)


def _docstrings(tree: ast.AST) -> set[int]:
    """The docstrings of a module's module, classes and functions: documentation, never printed (help texts are
    checked by tests/cli/test_help.py)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def from_sources() -> list[Suggested]:
    """Command lines in the strings of ``src/specscope`` (adjacent literals joined, as Python joins them), but
    docstrings."""
    out = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inner = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
        inner |= _docstrings(tree)
        for node in ast.walk(tree):
            if id(node) in inner:
                continue
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
            elif isinstance(node, ast.JoinedStr):
                text = _fstring(node)
            else:
                continue
            out += extract(text, f"{path.relative_to(ROOT)}:{node.lineno}")
    return out


def _fill(template: str) -> str:
    """An audit fix template with sample facts (``{target}`` a checkpoint folder, ``{prefix}`` ``mtp.``; a field with
    a number's format spec, ``{draft:,}``, the number 2048)."""
    samples = {"target": "/models/ckpt", "prefix": "mtp.", "file": "hf_quant_config.json", "checkpoint": "/models/ckpt"}
    parsed = [(f, spec) for _, f, spec, _ in string.Formatter().parse(template) if f]
    return template.format(**{f: samples.get(f, 2048 if spec else "x") for f, spec in parsed})


def from_tables() -> list[Suggested]:
    """Command lines in the audit findings' fixes and the vLLM failure signatures' fixes."""
    out = []
    findings = tomllib.loads((SRC / "audit" / "findings.toml").read_text(encoding="utf-8"))
    for key, entry in findings.items():
        out += extract(_fill(entry.get("fix", "")), f"audit/findings.toml [{key}]")
    failures = tomllib.loads((SRC / "launch" / "failures.toml").read_text(encoding="utf-8"))
    for group, table in failures.items():
        for code, entry in table.items():
            out += extract(entry.get("fix", ""), f"launch/failures.toml [{group}.{code}]")
    return out


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def doc_lines() -> list[tuple[str, str]]:
    """``(line, where)`` of every docs line, a shell continuation (``\\`` at the end) joined to the next."""
    out = []
    for path in doc_files():
        lines = path.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            start, line = i, lines[i]
            while line.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                line = line.rstrip()[:-1] + " " + lines[i].strip()
            out.append((line, f"{path.relative_to(ROOT)}:{start + 1}"))
            i += 1
    return out


def from_docs() -> list[Suggested]:
    return [s for line, where in doc_lines() for s in extract(line, where)]


def collect() -> list[Suggested]:
    """Every command line the code can print and the docs show."""
    return from_tables() + from_sources() + from_docs()
