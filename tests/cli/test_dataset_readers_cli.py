"""Every dataset docs/workloads.md's Datasets table lists (``workload/dataset_defs.py`` ``DATASETS``), reached through
the command a user runs: ``specscope bench --dataset NAME --dataset-path P --dry-run`` reads a file of the published
layout (tests/dataset_files.py, sources in tests/data/SOURCES.md) and prints each row's first turn under its
workload. The table's test column names these cases; tests/workload/test_census.py fails for a dataset without one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from clirun import cli
from dataset_files import (
    SPEC_BENCH_RECORDS,
    write_blazedit_parquet,
    write_instructcoder_jsonl,
    write_mt_bench_jsonl,
    write_spec_bench_jsonl,
    write_speed_bench_parquet,
)
from specscope.workload.dataset_defs import DATASETS

#: dataset -> (its --dataset spec, a writer of its file into a folder, texts the dry run must print)
READERS: dict[str, tuple[str, Callable[[Path], Path], list[str]]] = {
    "speed-bench": ("speed-bench:qualitative", lambda d: write_speed_bench_parquet(d / "test-00000-of-00001.parquet"),
                    ["workload speed-bench.coding:", "workload speed-bench.math:", "workload speed-bench.writing:"]),
    "spec-bench": ("spec-bench", lambda d: write_spec_bench_jsonl(d / "question.jsonl"),
                   [f"user: {SPEC_BENCH_RECORDS[0]['turns'][0]}"]),
    "mt-bench": ("mt-bench", lambda d: write_mt_bench_jsonl(d / "question.jsonl"),
                 ["user: Compose a travel blog post.", "then user: Rewrite it, A-words only."]),
    "blazedit": ("blazedit:5k", lambda d: write_blazedit_parquet(d / "train-00000-of-00001.parquet"),
                 ["Rename f to g.", "workload blazedit.small:"]),
    "instructcoder": ("instructcoder", lambda d: write_instructcoder_jsonl(d / "ic.jsonl"),
                      ["Add a docstring. Just output the code, do not include any explanation."]),
}  # fmt: skip


def test_every_declared_dataset_has_a_case() -> None:
    assert sorted(READERS) == sorted(DATASETS)


@pytest.mark.parametrize("name", list(READERS))
def test_dry_run_reads_each_dataset(tmp_path: Path, capsys, monkeypatch, name: str) -> None:
    spec, write, shown = READERS[name]
    folder = tmp_path / "data"
    folder.mkdir()
    path = write(folder)
    argv = ["bench", "--dataset", spec, "--dataset-path", str(path), "--out", str(tmp_path / "runs"), "--dry-run"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert f"--dataset {spec.partition(':')[0]}" in out, out
    for text in shown:
        assert text in out, (name, text, out)
