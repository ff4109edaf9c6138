"""Run files as a new user writes them (tests/data/new_user, SOURCES.md): a scalar where a list belongs, old key
names, ``server-log``, keys that belong on the command line; ``--print-run-file`` prints every option that decides
the run (the profile's values written out) and, with ``--resume RUN``, the run's own. Nothing here sends a request."""

from __future__ import annotations

import json
import tomllib

import pytest

from clirun import cli
from paths import DATA
from specscope.bench.spec import BENCH_SPEC
from specscope.errors import ConfigError

NEW_USER = DATA / "new_user"


def _error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, err
    line = lines[0]
    assert "; found: " in line and "; expected: " in line and "; fix: " in line, line
    return line


def test_a_scalar_where_a_list_belongs_is_refused_naming_the_key_and_the_list(capsys, monkeypatch, tmp_path):
    run_file = NEW_USER / "rf2.toml"
    code, out, err = cli(["bench", "--run-file", run_file, "--out", tmp_path], capsys, monkeypatch, tmp_path)
    assert code == 2 and out == "" and not list(tmp_path.glob("run-*"))
    assert _error_line(err) == (
        f"error: run file {run_file}, key 'max-concurrency': --max-concurrency takes a list; found: int 1; "
        "expected: a list (max-concurrency = [N] in a run file) or comma-separated text; "
        "fix: write it as a list: max-concurrency = [1]"
    )


ODD_VALUES = [1, 1.5, True, "x", "", [], [1], ["a"], [[1]], [{"a": 1}], {"a": 1}, {"ttft": [1]}, -3, "1,,2"]


@pytest.mark.parametrize("opt", [o for o in BENCH_SPEC if o.in_run_file()], ids=lambda o: o.name)
def test_every_run_file_key_reads_any_toml_value_or_refuses_it_cleanly(opt) -> None:
    """Each option, given each shape TOML can hold: a canonical value, or a ConfigError; never another exception."""
    for value in ODD_VALUES:
        try:
            got = opt.parse(value)
        except ConfigError as exc:
            assert exc.found is not None and exc.expected and exc.fix is not None, (opt.name, value)
            continue
        json.dumps(got)  # canonical: what the manifest records


def test_an_old_key_is_read_with_one_deprecation_line(capsys, monkeypatch, tmp_path):
    argv = ["bench", "--run-file", NEW_USER / "rf4.toml", "--print-run-file"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert err == f"warning: run file key 'levels' is deprecated: use 'max-concurrency' ({NEW_USER / 'rf4.toml'})\n"
    assert tomllib.loads(out)["max-concurrency"] == [1]


def test_server_log_is_a_run_file_key(capsys, monkeypatch, tmp_path):
    k_toml = NEW_USER / "k.toml"
    code, out, err = cli(["bench", "--run-file", k_toml, "--print-run-file"], capsys, monkeypatch, tmp_path)
    assert code == 0 and tomllib.loads(out)["server-log"] == ["x"], err
    code, _, err = cli(["bench", "--run-file", k_toml, "--out", tmp_path], capsys, monkeypatch, tmp_path)
    assert code == 2 and _error_line(err).startswith("error: --server-log needs NAME=FILE when there are several")
    assert not list(tmp_path.glob("run-*"))  # read and refused before any server is asked


@pytest.mark.parametrize(
    ("text", "fix"),
    [
        ("levles = [1]\n", "fix: did you mean 'max-concurrency'?"),  # close to the old name: the current one named
        ("max-tokns = 3\n", "fix: did you mean 'max-tokens'?"),
        ("zzz = 1\n", "fix: remove the key (`specscope bench --print-run-file` prints every key)"),
        ('resume = "runs/x"\n', "fix: remove it from the file and give it on the command line as --resume RUN"),
    ],
)
def test_an_unknown_key_names_the_nearest_real_key_or_none(text, fix, capsys, monkeypatch, tmp_path):
    run_file = tmp_path / "run.toml"
    run_file.write_text(text)
    code, _, err = cli(["bench", "--run-file", run_file], capsys, monkeypatch, tmp_path)
    assert code == 2 and _error_line(err).endswith(fix), err


def test_the_printed_run_file_writes_out_the_profile_and_round_trips(capsys, monkeypatch, tmp_path):
    code, out, err = cli(["bench", "--profile", "card", "--print-run-file"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    card = tomllib.loads(out)
    assert card["profile"] == "card" and card["max-concurrency"] == [1, 2, 4, 6, 8, 12, 16, 24, 32, 64]
    assert (card["repeats"], card["max-tokens"], card["temperature"], card["aa"]) == (6, 512, 0.8, False)
    assert card["min-effect"] == 0.02 and card["seed"] == 0 and card["launch"] == "embedded"
    assert "min-repeats" not in card  # adaptive bounds only with --target-ci
    (tmp_path / "card.toml").write_text(out)
    argv = ["bench", "--run-file", tmp_path / "card.toml", "--print-run-file"]
    code, again, _ = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0 and again == out


@pytest.mark.parametrize(
    ("targets", "baseline"),
    [
        (["--server", "vanilla=http://127.0.0.1:9", "--server", "mtp=http://127.0.0.1:9"], "vanilla"),
        (["--server", "mtp=http://127.0.0.1:9", "--server", "my-base=http://127.0.0.1:9"], "my-base"),
        (["--configs", "plain,ngram"], "plain"),
    ],
)
def test_the_printed_baseline_is_the_one_the_run_uses(targets, baseline, capsys, monkeypatch, tmp_path):
    """With no config named base, a run's baseline is the first config named like one, else the first config
    (BenchOptions.baseline_config); --print-run-file printed baseline = "base" (the default configs' baseline), so the
    file named a config the run does not have (new-user finding, 2026-12-06)."""
    code, out, err = cli(["bench", *targets, "--print-run-file"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert tomllib.loads(out)["baseline"] == baseline


def test_a_rate_run_file_prints_no_concurrency(capsys, monkeypatch, tmp_path):
    code, out, err = cli(["bench", "--request-rate", "2", "--print-run-file"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    printed = tomllib.loads(out)
    assert printed["request-rate"] == [2.0] and "max-concurrency" not in printed


def test_resume_prints_the_runs_own_options(capsys, monkeypatch, tmp_path):
    from specscope.bench.runfile import record_of
    from specscope.config import BenchOptions
    from specscope.store import create_run

    options = BenchOptions(configs=("base", "mtp"), workloads=("prose",), levels=(1, 4), repeats=3, max_tokens=16)
    run = tmp_path / "run-1"
    record = record_of({"profile": "quick", "max_concurrency": [1, 4], "repeats": 3, "max_tokens": 16})
    create_run(run, {"kind": "bench", "options": options.model_dump(mode="json"), "run_options": record}).close()
    code, out, err = cli(["bench", "--resume", run, "--print-run-file"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert out.startswith(f"# the options of {run}; `specscope bench --resume {run}` finishes it\n")
    printed = tomllib.loads(out)
    assert (printed["max-concurrency"], printed["repeats"], printed["max-tokens"]) == ([1, 4], 3, 16)
