"""docs/truth-script.md: the layout of the JSON file ``specscope truth-server --script FILE`` reads, rendered from
the script's own declaration (:mod:`specscope.truth.script`): per model (:class:`TruthScript`, then the
:class:`ResponsePlan` of ``default`` and each ``by_prompt`` entry, then :class:`MetricsPlan`) one row per pydantic
field, with its type and default from the field and its meaning from the model docstring's ``Attributes:`` entry.
``scripts/gen_truth_script_doc.py`` writes the page; tests/truth/test_script_doc.py fails while it is stale.
"""

from __future__ import annotations

import json
import re
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from specscope.truth.script import MetricsPlan, ResponsePlan, TruthScript

__all__ = ["EXAMPLE_COMMAND", "EXAMPLE_SCRIPT", "FieldRow", "field_rows", "render"]

#: the page's example script: 24 tokens in chunks of 3 (a speculative step flushing 3 tokens), 20 ms apart, after a
#: 150 ms TTFT; 8 drafts of 3 tokens, 7 / 5 / 4 accepted at positions 1 / 2 / 3 (the counters and per-position
#: family /metrics serves, in the default ``metrics.style``); a 503 for the prompt "fail".
EXAMPLE_SCRIPT: dict[str, Any] = {
    "default": {
        "ttft_ms": 150,
        "output_tokens": 24,
        "tokens_per_chunk": 3,
        "inter_chunk_ms": 20,
        "drafts": 8,
        "draft_tokens": 24,
        "accepted_per_position": [7, 5, 4],
    },
    "by_prompt": {"fail": {"status": 503}},
    "metrics": {"model_name": "truth"},
}
#: the page's example command (run from the folder holding truth.json): any free port, its address in url.json.
EXAMPLE_COMMAND = "specscope truth-server --script truth.json --port 0 -o url.json"

_ENTRY = re.compile(r"^ {8}([a-z_]+(?: / [a-z_]+)*): (.*)$")


@dataclass(frozen=True)
class FieldRow:
    """One field of a script model: its JSON key, type and default (Markdown code spans) and meaning (docstring)."""

    name: str
    kind: str
    default: str
    meaning: str


def _attributes(model: type[BaseModel]) -> dict[str, str]:
    """The model docstring's ``Attributes:`` entries, one text per field name (``a / b / c:`` names three)."""
    out: dict[str, str] = {}
    names: list[str] = []
    lines = (model.__doc__ or "").split("Attributes:", 1)[-1].splitlines()
    for line in lines:
        if m := _ENTRY.match(line):
            names = m[1].split(" / ")
            for n in names:
                out[n] = m[2].strip()
        elif line.startswith(" " * 12) and names:
            for n in names:
                out[n] += " " + line.strip()
        elif line.strip():
            names = []
    return out


def _kind(annotation: Any) -> str:
    """A field's type in words: ``integer``, ``list of number``, ```a`` or ``b``` (a Literal's values), ``null``."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _kind(args[0])
    if origin is Literal:
        shown = [f"`{json.dumps(a) if not isinstance(a, str) else a}`" for a in args]
        return ", ".join(shown[:-1]) + f" or {shown[-1]}" if len(shown) > 1 else shown[0]
    if origin in (typing.Union, types.UnionType):
        return " or ".join(dict.fromkeys(_kind(a) for a in args))
    if origin in (list, tuple):
        inner = [_kind(a) for a in args if a is not Ellipsis]
        return f"list of {inner[0]}" if origin is list else f"[{', '.join(inner)}] pair"
    if origin is dict:
        return f"object of {_kind(args[0])}: {_kind(args[1])}"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"object ({annotation.__name__})"
    words = {int: "integer", float: "number", str: "text", bool: "true or false", type(None): "null"}
    return words.get(annotation, getattr(annotation, "__name__", str(annotation)))


def field_rows(model: type[BaseModel]) -> list[FieldRow]:
    """One row per field of ``model``, in declaration order."""
    meaning = _attributes(model)
    rows = []
    for name, f in model.model_fields.items():
        if f.default is not PydanticUndefined:
            default = f"`{json.dumps(f.default)}`"
        elif f.default_factory is not None:
            made = f.default_factory()  # type: ignore[call-arg]
            default = "see below" if isinstance(made, BaseModel) else f"`{json.dumps(made)}`"
        else:
            default = "required"
        rows.append(FieldRow(name, _kind(f.annotation), default, meaning.get(name, "")))
    return rows


def _markdown(text: str) -> str:
    """A docstring's reStructuredText as Markdown: ``:mod:`x``` and ````x```` as `` `x` ``; a table cell's ``|``."""
    text = re.sub(r":(?:class|mod|func|meth|data):`~?([^`]+)`", r"`\1`", text)
    return text.replace("``", "`").replace("|", "/")


def _table(model: type[BaseModel]) -> list[str]:
    out = ["| field | type | default | meaning |", "|---|---|---|---|"]
    out += [f"| `{r.name}` | {r.kind} | {r.default} | {_markdown(r.meaning)} |" for r in field_rows(model)]
    return out


def _example() -> str:
    """The example script as indented JSON, each list of numbers on one line."""
    text = json.dumps(EXAMPLE_SCRIPT, indent=2)
    return re.sub(r"\[\n\s+([0-9,\s]+?)\n\s*\]", lambda m: "[" + re.sub(r",\s+", ", ", m[1]) + "]", text)


def render() -> str:
    """The whole page (Markdown)."""
    TruthScript.model_validate(EXAMPLE_SCRIPT)  # the example is a script the server takes
    head = [
        "# The truth-server script",
        "",
        "Generated from `src/specscope/truth/script.py` (the pydantic models the server validates the file with) by",
        "`python scripts/gen_truth_script_doc.py`; do not edit by hand.",
        "",
        "`specscope truth-server --script FILE` serves what a JSON object of the fields below says: every field is",
        "optional (no file: the defaults, 16 tokens with no delays), a field not listed here is refused by name, and",
        "a request body can carry its own plan under the key `specscope_truth` (ResponsePlan fields, merged over the",
        "plan chosen for it). Times in ms, counts in tokens.",
        "",
        "## Example",
        "",
        "Save this as `truth.json`:",
        "",
        "```json",
        _example(),
        "```",
        "",
        'and serve it on any free port, its address written to `url.json` (`{"base_url": ...}`) once it listens:',
        "",
        "```",
        EXAMPLE_COMMAND,
        "```",
        "",
        "Every chat request then streams 24 tokens in 8 chunks of 3 (the prompt `fail` gets a 503), and `/metrics`",
        "adds 8 drafts, 24 draft tokens and 16 accepted tokens to the counters per request.",
    ]
    sections: list[tuple[str, type[BaseModel]]] = [
        ("TruthScript (the file)", TruthScript),
        ("ResponsePlan (`default`, each `by_prompt` value, a request's `specscope_truth`)", ResponsePlan),
        ("MetricsPlan (`metrics`)", MetricsPlan),
    ]
    body = [line for title, model in sections for line in ["", f"## {title}", "", *_table(model)]]
    return "\n".join(head + body) + "\n"
