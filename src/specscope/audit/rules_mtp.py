"""Rule 3: the MTP / next-n head the config declares is complete, indexed and correctly shaped.

Sources: seed 000 (Qwen3.6-27B uploads before 2026-07-21 lack ``mtp.fc.weight`` [5120, 10240] BF16; vLLM serves them
without error and rejects every draft), vLLM PR #35548 (quantized GLM-5 without its MTP layer, case C01),
huggingface_hub issue #4725 (case C02), osaurus-ai/vmlx-swift PR #388 (case C03). Name layouts:
:mod:`specscope.audit.layout`.
"""

from __future__ import annotations

from specscope.audit.findings import Finding, Severity
from specscope.audit.layout import MtpLayout, mtp_layout
from specscope.checkpoint import INDEX_NAME, Checkpoint
from specscope.checkpoint.dtypes import PACKED_INT_DTYPES

__all__ = ["check_mtp"]

_CONSEQUENCE = (
    "serving with MTP speculation runs a head with uninitialised or missing weights on engines that do "
    "not validate: every draft is rejected (acceptance ~0) and decoding is slower than without MTP"
)


def _present(ck: Checkpoint, name: str) -> str | None:
    """The stored name satisfying a required ``X.weight`` (``X.weight_packed`` / ``X.qweight`` count)."""
    for cand in (name, name + "_packed", name[: -len("weight")] + "qweight" if name.endswith("weight") else name):
        if cand in ck.locations:
            return cand
    return None


def check_mtp(ck: Checkpoint) -> tuple[list[Finding], MtpLayout | None]:
    """Findings for the declared MTP head, and the layout used (None when the config declares no MTP).

    Codes: ``MTP_WEIGHTS_MISSING`` (ERROR, no tensor under the head's prefix), ``MTP_INCOMPLETE`` (ERROR, some
    required tensors missing), ``MTP_NOT_INDEXED`` (ERROR, tensors on disk but absent from the index),
    ``MTP_FC_SHAPE`` (ERROR, fusion projection not [hidden, 2*hidden]).
    """
    names = list(ck.locations) + [n for n in ck.weight_map if n not in ck.locations]
    layout = mtp_layout(ck.config, names)
    if layout is None:
        return [], None
    out: list[Finding] = []
    physical = sorted(n for n in ck.locations if layout.contains(n))
    prefix_text = ", ".join(layout.prefixes)
    declared = f"{layout.config_key}: {layout.num_layers}"
    if not physical:
        specific = (
            [n for n in layout.required if n.endswith(("enorm.weight", "hnorm.weight", "eh_proj.weight"))]
            if layout.style == "deepseek"
            else ["mtp.fc.weight"]
        )
        out.append(
            Finding(
                Severity.ERROR,
                "MTP_WEIGHTS_MISSING",
                f"config declares {layout.num_layers} MTP layer(s) (prefix {prefix_text}) but the checkpoint "
                f"holds 0 tensors under that prefix (0 of {len(specific)} MTP-specific tensors: {', '.join(specific)})",
                file="config.json",
                tensor=specific[0] if specific else None,
                found=f"0 tensors under {prefix_text}",
                expected=f"{len(layout.required)} tensors ({declared})",
                consequence=_CONSEQUENCE,
                fix="graft the MTP weights from the unquantized original (specscope surgery graft), or serve "
                "without MTP",
                details={
                    "prefixes": list(layout.prefixes),
                    "tensors_found": 0,
                    "required": list(layout.required),
                    "specific_missing": specific,
                },
            )
        )
        return out, layout

    missing = [n for n in layout.required if _present(ck, n) is None]
    if missing:
        n_req = len(layout.required)
        out.append(
            Finding(
                Severity.ERROR,
                "MTP_INCOMPLETE",
                f"config declares {layout.num_layers} MTP layer(s); {n_req - len(missing)} of {n_req} expected tensors "
                f"present; missing: {', '.join(missing)}",
                file="config.json",
                tensor=missing[0],
                found=f"{n_req - len(missing)} of {n_req}",
                expected=f"all {n_req} ({declared})",
                consequence=_CONSEQUENCE,
                fix="graft the missing tensors from the original model (e.g. mtp.fc.weight from Qwen3.6 "
                "revisions after 2026-07-21), or serve without MTP",
                details={"expected": n_req, "present": n_req - len(missing), "missing": missing},
            )
        )

    if ck.index is not None:
        unindexed = [n for n in physical if n not in ck.weight_map]
        if unindexed:
            shards = sorted({loc.shard for n in unindexed for loc in ck.locations[n]})
            out.append(
                Finding(
                    Severity.ERROR,
                    "MTP_NOT_INDEXED",
                    f"{len(unindexed)} of {len(physical)} MTP tensors are on disk ({', '.join(shards)}) but "
                    "absent from the index's weight_map",
                    file=INDEX_NAME,
                    tensor=unindexed[0],
                    found=f"{len(unindexed)} MTP tensors not indexed",
                    expected="every MTP tensor in weight_map",
                    consequence="index-driven loaders (vLLM, SGLang) do not load them: MTP runs uninitialised or is "
                    "reported as missing",
                    fix="add them to the index (specscope surgery reindex)",
                    details={"unindexed": unindexed, "shards": shards},
                )
            )

    fc_name = "mtp.fc.weight" if layout.style == "qwen" else f"{layout.prefixes[0]}eh_proj.weight"
    fc = ck.tensor(fc_name)
    h = layout.hidden_size
    if fc is not None and h:
        if fc.dtype in PACKED_INT_DTYPES and len(fc.shape) == 2:
            ok = fc.shape[0] == h and fc.shape[1] in (2 * h, h, 2 * h // 8)  # 4-bit codes packed 2 per U8 / 8 per I32
            want = f"[{h}, {2 * h}] (or a packed form)"
        else:
            ok = list(fc.shape) == [h, 2 * h]
            want = f"[{h}, {2 * h}]"
        if not ok:
            out.append(
                Finding(
                    Severity.ERROR,
                    "MTP_FC_SHAPE",
                    f"{fc_name} has shape {list(fc.shape)}, expected {want}",
                    file=ck.shard_of(fc_name),
                    tensor=fc_name,
                    found=f"{fc.dtype} {list(fc.shape)}",
                    expected=want,
                    consequence="the head fuses [embedding; hidden] (2*hidden inputs): load fails on a shape assert",
                    fix="take the tensor from a checkpoint with the same hidden_size",
                )
            )
    return out, layout
