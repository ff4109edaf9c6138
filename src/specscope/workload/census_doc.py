"""``docs/workloads.md`` from its template (``scripts/workloads.md.in``) and the workload census
(:data:`specscope.workload.census.CENSUS`, :data:`specscope.workload.census_hub.HUB_DATASETS`): the template's
``{{census}}`` becomes one table row per layout with its source, then one per AIPerf hub-backed dataset loader;
``{{userfiles}}``, ``{{datasets}}``, ``{{dataset_columns}}`` and ``{{traces}}`` become the user-file layouts
(:mod:`specscope.workload.userfile_layouts`), the datasets and their columns (:mod:`specscope.workload.dataset_defs`)
and the trace layouts (:data:`specscope.workload.trace.TRACE_LAYOUTS`), each row with the test that reaches it
through a command.
``scripts/gen_workloads_doc.py`` writes the file; ``tests/workload/test_census.py`` checks that the committed file
is this text.
"""

from __future__ import annotations

from collections.abc import Sequence

from specscope.workload.census import CENSUS, EVERY_ROW_READS, FIELD_USE, Layout
from specscope.workload.census_hub import HUB_DATASETS
from specscope.workload.dataset_defs import DATASETS, DatasetDef
from specscope.workload.trace import TRACE_LAYOUTS
from specscope.workload.userfile_layouts import USERFILE_LAYOUTS

__all__ = [
    "MARK",
    "MARKS",
    "TEST_FILE",
    "DATASET_TEST",
    "census_table",
    "hub_table",
    "userfile_table",
    "field_use_table",
    "datasets_table",
    "dataset_columns_table",
    "trace_table",
    "render",
]

#: where the generated tables go in the template
MARK = "{{census}}"
#: the test that sends a file of every layout (one parametrised case per census key)
TEST_FILE = "tests/integration/test_census_layouts.py"

_HEAD = (
    "| layout | tool | source (repository, file, class or function, commit) | file | prompt or messages | "
    "output length | ids | timestamps | `--workload` | test |"
)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _row(lay: Layout) -> str:
    cells = [f"`{lay.key}`", lay.tool, lay.source, lay.shape, lay.prompt, lay.output, lay.ids, lay.timestamps,
             lay.specscope, f"`{TEST_FILE}::test_census_layout_sent_row_by_row[{lay.key}]`"]  # fmt: skip
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def census_table() -> str:
    """The census as a Markdown table (one row per layout, in census order) with its lead-in and regeneration note."""
    lead = (
        f"Generated from `src/specscope/workload/census.py` ({len(CENSUS)} layouts) by "
        "`python scripts/gen_workloads_doc.py`; do not edit this table by hand. Each row names where the tool's "
        "reader was read and the fields it reads; `--workload` says what specscope does with such a file (read, or "
        "refused by name with the fix), and `test` sends a file of that layout, built from the reader's own field "
        "names, to the truth server and checks, row by row under the row id the run records, every request of the row "
        "(all turns) and its `max_tokens`. Generators that read no file "
        "(`random`, `prefix_repetition`, `random-mm`, `generated-shared-prefix`) are not layouts; published datasets "
        "are under Datasets below."
    )
    sep = "|" + "---|" * 10
    return "\n".join([lead, "", _HEAD, sep, *(_row(lay) for lay in CENSUS)])


def hub_table() -> str:
    """AIPerf's hub-backed dataset loaders (:data:`specscope.workload.census_hub.HUB_DATASETS`) as a Markdown table."""
    lead = (
        f"### AIPerf's public datasets, downloaded by name (generated: {len(HUB_DATASETS)} rows)\n\n"
        "Generated from `src/specscope/workload/census_hub.py` (AIPerf's `public_dataset_loader` registry in "
        "`src/aiperf/plugin/plugins.yaml` @018a03fc and the loaders named). specscope downloads nothing for "
        "`--workload`: `--workload` says what it does with the dataset's file once downloaded (a Parquet file is a "
        "binary file, refused with the conversion to JSON Lines; the row says what a JSON Lines export with the same "
        "columns is), and `tests/workload/test_census_hub.py` writes a row of each with the columns named."
    )
    head = ("names", "loader (repository, file, class, commit)", "dataset", "AIPerf sends", "`--workload`")
    rows = [(h.names, h.source, h.dataset, h.reads, h.specscope) for h in HUB_DATASETS]
    return "\n".join([lead, "", _table(head, rows)])


#: the test that reads a file of every dataset through ``bench --dataset NAME --dataset-path P --dry-run``
DATASET_TEST = "tests/cli/test_dataset_readers_cli.py::test_dry_run_reads_each_dataset"
_NOTE = "Generated from `{src}` by `python scripts/gen_workloads_doc.py`; do not edit this table by hand."


def _table(head: tuple[str, ...], rows: Sequence[tuple[str, ...]], note_src: str | None = None) -> str:
    """A Markdown table: ``head`` cells, then one line per row of cells (each escaped by ``_cell``); with
    ``note_src``, the generated-from note and a blank line above it."""
    lines = [f"| {' | '.join(head)} |", "|" + "---|" * len(head)]
    lines += [f"| {' | '.join(_cell(c) for c in row)} |" for row in rows]
    return "\n".join(([_NOTE.format(src=note_src), ""] if note_src else []) + lines)


def _tests(nodes: tuple[str, ...]) -> str:
    return ", ".join(f"`{n}`" for n in nodes)


def userfile_table() -> str:
    """The record layouts of a ``--workload`` file (:data:`~specscope.workload.userfile_layouts.USERFILE_LAYOUTS`)."""
    rows = [(u.record, u.source, u.sent, _tests(u.tests)) for u in USERFILE_LAYOUTS]
    return _table(("record", "source", "what is sent", "test"), rows, "src/specscope/workload/userfile_layouts.py")


def field_use_table() -> str:
    """The fields each layout a ``--workload`` row is read as takes and knowingly leaves
    (:data:`~specscope.workload.census.FIELD_USE`), with the fields every row's reading takes; a row's other fields are
    named in a warning."""
    lead = (
        "Besides these, every layout reads "
        + ", ".join(f"`{f}`" for f in EVERY_ROW_READS)
        + " (ids, output lengths, category, system prefix, tools; arrival times, request-body fields and "
        "output-length look-alikes are named in warnings of their own, media refused). A field of a row that its "
        "layout neither reads nor ignores is named once per file by `bench` and its dry run, with its row count and "
        "the layout."
    )
    rows = [
        (
            f"`{key}`",
            ", ".join(f"`{f}`" for f in use.reads)
            + (" (each as GuideLLM's column pattern matches it)" if use.pattern else ""),
            "; ".join(f"`{f}`: {why}" for f, why in use.ignores) or "—",
        )
        for key, use in FIELD_USE.items()
    ]
    table = _table(("layout", "fields read", "fields ignored (why)"), rows, "src/specscope/workload/census.py")
    return f"{table}\n\n{lead}"


def _configs(d: DatasetDef) -> str:
    parts = []
    if d.configs:
        parts.append("configs " + ", ".join(f"`{c}`" + (" (default)" if c == d.default_config else "")
                                            for c in d.configs))  # fmt: skip
    if d.note:
        parts.append(d.note)
    if d.split or not d.note:
        parts.append(f"split `{d.split}`" if d.split else "no hub split")
    return "; ".join(parts)


def datasets_table() -> str:
    """The ``--dataset`` names (:data:`~specscope.workload.dataset_defs.DATASETS`): where each was read, its configs
    and split, its licence and the test reading a file of it through a command."""
    head = ("`--dataset`", "published as", "definition read", "configs / split", "licence", "test")
    rows = [
        (f"`{name}`", f"`{d.hub_id}`", d.source, _configs(d), d.licence, f"`{DATASET_TEST}[{name}]`")
        for name, d in DATASETS.items()
    ]
    return _table(head, rows, "src/specscope/workload/dataset_defs.py")


def dataset_columns_table() -> str:
    """What specscope does with each published column of each dataset (``DatasetDef.columns``)."""
    rows = [
        (f"`{name}`" if i == 0 else "", f"`{c.name}` ({c.dtype})", c.use)
        for name, d in DATASETS.items()
        for i, c in enumerate(d.columns)
    ]
    return _table(("dataset", "column (type)", "use"), rows)


def trace_table() -> str:
    """The ``--trace`` layouts (:data:`~specscope.workload.trace.TRACE_LAYOUTS`)."""
    rows = [(t.format, t.source, t.columns, f"`{t.test}`") for t in TRACE_LAYOUTS]
    return _table(("format", "source", "columns", "test"), rows, "src/specscope/workload/trace.py")


def _census() -> str:
    return census_table() + "\n\n" + hub_table()


#: template mark -> the generated text it becomes
MARKS = {
    MARK: _census,
    "{{userfiles}}": userfile_table,
    "{{field_use}}": field_use_table,
    "{{datasets}}": datasets_table,
    "{{dataset_columns}}": dataset_columns_table,
    "{{traces}}": trace_table,
}


def render(template: str) -> str:
    """The template with each mark of :data:`MARKS` replaced by its table.

    Raises:
        ValueError: the template does not hold a mark exactly once.
    """
    for mark, make in MARKS.items():
        if template.count(mark) != 1:
            raise ValueError(f"the template must hold {mark} once, it holds it {template.count(mark)} times")
        template = template.replace(mark, make())
    return template
