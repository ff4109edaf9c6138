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


def test_a_published_header_is_read_by_its_synonyms_and_every_renaming_is_said(tmp_path):
    """A table as posted (vLLM's `output_throughput`, `Method`, `Batch size`, an acceptance length, a GPU column, no
    workload): each column read as the figure it names, said in a note; the column not read is named; every row is
    workload 'all'. Before, the first missing name ('config') refused the table."""
    from specscope.stats.csv_cells import read_cells_csv_noted

    f = tmp_path / "pub.csv"
    f.write_text(
        "Method,Batch size,output_throughput,Acceptance length,GPU\nbase,1,20.3,,H100\neagle3,1,26.9,2.8,H100\n"
    )
    cells, notes = read_cells_csv_noted(f)
    assert [(c.config, c.workload, c.concurrency, c.output_tok_s, c.acceptance_length) for c in cells] == [
        ("base", "all", 1, 20.3, None),
        ("eagle3", "all", 1, 26.9, 2.8),
    ]
    assert cells[1].acceptance_source == "csv" and cells[1].acceptance_rate is None  # a length is no rate
    assert notes == [
        "pub.csv: column 'Method' read as config",
        "pub.csv: column 'Batch size' read as concurrency",
        "pub.csv: column 'output_throughput' read as output_tok_s",
        "COLUMN_NOT_READ(pub.csv: 'GPU'; read: config, workload, concurrency, repeat, output_tok_s, acceptance, "
        "acceptance_length, stream_tok_s)",
        "pub.csv: no workload column: every row is workload 'all'",
    ]


def test_two_columns_of_one_figure_and_a_bad_length_are_refused(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("config,concurrency,output_tok_s,tok/s\nbase,1,20,21\n")
    with pytest.raises(ConfigError) as ei:
        read_cells_csv(f)
    assert ei.value.found == f"{f}: 'output_tok_s' and 'tok/s', both read as output_tok_s"
    f.write_text("config,concurrency,output_tok_s,acceptance_length\nmtp,1,20,0.7\n")
    with pytest.raises(ConfigError, match="bad acceptance_length"):
        read_cells_csv(f)


def test_a_header_with_its_unit_in_brackets_is_read_in_that_unit(tmp_path):
    """The labels `vllm bench serve` and SGLang's bench_serving print, with their units: `Output token throughput
    (tok/s)` is output_tok_s, `Acceptance rate (%)` is a rate x 0.01, `Maximum request concurrency` the level; a
    unit that is not the column's (`tok/s/user`, `ms`) leaves the column not read, named. Before, the first refused
    the table ('lacks output_tok_s') and the percent was out of 0..1."""
    from specscope.stats.csv_cells import read_cells_csv_noted

    f = tmp_path / "pub.csv"
    f.write_text(
        "Method,Maximum request concurrency,Output token throughput (tok/s),Acceptance rate [%],"
        "Output token throughput (tok/s/user),Mean TPOT (ms),Accept length (tokens)\n"
        "base,4,100.5,,25,40,\n"
        "eagle3,4,150.25,62.5,37,27,2.9\n"
    )
    cells, notes = read_cells_csv_noted(f)
    assert [(c.config, c.concurrency, c.output_tok_s, c.acceptance_rate, c.acceptance_length) for c in cells] == [
        ("base", 4, 100.5, None, None),
        ("eagle3", 4, 150.25, 0.625, 2.9),
    ]
    assert notes == [
        "pub.csv: column 'Method' read as config",
        "pub.csv: column 'Maximum request concurrency' read as concurrency",
        "pub.csv: column 'Output token throughput (tok/s)' read as output_tok_s",
        "pub.csv: column 'Acceptance rate [%]' read as acceptance (x 0.01)",
        "pub.csv: column 'Accept length (tokens)' read as acceptance_length",
        "COLUMN_NOT_READ(pub.csv: 'Output token throughput (tok/s/user)', 'Mean TPOT (ms)'; read: config, workload, "
        "concurrency, repeat, output_tok_s, acceptance, acceptance_length, stream_tok_s)",
        "pub.csv: no workload column: every row is workload 'all'",
    ]
    f.write_text("config,concurrency,output_tok_s,acceptance (%)\nmtp,1,20,120\n")
    with pytest.raises(ConfigError) as ei:
        read_cells_csv_noted(f)
    assert ei.value.expected == "a rate in 0..100 (the column is in %)"


def test_a_table_of_several_targets_is_one_workload_per_target_and_a_bare_throughput_needs_its_unit(tmp_path):
    """A paper's table of model x method x dataset (AngelSlim's docs, performance/speculative_decoding/
    benchmarks.md, "Eagle3 / Qwen3 Series Models": `Model | Method | GSM8K throughput (tokens/s) | accept length`),
    typed out long-form as a user would, with the concurrency it was measured at added. Before, `throughput
    (tokens/s)` was not read ("lacks output_tok_s": `throughput` alone may count requests), and with it read, two
    targets' `Vanilla` rows of one dataset were refused as one cell measured twice. A target's rows are workloads of
    their own, so Eagle3 on Qwen3-4B is compared with Vanilla on Qwen3-4B only; `Throughput (req/s)` stays unread."""
    from specscope.stats.csv_cells import read_cells_csv_noted

    f = tmp_path / "angelslim.csv"
    f.write_text(
        "Model,Method,Dataset,concurrency,throughput (tokens/s),accept length,Throughput (req/s)\n"
        "Qwen3-1.7B,Vanilla,GSM8K,1,376.42,1,3.1\n"
        "Qwen3-1.7B,Eagle3,GSM8K,1,616.9,2.13,5.0\n"
        "Qwen3-4B,Vanilla,GSM8K,1,229.05,1,1.9\n"
        "Qwen3-4B,Eagle3,GSM8K,1,389.35,2.07,3.2\n"
    )
    cells, notes = read_cells_csv_noted(f)
    assert [(c.config, c.workload, c.output_tok_s, c.acceptance_length) for c in cells] == [
        ("Vanilla", "Qwen3-1.7B/GSM8K", 376.42, 1.0),
        ("Eagle3", "Qwen3-1.7B/GSM8K", 616.9, 2.13),
        ("Vanilla", "Qwen3-4B/GSM8K", 229.05, 1.0),
        ("Eagle3", "Qwen3-4B/GSM8K", 389.35, 2.07),
    ]
    assert notes == [
        "angelslim.csv: column 'Method' read as config",
        "angelslim.csv: column 'Dataset' read as workload",
        "angelslim.csv: column 'throughput (tokens/s)' read as output_tok_s",
        "angelslim.csv: column 'accept length' read as acceptance_length",
        "COLUMN_NOT_READ(angelslim.csv: 'Throughput (req/s)'; read: config, workload, concurrency, repeat, "
        "output_tok_s, acceptance, acceptance_length, stream_tok_s)",
        "angelslim.csv: 2 target models (Qwen3-1.7B, Qwen3-4B): each target's rows are workloads of their own, "
        "MODEL/WORKLOAD, so no comparison crosses two targets",
    ]
    f.write_text("target,method,tok/s,bs\nQwen3-8B,base,149.63,1\nQwen3-8B,eagle3,257.32,1\n")
    cells, notes = read_cells_csv_noted(f)
    assert [(c.config, c.workload) for c in cells] == [("base", "all"), ("eagle3", "all")]
    assert "angelslim.csv: one target model, 'Qwen3-8B'" in notes


def test_a_table_with_one_config_per_column_is_read_one_cell_per_config(tmp_path):
    """The shape PR descriptions post (`| Concurrency | Baseline (tok/s) | EAGLE3 (tok/s) | Speedup |`): no config
    column, one token-rate column per config. Before, it was refused ("add the column 'config'"). Each such column
    is read as its config's output_tok_s, said in a note; the table's own speedup is not read (the ratio is derived
    here, once); a blank line is skipped as before; a short row's missing rate is a bad value on its line."""
    from specscope.stats.csv_cells import read_cells_csv_noted

    f = tmp_path / "wide.csv"
    f.write_text("Concurrency,Baseline (tok/s),EAGLE3 (tok/s),Speedup\n1,120.5,250.1,2.08x\n\n8,800,1300,1.63x\n")
    cells, notes = read_cells_csv_noted(f)
    assert [(c.config, c.concurrency, c.output_tok_s) for c in cells] == [
        ("Baseline", 1, 120.5),
        ("EAGLE3", 1, 250.1),
        ("Baseline", 8, 800.0),
        ("EAGLE3", 8, 1300.0),
    ]
    assert notes[0] == (
        "wide.csv: one config per column: 'Baseline (tok/s)' read as Baseline's output_tok_s, "
        "'EAGLE3 (tok/s)' read as EAGLE3's output_tok_s"
    )
    assert any(n.startswith("COLUMN_NOT_READ(wide.csv: 'Speedup'") for n in notes)
    f.write_text("Concurrency,Baseline (tok/s),EAGLE3 (tok/s)\n1,120.5,250.1\n8,800\n")
    with pytest.raises(ConfigError) as ei:
        read_cells_csv_noted(f)
    assert ei.value.found == f"{f}:3: output_tok_s=''"
    # one rate column is no wide table: it stays a column not read, and the config column is asked for
    f.write_text("Concurrency,EAGLE3 (tok/s)\n1,250.1\n")
    with pytest.raises(ConfigError, match="lacks a required column"):
        read_cells_csv_noted(f)
