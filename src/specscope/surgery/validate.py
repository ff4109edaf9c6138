"""Check a whole surgery plan before anything is written; decide whether the output is already up to date.

"Up to date" needs three things (issue 17): the output's manifest names the same plan digest, every output file
still has the SHA-256 the manifest recorded, and every input file (the source and, for graft, the donor) still
has the SHA-256 recorded when the output was made. Anything else in an existing output folder is refused:
specscope never overwrites a target.

Free space (``shutil.disk_usage`` of the nearest existing folder of ``--out``) counts the shards and JSON files
to write plus the files that must be copied because a hardlink cannot cross filesystems.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from specscope.checkpoint.safefiles import read_json_file
from specscope.errors import CheckpointError, SurgeryError
from specscope.surgery.plan import FREE_SPACE_MARGIN_BYTES, MANIFEST_NAME, SurgeryPlan
from specscope.surgery.shards import INDEX_NAME, planned_nbytes, read_header, sha256_file

__all__ = [
    "PlanCheck",
    "check_plan",
    "validate_plan",
    "input_hashes",
    "output_hashes",
    "existing_ancestor",
    "read_manifest",
]

#: manifests are small; a larger file is not ours.
_MAX_MANIFEST_BYTES = 64 * 1024 * 1024


@dataclass
class PlanCheck:
    """The outcome of :func:`check_plan`: ``up_to_date`` and the inputs' SHA-256 (recorded in the manifest)."""

    up_to_date: bool
    input_sha256: dict[str, str] = field(default_factory=dict)


#: (st_dev, st_ino, size, mtime_ns) -> SHA-256, for this process: a hardlinked output file shares its input's
#: inode, so a large shard is read once per run, not once as input and again as output.
_HASH_CACHE: dict[tuple[int, int, int, int], str] = {}


def _sha256(path: Path) -> str:
    st = os.stat(path)
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if key not in _HASH_CACHE:
        _HASH_CACHE[key] = sha256_file(path)
    return _HASH_CACHE[key]


def _regular_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.is_symlink() and p.name != MANIFEST_NAME)


def input_hashes(plan: SurgeryPlan) -> dict[str, str]:
    """``"<input index>/<file name>"`` -> SHA-256 for every top-level file of every input folder of ``plan``."""
    out: dict[str, str] = {}
    for i, folder in enumerate(plan.input_folders):
        for p in _regular_files(Path(folder)):
            out[f"{i}/{p.name}"] = _sha256(p)
    return out


def output_hashes(folder: Path) -> dict[str, str]:
    """File name -> SHA-256 for every top-level file of an output folder except its manifest."""
    return {p.name: _sha256(p) for p in _regular_files(folder)}


def existing_ancestor(path: Path) -> Path:
    """``path`` itself or its nearest existing parent folder (where ``--out`` would be created)."""
    p = Path(os.path.abspath(path))
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def read_manifest(out: Path) -> dict[str, Any] | None:
    """The output folder's ``specscope-surgery.json`` as a dict, or None when absent or unreadable."""
    try:
        man = read_json_file(out / MANIFEST_NAME, max_bytes=_MAX_MANIFEST_BYTES)
    except CheckpointError:
        return None
    return man if isinstance(man, dict) else None


def _first_difference(recorded: object, now: dict[str, str]) -> str | None:
    if not isinstance(recorded, dict):
        return "no hashes recorded (made by an older specscope)"
    for name in sorted(set(recorded) | set(now)):
        if recorded.get(name) != now.get(name):
            state = "missing" if name not in now else "new" if name not in recorded else "changed"
            return f"{name} {state}"
    return None


def _up_to_date(plan: SurgeryPlan, inputs: dict[str, str]) -> bool:
    """True when ``plan.out`` holds this exact result; raises when it holds anything else."""
    man = read_manifest(plan.out)
    if man is None or man.get("digest") != plan.digest():
        raise SurgeryError(
            "output folder already exists",
            found=str(plan.out),
            expected="a folder that does not exist yet",
            fix="choose another --out or remove it (specscope never overwrites a target)",
        )
    diff = _first_difference(man.get("output_sha256"), output_hashes(plan.out))
    what = "output"
    if diff is None:
        diff, what = _first_difference(man.get("input_sha256"), inputs), "input"
    if diff is not None:
        raise SurgeryError(
            f"output folder holds this plan's result, but an {what} file changed since it was written",
            found=f"{plan.out}: {diff}",
            expected="unchanged inputs and output (recorded SHA-256 in specscope-surgery.json)",
            fix=f"remove {plan.out} and run again",
        )
    return True


def _check_out_location(plan: SurgeryPlan) -> None:
    out = plan.out.resolve()
    for folder in plan.input_folders:
        src = Path(folder).resolve()
        if out == src or out.is_relative_to(src):
            raise SurgeryError(
                "output folder is the source or inside it",
                found=str(plan.out),
                expected=f"a new folder outside {folder}",
                fix="choose another --out",
            )
    anc = existing_ancestor(plan.out)
    if not anc.is_dir() or not os.access(anc, os.W_OK | os.X_OK):
        raise SurgeryError(
            "cannot create the output folder there",
            found=f"{anc} ({'not a folder' if not anc.is_dir() else 'not writable'})",
            expected="--out in a writable folder",
            fix="choose another --out",
        )


def copy_bytes_needed(plan: SurgeryPlan) -> int:
    """Bytes of the linked files that must be copied: a hardlink cannot cross filesystems (``st_dev`` differs)."""
    dev = os.stat(existing_ancestor(plan.out)).st_dev
    return sum(link.nbytes for link in plan.links if os.stat(link.src).st_dev != dev)


def _check_free_space(plan: SurgeryPlan) -> None:
    anc = existing_ancestor(plan.out)
    usage = shutil.disk_usage(anc)
    if usage.total == 0:
        raise SurgeryError(
            "--out is on a filesystem that cannot hold files",
            found=str(anc),
            expected="a disk",
            fix="choose another --out",
        )
    copied = copy_bytes_needed(plan)
    need = plan.bytes_to_write + copied + FREE_SPACE_MARGIN_BYTES
    if usage.free < need:
        raise SurgeryError(
            "not enough free space for the result",
            found=f"{usage.free:,} bytes free in {anc}",
            expected=f">= {need:,} bytes ({plan.bytes_to_write:,} to write, {copied:,} to copy across filesystems)",
            fix="free space or choose --out on another disk",
        )


def check_plan(plan: SurgeryPlan) -> PlanCheck:
    """Check the whole plan before anything is written (see the module docstring).

    Raises:
        SurgeryError: output folder exists with other or changed content, output is (inside) a source, a shard
            job in place, an index that disagrees with the shards of the result, or too little free space.
    """
    if plan.in_place:
        if plan.shards or plan.links:
            raise SurgeryError(
                "in-place surgery may only rewrite JSON files",
                found=[s.name for s in plan.shards],
                expected="configs / index only",
                fix="write the result to a new folder with --out",
            )
        inputs: dict[str, str] = {}
    else:
        _check_out_location(plan)
        inputs = input_hashes(plan)
        if plan.out.exists() or plan.out.is_symlink():
            return PlanCheck(_up_to_date(plan, inputs), inputs)
    names = [x.name for x in plan.links] + [s.name for s in plan.shards] + [j.name for j in plan.jsons]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise SurgeryError("plan writes a file twice", found=dupes, expected="one job per file", fix="report this bug")
    _validate_index(plan)
    _check_free_space(plan)
    return PlanCheck(False, inputs)


def validate_plan(plan: SurgeryPlan) -> bool:
    """Check the whole plan (:func:`check_plan`); True when ``out`` already holds this exact result."""
    return check_plan(plan).up_to_date


def _validate_index(plan: SurgeryPlan) -> None:
    """The planned index must map exactly the tensors the result's shards hold, with the exact total_size."""
    idx_job = next((j for j in plan.jsons if j.name == INDEX_NAME), None)
    if idx_job is None or callable(idx_job.data):
        return
    held: dict[str, str] = {}
    total = 0
    for s in plan.shards:
        for t in s.tensors:
            held[t.name] = s.name
            total += planned_nbytes(t.dtype, t.shape)
    headers = [(link.name, read_header(link.src)) for link in plan.links if link.name.endswith(".safetensors")]
    if plan.in_place:
        headers += [(p.name, read_header(p)) for p in sorted(plan.source.glob("*.safetensors"))]
    for name, h in headers:
        for info in h.tensors:
            held[info.name] = name
        total += h.tensor_bytes
    wm = idx_job.data.get("weight_map", {})
    if wm != held:
        missing = sorted(set(held) - set(wm))[:5]
        extra = sorted(set(wm) - set(held))[:5]
        raise SurgeryError(
            "planned index disagrees with the shards of the result",
            found=f"unindexed {missing}, dangling {extra}",
            expected="weight_map == shard contents",
            fix="report this bug",
        )
    got = idx_job.data.get("metadata", {}).get("total_size")
    if got != total:
        raise SurgeryError(
            "planned index total_size is not the tensor byte sum", found=got, expected=total, fix="report this bug"
        )
