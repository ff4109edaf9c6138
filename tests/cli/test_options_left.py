"""Option values found wrongly accepted or wrongly worded on 2026-12-06 (branch opts-left): each is refused with
exit 2, what was found, what was expected and the fix, never a traceback.

Runs are built by tests/quickrun.py; nothing is read from outside tests/."""

from __future__ import annotations

from pathlib import Path

import pytest

from clirun import cli, one_error
from quickrun import make_quick_run


@pytest.fixture(scope="module")
def quick(tmp_path_factory) -> Path:
    return make_quick_run(tmp_path_factory.mktemp("quick") / "run")


@pytest.mark.parametrize(
    ("argv", "option", "bound"),
    [
        (["advise", "{run}", "--mix", "prose=1", "--slo", "ttft=1e-300s"], "--slo", "1us"),  # "SLO of 1e-291ns"
        (["advise", "{run}", "--mix", "prose=1", "--slo", "tpot=1e300s"], "--slo", "86400s"),
        (["bench", "--dry-run", "--slo", "ttft=0.5ns"], "--slo", "1us"),
        (["bench", "--dry-run", "--read-timeout", "1e-300s"], "--read-timeout", "1ms"),
        (["bench", "--dry-run", "--stall-timeout", "10us"], "--stall-timeout", "1ms"),
        (["bench", "--dry-run", "--read-timeout", "1e300"], "--read-timeout", "86400s"),
        (["counters", "a", "b", "--timeout", "1ns"], "--timeout", "1ms"),
        (["serve", "--list", "--start-timeout", "1e-9s"], "--start-timeout", "1ms"),
        (["predict", "--overhead", "5s", "--bandwidth", "1TB/s"], "--overhead", "1s"),
    ],
)
def test_durations_outside_their_meaning_are_refused(argv, option, bound, quick, tmp_path, capsys, monkeypatch):
    code, out, err = cli([a.format(run=quick) for a in argv], capsys, monkeypatch, tmp_path)
    assert code == 2, err
    line = one_error(err)
    assert f"invalid value for {option};" in line and "expected: a duration from" in line and bound in line, err
    assert "typo" in err and "nearest allowed" in err


def test_durations_inside_their_bounds_are_read(quick, tmp_path, capsys, monkeypatch):
    from specscope.values import SLO_BOUNDS_S, TIMEOUT_BOUNDS_S, parse_duration_s

    assert parse_duration_s("1us", "--slo", bounds=SLO_BOUNDS_S) == 1e-6
    assert parse_duration_s("1ms", "--read-timeout", bounds=TIMEOUT_BOUNDS_S) == 1e-3
    assert parse_duration_s("1d", "--read-timeout", bounds=TIMEOUT_BOUNDS_S) == 86400.0
    code, _, err = cli(
        ["advise", quick, "--mix", "prose=1", "--slo", "ttft=2s,tpot=50ms"], capsys, monkeypatch, tmp_path
    )
    assert code == 0, err


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("100000000", ["from 1 to 4096", "file descriptor", "give --max-concurrency a value from 1 to 4096"]),
        ("4097", ["from 1 to 4096"]),
        ("1,1", ["levels repeat: [1, 1]"]),  # as --request-rate 1,1 ("gives a rate twice"): refused, never dropped
    ],
)
def test_concurrency_levels_are_bounded_and_never_silently_deduplicated(value, words, tmp_path, capsys, monkeypatch):
    code, _, err = cli(["bench", "--max-concurrency", value, "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "--max-concurrency" in one_error(err), err
    assert all(w in err for w in words), err


def test_the_level_bound_is_the_clients_connection_limit() -> None:
    from specscope.client.settings import ClientSettings
    from specscope.config import MAX_LEVEL

    assert MAX_LEVEL == ClientSettings().connection_limit == 4096


def test_a_bad_metrics_url_is_refused_naming_metrics(tmp_path, capsys, monkeypatch):
    argv = ["bench", "--server", "server=http://127.0.0.1:8000", "--metrics", "server=http://127.0.0.1:99999"]
    code, _, err = cli([*argv, "--dry-run"], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and "--metrics URL is not valid" in line and "99999" in line and "--metrics base=" in line, err


def test_an_unreachable_metrics_url_names_metrics_in_its_fix() -> None:
    import asyncio

    import httpx

    from specscope.client.metrics import scrape
    from specscope.errors import SpecscopeError

    async def go() -> SpecscopeError:
        async with httpx.AsyncClient(timeout=5) as http:
            try:
                await scrape(http, "http://127.0.0.1:1")
            except SpecscopeError as exc:
                return exc
        raise AssertionError("port 1 answered")

    exc = asyncio.run(go())
    assert "--metrics" in str(exc.fix) and "--server" in str(exc.fix)


@pytest.mark.parametrize("second", ["{run}", "{run}/", "{run}/../run"])
def test_a_run_given_twice_to_report_is_refused(second, quick, tmp_path, capsys, monkeypatch):
    code, out, err = cli(["report", quick, second.format(run=quick)], capsys, monkeypatch, tmp_path)
    assert code == 2 and "a run folder is given twice" in one_error(err) and "drop the repeat" in err, err
    assert out == ""


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["audit", ""], "the checkpoint target is empty"),  # Path("") is ".": it audited the current folder
        (["audit", "   "], "the checkpoint target is empty"),
        (["audit", "org/name@"], "the hub revision after '@' is empty"),  # read as org/name, default revision
        (["audit", "{ck}", "--draft", ""], "the checkpoint target is empty"),
        (["audit", "{ck}", "--draft", "org/draft@"], "the hub revision after '@' is empty"),
        (["audit", "{ck}", "--hashes", "--hashes-hub", "org/name@"], "the hub revision after '@' is empty"),
    ],
)
def test_an_empty_audit_target_or_revision_is_refused_by_name(argv, words, tmp_path, capsys, monkeypatch):
    from audit.ckmaker import dense_config, dense_model, write

    write(tmp_path / "ck", dense_model(2, 64), dense_config(2, 64))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # never the network
    monkeypatch.chdir(tmp_path / "ck")  # where "" used to be read as "."
    code, out, err = cli([a.format(ck=tmp_path / "ck") for a in argv], capsys, monkeypatch, tmp_path)
    assert code == 2 and words in one_error(err), err


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "1e-320"])
def test_a_measured_rate_that_is_not_one_is_named(value, tmp_path, capsys, monkeypatch):
    argv = ["predict", f"--measured={value}", "--bytes-per-step", "17GB", "--bandwidth", "1TB/s"]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    line = one_error(err)
    shown = f"{float(value):g}"  # 1e-320, a subnormal: 9.99989e-321 (was exit 3, a division by zero: attack53)
    assert code == 2 and "--measured must be a finite number >= 0.001" in line and f"found: --measured {shown}" in line
    assert "should be >= 0" not in err and "greater than or equal" not in err
    assert (f"({shown} is not a number of tokens/s)" in line) == (value in ("nan", "inf", "1e-320"))


@pytest.mark.parametrize("option", ["--compare", "--fit-k"])
def test_a_subnormal_rate_by_k_is_refused_not_an_infinite_error(option, tmp_path, capsys, monkeypatch):
    # attack53: `predict ... --measured 1e-320` was exit 3 (ZeroDivisionError: the effective bandwidth underflowed to
    # 0); `--compare 1=1e-320` printed an error of +inf% and --fit-k 1=1e-320 a fit on a rate of 0.00. Every rate a
    # user states is at least 0.001 tok/s (predict_calibrate.MIN_DECODE_TOK_S)
    argv = ["predict", "--bytes-per-step", "1GB", "--bandwidth", "3TB/s", "--per-position", "0.8,0.6", "--measured"]
    code, out, err = cli([*argv, "100", option, "1=1e-320"], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and not out and f"{option} takes measured tok/s by draft length k; found: 1=1e-320" in line
    assert "each rate at least 0.001 and at most 10,000,000 (outside that it is a typo)" in line


@pytest.mark.parametrize("command", [["report", "{run}"], ["advise", "{run}", "--mix", "prose=1"]])
def test_the_headline_of_a_run_whose_every_cell_failed_names_the_cause(command, tmp_path, capsys, monkeypatch):
    run = make_quick_run(tmp_path / "failed", failed=True)
    code, out, err = cli([a.format(run=run) for a in command], capsys, monkeypatch, tmp_path)
    heads = [line for line in out.splitlines() if line.startswith("headline:")]
    text = " ".join(out.split())
    assert (
        "headline: nothing was measured: all 48 cells failed; the most common reasons: "
        "STREAM_DEGRADED(failed:http 503) in 48 cells" in text
    ), out
    assert "no comparison has a paired round" not in out and len(heads) == 2, out


def _without_finished(run: Path) -> Path:
    """The run as a bench older than the manifest's ``finished`` leaves it: the key absent, ``cells_total`` kept."""
    import json

    manifest = json.loads((run / "manifest.json").read_text())
    manifest.pop("finished", None)
    (run / "manifest.json").write_text(json.dumps(manifest))
    return run


@pytest.mark.parametrize("command", [["report", "{run}"], ["advise", "{run}", "--mix", "prose=1"]])
def test_a_run_an_older_bench_left_unfinished_is_flagged_without_its_finished_key(
    command, tmp_path, capsys, monkeypatch
):
    run = _without_finished(make_quick_run(tmp_path / "stopped", stop_after=10))
    code, out, err = cli([a.format(run=run) for a in command], capsys, monkeypatch, tmp_path)
    text = " ".join(out.split())
    assert "headline: unfinished run: 10 of 48 planned cells measured;" in text, out


def test_a_whole_run_without_its_finished_key_is_not_flagged(tmp_path, capsys, monkeypatch):
    run = _without_finished(make_quick_run(tmp_path / "whole"))
    code, out, err = cli(["report", run], capsys, monkeypatch, tmp_path)
    assert code == 0 and "unfinished" not in out and "INCOMPLETE" not in out, out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["advise", "{run}", "--mix", "prose=1", "--max-concurrency", "1,1"], "--max-concurrency gives a value twice"),
        (["bench", "--configs", "base,ngram", "--k", "2,2", "--dry-run"], "--k gives k=2 twice"),
        (["predict", "{run}", "--holdout", "2,2"], "--holdout gives k=2 twice"),
    ],
)
def test_a_repeated_level_or_k_is_refused_as_a_repeated_rate_is(argv, words, quick, tmp_path, capsys, monkeypatch):
    code, _, err = cli([a.format(run=quick) for a in argv], capsys, monkeypatch, tmp_path)
    assert code == 2 and words in one_error(err) and "drop the repeat" in err, err


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_a_temperature_that_is_not_a_number_is_named(value, tmp_path, capsys, monkeypatch):
    code, _, err = cli(["bench", "--temperature", value, "--dry-run"], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and f"expected: a finite number (not {value}), a value <= 2" in line, err


@pytest.mark.parametrize(("value", "side"), [("1e-300B", "below"), ("500KB", "below"), ("2PB", "above")])
def test_bytes_per_step_outside_a_models_sizes_is_refused(value, side, tmp_path, capsys, monkeypatch):
    # 1e-300B printed "roofline inf tok/s"
    code, out, err = cli(["predict", "--bytes-per-step", value, "--bandwidth", "1TB/s"], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert (
        code == 2
        and "invalid value for --bytes-per-step;" in line
        and "a size from 1MB to 1PB" in line
        and f"{side} that it is a typo" in line
    )


@pytest.mark.parametrize(("value", "fix"), [("70000", "65535 or less"), ("-5", "1 or more"), ("0", "1 or more")])
def test_serve_refuses_a_port_no_server_can_bind(value, fix, tmp_path, capsys, monkeypatch):
    code, out, err = cli(["serve", "mtp2", "--print", "--port", value], capsys, monkeypatch, tmp_path)
    assert code == 2 and "--port" in one_error(err) and f"give --port {fix}" in err and out == "", err


def test_gate_bounds_max_tokens_as_bench_does(tmp_path, capsys, monkeypatch):
    argv = ["gate", "--server", "http://127.0.0.1:9", "--max-tokens", "1000000000000", "--out", tmp_path / "o"]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and "--max-tokens" in one_error(err) and "give --max-tokens 1000000 or less" in err, err
    assert not (tmp_path / "o").exists()


def test_an_empty_tracking_uri_is_refused_not_read_as_the_default(quick, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(["export", quick, "--tracking-uri", ""], capsys, monkeypatch, tmp_path)
    assert code == 2 and "--tracking-uri is empty" in one_error(err), err
    assert not (tmp_path / "mlruns").exists()
