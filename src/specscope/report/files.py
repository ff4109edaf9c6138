"""Atomic text writes for report outputs: :func:`specscope.fsio.write_text_atomic`, creating parent folders, with
secrets masked (:func:`specscope.redact.redact_text`: the one redaction, applied to every file specscope writes;
a run stored before a form was known is masked here when its report is written)."""

from __future__ import annotations

from pathlib import Path

from specscope import fsio
from specscope.redact import redact_text

__all__ = ["write_text_atomic"]


def write_text_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8, secrets masked) atomically; missing parent folders are created."""
    fsio.write_text_atomic(path, redact_text(text), parents=True)
