"""Rule 2b: what sits in the shards besides what the index assigns there; ``total_size``; a single file beside an index.

Sources: vLLM's ``safetensors_weights_iterator`` (every tensor of every indexed shard is yielded, so a stale copy in
another shard can overwrite the one the index picks, depending on file order), transformers' ``modeling_utils``
(``model.safetensors`` is looked for before ``model.safetensors.index.json``: a single file beside an index wins and
the index is never read), transformers' sharded-checkpoint index (``metadata.total_size`` = bytes of the tensors the
index lists), and huggingface_hub issue #4725 (case C02).

Codes:

- ``STALE_TENSOR_COPY`` (WARNING): a tensor the index assigns to one shard also has a copy in another indexed shard;
  names both copies (dtype, shape, bytes) and the shard the index picks.
- ``SHARD_UNINDEXED_TENSORS`` (INFO): per indexed shard, the tensors it holds that the index does not assign to it
  (unindexed names and stale copies), with their bytes; the fix is ``specscope surgery prune-unindexed``.
- ``INDEX_TOTAL_SIZE_MISMATCH`` (WARNING): ``total_size`` differs from the bytes of the tensors the index lists
  (each counted once, in the shard the index names; unindexed tensors do not count).
- ``SINGLE_FILE_SHADOWS_INDEX`` (ERROR): ``model.safetensors`` sits beside an index that does not list it, or that
  lists tensors in other shards: loaders that find the single file load it alone.
"""

from __future__ import annotations

from specscope.audit.findings import Finding, Severity
from specscope.checkpoint import INDEX_NAME, Checkpoint
from specscope.checkpoint.header import TensorInfo

__all__ = ["check_copies", "check_total_size", "check_single_file", "SINGLE_FILE"]

SINGLE_FILE = "model.safetensors"


def _desc(info: TensorInfo) -> dict[str, object]:
    return {"dtype": info.dtype, "shape": list(info.shape), "bytes": info.nbytes}


def _text(shard: str, info: TensorInfo) -> str:
    return f"{shard} ({info.dtype} {list(info.shape)}, {info.nbytes:,} bytes)"


def _stale(tensor: str, want: str, picked: TensorInfo, shard: str, stale: TensorInfo) -> Finding:
    same = (picked.dtype, picked.shape, picked.nbytes) == (stale.dtype, stale.shape, stale.nbytes)
    how = "same dtype and shape" if same else "they differ"
    return Finding(
        Severity.WARNING,
        "STALE_TENSOR_COPY",
        f"{tensor} has a second copy in {_text(shard, stale)}; the index picks {_text(want, picked)} ({how})",
        file=shard,
        tensor=tensor,
        found=f"copies in {want} and {shard}",
        expected=f"one copy, in {want} (the index is right)",
        consequence="loaders that read every tensor of every indexed shard may load the stale copy, "
        "depending on file order",
        fix="specscope surgery prune-unindexed CHECKPOINT --out NEW_FOLDER (drops tensors the index does not "
        "assign to their shard; writes a new folder)",
        details={
            "index_shard": want,
            "index_copy": _desc(picked),
            "shadowing_shard": shard,
            "stale_copy": _desc(stale),
            "identical_header": same,
        },
    )


def check_copies(ck: Checkpoint) -> list[Finding]:
    """``STALE_TENSOR_COPY`` per stale copy and ``SHARD_UNINDEXED_TENSORS`` per indexed shard (index only)."""
    if ck.index is None:
        return []
    out: list[Finding] = []
    referenced = set(ck.weight_map.values())
    extra: dict[str, list[tuple[str, int, bool]]] = {}  # shard -> (tensor, bytes, is_stale_copy)
    for tensor, locs in sorted(ck.locations.items()):
        want = ck.weight_map.get(tensor)
        picked = next((loc.info for loc in locs if loc.shard == want), None)
        for loc in locs:
            if loc.shard not in referenced or loc.shard == want:
                continue
            extra.setdefault(loc.shard, []).append((tensor, loc.info.nbytes, want is not None))
            if want is not None and picked is not None:
                out.append(_stale(tensor, want, picked, loc.shard, loc.info))
    for shard, items in sorted(extra.items()):
        n_bytes = sum(b for _, b, _ in items)
        n_stale = sum(1 for *_, s in items if s)
        out.append(
            Finding(
                Severity.INFO,
                "SHARD_UNINDEXED_TENSORS",
                f"{shard}: {len(items)} tensors ({n_bytes:,} bytes) the index does not assign to it "
                f"({len(items) - n_stale} unindexed, {n_stale} copies of tensors indexed elsewhere)",
                file=shard,
                tensor=items[0][0],
                found=f"{len(items)} tensors, {n_bytes} bytes",
                expected="only the tensors the index assigns to this shard",
                consequence="dead weight on disk and in downloads; shard-iterating loaders may load them",
                fix=f"specscope surgery prune-unindexed {ck.label} --out NEW_FOLDER",
                details={
                    "tensors": len(items),
                    "tensor_bytes": n_bytes,
                    "unindexed": len(items) - n_stale,
                    "stale_copies": n_stale,
                    "names": [t for t, _, _ in items],
                },
            )
        )
    return out


def indexed_tensor_bytes(ck: Checkpoint) -> int:
    """Bytes of the tensors the index lists, each read from the shard the index names (absent ones count 0)."""
    total = 0
    for tensor, shard in ck.weight_map.items():
        s = ck.shards.get(shard)
        info = s.header.by_name.get(tensor) if s is not None and s.header is not None else None
        total += info.nbytes if info is not None else 0
    return total


def check_total_size(ck: Checkpoint) -> list[Finding]:
    """``INDEX_TOTAL_SIZE_MISMATCH`` when ``metadata.total_size`` != :func:`indexed_tensor_bytes`."""
    declared = ck.index_total_size_bytes
    if declared is None:
        return []
    measured = indexed_tensor_bytes(ck)
    if measured == declared:
        return []
    diff = declared - measured
    return [
        Finding(
            Severity.WARNING,
            "INDEX_TOTAL_SIZE_MISMATCH",
            f"metadata.total_size {declared:,} != {measured:,} bytes of the tensors the index lists "
            f"(difference {diff:,} bytes)",
            file=INDEX_NAME,
            found=f"{declared} bytes declared",
            expected=f"{measured} bytes (sum of the indexed tensors' header spans)",
            consequence="tools that size downloads or memory from the index are off; often a sign of a "
            "missing or extra tensor",
            fix="regenerate the index",
            details={"declared_bytes": declared, "measured_bytes": measured, "difference_bytes": diff},
        )
    ]


def check_single_file(ck: Checkpoint) -> list[Finding]:
    """``SINGLE_FILE_SHADOWS_INDEX`` for a ``model.safetensors`` beside an index that does not cover it alone."""
    single = ck.shards.get(SINGLE_FILE)
    if ck.index is None or single is None or single.header is None:
        return []
    elsewhere = sorted({s for s in ck.weight_map.values() if s != SINGLE_FILE})
    listed = SINGLE_FILE in set(ck.weight_map.values())
    if listed and not elsewhere:
        return []
    hidden = sum(1 for s in ck.weight_map.values() if s != SINGLE_FILE)
    how = "is listed by the index together with" if listed else "is not listed by the index, which names"
    return [
        Finding(
            Severity.ERROR,
            "SINGLE_FILE_SHADOWS_INDEX",
            f"{SINGLE_FILE} ({len(single.header.tensors)} tensors, {single.header.tensor_bytes:,} bytes) {how} "
            f"{', '.join(elsewhere)}: loaders that find {SINGLE_FILE} load it alone and never read the index",
            file=SINGLE_FILE,
            found=f"{SINGLE_FILE} beside {INDEX_NAME} ({hidden} indexed tensors in other shards)",
            expected=f"no {SINGLE_FILE} beside an index (rename it, e.g. model_backbone.safetensors, and index it)",
            consequence="transformers checks the single file first: the tensors in the other shards (a grafted "
            "head) are silently ignored",
            fix=f"rename {SINGLE_FILE} to model_backbone.safetensors and rebuild the index (specscope surgery "
            "reindex), or redo the graft with this specscope",
            details={"single_file_tensors": len(single.header.tensors), "indexed_elsewhere": hidden},
        )
    ]
