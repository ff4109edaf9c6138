"""``specscope counters BEFORE AFTER``: the speculative and token counter deltas of two ``/metrics`` scrapes.

Per engine with its restart flag, then the acceptance (rate, length, per position) of the engines that did
not restart, and the consistency checks. Exit codes: 0 printed; 1 printed, with an alarm (``ACCEPTING_NOTHING``, or
the low-acceptance rule ``serve --parse-log`` applies to a log: ``LOW_ACCEPTANCE``) or with counters that contradict
each other (``inconsistencies``: more tokens accepted than drafted ...), as the README's "found a problem"; 2
unreadable file, not Prometheus text, a file with no speculative / generation counters, or counters that went down
in every engine while the files read the other way round count up cleanly (BEFORE and AFTER swapped).

Bounds (issue 29): each file must be a regular file (a FIFO or a device such as ``/dev/zero`` is refused before any
read) of at most ``--max-bytes`` (default :data:`MAX_SCRAPE_BYTES`; a vLLM scrape is tens to hundreds of KiB,
and prometheus_client's parser holds ~20 bytes of memory per byte of text); parsing both files takes at most
``--timeout`` seconds (default :data:`PARSE_TIMEOUT_S`). ``-f json`` is strict JSON: a NaN or infinite counter
(Prometheus text allows them) prints as ``null`` with its reason under ``non_finite``.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from specscope.cli.options import TEXT_JSON, TextJsonFormatOption
from specscope.cli.output import OutputOption, emit, report_target
from specscope.cli.vocab import VocabCommand
from specscope.errors import ConfigError, MetricsUnavailable
from specscope.readfile import FileTooLarge, read_error_text, read_text_limited
from specscope.strictjson import dumps_strict

if TYPE_CHECKING:
    from specscope.records import SpecCounters

_SCRAPE = "a /metrics scrape saved as Prometheus text (vllm:/llamacpp:/sglang: counters)"
_SAVE = "save each scrape with: curl -s http://HOST:PORT/metrics > before.prom (and after.prom after the load)"
_COUNTED = frozenset({"spec", "per_pos", "generation"})  # SpecCounters.present families that are counters
#: the largest scrape file read (bytes), ``--max-bytes``'s default.
MAX_SCRAPE_BYTES = 8 * 2**20
#: the longest both files may take to parse (s), ``--timeout``'s default.
PARSE_TIMEOUT_S = 30.0


def _read(path: Path, max_bytes: int) -> str:
    try:
        return read_text_limited(path, max_bytes)
    except FileTooLarge as exc:
        raise ConfigError(
            "the scrape file is larger than the limit",
            found=f"{path}: {exc.size_bytes:,} bytes",
            expected=f"at most {max_bytes:,} bytes (--max-bytes)",
            fix="pass a larger --max-bytes (e.g. --max-bytes 64MiB) if this really is one /metrics scrape",
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            "cannot read the scrape file",
            found=f"{path}: {read_error_text(exc)}",
            expected="a Prometheus text file saved from GET /metrics",
            fix="save each scrape with: curl -s http://HOST:PORT/metrics > FILE",
        ) from None


class _Timeout(Exception):
    """The parse ran past its deadline (raised by the SIGALRM handler of :func:`_deadline`)."""


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`_Timeout` in the block after ``seconds`` (SIGALRM; only in the main thread, else no limit)."""

    def ring(_signum: int, _frame: Any) -> None:
        raise _Timeout

    try:
        old = signal.signal(signal.SIGALRM, ring)
    except ValueError:  # not the main thread: no timer can interrupt the parse
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, min(seconds, 1e6))  # setitimer overflows past ~1e8 s; 11 days is no limit
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _load(path: Path, max_bytes: int) -> SpecCounters:
    """The counters of one saved scrape file.

    Raises:
        ConfigError: unreadable, not a regular file, above ``max_bytes``, not Prometheus text, or no speculative /
            generation counter in it.
    """
    from specscope.client.metrics import parse_metrics

    try:
        snap = parse_metrics(_read(path, max_bytes))
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


def _load_both(before: Path, after: Path, max_bytes: int, timeout_s: float) -> tuple[SpecCounters, SpecCounters]:
    """Both files' counters, parsed within ``timeout_s`` seconds.

    Raises:
        ConfigError: see :func:`_load`; or the parse took longer than ``timeout_s``.
    """
    try:
        with _deadline(timeout_s):
            return _load(before, max_bytes), _load(after, max_bytes)
    except _Timeout:
        raise ConfigError(
            "parsing the scrape files took longer than the limit",
            found=f"{before}, {after}: not parsed within {timeout_s:g} s",
            expected=f"two /metrics scrapes parsed within --timeout {timeout_s:g} s",
            fix="pass a larger --timeout if these really are /metrics scrapes",
        ) from None


def register(app: typer.Typer) -> None:
    @app.command("counters", cls=VocabCommand)
    def counters(
        before: Path = typer.Argument(..., help="Prometheus text scraped before (a .prom file)."),
        after: Path = typer.Argument(..., help="Prometheus text scraped after."),
        format: TextJsonFormatOption = None,
        output: OutputOption = None,
        max_bytes: Annotated[
            str,
            typer.Option(
                "--max-bytes",
                metavar="SIZE",
                help="Largest scrape file read. Only regular files are read.",
            ),
        ] = f"{MAX_SCRAPE_BYTES // 2**20}MiB",
        timeout: Annotated[
            str,
            typer.Option(
                "--timeout",
                metavar="DURATION",
                help="Longest time to parse both files.",
            ),
        ] = f"{PARSE_TIMEOUT_S:g}s",
    ) -> None:
        """Counter deltas, acceptance and restart flags per engine from two saved /metrics scrapes.

        Exit 0 ok; 1 an alarm (accepting nothing, low acceptance) or counters that contradict each other (more
        tokens accepted than drafted ...); 2 bad input."""
        from specscope.stats.counters_doc import counters_doc, counters_text
        from specscope.values import parse_bytes, parse_duration_s

        snaps = _load_both(
            before, after, int(parse_bytes(max_bytes, "--max-bytes")), parse_duration_s(timeout, "--timeout")
        )
        _refuse_swapped(*snaps, (before, after))
        doc = counters_doc(*snaps)
        fmt, out = report_target(format, output, TEXT_JSON)
        emit(dumps_strict(doc, indent=2) if fmt == "json" else counters_text(doc), out)
        if doc["alarms"] or doc["inconsistencies"]:
            raise typer.Exit(1)
