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
  (each counted once, in the shard the index names; unindexed tensors do not count); not judged while a shard the
  index names is absent or unreadable.
- ``SINGLE_FILE_SHADOWS_INDEX`` (ERROR): ``model.safetensors`` sits beside an index that does not list it, or that
  lists tensors in other shards: loaders that find the single file load it alone.
"""

from __future__ import annotations

from specscope.audit.catalog import arg, finding
from specscope.audit.findings import Finding
from specscope.checkpoint import INDEX_NAME, Checkpoint
from specscope.checkpoint.header import TensorInfo

__all__ = ["check_copies", "check_total_size", "check_single_file", "SINGLE_FILE"]

SINGLE_FILE = "model.safetensors"


def _desc(info: TensorInfo) -> dict[str, object]:
    return {"dtype": info.dtype, "shape": list(info.shape), "bytes": info.nbytes}


def _text(shard: str, info: TensorInfo) -> str:
    return f"{shard} ({info.dtype} {list(info.shape)}, {info.nbytes:,} bytes)"


def _stale(tensor: str, want: str, picked: TensorInfo, shard: str, stale: TensorInfo, checkpoint: str) -> Finding:
    same = (picked.dtype, picked.shape, picked.nbytes) == (stale.dtype, stale.shape, stale.nbytes)
    how = "same dtype and shape" if same else "they differ"
    return finding(
        "STALE_TENSOR_COPY",
        file=shard,
        tensor=tensor,
        stale=_text(shard, stale),
        picked=_text(want, picked),
        how=how,
        want=want,
        checkpoint=arg(checkpoint),
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
                out.append(_stale(tensor, want, picked, loc.shard, loc.info, ck.label))
    for shard, items in sorted(extra.items()):
        n_bytes = sum(b for _, b, _ in items)
        n_stale = sum(1 for *_, s in items if s)
        out.append(
            finding(
                "SHARD_UNINDEXED_TENSORS",
                file=shard,
                tensor=items[0][0],
                tensors=len(items),
                nbytes=n_bytes,
                unindexed=len(items) - n_stale,
                stale=n_stale,
                checkpoint=arg(ck.label),
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
    """``INDEX_TOTAL_SIZE_MISMATCH`` when ``metadata.total_size`` != :func:`indexed_tensor_bytes`. Not judged while
    a shard the index names is absent or unreadable: its tensors' bytes are unknown, not 0 (``INDEX_SHARD_MISSING``
    and the header findings name it); a tensor missing from a shard that is there counts 0 (case C02)."""
    declared = ck.index_total_size_bytes
    unread = any(ck.shards.get(shard) is None or ck.shards[shard].header is None for shard in ck.weight_map.values())
    if declared is None or unread:
        return []
    measured = indexed_tensor_bytes(ck)
    if measured == declared:
        return []
    diff = declared - measured
    return [
        finding(
            "INDEX_TOTAL_SIZE_MISMATCH",
            file=INDEX_NAME,
            declared=declared,
            measured=measured,
            difference=diff,
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
    own = [t.name for t in single.header.tensors]
    copies = sum(1 for n in own if any(loc.shard != SINGLE_FILE for loc in ck.locations.get(n, [])))
    variant = "SINGLE_FILE_SHADOWS_INDEX"
    if own and copies == len(own):
        variant += "/duplicate"  # renaming it would leave two copies of every tensor: delete it
    elif copies:
        variant += "/partial"
    return [
        finding(
            variant,
            file=SINGLE_FILE,
            tensors=len(single.header.tensors),
            nbytes=single.header.tensor_bytes,
            how=how,
            elsewhere=", ".join(elsewhere),
            index=INDEX_NAME,
            hidden=hidden,
            checkpoint=arg(ck.label),
            copies=copies,
            single=arg(f"{ck.label}/{SINGLE_FILE}"),
            details={"single_file_tensors": len(own), "indexed_elsewhere": hidden, "copies_elsewhere": copies},
        )
    ]
