"""Builds small Qwen3.6-layout checkpoints with the reference safetensors writer (``safetensors.serialize_file``).

Real Qwen3.6 names and layout (``qwen3_6_27b_config.json`` fixture; seed 000/002/004): a vision-language wrapper
(``model.language_model.*``, ``model.visual.*``), linear-attention layers (``linear_attn.*``) with a full-attention
layer every 4th index (``self_attn.*`` with ``q_norm``/``k_norm``), and a 15-tensor MTP head (``mtp.*``). Shapes are
small: hidden 64, intermediate 128, vocab 32, 4 layers (index 3 full attention). The NVFP4 variant follows the
ModelOpt layout: ``weight`` U8 [out, in/2], ``weight_scale`` F8_E4M3 [out, in/16], scalar F32 ``weight_scale_2`` and
``input_scale``; MLP and full-attention linears are quantized, the rest stays BF16 and is excluded.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
from safetensors import TensorSpec, serialize_file

H, INTER, V, L = 64, 128, 32, 4  # hidden, intermediate, vocab, layers
FULL = (3,)
_DT = {"BF16": ("bfloat16", 2), "F32": ("float32", 4), "U8": ("uint8", 1), "F8_E4M3": ("float8_e4m3fn", 1)}
EXCLUDE = [
    "lm_head",
    "model.language_model.embed_tokens",
    "model.language_model.layers.*.linear_attn*",
    "model.visual*",
    "mtp*",
]


def _layer(prefix: str, full: bool) -> dict[str, tuple[str, list[int]]]:
    t: dict[str, tuple[str, list[int]]] = {
        f"{prefix}input_layernorm.weight": ("BF16", [H]),
        f"{prefix}post_attention_layernorm.weight": ("BF16", [H]),
        f"{prefix}mlp.gate_proj.weight": ("BF16", [INTER, H]),
        f"{prefix}mlp.up_proj.weight": ("BF16", [INTER, H]),
        f"{prefix}mlp.down_proj.weight": ("BF16", [H, INTER]),
    }
    if full:
        t.update(
            {
                f"{prefix}self_attn.q_proj.weight": ("BF16", [2 * H, H]),
                f"{prefix}self_attn.k_proj.weight": ("BF16", [16, H]),
                f"{prefix}self_attn.v_proj.weight": ("BF16", [16, H]),
                f"{prefix}self_attn.o_proj.weight": ("BF16", [H, H]),
                f"{prefix}self_attn.q_norm.weight": ("BF16", [16]),
                f"{prefix}self_attn.k_norm.weight": ("BF16", [16]),
            }
        )
    else:
        t.update(
            {
                f"{prefix}linear_attn.in_proj_qkvz.weight": ("BF16", [4 * H, H]),
                f"{prefix}linear_attn.in_proj_ba.weight": ("BF16", [8, H]),
                f"{prefix}linear_attn.conv1d.weight": ("BF16", [3 * H, 1, 4]),
                f"{prefix}linear_attn.A_log": ("F32", [4]),
                f"{prefix}linear_attn.dt_bias": ("F32", [4]),
                f"{prefix}linear_attn.norm.weight": ("BF16", [16]),
                f"{prefix}linear_attn.out_proj.weight": ("BF16", [H, 2 * H]),
            }
        )
    return t


def tensor_specs(*, with_fc: bool = True, vocab: int = V) -> dict[str, tuple[str, list[int]]]:
    """BF16 Qwen3.6 tensors: name -> (dtype, shape). ``vocab`` sizes the embedding and lm_head rows."""
    t: dict[str, tuple[str, list[int]]] = {
        "model.language_model.embed_tokens.weight": ("BF16", [vocab, H]),
        "model.language_model.norm.weight": ("BF16", [H]),
        "lm_head.weight": ("BF16", [vocab, H]),
        "model.visual.patch_embed.proj.weight": ("BF16", [32, 3, 2, 2]),
        "model.visual.blocks.0.attn.qkv.weight": ("BF16", [96, 32]),
        "model.visual.merger.linear_fc1.weight": ("BF16", [H, 32]),
    }
    for i in range(L):
        t.update(_layer(f"model.language_model.layers.{i}.", i in FULL))
    t.update(
        {
            "mtp.pre_fc_norm_embedding.weight": ("BF16", [H]),
            "mtp.pre_fc_norm_hidden.weight": ("BF16", [H]),
            "mtp.norm.weight": ("BF16", [H]),
        }
    )
    if with_fc:
        t["mtp.fc.weight"] = ("BF16", [H, 2 * H])
    t.update(_layer("mtp.layers.0.", True))
    return t


def quantize_nvfp4(specs: dict[str, tuple[str, list[int]]], *, quantize_mtp: bool = False) -> dict:
    """ModelOpt NVFP4 layout for MLP and full-attention linears of the language model (and MTP if asked)."""
    out: dict[str, tuple[str, list[int]]] = {}
    for name, (dt, shape) in specs.items():
        module = name.rsplit(".", 1)[0]
        lang = name.startswith("model.language_model.layers.") and (".mlp." in name or ".self_attn." in name)
        mtp = quantize_mtp and name.startswith("mtp.") and len(shape) == 2
        if name.endswith(".weight") and len(shape) == 2 and (lang or mtp):
            out[name] = ("U8", [shape[0], shape[1] // 2])
            out[f"{module}.weight_scale"] = ("F8_E4M3", [shape[0], shape[1] // 16])
            out[f"{module}.weight_scale_2"] = ("F32", [])
            out[f"{module}.input_scale"] = ("F32", [])
        else:
            out[name] = (dt, shape)
    return out


def write_shard(path: Path, specs: dict[str, tuple[str, list[int]]], scalars: dict[str, float] | None = None) -> None:
    """Write a real safetensors file; F32 scalars get ``scalars[name]`` (default 0.001), everything else zeros."""
    scalars = scalars or {}
    keep = []
    tensors = {}
    for name, (dt, shape) in specs.items():
        st_dtype, itemsize = _DT[dt]
        n = int(np.prod(shape)) if shape else 1
        buf = np.zeros(n * itemsize, dtype=np.uint8)
        if dt == "F32" and not shape:
            buf[:] = np.frombuffer(struct.pack("<f", scalars.get(name, 0.001)), dtype=np.uint8)
        keep.append(buf)
        tensors[name] = TensorSpec(dtype=st_dtype, shape=shape, data_ptr=buf.ctypes.data, data_len=buf.nbytes)
    serialize_file(tensors, str(path), metadata={"format": "pt"})


def config(*, nvfp4: bool = False, exclude: list[str] | None = None, kv_scheme: dict | None = None) -> dict:
    text = {
        "model_type": "qwen3_5_text",
        "hidden_size": H,
        "intermediate_size": INTER,
        "vocab_size": V,
        "num_hidden_layers": L,
        "layer_types": ["full_attention" if i in FULL else "linear_attention" for i in range(L)],
        "mtp_num_hidden_layers": 1,
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
    }
    cfg: dict = {
        "architectures": ["Qwen3_5ForConditionalGeneration"],
        "model_type": "qwen3_5",
        "text_config": text,
        "vision_config": {"hidden_size": 32, "depth": 1},
    }
    if nvfp4:
        qc: dict = {
            "quant_method": "modelopt",
            "quant_algo": "NVFP4",
            "group_size": 16,
            "ignore": list(EXCLUDE if exclude is None else exclude),
        }
        if kv_scheme is not None:
            qc["kv_cache_scheme"] = kv_scheme
        cfg["quantization_config"] = qc
    return cfg


def hf_quant(*, exclude: list[str] | None = None, kv: str | None = None) -> dict:
    return {
        "producer": {"name": "modelopt", "version": "0.45.0"},
        "quantization": {
            "quant_algo": "NVFP4",
            "kv_cache_quant_algo": kv,
            "group_size": 16,
            "exclude_modules": list(EXCLUDE if exclude is None else exclude),
        },
    }


def build(
    root: Path,
    *,
    nvfp4: bool = False,
    with_fc: bool = True,
    quantize_mtp: bool = False,
    cfg_exclude: list[str] | None = None,
    hf_exclude: list[str] | None = None,
    hf_kv: str | None = None,
    cfg_kv: dict | None = None,
    kv_scales: bool = False,
    processors: bool = True,
    vocab: int = V,
) -> Path:
    """A two-shard checkpoint (language model | lm_head + MTP) with a correct index. Returns ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    specs = tensor_specs(with_fc=with_fc, vocab=vocab)
    if nvfp4:
        specs = quantize_nvfp4(specs, quantize_mtp=quantize_mtp)
    if kv_scales:
        for i in FULL:
            p = f"model.language_model.layers.{i}.self_attn."
            specs[p + "k_proj.k_scale"] = ("F32", [])
            specs[p + "v_proj.v_scale"] = ("F32", [])
    shard1 = {n: s for n, s in specs.items() if not n.startswith(("mtp.", "lm_head"))}
    shard2 = {n: s for n, s in specs.items() if n not in shard1}
    names = ("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")
    write_shard(root / names[0], shard1)
    write_shard(root / names[1], shard2)
    total = 0
    for dt, shape in specs.values():
        total += (int(np.prod(shape)) if shape else 1) * _DT[dt][1]
    index = {
        "metadata": {"total_size": total},
        "weight_map": {**{n: names[0] for n in shard1}, **{n: names[1] for n in shard2}},
    }
    (root / "model.safetensors.index.json").write_text(json.dumps(index, indent=2))
    (root / "config.json").write_text(json.dumps(config(nvfp4=nvfp4, exclude=cfg_exclude, kv_scheme=cfg_kv), indent=2))
    if nvfp4:
        (root / "hf_quant_config.json").write_text(json.dumps(hf_quant(exclude=hf_exclude, kv=hf_kv), indent=2))
    if processors:
        for n in ("preprocessor_config.json", "processor_config.json", "video_preprocessor_config.json"):
            (root / n).write_text("{}")
    return root
