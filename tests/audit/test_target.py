"""``specscope audit TARGET``: a missing local-looking path is a local error at once (no hub lookup); a hub that
cannot be reached fails after one attempt, not after huggingface_hub's ~24 s of retries. Run through the real entry
point (``specscope.cli.main``) inside typer's CliRunner isolation, against real sockets on 127.0.0.1."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import huggingface_hub  # noqa: F401 - imported here so the timed calls below do not pay for the import
import pytest
from typer.testing import CliRunner

import specscope.audit  # noqa: F401 - same: the audit command imports it lazily
from hangguard import HANG_S
from specscope.checkpoint.source import _local_path_reason
from specscope.cli import main

NOT_REPO_ID = "not a hub repo id: its parts take letters, digits, '-', '_', '.', never '--' or '..'"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class CountingListener:
    """A TCP listener on 127.0.0.1 that accepts connections, counts them and closes each without answering."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(0.05)
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        """Stop accepting, then count what is still queued: a connection the kernel completed is in the backlog
        whether or not the thread got to it, so the count needs no sleep before it (issue 37)."""
        self._stop = True
        self._thread.join(HANG_S)
        self.sock.setblocking(False)
        while True:
            try:
                conn, _ = self.sock.accept()
            except BlockingIOError:
                break
            self.connections += 1
            conn.close()
        self.sock.close()


def _audit(target: str, env: dict[str, str | None]) -> tuple[int, list[str], str, float]:
    """(exit code, stderr lines, stdout, wall seconds) of ``specscope audit TARGET`` run through ``main``."""
    runner = CliRunner()
    with runner.isolation(env={"HF_HUB_OFFLINE": None, "TRANSFORMERS_OFFLINE": None, **env}) as (out, err, _):
        t0 = time.perf_counter()
        with pytest.raises(SystemExit) as info:
            main(["audit", target])
        wall_s = time.perf_counter() - t0
        stderr, stdout = err.getvalue().decode(), out.getvalue().decode()
    code = info.value.code
    assert isinstance(code, int)
    return code, stderr.splitlines(), stdout, wall_s


def test_missing_local_path_is_one_line_local_error_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "runs").mkdir()
    monkeypatch.chdir(tmp_path)
    hub = CountingListener()  # HF_ENDPOINT points here: any hub lookup would show up as a connection
    try:
        code, lines, out, _ = _audit("runs/nothing", {"HF_ENDPOINT": f"http://127.0.0.1:{hub.port}"})
    finally:
        hub.close()
    assert code == 2 and out == ""
    assert hub.connections == 0  # no hub lookup: what the listener recorded, not how long it took
    assert lines == [
        "error: checkpoint path not found; found: runs/nothing does not exist (runs/ exists here; nearest existing "
        f"folder: {tmp_path / 'runs'}); expected: an existing checkpoint folder, .safetensors file or GGUF file; fix: "
        "check the path; a hub repo id is org/name[@revision] and is looked up only when it does not look like a "
        "local path"
    ]


def test_a_missing_path_with_a_space_is_never_sent_to_the_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``audit 'a b/c'`` (a local path with a space, missing) was looked up on the hub as a repo id and failed as
    "cannot reach the hub"; no repo id holds a space, so it is a missing local path, at once, with no connection."""
    monkeypatch.chdir(tmp_path)
    hub = CountingListener()
    try:
        code, lines, out, _ = _audit("a b/c", {"HF_ENDPOINT": f"http://127.0.0.1:{hub.port}"})
    finally:
        hub.close()
    assert code == 2 and out == "" and hub.connections == 0
    assert lines == [
        f"error: checkpoint path not found; found: a b/c does not exist ({NOT_REPO_ID}; nearest existing folder: "
        f"{tmp_path}); expected: an existing checkpoint folder, .safetensors file or GGUF file; fix: check the path; "
        "a hub repo id is org/name[@revision] and is looked up only when it does not look like a local path"
    ]


def test_unreachable_hub_fails_after_one_attempt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    port = _closed_port()
    code, lines, out, _ = _audit("someorg/somemodel", {"HF_ENDPOINT": f"http://127.0.0.1:{port}"})
    assert code == 2 and out == ""
    assert len(lines) == 1
    assert lines[0].startswith(
        f"error: cannot reach the hub (one attempt, no retries); found: http://127.0.0.1:{port} for someorg/somemodel: "
    )
    assert "expected: a hub answering at HF_ENDPOINT; fix: " in lines[0]


@pytest.mark.timing
def test_unreachable_hub_answers_in_seconds_not_after_retries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A refused port leaves no connection to count, so "one attempt" is timed here: huggingface_hub's own retries
    took ~24 s, one refused connect ~0.1 s on a quiet machine; the bound is 5 s (a 50-fold margin, and 5-fold
    below the retries)."""
    monkeypatch.chdir(tmp_path)
    code, _, _, wall_s = _audit("someorg/somemodel", {"HF_ENDPOINT": f"http://127.0.0.1:{_closed_port()}"})
    assert code == 2 and wall_s < 5.0


def test_hub_that_drops_the_connection_gets_exactly_one_attempt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    hub = CountingListener()
    try:
        code, lines, _, _ = _audit("someorg/somemodel@v1", {"HF_ENDPOINT": f"http://127.0.0.1:{hub.port}/"})
    finally:
        hub.close()
    assert code == 2
    assert hub.connections == 1  # one attempt: counted by the listener
    assert len(lines) == 1 and lines[0].startswith("error: cannot reach the hub (one attempt, no retries); found: ")
    assert f"http://127.0.0.1:{hub.port} for someorg/somemodel@v1: " in lines[0]


@pytest.mark.parametrize(
    "target,repo,reason",
    [
        ("./ckpt", "./ckpt", "starts like a path"),
        ("/models/x", "/models/x", "starts like a path"),
        ("~/models/x", "~/models/x", "starts like a path"),
        ("model.safetensors", "model.safetensors", "names a .safetensors file"),
        ("a/b/c", "a/b/c", "3 path parts (a repo id has 2)"),
        ("runs/nothing", "runs/nothing", "runs/ exists here"),
        ("org/name", "org/name", None),
        ("org/name@refs/pr/1", "org/name", None),  # a revision may hold slashes
        ("name", "name", "1 path part (a repo id has 2)"),  # not a repo id either: a missing local path
        ("model.gguf", "model.gguf", "names a .gguf file"),
        ("someorg/model.gguf", "someorg/model.gguf", None),  # a hub repo's name may end in .gguf (issue 36)
        ("someorg/model.safetensors", "someorg/model.safetensors", None),
        ("missing_dir/", "missing_dir/", "ends with '/' like a folder"),
        # strings the hub could never hold (huggingface_hub's validate_repo_id): a local path that is missing
        ("a b/c", "a b/c", NOT_REPO_ID),
        ("org/na me", "org/na me", NOT_REPO_ID),
        ("org/x..y", "org/x..y", NOT_REPO_ID),
        ("org/model.git", "org/model.git", NOT_REPO_ID),
    ],
)
def test_local_path_reason(target, repo, reason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "runs").mkdir()
    monkeypatch.chdir(tmp_path)
    assert _local_path_reason(target, repo) == reason


@pytest.mark.parametrize("target", ["someorg/model.gguf", "someorg/model.safetensors@v1"])
def test_an_org_name_ending_in_a_file_suffix_is_tried_as_a_hub_repo_id(
    target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Issue 36: ``audit someorg/model.gguf`` (no such local path) said "checkpoint path not found" without a hub
    lookup, though a hub repo's name may end in ``.gguf``. An ``org/name`` that exists nowhere here is a hub repo id;
    when the hub cannot answer, the error says the hub repo id was tried and that no local path of that name exists."""
    monkeypatch.chdir(tmp_path)
    hub = CountingListener()
    try:
        code, lines, out, _ = _audit(target, {"HF_ENDPOINT": f"http://127.0.0.1:{hub.port}"})
    finally:
        hub.close()
    assert code == 2 and out == "" and hub.connections == 1
    assert len(lines) == 1 and lines[0].startswith("error: cannot reach the hub (one attempt, no retries); found: ")
    repo = target.split("@")[0]
    assert f" for {target} (tried as a hub repo id: no local path {repo} exists): " in lines[0]


def test_offline_an_org_name_ending_in_a_file_suffix_says_the_hub_id_was_tried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)
    code, lines, out, _ = _audit(
        "someorg/model.gguf", {"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "cache"), "HF_HOME": str(tmp_path)}
    )
    assert code == 2 and out == ""
    assert len(lines) == 1
    assert lines[0].startswith(
        "error: offline mode and the repository is not in the local cache; found: someorg/model.gguf (tried as a hub "
        "repo id: no local path someorg/model.gguf exists): "
    )


@pytest.mark.parametrize(
    ("target", "reason"),
    [("nonexistent.gguf", "names a .gguf file"), ("missing_dir/", "ends with '/' like a folder")],
)
def test_a_missing_file_or_folder_is_not_found(target, reason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Fresh clone's trial: ``audit nonexistent.gguf`` and ``audit missing_dir/`` said "target is neither a folder
    nor a hub repo id"; they are missing local paths, said so at once (no hub lookup)."""
    monkeypatch.chdir(tmp_path)
    hub = CountingListener()
    try:
        code, lines, out, _ = _audit(target, {"HF_ENDPOINT": f"http://127.0.0.1:{hub.port}"})
    finally:
        hub.close()
    assert code == 2 and out == "" and hub.connections == 0
    assert lines == [
        f"error: checkpoint path not found; found: {target} does not exist ({reason}; nearest existing folder: "
        f"{tmp_path}); expected: an existing checkpoint folder, .safetensors file or GGUF file; fix: check the path; "
        "a hub repo id is org/name[@revision] and is looked up only when it does not look like a local path"
    ]


def test_existing_file_that_is_not_a_checkpoint_is_named_as_such(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "config.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    code, lines, out, _ = _audit("./config.json", {"HF_ENDPOINT": f"http://127.0.0.1:{_closed_port()}"})
    assert code == 2 and out == ""
    assert lines == [
        "error: target is not a checkpoint folder, .safetensors or GGUF file; found: ./config.json (starts like a "
        "path); expected: a checkpoint folder, a .safetensors file or a GGUF file; fix: check the path; a hub repo id "
        "is org/name[@revision] and is looked up only when it does not look like a local path"
    ]


def test_a_fifo_target_is_named_as_what_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``audit --draft ff`` with ``ff`` a FIFO (or a plain file) in the current folder said ``ff/ exists here``, a
    folder that is not there; it names what stands there (attack48)."""
    import os

    os.mkfifo(tmp_path / "ff")
    (tmp_path / "notes").write_text("x")
    monkeypatch.chdir(tmp_path)
    assert _local_path_reason("ff", "ff") == "ff exists here (a FIFO)"
    assert _local_path_reason("notes", "notes") == "notes exists here (a file)"
    assert _local_path_reason("ff/x", "ff/x") == "ff exists here (a FIFO)"


def test_offline_a_cached_repository_is_audited_from_the_cache(tmp_path: Path) -> None:
    """HF_HUB_OFFLINE=1 with the repository in huggingface_hub's cache layout (``models--org--name/refs/main`` naming
    a snapshot folder): ``specscope audit org/name`` reads the snapshot with no network and audits it as a folder.
    A child process, as a user runs it: huggingface_hub reads HF_HUB_CACHE once, when it is imported."""
    import json
    import os
    import subprocess
    import sys

    from audit.ckmaker import dense_config, dense_model, write

    commit = "0" * 40
    repo = tmp_path / "cache" / "models--someorg--dense"
    write(repo / "snapshots" / commit, dense_model(2, 64), dense_config(2, 64))
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "cache"), "HF_HOME": str(tmp_path)}
    env["HF_ENDPOINT"] = f"http://127.0.0.1:{_closed_port()}"  # nothing answers there: offline must not ask
    cmd = [sys.executable, "-m", "specscope", "audit", "someorg/dense", "-f", "json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=HANG_S)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["target"] == "someorg/dense" and doc["counts"]["error"] == 0
