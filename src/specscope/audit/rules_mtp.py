"""Rule 3: the MTP / next-n head the config declares is complete, indexed and correctly shaped.

Sources: seed 000 (Qwen3.6-27B uploads before 2026-07-21 lack ``mtp.fc.weight`` [5120, 10240] BF16; vLLM serves them
without error and rejects every draft), vLLM PR #35548 (quantized GLM-5 without its MTP layer, case C01),
huggingface_hub issue #4725 (case C02), osaurus-ai/vmlx-swift PR #388 (case C03). Name layouts:
:mod:`specscope.audit.layout`.
"""

from __future__ import annotations

from specscope.audit.catalog import finding
from specscope.audit.findings import Finding
from specscope.audit.layout import MtpLayout, mtp_layout
from specscope.checkpoint import INDEX_NAME, Checkpoint
from specscope.checkpoint.dtypes import PACKED_INT_DTYPES

__all__ = ["check_mtp"]


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
            finding(
                "MTP_WEIGHTS_MISSING",
                file="config.json",
                tensor=specific[0] if specific else None,
                layers=layout.num_layers,
                prefixes=prefix_text,
                n_specific=len(specific),
                specific=", ".join(specific),
                required=len(layout.required),
                declared=declared,
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
            finding(
                "MTP_INCOMPLETE",
                file="config.json",
                tensor=missing[0],
                layers=layout.num_layers,
                present=n_req - len(missing),
                required=n_req,
                missing=", ".join(missing),
                declared=declared,
                details={"expected": n_req, "present": n_req - len(missing), "missing": missing},
            )
        )

    if ck.index is not None:
        unindexed = [n for n in physical if n not in ck.weight_map]
        if unindexed:
            shards = sorted({loc.shard for n in unindexed for loc in ck.locations[n]})
            out.append(
                finding(
                    "MTP_NOT_INDEXED",
                    file=INDEX_NAME,
                    tensor=unindexed[0],
                    unindexed=len(unindexed),
                    physical=len(physical),
                    shards=", ".join(shards),
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
            shape = list(fc.shape)
            out.append(
                finding(
                    "MTP_FC_SHAPE", file=ck.shard_of(fc_name), tensor=fc_name, shape=shape, dtype=fc.dtype, want=want
                )
            )
    return out, layout
