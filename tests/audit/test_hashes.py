"""`audit --hashes`: sha256 of each file against a SHA256SUMS manifest (seeds 000/002 pin a draft by sha256)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from typer.testing import CliRunner

from specscope.audit.hashes import check_hashes, parse_sums
from specscope.cli import app

from .qwen36 import build

S1, S2 = "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_parse_sums_text_and_binary_mode() -> None:
    a, b = "a" * 64, "B" * 64
    sums, bad = parse_sums(f"# comment\n{a}  model.safetensors\n{b} *./config.json\nnot a line\n")
    assert sums == {"model.safetensors": a, "config.json": "b" * 64}
    assert bad == [4]


def test_matching_mismatching_and_missing_files(tmp_path: Path) -> None:
    ck = build(tmp_path / "ck")
    wrong = "0" * 64
    (ck / "SHA256SUMS").write_text(f"{_sha(ck / S1)}  {S1}\n{wrong}  {S2}\n{wrong}  gone.safetensors\n")
    got = {f.code: f for f in check_hashes(ck)}
    assert sorted(got) == ["HASHES_VERIFIED", "HASH_FILE_MISSING", "HASH_MISMATCH"]
    assert got["HASH_MISMATCH"].file == S2
    assert got["HASH_MISMATCH"].details == {"sha256": _sha(ck / S2), "expected_sha256": wrong}
    assert got["HASHES_VERIFIED"].details == {"matched": 1, "listed": 3}


def test_cli_hashes_exit_codes(tmp_path: Path) -> None:
    ck = build(tmp_path / "ck")
    (ck / "SHA256SUMS").write_text(f"{_sha(ck / S1)}  {S1}\n{_sha(ck / S2)}  {S2}\n")
    ok = CliRunner().invoke(app, ["audit", str(ck), "--hashes", "-f", "json"])
    assert ok.exit_code == 0, ok.output
    codes = [f["code"] for f in json.loads(ok.output)["findings"]]
    assert codes == ["HASHES_VERIFIED"]
    (ck / S2).write_bytes((ck / S2).read_bytes()[:-2] + b"\x01\x01")  # same size, other bytes
    bad = CliRunner().invoke(app, ["audit", str(ck), "--hashes", "-f", "json"])
    assert bad.exit_code == 1
    assert [f["code"] for f in json.loads(bad.output)["findings"]][0] == "HASH_MISMATCH"


def test_hashes_against_the_hub_lfs_listing(tmp_path: Path, monkeypatch) -> None:
    """A file server on 127.0.0.1 answers huggingface_hub's tree call (``/api/models/{repo}/tree/{rev}``) with
    ``lfs.oid`` = sha256, as the hub does for LFS files; one file differs from the local copy."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import unquote, urlsplit

    from huggingface_hub import constants

    ck = build(tmp_path / "ck")
    wrong = "f" * 64
    listing = [
        {
            "type": "file",
            "path": S1,
            "size": 1,
            "oid": "0" * 40,
            "lfs": {"oid": _sha(ck / S1), "size": 1, "pointerSize": 1},
        },
        {"type": "file", "path": S2, "size": 1, "oid": "1" * 40, "lfs": {"oid": wrong, "size": 1, "pointerSize": 1}},
        {"type": "file", "path": "config.json", "size": 1, "oid": "2" * 40},
    ]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):  # noqa: N802
            ok = unquote(urlsplit(self.path).path) == "/api/models/acme/tiny/tree/main"
            body = json.dumps(listing).encode() if ok else b"{}"
            self.send_response(200 if ok else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    monkeypatch.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{srv.server_address[1]}")
    try:
        r = CliRunner().invoke(app, ["audit", str(ck), "--hashes-hub", "acme/tiny", "-f", "json"])
    finally:
        srv.shutdown()
    assert r.exit_code == 1, r.output
    got = {f["code"]: f for f in json.loads(r.output)["findings"]}
    assert got["HASH_MISMATCH"]["file"] == S2 and got["HASH_MISMATCH"]["expected"] == wrong
    assert got["HASHES_VERIFIED"]["message"] == "1 of 2 files listed in acme/tiny (hub LFS) match their sha256"


def test_a_manifest_that_is_not_utf8_gives_bad_lines_not_a_traceback(tmp_path: Path) -> None:
    ck = build(tmp_path / "ck")
    (ck / "SHA256SUMS").write_bytes(f"{_sha(ck / S1)}  {S1}\n".encode() + b"\xff\xfe not text\n")
    got = {f.code: f for f in check_hashes(ck)}
    assert got["HASH_MANIFEST_INVALID"].details == {"lines": [2]}
    assert got["HASHES_VERIFIED"].details == {"matched": 1, "listed": 1}


def test_a_manifest_line_leaving_the_folder_is_refused_not_hashed(tmp_path: Path) -> None:
    """A `../other/model.safetensors` line would hash a file outside the checkpoint and count it as a match."""
    ck = build(tmp_path / "ck")
    other = build(tmp_path / "other")
    (ck / "SHA256SUMS").write_text(f"{_sha(other / S1)}  ../other/{S1}\n{_sha(ck / S1)}  {S1}\n")
    got = {f.code: f for f in check_hashes(ck)}
    assert got["HASH_PATH_UNSAFE"].severity.value == "error"
    assert got["HASH_PATH_UNSAFE"].message == f"SHA256SUMS names 1 files outside the checkpoint folder: ../other/{S1}"
    assert got["HASHES_VERIFIED"].details == {"matched": 1, "listed": 1}


def test_a_hashes_file_that_does_not_exist_is_exit_2(tmp_path: Path, capsys) -> None:
    import pytest

    from specscope.cli import main

    ck = build(tmp_path / "ck")
    with pytest.raises(SystemExit) as info:
        main(["audit", str(ck), "--hashes-file", str(tmp_path / "nope")])
    assert info.value.code == 2
    captured = capsys.readouterr()
    text = " ".join((captured.out + captured.err).split())
    assert f"--hashes-file is not a readable file; found: {tmp_path / 'nope'}: no such file" in text
    assert "expected: a sha256sum manifest" in text and "fix: check the path given to --hashes-file" in text
