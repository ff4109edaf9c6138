"""A prompt holding a lone UTF-16 surrogate (``"\\ud800"`` in a JSON Lines workload: valid JSON, no character) was
exit 3 on ``bench --dry-run`` (UnicodeEncodeError from stdout's writer) and on ``bench --dry-run -o plan.txt`` (from
the file's UTF-8 encoding), though ``bench`` itself sends it (the request body is JSON-escaped). Found by attack50.
The surrogate is shown as its escape, ``\\ud800``, as control characters are."""

from __future__ import annotations

from clirun import cli


def _workload(tmp_path):
    w = tmp_path / "w.jsonl"
    w.write_text('{"prompt": "hi \\ud800 there"}\n', encoding="ascii")
    return w


def test_dry_run_prints_a_lone_surrogate_as_its_escape(tmp_path, capsys, monkeypatch):
    argv = ["bench", "--dry-run", "--workload", _workload(tmp_path), "--server", "http://127.0.0.1:9/v1"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "user: hi \\ud800 there" in out


def test_dry_run_writes_a_lone_surrogate_as_its_escape(tmp_path, capsys, monkeypatch):
    plan = tmp_path / "plan.txt"
    argv = ["bench", "--dry-run", "--workload", _workload(tmp_path), "--server", "http://127.0.0.1:9/v1", "-o", plan]
    code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "user: hi \\ud800 there" in plan.read_text(encoding="utf-8")
