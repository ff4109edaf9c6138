"""Child-process entry point: run llama.cpp's HTTP server (``xllamacpp.Server``) until told to stop.

Run as ``python -m specscope.engine.serve LAUNCH.json`` by :class:`specscope.engine.server.EmbeddedServer`;
not meant to be started by hand. The launch file (written by the parent) holds::

    {"config": <EngineConfig as JSON>, "model_path": str, "draft_path": str | null,
     "alias": str, "host": str, "port": int (0 = any free port), "ready_path": str, "parent_pid": int}

The child builds ``xllamacpp.CommonParams`` (field names found by introspection of xllamacpp
2026.10: ``speculative.types``, ``speculative.draft.mparams.path``, ``speculative.draft.n_max``,
``speculative.synth_rates``, ``speculative.ngram_mod.*``, ``endpoint_metrics``, ``hostnames``), starts
the server (it serves from its own threads), writes ``{"address": "http://host:port", "pid": ...}`` to
``ready_path`` atomically, then waits for SIGTERM/SIGINT or the parent's death (its parent pid changes;
polled every second — not ``PR_SET_PDEATHSIG``, which fires when the spawning *thread* exits) and shuts the
server down.
Its stdout/stderr are the run's server log file (the parent redirects the file descriptors).

Exit codes: 0 stopped on request; 3 the server failed to start (llama.cpp's reason is in the log above).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from specscope import fsio
from specscope.engine.config import EngineConfig


def build_params(
    config: EngineConfig, *, model_path: str, draft_path: str | None, alias: str, host: str, port: int
) -> Any:
    """Translate an :class:`EngineConfig` into ``xllamacpp.CommonParams``.

    Returns:
        a ready ``xllamacpp.CommonParams``.
    """
    import xllamacpp

    T = xllamacpp.common_speculative_type
    p = xllamacpp.CommonParams()
    p.model.path = model_path
    p.model_alias = {alias}
    p.n_ctx = config.n_ctx_tokens
    p.n_parallel = config.n_parallel
    p.port = port
    p.hostnames = [host]
    p.endpoint_metrics = True
    p.cache_prompt = config.cache_prompt
    p.cpuparams.n_threads = config.threads
    p.cpuparams_batch.n_threads = config.threads
    if config.threads_http is not None:
        p.n_threads_http = config.threads_http

    spec = p.speculative
    spec.types = [getattr(T, "COMMON_SPECULATIVE_TYPE_" + t.upper().replace("-", "_")) for t in config.spec_types] or [
        T.COMMON_SPECULATIVE_TYPE_NONE
    ]
    if draft_path is not None:
        d = spec.draft
        d.mparams.path = draft_path
        d.n_max = config.draft_n_max_tokens
        d.n_min = config.draft_n_min_tokens
        d.cpuparams.n_threads = config.threads
        d.cpuparams_batch.n_threads = config.threads
    ngram_mod = spec.ngram_mod
    if config.ngram_mod_n_match_tokens is not None:
        ngram_mod.n_match = config.ngram_mod_n_match_tokens
    if config.ngram_mod_n_min_tokens is not None:
        ngram_mod.n_min = config.ngram_mod_n_min_tokens
    if config.ngram_mod_n_max_tokens is not None:
        ngram_mod.n_max = config.ngram_mod_n_max_tokens
    if config.synth_rates:
        spec.synth_rates = list(config.synth_rates)
    return p


def main(argv: list[str]) -> int:
    """Run the server described by the launch file ``argv[0]``; see the module docstring."""
    launch = json.loads(Path(argv[0]).read_text())
    stop = threading.Event()

    def _on_signal(signum: int, _frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    parent_pid = int(launch["parent_pid"])
    if os.getppid() != parent_pid:
        return 0  # parent already gone

    import xllamacpp

    config = EngineConfig.model_validate(launch["config"])
    params = build_params(
        config,
        model_path=launch["model_path"],
        draft_path=launch["draft_path"],
        alias=launch["alias"],
        host=launch["host"],
        port=int(launch["port"]),
    )
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as exc:
        print(f"specscope.engine.serve: server failed to start: {exc}", file=sys.stderr, flush=True)
        return 3

    ready = Path(launch["ready_path"])
    fsio.write_json_atomic(ready, {"address": server.listening_address, "pid": os.getpid()}, indent=None)
    print(f"specscope.engine.serve: ready at {server.listening_address}", file=sys.stderr, flush=True)

    while not stop.wait(1.0):
        if os.getppid() != parent_pid:
            break
    print("specscope.engine.serve: stopping", file=sys.stderr, flush=True)
    del server  # joins llama.cpp's loop and closes the listening socket
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
