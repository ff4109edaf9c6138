"""Rules 1-2: safetensors headers are valid; the index and the shard headers agree tensor by tensor.

Sources: the safetensors format spec and reference parser (huggingface/safetensors ``safetensors/src/tensor.rs``),
transformers' sharded-checkpoint index (``model.safetensors.index.json``: ``weight_map`` and ``metadata.total_size``
= sum of tensor bytes), huggingface_hub issue #4725 (index entries absent from shards; case C02), osaurus-ai/vmlx-swift
PR #388 and sgl-project/sglang PR #32279 (loaders read only shards named by the index; case C03), and vLLM's
``safetensors_weights_iterator`` (every tensor of every indexed shard is yielded, so a stale copy in another shard
can overwrite the right one, depending on file order).
"""

from __future__ import annotations

from specscope.audit.findings import Finding, Severity
from specscope.audit.rules_shards import SINGLE_FILE, check_copies, check_single_file, check_total_size
from specscope.checkpoint import INDEX_NAME, Checkpoint, shard_name_is_safe

__all__ = ["check_format", "check_index"]

_HEADER_CONSEQUENCE = "loaders refuse the file (or, for lenient readers, load wrong bytes)"


def check_format(ck: Checkpoint) -> list[Finding]:
    """One ERROR per shard whose header violates the format (code = the parser's code, e.g. ``OFFSETS_GAP``),
    one ERROR per indexed shard that is missing, and INFO for an indexed shard that holds no tensors."""
    out: list[Finding] = []
    referenced = set(ck.weight_map.values())
    if not ck.shards:
        out.append(
            Finding(
                Severity.WARNING,
                "NO_WEIGHTS",
                "no safetensors weights found: only the configs were audited",
                found="no *.safetensors file and no index",
                expected="model.safetensors or shards named by model.safetensors.index.json",
                consequence="nothing to serve: the engine fails at load (or a *.bin checkpoint is loaded unaudited)",
                fix="download the weights, or point specscope audit at the folder that holds them",
            )
        )
    for name, shard in sorted(ck.shards.items()):
        if shard.missing:
            n = sum(1 for s in ck.weight_map.values() if s == name)
            out.append(
                Finding(
                    Severity.ERROR,
                    "INDEX_SHARD_MISSING",
                    f"shard named by the index does not exist: {name}",
                    file=name,
                    found="file absent",
                    expected=f"{name} ({n} indexed tensors)",
                    consequence="loading fails, or the tensors it should hold are silently absent",
                    fix="download the missing shard or regenerate the index",
                    details={"indexed_tensors": n},
                )
            )
        elif shard.error is not None:
            e = shard.error
            out.append(
                Finding(
                    Severity.ERROR,
                    e.code,
                    f"invalid safetensors header: {e.message}",
                    file=name,
                    tensor=e.tensor,
                    found=str(e.found),
                    expected=str(e.expected),
                    consequence=_HEADER_CONSEQUENCE,
                    fix=e.fix or "re-export or re-download the file",
                )
            )
        elif shard.header is not None and not shard.header.tensors and name in referenced:
            out.append(
                Finding(
                    Severity.INFO,
                    "EMPTY_SHARD",
                    f"{name} holds no tensors",
                    file=name,
                    found="0 tensors",
                    expected=">= 1 tensor",
                )
            )
    for shard_name in sorted(set(ck.weight_map.values())):
        if not shard_name_is_safe(shard_name):
            out.append(
                Finding(
                    Severity.ERROR,
                    "INDEX_SHARD_PATH_UNSAFE",
                    f"index names a shard outside the folder: {shard_name}",
                    file=INDEX_NAME,
                    found=shard_name,
                    expected="a relative file name inside the checkpoint folder",
                    consequence="a loader may read a file outside the checkpoint",
                    fix="fix the weight_map entry",
                )
            )
    return out


def check_index(ck: Checkpoint) -> list[Finding]:
    """Index <-> header agreement (only when an index exists).

    Codes: ``INDEX_ENTRY_NOT_IN_SHARD`` (ERROR; details say whether the tensor is elsewhere), ``TENSOR_NOT_INDEXED``
    (WARNING), ``UNREFERENCED_SHARD`` (WARNING), ``DUPLICATE_TENSOR`` (ERROR, no index), and those of
    :mod:`.rules_shards` (``STALE_TENSOR_COPY``, ``SHARD_UNINDEXED_TENSORS``, ``INDEX_TOTAL_SIZE_MISMATCH``,
    ``SINGLE_FILE_SHADOWS_INDEX``).
    """
    out: list[Finding] = []
    if ck.index is None:
        for name, locs in sorted(ck.locations.items()):
            if len(locs) > 1:
                out.append(
                    Finding(
                        Severity.ERROR,
                        "DUPLICATE_TENSOR",
                        f"{name} is stored in {len(locs)} files",
                        tensor=name,
                        file=", ".join(loc.shard for loc in locs),
                        found=f"{len(locs)} copies",
                        expected="1 copy",
                        consequence="which copy is loaded depends on file order",
                        fix="delete the stale copy",
                    )
                )
        return out

    readable = {n: s.header for n, s in ck.shards.items() if s.header is not None}
    referenced = set(ck.weight_map.values())
    header_names_referenced = {t.name for n, h in readable.items() if n in referenced for t in h.tensors}
    orphans = []
    for tensor, shard in sorted(ck.weight_map.items()):
        h = readable.get(shard)
        if h is None:
            continue  # missing/invalid shard reported by check_format
        if tensor not in h.by_name:
            orphans.append((tensor, shard))
    counts = {
        "index_entries": len(ck.weight_map),
        "tensors_in_headers": len(header_names_referenced),
        "orphan_index_entries": len(orphans),
    }
    for tensor, shard in orphans:
        elsewhere = [loc.shard for loc in ck.locations.get(tensor, [])]
        where = f"found in {', '.join(elsewhere)} instead" if elsewhere else "not in any shard either (missing)"
        out.append(
            Finding(
                Severity.ERROR,
                "INDEX_ENTRY_NOT_IN_SHARD",
                f"index maps {tensor} -> {shard}, but that shard's header has no such tensor; {where}",
                file=shard,
                tensor=tensor,
                found=f"absent from {shard}",
                expected=f"{tensor} in {shard}",
                consequence="the tensor is missing at load time (left uninitialised or load fails)",
                fix="regenerate the index from the shard headers, or restore the tensor",
                details={**counts, "found_in": elsewhere},
            )
        )

    for tensor, locs in sorted(ck.locations.items()):
        want = ck.weight_map.get(tensor)
        for loc in locs:
            if loc.shard not in referenced or loc.shard == want:
                continue
            if want is None:
                out.append(
                    Finding(
                        Severity.WARNING,
                        "TENSOR_NOT_INDEXED",
                        f"{tensor} is in {loc.shard} but not in the index",
                        file=loc.shard,
                        tensor=tensor,
                        found="no weight_map entry",
                        expected=f"{tensor} -> {loc.shard}",
                        consequence="index-driven tools do not see it; shard-iterating loaders still load it",
                        fix="index it (specscope surgery reindex) if it belongs, or drop it (specscope surgery "
                        "prune-unindexed CHECKPOINT --out NEW_FOLDER)",
                    )
                )

    for name, h in sorted(readable.items()):
        if name in referenced or not name.endswith(".safetensors") or name == SINGLE_FILE:
            continue  # a single model.safetensors beside an index: SINGLE_FILE_SHADOWS_INDEX
        nbytes = h.tensor_bytes
        out.append(
            Finding(
                Severity.WARNING,
                "UNREFERENCED_SHARD",
                f"{name} ({len(h.tensors)} tensors, {nbytes:,} bytes) is not referenced by the index",
                file=name,
                found="0 weight_map entries",
                expected=f"{len(h.tensors)} entries pointing at it",
                consequence="vLLM and SGLang load only the shards the index names: its tensors are silently ignored",
                fix="add its tensors to the index (specscope surgery reindex) or delete the file",
                details={"tensors": len(h.tensors), "tensor_bytes": nbytes},
            )
        )

    return out + check_copies(ck) + check_total_size(ck) + check_single_file(ck)
