"""A path too long for the file system (one name over 255 bytes: a value pasted where a path belongs, a runaway
variable) is a user mistake, exit 2 with found / expected / fix; it was an internal error (exit 3, ``OSError: [Errno
36] File name too long``) in audit, report, advise, predict, export, surgery and ``serve --census``, raised by the
first ``exists()`` / ``is_dir()`` on it. Found by the attack48 fuzzing (``specscope audit $(printf 'a%.0s'
{1..5000})``)."""

from __future__ import annotations

import pytest

from clirun import cli, one_error
from paths import CASES, DATA
from quickrun import make_quick_run

LONG = "a" * 5000
DEEP = "/tmp/" + "b/" * 3000  # every name short, the whole path past PATH_MAX (4096)
CK = CASES / "C06" / "checkpoint"
LOG = DATA / "engines" / "logs" / "vllm_083_eagle_zero_accept.log"


@pytest.mark.parametrize(
    "argv",
    [
        ["audit", LONG],
        ["audit", DEEP],
        ["audit", str(CK), "-o", LONG + ".json"],
        ["report", LONG],
        ["advise", LONG],
        ["predict", LONG],
        ["export", LONG],
        ["export", "{run}", "--to", "profile", "-o", LONG],
        ["surgery", "compare", LONG, LONG],
        ["surgery", "graft", LONG, "--from", LONG, "--out", "o"],
        ["surgery", "reindex", str(CK), "--out", DEEP],
        ["serve", "--parse-log", str(LOG), "--census", LONG],
    ],
)
def test_a_path_too_long_is_a_user_error(argv, capsys, monkeypatch, tmp_path):
    run = make_quick_run(tmp_path / "r") if "{run}" in argv else None
    monkeypatch.chdir(tmp_path)
    code, out, err = cli([a.format(run=run) for a in argv], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2, err
    assert line.startswith("error: a path is too long for the file system; found: "), line
    assert "expected: " in line and "fix: shorten" in line, line
    assert len(line) < 600, line  # the path is cut, not printed whole


def test_a_manifest_name_too_long_is_a_missing_file(capsys, monkeypatch, tmp_path):
    """``audit --hashes``: a SHA256SUMS line naming a file no file system can hold is HASH_FILE_MISSING (an ERROR,
    exit 1) like any other name not on disk, and the other lines are still compared."""
    import shutil

    ck = tmp_path / "ck"
    shutil.copytree(CK, ck)
    (ck / "SHA256SUMS").write_text(f"{'0' * 64}  {'x' * 300}.safetensors\n")
    code, out, err = cli(["audit", ck, "--hashes", "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 1, err
    assert '"HASH_FILE_MISSING"' in out and '"HASHES_VERIFIED"' in out


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "loop"],
        ["report", "{run}", "-o", "loop"],
        ["audit", str(CK), "-o", "loop"],
        ["surgery", "reindex", str(CK), "--out", "loop"],
    ],
)
def test_a_symlink_loop_is_a_user_error(argv, capsys, monkeypatch, tmp_path):
    """A path that is a symlink loop (``ln -s loop loop``) is exit 2 naming it; it was exit 3 (``RuntimeError:
    Symlink loop from ...``, raised by ``Path.resolve()`` on Python 3.11 and 3.12) where a path is resolved before
    it is read: report's RUN, every ``-o`` (the check that it is not a source) and surgery's ``--out``."""
    run = make_quick_run(tmp_path / "r") if "{run}" in argv else None
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop").symlink_to("loop")
    code, out, err = cli([a.format(run=run) for a in argv], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2, err
    assert line.startswith("error: a path is a symlink loop; found: "), line
    assert "loop" in line.split("found: ", 1)[1] and "fix: " in line, line
