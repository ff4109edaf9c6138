"""The Servers table at the end of a run keeps each server's command line readable at 100 columns (issue 50 item 3).

The command line was the last of seven columns: at 100 columns rich folded a llama-server command into a column
17 characters wide, one flag per line. It now has a table of its own (config, command line), so it wraps at the
terminal's width."""

from __future__ import annotations

import io

from rich.console import Console

from serverfacts import run_facts
from specscope.report.document import Document, Section
from specscope.report.render import print_document
from specscope.report.server_facts import server_tables

COMMAND = (
    "llama-server -m /home/user/models/SmolLM2-135M-Instruct-f16.gguf --host 127.0.0.1 --port 38211 -c 4096 "
    "-np 2 -t 2 -tb 2 --metrics --spec-type draft-simple -md /home/user/models/draft-q4.gguf --spec-draft-n-max 4"
)


def test_a_command_line_wraps_at_the_terminals_width():
    facts = run_facts(
        {
            c: {"kind": "embedded", "model": "SmolLM2-135M-Instruct", "base_url": "http://127.0.0.1:38211",
                "command_line": COMMAND}
            for c in ("base", "draft")
        }
    )  # fmt: skip
    console = Console(file=io.StringIO(), width=100, color_system=None)
    print_document(Document("t", [Section("run", "Run r", tables=server_tables(facts))]), console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    # the command's first 60 characters stand on one line of the table (they were folded 17 to a line)
    assert COMMAND[:60] in text, text
    assert "Server command lines" in text
