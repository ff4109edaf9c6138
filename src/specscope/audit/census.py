"""Rule 8: byte census - bytes by group and dtype, bytes read per decode step as engines read them, the roofline.

Model: single-stream decode is memory-bandwidth bound, so a target forward pass reads every weight it uses once:
all language-model weights, one row of the embedding table (a lookup, not a matmul; the whole table when it is also
the head: ``tie_word_embeddings`` with no ``lm_head``), only the routed share of MoE experts (``num_experts_per_tok /
num_experts``), and not the vision tower. A draft step is counted by the rule of its family
(:mod:`.architectures`), as the engine loads it:

- an MTP head (Qwen3.5/3.6, DeepSeek/GLM, MiMo) reads its own tensors once per step; engines take its embedding
  and head from the target (vLLM ``llm_base_proposer.load_model``: "Detected MTP model. Sharing target model
  embedding / lm_head weights"), so the copies a checkpoint carries (DeepSeek's ``model.layers.61.embed_tokens`` and
  ``shared_head.head``) are never read and are not counted;
- a separate draft (EAGLE, EAGLE-3, DFlash, Medusa, MLP speculator, a dense draft model) reads each of its layers, one
  row of its own embedding, and its own head at its stored size (an EAGLE-3 head over a reduced vocabulary is
  smaller); a head or embedding it takes from the target is counted as shared.

``draft_bytes_per_step`` holds the draft's own weights read per step; ``draft_shared_bytes_per_step`` what the step
reads of the target's weights (the shared head and one embedding row), which ``predict --lm-head-bytes`` models.
``draft_rule`` says which rule applied. Roofline ``tokens/s = bandwidth_bytes_per_s / bytes_per_token``. Sources:
seed 003 ("every decoded token re-reads essentially all of it: 17.61 GB ... against GB10's 273 GB/s that sets a hard
ceiling near 15.5 tok/s"; "the MTP head reads only 0.85 GB per draft step, 4.8% of a target pass"); seed 002
(Qwen3.6 MTP head: 15 tensors, 849,398,784 bytes).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from specscope.audit.architectures import DraftLayout, alias_name, is_stage_embedding
from specscope.audit.layout import is_embedding, is_vision, layer_of
from specscope.checkpoint import Checkpoint, TensorInfo
from specscope.stats.roofline import roofline_tok_s

__all__ = [
    "NAMED_BANDWIDTHS_BYTES_PER_S",
    "ByteCensus",
    "parse_bandwidth",
    "roofline_tokens_per_s",
    "byte_census",
    "GROUPS",
]

GROUPS = (
    "mlp",
    "full_attention",
    "linear_attention",
    "mtp_draft",
    "draft_shared_copies",
    "vision",
    "embeddings",
    "lm_head",
    "norms",
    "other",
)

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
        bytes_by_group: group (see :data:`GROUPS`) -> stored bytes (``draft_shared_copies``: a draft's copies of
            tensors the engine takes from the target, never read).
        bytes_by_dtype: dtype -> stored bytes.
        target_bytes_per_token: bytes one target forward pass reads (decode, batch 1); None for a draft checkpoint
            audited alone (no target here: unknown, not zero).
        draft_bytes_per_step: bytes of the draft's own weights one draft step reads (0 without a draft; None when
            the config declares a head that holds no tensor: unknown, not zero).
        draft_share: draft_bytes_per_step / target_bytes_per_token (None when either is unknown).
        bandwidth_bytes_per_s: the bandwidth used for the roofline (None when not given).
        roofline_tokens_per_s: bandwidth / target_bytes_per_token (None without a bandwidth).
        draft_shared_bytes_per_step: bytes of the target's weights a draft step reads (its head and one embedding
            row when shared); None when the target's sizes are unknown or there is no draft.
        draft_rule: the rule the draft bytes follow (family, engine, what was counted and what was not).
        lm_head_bytes: bytes of the head a target step reads (the embedding table when tied).
        embedding_row_bytes: bytes of one embedding row.
    """

    total_bytes: int
    bytes_by_group: dict[str, int]
    bytes_by_dtype: dict[str, int]
    target_bytes_per_token: int | None
    draft_bytes_per_step: int | None
    draft_share: float | None
    bandwidth_bytes_per_s: float | None = None
    roofline_tokens_per_s: float | None = None
    notes: list[str] = field(default_factory=list)
    draft_shared_bytes_per_step: int | None = None
    draft_rule: str | None = None
    lm_head_bytes: int = 0
    embedding_row_bytes: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _group(name: str, ndim: int, in_draft: bool) -> str:
    if in_draft:
        return "mtp_draft"
    if is_vision(name):
        return "vision"
    if is_embedding(name):
        return "embeddings"
    if _is_head(name):
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


def _is_head(name: str) -> bool:
    return name.startswith("lm_head") or ".lm_head." in name or name.endswith("output.weight")


def _moe_fraction(cfg: dict[str, Any]) -> tuple[float, str | None]:
    n_exp = cfg.get("num_experts") or cfg.get("n_routed_experts") or cfg.get("num_local_experts")
    top_k = cfg.get("num_experts_per_tok")
    if isinstance(n_exp, int) and isinstance(top_k, int) and n_exp > 0 and top_k != n_exp:
        return top_k / n_exp, f"MoE experts counted at {top_k}/{n_exp} of their bytes"
    return 1.0, None


def _is_expert(name: str) -> bool:
    return ".experts." in name or name.endswith((".experts.gate_up_proj", ".experts.down_proj"))


def _rows(info: TensorInfo) -> int:
    return info.shape[0] if info.shape and info.shape[0] else 1


@dataclass
class _Tally:
    by_group: dict[str, int]
    by_dtype: dict[str, int]
    target: float = 0.0
    draft: float = 0.0
    total: int = 0
    embedding_bytes: int = 0
    embedding_rows: int = 1
    head_bytes: int = 0
    copies: int = 0
    copies_bytes: int = 0
    draft_tensors: int = 0
    elsewhere: int = 0


def _tied(ck: Checkpoint, tensors: dict[str, Any]) -> bool:
    """The embedding is also the head: no lm_head tensor and ``tie_word_embeddings`` (or no head at all)."""
    has_head = any(_is_head(n) for n in tensors if not is_vision(n))
    return not has_head and ck.text_config.get("tie_word_embeddings", True) is not False


def _count_draft(t: _Tally, name: str, info: TensorInfo, read: float, layout: DraftLayout | None, whole: bool) -> None:
    t.draft_tensors += 1
    if layout is not None and layout.family.kind == "mtp" and name in layout.shareable:
        t.copies += 1
        t.copies_bytes += info.nbytes
        t.by_group["mtp_draft"] -= info.nbytes
        t.by_group["draft_shared_copies"] += info.nbytes
        return
    if layout is not None and layout.family.vocab_map == "eagle3" and alias_name(layout.family, name) in ("d2t", "t2d"):
        return  # d2t: an index each drafted id is looked up in; t2d: never loaded (llama_eagle3.py @00bd1493)
    if whole and layout is not None and is_stage_embedding(layout.family, alias_name(layout.family, name)):
        t.draft += info.nbytes / _rows(info)  # one row per step; not the draft's head (MLP speculator)
        return
    if whole and is_embedding(alias_name(layout.family, name) if layout else name):
        t.embedding_bytes += info.nbytes
        t.embedding_rows = _rows(info)
        t.draft += info.nbytes / _rows(info)
        return
    t.draft += read


def _draft_rule(
    layout: DraftLayout | None, whole: bool, t: _Tally, moe_note: str | None, unjudged: tuple[str, ...] = ()
) -> str | None:
    if layout is None and not whole:
        return None
    if layout is None or layout.family.key == "draft_model":
        return (
            "separate draft model: every layer, its norm and its head once per draft step, one embedding row "
            "(vLLM draft_model.py loads it as an ordinary model)"
        )
    fam = layout.family
    if fam.kind == "mtp" and t.draft_tensors - t.copies == 0 and t.elsewhere:
        where = ", ".join(unjudged)
        outside = f"the head's {t.elsewhere} tensors under {where} are outside that layout"
        return f"{fam.title}: {outside}: its bytes per step are unknown"
    if fam.kind == "mtp" and t.draft_tensors - t.copies == 0:
        return f"{fam.title}: the checkpoint holds none of the head's tensors: its bytes per step are unknown"
    if fam.kind == "mtp":
        text = (
            f"{fam.title}: the head's {t.draft_tensors - t.copies} own tensors once per draft step"
            + (f" ({moe_note})" if moe_note else "")
            + "; embedding and lm_head are the target's (vLLM llm_base_proposer.load_model shares them for MTP)"
        )
        if t.copies:
            text += f"; {t.copies} copies of shared tensors in the checkpoint ({t.copies_bytes:,} bytes) not read"
        return text
    shared = [s.split(".")[0] for s in fam.shareable]
    return f"{fam.title}: each draft layer once per step, one embedding row, its own head at its stored size" + (
        f"; {', '.join(shared)} taken from the target when absent (llm_base_proposer.load_model)" if shared else ""
    )


def byte_census(
    ck: Checkpoint,
    *,
    layout: DraftLayout | None = None,
    draft_model: bool = False,
    bandwidth_bytes_per_s: float | None = None,
    unread: tuple[str, ...] = (),
    unjudged: tuple[str, ...] = (),
    unknown_format: str | None = None,
) -> ByteCensus:
    """Census of ``ck`` from its headers (loader's copy of each tensor).

    Args:
        layout: the draft the checkpoint carries: an MTP head inside it (its tensors are draft bytes), or, with
            ``draft_model``, the family of a separate draft checkpoint.
        draft_model: the whole checkpoint is a draft model: everything is draft bytes, counted by its family's rule.
        bandwidth_bytes_per_s: memory bandwidth for the roofline.
        unread: prefixes of tensors no engine loads (an MTP head the config does not declare): stored under
            ``mtp_draft``, read neither by the target nor by a draft step.
        unjudged: prefixes of an MTP head of a model type outside the census stored outside ``layout`` (the nearest
            family's): the head's tensors, stored under ``mtp_draft``, never the target's; its bytes per step unknown.
        unknown_format: the architecture of a draft of a format outside the census: the whole checkpoint is a draft
            (no target bytes) whose bytes per step are unknown (never 0, never another family's rule).
    """
    draft_model = draft_model or unknown_format is not None
    moe_frac, moe_note = _moe_fraction(ck.text_config)
    tensors = ck.tensors()
    tied = _tied(ck, tensors)
    t = _Tally({g: 0 for g in GROUPS}, {})
    for name, info in tensors.items():
        nbytes = info.nbytes
        t.total += nbytes
        skip = bool(unread) and name.startswith(unread)
        in_draft = not skip and (draft_model or (layout is not None and layout.contains(name)))
        elsewhere = not in_draft and bool(unjudged) and name.startswith(unjudged)
        g = _group(name, len(info.shape), in_draft or skip or elsewhere)
        t.by_group[g] += nbytes
        t.by_dtype[info.dtype] = t.by_dtype.get(info.dtype, 0) + nbytes
        t.elsewhere += int(elsewhere)
        if skip or elsewhere:
            continue
        read = float(nbytes) * (moe_frac if _is_expert(name) else 1.0)
        if in_draft:
            _count_draft(t, name, info, read, layout, draft_model)
        elif g == "embeddings":
            t.embedding_bytes += nbytes
            t.embedding_rows = _rows(info)
            t.target += nbytes if tied else nbytes / _rows(info)
        elif g == "lm_head":
            t.head_bytes += nbytes
            t.target += read
        elif g != "vision":
            t.target += read
    if draft_model and tied and t.embedding_bytes:  # a tied draft reads its whole embedding as the head
        t.draft += t.embedding_bytes - t.embedding_bytes / t.embedding_rows
    tb = None if draft_model else int(round(t.target))  # a separate draft alone holds no target weights
    empty_head = layout is not None and layout.family.kind == "mtp" and t.draft_tensors - t.copies == 0
    db = None if empty_head or unknown_format is not None else int(round(t.draft))
    notes = [moe_note] if moe_note else []
    if unread:
        notes.append(f"MTP head under {', '.join(unread)} not run here: stored, never read per step")
    if tied and t.embedding_bytes:
        notes.append("tied embeddings: the embedding table is read whole as the head each step")
    return ByteCensus(
        total_bytes=t.total,
        bytes_by_group=t.by_group,
        bytes_by_dtype=dict(sorted(t.by_dtype.items())),
        target_bytes_per_token=tb,
        draft_bytes_per_step=db,
        draft_share=db / tb if tb and db is not None else None,
        bandwidth_bytes_per_s=bandwidth_bytes_per_s,
        roofline_tokens_per_s=roofline_tokens_per_s(tb, bandwidth_bytes_per_s)
        if bandwidth_bytes_per_s and tb
        else None,
        notes=notes,
        draft_shared_bytes_per_step=_mtp_shared(t, tied)
        if layout is not None and layout.family.kind == "mtp"
        else None,
        draft_rule=f"a draft format outside the census ({unknown_format}): its bytes per step are unknown"
        if unknown_format is not None
        else _draft_rule(layout, draft_model, t, moe_note, unjudged),
        lm_head_bytes=t.embedding_bytes if tied else t.head_bytes,
        embedding_row_bytes=int(round(t.embedding_bytes / t.embedding_rows)) if t.embedding_bytes else 0,
    )


def _mtp_shared(t: _Tally, tied: bool) -> int:
    """An MTP step reads the target's head and one embedding row."""
    row = t.embedding_bytes / t.embedding_rows if t.embedding_bytes else 0.0
    return int(round((t.embedding_bytes if tied else t.head_bytes) + row))


def with_draft(target: ByteCensus, draft: ByteCensus, layout: DraftLayout | None, draft_ck: Checkpoint) -> ByteCensus:
    """``target``'s census with a separate draft's bytes per step: its own weights, plus what it reads of the
    target's (the head and embedding it does not carry itself, for families that share them)."""
    names = set(draft_ck.tensors())
    shared = 0
    if layout is not None:
        fam = layout.family
        own = {alias_name(fam, n) for n in names}
        if "lm_head.weight" in layout.shareable and "lm_head.weight" not in own:  # EAGLE-3: full vocabulary only
            shared += target.lm_head_bytes
        if "embed_tokens.weight" in layout.shareable and "embed_tokens.weight" not in own:
            shared += target.embedding_row_bytes
    d = draft.draft_bytes_per_step
    tb = target.target_bytes_per_token
    return replace(
        target,
        draft_bytes_per_step=d,
        draft_share=d / tb if tb and d is not None else None,
        draft_shared_bytes_per_step=shared,
        draft_rule=draft.draft_rule,
    )
