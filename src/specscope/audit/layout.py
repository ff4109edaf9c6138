"""Tensor-name layout: which tensors form the MTP / next-n head, the decoder layers, and each linear module.

Sources for the names:
- Qwen3.5 / Qwen3.6 / Qwen3-Next MTP: ``mtp.fc``, ``mtp.pre_fc_norm_hidden``, ``mtp.pre_fc_norm_embedding``,
  ``mtp.layers.{i}.*``, ``mtp.norm`` (vLLM ``vllm/model_executor/models/qwen3_5_mtp.py`` and ``qwen3_next_mtp.py``;
  seed 000: ``mtp.fc.weight`` [5120, 10240] BF16 in Qwen3.6-27B; config key ``mtp_num_hidden_layers``, nested under
  ``text_config`` for vision-language checkpoints).
- DeepSeek-V3 / GLM-4.5 style next-n layers: ``model.layers.{num_hidden_layers + i}`` holding ``enorm``, ``hnorm``,
  ``eh_proj`` and ``shared_head.*`` (vLLM ``deepseek_mtp.py``; config key ``num_nextn_predict_layers``; case C01).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "QUANT_AUX_SUFFIXES",
    "KV_SCALE_SUFFIXES",
    "MtpLayout",
    "mtp_layout",
    "module_of",
    "layer_of",
    "weight_modules",
    "is_vision",
]

#: tensor-name suffixes that carry quantization parameters rather than weights (ModelOpt, compressed-tensors, Quark,
#: GPTQ/AWQ packs). A module with any of these next to its weight is quantized.
QUANT_AUX_SUFFIXES = (
    "weight_scale",
    "weight_scale_2",
    "weight_global_scale",
    "input_scale",
    "input_global_scale",
    "weight_zero_point",
    "weight_shape",
    "output_scale",
    "scales",
    "qzeros",
    "g_idx",
)
KV_SCALE_SUFFIXES = ("k_scale", "v_scale", "q_scale", "prob_scale")
_WEIGHT_SUFFIXES = ("weight", "weight_packed", "qweight")

_LAYER_RE = re.compile(r"^(?P<prefix>(?:.*\.)?)layers\.(?P<idx>\d{1,9})\.(?P<rest>.+)$")
_VISION_RE = re.compile(
    r"(^|\.)(visual|vision_tower|vision_model|vision_encoder|multi_modal_projector|mm_projector|"
    r"image_newline|merger)(\.|$)"
)


def is_vision(name: str) -> bool:
    """True for vision-tower / projector tensors (not read in text decode)."""
    return bool(_VISION_RE.search(name))


def module_of(tensor: str) -> tuple[str, str]:
    """Split ``a.b.c.weight_scale`` into module ``a.b.c`` and suffix ``weight_scale``."""
    module, _, suffix = tensor.rpartition(".")
    return module, suffix


def layer_of(tensor: str) -> tuple[str, int, str] | None:
    """``(prefix, index, rest)`` for a tensor under ``{prefix}layers.{index}.{rest}`` (index <= 9 digits), else None."""
    m = _LAYER_RE.match(tensor)
    if not m:
        return None
    return m.group("prefix"), int(m.group("idx")), m.group("rest")


def weight_modules(names: list[str] | set[str]) -> dict[str, str]:
    """Module -> its weight tensor name, for every tensor whose suffix is a weight (``weight_packed`` counts)."""
    out: dict[str, str] = {}
    for n in names:
        module, suffix = module_of(n)
        if suffix in _WEIGHT_SUFFIXES and module and module not in out:
            out[module] = n
    return out


@dataclass(frozen=True)
class MtpLayout:
    """The MTP / next-n head the config declares.

    Attributes:
        style: ``"qwen"`` (``mtp.*``) or ``"deepseek"`` (``model.layers.{N+i}``).
        num_layers: declared MTP layers.
        prefixes: tensor-name prefixes that belong to the head (e.g. ``("mtp.",)`` or ``("model.layers.2.",)``).
        required: weight tensors that must exist (names, sorted).
        config_key: the config key that declared it.
        hidden_size: the text model's hidden size (None when absent).
    """

    style: str
    num_layers: int
    prefixes: tuple[str, ...]
    required: tuple[str, ...]
    config_key: str
    hidden_size: int | None

    def contains(self, name: str) -> bool:
        return name.startswith(self.prefixes)


_DENSE_LAYER_TEMPLATE = (
    "input_layernorm.weight",
    "post_attention_layernorm.weight",
    "self_attn.q_proj.weight",
    "self_attn.k_proj.weight",
    "self_attn.v_proj.weight",
    "self_attn.o_proj.weight",
    "mlp.gate_proj.weight",
    "mlp.up_proj.weight",
    "mlp.down_proj.weight",
)


def _layer_template(names: list[str], *, exclude_prefix: str | None, prefer_index: int | None) -> tuple[str, ...]:
    """Weight suffixes of one main decoder layer with full attention (``self_attn``), normalised to ``.weight``.

    The MTP decoder layer mirrors a main full-attention layer (same attention, same MLP or MoE), so its expected
    tensor set is read from the checkpoint itself; a plain dense layer is assumed when no such layer exists.
    """
    layers: dict[tuple[str, int], list[str]] = {}
    for n in names:
        if n.startswith("mtp.") or is_vision(n) or (exclude_prefix and n.startswith(exclude_prefix)):
            continue
        lo = layer_of(n)
        if lo:
            layers.setdefault((lo[0], lo[1]), []).append(lo[2])
    attn = {k: v for k, v in layers.items() if any(r.startswith("self_attn.") for r in v)}
    if not attn:
        return _DENSE_LAYER_TEMPLATE
    key = max(attn, key=lambda k: (k[1] == prefer_index, k[1]))
    out = set()
    for rest in attn[key]:
        module, suffix = module_of(rest)
        if suffix in _WEIGHT_SUFFIXES:
            out.add(f"{module}.weight")
    return tuple(sorted(out))


def _int(cfg: dict, key: str) -> int:
    v = cfg.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


_QWEN_MTP_FIXED = (
    "mtp.fc.weight",
    "mtp.norm.weight",
    "mtp.pre_fc_norm_hidden.weight",
    "mtp.pre_fc_norm_embedding.weight",
)


def _qwen_mtp_layout(names: list[str], n_layers: int, key: str, hidden: int | None) -> MtpLayout:
    """Qwen-style ``mtp.*`` head: the fixed tensors plus ``n_layers`` copies of the checkpoint's layer template."""
    tmpl = _layer_template(names, exclude_prefix=None, prefer_index=None)
    req = [*_QWEN_MTP_FIXED, *(f"mtp.layers.{i}.{s}" for i in range(n_layers) for s in tmpl)]
    return MtpLayout("qwen", n_layers, ("mtp.",), tuple(sorted(req)), key, hidden)


def mtp_layout(config: dict | None, names: list[str]) -> MtpLayout | None:
    """The MTP head declared by ``config`` (top level or ``text_config``), or None when none is declared.

    Args:
        config: ``config.json`` as a dict.
        names: every tensor name in the checkpoint (union of index and headers).
    """
    if not config:
        return None
    cfgs = [config]
    if isinstance(config.get("text_config"), dict):
        cfgs.insert(0, config["text_config"])
    for cfg in cfgs:
        hidden = cfg.get("hidden_size") if isinstance(cfg.get("hidden_size"), int) else None
        n_qwen = _int(cfg, "mtp_num_hidden_layers")
        if n_qwen > 0:
            return _qwen_mtp_layout(names, n_qwen, "mtp_num_hidden_layers", hidden)
        n_ds = _int(cfg, "num_nextn_predict_layers")
        n_main = _int(cfg, "num_hidden_layers")
        if n_ds > 0 and n_main > 0:
            model_type = str(cfg.get("model_type", ""))
            if model_type.startswith("qwen3_next") or any(n.startswith("mtp.") for n in names):
                return _qwen_mtp_layout(names, n_ds, "num_nextn_predict_layers", hidden)
            main_prefix = "model."
            for n in names:
                lo = layer_of(n)
                if lo and not is_vision(n):
                    main_prefix = lo[0]
                    break
            prefixes = tuple(f"{main_prefix}layers.{n_main + i}." for i in range(n_ds))
            tmpl = _layer_template(
                [n for n in names if not n.startswith(prefixes)], exclude_prefix=None, prefer_index=n_main - 1
            )
            req = []
            for p in prefixes:
                req += [f"{p}enorm.weight", f"{p}hnorm.weight", f"{p}eh_proj.weight"]
                req += [f"{p}{s}" for s in tmpl]
            return MtpLayout("deepseek", n_ds, prefixes, tuple(sorted(req)), "num_nextn_predict_layers", hidden)
    return None
