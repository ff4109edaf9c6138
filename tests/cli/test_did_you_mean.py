"""A name refused against a known list gets the closest known one (difflib) in its fix, in every command: the one
place is :meth:`specscope.errors.ConfigError.invalid_value` / :meth:`~specscope.errors.ConfigError.unknown`
(issue 37, probed 2026-12-07: ``bench --configs base,ngarm`` listed the configs and suggested none)."""

from __future__ import annotations

import pytest

from clirun import cli, one_error
from specscope.errors import ConfigError, did_you_mean


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["bench", "--configs", "base,ngarm", "--dry-run"], "fix: did you mean ngram? ("),
        (["bench", "--configs", "base,ngarm-k8", "--dry-run"], "fix: did you mean ngram-k8? ("),
        (["bench", "--workloads", "prose,kode", "--dry-run"], "fix: did you mean code? ("),
        (["bench", "--profile", "quik", "--dry-run"], "fix: did you mean quick? ("),
        (["bench", "--launch", "vllmm", "--dry-run"], "fix: did you mean vllm? ("),
        (["bench", "--order", "blokcs", "--dry-run"], "fix: did you mean blocks? ("),
        (["bench", "--slo", "ttfx=2s", "--dry-run"], "fix: did you mean ttft? ("),
        (["bench", "--dataset", "speed-bnch", "--dry-run"], "fix: did you mean speed-bench? ("),
        (["gate", "--gate", "arithmetc", "--server", "http://127.0.0.1:9"], "fix: did you mean arithmetic? ("),
        (["report", "run", "--format", "jsn"], "fix: did you mean json? ("),
    ],
)
def test_a_close_name_is_suggested(argv, hint, capsys, monkeypatch, tmp_path):
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2
    assert hint in one_error(err)


def test_no_suggestion_for_a_name_close_to_nothing(capsys, monkeypatch, tmp_path):
    code, _, err = cli(["bench", "--configs", "base,zzzzqqq", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "did you mean" not in one_error(err)


def test_the_helper():
    assert did_you_mean("ngarm", ["base", "ngram", "draft"]) == "did you mean ngram?"
    assert did_you_mean("ngarm-k8", ["base", "ngram"]) == "did you mean ngram-k8?"
    assert did_you_mean("xyz", ["base", "ngram"]) is None
    err = ConfigError.unknown("workload", "kode", ["prose", "code"], fix="pass one of them")
    assert err.fix == "did you mean code? (pass one of them)"


def test_the_choices_come_from_the_caller_not_the_prose():
    """The names a refused value is matched against are the ones the caller passes (``choices``), never read back
    out of the ``expected`` words: prose that lists nothing still gets its hint, prose that looks like a list gets
    none of its own."""
    err = ConfigError.invalid_value("--configs", "ngarm", "a config the engine has", choices=["base", "ngram"])
    assert err.fix == "did you mean ngram? (`--help` says what --configs takes)"
    err = ConfigError.invalid_value("--configs", "ngarm", "one of base, ngram")
    assert err.fix is not None and "did you mean" not in err.fix
