"""The engines specscope knows, one line each: adding an engine is its folder plus one line here.

Each name is a subpackage of :mod:`specscope.adapters`. Its modules (``metrics``, ``logs``, ``endpoints``, ...) are
imported by the engine-neutral readers through this list, never by name elsewhere.
"""

from __future__ import annotations

ENGINES: tuple[str, ...] = ("vllm", "sglang", "llamacpp", "trtllm", "openai")


def display(engine: str) -> str:
    """The engine's name as people write it (its adapter's ``DISPLAY``), the id itself without one."""
    import importlib

    return str(getattr(importlib.import_module(f"specscope.adapters.{engine}"), "DISPLAY", engine))
