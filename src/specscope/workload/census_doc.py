"""``docs/workloads.md`` from its template (``scripts/workloads.md.in``) and the workload census
(:data:`specscope.workload.census.CENSUS`, :data:`specscope.workload.census_hub.HUB_DATASETS`): the template's
``{{census}}`` becomes one table row per layout with its source, then one per AIPerf hub-backed dataset loader.
``scripts/gen_workloads_doc.py`` writes the file; ``tests/workload/test_census.py`` checks that the committed file
is this text.
"""

from __future__ import annotations

from specscope.workload.census import CENSUS, Layout
from specscope.workload.census_hub import HUB_DATASETS

__all__ = ["MARK", "TEST_FILE", "census_table", "hub_table", "render"]

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
    head = "| names | loader (repository, file, class, commit) | dataset | AIPerf sends | `--workload` |"
    rows = [f"| {' | '.join(_cell(c) for c in (h.names, h.source, h.dataset, h.reads, h.specscope))} |"
            for h in HUB_DATASETS]  # fmt: skip
    return "\n".join([lead, "", head, "|" + "---|" * 5, *rows])


def render(template: str) -> str:
    """The template with its one :data:`MARK` replaced by :func:`census_table`.

    Raises:
        ValueError: the template does not hold the mark exactly once.
    """
    if template.count(MARK) != 1:
        raise ValueError(f"the template must hold {MARK} once, it holds it {template.count(MARK)} times")
    return template.replace(MARK, census_table() + "\n\n" + hub_table())
