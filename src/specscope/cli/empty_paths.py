"""An empty path on the command line (``report ""``, ``-o ""``, ``--out=``: an unset shell variable) is refused.

``Path("")`` is ``Path(".")``: without this check ``specscope report "$RUN"`` with ``RUN`` unset read the current
folder as the run, and ``-o ""`` named the current folder as the output. :class:`specscope.cli.vocab.VocabCommand`
calls :func:`refuse_empty_paths` on every command's arguments before click parses them.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from specscope.values import empty_path_error

__all__ = ["refuse_empty_paths"]


def _holds_path(annotation: Any) -> bool:
    """Whether a parameter's annotation is ``Path``, ``Path | None``, ``list[Path]`` or the like."""
    if annotation is Path:
        return True
    args = typing.get_args(annotation)
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) in (typing.Union, list, tuple):
        return any(_holds_path(a) for a in args)
    return False


def _is_path(param: Any) -> bool:
    return _holds_path(getattr(getattr(param, "type_descriptor", None), "annotation", None))


def refuse_empty_paths(params: Sequence[Any], args: Sequence[str]) -> None:
    """Raise ConfigError for an empty value of a path option (``-o ""``, ``--output=``) or an empty argument where
    the command takes a path argument; ``params``: the click command's parameters, ``args``: its command line.
    Nothing after ``--`` is looked at."""
    takes_value = {o for p in params if getattr(p, "opts", None) and not getattr(p, "is_flag", False) for o in p.opts}
    path_opts = {o: p for p in params if _is_path(p) for o in getattr(p, "opts", ()) if o.startswith("-")}
    path_args = [p for p in params if _is_path(p) and not any(o.startswith("-") for o in p.opts)]
    for i, arg in enumerate(args):
        if arg == "--":
            return
        name, eq, value = arg.partition("=")
        if eq and not value and name in path_opts:
            raise empty_path_error(name, f"{name}=report.txt")
        if arg:
            continue
        before = args[i - 1] if i else ""
        if before in path_opts:
            raise empty_path_error(before, f"{before} report.txt")
        if before not in takes_value and path_args:
            raise empty_path_error(path_args[0].name.upper())
