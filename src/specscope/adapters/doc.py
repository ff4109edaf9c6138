"""docs/engines.md's generated sections, from the adapters' declarations (one home per fact).

``python -m specscope.adapters.doc docs/engines.md`` rewrites, in place and atomically, the text between each pair of
markers ``<!-- generated: NAME -->`` / ``<!-- end generated: NAME -->`` (``per-response``: every per-response reader's
declared fields, ``adapters/<engine>/per_response.py`` ``FIELDS``; ``metrics``: every engine's metric rows,
read / derived / ignored with their source and command test; ``logs``: every log adapter's declared line forms and
fields; ``window-rules`` / ``log-details``: the adapters' ``WINDOW_RULES`` / ``LOG_DETAILS`` and the neutral ones;
``add-an-engine``: how to add one); ``--check`` only
says whether the file is current (exit 1 when not). The rest of the file is written by hand. The test
``tests/test_engines_doc.py`` fails when the committed file differs from what this writes.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from specscope.adapters.declare import Detail, Row
from specscope.adapters.names import adapter_metrics
from specscope.adapters.registry import display, engine_modules
from specscope.fsio import write_text_atomic

__all__ = ["SECTIONS", "all_details", "main", "metrics_table", "per_response_table", "render"]

_SURFACE = {"prometheus": "Prometheus /metrics", "iteration-json": "JSON /metrics", "perf-json": "JSON /perf_metrics"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _name(row: Row, prefixes: tuple[str, ...]) -> str:
    if row.surface != "prometheus" or not prefixes:
        return f"`{row.name}`"
    return " / ".join(f"`{p}{row.name}`" for p in prefixes)


def metrics_table() -> str:
    """The metric rows of every adapter, registry order, one Markdown table."""
    head = "| engine | where | name | status | record field / reason | source | command test |\n"
    head += "|---|---|---|---|---|---|---|\n"
    lines = []
    for engine, mod in adapter_metrics():
        for r in mod.ROWS:
            test = f"`{r.test}`" if r.test else "—"
            cells = [display(engine), _SURFACE[r.surface], _name(r, mod.PREFIXES), r.status, r.into, r.source, test]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    copies = [
        f"{display(e)}: " + ", ".join(f"`{k}`" for k in mod.COPY_LABELS)
        for e, mod in adapter_metrics()
        if getattr(mod, "COPY_LABELS", ())
    ]
    tail = (
        "\nLabels that mark copies of one count written by several ranks of one replica (`COPY_LABELS`; the samples "
        "of one name differing only in them are read once, the lowest rank's; `RANK_COPIES_DIFFER` names copies that "
        "disagree; every other label marks a replica and is summed): " + "; ".join(copies) + ".\n"
        if copies
        else ""
    )
    return head + "\n".join(lines) + "\n" + tail


def per_response_table() -> str:
    """Every per-response reader's declared fields (``adapters/<engine>/per_response.py``: ``FIELDS``), registry order,
    then the dispatch's own (``adapters/per_response.py``: ``NEUTRAL_FIELDS``, engine "any")."""
    from specscope.adapters.per_response import NEUTRAL_FIELDS

    head = "| engine | version / source | field | status | record field / reason | test (case id) |\n"
    head += "|---|---|---|---|---|---|\n"
    rows = [(display(e), f) for e, mod in engine_modules("per_response") for f in getattr(mod, "FIELDS", ())]
    rows += [("any", f) for f in NEUTRAL_FIELDS]
    lines = ["| " + " | ".join(_cell(c) for c in (engine, *f)) + " |" for engine, f in rows]
    return head + "\n".join(lines) + "\n"


def log_table() -> str:
    """Every log adapter's declared forms and fields (``adapters/<engine>/logs.py``: ``FORMS``, ``LOG_FIELDS``)."""
    head = "| engine | line form or field | status | what it gives / why not | source | release | command test |\n"
    head += "|---|---|---|---|---|---|---|\n"
    lines = []
    for engine, mod in engine_modules("logs"):
        for form in getattr(mod, "FORMS", ()):
            gives = "a log line it recognises" if form.status == "read" else "the engine named; no speculative count"
            cells = [display(engine), f"form: {form.name} (`{form.example}`)", form.status, gives]
            test = f"`{form.test}`" if form.test else "—"
            lines.append("| " + " | ".join(_cell(c) for c in [*cells, form.source, form.release, test]) + " |")
        for fld in getattr(mod, "LOG_FIELDS", ()):
            test = f"`{fld.test}`" if fld.test else "—"
            cells = [display(engine), f"`{fld.name}`", fld.status, fld.note, fld.source, fld.release, test]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return head + "\n".join(lines) + "\n"


def all_details(kind: str) -> list[tuple[str, Detail]]:
    """``(engine shown, rule)`` of every adapter's ``WINDOW_RULES`` (``kind`` "window") or ``LOG_DETAILS`` ("log"),
    registry order, then the engine-neutral ones (:data:`.names.NEUTRAL_WINDOW_RULES`,
    :data:`.logs.NEUTRAL_LOG_DETAILS`)."""
    from specscope.adapters.logs import NEUTRAL_LOG_DETAILS
    from specscope.adapters.names import NEUTRAL_WINDOW_RULES

    module, attr, neutral = ("metrics", "WINDOW_RULES", NEUTRAL_WINDOW_RULES) if kind == "window" else (
        "logs", "LOG_DETAILS", NEUTRAL_LOG_DETAILS)  # fmt: skip
    rows = [(display(e), d) for e, mod in engine_modules(module) for d in getattr(mod, attr, ())]
    return rows + [(d.engines or "any", d) for d in neutral]


def _detail_table(kind: str, what: str, fact: str) -> str:
    head = f"| engine | version / source | {what} | status | {fact} | tests |\n|---|---|---|---|---|---|\n"
    lines = []
    for engine, d in all_details(kind):
        tests = ", ".join(f"`{t}`" for t in d.tests)
        lines.append("| " + " | ".join(_cell(c) for c in (engine, d.version, d.what, d.status, d.fact, tests)) + " |")
    return head + "\n".join(lines) + "\n"


def window_rules_table() -> str:
    """The rules of the window reading (every adapter's ``WINDOW_RULES``, then the neutral ones)."""
    return _detail_table("window", "name", "window field / reason")


def log_details_table() -> str:
    """The details of each log form (every log adapter's ``LOG_DETAILS``, then the neutral ones)."""
    return _detail_table("log", "line", "fact")


_ADD = """To add an engine `NAME`: its folder, one registry line and the docs; outside the folder and tests that is two
files (`registry.py`, `docs/engines.md`).

1. `src/specscope/adapters/NAME/__init__.py` (its `DISPLAY` name) and, where it serves metrics,
   `src/specscope/adapters/NAME/metrics.py`: `PREFIXES` (the sample-name prefixes of its Prometheus text), `ROWS` (one
   `Row` per field: surface, name, role, read / derived / ignored, the record field or the reason, the source file and
   release, and for a row marked read the node id of a test that reaches it through a command), `ENABLE_METRICS` (how
   the engine serves them), `COPY_LABELS` where several ranks of one replica write the same count (the labels that
   tell them apart: one series per copy group is read, the lowest rank's); for a JSON metrics body,
   `read_json_metrics(body) -> DrainedSlice | None` and `JSON_SHAPES`. The other modules of the folder, each found
   when it is there:
   - `per_response.py`: the speculative fields it writes into its responses, read into a `SpecRequest` (`ROOT_KEYS`,
     `read_root` / `read_choice`, the payload keys it knows, `FIELDS` for the per-response table;
     `adapters/per_response.py` says the interface);
   - `logs.py`: its log's speculative statistics (`FORMS`, `LOG_FIELDS`, `read_log`; `OTHER_OUTPUTS`: another
     tool's speculative output a user may take for its log, refused by that name); `log_facts.py`: the facts its
     log states (`FACTS`, `read_facts`); `log_summary.py`: a summary of statistics printed without counts (`SUMMARY`);
   - `facts.py`: its server facts (`spec_method`, `spec_k`, `states_speculation`, a `FACTS_PATH` endpoint).
2. One line in `src/specscope/adapters/registry.py` (`ENGINES`).
3. `python -m specscope.adapters.doc docs/engines.md` regenerates this file's tables.

`tests/adapters/test_new_engine_one_folder.py` shows it: a throwaway engine's folder and registry line, and nothing
else, are read by `serve --parse-log` and written into these tables. A server that needs request fields of its own
still adds a server kind in `workload/request.py` (request dialects: issue 34 item 3, moving to the adapters).

The readers (`counters`, `bench --server`, `bench --prometheus`, the gauge sampler, `serve --parse-log`,
`bench --server-log`) take the names from the declarations; `tests/test_engines_doc.py` fails while this file is not
regenerated or a row marked read names no command-level test, and `tests/test_engine_names.py` fails when an engine's
name or metric name is written outside `src/specscope/adapters/`.
"""


def _add_an_engine() -> str:
    return _ADD


#: generated section name -> the function giving its text
SECTIONS: dict[str, Callable[[], str]] = {
    "per-response": per_response_table,
    "metrics": metrics_table,
    "logs": log_table,
    "window-rules": window_rules_table,
    "log-details": log_details_table,
    "add-an-engine": _add_an_engine,
}


def render(text: str) -> str:
    """``text`` with every generated section replaced by its current content.

    Raises:
        ValueError: a section's markers are missing or out of order.
    """
    for name, make in SECTIONS.items():
        start, end = f"<!-- generated: {name} -->", f"<!-- end generated: {name} -->"
        pattern = re.compile(re.escape(start) + r"\n.*?" + re.escape(end), re.S)
        found = pattern.search(text)
        if found is None:
            raise ValueError(f"no {start} ... {end} section")
        text = text[: found.start()] + f"{start}\n{make()}{end}" + text[found.end() :]
    return text


def main(argv: list[str]) -> int:
    """``doc PATH [--check]``: rewrite PATH's generated sections (exit 0), or with ``--check`` exit 1 when stale."""
    args = [a for a in argv if a != "--check"]
    if len(args) != 1:
        print("usage: python -m specscope.adapters.doc docs/engines.md [--check]", file=sys.stderr)
        return 2
    path = Path(args[0])
    text = path.read_text(encoding="utf-8")
    new = render(text)
    if "--check" in argv:
        if new != text:
            print(f"{path} is stale: run python -m specscope.adapters.doc {path}", file=sys.stderr)
            return 1
        return 0
    if new != text:
        write_text_atomic(path, new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
