"""``specscope counters BEFORE AFTER``: the speculative and token counter deltas of two ``/metrics`` scrapes.

Per engine with its restart flag, then the acceptance (rate, length, per position) of the engines that did
not restart, and the consistency checks. Exit codes: 0 printed; 2 unreadable file or not Prometheus text.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from specscope.cli.options import TextJsonFormatOption
from specscope.errors import ConfigError


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            "cannot read the scrape file",
            found=f"{path}: {getattr(exc, 'strerror', None) or 'not UTF-8 text'}",
            expected="a Prometheus text file saved from GET /metrics",
            fix="save each scrape with: curl -s http://HOST:PORT/metrics > FILE",
        ) from exc


def register(app: typer.Typer) -> None:
    @app.command("counters")
    def counters(
        before: Path = typer.Argument(..., help="Prometheus text scraped before (a .prom file)."),
        after: Path = typer.Argument(..., help="Prometheus text scraped after."),
        format: TextJsonFormatOption = "text",
    ) -> None:
        """Counter deltas, acceptance and restart flags per engine from two saved /metrics scrapes."""
        from specscope.client.metrics import parse_metrics
        from specscope.stats.counters_doc import counters_doc, counters_text

        doc = counters_doc(parse_metrics(_read(before)), parse_metrics(_read(after)))
        typer.echo(json.dumps(doc, indent=2) if format == "json" else counters_text(doc))
