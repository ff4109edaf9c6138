"""Rule 8: byte census - bytes by group and dtype, bytes read per decode step, draft share, bandwidth roofline.

Model: single-stream decode is memory-bandwidth bound, so a target forward pass reads every weight it uses once:
all language-model weights, one row of the embedding table (a lookup, not a matmul), only the routed share of MoE
experts (``num_experts_per_tok / num_experts``), and not the vision tower. A draft step reads the MTP / draft head
weights only (it shares the target's embedding and lm_head). Roofline ``tokens/s = bandwidth_bytes_per_s /
bytes_per_token``. Source: seed 003 ("every decoded token re-reads essentially all of it: 17.61 GB ... against GB10's
273 GB/s that sets a hard ceiling near 15.5 tok/s"; "the MTP head reads only 0.85 GB per draft step, 4.8% of a
target pass"); seed 002 (Qwen3.6 MTP head: 15 tensors, 849,398,784 bytes).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from specscope.audit.layout import MtpLayout, is_vision, layer_of
from specscope.checkpoint import Checkpoint
from specscope.stats.roofline import roofline_tok_s

__all__ = [
    "NAMED_BANDWIDTHS_BYTES_PER_S",
    "ByteCensus",
    "parse_bandwidth",
    "roofline_tokens_per_s",
    "byte_census",
    "GROUPS",
]

GROUPS = ("mlp", "full_attention", "linear_attention", "mtp_draft", "vision", "embeddings", "lm_head", "norms", "other")

#: named devices -> peak memory bandwidth in bytes/s (vendor data sheets).
NAMED_BANDWIDTHS_BYTES_PER_S: dict[str, float] = {
    "dgx-spark": 273e9,
    "gb10": 273e9,
    "h100": 3.35e12,
    "h100-pcie": 2.0e12,
    "h200": 4.8e12,
    "b200": 8.0e12,
    "a100": 2.039e12,
    "l40s": 864e9,
    "rtx4090": 1.008e12,
    "rtx5090": 1.792e12,
    "mi300x": 5.3e12,
    "m3-ultra": 819e9,
}


def parse_bandwidth(text: str) -> float:
    """Bytes per second from ``"273GB/s"``, ``"4.8TB/s"``, ``"800 GiB/s"`` or a device name (``dgx-spark``, ``h200``):
    the one bandwidth parser (:func:`specscope.values.parse_bandwidth`) with this module's device table.

    Raises:
        ConfigError: unparseable text or unknown device.
    """
    from specscope.values import parse_bandwidth as parse

    return parse(text, "--bandwidth", NAMED_BANDWIDTHS_BYTES_PER_S)


def roofline_tokens_per_s(bytes_per_token: float, bandwidth_bytes_per_s: float) -> float:
    """Upper bound on single-stream decode speed (tokens/s): bandwidth (bytes/s) / bytes read per token (bytes).

    The audit's name for :func:`specscope.stats.roofline.roofline_tok_s` (also ``stats.predict.roofline_tok_s``),
    which it calls (one formula).

    Raises:
        ConfigError: a non-positive input.
    """
    return roofline_tok_s(bytes_per_token, bandwidth_bytes_per_s)


@dataclass(frozen=True)
class ByteCensus:
    """Where a checkpoint's bytes are and how many a decode step reads.

    Attributes:
        total_bytes: all tensor bytes.
        bytes_by_group: group (see :data:`GROUPS`) -> stored bytes.
        bytes_by_dtype: dtype -> stored bytes.
        target_bytes_per_token: bytes one target forward pass reads (decode, batch 1).
        draft_bytes_per_step: bytes one MTP / draft step reads (0 without a head).
        draft_share: draft_bytes_per_step / target_bytes_per_token.
        bandwidth_bytes_per_s: the bandwidth used for the roofline (None when not given).
        roofline_tokens_per_s: bandwidth / target_bytes_per_token (None without a bandwidth).
    """

    total_bytes: int
    bytes_by_group: dict[str, int]
    bytes_by_dtype: dict[str, int]
    target_bytes_per_token: int
    draft_bytes_per_step: int
    draft_share: float
    bandwidth_bytes_per_s: float | None = None
    roofline_tokens_per_s: float | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def _group(name: str, ndim: int, mtp: MtpLayout | None, draft_model: bool) -> str:
    if draft_model or (mtp and mtp.contains(name)) or name.startswith("mtp."):
        return "mtp_draft"
    if is_vision(name):
        return "vision"
    if "embed_tokens" in name or name.endswith(("wte.weight", "word_embeddings.weight")):
        return "embeddings"
    if name.startswith("lm_head") or ".lm_head." in name or name.endswith("output.weight"):
        return "lm_head"
    lo = layer_of(name)
    rest = lo[2] if lo else name
    if ndim <= 1 and "norm" in rest:
        return "norms"
    if rest.startswith(("self_attn.", "attention.", "attn.")):
        return "full_attention"
    if rest.startswith(("linear_attn.", "mamba.", "mixer.")):
        return "linear_attention"
    if rest.startswith(("mlp.", "block_sparse_moe.", "feed_forward.", "moe.")):
        return "mlp"
    if "norm" in rest:
        return "norms"
    return "other"


def byte_census(
    ck: Checkpoint,
    *,
    mtp: MtpLayout | None = None,
    draft_model: bool = False,
    bandwidth_bytes_per_s: float | None = None,
) -> ByteCensus:
    """Census of ``ck`` from its headers (loader's copy of each tensor).

    Args:
        mtp: the MTP layout (from :func:`specscope.audit.layout.mtp_layout`) to count as draft bytes.
        draft_model: the whole checkpoint is a draft model (DFlash / EAGLE): everything is draft bytes.
        bandwidth_bytes_per_s: memory bandwidth for the roofline.
    """
    cfg = ck.text_config
    n_exp = cfg.get("num_experts") or cfg.get("n_routed_experts") or cfg.get("num_local_experts")
    top_k = cfg.get("num_experts_per_tok")
    moe_frac = (top_k / n_exp) if isinstance(n_exp, int) and isinstance(top_k, int) and n_exp > 0 else 1.0
    by_group = {g: 0 for g in GROUPS}
    by_dtype: dict[str, int] = {}
    target = 0.0
    draft = 0.0
    total = 0
    for name, info in ck.tensors().items():
        nbytes = info.nbytes
        total += nbytes
        g = _group(name, len(info.shape), mtp, draft_model)
        by_group[g] += nbytes
        by_dtype[info.dtype] = by_dtype.get(info.dtype, 0) + nbytes
        read = float(nbytes)
        if ".experts." in name or name.endswith((".experts.gate_up_proj", ".experts.down_proj")):
            read *= moe_frac
        if g == "mtp_draft":
            draft += read
        elif g == "vision":
            continue
        elif g == "embeddings":
            target += nbytes / info.shape[0] if info.shape and info.shape[0] else 0  # one row of [vocab, hidden]
        else:
            target += read
    tb, db = int(round(target)), int(round(draft))
    notes = []
    if moe_frac != 1.0:
        notes.append(f"MoE experts counted at {top_k}/{n_exp} of their bytes")
    return ByteCensus(
        total_bytes=total,
        bytes_by_group=by_group,
        bytes_by_dtype=dict(sorted(by_dtype.items())),
        target_bytes_per_token=tb,
        draft_bytes_per_step=db,
        draft_share=(db / tb) if tb else 0.0,
        bandwidth_bytes_per_s=bandwidth_bytes_per_s,
        roofline_tokens_per_s=roofline_tokens_per_s(tb, bandwidth_bytes_per_s)
        if bandwidth_bytes_per_s and tb
        else None,
        notes=notes,
    )
