"""``specscope counters BEFORE AFTER``: the speculative and token counter deltas of two ``/metrics`` scrapes.

Per engine with its restart flag, then the acceptance (rate, length, per position) of the engines that did
not restart, and the consistency checks. Exit codes: 0 printed; 1 printed, with an alarm (``ACCEPTING_NOTHING``, or
the low-acceptance rule ``serve --parse-log`` applies to a log: ``LOW_ACCEPTANCE``) or with counters that contradict
each other (``inconsistencies``: more tokens accepted than drafted ...), as the README's "found a problem"; 2
unreadable file, not Prometheus text, a file with no speculative / generation counters, or counters that went down
in every engine while the files read the other way round count up cleanly (BEFORE and AFTER swapped).

A JSON metrics body an engine adapter reads (TensorRT-LLM's ``/metrics`` iteration stats or ``/perf_metrics``) drains
on read: BEFORE's GET emptied it, so the window is AFTER's slice alone; the iterations lost between or inside the two
(``ITERATIONS_LOST``) and the idle ones left out are named under ``reasons``, and ``drained`` says what was read.
Mixing a JSON body with Prometheus text is refused (exit 2).

Bounds (issue 29): each file must be a regular file (a FIFO or a device such as ``/dev/zero`` is refused before any
read) of at most ``--max-bytes`` (default :data:`MAX_SCRAPE_BYTES`; a vLLM scrape is tens to hundreds of KiB,
and prometheus_client's parser holds ~20 bytes of memory per byte of text); parsing both files takes at most
``--timeout`` seconds (default :data:`PARSE_TIMEOUT_S`). ``-f json`` is strict JSON: a NaN or infinite counter
(Prometheus text allows them) prints as ``null`` with its reason under ``non_finite``.
"""

from __future__ import annotations

import dataclasses
import json
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from specscope.cli.command_options import MaxScrapeBytesOption, ScrapeTimeoutOption
from specscope.cli.options import TEXT_JSON, OutputOption, TextJsonFormatOption
from specscope.cli.output import emit, report_target
from specscope.cli.vocab import VocabCommand
from specscope.errors import ConfigError, MetricsUnavailable
from specscope.readfile import SCRAPE_MAX_BYTES, FileKind, read_user_file
from specscope.strictjson import dumps_strict
from specscope.textsafe import shell_word

if TYPE_CHECKING:
    from specscope.adapters.drained import DrainedSlice
    from specscope.records import SpecCounters

    #: one file read: its counters or drained slice, process start time (Unix s) and the models its samples name
    _Loaded = tuple[SpecCounters | DrainedSlice, float | None, frozenset[str]]

_SCRAPE = (
    "a /metrics scrape saved as Prometheus text with an engine's counters (docs/engines.md), or a JSON metrics body"
)
_SAVE = "save each scrape with: curl -s http://HOST:PORT/metrics > before.prom (and after.prom after the load)"
_SAVE_JSON = "save the server's body unchanged, not an edited copy: curl -s http://HOST:PORT/metrics > before.json"
_COUNTED = frozenset({"spec", "per_pos", "generation"})  # SpecCounters.present families that are counters
#: the largest scrape file read (bytes), ``--max-bytes``'s default: the one limit of every scrape.
MAX_SCRAPE_BYTES = SCRAPE_MAX_BYTES
#: the longest both files may take to parse (s), ``--timeout``'s default.
PARSE_TIMEOUT_S = 30.0


def _read(path: Path, max_bytes: int) -> str:
    kind = FileKind(
        "the scrape file",
        expected="a Prometheus text file saved from GET /metrics",
        fix="save each scrape with: curl -s http://HOST:PORT/metrics > FILE",
        limit=f"at most {max_bytes:,} bytes (--max-bytes)",
        limit_fix="pass a larger --max-bytes (e.g. --max-bytes 64MiB) if this really is one /metrics scrape",
    )
    return read_user_file(path, kind, max_bytes, text=True, gzip=True)  # a saved scrape may be gzipped (curl -o)


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


def _process_start_s(text: str) -> float | None:
    """``process_start_time_seconds`` of a scrape (the Prometheus client's standard process collector, Unix s): the
    one sample of that name without labels; None when absent or not a number."""
    for line in text.splitlines():
        if line.startswith("process_start_time_seconds "):
            try:
                return float(line.split()[1])
            except (IndexError, ValueError):
                return None
    return None


def _json_error(text: str) -> str | None:
    """Where a file that opens as JSON (``[`` or ``{``) stops parsing, None when it does not open so or parses."""
    if not text.lstrip().startswith(("[", "{")):
        return None
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    except (ValueError, RecursionError):
        return "not valid JSON"
    return None


def _load(path: Path, max_bytes: int) -> tuple[SpecCounters | DrainedSlice, float | None, frozenset[str]]:
    """The counters of one saved scrape file, its process start time (Unix s, None when absent) and the models its
    samples name (``model_name``), or the drained slice of a saved JSON metrics body (no start time, no models).

    Raises:
        ConfigError: unreadable, not a regular file, above ``max_bytes``, neither Prometheus text nor a JSON body an
            adapter reads, or neither a speculative / generation counter nor a speculative gauge in it (a
            scrape of gauges only is read: its state says so).
    """
    from specscope.client.metrics import NOT_PROMETHEUS_TEXT, parse_metrics, read_json_body, scrape_models

    text = _read(path, max_bytes)
    try:
        piece = read_json_body(text)
    except MetricsUnavailable as exc:
        raise ConfigError(
            f"{path} is JSON that no engine adapter reads", found=exc.found, expected=exc.expected, fix=_SAVE
        ) from None
    if piece is not None:
        return piece, None, frozenset()
    try:
        snap = parse_metrics(text)
    except MetricsUnavailable as exc:
        if broken := _json_error(text):  # a JSON body cut or edited by hand ("..." of a doc's example): say so
            raise ConfigError(
                f"{path} is JSON that does not parse", found=broken, expected=_SCRAPE, fix=_SAVE_JSON
            ) from None
        if exc.message != NOT_PROMETHEUS_TEXT:  # Prometheus text, a sample unusable (a counter of 1e400): says which
            raise ConfigError(f"{path}: {exc.message}", found=exc.found, expected=exc.expected, fix=_SAVE) from None
        raise ConfigError(f"{path} is not Prometheus text", found=exc.found, expected=_SCRAPE, fix=_SAVE) from None
    if not snap.present & _COUNTED and not snap.spec_gauges and not snap.unread:  # gauges: the state says gauge only
        raise ConfigError(
            f"{path} holds no speculative or generation counters",
            found="empty file" if not path.stat().st_size else "no counter sample of any engine's names",
            expected=_SCRAPE,
            fix=_SAVE,
        )
    return snap, _process_start_s(text), scrape_models(text)


def _drained_pair(
    before: SpecCounters | DrainedSlice, after: SpecCounters | DrainedSlice, names: tuple[Path, Path]
) -> tuple[SpecCounters, SpecCounters, tuple[str, ...], dict[str, Any]]:
    """Two drained slices as two snapshots: BEFORE's GET emptied the endpoint, so the window is AFTER's slice
    (running totals ``pool(BEFORE)`` and ``pool(BEFORE, AFTER)``); reasons: the iterations lost between or inside
    them, idle iterations left out, the slices' own.

    Raises:
        ConfigError: one file is a drained JSON body and the other Prometheus text, the two bodies (neither empty)
            are of two endpoints (iteration stats and per-request perf metrics), or AFTER carries no speculative
            counts.
    """
    from specscope.adapters.drained import DrainedSlice, iteration_gaps, pool_slices

    b, a = names
    if not (isinstance(before, DrainedSlice) and isinstance(after, DrainedSlice)):
        json_file, text_file = (b, a) if isinstance(before, DrainedSlice) else (a, b)
        raise ConfigError(
            "one file is a JSON metrics body that drains on read, the other Prometheus text",
            found=f"{json_file}: JSON; {text_file}: Prometheus text",
            expected="two readings of the same endpoint",
            fix="save both from the same URL (curl -s URL > before.json, then > after.json after the load)",
        )
    if before.items and after.items and before.endpoint != after.endpoint:  # an empty body names no endpoint
        raise ConfigError(
            "BEFORE and AFTER are bodies of two different endpoints",
            found=f"{b}: {before.endpoint}; {a}: {after.endpoint}",
            expected="two readings of the same endpoint",
            fix="save both from the same URL (curl -s URL > before.json, then > after.json after the load)",
        )
    if "spec" not in after.counts.present:
        raise ConfigError(
            f"{a} holds no speculative counts",
            found=f"{after.endpoint}: {after.items} items, none with speculative statistics",
            expected="the iterations (or requests) served between the two GETs, with speculative statistics",
            fix="run the load between the two GETs, and let no other client read the endpoint meanwhile "
            "(each GET empties it); check that speculative decoding is on",
        )
    start, _ = pool_slices([before])
    total, reasons = pool_slices([before, after])
    if before.iterations and after.iterations and min(after.iterations) <= max(before.iterations):
        # the iteration numbers went back: a restart between the GETs (or swapped files), not lost iterations
        reasons = (
            *(r for r in reasons if not r.startswith("ITERATIONS_LOST")),
            *iteration_gaps(before.iterations),
            *iteration_gaps(after.iterations),
            f"ENGINE_RESET(iteration numbers went back: {b} ends at iteration {max(before.iterations)}, {a} starts "
            f"at {min(after.iterations)}: the server restarted between the two GETs (its window is AFTER's "
            "iterations since the restart), or the files are swapped)",
        )
        # two process lives: BEFORE's ended, AFTER's slice counts from the restart (a created time that moved)
        start = dataclasses.replace(start, created=0.0)
        total = dataclasses.replace(pool_slices([after])[0], created=1.0)
    start = dataclasses.replace(start, present=total.present, engine_kind=total.engine_kind)
    drained = {"endpoint": after.endpoint, "before_items": before.items, "after_items": after.items}
    return start, total, reasons, drained


def _refuse_swapped(
    before: SpecCounters, after: SpecCounters, names: tuple[Path, Path], start_s: tuple[float | None, float | None]
) -> None:
    """Refuse a pair only when the evidence says swap: the clocks (process start time, ``*_created``) moved back,
    or, with no clock in both scrapes, the counters went down in every engine while the reverse order counts up
    cleanly. Clocks that moved forward are a restart (issue 35), never swapped files, whatever vanished with it.

    Raises:
        ConfigError: the files look swapped.
    """
    from specscope.stats.counters import counters_delta
    from specscope.stats.counters_window import clock_evidence

    clocks = clock_evidence(before, after, start_s)
    if clocks.moved in ("forward", "mixed"):
        return
    if clocks.moved is None and (not counters_delta(before, after).reset or counters_delta(after, before).reset):
        return
    b, a = names
    if clocks.moved == "back":
        raise ConfigError(
            "the AFTER scrape comes from an earlier server process than BEFORE",
            found=f"{a} against {b}: {clocks.said}",
            expected="AFTER scraped later than BEFORE (its clocks no earlier)",
            fix=f"the files are swapped: run specscope counters {shell_word(a)} {shell_word(b)}; "
            "the counters are read as a window then",
        )
    raise ConfigError(
        "the counters went down in every engine between BEFORE and AFTER",
        found=f"{b} holds higher counters than {a}",
        expected="AFTER scraped later than BEFORE (counters only rise while the server runs)",
        fix=f"the files may be swapped: run specscope counters {shell_word(a)} {shell_word(b)}; "
        "if the server restarted between the scrapes, scrape both again",
    )


def _refuse_two_engines(before: SpecCounters, after: SpecCounters, names: tuple[Path, Path]) -> None:
    """Refuse two scrapes written with two engines' names (BEFORE from one server, AFTER from another) that share no
    series set: nothing in them can be differenced, and reading them as a window says "vanished" and "started at an
    unknown point" of what is only another file.

    Raises:
        ConfigError: the scrapes' engines differ and no series set is in both.
    """
    from specscope.adapters.registry import display

    kinds = before.engine_kind, after.engine_kind
    if None in kinds or kinds[0] == kinds[1] or set(before.engines) & set(after.engines):
        return
    b, a = names
    said = [f"{path}: {display(str(kind))}'s names" for path, kind in zip(names, kinds, strict=True)]
    raise ConfigError(
        "BEFORE and AFTER are scrapes of two different engines",
        found="; ".join(said),
        expected="two scrapes of the same server's /metrics, before and after the load",
        fix=f"scrape the same URL twice: curl -s http://HOST:PORT/metrics > {b}, run the load, then > {a}",
    )


def _load_both(before: Path, after: Path, max_bytes: int, timeout_s: float) -> tuple[_Loaded, _Loaded]:
    """Both files' counters (or drained slices), process start times and models, parsed within ``timeout_s`` s.

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


def counters_pair_doc(
    before: SpecCounters | DrainedSlice,
    after: SpecCounters | DrainedSlice,
    names: tuple[Path, Path],
    start_s: tuple[float | None, float | None] = (None, None),
    models: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset()),
) -> dict[str, Any]:
    """The counters document of two readings: two scrapes (refused when swapped; a scrape of one model against one of
    others is that model's set vanishing and the others' appearing, :func:`~specscope.stats.counters.named_by_model`),
    or two drained slices (the window is AFTER's; ``drained`` says so and the slices' reasons join ``reasons``)."""
    from specscope.records import SpecCounters
    from specscope.stats.counters import named_by_model
    from specscope.stats.counters_doc import counters_doc

    if isinstance(before, SpecCounters) and isinstance(after, SpecCounters):
        before, after = named_by_model(before, *models), named_by_model(after, *models[::-1])
        _refuse_two_engines(before, after, names)
        _refuse_swapped(before, after, names, start_s)
        return counters_doc(before, after, start_s)
    start, total, reasons, drained = _drained_pair(before, after, names)
    doc = counters_doc(start, total, drained=True)
    doc["reasons"] = list(doc["reasons"]) + [r for r in reasons if r not in doc["reasons"]]
    doc["drained"] = drained
    return doc


def _drained_line(doc: dict[str, Any]) -> str:
    """The text output's first line for two drained slices (else "")."""
    d = doc.get("drained")
    if not d:
        return ""
    return (
        f"{d['endpoint']} (drained on read): the window is AFTER's {d['after_items']} items; "
        f"BEFORE's {d['before_items']} came before it\n"
    )


def register(app: typer.Typer) -> None:
    @app.command("counters", cls=VocabCommand)
    def counters(
        before: Path = typer.Argument(..., help="/metrics scraped before (Prometheus text, or a JSON metrics body)."),
        after: Path = typer.Argument(..., help="/metrics scraped after."),
        format: TextJsonFormatOption = None,
        output: OutputOption = None,
        max_bytes: MaxScrapeBytesOption = f"{MAX_SCRAPE_BYTES // 2**20}MiB",
        timeout: ScrapeTimeoutOption = f"{PARSE_TIMEOUT_S:g}s",
    ) -> None:
        """Counter deltas, acceptance and restart flags per engine from two saved /metrics scrapes.

        Exit 0 ok; 1 an alarm (accepting nothing, low acceptance) or counters that contradict each other (more
        tokens accepted than drafted ...); 2 bad input."""
        from specscope.stats.counters_doc import counters_text
        from specscope.values import TIMEOUT_BOUNDS_S, parse_bytes, parse_duration_s

        limit = parse_bytes(max_bytes, "--max-bytes")
        if limit < 1:  # int() made 0.5 a limit of 0 bytes, refused as "at most 0 bytes" for every file
            raise ConfigError(
                "--max-bytes is less than one byte",
                found=str(max_bytes),
                expected="a size of at least 1 byte, e.g. 8MiB",
                fix="give --max-bytes a whole size, e.g. --max-bytes 8MiB",
            )
        (b, b_start, b_models), (a, a_start, a_models) = _load_both(
            before, after, int(limit), parse_duration_s(timeout, "--timeout", bounds=TIMEOUT_BOUNDS_S)
        )
        doc = counters_pair_doc(b, a, (before, after), (b_start, a_start), (b_models, a_models))
        fmt, out = report_target(format, output, TEXT_JSON, reads=(before, after))
        emit(dumps_strict(doc, indent=2) if fmt == "json" else _drained_line(doc) + counters_text(doc), out)
        if doc["alarms"] or doc["inconsistencies"]:
            raise typer.Exit(1)
