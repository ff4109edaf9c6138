"""Issue 37 (round 53): an option's value outside its choices is refused in the one wording every option uses
(:meth:`specscope.errors.ConfigError.invalid_value`: ``invalid value for FLAG; found; expected; fix``).
``export RUN --to X`` said "unknown --to 'X'" and ``bench --metrics other=URL`` "unknown --metrics config 'other'"."""

from __future__ import annotations

from pathlib import Path

from clirun import cli, one_error

RUN = Path(__file__).resolve().parents[1] / "data" / "runs" / "schema1"


def test_export_to_an_unknown_target(tmp_path, capsys, monkeypatch):
    code, _, err = cli(["export", RUN, "--to", "X"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err) == (
        "error: invalid value for --to; found: X; expected: one of mlflow, profile; fix: e.g. --to mlflow"
    )


def test_bench_metrics_and_selector_of_an_unknown_config(tmp_path, capsys, monkeypatch):
    base = ["bench", "--server", "base=http://127.0.0.1:9", "--out", tmp_path / "out"]
    code, _, err = cli([*base, "--metrics", "other=http://127.0.0.1:9"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err) == (
        "error: invalid value for --metrics; found: other=http://127.0.0.1:9; expected: NAME=URL with NAME one of "
        "base; fix: use a name given to --configs/--server"
    )
    code, _, err = cli([*base, "--prometheus-selector", 'other={job="x"}'], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err) == (
        'error: invalid value for --prometheus-selector; found: other={job="x"}; expected: NAME={label matchers} '
        "with NAME one of base; fix: use a config name"
    )
    assert not (tmp_path / "out").exists()


def test_bench_and_advise_slo_of_an_unknown_name(tmp_path, capsys, monkeypatch):
    """``bench --slo ttfb=2s`` said "unknown name in --slo 'ttfb'"."""
    argv = ["bench", "--server", "base=http://127.0.0.1:9", "--slo", "ttfb=2s", "--out", tmp_path / "out"]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err) == (
        "error: invalid value for --slo; found: ttfb=2s; expected: NAME=VALUE with NAME one of ttft, tpot; "
        "fix: did you mean ttft? (e.g. --slo ttft=2s,tpot=50ms)"
    )


def test_gate_configs_and_gate_of_an_unknown_name(tmp_path, capsys, monkeypatch):
    """``gate --configs turbo`` said "unknown embedded-engine config 'turbo'" and ``gate --gate nope`` "unknown
    gate"; both are values outside an option's choices."""
    code, _, err = cli(["gate", "--configs", "turbo", "--out", tmp_path / "out"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err) == (
        "error: invalid value for --configs; found: turbo; expected: one of base, ngram, draft, draft-ngram, "
        "self-draft, synth; fix: pick one of the listed configs, or pass --server URL to use your own server"
    )
    code, _, err = cli(["gate", "--gate", "nope", "--out", tmp_path / "out"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err) == (
        "error: invalid value for --gate; found: nope; expected: one of thinking, arithmetic, code, tool_call, "
        "long_context, repetition, compare; fix: e.g. --gate thinking"
    )
    assert not (tmp_path / "out").exists()


def test_bench_workloads_configs_and_profile_of_an_unknown_name(tmp_path, capsys, monkeypatch):
    """``bench --workloads poetry`` said "unknown workload 'poetry'", ``--configs turbo`` "unknown config 'turbo'",
    ``--profile nope`` "unknown profile 'nope'"."""
    out = ["--out", tmp_path / "out"]
    code, _, err = cli(["bench", "--workloads", "poetry", *out], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err) == (
        "error: invalid value for --workloads; found: poetry; expected: one of prose, code, edit, edit-prefill, "
        "repeat; fix: e.g. --workloads prose,code,edit"
    )
    code, _, err = cli(["bench", "--configs", "base,turbo", *out], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err) == (
        "error: invalid value for --configs; found: turbo; expected: one of base, ngram, draft, draft-ngram, "
        "self-draft, synth, or a speculative one's NAME-kK with K from 1 to 1024 (a draft length); fix: pass configs "
        "the embedded engine has (base, ngram, draft, draft-ngram, self-draft, synth), or --server URL for your own "
        "server"
    )
    code, _, err = cli(["bench", "--profile", "nope", *out], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err) == (
        "error: invalid value for --profile; found: nope; expected: one of quick, card; fix: e.g. --profile quick"
    )
    assert not (tmp_path / "out").exists()
