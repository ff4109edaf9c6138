"""EmbeddedServer lifecycle against the real llama.cpp server (xllamacpp) on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("xllamacpp")

from hangguard import HANG_S
from specscope.engine import EmbeddedServer, engine_config_from_dict, get_config  # noqa: E402
from specscope.errors import ServerStartError  # noqa: E402

pytestmark = pytest.mark.integration


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def _wait_dead(pid: int, timeout_s: float = HANG_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


def _port_closed(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def test_base_server_lifecycle_and_ctrl_c(tmp_path: Path) -> None:
    log = tmp_path / "run" / "logs" / "base.log"
    server = EmbeddedServer(get_config("base").with_updates(ctx_per_slot_tokens=512, n_parallel=1), log)
    with pytest.raises(KeyboardInterrupt):
        with server:
            pid = server.pid
            assert pid is not None and _alive(pid)
            port = int(server.base_url.rsplit(":", 1)[1])
            assert server.base_url == f"http://127.0.0.1:{port}"
            assert server.model_name == "SmolLM2-135M-Instruct"
            assert server.command_line.startswith("llama-server -m ")
            assert f"--port {port} -c 512 -np 1 -t 1 -tb 1 --metrics" in server.command_line
            health = httpx.get(f"{server.base_url}/health", timeout=HANG_S)
            assert health.json() == {"status": "ok"}
            models = httpx.get(f"{server.base_url}/v1/models", timeout=HANG_S).json()
            assert models["data"][0]["id"] == "SmolLM2-135M-Instruct"
            d = server.describe()
            assert d["config"]["name"] == "base"
            assert d["model"]["size_bytes"] == server.model_path.stat().st_size
            assert d["draft"] is None
            assert d["versions"]["xllamacpp"]
            assert d["n_ctx_tokens"] == 512
            json.dumps(d)  # manifest-ready
            raise KeyboardInterrupt  # what Ctrl-C does inside the with block
    assert server.pid is None
    assert _wait_dead(pid, 1.0)  # stop() waited for the child
    assert _port_closed(port)
    server.stop()  # idempotent
    text = log.read_text()
    assert "--- specscope: starting embedded engine config 'base'" in text
    assert f"listening on http://127.0.0.1:{port}" in text
    assert "specscope.engine.serve: stopping" in text


def test_not_a_gguf_fails_with_log_tail(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"this is not a model" * 100)
    cfg = engine_config_from_dict({"name": "bad", "model_path": str(bogus), "ctx_per_slot_tokens": 512})
    server = EmbeddedServer(cfg, tmp_path / "bad.log")
    with pytest.raises(ServerStartError) as exc:
        server.start()
    assert "exited during start (exit 3)" in exc.value.message
    assert "server failed to start" in exc.value.log_tail
    assert server.pid is None and not server.is_running()


def test_busy_port_fails_cleanly(tmp_path: Path) -> None:
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        port = blocker.getsockname()[1]
        server = EmbeddedServer(get_config("base").with_updates(ctx_per_slot_tokens=512), tmp_path / "p.log", port=port)
        with pytest.raises(ServerStartError) as exc:
            server.start()
    assert "couldn't bind HTTP server socket" in exc.value.log_tail
    assert server.pid is None


def test_start_timeout_kills_the_child(tmp_path: Path) -> None:
    server = EmbeddedServer(get_config("base"), tmp_path / "t.log", start_timeout_s=0.0)
    with pytest.raises(ServerStartError) as exc:
        server.start()
    assert "not healthy after 0 s" in exc.value.message
    assert server.pid is None


_PARENT = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from specscope.engine import EmbeddedServer, get_config
    hang_s = float(sys.argv[2])  # the hang guard: the start's limit, and past any wait of the test's (issue 37)
    cfg = get_config("base").with_updates(ctx_per_slot_tokens=512, n_parallel=1)
    s = EmbeddedServer(cfg, Path(sys.argv[1]), start_timeout_s=hang_s)
    s.start()
    print(s.pid, s.base_url, flush=True)
    time.sleep(2 * hang_s)
    """
)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_child_goes_when_parent_is_interrupted_or_killed(tmp_path: Path, sig: signal.Signals) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT, str(tmp_path / "s.log"), str(HANG_S)], stdout=subprocess.PIPE, text=True
    )
    try:
        line = parent.stdout.readline().split()
        child_pid, base_url = int(line[0]), line[1]
        assert _alive(child_pid)
        os.kill(parent.pid, sig)
        parent.wait(timeout=HANG_S)
        assert _wait_dead(child_pid), f"engine child {child_pid} survived parent {sig.name}"
        assert _port_closed(int(base_url.rsplit(":", 1)[1]))
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
