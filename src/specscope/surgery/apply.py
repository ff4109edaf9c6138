"""Write a validated surgery plan atomically, verify it, audit it.

A new output is built in a hidden sibling folder ``.<out name>.specscope-partial-<pid>`` (same parent, so the
same filesystem) and renamed to ``--out`` only after every file is written and fsynced, every tensor re-read and
its SHA-256 compared, every link checked and the audit run. A failure removes the partial folder; a killed run
leaves only a hidden ``*.specscope-partial-*`` folder, which the next run removes when its process is gone. So
a folder named ``--out`` is always a complete result with a manifest (``specscope-surgery.json``) that records
the SHA-256 of every output and input file.

Every file is written under a temporary name beside it, fsynced and renamed (:mod:`specscope.fsio`); in-place plans
(configs / index only) replace each JSON file that way.

The pattern follows compressed-tensors' checkpoint converter (validate every job before converting any) and
the safetensors fix for saving over a mapped file (never write into a source or a hardlinked file).
"""

from __future__ import annotations

import errno
import os
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from specscope.errors import SurgeryError
from specscope.fsio import copy_file_atomic, write_text_atomic
from specscope.surgery.configs import render_json
from specscope.surgery.plan import MANIFEST_NAME, SurgeryPlan, SurgeryResult
from specscope.surgery.shards import ShardWriter, read_header, sha256_bytes
from specscope.surgery.validate import PlanCheck, check_plan, output_hashes, read_manifest

if TYPE_CHECKING:
    from rich.progress import Progress

__all__ = ["PARTIAL_MARK", "apply_plan", "partial_folder"]

#: the marker in the name of a folder being built.
PARTIAL_MARK = ".specscope-partial-"


def partial_folder(out: Path, pid: int | None = None) -> Path:
    """The hidden sibling folder a new output is built in before it is renamed to ``out``."""
    return out.parent / f".{out.name}{PARTIAL_MARK}{os.getpid() if pid is None else pid}"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale_partials(out: Path) -> None:
    """Delete partial folders of ``out`` left by runs whose process is gone (killed mid-write)."""
    if not out.parent.is_dir():
        return
    for p in out.parent.glob(f".{out.name}{PARTIAL_MARK}*"):
        pid = p.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _pid_alive(int(pid)):
            shutil.rmtree(p, ignore_errors=True)


def _progress(enabled: bool, total_bytes: int) -> Progress:
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=not enabled,
        transient=True,  # cleared when done or on an error, so an error stays one line
    )


def _link_or_copy(src: Path, dst: Path) -> bool:
    """Hardlink ``src`` to ``dst``; copy when a link is impossible. True when linked."""
    try:
        os.link(src, dst)
        return True
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
            raise
    copy_file_atomic(src, dst)
    return False


def _write_all(plan: SurgeryPlan, folder: Path, result: SurgeryResult, progress: bool) -> None:
    for link in plan.links:
        (result.linked if _link_or_copy(link.src, folder / link.name) else result.copied).append(link.name)
    with _progress(progress, plan.shard_bytes) as prog:
        task = prog.add_task(plan.operation, total=plan.shard_bytes)
        for s in plan.shards:
            writer = ShardWriter(folder / s.name, [(t.name, t.dtype, t.shape) for t in s.tensors], s.metadata)
            try:
                for t in s.tensors:
                    prog.update(task, advance=writer.write(t.name, t.produce()))
                result.tensor_sha256.update(writer.close())
            except BaseException:
                writer.abort()
                raise
            result.written.append(s.name)
    for j in plan.jsons:
        write_text_atomic(folder / j.name, plan.json_text(j, result.tensor_sha256))
        result.written.append(j.name)


def _manifest(plan: SurgeryPlan, result: SurgeryResult, folder: Path, check: PlanCheck) -> dict[str, Any]:
    return {
        "operation": plan.operation,
        "source": str(plan.source),
        "inputs": [str(p) for p in plan.input_folders],
        "args": plan.args,
        "digest": plan.digest(),
        "written": result.written,
        "linked": result.linked,
        "copied": result.copied,
        "tensor_sha256": result.tensor_sha256,
        "output_sha256": output_hashes(folder),
        "input_sha256": check.input_sha256,
        "notes": plan.notes,
    }


def apply_plan(
    plan: SurgeryPlan, *, progress: bool = False, run_audit: bool = True, check: PlanCheck | None = None
) -> SurgeryResult:
    """Validate (unless ``check`` from :func:`check_plan` is given), write, verify, audit. See the module docstring.

    Raises:
        SurgeryError: validation failed, or verification failed; in both cases no ``--out`` folder is left.
    """
    t0 = time.perf_counter_ns()
    result = SurgeryResult(out=plan.out)
    check = check if check is not None else check_plan(plan)
    if check.up_to_date:
        man = _existing_manifest_hashes(plan.out)
        result.up_to_date = True
        result.tensor_sha256 = man
        if run_audit:  # the verdict again (headers only): a rerun said "audit:" and exit 0 for a failing output
            _audit(result, plan.out)
        result.elapsed_ns = time.perf_counter_ns() - t0
        return result
    if plan.in_place:
        _write_all(plan, plan.out, result, progress)
        _verify(plan, plan.out, result)
        if run_audit:
            _audit(result, plan.out)
        result.elapsed_ns = time.perf_counter_ns() - t0
        return result
    folder = partial_folder(plan.out)
    try:
        _remove_stale_partials(plan.out)
        plan.out.parent.mkdir(parents=True, exist_ok=True)
        folder.mkdir()
        _write_all(plan, folder, result, progress)
        _verify(plan, folder, result)
        if run_audit:
            _audit(result, folder)
        write_text_atomic(folder / MANIFEST_NAME, render_json(_manifest(plan, result, folder, check)))
        if plan.out.exists() or plan.out.is_symlink():
            raise SurgeryError(
                "output folder appeared while writing",
                found=str(plan.out),
                expected="a folder that does not exist yet",
                fix="another process wrote there; choose another --out",
            )
        os.rename(folder, plan.out)
    except OSError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise SurgeryError(
            "could not write the result; nothing was left at --out",
            found=f"{type(exc).__name__}: {exc}",
            expected="a writable disk with room for the result",
            fix="free space or choose another --out, then rerun",
        ) from None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    result.elapsed_ns = time.perf_counter_ns() - t0
    return result


def _existing_manifest_hashes(out: Path) -> dict[str, str]:
    man = read_manifest(out) or {}
    hashes = man.get("tensor_sha256")
    return dict(hashes) if isinstance(hashes, dict) else {}


def _verify(plan: SurgeryPlan, folder: Path, result: SurgeryResult) -> None:
    """Re-read every written tensor and compare hashes; links must share the source's inode (or bytes)."""
    for s in plan.shards:
        path = folder / s.name
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
    by_name = {x.name: x for x in plan.links}
    for name in result.linked:
        if not os.path.samefile(by_name[name].src, folder / name):
            raise SurgeryError(
                f"{name} is not a hardlink of the source",
                found=str(folder / name),
                expected=str(by_name[name].src),
                fix="rerun",
            )
    for name in result.copied:
        size = (folder / name).stat().st_size
        if size != by_name[name].nbytes:
            raise SurgeryError(
                f"copy of {name} has the wrong size",
                found=size,
                expected=by_name[name].nbytes,
                fix="check the disk; rerun",
            )


def _audit(result: SurgeryResult, folder: Path) -> None:
    """Run the checkpoint audit (``specscope.audit.audit_checkpoint``) on the written folder."""
    from specscope.audit import audit_checkpoint  # here, not at the top: the audit loads scipy

    report = audit_checkpoint(str(folder))
    result.audit_exit_code = int(report.exit_code)
    result.audit_findings.extend(f.to_dict() for f in report.findings)
