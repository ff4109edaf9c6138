"""Run inside a venv with compressed-tensors + torch: dequantize NVFP4 tensors with compressed-tensors' own code.

Usage: python ct_reader.py OUT.npz SHARD::LAYOUT::MODULE...   (LAYOUT: modelopt | compressed-tensors)
For the ModelOpt layout the direct ``weight_scale_2`` is turned into CT's reciprocal global scale (1/x).
Writes, per job, ``<LAYOUT>|<module>|f32`` (unpack to float32 + ``dequantize``) and ``<module>|compressor``
(``<LAYOUT>|<module>|compressor``: ``NVFP4PackedCompressor.decompress``, CT's own bf16 path, upcast to float32).
A W4A4 module (``input_scale`` / ``input_global_scale`` present; ModelOpt's direct value turned into CT's 1/x)
also gets its activations through CT's own run-time path: ``<LAYOUT>|<module>|act_x`` (32 rows of normal values
scaled to the abs-max the stored scale stands for, 2688 / global) and ``|act_q`` (``compute_dynamic_scales_and_zp``
+ ``fake_quantize`` with the NVFP4 preset's ``input_activations`` and the stored global scale).
"""

import sys

import numpy as np
import torch
from compressed_tensors.compressors.nvfp4.base import NVFP4PackedCompressor
from compressed_tensors.compressors.nvfp4.helpers import unpack_fp4_from_uint8
from compressed_tensors.quantization import preset_name_to_scheme
from compressed_tensors.quantization.lifecycle.forward import dequantize, fake_quantize
from compressed_tensors.quantization.utils.helpers import compute_dynamic_scales_and_zp
from safetensors.torch import load_file

out_path, *jobs = sys.argv[1:]
scheme = preset_name_to_scheme("NVFP4A16", ["Linear"])
acts = preset_name_to_scheme("NVFP4", ["Linear"]).input_activations
result = {}
loaded = {}
for job in jobs:
    shard, layout, m = job.split("::")
    tensors = loaded.setdefault(shard, load_file(shard))
    if layout == "modelopt":
        packed = tensors[f"{m}.weight"]
        global_scale = (1.0 / tensors[f"{m}.weight_scale_2"].float()).reshape(1)
    else:
        packed = tensors[f"{m}.weight_packed"]
        global_scale = tensors[f"{m}.weight_global_scale"].float()
    scale = tensors[f"{m}.weight_scale"]
    rows, half = packed.shape
    x_q = unpack_fp4_from_uint8(packed, rows, half * 2, dtype=torch.float32)
    deq = dequantize(x_q=x_q, scale=scale.float(), args=scheme.weights, global_scale=global_scale, dtype=torch.float32)
    result[f"{layout}|{m}|f32"] = deq.numpy()
    act_name = f"{m}.input_scale" if layout == "modelopt" else f"{m}.input_global_scale"
    if act_name in tensors:
        stored = tensors[act_name].float().reshape(1)
        g_in = 1.0 / stored if layout == "modelopt" else stored
        x = torch.randn(32, half * 2, generator=torch.Generator().manual_seed(len(m)))
        x = x / x.abs().max() * (2688.0 / g_in)
        a_scale, a_zp = compute_dynamic_scales_and_zp(value=x, args=acts, module=None, global_scale=g_in)
        result[f"{layout}|{m}|act_x"] = x.numpy()
        result[f"{layout}|{m}|act_q"] = fake_quantize(x, a_scale, a_zp, acts, global_scale=g_in).float().numpy()
    sd = {"weight_packed": packed, "weight_scale": scale, "weight_global_scale": global_scale}
    result[f"{layout}|{m}|compressor"] = NVFP4PackedCompressor.decompress(sd, scheme)["weight"].float().numpy()
np.savez(out_path, **result)
