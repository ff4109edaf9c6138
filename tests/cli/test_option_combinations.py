"""Options that would be silently ignored are refused (the spec's ``needs`` / ``excludes``), and the values a new user
typed wrong get one ``error: WHAT; found: X; expected: Y; fix: Z`` line with exit 2: ``--width 5``, ``--min-effect``,
``predict --draft-bytes``, usage errors. Nothing here sends a request (the errors come before any server is asked)."""

from __future__ import annotations

import tomllib

import pytest

from clirun import cli

DEAD = "http://127.0.0.1:9"  # nothing listens: a test that reached a server would fail with "cannot be reached"


def _error(argv: list[str], capsys, monkeypatch, tmp_path) -> str:
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert code == 2 and len(lines) == 1 and out == "", (code, out, err)
    line = lines[0]
    assert line.index("; found: ") < line.index("; expected: ") < line.index("; fix: "), line
    return line


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["--dataset-path", "x.jsonl"],
            "error: --dataset-path is read only with --dataset; found: --dataset-path x.jsonl without --dataset; "
            "expected: --dataset NAME with --dataset-path; fix: add --dataset NAME (one of speed-bench, spec-bench, "
            "mt-bench, blazedit, instructcoder), or drop --dataset-path",
        ),
        (
            ["--retry-failed"],
            "error: --retry-failed is read only with --resume; found: --retry-failed without --resume; expected: "
            "--resume RUN with --retry-failed; fix: add --resume RUN (the run folder to finish), or drop "
            "--retry-failed",
        ),
        (
            ["--request-rate", "2", "--max-concurrency", "4"],
            "error: --max-concurrency and --request-rate cannot be given together; found: --max-concurrency 4 and "
            "--request-rate 2; expected: either --max-concurrency or --request-rate (--request-rate: Open-loop request "
            "rates per second: requests arrive at R/s however many are in flight (not with --max-concurrency)); "
            "fix: drop --request-rate (or --max-concurrency)",
        ),
        (
            ["--width", "5"],
            "error: --width takes a text width in characters from 40 to 1000; found: 5; expected: a whole number "
            "40..1000 (narrower tables cannot show their values); fix: e.g. --width 120 (or leave it out: the "
            "terminal's width, 120 to a file)",
        ),
        (
            ["--min-effect", "5"],
            "error: --min-effect takes a fraction from 0 to below 1; found: 5; expected: a fraction such as 0.02 or a "
            "percentage such as 2% (5 as a percentage: 5%); fix: e.g. --min-effect 0.02",
        ),
        (  # a switch shows no value: "found: --dry-run  and --trace t.jsonl" had two spaces
            ["--dry-run", "--trace", "t.jsonl"],
            "error: --dry-run and --trace cannot be given together; found: --dry-run and --trace t.jsonl; expected: "
            "either --dry-run or --trace (--dry-run: Print the plan and write nothing (the workloads read as a run "
            "reads them: each one's layout with its census source, row count and first rows' messages and output "
            "lengths; no server started or contacted)); fix: drop --trace (or --dry-run)",
        ),
        (
            ["--repeats", "0"],
            "error: invalid value for --repeats; found: 0; expected: a value >= 1; fix: give --repeats 1 or more",
        ),
    ],
)
def test_a_bench_option_that_would_be_ignored_or_is_out_of_range_is_refused(argv, line, capsys, monkeypatch, tmp_path):
    full = ["bench", "--server", f"base={DEAD}", *argv, "--out", tmp_path]
    assert _error(full, capsys, monkeypatch, tmp_path) == line
    assert not list(tmp_path.glob("run-*"))


def test_trace_options_need_the_trace_and_the_trace_excludes_other_load(capsys, monkeypatch, tmp_path):
    line = _error(["bench", "--trace-rows", "3"], capsys, monkeypatch, tmp_path)
    assert line.startswith("error: --trace-rows is read only with --trace; found: --trace-rows 3 without --trace")
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"arrival_s": 0, "input_tokens": 8, "output_tokens": 4}\n')
    line = _error(["bench", "--trace", trace, "--max-concurrency", "2"], capsys, monkeypatch, tmp_path)
    assert line.startswith("error: --max-concurrency and --trace cannot be given together; ")


def test_a_later_layer_replaces_what_it_excludes_and_says_so(capsys, monkeypatch, tmp_path):
    run_file = tmp_path / "run.toml"
    run_file.write_text("max-concurrency = [1, 2]\nrepeats = 3\n")
    argv = ["bench", "--run-file", run_file, "--request-rate", "2", "--print-run-file"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0 and err == "note: --request-rate (the command line) replaces --max-concurrency of the run file\n"
    printed = tomllib.loads(out)
    assert printed["request-rate"] == [2.0] and printed["repeats"] == 3 and "max-concurrency" not in printed


@pytest.mark.parametrize("value, fraction", [("5%", 0.05), ("0.05", 0.05), ("0%", 0.0), ("2.5 %", 0.025)])
def test_min_effect_takes_a_fraction_or_a_percentage(value, fraction, capsys, monkeypatch, tmp_path):
    code, out, err = cli(["bench", "--min-effect", value, "--print-run-file"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert tomllib.loads(out)["min-effect"] == pytest.approx(fraction, abs=1e-15)


@pytest.mark.parametrize("command", ["report", "advise"])
def test_report_and_advise_read_width_and_min_effect_with_the_same_parsers(command, capsys, monkeypatch, tmp_path):
    line = _error([command, tmp_path, "--width", "5"], capsys, monkeypatch, tmp_path)
    assert line.startswith("error: --width takes a text width in characters from 40 to 1000; found: 5;")
    line = _error([command, tmp_path, "--min-effect", "150%"], capsys, monkeypatch, tmp_path)
    assert line.startswith("error: --min-effect takes a fraction from 0 to below 1; found: 150%;")


PUBLISHED = ["predict", "--per-position", "0.8,0.6", "--bytes-per-step", "17GB", "--bandwidth", "273GB/s"]


def test_predict_takes_zero_draft_bytes_and_names_what_is_missing(capsys, monkeypatch, tmp_path):
    code, out, err = cli([*PUBLISHED, "--draft-bytes", "0"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert out.splitlines()[1].startswith("draft bytes per drafted token 0.000 GB")  # n-gram: nothing read
    assert _error(PUBLISHED, capsys, monkeypatch, tmp_path) == (
        "error: --per-position needs --draft-bytes too; found: no --draft-bytes; expected: --bytes-per-step, "
        "--draft-bytes (0 for n-gram drafting) and --bandwidth, or --checkpoint for the bytes; fix: add --draft-bytes "
        "0.85GB (your model's and device's)"
    )
    line = _error([*PUBLISHED, "--draft-bytes", "-1"], capsys, monkeypatch, tmp_path)
    assert line.startswith("error: invalid value for --draft-bytes; found: -1; ")


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["bench", "--max-tokns", "3"],
            "error: no such option --max-tokns; found: --max-tokns; expected: an option of `specscope bench`; "
            "fix: did you mean --max-tokens? (`specscope bench --help` lists them)",
        ),
        (
            ["predict", "--max-k", "99"],
            "error: invalid value for --max-k; found: 99; expected: a value <= 64; fix: give --max-k 64 or less",
        ),
        (  # the same words as bench's own bounds (--repeats 0 above), never pydantic's "Input should be ..."
            ["gate", "--limit", "0"],
            "error: invalid value for --limit; found: 0; expected: a value >= 1; fix: give --limit 1 or more",
        ),
        (
            ["bench", "--max-tokens"],
            "error: Option '--max-tokens' requires an argument; found: --max-tokens with no value; expected: "
            "--max-tokens VALUE; fix: give --max-tokens its value (`specscope bench --help` says which)",
        ),
        (
            ["reprot", "x"],
            "error: No such command 'reprot'. Did you mean 'report', 'export'?; found: reprot; expected: one of "
            "advise, audit, bench, counters, export, gate, import, predict, report, serve, surgery, truth-server, "
            "version; fix: did you mean `specscope report`?",
        ),
    ],
)
def test_a_usage_error_says_what_was_found_expected_and_the_fix(argv, line, capsys, monkeypatch, tmp_path):
    assert _error(argv, capsys, monkeypatch, tmp_path) == line
