"""``audit --hashes``: compare the sha256 of a local checkpoint's files with a ``SHA256SUMS`` manifest.

Seeds 000 and 002 pin a draft's weights by sha256 ("SHA-256 e0c050b3..., which matches the upstream
model.safetensors LFS hash exactly"). The manifest format is GNU coreutils ``sha256sum`` output: one
``<64 hex>  <file name>`` line per file (``<hex> *<name>`` in binary mode; ``#`` comments and blank lines ignored).
This reads whole files (the only audit step that does), so it runs only when asked.

Codes: ``HASH_MISMATCH`` (ERROR), ``HASH_FILE_MISSING`` (ERROR: listed, not on disk), ``HASH_MANIFEST_INVALID``
(ERROR: a line that is not ``<hex>  <name>``), ``HASH_NOT_LISTED`` (WARNING: a ``*.safetensors`` file the manifest
does not name), ``HASHES_VERIFIED`` (INFO: how many files matched), ``HASH_MANIFEST_MISSING`` (WARNING).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from specscope.audit.findings import AuditReport, Finding, Severity
from specscope.errors import ConfigError

__all__ = ["SUMS_NAME", "parse_sums", "check_hashes", "sha256_file", "add_hash_findings"]

SUMS_NAME = "SHA256SUMS"
_LINE = re.compile(r"^([0-9a-fA-F]{64}) [ *](.+)$")


def sha256_file(path: Path) -> str:
    """Hex sha256 of a whole file."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


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


def check_hashes(root: str | Path, sums_file: str | Path | None = None) -> list[Finding]:
    """Findings for the files of folder ``root`` against ``sums_file`` (default ``root/SHA256SUMS``)."""
    root = Path(root)
    sums = Path(sums_file) if sums_file is not None else root / SUMS_NAME
    if not sums.is_file():
        return [
            Finding(
                Severity.WARNING,
                "HASH_MANIFEST_MISSING",
                f"no {sums.name} to compare against",
                file=str(sums),
                found="no manifest",
                expected=f"{SUMS_NAME}: `sha256sum *.safetensors > {SUMS_NAME}` output from the publisher",
                fix="pass --hashes-file PATH, or ask the publisher for the sha256 of each file",
            )
        ]
    listed, bad = parse_sums(sums.read_text(encoding="utf-8"))
    out: list[Finding] = []
    if bad:
        out.append(
            Finding(
                Severity.ERROR,
                "HASH_MANIFEST_INVALID",
                f"{sums.name}: {len(bad)} lines are not `<64 hex>  <file>`",
                file=sums.name,
                found=f"lines {bad[:5]}",
                expected="sha256sum output",
                fix="regenerate it with sha256sum",
                details={"lines": bad},
            )
        )
    ok = 0
    for name, want in sorted(listed.items()):
        path = root / name
        if not path.is_file():
            out.append(
                Finding(
                    Severity.ERROR,
                    "HASH_FILE_MISSING",
                    f"{name} is listed in {sums.name} but not on disk",
                    file=name,
                    found="no file",
                    expected=f"sha256 {want}",
                    consequence="the checkpoint is incomplete",
                    fix="download the missing file",
                )
            )
            continue
        got = sha256_file(path)
        if got != want:
            out.append(
                Finding(
                    Severity.ERROR,
                    "HASH_MISMATCH",
                    f"{name}: sha256 {got} differs from {sums.name} ({want})",
                    file=name,
                    found=got,
                    expected=want,
                    consequence="these are not the bytes the publisher measured: a different build, a partial "
                    "download or an edited file",
                    fix="re-download the file, or find out which build you have",
                    details={"sha256": got, "expected_sha256": want},
                )
            )
        else:
            ok += 1
    for p in sorted(root.glob("*.safetensors")):
        if p.name not in listed:
            out.append(
                Finding(
                    Severity.WARNING,
                    "HASH_NOT_LISTED",
                    f"{p.name} is not listed in {sums.name}",
                    file=p.name,
                    found="no sha256 line",
                    expected=f"a line for {p.name}",
                    fix="add it to the manifest or remove the file",
                )
            )
    out.append(
        Finding(
            Severity.INFO,
            "HASHES_VERIFIED",
            f"{ok} of {len(listed)} files listed in {sums.name} match their sha256",
            file=sums.name,
            details={"matched": ok, "listed": len(listed)},
        )
    )
    return out


def add_hash_findings(report: AuditReport, target: str | Path, sums_file: str | Path | None = None) -> None:
    """Add :func:`check_hashes` findings for a local folder ``target`` to ``report`` (errors first).

    Raises:
        ConfigError: ``target`` is not a local folder (hub LFS hashes are not compared here).
    """
    root = Path(target)
    if not root.is_dir():
        raise ConfigError(
            "--hashes needs a local checkpoint folder",
            found=str(target),
            expected="a folder holding the files and SHA256SUMS",
            fix="download the checkpoint, then run `specscope audit FOLDER --hashes`",
        )
    order = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
    report.findings = sorted([*report.findings, *check_hashes(root, sums_file)], key=lambda f: order[f.severity])
