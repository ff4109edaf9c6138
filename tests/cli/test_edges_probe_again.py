"""The edges probe again (issue 37, "checked again by inputs you do not have"): inputs found on 2026-12-06 through
the CLI, each exit 2 with what was found, what was expected and the fix, never exit 3, a hang, a source written.

Inputs are built inside each test from tests/data (SOURCES.md) and tests' writers with the one thing under test
changed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from clirun import cli, one_error
from paths import DATA
from quickrun import make_quick_run


@pytest.fixture(scope="module")
def quick(tmp_path_factory) -> Path:
    return make_quick_run(tmp_path_factory.mktemp("quick") / "run")


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "{run}", "--mix", "prose=1e308,code=1e308"],  # the shares' sum overflowed to inf: 0 / 0
        ["advise", "{run}", "--mix", "prose=1e308,code=1e308,edit=1e308"],
        ["advise", "{run}", "--mix", "prose=1", "--level-mix", "1=1e308,2=1e308"],
    ],
)
def test_shares_whose_sum_is_past_a_float_are_refused(argv, quick, tmp_path, capsys, monkeypatch):
    code, _, err = cli([a.format(run=quick) for a in argv], capsys, monkeypatch, tmp_path)
    assert code == 2
    line = one_error(err)
    assert "shares sum past the largest number" in line and "found: " in line and "fix: " in line


def _sources(tmp_path: Path, quick: Path) -> dict[str, Path]:
    """Copies of each command's input: a run, a CSV of cells, two /metrics scrapes, a checkpoint."""
    from audit.ckmaker import dense_config, dense_model, write

    run = tmp_path / "run"
    shutil.copytree(quick, run)
    csv = tmp_path / "cells.csv"
    shutil.copy(DATA / "advise" / "one_repeat.csv", csv)
    for name, stem in (("before.prom", "llamacpp_before_no_per_pos"), ("after.prom", "llamacpp_after")):
        shutil.copy(DATA / "counters" / f"{stem}.prom", tmp_path / name)
    write(tmp_path / "ck", dense_model(2, 64), dense_config(2, 64))
    return {"run": run, "csv": csv, "before": tmp_path / "before.prom", "after": tmp_path / "after.prom"} | {
        "ck": tmp_path / "ck"
    }


OVER_A_SOURCE = {
    "report over the run's manifest": (["report", "{run}", "-o", "{run}/manifest.json"], "run"),
    "report into the run": (["report", "{run}", "-o", "{run}/report.md"], "run"),
    "advise over the run's database": (
        ["advise", "{run}", "--mix", "prose=1", "-f", "json", "-o", "{run}/run.sqlite"],
        "run",
    ),
    "advise over its CSV": (["advise", "--from-csv", "{csv}", "--mix", "prose=1", "-f", "json", "-o", "{csv}"], "csv"),
    "predict over the run's manifest": (["predict", "{run}", "-f", "json", "-o", "{run}/manifest.json"], "run"),
    "counters over a scrape": (["counters", "{before}", "{after}", "-f", "json", "-o", "{after}"], "after"),
    "audit over the config": (["audit", "{ck}", "-f", "json", "-o", "{ck}/config.json"], "ck"),
    "bench --like into the run it copies": (
        ["bench", "--server", "base=http://127.0.0.1:9", "--like", "{run}", "-o", "{run}/report.md"],
        "run",
    ),
    "export over the run's manifest": (["export", "{run}", "--to", "profile", "-o", "{run}/manifest.json"], "run"),
}


def _snapshot(path: Path) -> dict[str, bytes]:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {str(p): p.read_bytes() for p in files}


@pytest.mark.parametrize("case", sorted(OVER_A_SOURCE))
def test_an_output_over_or_inside_what_the_command_reads_is_refused_and_the_source_kept(
    case, quick, tmp_path, capsys, monkeypatch
):
    # report, advise --from-csv, counters and audit wrote their output over their own input (exit 0)
    argv, source = OVER_A_SOURCE[case]
    paths = _sources(tmp_path, quick)
    before = _snapshot(paths[source])
    code, out, err = cli([a.format(**paths) for a in argv], capsys, monkeypatch, tmp_path)
    assert code == 2, out
    line = one_error(err)
    assert line.startswith("error: --output would write into what this command reads") and str(paths[source]) in line
    assert _snapshot(paths[source]) == before


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["report", "{run}", "--mix", ""], "error: --mix has an empty item"),  # read as no --mix: exit 0
        (["advise", "{run}", "--mix", ""], "error: --mix has an empty item"),
        (["advise", "{run}", "--mix", "prose=1", "--level-mix", ""], "error: --level-mix has an empty item"),
        # an empty --baseline fell back to the run's baseline without a word (exit 0)
        (["advise", "{run}", "--mix", "prose=1", "--baseline", ""], "error: baseline config '' is not in the run"),
        # predict names it as advise does (user59: it named a missing concurrency-1 cell of the baseline '')
        (["predict", "{run}", "--baseline", ""], "error: baseline config '' is not in the run"),
    ],
)
def test_an_empty_option_value_is_refused_not_read_as_not_given(argv, says, quick, tmp_path, capsys, monkeypatch):
    code, _, err = cli([a.format(run=quick) for a in argv], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err).startswith(says)


def test_a_csv_of_100000_unread_columns_is_read_once_and_its_note_names_twenty(tmp_path, capsys, monkeypatch):
    # the duplicate-column check searched a list per column (O(columns^2): 100,000 columns took minutes) and the
    # COLUMN_NOT_READ note named every one (a note of 100,000 names)
    path = tmp_path / "wide.csv"
    unread = [f"c{i}" for i in range(100_000)]
    path.write_text(",".join(["config", "concurrency", "output_tok_s", *unread]) + "\nbase,1,50\nmtp,1,90\n")
    code, out, err = cli(["advise", "--from-csv", path, "--mix", "all=1", "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    named = ", ".join(repr(c) for c in unread[:20])
    assert f"COLUMN_NOT_READ(wide.csv: {named} and 99,980 more; read: " in out


@pytest.mark.parametrize(
    ("make", "found"),
    [
        (lambda p: p.write_bytes(b"\xff\xfe[x]\n"), "not UTF-8 text"),  # UnicodeDecodeError: exit 3
        (lambda p: os.mkfifo(p), "a FIFO, not a regular file"),  # said "recipe file not found"
        (lambda p: p.mkdir(), "a folder"),
    ],
)
def test_a_recipes_file_that_cannot_be_read_is_refused_saying_why(make, found, tmp_path, capsys, monkeypatch):
    path = tmp_path / "recipes.toml"
    make(path)
    code, _, err = cli(["serve", "--recipes", path, "--list"], capsys, monkeypatch, tmp_path)
    assert code == 2
    line = one_error(err)
    assert line.startswith("error: cannot read the recipe file") and f"{path}: {found}" in line


@pytest.mark.parametrize(
    ("plan", "says"),
    [
        ("requests=\u00b3,tokens=5", "error: --plan takes KEY=positive integer pairs"),  # str.isdigit: exit 3
        ("requests=1,requests=2,tokens=3", "error: --plan names 'requests' twice"),  # the last one won, silently
        ("requests=1,,tokens=3", "error: --plan has an empty item"),  # skipped, silently
    ],
)
def test_serve_plan_is_read_by_the_one_name_value_parser(plan, says, tmp_path, capsys, monkeypatch):
    log = DATA / "fixtures" / "vllm_cpu_0.32.0_smollm2_base.log"
    code, _, err = cli(["serve", "--parse-log", log, "--plan", plan], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err).startswith(says)


def test_export_to_a_tracking_server_that_does_not_answer_is_refused_after_one_try(
    quick, tmp_path, capsys, monkeypatch
):
    # MLflow's client retried 7 times with backoff for 4 minutes, then MlflowException: exit 3
    import socket

    pytest.importorskip("mlflow")
    for name in ("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "MLFLOW_HTTP_REQUEST_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    with socket.socket() as s:  # a port nothing listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        uri = f"http://127.0.0.1:{s.getsockname()[1]}"
        code, _, err = cli(["export", quick, "--tracking-uri", uri], capsys, monkeypatch, tmp_path)
    assert code == 2
    line = one_error(err)
    assert line.startswith("error: the MLflow tracking server did not answer") and uri in line


def test_a_hashes_file_that_is_a_fifo_is_named_as_one_not_as_missing(tmp_path, capsys, monkeypatch):
    from audit.ckmaker import dense_config, dense_model, write

    write(tmp_path / "ck", dense_model(2, 64), dense_config(2, 64))
    fifo = tmp_path / "SUMS"
    os.mkfifo(fifo)
    code, _, err = cli(["audit", tmp_path / "ck", "--hashes-file", fifo], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert f"found: {fifo}: not a regular file (a FIFO, a device or a socket);" in one_error(err)


def test_counters_max_bytes_below_one_byte_is_refused_as_the_option_not_as_the_file(tmp_path, capsys, monkeypatch):
    before, after = (DATA / "counters" / f"{n}.prom" for n in ("llamacpp_before_no_per_pos", "llamacpp_after"))
    code, _, err = cli(["counters", before, after, "--max-bytes", "0.5"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err).startswith("error: --max-bytes is less than one byte; found: 0.5;")
