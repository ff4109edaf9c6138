"""Measure a GGUF model's decode cost per token on this machine with the embedded engine.

Method: start the model alone (no speculation, one slot, ``threads`` compute threads), send one short
warm-up request, then one greedy llama.cpp ``POST /completion`` with ``n_predict = n_tokens`` and
``ignore_eos`` so exactly ``n_tokens`` tokens are generated, and read llama.cpp's own
``timings.predicted_per_token_ms`` (decode time only, prompt excluded; field documented in llama.cpp's
``tools/server/README.md``). Used to record the draft's cost per token in a run.

It starts the server with :class:`specscope.engine.child.LlamaChild` (not ``EmbeddedServer``, which
derives drafts with :mod:`specscope.engine.draft`, which calls this module): no import circle.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import httpx

from specscope.engine.child import LlamaChild
from specscope.engine.config import EngineConfig
from specscope.errors import EngineError

__all__ = ["measure_token_cost_ns"]

_PROMPT = "Write a short paragraph about the sea, the wind and a small boat."


def measure_token_cost_ns(
    model_path: Path, *, threads: int = 1, n_tokens: int = 32, log_path: Path | None = None
) -> float:
    """Decode cost of ``model_path`` alone, in nanoseconds per generated token.

    Args:
        model_path: GGUF file to time.
        threads: compute threads (``-t``).
        n_tokens: tokens to generate in the timed request.
        log_path: server log file; ``None`` = a temporary file, deleted afterwards.

    Raises:
        ServerStartError: the server did not start.
        EngineError: the server answered without ``timings.predicted_per_token_ms``.
    """
    model = Path(model_path).resolve()
    config = EngineConfig(name="cost-probe", model_path=model, n_parallel=1, ctx_per_slot_tokens=512, threads=threads)
    with tempfile.TemporaryDirectory(prefix="specscope-cost-") as tmp:
        log = Path(log_path) if log_path is not None else Path(tmp) / "server.log"
        child = LlamaChild(config, model_path=model, draft_path=None, alias=model.stem, log_path=log)
        try:
            child.start(start_timeout_s=120.0)
            with httpx.Client(timeout=120.0, trust_env=False) as client:
                body = {"prompt": _PROMPT, "temperature": 0.0, "ignore_eos": True, "cache_prompt": False}
                client.post(f"{child.base_url}/completion", json={**body, "n_predict": 4}).raise_for_status()
                resp = client.post(f"{child.base_url}/completion", json={**body, "n_predict": n_tokens})
                resp.raise_for_status()
                timings = resp.json().get("timings", {})
        finally:
            child.stop()
    per_token_ms = timings.get("predicted_per_token_ms")
    if not isinstance(per_token_ms, (int, float)) or per_token_ms <= 0:
        raise EngineError(
            "the cost probe got no per-token timing from llama.cpp",
            found=timings,
            expected="timings.predicted_per_token_ms > 0",
        )
    return float(per_token_ms) * 1e6
