"""Input checks a new user ran into (issues 16 and 17): each is one stderr line ``error: ...`` and exit 2 through
``main``, or (the poor fit) a warning note with exit 0."""

from __future__ import annotations

import pytest

from specscope.cli import main

PUBLISHED = ["--per-position", "0.936,0.815", "--bytes-per-step", "17.61GB", "--draft-bytes", "0.85GB"]
PUBLISHED += ["--bandwidth", "273GB/s"]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(argv)
    out = capsys.readouterr()
    return int(info.value.code or 0), out.out, out.err


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code, _, err = _run(argv, capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, (code, err)
    assert lines[0].startswith("error: ") and "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("extra", [PUBLISHED, ["--bytes-per-step", "17.61GB", "--bandwidth", "273GB/s"]])
def test_measured_above_the_roofline_is_refused(extra, capsys):
    err = _error(["predict", *extra, "--measured", "20"], capsys)
    assert "found: 20 tok/s; expected: <= roofline 15.50 tok/s (17.61 GB per token at 273 GB/s)" in err
    assert "fix: check --bytes-per-step / --bandwidth" in err


def test_measured_below_the_roofline_still_prints(capsys):
    code, out, _ = _run(
        ["predict", "--bytes-per-step", "17.61GB", "--bandwidth", "273GB/s", "--measured", "12.14"], capsys
    )
    assert (
        code == 0
        and out.strip() == "roofline 15.50 tok/s (17.61 GB per token at 273 GB/s); measured 12.14 tok/s is 78% of it"
    )


@pytest.mark.parametrize(
    ("option", "value", "found", "fix"),
    [
        ("--fit-k", "9=20.00,1=20", "found: k=9", "fix: drop k=9 from --fit-k, or raise --max-k to 9"),
        ("--compare", "3=20,12=30,10=9", "found: k=10, k=12", "fix: drop k=10 from --compare, or raise --max-k to 12"),
    ],
)
def test_a_calibration_k_beyond_max_k_is_refused(option, value, found, fix, capsys):
    err = _error(["predict", *PUBLISHED, option, value], capsys)
    assert err.startswith(f"error: {option} names a k the table has no row for; {found}; ")
    assert "expected: k in 1..8 (--max-k 8; rates published for k=1..2, higher k extrapolated)" in err
    assert err.endswith(fix)


def test_a_k_beyond_the_published_positions_but_within_max_k_is_used(capsys):
    code, out, _ = _run(["predict", *PUBLISHED, "--fit-k", "1=10,2=13", "--compare", "4=14", "--max-k", "4"], capsys)
    assert code == 0
    row4 = next(line for line in out.splitlines() if line.startswith(" 4 "))
    assert row4.split()[-3:][0] == "14.00" and row4.endswith("predicted")


def test_a_fit_the_model_cannot_explain_gets_a_warning(capsys):
    code, out, _ = _run(["predict", *PUBLISHED, "--fit-k", "1=5,2=6"], capsys)
    assert code == 0
    # by hand: least squares c = sum k r_k / sum k^2, r_k = tokens per step / rate - (T + k D) / bandwidth
    tps = {1: 1.936, 2: 1.936 + 0.815}
    rates = {1: 5.0, 2: 6.0}
    resid = {k: tps[k] / rates[k] - (17.61e9 + k * 0.85e9) / 273e9 for k in (1, 2)}
    c = sum(k * r for k, r in resid.items()) / 5
    errors = {k: tps[k] / ((17.61e9 + k * 0.85e9) / 273e9 + k * c) / rates[k] - 1 for k in (1, 2)}
    assert f"{100 * errors[1]:+.1f}" == "+35.1" and abs(errors[2]) < 0.10
    assert (
        "note: warning: the fit misses its own measured rates by more than 10% (k=1 +35.1% in-sample): the "
        "bandwidth model does not explain these rates" in out
    )


def test_a_close_fit_has_no_warning(capsys):
    seed3 = ["--per-position", "0.936,0.815,0.681,0.581,0.484", *PUBLISHED[2:], "--measured", "12.14"]
    code, out, _ = _run(["predict", *seed3, "--fit-k", "1=20.00,2=26.48"], capsys)
    assert code == 0 and "warning" not in out


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--max-concurrency", "1,,2"),
        ("--max-concurrency", "1,2,"),
        ("--workloads", "prose,,code"),
        ("--configs", ",base"),
        ("--request-rate", "1,,2"),
        ("--temperatures", "0,"),
        ("--context-tokens", "2k,,4k"),
    ],
)
def test_an_empty_item_in_a_bench_list_is_refused_before_a_run_folder(option, value, tmp_path, capsys):
    err = _error(["bench", option, value, "--out", str(tmp_path)], capsys)
    assert err.startswith(f"error: {option} has an empty item; found: {value!r}; expected: comma-separated values, ")
    assert err.endswith("fix: remove the extra comma (or give the missing value)")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(("option", "value"), [("--per-position", "0.9,,0.5"), ("--fit-k", "1=20,,2=26")])
def test_an_empty_item_in_a_predict_list_is_refused(option, value, capsys):
    argv = ["--per-position", value, *PUBLISHED[2:]] if option == "--per-position" else [*PUBLISHED, option, value]
    assert _error(["predict", *argv], capsys).startswith(f"error: {option} has an empty item; found: {value!r}")


def test_the_shared_parsers_keep_good_lists():
    from specscope.values import csv_items, parse_int_list

    assert parse_int_list(" 4, 1 ,2", "--max-concurrency") == (4, 1, 2)
    assert csv_items("prose, code", "--workloads") == ["prose", "code"]


_FIX = (
    "fix: fix mine.jsonl:4 (records: chat `messages`, ShareGPT `conversations`, `turns`, `prompt` / `text` / "
    "`question` ..., Alpaca `instruction`, or plain text lines (docs/workloads.md lists every layout))"
)
#: a row that is no workload names --drop-bad-rows (vLLM, SGLang and AIPerf skip such ShareGPT items)
_DROP_FIX = "fix: run without such rows with --drop-bad-rows (recorded as refused; vLLM, SGLang and AIPerf skip them), "


@pytest.mark.parametrize(
    ("line", "what", "expected", "fix"),
    [
        ('{"prompt": 42}', "prompt 42 is not a non-empty string", 'a non-empty string ("prompt": "...")', _FIX),
        ('{"prompt": ""}', "prompt '' is not a non-empty string", 'a non-empty string ("prompt": "...")', _FIX),
        # a null field is an absent one (AIPerf's models dump every field): no text field at all
        ('{"prompt": null, "category": "x"}', "no messages/conversations/turns/prompt/", "one of those fields", _FIX),
        ('{"messages": [{"role": "user", "content": " "}]}', "every user turn is empty", "a user turn with text",
         _DROP_FIX),
    ],
)  # fmt: skip
def test_a_prompt_that_is_not_text_is_refused_with_its_line(line, what, expected, fix, tmp_path, capsys):
    prompts = tmp_path / "mine.jsonl"
    prompts.write_text(f'first prompt\n\n{{"prompt": "second"}}\n{line}\n')
    err = _error(["bench", "--configs", "base", "--workload", f"mine={prompts}", "--out", str(tmp_path / "o")], capsys)
    assert err.startswith(f"error: {prompts}:4: {what}")  # what was found: said once
    assert f"; expected: {expected}; " in err
    assert fix in err and err.index(fix) > err.index("; expected: ")
    assert not (tmp_path / "o").exists()


def _run_folder(tmp_path, aa: bool):
    from specscope.config import BenchOptions
    from specscope.store import create_run

    options = BenchOptions(configs=("base", "ngram"), workloads=("prose",), levels=(1,), repeats=1, aa=aa)
    manifest = {"kind": "bench", "engine": "embedded", "options": options.model_dump(mode="json"), "cells_total": 3}
    create_run(tmp_path / "run", manifest).close()
    return tmp_path / "run"


@pytest.mark.parametrize(
    ("made", "given", "shown"), [(True, "--no-aa", "--no-aa (run has --aa)"), (False, "--aa", "--aa (run has --no-aa)")]
)
def test_resume_with_another_aa_is_refused_like_the_other_options(made, given, shown, tmp_path, capsys):
    run = _run_folder(tmp_path, made)
    manifest = (run / "manifest.json").read_bytes()
    err = _error(["bench", "--resume", str(run), given], capsys)
    assert err == (
        f"error: options given with --resume differ from the run's: {shown}; found: {given}; expected: no options "
        "with --resume but the run's own values (or limits such as --read-timeout); fix: drop them to finish "
        f"{run} as it was planned, or start a new run (--like {run} repeats it)"
    )
    assert (run / "manifest.json").read_bytes() == manifest


def test_resume_with_the_same_aa_passes_the_check():
    from pathlib import Path

    from specscope.bench.resume import check_resume_options
    from specscope.config import BenchOptions

    stored = {"options": BenchOptions(configs=("base", "ngram"), aa=True).model_dump(mode="json")}
    check_resume_options(stored, {"aa": True, "max_concurrency": [2, 1]}, Path("r"))
