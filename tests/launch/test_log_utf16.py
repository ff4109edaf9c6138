"""A server log saved as UTF-16 (Windows PowerShell 5's ``docker logs C > server.log`` writes UTF-16 LE with a
byte-order mark) is read as its text: ``serve --parse-log`` said "holds no server-log line specscope recognises" and
told the user to capture the log it had been given. Found by the attack48 fuzzing (a public vLLM log re-encoded)."""

from __future__ import annotations

import json

import pytest

from clirun import cli
from parselog import LOGS

LOG = LOGS / "vllm_083_eagle_zero_accept.log"


def _facts(path, capsys, monkeypatch, tmp_path):
    code, out, err = cli(["serve", "--parse-log", path, "-f", "json"], capsys, monkeypatch, tmp_path)
    doc = json.loads(out)
    doc.pop("path", None)
    doc.pop("log", None)
    return code, doc


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_log_with_its_mark_is_read_as_its_text(codec, capsys, monkeypatch, tmp_path):
    text = LOG.read_text(encoding="utf-8")
    data = text.encode(codec)
    if codec != "utf-16":  # the plain codec writes the mark itself; the others need it added
        data = ("\ufeff" + text).encode(codec)
    wide = tmp_path / "server.log"
    wide.write_bytes(data)
    want = _facts(LOG, capsys, monkeypatch, tmp_path)
    got = _facts(wide, capsys, monkeypatch, tmp_path)
    assert got == want and got[1]  # the same exit code and the same facts as the UTF-8 file
