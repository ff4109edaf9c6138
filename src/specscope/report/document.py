"""The report document: one typed tree that every output format renders (text, Markdown, JSON, HTML).

The builder (:mod:`specscope.report.build`) computes every figure and formats it once (with
:mod:`specscope.report.units`); a renderer only lays out :class:`Cell` texts, notes, alarms and
:class:`ChartData`, so the four formats print the same strings. ``Document.to_dict`` is the JSON
format (``specscope report RUN -f json``), schema :data:`DOCUMENT_SCHEMA`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = [
    "DOCUMENT_SCHEMA",
    "Cell",
    "Column",
    "Table",
    "Alarm",
    "Series",
    "Panel",
    "ChartData",
    "Section",
    "Document",
    "text_cell",
]

DOCUMENT_SCHEMA = "specscope.report/3"


@dataclass(frozen=True)
class Cell:
    """One table cell: the typed ``value`` (units in the column), its display ``text`` (formatted once) and its
    ``tone`` (a verdict such as ``faster``, for a renderer that colours it; "" for none)."""

    value: float | int | str | None
    text: str
    tone: str = ""


def text_cell(text: str) -> Cell:
    """A cell that is only text (a name, a status, a list of reasons)."""
    return Cell(text, text)


@dataclass(frozen=True)
class Column:
    """A column name and its unit (``""`` for names and mixed text; e.g. ``tok/s``, ``s``, ``%``, ``x``)."""

    name: str
    unit: str = ""


@dataclass
class Table:
    """A titled table of typed cells with a note under it; ``key`` is a stable id (e.g. ``throughput:edit``)."""

    key: str
    title: str
    columns: list[Column]
    cells: list[list[Cell]]
    note: str = ""

    @property
    def headers(self) -> list[str]:
        """Column names as printed: the name, then the unit in brackets when there is one."""
        return [f"{c.name} ({c.unit})" if c.unit else c.name for c in self.columns]

    @property
    def rows(self) -> list[list[str]]:
        """The display texts, row by row."""
        return [[c.text for c in row] for row in self.cells]

    def to_dict(self) -> dict[str, Any]:
        """``rows`` are the display texts, ``values`` the typed values in the same places."""
        return {
            "key": self.key,
            "title": self.title,
            "columns": [asdict(c) for c in self.columns],
            "rows": self.rows,
            "values": [[c.value for c in row] for row in self.cells],
            "note": self.note,
        }


@dataclass(frozen=True)
class Alarm:
    """A loud warning about a config (e.g. acceptance near zero): what was seen, the likely cause, the fixes."""

    code: str
    config: str
    workload: str | None
    found: str
    cause: str
    fixes: tuple[str, ...]

    @property
    def text(self) -> str:
        where = self.config if self.workload is None else f"{self.config} on {self.workload}"
        return f"ALARM {self.code} ({where}): {self.found}. Likely cause: {self.cause}. Check: {'; '.join(self.fixes)}"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "fixes": list(self.fixes), "text": self.text}


SeriesStyle = Literal["line", "dashed", "reference", "bar", "band"]


@dataclass(frozen=True)
class Series:
    """One line, bar group or band of a chart panel; ``low``/``high`` bound a band (same length as ``ys``)."""

    label: str
    xs: tuple[float, ...]
    ys: tuple[float | None, ...]
    style: SeriesStyle = "line"
    low: tuple[float, ...] = ()
    high: tuple[float, ...] = ()
    inner_low: tuple[float, ...] = ()
    inner_high: tuple[float, ...] = ()


@dataclass(frozen=True)
class Panel:
    """One axes of a chart: its series, axis labels and scales; ``x_labels`` name categorical x positions."""

    title: str
    xlabel: str
    ylabel: str
    series: tuple[Series, ...]
    log2_x: bool = False
    log2_y: bool = False
    y_max: float | None = None
    x_labels: tuple[str, ...] = ()
    y_labels: tuple[str, ...] = ()
    grid: tuple[tuple[float | None, ...], ...] = ()
    grid_text: tuple[tuple[str, ...], ...] = ()
    grey: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class ChartData:
    """A chart's data: ``kind`` is ``lines``, ``bars`` or ``heatmap``; renderers draw it, never compute it."""

    name: str
    title: str
    kind: Literal["lines", "bars", "heatmap"]
    panels: tuple[Panel, ...]
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Section:
    """A part of the report (a run, its server facts...): tables, verdict lines, notes, alarms, charts."""

    key: str
    title: str
    tables: list[Table] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    alarms: list[Alarm] = field(default_factory=list)
    charts: list[ChartData] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "title": self.title,
            "alarms": [a.to_dict() for a in self.alarms],
            "verdicts": list(self.verdicts),
            "notes": list(self.notes),
            "tables": [t.to_dict() for t in self.tables],
            "charts": [c.to_dict() for c in self.charts],
        }


@dataclass
class Document:
    """The whole report: a title, sections in reading order, and the raw run data kept for JSON readers."""

    title: str
    sections: list[Section]
    data: dict[str, Any] = field(default_factory=dict)
    headline: list[str] = field(default_factory=list)  # the judgement's answer, first (report/headline.py)

    @property
    def tables(self) -> list[Table]:
        return [t for s in self.sections for t in s.tables]

    @property
    def alarms(self) -> list[Alarm]:
        return [a for s in self.sections for a in s.alarms]

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": DOCUMENT_SCHEMA,
            "title": self.title,
            "headline": list(self.headline),
            "alarms": [a.to_dict() for a in self.alarms],
            "sections": [s.to_dict() for s in self.sections],
            **self.data,
        }
