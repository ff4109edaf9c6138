"""No bare ``.json()`` on a server's answer in ``src/specscope`` (issue 37: "every call that reads a server's answer
goes through the boundary").

A server's JSON answer is read by :func:`specscope.seam.answers.read_answer` (a typed record: a body of another
shape, HTML or JSON nested 100,000 deep is a named ``ServerError``) or, where any JSON is taken and each adapter
reads its own shape, :func:`specscope.strictjson.loads`. ``httpx.Response.json()`` does neither: a list where an
object was expected gave AttributeError, a deep body RecursionError, each exit 3. An AST walk of every module fails
on a call ``X.json()`` outside :data:`ALLOWED`, each entry of which says why it stays.
"""

from __future__ import annotations

import ast
from pathlib import Path

import specscope

SRC = Path(specscope.__file__).resolve().parent

#: module (relative to src/specscope) -> how many ``.json()`` calls it keeps, and why
ALLOWED: dict[str, tuple[int, str]] = {
    "truth/server.py": (2, "the truth server reading its own control requests (starlette Request.json), no answer"),
    "truth/process.py": (1, "the test harness reading the truth server's own /truth/log"),
    "checkpoint/source.py": (1, "the Hugging Face Hub's tree listing, read after hf_raise_for_status (left, issue 37)"),
    "engine/cost.py": (1, "llama.cpp's /completion timings of the cost probe specscope starts itself (left)"),
}


def _json_calls(path: Path) -> list[int]:
    """Line numbers of the ``X.json()`` calls (no arguments) in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "json"
        and not n.args
        and not n.keywords
    ]


def test_no_bare_json_on_a_response_outside_the_boundary() -> None:
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        lines = _json_calls(path)
        if lines and len(lines) != ALLOWED.get(rel, (0, ""))[0]:
            found[rel] = lines
    assert found == {}, f"bare .json() (read through seam.answers.read_answer or strictjson.loads): {found}"


def test_the_walk_finds_a_bare_json_call(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import httpx\nr = httpx.get('u')\nnames = r.json().get('data')\nok = r.json(x=1)\n")
    assert _json_calls(sample) == [3]
