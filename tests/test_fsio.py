"""specscope.fsio: a write replaces the file whole or leaves the old one and no temporary file behind."""

import json
import os
import stat
from pathlib import Path

import pytest

from specscope.fsio import (
    AtomicFile,
    copy_file_atomic,
    open_atomic,
    write_bytes_atomic,
    write_json_atomic,
    write_text_atomic,
)

OLD_TEXT = '{"old": true}\n'


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def old_file(tmp_path: Path) -> Path:
    path = tmp_path / "manifest.json"
    path.write_text(OLD_TEXT, encoding="utf-8")
    return path


def test_text_write_replaces_content_with_mode_644_and_no_temp(old_file: Path):
    write_text_atomic(old_file, "naïve\n")
    assert old_file.read_bytes() == "naïve\n".encode()
    assert stat.S_IMODE(old_file.stat().st_mode) == 0o644
    assert _names(old_file.parent) == ["manifest.json"]


def test_json_write_is_indented_with_trailing_newline(old_file: Path):
    write_json_atomic(old_file, {"b": 1, "a": [1, 2]}, sort_keys=True)
    assert old_file.read_text(encoding="utf-8") == '{\n  "a": [\n    1,\n    2\n  ],\n  "b": 1\n}\n'


def test_json_default_and_ensure_ascii_pass_through(old_file: Path):
    write_json_atomic(old_file, {"p": Path("/x"), "s": "é"}, indent=None, ensure_ascii=False, default=str)
    assert old_file.read_text(encoding="utf-8") == '{"p": "/x", "s": "é"}\n'


def test_unserialisable_json_leaves_old_content_and_no_temp(old_file: Path):
    with pytest.raises(TypeError):
        write_json_atomic(old_file, {"x": object()})
    assert old_file.read_text(encoding="utf-8") == OLD_TEXT
    assert _names(old_file.parent) == ["manifest.json"]


def test_failure_inside_the_write_removes_the_temp_and_keeps_old_content(old_file: Path):
    with pytest.raises(RuntimeError, match="disk on fire"), open_atomic(old_file) as fh:
        fh.write(b"half a file")
        assert len(_names(old_file.parent)) == 2  # the temporary file exists while writing
        raise RuntimeError("disk on fire")
    assert old_file.read_text(encoding="utf-8") == OLD_TEXT
    assert _names(old_file.parent) == ["manifest.json"]


def test_refused_rename_removes_the_temp(tmp_path: Path):
    target = tmp_path / "report.html"
    target.mkdir()  # os.replace(file, existing folder) fails with IsADirectoryError on POSIX
    (target / "keep.txt").write_text("kept", encoding="utf-8")
    with pytest.raises(IsADirectoryError):
        write_bytes_atomic(target, b"<html></html>")
    assert _names(tmp_path) == ["report.html"]
    assert (target / "keep.txt").read_text(encoding="utf-8") == "kept"


def test_missing_folder_is_an_error_unless_parents(tmp_path: Path):
    target = tmp_path / "a" / "b" / "out.txt"
    with pytest.raises(FileNotFoundError):
        write_text_atomic(target, "x")
    write_text_atomic(target, "x", parents=True)
    assert target.read_text(encoding="utf-8") == "x"


def test_copy_is_byte_identical_and_leaves_the_source_alone(tmp_path: Path):
    src = tmp_path / "src.bin"
    data = os.urandom(3 * (1 << 20) + 7)  # 3 MiB + 7 bytes: more than one copy chunk
    src.write_bytes(data)
    dst = tmp_path / "dst.bin"
    copy_file_atomic(src, dst)
    assert dst.read_bytes() == data
    assert src.read_bytes() == data
    assert _names(tmp_path) == ["dst.bin", "src.bin"]


def test_json_written_is_readable_json(tmp_path: Path):
    path = tmp_path / "gate.json"
    write_json_atomic(path, {"probes": [{"id": "p1", "ok": True}]}, ensure_ascii=False)
    assert json.loads(path.read_text(encoding="utf-8")) == {"probes": [{"id": "p1", "ok": True}]}


def test_streaming_writer_commits_or_discards(old_file: Path):
    f = AtomicFile(old_file)
    f.fh.write(b"part 1, ")
    f.fh.write(b"part 2")
    assert old_file.read_text(encoding="utf-8") == OLD_TEXT  # nothing visible before commit
    f.commit()
    assert old_file.read_bytes() == b"part 1, part 2"
    g = AtomicFile(old_file)
    g.fh.write(b"abandoned")
    g.discard()
    g.discard()  # twice is harmless
    assert old_file.read_bytes() == b"part 1, part 2"
    assert _names(old_file.parent) == ["manifest.json"]


def test_a_fifo_or_a_link_to_one_is_never_replaced_by_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    # attack48: as root, `report RUN -o /dev/full -f json` renamed a regular file over the device node; the -o check
    # refuses it first, and every atomic writer refuses it too (the last guard, for a writer past that check)
    from specscope.cli.crash import _run
    from specscope.fsio import NotRegularFile

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to(fifo)
    for target in (fifo, link):
        with pytest.raises(NotRegularFile) as info:
            write_text_atomic(target, "x")
        assert info.value.kind == "a FIFO"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and link.is_symlink()
    assert _names(tmp_path) == ["link", "pipe"]  # no temporary file left
    assert _run(lambda: write_text_atomic(fifo, "x"), debug=False, argv=None) == 2
    assert capsys.readouterr().err == (
        f"error: a path to write is not a regular file; found: {fifo}: a FIFO; expected: a regular file, or a name "
        "where nothing is yet; fix: write to a file and copy it there, or let the shell write it (> PATH)\n"
    )


def test_a_link_the_user_names_is_written_through_to_its_file_and_stays_a_link(tmp_path: Path, capsys):
    # issue 37: `-o FILE` with FILE a link to another file replaced the link with a regular file (the file it led to
    # kept its old content); as editors save a linked file, the file it leads to is replaced atomically, in its own
    # folder, and the link stays (cli.output.write_file: every command's -o)
    from specscope.cli.output import write_file

    common = tmp_path / "common"
    common.mkdir()
    real = common / "report.md"
    real.write_text("old\n")
    link = tmp_path / "report.md"
    link.symlink_to(os.path.relpath(real, tmp_path))  # a relative link, read from the link's folder
    chain = tmp_path / "latest.md"
    chain.symlink_to(link)  # a link to a link
    write_file(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == os.path.join("common", "report.md")
    assert real.read_text() == "new\n" and not real.is_symlink()
    write_file(chain, '{"a": 1}')
    assert chain.is_symlink() and link.is_symlink() and json.loads(real.read_text()) == {"a": 1}
    assert _names(tmp_path) == ["common", "latest.md", "report.md"] and _names(common) == ["report.md"]
    assert capsys.readouterr().out == f"{link}\n{chain}\n"  # the path the user gave is the one printed


def test_a_run_folders_own_write_replaces_a_planted_link_and_never_writes_through_it(tmp_path: Path):
    # issue 37 (files written outside the run folder): a run folder's files are written by the atomic writers
    # directly; a link planted in the folder is replaced by the new file and what it led to is untouched
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").symlink_to(outside)
    write_text_atomic(run / "manifest.json", "{}\n")
    assert outside.read_text() == "keep\n"
    assert not (run / "manifest.json").is_symlink() and (run / "manifest.json").read_text() == "{}\n"


def test_a_dangling_link_the_user_names_creates_its_file_and_a_loop_is_refused(tmp_path: Path):
    import errno

    from specscope.cli.output import write_file

    link = tmp_path / "out.json"
    link.symlink_to("made.json")
    write_file(link, "x")
    assert link.is_symlink() and (tmp_path / "made.json").read_text() == "x\n"
    loop = tmp_path / "loop"
    loop.symlink_to("loop")
    with pytest.raises(OSError) as info:
        write_file(loop, "x")
    assert info.value.errno == errno.ELOOP and loop.is_symlink()
    assert _names(tmp_path) == ["loop", "made.json", "out.json"]
