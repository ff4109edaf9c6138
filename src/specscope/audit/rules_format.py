"""Rules 1-2: safetensors headers are valid; the index and the shard headers agree tensor by tensor.

Sources: the safetensors format spec and reference parser (huggingface/safetensors ``safetensors/src/tensor.rs``),
transformers' sharded-checkpoint index (``model.safetensors.index.json``: ``weight_map`` and ``metadata.total_size``
= sum of tensor bytes), huggingface_hub issue #4725 (index entries absent from shards; case C02), osaurus-ai/vmlx-swift
PR #388 and sgl-project/sglang PR #32279 (loaders read only shards named by the index; case C03), and vLLM's
``safetensors_weights_iterator`` (every tensor of every indexed shard is yielded, so a stale copy in another shard
can overwrite the right one, depending on file order).
"""

from __future__ import annotations

import json
from dataclasses import replace

from specscope.audit.catalog import arg, finding
from specscope.audit.findings import Finding, Severity
from specscope.audit.rules_shards import SINGLE_FILE, check_copies, check_single_file, check_total_size
from specscope.checkpoint import INDEX_NAME, Checkpoint, shard_name_is_safe
from specscope.textsafe import clip

_VALUE_CHARS = 80  # a repeated key's value or name, as a finding shows it (a list of 10,000 ids stays readable)

__all__ = ["check_format", "check_index", "check_repeated_keys", "pickle_weights"]


def check_format(ck: Checkpoint) -> list[Finding]:
    """One ERROR per shard whose header violates the format (code = the parser's code, e.g. ``OFFSETS_GAP``),
    one ERROR per indexed shard that is missing, and INFO for an indexed shard that holds no tensors."""
    out: list[Finding] = []
    referenced = set(ck.weight_map.values())
    for name, why in sorted(ck.broken.items()):
        read = name.endswith((".safetensors", ".json", ".model", ".jinja"))  # what loaders open
        severity = Severity.ERROR if read else Severity.WARNING
        n = sum(1 for s in ck.weight_map.values() if s == name)
        role = f"{n} indexed tensors" if n else ("weights" if name.endswith(".safetensors") else "a file loaders read")
        out.append(finding("BROKEN_SYMLINK", file=name, why=why, role=role, severity=severity))
    if not ck.shards:
        pickles = pickle_weights(ck.files)
        if pickles:
            out.append(finding("NO_WEIGHTS/pickle", files=", ".join(pickles), details={"pickle_weights": pickles}))
        else:
            out.append(finding("NO_WEIGHTS"))
    # no shard there at all: `surgery reindex` has nothing to rebuild the index from, so the fix is the download
    present = any(not s.missing and n not in ck.broken for n, s in ck.shards.items())
    indexed = ", ".join(sorted(set(ck.weight_map.values())))
    for name, shard in sorted(ck.shards.items()):
        if name in ck.broken:
            continue  # BROKEN_SYMLINK above names it
        if shard.missing:
            held = sorted(t for t, s in ck.weight_map.items() if s == name)
            n = len(held)
            examples = f", e.g. {', '.join(held[:3])}" if held else ""
            details = {"indexed_tensors": n, "first_tensors": held[:8]}
            key = "INDEX_SHARD_MISSING" if present else "INDEX_SHARD_MISSING/none"
            out.append(finding(key, file=name, indexed=n, examples=examples, details=details, shards=indexed))
        elif shard.error is not None:
            e = shard.error
            f = finding(
                "SAFETENSORS_HEADER", file=name, tensor=e.tensor, message=e.message, found=e.found, expected=e.expected
            )
            out.append(replace(f, code=e.code, fix=e.fix or f.fix))  # the parser's code, and its fix when it has one
        elif shard.header is not None and not shard.header.tensors and name in referenced:
            out.append(finding("EMPTY_SHARD", file=name))
    for shard_name in sorted(set(ck.weight_map.values())):
        if not shard_name_is_safe(shard_name):
            out.append(finding("INDEX_SHARD_PATH_UNSAFE", file=INDEX_NAME, shard=shard_name))
    return out


#: files vLLM's loader drops from the pickle weights (``weight_utils.filter_files_not_needed_for_inference``).
_NOT_WEIGHTS = ("training_args.bin", "optimizer.bin", "optimizer.pt", "scheduler.pt", "scaler.pt")


def pickle_weights(files: dict[str, int]) -> list[str]:
    """The top-level PyTorch pickle files an engine loads when a folder has no ``*.safetensors``, sorted: vLLM
    ``default_loader.py`` @0e06f498 ``_prepare_weights`` takes the first of ``*.bin``, ``*.pt`` that matches (after
    ``*.safetensors``), less the training files it filters out."""
    for ext in (".bin", ".pt"):
        found = sorted(n for n in files if "/" not in n and n.endswith(ext) and not n.endswith(_NOT_WEIGHTS))
        if found:
            return found
    return []


def check_repeated_keys(ck: Checkpoint) -> list[Finding]:
    """``CONFIG_KEY_REPEATED`` (WARNING) for each key an object of a JSON file the checkpoint was read from
    (``config.json``, ``hf_quant_config.json``, the index) gives more than once: its values in file order, and the one
    read (the last, as ``json.loads`` and the engines' config loaders keep it)."""
    out: list[Finding] = []
    for name, repeats in sorted(ck.repeated_keys.items()):
        for rk in repeats:
            shown = [clip(json.dumps(v), _VALUE_CHARS) for v in rk.values]
            key = clip(json.dumps(rk.key), _VALUE_CHARS)
            where = f"{name}, object {clip(rk.path, _VALUE_CHARS)}" if rk.path else f"{name}, top-level object"
            details = {"key": rk.key, "path": rk.path, "values": list(rk.values), "read": rk.values[-1]}
            values, first, last = ", ".join(shown), shown[0], shown[-1]
            out.append(
                finding(
                    "CONFIG_KEY_REPEATED",
                    file=name,
                    where=where,
                    details=details,
                    name=key,
                    n=len(rk.values),
                    values=values,
                    first=first,
                    last=last,
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
                files = ", ".join(loc.shard for loc in locs)
                out.append(finding("DUPLICATE_TENSOR", file=files, tensor=name, copies=len(locs)))
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
        details = {**counts, "found_in": elsewhere}
        out.append(finding("INDEX_ENTRY_NOT_IN_SHARD", file=shard, tensor=tensor, where=where, details=details))

    for tensor, locs in sorted(ck.locations.items()):
        want = ck.weight_map.get(tensor)
        for loc in locs:
            if loc.shard not in referenced or loc.shard == want:
                continue
            if want is None:
                out.append(finding("TENSOR_NOT_INDEXED", file=loc.shard, tensor=tensor, checkpoint=arg(ck.label)))

    for name, h in sorted(readable.items()):
        if name in referenced or not name.endswith(".safetensors") or name == SINGLE_FILE:
            continue  # a single model.safetensors beside an index: SINGLE_FILE_SHADOWS_INDEX
        details = {"tensors": len(h.tensors), "tensor_bytes": h.tensor_bytes}
        out.append(
            finding(
                "UNREFERENCED_SHARD",
                file=name,
                tensors=len(h.tensors),
                nbytes=h.tensor_bytes,
                checkpoint=arg(ck.label),
                details=details,
            )
        )

    return out + check_copies(ck) + check_total_size(ck) + check_single_file(ck)
