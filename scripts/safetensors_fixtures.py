"""Binary test fixtures from a small text spec: the case checkpoints' .safetensors files.

The case checkpoints under ``tests/data/cases`` (copied from the project's shared cases, see
``tests/data/SOURCES.md``) weigh about 700 KB as binaries but carry little information: each tensor's bytes are
one short byte cycle (at most 128 bytes) repeated to the tensor's length. ``tests/data/safetensors_fixtures.json``
keeps, per file, the exact header text and, per tensor in data-offset order, its length in bytes and its cycle;
``build`` writes the files back byte for byte and checks each against the SHA-256 in the spec.

File format (safetensors, huggingface/safetensors ``docs``): u64 little-endian header length N, N bytes of JSON
header (padded with spaces), then the tensor data, tensor ``data_offsets`` counted from the end of the header.

    python scripts/safetensors_fixtures.py build                 # write missing or stale files (tests do this)
    python scripts/safetensors_fixtures.py pack SRC_ROOT FILE...  # (re)make the spec from real files
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SPEC = DATA / "safetensors_fixtures.json"
MAX_CYCLE_BYTES = 128


def _cycle(data: bytes) -> bytes:
    """The shortest prefix p of ``data`` with data[i] == p[i % len(p)] for every i (at most MAX_CYCLE_BYTES)."""
    for n in range(1, min(len(data), MAX_CYCLE_BYTES) + 1):
        p = data[:n]
        if (p * (len(data) // n + 1))[: len(data)] == data:
            return p
    raise ValueError(f"tensor data of {len(data)} bytes has no byte cycle of at most {MAX_CYCLE_BYTES} bytes")


def _expand(header: str, tensors: list[dict]) -> bytes:
    raw = header.encode("utf-8")
    parts = [struct.pack("<Q", len(raw)), raw]
    for t in tensors:
        cycle = bytes.fromhex(t["cycle"])
        n = int(t["bytes"])
        parts.append((cycle * (n // len(cycle) + 1))[:n])
    return b"".join(parts)


def pack_file(path: Path) -> dict:
    """Spec of one .safetensors file: header text, per-tensor (bytes, cycle) in data order, SHA-256 of the file."""
    blob = path.read_bytes()
    (n,) = struct.unpack("<Q", blob[:8])
    header = blob[8 : 8 + n].decode("utf-8")
    data = blob[8 + n :]
    spans = sorted(tuple(v["data_offsets"]) for k, v in json.loads(header).items() if k != "__metadata__")
    tensors, at = [], 0
    for start, end in spans:
        if start != at:
            raise ValueError(f"{path}: gap or overlap at data offset {at} (next tensor starts at {start})")
        tensors.append({"bytes": end - start, "cycle": _cycle(data[start:end]).hex()})
        at = end
    if at != len(data):
        raise ValueError(f"{path}: {len(data) - at} bytes after the last tensor")
    spec = {"header": header, "tensors": tensors, "sha256": hashlib.sha256(blob).hexdigest()}
    if _expand(header, tensors) != blob:
        raise ValueError(f"{path}: the spec does not rebuild the file byte for byte")
    return spec


def pack(src_root: Path, rel_paths: list[str], spec_path: Path = SPEC) -> None:
    """Write the spec for ``rel_paths`` (relative to ``src_root``; the same paths are used under tests/data)."""
    files = {rel: pack_file(src_root / rel) for rel in sorted(rel_paths)}
    spec_path.write_text(json.dumps({"files": files}, indent=1) + "\n", encoding="utf-8")


def build(spec_path: Path = SPEC, out_root: Path = DATA) -> list[Path]:
    """Write every file of the spec under ``out_root`` unless it is already there with the right SHA-256.

    Written atomically (temporary file, then rename), so parallel test processes never see half a file.
    Returns the paths written.
    """
    written = []
    for rel, spec in json.loads(spec_path.read_text(encoding="utf-8"))["files"].items():
        dst = out_root / rel
        if dst.is_file() and hashlib.sha256(dst.read_bytes()).hexdigest() == spec["sha256"]:
            continue
        blob = _expand(spec["header"], spec["tensors"])
        if hashlib.sha256(blob).hexdigest() != spec["sha256"]:
            raise ValueError(f"{spec_path}: {rel} rebuilds to a different SHA-256 than the spec records")
        dst.parent.mkdir(parents=True, exist_ok=True)
        tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
        tmp.write_bytes(blob)
        tmp.replace(dst)
        written.append(dst)
    return written


def main(argv: list[str]) -> int:
    if argv[:1] == ["build"] and len(argv) == 1:
        for p in build():
            print(f"wrote {p.relative_to(ROOT)}")
        return 0
    if argv[:1] == ["pack"] and len(argv) >= 3:
        pack(Path(argv[1]), argv[2:])
        return 0
    print(
        f"found: {' '.join(argv) or 'no arguments'}; expected: `build` or `pack SRC_ROOT FILE...`; "
        "fix: run `python scripts/safetensors_fixtures.py build`",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
