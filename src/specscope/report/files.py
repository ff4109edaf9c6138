"""Atomic text writes for report outputs: :func:`specscope.fsio.write_text_atomic`, creating parent folders."""

from __future__ import annotations

from pathlib import Path

from specscope import fsio

__all__ = ["write_text_atomic"]


def write_text_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically; missing parent folders are created."""
    fsio.write_text_atomic(path, text, parents=True)
