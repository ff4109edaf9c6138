"""Inputs a careless user or an attacker hands specscope, probed command by command (issue 37's edges): each is
exit 2 with what was found, what was expected and the fix, never exit 3, a hang, or a run made unreadable.

Inputs are built inside each test from tests/data (SOURCES.md) with the one thing under test changed."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from clirun import cli, one_error
from paths import DATA

IMPORTS = DATA / "imports"


def test_an_import_file_that_is_one_integer_of_100000_digits_is_refused(tmp_path, capsys, monkeypatch):
    # json.loads raises a plain ValueError (int max str digits) for it, not JSONDecodeError: exit 3 before
    path = tmp_path / "result.json"
    path.write_text("9" * 100_000)
    code, _, err = cli(["import", path, "--config", "x", "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "is not a result file" in one_error(err) and "digits" in err
    assert not (tmp_path / "run").exists()


def test_an_import_jsonl_line_with_an_integer_of_100000_digits_is_refused(tmp_path, capsys, monkeypatch):
    path = tmp_path / "result.jsonl"
    path.write_text('{"a": 1}\n{"a": ' + "9" * 100_000 + "}\n")
    code, _, err = cli(["import", path, "--config", "x", "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "line 2" in one_error(err)


def _imported_run(tmp_path: Path, capsys, monkeypatch) -> Path:
    run = tmp_path / "run"
    for config, stem in (("base", "vllm_base"), ("mtp", "vllm_mtp")):
        files = [IMPORTS / f"{stem}_r0.json", IMPORTS / f"{stem}_r1.json"]
        code, _, err = cli(["import", *files, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)
        assert code == 0, err
    return run


def _edit_imported_facts(run: Path, key: str, raw: str) -> None:
    """The first cell's stored ``client_json.imported[key]`` replaced by the JSON text ``raw`` (NaN as Python
    writes it)."""
    db = sqlite3.connect(run / "run.sqlite")
    rowid, text = db.execute("SELECT rowid, client_json FROM cells ORDER BY rowid LIMIT 1").fetchone()
    client = json.loads(text)
    client["imported"][key] = "@@"
    db.execute("UPDATE cells SET client_json=? WHERE rowid=?", (json.dumps(client).replace('"@@"', raw), rowid))
    db.commit()
    db.close()


@pytest.mark.parametrize(
    ("key", "raw"),
    [("completed", "Infinity"), ("failed", "NaN"), ("output_tokens", "-Infinity"), ("not_recorded", "1e308")],
)
def test_one_unusable_imported_fact_is_absent_with_its_reason_never_an_internal_error(
    key, raw, tmp_path, capsys, monkeypatch
):
    run = _imported_run(tmp_path, capsys, monkeypatch)
    _edit_imported_facts(run, key, raw)
    for argv in (
        ["report", run, "-f", "json"],
        ["advise", run, "--mix", "imported=1"],
        ["export", run, "--to", "profile", "-o", tmp_path / "p.json"],
    ):
        code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
        assert code in (0, 1), (argv[0], err)
    code, out, err = cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    reasons = [r for c in json.loads(out)["cells"] for r in c["reasons"] if r.startswith("UNUSABLE_FACT(")]
    assert reasons == [f"UNUSABLE_FACT({key}: {json.loads(raw)!r})"]


@pytest.mark.parametrize(
    ("key", "raw", "reason"),
    [
        # round(1e308 x drafts) raised OverflowError: report, advise and export refused the run (exit 3)
        ("acceptance_per_position", "[1.0, 1e308, 0.0]", "[1.0, 1e+308, 0.0] (not a list of rates in 0..1)"),
        ("acceptance_rate", "1e308", "1e+308 (not a rate in 0..1)"),
    ],
)
def test_a_stored_imported_rate_outside_0_to_1_is_absent_with_its_reason(
    key, raw, reason, tmp_path, capsys, monkeypatch
):
    run = _imported_run(tmp_path, capsys, monkeypatch)
    _edit_imported_facts(run, key, raw)
    for argv in (["advise", run, "--mix", "imported=1"], ["export", run, "--to", "profile", "-o", tmp_path / "p.json"]):
        code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
        assert code in (0, 1), (argv[0], err)
    code, out, err = cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    first = json.loads(out)["cells"][0]
    assert [r for r in first["reasons"] if r.startswith("UNUSABLE_FACT(")] == [f"UNUSABLE_FACT({key}: {reason})"]
    assert first[key] == ([] if key == "acceptance_per_position" else None)


def test_an_imports_entry_whose_not_recorded_is_a_number_is_refused_naming_it(tmp_path, capsys, monkeypatch):
    run = _imported_run(tmp_path, capsys, monkeypatch)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["imports"][0]["not_recorded"] = 1e308
    (run / "manifest.json").write_text(json.dumps(manifest))
    code, _, err = cli(["report", run], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "imports.0.not_recorded" in one_error(err)


def test_import_into_a_run_whose_wal_is_a_fifo_is_refused_and_the_run_is_unchanged(tmp_path, capsys, monkeypatch):
    # sqlite opened the FIFO as the write-ahead log and failed at the first write: OperationalError, exit 3
    run = _imported_run(tmp_path, capsys, monkeypatch)
    os.mkfifo(run / "run.sqlite-wal")
    before = (run / "run.sqlite").read_bytes(), (run / "manifest.json").read_bytes()
    new = IMPORTS / "aiperf_spec_r0.json"
    code, _, err = cli(["import", new, "--config", "eagle", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "run.sqlite-wal is not a regular file" in one_error(err)
    assert ((run / "run.sqlite").read_bytes(), (run / "manifest.json").read_bytes()) == before


def test_import_out_that_is_a_file_is_refused_and_the_file_is_kept(tmp_path, capsys, monkeypatch):
    out = tmp_path / "notes.txt"
    out.write_text("mine\n")
    new = IMPORTS / "aiperf_spec_r0.json"
    code, _, err = cli(["import", new, "--config", "eagle", "--out", out], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "a file" in one_error(err) and "fix:" in err
    assert out.read_text() == "mine\n"


TOML_DAMAGE = {
    "nested 5,000 deep": "a = " + "[" * 5000 + "]" * 5000 + "\n",  # tomllib recursed: RecursionError
    "an integer of 5,000 digits": "repeats = " + "9" * 5000 + "\n",  # int(): ValueError (max str digits)
}
TOML_COMMANDS = {
    "bench --run-file": ["bench", "--run-file", "{f}", "--print-run-file"],
    "gate --run-file": ["gate", "--run-file", "{f}", "--server", "base=http://127.0.0.1:9"],
    "serve --recipes": ["serve", "--recipes", "{f}", "--list"],
}


@pytest.mark.parametrize("damage", sorted(TOML_DAMAGE))
@pytest.mark.parametrize("command", sorted(TOML_COMMANDS))
def test_a_toml_file_nested_too_deep_or_with_a_huge_integer_is_not_toml(command, damage, tmp_path, capsys, monkeypatch):
    path = tmp_path / "file.toml"
    path.write_text(TOML_DAMAGE[damage])
    argv = [a.format(f=path) for a in TOML_COMMANDS[command]]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2
    assert str(path) in one_error(err) and "TOML" in err


@pytest.mark.parametrize("rates", [1e308, 5, "x", {"a": 1}])
def test_a_manifest_whose_rates_is_not_a_list_is_refused_naming_rates(rates, tmp_path, capsys, monkeypatch):
    # BenchOptions' before-validator took len() of it: TypeError, which pydantic passes through (exit 3)
    run = _imported_run(tmp_path, capsys, monkeypatch)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["options"]["rates"] = rates
    (run / "manifest.json").write_text(json.dumps(manifest))
    code, _, err = cli(["report", run], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert "rates" in one_error(err)


@pytest.mark.parametrize(
    "url",
    [
        "http://[u:pw@127.0.0.1:9",  # httpx took it, urlsplit raised ValueError (Invalid IPv6 URL)
        "http://127.0.0.1:99999999999999999999",  # httpx took it, the connect raised OverflowError
        "http://127.0.0.1:70000",
    ],
)
@pytest.mark.parametrize("command", ["bench", "gate"])
def test_a_server_url_no_connection_can_use_is_refused_before_any_request(command, url, tmp_path, capsys, monkeypatch):
    code, _, err = cli([command, "--server", f"base={url}", "--out", tmp_path / "out"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err).startswith("error: --server URL is not valid")
    assert "pw@" not in err


TRACE_DAMAGE = {
    "a JSONL arrival of 5,000 digits": (
        "t.jsonl",
        '{"arrival_s": ' + "9" * 5000 + ', "input_tokens": 1, "output_tokens": 1}\n',
    ),
    "a CSV length of 5,000 digits": (
        "t.csv",
        "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68," + "9" * 5000 + ",4\n",
    ),
    "a CSV length in superscript digits": (
        "t.csv",
        "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68,\u00b3,4\n",
    ),
}


@pytest.mark.parametrize("damage", sorted(TRACE_DAMAGE))
def test_a_trace_with_a_number_python_cannot_convert_is_refused_naming_its_line(damage, tmp_path, capsys, monkeypatch):
    name, text = TRACE_DAMAGE[damage]
    path = tmp_path / name
    path.write_text(text)
    argv = ["bench", "--server", "base=http://127.0.0.1:9", "--trace", path, "--out", tmp_path / "out"]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2
    assert f"{path}:2" in one_error(err) or f"{path}:1" in err


def test_a_gzip_of_bare_newlines_is_refused_by_its_line_count_before_any_list_is_built(tmp_path, monkeypatch):
    """Found by the edges probe (2026-12-05): a 300 KB .jsonl.gz of 300 MB of newlines took 227 s and 5.4 GB before
    exit 2 (readfile.split_lines built a list of every line, twice). Lines are counted first, in C; the limit is
    lowered here so that the test stays small, and the same path runs for --trace and --workload."""
    import gzip

    from specscope.errors import ConfigError
    from specscope.workload import trace, userfile

    monkeypatch.setattr("specscope.readfile.MAX_LINES", 1000)
    monkeypatch.setattr("specscope.workload.prompt.MAX_LINES", 1000)
    blob = tmp_path / "b.jsonl.gz"
    blob.write_bytes(gzip.compress(b"\n" * 5000, 9))
    with pytest.raises(ConfigError) as t:
        trace.load_trace(blob)
    assert "has more lines than the limit" in str(t.value) and "5,000 lines" in str(t.value)
    with pytest.raises(ConfigError) as w:
        userfile.load_prompt_file("w", blob)
    assert "has more lines than the limit" in str(w.value) and "at most 1,000 lines" in str(w.value)
    ok = tmp_path / "ok.jsonl"
    ok.write_text('{"prompt": "hi", "output_tokens": 4}\n' + "\n" * 10)
    assert [p.messages[-1]["content"] for p in userfile.load_prompt_file("w", ok)] == ["hi"]
