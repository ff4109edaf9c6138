"""The shape every server target has, whoever serves it.

Kinds: ``embedded`` (llama.cpp via xllamacpp, :mod:`specscope.engine`), ``vllm`` / ``vllm-docker``
(launched from a recipe, :mod:`specscope.launch`), ``external`` (a server the user started, reached by URL),
``truth`` (the ground-truth server, :mod:`specscope.truth`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable

__all__ = ["ServerTarget", "GAUGE_USER_AGENT"]

# The User-Agent of the gauge sampler's reads of /metrics (specscope.client.gauge_child), several a second while a
# cell's streams run: names them in a server's access log, and the truth server leaves them out of its scripted
# bad answers so those name the cells' own scrapes whatever the timing.
GAUGE_USER_AGENT = "specscope-gauges"


@runtime_checkable
class ServerTarget(Protocol):
    """A server under measurement.

    Attributes:
        name: the config name it serves (a bench/gate column).
        base_url: ``http://HOST:PORT``, no trailing slash, no ``/v1`` (OpenAI routes are under ``/v1``).
        kind: ``embedded``, ``vllm``, ``vllm-docker``, ``external`` or ``truth``.
        model_name: the value to send as ``"model"``.
        metrics_url: the Prometheus text endpoint (``base_url + "/metrics"``).
        log_path: the server's log file, ``None`` when specscope does not see its output.
    """

    name: str
    base_url: str
    kind: str
    model_name: str
    metrics_url: str
    log_path: Path | None

    def alive(self) -> bool:
        """True while the server answers (and, when specscope started it, its process runs)."""
        ...

    def facts(self) -> dict[str, Any]:
        """JSON-ready facts for the run manifest (kind, URL, model, command line, versions...)."""
        ...
