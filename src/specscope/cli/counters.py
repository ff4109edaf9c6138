"""``specscope counters BEFORE AFTER``: the speculative and token counter deltas of two ``/metrics`` scrapes.

Per engine with its restart flag, then the acceptance (rate, length, per position) of the engines that did
not restart, and the consistency checks. Exit codes: 0 printed; 2 unreadable file, not Prometheus text, a file
with no speculative / generation counters, or counters that went down in every engine while the files read the
other way round count up cleanly (BEFORE and AFTER swapped).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from specscope.cli.options import TEXT_JSON, TextJsonFormatOption
from specscope.cli.output import OutputOption, emit, report_target
from specscope.cli.vocab import VocabCommand
from specscope.errors import ConfigError, MetricsUnavailable

if TYPE_CHECKING:
    from specscope.records import SpecCounters

_SCRAPE = "a /metrics scrape saved as Prometheus text (vllm:/llamacpp:/sglang: counters)"
_SAVE = "save each scrape with: curl -s http://HOST:PORT/metrics > before.prom (and after.prom after the load)"
_COUNTED = frozenset({"spec", "per_pos", "generation"})  # SpecCounters.present families that are counters


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


def _load(path: Path) -> SpecCounters:
    """The counters of one saved scrape file.

    Raises:
        ConfigError: unreadable, not Prometheus text, or no speculative / generation counter in it.
    """
    from specscope.client.metrics import parse_metrics

    try:
        snap = parse_metrics(_read(path))
    except MetricsUnavailable as exc:
        raise ConfigError(f"{path} is not Prometheus text", found=exc.found, expected=_SCRAPE, fix=_SAVE) from None
    if not snap.present & _COUNTED:
        raise ConfigError(
            f"{path} holds no speculative or generation counters",
            found="empty file" if not path.stat().st_size else "no vllm:/llamacpp:/sglang: counter samples",
            expected=_SCRAPE,
            fix=_SAVE,
        )
    return snap


def _refuse_swapped(before: SpecCounters, after: SpecCounters, names: tuple[Path, Path]) -> None:
    """Refuse a pair whose counters went down in every engine while the reverse order counts up cleanly.

    A server restart also lowers every counter; vLLM then moves ``*_created`` too, so its reverse is not clean
    and it stays a ``COUNTER_RESET`` reason (exit 0).

    Raises:
        ConfigError: the files look swapped.
    """
    from specscope.stats.counters import counters_delta

    if not counters_delta(before, after).reset or counters_delta(after, before).reset:
        return
    b, a = names
    raise ConfigError(
        "the counters went down in every engine between BEFORE and AFTER",
        found=f"{b} holds higher counters than {a}",
        expected="AFTER scraped later than BEFORE (counters only rise while the server runs)",
        fix=f"the files may be swapped: run specscope counters {a} {b}; "
        "if the server restarted between the scrapes, scrape both again",
    )


def register(app: typer.Typer) -> None:
    @app.command("counters", cls=VocabCommand)
    def counters(
        before: Path = typer.Argument(..., help="Prometheus text scraped before (a .prom file)."),
        after: Path = typer.Argument(..., help="Prometheus text scraped after."),
        format: TextJsonFormatOption = None,
        output: OutputOption = None,
    ) -> None:
        """Counter deltas, acceptance and restart flags per engine from two saved /metrics scrapes."""
        from specscope.stats.counters_doc import counters_doc, counters_text

        snaps = _load(before), _load(after)
        _refuse_swapped(*snaps, (before, after))
        doc = counters_doc(*snaps)
        fmt, out = report_target(format, output, TEXT_JSON)
        emit(json.dumps(doc, indent=2) if fmt == "json" else counters_text(doc), out)
