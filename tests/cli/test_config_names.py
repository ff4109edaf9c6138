"""One naming rule for configs and workloads (``specscope.values.check_name``): ``import --config "a b/c"`` was
stored as a config named ``a b/c`` (exit 0), and ``bench --server a/b=URL`` / ``--configs ../x`` were taken, names
that become file names (``logs/CONFIG.log``), list items (``--configs a,b``) and fix lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from clirun import cli, one_error

DATA = Path(__file__).parent.parent / "data" / "imports"


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["import", str(DATA / "vllm_base_r0.json"), "--config", "a b/c", "--out", "{tmp}/imp"], "--config holds ' '"),
        (["import", str(DATA / "vllm_base_r0.json"), "--config", "../x", "--out", "{tmp}/imp"], "--config holds '/'"),
        (["bench", "--server", "a/b=http://127.0.0.1:9", "--dry-run"], "--server holds '/'"),
        (["bench", "--configs", "base,../x", "--dry-run"], "--configs holds '/'"),
        (["bench", "--server", "-x=http://127.0.0.1:9", "--dry-run"], "--server starts with '-'"),
        (["bench", "--workload", "a\tb={tmp}/w.jsonl", "--dry-run"], "--workload holds '\\t'"),
    ],
)
def test_a_name_that_breaks_paths_lists_or_fix_lines_is_refused(argv, named, capsys, monkeypatch, tmp_path):
    (tmp_path / "w.jsonl").write_text('{"prompt": "hi"}\n')
    code, out, err = cli([a.format(tmp=tmp_path) for a in argv], capsys, monkeypatch, tmp_path)
    assert code == 2 and f" of {named}" in one_error(err), err
    assert not (tmp_path / "imp").exists()


def test_a_bare_workload_file_with_a_space_in_its_name_gets_a_name_without_it(capsys, monkeypatch, tmp_path):
    (tmp_path / "my prompts.jsonl").write_text('{"prompt": "hi"}\n')
    code, out, err = cli(
        ["bench", "--workload", tmp_path / "my prompts.jsonl", "--dry-run"], capsys, monkeypatch, tmp_path
    )
    assert code == 0, err
    assert "workload my_prompts: " in out
