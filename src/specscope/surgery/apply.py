"""Validate, apply, verify: the one safe way surgery writes a :class:`~specscope.surgery.plan.SurgeryPlan`.

``validate_plan`` checks the whole plan (target folder, index against the shards it will hold, free space) before
``apply_plan`` writes anything; new files are written under a temporary name in the output folder and renamed
(:mod:`specscope.fsio`); a manifest (``specscope-surgery.json``) is written last, so a folder without it is
incomplete. ``apply_plan`` ends by re-reading every written tensor and comparing its SHA-256 with the hash it
promised, checking every link, and running the checkpoint audit on the result.

The pattern follows compressed-tensors' checkpoint converter (validate every job before converting any) and
the safetensors fix for saving over a mapped file (never write into a source or a hardlinked file).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import time
from pathlib import Path

from specscope.errors import SurgeryError
from specscope.fsio import copy_file_atomic, write_text_atomic
from specscope.surgery.configs import render_json
from specscope.surgery.plan import MANIFEST_NAME, SurgeryPlan, SurgeryResult
from specscope.surgery.shards import INDEX_NAME, ShardWriter, planned_nbytes, read_header, sha256_bytes

__all__ = ["validate_plan", "apply_plan"]

#: free space demanded on top of the bytes to write.
FREE_SPACE_MARGIN_BYTES = 16 << 20


def _existing_manifest(out: Path) -> dict | None:
    p = out / MANIFEST_NAME
    if not p.is_file():
        return None
    try:
        return json.loads(p.read_text())
    except ValueError:
        return None


def validate_plan(plan: SurgeryPlan) -> bool:
    """Check the whole plan before anything is written. Returns True when ``out`` already holds this result.

    Raises:
        SurgeryError: output folder exists with other content, output equals the source, a shard job in place,
            an index that disagrees with the shards of the result, or too little free space.
    """
    if plan.in_place:
        if plan.shards or plan.links:
            raise SurgeryError(
                "in-place surgery may only rewrite JSON files",
                found=[s.name for s in plan.shards],
                expected="configs / index only",
                fix="write the result to a new folder with --out",
            )
    else:
        if plan.out.resolve() == plan.source.resolve():
            raise SurgeryError(
                "output folder is the source", found=str(plan.out), expected="a new folder", fix="choose another --out"
            )
        if plan.out.exists():
            man = _existing_manifest(plan.out)
            if man is not None and man.get("digest") == plan.digest():
                return True
            raise SurgeryError(
                "output folder already exists",
                found=str(plan.out),
                expected="a folder that does not exist yet",
                fix="choose another --out or remove it (specscope never overwrites a target)",
            )
    names = [x.name for x in plan.links] + [s.name for s in plan.shards] + [j.name for j in plan.jsons]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise SurgeryError("plan writes a file twice", found=dupes, expected="one job per file", fix="report this bug")
    _validate_index(plan)
    dest = plan.out if plan.out.exists() else plan.out.parent
    free = shutil.disk_usage(dest).free
    need = plan.bytes_to_write + FREE_SPACE_MARGIN_BYTES
    if free < need:
        raise SurgeryError(
            "not enough free space for the result",
            found=f"{free:,} bytes free in {dest}",
            expected=f">= {need:,} bytes",
            fix="free space or choose --out on another disk",
        )
    return False


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
    src_dir = plan.source if plan.in_place else None
    for link in plan.links:
        if link.name.endswith(".safetensors"):
            h = read_header(link.src)
            for info in h.tensors:
                held[info.name] = link.name
            total += h.tensor_bytes
    if src_dir is not None:
        for p in sorted(src_dir.glob("*.safetensors")):
            h = read_header(p)
            for info in h.tensors:
                held[info.name] = p.name
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


def _progress(enabled: bool, total_bytes: int):
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

    prog = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=not enabled,
        transient=False,
    )
    return prog


def apply_plan(plan: SurgeryPlan, *, progress: bool = False, run_audit: bool = True) -> SurgeryResult:
    """Validate, write, verify. See the module docstring.

    Raises:
        SurgeryError: validation failed (nothing written) or verification failed (the result is left for
            inspection, without a manifest).
    """
    t0 = time.perf_counter_ns()
    result = SurgeryResult(out=plan.out)
    if validate_plan(plan):
        result.up_to_date = True
        result.tensor_sha256 = dict((_existing_manifest(plan.out) or {}).get("tensor_sha256", {}))
        result.elapsed_ns = time.perf_counter_ns() - t0
        return result
    if not plan.in_place:
        plan.out.mkdir(parents=True, exist_ok=False)
    for link in plan.links:
        dst = plan.out / link.name
        try:
            os.link(link.src, dst)
            result.linked.append(link.name)
        except OSError as exc:
            if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
                raise
            copy_file_atomic(link.src, dst)
            result.copied.append(link.name)
    with _progress(progress, plan.shard_bytes) as prog:
        task = prog.add_task(plan.operation, total=plan.shard_bytes)
        for s in plan.shards:
            writer = ShardWriter(plan.out / s.name, [(t.name, t.dtype, t.shape) for t in s.tensors], s.metadata)
            try:
                for t in s.tensors:
                    prog.update(task, advance=writer.write(t.name, t.produce()))
                result.tensor_sha256.update(writer.close())
            except BaseException:
                writer.abort()
                raise
            result.written.append(s.name)
    for j in plan.jsons:
        write_text_atomic(plan.out / j.name, plan.json_text(j, result.tensor_sha256))
        result.written.append(j.name)
    _verify(plan, result)
    if run_audit:
        _audit(result)
    if not plan.in_place:
        manifest = {
            "operation": plan.operation,
            "source": str(plan.source),
            "args": plan.args,
            "digest": plan.digest(),
            "written": result.written,
            "linked": result.linked,
            "copied": result.copied,
            "tensor_sha256": result.tensor_sha256,
            "notes": plan.notes,
        }
        write_text_atomic(plan.out / MANIFEST_NAME, render_json(manifest))
    result.elapsed_ns = time.perf_counter_ns() - t0
    return result


def _verify(plan: SurgeryPlan, result: SurgeryResult) -> None:
    """Re-read every written tensor and compare hashes; links must share the source's inode (or bytes)."""
    for s in plan.shards:
        path = plan.out / s.name
        h = read_header(path)
        fd = os.open(path, os.O_RDONLY)
        try:
            for t in h.tensors:
                got = sha256_bytes(os.pread(fd, t.nbytes, t.file_offset_bytes))
                if got != result.tensor_sha256.get(t.name):
                    raise SurgeryError(
                        f"verification failed for {t.name}",
                        found=got,
                        expected=result.tensor_sha256.get(t.name),
                        fix="check the disk; rerun",
                    )
        finally:
            os.close(fd)
    for name in result.linked:
        link = next(x for x in plan.links if x.name == name)
        if not os.path.samefile(link.src, plan.out / name):
            raise SurgeryError(
                f"{name} is not a hardlink of the source",
                found=str(plan.out / name),
                expected=str(link.src),
                fix="rerun",
            )
    for name in result.copied:
        link = next(x for x in plan.links if x.name == name)
        if (plan.out / name).stat().st_size != link.nbytes:
            raise SurgeryError(
                f"copy of {name} has the wrong size",
                found=(plan.out / name).stat().st_size,
                expected=link.nbytes,
                fix="check the disk; rerun",
            )


def _audit(result: SurgeryResult) -> None:
    """Run the checkpoint audit (``specscope.audit.audit_checkpoint``) on the result."""
    from specscope.audit import audit_checkpoint  # here, not at the top: the audit loads scipy

    report = audit_checkpoint(str(result.out))
    result.audit_exit_code = int(report.exit_code)
    result.audit_findings.extend(f.to_dict() for f in report.findings)
