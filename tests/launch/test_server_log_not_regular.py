"""A server log that is a FIFO, a device or a folder is refused by its kind, not as "not found" (README: files a
user names are read as regular files only, a FIFO or a device refused before any read): `serve --parse-log` and
`bench --server-log` (which reads the log before the first request)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from specscope.cli import main
from specscope.errors import ConfigError
from specscope.launch.serverlog import LOG_MAX_BYTES, parse_server_log_specs

_EXPECTED = "expected: a readable server log file; fix: pass the path of a file holding the server's stdout/stderr"


def _parse_log(path: Path | str, capsys: pytest.CaptureFixture[str]) -> str:
    """The one stderr line of `serve --parse-log PATH`, which must exit 2."""
    with pytest.raises(SystemExit) as ei:
        main(["serve", "--parse-log", str(path)])
    assert ei.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    return line


def test_parse_log_names_a_fifo_and_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "server.log"
    os.mkfifo(fifo)  # returns at once: the FIFO has no writer and is never read
    line = _parse_log(fifo, capsys)
    assert line == f"error: cannot read the server log; found: {fifo}: a FIFO, not a regular file; {_EXPECTED}"
    line = _parse_log(tmp_path, capsys)
    assert line == f"error: cannot read the server log; found: {tmp_path}: a folder, not a regular file; {_EXPECTED}"
    line = _parse_log(tmp_path / "none.log", capsys)
    assert line == f"error: server log not found; found: {tmp_path / 'none.log'}; {_EXPECTED}"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_parse_log_names_a_device(capsys: pytest.CaptureFixture[str]) -> None:
    line = _parse_log("/dev/zero", capsys)
    assert line == f"error: cannot read the server log; found: /dev/zero: a device, not a regular file; {_EXPECTED}"


def test_bench_server_log_names_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "vllm.log"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match=r"a FIFO, not a regular file") as err:
        parse_server_log_specs([f"mtp={fifo}"], ("mtp",))
    assert err.value.args[0] == "cannot read the server log"


def test_parse_log_refuses_a_log_above_the_limit_before_reading_it(tmp_path: Path, capsys) -> None:
    """A log of more than 1 GiB would hold ~7 GiB in memory: refused from its size, before a byte is read (the
    file is sparse: it takes no disk)."""
    big = tmp_path / "server.log"
    with big.open("wb") as fh:
        fh.truncate(LOG_MAX_BYTES + 1)
    line = _parse_log(big, capsys)
    assert line == (
        f"error: the server log is too large to read; found: {big}: 1,073,741,825 bytes; expected: at most 1 GiB"
        " (1,073,741,824 bytes; reading holds ~7x that in memory); fix: cut the log to the span you measured,"
        " e.g. tail -c 500M LOG > part.log (or grep the engine's lines)"
    )
