"""Byte sources for a checkpoint: a local folder or a hub repository. They fetch bytes; they parse nothing.

Both implement the same small surface (:class:`ByteSource`): the file list with sizes, whole small files (JSON
configs), and byte ranges (safetensors headers, scalar scale tensors). Parsing lives in
:mod:`specscope.checkpoint.header` and :mod:`specscope.checkpoint.index`.

The hub source goes through huggingface_hub's HTTP helpers: ``GET {endpoint}/api/models/{repo}/tree/{revision}
?recursive=True`` and its ``Link: next`` pages (the requests ``HfApi.list_repo_tree`` makes) for the file list, and
``GET {endpoint}/{repo}/resolve/{revision}/{file}`` with an HTTP ``Range`` header (the same request
``HfApi.parse_safetensors_file_metadata`` makes) for bytes. A hub that cannot be reached fails after one attempt
(``http_backoff`` with no exception retried; it still retries 429 / 5xx answers), not after huggingface_hub's ~24 s
of connection retries. It honours ``HF_ENDPOINT`` (read when the source is made), ``HF_TOKEN`` (via
``build_hf_headers``) and offline mode (``HF_HUB_OFFLINE=1``: the repository is resolved from the local cache with
``snapshot_download(local_files_only=True)`` and read as a local folder).

A target that looks like a local path (starts with ``.``, ``/`` or ``~``, names a ``.safetensors`` file, has more
than two ``/``-separated parts, or its first part exists on disk) and is missing is a local error at once: no hub
lookup.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from specscope.checkpoint.safefiles import RepeatedKey, check_json_size, decode_json, read_regular
from specscope.checkpoint.schema import MAX_CONFIG_BYTES
from specscope.errors import CheckpointError
from specscope.readfile import special_kind

__all__ = ["ByteSource", "LocalSource", "HubSource", "open_source", "parse_target"]

#: JSON files above this size are refused (configs are kilobytes; an index of 100k tensors is a few MB).
MAX_JSON_BYTES = MAX_CONFIG_BYTES
#: Per-request timeout for hub requests, seconds (one attempt to connect; huggingface_hub's default retries are off).
HUB_TIMEOUT_S = 30.0


class ByteSource(Protocol):
    """What the checkpoint reader needs from a place that holds files."""

    label: str

    def files(self) -> dict[str, int]:
        """Relative file name (``/``-separated) -> size in bytes."""

    def read_range(self, name: str, start_bytes: int, length_bytes: int) -> bytes:
        """Up to ``length_bytes`` bytes from ``start_bytes`` of file ``name`` (fewer at end of file)."""

    def read_json(self, name: str) -> object | None:
        """The parsed JSON file ``name``, or None when the file does not exist. Raises CheckpointError if not JSON."""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""


def hub_endpoint() -> str:
    """``HF_ENDPOINT`` as set now, else huggingface_hub's endpoint (which reads ``HF_ENDPOINT`` once, at import)."""
    from huggingface_hub import constants

    return (os.environ.get("HF_ENDPOINT") or constants.ENDPOINT).rstrip("/")


def hub_offline() -> bool:
    """Offline mode: ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) as set now, with huggingface_hub's truthy
    values (1, ON, YES, TRUE); huggingface_hub itself reads them once, at import."""
    value = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return value.strip().upper() in {"1", "ON", "YES", "TRUE"}


def _read_json(
    source: ByteSource, name: str, fetch: Callable[[], bytes], repeated: dict[str, list[RepeatedKey]]
) -> object | None:
    """A JSON file of ``source`` (None when absent), refusing one larger than MAX_JSON_BYTES before reading it; the
    keys it gives twice are kept in ``repeated[name]`` (the source's ``repeated_keys``, read by the audit)."""
    size = source.files().get(name)
    if size is None:
        return None
    check_json_size(size, MAX_JSON_BYTES, f"{source.label}/{name}", name)
    found: list[RepeatedKey] = []
    obj = decode_json(fetch(), source.label, name, repeated=found)
    if found:
        repeated[name] = found
    else:
        repeated.pop(name, None)
    return obj


def _why_unreachable(p: Path, exc: OSError) -> str:
    """Why a listed entry cannot be opened: a dangling symlink (naming where it points), a symlink loop, or the
    operating system's reason."""
    if p.is_symlink():
        try:
            dest = os.readlink(p)
        except OSError:
            dest = "?"
        if exc.errno == errno.ELOOP:
            return f"a symlink loop ({p.name} -> {dest})"
        return f"a dangling symlink: {p.name} -> {dest}, which does not exist"
    return f"cannot be opened: {exc.strerror or type(exc).__name__}"


def _link_problem(p: Path) -> str:
    """:func:`_why_unreachable` for a path that does not resolve."""
    try:
        p.stat()
    except OSError as exc:
        return _why_unreachable(p, exc)
    return "resolves now"


@dataclass
class LocalSource:
    """A checkpoint folder on disk. Files are opened read-only and never written.

    A file that is a symlink resolving outside the checkpoint (issue 29: a shard linked to ``/etc/passwd`` was read
    as a header length) is refused unless ``follow_symlinks``; links inside the folder, and a hub cache snapshot's
    links into its repository's ``blobs/`` folder (``.../snapshots/REV/x -> ../../blobs/HASH``), are followed.
    """

    root: Path
    label: str = ""
    only: str | None = None
    follow_symlinks: bool = False
    _files: dict[str, int] | None = field(default=None, repr=False)
    _broken: dict[str, str] = field(default_factory=dict, repr=False)
    #: JSON file name -> the keys one of its objects gives twice (read last-wins), for each file read_json read
    repeated_keys: dict[str, list[RepeatedKey]] = field(default_factory=dict, repr=False)

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
        """Every readable file (symlinks followed); a link that leads nowhere is in :meth:`broken_files` instead."""
        if self._files is None:
            out: dict[str, int] = {}
            if self.only is not None:
                self._files = {self.only: (self.root / self.only).stat().st_size}
                return self._files
            for dirpath, _dirs, names in os.walk(self.root):
                for n in names:
                    p = Path(dirpath) / n
                    rel = p.relative_to(self.root).as_posix()
                    try:
                        out[rel] = p.stat().st_size
                    except OSError as exc:
                        self._broken[rel] = _why_unreachable(p, exc)
            self._files = out
        return self._files

    def _inside(self, name: str) -> Path:
        """``root / name`` when it resolves inside the checkpoint (or symlinks are followed).

        Raises:
            CheckpointError: a symlink that leaves the checkpoint.
        """
        path = self.root / name
        if self.follow_symlinks:
            return path
        target = path.resolve()
        root = self.root.resolve()
        allowed = [root] + ([root.parent.parent / "blobs"] if root.parent.name == "snapshots" else [])
        if not any(target == a or target.is_relative_to(a) for a in allowed):
            raise CheckpointError(
                "a checkpoint file is a symlink that leaves the checkpoint",
                found=f"{self.label}/{name} -> {target}",
                expected=f"files inside {root}",
                fix="copy the file into the checkpoint, or pass --follow-symlinks if you trust the link",
            )
        return path

    def broken_files(self) -> dict[str, str]:
        """Relative name -> why it cannot be opened, for entries that are listed but lead nowhere (a dangling symlink,
        e.g. a hub-cache snapshot whose blob was never downloaded; a symlink loop)."""
        self.files()
        return dict(self._broken)

    def read_range(self, name: str, start_bytes: int, length_bytes: int) -> bytes:
        return read_regular(self._inside(name), start_bytes, length_bytes)

    def read_json(self, name: str) -> object | None:
        if name not in self.files() and name not in self._broken and self._inside(name).is_dir():
            # a folder named config.json was read as "no config" and the audit said "no findings" (fresh-user check)
            raise CheckpointError(
                f"{name} is a folder, not a file",
                found=f"{self.label}/{name}: a directory",
                expected=f"{name}: a JSON file",
                fix=f"replace the folder {name} with the model's {name}",
            )
        return _read_json(self, name, lambda: read_regular(self._inside(name)), self.repeated_keys)


class HubSource:
    """A hub repository read through huggingface_hub with range requests; nothing is downloaded to disk.

    Args:
        repo_id: ``org/name``.
        revision: branch, tag or commit; None for the default branch.
        token: a token, or None to let huggingface_hub use ``HF_TOKEN`` / the saved login.
        tried: said after the label in an error (:func:`_tried_as_hub`: why a name that looks like a file's was
            looked up on the hub), or empty.
    """

    def __init__(self, repo_id: str, revision: str | None = None, *, token: str | None = None, tried: str = ""):
        self.repo_id = repo_id
        self.revision = revision
        self.label = f"{repo_id}@{revision}" if revision else repo_id
        self._tried = tried
        self.endpoint = hub_endpoint()
        self._token = token
        self._files: dict[str, int] | None = None
        #: bytes received in range / file bodies (for the "headers only" claim).
        self.bytes_received = 0
        #: JSON file name -> the keys one of its objects gives twice (read last-wins), as LocalSource's
        self.repeated_keys: dict[str, list[RepeatedKey]] = {}

    def _hub_error(self, what: str, exc: Exception) -> CheckpointError:
        return CheckpointError(
            f"hub request failed: {what}",
            found=f"{self.label}{self._tried}: {type(exc).__name__}: {_first_line(exc)}",
            expected="a readable model repository",
            fix="check the repo id and revision, set HF_TOKEN for gated/private repos, "
            "or HF_HUB_OFFLINE=1 with a cached copy",
        )

    def _unreachable(self, exc: Exception) -> CheckpointError:
        return CheckpointError(
            "cannot reach the hub (one attempt, no retries)",
            found=f"{self.endpoint} for {self.label}{self._tried}: {type(exc).__name__}: {_first_line(exc)}",
            expected="a hub answering at HF_ENDPOINT",
            fix="check the network and HF_ENDPOINT, or set HF_HUB_OFFLINE=1 to read a cached copy; "
            "for a local checkpoint give a path that exists",
        )

    def _tree(self) -> list[dict[str, Any]]:
        """The repository's tree entries: every page of the tree listing, each page one request attempt."""
        from huggingface_hub.utils import (  # type: ignore[attr-defined, unused-ignore]  # public API
            build_hf_headers,
            hf_raise_for_status,
            http_backoff,
        )

        rev = quote(self.revision or "main", safe="")
        url: str | None = f"{self.endpoint}/api/models/{self.repo_id}/tree/{rev}"
        params: dict[str, bool] | None = {"recursive": True, "expand": False}
        entries: list[dict[str, Any]] = []
        while url is not None:
            try:
                resp = http_backoff(
                    "GET",
                    url,
                    params=params,
                    headers=build_hf_headers(token=self._token),
                    timeout=HUB_TIMEOUT_S,
                    retry_on_exceptions=(),
                )
            except Exception as exc:  # connection refused, DNS, timeout, offline mode
                raise self._unreachable(exc) from None
            hf_raise_for_status(resp)
            entries.extend(resp.json())
            url, params = resp.links.get("next", {}).get("url"), None  # the next link carries the query
        return entries

    def files(self) -> dict[str, int]:
        if self._files is None:
            try:
                tree = self._tree()
            except CheckpointError:
                raise
            except Exception as exc:  # huggingface_hub raises many kinds (HTTP, repo/revision not found)
                raise self._hub_error("file list", exc) from None
            self._files = {e["path"]: int(e["size"]) for e in tree if e.get("type") == "file"}
        return self._files

    def _get(self, name: str, headers: dict[str, str]) -> bytes:
        from huggingface_hub import get_session, hf_hub_url
        from huggingface_hub.utils import (  # type: ignore[attr-defined, unused-ignore]  # public API
            build_hf_headers,
            hf_raise_for_status,
        )

        url = hf_hub_url(self.repo_id, name, revision=self.revision, endpoint=self.endpoint)
        try:
            resp = get_session().get(
                url, headers={**build_hf_headers(token=self._token), **headers}, timeout=HUB_TIMEOUT_S
            )
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
        return _read_json(self, name, lambda: self._get(name, {}), self.repeated_keys)


def parse_target(target: str) -> tuple[str, str | None]:
    """Split ``org/name@revision`` into ``(org/name, revision)``; revision is None when absent.

    Raises:
        CheckpointError: an empty revision (``org/name@`` was read as ``org/name`` at the default revision).
    """
    if "@" in target:
        repo, rev = target.rsplit("@", 1)
        if not rev.strip():
            raise CheckpointError(
                "the hub revision after '@' is empty",
                found=target,
                expected="org/name, or org/name@REVISION (a branch, tag or commit)",
                fix=f"drop the '@' ({repo}) or give the revision, e.g. {repo}@main",
            )
        return repo, rev
    return target, None


def _local_path_reason(text: str, repo: str) -> str | None:
    """Why ``text`` reads as a local path rather than a hub repo id ``org/name[@revision]``; None when it does not."""
    parts = repo.split("/")
    if text.startswith((".", "/", "~")):
        return "starts like a path"
    if repo.lower().endswith((".safetensors", ".gguf")) and len(parts) != 2:  # org/name.gguf: a hub repo's name
        return f"names a {Path(repo).suffix.lower()} file"
    if parts[0] and Path(parts[0]).exists():
        first = Path(parts[0])
        return f"{parts[0]}/ exists here" if first.is_dir() else f"{parts[0]} exists here ({_not_folder(first)})"
    if len(parts) != 2:
        return f"{len(parts)} path part{'s' if len(parts) > 1 else ''} (a repo id has 2)"
    if not parts[1]:
        return "ends with '/' like a folder"
    if not _valid_repo_id(repo):
        return "not a hub repo id: its parts take letters, digits, '-', '_', '.', never '--' or '..'"
    return None


def _not_folder(path: Path) -> str:
    """``a file``, or what else stands at ``path`` (``a FIFO``, ``a device``, ``a socket``)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return "unreadable"
    return "a file" if stat.S_ISREG(mode) else (special_kind(path) or "a special file")


def _valid_repo_id(repo: str) -> bool:
    """Whether ``repo`` passes the hub client's own check of a repo id (``huggingface_hub.utils.validate_repo_id``:
    1-96 characters of letters, digits, ``-``, ``_``, ``.`` per part, no ``--`` or ``..``, not ending ``.git``), so
    a string the hub could never hold (``a b/c``, a local path with a space) is a missing local path, never looked
    up."""
    from huggingface_hub.utils import (  # type: ignore[attr-defined, unused-ignore]  # public API
        HFValidationError,
        validate_repo_id,
    )

    try:
        validate_repo_id(repo)
    except HFValidationError:
        return False
    return True


def _not_gguf(path: Path) -> str:
    """What a ``.gguf`` file that lacks the GGUF magic holds instead (empty, or its first bytes)."""
    try:
        size = path.stat().st_size
        head = read_regular(path, 0, 8) if size else b""
    except (OSError, CheckpointError):
        return "unreadable"
    return "an empty file (0 bytes)" if not size else f"{size:,} bytes starting {head!r}, not the magic b'GGUF'"


def _missing_local(path: Path, text: str, reason: str) -> CheckpointError:
    """The one-line error for a local-looking target that is not a checkpoint folder, .safetensors or GGUF file."""
    fix = (
        "check the path; a hub repo id is org/name[@revision] and is looked up only when it does not look like a "
        "local path"
    )
    expected = "an existing checkpoint folder, .safetensors file or GGUF file"
    if path.is_symlink() and not path.exists():
        message, found = "target is a broken symlink", f"{text}: {_link_problem(path)}"
        fix = "re-download the file the link points to (in a hub cache: download the repo again), or pass the real file"
    elif path.is_file() and path.suffix.lower() == ".gguf":
        message, found = "target is not a GGUF file (empty, truncated or another format)", f"{text}: {_not_gguf(path)}"
        expected = "a GGUF file: the magic b'GGUF', a version, then the header (llama.cpp gguf-py)"
        fix = "re-download or re-convert it (llama.cpp convert_hf_to_gguf.py)"
    elif path.exists():
        message, found = "target is not a checkpoint folder, .safetensors or GGUF file", f"{text} ({reason})"
        expected = "a checkpoint folder, a .safetensors file or a GGUF file"
    else:
        existing = next((p for p in path.absolute().parents if p.is_dir()), None)
        near = f"; nearest existing folder: {existing}" if existing is not None else ""
        message, found = "checkpoint path not found", f"{text} does not exist ({reason}{near})"
    return CheckpointError(message, found=found, expected=expected, fix=fix)


def open_source(
    target: str | os.PathLike[str], *, token: str | None = None, follow_symlinks: bool = False
) -> LocalSource | HubSource:
    """A byte source for ``target``: an existing local folder, a single ``.safetensors`` file, else a hub repo id
    ``org/name[@revision]``. A missing target that looks like a local path fails here, with no hub lookup.

    Raises:
        CheckpointError: a local-looking path that is missing (anything but ``org/name[@revision]`` looks local:
            ``model.gguf``, ``folder/``), or (offline) the repo is not in the local cache.
    """
    text = str(target)
    if not text.strip():  # Path("") is ".": an empty argument audited the current folder
        raise CheckpointError(
            "the checkpoint target is empty",
            found=repr(text),
            expected="a model folder, a .safetensors file, or a hub repo id org/name[@revision]",
            fix="name the checkpoint, e.g. specscope audit ./my-model (use . for the current folder)",
        )
    path = Path(text).expanduser()
    if path.is_dir():
        return LocalSource(path, follow_symlinks=follow_symlinks)
    if path.is_file() and path.suffix == ".safetensors":  # the file the user named: its link is followed
        return LocalSource(path.parent, label=str(path), only=path.name, follow_symlinks=True)
    repo, rev = parse_target(text)
    reason = _local_path_reason(text, repo)
    if reason is not None:
        raise _missing_local(path, text, reason)
    tried = _tried_as_hub(repo)
    if hub_offline():
        from huggingface_hub import snapshot_download

        try:
            folder = snapshot_download(repo, revision=rev, local_files_only=True, token=token)
        except Exception as exc:
            raise CheckpointError(
                "offline mode and the repository is not in the local cache",
                found=f"{text}{tried}: {type(exc).__name__}",
                expected="a cached snapshot (HF_HUB_OFFLINE=1)",
                fix="unset HF_HUB_OFFLINE, or download the repo first",
            ) from None
        return LocalSource(Path(folder), label=text)
    return HubSource(repo, rev, token=token, tried=tried)


def _tried_as_hub(repo: str) -> str:
    """`` (tried as a hub repo id: no local path org/name.gguf exists)`` for a repo id whose name ends like a file
    (``.gguf``, ``.safetensors``: a hub repo's name may, and a missing local file's does), said in a hub error so a
    user who meant a local file reads that it was not found; empty for any other repo id."""
    if not repo.lower().endswith((".safetensors", ".gguf")):
        return ""
    return f" (tried as a hub repo id: no local path {repo} exists)"
