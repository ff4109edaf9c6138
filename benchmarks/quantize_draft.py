"""Benchmark: NVFP4-quantize the Qwen3.6-27B MTP head's 8 linears (0.79 GiB of BF16, random data) on the CPU.

Shapes are the real head's (seed 004: 849,398,784 payload bytes with the norms): hidden 5120, intermediate
17408, 24 query heads x 256 (gated q_proj: 2x), 4 KV heads x 256. Reports GB/s of BF16 input and peak
memory for specscope's numpy codec, and, when a compressed-tensors venv is available (``--ct-python``,
default ``~/.cache/specscope-test-venvs/ct/bin/python``), compressed-tensors' own CPU quantization
(``calculate_qparams`` + ``quantize_and_pack_fp4``) of the same data in a child process.

Usage: ``python benchmarks/quantize_draft.py [--scale 1.0] [--ct-python PATH] [--format json]``
(``--scale 0.1`` shrinks every out_features for a quick run.) Not a unit test: run by hand.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import ml_dtypes
import numpy as np

from specscope.surgery.nvfp4 import quantize_nvfp4

H, I, Q, KV = 5120, 17408, 2 * 24 * 256, 4 * 256
SHAPES = {  # [out, in] of the 8 linears of the Qwen3.6-27B MTP head
    "mtp.fc": (H, 2 * H), "q_proj": (Q, H), "k_proj": (KV, H), "v_proj": (KV, H), "o_proj": (H, 24 * 256),
    "gate_proj": (I, H), "up_proj": (I, H), "down_proj": (H, I),
}


def make_weight(name: str, shape: tuple[int, int], seed: int) -> np.ndarray:
    """Deterministic random weight, float32 [out, in] (converted to BF16 by each side)."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02))


def bench_specscope(shapes: dict[str, tuple[int, int]]) -> dict:
    total_bytes = 0
    elapsed_ns = 0
    for i, (name, shape) in enumerate(shapes.items()):
        w = make_weight(name, shape, i).astype(ml_dtypes.bfloat16)  # [out, in] bf16
        t0 = time.perf_counter_ns()
        quantize_nvfp4(w, name=name)
        elapsed_ns += time.perf_counter_ns() - t0
        total_bytes += w.nbytes
        del w
    peak_bytes = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"tool": "specscope (numpy)", "input_bytes": total_bytes, "elapsed_s": elapsed_ns / 1e9,
            "gb_per_s": total_bytes / elapsed_ns, "peak_rss_bytes": peak_bytes}


CT_SCRIPT = textwrap.dedent("""
    import json, resource, sys, time
    import numpy as np, torch
    from compressed_tensors.compressors.nvfp4.helpers import quantize_and_pack_fp4
    from compressed_tensors.quantization import preset_name_to_scheme
    from compressed_tensors.quantization.utils.helpers import calculate_qparams, generate_gparam
    shapes = json.loads(sys.argv[1])
    args = preset_name_to_scheme("NVFP4A16", ["Linear"]).weights
    total = 0; elapsed = 0
    for i, (name, shape) in enumerate(shapes.items()):
        rng = np.random.default_rng(i)
        w = torch.from_numpy(rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)).to(torch.bfloat16)
        t0 = time.perf_counter_ns()
        amax = w.abs().amax().float()
        g = generate_gparam(-amax.reshape(1), amax.reshape(1))
        blocks = w.float().reshape(shape[0], -1, 16)
        scale, _ = calculate_qparams(blocks.amin(-1), blocks.amax(-1), args, global_scale=g)
        quantize_and_pack_fp4(w, scale, global_scale=g, group_size=16)
        elapsed += time.perf_counter_ns() - t0
        total += w.numel() * 2
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"tool": "compressed-tensors (torch CPU)", "input_bytes": total, "elapsed_s": elapsed / 1e9,
                      "gb_per_s": total / elapsed, "peak_rss_bytes": peak}))
""")


def bench_ct(python: str, shapes: dict[str, tuple[int, int]]) -> dict | None:
    if not Path(python).exists():
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(CT_SCRIPT)
    p = subprocess.run([python, fh.name, json.dumps(shapes)], capture_output=True, text=True,
                       env={"TORCHDYNAMO_DISABLE": "1", "PATH": "/usr/bin:/bin"})
    Path(fh.name).unlink()
    if p.returncode != 0:
        return {"tool": "compressed-tensors (torch CPU)", "error": p.stderr.strip().splitlines()[-1:]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every out_features (1.0 = real head)")
    ap.add_argument("--ct-python", default=str(Path.home() / ".cache/specscope-test-venvs/ct/bin/python"))
    ap.add_argument("--format", choices=("text", "json"), default="text")
    a = ap.parse_args()
    shapes = {k: (max(16, int(o * a.scale) // 16 * 16), i) for k, (o, i) in SHAPES.items()}
    rows = [bench_specscope(shapes)]
    ct = bench_ct(a.ct_python, shapes)
    if ct is not None:
        rows.append(ct)
    if a.format == "json":
        print(json.dumps(rows, indent=2))
        return
    for r in rows:
        if "error" in r:
            print(f"{r['tool']:32s} failed: {r['error']}")
            continue
        print(f"{r['tool']:32s} {r['input_bytes'] / 2**30:6.3f} GiB BF16 in {r['elapsed_s']:7.2f} s = "
              f"{r['gb_per_s']:6.3f} GB/s; peak RSS {r['peak_rss_bytes'] / 2**30:5.2f} GiB")


if __name__ == "__main__":
    sys.exit(main())
