"""Benchmark: local audit of a 2,400-tensor checkpoint (headers only) must take under 0.5 s.

Builds a Qwen3.6-27B-shaped tensor *inventory* (64 layers, 48 linear-attention + 16 full-attention, ModelOpt NVFP4
scale tensors, a vision tower, the 15-tensor MTP head; 2,402 tensors over 4 shards) with tiny shapes, writes it
with the reference safetensors writer, then times ``audit_checkpoint`` (best of 5, ``perf_counter_ns``).

Run: ``.venv/bin/python benchmarks/audit_headers.py`` (prints JSON; exit 1 when over budget).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from safetensors import TensorSpec, serialize_file

from specscope.audit import audit_checkpoint

BUDGET_NS = 500_000_000
LAYERS, FULL_EVERY = 64, 4
#: vision blocks of 12 tensors each; 72 brings the inventory to 2,402 tensors (the real export has 2,398-2,399).
VISION_BLOCKS = 72


def _specs() -> dict[str, tuple[str, list[int]]]:
    t: dict[str, tuple[str, list[int]]] = {
        "model.language_model.embed_tokens.weight": ("bfloat16", [32, 16]),
        "model.language_model.norm.weight": ("bfloat16", [16]),
        "lm_head.weight": ("bfloat16", [32, 16]),
    }

    def linear(name: str, quant: bool) -> None:
        if quant:
            t[name + ".weight"] = ("uint8", [16, 8])
            t[name + ".weight_scale"] = ("float8_e4m3fn", [16, 1])
            t[name + ".weight_scale_2"] = ("float32", [])
            t[name + ".input_scale"] = ("float32", [])
        else:
            t[name + ".weight"] = ("bfloat16", [16, 16])

    for i in range(LAYERS):
        p = f"model.language_model.layers.{i}."
        t[p + "input_layernorm.weight"] = ("bfloat16", [16])
        t[p + "post_attention_layernorm.weight"] = ("bfloat16", [16])
        for m in ("gate_proj", "up_proj", "down_proj"):
            linear(p + "mlp." + m, True)
        if i % FULL_EVERY == FULL_EVERY - 1:
            for m in ("q_proj", "k_proj", "v_proj", "o_proj"):
                linear(p + "self_attn." + m, True)
            t[p + "self_attn.q_norm.weight"] = ("bfloat16", [16])
            t[p + "self_attn.k_norm.weight"] = ("bfloat16", [16])
        else:
            for m in ("in_proj_qkvz", "in_proj_ba", "out_proj"):
                linear(p + "linear_attn." + m, False)
            t[p + "linear_attn.conv1d.weight"] = ("bfloat16", [16, 1, 4])
            t[p + "linear_attn.A_log"] = ("float32", [4])
            t[p + "linear_attn.dt_bias"] = ("float32", [4])
            t[p + "linear_attn.norm.weight"] = ("bfloat16", [16])
    for b in range(VISION_BLOCKS):
        p = f"model.visual.blocks.{b}."
        for m in ("attn.qkv", "attn.proj", "mlp.linear_fc1", "mlp.linear_fc2"):
            t[p + m + ".weight"] = ("bfloat16", [16, 16])
            t[p + m + ".bias"] = ("bfloat16", [16])
        for m in ("norm1", "norm2"):
            t[p + m + ".weight"] = ("bfloat16", [16])
            t[p + m + ".bias"] = ("bfloat16", [16])
    for n in ("fc", "norm", "pre_fc_norm_hidden", "pre_fc_norm_embedding"):
        t[f"mtp.{n}.weight"] = ("bfloat16", [16, 32] if n == "fc" else [16])
    for m in ("q_proj", "k_proj", "v_proj", "o_proj"):
        t[f"mtp.layers.0.self_attn.{m}.weight"] = ("bfloat16", [16, 16])
    for m in ("q_norm", "k_norm"):
        t[f"mtp.layers.0.self_attn.{m}.weight"] = ("bfloat16", [16])
    for m in ("gate_proj", "up_proj", "down_proj"):
        t[f"mtp.layers.0.mlp.{m}.weight"] = ("bfloat16", [16, 16])
    for m in ("input_layernorm", "post_attention_layernorm"):
        t[f"mtp.layers.0.{m}.weight"] = ("bfloat16", [16])
    return t


_ITEM = {"bfloat16": 2, "float32": 4, "uint8": 1, "float8_e4m3fn": 1}


def build(root: Path, shards: int = 4) -> int:
    specs = _specs()
    names = list(specs)
    weight_map: dict[str, str] = {}
    keep = []
    total = 0
    for s in range(shards):
        fname = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        part = {}
        for n in names[s::shards]:
            dt, shape = specs[n]
            nbytes = (int(np.prod(shape)) if shape else 1) * _ITEM[dt]
            buf = np.zeros(nbytes, np.uint8)
            keep.append(buf)
            part[n] = TensorSpec(dtype=dt, shape=shape, data_ptr=buf.ctypes.data, data_len=nbytes)
            weight_map[n] = fname
            total += nbytes
        serialize_file(part, str(root / fname))
    (root / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map})
    )
    exclude = [
        "lm_head",
        "model.language_model.embed_tokens",
        "model.visual*",
        "model.language_model.layers.*.linear_attn*",
        "mtp*",
    ]
    (root / "config.json").write_text(
        json.dumps(
            {
                "architectures": ["Qwen3_5ForCausalLM"],
                "model_type": "qwen3_5_text",
                "hidden_size": 16,
                "num_hidden_layers": LAYERS,
                "mtp_num_hidden_layers": 1,
                "vocab_size": 32,
                "vision_config": {"depth": VISION_BLOCKS},
                "quantization_config": {
                    "quant_method": "modelopt",
                    "quant_algo": "NVFP4",
                    "group_size": 16,
                    "ignore": exclude,
                },
            }
        )
    )
    for name in ("preprocessor_config.json", "processor_config.json", "video_preprocessor_config.json"):
        (root / name).write_text("{}")
    (root / "hf_quant_config.json").write_text(
        json.dumps(
            {
                "quantization": {
                    "quant_algo": "NVFP4",
                    "group_size": 16,
                    "kv_cache_quant_algo": None,
                    "exclude_modules": exclude,
                }
            }
        )
    )
    return len(specs)


def main() -> int:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        n = build(root)
        times = []
        for _ in range(5):
            t0 = time.perf_counter_ns()
            report = audit_checkpoint(root)
            times.append(time.perf_counter_ns() - t0)
        best = min(times)
        out = {
            "tensors": n,
            "findings": report.codes,
            "best_ns": best,
            "median_ns": sorted(times)[2],
            "budget_ns": BUDGET_NS,
            "ok": best < BUDGET_NS,
        }
        print(json.dumps(out))
        return 0 if out["ok"] and not report.findings else 1


if __name__ == "__main__":
    sys.exit(main())
