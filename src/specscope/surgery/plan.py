"""What a surgery will write: the plan and result records, as data (jobs, digest, diffs, dry-run rendering).

A :class:`SurgeryPlan` lists every file of the result: files hardlinked from the source (copied only across
filesystems), shards written tensor by tensor, and JSON files (configs, index, manifest). Planning writes
nothing: :mod:`specscope.surgery.validate` checks the whole plan (target folder, index against the shards it
will hold, free space, up to date) and :mod:`specscope.surgery.apply` writes and verifies it. A new output is
built in a hidden sibling folder and renamed into place at the end, so a killed or failed run leaves no folder
that looks like a result; its manifest (``specscope-surgery.json``) records the SHA-256 of every output and
input file.

The pattern follows compressed-tensors' checkpoint converter (validate every job before converting any) and
the safetensors fix for saving over a mapped file (never write into a source or a hardlinked file).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from specscope.surgery.configs import config_diff, render_json
from specscope.surgery.shards import planned_nbytes

__all__ = [
    "MANIFEST_NAME",
    "FREE_SPACE_MARGIN_BYTES",
    "TensorJob",
    "ShardJob",
    "JsonJob",
    "LinkJob",
    "SurgeryPlan",
    "SurgeryResult",
]

MANIFEST_NAME = "specscope-surgery.json"
#: free space demanded on top of the bytes to write.
FREE_SPACE_MARGIN_BYTES = 16 << 20


@dataclass
class TensorJob:
    """One tensor of a new shard: ``produce()`` returns its bytes (or an array) when the writer gets to it."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    produce: Callable[[], bytes | np.ndarray]
    origin: str = ""  # "copy of <shard>:<name>" / "nvfp4 of <name>" for the plan listing


@dataclass
class ShardJob:
    """A safetensors file to write, tensors in file order."""

    name: str
    tensors: list[TensorJob]
    metadata: dict[str, str] = field(default_factory=lambda: {"format": "pt"})


@dataclass
class JsonJob:
    """A JSON file to write; ``data`` may be a callable taking the tensor hashes (for manifests)."""

    name: str
    data: dict[str, Any] | Callable[[dict[str, str]], dict[str, Any]]
    before: dict[str, Any] | None = None
    indent: int = 2


@dataclass
class LinkJob:
    """A file of the source that the result shares unchanged (hardlink; copy across filesystems)."""

    name: str
    src: Path
    nbytes: int


@dataclass
class SurgeryPlan:
    """Everything an operation will write. ``out`` is a new folder, or the source itself when ``in_place``
    (only JSON files may then be written; shards of a source are never rewritten in place)."""

    operation: str
    source: Path
    out: Path
    args: dict[str, Any] = field(default_factory=dict)
    links: list[LinkJob] = field(default_factory=list)
    shards: list[ShardJob] = field(default_factory=list)
    jsons: list[JsonJob] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    in_place: bool = False
    inputs: list[Path] = field(default_factory=list)

    @property
    def input_folders(self) -> list[Path]:
        """Every folder the plan reads: the source plus ``inputs`` (e.g. graft's ``--from``)."""
        return [self.source, *(p for p in self.inputs if Path(p).resolve() != self.source.resolve())]

    @property
    def shard_bytes(self) -> int:
        """Tensor bytes of the shards to write."""
        return sum(planned_nbytes(t.dtype, t.shape) for s in self.shards for t in s.tensors)

    @property
    def link_bytes(self) -> int:
        return sum(link.nbytes for link in self.links)

    def json_text(self, job: JsonJob, hashes: dict[str, str] | None = None) -> str:
        data = job.data(hashes or {}) if callable(job.data) else job.data
        return render_json(data, job.indent)

    @property
    def bytes_to_write(self) -> int:
        """Bytes of new data (shards + JSON, headers not counted); links are free on one filesystem."""
        return self.shard_bytes + sum(len(self.json_text(j).encode()) for j in self.jsons)

    def digest(self) -> str:
        """SHA-256 over what the plan will produce (names, dtypes, shapes, origins, JSON texts)."""
        h = hashlib.sha256()
        h.update(json.dumps({"op": self.operation, "args": self.args}, sort_keys=True, default=str).encode())
        for link in sorted(self.links, key=lambda x: x.name):
            h.update(f"link {link.name} {link.nbytes}\n".encode())
        for s in self.shards:
            for t in s.tensors:
                h.update(f"{s.name} {t.name} {t.dtype} {list(t.shape)} {t.origin}\n".encode())
        for j in self.jsons:
            if not callable(j.data):
                h.update(f"{j.name}\n{self.json_text(j)}".encode())
        return h.hexdigest()

    def diffs(self) -> dict[str, str]:
        """File name -> unified diff, for every JSON file that had a previous version."""
        return {
            j.name: config_diff(j.name, j.before, j.data)
            for j in self.jsons
            if not callable(j.data) and j.before is not None
        }

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able summary (what ``--dry-run --format json`` prints)."""
        return {
            "operation": self.operation,
            "source": str(self.source),
            "out": str(self.out),
            "in_place": self.in_place,
            "args": self.args,
            "bytes_to_write": self.bytes_to_write,
            "links": [{"name": x.name, "bytes": x.nbytes} for x in self.links],
            "shards": [
                {
                    "name": s.name,
                    "tensors": [
                        {"name": t.name, "dtype": t.dtype, "shape": list(t.shape), "origin": t.origin}
                        for t in s.tensors
                    ],
                }
                for s in self.shards
            ],
            "json_files": [j.name for j in self.jsons],
            "config_diffs": self.diffs(),
            "notes": self.notes,
            "digest": self.digest(),
        }

    def render(self) -> str:
        """The plan as text: files, bytes to write, config diffs, notes."""
        lines = [
            f"plan: {self.operation}  {self.source} -> {self.out}{' (in place)' if self.in_place else ''}",
            f"bytes to write: {self.bytes_to_write:,}",
        ]
        for x in self.links:
            lines.append(f"  link   {x.name} ({x.nbytes:,} bytes)")
        for s in self.shards:
            lines.append(f"  write  {s.name} ({len(s.tensors)} tensors)")
            lines += [f"           {t.name} {t.dtype} {list(t.shape)}  <- {t.origin}" for t in s.tensors]
        for j in self.jsons:
            lines.append(f"  write  {j.name}")
        for name, diff in self.diffs().items():
            lines.append(diff.rstrip("\n") if diff else f"  ({name}: unchanged)")
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


@dataclass
class SurgeryResult:
    """What ``apply_plan`` did and verified.

    Attributes:
        written: file names written; linked / copied: file names shared with the source.
        tensor_sha256: output tensor name -> SHA-256 of its bytes (verified after writing).
        audit_exit_code: the audit's exit code on the result, or None when the audit is not available.
        audit_findings: the audit's findings as dicts (empty when unavailable).
        up_to_date: True when the folder already held this exact result and nothing was written.
        elapsed_ns: wall time of apply + verify.
    """

    out: Path
    written: list[str] = field(default_factory=list)
    linked: list[str] = field(default_factory=list)
    copied: list[str] = field(default_factory=list)
    tensor_sha256: dict[str, str] = field(default_factory=dict)
    audit_exit_code: int | None = None
    audit_findings: list[dict[str, Any]] = field(default_factory=list)
    audit_note: str = ""
    up_to_date: bool = False
    elapsed_ns: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in self.__dict__.items()}
