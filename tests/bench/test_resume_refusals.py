"""`specscope bench --resume` on a run this version cannot extend: one error line, exit 2, nothing written."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from clirun import cli
from factmaker import schema1_run
from hangguard import HANG_S
from run_damage import damage, small_run, snapshot


def test_resuming_a_schema1_run_is_refused_in_one_line(tmp_path):
    folder = schema1_run(tmp_path)
    manifest_before = (folder / "manifest.json").read_bytes()
    res = subprocess.run(
        [sys.executable, "-m", "specscope", "bench", "--resume", str(folder)],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: {folder} is a schema-1 run: it can be read but not resumed; found: schema_version 1; "
        "expected: schema_version 2; fix: start a new run with `specscope bench`"
    ]
    assert (folder / "manifest.json").read_bytes() == manifest_before


@pytest.mark.parametrize(
    ("damage_name", "named"),
    [
        ("manifest options an option renamed", "options.concurrency_levels: [1, 2]"),
        ("manifest options max_tokens null", "options.max_tokens: Input should be a valid integer (stored None)"),
    ],
)
@pytest.mark.parametrize("how", ["--resume", "--like"])
def test_a_run_whose_stored_options_this_version_cannot_run_is_refused_by_name(
    damage_name, named, how, tmp_path, capsys, monkeypatch
):
    # issue 37 (R-faults): a renamed option in the manifest was exit 3 (BenchOptions' ValidationError) on --resume
    run = small_run(tmp_path / "run")
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["run_options"] = {"configs": ["base", "ngram"]}
    (run / "manifest.json").write_text(json.dumps(manifest))
    damage(run, damage_name)
    before = snapshot(run)
    argv = ["bench", "--resume", run] if how == "--resume" else ["bench", "--like", run, "--out", tmp_path / "new"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert (code, out) == (2, "")
    assert err.startswith(f"error: {run / 'manifest.json'} ") and err.count("\n") == 1
    assert f"found: {named};" in err and "fix: " in err
    assert snapshot(run) == before
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("argv", [["--like", "{run}", "--dry-run"], ["--resume", "{run}", "--print-run-file"]])
def test_like_on_an_imported_run_says_it_is_imported(argv, tmp_path, capsys, monkeypatch):
    """``bench --like RUN`` (and ``--resume RUN --print-run-file``) on a run ``specscope import`` had just made said
    it was "made before run records" and expected "a run made by this specscope", which it was (fresh-user finding,
    user59): an imported run has no bench options to repeat, and the message says so with what to run instead."""
    from clirun import vllm_import_run

    run = vllm_import_run(tmp_path, capsys, monkeypatch)
    code, _, err = cli(["bench", *(a.format(run=run) for a in argv)], capsys, monkeypatch, tmp_path)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"{run} is an imported run: it has no bench options to repeat (bench did not measure it)" in err
    assert "made before run records" not in err
    assert "found: 4 imported records (specscope import) of configs base, mtp, no bench matrix" in err
    assert "fix: measure the configs with bench: `specscope bench --server base=URL --server mtp=URL`" in err
