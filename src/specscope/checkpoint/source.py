"""Byte sources for a checkpoint: a local folder or a hub repository. They fetch bytes; they parse nothing.

Both implement the same small surface (:class:`ByteSource`): the file list with sizes, whole small files (JSON
configs), and byte ranges (safetensors headers, scalar scale tensors). Parsing lives in
:mod:`specscope.checkpoint.header` and :mod:`specscope.checkpoint.index`.

The hub source goes through huggingface_hub: ``HfApi.list_repo_tree`` (``GET {endpoint}/api/models/{repo}/tree/
{revision}?recursive=True``) for the file list, and ``GET {endpoint}/{repo}/resolve/{revision}/{file}`` with an HTTP
``Range`` header (the same request ``HfApi.parse_safetensors_file_metadata`` makes) for bytes. It honours
``HF_ENDPOINT`` (read by huggingface_hub at import), ``HF_TOKEN`` (via ``build_hf_headers``) and offline mode
(``HF_HUB_OFFLINE=1``: the repository is resolved from the local cache with ``snapshot_download(local_files_only=True)``
and read as a local folder).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from specscope.checkpoint.safefiles import check_json_size, decode_json, read_regular
from specscope.checkpoint.schema import MAX_CONFIG_BYTES
from specscope.errors import CheckpointError

__all__ = ["ByteSource", "LocalSource", "HubSource", "open_source", "parse_target"]

#: JSON files above this size are refused (configs are kilobytes; an index of 100k tensors is a few MB).
MAX_JSON_BYTES = MAX_CONFIG_BYTES


class ByteSource(Protocol):
    """What the checkpoint reader needs from a place that holds files."""

    label: str

    def files(self) -> dict[str, int]:
        """Relative file name (``/``-separated) -> size in bytes."""

    def read_range(self, name: str, start_bytes: int, length_bytes: int) -> bytes:
        """Up to ``length_bytes`` bytes from ``start_bytes`` of file ``name`` (fewer at end of file)."""

    def read_json(self, name: str) -> object | None:
        """The parsed JSON file ``name``, or None when the file does not exist. Raises CheckpointError if not JSON."""


def _read_json(source, name: str, fetch) -> object | None:
    """A JSON file of ``source`` (None when absent), refusing one larger than MAX_JSON_BYTES before reading it."""
    size = source.files().get(name)
    if size is None:
        return None
    check_json_size(size, MAX_JSON_BYTES, f"{source.label}/{name}", name)
    return decode_json(fetch(), source.label, name)


@dataclass
class LocalSource:
    """A checkpoint folder on disk. Files are opened read-only and never written."""

    root: Path
    label: str = ""
    only: str | None = None
    _files: dict[str, int] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.root = Path(self.root)
        if not self.label:
            self.label = str(self.root)
        if not self.root.is_dir():
            raise CheckpointError(
                "checkpoint folder not found",
                found=str(self.root),
                expected="a folder with config.json and *.safetensors",
                fix="check the path, or give a hub repo id such as org/name[@revision]",
            )

    def files(self) -> dict[str, int]:
        if self._files is None:
            out: dict[str, int] = {}
            if self.only is not None:
                self._files = {self.only: (self.root / self.only).stat().st_size}
                return self._files
            for dirpath, _dirs, names in os.walk(self.root):
                for n in names:
                    p = Path(dirpath) / n
                    try:
                        out[p.relative_to(self.root).as_posix()] = p.stat().st_size
                    except OSError:
                        continue
            self._files = out
        return self._files

    def read_range(self, name: str, start_bytes: int, length_bytes: int) -> bytes:
        return read_regular(self.root / name, start_bytes, length_bytes)

    def read_json(self, name: str) -> object | None:
        return _read_json(self, name, lambda: read_regular(self.root / name))


class HubSource:
    """A hub repository read through huggingface_hub with range requests; nothing is downloaded to disk.

    Args:
        repo_id: ``org/name``.
        revision: branch, tag or commit; None for the default branch.
        token: a token, or None to let huggingface_hub use ``HF_TOKEN`` / the saved login.
    """

    def __init__(self, repo_id: str, revision: str | None = None, *, token: str | None = None):
        from huggingface_hub import HfApi, constants

        self.repo_id = repo_id
        self.revision = revision
        self.label = f"{repo_id}@{revision}" if revision else repo_id
        self._api = HfApi(endpoint=constants.ENDPOINT, token=token)
        self._token = token
        self._files: dict[str, int] | None = None
        #: bytes received in range / file bodies (for the "headers only" claim).
        self.bytes_received = 0

    def _hub_error(self, what: str, exc: Exception) -> CheckpointError:
        return CheckpointError(
            f"hub request failed: {what}",
            found=f"{self.label}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
            expected="a readable model repository",
            fix="check the repo id and revision, set HF_TOKEN for gated/private repos, "
            "or HF_HUB_OFFLINE=1 with a cached copy",
        )

    def files(self) -> dict[str, int]:
        if self._files is None:
            from huggingface_hub.hf_api import RepoFile

            try:
                tree = self._api.list_repo_tree(self.repo_id, recursive=True, revision=self.revision)
                self._files = {f.path: int(f.size) for f in tree if isinstance(f, RepoFile)}
            except Exception as exc:  # huggingface_hub raises many kinds (HTTP, repo/revision not found)
                raise self._hub_error("file list", exc) from None
        return self._files

    def _get(self, name: str, headers: dict[str, str]) -> bytes:
        from huggingface_hub import get_session, hf_hub_url
        from huggingface_hub.utils import build_hf_headers, hf_raise_for_status

        url = hf_hub_url(self.repo_id, name, revision=self.revision, endpoint=self._api.endpoint)
        try:
            resp = get_session().get(url, headers={**build_hf_headers(token=self._token), **headers}, timeout=30.0)
            hf_raise_for_status(resp)
        except Exception as exc:
            raise self._hub_error(name, exc) from None
        self.bytes_received += len(resp.content)
        return resp.content

    def read_range(self, name: str, start_bytes: int, length_bytes: int) -> bytes:
        if length_bytes <= 0:
            return b""
        data = self._get(name, {"range": f"bytes={start_bytes}-{start_bytes + length_bytes - 1}"})
        return data[:length_bytes]

    def read_json(self, name: str) -> object | None:
        return _read_json(self, name, lambda: self._get(name, {}))


def parse_target(target: str) -> tuple[str, str | None]:
    """Split ``org/name@revision`` into ``(org/name, revision)``; revision is None when absent."""
    if "@" in target:
        repo, rev = target.rsplit("@", 1)
        return repo, rev or None
    return target, None


def open_source(target: str | os.PathLike[str], *, token: str | None = None) -> LocalSource | HubSource:
    """A byte source for ``target``: a local folder, a single ``.safetensors`` file, else a hub repo ``org/name[@rev]``.

    Raises:
        CheckpointError: neither a folder nor a repo id, or (offline) the repo is not in the local cache.
    """
    path = Path(target)
    if path.is_dir():
        return LocalSource(path)
    if path.is_file() and path.suffix == ".safetensors":
        return LocalSource(path.parent, label=str(path), only=path.name)
    text = str(target)
    repo, rev = parse_target(text)
    parts = repo.split("/")
    if len(parts) != 2 or not all(parts) or text.startswith((".", "/")) or path.suffix == ".safetensors":
        raise CheckpointError(
            "target is neither a folder nor a hub repo id",
            found=text,
            expected="an existing folder, or org/name[@revision]",
            fix="check the path or the repo id",
        )
    from huggingface_hub import constants

    if constants.is_offline_mode() if hasattr(constants, "is_offline_mode") else constants.HF_HUB_OFFLINE:
        from huggingface_hub import snapshot_download

        try:
            folder = snapshot_download(repo, revision=rev, local_files_only=True, token=token)
        except Exception as exc:
            raise CheckpointError(
                "offline mode and the repository is not in the local cache",
                found=f"{text}: {type(exc).__name__}",
                expected="a cached snapshot (HF_HUB_OFFLINE=1)",
                fix="unset HF_HUB_OFFLINE, or download the repo first",
            ) from None
        return LocalSource(Path(folder), label=text)
    return HubSource(repo, rev, token=token)
