"""Reading files and JSON made by other tools without crashing, hanging or eating memory.

- JSON: at most :data:`MAX_JSON_DEPTH` levels of nesting (Python's ``json`` recurses and raises ``RecursionError``
  near 1,000; the checkpoint files specscope reads nest fewer than 10 levels), integers bounded by Python's own
  4,300-digit limit (``sys.set_int_max_str_digits``), and a byte cap the caller gives.
- Files: only regular files are opened (a FIFO named ``x.safetensors`` would block ``open`` forever; a device
  has no end); they are opened with ``O_NONBLOCK`` and checked with ``fstat`` before any read. Missing and
  unreadable files become :class:`CheckpointError` with found / expected / fix.
- A key an object gives twice (``"mtp_num_hidden_layers": 1, "mtp_num_hidden_layers": 3``): the value is the last,
  as ``json.loads`` keeps it and the engines' config loaders read it (transformers' ``PreTrainedConfig.
  _dict_from_json_file`` is ``json.loads``); :func:`decode_json` lists each such key (:class:`RepeatedKey`) for the
  caller to name (RFC 8259 section 4: names within an object SHOULD be unique).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specscope.errors import CheckpointError
from specscope.readfile import NotRegularFile, open_regular_fd

__all__ = [
    "MAX_JSON_DEPTH",
    "JsonShapeError",
    "json_depth",
    "loads_bounded",
    "open_regular",
    "read_regular",
    "sha256_file",
    "decode_json",
    "RepeatedKey",
    "check_json_size",
    "read_json_file",
]

#: deepest nesting of arrays / objects accepted in any JSON file or header.
MAX_JSON_DEPTH = 64


class JsonShapeError(ValueError):
    """JSON that parses but nests deeper than :data:`MAX_JSON_DEPTH` (or would blow Python's recursion limit)."""


def json_depth(obj: object) -> int:
    """Nesting depth of a parsed JSON value (a scalar is 0, ``[]`` is 1), computed without recursion."""
    deepest = 0
    stack: list[tuple[object, int]] = [(obj, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, depth + 1)
        if deepest > MAX_JSON_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def loads_bounded(text: str | bytes, *, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """``json.loads`` that raises ``ValueError`` (never ``RecursionError``) for JSON nested too deep.

    Raises:
        JsonShapeError: nesting deeper than :data:`MAX_JSON_DEPTH`.
        ValueError: not JSON, not UTF-8 (``UnicodeDecodeError``), or an integer past the digit limit.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    try:
        obj = json.loads(text, object_pairs_hook=object_pairs_hook)
    except RecursionError:
        raise JsonShapeError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    depth = json_depth(obj)
    if depth > MAX_JSON_DEPTH:
        raise JsonShapeError(f"JSON nested {depth}+ levels deep, more than {MAX_JSON_DEPTH}")
    return obj


def _refuse(path: Path, found: str, fix: str) -> CheckpointError:
    return CheckpointError("cannot read file", found=f"{path}: {found}", expected="a readable regular file", fix=fix)


def open_regular(path: str | os.PathLike[str]) -> int:
    """An ``O_RDONLY`` descriptor of ``path`` after checking it is a regular file (never blocks on a FIFO).

    Raises:
        CheckpointError: missing, unreadable (permissions), or not a regular file (FIFO, device, folder).
    """
    p = Path(path)
    try:
        return open_regular_fd(p)
    except FileNotFoundError:
        raise _refuse(p, "no such file", "check the path; re-download a missing shard") from None
    except NotRegularFile as exc:
        if exc.kind == "a folder":
            raise _refuse(p, "a folder", "remove or rename the folder") from None
        raise _refuse(p, f"{exc.kind}, not a regular file", "replace it with the real file") from None
    except IsADirectoryError:
        raise _refuse(p, "a folder", "remove or rename the folder") from None
    except OSError as exc:
        raise _refuse(p, f"{type(exc).__name__}: {exc.strerror}", "fix the file's permissions (chmod +r)") from None


def read_regular(path: str | os.PathLike[str], start_bytes: int = 0, length_bytes: int | None = None) -> bytes:
    """Up to ``length_bytes`` bytes from ``start_bytes`` of a regular file (the whole rest when None).

    Raises:
        CheckpointError: see :func:`open_regular`; also a read error (``EIO``) on the way.
    """
    fd = open_regular(path)
    try:
        if length_bytes is None:
            length_bytes = max(0, os.fstat(fd).st_size - start_bytes)
        return os.pread(fd, length_bytes, start_bytes)
    except OSError as exc:
        raise _refuse(Path(path), f"{type(exc).__name__}: {exc.strerror}", "check the disk and the file") from None
    finally:
        os.close(fd)


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a whole regular file, read in chunks (``hashlib.file_digest``).

    Raises:
        CheckpointError: see :func:`open_regular`; also a read error (``EIO``) on the way.
    """
    fh = os.fdopen(open_regular(path), "rb")
    try:
        return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError as exc:
        raise _refuse(Path(path), f"{type(exc).__name__}: {exc.strerror}", "check the disk and the file") from None
    finally:
        fh.close()


@dataclass(frozen=True)
class RepeatedKey:
    """A key one object of a JSON file gives more than once.

    Attributes:
        path: the object's place, dotted keys and ``[i]`` indexes (``""``: the top-level object).
        key: the key.
        values: each value in file order; the last is the one read (``json.loads``, the engines' loaders).
    """

    path: str
    key: str
    values: tuple[Any, ...]


def _keeping_repeats(seen: list[tuple[dict[str, Any], str, list[Any]]]) -> Callable[[list[tuple[str, Any]]], Any]:
    """An ``object_pairs_hook`` that builds the object as ``json.loads`` does (the last value of a key, at the place
    of its first) and appends ``(object, key, values)`` to ``seen`` for each key given more than once."""

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        repeats: dict[str, list[Any]] = {}
        for key, value in pairs:
            if key in out:
                repeats.setdefault(key, [out[key]]).append(value)
            out[key] = value
        seen.extend((out, key, values) for key, values in repeats.items())
        return out

    return hook


def _object_paths(value: Any) -> dict[int, str]:
    """``id(object) -> path`` for every object in the parsed JSON ``value`` (iterative: no recursion limit)."""
    paths: dict[int, str] = {}
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            paths[id(node)] = path
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(node))
    return paths


def decode_json(
    raw: bytes, label: str, name: str, *, fix: str | None = None, repeated: list[RepeatedKey] | None = None
) -> object:
    """Parse a whole JSON file read from ``label``/``name`` with :func:`loads_bounded`; each key an object gives
    more than once is appended to ``repeated`` when it is given, by place then key (the value kept is the last, as
    ``json.loads``).

    Raises:
        CheckpointError: not UTF-8, not JSON, nested too deep, or an integer past the digit limit.
    """
    seen: list[tuple[dict[str, Any], str, list[Any]]] = []
    try:
        obj = loads_bounded(raw, object_pairs_hook=_keeping_repeats(seen) if repeated is not None else None)
        if repeated is not None and seen:
            paths = _object_paths(obj)
            found = [RepeatedKey(paths.get(id(o), "?"), key, tuple(values)) for o, key, values in seen]
            repeated += sorted(found, key=lambda r: (r.path, r.key))  # the hook meets inner objects first
        return obj
    except (UnicodeDecodeError, ValueError) as exc:
        raise CheckpointError(
            f"{name} is not valid JSON",
            found=f"{label}/{name}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
            expected=f"a UTF-8 JSON document nested at most {MAX_JSON_DEPTH} levels",
            fix=fix or f"repair or re-download {name}",
        ) from None


def check_json_size(size_bytes: int, max_bytes: int, where: str, name: str) -> None:
    """Refuse a JSON file of ``size_bytes`` above ``max_bytes`` before it is read (CheckpointError)."""
    if size_bytes > max_bytes:
        raise CheckpointError(
            f"{name} is too large for a JSON file",
            found=f"{where}: {size_bytes} bytes",
            expected=f"<= {max_bytes} bytes",
            fix=f"check {name}",
        )


def read_json_file(path: str | os.PathLike[str], *, max_bytes: int, fix: str | None = None) -> object | None:
    """The parsed JSON file at ``path``, or None when no file is there (a broken one raises CheckpointError)."""
    p = Path(path)
    if not os.path.lexists(p):
        return None
    fd = open_regular(p)
    try:
        size = os.fstat(fd).st_size
        check_json_size(size, max_bytes, str(p), p.name)
        raw = os.pread(fd, size, 0)
    finally:
        os.close(fd)
    return decode_json(raw, str(p.parent), p.name, fix=fix)
