"""``specscope audit org/name@rev`` through huggingface_hub itself, pointed with HF_ENDPOINT at a file server on
127.0.0.1 that emulates the two hub endpoints huggingface_hub calls for us (read in its installed source,
``hf_api.py`` ``_iter_repo_tree_pages`` and ``file_download.py`` ``hf_hub_url``):

- ``GET /api/models/{repo}/tree/{revision}?recursive=True`` -> JSON list of ``{"type", "path", "size", "oid"}``;
- ``GET /{repo}/resolve/{revision}/{file}`` with an optional ``Range: bytes=a-b`` -> 206 partial content.

The server counts the bytes it serves per file; the audit must read under 0.1 % of the checkpoint's shard bytes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from hangguard import HANG_S

pytestmark = pytest.mark.integration

_spec = importlib.util.spec_from_file_location("qwen36_builder", Path(__file__).parents[1] / "audit" / "qwen36.py")
qwen36 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(qwen36)  # type: ignore[union-attr]

REPO, REV, TOKEN = "acme/qwen36-tiny-nvfp4", "main", "hf_test_token_123"


class HubServer:
    def __init__(self, root: Path):
        self.root = root
        self.served_bytes: dict[str, int] = {}
        self.auth_headers: list[str | None] = []
        self.paths: list[str] = []
        lock = threading.Lock()
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def _send(self, code: int, body: bytes, headers: dict[str, str]) -> None:
                self.send_response(code)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):  # noqa: N802 - http.server naming
                path = unquote(urlsplit(self.path).path)
                with lock:
                    hub.paths.append(path)
                    hub.auth_headers.append(self.headers.get("authorization"))
                tree = f"/api/models/{REPO}/tree/{REV}"
                resolve = f"/{REPO}/resolve/{REV}/"
                if path == tree:
                    listing = [
                        {"type": "file", "path": p.name, "size": p.stat().st_size, "oid": "0" * 40}
                        for p in sorted(hub.root.iterdir())
                    ]
                    return self._send(200, json.dumps(listing).encode(), {"Content-Type": "application/json"})
                if path.startswith(resolve):
                    f = hub.root / path[len(resolve) :]
                    if not f.is_file():
                        return self._send(404, b"{}", {"X-Error-Code": "EntryNotFound"})
                    data = f.read_bytes()
                    rng = self.headers.get("range")
                    code, headers = 200, {"ETag": '"x"', "X-Repo-Commit": "a" * 40}
                    if rng and rng.startswith("bytes="):
                        a, _, b = rng[6:].partition("-")
                        start, end = int(a), min(int(b) if b else len(data) - 1, len(data) - 1)
                        headers["Content-Range"] = f"bytes {start}-{end}/{len(data)}"
                        data, code = data[start : end + 1], 206
                    with lock:
                        hub.served_bytes[f.name] = hub.served_bytes.get(f.name, 0) + len(data)
                    return self._send(code, data, headers)
                return self._send(404, b"{}", {"X-Error-Code": "RepoNotFound"})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def hub(tmp_path: Path):
    # vocab 131072 x hidden 64 BF16 embedding and lm_head: 16 MiB each, so headers are a tiny share of the bytes.
    root = qwen36.build(tmp_path / "repo", nvfp4=True, with_fc=False, vocab=131072)
    server = HubServer(root)
    yield server
    server.close()


def _run(hub: HubServer, tmp_path: Path, target: str, *extra: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "HF_ENDPOINT": hub.url,
        "HF_TOKEN": TOKEN,
        "HF_HOME": str(tmp_path / "hf_home"),
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "NO_PROXY": "127.0.0.1",
        "no_proxy": "127.0.0.1",
    }
    env.pop("HF_HUB_OFFLINE", None)
    return subprocess.run(
        [sys.executable, "-m", "specscope", "audit", target, "--format", "json", *extra],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
    )


def test_hub_audit_reads_headers_only(hub: HubServer, tmp_path: Path) -> None:
    proc = _run(hub, tmp_path, f"{REPO}@{REV}")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert [(f["severity"], f["code"]) for f in report["findings"]] == [("error", "MTP_INCOMPLETE")]
    assert report["findings"][0]["details"]["missing"] == ["mtp.fc.weight"]
    assert report["target"] == f"{REPO}@{REV}"

    shard_sizes = {p.name: p.stat().st_size for p in hub.root.glob("*.safetensors")}
    served = sum(hub.served_bytes.get(n, 0) for n in shard_sizes)
    total = sum(shard_sizes.values())
    assert total > 32 * 1024 * 1024
    assert 0 < served < 0.001 * total, (served, total)
    from specscope.checkpoint import load_checkpoint

    local = load_checkpoint(hub.root)  # same files read locally: the remote census must match byte for byte
    assert report["census"]["total_bytes"] == sum(t.nbytes for t in local.tensors().values())
    assert all(h == f"Bearer {TOKEN}" for h in hub.auth_headers), set(hub.auth_headers)
    assert f"/api/models/{REPO}/tree/{REV}" in hub.paths


def test_hub_unknown_repo_exits_2(hub: HubServer, tmp_path: Path) -> None:
    proc = _run(hub, tmp_path, "acme/does-not-exist")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: hub request failed") and "Traceback" not in proc.stderr
