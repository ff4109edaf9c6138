"""Write a tiny but real GGUF file (llama architecture metadata, Q4_1 / Q8_0 / F32 tensors) for tests.

Values are drawn from a seeded generator; the file is written with the gguf package's own writer.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def write_tiny_gguf(path: Path, seed: int = 0) -> dict[str, np.ndarray]:
    """Write ``path``; return the float32 weights that were quantized into it, by tensor name.

    Tensors (numpy shapes): ``blk.0.ffn_up.weight`` (8, 64) Q4_1; ``token_embd.weight`` (16, 64) Q8_0;
    ``blk.0.attn_norm.weight`` (64,) F32.
    """
    import gguf
    from gguf import quants

    rng = np.random.default_rng(seed)
    up_f32 = rng.normal(0.0, 0.05, size=(8, 64)).astype(np.float32)  # (rows, cols)
    emb_f32 = rng.normal(0.0, 0.5, size=(16, 64)).astype(np.float32)
    norm_f32 = rng.uniform(0.5, 1.5, size=(64,)).astype(np.float32)

    w = gguf.GGUFWriter(path, arch="llama")
    w.add_name("tiny-test")
    w.add_uint32("llama.block_count", 1)
    w.add_float32("llama.rope.freq_base", 10000.0)
    w.add_bool("tokenizer.ggml.add_bos_token", False)
    w.add_array("tokenizer.ggml.tokens", ["<s>", "a", "b"])
    w.add_array("tokenizer.ggml.token_type", [3, 1, 1])
    w.add_string("tokenizer.chat_template", "{{ messages }}")
    w.add_file_type(int(gguf.LlamaFileType.MOSTLY_Q4_1))
    q41 = gguf.GGMLQuantizationType.Q4_1
    q80 = gguf.GGMLQuantizationType.Q8_0
    up_q = quants.quantize(up_f32, q41)
    emb_q = quants.quantize(emb_f32, q80)
    w.add_tensor("token_embd.weight", emb_q, raw_shape=emb_q.shape, raw_dtype=q80)
    w.add_tensor("blk.0.attn_norm.weight", norm_f32)
    w.add_tensor("blk.0.ffn_up.weight", up_q, raw_shape=up_q.shape, raw_dtype=q41)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    # what the source file really holds (after its own Q4_1 / Q8_0 rounding)
    return {
        "token_embd.weight": quants.dequantize(emb_q, q80),
        "blk.0.attn_norm.weight": norm_f32,
        "blk.0.ffn_up.weight": quants.dequantize(up_q, q41),
    }
