"""Quantize 2-D tensors to NVFP4 with compressed-tensors' own CPU code (run inside the compressed-tensors venv).

Usage: python ct_quantize_nvfp4.py IN.safetensors OUT.safetensors [GROUPS_JSON]

The reference specscope's ``compressed-tensors`` rules are checked against (tests/surgery/test_ct_bitexact.py,
benchmarks/quantize_draft.py). For every tensor of IN, one at a time, the way llm-compressor drives
compressed-tensors: ``generate_gparam`` on the tensor's (or its fused group's) abs-max, ``calculate_qparams`` on
the float32 per-block min / max with that global scale (NVFP4 preset weights), then
``NVFP4PackedCompressor.compress`` (``quantize_and_pack_fp4``; its CPU fallback when Triton has no GPU).
GROUPS_JSON: optional ``[[name, ...], ...]`` of tensors that share one global scale (q/k/v, gate/up).
OUT gets ``<name>_packed`` (U8), ``<name>_scale`` (F8_E4M3), ``<name>_global_scale`` (F32 [1]) per tensor
``<name>``. Prints one JSON line: elapsed seconds (after imports, reading and writing included), CPU seconds (all
threads), input bytes, peak RSS.
"""

import json
import resource
import sys
import time

import torch
from compressed_tensors.compressors.nvfp4.base import NVFP4PackedCompressor
from compressed_tensors.quantization import preset_name_to_scheme
from compressed_tensors.quantization.utils.helpers import calculate_qparams, generate_gparam
from safetensors import safe_open
from safetensors.torch import save_file


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    groups = json.loads(open(sys.argv[3]).read()) if len(sys.argv) > 3 else []
    scheme = preset_name_to_scheme("NVFP4A16", ["Linear"])
    t0 = time.perf_counter_ns()
    c0 = time.process_time()
    out = {}
    nbytes = 0
    with safe_open(src, "pt") as f:
        names = list(f.keys())
        amax = {n: f.get_tensor(n).abs().amax().float() for n in names}
        for g in groups:
            shared = torch.stack([amax[n] for n in g]).amax()
            amax.update({n: shared for n in g})
        for n in names:
            w = f.get_tensor(n)  # [out, in] bf16
            nbytes += w.numel() * w.element_size()
            a = amax[n].reshape(1)
            gscale = generate_gparam(-a, a)
            blocks = w.float().reshape(w.shape[0], -1, 16)
            scale, _ = calculate_qparams(blocks.amin(-1), blocks.amax(-1), scheme.weights, global_scale=gscale)
            sd = NVFP4PackedCompressor.compress(
                {"weight": w, "weight_scale": scale, "weight_global_scale": gscale}, scheme
            )
            out[f"{n}_packed"] = sd["weight_packed"].contiguous()
            out[f"{n}_scale"] = sd["weight_scale"].contiguous()
            out[f"{n}_global_scale"] = gscale.reshape(1).float().contiguous()
            del w, blocks, scale, sd
    save_file(out, dst)
    elapsed = (time.perf_counter_ns() - t0) / 1e9
    cpu = time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    for line in open("/proc/self/status"):  # this process's own high-water mark (ru_maxrss inherits the parent's)
        if line.startswith("VmHWM:"):
            peak = int(line.split()[1]) * 1024
    print(json.dumps({"elapsed_s": elapsed, "cpu_s": cpu, "input_bytes": nbytes, "peak_rss_bytes": peak}))


if __name__ == "__main__":
    main()
