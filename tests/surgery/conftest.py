"""Generated checkpoints for surgery tests: the real Qwen3.6 MTP tensor names with small shapes.

The safetensors files are written here with ``struct`` + ``json`` (independent of specscope's own writer):
u64 LE header length, JSON header padded with spaces to 8 bytes, tensors back to back.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from hangguard import HANG_S
from paths import FIXTURES

DT = {
    np.dtype(ml_dtypes.bfloat16): "BF16",
    np.dtype(np.float32): "F32",
    np.dtype(np.uint8): "U8",
    np.dtype(ml_dtypes.float8_e4m3fn): "F8_E4M3",
}

H, INTER, NH, NKV, HD = 64, 128, 4, 1, 16  # hidden, intermediate, heads, kv heads, head dim

# the 15 tensors of the Qwen3.6-27B MTP head (seed 002/004), shapes scaled down
MTP_SHAPES = {
    "mtp.fc.weight": (H, 2 * H),
    "mtp.layers.0.input_layernorm.weight": (H,),
    "mtp.layers.0.mlp.down_proj.weight": (H, INTER),
    "mtp.layers.0.mlp.gate_proj.weight": (INTER, H),
    "mtp.layers.0.mlp.up_proj.weight": (INTER, H),
    "mtp.layers.0.post_attention_layernorm.weight": (H,),
    "mtp.layers.0.self_attn.k_norm.weight": (HD,),
    "mtp.layers.0.self_attn.k_proj.weight": (NKV * HD, H),
    "mtp.layers.0.self_attn.o_proj.weight": (H, NH * HD),
    "mtp.layers.0.self_attn.q_norm.weight": (HD,),
    "mtp.layers.0.self_attn.q_proj.weight": (2 * NH * HD, H),
    "mtp.layers.0.self_attn.v_proj.weight": (NKV * HD, H),
    "mtp.norm.weight": (H,),
    "mtp.pre_fc_norm_embedding.weight": (H,),
    "mtp.pre_fc_norm_hidden.weight": (H,),
}
MTP_LINEARS = sorted(n[: -len(".weight")] for n, s in MTP_SHAPES.items() if len(s) == 2)


_CT_PROBE = (
    "import importlib.util as u, sys; "
    "sys.exit(0 if all(u.find_spec(m) for m in ('compressed_tensors', 'torch', 'safetensors')) else 1)"
)


def _ct_python() -> str | None:
    """A Python with compressed-tensors + torch: ``$SPECSCOPE_CT_PYTHON``, this one, or the venv of ``make ct-venv``."""
    candidates = [
        os.environ.get("SPECSCOPE_CT_PYTHON"),
        sys.executable,
        str(Path.home() / ".cache/specscope-test-venvs/ct/bin/python"),
    ]
    for py in candidates:
        if py and Path(py).exists() and subprocess.run([py, "-c", _CT_PROBE], timeout=HANG_S).returncode == 0:
            return py
    return None


#: compressed-tensors lives in a separate virtualenv so the project does not depend on torch (scripts/ct_venv.sh).
CT_PYTHON = _ct_python()
CT_SKIP_REASON = (
    "compressed-tensors not importable: make ct-venv (or set SPECSCOPE_CT_PYTHON to a Python with "
    "compressed-tensors and torch)"
)


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    """Write a safetensors file (independent reference writer for tests)."""
    header: dict = {"__metadata__": {"format": "pt"}}
    off = 0
    blobs = []
    for name, arr in tensors.items():
        raw = np.ascontiguousarray(arr).tobytes()
        header[name] = {"dtype": DT[arr.dtype], "shape": list(arr.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    hb = json.dumps(header).encode()
    hb += b" " * (-len(hb) % 8)
    path.write_bytes(struct.pack("<Q", len(hb)) + hb + b"".join(blobs))


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Read every tensor of a file (independent reference reader for tests)."""
    inv = {v: k for k, v in DT.items()}
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    header.pop("__metadata__", None)
    base = 8 + n
    return {
        k: np.frombuffer(
            data[base + v["data_offsets"][0] : base + v["data_offsets"][1]], dtype=inv[v["dtype"]]
        ).reshape(v["shape"])
        for k, v in header.items()
    }


def bf16(rng: np.random.Generator, shape, scale: float = 0.02) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(ml_dtypes.bfloat16)


def mtp_tensors(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        n: (bf16(rng, s) if len(s) == 2 else (1 + bf16(rng, s, 0.1).astype(np.float32)).astype(ml_dtypes.bfloat16))
        for n, s in MTP_SHAPES.items()
    }


def nvfp4_stub(rng: np.random.Generator, out_f: int, in_f: int, dialect: str = "modelopt") -> dict[str, np.ndarray]:
    """Random bytes of a W4A4 NVFP4 linear (the main model's MLPs; their values do not matter here), in the ModelOpt
    layout (direct scales) or compressed-tensors' (``weight_packed``, reciprocal ``[1]`` scales)."""
    packed = rng.integers(0, 256, (out_f, in_f // 2), dtype=np.uint8)
    block = np.full((out_f, in_f // 16), 224.0, np.float32).astype(ml_dtypes.float8_e4m3fn)
    if dialect == "compressed-tensors":
        return {
            "weight_packed": packed,
            "weight_scale": block,
            "weight_global_scale": np.array([1e3], np.float32),
            "input_global_scale": np.array([200.0], np.float32),
        }
    return {
        "weight": packed,
        "weight_scale": block,
        "weight_scale_2": np.array(1e-3, np.float32),
        "input_scale": np.array(5e-3, np.float32),
    }


def make_qwen36_checkpoint(
    root: Path,
    *,
    seed: int = 0,
    mtp: dict[str, np.ndarray] | None = None,
    dialect: str = "modelopt",
    ignore: list[str] | None = None,
) -> Path:
    """A 3-shard ModelOpt MIXED_PRECISION checkpoint: main MLP NVFP4, attention BF16 (excluded), MTP BF16.

    Shard 1: embeddings + layer 0 (untouched by draft surgery). Shard 2: final norm, lm_head, mtp.fc and the
    MTP norms (mixed). Shard 3: the other MTP tensors only.
    """
    root.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    mtp = mtp if mtp is not None else mtp_tensors(seed + 100)
    s1 = {"model.embed_tokens.weight": bf16(rng, (32, H)), "model.layers.0.input_layernorm.weight": bf16(rng, (H,))}
    for proj, (o, i) in {"gate_proj": (INTER, H), "up_proj": (INTER, H), "down_proj": (H, INTER)}.items():
        for k, v in nvfp4_stub(rng, o, i, dialect).items():
            s1[f"model.layers.0.mlp.{proj}.{k}"] = v
    for proj, (o, i) in {
        "q_proj": (2 * NH * HD, H),
        "k_proj": (HD, H),
        "v_proj": (HD, H),
        "o_proj": (H, NH * HD),
    }.items():
        s1[f"model.layers.0.self_attn.{proj}.weight"] = bf16(rng, (o, i))
    s2 = {"model.norm.weight": bf16(rng, (H,)), "lm_head.weight": bf16(rng, (32, H))}
    in_s2 = {n for n in mtp if n == "mtp.fc.weight" or len(mtp[n].shape) == 1}
    s2.update({n: mtp[n] for n in sorted(in_s2)})
    s3 = {n: mtp[n] for n in sorted(mtp) if n not in in_s2}
    shards = {
        "model-00001-of-00003.safetensors": s1,
        "model-00002-of-00003.safetensors": s2,
        "model-00003-of-00003.safetensors": s3,
    }
    for name, t in shards.items():
        write_safetensors(root / name, t)
    wm = {n: s for s, t in shards.items() for n in t}
    total = sum(a.nbytes for t in shards.values() for a in t.values())
    (root / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": total}, "weight_map": dict(sorted(wm.items()))}, indent=2) + "\n"
    )
    layers = {
        f"model.layers.0.mlp.{p}": {"quant_algo": "NVFP4", "group_size": 16}
        for p in ("down_proj", "gate_proj", "up_proj")
    }
    if ignore is None and dialect == "compressed-tensors":  # its own pattern syntax: names and re: (utils/match.py)
        ignore = ["lm_head", r"re:model\.layers\.0\.self_attn\..*", r"re:^mtp\..*"]
    ignore = ignore if ignore is not None else ["lm_head", "model.layers.0.self_attn*", "mtp*"]
    cfg = {
        "architectures": ["Qwen3_5ForConditionalGeneration"],
        "model_type": "qwen3_5",
        "hidden_size": H,
        "mtp_num_hidden_layers": 1,
        "torch_dtype": "bfloat16",
    }
    if dialect == "modelopt":
        cfg["quantization_config"] = {
            "quant_method": "modelopt",
            "quant_algo": "MIXED_PRECISION",
            "kv_cache_scheme": None,
            "quantized_layers": layers,
            "ignore": ignore,
            "producer": {"name": "modelopt", "version": "0.44.0"},
        }
        hf = {
            "producer": {"name": "modelopt", "version": "0.44.0"},
            "quantization": {
                "quant_algo": "MIXED_PRECISION",
                "kv_cache_quant_algo": None,
                "quantized_layers": layers,
                "exclude_modules": list(ignore),
            },
        }
        (root / "hf_quant_config.json").write_text(json.dumps(hf, indent=4) + "\n")
    else:
        ct = json.loads((FIXTURES / "ct_nvfp4_devstral_quantization_config.json").read_text())
        ct["ignore"] = ignore
        cfg["quantization_config"] = ct
    (root / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    (root / "tokenizer.json").write_text('{"model": "stub"}\n')
    return root


def tree_hashes(root: Path) -> dict[str, tuple[str, int]]:
    """name -> (sha256, inode) of every file in a folder."""
    return {
        p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_ino)
        for p in sorted(root.iterdir())
        if p.is_file()
    }


@pytest.fixture
def qwen36(tmp_path: Path) -> Path:
    return make_qwen36_checkpoint(tmp_path / "qwen36-nvfp4")
