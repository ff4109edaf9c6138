"""Bytes per step of a run's own GGUF model files, from the byte census that ``specscope audit`` prints.

The embedded engine records the GGUF it served (``facts["model"]``: ``path``, ``size_bytes``, ``sha256``) and its
llama.cpp draft (``facts["draft"]``: ``path``, ``size_bytes``). When the file at that path is still the one the run
served (the same size, and the same SHA-256 where one was recorded), its bytes per decode step are
:func:`specscope.audit.gguf_audit.gguf_census` of the file: the target's ``target_bytes_per_token`` (``token_embd``
is one row lookup, a tied output matrix is read whole, MoE experts at their used share) and the draft's
``draft_bytes_per_step``. These are the figures ``specscope audit MODEL.gguf [--draft DRAFT.gguf]`` prints as "per
decode step", so ``predict`` and ``audit`` give one figure for one file. The file's size is not that figure: it holds
the header and the tokenizer too, and counts the embedding whole (98,362,432 bytes on disk against 96,576,768 read
per step for the embedded SmolLM2-135M Q4_1).

A file that is gone or changed gives None here, and ``predict`` falls back to what the run recorded
(:func:`specscope.stats.predict_run.predict_run`), naming that source.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specscope.audit.gguf_audit import gguf_census, is_gguf_target
from specscope.checkpoint.gguf_file import read_gguf
from specscope.engine.model import file_sha256
from specscope.textsafe import shell_word

__all__ = ["CensusBytes", "served_file", "census_bytes", "census_source"]


@dataclass(frozen=True)
class CensusBytes:
    """Bytes one step reads (bytes) of a served GGUF file, and where the figure comes from (a phrase for the output).

    Attributes:
        bytes_per_step: the target's bytes per decode step, or the draft's per draft step.
        source: ``"the byte census of FILE, as `specscope audit FILE` prints it"``.
    """

    bytes_per_step: int
    source: str


def served_file(entry: Any) -> Path | None:
    """The GGUF file a server-facts entry (``{"path", "size_bytes", "sha256"?}``) names, when the file there is still
    the one served: a GGUF of the recorded size and, where recorded, SHA-256. None otherwise (no path, a file gone,
    changed or not GGUF)."""
    if not isinstance(entry, Mapping) or not isinstance(entry.get("path"), str):
        return None
    path = Path(entry["path"])
    try:
        if not path.is_file() or path.stat().st_size != entry.get("size_bytes") or not is_gguf_target(str(path)):
            return None
    except OSError:
        return None
    sha = entry.get("sha256")
    if isinstance(sha, str) and sha and file_sha256(path) != sha:
        return None
    return path


def census_bytes(entry: Any, *, as_draft: bool = False) -> CensusBytes | None:
    """The byte census of the served GGUF file ``entry`` names (see :func:`served_file`): the target's bytes per
    decode step, or with ``as_draft`` a llama.cpp draft's bytes per draft step (its whole model, once per step).
    None when the file is not there as served."""
    path = served_file(entry)
    if path is None:
        return None
    census = gguf_census(read_gguf(path), as_draft=as_draft)
    per = census.draft_bytes_per_step if as_draft else census.target_bytes_per_token
    if not per:
        return None
    return CensusBytes(int(per), census_source(path.name, str(path)))


def census_source(name: str, target: str) -> str:
    """Where a byte-census figure comes from, as ``predict`` prints it beside the figure: the file's ``name`` and the
    audit command that prints the same figure, with ``target`` (the path or hub repo id it was read from) quoted for
    a shell, so that the command runs as written from any folder (a bare file name would be read as a hub repo id)."""
    return f"the byte census of {name}, as `specscope audit {shell_word(target)}` prints it"
