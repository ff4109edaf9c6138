"""specscope.seam: the one seam between specscope and the servers it measures.

- :mod:`specscope.seam.target` — the :class:`ServerTarget` protocol every server kind satisfies (embedded
  llama.cpp engine, vLLM launched from a recipe, a server the user started, the ground-truth server).
- :mod:`specscope.seam.process` — :class:`ManagedProcess`, the one child-process lifecycle: spawn to a log
  file, wait healthy by a deadline that really fires, stop with SIGTERM then SIGKILL, log tail.

A low layer (it imports only :mod:`specscope.errors`), so engine, launch and truth can all use it.
"""

from __future__ import annotations

from specscope.seam.process import ManagedProcess, free_port, http_probe, log_tail, start_announced, stop_and_clean
from specscope.seam.target import ServerTarget

__all__ = ["ManagedProcess", "ServerTarget", "free_port", "http_probe", "log_tail", "start_announced", "stop_and_clean"]
