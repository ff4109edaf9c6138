"""Atomic surgery (issue 17 part 3): a killed or failed run leaves no folder that looks like a result, "up to
date" needs matching output and input SHA-256, --out inside a source is refused, free space counts copies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from conftest import make_qwen36_checkpoint, mtp_tensors, tree_hashes, write_safetensors
from hangguard import HANG_S
from specscope.cli import main
from specscope.errors import CheckpointError, SurgeryError
from specscope.surgery import PlanCheck, apply_plan, plan_graft, plan_reindex
from specscope.surgery.apply import PARTIAL_MARK
from specscope.surgery.validate import copy_bytes_needed


def _partials(out: Path) -> list[Path]:
    return sorted(out.parent.glob(f".{out.name}{PARTIAL_MARK}*"))


def test_rerun_after_the_donor_changed_is_not_up_to_date(tmp_path: Path):
    target = make_qwen36_checkpoint(tmp_path / "t", seed=0)
    src = make_qwen36_checkpoint(tmp_path / "s", seed=1)
    out = tmp_path / "g"
    apply_plan(plan_graft(target, src, "mtp.", out))
    # same names, dtypes and shapes (so the same plan digest), other values
    changed = mtp_tensors(seed=99)
    shard3 = src / "model-00003-of-00003.safetensors"
    keep = {n: a for n, a in changed.items() if n != "mtp.fc.weight" and len(a.shape) == 2}
    write_safetensors(shard3, keep)
    with pytest.raises(SurgeryError, match="an input file changed") as info:
        apply_plan(plan_graft(target, src, "mtp.", out))
    assert "1/model-00003-of-00003.safetensors changed" in info.value.one_line()


def test_rerun_after_the_output_was_corrupted_or_deleted_is_not_up_to_date(tmp_path: Path):
    target = make_qwen36_checkpoint(tmp_path / "t", seed=0)
    src = make_qwen36_checkpoint(tmp_path / "s", seed=1)
    out = tmp_path / "g"
    apply_plan(plan_graft(target, src, "mtp.", out))
    shard = out / "model-mtp.safetensors"
    data = bytearray(shard.read_bytes())
    data[-1] ^= 0xFF
    shard.write_bytes(bytes(data))
    with pytest.raises(SurgeryError, match="an output file changed") as info:
        apply_plan(plan_graft(target, src, "mtp.", out))
    assert "model-mtp.safetensors changed" in info.value.one_line()
    shard.unlink()
    with pytest.raises(SurgeryError, match="an output file changed") as info:
        apply_plan(plan_graft(target, src, "mtp.", out))
    assert "model-mtp.safetensors missing" in info.value.one_line()


def test_out_inside_a_source_is_refused_and_nothing_is_written(tmp_path: Path):
    target = make_qwen36_checkpoint(tmp_path / "t", seed=0)
    src = make_qwen36_checkpoint(tmp_path / "s", seed=1)
    before = tree_hashes(target), tree_hashes(src)
    for out in (target / "sub", src / "deeper" / "g"):
        with pytest.raises(SurgeryError, match="inside"):
            apply_plan(plan_graft(target, src, "mtp.", out))
    assert (tree_hashes(target), tree_hashes(src)) == before
    assert not (target / "sub").exists() and not (src / "deeper").exists()


def test_out_under_missing_folders_is_created(tmp_path: Path):
    target = make_qwen36_checkpoint(tmp_path / "t", seed=0)
    out = tmp_path / "a" / "b" / "r"
    apply_plan(plan_reindex(target, out), run_audit=False)
    assert (out / "model.safetensors.index.json").is_file() and _partials(out) == []


def test_a_run_that_fails_midway_leaves_no_output_folder(tmp_path: Path):
    target = make_qwen36_checkpoint(tmp_path / "t", seed=0)
    src = make_qwen36_checkpoint(tmp_path / "s", seed=1)
    plan = plan_graft(target, src, "mtp.", tmp_path / "g")
    shard = src / "model-00003-of-00003.safetensors"
    os.truncate(shard, shard.stat().st_size - 100)  # the donor loses its tail between planning and writing
    with pytest.raises(CheckpointError, match="short read"):
        apply_plan(plan)
    assert not plan.out.exists() and _partials(plan.out) == []


def test_proc_is_refused_with_a_clear_line(tmp_path: Path):
    target = make_qwen36_checkpoint(tmp_path / "t", seed=0)
    with pytest.raises(SurgeryError) as info:
        apply_plan(plan_reindex(target, Path("/proc/specscope-out")))
    assert "0 bytes free" not in info.value.one_line()
    assert info.value.one_line().startswith(("--out is on a filesystem that cannot hold files", "cannot create"))


@pytest.mark.skipif(not os.access("/dev/shm", os.W_OK), reason="needs a second filesystem (/dev/shm)")
def test_free_space_counts_links_that_must_be_copied(tmp_path: Path):
    shm = Path("/dev/shm") / f"specscope-test-{os.getpid()}"
    try:
        target = make_qwen36_checkpoint(shm / "t", seed=0)
        plan = plan_reindex(target, tmp_path / "r")
        files = sorted(target.iterdir())  # the index is already right: every file is linked
        if os.stat(shm).st_dev == os.stat(tmp_path).st_dev:
            pytest.skip("/dev/shm is on the same filesystem here")
        assert copy_bytes_needed(plan) == sum(p.stat().st_size for p in files)
        assert copy_bytes_needed(plan_reindex(target, shm / "r2")) == 0  # same filesystem: hardlinks
    finally:
        subprocess.run(["rm", "-rf", str(shm)], check=False)


def _state(pid: int) -> str:
    """The process state letter of ``pid`` from /proc (R, S, D, T, Z, ...); "" when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[-1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return ""


def _stopped_while_partial(proc: subprocess.Popen[bytes], out: Path) -> bool:
    """Look for the partial folder with the child stopped (SIGSTOP, then its state is T), and leave it stopped once the
    partial folder is there and ``out`` is not; True then. Each look sees a state the child cannot change before the
    caller's kill (issue 37: polling a running child, a loaded machine could let it rename the partial folder to
    ``out`` between the look and the kill). False when the child ended first (or after the hang guard)."""
    deadline = time.monotonic() + HANG_S
    while proc.poll() is None and time.monotonic() < deadline:
        os.kill(proc.pid, signal.SIGSTOP)
        while _state(proc.pid) not in ("T", "Z", "") and time.monotonic() < deadline:
            time.sleep(0.0005)
        if _partials(out) and not out.exists():
            return True
        os.kill(proc.pid, signal.SIGCONT)
        time.sleep(0.001)
    return False


def test_killed_surgery_leaves_no_output_folder(tmp_path: Path):
    target = make_qwen36_checkpoint(tmp_path / "t", seed=0)
    src = make_qwen36_checkpoint(tmp_path / "s", seed=1)
    # a big donor tensor so that writing and verifying take a while: 48 MiB of BF16
    big = np.zeros((4096, 6144), dtype=ml_dtypes.bfloat16)
    write_safetensors(src / "model-00004-extra.safetensors", {"mtp.big.weight": big})
    out = tmp_path / "g"
    env = {k: v for k, v in os.environ.items() if k != "SPECSCOPE_DEBUG"}
    cmd = [sys.executable, "-m", "specscope", "surgery", "graft", str(target), "--from", str(src), "--out", str(out)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert _stopped_while_partial(proc, out), "the partial folder never appeared"
    proc.send_signal(signal.SIGKILL)  # the child is stopped (SIGSTOP) with its partial folder there and no --out
    proc.wait(timeout=HANG_S)
    assert proc.returncode == -signal.SIGKILL
    assert not out.exists()  # only the hidden partial folder is left
    assert [p.name for p in _partials(out)] == [f".g{PARTIAL_MARK}{proc.pid}"]
    result = apply_plan(plan_graft(target, src, "mtp.", out), run_audit=False)  # a rerun cleans up and finishes
    assert not result.up_to_date and (out / "specscope-surgery.json").is_file()
    assert _partials(out) == []


def test_refusal_in_text_mode_is_one_line_without_the_plan(tmp_path: Path, capsys, monkeypatch):
    monkeypatch.delenv("SPECSCOPE_DEBUG", raising=False)
    target = make_qwen36_checkpoint(tmp_path / "t", seed=0)
    with pytest.raises(SystemExit) as info:
        main(["surgery", "reindex", str(target), "--out", str(target / "sub")])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.count("\n") == 1 and err.startswith("error: output folder is the source or inside it")


@pytest.fixture
def small_disk(tmp_path: Path):
    """A tmpfs mounted for the test (root only); yields ``mount(size_bytes) -> Path``."""
    mounts: list[Path] = []

    def mount(size_bytes: int) -> Path:
        where = tmp_path / f"disk{len(mounts)}"
        where.mkdir()
        p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_bytes}", "tmpfs", str(where)], check=False)
        if p.returncode != 0:
            pytest.skip("cannot mount a tmpfs here")
        mounts.append(where)
        return where

    yield mount
    for where in mounts:
        subprocess.run(["umount", str(where)], check=False)


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_free_space_check_counts_the_copies_a_small_disk_cannot_hold(tmp_path: Path, small_disk):
    target = make_qwen36_checkpoint(tmp_path / "t", seed=0)
    src = make_qwen36_checkpoint(tmp_path / "s", seed=1)
    probe = plan_graft(target, src, "mtp.", tmp_path / "probe")
    linked = sum(link.nbytes for link in probe.links)
    assert linked > 5 * 4096  # shard 1 and the tokenizer: linked on one filesystem, copied across two
    page = 4096
    room = probe.bytes_to_write + (16 << 20) + linked // 2  # enough to write, not enough to also copy
    disk = small_disk(room // page * page)
    with pytest.raises(SurgeryError, match="not enough free space") as info:
        apply_plan(plan_graft(target, src, "mtp.", disk / "g"))
    assert f"{linked:,} to copy across filesystems" in info.value.one_line()
    assert list(disk.iterdir()) == []
    big = small_disk((probe.bytes_to_write + (16 << 20) + 2 * linked) // page * page + 64 * page)
    result = apply_plan(plan_graft(target, src, "mtp.", big / "g"), run_audit=False)
    assert sorted(result.copied) == sorted(link.name for link in probe.links) and result.linked == []


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_disk_full_while_writing_is_one_error_and_leaves_nothing(tmp_path: Path, small_disk):
    target = make_qwen36_checkpoint(tmp_path / "t", seed=0)
    src = make_qwen36_checkpoint(tmp_path / "s", seed=1)
    disk = small_disk(8 * 4096)  # far too small; the free-space check is skipped by passing a check result
    plan = plan_graft(target, src, "mtp.", disk / "g")
    with pytest.raises(SurgeryError, match="could not write the result") as info:
        apply_plan(plan, check=PlanCheck(up_to_date=False), run_audit=False)
    assert "No space left on device" in info.value.one_line()
    assert list(disk.iterdir()) == []  # no result, no partial folder, no temp file
