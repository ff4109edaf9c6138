"""Issue 37: ``--dataset`` and ``--server-log`` refuse a value in the one wording every option uses
(:meth:`specscope.errors.ConfigError.invalid_value`): ``--dataset nosuch`` said "unknown dataset 'nosuch'",
``--dataset speed-bench:nosuch`` "unknown speed-bench config 'nosuch'", ``--server-log other=F`` "--server-log names
no --server 'other'", and a log named twice had no fix."""

from __future__ import annotations

import pytest

from clirun import cli, one_error

SERVER = ["--server", "base=http://127.0.0.1:9"]


@pytest.mark.parametrize(
    ("value", "line"),
    [
        (
            "nosuch",
            "error: invalid value for --dataset; found: nosuch; expected: NAME[:CONFIG][@REVISION] with NAME one of "
            "speed-bench, spec-bench, mt-bench, blazedit, instructcoder; fix: e.g. --dataset speed-bench:qualitative",
        ),
        (
            "speed-bench:nosuch",
            "error: invalid value for --dataset; found: speed-bench:nosuch; expected: speed-bench:CONFIG with CONFIG "
            "one of qualitative, throughput_1k, throughput_2k, throughput_8k, throughput_16k, throughput_32k; fix: "
            "e.g. --dataset speed-bench:qualitative",
        ),
        (
            "speed-bench@",
            "error: invalid value for --dataset; found: speed-bench@; expected: NAME[:CONFIG]@REVISION (a revision "
            "after @); fix: name the revision after @, or drop the @",
        ),
    ],
)
def test_dataset(value, line, capsys, monkeypatch, tmp_path):
    code, _, err = cli(["bench", *SERVER, "--dataset", value, "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err) == line


def test_server_log_names(capsys, monkeypatch, tmp_path):
    log = tmp_path / "s.log"
    log.write_text("x\n")
    code, _, err = cli(["bench", *SERVER, "--server-log", f"other={log}", "--dry-run"], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert one_error(err) == (
        f"error: invalid value for --server-log; found: other={log}; expected: NAME=FILE with NAME one of base; "
        "fix: use the NAME of a --server NAME=URL"
    )
