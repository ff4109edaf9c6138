"""``audit --hashes``: compare the sha256 of a local checkpoint's files with a ``SHA256SUMS`` manifest or with the
hub's LFS metadata (``--hashes-hub org/name[@rev]``: the tree listing's ``lfs.oid`` is the file's sha256).

Seeds 000 and 002 pin a draft's weights by sha256 ("SHA-256 e0c050b3..., which matches the upstream
model.safetensors LFS hash exactly"). The manifest format is GNU coreutils ``sha256sum`` output: one
``<64 hex>  <file name>`` line per file (``<hex> *<name>`` in binary mode; ``#`` comments and blank lines ignored).
This reads whole files (the only audit step that does), so it runs only when asked.

Codes: ``HASH_MISMATCH`` (ERROR), ``HASH_FILE_MISSING`` (ERROR: listed, not on disk), ``HASH_MANIFEST_INVALID``
(ERROR: a line that is not ``<hex>  <name>``), ``HASH_PATH_UNSAFE`` (ERROR: a name leaving the folder, absolute
or with ``..``: never hashed, never counted), ``HASH_NOT_LISTED`` (WARNING: a ``*.safetensors`` file the manifest
does not name), ``HASHES_VERIFIED`` (INFO: how many files matched), ``HASH_MANIFEST_MISSING`` (WARNING).
"""

from __future__ import annotations

import re
from pathlib import Path

from specscope.audit.catalog import finding
from specscope.audit.findings import AuditReport, Finding, by_severity
from specscope.checkpoint.index import shard_name_is_safe
from specscope.checkpoint.safefiles import read_regular, sha256_file
from specscope.errors import ConfigError, require_path

__all__ = ["SUMS_NAME", "parse_sums", "check_hashes", "sha256_file", "add_hash_findings", "hub_lfs_sha256"]

SUMS_NAME = "SHA256SUMS"
_LINE = re.compile(r"^([0-9a-fA-F]{64}) [ *](.+)$")


def parse_sums(text: str) -> tuple[dict[str, str], list[int]]:
    """``(file name -> lower-case hex, line numbers that did not parse)`` of a ``sha256sum`` manifest."""
    out: dict[str, str] = {}
    bad: list[int] = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _LINE.match(line.rstrip("\r\n"))
        if m is None:
            bad.append(i)
            continue
        out[m.group(2).removeprefix("./")] = m.group(1).lower()
    return out, bad


def check_hashes(
    root: str | Path, sums_file: str | Path | None = None, *, expected: dict[str, str] | None = None, source: str = ""
) -> list[Finding]:
    """Findings for the files of folder ``root`` against ``sums_file`` (default ``root/SHA256SUMS``), or against
    ``expected`` (file name -> sha256, e.g. :func:`hub_lfs_sha256`) named ``source`` in the messages."""
    root = Path(root)
    sums = Path(sums_file) if sums_file is not None else root / SUMS_NAME
    if expected is not None:
        return _compare(root, expected, [], source or "the expected hashes")
    if sums_file is not None and not sums.is_file():  # asked for by name: a user mistake, not a finding
        raise ConfigError(
            "--hashes-file is not a readable file",
            found=f"{sums}: {_what(sums)}",
            expected="a sha256sum manifest (`sha256sum *.safetensors > SHA256SUMS` output)",
            fix="check the path given to --hashes-file, or drop it to use the folder's own SHA256SUMS",
        )
    if not sums.is_file():
        return [finding("HASH_MANIFEST_MISSING", file=str(sums), name=sums.name, sums=SUMS_NAME)]
    # a regular file only (a FIFO never blocks; unreadable is one error line); bytes that are not UTF-8 make bad lines
    listed, bad = parse_sums(read_regular(sums).decode("utf-8", errors="replace"))
    return _compare(root, listed, bad, sums.name)


def _what(path: Path) -> str:
    """What stands at ``path`` that is not a regular file: "no such file", "a folder", or "not a regular file (a
    FIFO, a device or a socket)" (a FIFO was said to be no such file)."""
    if not path.exists():
        return "no such file"
    return "a folder" if path.is_dir() else "not a regular file (a FIFO, a device or a socket)"


def _is_file(path: Path) -> bool:
    """Whether a regular file stands at ``path``; a name no file system holds (over 255 bytes: ``ENAMETOOLONG``, an
    error ``Path.is_file`` raises) is no file, as a missing one is."""
    try:
        return path.is_file()
    except OSError:
        return False


def _compare(root: Path, listed: dict[str, str], bad: list[int], src: str) -> list[Finding]:
    out: list[Finding] = []
    if bad:
        out.append(finding("HASH_MANIFEST_INVALID", file=src, bad=len(bad), first=bad[:5], details={"lines": bad}))
    ok = 0
    unsafe = sorted(n for n in listed if not shard_name_is_safe(n))
    if unsafe:
        out.append(finding("HASH_PATH_UNSAFE", file=src, n=len(unsafe), names=", ".join(unsafe[:5]), first=unsafe[0]))
    for name, want in sorted(listed.items()):
        path = root / name
        if name in unsafe:
            continue  # never hashed: it names a file outside the checkpoint
        if not _is_file(path):
            out.append(finding("HASH_FILE_MISSING", file=name, source=src, want=want))
            continue
        got = sha256_file(path)
        if got != want:
            details = {"sha256": got, "expected_sha256": want}
            out.append(finding("HASH_MISMATCH", file=name, source=src, got=got, want=want, details=details))
        else:
            ok += 1
    for p in sorted(root.glob("*.safetensors")):
        if p.name not in listed:
            out.append(finding("HASH_NOT_LISTED", file=p.name, source=src))
    counts = {"matched": ok, "listed": len(listed) - len(unsafe)}
    out.append(finding("HASHES_VERIFIED", file=src, ok=ok, listed=len(listed) - len(unsafe), details=counts))
    return out


def hub_lfs_sha256(repo: str, *, endpoint: str | None = None, token: str | None = None) -> dict[str, str]:
    """File name -> sha256 of every LFS file of hub repo ``org/name[@revision]`` (the tree listing's ``lfs.oid``;
    nothing is downloaded). ``endpoint`` defaults to huggingface_hub's (``HF_ENDPOINT``).

    Raises:
        ConfigError: the listing fails (unknown repo, no network), or the repo has no LFS files.
    """
    from huggingface_hub import HfApi, constants
    from huggingface_hub.hf_api import RepoFile

    from specscope.checkpoint.source import parse_target

    repo_id, revision = parse_target(repo)
    try:
        tree = HfApi(endpoint=endpoint or constants.ENDPOINT, token=token).list_repo_tree(
            repo_id, recursive=True, revision=revision
        )
        out = {f.path: f.lfs.sha256 for f in tree if isinstance(f, RepoFile) and f.lfs is not None}
    except Exception as exc:  # huggingface_hub raises many kinds (HTTP, repo/revision not found, offline)
        raise ConfigError(
            "cannot read the hub's LFS hashes",
            found=f"{repo}: {type(exc).__name__}",
            expected="a reachable hub repository",
            fix="check the repo id, HF_TOKEN and the network, or compare with a SHA256SUMS file (--hashes-file)",
        ) from None
    if not out:
        raise ConfigError(
            "the hub repository lists no LFS files", found=repo, expected="safetensors stored through LFS"
        )
    return out


def add_hash_findings(
    report: AuditReport, target: str | Path, sums_file: str | Path | None = None, *, hub: str | None = None
) -> None:
    """Add :func:`check_hashes` findings for a local folder ``target`` to ``report`` (errors first), against
    ``sums_file`` or, with ``hub``, against that hub repo's LFS sha256s.

    Raises:
        ConfigError: ``target`` is not a local folder (hub LFS hashes are not compared here).
    """
    root = require_path(
        target,
        "--hashes needs a local checkpoint folder",
        expected="a folder holding the files and SHA256SUMS",
        fix="download the checkpoint, then run `specscope audit FOLDER --hashes`",
        folder=True,
    )
    if hub is not None:
        found = check_hashes(root, expected=hub_lfs_sha256(hub), source=f"{hub} (hub LFS)")
    else:
        found = check_hashes(root, sums_file)
    report.findings = by_severity([*report.findings, *found])
