"""``advise --from-csv``: a published table's header and rows as users write them (fresh-user check, 2026-12-05):
two rows of one cell were read as one (the later silently won); ``Config`` / ``Output_Tok_S`` and a table without a
``repeat`` column were refused."""

from __future__ import annotations

import pytest

from specscope.errors import ConfigError
from specscope.stats.csv_cells import read_cells_csv


def test_two_rows_of_one_cell_are_refused_with_both_lines(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text(
        "config,workload,concurrency,repeat,output_tok_s\r\nmtp,prose,1,0,90\r\nbase,prose,1,0,50\r\nmtp,prose,1,0,91\r\n"
    )
    with pytest.raises(ConfigError) as ei:
        read_cells_csv(f)
    e = ei.value
    assert e.message == "two rows measure the same cell"
    assert e.found == f"{f}:2 and {f}:4: config=mtp, workload=prose, concurrency=1, repeat=0"
    assert "repeat column" in (e.fix or "")


def test_header_case_and_spaces_and_no_repeat_column(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text(" Config ,Workload,CONCURRENCY,Output_Tok_S\nmtp,chat,1,23.8\nnone,chat,1,20.3\nmtp,chat,4,60.5\n")
    cells = read_cells_csv(f)
    assert [(c.config, c.workload, c.concurrency, c.repeat, c.output_tok_s) for c in cells] == [
        ("mtp", "chat", 1, 0, 23.8),
        ("none", "chat", 1, 0, 20.3),
        ("mtp", "chat", 4, 0, 60.5),
    ]
    f.write_text("config,workload,concurrency,output_tok_s\nmtp,chat,1,23.8\nmtp,chat,1,24.0\n")
    with pytest.raises(ConfigError, match="two rows measure the same cell"):
        read_cells_csv(f)


def test_acceptance_placement_on_a_table_of_rates_says_why_it_cannot(tmp_path):
    """A CSV's acceptance column states rates, no counts: ``--acceptance`` said "no config drafted" about a table whose
    mtp rows carry acceptance (fresh-user check, 2026-12-05); it now says what the table lacks."""
    from specscope.stats.crossovers import place_acceptance

    f = tmp_path / "t.csv"
    f.write_text("config,workload,concurrency,output_tok_s,acceptance\nbase,chat,1,20,\nmtp,chat,1,30,0.71\n")
    with pytest.raises(ConfigError) as ei:
        place_acceptance(read_cells_csv(f), 0.5, baseline="base")
    assert ei.value.found == (
        "acceptance rates without drafted / accepted counts (mtp: a CSV's acceptance column or an imported file states "
        "a rate only)"
    )
