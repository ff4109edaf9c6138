"""`specscope gate --server` pointed at a plain static-file HTTP server (404 on /v1/models): exit 2 and exactly one
stderr line, even though httpx's status error text spans two lines."""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import threading

from hangguard import HANG_S


def test_static_file_server_is_one_error_line(tmp_path):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        env = {k: v for k, v in os.environ.items() if k != "SPECSCOPE_DEBUG"}
        res = subprocess.run(
            [
                sys.executable,
                "-m",
                "specscope",
                "gate",
                "--server",
                url,
                "--limit",
                "1",
                "--out",
                str(tmp_path / "runs"),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=HANG_S,
        )
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert res.stderr.count("\n") == 1, res.stderr
    assert res.stderr.startswith(
        f"error: no OpenAI-compatible server answered; found: GET {url}/v1/models: "
        "HTTPStatusError: Client error '404 File not found'"
    )
    assert not (tmp_path / "runs").exists()
