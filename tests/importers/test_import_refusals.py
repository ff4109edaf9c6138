"""``specscope import`` refuses bad input before it writes anything (fresh-user findings, /tmp/fu_import).

A refused import exits 2 with what was found, what was expected and the fix; a run it was to join is left exactly as
it was (its manifest byte for byte, its report the same), and a run folder it was to create is not made. Files are
built inside each test from tests/data/imports (SOURCES.md) with the one field under test changed."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from clirun import cli
from paths import DATA
from report_cli import report_json

IMPORTS = DATA / "imports"


def _vllm(tmp_path: Path, name: str, **changes: Any) -> Path:
    """vllm_base_r0.json (vllm bench serve, N=2 closed loop) with ``changes``; ``None`` deletes a key."""
    doc = json.loads((IMPORTS / "vllm_base_r0.json").read_text())
    for k, v in changes.items():
        if v is None:
            doc.pop(k, None)
        else:
            doc[k] = v
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _good_run(tmp_path: Path, capsys, monkeypatch) -> tuple[Path, bytes, dict[str, Any]]:
    run = tmp_path / "run"
    good = [IMPORTS / "vllm_base_r0.json", IMPORTS / "vllm_base_r1.json"]
    code, _, err = cli(["import", *good, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    return run, (run / "manifest.json").read_bytes(), report_json(run)


def test_a_refused_import_into_a_run_leaves_it_exactly_as_it_was(tmp_path, capsys, monkeypatch):
    # max_concurrency -4 was written as level -4, then the manifest check refused it: report could no longer read it
    run, manifest, report = _good_run(tmp_path, capsys, monkeypatch)
    bad = _vllm(tmp_path, "neg.json", max_concurrency=-4)
    code, _, err = cli(["import", bad, "--config", "mtp", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 2 and "-4" in err and "nothing was written" in err, err
    assert (run / "manifest.json").read_bytes() == manifest
    assert report_json(run) == report


def test_an_empty_config_name_is_refused_before_anything_is_written(tmp_path, capsys, monkeypatch):
    # --config "" was stored, then report failed "config: String should have at least 1 character"
    run, manifest, report = _good_run(tmp_path, capsys, monkeypatch)
    other = _vllm(tmp_path, "other.json", duration=5.0)
    for name in ("", "  "):
        code, _, err = cli(["import", other, "--config", name, "--out", run], capsys, monkeypatch, tmp_path)
        assert code == 2 and "--config" in err and "a name" in err, err
        assert (run / "manifest.json").read_bytes() == manifest
    assert report_json(run) == report
    code, _, err = cli(["import", other, "--config", "", "--out", tmp_path / "new"], capsys, monkeypatch, tmp_path)
    assert code == 2 and not (tmp_path / "new").exists()


BAD_TOTALS = [
    # (field, value as JSON writes it, what is expected): each was imported, crashed (exit 3) or half-made a run
    ("completed", float("nan"), "NaN", "a whole number of requests"),
    ("completed", "64", '"64"', "a whole number of requests"),
    ("failed", 1.5, "1.5", "a whole number of requests"),
    ("total_output_tokens", float("inf"), "Infinity", "a whole number of tokens"),
    ("total_output_tokens", 10**30, str(10**30), "a whole number of tokens"),
    ("duration", float("nan"), "NaN", "a positive number of seconds"),
    ("duration", -3.0, "-3.0", "a positive number of seconds"),
    ("duration", 1e300, "1e+300", "a positive number of seconds"),
    ("max_concurrency", 10**20, str(10**20), "a whole number of streams"),
    ("max_concurrency", 1e300, "1e+300", "a whole number of streams"),
    ("max_concurrency", 2.5, "2.5", "a whole number of streams"),
    ("max_concurrency", 0, "0", "a whole number of streams"),
    ("max_concurrency", -4, "-4", "a whole number of streams"),
    ("request_rate", -2.0, "-2.0", "a positive number of requests per second"),
    # issue 37: an integer past a float's range (JSON allows any number of digits) was an OverflowError (exit 3)
    ("duration", 10**400, str(10**400)[:57] + "...", "a positive number of seconds"),
    ("request_rate", 10**400, str(10**400)[:57] + "...", "a positive number of requests per second"),
]


def test_a_total_or_load_that_is_not_a_usable_number_is_refused_naming_field_and_value(tmp_path, capsys, monkeypatch):
    for i, (field, value, spelled, expected) in enumerate(BAD_TOTALS):
        bad = _vllm(tmp_path, f"bad{i}.json", **{field: value})
        run = tmp_path / f"run{i}"
        code, _, err = cli(["import", bad, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)
        flat = " ".join(err.split())
        assert code == 2, (field, value, err)
        assert f"found: {field} = {spelled};" in flat and f"expected: {expected}" in flat, flat
        assert not run.exists()


def test_a_bad_load_into_an_existing_run_is_refused_by_its_field_and_the_run_is_unchanged(
    tmp_path, capsys, monkeypatch
):
    run, manifest, report = _good_run(tmp_path, capsys, monkeypatch)
    bad = _vllm(tmp_path, "neg.json", max_concurrency=-4)
    code, _, err = cli(["import", bad, "--config", "mtp", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 2 and "found: max_concurrency = -4;" in " ".join(err.split()), err
    assert (run / "manifest.json").read_bytes() == manifest
    assert report_json(run) == report


def test_aiperf_and_guidellm_totals_that_are_not_numbers_are_refused(tmp_path, capsys, monkeypatch):
    ai = json.loads((IMPORTS / "aiperf_base_r0.json").read_text())
    ai.pop("error_request_count", None)
    ai["error_summary"] = [{"error_details": {"code": 500}, "count": "many"}]
    (tmp_path / "ai.json").write_text(json.dumps(ai))
    gl = json.loads((IMPORTS / "guidellm_base_r0.json").read_text())
    gl["benchmarks"][0]["duration"] = float("nan")
    (tmp_path / "gl.json").write_text(json.dumps(gl))
    for name, found in (("ai.json", 'error_summary[0].count = "many"'), ("gl.json", "benchmarks[0].duration = NaN")):
        run = tmp_path / f"run-{name}"
        code, _, err = cli(["import", tmp_path / name, "--config", "b", "--out", run], capsys, monkeypatch, tmp_path)
        assert code == 2 and f"found: {found};" in " ".join(err.split()), err
        assert not run.exists()


def _imported(tmp_path: Path, capsys, monkeypatch, name: str, doc: Any, lines: bool = False) -> dict[str, Any]:
    """Import ``doc`` (a JSON object, or with ``lines`` a JSONL line) into a new run; its report as JSON."""
    path = tmp_path / name
    path.write_text(json.dumps(doc) + ("\n" if lines else ""))
    run = tmp_path / f"run-{name}"
    code, _, err = cli(["import", path, "--config", "spec", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    return report_json(run)


def test_a_per_position_list_that_is_not_all_numbers_is_absent_with_its_reason_never_compacted(
    tmp_path, capsys, monkeypatch
):
    # a scalar was a TypeError (exit 3); [0.8, null, "x"] became [0.8]: the positions after a null shifted
    base = json.loads((IMPORTS / "vllm_mtp_r0.json").read_text())
    key = "spec_decode_per_position_acceptance_rates"
    for i, (value, spelled) in enumerate(
        (
            (0.5, "0.5"),
            ([0.8, None, "x"], '[0.8, null, "x"]'),
            ([float("nan")] * 3, "[NaN, NaN, NaN]"),
            ([1.0, 1e308, 0.0], "[1.0, 1e+308, 0.0]"),  # stored, then report, advise and export exit 3 (probe 12-06)
            ([0.5, -0.2], "[0.5, -0.2]"),
        )
    ):
        doc = _imported(tmp_path, capsys, monkeypatch, f"pp{i}.json", {**base, key: value})
        (cell,) = doc["cells"]
        assert cell["acceptance_per_position"] == [] and cell["acceptance_rate"] == 0.625
        reason = f"per-position acceptance ({key} = {spelled}: not a list of rates 0..1)"
        assert reason in doc["manifest"]["imports"][0]["not_recorded"]


def test_an_acceptance_rate_outside_0_to_100_percent_is_absent_with_its_reason(tmp_path, capsys, monkeypatch):
    base = json.loads((IMPORTS / "vllm_mtp_r0.json").read_text())
    for i, (value, spelled) in enumerate(((1e308, "1e+308"), (-5.0, "-5.0"), (100.5, "100.5"))):
        doc = _imported(tmp_path, capsys, monkeypatch, f"r{i}.json", {**base, "spec_decode_acceptance_rate": value})
        (cell,) = doc["cells"]
        assert cell["acceptance_rate"] is None
        reason = f"speculative acceptance (spec_decode_acceptance_rate = {spelled}: not 0..100)"
        assert reason in doc["manifest"]["imports"][0]["not_recorded"]


def test_a_null_inside_itls_leaves_that_requests_latency_absent_and_says_so(tmp_path, capsys, monkeypatch):
    # vLLM (no latencies: 0.6-era files) and SGLang take latency = ttft + sum(itls): a null was a TypeError (exit 3)
    vllm = json.loads((IMPORTS / "vllm_mtp_r0.json").read_text())
    del vllm["latencies"]
    vllm["itls"][0][2] = None
    sglang = json.loads((IMPORTS / "sglang_eagle.jsonl").read_text().splitlines()[0])
    sglang["itls"][0][0] = None
    for name, doc, n, tpot in (("v.json", vllm, 4, 0.018), ("s.jsonl", sglang, 8, 0.011)):
        report = _imported(tmp_path, capsys, monkeypatch, name, doc, lines=name.endswith("l"))
        (cell,) = report["cells"]
        assert math.isclose(cell["tpot_p50_s"], tpot)  # from the other requests, each (latency - ttft) / (tokens - 1)
        reason = f"latency of 1 of {n} requests (a non-number in its itls)"
        assert reason in report["manifest"]["imports"][0]["not_recorded"]


def test_a_per_request_integer_past_a_floats_range_is_a_non_number_of_that_request(tmp_path, capsys, monkeypatch):
    # issue 37: ttfts[0] or latencies[0] of 10**400 (a valid JSON number) was an OverflowError in import (exit 3)
    for i, key in enumerate(("ttfts", "latencies")):
        doc = json.loads((IMPORTS / "vllm_mtp_r0.json").read_text())
        doc[key][0] = 10**400
        report = _imported(tmp_path, capsys, monkeypatch, f"huge{i}.json", doc)
        (cell,) = report["cells"]
        assert cell["ttft_p50_s"] == 0.04 and cell["tpot_p50_s"] == 0.018  # from the other three requests


def test_ttfts_null_is_read_as_no_per_request_arrays_with_its_reason(tmp_path, capsys, monkeypatch):
    # "ttfts": null was a TypeError (exit 3); the file's own medians stand in, as for a file without --save-detailed
    doc = {**json.loads((IMPORTS / "vllm_mtp_r0.json").read_text()), "ttfts": None}
    report = _imported(tmp_path, capsys, monkeypatch, "t.json", doc)
    (cell,) = report["cells"]
    assert cell["ttft_p50_s"] == 0.04 and cell["tpot_p50_s"] == 0.018
    assert "per-request arrays (ttfts is null, not a list)" in report["manifest"]["imports"][0]["not_recorded"]


def test_an_older_vllm_file_counts_its_failed_requests_from_its_errors(tmp_path, capsys, monkeypatch):
    # benchmark_serving.py v0.6-v0.8 writes no "failed", only the per-request errors: a file with one error was "ok"
    doc = json.loads((IMPORTS / "vllm_base_r0.json").read_text())
    del doc["failed"]
    doc["errors"][1] = "Traceback ... ClientConnectorError"
    doc["completed"] = 3
    report = _imported(tmp_path, capsys, monkeypatch, "old.json", doc)
    (cell,) = report["cells"]
    assert (cell["status"], cell["streams"], cell["streams_ok"]) == ("degraded", 4, 3)
    assert cell["reasons"][0] == "STREAM_DEGRADED(failed:1)"
    assert "failed requests" not in report["manifest"]["imports"][0]["not_recorded"]


def test_records_at_one_rate_but_another_cap_or_burstiness_are_not_repeats(tmp_path, capsys, monkeypatch):
    # 4 req/s capped at 8 and at 32 in flight (or Poisson and gamma arrivals) were stored as repeats of one level
    cap8 = _vllm(tmp_path, "cap8.json", request_rate=4.0, max_concurrency=8)
    cap32 = _vllm(tmp_path, "cap32.json", request_rate=4.0, max_concurrency=32, duration=3.0)
    gamma = _vllm(tmp_path, "gamma.json", request_rate=4.0, max_concurrency=8, burstiness=0.5, duration=3.5)
    for other, found in (
        (cap32, "in-flight cap (max_concurrency) 32 against 8 at 4 req/s"),
        (gamma, "arrival gamma(burstiness=0.5) against poisson at 4 req/s"),
    ):
        run = tmp_path / f"run-{other.stem}"
        code, _, err = cli(["import", cap8, other, "--config", "b", "--out", run], capsys, monkeypatch, tmp_path)
        flat = " ".join(err.split())
        assert code == 2 and f"found: {found}" in flat, flat
        assert not run.exists()
    run = tmp_path / "run"
    assert cli(["import", cap8, "--config", "b", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    manifest = (run / "manifest.json").read_bytes()
    code, _, err = cli(["import", cap32, "--config", "b", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 2 and "(max_concurrency) 32 against 8" in err
    assert (run / "manifest.json").read_bytes() == manifest


def test_a_vllm_ramp_up_run_is_refused_as_having_no_single_level(tmp_path, capsys, monkeypatch):
    # --ramp-up-strategy linear 1 -> 20 req/s leaves request_rate "inf": it was read as a closed loop of num_prompts
    ramp = _vllm(
        tmp_path,
        "ramp.json",
        request_rate="inf",
        max_concurrency=None,
        ramp_up_strategy="linear",
        ramp_up_start_rps=1,
        ramp_up_end_rps=20,
    )
    run = tmp_path / "run"
    code, _, err = cli(["import", ramp, "--config", "b", "--out", run], capsys, monkeypatch, tmp_path)
    flat = " ".join(err.split())
    assert code == 2 and f"{ramp} record 1 (vllm-bench-serve): a ramp-up run has no single level" in flat, flat
    assert 'found: ramp_up_strategy = "linear", from 1 to 20 req/s;' in flat
    assert not run.exists()


def test_a_nan_acceptance_rate_is_absent_with_its_own_reason(tmp_path, capsys, monkeypatch):
    # a server that drafted nothing: vLLM writes rate NaN; the reason said the server had no spec-decode counters
    doc = json.loads((IMPORTS / "vllm_mtp_r0.json").read_text())
    doc.update(spec_decode_acceptance_rate=float("nan"), spec_decode_num_drafts=0, spec_decode_accepted_tokens=0)
    report = _imported(tmp_path, capsys, monkeypatch, "nan.json", doc)
    (cell,) = report["cells"]
    assert cell["acceptance_rate"] is None and cell["acceptance_per_position"] == []
    not_recorded = report["manifest"]["imports"][0]["not_recorded"]
    assert "speculative acceptance (spec_decode_acceptance_rate = NaN)" in not_recorded
    assert not any("no vllm:spec_decode counters" in r for r in not_recorded)


@pytest.mark.parametrize("rate", [None, float("nan")])
def test_zero_drafts_in_the_file_make_the_config_not_engaged(tmp_path, capsys, monkeypatch, rate):
    """A vLLM file whose server counted 0 drafts (its acceptance rate absent, or NaN as vllm bench serve writes it
    then) is a config that did not speculate: ``not engaged`` with the alarm, as a bench run says it. Before
    2026-12-05 the counts were dropped with the rate and the import said 'no vllm:spec_decode counters'."""
    run, _, _ = _good_run(tmp_path, capsys, monkeypatch)
    zero = {"spec_decode_num_drafts": 0, "spec_decode_draft_tokens": 0, "spec_decode_accepted_tokens": 0}
    files = [
        _vllm(tmp_path, f"mtp_r{i}.json", **zero, spec_decode_acceptance_rate=rate, duration=4.0 + i / 10)
        for i in range(2)
    ]
    code, _, err = cli(["import", *files, "--config", "mtp", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    doc = report_json(run)
    (cmp,) = [c for c in doc["comparisons"] if c["config"] == "mtp"]
    assert cmp["verdict"] == "not_engaged"
    assert any(a["code"] == "NOT_ENGAGED" for a in doc["judged_alarms"])


def test_the_run_table_says_the_repeats_each_cell_holds_and_the_imported_workload(tmp_path, capsys, monkeypatch):
    """Two base repeats and one mtp file: the Run table says 1-2 repeats per cell (it said x 2) and the workload the
    cells have (it showed a dash for an import) (fresh-user findings, 2026-12-05)."""
    run, _, _ = _good_run(tmp_path, capsys, monkeypatch)
    one = IMPORTS / "vllm_mtp_r0.json"
    assert cli(["import", one, "--config", "mtp", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = cli(["report", run], capsys, monkeypatch, tmp_path)
    assert code == 0
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in out.splitlines() if line.count("│") == 3}
    assert rows["levels x repeats"] == "[2] x 1-2 (stored per cell)" and rows["workloads"] == "imported"


def test_a_result_file_that_cannot_be_read_names_the_path_and_why(tmp_path):
    """read_records words a failed read as every file a user names does (specscope.readfile.read_user_file): the
    path and the reason in ``found`` (before: the path in the message, the reason alone in ``found``)."""
    from specscope.errors import ConfigError
    from specscope.importers.shapes import read_records

    latin = tmp_path / "r.json"
    latin.write_bytes(b'{"x": "\xe9"}')
    tail = "expected: a readable UTF-8 JSON file the tool saved; fix: pass the file the tool saved"
    latin_why = (
        "not UTF-8 text (byte 7: 0xE9, 'é' in CP1252 / Latin-1, as Excel and other Windows tools save text) "
        "(iconv -f cp1252 -t utf-8)"
    )  # the encoding named, the fix its conversion (issue 36): was "(byte 7)" and "pass the file the tool saved"
    latin_tail = tail.replace(
        "fix: pass the file the tool saved",
        "fix: convert it to UTF-8 and pass the new file: "
        f"iconv -f cp1252 -t utf-8 {latin} > {tmp_path / 'r.utf8.json'}",
    )
    for path, why, end in ((latin, latin_why, latin_tail), (tmp_path, "a folder, not a regular file", tail)):
        with pytest.raises(ConfigError) as info:
            read_records(path)
        assert info.value.one_line() == f"cannot read the result file; found: {path}: {why}; {end}"


def test_more_records_of_one_level_than_a_run_holds_are_refused_as_the_import_not_as_a_damaged_run(
    tmp_path, capsys, monkeypatch
):
    # issue 37: 101 SGLang records of one config and level were refused as "RUN/manifest.json does not match run
    # manifest schema 2 ... fix: restore the manifest the run wrote": a file that did not exist, and a wrong fix
    line = (IMPORTS / "sglang_eagle.jsonl").read_text().splitlines()[0]
    many = tmp_path / "many.jsonl"
    many.write_text((line + "\n") * 101)
    run = tmp_path / "run"
    code, _, err = cli(["import", many, "--config", "eagle", "--out", run], capsys, monkeypatch, tmp_path)
    flat = " ".join(err.split())
    assert code == 2 and not run.exists(), err
    assert "the import would leave" in flat and "stored 101" in flat, flat
    assert "restore the manifest" not in flat and "import at most" in flat, flat


def test_a_string_holding_a_lone_surrogate_is_refused_and_nothing_is_written(tmp_path, capsys, monkeypatch):
    # attack50: a vLLM file whose model_id ended in "\ud800" (valid JSON, no character) was imported, exit 0; the
    # stored server facts could then not be read back, and every report / export / advise of the run was refused
    # ("run.sqlite holds a record this specscope cannot read ... unexpected end of hex escape")
    doc = json.loads((DATA / "imports" / "vllm_mtp_r0.json").read_text())
    doc["model_id"] += "\ud800"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="ascii")
    run = tmp_path / "run"
    code, _, err = cli(["import", bad, "--config", "mtp", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 2, err
    assert "is not a result file specscope can import; found: a string holds a lone UTF-16 surrogate (\\ud800: " in err
    assert not run.exists()


def test_a_run_folder_inside_another_run_is_refused_and_that_run_is_unchanged(tmp_path, capsys, monkeypatch):
    # attack50: `import F --config b --out RUN/logs` (the run's own empty logs folder) made a second run inside RUN,
    # exit 0: a run is read-only once written, so a run folder inside one is refused by name
    run = tmp_path / "run"
    src = DATA / "imports" / "vllm_base_r0.json"
    assert cli(["import", src, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    before = sorted(str(p.relative_to(run)) for p in run.rglob("*"))
    code, _, err = cli(["import", src, "--config", "b", "--out", run / "logs"], capsys, monkeypatch, tmp_path)
    assert code == 2, err
    assert f"error: cannot create the run folder {run / 'logs'}; found: inside the run folder {run}; " in err
    assert sorted(str(p.relative_to(run)) for p in run.rglob("*")) == before


@pytest.mark.parametrize("layout", ["json", "jsonl"])
def test_a_key_written_twice_is_refused_by_name_and_nothing_is_written(layout, tmp_path, capsys, monkeypatch):
    # attack53: a vLLM file holding "completed" twice (4, then 999999: a hand edit, two files joined) was imported,
    # exit 0, with Python's reader keeping the last value silently; an SGLang JSONL line the same. Now refused by
    # name, with both values, exit 2, no run made
    if layout == "json":
        text = (IMPORTS / "vllm_mtp_r0.json").read_text().rstrip().removesuffix("}") + ', "completed": 999999}'
        where, key, first = "the document", "completed", "4"
    else:
        lines = (IMPORTS / "sglang_eagle.jsonl").read_text().splitlines()
        lines[1] = lines[1].rstrip().removesuffix("}") + ', "completed": 999999}'
        text = "\n".join(lines) + "\n"
        where, key, first = (
            "line 2",
            "completed",
            str(json.loads(lines[1].split(', "completed": 999999')[0] + "}")["completed"]),
        )
    bad = tmp_path / f"bad.{layout}"
    bad.write_text(text)
    run = tmp_path / "run"
    code, _, err = cli(["import", bad, "--config", "spec", "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 2, err
    assert (
        f"error: {bad} holds a key twice in one object; found: {where}: '{key}' is {first}, then again 999999; " in err
    )
    assert "fix: pass the file the tool saved, unchanged (a hand edit or two files joined is the usual cause)" in err
    assert not run.exists()


def test_a_folder_of_other_files_is_not_told_to_be_resumed(tmp_path, capsys, monkeypatch):
    # attack53: `import F --out DIR` (DIR holding notes.txt, no run) said "fix: resume it with `specscope bench
    # --resume DIR`", which refuses a folder with no manifest; the fix is another --out, and DIR is left as it was
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    src = IMPORTS / "vllm_base_r0.json"
    code, _, err = cli(["import", src, "--config", "base", "--out", folder], capsys, monkeypatch, tmp_path)
    assert code == 2, err
    assert f"error: run folder {folder} already exists and is not empty; found: ['notes.txt']; " in err
    assert "fix: choose another --out: a new or empty folder (this one holds files that are not a run" in err
    assert "--resume" not in err
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]
