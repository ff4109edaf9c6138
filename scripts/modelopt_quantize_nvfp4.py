"""Quantize 2-D tensors to NVFP4 with NVIDIA ModelOpt's own code (run inside the reference venv, ``make ct-venv``).

Usage: python modelopt_quantize_nvfp4.py IN.safetensors OUT.safetensors [GROUPS_JSON]

The reference specscope's ``modelopt`` rules are checked against (tests/surgery/test_ct_bitexact.py). For every
tensor of IN: ``weights_scaling_factor_2 = amax / (6 * 448)`` from the tensor's (or its fused group's) abs-max, the
way ModelOpt's export computes it (``NVFP4QTensor.get_weights_scaling_factor_2``), then
``NVFP4QTensor.quantize(w, 16, weights_scaling_factor_2=...)`` on the CPU (its PyTorch path; the TensorRT-LLM kernel
is GPU only). GROUPS_JSON: optional ``[[name, ...], ...]`` sharing one per-tensor scale. OUT gets ``<name>_packed``
(U8), ``<name>_scale`` (F8_E4M3), ``<name>_scale_2`` (F32 [1]) per tensor ``<name>``.
"""

import json
import sys

import torch
from modelopt.torch.quantization.qtensor.nvfp4_tensor import NVFP4QTensor
from safetensors.torch import load_file, save_file


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    groups = json.loads(open(sys.argv[3]).read()) if len(sys.argv) > 3 else []
    tensors = load_file(src)
    amax = {n: w.abs().amax().float() for n, w in tensors.items()}
    for g in groups:
        shared = torch.stack([amax[n] for n in g]).amax()
        amax.update({n: shared for n in g})
    out = {}
    for n, w in tensors.items():
        q, scale, scale2 = NVFP4QTensor.quantize(w, 16, weights_scaling_factor_2=amax[n] / (6.0 * 448.0))
        out[f"{n}_packed"] = q._quantized_data.contiguous()
        out[f"{n}_scale"] = scale.contiguous()
        out[f"{n}_scale_2"] = scale2.reshape(1).float().contiguous()
    save_file(out, dst)


if __name__ == "__main__":
    main()
