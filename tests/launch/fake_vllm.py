"""A stand-in for vLLM's CLI used by the lifecycle tests: a real HTTP server on 127.0.0.1.

``python fake_vllm.py serve MODEL --host H --port P [--served-model-name N] [other flags ignored]``.
It prints a few lines in vLLM 0.32's wording, then serves ``/health``, ``/v1/models`` and a non-streaming
``/v1/chat/completions``. Behaviour from the environment:
  FAKE_VLLM_MODE=ok | crash (log seed 003's memory-profiling error, exit 1) | hang (never listen)
  FAKE_VLLM_IGNORE_TERM=1  ignore SIGTERM (so the launcher must SIGKILL)
  FAKE_VLLM_CHILD_PID_FILE=PATH  start a grandchild (sleep) in the same process group and write its pid there
  FAKE_VLLM_MODELS_BODY=TEXT  answer GET /v1/models with these bytes (HTTP 200) instead of the models list;
    ``DEEP`` stands for 100,000 ``[`` (JSON nested past any parser's depth)
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("cmd")
    p.add_argument("model")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--served-model-name", default=None)
    args, _ = p.parse_known_args()
    name = args.served_model_name or args.model
    mode = os.environ.get("FAKE_VLLM_MODE", "ok")
    if os.environ.get("FAKE_VLLM_IGNORE_TERM"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if pid_file := os.environ.get("FAKE_VLLM_CHILD_PID_FILE"):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        with open(pid_file, "w") as f:
            f.write(str(child.pid))
    print("INFO [model.py:733] Resolved architecture: LlamaForCausalLM", flush=True)
    if mode == "crash":
        print(
            "ERROR AssertionError: Error in memory profiling. Initial free memory 89.17 GiB, "
            "current free memory 91.27 GiB",
            flush=True,
        )
        sys.exit(1)
    if mode == "hang":
        while True:
            time.sleep(1)
    print(
        "INFO [kv_cache_utils.py:2330] CPU KV cache size: 46,592 tokens, "
        "Maximum concurrency for 4,096 tokens per request: 11.38x",
        flush=True,
    )

    class Handler(BaseHTTPRequestHandler):
        def _send(self, code: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            if self.path == "/health":
                self._send(200, {})
            elif self.path == "/v1/models" and (raw := os.environ.get("FAKE_VLLM_MODELS_BODY")) is not None:
                data = ("[" * 100_000 if raw == "DEEP" else raw).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            elif self.path == "/v1/models":
                self._send(200, {"data": [{"id": name}]})
            else:
                self._send(404, {})

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length", "0"))
            self.rfile.read(length)
            print("INFO request served", flush=True)
            self._send(200, {"choices": [{"message": {"content": "hi"}}], "usage": {"completion_tokens": 1}})

        def log_message(self, *a) -> None:
            pass

    ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
