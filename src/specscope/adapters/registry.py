"""The engines specscope knows, one line each: adding an engine is its folder plus one line here.

Each name is a subpackage of :mod:`specscope.adapters`. Its modules (``metrics``, ``logs``, ``endpoints``, ...) are
imported by the engine-neutral readers through this list, never by name elsewhere.
"""

from __future__ import annotations

from types import ModuleType

ENGINES: tuple[str, ...] = ("vllm", "sglang", "llamacpp", "trtllm", "openai")


def display(engine: str) -> str:
    """The engine's name as people write it (its adapter's ``DISPLAY``), the id itself without one."""
    import importlib

    return str(getattr(importlib.import_module(f"specscope.adapters.{engine}"), "DISPLAY", engine))


def engine_modules(kind: str) -> list[tuple[str, ModuleType]]:
    """``(engine, module)`` for every registered engine whose adapter has the module ``kind`` (``logs``,
    ``per_response``, ``log_summary`` ...), in registry order: the one lookup every engine-neutral reader uses."""
    import importlib
    import importlib.util

    out = []
    for engine in ENGINES:
        name = f"specscope.adapters.{engine}.{kind}"
        if importlib.util.find_spec(name) is not None:
            out.append((engine, importlib.import_module(name)))
    return out
