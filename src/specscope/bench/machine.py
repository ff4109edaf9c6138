"""What a run records about the machine and the installed software (the manifest's ``machine`` and ``versions``)."""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path
from typing import Any

__all__ = ["machine_facts", "versions"]


def machine_facts() -> dict[str, Any]:
    """Platform, CPU model (``/proc/cpuinfo``), CPU count, physical memory (bytes), Python version, hostname."""
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_bytes = None
    try:
        mem_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        pass
    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "memory_bytes": mem_bytes,
        "python": sys.version.split()[0],
        "hostname": platform.node(),
    }


def versions() -> dict[str, str]:
    """Installed versions of specscope and the distributions its measurements depend on."""
    from importlib import metadata

    out = {}
    for dist in ("specscope", "httpx", "aiohttp", "xllamacpp", "gguf", "prometheus-client", "numpy", "scipy"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return out
