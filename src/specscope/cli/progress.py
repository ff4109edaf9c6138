"""Progress of a bench run: a live bar on a terminal, one plain line per finished cell in a log.

When stderr is not a terminal (``make bench > log 2>&1``) each finished cell prints one line::

    [3/12] ngram/prose/c1/r0 ok 41.3 tok/s elapsed 0:00:25 ETA 0:01:40

The ETA weighs the cells left of each config by the mean measured time per cell of that config (``cell_s`` of
:class:`specscope.bench.runner.BenchProgress`: warm-up, scrapes and streams), falling back to the mean over all
configs for a config not measured yet, so a slow config's cells count for what they cost.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = ["EtaModel", "format_hms", "progress_line", "progress"]


def format_hms(seconds: float | None) -> str:
    """``H:MM:SS`` of a duration (s); ``?`` when unknown."""
    if seconds is None:
        return "?"
    s = int(round(max(0.0, seconds)))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


class EtaModel:
    """Mean measured seconds per cell of each config, and the time the cells left will take."""

    def __init__(self) -> None:
        self._times: dict[str, list[float]] = {}

    def add(self, config: str, cell_s: float) -> None:
        self._times.setdefault(config, []).append(cell_s)

    def eta_s(self, left_by_config: Mapping[str, int]) -> float | None:
        """Seconds left (s); None before any cell was measured (:func:`specscope.stats.timeline.time_left_s`)."""
        from specscope.stats.timeline import time_left_s

        return time_left_s(self._times, left_by_config)


def progress_line(p: Any, eta_s: float | None) -> str:
    """The log line of one finished cell (``p``: a :class:`specscope.bench.runner.BenchProgress`)."""
    rate = p.summary.output_tok_s if p.summary.status in ("ok", "degraded") else None  # a failed cell has no rate
    tok_s = "-" if rate is None else f"{rate:.1f} tok/s"
    return (
        f"[{p.done}/{p.total}] {p.cell_label()} {p.summary.status} {tok_s} "
        f"elapsed {format_hms(p.elapsed_s)} ETA {format_hms(eta_s)}"
    )


@contextlib.contextmanager
def _bar(console: Any, eta: EtaModel) -> Iterator[Callable[[Any], None]]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, TextColumn("ETA {task.fields[eta]} {task.fields[rate]}"), console=console) as bar:
        task = bar.add_task("cells", total=None, rate="", eta="?")

        def on_cell(p: Any) -> None:
            eta.add(p.key.config, p.cell_s)
            run_rate = p.total_output_tokens / p.elapsed_s if p.elapsed_s > 0 else 0.0
            last = p.summary.output_tok_s or 0.0
            rate = f"last {last:.1f} tok/s · run {run_rate:.1f} tok/s · {p.summary.status}"
            bar.update(
                task,
                total=p.total,
                completed=p.done,
                description=p.cell_label(),
                rate=rate,
                eta=format_hms(eta.eta_s(p.left_by_config)),
            )

        yield on_cell


@contextlib.contextmanager
def progress(console: Any) -> Iterator[Callable[[Any], None]]:
    """Yields ``on_cell``: a live bar when ``console`` is a terminal, else one printed line per cell."""
    eta = EtaModel()
    if console.is_terminal:
        with _bar(console, eta) as on_cell:
            yield on_cell
        return

    def on_line(p: Any) -> None:
        eta.add(p.key.config, p.cell_s)
        console.print(progress_line(p, eta.eta_s(p.left_by_config)), markup=False, highlight=False, soft_wrap=True)

    yield on_line
