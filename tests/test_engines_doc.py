"""docs/engines.md's generated sections equal what the adapters' declarations give, and every row an adapter marks
read reaches a figure through a user command (issue 34): its test node id exists, the test runs the CLI (directly or
through a helper of its module), and the field's name is written by the test's own input or by the truth server the
test runs. A reader no command reaches fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from commandtests import command_test_problem
from commandtests import runs_specscope as _runs_specscope
from specscope.adapters.doc import all_details, per_response_table, render
from specscope.adapters.names import adapter_metrics

ROOT = Path(__file__).resolve().parents[1]
TRUTH = "\n".join(p.read_text() for p in sorted((ROOT / "src/specscope/truth").glob("*.py")))

READ_ROWS = [(engine, r) for engine, mod in adapter_metrics() for r in mod.ROWS if r.status == "read"]


def test_the_committed_doc_is_the_generated_one() -> None:
    text = (ROOT / "docs/engines.md").read_text()
    assert render(text) == text, "docs/engines.md is stale: run python -m specscope.adapters.doc docs/engines.md"


@pytest.mark.parametrize(("engine", "row"), READ_ROWS, ids=[f"{e}:{r.name}" for e, r in READ_ROWS])
def test_a_read_row_has_a_command_level_test(engine, row) -> None:
    assert row.test, f"{engine} {row.name}: marked read without a command-level test"
    path, _, name = row.test.partition("::")
    file = ROOT / path
    assert file.is_file() and path.startswith("tests/"), f"{row.test}: no such test file"
    text = file.read_text()
    tree = ast.parse(text)
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert name.startswith("test_") and name in funcs, f"{row.test}: no such test"
    assert _runs_specscope(tree, text, funcs[name]), f"{row.test}: runs no specscope command"
    stem = re.sub(r"_(total|sum|count)$", "", row.name.rpartition(".")[2])
    source = text + (TRUTH if "TruthServer" in text else "")
    assert stem in source, f"{row.test}: neither its input nor the truth server it runs writes {stem!r}"


def test_the_checker_refuses_a_unit_test_and_a_missing_test() -> None:
    """The check above can fail: a unit test of a reader (no command) and a node id that does not exist."""
    text = (ROOT / "tests/client/test_trtllm_llamacpp_sources.py").read_text()
    tree = ast.parse(text)
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_"))
    assert not _runs_specscope(tree, text, func)
    cli_text = (ROOT / "tests/cli/test_counters_engines_cli.py").read_text()
    cli_tree = ast.parse(cli_text)
    assert "test_no_such_row" not in {n.name for n in cli_tree.body if isinstance(n, ast.FunctionDef)}
    sglang = next(n for n in cli_tree.body if isinstance(n, ast.FunctionDef) and n.name == "test_sglang_counters")
    assert _runs_specscope(cli_tree, cli_text, sglang)


def test_the_per_response_table_is_generated_and_a_hand_edit_is_stale() -> None:
    """The per-response table comes from the readers' ``FIELDS`` (issue 34): a row edited by hand in the doc, or a
    declaration the doc lacks, makes the doc stale."""
    text = (ROOT / "docs/engines.md").read_text()
    row = (
        "| vLLM | same | `.num_spec_steps` | read | `verify_steps` | vllm-summary-llamaswap-1032; CLI: "
        "`tests/cli/test_per_response_shapes_cli.py::test_bench_reads_each_per_response_shape[vllm]` |"
    )
    assert row in per_response_table() and row in text
    assert render(text.replace(row, row.replace("`verify_steps`", "`drafts`"))) == text
    dropped = text.replace(row + "\n", "")
    assert render(dropped) != dropped


def test_every_case_id_a_per_response_row_names_exists() -> None:
    """A case id in a per-response row's test column (``vllm-...``, ``sglang-...``) is a case of
    tests/data/engines/per_request_cases.json, and a test node id names an existing test."""
    import json

    from specscope.adapters.per_response import NEUTRAL_FIELDS
    from specscope.adapters.registry import ENGINES, engine_modules

    cases = json.loads((ROOT / "tests/data/engines/per_request_cases.json").read_text())["cases"]
    ids = {c["id"] for c in cases}
    fields = [f for _e, mod in engine_modules("per_response") for f in mod.FIELDS] + list(NEUTRAL_FIELDS)
    named = {t for f in fields for t in re.findall(r"[a-z0-9.]+(?:-[a-z0-9.]+)+", f.test)}
    case_like = {t for t in named if t.split("-")[0] in ENGINES}
    assert case_like and case_like <= ids, case_like - ids
    for f in fields:
        for node in re.findall(r"tests/\S+\.py(?:::\w+)?", f.test):
            path, _, name = node.partition("::")
            assert (ROOT / path).is_file(), node
            assert not name or f"def {name}(" in (ROOT / path).read_text(), node


# -- logs (serve --parse-log, bench --server-log): every declared form and field marked read names a command test --

LOGS = ROOT / "tests/data/engines/logs"  # and tests/data/fixtures, tests/data: the logs a test names
#: a declared name that is not text of the line, and the text of the line it stands for
_LOG_TEXT = {
    "Speculative metrics without emitted tokens": "Speculative metrics:",
    "Finish meta_info spec fields": "spec_verify_ct",
    "Finish meta_info.completion_tokens": "completion_tokens",
    "Running / Waiting reqs, KV cache usage": "Running:",
    "Draft acceptance rate (V0)": "Draft acceptance rate",
}


def _log_rows() -> list[tuple[str, str, str, str]]:
    """``(engine, name, text of the line, test)`` of every log form and field marked read."""
    from specscope.adapters.registry import engine_modules

    rows = []
    for engine, mod in engine_modules("logs"):
        rows += [(engine, f.name, f.example, f.test) for f in getattr(mod, "FORMS", ()) if f.status == "read"]
        rows += [(engine, f.name, f.name, f.test) for f in getattr(mod, "LOG_FIELDS", ()) if f.status == "read"]
    return rows


def _line_texts(text: str) -> list[str]:
    """The literal head of a declared form example or field name: up to its first placeholder (``N``, ``X``, ``IMPL``,
    ``...``) or separator."""
    text = _LOG_TEXT.get(text, text)
    return [re.split(r"\.\.\.|: | / |\(|\[| = | (?:N|X|L|R|A|G|U|Q|V|IMPL)\b|, |\{", text)[0].strip(" .,")]


def _reaches(node: str, texts: list[str]) -> str:
    """Why ``node`` does not reach a line holding one of ``texts`` through a command ("" when it does)."""
    path, _, name = node.partition("::")
    file = ROOT / path
    if not (file.is_file() and path.startswith("tests/")):
        return f"{node}: no such test file"
    text = file.read_text()
    tree = ast.parse(text)
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    if not (name.startswith("test_") and name in funcs):
        return f"{node}: no such test"
    if not _runs_specscope(tree, text, funcs[name]):
        return f"{node}: runs no specscope command"
    source = ast.get_source_segment(text, funcs[name]) or ""
    names = re.findall(r"[\w.-]+\.log\b", source)
    folders = (LOGS, ROOT / "tests/data/fixtures", ROOT / "tests/data")
    logs = [d / n for n in names for d in folders if (d / n).is_file()]
    written = source + "".join(p.read_text(encoding="utf-8", errors="replace") for p in logs)
    if not any(t in written for t in texts):
        return f"{node}: neither the test nor the logs it names hold any of {texts}"
    return ""


LOG_ROWS = _log_rows()


@pytest.mark.parametrize("row", LOG_ROWS, ids=[f"{e}:{n}" for e, n, _t, _n in LOG_ROWS])
def test_a_read_log_row_has_a_command_level_test(row) -> None:
    engine, name, line, node = row
    assert node, f"{engine} {name!r}: marked read in the log table without a command-level test"
    assert not _reaches(node, _line_texts(line)), _reaches(node, _line_texts(line))


def test_the_log_checker_refuses_a_test_of_another_line() -> None:
    """The check above can fail: a command test whose log holds no such line."""
    node = "tests/launch/test_engine_logs.py::test_vllm_v1_windows_pool_the_same_through_the_adapter"
    assert not _reaches(node, _line_texts("Accepted: N tokens"))
    assert "hold any of" in _reaches(node, _line_texts("statistics IMPL: ... #gen drafts = N"))


# -- per response: every field marked read names a test that reaches it through a command --


def _response_rows() -> list[tuple[str, str, str]]:
    from specscope.adapters.registry import engine_modules

    return [(e, f.field, f.test) for e, mod in engine_modules("per_response") for f in mod.FIELDS if f.status == "read"]


RESPONSE_ROWS = _response_rows()


@pytest.mark.parametrize("row", RESPONSE_ROWS, ids=[f"{e}:{f[:40]}" for e, f, _t in RESPONSE_ROWS])
def test_a_read_per_response_row_has_a_command_level_test(row) -> None:
    """A per-response field marked read names, beside its unit case, the node id of a test that runs a command
    reaching it (``bench`` against the truth server scripted to that engine's shape); a parametrized node names a
    case its test declares."""
    engine, field, test = row
    nodes = re.findall(r"(tests/\S+?\.py::(\w+))(?:\[(\w+)\])?", test)
    assert nodes, f"{engine} {field}: marked read without a command-level test (only {test!r})"
    runs = []
    for node, name, param in nodes:
        path = node.partition("::")[0]
        text = (ROOT / path).read_text()
        tree = ast.parse(text)
        funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert name in funcs, f"{node}: no such test"
        assert not param or f'"{param}":' in text, f"{node}[{param}]: no such case"
        runs.append(_runs_specscope(tree, text, funcs[name]))
    assert any(runs), f"{engine} {field}: {test!r} names no test that runs a specscope command"


# -- window rules and log details: every rule names tests that exist, at least one reaching it through a command --

DETAILS = [(kind, engine, d) for kind in ("window", "log") for engine, d in all_details(kind)]


@pytest.mark.parametrize("row", DETAILS, ids=[f"{k}:{e}:{d.what[:40]}" for k, e, d in DETAILS])
def test_a_window_rule_or_log_detail_has_a_command_level_test(row) -> None:
    """Documented means reachable (issue 36): each node a rule names exists (a unit test may stand beside it), and at
    least one runs a specscope command."""
    kind, engine, detail = row
    problems = [command_test_problem(t) for t in detail.tests]
    assert detail.tests, f"{kind} {engine} {detail.what!r}: no test"
    assert all("runs no specscope command" in p or not p for p in problems), problems
    assert "" in problems, f"{kind} {engine} {detail.what!r}: no test that runs a command: {problems}"


def test_the_detail_checker_refuses_a_rule_reached_only_by_a_unit_test() -> None:
    node = "tests/stats/test_windows_newuser.py::test_unread_series_is_named_as_the_file_has_it"
    assert "runs no specscope command" in command_test_problem(node)
    assert "no such test" in command_test_problem("tests/stats/test_windows_newuser.py::test_no_such_rule")
