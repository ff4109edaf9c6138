"""Small real checkpoints for the draft / family / census tests, written with the reference writers.

Weights are zeros in F16 (``safetensors.numpy.save_file``); vocabulary maps (EAGLE-3 ``d2t`` I64, ``t2d`` BOOL) carry
real values. Tokenizers are written as ``tokenizer.json`` in the huggingface/tokenizers serialisation
(``{"model": {"type": "BPE", "vocab": {token: id}}, "added_tokens": [...]}``) plus ``tokenizer_config.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file

H = 16  # hidden size of every test model
I = 32  # intermediate size  # noqa: E741

DENSE_LAYER = {
    "input_layernorm.weight": [H],
    "post_attention_layernorm.weight": [H],
    "self_attn.q_proj.weight": [H, H],
    "self_attn.k_proj.weight": [8, H],
    "self_attn.v_proj.weight": [8, H],
    "self_attn.o_proj.weight": [H, H],
    "mlp.gate_proj.weight": [I, H],
    "mlp.up_proj.weight": [I, H],
    "mlp.down_proj.weight": [H, I],
}


def eagle3_first(hidden: int = H) -> dict[str, list[int]]:
    """EAGLE-3's first layer over [embedding; hidden] (vLLM ``llama_eagle3.py`` @00bd1493, ``qkv_input_size = 2 *
    hidden_size`` for layer 0): q/k/v take ``2 * hidden`` inputs; plus its ``hidden_norm``. Pass as ``layer``'s
    ``extra``."""
    return {
        "self_attn.q_proj.weight": [H, 2 * hidden],
        "self_attn.k_proj.weight": [8, 2 * hidden],
        "self_attn.v_proj.weight": [8, 2 * hidden],
        "hidden_norm.weight": [hidden],
    }


def layer(prefix: str, extra: dict[str, list[int]] | None = None) -> dict[str, list[int]]:
    """One dense decoder layer's tensors under ``prefix`` (plus ``extra`` names)."""
    return {prefix + k: v for k, v in {**DENSE_LAYER, **(extra or {})}.items()}


def write(
    root: Path,
    shapes: dict[str, list[int]],
    config: dict,
    *,
    arrays: dict[str, np.ndarray] | None = None,
    tokens: list[str] | None = None,
    eos: str | None = None,
) -> Path:
    """A one-file checkpoint: ``model.safetensors`` (F16 zeros for ``shapes``, ``arrays`` as given), ``config.json``
    and, with ``tokens``, a tokenizer. Returns ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    tensors = {n: np.zeros(s, dtype=np.float16) for n, s in shapes.items()}
    tensors.update(arrays or {})
    save_file(tensors, str(root / "model.safetensors"), metadata={"format": "pt"})
    (root / "config.json").write_text(json.dumps(config, indent=2))
    if tokens is not None:
        write_tokenizer(root, tokens, eos=eos)
    return root


def write_tokenizer(root: Path, tokens: list[str], *, eos: str | None = None) -> None:
    """``tokenizer.json`` with ``tokens`` (id = position); the ``<...>`` ones are added special tokens."""
    vocab = {t: i for i, t in enumerate(tokens) if not t.startswith("<")}
    added = [{"id": i, "content": t, "special": True} for i, t in enumerate(tokens) if t.startswith("<")]
    doc = {"version": "1.0", "added_tokens": added, "model": {"type": "BPE", "vocab": vocab, "merges": []}}
    (root / "tokenizer.json").write_text(json.dumps(doc))
    cfg = {"eos_token": eos} if eos else {}
    (root / "tokenizer_config.json").write_text(json.dumps(cfg))


def vocab(n: int, *, seed: str = "t") -> list[str]:
    """``n`` distinct tokens: ``<eos>`` at 0, then ``{seed}{i}``."""
    return ["<eos>"] + [f"{seed}{i}" for i in range(1, n)]


def dense_model(n_layers: int, vocab_rows: int, *, tied: bool = False) -> dict[str, list[int]]:
    """A plain causal LM's tensors (``model.*`` + ``lm_head``)."""
    t = {"model.embed_tokens.weight": [vocab_rows, H], "model.norm.weight": [H]}
    for i in range(n_layers):
        t.update(layer(f"model.layers.{i}."))
    if not tied:
        t["lm_head.weight"] = [vocab_rows, H]
    return t


def dense_config(n_layers: int, vocab_size: int, **extra: object) -> dict:
    return {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": H,
        "intermediate_size": I,
        "num_hidden_layers": n_layers,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "vocab_size": vocab_size,
        "tie_word_embeddings": False,
        **extra,
    }


def nbytes(shapes: dict[str, list[int]]) -> int:
    """F16 bytes of ``shapes``."""
    return sum(int(np.prod(s)) * 2 for s in shapes.values())


def moe_mtp_config(arch: str, model_type: str, vocab_size: int, quantization_config: dict, **extra: object) -> dict:
    """config.json of a 2-layer DeepSeek-style MoE target (layer 0 dense, layer 1 MoE with 2 routed experts) with one
    MTP layer (``num_nextn_predict_layers: 1``, stored as ``model.layers.2.*``) and ``quantization_config``."""
    return {
        "architectures": [arch],
        "model_type": model_type,
        "hidden_size": H,
        "intermediate_size": I,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 2,
        "vocab_size": vocab_size,
        "num_nextn_predict_layers": 1,
        "n_routed_experts": 2,
        "first_k_dense_replace": 1,
        "torch_dtype": "bfloat16",
        **extra,
        "quantization_config": quantization_config,
    }
