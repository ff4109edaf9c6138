"""What a folder that is not a checkpoint holds instead, for the refusals that name the command that reads it.

``checkpoint_marks`` names the files that make a folder a model checkpoint (``config.json``, safetensors shards and
their index, ``.gguf`` files: what :func:`specscope.checkpoint.load_checkpoint` and the GGUF reader open), so a
command that wants another kind of folder (a run) can say it was given a checkpoint. ``checkpoint_elsewhere`` looks
in a folder that holds no checkpoint for one it leads to: ``.gguf`` files (audited as files, not as a folder) or a
sub-folder with ``config.json`` (huggingface_hub's cache keeps a repository as ``models--ORG--NAME/snapshots/REV``,
the files of each revision in its ``snapshots`` folder: ``huggingface_hub/file_download.py``, cache layout).
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from specscope.textsafe import shell_word

__all__ = ["checkpoint_marks", "checkpoint_elsewhere"]

_SHOWN = 3  # names shown in a message before "and N more"


def _listed(names: list[str]) -> str:
    more = f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else ""
    return ", ".join(names[:_SHOWN]) + more


def _is_mark(name: str) -> bool:
    return name == "config.json" or name.endswith((".safetensors", ".safetensors.index.json", ".gguf"))


def checkpoint_marks(path: Path) -> str | None:
    """The checkpoint files directly in folder ``path`` (``config.json, model.safetensors``; at most three named,
    then a count), or None when it holds none or cannot be listed."""
    try:
        names = sorted(p.name for p in path.iterdir() if _is_mark(p.name) and p.is_file())
    except OSError:
        return None
    return _listed(names) if names else None


def checkpoint_elsewhere(files: dict[str, int], root: str) -> tuple[str, str] | None:
    """``(found, fix)`` for a folder with no checkpoint of its own (``files``: its recursive listing, relative
    POSIX names, as ``LocalSource.files``; ``root``: the folder as the user named it) that holds ``.gguf`` files
    at its top or sub-folders with a ``config.json``; None when it holds neither."""
    gguf = sorted(n for n in files if "/" not in n and n.endswith(".gguf"))
    if gguf:
        fix = " or ".join(f"`specscope audit {shell_word(posixpath.join(root, n))}`" for n in gguf[:2])
        return f"GGUF file(s) {_listed(gguf)} (a GGUF model is audited as its file)", fix
    subs = sorted(posixpath.dirname(n) for n in files if posixpath.basename(n) == "config.json" and "/" in n)
    if subs:
        fix = " or ".join(f"`specscope audit {shell_word(posixpath.join(root, s))}`" for s in subs[:2])
        return f"the checkpoint's files are in a sub-folder: {_listed(subs)}", fix
    return None
