"""bench's options are declared once (specscope.bench.spec): an option added to the spec alone reaches ``--help``,
the run file, the manifest's record and the resume check; run files refuse unknown keys naming the closest one."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer

from specscope.bench.spec import BENCH_SPEC, GROUPS, Opt, by_name
from specscope.cli import bench as bench_cli
from specscope.cli.crash import run_guarded
from specscope.truth import TruthScript, TruthServer

DUMMY = Opt("dummy_knob", "load", "int", "A knob only this test declares.", "N")


def _app(spec: tuple[Opt, ...]) -> typer.Typer:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)

    @app.callback()
    def _root() -> None:
        """A root, so that bench is a subcommand as in specscope."""

    bench_cli.register(app, spec)
    return app


def _run(app: typer.Typer, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_guarded(lambda: app(args=argv, standalone_mode=False))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_every_option_has_a_group_a_kind_and_one_flag() -> None:
    flags = [o.flag for o in BENCH_SPEC] + [a for o in BENCH_SPEC for a in o.aliases]
    assert len(flags) == len(set(flags))
    assert {o.group for o in BENCH_SPEC} == set(GROUPS)
    assert all(o.help.endswith(".") and o.kind for o in BENCH_SPEC)


def test_a_dummy_option_in_the_spec_alone_reaches_help_run_file_manifest_and_resume(tmp_path, capsys) -> None:
    app = _app((*BENCH_SPEC, DUMMY))
    code, out, _ = _run(app, ["bench", "--help"], capsys)
    assert code == 0 and re.search(r"--dummy-knob\s+N\s+A knob only this test declares", out), out

    code, out, _ = _run(app, ["bench", "--dummy-knob", "3", "--max-tokens", "8", "--print-run-file"], capsys)
    assert code == 0 and "dummy-knob = 3\n" in out and "max-tokens = 8\n" in out
    run_file = tmp_path / "run.toml"
    run_file.write_text(out)

    code, _, err = _run(app, ["bench", "--dummy-knob", "x", "--print-run-file"], capsys)
    assert code == 2 and "error: --dummy-knob takes a whole number; found: x" in err

    with TruthServer(TruthScript()) as ts:
        # the printed file names the configs in force (base, ngram, draft): one server runs one of them
        argv = ["bench", "--run-file", str(run_file), "--server", f"base={ts.base_url}", "--configs", "base"]
        argv += ["--workloads", "prose"]
        argv += ["--max-concurrency", "1", "--repeats", "1", "--no-aa", "--out", str(tmp_path / "runs"), "-f", "json"]
        code, out, err = _run(app, argv, capsys)
        assert code == 0, err
        run = next((tmp_path / "runs").iterdir())
        record = json.loads((run / "manifest.json").read_text())["run_options"]
        assert record["dummy_knob"] == 3 and record["max_tokens"] == 8 and record["profile"] == "quick"

        code, _, err = _run(app, ["bench", "--resume", str(run), "--dummy-knob", "4"], capsys)
        assert code == 2 and "--dummy-knob 4 (run has 3)" in err
        code, _, err = _run(app, ["bench", "--resume", str(run), "--dummy-knob", "3", "-f", "json"], capsys)
        assert code == 0, err  # the run's own value: accepted (nothing left to measure)


def test_an_unknown_run_file_key_is_refused_naming_the_closest_option(tmp_path, capsys) -> None:
    f = tmp_path / "run.toml"
    f.write_text('profile = "quick"\nmax-concurency = [1, 2]\n')
    code, out, err = _run(_app(BENCH_SPEC), ["bench", "--run-file", str(f)], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"error: unknown option 'max-concurency' in run file {f}; found: max-concurency; ")
    assert err.rstrip().endswith("fix: did you mean 'max-concurrency'?")


def test_a_run_file_and_the_command_line_read_a_value_the_same_way(tmp_path) -> None:
    from specscope.bench.runfile import given_options, read_run_file

    f = tmp_path / "run.toml"
    f.write_text('max_concurrency = "2,1"\nslo = {ttft = "2us"}\nread-timeout = 30\n')
    from_file = read_run_file(f)
    spec = by_name()
    cli = {"max_concurrency": "2,1", "slo": ["ttft=2us"], "read_timeout": "30s"}
    assert from_file == given_options(cli) == {"max_concurrency": [2, 1], "slo": {"ttft": 2e-06}, "read_timeout": 30.0}
    assert spec["max_concurrency"].normal([2, 1], {}) == [1, 2]  # as the run's options store it


def test_the_run_file_round_trips_through_toml(tmp_path) -> None:
    from specscope.bench.runfile import dump_run_file, given_options, read_run_file

    given = given_options(
        {"configs": ["base,draft"], "k": "1,2", "slo": ["ttft=2s,tpot=50ms"], "workload": ["a=x.jsonl"], "aa": True}
    )
    f = tmp_path / "r.toml"
    f.write_text(dump_run_file(given))
    assert read_run_file(f) == given


def test_like_refuses_a_run_without_a_record(tmp_path) -> None:
    from factmaker import schema1_run
    from specscope.bench.runfile import read_like
    from specscope.errors import SpecscopeError

    with pytest.raises(SpecscopeError):
        read_like(schema1_run(tmp_path))
    assert Path(tmp_path).exists()
