"""Plan: drop the tensors a shard holds that the index does not assign to it (``surgery prune-unindexed``).

The repair for the audit's ``STALE_TENSOR_COPY`` / ``SHARD_UNINDEXED_TENSORS`` / ``TENSOR_NOT_INDEXED`` when the
index is right and the shards carry leftovers (``surgery reindex`` refuses such a folder: a tensor stored twice is
ambiguous for it). The index is the truth here: each indexed shard keeps exactly the tensors the index maps to it,
byte for byte; a shard that loses nothing is hardlinked, one that loses some is rewritten under the same name,
shards the index does not name are left out (their tensors are all unindexed). The source is never modified:
the result is a new folder, validated before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from specscope.checkpoint.header import SafetensorsHeader
from specscope.checkpoint.schema import read_config_file
from specscope.errors import SurgeryError
from specscope.surgery.graft import _other_files, build_index
from specscope.surgery.plan import JsonJob, LinkJob, ShardJob, SurgeryPlan, TensorJob
from specscope.surgery.shards import INDEX_NAME, Checkpoint, read_header, require_folder
from specscope.textsafe import shell_word

__all__ = ["plan_prune_unindexed"]


def _load_index(root: Path) -> dict[str, Any] | None:
    require_folder(root, "a folder")
    # bounded, type-checked (checkpoint.schema): a broken index is one CheckpointError, never a traceback
    return read_config_file(
        root / INDEX_NAME, fix=f"rebuild it: `specscope surgery reindex {shell_word(root)} --out NEW_FOLDER`"
    )


def _reader(root: Path, shard: str, header: SafetensorsHeader, name: str) -> Callable[[], bytes]:
    """Bytes of ``name`` from that one shard (a stale copy elsewhere has the same name, so never by name alone)."""
    one = Checkpoint(root, {shard: header}, None, {t.name: shard for t in header.tensors})
    return lambda: one.read_bytes(name)


def plan_prune_unindexed(src: str | Path, out: str | Path) -> SurgeryPlan:
    """Plan a copy of ``src`` whose shards hold exactly what its index assigns to them (see the module docstring).

    Raises:
        SurgeryError: no index (nothing says what belongs where), or an index entry whose shard lacks the tensor
            (that is a broken index: ``surgery reindex`` or a re-download, not a prune).
        CheckpointError: not a checkpoint folder.
    """
    root = Path(src)
    index = _load_index(root)
    if index is None:
        raise SurgeryError(
            "prune-unindexed needs an index",
            found=f"no {INDEX_NAME} in {root}",
            expected="a sharded checkpoint with an index",
            fix="nothing to prune: a single file has no index to compare against",
        )
    wm: dict[str, str] = dict(index.get("weight_map") or {})
    headers = {p.name: read_header(p) for p in sorted(root.glob("*.safetensors")) if p.is_file()}
    missing = sorted(n for n, s in wm.items() if s not in headers or n not in headers[s].by_name)
    if missing:
        raise SurgeryError(
            f"{len(missing)} index entries name a tensor their shard does not hold",
            found=missing[:5],
            expected="every index entry present in its shard",
            fix=f"repair the index first (`specscope surgery reindex {shell_word(root)} --out NEW_FOLDER`) or "
            "re-download the shard",
        )
    plan = SurgeryPlan("prune-unindexed", root, Path(out), args={})
    kept: dict[str, str] = {}
    total = 0
    for shard, header in headers.items():
        keep = [t for t in header.tensors if wm.get(t.name) == shard]
        dropped = len(header.tensors) - len(keep)
        kept.update({t.name: shard for t in keep})
        total += sum(t.nbytes for t in keep)
        if not keep:
            plan.notes.append(f"{shard} is left out ({len(header.tensors)} tensors, none assigned to it by the index)")
        elif not dropped:
            plan.links.append(LinkJob(shard, root / shard, header.file_size_bytes))
        else:
            jobs = [
                TensorJob(
                    t.name, t.dtype, t.shape, _reader(root, shard, header, t.name), origin=f"copy of {shard}:{t.name}"
                )
                for t in keep
            ]
            plan.shards.append(ShardJob(shard, jobs, dict(header.metadata) or {"format": "pt"}))
            gone = sum(t.nbytes for t in header.tensors) - sum(t.nbytes for t in keep)
            plan.notes.append(f"{shard} is rewritten without {dropped} tensors ({gone:,} bytes) the index does not map")
    ck = Checkpoint(root, headers, index, {})
    plan.links += _other_files(ck, skip={INDEX_NAME})
    plan.jsons.append(JsonJob(INDEX_NAME, build_index(ck, kept, total), index, indent=2))
    if not plan.notes:
        plan.notes.append("every shard already holds only what the index assigns to it")
    return plan
